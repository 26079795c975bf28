/* Composition by meaning (issue 37): several workload profiles on one
 * host (a profile inheriting from two or more of them, or "oracle+jvm" on
 * the command line) are resolved each on its own branch, then combined
 * setting by setting by what each setting means, not by the order of the
 * inherit list. Pure: no host access; profile.c drives it. */
#pragma once

#include <json-c/json.h>

#include "profile.h"

struct ht_resolver;

/* What compose.c needs from the rest of the profile room, passed in so
 * that it calls nothing back (no call cycle): a setting's label for
 * messages ("sysctl vm.swappiness") and a backend's name ("sysctl"). */
typedef struct {
        char *(*label)(const ht_setting *s);
        const char *(*backend_name)(ht_backend_id id);
} ht_compose_ops;

/* Whether chain entry i of r is on the branch of workload profile only
 * (NULL: every entry is): only itself, its ancestors, and the profiles
 * that inherit it. */
bool ht_compose_in_branch(const struct ht_resolver *r, size_t i, const char *only);
/* The workload profiles of r's chain (ht_compose_is_workload), less any
 * that another of them inherits (a child refines its parent); NULL: none. */
char **ht_compose_workloads(const struct ht_resolver *r);

/* The parameters through which a profile declares what its values mean
 * (hosttune.profile(5), COMPOSITION): each a list of names separated by
 * blanks, a name being a parameter whose value a rule turns into the
 * setting ("thp") or BACKEND.KEY of a setting ("sysctl.vm.swappiness"). */
#define HT_COMPOSE_REQUIRES "requires" /* cannot run without: beats prefers */
#define HT_COMPOSE_PREFERS "prefers"   /* a preference: gives way to requires */
#define HT_COMPOSE_LOWEST "lowest"     /* the lowest of the values serves all */
#define HT_COMPOSE_SUMMED "summed"     /* each workload needs its own: summed */

/* Whether a profile file declaring params (names, n) is a workload
 * profile that composes by meaning: it sizes HugePages
 * (hugepages_bytes) or declares requires/prefers. */
bool ht_compose_is_workload(char *const *param_names);

/* Combine the per-workload resolutions subs[0..n) (names[i] the workload
 * profile of each, in inherit order) into res: its settings, warnings,
 * errors and skipped entries are replaced by the composed ones, and
 * res->composed lists every combined setting with its contributors.
 * facts: for the HugePages cap (facts.memory.total_kb). A contradiction
 * the profiles do not resolve (an empty range, two requires that differ)
 * fails with -EINVAL and *ret_error naming both files and lines; res is
 * then unchanged. */
int ht_compose(ht_resolved *res, ht_resolved *const *subs, char *const *names, size_t n,
               json_object *facts, const ht_compose_ops *ops, char **ret_error);

/* show's text for res->composed ("" when NULL): per combined setting its
 * result, how it was reached and every contributor. */
char *ht_compose_format_text(json_object *composed);
