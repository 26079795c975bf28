/* Fault injection for crash-safety tests. With HOSTTUNE_FAULT_AFTER set,
 * the process kills itself with SIGKILL right after the named step, so a
 * test can stop apply at every step in turn and check that the next run
 * recovers. Without the variable every call is a no-op.
 *
 *   HOSTTUNE_FAULT_AFTER=STEP      the first time STEP is reached
 *   HOSTTUNE_FAULT_AFTER=STEP:N    the Nth time STEP is reached
 *   HOSTTUNE_FAULT_AFTER=N         the Nth fault point of any name
 *
 * Steps called by the journal and file helpers:
 *   atomic-temp      temp file written and fsynced, not yet renamed
 *   tx-begin         a new transaction's manifest is on disk (pending)
 *   record-backup    an item's backup file is written, manifest not yet
 *   record           an item's prior state is in the manifest
 *   done             an item is marked done in the manifest
 *   pre-commit       every item done, status still pending
 *   commit           status committed is on disk
 *   rollback-item    one item of a rollback was restored
 *   rollback-status  a rolled-back transaction's new status is on disk
 * The apply command adds its own (e.g. apply-file, apply-runtime) between
 * the record and done of each change.
 *
 * HOSTTUNE_FAULT_TRACE=1 prints each fault point reached to stderr
 * ("hosttune: fault point N: STEP"), so a crash test knows which step
 * its Nth kill lands on without asking the journal it is testing.
 *
 * HOSTTUNE_FAULT_PAUSE takes the same values as HOSTTUNE_FAULT_AFTER but
 * stops there instead of dying: it prints "hosttune: fault point N: STEP:
 * paused (HOSTTUNE_FAULT_PAUSE)" to stderr and waits forever, so the
 * real-boot power-cut test can cut a guest's power at that exact step;
 * a signal that apply and rollback catch (interrupt.h) ends the wait, so
 * a test can interrupt that step too. */
#pragma once

void ht_fault_point(const char *step);
/* Failure injection for the paths that handle a refused write: with
 * HOSTTUNE_FAULT_FAIL=STEP[:N][,STEP[:N]]..., the Nth time (default the
 * first) STEP is reached returns -EIO, as if the kernel had refused the
 * write; 0 otherwise. Steps: apply-runtime-write (apply writes a runtime
 * value), restore-runtime (a rollback or undo writes one back). */
int ht_fault_fail(const char *step);
/* Forget the counters (for tests that fork repeatedly). */
void ht_fault_reset(void);
