#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "edit-sysctl.h"
#include "edit-test-helpers.h"

static const char oracle_conf[] =
        "# oracle-database-preinstall-19c setting for fs.file-max is 6815744\n"
        "fs.file-max = 6815744\n"
        "\n"
        "; semaphores\n"
        "kernel.sem = 250 32000\t100  128\n"
        "  kernel.shmmni=4096   \n"
        "-net.ipv4.conf.all.rp_filter = 2\n"
        "net/ipv4/conf/eth0.100/forwarding = 1\n"
        "net.ipv4.conf.eth0/200.forwarding=0\n"
        "net.ipv4.conf.*.accept_redirects = 0\n"
        "-net.ipv4.conf.lo.accept_redirects\n"
        "vm.nr_hugepages =\n";

static void test_parse(void **state) {
        _cleanup_(ht_sysctl_file_freep) ht_sysctl_file *f = NULL;
        char *err = NULL;
        assert_int_equal(ht_sysctl_parse(oracle_conf, strlen(oracle_conf), 0, &f, &err), 0);
        assert_int_equal(f->n_entries, 9);
        assert_string_equal(f->entries[0].key, "fs/file-max");
        assert_string_equal(f->entries[0].value, "6815744");
        assert_int_equal(f->entries[0].line, 2);
        assert_string_equal(f->entries[1].value, "250 32000\t100  128");
        assert_string_equal(f->entries[2].key, "kernel/shmmni");
        assert_string_equal(f->entries[2].value, "4096");
        assert_true(f->entries[3].ignore_failure);
        assert_string_equal(f->entries[3].key, "net/ipv4/conf/all/rp_filter");
        assert_string_equal(f->entries[4].key, "net/ipv4/conf/eth0.100/forwarding");
        assert_string_equal(f->entries[5].key, "net/ipv4/conf/eth0.200/forwarding");
        assert_true(f->entries[6].glob);
        assert_null(f->entries[7].value);
        assert_string_equal(f->entries[7].key, "net/ipv4/conf/lo/accept_redirects");
        assert_string_equal(f->entries[8].value, "");
        assert_int_equal(f->entries[8].line, 12);
}

/* Ends of line as systemd 252's read_line() counts them, checked against
 * systemd-sysctl itself by tests/integration/sysctl-real-world.sh: CR
 * alone (old Mac files), CRLF, LFCR, NUL, and CR CR as two lines. */
static void test_parse_eol(void **state) {
        _cleanup_(ht_sysctl_file_freep) ht_sysctl_file *f = NULL;
        char *err = NULL;
        const char text[] = "a = 1\rb = 2\r\nc = 3\n\rd = 4\0e = 5\r\rf = 6\r\n\0g = 7";
        assert_int_equal(ht_sysctl_parse(text, sizeof text - 1, 0, &f, &err), 0);
        assert_int_equal(f->n_entries, 7);
        static const char *const keys[] = {"a", "b", "c", "d", "e", "f", "g"};
        static const unsigned lines[] = {1, 2, 3, 4, 5, 7, 8};
        for (size_t i = 0; i < 7; i++) {
                assert_string_equal(f->entries[i].key, keys[i]);
                assert_int_equal(f->entries[i].line, lines[i]);
        }
        assert_string_equal(f->entries[0].value, "1");
        assert_string_equal(f->entries[6].value, "7");
}

static void test_parse_errors(void **state) {
        ht_sysctl_file *f = NULL;
        char *err = NULL;
        const char bad[] = "a.b = 1\njust words\n";
        assert_int_equal(ht_sysctl_parse(bad, strlen(bad), 0, &f, &err), -EINVAL);
        assert_string_equal(err, "2: line is not an assignment");
        assert_null(f);
        free(err);
        err = NULL;
        assert_int_equal(ht_sysctl_parse(bad, strlen(bad), HT_SYSCTL_LENIENT, &f, &err), 0);
        assert_int_equal(f->n_entries, 1);
        assert_string_equal(f->warnings[0], "2: line is not an assignment");
        ht_sysctl_file_free(f);
        /* a NUL ends a line, as in systemd's read_line(): "b" is a line
         * of its own, " = 2" the next (was one line, refused for its NUL) */
        const char nul[] = "a = 1\nb\0 = 2\n";
        assert_int_equal(ht_sysctl_parse(nul, sizeof nul - 1, 0, &f, &err), -EINVAL);
        assert_string_equal(err, "2: line is not an assignment");
        free(err);
        assert_int_equal(ht_sysctl_parse(nul, sizeof nul - 1, HT_SYSCTL_LENIENT, &f, &err), 0);
        assert_int_equal(f->n_entries, 1);
        assert_string_equal(f->warnings[0], "2: line is not an assignment");
        assert_string_equal(f->warnings[1], "3: empty sysctl key");
        ht_sysctl_file_free(f);
        assert_int_equal(ht_sysctl_parse(" = 3", 4, 0, &f, &err), -EINVAL);
        assert_string_equal(err, "1: empty sysctl key");
        free(err);
}

/* ht_sysctl_normalize() as it was written first (swap, then fold in
 * place), kept as the reference the one-pass version must equal. */
static char *normalize_reference(const char *key) {
        char *s = xstrdup(key);
        char *n = strpbrk(s, "/.");
        if (n && *n == '.')
                for (; n; n = strpbrk(n + 1, "/."))
                        *n = *n == '.' ? '/' : '.';
        char *out = s;
        for (const char *p = s; *p;) {
                p += strspn(p, "/");
                size_t len = strcspn(p, "/");
                if (len == 0 || (len == 1 && *p == '.')) {
                        p += len;
                        continue;
                }
                if (out != s)
                        *out++ = '/';
                memmove(out, p, len);
                out += len;
                p += len;
        }
        *out = 0;
        return s;
}

/* Every key of up to seven bytes over 'a', 'b', '.' and '/'. */
static void test_normalize_all_short(void **state) {
        static const char alphabet[] = "ab./";
        char key[8];
        for (size_t len = 0; len < sizeof key; len++) {
                size_t total = 1;
                for (size_t i = 0; i < len; i++)
                        total *= 4;
                for (size_t code = 0; code < total; code++) {
                        size_t c = code;
                        for (size_t i = 0; i < len; i++, c /= 4)
                                key[i] = alphabet[c % 4];
                        key[len] = 0;
                        _cleanup_free_ char *want = normalize_reference(key);
                        _cleanup_free_ char *got = ht_sysctl_normalize(key);
                        if (!streq(want, got))
                                fail_msg("'%s': '%s', not '%s'", key, got, want);
                        /* in place, as ht_sysctl_parse normalises its
                         * keys in the file's copy: the same form */
                        char inplace[sizeof key];
                        memcpy(inplace, key, len + 1);
                        size_t n = ht_sysctl_normalize_into(inplace, inplace);
                        if (!streq(inplace, want) || n != strlen(want))
                                fail_msg("'%s' in place: '%s', not '%s'", key, inplace, want);
                        /* the plan looks each key up by the tail of its
                         * /proc/sys path: it must be that key's form */
                        char *path = NULL, *err = NULL;
                        if (ht_sysctl_proc_path(key, &path, &err) == 0) {
                                if (!startswith(path, "/proc/sys/") || !streq(path + 10, want))
                                        fail_msg("'%s': path '%s' for '%s'", key, path, want);
                        }
                        free(path);
                        free(err);
                        /* and the parse keeps that form as the entry's key */
                        char line[32];
                        snprintf(line, sizeof line, "%s = 1\n", key);
                        _cleanup_(ht_sysctl_file_freep) ht_sysctl_file *f = NULL;
                        assert_int_equal(ht_sysctl_parse(line, strlen(line), HT_SYSCTL_LENIENT, &f, &err), 0);
                        if (f->n_entries == 1 && !streq(f->entries[0].key, want))
                                fail_msg("'%s' parsed: '%s', not '%s'", key, f->entries[0].key, want);
                        if (*want && (f->n_entries != 1 || !streq(f->entries[0].value, "1")))
                                fail_msg("'%s' parsed: %zu entries", key, f->n_entries);
                }
        }
}

static void test_keys(void **state) {
        static const struct {
                const char *key, *normalized, *dotted;
        } keys[] = {
                { "net.ipv4.conf.enp3s0/200.forwarding", "net/ipv4/conf/enp3s0.200/forwarding",
                  "net.ipv4.conf.enp3s0/200.forwarding" },
                { "/net//ipv4/./ip_forward", "net/ipv4/ip_forward", "net.ipv4.ip_forward" },
                { "/vm/./", "vm", "vm" },
                { "//", "", "" },
                { "kernel/.hidden", "kernel/.hidden", "kernel./hidden" },
                { "vm.nr_hugepages", "vm/nr_hugepages", "vm.nr_hugepages" },
        };
        for (size_t i = 0; i < ELEMENTSOF(keys); i++) {
                _cleanup_free_ char *n = ht_sysctl_normalize(keys[i].key);
                _cleanup_free_ char *d = ht_sysctl_dotted(keys[i].key);
                assert_string_equal(n, keys[i].normalized);
                assert_string_equal(d, keys[i].dotted);
        }
        _cleanup_free_ char *back = ht_sysctl_dotted("net/ipv4/conf/enp3s0.200/forwarding");
        assert_string_equal(back, "net.ipv4.conf.enp3s0/200.forwarding");

        char *err = NULL, *path = NULL;
        assert_int_equal(ht_sysctl_proc_path("kernel.sem", &path, &err), 0);
        assert_string_equal(path, "/proc/sys/kernel/sem");
        free(path);
        const char *bad[] = { "vm/../../etc/passwd", "vm....x", "..", "vm.", "/vm", "kernel.*", "a b", "a=b",
                              "x\ny", "", "vm..nr", "./x" };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                assert_int_equal(ht_sysctl_key_check(bad[i], &err), -EINVAL);
                free(err);
        }
        assert_int_equal(ht_sysctl_key_check("net/ipv4/conf/eth0.100/forwarding", &err), 0);
}

static void test_order(void **state) {
        char *etc[] = { "99-sysctl.conf", "50-default.conf", "README", "10-local.conf", ".hidden.conf", NULL };
        char *run[] = { "60-run.conf", NULL };
        char *usr[] = { "50-default.conf", "50-coredump.conf", "99-zz.conf.rpmsave", NULL };
        char **names[] = { etc, run, NULL, usr, NULL };
        _cleanup_strv_free_ char **o = ht_sysctl_order(names, false);
        _cleanup_free_ char *j = strv_join(o, " ");
        assert_string_equal(j, "/etc/sysctl.d/10-local.conf /usr/lib/sysctl.d/50-coredump.conf "
                               "/etc/sysctl.d/50-default.conf /run/sysctl.d/60-run.conf /etc/sysctl.d/99-sysctl.conf");
        /* procps reads a hidden ".hidden.conf" (its first, by name);
         * systemd does not (above) */
        _cleanup_strv_free_ char **p = ht_sysctl_order(names, true);
        assert_int_equal(strv_length(p), 7);
        assert_string_equal(p[0], "/etc/sysctl.d/.hidden.conf");
        assert_string_equal(p[6], "/etc/sysctl.conf");
        char **none[] = { NULL, NULL, NULL, NULL, NULL };
        _cleanup_strv_free_ char **e = ht_sysctl_order(none, false);
        assert_int_equal(strv_length(e), 0);
}

static ht_sysctl_file *parse(const char *s) {
        ht_sysctl_file *f = NULL;
        char *err = NULL;
        assert_int_equal(ht_sysctl_parse(s, strlen(s), 0, &f, &err), 0);
        return f;
}

static void test_effective(void **state) {
        ht_sysctl_file *files[] = {
                parse("vm.swappiness = 60\nnet.ipv4.conf.*.rp_filter = 2\n"),         /* 10-vendor */
                parse("# Managed by hosttune\nvm.swappiness = 10\nvm.nr_hugepages = 9000\n"),  /* 90-hosttune */
                parse("vm/swappiness=1\n-net.ipv4.conf.lo.rp_filter\n"),              /* 99-sysctl */
        };
        ht_sysctl_hit hit;
        assert_int_equal(ht_sysctl_effective((const ht_sysctl_file *const *)files, 3, "vm.swappiness", &hit), 1);
        assert_int_equal(hit.file, 2);
        assert_int_equal(hit.line, 1);
        assert_string_equal(hit.value, "1");
        assert_int_equal(ht_sysctl_effective((const ht_sysctl_file *const *)files, 3, "vm/nr_hugepages", &hit), 1);
        assert_int_equal(hit.file, 1);
        assert_int_equal(hit.line, 3);
        assert_int_equal(ht_sysctl_effective((const ht_sysctl_file *const *)files, 3, "net.ipv4.conf.eth0.rp_filter", &hit), 1);
        assert_true(hit.glob);
        assert_string_equal(hit.value, "2");
        assert_int_equal(ht_sysctl_effective((const ht_sysctl_file *const *)files, 3, "net.ipv4.conf.lo.rp_filter", &hit), 0);
        assert_int_equal(ht_sysctl_effective((const ht_sysctl_file *const *)files, 3, "kernel.sem", &hit), 0);
        for (size_t i = 0; i < 3; i++)
                ht_sysctl_file_free(files[i]);
}

/* The index answers exactly as ht_sysctl_effective does, for keys set
 * once, several times, by globs only, excluded, and unknown. */
static void test_index_matches_scan(void **state) {
        ht_sysctl_file *files[] = {
                parse("vm.swappiness = 60\nnet.ipv4.conf.*.rp_filter = 2\nkernel.sem = 1 2 3 4\n"),
                parse("vm.swappiness = 10\nvm.nr_hugepages = 9000\nnet.ipv4.conf.eth*.rp_filter = 1\n"),
                NULL,
                parse("vm/swappiness=1\n-net.ipv4.conf.lo.rp_filter\nvm.swappiness = 5\n-kernel.sem\n"),
        };
        static const char *const keys[] = {"vm.swappiness", "vm/nr_hugepages", "net.ipv4.conf.eth0.rp_filter",
                                           "net.ipv4.conf.lo.rp_filter", "net.ipv4.conf.all.rp_filter",
                                           "kernel.sem", "kernel.shmmax", "net.ipv4.conf.*.rp_filter", "", NULL};
        const ht_sysctl_file *const *fs = (const ht_sysctl_file *const *)files;
        ht_sysctl_index *x = ht_sysctl_index_new(fs, 4);
        for (size_t i = 0; keys[i]; i++) {
                ht_sysctl_hit a = {0}, b = {0};
                int ra = ht_sysctl_effective(fs, 4, keys[i], &a);
                int rb = ht_sysctl_index_effective(x, keys[i], &b);
                assert_int_equal(ra, rb);
                if (ra == 1) {
                        assert_int_equal(a.file, b.file);
                        assert_int_equal(a.line, b.line);
                        assert_ptr_equal(a.value, b.value);
                        assert_int_equal(a.glob, b.glob);
                }
                /* the look-up by a key normalised once (sysctl_plan keeps
                 * it in the key's /proc/sys path) answers the same */
                ht_sysctl_hit c = {0};
                _cleanup_free_ char *norm = ht_sysctl_normalize(keys[i]);
                assert_int_equal(ht_sysctl_index_lookup(x, norm, &c), rb);
                if (rb == 1)
                        assert_ptr_equal(c.value, b.value);
        }
        /* the entries' keys and values point into each file's one copy */
        assert_string_equal(files[3]->entries[0].key, "vm/swappiness");
        assert_true(files[3]->entries[0].key >= files[3]->text &&
                    files[3]->entries[3].key < files[3]->text + strlen("vm/swappiness=1\n-net.ipv4.conf.lo.rp_filter\n"
                                                                       "vm.swappiness = 5\n-kernel.sem\n"));
        ht_sysctl_hit hit;
        assert_int_equal(ht_sysctl_index_effective(x, "vm.swappiness", &hit), 1);
        assert_int_equal(hit.file, 3);
        assert_int_equal(hit.line, 3);
        assert_string_equal(hit.value, "5");
        assert_int_equal(ht_sysctl_index_effective(x, "net.ipv4.conf.eth1.rp_filter", &hit), 1);
        assert_string_equal(hit.value, "1"); /* the later glob wins */
        ht_sysctl_index_free(x);
        x = ht_sysctl_index_new(fs, 0);
        assert_int_equal(ht_sysctl_index_effective(x, "vm.swappiness", &hit), 0);
        ht_sysctl_index_free(x);
        for (size_t i = 0; i < 4; i++)
                ht_sysctl_file_free(files[i]);
}

/* systemd-sysctl's ordered map (sysctl.c parse_file() and apply_all(),
 * v252): the same value again keeps the first line; a glob re-assigned
 * with its value kept stays at its earlier place, so a different glob
 * set in between writes last (issue 38). */
static void test_systemd_map(void **state) {
        ht_sysctl_file *files[] = {
                parse("vm.swappiness = 10\nnet.ipv4.conf.*.rp_filter = 1\n"),    /* 10-a */
                parse("net.ipv4.conf.e*.rp_filter = 2\n"),                          /* 20-b */
                parse("vm.swappiness = 10\nnet.ipv4.conf.*.rp_filter = 1\n"),    /* 30-c */
        };
        const ht_sysctl_file *const *fs = (const ht_sysctl_file *const *)files;
        ht_sysctl_index *x = ht_sysctl_index_new(fs, 3);
        ht_sysctl_hit a, b;
        assert_int_equal(ht_sysctl_effective(fs, 3, "vm.swappiness", &a), 1);
        assert_int_equal(ht_sysctl_index_effective(x, "vm.swappiness", &b), 1);
        assert_int_equal(a.file, 0);
        assert_int_equal(b.file, 0);
        assert_int_equal(ht_sysctl_effective(fs, 3, "net.ipv4.conf.eth0.rp_filter", &a), 1);
        assert_int_equal(ht_sysctl_index_effective(x, "net.ipv4.conf.eth0.rp_filter", &b), 1);
        assert_string_equal(a.value, "2");
        assert_string_equal(b.value, "2");
        assert_int_equal(a.file, 1);
        assert_int_equal(b.file, 1);
        ht_sysctl_index_free(x);
        for (size_t i = 0; i < 3; i++)
                ht_sysctl_file_free(files[i]);
}

static void test_render(void **state) {
        ht_sysctl_setting s[] = {
                { "vm.nr_hugepages", "9000" },
                { "kernel/sem", "250 32000 100 128" },
                { "net/ipv4/conf/eth0.100/forwarding", "1" },
        };
        char *out = NULL, *err = NULL;
        assert_int_equal(ht_sysctl_render("oracle", s, 3, &out, &err), 0);
        assert_string_equal(out, "# Managed by hosttune (profile oracle). Do not edit; changes are overwritten.\n"
                                 "vm.nr_hugepages = 9000\n"
                                 "kernel.sem = 250 32000 100 128\n"
                                 "net.ipv4.conf.eth0/100.forwarding = 1\n");
        /* What it writes parses back to the same keys and values. */
        _cleanup_(ht_sysctl_file_freep) ht_sysctl_file *f = parse(out);
        assert_int_equal(f->n_entries, 3);
        assert_string_equal(f->entries[2].key, "net/ipv4/conf/eth0.100/forwarding");
        assert_string_equal(f->entries[1].value, "250 32000 100 128");
        free(out);

        ht_sysctl_setting bad[][1] = {
                { { "vm.swappiness", "1\nkernel.panic = 1" } },
                { { "vm.swappiness", "" } },
                { { "vm.swappiness", " 1" } },
                { { "vm.swappiness", "1\t" } },
                { { "vm/../../etc/shadow", "1" } },
                { { "net.ipv4.conf.*.rp_filter", "1" } },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                out = NULL;
                assert_int_equal(ht_sysctl_render("oracle", bad[i], 1, &out, &err), -EINVAL);
                assert_null(out);
                free(err);
        }
        ht_sysctl_setting dup[] = { { "vm.swappiness", "1" }, { "vm/swappiness", "2" } };
        assert_int_equal(ht_sysctl_render("p", dup, 2, &out, &err), -EINVAL);
        assert_string_equal(err, "sysctl key vm/swappiness is set twice");
        free(err);
        /* the first repeat in the profile's order is the one named, and a
         * bad value before it is reported first */
        ht_sysctl_setting dup2[] = { { "b.x", "1" }, { "a.y", "1" }, { "a/y", "2" }, { "b/x", "3" } };
        assert_int_equal(ht_sysctl_render("p", dup2, 4, &out, &err), -EINVAL);
        assert_string_equal(err, "sysctl key a/y is set twice");
        free(err);
        ht_sysctl_setting dup3[] = { { "a.y", "1" }, { "c.z", "" }, { "a.y", "2" } };
        assert_int_equal(ht_sysctl_render("p", dup3, 3, &out, &err), -EINVAL);
        assert_non_null(strstr(err, "sysctl c.z: the value must be non-empty"));
        free(err);
        assert_int_equal(ht_sysctl_render("p\nx", s, 1, &out, &err), -EINVAL);
        free(err);
}

static void test_junk(void **state) {
        unsigned seed = 5;
        for (int round = 0; round < 2000; round++) {
                char buf[256];
                size_t n = rand_r(&seed) % sizeof buf;
                for (size_t i = 0; i < n; i++)
                        buf[i] = round % 2 ? (char)rand_r(&seed) : "a.b/=-#; \n*\t"[rand_r(&seed) % 12];
                ht_sysctl_file *f = NULL;
                char *err = NULL;
                int r = ht_sysctl_parse(buf, n, round % 3 ? 0 : HT_SYSCTL_LENIENT, &f, &err);
                assert_true(r == 0 || (r == -EINVAL && err));
                if (f) {
                        ht_sysctl_hit hit;
                        const ht_sysctl_file *fs[] = { f };
                        (void)ht_sysctl_effective(fs, 1, "a.b", &hit);
                }
                ht_sysctl_file_free(f);
                free(err);
        }
}

/* sysctl.conf in place (RHEL 5): the last assignment's value is replaced,
 * every other byte kept; missing keys appended once; nothing to do gives
 * the same bytes. */
static void test_conf_edit(void **state) {
        (void)state;
        const char *in = "# comment\nkernel.shmmax = 1\n  kernel.shmmax\t=\t68719476736  \n"
                         "-vm.swappiness=60\nnet.ipv4.ip_forward = 0";
        const ht_sysctl_setting set[] = {
                { "kernel.shmmax", "4398046511104" }, { "vm/swappiness", "10" }, { "fs.file-max", "6815744" },
                { "net.ipv4.ip_forward", "0" },
        };
        char *out = NULL, *err = NULL;
        size_t len = 0;
        assert_int_equal(ht_sysctl_conf_edit(in, strlen(in), "oracle", set, 4, &out, &len, &err), 0);
        assert_string_equal(out, "# comment\nkernel.shmmax = 1\n  kernel.shmmax\t=\t4398046511104  \n"
                                 "-vm.swappiness=10\nnet.ipv4.ip_forward = 0\n"
                                 "# Set by hosttune (profile oracle).\nfs.file-max = 6815744\n");
        assert_int_equal(len, strlen(out));
        /* again: nothing left to change */
        char *again = NULL;
        size_t len2 = 0;
        assert_int_equal(ht_sysctl_conf_edit(out, len, "oracle", set, 4, &again, &len2, &err), 0);
        assert_int_equal(len2, len);
        assert_memory_equal(again, out, len);
        free(again);
        free(out);
        /* bad values are refused as in the drop-in */
        const ht_sysctl_setting bad[] = { { "vm.swappiness", "1\nkernel.core_pattern=|/bin/sh" } };
        assert_int_equal(ht_sysctl_conf_edit(in, strlen(in), "oracle", bad, 1, &out, &len, &err), -EINVAL);
        assert_non_null(err);
        free(err);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse),
                cmocka_unit_test(test_parse_eol),
                cmocka_unit_test(test_parse_errors),
                cmocka_unit_test(test_keys),
                cmocka_unit_test(test_normalize_all_short),
                cmocka_unit_test(test_order),
                cmocka_unit_test(test_effective),
                cmocka_unit_test(test_index_matches_scan),
                cmocka_unit_test(test_systemd_map),
                cmocka_unit_test(test_render),
                cmocka_unit_test(test_junk),
                cmocka_unit_test(test_conf_edit),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
