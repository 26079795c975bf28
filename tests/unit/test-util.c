#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

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
}

static void test_parse_u64(void **state) {
        uint64_t v;
        assert_int_equal(parse_u64("42", &v), 0);
        assert_true(v == 42);
        assert_int_equal(parse_u64("42x", &v), -EINVAL);
        assert_int_equal(parse_u64("-1", &v), -EINVAL);
        assert_int_equal(parse_u64("99999999999999999999999", &v), -ERANGE);
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

static void test_normalize_ws(void **state) {
        char *s = normalize_ws("250\t32000\t100\t128\n");
        assert_string_equal(s, "250 32000 100 128");
        free(s);
}

static void test_closest(void **state) {
        char *cands[] = {"sga_max_size", "hugepage_slack", "oracle_user", NULL};
        assert_string_equal(closest_word("sga_max_sise", cands), "sga_max_size");
        assert_null(closest_word("zzzzzzzz", cands));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_size),
                cmocka_unit_test(test_parse_u64),
                cmocka_unit_test(test_strv),
                cmocka_unit_test(test_normalize_ws),
                cmocka_unit_test(test_closest),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
