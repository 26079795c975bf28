/* apply: the second half of the plan. Everything the plan says is done as
 * one transaction: the journal holds the prior state first, files are
 * replaced atomically, runtime values are written and read back, the
 * follow-up tools run; any failure undoes what was done. */
#pragma once

#include <stdbool.h>

#include "context.h"
#include "planner.h"

typedef struct {
        char *txid;            /* NULL when nothing changed */
        bool changed;
        bool reboot_required;
        char **notes;          /* what apply learnt (HugePages short, ...) */
        char **undo_messages;  /* after a failure: what the rollback did */
        bool undo_incomplete;  /* after a failure: the undo did not finish */
} ht_apply_result;

void ht_apply_result_done(ht_apply_result *r);

/* Apply a plan built by ht_make_plan (which must have no errors). The
 * caller holds the run lock. Updates the plan's changes' outcomes.
 * 0, or -errno with *ret_error set and the host as it was. */
int ht_apply(const ht_context *c, ht_planning *p, ht_apply_result *ret, char **ret_error);

/* HugePages_Total from /proc/meminfo under the context (as the facts read
 * it: format-meminfo.h), or -errno; -ENODATA when it gives none. */
int ht_read_hugepages_total(const ht_context *c, uint64_t *ret);
