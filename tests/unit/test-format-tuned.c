/* format-tuned: tuned's profile files as tuned's configparser reads them.
 * Every expected reading below was Python's (CPython 3.11's configparser
 * with tuned's arguments, tests/tools/tuned-configparser.py); the files
 * read through open() as tuned reads them, so a lone \r ends a line.
 * tests/integration/tuned-format.sh compares the two over every profile
 * of the tuned package and tests/fixtures/tuned-format. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "format-tuned.h"
#include "util.h"

/* The reading as "section|key|value" lines. */
static char *render(const ht_tuned_conf *c) {
        strbuf b = {0};
        for (size_t s = 0; s < c->n_sections; s++)
                for (size_t o = 0; o < c->sections[s].n_options; o++)
                        strbuf_appendf(&b, "%s|%s|%s\n", c->sections[s].name, c->sections[s].options[o].key,
                                       c->sections[s].options[o].value);
        return strbuf_steal(&b);
}

static ht_tuned_conf *parse_len(const char *text, size_t len, bool headerless) {
        ht_tuned_conf *c = NULL;
        _cleanup_free_ char *error = NULL;
        int r = ht_tuned_conf_parse(text, len, "t.conf", headerless, &c, &error);
        if (r < 0)
                fail_msg("unexpected error: %s", error);
        assert_non_null(c);
        return c;
}

static void expect_reading(const char *text, bool headerless, const char *want) {
        _cleanup_(ht_tuned_conf_freep) ht_tuned_conf *c = parse_len(text, strlen(text), headerless);
        _cleanup_free_ char *got = render(c);
        assert_string_equal(got, want);
}

/* len 0: strlen(text) */
static void expect_error(const char *text, size_t len, bool headerless, const char *want) {
        if (!len)
                len = strlen(text);
        ht_tuned_conf *c = (ht_tuned_conf *)0x1;
        char *error = NULL;
        assert_int_equal(ht_tuned_conf_parse(text, len, "t.conf", headerless, &c, &error), -EINVAL);
        assert_ptr_equal(c, (ht_tuned_conf *)0x1); /* untouched */
        assert_non_null(error);
        assert_string_equal(error, want);
        free(error);
}

static void test_inline_comments(void **state) {
        (void)state;
        /* '#' after whitespace ends the value, '#' inside a word does not,
         * ';' only starts full-line comments */
        expect_reading("[main]\na = b # c\nd = e#f\ng = h\t# i\nj = # k\nl = m ; n\n", false,
                       "main|a|b\nmain|d|e#f\nmain|g|h\nmain|j|\nmain|l|m ; n\n");
}

static void test_delimiters(void **state) {
        (void)state;
        /* only '=' delimits, the first one; key and value stripped; an
         * indented key line after a value is that value's continuation */
        expect_reading("[main]\nkey: x = y\na=b=c\n  k  =  v  \nempty =\n", false,
                       "main|key: x|y\nmain|a|b=c\nk  =  v\nmain|empty|\n");
}

static void test_full_line_comments(void **state) {
        (void)state;
        const char *text = "[main]\n# c1\n;c2\n   #  c3\nk = v\n# far\n\nj = w\n[s]\n# above a header\n[t]\nx = 1\n";
        _cleanup_(ht_tuned_conf_freep) ht_tuned_conf *c = parse_len(text, strlen(text), false);
        const ht_tuned_section *m = ht_tuned_conf_section(c, "main");
        assert_non_null(m);
        const ht_tuned_option *k = ht_tuned_section_option(m, "k");
        assert_non_null(k);
        assert_string_equal(k->value, "v");
        assert_int_equal(k->line, 5);
        /* the leading '#'/';' and one space taken off */
        assert_string_equal(k->comment, "c1\nc2\n c3");
        /* a blank line between: no comment */
        const ht_tuned_option *j = ht_tuned_section_option(m, "j");
        assert_non_null(j);
        assert_null(j->comment);
        const ht_tuned_option *x = ht_tuned_section_option(ht_tuned_conf_section(c, "t"), "x");
        assert_non_null(x);
        assert_null(x->comment);
        assert_null(ht_tuned_section_option(m, "K"));
        assert_null(ht_tuned_conf_section(c, "Main"));
        assert_int_equal(ht_tuned_conf_section(c, "s")->n_options, 0);
}

static void test_continuation(void **state) {
        (void)state;
        /* blank lines inside a value kept, trailing ones dropped; comment
         * lines neither end a value nor join it */
        expect_reading("[s]\nk = a\n  b\n\n\n  c\n\n\nj = 1\n  # not a line\n  2\n", false,
                       "s|k|a\nb\n\n\nc\ns|j|1\n2\n");
        /* an empty first line stays as a leading "\n" (rstrip only) */
        expect_reading("[s]\nk =\n  x\n", false, "s|k|\nx\n");
        /* more indented than the key's own line */
        expect_reading("[s]\n  a = 1\n    b = 2\n  c = 3\n", false, "s|a|1\nb = 2\ns|c|3\n");
        /* an indented header is a continuation too */
        expect_reading("[s]\nk = 1\n  [t]\n", false, "s|k|1\n[t]\n");
        /* after a header, nothing continues */
        expect_reading("[s]\n  k = 1\n", false, "s|k|1\n");
        _cleanup_(ht_tuned_conf_freep) ht_tuned_conf *c = parse_len("[s]\nk = a\n  b\nj = 2\n", strlen("[s]\nk = a\n  b\nj = 2\n"), false);
        assert_int_equal(ht_tuned_section_option(&c->sections[0], "j")->line, 4);
        assert_int_equal(ht_tuned_section_option(&c->sections[0], "k")->line, 2);
}

static void test_repeats(void **state) {
        (void)state;
        /* strict=False: a repeated section continues the first, a repeated
         * key replaces the value in its first position */
        const char *text = "[a]\nk = 1\nj = 2\n[b]\nx = 1\n# new\n[a]\n# again\nk = 3\nn = 4\n";
        expect_reading(text, false, "a|k|3\na|j|2\na|n|4\nb|x|1\n");
        _cleanup_(ht_tuned_conf_freep) ht_tuned_conf *c = parse_len(text, strlen(text), false);
        assert_int_equal(c->n_sections, 2);
        assert_int_equal(c->sections[0].line, 1);
        const ht_tuned_option *k = &c->sections[0].options[0];
        assert_int_equal(k->line, 9);
        assert_string_equal(k->comment, "again");
}

static void test_default_section(void **state) {
        (void)state;
        /* DEFAULT's options follow each section's own, where it lacks them */
        const char *text = "[DEFAULT]\nd = 1\nk = dk\n[a]\nk = own\n[b]\nz = 2\n[DEFAULT]\ne = 3\n";
        expect_reading(text, false, "a|k|own\na|d|1\na|e|3\nb|z|2\nb|d|1\nb|k|dk\nb|e|3\n");
        _cleanup_(ht_tuned_conf_freep) ht_tuned_conf *c = parse_len(text, strlen(text), false);
        assert_int_equal(c->n_sections, 2);
        assert_null(ht_tuned_conf_section(c, "DEFAULT"));
        assert_int_equal(ht_tuned_section_option(ht_tuned_conf_section(c, "b"), "k")->line, 3);
        /* only DEFAULT: no sections */
        expect_reading("[DEFAULT]\nd = 1\n", false, "");
}

static void test_headers(void **state) {
        (void)state;
        /* SECTCRE \[(?P<header>.+)\] from the start: to the last ']', the
         * rest ignored; "[q = r" is an option named "[q" */
        expect_reading("[a] x\nk = 1\n[b]]\nk = 2\n[ c ]\nk = 3\n[x=y]\nk = 4\n[]]\nk = 5\n[q = r\n[d] # c\n", false,
                       "a|k|1\nb]|k|2\n c |k|3\nx=y|k|4\n]|k|5\n]|[q|r\n");
}

static void test_line_ends(void **state) {
        (void)state;
        expect_reading("[s]\r\nk = v # c\r\n  w\r\nj = x\r\n", false, "s|k|v\nw\ns|j|x\n");
        /* a lone \r: Python's universal newlines */
        expect_reading("[s]\rk = v\r  w\rj = x", false, "s|k|v\nw\ns|j|x\n");
        _cleanup_(ht_tuned_conf_freep) ht_tuned_conf *c = parse_len("[s]\r\n\rk = v\n", strlen("[s]\r\n\rk = v\n"), false);
        assert_int_equal(c->sections[0].options[0].line, 3);
        /* text without a NUL at its end */
        const char buf[] = {'[', 's', ']', '\n', 'k', '=', 'v', 'X'};
        _cleanup_(ht_tuned_conf_freep) ht_tuned_conf *d = parse_len(buf, sizeof(buf) - 1, false);
        assert_string_equal(d->sections[0].options[0].value, "v");
}

static void test_bom(void **state) {
        (void)state;
        /* skipped (tuned itself refuses such a file) */
        expect_reading("\xef\xbb\xbf[main]\nk = v\n", false, "main|k|v\n");
        expect_reading("\xef\xbb\xbfk = v\n", true, "|k|v\n");
}

static void test_unicode_whitespace(void **state) {
        (void)state;
        /* str.strip() and \s are Unicode's: NBSP, EM SPACE, U+001C; an
         * ideographic space indents */
        expect_reading("[s]\nk2\xc2\xa0= v\xe2\x80\x83\nk3 = a\xe2\x80\x83# c\nk4 = x\x1c\n\xe3\x80\x80j = cont\n", false,
                       "s|k2|v\ns|k3|a\ns|k4|x\nj = cont\n");
        expect_reading("[s]\nk = caf\xc3\xa9\n", false, "s|k|caf\xc3\xa9\n");
}

static void test_errors(void **state) {
        (void)state;
        expect_error("[s]\nbare\n", 0, false,
                     "t.conf:2: neither a [section] header, an option (key = value) nor a comment");
        expect_error("# c\n\nk = v\n", 0, false, "t.conf:3: an option before any [section] header");
        expect_error("[s]\n= v\n", 0, false, "t.conf:2: an option without a key before its '='");
        expect_error("[s]\n  = v\n", 0, false, "t.conf:2: an option without a key before its '='");
        expect_error("[s\nk = v\n", 0, false, "t.conf:1: a section header without its ']'");
        expect_error("[s]\n[]\n", 0, false, "t.conf:2: a section header without a name");
        expect_error("[s]\nk = v\0w\n", sizeof("[s]\nk = v\0w\n") - 1, false, "t.conf:2: a NUL byte");
        expect_error("[s]\r\n\rk = \xff\n", 0, false, "t.conf:3: not valid UTF-8");
        /* Python's decoder refuses surrogates, overlong forms, truncation */
        expect_error("[s]\nk = \xed\xa0\x80\n", 0, false, "t.conf:2: not valid UTF-8");
        expect_error("[s]\nk = \xc0\xaf\n", 0, false, "t.conf:2: not valid UTF-8");
        expect_error("[s]\nk = \xe2\x80", 0, false, "t.conf:2: not valid UTF-8");
        expect_error("[s]\nk = \xf4\x90\x80\x80\n", 0, false, "t.conf:2: not valid UTF-8");
        /* the first error: Python lists them all, tuned refuses the file */
        expect_error("[s]\nx\ny\n", 0, false,
                     "t.conf:2: neither a [section] header, an option (key = value) nor a comment");
        /* no path: still a place */
        char *error = NULL;
        ht_tuned_conf *c = NULL;
        assert_int_equal(ht_tuned_conf_parse("x\n", 2, NULL, false, &c, &error), -EINVAL);
        assert_non_null(error);
        assert_true(startswith(error, "(text):1: "));
        free(error);
        assert_int_equal(ht_tuned_conf_parse("x\n", 2, "p", false, &c, NULL), -EINVAL);
        assert_null(c);
}

static void test_headerless(void **state) {
        (void)state;
        /* as variables.py reads a variable file: a magic section, bare keys
         * (allow_no_value) skipped, a header of the file's own kept */
        const char *text = "# vars\na = 1\nb\nc = 2 # x\n[t]\nk = v\n";
        expect_reading(text, true, "|a|1\n|c|2\nt|k|v\n");
        _cleanup_(ht_tuned_conf_freep) ht_tuned_conf *c = parse_len(text, strlen(text), true);
        assert_string_equal(c->sections[0].name, "");
        assert_int_equal(c->sections[0].line, 0);
        assert_int_equal(c->sections[0].options[0].line, 2);
        assert_string_equal(c->sections[0].options[0].comment, "vars");
        /* a bare key replaces (and drops) an earlier value, and a value
         * replaces a bare key */
        expect_reading("a = 1\na\nb\nb = 2\n", true, "|b|2\n");
        /* a bare key hides DEFAULT's value */
        expect_reading("[DEFAULT]\nd = 1\ne = 2\n[s]\nd\n", true, "|d|1\n|e|2\ns|e|2\n");
        expect_reading("", true, "");
        expect_error("a\n  x\n", 0, true, "t.conf:2: a continuation line of a key without '=' (tuned fails on it)");
        expect_error("= x\n", 0, true, "t.conf:1: an option without a key before its '='");
}

static void test_empty(void **state) {
        (void)state;
        _cleanup_(ht_tuned_conf_freep) ht_tuned_conf *c = parse_len("", 0, false);
        assert_int_equal(c->n_sections, 0);
        expect_reading("\n# only a comment\n\n", false, "");
        ht_tuned_conf_free(NULL);
        assert_null(ht_tuned_conf_section(NULL, "x"));
        assert_null(ht_tuned_section_option(NULL, "x"));
}

/* Many sections and keys: repeats found without a quadratic search. */
static void test_large(void **state) {
        (void)state;
        strbuf b = {0};
        for (unsigned i = 0; i < 2000; i++) {
                strbuf_appendf(&b, "[s%u]\n", i % 500);
                for (unsigned j = 0; j < 50; j++)
                        strbuf_appendf(&b, "k%u = %u\n", j + 50 * (i / 500), i);
        }
        _cleanup_free_ char *text = strbuf_steal(&b);
        _cleanup_(ht_tuned_conf_freep) ht_tuned_conf *c = parse_len(text, strlen(text), false);
        assert_int_equal(c->n_sections, 500);
        assert_int_equal(c->sections[7].n_options, 200);
        assert_string_equal(ht_tuned_section_option(&c->sections[7], "k0")->value, "7");
        assert_string_equal(ht_tuned_section_option(&c->sections[7], "k199")->value, "1507");
}

/* Every profile of the tuned package parses (the values are compared with
 * Python's by tests/integration/tuned-format.sh). */
static void test_shipped_profiles(void **state) {
        (void)state;
        const char *top = "/usr/lib/tuned";
        DIR *d = opendir(top);
        if (!d) {
                printf("# SKIP %s: no tuned package installed\n", top);
                skip();
        }
        unsigned n = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (de->d_name[0] == '.')
                        continue;
                _cleanup_free_ char *path = xasprintf("%s/%s/tuned.conf", top, de->d_name);
                FILE *f = fopen(path, "re");
                if (!f)
                        continue;
                char buf[1 << 16];
                size_t len = fread(buf, 1, sizeof(buf), f);
                assert_true(feof(f));
                fclose(f);
                ht_tuned_conf *c = NULL;
                _cleanup_free_ char *error = NULL;
                if (ht_tuned_conf_parse(buf, len, path, false, &c, &error) < 0)
                        fail_msg("%s", error);
                assert_true(c->n_sections > 0);
                ht_tuned_conf_free(c);
                n++;
        }
        closedir(d);
        assert_true(n > 0);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_inline_comments),
                cmocka_unit_test(test_delimiters),
                cmocka_unit_test(test_full_line_comments),
                cmocka_unit_test(test_continuation),
                cmocka_unit_test(test_repeats),
                cmocka_unit_test(test_default_section),
                cmocka_unit_test(test_headers),
                cmocka_unit_test(test_line_ends),
                cmocka_unit_test(test_bom),
                cmocka_unit_test(test_unicode_whitespace),
                cmocka_unit_test(test_errors),
                cmocka_unit_test(test_headerless),
                cmocka_unit_test(test_empty),
                cmocka_unit_test(test_large),
                cmocka_unit_test(test_shipped_profiles),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
