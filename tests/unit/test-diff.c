#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <time.h>

#include "diff.h"
#include "edit-test-helpers.h"

static char *tmpdir;

static int setup(void **state) {
        tmpdir = th_mkdtemp();
        return 0;
}

static int teardown(void **state) {
        th_rmdir(tmpdir);
        free(tmpdir);
        return 0;
}

/* GNU diff -u with our labels, as the oracle. */
static char *gnu_diff(const char *a, size_t alen, const char *b, size_t blen, unsigned ctx) {
        _cleanup_free_ char *pa = th_write_file(tmpdir, "a", a, alen);
        _cleanup_free_ char *pb = th_write_file(tmpdir, "b", b, blen);
        _cleanup_free_ char *u = xasprintf("-U%u", ctx);
        char *argv[] = { "diff", u, "--label", "a/x", "--label", "b/x", pa, pb, NULL };
        char *out;
        int r = th_run(argv, &out);
        assert_true(r == 0 || r == 1);
        return out;
}

/* Apply d to a with GNU patch and check the result is b. */
static void check_patch(const char *a, size_t alen, const char *b, size_t blen, const char *d) {
        _cleanup_free_ char *pa = th_write_file(tmpdir, "old", a, alen);
        _cleanup_free_ char *pd = th_write_file(tmpdir, "d.patch", d, strlen(d));
        _cleanup_free_ char *po = xasprintf("%s/new", tmpdir);
        unlink(po);
        char *argv[] = { "patch", "-s", "-f", "--no-backup-if-mismatch", "-o", po, "-i", pd, pa, NULL };
        assert_int_equal(th_run(argv, NULL), 0);
        size_t n;
        _cleanup_free_ char *got = th_read_file(po, &n);
        assert_non_null(got);
        assert_int_equal(n, blen);
        assert_memory_equal(got, b, blen);
}

static void check_same_as_gnu(const char *a, const char *b, unsigned ctx) {
        _cleanup_free_ char *mine = ht_unified_diff("a/x", a, strlen(a), "b/x", b, strlen(b), ctx);
        _cleanup_free_ char *gnu = gnu_diff(a, strlen(a), b, strlen(b), ctx);
        if (!mine) {
                assert_string_equal(gnu, "");
                return;
        }
        assert_string_equal(mine, gnu);
        check_patch(a, strlen(a), b, strlen(b), mine);
}

static void test_identical(void **state) {
        assert_null(ht_unified_diff("a", "x\ny\n", 4, "b", "x\ny\n", 4, 3));
        assert_null(ht_unified_diff("a", NULL, 0, "b", "", 0, 3));
}

static void test_new_and_removed_file(void **state) {
        char *d = ht_unified_diff("/dev/null", NULL, 0, "b/etc/sysctl.d/90-hosttune.conf",
                                  "a\nb\n", 4, 3);
        assert_string_equal(d, "--- /dev/null\n+++ b/etc/sysctl.d/90-hosttune.conf\n"
                               "@@ -0,0 +1,2 @@\n+a\n+b\n");
        free(d);
        d = ht_unified_diff("a/f", "one\n", 4, "/dev/null", NULL, 0, 3);
        assert_string_equal(d, "--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-one\n");
        free(d);
        check_same_as_gnu("", "x\ny\nz\n", 3);
        check_same_as_gnu("x\ny\nz\n", "", 3);
}

static void test_golden_against_gnu(void **state) {
        /* Unambiguous edits, so GNU's choice of hunks is the only one. */
        check_same_as_gnu("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n10\n", 3);
        check_same_as_gnu("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "0\n1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n", 3);
        /* Two changes 7 lines apart: two hunks at -U3, one at -U4. */
        const char *a = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\nn\no\np\n";
        const char *b = "a\nB\nc\nd\ne\nf\ng\nh\ni\nJ\nk\nl\nm\nn\no\np\n";
        check_same_as_gnu(a, b, 3);
        check_same_as_gnu(a, b, 4);
        check_same_as_gnu(a, b, 0);
        check_same_as_gnu(a, b, 1);
        /* Pure insertion and pure deletion in the middle (the ",0" forms). */
        check_same_as_gnu("a\nb\nc\nd\ne\nf\ng\nh\n", "a\nb\nc\nd\nNEW\ne\nf\ng\nh\n", 0);
        check_same_as_gnu("a\nb\nc\nd\ne\nf\ng\nh\n", "a\nb\nc\ne\nf\ng\nh\n", 0);
        check_same_as_gnu("a\nb\nc\nd\ne\nf\ng\nh\n", "a\nb\nc\ne\nf\ng\nh\n", 3);
}

static void test_no_newline_at_eof(void **state) {
        check_same_as_gnu("a\nb\nc", "a\nb\nc\n", 3);
        check_same_as_gnu("a\nb\nc\n", "a\nb\nc", 3);
        check_same_as_gnu("a\nb\nc", "a\nB\nc", 3);
        check_same_as_gnu("x", "y", 3);
        check_same_as_gnu("1\n2\n3\n4\n5\n6\n7\n8\nlast", "1\nTWO\n3\n4\n5\n6\n7\n8\nlast", 3);
        char *d = ht_unified_diff("a", "x", 1, "b", "x\n", 2, 3);
        assert_string_equal(d, "--- a\n+++ b\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+x\n");
        free(d);
}

static void test_binary(void **state) {
        char *d = ht_unified_diff("a", "x\0y", 3, "b", "x", 1, 3);
        assert_string_equal(d, "Binary files a and b differ\n");
        free(d);
}

static char *random_file(unsigned *seed, size_t lines, size_t alphabet, size_t *ret_len) {
        strbuf b = {};
        for (size_t i = 0; i < lines; i++)
                strbuf_appendf(&b, "line %u\n", (unsigned)(rand_r(seed) % alphabet));
        if (lines > 0 && rand_r(seed) % 5 == 0)
                b.len--;        /* sometimes no newline at the end */
        *ret_len = b.len;
        if (!b.data)
                return xstrdup("");
        b.data[b.len] = 0;
        return strbuf_steal(&b);
}

static char *random_edit(unsigned *seed, const char *a, size_t alen, size_t *ret_len) {
        strbuf b = {};
        const char *p = a, *end = a + alen;
        while (p < end) {
                const char *nl = memchr(p, '\n', end - p);
                size_t len = nl ? (size_t)(nl - p + 1) : (size_t)(end - p);
                unsigned r = rand_r(seed) % 10;
                if (r == 0)
                        ;       /* delete */
                else if (r == 1)
                        strbuf_appendf(&b, "changed %u\n", rand_r(seed) % 7);
                else if (r == 2) {
                        strbuf_appendf(&b, "inserted %u\n", rand_r(seed) % 3);
                        strbuf_appendn(&b, p, len);
                } else
                        strbuf_appendn(&b, p, len);
                p += len;
        }
        if (rand_r(seed) % 4 == 0)
                strbuf_append(&b, "tail\n");
        *ret_len = b.len;
        if (!b.data)
                return xstrdup("");
        return strbuf_steal(&b);
}

static size_t count_changes(const char *d) {
        size_t n = 0;
        if (!d)
                return 0;
        for (const char *p = d; *p; p = strchr(p, '\n') + 1) {
                if ((*p == '+' && !startswith(p, "+++ ")) || (*p == '-' && !startswith(p, "--- ")))
                        n++;
                if (!strchr(p, '\n'))
                        break;
        }
        return n;
}

static void test_random_edits_apply(void **state) {
        unsigned seed = 4242;
        for (int round = 0; round < 150; round++) {
                size_t alen, blen;
                _cleanup_free_ char *a = random_file(&seed, rand_r(&seed) % 40, 1 + rand_r(&seed) % 12, &alen);
                _cleanup_free_ char *b = random_edit(&seed, a, alen, &blen);
                unsigned ctx = rand_r(&seed) % 4;
                _cleanup_free_ char *mine = ht_unified_diff("a/x", a, alen, "b/x", b, blen, ctx);
                _cleanup_free_ char *gnu = gnu_diff(a, alen, b, blen, ctx);
                if (!mine) {
                        assert_true(alen == blen && memcmp(a, b, alen) == 0);
                        assert_string_equal(gnu, "");
                        continue;
                }
                check_patch(a, alen, b, blen, mine);
                /* Myers finds a shortest script: never longer than GNU's. */
                assert_true(count_changes(mine) <= count_changes(gnu));
        }
}

static void test_large_files(void **state) {
        strbuf a = {}, b = {};
        for (unsigned i = 0; i < 100000; i++) {
                strbuf_appendf(&a, "kernel.param%u = %u\n", i, i * 7);
                if (i == 50000)
                        strbuf_append(&b, "vm.nr_hugepages = 9000\n");
                if (i == 77777)
                        continue;
                strbuf_appendf(&b, "kernel.param%u = %u\n", i, i == 99999 ? 1 : i * 7);
        }
        clock_t t0 = clock();
        _cleanup_free_ char *d = ht_unified_diff("a/x", a.data, a.len, "b/x", b.data, b.len, 3);
        assert_non_null(d);
        assert_true(count_changes(d) == 4);
        check_patch(a.data, a.len, b.data, b.len, d);

        /* Everything different: lines unique to one side never reach Myers. */
        strbuf c = {};
        for (unsigned i = 0; i < 100000; i++)
                strbuf_appendf(&c, "other %u\n", i);
        _cleanup_free_ char *d2 = ht_unified_diff("a/x", a.data, a.len, "b/x", c.data, c.len, 3);
        assert_int_equal(count_changes(d2), 200000);

        /* Many scattered edits among repeated lines: the cost cap keeps it fast. */
        strbuf e = {}, f = {};
        unsigned seed = 7;
        for (unsigned i = 0; i < 8000; i++) {
                strbuf_appendf(&e, "%u\n", rand_r(&seed) % 50);
                strbuf_appendf(&f, "%u\n", rand_r(&seed) % 50);
        }
        _cleanup_free_ char *d3 = ht_unified_diff("a/x", e.data, e.len, "b/x", f.data, f.len, 3);
        check_patch(e.data, e.len, f.data, f.len, d3);
        double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
        assert_true(secs < 20.0);
        strbuf_done(&a);
        strbuf_done(&b);
        strbuf_done(&c);
        strbuf_done(&e);
        strbuf_done(&f);
}

int main(void) {
        if (!th_have("diff") || !th_have("patch")) {
                fprintf(stderr, "GNU diff and patch are needed as oracles\n");
                return 77;
        }
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_identical),
                cmocka_unit_test(test_new_and_removed_file),
                cmocka_unit_test(test_golden_against_gnu),
                cmocka_unit_test(test_no_newline_at_eof),
                cmocka_unit_test(test_binary),
                cmocka_unit_test(test_random_edits_apply),
                cmocka_unit_test(test_large_files),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
