/* Regular expressions as tuned profiles write them (Python's re, searched
 * with re.MULTILINE) run on POSIX extended regexes (glibc's regcomp with
 * REG_EXTENDED | REG_NEWLINE: ^ and $ match at line ends, '.' and [^...]
 * never match a newline). The spellings POSIX lacks are translated first:
 *   \d \D               [0-9] [^0-9]; inside brackets \d → 0-9
 *   \s \w inside [...]  [:space:] and [:alnum:]_
 *   \t \n \r \f \v      the character
 *   \A \Z               glibc's \` and \' (start and end of the text)
 *   (?: (?P<name>       a plain group
 *   *? +? ?? {m,n}?     the greedy form (a search finds the same match or none)
 *   {,n}                {0,n}; a '{' that is no quantifier is a literal '{'
 *   \<punctuation>      that character, literal ("\<" is '<', not glibc's
 *                       word start)
 * \s \S \w \W \b \B and \1..\9 are glibc's own and pass through. Anything
 * else Python has and POSIX lacks (other (?...) groups, lookaround, \D
 * \S \W inside brackets, \x escapes, other letter escapes) is refused
 * with a message naming it, never guessed. */
#pragma once

#include <regex.h>
#include <stdbool.h>

/* The POSIX form of pattern. 0, or -EINVAL with *ret_error saying what
 * cannot be translated (and where). */
int ht_pyregex_translate(const char *pattern, char **ret, char **ret_error);
/* Translate and compile (REG_EXTENDED | REG_NEWLINE | REG_NOSUB). 0, or
 * -EINVAL with *ret_error saying why; *ret needs regfree() after 0. */
int ht_pyregex_compile(const char *pattern, regex_t *ret, char **ret_error);
/* Whether the compiled regex is found anywhere in text. */
bool ht_pyregex_search(const regex_t *re, const char *text);
