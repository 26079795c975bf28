#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "audit-log.h"
#include "dlib.h"
#include "util.h"

static void test_format_plain(void **state) {
        char *s = ht_audit_format("hosttune-apply", "vm.swappiness", "60", "10", "20261130T091502Z-1a2b3c4d");
        assert_string_equal(s, "op=hosttune-apply key=\"vm.swappiness\" old=\"60\" new=\"10\" "
                               "txid=\"20261130T091502Z-1a2b3c4d\"");
        free(s);
        s = ht_audit_format("hosttune-rollback", "/etc/x", NULL, "1", "t");
        assert_string_equal(s, "op=hosttune-rollback key=\"/etc/x\" old=\"(none)\" new=\"1\" txid=\"t\"");
        free(s);
}

static void test_format_cannot_forge_fields(void **state) {
        /* spaces, quotes and newlines are hex-encoded, so a value cannot
         * add "res=success" or a second record */
        char *s = ht_audit_format("hosttune-apply", "k", "a\" res=success", "b\nop=evil", "t");
        assert_null(strchr(s, '\n'));
        assert_null(strstr(s, "res=success"));
        assert_null(strstr(s, "op=evil"));
        assert_true(startswith(s, "op=hosttune-apply key=\"k\" old="));
        assert_string_equal(s, "op=hosttune-apply key=\"k\" old=6122207265733D73756363657373 "
                               "new=620A6F703D6576696C txid=\"t\"");
        free(s);
        /* op is never taken from untrusted text */
        s = ht_audit_format("x y=z", "k", "1", "2", "t");
        assert_true(startswith(s, "op=hosttune key="));
        free(s);
}

/* libaudit is dlopen()ed; without it the built-in encoder must give the
 * same text, byte for byte. */
static void test_fallback_matches_libaudit(void **state) {
        static const char *const values[] = {"60", "a\" res=success", "b\nop=evil", "", "tab\there",
                                             "\xc3\xa9t\xc3\xa9", "~!#$%&'()*+,-./:;<=>?@[]^_`{|}", "x y", NULL};
        const ht_audit_fns *a = ht_audit_lib();
        assert_non_null(a); /* a build dependency, so it is installed */
        assert_ptr_equal(ht_audit_lib(), a);
        for (size_t i = 0; values[i]; i++) {
                char *mine = ht_audit_encode_fallback("old", values[i]);
                char *theirs = a->encode_nv_string("old", values[i], (unsigned)strlen(values[i]));
                assert_non_null(theirs);
                assert_string_equal(mine, theirs);
                free(mine);
                free(theirs);
        }
}

static void test_systemd_lib_loads(void **state) {
        const ht_systemd_fns *sd = ht_systemd_lib();
        assert_non_null(sd);
        assert_non_null(sd->journal_send);
        assert_non_null(sd->bus_call_method);
        assert_ptr_equal(ht_systemd_lib(), sd);
}

static void test_calls_never_fail(void **state) {
        /* no audit socket (containers) or HOSTTUNE_NO_AUDIT: silently nothing */
        setenv("HOSTTUNE_NO_AUDIT", "1", 1);
        ht_audit_change("hosttune-apply", "vm.swappiness", "60", "10", "t", true);
        unsetenv("HOSTTUNE_NO_AUDIT");
        if (!ht_journald_present())
                assert_false(ht_log_transaction("apply", "t", "oracle", "committed", 3, false, NULL));
        else
                assert_true(ht_log_transaction("apply", "20261130T091502Z-1a2b3c4d", "test", "committed", 0,
                                               false, "hosttune unit test entry"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_format_plain),
                cmocka_unit_test(test_format_cannot_forge_fields),
                cmocka_unit_test(test_fallback_matches_libaudit),
                cmocka_unit_test(test_systemd_lib_loads),
                cmocka_unit_test(test_calls_never_fail),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
