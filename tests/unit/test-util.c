#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>
#include <string.h>
#include <cmocka.h>

#include "arena.h"
#include "util.h"

static void test_parse_size(void **state) {
        uint64_t v;
        assert_int_equal(parse_size_bytes("18G", &v), 0);
        assert_true(v == UINT64_C(18) << 30);
        assert_int_equal(parse_size_bytes("2048 kB", &v), 0);
        assert_true(v == 2048 * 1024);
        assert_int_equal(parse_size_bytes("512MiB", &v), 0);
        assert_true(v == UINT64_C(512) << 20);
        assert_int_equal(parse_size_bytes("4096", &v), 0);
        assert_true(v == 4096);
        assert_int_equal(parse_size_bytes("12X", &v), -EINVAL);
        assert_int_equal(parse_size_bytes("", &v), -EINVAL);
        assert_int_equal(parse_size_bytes("-1G", &v), -EINVAL);
        assert_int_equal(parse_size_bytes("99999999999T", &v), -ERANGE);
        /* up to 19 digits are read by hand, more by strtoull() */
        assert_int_equal(parse_size_bytes("9999999999999999999", &v), 0);
        assert_true(v == UINT64_C(9999999999999999999));
        assert_int_equal(parse_size_bytes("18446744073709551615 B", &v), 0);
        assert_true(v == UINT64_MAX);
        assert_int_equal(parse_size_bytes("18446744073709551616", &v), -ERANGE);
        assert_int_equal(parse_size_bytes(" 007k", &v), 0);
        assert_true(v == 7 * 1024);
}

static void test_parse_u64(void **state) {
        uint64_t v;
        assert_int_equal(parse_u64("42", &v), 0);
        assert_true(v == 42);
        assert_int_equal(parse_u64("42x", &v), -EINVAL);
        assert_int_equal(parse_u64("-1", &v), -EINVAL);
        assert_int_equal(parse_u64("99999999999999999999999", &v), -ERANGE);
        /* up to 19 digits are read by hand, the rest as strtoull() reads
         * them: 20 digits, a '+' sign */
        assert_int_equal(parse_u64("9999999999999999999", &v), 0);
        assert_true(v == UINT64_C(9999999999999999999));
        assert_int_equal(parse_u64("18446744073709551615", &v), 0);
        assert_true(v == UINT64_MAX);
        assert_int_equal(parse_u64("18446744073709551616", &v), -ERANGE);
        assert_int_equal(parse_u64("+7", &v), 0);
        assert_true(v == 7);
        assert_int_equal(parse_u64("0007", &v), 0);
        assert_true(v == 7);
        assert_int_equal(parse_u64("", &v), -EINVAL);
        assert_int_equal(parse_u64("7 ", &v), -EINVAL);
        assert_int_equal(parse_u64(" 7", &v), -EINVAL);
}

static void test_strv(void **state) {
        char **l = strv_split("  a b\tc  ", " \t");
        assert_int_equal(strv_length(l), 3);
        assert_string_equal(l[2], "c");
        char *j = strv_join(l, ",");
        assert_string_equal(j, "a,b,c");
        assert_true(strv_contains(l, "b"));
        assert_false(strv_contains(l, "d"));
        free(j);
        strv_free(l);
}

/* the counted push keeps the list NULL-terminated across every growth */
static void test_strv_push_counted(void **state) {
        (void)state;
        char **l = NULL;
        size_t n = 0, cap = 0;
        for (int i = 0; i < 100; i++) {
                _cleanup_free_ char *e = xasprintf("e%d", i);
                strv_push_counted(&l, &n, &cap, e);
                assert_int_equal(n, (size_t)i + 1);
                assert_int_equal(strv_length(l), n);
                assert_true(cap > n);
        }
        assert_string_equal(l[0], "e0");
        assert_string_equal(l[99], "e99");
        assert_null(l[100]);
        strv_free(l);
}

/* The names sorted, each path and number moved with its name. */
static void test_strv_sort_parallel(void **state) {
        (void)state;
        char *names[] = {"c", "a", "d", "b"};
        char *paths[] = {"/x/c", "/y/a", "/x/d", "/y/b"};
        int nums[] = {3, 1, 4, 2};
        strv_sort_parallel(names, 4, (void *const[]){paths, nums, NULL}, (const size_t[]){sizeof(*paths), sizeof(*nums)});
        const char *want[] = {"a", "b", "c", "d"}, *want_paths[] = {"/y/a", "/y/b", "/x/c", "/x/d"};
        for (int i = 0; i < 4; i++) {
                assert_string_equal(names[i], want[i]);
                assert_string_equal(paths[i], want_paths[i]);
                assert_int_equal(nums[i], i + 1);
        }
        strv_sort_parallel(names, 0, NULL, NULL);
        char *one[] = {"z"};
        strv_sort_parallel(one, 1, (void *const[]){NULL}, NULL);
        assert_string_equal(one[0], "z");
}

static void test_strv_split_edges(void **state) {
        char **l = strv_split("", " ");
        assert_int_equal(strv_length(l), 0);
        strv_free(l);
        l = strv_split("   ", " ");
        assert_int_equal(strv_length(l), 0);
        strv_free(l);
        l = strv_split("one", " ");
        assert_int_equal(strv_length(l), 1);
        assert_string_equal(l[0], "one");
        strv_free(l);
        l = strv_split("a\n\nb\n", "\n");
        assert_int_equal(strv_length(l), 2);
        assert_string_equal(l[1], "b");
        strv_free(l);
}

/* xasprintf() and strbuf_appendf() join %s/%c/%d/%u formats (also with
 * l, ll and z before d and u, and %*s, %-*s) themselves and hand the rest
 * to vasprintf(): both must print what printf would. */
static void check_format(const char *want, const char *fmt, ...) _printf_(2, 3);
static void check_format(const char *want, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        char *got = xvasprintf(fmt, ap);
        va_end(ap);
        assert_string_equal(got, want);
        free(got);
}

static void test_xasprintf(void **state) {
        check_format("", "%s", "");
        check_format("plain", "plain");
        check_format("a: b", "%s: %s", "a", "b");
        check_format("rule x: when", "rule %s: when", "x");
        check_format("f.conf:12: bad", "%s:%u: %s", "f.conf", 12u, "bad");
        check_format("0 -7 -2147483648 2147483647", "%d %d %d %d", 0, -7, INT32_MIN, INT32_MAX);
        check_format("4294967295", "%u", UINT32_MAX);
        check_format("a/b", "%s%c%s", "a", '/', "b");
        check_format("100%", "%d%%", 100);
        check_format("%s", "%%s");
        check_format("-9223372036854775808 9223372036854775807 0", "%" PRId64 " %" PRId64 " %" PRId64,
                     INT64_MIN, INT64_MAX, (int64_t)0);
        check_format("18446744073709551615 42", "%" PRIu64 " %lu", UINT64_MAX, 42ul);
        check_format("-1 18446744073709551615", "%lld %llu", -1ll, ULLONG_MAX);
        check_format("k=12 n=-3", "k=%zu n=%zd", (size_t)12, (ssize_t)-3);
        check_format("7:8%", "%ld:%u%%", 7l, 8u);
        check_format("ab    |  ab|ab|abc", "%-*s|%*s|%*s|%-*s", 6, "ab", 4, "ab", 1, "ab", 2, "abc");
        check_format("ab   |x", "%*s|x", -5, "ab");   /* a negative width left-justifies */
        check_format("ab  |", "%-*s|%*s", 4, "ab", 0, "");
        check_format("/ro/etc", "%.*s%s", 3, "/root", "/etc");
        check_format("ab|abc|", "%.*s|%.*s|%.*s", 2, "abc", -1, "abc", 0, "abc");
        check_format("ab", "%.*s", 9, "ab");
        /* not simple: vasprintf */
        check_format("ff 1f", "%lx %zx", 255ul, (size_t)31);
        check_format(" -5", "%3ld", -5l);
        check_format("  ab", "%4s", "ab");
        check_format("abc...", "%.3s...", "abcdef");
        check_format("18446744073709551615", "%" PRIu64, UINT64_MAX);
        check_format("0x1f", "%#x", 31);
        /* simple conversions first: the join stops at %x, and vasprintf
         * starts again from the first argument */
        check_format("a 12 ff b", "%s %d %x %s", "a", 12, 255u, "b");
        check_format("7 3.5", "%lu %.1f", 7ul, 3.5);
        /* strbuf_appendf() joins on the stack and appends, or formats
         * with vasprintf() what the join does not take */
        strbuf sb = {0};
        strbuf_append(&sb, "<");
        strbuf_appendf(&sb, "%s=%-*s|", "k", 4, "v");
        strbuf_appendf(&sb, "%lx|%zu", 255ul, (size_t)3);
        assert_string_equal(sb.data, "<k=v   |ff|3");
        strbuf_done(&sb);
        /* longer than any stack buffer */
        char big[5000];
        memset(big, 'x', sizeof big - 1);
        big[sizeof big - 1] = 0;
        char *s = xasprintf("<%s>", big);
        assert_int_equal(strlen(s), sizeof big + 1);
        assert_true(s[0] == '<' && s[sizeof big] == '>');
        free(s);
}

static void test_control_chars(void **state) {
        assert_false(has_control_chars(""));
        assert_false(has_control_chars("plain value\twith a tab"));
        assert_false(has_control_chars("caf\xc3\xa9 \xff ~"));
        for (int c = 1; c < 0x20; c++) {
                char s[4] = {'a', (char)c, 'b', 0};
                assert_int_equal(has_control_chars(s), c != '\t');
        }
        assert_true(has_control_chars("del\x7f"));
        assert_false(has_control_chars(" !~\x80"));
        /* the scan takes four bytes a step: every length up to nine, with
         * and without a control byte at each place */
        for (size_t len = 0; len < 10; len++) {
                char t[12];
                memset(t, 'x', len);
                t[len] = 0;
                assert_false(has_control_chars(t));
                for (size_t at = 0; at < len; at++) {
                        t[at] = '\n';
                        assert_true(has_control_chars(t));
                        t[at] = 'x';
                }
        }
}

/* Text from the host made safe for a terminal (issue 32): controls and
 * bytes that are not UTF-8 become '?', printable UTF-8 and tab stay. */
/* Well-formed UTF-8 as RFC 3629 says and Python's and Go's decoders
 * hold it (a JSON document must be: ht_print_json replaces the rest):
 * before, a surrogate, overlong three- and four-byte forms and code
 * points past U+10FFFF passed. */
static void test_utf8_len(void **state) {
        (void)state;
        assert_true(ht_valid_utf8("caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf \xed\x9f\xbf \xee\x80\x80"));
        const char *bad[] = {
                "\xed\xa0\x80",          /* U+D800, a surrogate */
                "\xed\xbf\xbf",          /* U+DFFF */
                "\xe0\x80\x80",          /* NUL, overlong in three bytes */
                "\xe0\x9f\xbf",          /* U+07FF, overlong */
                "\xf0\x8f\xbf\xbf",      /* U+FFFF, overlong in four */
                "\xf4\x90\x80\x80",      /* U+110000 */
                "\xc0\xaf", "\xff", "\xe2\x86",
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                assert_false(ht_valid_utf8(bad[i]));
                assert_int_equal(ht_utf8_len((const unsigned char *)bad[i]), 0);
        }
        assert_int_equal(ht_utf8_len((const unsigned char *)"\xe0\xa0\x80"), 3);
        assert_int_equal(ht_utf8_len((const unsigned char *)"\xf0\x90\x80\x80"), 4);
}

static void test_text_sanitize(void **state) {
        char *s = ht_text_safe("TRUE\x1b[2J\x07x\ry");
        assert_string_equal(s, "TRUE?[2J?x?y");
        free(s);
        s = ht_text_safe("caf\xc3\xa9 \xe2\x86\x92 tab\there del\x7f");
        assert_string_equal(s, "caf\xc3\xa9 \xe2\x86\x92 tab\there del?");
        free(s);
        /* C1 CSI as UTF-8 (U+009B) and alone (CSI to an 8-bit terminal),
         * a truncated sequence, a byte no UTF-8 starts with */
        s = ht_text_safe("a\xc2\x9b" "31mb\x9b" "31mc\xe2\x86" "d\xff\xc2\xa0");
        assert_string_equal(s, "a?31mb?31mc??d?\xc2\xa0");
        free(s);
        for (int c = 1; c < 0x20; c++) {
                char t[4] = {'a', (char)c, 'b', 0};
                ht_text_sanitize(t, false);
                assert_int_equal(t[1], c == '\t' ? '\t' : '?');
                t[1] = (char)c;
                ht_text_sanitize(t, true);
                assert_int_equal(t[1], c == '\t' || c == '\n' ? c : '?');
        }
        s = ht_text_safe(NULL);
        assert_string_equal(s, "");
        free(s);
        /* the printable run is skipped before the first byte to look at:
         * one at the start, none at all, and '~' (0x7e) beside DEL */
        s = ht_text_safe("\x1b" "a~\x7f" "b");
        assert_string_equal(s, "?a~?b");
        free(s);
        s = ht_text_safe(" !plain ~text");
        assert_string_equal(s, " !plain ~text");
        free(s);
}

/* The sanitizer as it was before issue 34 cut its passes: every later
 * form must leave every text as this one did. */
static size_t ref_utf8_len(const unsigned char *p) {
        size_t n;
        if (*p < 0x80)
                return 1;
        if ((*p & 0xe0) == 0xc0 && *p >= 0xc2)
                n = 1;
        else if ((*p & 0xf0) == 0xe0)
                n = 2;
        else if ((*p & 0xf8) == 0xf0 && *p <= 0xf4)
                n = 3;
        else
                return 0;
        for (size_t i = 1; i <= n; i++)
                if ((p[i] & 0xc0) != 0x80)
                        return 0;
        return n + 1;
}

static void ref_sanitize(char *s, bool multiline) {
        unsigned char *in = (unsigned char *)s, *out = in;
        while (*in) {
                size_t n = ref_utf8_len(in);
                bool bad = n == 0 || (n == 1 && ((*in < 0x20 && *in != '\t' && !(multiline && *in == '\n')) ||
                                                 *in == 0x7f)) ||
                           (n == 2 && in[0] == 0xc2 && in[1] < 0xa0);
                if (bad) {
                        *out++ = '?';
                        in += n ? n : 1;
                        continue;
                }
                memmove(out, in, n);
                out += n;
                in += n;
        }
        *out = 0;
}

/* What ht_text_write_safe() writes for s. */
static char *written_safe(const char *s, bool multiline) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        assert_non_null(f);
        ht_text_write_safe(f, s, multiline);
        assert_int_equal(fclose(f), 0);
        return buf;
}

/* Every string of up to four bytes from an alphabet of printable ASCII,
 * tab, newline, ESC, DEL, C1 CSI in both forms, a three-byte sequence's
 * parts and a byte no UTF-8 has: the sanitizer leaves each as the
 * reference does, and the printer's writer (which copies only from the
 * first byte that is not printable ASCII) writes exactly that, so no
 * control byte reaches the terminal by either road. */
static void test_text_safe_all_short(void **state) {
        static const unsigned char alphabet[] = {'a', '~', '\t', '\n', 0x1b, 0x7f, 0xc2, 0x9b,
                                                 0xa0, 0xe2, 0x86, 0x92, 0xff};
        const size_t na = sizeof(alphabet);
        char t[5];
        for (size_t len = 0; len <= 4; len++) {
                size_t total = 1;
                for (size_t i = 0; i < len; i++)
                        total *= na;
                for (size_t code = 0; code < total; code++) {
                        size_t c = code;
                        for (size_t i = 0; i < len; i++, c /= na)
                                t[i] = (char)alphabet[c % na];
                        t[len] = 0;
                        for (int ml = 0; ml < 2; ml++) {
                                char want[5], got[5];
                                memcpy(want, t, len + 1);
                                memcpy(got, t, len + 1);
                                ref_sanitize(want, ml);
                                ht_text_sanitize(got, ml);
                                if (!streq(want, got))
                                        fail_msg("sanitize %zu bytes (code %zu, multiline %d) differs", len, code, ml);
                                _cleanup_free_ char *w = written_safe(t, ml);
                                if (!streq(w, want))
                                        fail_msg("write_safe %zu bytes (code %zu, multiline %d) differs", len, code, ml);
                                for (const unsigned char *p = (const unsigned char *)w; *p; p++)
                                        if ((*p < 0x20 && *p != '\t' && !(ml && *p == '\n')) || *p == 0x7f ||
                                            (p[0] == 0xc2 && p[1] >= 0x80 && p[1] < 0xa0))
                                                fail_msg("control byte 0x%02x written (code %zu)", *p, code);
                        }
                }
        }
        /* NULL writes nothing; a long unsafe tail goes through the heap */
        _cleanup_free_ char *none = written_safe(NULL, false);
        assert_string_equal(none, "");
        char big[2000];
        memset(big, 'x', sizeof(big) - 1);
        big[sizeof(big) - 1] = 0;
        big[10] = 0x1b;
        big[1500] = '\n';
        _cleanup_free_ char *w = written_safe(big, false);
        assert_int_equal(strlen(w), sizeof(big) - 1);
        assert_int_equal(w[10], '?');
        assert_int_equal(w[1500], '?');
        assert_null(strchr(w, 0x1b));
}

static void test_normalize_ws(void **state) {
        char *s = normalize_ws("250\t32000\t100\t128\n");
        assert_string_equal(s, "250 32000 100 128");
        free(s);
        char buf[32];
        assert_int_equal(ht_normalize_ws_into("  a \t b  ", buf), 3);
        assert_string_equal(buf, "a b");
}

/* ht_ws_equal answers as comparing normalize_ws() copies would, for
 * every pair of strings of up to three bytes of letters and blanks. */
static void test_ws_equal(void **state) {
        static const char alphabet[] = "ab \t\n";
        const size_t na = sizeof(alphabet) - 1;
        char strs[200][4];
        size_t n = 0;
        for (size_t len = 0; len <= 3; len++) {
                size_t total = 1;
                for (size_t i = 0; i < len; i++)
                        total *= na;
                for (size_t code = 0; code < total; code++, n++) {
                        size_t c = code;
                        for (size_t i = 0; i < len; i++, c /= na)
                                strs[n][i] = alphabet[c % na];
                        strs[n][len] = 0;
                }
        }
        assert_true(n <= ELEMENTSOF(strs));
        for (size_t i = 0; i < n; i++)
                for (size_t j = 0; j < n; j++) {
                        _cleanup_free_ char *a = normalize_ws(strs[i]), *b = normalize_ws(strs[j]);
                        if (ht_ws_equal(strs[i], strs[j]) != streq(a, b))
                                fail_msg("'%s' vs '%s': %d", strs[i], strs[j], ht_ws_equal(strs[i], strs[j]));
                }
        assert_true(ht_ws_equal("4096\t87380\t6291456", "4096 87380 6291456"));
        assert_false(ht_ws_equal("4096 87380", "4096 8738"));
        assert_false(ht_ws_equal("ab", "a b"));
}

/* The join stops where the buffer's room ends, a NUL's byte kept: a
 * result of n bytes needs a buffer of n + 1, wherever the last byte
 * comes from (the format's text, a string, a number). */
static char *join_into(char *buf, size_t size, ssize_t *ret, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        *ret = ht_format_join(buf, size, fmt, ap);
        va_end(ap);
        return buf;
}

static void test_format_join_room(void **state) {
        static const char *const fmts[] = {"/proc/sys/%s", "%s = %u\n", "%s:%u: x", "literal only"};
        char buf[64];
        for (size_t f = 0; f < ELEMENTSOF(fmts); f++) {
                ssize_t n;
                join_into(buf, sizeof(buf), &n, fmts[f], "vm/swappiness", 42u);
                assert_true(n > 0);
                char want[64];
                memcpy(want, buf, (size_t)n);
                want[n] = 0;
                for (size_t size = 0; size <= (size_t)n + 1; size++) {
                        ssize_t m;
                        memset(buf, 'Z', sizeof(buf));
                        join_into(buf, size, &m, fmts[f], "vm/swappiness", 42u);
                        if (size < (size_t)n + 1) {
                                if (m != -1)
                                        fail_msg("'%s' into %zu bytes: %zd", fmts[f], size, m);
                        } else if (m != n || memcmp(buf, want, (size_t)n) != 0)
                                fail_msg("'%s' into %zu bytes: %zd", fmts[f], size, m);
                        /* nothing written past the room given */
                        for (size_t i = size; i < sizeof(buf); i++)
                                if (buf[i] != 'Z')
                                        fail_msg("'%s' into %zu bytes wrote at %zu", fmts[f], size, i);
                }
        }
}

/* A list grown by doubling its room (malloc_usable_size) holds every
 * string pushed, in order, NULL-terminated (valgrind and ASan see any
 * write past the room). */
static void test_strv_push_grows(void **state) {
        char **l = NULL;
        for (unsigned i = 0; i < 1000; i++) {
                strv_pushf(&l, "%u", i);
                assert_int_equal(strv_length(l), i + 1);
                assert_null(l[i + 1]);
        }
        for (unsigned i = 0; i < 1000; i++) {
                char want[16];
                snprintf(want, sizeof(want), "%u", i);
                assert_string_equal(l[i], want);
        }
        strv_free(l);
}

static void test_closest(void **state) {
        char *cands[] = {"sga_max_size", "hugepage_slack", "oracle_user", NULL};
        assert_string_equal(closest_word("sga_max_sise", cands), "sga_max_size");
        assert_null(closest_word("zzzzzzzz", cands));
}

static void test_is_true(void **state) {
        const char *yes[] = {"1", "yes", "YES", "Yes", "true", "TRUE", "True"};
        const char *no[] = {"0", "no", "NO", "false", "False", "", " 1", "1 ", "2", "y", "on", "maybe", "yess"};
        for (size_t i = 0; i < ELEMENTSOF(yes); i++)
                assert_true(ht_is_true(yes[i]));
        for (size_t i = 0; i < ELEMENTSOF(no); i++)
                assert_false(ht_is_true(no[i]));
        assert_false(ht_is_true(NULL));

        /* the environment reading every HOSTTUNE_* switch goes through */
        const char *var = "HOSTTUNE_TEST_UTIL_BOOL";
        unsetenv(var);
        assert_false(ht_env_true(var));
        setenv(var, "0", 1);
        assert_false(ht_env_true(var));
        setenv(var, "", 1);
        assert_false(ht_env_true(var));
        setenv(var, "false", 1);
        assert_false(ht_env_true(var));
        setenv(var, "1", 1);
        assert_true(ht_env_true(var));
        setenv(var, "True", 1);
        assert_true(ht_env_true(var));
        unsetenv(var);

        /* what it keeps (one reading a variable while the environment
         * stays as it was) never outlives a change between calls: each
         * kind of change, with other variables added and removed about
         * it so that the change is in the middle, at the end, or moves
         * the array */
        const char *other = "HOSTTUNE_TEST_UTIL_OTHER", *absent = "HOSTTUNE_TEST_UTIL_ABSENT";
        for (int round = 0; round < 2; round++) {
                unsetenv(absent);
                assert_false(ht_env_true(absent));
                assert_false(ht_env_true(var));
                setenv(var, "1", 1);              /* added at the end */
                assert_true(ht_env_true(var));
                assert_false(ht_env_true(absent));
                setenv(other, "x", 1);            /* another after it */
                assert_true(ht_env_true(var));
                setenv(var, "0", 1);              /* replaced in the middle */
                assert_false(ht_env_true(var));
                setenv(var, "yes", 1);
                assert_true(ht_env_true(var));
                unsetenv(var);                    /* removed: the rest shift */
                assert_false(ht_env_true(var));
                unsetenv(other);
                setenv(absent, "true", 1);        /* one out, one in: same count */
                assert_true(ht_env_true(absent));
                assert_false(ht_env_true(var));
                static char put[] = "HOSTTUNE_TEST_UTIL_BOOL=1";
                assert_int_equal(putenv(put), 0); /* a string of the caller's */
                assert_true(ht_env_true(var));
                unsetenv(var);
                assert_false(ht_env_true(var));
                unsetenv(absent);
                assert_false(ht_env_true(absent));
        }
        /* more names than it keeps: each asked afresh, still right */
        char names[12][40];
        for (int i = 0; i < 12; i++) {
                snprintf(names[i], sizeof names[i], "HOSTTUNE_TEST_UTIL_N%d", i);
                setenv(names[i], i % 2 ? "1" : "0", 1);
        }
        for (int k = 0; k < 2; k++)
                for (int i = 0; i < 12; i++)
                        assert_int_equal(ht_env_true(names[i]), i % 2);
        for (int i = 0; i < 12; i++) {
                setenv(names[i], i % 2 ? "0" : "1", 1);
                assert_int_equal(ht_env_true(names[i]), !(i % 2));
                unsetenv(names[i]);
                assert_false(ht_env_true(names[i]));
        }
}

/* Words for a command a person pastes (issue 32): what a shell reads
 * back is the word, and nothing runs. */
static void test_shell_quote(void **state) {
        static const char *const cases[][2] = {
                {"jvm_user=elasticsearch", "jvm_user=elasticsearch"},
                {"mysql_unit=mariadb.service", "mysql_unit=mariadb.service"},
                {"", "''"},
                {"a b", "'a b'"},
                {"it's", "'it'\\''s'"},
                {"$(touch x)", "'$(touch x)'"},
                {"`id`", "'`id`'"},
                {"app\\x2dtwo.service", "'app\\x2dtwo.service'"},
                {"~root", "'~root'"},
                {"*", "'*'"},
                {"a\nb", "$'a\\x0ab'"},
                {"\033[2J'\\", "$'\\x1b[2J\\'\\\\'"},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                strbuf b = {0};
                ht_shell_word_append(&b, cases[i][0]);
                char *s = strbuf_steal(&b);
                assert_string_equal(s, cases[i][1]);
                free(s);
        }
        char *argv[] = {"hosttune", "plan", "jvm", "--set", "jvm_user=a b", NULL};
        char *j = ht_shell_join(argv);
        assert_string_equal(j, "hosttune plan jvm --set 'jvm_user=a b'");
        free(j);
        j = ht_shell_join((char *[]){NULL});
        assert_string_equal(j, "");
        free(j);
}

/* The arena: objects aligned and zeroed, strings copied, formats of any
 * length (the fast join, the stack, vsnprintf), an object bigger than a
 * chunk, and every chunk freed by ht_arena_done (valgrind and ASan see
 * the rest: tests/unit run under both). */
static void test_arena(void **state) {
        (void)state;
        ht_arena a = {0};
        assert_null(ht_arena_strdup(&a, NULL));
        assert_null(ht_arena_strndup(&a, NULL, 3));
        char *s[200];
        for (int i = 0; i < 200; i++) {
                s[i] = ht_arena_printf(&a, "name-%d %s", i, i % 2 ? "odd" : "even");
                uint64_t *n = ht_arena_alloc(&a, sizeof(*n));
                assert_int_equal((uintptr_t)n % _Alignof(max_align_t), 0);
                assert_true(*n == 0);
                *n = UINT64_MAX; /* room of its own: the strings keep theirs */
        }
        for (int i = 0; i < 200; i++) {
                char want[32];
                snprintf(want, sizeof(want), "name-%d %s", i, i % 2 ? "odd" : "even");
                assert_string_equal(s[i], want);
        }
        assert_string_equal(ht_arena_strndup(&a, "abcdef", 3), "abc");
        assert_string_equal(ht_arena_strndup(&a, "ab", 10), "ab");
        assert_string_equal(ht_arena_strdup(&a, ""), "");
        /* a conversion the join does not take: vsnprintf */
        assert_string_equal(ht_arena_printf(&a, "%05.1f|%x", 3.14159, 255u), "003.1|ff");
        /* longer than the stack buffer and than a first chunk */
        char big[3000];
        memset(big, 'x', sizeof(big) - 1);
        big[sizeof(big) - 1] = 0;
        char *b = ht_arena_printf(&a, "<%s>", big);
        assert_int_equal(strlen(b), sizeof(big) + 1);
        assert_true(b[0] == '<' && b[sizeof(big)] == '>');
        size_t *z = ht_arena_calloc(&a, 10000, sizeof(*z));
        for (size_t i = 0; i < 10000; i++)
                assert_true(z[i] == 0);
        assert_string_equal(s[0], "name-0 even");
        /* adopt: b2's objects live on in a, b2 is empty; into an empty
         * arena too */
        ht_arena b2 = {0}, c = {0};
        char *kept = ht_arena_strdup(&b2, "kept");
        for (int i = 0; i < 100; i++)
                ht_arena_printf(&b2, "filler %d", i);
        ht_arena_adopt(&a, &b2);
        assert_null(b2.chunks);
        ht_arena_adopt(&a, &b2); /* an empty one: nothing */
        char *kept2 = ht_arena_strdup(&c, "kept too");
        ht_arena_adopt(&b2, &c);
        assert_null(c.chunks);
        assert_string_equal(ht_arena_strdup(&b2, "more"), "more");
        ht_arena_adopt(&a, &b2);
        assert_string_equal(kept, "kept");
        assert_string_equal(kept2, "kept too");
        ht_arena_done(&a);
        assert_null(a.chunks);
        ht_arena_done(&a); /* an empty arena again: done twice is fine */
        ht_arena_done(NULL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_size),
                cmocka_unit_test(test_shell_quote),
                cmocka_unit_test(test_parse_u64),
                cmocka_unit_test(test_strv),
                cmocka_unit_test(test_strv_push_counted),
                cmocka_unit_test(test_strv_sort_parallel),
                cmocka_unit_test(test_strv_split_edges),
                cmocka_unit_test(test_xasprintf),
                cmocka_unit_test(test_control_chars),
                cmocka_unit_test(test_text_sanitize),
                cmocka_unit_test(test_utf8_len),
                cmocka_unit_test(test_normalize_ws),
                cmocka_unit_test(test_text_safe_all_short),
                cmocka_unit_test(test_ws_equal),
                cmocka_unit_test(test_format_join_room),
                cmocka_unit_test(test_strv_push_grows),
                cmocka_unit_test(test_closest),
                cmocka_unit_test(test_is_true),
                cmocka_unit_test(test_arena),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
