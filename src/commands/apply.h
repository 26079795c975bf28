/* apply: the second half of the plan. Everything the plan says is done as
 * one transaction: the journal holds the prior state first, files are
 * replaced atomically, runtime values are written and read back, the
 * follow-up tools run; any failure undoes what was done. */
#pragma once

#include <stdbool.h>

#include "context.h"
#include "journal.h"
#include "planner.h"

typedef struct {
        char *txid;            /* NULL when nothing changed */
        bool changed;
        bool reboot_required;
        char **notes;          /* what apply learnt (HugePages short, ...) */
        char **undo_messages;  /* after a failure: what the rollback did */
        bool undo_incomplete;  /* after a failure: the host is not back as it was */
        bool host_changed;     /* after a failure: whether it came after the first change */
} ht_apply_result;

void ht_apply_result_done(ht_apply_result *r);

/* Apply a plan built by ht_make_plan (which must have no errors). The
 * caller holds the run lock. Updates the plan's changes' outcomes.
 * 0, or -errno with *ret_error set and the host as it was. */
int ht_apply(const ht_context *c, ht_planning *p, ht_apply_result *ret, char **ret_error);

/* A follow-up that makes restored files take effect, as apply ran it
 * for the applied ones (daemon-reload; argv for a tool: logind's SIGHUP).
 * Only on the running host. 1 when it ran, 0 when there is nothing to
 * run here, -errno when it failed, with a note in *notes saying what to
 * run by hand (the files are restored either way). */
int ht_follow_up_run(const ht_context *c, const char *action, char *const *argv, char ***notes);

/* After a rollback (or the undo of a failed apply) restored the files of
 * txs: their follow-ups, each once, in order, each command taken from
 * hosttune's table by its action (ht_follow_up_get), never from the
 * journal; an action it does not know is named and not run. What ran goes
 * into *msgs as "followed up: DESCRIPTION", what failed as what to run by
 * hand. */
void ht_rollback_follow_ups(const ht_context *c, ht_tx *const *txs, size_t n, char ***msgs);

/* HugePages_Total from /proc/meminfo under the context (as the facts read
 * it: format-meminfo.h), or -errno; -ENODATA when it gives none. */
int ht_read_hugepages_total(const ht_context *c, uint64_t *ret);
