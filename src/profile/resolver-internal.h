/* The resolver's state and what its files (profile.c, profile-eval.c,
 * profile-entry.c, profile-set.c, profile-settings.c, profile-inherit.c,
 * profile-paths.c) call of each other. The rules engine and the backends
 * see none of it: they have resolver.h. Not for other rooms. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "context.h"
#include "format-accounts.h"
#include "profile-model.h"
#include "resolver.h"

/* A parameter during resolution. */
typedef struct {
        char *name;           /* in the resolver's arena, as source */
        ht_spec spec;
        char *source;         /* "file:line" or "--set"; NULL: "file:line" not made
                               * yet (ht_param_source) */
        const char *citation; /* the declaration's comment (borrowed); NULL after --set */
        const char *file;     /* for messages: where the spec is written */
        unsigned line;
        int state;            /* 0 not evaluated, 1 evaluating, 2 done */
        ht_value value;
        char *from;           /* the host files its value came from (a fact's
                               * NAME_from), ", "-joined; NULL: none */
} ht_rparam;

/* A name an expression looked up, as it read then (profile-eval.c): a
 * plan names some 20 facts 50 times, and each look-up walked json-c
 * objects by string key three times (the fact, its NAME_from, its
 * workload's warnings) and asked the facts room for it again; the rules
 * read a few settings 30 times, each a scan of all settings. */
typedef struct {
        const char *name;     /* after "facts." or "setting.", in arena; NULL: a free slot */
        uint64_t hash;
        unsigned gen;         /* facts_gen or settings_gen when read: valid while current */
        ht_value value;
        const char *from;     /* a fact's NAME_from (arena), NULL: none */
} ht_name_memo;

/* The names looked up so far, a hash of a power-of-two size. */
typedef struct {
        ht_name_memo *slots;
        size_t size, n;
} ht_memo;

typedef struct {
        ht_setting s;         /* first: ht_resolver_drop takes its address */
        bool pinned;          /* from --set sysctl.KEY=VALUE: rules keep its value */
        int origin;           /* index into the chain, or -1 for a rule */
        const char *file;
        unsigned line;
        /* the line of origin's entry without a `when` that set it, 0: none
         * (a second such entry in one file is an error; one with a `when`
         * may override: tuned's [sysctl] and [sysctl.thunderx]) */
        unsigned plain_line;
} ht_rsetting;

struct ht_resolver {
        const ht_context *c;
        json_object *facts;
        ht_pfile **chain;
        size_t n_chain;
        char ***ancestors;    /* per chain entry: names of all its ancestors */
        ht_rfile **rfiles;
        size_t n_rfiles;
        ht_rparam *params;
        size_t n_params, params_cap;
        /* name -> position + 1 in params, a hash of a power-of-two size:
         * ht_param_find is called a few hundred times a plan */
        size_t *param_index;
        size_t param_index_size;
        bool params_evaluated;   /* some parameter has its value (state 2) */
        /* The facts looked up so far, by name, a hash of a power-of-two
         * size; an entry of an older facts_gen is read again. facts_gen
         * moves when the facts room reads more into the tree (a workload's
         * part, which may replace what was read; the devices): a value
         * read before may have changed. */
        ht_memo facts_memo;
        unsigned facts_gen;
        /* The setting.* names looked up so far; settings_gen moves when a
         * setting is added, replaced or dropped, or handed out to be
         * changed (ht_resolver_setting) */
        ht_memo settings_memo;
        unsigned settings_gen;
        ht_rsetting *settings;
        size_t n_settings;
        /* A hash index over settings (backend, key, target) -> position + 1,
         * so that a profile of n settings resolves in O(n), not O(n^2)
         * (tests/bench scaling); built on first need, dropped on remove. */
        size_t settings_cap;
        size_t *index;
        size_t index_size;    /* a power of two, or 0 */
        char **warnings;
        ht_skips skipped;
        char **errors;
        bool reboot_required;
        /* Set by the lookup callback so an evaluation error can say more
         * than the evaluator knows: a suggestion, or a nested error. */
        char *lookup_error;
        char **candidates;
        /* How expressions are evaluated, read from the environment on the
         * first one: the built-in trees where a text has one, every text
         * parsed (HOSTTUNE_NO_BUILTIN_PROFILES), or the evaluating parser
         * (HOSTTUNE_TEST_EXPR_TEXT, for the tests) */
        enum {
                EXPR_MODE_UNSET,
                EXPR_MODE_BUILTIN,
                EXPR_MODE_PARSE,
                EXPR_MODE_TEXT,
        } expr_mode;
        /* the parameters being evaluated, innermost last (their names,
         * borrowed from params: a name lives as long as the resolver) */
        const char **param_stack;
        size_t n_param_stack, param_stack_cap;
        /* The host files behind the facts (and parameters) the expression
         * being evaluated read: a fact NAME with a NAME_from beside it. */
        char **fact_from;
        const ht_group *groups; /* /etc/group, read on first use (NULL: unreadable) */
        bool groups_read;
        ht_facts_demand demand;   /* the facts read on first use (facts-demand.c) */
        json_object *not_used;    /* facts.workload.GROUP.not_used of the groups looked up */
        /* owns the strings of every setting (ht_resolver_strdup): those
         * of settings replaced or dropped stay until the end; moves to
         * the resolved profile (ht_resolved.arena) with the settings */
        ht_arena arena;
};

/* profile.c: free all a resolver holds */
void ht_resolver_done(ht_resolver *r);
/* profile-settings.c */
/* "ABCFILE:LINEPOST" and an integer in decimal, in the arena: a source
 * or a value for every setting, so without printf */
char *ht_resolver_file_line(ht_resolver *r, const char *a, const char *b, const char *c, const char *file,
                            unsigned line, const char *post);
char *ht_resolver_int(ht_resolver *r, int64_t n);
ht_rsetting *ht_resolver_find(ht_resolver *r, const ht_setting *like);
void ht_resolver_remove(ht_resolver *r, ht_rsetting *rs);

/* profile-inherit.c: the chain of profile name and its parents, loaded
 * into st->files (parents first) with st->ancestors; from_file:from_line
 * names the inherit that asked for it (NULL, 0: the profile named). */
typedef struct {
        char **dirs;
        char **stack;
        ht_pfile **files;
        size_t n_files;
        char ***ancestors;
        char **warnings;  /* a profile found past a directory we cannot read */
} chain_state;
int visit(chain_state *st, const char *name, const char *from_file, unsigned from_line,
          char **ret_error);

/* profile-paths.c */
char **ht_profile_dirs(const ht_context *c);
int ht_rules_find(const ht_context *c, char *const *dirs, char ***ret_paths,
               const struct ht_builtin_file ***ret_builtin, char **ret_warning, char **ret_error);
char **ht_rules_dirs(const ht_context *c);
/* profile-eval.c */
ht_rparam *ht_param_find(ht_resolver *r, const char *name);
char **ht_param_names(ht_resolver *r);
int ht_param_eval(ht_resolver *r, ht_rparam *p, char **ret_error);
void ht_param_declare(ht_resolver *r, const ht_param_decl *d);
/* A parameter's spec changed: the values computed so far (which may
 * have used it) are computed again when next looked up. */
void ht_params_forget(ht_resolver *r);
/* Where p's value is given: "FILE:LINE", or "--set". */
char *ht_param_source(ht_resolver *r, ht_rparam *p);
/* Free what the look-ups keep (profile-eval.c); resolver_done calls it. */
void ht_resolver_eval_done(ht_resolver *r);
int ht_resolver_eval_expr(ht_resolver *r, const char *text, const char *file, unsigned line,
              const char *what, ht_value *ret, char **ret_error);
const char *ht_offline_hint(ht_resolver *r);
/* profile-set.c */
#define HT_SYSCTL_SET_PREFIX "sysctl."
int ht_set_param(ht_resolver *r, const char *assignment, char **ret_error);
int ht_set_parse_sysctl(const char *assignment, char **ret_key, char **ret_value,
                     char **ret_error);
void ht_set_pin_sysctl(ht_resolver *r, const char *key, const char *value);
/* profile-settings.c */
/* "sysctl vm.swappiness", "limits oracle soft memlock", for messages. */
char *ht_setting_label(const ht_setting *s);
/* A new setting at the end; takes s. */
ht_rsetting *ht_resolver_append(ht_resolver *r, ht_setting *s, int origin, const char *file,
                            unsigned line);
/* ht_resolver_add; conditional: the profile entry has a `when` (and it held). */
int ht_resolver_add_entry(ht_resolver *r, ht_setting *s, int origin, const char *rule, const char *file,
                 unsigned line, bool conditional, char **ret_error);

