/* The Python re to POSIX ERE translator (src/core/regex-python.c): the
 * translations pinned, what it refuses and why, and that regcomp() then
 * agrees with Python's re.search(py, subject, re.MULTILINE) (the answers
 * are Python 3.11's: python3 -c 'import re; print(re.search(P, S, re.M))').
 * Where the two translators it replaced (core's and profile/pyregex.c)
 * disagreed, Python decided: \A \Z \xHH (?#...) {,} are translated,
 * backreferences refused, "a**" "a*??" "*a" "a)" rejected as Python does. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include <regex.h>
#include <string.h>

#include "regex-python.h"
#include "util.h"

static void assert_translation(const char *py, const char *posix) {
        _cleanup_free_ char *t = NULL, *err = NULL;
        int r = ht_regex_from_python(py, &t, &err);
        if (r < 0)
                fail_msg("'%s' not translated (%d): %s", py, r, err);
        if (!streq(t, posix))
                fail_msg("'%s' became '%s', not '%s'", py, t, posix);
}

/* Refused with r, and the message (translation's or regcomp's) says msg. */
static void assert_refused(const char *py, int r, const char *msg) {
        _cleanup_free_ char *err = NULL;
        regex_t re;
        int got = ht_regex_compile_python(py, &re, &err);
        if (got == 0) {
                regfree(&re);
                fail_msg("'%s' compiled", py);
        }
        if (got != r)
                fail_msg("'%s': %d, not %d (%s)", py, got, r, err);
        if (!err || !strstr(err, msg))
                fail_msg("'%s': '%s' lacks '%s'", py, err, msg);
}

static void test_translations(void **state) {
        /* tuned's own */
        assert_translation("\\s*[0-9]", "\\s*[0-9]");
        assert_translation("\\b[y,Y,1,t,T]\\b", "\\b[,1TYty]\\b");
        /* classes, in and out of sets */
        assert_translation("\\d+\\D", "[0-9]+[^0-9]");
        assert_translation("\\d+", "[0-9]+");
        assert_translation("\\D", "[^0-9]");
        assert_translation("[\\d.]x", "[.0-9]x");
        assert_translation("[\\d.]", "[.0-9]");
        assert_translation("[^\\d\\s]", "[^0-9[:space:]]");
        assert_translation("[\\w-]", "[[:alnum:]_-]");
        assert_translation("\\s\\S\\w\\W\\b\\B", "\\s\\S\\w\\W\\b\\B");
        assert_translation("\\A\\Z", "\\`\\'");
        assert_translation("\\Aa", "\\`a");
        /* sets: ] first, [ ^ - last, [^] never written by mistake */
        assert_translation("[\\]a-]", "[]a-]");
        assert_translation("[]a]", "[]a]");
        assert_translation("[\\]a]", "[]a]");
        assert_translation("[a\\]]", "[]a]");
        assert_translation("[-^]", "[-^]");
        assert_translation("[\\^]", "\\^");
        assert_translation("[^^]", "[^^]");
        assert_translation("[\\^a]", "[a^]");
        assert_translation("[\\^-]", "[-^]");
        assert_translation("[\\-a]", "[a-]");
        assert_translation("[\\\\]", "[\\]");
        assert_translation("[[a]", "[a[]");
        assert_translation("[\\t]", "[\t]");
        assert_translation("[\\b]", "[\b]");
        assert_translation("[\\x41-\\x43]", "[A-C]");
        /* groups, quantifiers, braces */
        assert_translation("(?:ab)+?c", "(ab)+c");
        assert_translation("(?P<x>a)(?#note)b", "(a)b");
        assert_translation("(?:a|b)(?P<x>c)", "(a|b)(c)");
        assert_translation("a(?#c)*", "a*");
        assert_translation("a*?b+?c??d{2}?", "a*b+c?d{2}");
        assert_translation("a{,2}b{3}", "a{0,2}b{3}");
        assert_translation("a{,3}", "a{0,3}");
        assert_translation("a{2,}", "a{2,}");
        assert_translation("a{,}", "a{0,}");
        assert_translation("x{y}", "x\\{y\\}");
        assert_translation("x{}", "x\\{\\}");
        assert_translation("p{", "p\\{");
        assert_translation("{x}", "\\{x\\}");
        /* character escapes */
        assert_translation("\\.\\-\\:", "\\.-:");
        assert_translation("\\<\\>\\.\\-", "<>\\.-");
        assert_translation("\\x41\\t", "A\t");
        assert_translation("\\t\\n", "\t\n");
        _cleanup_free_ char *t = NULL;
        assert_int_equal(ht_regex_from_python(NULL, &t, NULL), 0);
        assert_string_equal(t, "");
}

static void test_refused(void **state) {
        /* what POSIX cannot say */
        assert_refused("a(?=b)", -EOPNOTSUPP, "'(?=' groups are not supported");
        assert_refused("(?=a)", -EOPNOTSUPP, "'(?=' groups are not supported");
        assert_refused("(?i)a", -EOPNOTSUPP, "'(?i' groups are not supported");
        assert_refused("(?P=x)", -EOPNOTSUPP, "'(?P' groups are not supported");
        assert_refused("(a)\\1", -EOPNOTSUPP, "column 4: '\\1' is not supported (backreferences");
        assert_refused("\\0", -EOPNOTSUPP, "'\\0' is not supported");
        assert_refused("a*+", -EOPNOTSUPP, "possessive");
        assert_refused("a{1,2}+", -EOPNOTSUPP, "possessive");
        assert_refused("[\\D]", -EOPNOTSUPP, "'\\D' inside [...] has no POSIX form");
        assert_refused("[[:alpha:]]", -EOPNOTSUPP, "'[:' inside [...]");
        assert_refused("\\x00", -EOPNOTSUPP, "'\\x00'");
        assert_refused("\\xe9", -EOPNOTSUPP, "not ASCII");
        assert_refused("[\xc3\xa9]", -EOPNOTSUPP, "non-ASCII");
        assert_refused("\\u0041", -EOPNOTSUPP, "'\\u' is not supported");
        assert_refused("a{40000}", -EOPNOTSUPP, "above 32767");
        /* regcomp's memory: the fuzzer's a{1,30003} took more than 2 GB */
        assert_refused("a{1,30003}", -EOPNOTSUPP, "above 255");
        assert_refused("a{256}", -EOPNOTSUPP, "above 255");
        assert_refused("(a{1,200}){1,200}", -EOPNOTSUPP, "past 10000");
        /* what Python rejects */
        assert_refused("a\\", -EINVAL, "ends with a backslash");
        assert_refused("a\\\\\\", -EINVAL, "ends with a backslash");
        assert_refused("[a", -EINVAL, "column 1: '[' without a closing ']'");
        assert_refused("[z-a]", -EINVAL, "bad range 'z-a'");
        assert_refused("[a-\\d]", -EINVAL, "bad character range");
        assert_refused("[\\d-z]", -EINVAL, "bad character range");
        assert_refused("[\\A]", -EINVAL, "'\\A' is not supported");
        assert_refused("a**", -EINVAL, "column 3: multiple repeat");
        assert_refused("a*??", -EINVAL, "multiple repeat");
        assert_refused("a{2}{3}", -EINVAL, "multiple repeat");
        assert_refused("a*(?#x)?", -EINVAL, "multiple repeat");
        assert_refused("*a", -EINVAL, "nothing to repeat");
        assert_refused("^*", -EINVAL, "nothing to repeat");
        assert_refused("$*", -EINVAL, "nothing to repeat");
        assert_refused("\\b+", -EINVAL, "nothing to repeat");
        assert_refused("\\Z*", -EINVAL, "nothing to repeat");
        assert_refused("a|*b", -EINVAL, "nothing to repeat");
        assert_refused("(*a)", -EINVAL, "nothing to repeat");
        assert_refused("a{3,2}", -EINVAL, "min repeat greater than max repeat");
        assert_refused("a)", -EINVAL, "column 2: unbalanced parenthesis");
        assert_refused("(a", -EINVAL, "Unmatched (");
        assert_refused("(?P<>a)", -EINVAL, "missing group name");
        assert_refused("(?P<1a>b)", -EINVAL, "bad character in group name");
        assert_refused("(?P<a", -EINVAL, "missing '>'");
        assert_refused("(?#a", -EINVAL, "unterminated comment");
        assert_refused("\\p", -EINVAL, "'\\p' is not supported");
        assert_refused("\\G", -EINVAL, "'\\G' is not supported");
        assert_refused("\\x4", -EINVAL, "incomplete escape");
        /* no message wanted, and none leaked */
        char *ere = NULL;
        assert_int_equal(ht_regex_from_python("a**", &ere, NULL), -EINVAL);
        assert_null(ere);
}

/* re.search(py, subject, re.MULTILINE) in Python 3.11 */
static void test_searches(void **state) {
        static const struct {
                const char *py, *subject;
                bool match;
        } searches[] = {
                {"\\s*[0-9]", "3", true},
                {"\\s*[0-9]", "", false},
                {"\\b[y,Y,1,t,T]\\b", "y", true},
                {"\\b[y,Y,1,t,T]\\b", "yes", false},
                {"\\b[y,Y,1,t,T]\\b", "a 1 b", true},
                {"[\\d.]+x", "12.34x", true},
                {"[\\d.]+x", "ax", false},
                {"[\\]]", "]", true},
                {"a{,2}b", "b", true},
                {"x{", "x{", true},
                {"[^\\s]", " ", false},
                {"\\w+\\s\\w+", "a_b c", true},
                {"a*?b", "aab", true},
                {"[-^]", "^", true},
                {"[-^]", "a", false},
                {"^flags\\s*:.*\\bavx2\\b", "x\nflags\t: avx2 sse", true},
                {"a{,}b", "b", true},
                {"x{}", "x{}", true},
                {"x{}", "x", false},
                {"a(?#c)*b", "b", true},
                {"[\\b]", "\b", true},
                {"[\\b]", "b", false},
                {"\\x41\\x42", "AB", true},
                {"[\\x41-\\x43]+$", "xCBA", true},
                {"[\\x41-\\x43]", "D", false},
                {"\\Aab", "ab", true},
                {"\\Aab", "x\nab", false},
                {"b\\Z", "ab\n", false},
                {"b\\Z", "a\nb", true},
                {"a\\W", "a\nb", true}, /* glibc's \W matches a newline, as Python's */
                {"a\\S", "a\nb", false},
                {"(?:)*x", "x", true},
                {"a||b", "c", true},
                {"(?P<a1>b)c", "bc", true},
                {"a{2}?c", "aac", true},
                {"[\\^-]", "-", true},
                {"[\\-a]", "b", false},
                {"[[a]", "[", true},
                {"[\\\\]", "\\", true},
                {"x\\.y", "x.y", true},
                {"x\\.y", "xzy", false},
                {"\\{2\\}", "{2}", true},
        };
        for (size_t i = 0; i < ELEMENTSOF(searches); i++) {
                regex_t re;
                _cleanup_free_ char *err = NULL;
                if (ht_regex_compile_python(searches[i].py, &re, &err) < 0)
                        fail_msg("%s: %s", searches[i].py, err);
                if (ht_regex_search(&re, searches[i].subject) != searches[i].match)
                        fail_msg("%s on '%s': want %d", searches[i].py, searches[i].subject, searches[i].match);
                regfree(&re);
        }
        regex_t re;
        assert_int_equal(ht_regex_compile_python("^$", &re, NULL), 0);
        assert_true(ht_regex_search(&re, NULL)); /* NULL is "" */
        regfree(&re);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_translations),
                cmocka_unit_test(test_refused),
                cmocka_unit_test(test_searches),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
