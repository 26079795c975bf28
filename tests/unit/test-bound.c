/* Bounds (src/profile/bound.c): the comparison and the value written, for
 * numbers, byte sizes, kernel.sem field by field, the port range and a range LOW..HIGH. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bound.h"
#include "util.h"

static void assert_merge(ht_bound b, const char *want, const char *cur, const char *expect) {
        char *m = ht_bound_merge(b, want, cur);
        assert_string_equal(m, expect);
        free(m);
}

static void test_names(void **state) {
        ht_bound b;
        for (int i = 0; i < _HT_BOUND_MAX; i++) {
                assert_int_equal(ht_bound_from_string(ht_bound_to_string((ht_bound)i), &b), 0);
                assert_int_equal(b, i);
        }
        assert_string_equal(ht_bound_to_string(HT_BOUND_AT_LEAST), "at-least");
        assert_int_equal(ht_bound_from_string("at_least", &b), -EINVAL);
        assert_int_equal(ht_bound_from_string(">=", &b), -EINVAL);
        assert_int_equal(ht_bound_from_string(NULL, &b), -EINVAL);
}

static void test_numbers(void **state) {
        /* Oracle Linux 8's defaults against the preinstall minimums */
        assert_true(ht_bound_satisfied(HT_BOUND_AT_LEAST, "6815744", "9223372036854775807"));
        assert_true(ht_bound_satisfied(HT_BOUND_AT_LEAST, "1073741824", "18446744073692774399"));
        assert_true(ht_bound_satisfied(HT_BOUND_AT_LEAST, "6815744", "6815744"));
        assert_false(ht_bound_satisfied(HT_BOUND_AT_LEAST, "6815744", "6518980"));
        assert_merge(HT_BOUND_AT_LEAST, "6815744", "6518980", "6815744");
        assert_merge(HT_BOUND_AT_LEAST, "6815744", "9223372036854775807", "9223372036854775807");
        assert_true(ht_bound_satisfied(HT_BOUND_AT_MOST, "10", "1"));
        assert_true(ht_bound_satisfied(HT_BOUND_AT_MOST, "10", "10"));
        assert_false(ht_bound_satisfied(HT_BOUND_AT_MOST, "10", "60"));
        assert_merge(HT_BOUND_AT_MOST, "10", "60", "10");
        /* negative values (-1: no limit in some knobs) order as numbers */
        assert_true(ht_bound_satisfied(HT_BOUND_AT_LEAST, "-1", "0"));
        assert_false(ht_bound_satisfied(HT_BOUND_AT_LEAST, "0", "-1"));
        assert_true(ht_bound_satisfied(HT_BOUND_AT_MOST, "-1", "-2"));
        /* not comparable: not met, and the bound's value is written */
        assert_false(ht_bound_satisfied(HT_BOUND_AT_LEAST, "5", "abc"));
        assert_false(ht_bound_satisfied(HT_BOUND_AT_LEAST, "5", NULL));
        assert_false(ht_bound_satisfied(HT_BOUND_AT_LEAST, "5", "99999999999999999999999"));
        assert_merge(HT_BOUND_AT_LEAST, "5", "abc", "5");
        assert_merge(HT_BOUND_AT_LEAST, "5", NULL, "5");
        /* exact compares the text, blanks collapsed */
        assert_true(ht_bound_satisfied(HT_BOUND_EXACT, "1 2", "1\t2"));
        assert_false(ht_bound_satisfied(HT_BOUND_EXACT, "1", "2"));
        assert_merge(HT_BOUND_EXACT, "1", "2", "1");
}

static void test_sem_field_by_field(void **state) {
        const char *min = "250 32000 100 128";
        /* OL8's kernel default: above in every field, kept */
        assert_true(ht_bound_satisfied(HT_BOUND_AT_LEAST, min, "32000\t1024000000\t500\t32000"));
        assert_merge(HT_BOUND_AT_LEAST, min, "32000\t1024000000\t500\t32000", "32000 1024000000 500 32000");
        /* SEMOPM short: only that field is raised */
        assert_false(ht_bound_satisfied(HT_BOUND_AT_LEAST, min, "250 32000 32 128"));
        assert_merge(HT_BOUND_AT_LEAST, min, "250 32000 32 128", "250 32000 100 128");
        /* across: some fields above, some below */
        assert_merge(HT_BOUND_AT_LEAST, min, "32000 1024 500 64", "32000 32000 500 128");
        /* another field count is not comparable */
        assert_false(ht_bound_satisfied(HT_BOUND_AT_LEAST, min, "250 32000 100"));
        assert_merge(HT_BOUND_AT_LEAST, min, "250 32000 100", min);
}

/* The port range is at-least field by field (Oracle: the low end "9000
 * or higher", the high end at least the table's maximum): above, below
 * and across (issue 33). */
static void test_port_range(void **state) {
        const char *r = "9000 65500";
        assert_false(ht_bound_satisfied(HT_BOUND_AT_LEAST, r, "32768\t60999"));
        assert_merge(HT_BOUND_AT_LEAST, r, "32768\t60999", "32768 65500");
        /* Debian's 1024 65535 was kept as "covering" 9000 65500: the low
         * end is a minimum, so it is raised */
        assert_false(ht_bound_satisfied(HT_BOUND_AT_LEAST, r, "1024\t65535"));
        assert_merge(HT_BOUND_AT_LEAST, r, "1024 65535", "9000 65535");
        assert_merge(HT_BOUND_AT_LEAST, r, "1024 60999", "9000 65500");
        assert_true(ht_bound_satisfied(HT_BOUND_AT_LEAST, r, "9000 65500"));
        assert_true(ht_bound_satisfied(HT_BOUND_AT_LEAST, r, "10000 65535"));
}

/* A range: one value at least LOW and at most HIGH (Oracle's hard stack
 * limit, "at least 10240 KB, and at most 32768 KB"). */
static void test_range(void **state) {
        const char *r = "10240..32768";
        assert_true(ht_bound_satisfied(HT_BOUND_RANGE, r, "10240"));
        assert_true(ht_bound_satisfied(HT_BOUND_RANGE, r, "20000"));
        assert_true(ht_bound_satisfied(HT_BOUND_RANGE, r, "32768"));
        assert_merge(HT_BOUND_RANGE, r, "20000", "20000");
        /* below: raised to the low end; above: lowered to the high end */
        assert_false(ht_bound_satisfied(HT_BOUND_RANGE, r, "8192"));
        assert_merge(HT_BOUND_RANGE, r, "8192", "10240");
        assert_false(ht_bound_satisfied(HT_BOUND_RANGE, r, "65536"));
        assert_merge(HT_BOUND_RANGE, r, "65536", "32768");
        /* unknown or not one number: the high end */
        assert_false(ht_bound_satisfied(HT_BOUND_RANGE, r, NULL));
        assert_merge(HT_BOUND_RANGE, r, NULL, "32768");
        assert_merge(HT_BOUND_RANGE, r, "1 2", "32768");
        assert_false(ht_bound_satisfied(HT_BOUND_RANGE, r, "unlimited"));
        char *lo = NULL, *hi = NULL;
        assert_int_equal(ht_bound_range_ends(" 1 .. 2 ", &lo, &hi), 0);
        assert_string_equal(lo, "1");
        assert_string_equal(hi, "2");
        free(lo);
        free(hi);
        assert_int_equal(ht_bound_range_ends("1...2", &lo, &hi), -EINVAL);
        assert_int_equal(ht_bound_range_ends("1 2", &lo, &hi), -EINVAL);
}

static void test_normalize(void **state) {
        char *v = NULL, *why = NULL;
        assert_int_equal(ht_bound_normalize(HT_BOUND_AT_LEAST, "4T", &v, &why), 0);
        assert_string_equal(v, "4398046511104");
        free(v);
        assert_int_equal(ht_bound_normalize(HT_BOUND_AT_LEAST, " 250  32000\t100 128 ", &v, &why), 0);
        assert_string_equal(v, "250 32000 100 128");
        free(v);
        assert_int_equal(ht_bound_normalize(HT_BOUND_AT_MOST, "512M", &v, &why), 0);
        assert_string_equal(v, "536870912");
        free(v);
        assert_int_equal(ht_bound_normalize(HT_BOUND_EXACT, "any thing", &v, &why), 0);
        assert_string_equal(v, "any thing");
        free(v);
        v = NULL;

        assert_int_equal(ht_bound_normalize(HT_BOUND_AT_LEAST, "lots", &v, &why), -EINVAL);
        assert_null(v);
        assert_non_null(strstr(why, "integers"));
        free(why);
        assert_int_equal(ht_bound_normalize(HT_BOUND_AT_LEAST, "", &v, &why), -EINVAL);
        free(why);
        assert_int_equal(ht_bound_normalize(HT_BOUND_AT_LEAST, "99999999999T", &v, &why), -ERANGE);
        assert_non_null(strstr(why, "64 bits"));
        free(why);
        assert_int_equal(ht_bound_normalize(HT_BOUND_RANGE, "9000", &v, &why), -EINVAL);
        assert_non_null(strstr(why, "LOW..HIGH"));
        free(why);
        /* the old two-field port range form: refused, pointing to at-least */
        assert_int_equal(ht_bound_normalize(HT_BOUND_RANGE, "9000 65500", &v, &why), -EINVAL);
        assert_non_null(strstr(why, "use at-least"));
        free(why);
        assert_int_equal(ht_bound_normalize(HT_BOUND_RANGE, "32768..10240", &v, &why), -EINVAL);
        assert_non_null(strstr(why, "low end"));
        free(why);
        assert_int_equal(ht_bound_normalize(HT_BOUND_RANGE, "10M..32M", &v, &why), 0);
        assert_string_equal(v, "10485760..33554432");
        free(v);
        v = NULL;
        assert_int_equal(ht_bound_normalize(HT_BOUND_RANGE, "10240..lots", &v, &why), -EINVAL);
        free(why);
        assert_int_equal(ht_bound_normalize(HT_BOUND_AT_LEAST, "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17", &v,
                                            &why), -EINVAL);
        free(why);
        assert_null(v);
}

static void test_describe(void **state) {
        char *d = ht_bound_describe(HT_BOUND_AT_LEAST, "6815744");
        assert_string_equal(d, "at least 6815744");
        free(d);
        d = ht_bound_describe(HT_BOUND_AT_MOST, "10");
        assert_string_equal(d, "at most 10");
        free(d);
        d = ht_bound_describe(HT_BOUND_RANGE, "10240..32768");
        assert_string_equal(d, "within 10240..32768");
        free(d);
        d = ht_bound_describe(HT_BOUND_EXACT, "1");
        assert_string_equal(d, "1");
        free(d);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_names),
                cmocka_unit_test(test_numbers),
                cmocka_unit_test(test_sem_field_by_field),
                cmocka_unit_test(test_port_range),
                cmocka_unit_test(test_range),
                cmocka_unit_test(test_normalize),
                cmocka_unit_test(test_describe),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
