/* Unified diffs of two buffers, as GNU `diff -u` prints them, for plans
 * and the Ansible diff mode. Pure: no host access. */
#pragma once

#include <stddef.h>

#define HT_DIFF_CONTEXT 3

/* The unified diff turning a into b: "--- a_label", "+++ b_label", hunks
 * with `@@ -l,s +l,s @@` headers in GNU diff's number format, `context`
 * lines of context (hunks merged when their contexts meet) and
 * "\ No newline at end of file" markers. a or b may be NULL (an absent
 * file diffs as empty). Returns NULL when the buffers are identical; for
 * buffers holding NUL bytes, GNU's one-line "Binary files ... differ". */
char *ht_unified_diff(const char *a_label, const char *a, size_t a_len,
                      const char *b_label, const char *b, size_t b_len,
                      unsigned context);
