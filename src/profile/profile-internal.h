/* Internals shared by the profile loader (profile-load.c), the resolver
 * (profile.c) and the rules engine (rules.c). Not for other rooms. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>

#include "context.h"
#include "expr.h"
#include "format-accounts.h"
#include "profile.h"

/* Profile and rule files are small; anything bigger is a mistake. */
#define HT_PROFILE_MAX_SIZE (1024 * 1024)

/* How a value was written: a libconfig literal, an expression (a string
 * starting with '='), or a string with ${EXPR} interpolations. */
typedef enum {
        HT_SPEC_NONE,
        HT_SPEC_LIT,
        HT_SPEC_EXPR,
        HT_SPEC_TEMPLATE,
} ht_spec_kind;

typedef struct {
        ht_spec_kind kind;
        ht_value lit;   /* LIT */
        char *text;     /* EXPR (without the '='), TEMPLATE */
} ht_spec;

/* One setting as written in a file, before evaluation. */
typedef struct ht_entry {
        ht_backend_id backend;
        ht_spec key;          /* sysctl, sysfs (path), cmdline (key, or the whole word) */
        /* The backend's other key fields, in the order its descriptor
         * names them (ht_backend.key_fields: limits' domain, type, item);
         * the unused ones HT_SPEC_NONE */
        ht_spec fields[HT_KEY_FIELDS_MAX];
        ht_spec value;               /* NONE: a rule set that only changes flags */
        char *when;           /* a profile setting's condition (expression text);
                               * NULL: always */
        bool cmdline_word;    /* key holds "key=value" still to be split */
        bool optional, remove, boot_only, at_least;
        bool required;        /* cmdline: an error even where a container's node or a
                               * VM's host sets the command line (not hosttune) */
        bool has_optional, has_boot_only, has_bound;
        ht_bound bound;       /* sysctl only; has_bound: written (a rule's set
                               * without a value keeps the old one otherwise) */
        const char *file;     /* borrowed from the owning file struct */
        unsigned line;
        const char *comment;  /* what the file says about it: the '#' or '//'
                               * lines directly above, then a comment on its
                               * own line (a rule's set: else the rule's);
                               * NULL when there is none. Borrowed from the
                               * file struct's comments, or from its built-in
                               * copy: decoding a built-in file copies none */
} ht_entry;

typedef struct {
        char *name;
        ht_spec spec;
        const char *file;
        unsigned line;
        const char *comment;  /* as ht_entry's */
} ht_param_decl;

typedef struct ht_pfile {
        char *name;
        char *path;
        char *summary;
        char **parents;
        unsigned inherit_line;
        bool borrowed;        /* a built-in copy: the strings of its params
                               * and entries, and the summary, point into the
                               * compiled-in form (profile-builtin.c) */
        ht_param_decl *params;
        size_t n_params;
        ht_entry *entries;
        size_t n_entries;
        char **comments;      /* owns what entries and params borrow (parsed
                               * files; NULL for a built-in copy) */
        char **origin_files;  /* a converted tuned profile: the files its
                               * entries' file point into */
} ht_pfile;

typedef struct {
        char *name;
        const char *file;
        unsigned line;
        char *when;           /* expression text; NULL: always */
        ht_entry *sets;
        size_t n_sets;
        ht_entry *skips;
        size_t n_skips;
        ht_spec warn, error, fix, bootloader_default;
} ht_rule;

typedef struct {
        char *path;
        bool borrowed;        /* as ht_pfile's: also the rules' strings */
        ht_param_decl *params;
        size_t n_params;
        ht_rule *rules;
        size_t n_rules;
        char **comments;      /* as ht_pfile's */
} ht_rfile;

/* profile-load.c */
void ht_spec_done(ht_spec *s);
void ht_spec_copy(ht_spec *dst, const ht_spec *src);
void ht_entry_done(ht_entry *e);
void ht_param_decl_done(ht_param_decl *p);
void ht_pfile_free(ht_pfile *p);
void ht_rfile_free(ht_rfile *f);
bool ht_profile_name_valid(const char *name);
/* The parameter an entry's value is, when it is only that ("= name"), or
 * NULL: such a setting cites the parameter's comment. */
const char *ht_entry_param_ref(const ht_entry *e);
/* Read and trust-check one file, then parse it (or take its built-in
 * copy, profile-builtin.h). */
int ht_pfile_load(const char *path, const char *name, ht_pfile **ret, char **ret_error);
/* Parse a profile's text (NUL-terminated); path names it in messages. */
int ht_pfile_parse(const char *path, const char *name, const char *buf, ht_pfile **ret, char **ret_error);
/* profile-tuned.c: a tuned profile (tuned:NAME) as one profile file,
 * whose settings name their tuned FILE:LINE; *warnings receives what
 * could not be carried over. */
int ht_pfile_from_tuned(const ht_context *c, json_object *facts, const char *spec, ht_pfile **ret,
                        char ***warnings, char **ret_error);
int ht_rfile_load(const char *path, ht_rfile **ret, char **ret_error);
/* Where the built-in copy of a shipped rules file says it comes from:
 * "<built-in>/40-thp.rules" in sources and messages (no such directory). */
#define HT_BUILTIN_RULES_DIR "<built-in>"
struct ht_builtin_file;
/* A shipped rules file from its built-in copy (profile-builtin.h), for
 * an installation whose rules directory does not exist. */
int ht_rfile_load_builtin(const struct ht_builtin_file *b, ht_rfile **ret, char **ret_error);
/* Paths of NAME.SUFFIX files over a search path; earlier dirs shadow
 * later ones. Sorted by file name. names receives the names without the
 * suffix. A directory that cannot be read (EACCES) is -errno with
 * *ret_error (when given) naming it: "cannot read profile directory D: ...". */
int ht_search_path_list(char *const *dirs, const char *suffix, char ***ret_paths,
                        char ***ret_names, char **ret_error);

/* A parameter during resolution. */
typedef struct {
        char *name;
        ht_spec spec;
        char *source;         /* "file:line" or "--set" */
        const char *citation; /* the declaration's comment (borrowed); NULL after --set */
        const char *file;     /* for messages: where the spec is written */
        unsigned line;
        int state;            /* 0 not evaluated, 1 evaluating, 2 done */
        ht_value value;
        char *from;           /* the host files its value came from (a fact's
                               * NAME_from), ", "-joined; NULL: none */
} ht_rparam;

typedef struct {
        ht_setting s;
        bool pinned;          /* from --set sysctl.KEY=VALUE: rules keep its value */
        int origin;           /* index into the chain, or -1 for a rule */
        const char *file;
        unsigned line;
        /* the line of origin's entry without a `when` that set it, 0: none
         * (a second such entry in one file is an error; one with a `when`
         * may override: tuned's [sysctl] and [sysctl.thunderx]) */
        unsigned plain_line;
} ht_rsetting;

typedef struct ht_resolver {
        const ht_context *c;
        json_object *facts;
        ht_pfile **chain;
        size_t n_chain;
        char ***ancestors;    /* per chain entry: names of all its ancestors */
        ht_rfile **rfiles;
        size_t n_rfiles;
        ht_rparam *params;
        size_t n_params;
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
        char **param_stack;
        /* The host files behind the facts (and parameters) the expression
         * being evaluated read: a fact NAME with a NAME_from beside it. */
        char **fact_from;
        ht_group groups;      /* /etc/group, read on first use */
        bool groups_read;
        unsigned workload_parts;  /* HT_WORKLOAD_* already in facts.workload */
        bool devices_read;        /* block.devices and cpu.cpufreq in facts */
        json_object *not_used;    /* facts.workload.GROUP.not_used of the groups looked up */
} ht_resolver;

/* profile.c */
int ht_spec_eval(ht_resolver *r, const ht_spec *sp, const char *file, unsigned line,
                 const char *what, ht_value *ret, char **ret_error);
/* The same for messages: unknown values read "unknown". */
int ht_spec_eval_message(ht_resolver *r, const ht_spec *sp, const char *file, unsigned line,
                         const char *what, char **ret, char **ret_error);
/* A value as text for messages; fractions with two decimals. */
char *ht_value_format(const ht_value *v);
/* A key field of entry e (a string or a number that must be known) as
 * text: for a backend's canon_key. what: "sysctl vm.x", field: "key". */
int ht_entry_eval_string(ht_resolver *r, const ht_spec *sp, const ht_entry *e, const char *what,
                         const char *field, char **ret, char **ret_error);
int ht_entry_eval(ht_resolver *r, const ht_entry *e, const char *what, ht_setting *ret,
                  bool *ret_skipped, char **ret_error);
void ht_setting_done(ht_setting *s);
ht_rsetting *ht_resolver_find(ht_resolver *r, const ht_setting *like);
/* Add or override a setting. rule is NULL for profile settings. */
int ht_resolver_add(ht_resolver *r, ht_setting *s, int origin, const char *rule,
                    const char *file, unsigned line, char **ret_error);
void ht_resolver_remove(ht_resolver *r, ht_rsetting *rs);

/* rules.c */
int ht_rules_run(ht_resolver *r, char **ret_error);
