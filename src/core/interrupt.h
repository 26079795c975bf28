/* Termination signals held off while a transaction changes the host.
 *
 * An apply killed half-way leaves the host half-changed until the next
 * hosttune run recovers it: that run may be the one a boot starts, after
 * the boot has read the half-written sysctl.d and tmpfiles.d. SIGINT (an
 * impatient ^C), SIGTERM (systemctl stop, a configuration manager's
 * timeout) and SIGHUP (the ssh session that dropped) are none of them a
 * reason for that: apply and rollback catch them instead, and apply
 * undoes what it changed at its next step (ht_apply); a rollback, and
 * the recovery every command starts with, finish first. SIGKILL and a
 * power cut still leave it to the recovery. */
#pragma once

/* Catch SIGINT, SIGTERM and SIGHUP from now on (SA_RESTART), each that
 * is not ignored already (nohup's SIGHUP stays ignored); the programs
 * the run starts get the default back at execve. */
void ht_interrupt_defer(void);
/* The first of them received since ht_interrupt_defer, or 0. */
int ht_interrupted(void);
/* Its name ("SIGINT"), for messages. */
const char *ht_interrupt_name(int sig);
