#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "edit-bls.h"
#include "edit-cmdline.h"
#include "edit-grub-cfg.h"
#include "edit-grub-legacy.h"
#include "edit-grub.h"
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
        int r = ht_cmdline_edit_body(HT_CMDLINE_FMT_GRUB_CFG, body, strlen(body), w, nw, hidden, ops, n, &out, &len, &err);
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
        assert_int_equal(ht_cmdline_edit_body(HT_CMDLINE_FMT_GRUB_CFG, paired, strlen(paired), ws, nw, NULL, &hp, 1, &out, &out_len, &err), -EINVAL);
        assert_null(out);
        assert_non_null(strstr(err, "hugepagesz="));
        free(err);
        ht_word_spans_free(ws, nw);
        /* without hugepagesz= it is a single-valued word as any other */
        static const char plain[] = "ro hugepages=4";
        nw = ht_word_spans_simple(plain, strlen(plain), &ws);
        assert_int_equal(ht_cmdline_edit_body(HT_CMDLINE_FMT_GRUB_CFG, plain, strlen(plain), ws, nw, NULL, &hp, 1, &out, &out_len, &err), 0);
        assert_string_equal(out, "ro hugepages=1024");
        free(out);
        ht_word_spans_free(ws, nw);
}

/* ---- what each format can carry (issue 32) ------------------------------ */

static const ht_cmdline_format all_formats[] = {
        HT_CMDLINE_FMT_GRUB_LEGACY, HT_CMDLINE_FMT_GRUB_CFG, HT_CMDLINE_FMT_GRUB_DEFAULTS,
        HT_CMDLINE_FMT_BLS, HT_CMDLINE_FMT_GRUBENV, HT_CMDLINE_FMT_KERNEL_CMDLINE,
};

static ht_cmdline_op op_of(const char *word, char **ret_key) {
        const char *eq = strchr(word, '=');
        *ret_key = eq ? xstrndup(word, eq - word) : xstrdup(word);
        return (ht_cmdline_op){ HT_CMDLINE_SET, *ret_key, eq ? eq + 1 : NULL };
}

/* Words of distributions' default command lines (Debian, Ubuntu, RHEL,
 * Oracle Linux installers, cloud images) and of the kernel's
 * kernel-parameters.txt examples: every format takes them. */
static const char *const real_words[] = {
        "quiet", "splash", "ro", "rhgb", "nomodeset", "console=tty0", "console=ttyS0,115200n8",
        "console=ttyS0,115200", "earlyprintk=ttyS0,115200", "consoleblank=0", "rd.lvm.lv=vg/root",
        "rd.lvm.lv=ol/swap", "rd.lvm.vg=rhel", "root=UUID=0f3c1f4e-6a8f-4c52-9c3e-2b9a7d1e5f10",
        "root=/dev/mapper/ol-root", "resume=/dev/mapper/ol-swap", "rd.luks.uuid=luks-0f3c1f4e",
        "rootflags=subvol=@", "boot=UUID=0f3c1f4e", "hugepagesz=1G", "hugepages=16", "default_hugepagesz=1G",
        "isolcpus=1-3,5", "isolcpus=managed_irq,domain,2-7", "nohz_full=1-3", "rcu_nocbs=1-3",
        "irqaffinity=0", "crashkernel=auto", "crashkernel=1G-4G:192M,4G-64G:256M", "crashkernel=512M@16M",
        "intel_iommu=on", "iommu=pt", "amd_iommu=off", "transparent_hugepage=never", "numa=off",
        "numa_balancing=disable", "audit=1", "audit_backlog_limit=8192", "selinux=0", "apparmor=1",
        "security=apparmor", "net.ifnames=0", "biosdevname=0", "ipv6.disable=1", "mitigations=off",
        "spectre_v2=retpoline,generic", "processor.max_cstate=1", "intel_idle.max_cstate=0", "idle=poll",
        "tsc=reliable", "clocksource=tsc", "nmi_watchdog=0", "skew_tick=1", "elevator=deadline",
        "systemd.unified_cgroup_hierarchy=1", "cgroup_enable=memory", "swapaccount=1", "fips=1",
        "modprobe.blacklist=nouveau,floppy", "rd.driver.blacklist=nouveau", "vconsole.keymap=us",
        "init=/lib/systemd/systemd", "panic=10", "kvm-intel.nested=1", "memmap=2G!4G", "memmap=64K@0x1000",
        "acpi_osi=!Windows2012", "acpi_osi=Linux", "video=1024x768@60", "mtdparts=nand:512k(boot),-(root)",
        "ip=[fe80::1]::[fe80::fe]:64::eth0:none", "ip=dhcp", "nameserver=192.0.2.1",
        "systemd.setenv=FOO=bar", "tag=#1", "x=~/*?[a]%^",
};

static void test_word_check_allowed(void **state) {
        for (size_t f = 0; f < ELEMENTSOF(all_formats); f++)
                for (size_t i = 0; i < ELEMENTSOF(real_words); i++) {
                        _cleanup_free_ char *key = NULL, *err = NULL;
                        ht_cmdline_op op = op_of(real_words[i], &key);
                        if (ht_cmdline_word_check(&op, all_formats[f], NULL, &err) < 0)
                                fail_msg("%s refused for %s: %s", real_words[i],
                                         ht_cmdline_format_name(all_formats[f]), err);
                }
}

static void expect_refused(const char *key, const char *value, ht_cmdline_format fmt, const char *msg_part) {
        ht_cmdline_op op = { HT_CMDLINE_SET, key, value };
        _cleanup_free_ char *err = NULL;
        if (ht_cmdline_word_check(&op, fmt, "/etc/default/grub", &err) != -EINVAL)
                fail_msg("%s=%s accepted for %s", key, value ? value : "(flag)", ht_cmdline_format_name(fmt));
        if (!strstr(err, msg_part))
                fail_msg("error \"%s\" lacks \"%s\"", err, msg_part);
}

static void test_word_check_refused(void **state) {
        /* every format: what breaks the word or the quoting of any file */
        static const char *const everywhere[] = {
                "a b", "a\tb", "a\nb", "a\rb", "a\"b", "\"a b\"", "a'b", "$x", "a$(reboot)", "${x}", "`id`",
                "a\\b", "a\x7f", "a\x01", "caf\xc3\xa9",
        };
        for (size_t f = 0; f < ELEMENTSOF(all_formats); f++) {
                for (size_t i = 0; i < ELEMENTSOF(everywhere); i++)
                        expect_refused("foo", everywhere[i], all_formats[f], "kernel parameter foo");
                /* names: [A-Za-z0-9_.-] only */
                static const char *const keys[] = { "", "a;b", "a=b", "{", "}", "a|b", "a b", "$x", "a/b", "a(b" };
                for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                        expect_refused(keys[i], "1", all_formats[f], "kernel parameter");
        }
        /* GRUB 2's operators, in every format GRUB 2 reads as script */
        static const char *const operators[] = {
                "a;reboot", ";", "a&b", "a&&b", "a|b", "a||b", "a<b", "a>b", "a>>b", "{", "}", "a{b}",
                "x;;", "1-3;reboot", "a}b",
        };
        for (size_t f = 0; f < ELEMENTSOF(all_formats); f++) {
                if (all_formats[f] == HT_CMDLINE_FMT_GRUB_LEGACY)
                        continue;
                for (size_t i = 0; i < ELEMENTSOF(operators); i++)
                        expect_refused("foo", operators[i], all_formats[f],
                                       "cannot be written to /etc/default/grub: '");
        }
        expect_refused("foo", "a;reboot", HT_CMDLINE_FMT_BLS, "blscfg pastes the options line");
        expect_refused("foo", "a;reboot", HT_CMDLINE_FMT_GRUBENV, "$kernelopts");
        expect_refused("foo", "a;reboot", HT_CMDLINE_FMT_GRUB_DEFAULTS, "GRUB_CMDLINE_LINUX unquoted");
        /* legacy GRUB (0.97) has no script: the kernel gets the line as written */
        for (size_t i = 0; i < ELEMENTSOF(operators); i++) {
                ht_cmdline_op op = { HT_CMDLINE_SET, "foo", operators[i] };
                _cleanup_free_ char *err = NULL;
                assert_int_equal(ht_cmdline_word_check(&op, HT_CMDLINE_FMT_GRUB_LEGACY, NULL, &err), 0);
        }
}

/* Every editor refuses what its format cannot carry, whether or not the
 * file has a line to edit. */
static void test_editors_refuse(void **state) {
        ht_cmdline_op bad = { HT_CMDLINE_ADD, "foo", "a;reboot" };
        char *out = NULL, *err = NULL;
        size_t len = 0, n = 0;
        static const char defaults[] = "GRUB_CMDLINE_LINUX=\"quiet\"\n";
        assert_int_equal(ht_grub_edit(defaults, strlen(defaults), "GRUB_CMDLINE_LINUX", NULL, &bad, 1, &out, &len, &err),
                         -EINVAL);
        assert_non_null(strstr(err, "foo=a;reboot cannot be written to the GRUB defaults"));
        free(err);
        static const char cfg[] = "menuentry 'x' {\n\tlinux /vmlinuz root=/dev/sda1 ro\n}\n";
        static const char nocfg[] = "set timeout=5\n";
        assert_int_equal(ht_grub_cfg_edit(cfg, strlen(cfg), HT_GRUB_CFG_LINUX, &bad, 1, &out, &len, &n, &err), -EINVAL);
        assert_non_null(strstr(err, "foo=a;reboot cannot be written to a grub.cfg linux line"));
        free(err);
        assert_int_equal(ht_grub_cfg_edit(nocfg, strlen(nocfg), HT_GRUB_CFG_LINUX, &bad, 1, &out, &len, &n, &err),
                         -EINVAL);
        free(err);
        static const char entry[] = "title x\nlinux /vmlinuz\noptions root=/dev/sda1 ro\n";
        static const char entry_noopts[] = "title x\nlinux /vmlinuz\n";
        assert_int_equal(ht_bls_edit_options(entry, strlen(entry), NULL, &bad, 1, &out, &len, &err), -EINVAL);
        assert_non_null(strstr(err, "foo=a;reboot cannot be written to a BLS options line"));
        free(err);
        assert_int_equal(ht_bls_edit_options(entry_noopts, strlen(entry_noopts), NULL, &bad, 1, &out, &len, &err),
                         -EINVAL);
        free(err);
        char env[1024];
        memset(env, '#', sizeof env);
        static const char env_head[] = "# GRUB Environment Block\nkernelopts=root=/dev/sda1 ro\n";
        memcpy(env, env_head, strlen(env_head));
        assert_int_equal(ht_grubenv_edit_kernelopts(env, sizeof env, &bad, 1, &out, &len, &err), -EINVAL);
        assert_non_null(strstr(err, "foo=a;reboot cannot be written to grubenv's kernelopts"));
        free(err);
        static const char kcl[] = "root=/dev/sda1 ro\n";
        assert_int_equal(ht_kernel_cmdline_edit(kcl, strlen(kcl), &bad, 1, &out, &len, &err), -EINVAL);
        assert_non_null(strstr(err, "foo=a;reboot cannot be written to /etc/kernel/cmdline"));
        free(err);
        /* legacy GRUB: the kernel line takes it as written; quotes it does not */
        static const char legacy[] = "default=0\ntitle x\n\troot (hd0,0)\n\tkernel /vmlinuz ro root=/dev/sda1\n";
        assert_int_equal(ht_grub_legacy_edit(legacy, strlen(legacy), HT_GRUB_LEGACY_ALL, HT_GRUB_LEGACY_LINUX, &bad, 1,
                                             &out, &len, &err), 0);
        assert_non_null(strstr(out, "kernel /vmlinuz ro root=/dev/sda1 foo=a;reboot\n"));
        free(out);
        ht_cmdline_op quoted = { HT_CMDLINE_ADD, "foo", "\"a\"" };
        assert_int_equal(ht_grub_legacy_edit(legacy, strlen(legacy), HT_GRUB_LEGACY_ALL, HT_GRUB_LEGACY_LINUX, &quoted,
                                             1, &out, &len, &err), -EINVAL);
        free(err);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_split),
                cmocka_unit_test(test_find),
                cmocka_unit_test(test_apply),
                cmocka_unit_test(test_edit_body),
                cmocka_unit_test(test_repeatable),
                cmocka_unit_test(test_word_check_allowed),
                cmocka_unit_test(test_word_check_refused),
                cmocka_unit_test(test_editors_refuse),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
