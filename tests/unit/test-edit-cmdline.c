#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "edit-cmdline.h"
#include "edit-test-helpers.h"

static void test_split(void **state) {
        _cleanup_strv_free_ char **w = ht_cmdline_split("  ro root=/dev/sda1\tfoo=\"a b\" \"quoted flag\" quiet\n");
        assert_int_equal(strv_length(w), 5);
        assert_string_equal(w[2], "foo=\"a b\"");
        assert_string_equal(w[3], "\"quoted flag\"");
        _cleanup_free_ char *k = ht_cmdline_word_key(w[2]);
        assert_string_equal(k, "foo");
        _cleanup_strv_free_ char **e = ht_cmdline_split("");
        assert_int_equal(strv_length(e), 0);
}

static void test_find(void **state) {
        _cleanup_strv_free_ char **w = ht_cmdline_split("hugepages=10 transparent_hugepage=never hugepages=20 nosmt");
        const char *v;
        assert_int_equal(ht_cmdline_find(w, "hugepages", &v), 2);
        assert_string_equal(v, "20");
        assert_int_equal(ht_cmdline_find(w, "transparent-hugepage", &v), 1);
        assert_int_equal(ht_cmdline_find(w, "nosmt", &v), 3);
        assert_null(v);
        assert_int_equal(ht_cmdline_find(w, "hugepage", NULL), -1);
        assert_true(ht_cmdline_key_eq("a-b_c", "a_b-c"));
        assert_false(ht_cmdline_key_eq("ab", "abc"));
}

static void test_apply(void **state) {
        _cleanup_strv_free_ char **w = ht_cmdline_split("quiet console=tty0 hugepages=1 hugepages=2");
        ht_cmdline_op ops[] = {
                { HT_CMDLINE_SET, "hugepages", "9" },
                { HT_CMDLINE_ADD, "console", "ttyS0,115200" },
                { HT_CMDLINE_ADD, "console", "tty0" },
                { HT_CMDLINE_REMOVE, "quiet", NULL },
                { HT_CMDLINE_SET, "nosmt", NULL },
        };
        _cleanup_strv_free_ char **r = ht_cmdline_apply(w, ops, ELEMENTSOF(ops));
        _cleanup_free_ char *j = strv_join(r, " ");
        assert_string_equal(j, "console=tty0 hugepages=9 console=ttyS0,115200 nosmt");
}

static void edit(const char *body, char *const *hidden, const ht_cmdline_op *ops, size_t n, const char *want) {
        ht_word_span *w;
        size_t nw = ht_word_spans_simple(body, strlen(body), &w);
        char *out = NULL, *err = NULL;
        size_t len;
        int r = ht_cmdline_edit_body(body, strlen(body), w, nw, hidden, ops, n, &out, &len, &err);
        ht_word_spans_free(w, nw);
        if (!want) {
                assert_int_equal(r, -EINVAL);
                assert_non_null(err);
                free(err);
                return;
        }
        if (r < 0)
                fail_msg("%s", err);
        assert_string_equal(out, want);
        free(out);
}

static void test_edit_body(void **state) {
        ht_cmdline_op rm_b[] = { { HT_CMDLINE_REMOVE, "b", NULL } };
        edit("a  b\tc", NULL, rm_b, 1, "a  c");
        edit("b  a\tc", NULL, rm_b, 1, "a\tc");
        edit("  a b  ", NULL, rm_b, 1, "  a  ");
        edit(" b ", NULL, rm_b, 1, "  ");
        ht_cmdline_op set[] = { { HT_CMDLINE_SET, "b", "2" } };
        edit("a\tb=1\t\tc b=3", NULL, set, 1, "a\tb=2\t\tc");
        edit("", NULL, set, 1, "b=2");
        edit("a ", NULL, set, 1, "a b=2 ");
        /* Opaque words are never touched; what they hide decides. */
        char *hidden[] = { "b=1", "x", NULL };
        edit("$kernelopts c", hidden, set, 1, NULL);
        edit("$kernelopts c", hidden, rm_b, 1, NULL);
        ht_cmdline_op set_same[] = { { HT_CMDLINE_SET, "b", "1" } };
        edit("$kernelopts b=7", hidden, set_same, 1, "$kernelopts");
        ht_cmdline_op add_x[] = { { HT_CMDLINE_ADD, "x", NULL } };
        edit("$kernelopts", hidden, add_x, 1, "$kernelopts");
        ht_cmdline_op bad[] = { { HT_CMDLINE_SET, "b", "1 2" } };
        edit("a", NULL, bad, 1, NULL);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_split),
                cmocka_unit_test(test_find),
                cmocka_unit_test(test_apply),
                cmocka_unit_test(test_edit_body),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
