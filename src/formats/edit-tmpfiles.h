/* tmpfiles.d(5) "w" lines, as hosttune writes them into its own files and
 * reads them back (the value an image's first boot writes). A pure
 * parser/editor: no host access. */
#pragma once

#include <stdbool.h>

#include "util.h"

/* Whether tmpfiles would write value as given: one line, no specifiers
 * (%), no backslashes (tmpfiles.d(5): "C-style backslash escapes are
 * interpreted" in w arguments), no quotes, no leading or trailing blanks
 * (tmpfiles strips them), not empty. */
bool ht_tmpfiles_value_ok(const char *value);

/* Append "w PATH - - - - VALUE\n" to b: PATH and VALUE must already be
 * safe (plain or glob path without blanks, ht_tmpfiles_value_ok). */
void ht_tmpfiles_append_w(strbuf *b, const char *path, const char *value);

/* The argument of the last "w" or "w+" line for exactly path (a glob as
 * written, not expanded) in content, blanks between words folded; NULL
 * when there is none. Comments, blank lines and other types are skipped,
 * as systemd-tmpfiles reads them. */
char *ht_tmpfiles_w_argument(const char *content, const char *path);

/* The tmpfiles.d directories in precedence order, NULL-terminated. */
extern const char *const ht_tmpfiles_dirs[];
/* The files systemd-tmpfiles reads, in its order (tmpfiles.d(5)): *.conf
 * of ht_tmpfiles_dirs[i] (names[i]), a name in an earlier directory
 * hiding it in later ones, all sorted by file name. For one path the
 * FIRST line wins: a later "w" line with another argument is a
 * "Duplicate line for path ..., ignoring" (tmpfiles.c item_compatible()),
 * unlike sysctl.d, where the last wins. */
char **ht_tmpfiles_order(char **const *names);

typedef struct {
        unsigned line;
        char *argument;         /* blanks between words folded */
        bool append;            /* w+ */
} ht_tmpfiles_w;
/* Every "w"/"w+" line for exactly path (globs as written are not
 * expanded) in content; returns how many. */
size_t ht_tmpfiles_w_lines(const char *content, const char *path, ht_tmpfiles_w **ret);
void ht_tmpfiles_w_free(ht_tmpfiles_w *l, size_t n);
