/* Facts + profile + every backend → one plan. The first half of apply:
 * plan and apply both call this, so a dry run is exact. */
#pragma once

#include "context.h"
#include "facts.h"
#include "plan.h"
#include "profile.h"

typedef struct {
        ht_facts *facts;
        ht_resolved *resolved;
        ht_plan *plan;
        char **sets;  /* the --set arguments as given, for the journal */
} ht_planning;

/* Collect facts, resolve profile with sets, and ask every backend. A
 * profile that cannot be resolved is -errno with *ret_error set; problems
 * found by the backends are in plan->errors (the plan must not be
 * applied then). */
int ht_make_plan(const ht_context *c, const char *profile, char *const *sets, ht_planning *ret, char **ret_error);
void ht_planning_done(ht_planning *p);

/* Whether apply runs a's tool (a bootloader's, not daemon-reload): it is
 * there, and an offline image's is run only as root. */
bool ht_action_runs_tool(const ht_context *c, const ht_post_action *a);

/* Why apply cannot put in place the file a's tool writes (grub.cfg): a
 * read-only mount; and, when the tool's arguments name the file, so that
 * apply renames the tool's output over it, what refuses a file's rename
 * (ht_write_refusal, an immutable or append-only directory). 0 when
 * nothing does. */
int ht_generated_refusal(const ht_context *c, const ht_post_action *a);
