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
        /* the last word gone: no separator left (grubby's updargs/g3.7) */
        edit(" b ", NULL, rm_b, 1, "");
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

/* console= and the other repeatable words: adding one keeps the others;
 * SET of such a key adds; single-valued keys are still replaced. */
static void test_repeatable(void **state) {
        assert_true(ht_cmdline_repeatable("console"));
        assert_true(ht_cmdline_repeatable("rd.lvm.lv"));
        assert_false(ht_cmdline_repeatable("transparent_hugepage"));
        assert_false(ht_cmdline_repeatable("earlycon"));
        ht_cmdline_op add = ht_cmdline_op_make("console", "ttyS1", false);
        assert_int_equal(add.kind, HT_CMDLINE_ADD);
        assert_int_equal(ht_cmdline_op_make("crashkernel", "256M", false).kind, HT_CMDLINE_SET);
        assert_int_equal(ht_cmdline_op_make("console", NULL, true).kind, HT_CMDLINE_REMOVE);

        _cleanup_strv_free_ char **w = ht_cmdline_split("console=tty0 console=ttyS0,115200n8 thp=1");
        ht_cmdline_op set_console = {HT_CMDLINE_SET, "console", "ttyS1"};
        _cleanup_strv_free_ char **r = ht_cmdline_apply(w, &set_console, 1);
        _cleanup_free_ char *j = strv_join(r, " ");
        assert_string_equal(j, "console=tty0 console=ttyS0,115200n8 thp=1 console=ttyS1");

        /* satisfied: SET by the last word, ADD by any, REMOVE by none */
        assert_true(ht_cmdline_satisfied(w, &(ht_cmdline_op){HT_CMDLINE_ADD, "console", "tty0"}));
        assert_false(ht_cmdline_satisfied(w, &add));
        _cleanup_strv_free_ char **s = ht_cmdline_split("thp=2 thp=1 quiet");
        assert_true(ht_cmdline_satisfied(s, &(ht_cmdline_op){HT_CMDLINE_SET, "thp", "1"}));
        assert_false(ht_cmdline_satisfied(s, &(ht_cmdline_op){HT_CMDLINE_SET, "thp", "2"}));
        assert_false(ht_cmdline_satisfied(s, &(ht_cmdline_op){HT_CMDLINE_SET, "quiet", "1"}));
        assert_true(ht_cmdline_satisfied(s, &(ht_cmdline_op){HT_CMDLINE_SET, "quiet", NULL}));
        assert_false(ht_cmdline_satisfied(s, &(ht_cmdline_op){HT_CMDLINE_REMOVE, "quiet", NULL}));
        assert_true(ht_cmdline_satisfied(s, &(ht_cmdline_op){HT_CMDLINE_REMOVE, "thp", "3"}));
        assert_false(ht_cmdline_satisfied(NULL, &(ht_cmdline_op){HT_CMDLINE_SET, "thp", "1"}));

        /* hugepages= paired with hugepagesz= by position: refused */
        static const char paired[] = "ro hugepagesz=1G hugepages=4 hugepagesz=2M hugepages=512";
        ht_word_span *ws = NULL;
        size_t nw = ht_word_spans_simple(paired, strlen(paired), &ws);
        ht_cmdline_op hp = {HT_CMDLINE_SET, "hugepages", "1024"};
        char *out = NULL, *err = NULL;
        size_t out_len = 0;
        assert_int_equal(ht_cmdline_edit_body(paired, strlen(paired), ws, nw, NULL, &hp, 1, &out, &out_len, &err), -EINVAL);
        assert_null(out);
        assert_non_null(strstr(err, "hugepagesz="));
        free(err);
        ht_word_spans_free(ws, nw);
        /* without hugepagesz= it is a single-valued word as any other */
        static const char plain[] = "ro hugepages=4";
        nw = ht_word_spans_simple(plain, strlen(plain), &ws);
        assert_int_equal(ht_cmdline_edit_body(plain, strlen(plain), ws, nw, NULL, &hp, 1, &out, &out_len, &err), 0);
        assert_string_equal(out, "ro hugepages=1024");
        free(out);
        ht_word_spans_free(ws, nw);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_split),
                cmocka_unit_test(test_find),
                cmocka_unit_test(test_apply),
                cmocka_unit_test(test_edit_body),
                cmocka_unit_test(test_repeatable),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
