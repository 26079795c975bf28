/* Running the distribution's tools (grub2-mkconfig, update-grub) with an
 * argument vector, never through a shell, and systemd's daemon-reload
 * over D-Bus. */
#pragma once

#include "context.h"

/* Run argv (argv[0] a path, or a name looked up in PATH). Under a --root
 * that is not "/" only with --live-root (-EPERM otherwise), and then
 * confined in the tree: its own mount and PID namespaces, no capability,
 * no_new_privs (see spawn.c). Returns the exit status (0..255) or -errno
 * when it could not run; *ret_output gets what it printed (stdout and
 * stderr, at most 64 KiB). */
int ht_spawn(const ht_context *c, char *const *argv, char **ret_output);

/* Whether argv[0] can be run in the context's root. */
bool ht_spawn_available(const ht_context *c, char *const *argv);

/* Ask the running systemd to reload its units (sd-bus, Manager.Reload).
 * 0, or -errno with *ret_error set. */
int ht_daemon_reload(char **ret_error);
