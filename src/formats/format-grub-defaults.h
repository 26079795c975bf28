/* /etc/default/grub and /etc/default/grub.d/ *.cfg: shell fragments that
 * grub-mkconfig sources (Debian's grub-mkconfig: `. /etc/default/grub`,
 * then a `for x in` loop over grub.d's NAME.cfg in the shell's glob
 * order). The one reader of them for the bootloader facts (facts-boot.c:
 * GRUB_DEFAULT, GRUB_ENABLE_BLSCFG, GRUB_CMDLINE_LINUX and _DEFAULT) and for the
 * editor and the cmdline backend (edit-grub.c, backend-cmdline.c).
 * hosttune never runs them: it parses the plain assignments and computes
 * the values they leave behind where that needs no shell code; a value
 * that does is unknown, with the reason. Pure: text in, assignments and
 * values out; ht_grub_parse_host keeps a parse of the host's bytes
 * through the root context for the rest of the plan. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "arena.h"
#include "context.h"

#define HT_GRUB_DEFAULTS "/etc/default/grub"
#define HT_GRUB_DEFAULTS_DIR "/etc/default/grub.d"
/* Larger defaults files are refused (Debian's is 1.5 KB): like sysctl.d
 * and limits.d files, bounded, and since hosttune edits these, an error
 * rather than a skip. */
#define HT_GRUB_DEFAULTS_MAX (1024u * 1024)

typedef struct {
        char *name;
        unsigned line;                   /* line of the name */
        size_t value_start, value_end;   /* byte span of the value word */
        bool exported;
        bool conditional;                /* inside if/case/for/while/{ } */
        bool unset;                      /* `unset NAME`: no value span */
        /* with unset: `readonly NAME[=value]` (declare, typeset, local):
         * a value hosttune does not follow, and after readonly any later
         * assignment aborts the shell, so none may be appended */
        bool declared;
        /* `. FILE`, `source FILE` or `eval ...` (name ""): any variable
         * may be set there, so every value is unknown from here on */
        bool opaque;
        /* `NAME+=word`: bash (/bin/sh of RHEL and SUSE, which run
         * grub2-mkconfig with it) appends, dash (Debian's and Ubuntu's)
         * runs it as a command that is not found: no value to know */
        bool append;
} ht_grub_assignment;

typedef struct {
        ht_grub_assignment *assignments;
        size_t n_assignments, cap;
        /* First statement that is not a plain assignment, comment or
         * export (a command, a conditional); 0 when there is none. */
        unsigned complex_line;
        /* references (ht_grub_file_ref): a parse the context keeps is
         * shared by its readers, who only read it */
        unsigned refs;
} ht_grub_file;

/* Parse a defaults file. -EINVAL with "LINE: message" on what the shell
 * would reject too (an unterminated quote or substitution), on NUL
 * bytes, and on a here-document, whose lines look like assignments and
 * are not. `unset NAME` is recorded as an assignment with .unset, whose
 * value is unknown (grub-mkconfig would not see what an edit before it
 * wrote). */
int ht_grub_parse(const char *content, size_t len, ht_grub_file **ret, char **ret_error);
/* Another reference to f; ht_grub_file_free drops one (the last frees). */
const ht_grub_file *ht_grub_file_ref(const ht_grub_file *f);
void ht_grub_file_free(const ht_grub_file *f);
static inline void ht_grub_file_freep(ht_grub_file **f) { ht_grub_file_free(*f); }
static inline void ht_grub_file_unrefp(const ht_grub_file **f) { ht_grub_file_free(*f); }

/* ht_grub_parse of content, which is path's bytes as read through c or an
 * edit of them: while a plan is made the parse of the bytes the context's
 * cache holds is kept beside them (ht_context_keep_parsed), so the boot
 * facts and the cmdline backend's planning parse /etc/default/grub once.
 * *ret is shared and read-only (an editor edits the text, never the
 * parse); drop it with ht_grub_file_free. */
int ht_grub_parse_host(const ht_context *c, const char *path, const char *content, size_t len,
                       const ht_grub_file **ret, char **ret_error);
/* The kind of a kept ht_grub_file (context.h), for a planner that keeps
 * the parse of its edit beside the edited text too. */
extern const ht_parsed_kind ht_grub_parsed_kind;
/* How many times ht_grub_parse ran in this process (for the tests of
 * the kept parse). */
unsigned long ht_grub_parse_count(void);

/* The strings live in the env's arena. */
typedef struct {
        char *name;
        char *value;    /* NULL: not computable without running shell code */
        char *why;      /* then: "LINE: why" */
        size_t file;    /* index of the file of the last assignment */
        unsigned line;
        /* value NULL because the last assignment is inside a conditional
         * (`if ...; then V="$V word"; fi`, Ubuntu's and Debian's grub.d
         * files): the value if it runs and if it does not, when both are
         * known; NULL otherwise */
        char *if_run, *if_not;
} ht_grub_var;

typedef struct {
        ht_grub_var *vars;
        size_t n_vars, cap;
        /* open addressing by name: vars index + 1, 0 empty; a file of
         * many distinct names costs linear time, not quadratic */
        size_t *slots;
        size_t n_slots;
        /* every name, value and why: an env is built once, copied, and
         * freed whole (a value assigned again stays until then) */
        ht_arena arena;
        strbuf expand;          /* ht_grub_eval_assignment's, reused */
        /* after a `. FILE` or eval: a name not assigned since is unknown
         * (ht_grub_env_get gives opaque_var, why saying so) */
        bool opaque;
        ht_grub_var opaque_var;
} ht_grub_env;

ht_grub_env *ht_grub_env_new(void);
void ht_grub_env_free(ht_grub_env *e);
static inline void ht_grub_env_freep(ht_grub_env **e) { ht_grub_env_free(*e); }
const ht_grub_var *ht_grub_env_get(const ht_grub_env *e, const char *name);

/* Feed one more file (in grub-mkconfig's order: /etc/default/grub, then
 * grub.d/ *.cfg sorted) into env: `VAR=...`, `export VAR=...`, quotes,
 * $VAR and ${VAR} references to earlier values; the last assignment
 * counts. file_index is recorded in the variables it sets. */
int ht_grub_eval_file(ht_grub_env *env, size_t file_index, const char *content, size_t len,
                      char **ret_error);
/* ht_grub_eval_file of a file parsed already: f is the parse of content. */
void ht_grub_eval_parsed(ht_grub_env *env, size_t file_index, const char *content, const ht_grub_file *f);
/* ht_grub_eval_file through ht_grub_parse_host: content is path's bytes
 * or an edit of them. */
int ht_grub_eval_host(const ht_context *c, const char *path, ht_grub_env *env, size_t file_index,
                      const char *content, size_t len, char **ret_error);

/* The files grub-mkconfig sources, in order, given the sorted names in
 * /etc/default/grub.d (only what its glob *.cfg matches: a name that
 * starts with '.' is not; NULL when this grub-mkconfig reads no grub.d). */
char **ht_grub_defaults_files(char *const *grubd_names);

/* Where the distributions install grub-mkconfig (grub2-mkconfig on
 * RHEL, Fedora, SUSE), in the order it is looked for; NULL-terminated. */
extern const char *const ht_grub_mkconfig_paths[];

/* A copy of env (NULL: an empty one). */
ht_grub_env *ht_grub_env_copy(const ht_grub_env *env);
/* Set a->name in env to the value the shell assigns (unknown, with why,
 * when that needs shell code or a is conditional). */
void ht_grub_eval_assignment(ht_grub_env *env, size_t file_index, const char *content,
                             const ht_grub_assignment *a);
/* The value the shell assigns for the raw word s[start..end), with the
 * variables of env; false with *why when that needs the shell. */
bool ht_grub_expand_value(const char *s, size_t start, size_t end, const ht_grub_env *env, char **ret,
                          const char **why);
