/* tuned's profile files (tuned.conf, variable files): the INI dialect of
 * Python's configparser as tuned 2.x reads it. */
/* That is RawConfigParser._read of CPython 3.11 (Debian 12's python3,
 * which runs tuned) with tuned's arguments: delimiters '=' only,
 * inline_comment_prefixes '#' (after whitespace), strict=False,
 * optionxform=str, values read raw; whitespace as Python's str.isspace()
 * (Unicode), line ends \n, \r\n and a lone \r (Python's universal
 * newlines). The text must be UTF-8, as Python decodes it.
 *
 * [DEFAULT] is configparser's: it is not in sections; its options
 * (copies, their own line and comment) are appended to every section
 * that lacks the key, after the section's own, as options() lists them.
 *
 * headerless follows profiles/variables.py, which also passes
 * allow_no_value=True: a line with no '=' is a key without a value, which
 * tuned's variables skip (add_variable ignores None), so such keys are
 * left out (after they replaced an earlier value, as in tuned); a
 * continuation line of one is an error (tuned's parser fails on it).
 *
 * One difference, on purpose: a UTF-8 BOM at the start is skipped, where
 * tuned (reading it as a character) refuses the file. */
#pragma once
#include <stdbool.h>
#include <stddef.h>

typedef struct {
        char *key;        /* as written (case kept: tuned sets optionxform=str), stripped */
        char *value;      /* stripped; continuation lines joined with "\n"; "" if empty */
        unsigned line;    /* 1-based line of the key */
        char *comment;    /* the '#'/';' comment lines directly above the key
                           * (no blank line between), their text without the
                           * leading '#'/';' and one space, joined with "\n";
                           * NULL: none */
} ht_tuned_option;

typedef struct {
        char *name;       /* between the brackets, as written */
        unsigned line;    /* line of its (first) header */
        ht_tuned_option *options;   /* in file order */
        size_t n_options;
} ht_tuned_section;

typedef struct {
        ht_tuned_section *sections; /* in order of first appearance */
        size_t n_sections;
} ht_tuned_conf;

/* Parse text (len bytes, need not be NUL-terminated). path is only for
 * messages. headerless: the text has no section header of its own
 * (tuned's variable files are read with a magic header prepended; not
 * active_profile, which tuned reads whole and strip()s): its options go
 * to a section named "" (line 0).
 * Errors: -EINVAL with *ret_error "PATH:LINE: what is wrong" — an option
 * line before any section (not headerless), a line that is neither a
 * section, an option with '=', a comment nor a continuation, an empty
 * key, a header without its ']'; NUL bytes; text that is not UTF-8; a
 * continuation of a headerless key without '='; -ENOMEM. */
int ht_tuned_conf_parse(const char *text, size_t len, const char *path, bool headerless,
                        ht_tuned_conf **ret, char **ret_error);
void ht_tuned_conf_free(ht_tuned_conf *c);
static inline void ht_tuned_conf_freep(ht_tuned_conf **c) { ht_tuned_conf_free(*c); }
/* The section named name (exact), or NULL. */
const ht_tuned_section *ht_tuned_conf_section(const ht_tuned_conf *c, const char *name);
/* The option key (exact) of s, or NULL. */
const ht_tuned_option *ht_tuned_section_option(const ht_tuned_section *s, const char *key);
