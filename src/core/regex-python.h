/* Python re patterns as POSIX extended ones: tuned's profiles (and
 * hosttune's matches()) write regexes in Python's dialect, and regcomp()
 * does the matching. The one translator both use. */
#pragma once

#include <regex.h>
#include <stdbool.h>

/* Translate the Python re pattern py into a POSIX ERE for
 * regcomp(REG_EXTENDED | REG_NEWLINE) that matches somewhere in a string
 * exactly when re.search(py, string, re.MULTILINE) does (whether, not
 * where: POSIX takes the longest match, Python the first).
 *   \d \D                  [0-9] [^0-9]; inside a set \d is 0-9
 *   \s \S \w \W \b \B      glibc's own (they mean what Python's do)
 *   \s \w inside a set     [:space:] and [:alnum:]_
 *   \A \Z                  glibc's \` and \' (start and end of the text)
 *   \n \t \r \f \v \a \xHH the character (ASCII; [\b] is a backspace)
 *   \<punctuation>         that character, literal
 *   (?: (?P<name>          a plain group; (?#...) goes
 *   *? +? ?? {m,n}?        the greedy form (a search finds a match or none
 *                          either way)
 *   {,n} {,}               {0,n} {0,}; a { that opens no quantifier is a
 *                          literal, as in Python
 * Sets are rewritten in the order POSIX brackets need (] first, - last).
 * Returns 0 and *ret (malloc'd). -EINVAL for a pattern Python rejects
 * (trailing backslash, unterminated set, bad range or escape, nothing to
 * repeat, multiple repeat, unbalanced parenthesis); -EOPNOTSUPP for what
 * POSIX cannot say: backreferences and octal escapes, lookaround, inline
 * flags, other (?...) groups, possessive quantifiers, \D \S \W inside a
 * set, [: [. [= in a set, non-ASCII in a set or an escape, \x00, \u \U
 * \N, counts above 32767. Either way *ret_error (if not NULL) says what,
 * with the column. Known differences with newlines in the subject:
 * [^...] and \D do not match a newline here (they do in Python), and
 * ^ $ always work per line; \B matches an empty subject here (not in
 * Python 3.11). */
int ht_regex_from_python(const char *py, char **ret, char **ret_error);

/* Translate and compile (REG_EXTENDED | REG_NEWLINE | REG_NOSUB): 0, or
 * ht_regex_from_python's error, or -EINVAL with regcomp's message. *ret
 * needs regfree() after 0. */
int ht_regex_compile_python(const char *py, regex_t *ret, char **ret_error);

/* Whether the compiled regex is found anywhere in text (NULL: ""). */
bool ht_regex_search(const regex_t *re, const char *text);
