/* Boot Loader Specification entries (/boot/loader/entries/ *.conf) and
 * the GRUB environment block (grubenv, where RHEL 8 keeps kernelopts):
 * the one parser of each for the bootloader facts (facts-boot.c), the
 * editor (edit-bls.c) and the cmdline backend's read-back of what the
 * entries give the kernel (backend-cmdline.c). Pure: text in, lines with
 * their numbers and byte spans out.
 *
 * An entry (the BLS, uapi-group.org/specifications/specs/boot_loader_specification;
 * GRUB's blscfg, grub-core/commands/blscfg.c): "key value" lines, '#'
 * comments and blank lines ignored; keys are [A-Za-z0-9_.-]; "options"
 * may appear more than once, its values are joined in order; the first
 * title, version, linux line counts. GRUB builds the entry's linux
 * command from options, so its script expansion applies: $name and
 * ${name} anywhere in a word expand from the GRUB environment (grubenv),
 * an unset variable to nothing.
 *
 * grubenv (grub-core/lib/envblk.c, grub-editenv): the header line
 * "# GRUB Environment Block", then "name=value\n" lines with '\' escaping
 * the next byte, padded with '#' to 1024 bytes; GRUB's load_env sets each
 * in order, so the last of a name wins.
 *
 * Lines that are not the format are problems: skipped and listed. The
 * facts warn and use the rest; editors refuse the file (ht_bls_parse,
 * ht_grubenv_parse). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "format-problem.h"

#define HT_GRUBENV_HEADER "# GRUB Environment Block\n"
#define HT_GRUBENV_SIZE 1024

typedef struct {
        char *key;
        char *value;                    /* blanks around it stripped */
        unsigned line;
        size_t value_start, value_end;  /* byte span of value in the file */
} ht_bls_line;

typedef struct {
        ht_bls_line *lines;
        size_t n_lines;
        ht_format_problem *problems;    /* lines skipped: control characters, not UTF-8, a bad key */
        size_t n_problems;
} ht_bls_entry;

/* Parse an entry (len bytes). Never fails. */
ht_bls_entry *ht_bls_parse_entry(const char *content, size_t len);
/* For editors: -EINVAL with "LINE: message" of the first problem. */
int ht_bls_parse(const char *content, size_t len, ht_bls_entry **ret, char **ret_error);
void ht_bls_entry_free(ht_bls_entry *e);
static inline void ht_bls_entry_freep(ht_bls_entry **e) { ht_bls_entry_free(*e); }
/* The value of the first line with key (NULL when none). */
const char *ht_bls_get(const ht_bls_entry *e, const char *key);
/* Every options line's value, joined with blanks; NULL when there is none. */
char *ht_bls_options(const ht_bls_entry *e);
/* Whether options take words from grubenv's $kernelopts. */
bool ht_bls_uses_kernelopts(const char *options);

typedef struct {
        char *name, *value;             /* value with GRUB's '\' escapes undone */
        unsigned line;
        size_t start, end;              /* the line, its newline included */
        size_t value_start;             /* the raw value: value_start .. end - 1 */
        bool escaped;                   /* the raw value holds '\' escapes */
} ht_grubenv_var;

typedef enum {
        HT_GRUBENV_NO_HEADER,   /* not a GRUB environment block: nothing else is read */
        HT_GRUBENV_NUL,         /* a NUL byte: the block ends there */
        HT_GRUBENV_BAD_LINE,    /* no name=value, control characters: skipped */
        HT_GRUBENV_TRUNCATED,   /* the last variable has no newline (GRUB stops): skipped */
} ht_grubenv_problem_kind;

typedef struct {
        ht_grubenv_var *vars;           /* in file order */
        size_t n;
        size_t size;                    /* the file's length (GRUB's block is 1024) */
        size_t data_end;                /* end of the last variable line: padding follows */
        ht_format_problem *problems;    /* kind: ht_grubenv_problem_kind */
        size_t n_problems;
} ht_grubenv;

/* Parse a GRUB environment block. Never fails. */
ht_grubenv *ht_grubenv_parse_block(const char *content, size_t len);
/* For editors: -EINVAL with "LINE: message" on any problem. */
int ht_grubenv_parse(const char *content, size_t len, ht_grubenv **ret, char **ret_error);
void ht_grubenv_free(ht_grubenv *e);
static inline void ht_grubenv_freep(ht_grubenv **e) { ht_grubenv_free(*e); }
/* The value GRUB ends up with (the last line of name), NULL when unset. */
const char *ht_grubenv_get(const ht_grubenv *e, const char *name);
/* The index of that line in e->vars, -1 when unset. */
ssize_t ht_grubenv_find(const ht_grubenv *e, const char *name);

/* A variable's value for ht_bls_expand, NULL when unset. */
typedef const char *(*ht_bls_lookup)(const void *userdata, const char *name);
/* An entry's options as the kernel gets them from GRUB: $name and
 * ${name} expanded by lookup (NULL: every variable unset), blanks
 * collapsed. */
char *ht_bls_expand(const char *options, ht_bls_lookup lookup, const void *userdata);
/* The same with a parsed grubenv (NULL: none). */
char *ht_bls_expand_env(const char *options, const ht_grubenv *env);
