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
