/* Regression tests for what the fuzzers (tests/fuzz/) found: each input
 * is the reduced reproducer of one finding. Leaks show under the
 * sanitizer and valgrind runs of this test; the rest is asserted here. */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "backend.h"
#include "edit-bls.h"
#include "edit-grub.h"
#include "edit-grub-legacy.h"
#include "edit-sysctl.h"
#include "facts-internal.h"
#include "format-mycnf.h"
#include "profile.h"
#include "util.h"

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw) {
        return remove(p);
}

/* Resolve profile text as X.profile in a scratch profile directory. */
static int resolve_text(const char *text, char **ret_error) {
        char t[] = "/tmp/ht-test-fuzz-XXXXXX";
        assert_non_null(mkdtemp(t));
        _cleanup_free_ char *pdir = xasprintf("%s/profiles", t), *rdir = xasprintf("%s/rules", t);
        _cleanup_free_ char *file = xasprintf("%s/X.profile", pdir);
        assert_int_equal(mkdir(pdir, 0755), 0);
        assert_int_equal(mkdir(rdir, 0755), 0);
        FILE *f = fopen(file, "we");
        assert_non_null(f);
        fputs(text, f);
        assert_int_equal(fclose(f), 0);

        ht_context *c = NULL;
        assert_int_equal(ht_context_new(t, &c), 0);
        strv_push(&c->profile_path, pdir);
        strv_push(&c->rules_path, rdir);
        json_object *facts = json_object_new_object();
        ht_resolved *r = NULL;
        *ret_error = NULL;
        int k = ht_profile_resolve_json(c, facts, "X", NULL, &r, ret_error);
        ht_resolved_free(r);
        json_object_put(facts);
        ht_context_free(c);
        nftw(t, rm_one, 16, FTW_DEPTH | FTW_PHYS);
        return k;
}

/* fuzz-profile: libconfig 1.5 exports strbuf_append, and hosttune's own
 * function of that name took over libconfig's scanner calls (same layout
 * by luck). Ours must not be what the dynamic linker finds. */
static void test_strbuf_symbol_not_interposed(void **state) {
        void *sym = dlsym(RTLD_DEFAULT, "strbuf_append");
        if (sym) {
                Dl_info info;
                assert_true(dladdr(sym, &info) != 0);
                assert_non_null(strstr(info.dli_fname, "libconfig"));
        }
        strbuf b = {0};
        strbuf_append(&b, "still ");
        strbuf_append(&b, "works");
        _cleanup_free_ char *s = strbuf_steal(&b);
        assert_string_equal(s, "still works");
}

/* fuzz-profile: an unterminated string made libconfig leak its string
 * buffer (and name the last line); the prescan refuses it first. */
static void test_profile_unterminated_string(void **state) {
        _cleanup_free_ char *err = NULL;
        int r = resolve_text("summary = \"x\";\nparams = {\n  a = \"never\n};\n# more\n", &err);
        assert_int_equal(r, -EINVAL);
        assert_non_null(strstr(err, "X.profile:3: unterminated string"));
}

/* fuzz-grub-legacy: a kernel line, then a hypervisor kernel line and its
 * module in the same entry: the module's kernel replaced the first
 * kernel's strings without freeing them. */
static void test_grub_legacy_kernel_then_xen(void **state) {
        static const char conf[] =
                "title both\n"
                "\tkernel /vmlinuz-2.6.18-398.el5 ro quiet\n"
                "\tkernel /xen.gz-2.6.18-398.el5 dom0_mem=2048M\n"
                "\tmodule /vmlinuz-2.6.18-398.el5xen ro root=/dev/sda1\n";
        ht_facts *f = ht_facts_new();
        ht_facts_parse_grub_legacy(f, conf, strlen(conf), "grub.conf");
        assert_int_equal(f->n_boot_entries, 1);
        assert_true(f->boot_entries[0].xen);
        assert_string_equal(f->boot_entries[0].kernel, "/vmlinuz-2.6.18-398.el5xen");
        assert_string_equal(f->boot_entries[0].version, "2.6.18-398.el5xen");
        assert_string_equal(f->boot_entries[0].options, "ro root=/dev/sda1");
        ht_facts_free(f);
}

/* fuzz-bls: a NUL byte in a grubenv padding line went into the edited
 * block, so the text callers took with strlen() ended early. */
static void test_grubenv_nul_in_padding(void **state) {
        char block[HT_GRUBENV_SIZE];
        const char head[] = HT_GRUBENV_HEADER "kernelopts=root=/dev/sda1 ro\n";
        memset(block, '#', sizeof block);
        memcpy(block, head, strlen(head));
        block[strlen(head) + 10] = 0;
        block[strlen(head) + 20] = '\n';
        memcpy(block + strlen(head) + 21, "saved_entry=x\n", 14);
        const ht_cmdline_op op = {HT_CMDLINE_SET, "transparent_hugepage", "never"};
        char *out = NULL, *err = NULL;
        size_t out_len;
        assert_int_equal(ht_grubenv_edit_kernelopts(block, sizeof block, &op, 1, &out, &out_len, &err), -EINVAL);
        assert_null(out);
        assert_non_null(strstr(err, "malformed GRUB environment line"));
        free(err);
        err = NULL;
        ht_grubenv *e = NULL;
        assert_int_equal(ht_grubenv_parse(block, sizeof block, &e, &err), -EINVAL);
        free(err);
}

/* fuzz-grub: a file ending inside "(" parsed fine, so an assignment was
 * appended inside the open subshell; the editor's self-check then failed
 * with an "internal error". The shell refuses such a file: so do we. */
static void test_grub_unclosed_subshell(void **state) {
        static const char *const files[] = {"(\n", "if true; then\nGRUB_TIMEOUT=5\n", "{ A=1\n"};
        const ht_cmdline_op op = {HT_CMDLINE_SET, "transparent_hugepage", "never"};
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                char *out = NULL, *err = NULL;
                size_t len;
                assert_int_equal(ht_grub_edit(files[i], strlen(files[i]), "GRUB_CMDLINE_LINUX", NULL, &op, 1,
                                              &out, &len, &err), -EINVAL);
                assert_non_null(strstr(err, "unexpected end of file"));
                free(err);
        }
        /* closed blocks are still fine */
        static const char ok[] = "if true; then\n  GRUB_TIMEOUT=5\nfi\n( : )\n";
        char *out = NULL, *err = NULL;
        size_t len;
        assert_int_equal(ht_grub_edit(ok, strlen(ok), "GRUB_CMDLINE_LINUX", NULL, &op, 1, &out, &len, &err), 0);
        assert_non_null(strstr(out, "GRUB_CMDLINE_LINUX=\"transparent_hugepage=never\""));
        free(out);
}

/* fuzz-grub-legacy: kernel arguments ending in an unterminated double
 * quote: the word added went inside the quote (one argument for the
 * kernel, so without effect), and every edit added it again. */
static void test_cmdline_unterminated_quote(void **state) {
        static const char conf[] = "title x\nkernel /vmlinuz-5.4 ro \"dR\n";
        const ht_cmdline_op op = {HT_CMDLINE_SET, "transparent_hugepage", "never"};
        char *out = NULL, *err = NULL;
        size_t len;
        assert_int_equal(ht_grub_legacy_edit(conf, strlen(conf), HT_GRUB_LEGACY_ALL, HT_GRUB_LEGACY_LINUX, &op, 1,
                                             &out, &len, &err), -EINVAL);
        assert_null(out);
        assert_non_null(strstr(err, "unterminated double quote"));
        free(err);
        /* also in a word that starts with '$' (fuzz-grub-legacy again) */
        static const char dollar[] = "title\nkernel 2 $\"\n";
        err = NULL;
        assert_int_equal(ht_grub_legacy_edit(dollar, strlen(dollar), HT_GRUB_LEGACY_ALL, HT_GRUB_LEGACY_LINUX, &op, 1,
                                             &out, &len, &err), -EINVAL);
        assert_non_null(strstr(err, "unterminated double quote"));
        free(err);
        /* a quoted argument that is closed is edited as before */
        static const char quoted[] = "title x\nkernel /vmlinuz-5.4 ro \"acpi=a b\"\n";
        err = NULL;
        assert_int_equal(ht_grub_legacy_edit(quoted, strlen(quoted), HT_GRUB_LEGACY_ALL, HT_GRUB_LEGACY_LINUX, &op,
                                             1, &out, &len, &err), 0);
        assert_string_equal(out, "title x\nkernel /vmlinuz-5.4 ro \"acpi=a b\" transparent_hugepage=never\n");
        free(out);
}

/* fuzz-bls: an "options" line with no value: the words were glued to the
 * key ("optionstransparent_hugepage=never"), so the entry lost its
 * options line altogether. */
static void test_bls_bare_options_line(void **state) {
        static const char *const entries[] = {"options", "title x\noptions\nlinux /vmlinuz\n"};
        static const char *const want[] = {"options transparent_hugepage=never",
                                           "title x\noptions transparent_hugepage=never\nlinux /vmlinuz\n"};
        const ht_cmdline_op op = {HT_CMDLINE_SET, "transparent_hugepage", "never"};
        for (size_t i = 0; i < ELEMENTSOF(entries); i++) {
                char *out = NULL, *err = NULL;
                size_t len;
                assert_int_equal(ht_bls_edit_options(entries[i], strlen(entries[i]), NULL, &op, 1, &out, &len, &err), 0);
                assert_string_equal(out, want[i]);
                ht_bls_entry *e = NULL;
                assert_int_equal(ht_bls_parse(out, len, &e, &err), 0);
                assert_string_equal(ht_bls_get(e, "options"), "transparent_hugepage=never");
                ht_bls_entry_free(e);
                free(out);
        }
}

/* fuzz-grub: a form feed in a value: the kernel's word split and the
 * editor's disagreed and the editor's self-check failed ("internal
 * error"); control characters are now refused up front. */
static void test_grub_control_character_in_value(void **state) {
        static const char grub[] = "GRUB_CMDLINE_XEN=\"dom0_mem\f6\n\"\n";
        const ht_cmdline_op op = {HT_CMDLINE_SET, "dom0_mem", "4096M"};
        char *out = NULL, *err = NULL;
        size_t len;
        assert_int_equal(ht_grub_edit(grub, strlen(grub), "GRUB_CMDLINE_XEN", NULL, &op, 1, &out, &len, &err), -EINVAL);
        assert_null(out);
        assert_non_null(strstr(err, "cannot edit GRUB_CMDLINE_XEN safely: the value holds control characters"));
        free(err);
}

/* fuzz-grub: a file ending in a backslash(-newline): the appended
 * assignment became part of the last line ("mGRUB_CMDLINE_LINUX=..."),
 * which the editor's self-check caught as an "internal error". */
static void test_grub_append_after_continuation(void **state) {
        static const char *const files[] = {"m\\", "m\\\n"};
        const ht_cmdline_op op = {HT_CMDLINE_SET, "transparent_hugepage", "never"};
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                char *out = NULL, *err = NULL;
                size_t len;
                assert_int_equal(ht_grub_edit(files[i], strlen(files[i]), "GRUB_CMDLINE_LINUX", NULL, &op, 1, &out,
                                              &len, &err), 0);
                assert_string_equal(out, "m\\\n\nGRUB_CMDLINE_LINUX=\"transparent_hugepage=never\"\n");
                free(out);
        }
}

/* fuzz-bls: a NUL byte right after a backslash in a grubenv value was
 * taken as the escaped character and kept. */
static void test_grubenv_nul_after_backslash(void **state) {
        static const char block[] = HT_GRUBENV_HEADER "s=\\\0\n";
        const ht_cmdline_op op = {HT_CMDLINE_SET, "transparent_hugepage", "never"};
        char *out = NULL, *err = NULL;
        size_t len;
        assert_int_equal(ht_grubenv_edit_kernelopts(block, sizeof block - 1, &op, 1, &out, &len, &err), -EINVAL);
        assert_null(out);
        assert_non_null(strstr(err, "2: malformed GRUB environment line (NUL byte)"));
        free(err);
}

/* fuzz-sysctl: a key starting with '-' was written as "-key = value",
 * which sysctl.d reads as key with failures ignored. */
static void test_sysctl_key_leading_dash(void **state) {
        char *err = NULL, *out = NULL;
        assert_int_equal(ht_sysctl_key_check("-vm.swappiness", &err), -EINVAL);
        assert_non_null(strstr(err, "starts with '-'"));
        free(err);
        err = NULL;
        const ht_sysctl_setting s = {"-", "1"};
        assert_int_equal(ht_sysctl_render("p", &s, 1, &out, &err), -EINVAL);
        assert_null(out);
        free(err);
        err = NULL;
        /* a dash inside a name is fine */
        assert_int_equal(ht_sysctl_key_check("fs.aio-max-nr", &err), 0);
}

/* fuzz-mycnf: "loose-" alone left an option with an empty name. */
static void test_mycnf_bare_loose_prefix(void **state) {
        (void)state;
        static const char in[] = "[mysqld]\nloose-\nloose-=1\nlarge_pages\n";
        ht_mycnf m = {0};
        ht_mycnf_parse(in, sizeof in - 1, "my.cnf", &m);
        assert_int_equal(m.n, 1);
        assert_string_equal(m.entries[0].name, "large_pages");
        assert_int_equal(strv_length(m.warnings), 2);
        assert_string_equal(m.warnings[0], "my.cnf:2: not an option name: skipped");
        ht_mycnf_done(&m);
}

int main(void) {
        /* the backends a program that loads profiles knows (backend.h) */
        ht_backend_registry_use(ht_backends);
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_strbuf_symbol_not_interposed),
                cmocka_unit_test(test_profile_unterminated_string),
                cmocka_unit_test(test_grub_legacy_kernel_then_xen),
                cmocka_unit_test(test_grubenv_nul_in_padding),
                cmocka_unit_test(test_grub_unclosed_subshell),
                cmocka_unit_test(test_cmdline_unterminated_quote),
                cmocka_unit_test(test_bls_bare_options_line),
                cmocka_unit_test(test_grub_control_character_in_value),
                cmocka_unit_test(test_grub_append_after_continuation),
                cmocka_unit_test(test_grubenv_nul_after_backslash),
                cmocka_unit_test(test_sysctl_key_leading_dash),
                cmocka_unit_test(test_mycnf_bare_loose_prefix),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
