/* /etc/default/grub and /etc/default/grub.d/ *.cfg: shell fragments that
 * grub-mkconfig sources. hosttune never runs them: it parses the plain
 * assignments, computes the values they leave behind where that needs no
 * shell code, and edits the words of one variable in place. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "edit-cmdline.h"

#define HT_GRUB_DEFAULTS "/etc/default/grub"
#define HT_GRUB_DEFAULTS_DIR "/etc/default/grub.d"

typedef struct {
        char *name;
        unsigned line;                   /* line of the name */
        size_t value_start, value_end;   /* byte span of the value word */
        bool exported;
        bool conditional;                /* inside if/case/for/while/{ } */
} ht_grub_assignment;

typedef struct {
        ht_grub_assignment *assignments;
        size_t n_assignments;
        /* First statement that is not a plain assignment, comment or
         * export (a command, a conditional); 0 when there is none. */
        unsigned complex_line;
} ht_grub_file;

/* Parse a defaults file. -EINVAL with "LINE: message" on what the shell
 * would reject too (an unterminated quote or substitution) or on NUL
 * bytes. */
int ht_grub_parse(const char *content, size_t len, ht_grub_file **ret, char **ret_error);
void ht_grub_file_free(ht_grub_file *f);
static inline void ht_grub_file_freep(ht_grub_file **f) { ht_grub_file_free(*f); }

typedef struct {
        char *name;
        char *value;    /* NULL: not computable without running shell code */
        char *why;      /* then: "LINE: why" */
        size_t file;    /* index of the file of the last assignment */
        unsigned line;
} ht_grub_var;

typedef struct {
        ht_grub_var *vars;
        size_t n_vars;
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

/* The files grub-mkconfig sources, in order, given the sorted names in
 * /etc/default/grub.d (only *.cfg are taken). */
char **ht_grub_defaults_files(char *const *grubd_names);

/* Edit the words of the last assignment of name in content by ops,
 * keeping its quoting and every other byte; append `name="..."` when the
 * file has no assignment of it. before: the variables left by the files
 * sourced earlier (NULL: none). -EINVAL with "LINE: message" when the
 * value cannot be edited safely (command substitution, mixed quoting,
 * escapes, a conditional assignment, a parameter that comes from a
 * referenced variable) or an op is invalid. */
int ht_grub_edit(const char *content, size_t len, const char *name, const ht_grub_env *before,
                 const ht_cmdline_op *ops, size_t n_ops,
                 char **ret, size_t *ret_len, char **ret_error);
