/* tmpfiles.d(5) "w" lines: what hosttune writes reads back the same, the
 * argument is the rest of the line, and lines tmpfiles ignores (comments,
 * other types, other paths, short lines) give nothing. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "edit-tmpfiles.h"
#include "util.h"

#define GOV "/sys/devices/system/cpu/cpufreq/policy*/scaling_governor"

static void test_round_trip(void **state) {
        strbuf b = {0};
        ht_tmpfiles_append_w(&b, GOV, "performance");
        ht_tmpfiles_append_w(&b, "/sys/devices/system/cpu/intel_pstate/min_perf_pct", "50");
        _cleanup_free_ char *content = strbuf_steal(&b);
        assert_string_equal(content, "w " GOV " - - - - performance\n"
                                     "w /sys/devices/system/cpu/intel_pstate/min_perf_pct - - - - 50\n");
        _cleanup_free_ char *v = ht_tmpfiles_w_argument(content, GOV);
        assert_string_equal(v, "performance");
        _cleanup_free_ char *pct = ht_tmpfiles_w_argument(content, "/sys/devices/system/cpu/intel_pstate/min_perf_pct");
        assert_string_equal(pct, "50");
}

static void test_what_tmpfiles_ignores(void **state) {
        const char *content =
                "# w " GOV " - - - - commented\n"
                "\n"
                "f " GOV " - - - - not-a-write\n"
                "w /sys/devices/system/cpu/cpufreq/policy0/scaling_governor - - - - another-path\n"
                "w " GOV " - - -\n"                 /* no argument */
                "w " GOV "\n";                      /* no fields at all */
        assert_null(ht_tmpfiles_w_argument(content, GOV));
        assert_null(ht_tmpfiles_w_argument("", GOV));
}

static void test_argument_is_the_rest(void **state) {
        /* blanks and tabs between fields, w+, and the last line wins as
         * the last write of tmpfiles does */
        const char *content = "w\t" GOV "\t-\t-\t-\t-\tpowersave\n"
                              "  w+   " GOV "  -  root  root  -   250   32000  \n";
        _cleanup_free_ char *v = ht_tmpfiles_w_argument(content, GOV);
        assert_string_equal(v, "250 32000");
}

static void test_value_ok(void **state) {
        assert_true(ht_tmpfiles_value_ok("performance"));
        assert_true(ht_tmpfiles_value_ok("250 32000"));
        assert_false(ht_tmpfiles_value_ok(""));
        assert_false(ht_tmpfiles_value_ok(" lead"));
        assert_false(ht_tmpfiles_value_ok("trail "));
        assert_false(ht_tmpfiles_value_ok("a\nw /etc/shadow - - - - x"));
        assert_false(ht_tmpfiles_value_ok("100%"));        /* a specifier */
        assert_false(ht_tmpfiles_value_ok("a\\nb"));       /* unescaped at boot */
        assert_false(ht_tmpfiles_value_ok("\"quoted\""));
        assert_false(ht_tmpfiles_value_ok("tab\there"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_round_trip),
                cmocka_unit_test(test_what_tmpfiles_ignores),
                cmocka_unit_test(test_argument_is_the_rest),
                cmocka_unit_test(test_value_ok),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
