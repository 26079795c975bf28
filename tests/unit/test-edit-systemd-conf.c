/* systemd's logind.conf and system.conf (src/formats/edit-systemd-conf.c): the
 * key table and its value types, the merge of main file and drop-ins,
 * the defaults a shipped main file shows. The files are the ones the
 * fixtures hold: Debian 12's (systemd 252) and Oracle Linux 8's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>

#include "edit-systemd-conf.h"
#include "fileio.h"
#include "util.h"

static char *slurp(const char *rel, size_t *ret_len) {
        const char *top = getenv("top_srcdir");
        _cleanup_free_ char *path = xasprintf("%s/tests/hosts/%s", top ? top : ".", rel);
        char *text = NULL;
        assert_int_equal(ht_read_file_at(AT_FDCWD, path, 1 << 20, &text, ret_len), 0);
        return text;
}

static void test_key_table(void **state) {
        (void)state;
        const ht_sdconf_key *k = ht_sdconf_key_find("logind", "RemoveIPC");
        assert_non_null(k);
        assert_int_equal(k->type, HT_SDCONF_BOOL);
        assert_string_equal(k->dflt, "yes");
        /* keys belong to their file: [Manager] keys are not logind's */
        assert_null(ht_sdconf_key_find("logind", "DefaultLimitNOFILE"));
        assert_non_null(ht_sdconf_key_find("system", "DefaultLimitNOFILE"));
        /* systemd's names are case-sensitive */
        assert_null(ht_sdconf_key_find("logind", "removeipc"));
        /* list-valued keys collect over files: not in the table */
        assert_null(ht_sdconf_key_find("logind", "KillOnlyUsers"));
        assert_null(ht_sdconf_key_find("system", "DefaultEnvironment"));
        assert_null(ht_sdconf_daemon_find("journald"));
        assert_string_equal(ht_sdconf_daemon_find("system")->section, "Manager");
        assert_string_equal(ht_sdconf_key_closest("logind", "RemoveIpc"), "RemoveIPC");
        assert_string_equal(ht_sdconf_key_closest("system", "DefaultLimitNOFIL"), "DefaultLimitNOFILE");
}

static void canon_ok(const char *daemon, const char *key, const char *in, const char *want) {
        const ht_sdconf_key *k = ht_sdconf_key_find(daemon, key);
        assert_non_null(k);
        char *out = NULL;
        const char *why = NULL;
        assert_int_equal(ht_sdconf_canon_value(k, in, &out, &why), 0);
        assert_string_equal(out, want);
        free(out);
}

static void canon_bad(const char *daemon, const char *key, const char *in) {
        const ht_sdconf_key *k = ht_sdconf_key_find(daemon, key);
        assert_non_null(k);
        char *out = NULL;
        const char *why = NULL;
        assert_int_equal(ht_sdconf_canon_value(k, in, &out, &why), -EINVAL);
        assert_null(out);
        assert_non_null(why);
}

static void test_canon_values(void **state) {
        (void)state;
        /* parse_boolean()'s words, any case; a profile's false is "0" */
        static const char *const no[] = {"no", "false", "0", "off", "n", "f", "NO", "False"};
        static const char *const yes[] = {"yes", "true", "1", "on", "y", "t", "YES"};
        for (size_t i = 0; i < ELEMENTSOF(no); i++)
                canon_ok("logind", "RemoveIPC", no[i], "no");
        for (size_t i = 0; i < ELEMENTSOF(yes); i++)
                canon_ok("logind", "RemoveIPC", yes[i], "yes");
        canon_bad("logind", "RemoveIPC", "maybe");
        canon_bad("logind", "RemoveIPC", "");
        canon_bad("logind", "RemoveIPC", "no\\");
        canon_ok("logind", "NAutoVTs", "6", "6");
        canon_bad("logind", "NAutoVTs", "-1");
        canon_bad("logind", "NAutoVTs", "six");
        canon_ok("logind", "HandleLidSwitch", "suspend-then-hibernate", "suspend-then-hibernate");
        canon_bad("logind", "HandleLidSwitch", "explode");
        canon_ok("logind", "IdleActionSec", "1min  30s", "1min 30s");
        canon_ok("logind", "StopIdleSessionSec", "infinity", "infinity");
        canon_bad("logind", "IdleActionSec", "soon");
        canon_bad("logind", "IdleActionSec", "5 parsecs");
        canon_ok("logind", "RuntimeDirectorySize", "10%", "10%");
        canon_ok("logind", "RuntimeDirectorySize", "512M", "512M");
        canon_bad("logind", "RuntimeDirectorySize", "150%");
        canon_ok("system", "DefaultLimitNOFILE", "1024:524288", "1024:524288");
        canon_ok("system", "DefaultLimitMEMLOCK", "infinity", "infinity");
        canon_ok("system", "DefaultLimitMEMLOCK", "64M", "64M");
        canon_bad("system", "DefaultLimitNOFILE", "2048:1024");  /* soft above hard */
        canon_bad("system", "DefaultLimitNOFILE", "lots");
        canon_ok("system", "DefaultTasksMax", "15%", "15%");
        canon_ok("system", "DefaultTasksMax", "infinity", "infinity");
        canon_bad("system", "DefaultTasksMax", "4G");
        canon_ok("system", "DefaultOOMPolicy", "continue", "continue");
        canon_bad("system", "DefaultOOMPolicy", "panic");
}

static void test_meets_and_raise(void **state) {
        (void)state;
        const ht_sdconf_key *nofile = ht_sdconf_key_find("system", "DefaultLimitNOFILE");
        /* minimums field by field; infinity meets anything */
        assert_true(ht_sdconf_meets(nofile, "65536", "65536"));
        assert_true(ht_sdconf_meets(nofile, "infinity", "65536"));
        assert_true(ht_sdconf_meets(nofile, "65536:1048576", "65536"));
        assert_false(ht_sdconf_meets(nofile, "1024:524288", "65536"));
        assert_false(ht_sdconf_meets(nofile, NULL, "65536"));
        /* never lower: the default hard 524288 stays above a 65536 minimum */
        _cleanup_free_ char *r1 = ht_sdconf_raise(nofile, "1024:524288", "65536");
        assert_string_equal(r1, "65536:524288");
        _cleanup_free_ char *r2 = ht_sdconf_raise(nofile, NULL, "65536");
        assert_string_equal(r2, "65536");
        _cleanup_free_ char *r3 = ht_sdconf_raise(nofile, "1024", "65536:131072");
        assert_string_equal(r3, "65536:131072");
        const ht_sdconf_key *memlock = ht_sdconf_key_find("system", "DefaultLimitMEMLOCK");
        assert_true(ht_sdconf_meets(memlock, "8M", "8388608"));
        /* booleans compare canonical: "false" and "no" are one value */
        const ht_sdconf_key *ipc = ht_sdconf_key_find("logind", "RemoveIPC");
        assert_true(ht_sdconf_meets(ipc, "false", "no"));
        assert_true(ht_sdconf_meets(ipc, "0", "off"));
        assert_false(ht_sdconf_meets(ipc, "yes", "no"));
        _cleanup_free_ char *r4 = ht_sdconf_raise(ipc, "yes", "no");
        assert_string_equal(r4, "no");
        /* time spans by their length */
        const ht_sdconf_key *t = ht_sdconf_key_find("system", "DefaultTimeoutStopSec");
        assert_true(ht_sdconf_meets(t, "90s", "1min 30s"));
        assert_true(ht_sdconf_meets(t, "90", "1.5min"));
        assert_true(ht_sdconf_meets(t, "500ms", "0.5s"));
        assert_false(ht_sdconf_meets(t, "90s", "91s"));
        assert_false(ht_sdconf_meets(t, "infinity", "90s"));
}

static void test_merge_order(void **state) {
        (void)state;
        /* systemd's order: main file, then drop-ins by file name; the last
         * assignment wins, "Key=" resets to the default */
        ht_sdconf_file files[] = {
                {.path = "/etc/systemd/logind.conf", .text = "[Login]\nRemoveIPC=yes\n"},
                {.path = "/usr/lib/systemd/logind.conf.d/10-vendor.conf", .text = "[Login]\nRemoveIPC=no\nNAutoVTs=4\n"},
                {.path = "/etc/systemd/logind.conf.d/90-hosttune.conf", .text = "# Managed by hosttune\n[Login]\nRemoveIPC=no\n"},
                {.path = "/etc/systemd/logind.conf.d/99-admin.conf", .text = "[Login]\nNAutoVTs=\n[Manager]\nRemoveIPC=yes\n"},
        };
        for (size_t i = 0; i < ELEMENTSOF(files); i++)
                files[i].len = strlen(files[i].text);
        char *v = NULL;
        /* [Manager]'s RemoveIPC is not logind's */
        assert_int_equal(ht_sdconf_effective(files, 4, "Login", "RemoveIPC", &v), 2);
        assert_string_equal(v, "no");
        free(v);
        assert_int_equal(ht_sdconf_effective(files, 1, "Login", "RemoveIPC", &v), 0);
        assert_string_equal(v, "yes");
        free(v);
        /* a reset: set by file 3, to the default */
        assert_int_equal(ht_sdconf_effective(files, 4, "Login", "NAutoVTs", &v), 3);
        assert_null(v);
        assert_int_equal(ht_sdconf_effective(files, 4, "Login", "SessionsMax", &v), -1);
        assert_null(v);
        assert_int_equal(ht_sdconf_effective(files, 0, "Login", "RemoveIPC", &v), -1);
        assert_null(v);
}

static void test_shipped_defaults(void **state) {
        (void)state;
        size_t len;
        _cleanup_free_ char *debian = slurp("debian12-kvm/etc/systemd/logind.conf", &len);
        char *v = NULL;
        assert_int_equal(ht_sdconf_shipped_default(debian, len, "Login", "RemoveIPC", &v), 1);
        assert_string_equal(v, "yes");
        free(v);
        /* "#KillOnlyUsers=" shows no value: none */
        assert_int_equal(ht_sdconf_shipped_default(debian, len, "Login", "KillOnlyUsers", &v), 0);
        assert_null(v);
        /* an active line is no shipped default, and not of another section */
        assert_int_equal(ht_sdconf_shipped_default(debian, len, "Manager", "RemoveIPC", &v), 0);
        _cleanup_free_ char *ol8 = slurp("ol8-bls/etc/systemd/logind.conf", &len);
        assert_int_equal(ht_sdconf_shipped_default(ol8, len, "Login", "RemoveIPC", &v), 1);
        assert_string_equal(v, "no");
        free(v);
        _cleanup_free_ char *sys = slurp("debian12-kvm/etc/systemd/system.conf", &len);
        assert_int_equal(ht_sdconf_shipped_default(sys, len, "Manager", "DefaultLimitNOFILE", &v), 1);
        /* the man page's default, which the key table holds too */
        assert_string_equal(v, ht_sdconf_key_find("system", "DefaultLimitNOFILE")->dflt);
        free(v);
        /* and the parser of the active lines reads none of them */
        ht_sdconf_file f = {.path = "logind.conf", .text = debian, .len = strlen(debian)};
        assert_int_equal(ht_sdconf_effective(&f, 1, "Login", "RemoveIPC", &v), -1);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_key_table),
                cmocka_unit_test(test_canon_values),
                cmocka_unit_test(test_meets_and_raise),
                cmocka_unit_test(test_merge_order),
                cmocka_unit_test(test_shipped_defaults),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
