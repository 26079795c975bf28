/* The metrics exposition: escaping as the OpenMetrics ABNF and the 0.0.4
 * format say, the per-dialect family names, and the verify metrics. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "openmetrics.h"
#include "util.h"

static void esc(const char *in, bool quote, const char *want) {
        _cleanup_free_ char *got = ht_om_escape(in, quote);
        assert_string_equal(got, want);
}

static void test_escape(void **state) {
        (void)state;
        esc("", true, "");
        esc("oracle", true, "oracle");
        /* the three escapes of escaped-string: \\ \" \n */
        esc("a\\b", true, "a\\\\b");
        esc("say \"hi\"", true, "say \\\"hi\\\"");
        esc("two\nlines", true, "two\\nlines");
        esc("\\n", true, "\\\\n");
        /* 0.0.4 help text keeps the quote */
        esc("say \"hi\"\n", false, "say \"hi\"\\n");
        /* a tab and other bytes below 0x20 are normal-char: kept */
        esc("a\tb", true, "a\tb");
        /* valid UTF-8 kept, invalid bytes U+FFFD */
        esc("caf\xc3\xa9", true, "caf\xc3\xa9");
        esc("\xf0\x9f\x90\xa7", true, "\xf0\x9f\x90\xa7");
        esc("x\xffy", true, "x\xef\xbf\xbdy");
        esc("\xc3", true, "\xef\xbf\xbd");            /* cut short */
        esc("\xc0\xaf", true, "\xef\xbf\xbd\xef\xbf\xbd");  /* overlong "/" */
        esc("\xed\xa0\x80", true, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  /* a surrogate */
        esc("\xf4\x90\x80\x80", true, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");  /* above U+10FFFF */
}

static char *render(ht_om_dialect d) {
        ht_om m;
        ht_om_init(&m, d);
        ht_om_family(&m, "hosttune_x", HT_OM_COUNTER, NULL, "A \"counter\".\nSecond line.");
        ht_om_sample(&m, 7, NULL);
        ht_om_family(&m, "hosttune_a", HT_OM_INFO, NULL, "Info.");
        ht_om_sample(&m, 1, "profile", "my \"db\"\\\n", "txid", "T1", NULL);
        ht_om_family(&m, "hosttune_age_seconds", HT_OM_GAUGE, "seconds", "Age.");
        ht_om_sample(&m, -3, NULL);
        return ht_om_finish(&m);
}

static void test_dialects(void **state) {
        (void)state;
        _cleanup_free_ char *om = render(HT_OM_OPENMETRICS);
        assert_string_equal(om,
                            "# HELP hosttune_x A \\\"counter\\\".\\nSecond line.\n"
                            "# TYPE hosttune_x counter\n"
                            "hosttune_x_total 7\n"
                            "# HELP hosttune_a Info.\n"
                            "# TYPE hosttune_a info\n"
                            "hosttune_a_info{profile=\"my \\\"db\\\"\\\\\\n\",txid=\"T1\"} 1\n"
                            "# HELP hosttune_age_seconds Age.\n"
                            "# TYPE hosttune_age_seconds gauge\n"
                            "# UNIT hosttune_age_seconds seconds\n"
                            "hosttune_age_seconds -3\n"
                            "# EOF\n");
        _cleanup_free_ char *txt = render(HT_OM_PROMETHEUS);
        assert_string_equal(txt,
                            "# HELP hosttune_x_total A \"counter\".\\nSecond line.\n"
                            "# TYPE hosttune_x_total counter\n"
                            "hosttune_x_total 7\n"
                            "# HELP hosttune_a_info Info.\n"
                            "# TYPE hosttune_a_info gauge\n"
                            "hosttune_a_info{profile=\"my \\\"db\\\"\\\\\\n\",txid=\"T1\"} 1\n"
                            "# HELP hosttune_age_seconds Age.\n"
                            "# TYPE hosttune_age_seconds gauge\n"
                            "hosttune_age_seconds -3\n");
}

static void test_verify(void **state) {
        (void)state;
        ht_check checks[] = {
                {.backend = "sysctl", .key = "vm.swappiness", .status = HT_CHECK_DRIFT},
                {.backend = "limits", .key = "oracle", .status = HT_CHECK_OK},
                {.backend = "sysctl", .key = "kernel.shmmax", .status = HT_CHECK_OK},
                {.backend = "sysctl", .key = "kernel.sem", .status = HT_CHECK_DRIFT},
        };
        ht_verify_result r = {.applied = true, .txid = "20261202T060000Z-abc", .profile = "oracle",
                              .applied_at = "2026-12-02T06:00:00Z", .checks = checks, .n_checks = 4,
                              .status = HT_CHECK_DRIFT};
        ht_om m;
        ht_om_init(&m, HT_OM_OPENMETRICS);
        int64_t at = ht_parse_iso_time("2026-12-02T06:00:00Z");
        assert_true(at > 0);
        ht_om_verify(&m, &r, 0, at + 90);
        _cleanup_free_ char *s = ht_om_finish(&m);
        assert_non_null(strstr(s, "hosttune_verify_status{status=\"ok\"} 0\n"
                                  "hosttune_verify_status{status=\"drift\"} 1\n"
                                  "hosttune_verify_status{status=\"reboot-pending\"} 0\n"));
        /* by backend, in the order of their first check, zeros included */
        assert_non_null(strstr(s, "hosttune_verify_checks{backend=\"sysctl\",status=\"ok\"} 1\n"
                                  "hosttune_verify_checks{backend=\"sysctl\",status=\"drift\"} 2\n"
                                  "hosttune_verify_checks{backend=\"sysctl\",status=\"reboot-pending\"} 0\n"
                                  "hosttune_verify_checks{backend=\"limits\",status=\"ok\"} 1\n"
                                  "hosttune_verify_checks{backend=\"limits\",status=\"drift\"} 0\n"));
        assert_non_null(strstr(s, "\nhosttune_verify_drift_checks 2\n"));
        assert_non_null(strstr(s, "\nhosttune_reboot_pending 0\n"));
        assert_non_null(strstr(s, "\nhosttune_last_apply_age_seconds 90\n"));
        assert_non_null(strstr(s, "\nhosttune_applied_info{profile=\"oracle\",txid=\"20261202T060000Z-abc\"} 1\n"));

        /* verify could not judge: the families, no samples */
        ht_om_init(&m, HT_OM_OPENMETRICS);
        ht_om_verify(&m, NULL, -1, at);
        _cleanup_free_ char *u = ht_om_finish(&m);
        assert_null(strstr(u, "\nhosttune_verify_status{"));
        assert_null(strstr(u, "\nhosttune_reboot_pending "));
        assert_null(strstr(u, "\nhosttune_applied_info"));
        assert_non_null(strstr(u, "# TYPE hosttune_verify_status gauge\n"));
        assert_int_equal(ht_parse_iso_time("2026-12-02 06:00:00"), -1);
        assert_int_equal(ht_parse_iso_time(NULL), -1);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_escape),
                cmocka_unit_test(test_dialects),
                cmocka_unit_test(test_verify),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
