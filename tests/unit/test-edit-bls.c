#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "edit-bls.h"
#include "edit-test-helpers.h"

static const char rhel8_entry[] =
        "title Oracle Linux Server (4.18.0-425.3.1.el8.x86_64) 8.7\n"
        "version 4.18.0-425.3.1.el8.x86_64\n"
        "linux /vmlinuz-4.18.0-425.3.1.el8.x86_64\n"
        "initrd /initramfs-4.18.0-425.3.1.el8.x86_64.img $tuned_initrd\n"
        "options $kernelopts $tuned_params\n"
        "id ol-20221115002036-4.18.0-425.3.1.el8.x86_64\n"
        "grub_users $grub_users\n"
        "grub_arg --unrestricted\n"
        "grub_class kernel\n";

static const char rhel9_entry[] =
        "title Red Hat Enterprise Linux (5.14.0-284.11.1.el9_2.x86_64) 9.2 (Plow)\n"
        "version 5.14.0-284.11.1.el9_2.x86_64\n"
        "linux /vmlinuz-5.14.0-284.11.1.el9_2.x86_64\n"
        "initrd /initramfs-5.14.0-284.11.1.el9_2.x86_64.img $tuned_initrd\n"
        "options root=/dev/mapper/rhel-root ro crashkernel=1G-4G:192M,4G-64G:256M,64G-:512M "
        "resume=/dev/mapper/rhel-swap rd.lvm.lv=rhel/root rd.lvm.lv=rhel/swap rhgb quiet\n"
        "grub_users $grub_users\n"
        "grub_arg --unrestricted\n"
        "grub_class rhel\n";

static char *make_grubenv(const char *vars) {
        strbuf b = {};
        strbuf_append(&b, HT_GRUBENV_HEADER);
        strbuf_append(&b, vars);
        while (b.len < HT_GRUBENV_SIZE)
                strbuf_append(&b, "#");
        return strbuf_steal(&b);
}

static const char rhel8_vars[] =
        "saved_entry=ol-20221115002036-4.18.0-425.3.1.el8.x86_64\n"
        "kernelopts=root=/dev/mapper/ol-root ro crashkernel=auto resume=/dev/mapper/ol-swap "
        "rd.lvm.lv=ol/root rd.lvm.lv=ol/swap rhgb quiet \n"
        "boot_success=0\n";

static void test_parse_entry(void **state) {
        _cleanup_(ht_bls_entry_freep) ht_bls_entry *e = NULL;
        char *err = NULL;
        assert_int_equal(ht_bls_parse(rhel8_entry, strlen(rhel8_entry), &e, &err), 0);
        assert_string_equal(ht_bls_get(e, "linux"), "/vmlinuz-4.18.0-425.3.1.el8.x86_64");
        assert_string_equal(ht_bls_get(e, "options"), "$kernelopts $tuned_params");
        assert_true(ht_bls_uses_kernelopts(ht_bls_get(e, "options")));
        assert_null(ht_bls_get(e, "devicetree"));
        ht_bls_entry *bad = NULL;
        assert_int_equal(ht_bls_parse("title x\n\x01\n", 10, &bad, &err), -EINVAL);
        assert_string_equal(err, "2: control character");
        free(err);
}

static void test_edit_rhel9_options(void **state) {
        ht_cmdline_op ops[] = {
                { HT_CMDLINE_SET, "transparent_hugepage", "never" },
                { HT_CMDLINE_REMOVE, "rhgb", NULL },
                { HT_CMDLINE_SET, "crashkernel", "auto" },
        };
        char *out = NULL, *err = NULL;
        size_t len;
        assert_int_equal(ht_bls_edit_options(rhel9_entry, strlen(rhel9_entry), NULL, ops, 3, &out, &len, &err), 0);
        assert_int_equal(strlen(out), len);
        assert_non_null(strstr(out, "\noptions root=/dev/mapper/rhel-root ro crashkernel=auto "
                                    "resume=/dev/mapper/rhel-swap rd.lvm.lv=rhel/root rd.lvm.lv=rhel/swap quiet "
                                    "transparent_hugepage=never\ngrub_users"));
        size_t pre = strstr(rhel9_entry, "options ") - rhel9_entry;
        assert_memory_equal(out, rhel9_entry, pre);
        assert_true(endswith(out, "grub_users $grub_users\ngrub_arg --unrestricted\ngrub_class rhel\n"));
        free(out);
}

static void test_edit_kernelopts_ref(void **state) {
        _cleanup_free_ char *genv = make_grubenv(rhel8_vars);
        _cleanup_(ht_grubenv_freep) ht_grubenv *env = NULL;
        char *err = NULL, *out = NULL;
        size_t len;
        assert_int_equal(ht_grubenv_parse(genv, strlen(genv), &env, &err), 0);
        assert_int_equal(env->n, 3);
        assert_string_equal(ht_grubenv_get(env, "boot_success"), "0");

        /* A parameter that lives in kernelopts: the entry cannot take it. */
        ht_cmdline_op rm[] = { { HT_CMDLINE_REMOVE, "rhgb", NULL } };
        assert_int_equal(ht_bls_edit_options(rhel8_entry, strlen(rhel8_entry), env, rm, 1, &out, &len, &err), -EINVAL);
        assert_non_null(strstr(err, "5: kernel parameter rhgb comes from a referenced"));
        assert_non_null(strstr(err, "$kernelopts"));
        free(err);
        /* Without grubenv the words are unknown: refuse. */
        ht_cmdline_op add[] = { { HT_CMDLINE_SET, "numa", "off" } };
        assert_int_equal(ht_bls_edit_options(rhel8_entry, strlen(rhel8_entry), NULL, add, 1, &out, &len, &err), -EINVAL);
        free(err);
        /* A new parameter may go on the entry after the references. */
        assert_int_equal(ht_bls_edit_options(rhel8_entry, strlen(rhel8_entry), env, add, 1, &out, &len, &err), 0);
        assert_non_null(strstr(out, "\noptions $kernelopts $tuned_params numa=off\n"));
        free(out);
}

static void test_grubenv_edit(void **state) {
        _cleanup_free_ char *genv = make_grubenv(rhel8_vars);
        ht_cmdline_op ops[] = { { HT_CMDLINE_REMOVE, "rhgb", NULL }, { HT_CMDLINE_SET, "hugepages", "9000" } };
        char *out = NULL, *err = NULL;
        size_t len;
        assert_int_equal(ht_grubenv_edit_kernelopts(genv, strlen(genv), ops, 2, &out, &len, &err), 0);
        assert_int_equal(len, HT_GRUBENV_SIZE);
        assert_int_equal(strlen(out), HT_GRUBENV_SIZE);
        _cleanup_free_ char *want = make_grubenv(
                "saved_entry=ol-20221115002036-4.18.0-425.3.1.el8.x86_64\n"
                "kernelopts=root=/dev/mapper/ol-root ro crashkernel=auto resume=/dev/mapper/ol-swap "
                "rd.lvm.lv=ol/root rd.lvm.lv=ol/swap quiet hugepages=9000 \n"
                "boot_success=0\n");
        assert_string_equal(out, want);
        free(out);

        /* No kernelopts yet: appended. */
        _cleanup_free_ char *g2 = make_grubenv("saved_entry=x\n");
        assert_int_equal(ht_grubenv_edit_kernelopts(g2, strlen(g2), ops, 2, &out, &len, &err), 0);
        assert_true(startswith(out, HT_GRUBENV_HEADER "saved_entry=x\nkernelopts=hugepages=9000\n###"));
        assert_int_equal(len, HT_GRUBENV_SIZE);
        free(out);

        /* Overflow of the fixed block. */
        strbuf big = {};
        strbuf_append(&big, "kernelopts=");
        for (int i = 0; i < 97; i++)
                strbuf_append(&big, "abcdefghi ");
        strbuf_append(&big, "\n");
        _cleanup_free_ char *g3 = make_grubenv(big.data);
        strbuf_done(&big);
        ht_cmdline_op grow[] = { { HT_CMDLINE_SET, "transparent_hugepage", "never" } };
        assert_int_equal(ht_grubenv_edit_kernelopts(g3, strlen(g3), grow, 1, &out, &len, &err), -ENOSPC);
        assert_non_null(strstr(err, "1024-byte block"));
        free(err);

        assert_int_equal(ht_grubenv_edit_kernelopts("kernelopts=x\n", 13, ops, 1, &out, &len, &err), -EINVAL);
        free(err);
        _cleanup_free_ char *g4 = make_grubenv("kernelopts=a\\\\b\n");
        assert_int_equal(ht_grubenv_edit_kernelopts(g4, strlen(g4), ops, 1, &out, &len, &err), -EINVAL);
        free(err);
        _cleanup_free_ char *g5 = make_grubenv("novalue\n");
        assert_int_equal(ht_grubenv_edit_kernelopts(g5, strlen(g5), ops, 1, &out, &len, &err), -EINVAL);
        assert_string_equal(err, "2: malformed GRUB environment line");
        free(err);
}

static void test_kernel_cmdline(void **state) {
        const char *c = "root=UUID=1234 ro crashkernel=auto rhgb quiet\n";
        ht_cmdline_op ops[] = { { HT_CMDLINE_REMOVE, "quiet", NULL }, { HT_CMDLINE_SET, "hugepagesz", "1G" } };
        char *out = NULL, *err = NULL;
        size_t len;
        assert_int_equal(ht_kernel_cmdline_edit(c, strlen(c), ops, 2, &out, &len, &err), 0);
        assert_string_equal(out, "root=UUID=1234 ro crashkernel=auto rhgb hugepagesz=1G\n");
        free(out);
        assert_int_equal(ht_kernel_cmdline_edit("", 0, ops, 2, &out, &len, &err), 0);
        assert_string_equal(out, "hugepagesz=1G\n");
        free(out);
        assert_int_equal(ht_kernel_cmdline_edit("a\nb\n", 4, ops, 2, &out, &len, &err), -EINVAL);
        free(err);
        ht_cmdline_op bad[] = { { HT_CMDLINE_SET, "x", "a\"b" } };
        assert_int_equal(ht_kernel_cmdline_edit(c, strlen(c), bad, 1, &out, &len, &err), -EINVAL);
        free(err);
}

/* Every word removed: "options", no blank left after the key; the
 * kernelopts of grubenv and /etc/kernel/cmdline keep no separator
 * either (issue 33, grubby's updargs/g3.7 on legacy GRUB). */
static void test_remove_every_word(void **state) {
        static const char e[] = "title x\nlinux /vmlinuz\noptions  quiet\t\ngrub_class kernel\n";
        ht_cmdline_op ops[] = { { HT_CMDLINE_REMOVE, "quiet", NULL }, { HT_CMDLINE_REMOVE, "rhgb", NULL } };
        char *out = NULL, *err = NULL;
        size_t len;
        assert_int_equal(ht_bls_edit_options(e, strlen(e), NULL, ops, 2, &out, &len, &err), 0);
        assert_string_equal(out, "title x\nlinux /vmlinuz\noptions\ngrub_class kernel\n");
        assert_int_equal(len, strlen(out));
        free(out);
        assert_int_equal(ht_kernel_cmdline_edit("rhgb  quiet \n", 13, ops, 2, &out, &len, &err), 0);
        assert_string_equal(out, "\n");
        free(out);
        _cleanup_free_ char *env = make_grubenv("kernelopts= rhgb quiet \n");
        assert_int_equal(ht_grubenv_edit_kernelopts(env, strlen(env), ops, 2, &out, &len, &err), 0);
        assert_true(startswith(out, HT_GRUBENV_HEADER "kernelopts=\n#"));
        free(out);
}

static void test_junk(void **state) {
        unsigned seed = 3;
        ht_cmdline_op ops[] = { { HT_CMDLINE_SET, "a", "b" }, { HT_CMDLINE_REMOVE, "quiet", NULL } };
        for (int round = 0; round < 2000; round++) {
                char buf[300];
                size_t n = rand_r(&seed) % sizeof buf;
                for (size_t i = 0; i < n; i++)
                        buf[i] = round % 2 ? (char)rand_r(&seed) : "options $kernelopts=\n#\\ a"[rand_r(&seed) % 25];
                if (round % 5 == 0 && n > 25)
                        memcpy(buf, HT_GRUBENV_HEADER, 25);
                char *out = NULL, *err = NULL;
                size_t len;
                int r = ht_bls_edit_options(buf, n, NULL, ops, 2, &out, &len, &err);
                assert_true(r == 0 || (r < 0 && err));
                free(out);
                free(err);
                out = err = NULL;
                r = ht_grubenv_edit_kernelopts(buf, n, ops, 2, &out, &len, &err);
                assert_true((r == 0 && len >= HT_GRUBENV_SIZE) || (r < 0 && err));
                free(out);
                free(err);
                out = err = NULL;
                r = ht_kernel_cmdline_edit(buf, n, ops, 2, &out, &len, &err);
                assert_true(r == 0 || (r < 0 && err));
                free(out);
                free(err);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_entry),
                cmocka_unit_test(test_edit_rhel9_options),
                cmocka_unit_test(test_edit_kernelopts_ref),
                cmocka_unit_test(test_grubenv_edit),
                cmocka_unit_test(test_kernel_cmdline),
                cmocka_unit_test(test_remove_every_word),
                cmocka_unit_test(test_junk),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
