/* The backend registry: ids are indexes, names and sections resolve both
 * ways, every descriptor a profile can name has what the generic code
 * calls, and the profile sections are the documented ones, in order. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "backend-common.h"
#include "backend.h"
#include "context.h"
#include "profile-section.h"
#include "tmptree.h"
#include "util.h"

static void test_ids_are_indexes(void **state) {
        size_t n = 0;
        for (; ht_backends[n]; n++)
                assert_int_equal(ht_backends[n]->id, n);
        assert_int_equal(n, _HT_BK_MAX);
        assert_null(ht_backend_get(_HT_BK_MAX));
        assert_null(ht_backend_get(-1));
        assert_null(ht_backend_id_to_string(_HT_BK_MAX));
}

static void test_names_resolve(void **state) {
        for (int i = 0; ht_backends[i]; i++) {
                const ht_backend *b = ht_backends[i];
                ht_backend_id id = -1;
                assert_int_equal(ht_backend_from_string(b->name, &id), 0);
                assert_int_equal(id, i);
                id = -1;
                assert_int_equal(ht_backend_from_string(ht_backend_section_name(i), &id), 0);
                assert_int_equal(id, i);
                assert_ptr_equal(ht_backend_by_name(b->name), b);
                assert_string_equal(ht_backend_id_to_string(i), b->name);
                for (int j = 0; j < i; j++)
                        assert_string_not_equal(ht_backends[j]->name, b->name);
        }
        ht_backend_id id = 0;
        assert_int_equal(ht_backend_from_string("blocks", &id), -EINVAL);
        assert_null(ht_backend_by_name("services"));  /* a section, not a name */
        ht_backend_id svc;
        assert_int_equal(ht_backend_from_string("services", &svc), 0);
        assert_string_equal(ht_backend_id_to_string(svc), "service");
}

static void test_descriptors_complete(void **state) {
        _cleanup_strv_free_ char **sections = NULL;
        for (int i = 0; ht_backends[i]; i++) {
                const ht_backend *b = ht_backends[i];
                if (b->internal) {
                        /* made only by generic code: nothing parses or checks it */
                        assert_null(b->parse_section);
                        assert_null(b->canon_key);
                        continue;
                }
                assert_non_null(b->parse_section);
                assert_non_null(b->canon_key);
                assert_non_null(b->plan);
                assert_non_null(b->rule_fields);
                assert_non_null(b->rule_fields[0].name);
                for (const ht_backend_field *f = b->rule_fields; f->name; f++) {
                        assert_true(f->offset + sizeof(ht_spec) <= sizeof(ht_entry));
                        assert_int_equal(f->offset % _Alignof(ht_spec), 0);
                }
                strv_push(&sections, ht_backend_section_name(i));
        }
        _cleanup_free_ char *l = strv_join(sections, " ");
        /* hosttune.profile(5), PROFILE FORMAT */
        assert_string_equal(l, "sysctl sysfs block cpu limits services systemd cmdline");
}

static void test_hugepages_key(void **state) {
        ht_backend_id sysctl, sysfs;
        assert_int_equal(ht_backend_from_string("sysctl", &sysctl), 0);
        assert_int_equal(ht_backend_from_string("sysfs", &sysfs), 0);
        assert_true(ht_backend_sets_hugepages(sysctl, "vm.nr_hugepages"));
        assert_true(ht_backend_sets_hugepages(sysctl, "vm/nr_hugepages"));
        assert_false(ht_backend_sets_hugepages(sysctl, "vm.nr_overcommit_hugepages"));
        assert_false(ht_backend_sets_hugepages(sysfs, "vm.nr_hugepages"));
        assert_false(ht_backend_sets_hugepages(_HT_BK_MAX, "vm.nr_hugepages"));
}

/* The files a journal may restore are the backends' own (issue 32): every
 * drop-in, bootloader file and generated file they write, for the backend
 * that writes it; nothing else, however the path is spelled. */
static void test_manages_file(void **state) {
        (void)state;
        static const struct {
                const char *backend, *path;
                bool yes;
        } cases[] = {
                {"sysctl", "/etc/sysctl.d/90-hosttune.conf", true},
                {"sysctl", "/etc/sysctl.conf", true},
                {"sysfs", "/etc/tmpfiles.d/hosttune.conf", true},
                {"cpu", "/etc/tmpfiles.d/hosttune-cpu.conf", true},
                {"block", "/etc/udev/rules.d/99-hosttune-block.rules", true},
                {"limits", "/etc/security/limits.d/90-hosttune.conf", true},
                {"service", "/etc/systemd/system/oracle-db.service.d/hosttune.conf", true},
                {"service", "/etc/systemd/system/getty@tty1.service.d/hosttune.conf", true},
                {"systemd", "/etc/systemd/logind.conf.d/90-hosttune.conf", true},
                {"systemd", "/etc/systemd/system.conf.d/90-hosttune.conf", true},
                {"cmdline", "/etc/default/grub", true},
                {"cmdline", "/etc/default/grub.d/hosttune.cfg", true},
                {"cmdline", "/etc/default/grub.d/50-cloudimg-settings.cfg", true},
                {"cmdline", "/boot/grub/grub.cfg", true},
                {"cmdline", "/boot/grub2/grub.cfg", true},
                {"cmdline", "/boot/efi/EFI/redhat/grub.cfg", true},
                {"cmdline", "/boot/grub2/grubenv", true},
                {"cmdline", "/boot/loader/entries/abc-5.14.0.x86_64.conf", true},
                {"cmdline", "/etc/kernel/cmdline", true},
                {"cmdline", "/boot/grub/menu.lst", true},
                {"cmdline", "/etc/grub.conf", true},
                /* not theirs */
                {"sysctl", "/etc/passwd", false},
                {"sysctl", "/etc/shadow", false},
                {"cmdline", "/etc/shadow", false},
                {"sysctl", "/etc/default/grub", false},          /* another backend's */
                {"cmdline", "/etc/sysctl.d/90-hosttune.conf", false},
                {"sysctl", "/etc/sysctl.d/10-other.conf", false},
                {"service", "/etc/systemd/system/x.service.d/override.conf", false},
                {"service", "/etc/systemd/system/a/b.d/hosttune.conf", false},
                {"service", "/etc/systemd/system/.d/hosttune.conf", false},
                {"service", "/etc/systemd/system/../../passwd.d/hosttune.conf", false},
                {"cmdline", "/boot/loader/entries/../../../etc/shadow", false},
                {"cmdline", "/boot/loader/entries/sub/x.conf", false},
                {"cmdline", "/boot/efi/EFI/../../../etc/grub.cfg", false},
                {"cmdline", "/usr/bin/passwd", false},
                {"bootloader", "/etc/default/grub", false},     /* writes no file */
                {"nosuch", "/etc/sysctl.d/90-hosttune.conf", false},
                {"sysctl", "etc/sysctl.d/90-hosttune.conf", false},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++)
                if (ht_backend_manages_file(NULL, cases[i].backend, cases[i].path) != cases[i].yes)
                        fail_msg("%s %s: expected %s", cases[i].backend, cases[i].path, cases[i].yes ? "yes" : "no");

        /* a file kept elsewhere and linked: the link's target inside the
         * root is the file, as the backend edits it (ht_edit_target) */
        char *top = tt_mkdtemp("backend");
        tt_mkdir(top, "etc");
        tt_mkdir(top, "srv");
        tt_put(top, "srv/sysctl.conf", "vm.swappiness = 10\n", 0644);
        tt_symlink(top, "/srv/sysctl.conf", "etc/sysctl.conf");
        tt_put(top, "srv/other.conf", "x\n", 0644);
        ht_context *c = NULL;
        assert_int_equal(ht_context_new(top, &c), 0);
        assert_true(ht_backend_manages_file(c, "sysctl", "/srv/sysctl.conf"));
        assert_false(ht_backend_manages_file(c, "sysctl", "/srv/other.conf"));
        assert_false(ht_backend_manages_file(NULL, "sysctl", "/srv/sysctl.conf"));
        ht_context_free(c);
        tt_rm_rf(top);
        free(top);
}

/* The follow-ups a rollback runs again come from this table only. */
static void test_follow_up_table(void **state) {
        (void)state;
        const ht_follow_up_def *d = ht_follow_up_get("daemon-reload");
        assert_non_null(d);
        assert_null(d->argv);
        d = ht_follow_up_get("reload-logind");
        assert_non_null(d);
        assert_string_equal(d->argv[0], "systemctl");
        assert_string_equal(d->argv[2], "--signal=SIGHUP");
        assert_null(ht_follow_up_get("regenerate-grub"));
        assert_null(ht_follow_up_get("pwn"));
        assert_null(ht_follow_up_get(NULL));
}

/* The start gate's ExecStartPre= command (issue 37): "-" only in warn
 * mode, "+" always, the installed binary, and a unit's backslash doubled
 * (systemd unescapes a command line: \x2d would become "-"). */
static void test_gate_command(void **state) {
        (void)state;
        char *w = ht_gate_command("warn", "mariadb.service", NULL);
        assert_string_equal(w, "-+" HT_SBINDIR "/hosttune gate mariadb.service");
        char *r = ht_gate_command("refuse", "db@main.service", "/usr/sbin/hosttune");
        assert_string_equal(r, "+/usr/sbin/hosttune gate --refuse db@main.service");
        char *e = ht_gate_command("warn", "app\\x2dtwo.service", NULL);
        assert_string_equal(e, "-+" HT_SBINDIR "/hosttune gate app\\\\x2dtwo.service");
        free(w);
        free(r);
        free(e);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_gate_command),
                cmocka_unit_test(test_ids_are_indexes),
                cmocka_unit_test(test_names_resolve),
                cmocka_unit_test(test_descriptors_complete),
                cmocka_unit_test(test_hugepages_key),
                cmocka_unit_test(test_manages_file),
                cmocka_unit_test(test_follow_up_table),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
