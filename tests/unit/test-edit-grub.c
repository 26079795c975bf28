#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "edit-grub.h"
#include "edit-test-helpers.h"

static char *tmpdir;

static int setup(void **state) {
        tmpdir = th_mkdtemp();
        return 0;
}

static int teardown(void **state) {
        th_rmdir(tmpdir);
        free(tmpdir);
        return 0;
}

static const char debian_grub[] =
        "# If you change this file, run 'update-grub' afterwards to update\n"
        "# /boot/grub/grub.cfg.\n"
        "# For full documentation of the options in this file, see:\n"
        "#   info -f grub -n 'Simple configuration'\n"
        "\n"
        "GRUB_DEFAULT=0\n"
        "GRUB_TIMEOUT=5\n"
        "GRUB_DISTRIBUTOR=`lsb_release -i -s 2> /dev/null || echo Debian`\n"
        "GRUB_CMDLINE_LINUX_DEFAULT=\"quiet\"\n"
        "GRUB_CMDLINE_LINUX=\"\"\n"
        "\n"
        "# Uncomment to enable BadRAM filtering, modify to suit your needs\n"
        "#GRUB_BADRAM=\"0x01234567,0xfefefefe,0x89abcdef,0xefefefef\"\n"
        "#GRUB_CMDLINE_LINUX=\"console=ttyS0\"\n"
        "#GRUB_TERMINAL=console\n";

static const char rhel_grub[] =
        "GRUB_TIMEOUT=5\n"
        "GRUB_DISTRIBUTOR=\"$(sed 's, release .*$,,g' /etc/system-release)\"\n"
        "GRUB_DEFAULT=saved\n"
        "GRUB_DISABLE_SUBMENU=true\n"
        "GRUB_TERMINAL_OUTPUT=\"console\"\n"
        "GRUB_CMDLINE_LINUX=\"crashkernel=auto resume=/dev/mapper/ol-swap rd.lvm.lv=ol/root "
        "rd.lvm.lv=ol/swap rhgb quiet\"\n"
        "GRUB_DISABLE_RECOVERY=\"true\"\n"
        "GRUB_ENABLE_BLSCFG=true\n";

static const char mixed_grub[] =
        "GRUB_CMDLINE_LINUX='quiet splash'\n"
        "export GRUB_CMDLINE_XEN=\"dom0_mem=4096M,max:4096M \\\n"
        "  dom0_max_vcpus=4\"\n"
        "GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX transparent_hugepage=never\"\n"
        "# GRUB_CMDLINE_LINUX=\"old\"\n"
        "  GRUB_CMDLINE_LINUX=\"${GRUB_CMDLINE_LINUX} numa=off\" # last one counts\n"
        "GRUB_TIMEOUT=5; GRUB_DEFAULT=2\n";

static const char cloudimg_cfg[] =
        "# Cloud Image specific Grub settings for Generic Cloud Images\n"
        "# CLOUD_IMG: This file was created/modified by the Cloud Image build process\n"
        "\n"
        "# Set the recordfail timeout\n"
        "GRUB_RECORDFAIL_TIMEOUT=0\n"
        "\n"
        "# Do not wait on grub prompt\n"
        "GRUB_TIMEOUT=0\n"
        "\n"
        "# Set the default commandline\n"
        "GRUB_CMDLINE_LINUX_DEFAULT=\"console=tty1 console=ttyS0\"\n"
        "\n"
        "# Set the grub console type\n"
        "GRUB_TERMINAL=console\n";

static const char partuuid_cfg[] =
        "# Force the root device to be found by PARTUUID\n"
        "GRUB_FORCE_PARTUUID=6e6fa7cf-01\n";

/* Source the files with the real shell and print one variable. */
static char *sh_value(const char *var, char *const *paths) {
        _cleanup_free_ char *script = xasprintf("for f in \"$@\"; do . \"$f\"; done; printf %%s \"$%s\"", var);
        char *argv[16] = { "/bin/sh", "-c", script, "sh" };
        size_t n = 4;
        for (size_t i = 0; paths[i] && n < 15; i++)
                argv[n++] = paths[i];
        argv[n] = NULL;
        char *out;
        assert_int_equal(th_run(argv, &out), 0);
        return out;
}

/* Our value of var after the files, as a normalised word list. */
static char *our_value(const char *var, const char *const *contents, size_t n) {
        _cleanup_(ht_grub_env_freep) ht_grub_env *env = ht_grub_env_new();
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *err = NULL;
                assert_int_equal(ht_grub_eval_file(env, i, contents[i], strlen(contents[i]), &err), 0);
        }
        const ht_grub_var *v = ht_grub_env_get(env, var);
        if (!v)
                return xstrdup("");
        assert_non_null(v->value);
        return xstrdup(v->value);
}

static void check_oracle(const char *var, const char *const *contents, size_t n) {
        char *paths[8] = {};
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *name = xasprintf("f%zu.cfg", i);
                paths[i] = th_write_file(tmpdir, name, contents[i], strlen(contents[i]));
        }
        _cleanup_free_ char *sh = sh_value(var, paths);
        _cleanup_free_ char *ours = our_value(var, contents, n);
        _cleanup_free_ char *a = normalize_ws(sh), *b = normalize_ws(ours);
        assert_string_equal(a, b);
        for (size_t i = 0; i < n; i++)
                free(paths[i]);
}

static char *edit_ok(const char *content, const char *var, const ht_grub_env *before,
                     const ht_cmdline_op *ops, size_t n_ops) {
        char *out = NULL, *err = NULL;
        size_t len;
        int r = ht_grub_edit(content, strlen(content), var, before, ops, n_ops, &out, &len, &err);
        if (r < 0)
                fail_msg("edit failed: %s", err);
        assert_int_equal(strlen(out), len);
        const char *one[] = { out };
        check_oracle(var, one, 1);
        return out;
}

static void edit_fails(const char *content, const char *var, const ht_cmdline_op *ops, size_t n_ops,
                       const char *msg_part) {
        char *out = NULL, *err = NULL;
        size_t len;
        assert_int_equal(ht_grub_edit(content, strlen(content), var, NULL, ops, n_ops, &out, &len, &err), -EINVAL);
        assert_null(out);
        assert_non_null(err);
        if (!strstr(err, msg_part))
                fail_msg("error \"%s\" lacks \"%s\"", err, msg_part);
        free(err);
}

static void test_eval_debian(void **state) {
        _cleanup_(ht_grub_env_freep) ht_grub_env *env = ht_grub_env_new();
        char *err = NULL;
        assert_int_equal(ht_grub_eval_file(env, 0, debian_grub, strlen(debian_grub), &err), 0);
        const ht_grub_var *v = ht_grub_env_get(env, "GRUB_CMDLINE_LINUX_DEFAULT");
        assert_string_equal(v->value, "quiet");
        assert_int_equal(v->line, 9);
        v = ht_grub_env_get(env, "GRUB_CMDLINE_LINUX");
        assert_string_equal(v->value, "");
        assert_int_equal(v->line, 10);
        v = ht_grub_env_get(env, "GRUB_DISTRIBUTOR");
        assert_null(v->value);
        assert_string_equal(v->why, "8: command substitution");
        assert_null(ht_grub_env_get(env, "GRUB_BADRAM"));
        assert_null(ht_grub_env_get(env, "GRUB_TERMINAL"));
        const char *one[] = { debian_grub };
        check_oracle("GRUB_CMDLINE_LINUX_DEFAULT", one, 1);
}

static void test_eval_dropins(void **state) {
        _cleanup_(ht_grub_env_freep) ht_grub_env *env = ht_grub_env_new();
        char *err = NULL;
        const char *files[] = { debian_grub, partuuid_cfg, cloudimg_cfg };
        for (size_t i = 0; i < 3; i++)
                assert_int_equal(ht_grub_eval_file(env, i, files[i], strlen(files[i]), &err), 0);
        const ht_grub_var *v = ht_grub_env_get(env, "GRUB_CMDLINE_LINUX_DEFAULT");
        assert_string_equal(v->value, "console=tty1 console=ttyS0");
        assert_int_equal(v->file, 2);
        assert_int_equal(v->line, 11);
        assert_string_equal(ht_grub_env_get(env, "GRUB_TIMEOUT")->value, "0");
        check_oracle("GRUB_CMDLINE_LINUX_DEFAULT", files, 3);
        check_oracle("GRUB_TIMEOUT", files, 3);

        char *names[] = { "40-force-partuuid.cfg", "50-cloudimg-settings.cfg", "README", "x.cfg.bak", NULL };
        _cleanup_strv_free_ char **order = ht_grub_defaults_files(names);
        assert_int_equal(strv_length(order), 3);
        assert_string_equal(order[0], "/etc/default/grub");
        assert_string_equal(order[2], "/etc/default/grub.d/50-cloudimg-settings.cfg");
}

static void test_eval_mixed(void **state) {
        _cleanup_(ht_grub_env_freep) ht_grub_env *env = ht_grub_env_new();
        char *err = NULL;
        assert_int_equal(ht_grub_eval_file(env, 0, mixed_grub, strlen(mixed_grub), &err), 0);
        assert_string_equal(ht_grub_env_get(env, "GRUB_CMDLINE_LINUX")->value,
                            "quiet splash transparent_hugepage=never numa=off");
        assert_int_equal(ht_grub_env_get(env, "GRUB_CMDLINE_LINUX")->line, 6);
        assert_string_equal(ht_grub_env_get(env, "GRUB_CMDLINE_XEN")->value,
                            "dom0_mem=4096M,max:4096M   dom0_max_vcpus=4");
        assert_string_equal(ht_grub_env_get(env, "GRUB_DEFAULT")->value, "2");
        const char *one[] = { mixed_grub };
        check_oracle("GRUB_CMDLINE_LINUX", one, 1);
        check_oracle("GRUB_CMDLINE_XEN", one, 1);
        check_oracle("GRUB_DEFAULT", one, 1);
}

static void test_edit_debian_empty(void **state) {
        ht_cmdline_op ops[] = { { HT_CMDLINE_SET, "hugepages", "9000" },
                                { HT_CMDLINE_SET, "transparent_hugepage", "never" } };
        _cleanup_free_ char *out = edit_ok(debian_grub, "GRUB_CMDLINE_LINUX", NULL, ops, 2);
        _cleanup_free_ char *want = xstrdup(debian_grub);
        char *p = strstr(want, "GRUB_CMDLINE_LINUX=\"\"");
        *p = 0;
        _cleanup_free_ char *expect = xasprintf("%sGRUB_CMDLINE_LINUX=\"hugepages=9000 transparent_hugepage=never\"%s",
                                                want, p + strlen("GRUB_CMDLINE_LINUX=\"\""));
        assert_string_equal(out, expect);
        /* Idempotent: applying again changes nothing. */
        _cleanup_free_ char *again = edit_ok(out, "GRUB_CMDLINE_LINUX", NULL, ops, 2);
        assert_string_equal(again, out);
}

static void test_edit_rhel(void **state) {
        ht_cmdline_op ops[] = {
                { HT_CMDLINE_SET, "crashkernel", "1G-4G:192M,4G-64G:256M" },
                { HT_CMDLINE_REMOVE, "rhgb", NULL },
                { HT_CMDLINE_SET, "transparent_hugepage", "never" },
                { HT_CMDLINE_REMOVE, "rd.lvm.lv", "ol/swap" },
        };
        _cleanup_free_ char *out = edit_ok(rhel_grub, "GRUB_CMDLINE_LINUX", NULL, ops, 4);
        assert_non_null(strstr(out, "\nGRUB_CMDLINE_LINUX=\"crashkernel=1G-4G:192M,4G-64G:256M "
                                    "resume=/dev/mapper/ol-swap rd.lvm.lv=ol/root quiet "
                                    "transparent_hugepage=never\"\n"));
        /* Everything before and after the assignment is byte-identical. */
        size_t pre = strstr(rhel_grub, "GRUB_CMDLINE_LINUX=") - rhel_grub;
        assert_memory_equal(out, rhel_grub, pre);
        const char *tail = strstr(rhel_grub, "GRUB_DISABLE_RECOVERY");
        assert_true(endswith(out, tail));
}

static void test_edit_references_and_duplicates(void **state) {
        ht_cmdline_op set_numa[] = { { HT_CMDLINE_SET, "numa", "on" }, { HT_CMDLINE_ADD, "hugepagesz", "1G" } };
        _cleanup_free_ char *out = edit_ok(mixed_grub, "GRUB_CMDLINE_LINUX", NULL, set_numa, 2);
        assert_non_null(strstr(out, "  GRUB_CMDLINE_LINUX=\"${GRUB_CMDLINE_LINUX} numa=on hugepagesz=1G\" # last one counts\n"));
        assert_non_null(strstr(out, "GRUB_CMDLINE_LINUX='quiet splash'\n"));

        /* Parameters that come from the referenced earlier value. */
        ht_cmdline_op rm_quiet[] = { { HT_CMDLINE_REMOVE, "quiet", NULL } };
        edit_fails(mixed_grub, "GRUB_CMDLINE_LINUX", rm_quiet, 1, "6: kernel parameter quiet comes from a referenced");
        ht_cmdline_op thp[] = { { HT_CMDLINE_SET, "transparent-hugepage", "madvise" } };
        edit_fails(mixed_grub, "GRUB_CMDLINE_LINUX", thp, 1, "transparent-hugepage");
        /* ... unless it already has the wanted value there. */
        ht_cmdline_op thp_same[] = { { HT_CMDLINE_SET, "transparent_hugepage", "never" } };
        _cleanup_free_ char *same = edit_ok(mixed_grub, "GRUB_CMDLINE_LINUX", NULL, thp_same, 1);
        assert_string_equal(same, mixed_grub);

        /* Xen hypervisor line: continuation kept, exported kept. */
        ht_cmdline_op xen[] = { { HT_CMDLINE_SET, "dom0_mem", "8192M,max:8192M" } };
        _cleanup_free_ char *x = edit_ok(mixed_grub, "GRUB_CMDLINE_XEN", NULL, xen, 1);
        assert_non_null(strstr(x, "export GRUB_CMDLINE_XEN=\"dom0_mem=8192M,max:8192M \\\n  dom0_max_vcpus=4\"\n"));
        ht_cmdline_op xen_rm[] = { { HT_CMDLINE_REMOVE, "dom0_max_vcpus", NULL } };
        _cleanup_free_ char *x2 = edit_ok(mixed_grub, "GRUB_CMDLINE_XEN", NULL, xen_rm, 1);
        assert_non_null(strstr(x2, "export GRUB_CMDLINE_XEN=\"dom0_mem=4096M,max:4096M\"\n"));
}

static void test_edit_continued_lines(void **state) {
        const char *f = "GRUB_TIMEOUT=1\n"
                        "GRUB_CMDLINE_LINUX=\"rd.lvm.lv=ol/root \\\n"
                        "    rd.lvm.lv=ol/swap \\\n"
                        "    rhgb quiet\"\n"
                        "GRUB_DISABLE_RECOVERY=true\n";
        ht_cmdline_op ops[] = { { HT_CMDLINE_REMOVE, "rd.lvm.lv", "ol/swap" }, { HT_CMDLINE_SET, "numa", "off" } };
        _cleanup_free_ char *out = edit_ok(f, "GRUB_CMDLINE_LINUX", NULL, ops, 2);
        assert_string_equal(out, "GRUB_TIMEOUT=1\n"
                                 "GRUB_CMDLINE_LINUX=\"rd.lvm.lv=ol/root \\\n"
                                 "    rhgb quiet numa=off\"\n"
                                 "GRUB_DISABLE_RECOVERY=true\n");
        ht_cmdline_op rm_all[] = { { HT_CMDLINE_REMOVE, "rd.lvm.lv", NULL } };
        _cleanup_free_ char *out2 = edit_ok(f, "GRUB_CMDLINE_LINUX", NULL, rm_all, 1);
        assert_string_equal(out2, "GRUB_TIMEOUT=1\n"
                                  "GRUB_CMDLINE_LINUX=\"rhgb quiet\"\n"
                                  "GRUB_DISABLE_RECOVERY=true\n");
}

static void test_edit_quoting_styles(void **state) {
        ht_cmdline_op add[] = { { HT_CMDLINE_SET, "numa", "off" } };
        _cleanup_free_ char *a = edit_ok("GRUB_CMDLINE_LINUX=quiet\n", "GRUB_CMDLINE_LINUX", NULL, add, 1);
        assert_string_equal(a, "GRUB_CMDLINE_LINUX=\"quiet numa=off\"\n");
        ht_cmdline_op rm[] = { { HT_CMDLINE_REMOVE, "quiet", NULL } };
        _cleanup_free_ char *b = edit_ok("GRUB_CMDLINE_LINUX=quiet\n", "GRUB_CMDLINE_LINUX", NULL, rm, 1);
        assert_string_equal(b, "GRUB_CMDLINE_LINUX=\n");
        _cleanup_free_ char *c = edit_ok("GRUB_CMDLINE_LINUX=\n", "GRUB_CMDLINE_LINUX", NULL, add, 1);
        assert_string_equal(c, "GRUB_CMDLINE_LINUX=numa=off\n");
        _cleanup_free_ char *d = edit_ok("GRUB_CMDLINE_LINUX='a  b'\n", "GRUB_CMDLINE_LINUX", NULL, add, 1);
        assert_string_equal(d, "GRUB_CMDLINE_LINUX='a  b numa=off'\n");
        ht_cmdline_op dash[] = { { HT_CMDLINE_SET, "transparent-hugepage", "never" } };
        _cleanup_free_ char *e = edit_ok("GRUB_CMDLINE_LINUX=\"transparent_hugepage=always\"", "GRUB_CMDLINE_LINUX",
                                         NULL, dash, 1);
        assert_string_equal(e, "GRUB_CMDLINE_LINUX=\"transparent-hugepage=never\"");
}

static void test_edit_appends_assignment(void **state) {
        ht_cmdline_op ops[] = { { HT_CMDLINE_SET, "hugepages", "10" } };
        _cleanup_free_ char *a = edit_ok("GRUB_TIMEOUT=5", "GRUB_CMDLINE_LINUX", NULL, ops, 1);
        assert_string_equal(a, "GRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX=\"hugepages=10\"\n");
        ht_cmdline_op rm_missing[] = { { HT_CMDLINE_REMOVE, "hugepages", NULL } };
        _cleanup_free_ char *same = edit_ok("GRUB_TIMEOUT=5\n", "GRUB_CMDLINE_LINUX", NULL, rm_missing, 1);
        assert_string_equal(same, "GRUB_TIMEOUT=5\n");

        /* A drop-in after files that already set the variable builds on it. */
        _cleanup_(ht_grub_env_freep) ht_grub_env *env = ht_grub_env_new();
        char *err = NULL, *out = NULL;
        size_t len;
        assert_int_equal(ht_grub_eval_file(env, 0, rhel_grub, strlen(rhel_grub), &err), 0);
        assert_int_equal(ht_grub_edit("# hosttune\n", 11, "GRUB_CMDLINE_LINUX", env, ops, 1, &out, &len, &err), 0);
        assert_string_equal(out, "# hosttune\nGRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX hugepages=10\"\n");
        const char *files[] = { rhel_grub, out };
        check_oracle("GRUB_CMDLINE_LINUX", files, 2);
        free(out);
        ht_cmdline_op rm[] = { { HT_CMDLINE_REMOVE, "rhgb", NULL } };
        assert_int_equal(ht_grub_edit("", 0, "GRUB_CMDLINE_LINUX", env, rm, 1, &out, &len, &err), -EINVAL);
        free(err);
}

static void test_edit_refuses(void **state) {
        ht_cmdline_op ok[] = { { HT_CMDLINE_SET, "numa", "off" } };
        edit_fails("GRUB_CMDLINE_LINUX=\"$(cat /etc/cmdline)\"\n", "GRUB_CMDLINE_LINUX", ok, 1,
                   "1: cannot edit GRUB_CMDLINE_LINUX safely");
        edit_fails("A=1\nGRUB_CMDLINE_LINUX=\"quiet `uname -r`\"\n", "GRUB_CMDLINE_LINUX", ok, 1, "2: cannot edit");
        edit_fails("GRUB_CMDLINE_LINUX=\"quiet \"'splash'\n", "GRUB_CMDLINE_LINUX", ok, 1, "mixes quoted");
        edit_fails("GRUB_CMDLINE_LINUX=\"a=\\\"b c\\\"\"\n", "GRUB_CMDLINE_LINUX", ok, 1, "backslash");
        edit_fails("GRUB_CMDLINE_LINUX=\"${X:-quiet}\"\n", "GRUB_CMDLINE_LINUX", ok, 1, "'$'");
        edit_fails("GRUB_CMDLINE_LINUX=\"root=$ROOT\"\n", "GRUB_CMDLINE_LINUX", ok, 1, "'$'");
        edit_fails("if [ -e /x ]; then\n  GRUB_CMDLINE_LINUX=\"quiet\"\nfi\n", "GRUB_CMDLINE_LINUX", ok, 1,
                   "2: GRUB_CMDLINE_LINUX is assigned inside a shell conditional");
        edit_fails("[ -e /x ] && GRUB_CMDLINE_LINUX=\"quiet\"\n", "GRUB_CMDLINE_LINUX", ok, 1, "conditional");
        edit_fails("GRUB_CMDLINE_LINUX=\"quiet\n", "GRUB_CMDLINE_LINUX", ok, 1, "1: unterminated double quote");

        /* "+=": RHEL's grub2-mkconfig runs "#! /bin/sh", bash there, which
         * appends; Debian's /bin/sh is dash, which runs it as a command.
         * Either way an edit of the line before it is not what boots (bash
         * would put the appended transparent_hugepage=always after the
         * edit): the value is unknown and the edit refused. The file is
         * RHEL 8's as anaconda writes it (rhel_grub) with a line appended. */
        _cleanup_free_ char *appended = xasprintf("%sGRUB_CMDLINE_LINUX+=\" transparent_hugepage=always\"\n", rhel_grub);
        ht_cmdline_op thp[] = { { HT_CMDLINE_SET, "transparent_hugepage", "never" } };
        edit_fails(appended, "GRUB_CMDLINE_LINUX", thp, 1, "9: GRUB_CMDLINE_LINUX is appended to with +=");
        _cleanup_(ht_grub_env_freep) ht_grub_env *env = ht_grub_env_new();
        char *err = NULL;
        assert_int_equal(ht_grub_eval_file(env, 0, appended, strlen(appended), &err), 0);
        const ht_grub_var *v = ht_grub_env_get(env, "GRUB_CMDLINE_LINUX");
        assert_non_null(v);
        assert_null(v->value);
        assert_non_null(strstr(v->why, "9: appended to with +="));
        /* "A+" is no name: "A+=1" stays a command, and "A =1" too */
        _cleanup_(ht_grub_env_freep) ht_grub_env *env2 = ht_grub_env_new();
        assert_int_equal(ht_grub_eval_file(env2, 0, "GRUB_TIMEOUT=5\nX+ =1\n", 21, &err), 0);
        assert_null(ht_grub_env_get(env2, "X"));

        ht_cmdline_op bad[][1] = {
                { { HT_CMDLINE_SET, "numa", "off\"; reboot; \"" } },
                { { HT_CMDLINE_SET, "numa", "$(reboot)" } },
                { { HT_CMDLINE_SET, "numa", "a b" } },
                { { HT_CMDLINE_SET, "numa", "a\nb" } },
                { { HT_CMDLINE_SET, "nu ma", "1" } },
                { { HT_CMDLINE_SET, "", "1" } },
                { { HT_CMDLINE_ADD, "x'", NULL } },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                edit_fails("GRUB_CMDLINE_LINUX=\"\"\n", "GRUB_CMDLINE_LINUX", bad[i], 1, "kernel parameter");
        edit_fails("X=1\n", "GRUB-CMDLINE", ok, 1, "invalid variable name");
}

/* issue 32: a here-document's lines are no assignments, and an unset
 * after the last assignment leaves grub-mkconfig without what an edit of
 * it would write: both are errors naming the line. */
static void test_heredoc_and_unset(void **state) {
        ht_cmdline_op ok[] = { { HT_CMDLINE_SET, "numa", "off" } };
        _cleanup_(ht_grub_file_freep) ht_grub_file *g = NULL;
        char *err = NULL;
        static const char heredoc[] = "GRUB_TIMEOUT=5\ncat >/dev/null <<EOF\nGRUB_CMDLINE_LINUX=\"quiet\"\nEOF\n";
        assert_int_equal(ht_grub_parse(heredoc, strlen(heredoc), &g, &err), -EINVAL);
        assert_non_null(strstr(err, "2: a here-document (<<)"));
        free(err);
        edit_fails(heredoc, "GRUB_CMDLINE_LINUX", ok, 1, "2: a here-document");
        edit_fails("X=1\ncat <<-'END' >/tmp/x\n\tGRUB_CMDLINE_LINUX=\"\"\n\tEND\n", "GRUB_CMDLINE_LINUX", ok, 1,
                   "2: a here-document");
        /* << inside quotes or a substitution is no here-document */
        static const char quoted[] = "GRUB_A=\"a<<b\"\nGRUB_B='<<'\nGRUB_CMDLINE_LINUX=\"quiet\"\n";
        char *out = edit_ok(quoted, "GRUB_CMDLINE_LINUX", NULL, ok, 1);
        assert_string_equal(out, "GRUB_A=\"a<<b\"\nGRUB_B='<<'\nGRUB_CMDLINE_LINUX=\"quiet numa=off\"\n");
        free(out);

        edit_fails("GRUB_CMDLINE_LINUX=\"quiet\"\nunset GRUB_CMDLINE_LINUX\n", "GRUB_CMDLINE_LINUX", ok, 1,
                   "2: GRUB_CMDLINE_LINUX is unset here");
        edit_fails("GRUB_CMDLINE_LINUX=\"quiet\"\nunset -v GRUB_TIMEOUT GRUB_CMDLINE_LINUX\n", "GRUB_CMDLINE_LINUX",
                   ok, 1, "2: GRUB_CMDLINE_LINUX is unset here");
        edit_fails("GRUB_CMDLINE_LINUX=\"quiet\"\nunset GRUB_CMDLINE_LINUX 2>/dev/null\n", "GRUB_CMDLINE_LINUX", ok, 1,
                   "2: GRUB_CMDLINE_LINUX is unset here");
        edit_fails("GRUB_CMDLINE_LINUX=\"quiet\"\nunset \"$V\"\n", "GRUB_CMDLINE_LINUX", ok, 1,
                   "2: unset of a name hosttune cannot read");
        /* the value seen by later files: unknown, with the line */
        static const char unset_last[] = "GRUB_CMDLINE_LINUX=\"quiet\"\n\nunset GRUB_CMDLINE_LINUX\n";
        _cleanup_(ht_grub_env_freep) ht_grub_env *env = ht_grub_env_new();
        assert_int_equal(ht_grub_eval_file(env, 0, unset_last, strlen(unset_last), &err), 0);
        const ht_grub_var *v = ht_grub_env_get(env, "GRUB_CMDLINE_LINUX");
        assert_non_null(v);
        assert_null(v->value);
        assert_string_equal(v->why, "3: unset here, which hosttune does not follow");
        /* an unset before the assignment, of another name, or of functions: no harm */
        out = edit_ok("unset GRUB_CMDLINE_LINUX\nGRUB_CMDLINE_LINUX=\"quiet\"\nunset GRUB_TIMEOUT\n"
                      "unset -f GRUB_CMDLINE_LINUX\n", "GRUB_CMDLINE_LINUX", NULL, ok, 1);
        assert_string_equal(out, "unset GRUB_CMDLINE_LINUX\nGRUB_CMDLINE_LINUX=\"quiet numa=off\"\nunset GRUB_TIMEOUT\n"
                                 "unset -f GRUB_CMDLINE_LINUX\n");
        free(out);
}

/* readonly NAME=value is no plain assignment: dash sets the value and
 * aborts the sourcing shell at any later assignment ("is read only"), so
 * appending one broke grub-mkconfig; declare, typeset and local (bash)
 * set values too. The name's value is unknown and its edit refused,
 * naming the line; other names are edited as before. */
static void test_readonly_and_declare(void **state) {
        (void)state;
        const ht_cmdline_op ok[] = {{HT_CMDLINE_SET, "numa", "off"}};
        edit_fails("readonly GRUB_CMDLINE_LINUX=\"quiet\"\n", "GRUB_CMDLINE_LINUX", ok, 1,
                   "1: GRUB_CMDLINE_LINUX is set by readonly, declare, typeset or local here");
        edit_fails("GRUB_CMDLINE_LINUX=\"quiet\"\nreadonly GRUB_TIMEOUT GRUB_CMDLINE_LINUX\n", "GRUB_CMDLINE_LINUX", ok, 1,
                   "2: GRUB_CMDLINE_LINUX is set by readonly");
        edit_fails("declare -x GRUB_CMDLINE_LINUX=\"quiet\"\n", "GRUB_CMDLINE_LINUX", ok, 1,
                   "1: GRUB_CMDLINE_LINUX is set by readonly");
        char *err = NULL;
        static const char ro[] = "GRUB_CMDLINE_LINUX=\"quiet\"\ntypeset GRUB_CMDLINE_LINUX=\"$GRUB_CMDLINE_LINUX x\"\n";
        _cleanup_(ht_grub_env_freep) ht_grub_env *env = ht_grub_env_new();
        assert_int_equal(ht_grub_eval_file(env, 0, ro, strlen(ro), &err), 0);
        const ht_grub_var *v = ht_grub_env_get(env, "GRUB_CMDLINE_LINUX");
        assert_non_null(v);
        assert_null(v->value);
        assert_string_equal(v->why, "2: set or made read-only by readonly, declare, typeset or local here, which "
                                    "hosttune does not follow");
        char *out = edit_ok("readonly GRUB_TIMEOUT=5 2>/dev/null\nGRUB_CMDLINE_LINUX=\"quiet\"\n", "GRUB_CMDLINE_LINUX",
                            NULL, ok, 1);
        assert_string_equal(out, "readonly GRUB_TIMEOUT=5 2>/dev/null\nGRUB_CMDLINE_LINUX=\"quiet numa=off\"\n");
        free(out);
}

/* `. FILE`, `source FILE` and `eval` may set any variable: after one,
 * every value is unknown (a name assigned again is known again), and an
 * edit before one is refused naming its line. The Arch wiki's loop over
 * /etc/default/grub.d/ *.cfg in /etc/default/grub is not one: the boot
 * facts read those files after it. */
static void test_sourced_file(void **state) {
        (void)state;
        const ht_cmdline_op ok[] = {{HT_CMDLINE_SET, "numa", "off"}};
        edit_fails("GRUB_CMDLINE_LINUX=\"quiet\"\n. /etc/default/grub.local\n", "GRUB_CMDLINE_LINUX", ok, 1,
                   "2: a file sourced or an eval here (., source, eval), which hosttune does not follow, may set "
                   "GRUB_CMDLINE_LINUX");
        edit_fails("GRUB_CMDLINE_LINUX=\"quiet\"\n[ -f /etc/grub.local ] && source /etc/grub.local\n",
                   "GRUB_CMDLINE_LINUX", ok, 1, "2: a file sourced or an eval here");
        edit_fails("eval \"$(cat /etc/grub.site)\"\n", "GRUB_CMDLINE_LINUX", ok, 1, "1: a file sourced or an eval here");
        /* (/dev/null: the oracle's shell sources it) */
        char *out = edit_ok(". /dev/null\nGRUB_CMDLINE_LINUX=\"quiet\"\n", "GRUB_CMDLINE_LINUX", NULL, ok, 1);
        assert_string_equal(out, ". /dev/null\nGRUB_CMDLINE_LINUX=\"quiet numa=off\"\n");
        free(out);
        static const char arch[] = "GRUB_CMDLINE_LINUX=\"quiet\"\nfor custom_grub_d in /etc/default/grub.d/*.cfg ; do\n"
                                   "  if [ -e \"${custom_grub_d}\" ]; then\n    source \"${custom_grub_d}\"\n  fi\ndone\n";
        out = edit_ok(arch, "GRUB_CMDLINE_LINUX", NULL, ok, 1);
        free(out);
        char *err = NULL;
        static const char src[] = "GRUB_CMDLINE_LINUX=\"quiet\"\nGRUB_TIMEOUT=5\n. ./site\nGRUB_TIMEOUT=6\n";
        _cleanup_(ht_grub_env_freep) ht_grub_env *env = ht_grub_env_new();
        assert_int_equal(ht_grub_eval_file(env, 0, src, strlen(src), &err), 0);
        const ht_grub_var *v = ht_grub_env_get(env, "GRUB_CMDLINE_LINUX");
        assert_non_null(v);
        assert_null(v->value);
        assert_string_equal(v->why, "3: a file sourced or an eval here (., source, eval), which hosttune does not "
                                    "follow, may set it");
        assert_string_equal(ht_grub_env_get(env, "GRUB_TIMEOUT")->value, "6");
        v = ht_grub_env_get(env, "GRUB_CMDLINE_LINUX_DEFAULT");
        assert_non_null(v);
        assert_null(v->value);
        _cleanup_(ht_grub_env_freep) ht_grub_env *copy = ht_grub_env_copy(env);
        assert_null(ht_grub_env_get(copy, "GRUB_CMDLINE_LINUX_DEFAULT")->value);
}

/* Many distinct names: every lookup is a hash probe (this took quadratic
 * time, 41 s for 200,000 lines); the values stay right. */
static void test_many_names(void **state) {
        strbuf b = {};
        for (unsigned i = 0; i < 50000; i++)
                strbuf_appendf(&b, "GRUB_X%u=\"v%u\"\n", i, i);
        strbuf_append(&b, "GRUB_CMDLINE_LINUX=\"$GRUB_X49999 $GRUB_X0\"\n");
        _cleanup_(ht_grub_env_freep) ht_grub_env *env = ht_grub_env_new();
        char *err = NULL;
        assert_int_equal(ht_grub_eval_file(env, 0, b.data, b.len, &err), 0);
        assert_int_equal(env->n_vars, 50001);
        assert_string_equal(ht_grub_env_get(env, "GRUB_X12345")->value, "v12345");
        assert_string_equal(ht_grub_env_get(env, "GRUB_CMDLINE_LINUX")->value, "v49999 v0");
        assert_null(ht_grub_env_get(env, "GRUB_X50000"));
        _cleanup_(ht_grub_env_freep) ht_grub_env *copy = ht_grub_env_copy(env);
        assert_string_equal(ht_grub_env_get(copy, "GRUB_X777")->value, "v777");
        strbuf_done(&b);
}

static void test_complex_statements(void **state) {
        const char *f = "GRUB_A=\"1\"\n"
                        ": hi; GRUB_B=2\n"
                        "GRUB_C=3 true\n"                   /* env prefix, not a variable */
                        "case x in\n  y) GRUB_D=4 ;;\nesac\n"
                        "GRUB_E=\"$(echo \"nested ) quote\")\"\n"
                        "export GRUB_F GRUB_G=7\n"
                        "GRUB_H=\"a\"#not-a-comment\n";
        _cleanup_(ht_grub_file_freep) ht_grub_file *g = NULL;
        char *err = NULL;
        assert_int_equal(ht_grub_parse(f, strlen(f), &g, &err), 0);
        assert_int_equal(g->complex_line, 2);
        _cleanup_(ht_grub_env_freep) ht_grub_env *env = ht_grub_env_new();
        assert_int_equal(ht_grub_eval_file(env, 0, f, strlen(f), &err), 0);
        assert_string_equal(ht_grub_env_get(env, "GRUB_A")->value, "1");
        assert_string_equal(ht_grub_env_get(env, "GRUB_B")->value, "2");
        assert_null(ht_grub_env_get(env, "GRUB_C"));
        assert_null(ht_grub_env_get(env, "GRUB_D")->value);
        assert_null(ht_grub_env_get(env, "GRUB_E")->value);
        assert_string_equal(ht_grub_env_get(env, "GRUB_G")->value, "7");
        assert_string_equal(ht_grub_env_get(env, "GRUB_H")->value, "a#not-a-comment");
        const char *one[] = { f };
        check_oracle("GRUB_A", one, 1);
        check_oracle("GRUB_B", one, 1);
        check_oracle("GRUB_H", one, 1);
}

static void test_junk(void **state) {
        unsigned seed = 99;
        static const char alphabet[] = "GRUB_=\"'$`\\\n #;(){}ab \t|&";
        for (int round = 0; round < 3000; round++) {
                char buf[200];
                size_t n = rand_r(&seed) % sizeof buf;
                for (size_t i = 0; i < n; i++)
                        buf[i] = round % 3 == 0 ? (char)rand_r(&seed) : alphabet[rand_r(&seed) % (sizeof alphabet - 1)];
                _cleanup_(ht_grub_env_freep) ht_grub_env *env = ht_grub_env_new();
                _cleanup_free_ char *err = NULL, *out = NULL;
                size_t len;
                int r = ht_grub_eval_file(env, 0, buf, n, &err);
                assert_true(r == 0 || (r == -EINVAL && err));
                free(err);
                err = NULL;
                ht_cmdline_op ops[] = { { HT_CMDLINE_SET, "a", "b" }, { HT_CMDLINE_REMOVE, "b", NULL } };
                r = ht_grub_edit(buf, n, "GRUB_", NULL, ops, 2, &out, &len, &err);
                assert_true(r == 0 || (r == -EINVAL && err));
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_eval_debian),
                cmocka_unit_test(test_eval_dropins),
                cmocka_unit_test(test_eval_mixed),
                cmocka_unit_test(test_edit_debian_empty),
                cmocka_unit_test(test_edit_rhel),
                cmocka_unit_test(test_edit_references_and_duplicates),
                cmocka_unit_test(test_edit_continued_lines),
                cmocka_unit_test(test_edit_quoting_styles),
                cmocka_unit_test(test_edit_appends_assignment),
                cmocka_unit_test(test_edit_refuses),
                cmocka_unit_test(test_heredoc_and_unset),
                cmocka_unit_test(test_readonly_and_declare),
                cmocka_unit_test(test_sourced_file),
                cmocka_unit_test(test_many_names),
                cmocka_unit_test(test_complex_statements),
                cmocka_unit_test(test_junk),
        };
        return cmocka_run_group_tests(tests, setup, teardown);
}
