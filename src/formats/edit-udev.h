/* udev rules files as systemd-udevd reads them (udev(7), systemd
 * src/udev/udev-rules.c): the parser, the order of the rules files and
 * the writer of one rule line. Pure functions over buffers; the block
 * backend reads the files through the root context.
 *
 * What is parsed (enough to write hosttune's file and to find another
 * file's assignments):
 * - a line whose first non-blank is '#' is a comment, blank lines are
 *   skipped; a line ending in '\' continues on the next one;
 * - a rule is tokens KEY[{ATTR}]OP"VALUE" separated by ',' (or blanks),
 *   OP one of == != = += -= :=; a value is double-quoted, '\"' stands for
 *   a quote, and an e"..." value takes C escapes;
 * - files: every NAME.rules of the rules directories, sorted by NAME
 *   (strcmp), a name in an earlier directory hiding the same name in a
 *   later one. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* hosttune's file. udev sorts the files of all rules directories by name
 * and the last write of an attribute wins: the distributions' scheduler
 * rules (Fedora and RHEL 60-block-scheduler.rules, SUSE
 * 60-io-scheduler.rules, systemd's 60-block.rules) and tuned's sort
 * before "99-h", so hosttune's values stand; a later file that sets the
 * same attribute is warned about by plan. */
#define HT_UDEV_RULES "/etc/udev/rules.d/99-hosttune-block.rules"

/* In the order of their precedence for a name: Debian 12's udevadm
 * (systemd 252) holds /etc, /run, /usr/local/lib and /usr/lib (strings
 * of /usr/bin/udevadm); /lib is the same directory on merged-/usr hosts
 * and read by split-/usr builds. */
extern const char *const ht_udev_dirs[];

typedef enum {
        HT_UDEV_MATCH,      /* == */
        HT_UDEV_NOMATCH,    /* != */
        HT_UDEV_ASSIGN,     /* = */
        HT_UDEV_ADD,        /* += */
        HT_UDEV_REMOVE,     /* -= */
        HT_UDEV_FINAL,      /* := */
} ht_udev_op;

typedef struct {
        char *key;    /* "ATTR", "KERNEL", ... */
        char *attr;   /* what is in the braces, NULL: none */
        ht_udev_op op;
        char *value;  /* unquoted */
} ht_udev_token;

typedef struct {
        unsigned line;  /* of its first physical line */
        ht_udev_token *tokens;
        size_t n_tokens;
} ht_udev_rule;

typedef struct {
        ht_udev_rule *rules;
        size_t n_rules;
        char **warnings;  /* "LINE: why", lines udevd would refuse (skipped) */
} ht_udev_file;

/* Parse a rules file. Lines udevd would refuse are skipped with a
 * warning (udevd too skips them); -ENOMEM is the only failure. */
int ht_udev_parse(const char *text, size_t len, ht_udev_file **ret);
void ht_udev_file_free(ht_udev_file *f);
static inline void ht_udev_file_freep(ht_udev_file **f) { ht_udev_file_free(*f); }

/* One rule's text (no continuation lines) into tokens: -EINVAL with
 * *ret_error saying why. */
int ht_udev_parse_rule(const char *text, ht_udev_token **ret, size_t *ret_n, char **ret_error);
void ht_udev_tokens_free(ht_udev_token *t, size_t n);

const char *ht_udev_op_to_string(ht_udev_op op);
/* Whether op assigns (=, +=, :=), as opposed to matching. */
bool ht_udev_op_assigns(ht_udev_op op);

/* Whether value can be written between double quotes so that every udev
 * reads it back the same: no quote, no backslash, no control character
 * (udev before 251 has no escapes at all). */
bool ht_udev_value_safe(const char *value);
/* KEY{ATTR}OP"VALUE" tokens joined by ", "; NULL when a value is not
 * ht_udev_value_safe or a key is no udev key word. */
char *ht_udev_format_rule(const ht_udev_token *t, size_t n);

/* The rules files in the order udevd reads them: names[i] the *.rules
 * names in dirs[i] (NULL-terminated lists, dirs as ht_udev_dirs). */
char **ht_udev_order(const char *const *dirs, char *const *const *names);
