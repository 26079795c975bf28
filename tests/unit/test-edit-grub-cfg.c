#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "edit-grub-cfg.h"
#include "edit-test-helpers.h"

/* grub2-mkconfig on RHEL 7 (BIOS: linux16) with a memtest entry, a
 * submenu, CRLF on one line and a Xen entry as 20_linux_xen writes it. */
static const char cfg[] =
        "### BEGIN /etc/grub.d/10_linux ###\n"
        "menuentry 'Red Hat Enterprise Linux Server (3.10.0-1160.el7.x86_64) 7.9 (Maipo)' --class red --unrestricted $menuentry_id_option 'gnulinux-3.10.0-1160.el7.x86_64-advanced-5c7f' {\n"
        "\tlinux16 /vmlinuz-3.10.0-1160.el7.x86_64 root=/dev/mapper/rhel-root ro crashkernel=auto rd.lvm.lv=rhel/root rd.lvm.lv=rhel/swap console=tty0 console=ttyS0,115200n8 rhgb quiet LANG=en_US.UTF-8\n"
        "\tinitrd16 /initramfs-3.10.0-1160.el7.x86_64.img\n"
        "}\n"
        "submenu 'Advanced' {\n"
        "\tmenuentry 'efi' {\n"
        "\t\tlinuxefi /vmlinuz-3.10.0-1160.el7.x86_64 root=/dev/mapper/rhel-root ro quiet\r\n"
        "\t}\n"
        "}\n"
        "menuentry 'Xen' {\n"
        "\tmultiboot\t/boot/xen-4.17-amd64.gz placeholder dom0_mem=2048M\n"
        "\tmodule\t/boot/vmlinuz-6.1.0-18-amd64 placeholder root=UUID=1b2c ro quiet\n"
        "\tmodule\t/boot/initrd.img-6.1.0-18-amd64\n"
        "}\n"
        "menuentry 'Memory test (memtest86+.bin)' {\n"
        "\tlinux16\t/memtest86+.bin\n"
        "}\n";

static void test_parse(void **state) {
        _cleanup_(ht_grub_cfg_freep) ht_grub_cfg *g = NULL;
        _cleanup_free_ char *err = NULL;
        assert_int_equal(ht_grub_cfg_parse(cfg, strlen(cfg), &g, &err), 0);
        assert_int_equal(g->n_kernels, 5);
        assert_int_equal(g->kernels[0].kind, HT_GRUB_CFG_LINUX);
        assert_int_equal(g->kernels[0].line, 3);
        assert_string_equal(g->kernels[0].command, "linux16");
        assert_string_equal(g->kernels[1].command, "linuxefi");
        assert_string_equal(g->kernels[1].args, " root=/dev/mapper/rhel-root ro quiet"); /* no '\r' */
        assert_int_equal(g->kernels[2].kind, HT_GRUB_CFG_XEN);
        assert_int_equal(g->kernels[3].kind, HT_GRUB_CFG_LINUX);
        assert_string_equal(g->kernels[3].command, "module");
        assert_int_equal(g->kernels[4].kind, HT_GRUB_CFG_OTHER); /* memtest86+ */
}

static void test_edit(void **state) {
        ht_cmdline_op ops[] = {
                ht_cmdline_op_make("transparent_hugepage", "never", false),
                ht_cmdline_op_make("console", "ttyS1,115200", false),
                ht_cmdline_op_make("quiet", NULL, true),
        };
        _cleanup_free_ char *out = NULL, *err = NULL;
        size_t len = 0, n = 0;
        assert_int_equal(ht_grub_cfg_edit(cfg, strlen(cfg), HT_GRUB_CFG_LINUX, ops, 3, &out, &len, &n, &err), 0);
        assert_int_equal(n, 3);
        assert_int_equal(len, strlen(out));
        /* every console= stays, the new one is added; other bytes kept */
        assert_non_null(strstr(out, "\tlinux16 /vmlinuz-3.10.0-1160.el7.x86_64 root=/dev/mapper/rhel-root ro crashkernel=auto "
                                    "rd.lvm.lv=rhel/root rd.lvm.lv=rhel/swap console=tty0 console=ttyS0,115200n8 rhgb "
                                    "LANG=en_US.UTF-8 transparent_hugepage=never console=ttyS1,115200\n"));
        assert_non_null(strstr(out, "\t\tlinuxefi /vmlinuz-3.10.0-1160.el7.x86_64 root=/dev/mapper/rhel-root ro "
                                    "transparent_hugepage=never console=ttyS1,115200\r\n"));
        assert_non_null(strstr(out, "\tmodule\t/boot/vmlinuz-6.1.0-18-amd64 placeholder root=UUID=1b2c ro "
                                    "transparent_hugepage=never console=ttyS1,115200\n"));
        assert_non_null(strstr(out, "\tmultiboot\t/boot/xen-4.17-amd64.gz placeholder dom0_mem=2048M\n"));
        assert_non_null(strstr(out, "\tlinux16\t/memtest86+.bin\n"));
        assert_non_null(strstr(out, "\tinitrd16 /initramfs-3.10.0-1160.el7.x86_64.img\n"));

        /* the hypervisor's line only */
        ht_cmdline_op xen[] = {ht_cmdline_op_make("dom0_mem", "4096M,max:4096M", false)};
        _cleanup_free_ char *xout = NULL;
        assert_int_equal(ht_grub_cfg_edit(cfg, strlen(cfg), HT_GRUB_CFG_XEN, xen, 1, &xout, &len, &n, &err), 0);
        assert_int_equal(n, 1);
        assert_non_null(strstr(xout, "placeholder dom0_mem=4096M,max:4096M\n"));
        assert_non_null(strstr(xout, "rhgb quiet LANG=en_US.UTF-8\n"));

        /* a bare kernel line gets a blank before its first word */
        static const char bare[] = "menuentry 'x' {\n  linux /vmlinuz\n}\n";
        _cleanup_free_ char *bout = NULL;
        assert_int_equal(ht_grub_cfg_edit(bare, strlen(bare), HT_GRUB_CFG_LINUX, ops, 1, &bout, &len, &n, &err), 0);
        assert_string_equal(bout, "menuentry 'x' {\n  linux /vmlinuz transparent_hugepage=never\n}\n");

        /* every word removed: "linux /vmlinuz", no blank left after the
         * image (grubby's updargs/g3.7 on legacy GRUB; issue 33) */
        static const char one[] = "menuentry 'x' {\n  linux /vmlinuz quiet\n  linuxefi /vmlinuz\tquiet \n}\n";
        _cleanup_free_ char *oout = NULL;
        assert_int_equal(ht_grub_cfg_edit(one, strlen(one), HT_GRUB_CFG_LINUX, ops + 2, 1, &oout, &len, &n, &err), 0);
        assert_string_equal(oout, "menuentry 'x' {\n  linux /vmlinuz\n  linuxefi /vmlinuz\n}\n");

        /* nothing to edit: content unchanged, no line counted */
        static const char none[] = "set timeout=5\n";
        _cleanup_free_ char *nout = NULL;
        assert_int_equal(ht_grub_cfg_edit(none, strlen(none), HT_GRUB_CFG_LINUX, ops, 1, &nout, &len, &n, &err), 0);
        assert_int_equal(n, 0);
        assert_string_equal(nout, none);
}

static void test_refuses(void **state) {
        ht_cmdline_op ops[] = {ht_cmdline_op_make("transparent_hugepage", "never", false)};
        size_t len = 0, n = 0;
        static const char *const bad[] = {
                "menuentry 'a' {\n\tlinux /vmlinuz ro 'acpi_osi=Windows 2015'\n}\n",
                "menuentry 'a' {\n\tlinux /vmlinuz ro \\\n\t\tquiet\n}\n",
        };
        for (size_t i = 0; i < 2; i++) {
                char *out = NULL, *err = NULL;
                assert_int_equal(ht_grub_cfg_edit(bad[i], strlen(bad[i]), HT_GRUB_CFG_LINUX, ops, 1, &out, &len, &n, &err),
                                 -EINVAL);
                assert_null(out);
                assert_true(startswith(err, "2: "));
                free(err);
        }
        static const char nul[] = "set a=1\nlinux /vmlinuz\0 ro\n";
        _cleanup_(ht_grub_cfg_freep) ht_grub_cfg *g = NULL;
        _cleanup_free_ char *err = NULL;
        assert_int_equal(ht_grub_cfg_parse(nul, sizeof nul - 1, &g, &err), -EINVAL);
        assert_string_equal(err, "2: NUL byte in a GRUB configuration file");
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse),
                cmocka_unit_test(test_edit),
                cmocka_unit_test(test_refuses),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
