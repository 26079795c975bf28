/* The resolver as the rules engine (rules.c) and the backends' canon_key
 * see it: an opaque ht_resolver and the functions they may call on it.
 * The contract points one way: the resolver runs the rules
 * (ht_rules_run) and the backends' descriptors; they call back only
 * through these, never into its state (resolver-internal.h). */
#pragma once

#include <stdbool.h>
#include <string.h>

#include "expr.h"
#include "profile-model.h"
#include "profile.h"
#include "util.h"

typedef struct ht_resolver ht_resolver;

/* a, b and c joined: the "what" of an evaluation's messages ("rule NAME:
 * when"), built for each evaluation and read only on an error, so on the
 * stack when short and without printf; else in *heap (the caller frees). */
static inline const char *ht_what(char small[static 128], char **heap, const char *a, const char *b,
                                  const char *c) {
        size_t na = strlen(a), nb = strlen(b), nc = strlen(c);
        char *d = small;
        *heap = NULL;
        if (na + nb + nc >= 128)
                d = *heap = xmalloc(na + nb + nc + 1);
        memcpy(d, a, na);
        memcpy(d + na, b, nb);
        memcpy(d + na + nb, c, nc + 1);
        return d;
}

/* A spec's value, expressions evaluated over the facts, the parameters
 * and the settings so far; errors name file:line and what. */
int ht_spec_eval(ht_resolver *r, const ht_spec *sp, const char *file, unsigned line,
                 const char *what, ht_value *ret, char **ret_error);
/* The same for messages: unknown values read "unknown". */
int ht_spec_eval_message(ht_resolver *r, const ht_spec *sp, const char *file, unsigned line,
                         const char *what, char **ret, char **ret_error);
/* A key field of entry e (a string or a number that must be known) as
 * text: for a backend's canon_key. what: "sysctl vm.x", field: "key". */
int ht_entry_eval_string(ht_resolver *r, const ht_spec *sp, const ht_entry *e, const char *what,
                         const char *field, char **ret, char **ret_error);
/* A setting's strings live in the resolver's arena, then in the resolved
 * profile's (ht_resolved.arena): never free() one. These copy a string,
 * a format or a key field (as ht_entry_eval_string) into it. */
char *ht_resolver_strdup(ht_resolver *r, const char *s);
char *ht_resolver_printf(ht_resolver *r, const char *fmt, ...) _printf_(2, 3);
int ht_entry_eval_field(ht_resolver *r, const ht_spec *sp, const ht_entry *e, const char *what,
                        const char *field, char **ret, char **ret_error);
/* An entry as a setting (*ret); *ret_skipped when its `when` does not
 * hold or an optional value is unknown (then listed as skipped). An entry
 * without a value (a rule's flags only) gives a setting without one. */
int ht_entry_eval(ht_resolver *r, const ht_entry *e, const char *what, ht_setting *ret,
                  bool *ret_skipped, char **ret_error);

/* The setting asked for so far that is like `like` (the same backend,
 * key and target), or NULL; *ret_pinned (may be NULL): its value is
 * from --set, which rules keep. Valid until the next add or drop. */
ht_setting *ht_resolver_setting(ht_resolver *r, const ht_setting *like, bool *ret_pinned);
/* Add or override a setting; takes s. rule is NULL for profile settings;
 * origin: the chain entry it comes from, -1 for a rule. */
int ht_resolver_add(ht_resolver *r, ht_setting *s, int origin, const char *rule,
                    const char *file, unsigned line, char **ret_error);
/* Drop a setting ht_resolver_setting gave. */
void ht_resolver_drop(ht_resolver *r, ht_setting *s);
/* What the resolution says besides its settings. */
void ht_resolver_warn(ht_resolver *r, const char *fmt, ...) _printf_(2, 3);
void ht_resolver_error(ht_resolver *r, const char *fmt, ...) _printf_(2, 3);
void ht_resolver_skip(ht_resolver *r, const char *setting, const char *reason, const char *source);
/* A rule changes the boot entry: the plan needs a reboot. */
void ht_resolver_reboot_required(ht_resolver *r);

/* rules.c: the rules files in order over the resolver. */
int ht_rules_run(ht_resolver *r, ht_rfile *const *rfiles, size_t n_rfiles, char **ret_error);
