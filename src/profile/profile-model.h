/* The profile model: profile and rules files as written (specs, entries,
 * parameters, rules) before evaluation, their lifecycle and validation
 * (profile-model.c) and their loading (profile-load.c). What the loader,
 * the built-in decoder, the resolver and the backends' section parsers
 * (profile-section.h) share; the resolver's internals are in
 * resolver-internal.h. Not for other rooms but the backends. */
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
                               * compiled-in form (profile-builtin.c); name,
                               * path, parents and the arrays are in arena */
        ht_param_decl *params;
        size_t n_params;
        ht_entry *entries;
        size_t n_entries;
        char **comments;      /* owns what entries and params borrow (parsed
                               * files; NULL for a built-in copy) */
        char **origin_files;  /* a converted tuned profile: the files its
                               * entries' file point into */
        ht_arena arena;       /* a built-in copy's (borrowed); else empty */
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
        bool borrowed;        /* as ht_pfile's: also the rules' strings; the
                               * path and the arrays are in arena */
        ht_param_decl *params;
        size_t n_params;
        ht_rule *rules;
        size_t n_rules;
        char **comments;      /* as ht_pfile's */
        ht_arena arena;       /* a built-in copy's (borrowed); else empty */
} ht_rfile;

/* profile-model.c */
void ht_spec_done(ht_spec *s);
void ht_spec_copy(ht_spec *dst, const ht_spec *src);
void ht_entry_done(ht_entry *e);
void ht_param_decl_done(ht_param_decl *p);
void ht_pfile_free(ht_pfile *p);
void ht_rfile_free(ht_rfile *f);
/* Forgets s: its strings are an arena's (profile.h), not freed here. */
void ht_setting_done(ht_setting *s);
/* Whether a and b are the same setting (backend, key and key fields):
 * the settings index and composition ask it alike. */
bool ht_setting_same_key(const ht_setting *a, const ht_setting *b);
/* A setting's value for messages: "(removed)", "(unset)". */
const char *ht_setting_value_text(const ht_setting *s);
/* What show prints after a bounded value: " (at least)", ... */
const char *ht_bound_suffix(ht_bound b);
bool ht_profile_name_valid(const char *name);
/* The parameter an entry's value is, when it is only that ("= name"), or
 * NULL: such a setting cites the parameter's comment. */
const char *ht_entry_param_ref(const ht_entry *e);

/* profile-load.c */
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
/* The same; ret_found (when not NULL) gets, for each directory, how many
 * NAME.SUFFIX files of a valid name it holds, shadowed or not, or
 * HT_SEARCH_DIR_MISSING (ENOENT) or HT_SEARCH_DIR_NOT_DIR (ENOTDIR) when
 * it could not be opened as a directory (free it). */
#define HT_SEARCH_DIR_MISSING SIZE_MAX
#define HT_SEARCH_DIR_NOT_DIR (SIZE_MAX - 1) /* ENOTDIR */
int ht_search_path_list_counted(char *const *dirs, const char *suffix, char ***ret_paths,
                                char ***ret_names, size_t **ret_found, char **ret_error);
