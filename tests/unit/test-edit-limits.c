#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "edit-limits.h"
#include "edit-test-helpers.h"

static const char limits_conf[] =
        "# /etc/security/limits.conf\n"
        "#\n"
        "#<domain>      <type>  <item>         <value>\n"
        "*               soft    core            0\n"
        "*\t\thard\tnofile\t\t65536\n"
        "@dba            -       memlock         unlimited   # for SGA\n"
        "oracle          soft    nproc           16384\n"
        "oracle          HARD    NPROC           16384\n"
        "@student        -       maxlogins       4\n"
        "1000:2000       soft    stack           10240\n"
        "@54321:         hard    stack           32768\n"
        "%admins         -       maxlogins       2\n"
        "\n";

static ht_limits_file *parse(const char *s, unsigned flags) {
        ht_limits_file *f = NULL;
        char *err = NULL;
        int r = ht_limits_parse(s, strlen(s), flags, &f, &err);
        if (r < 0)
                fail_msg("%s", err);
        return f;
}

static void test_parse(void **state) {
        _cleanup_(ht_limits_file_freep) ht_limits_file *f = parse(limits_conf, 0);
        assert_int_equal(f->n_entries, 9);
        assert_int_equal(f->entries[0].kind, HT_LIMITS_DOMAIN_DEFAULT);
        assert_int_equal(f->entries[0].line, 4);
        assert_string_equal(f->entries[1].item, "nofile");
        assert_string_equal(f->entries[1].value, "65536");
        assert_int_equal(f->entries[2].kind, HT_LIMITS_DOMAIN_GROUP);
        assert_string_equal(f->entries[2].type, "-");
        assert_string_equal(f->entries[2].value, "unlimited");
        assert_string_equal(f->entries[4].type, "hard");
        assert_string_equal(f->entries[4].item, "nproc");
        assert_int_equal(f->entries[6].kind, HT_LIMITS_DOMAIN_UID_RANGE);
        assert_true(f->entries[6].has_min && f->entries[6].has_max);
        assert_int_equal(f->entries[6].max, 2000);
        assert_int_equal(f->entries[7].kind, HT_LIMITS_DOMAIN_GID_RANGE);
        assert_false(f->entries[7].has_max);
        assert_int_equal(f->entries[8].kind, HT_LIMITS_DOMAIN_MAXLOGINS_GROUP);
}

static void test_parse_errors(void **state) {
        struct {
                const char *text, *msg;
        } cases[] = {
                { "oracle soft nofile\n", "1: expected <domain> <type> <item> <value>" },
                { "\n\noracle soft nofiles 10\n", "3: unknown item \"nofiles\"" },
                { "oracle medium nofile 10\n", "1: unknown type \"medium\"" },
                { "oracle soft nofile lots\n", "1: invalid value \"lots\" for nofile" },
                { "oracle soft nofile 1 2\n", "1: invalid value \"1 2\" for nofile" }, /* hosttune's own: refused */
                { "abc:def soft nofile 1\n", "1: invalid uid/gid range \"abc:def\"" },
                { "%1:5 - maxlogins 1\n", "1: ranges are not supported for %group" },
                { "oracle soft nofile 1\x01\n", "1: control character" },
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                ht_limits_file *f = NULL;
                char *err = NULL;
                assert_int_equal(ht_limits_parse(cases[i].text, strlen(cases[i].text), 0, &f, &err), -EINVAL);
                assert_null(f);
                assert_string_equal(err, cases[i].msg);
                free(err);
                assert_int_equal(ht_limits_parse(cases[i].text, strlen(cases[i].text), HT_LIMITS_LENIENT, &f, &err), 0);
                /* "1 2": another's line pam_limits reads as 1
                 * (test_parse_number_prefix) */
                bool read_as = strstr(cases[i].text, "1 2") != NULL;
                assert_int_equal(f->n_entries, read_as);
                assert_int_equal(strv_length(f->warnings), !read_as);
                ht_limits_file_free(f);
        }
}

/* What pam_limits makes of a value with something after its number:
 * process_limit() reads it with strtoul()/strtol() and refuses it only
 * when no digit was read (Linux-PAM modules/pam_limits/pam_limits.c,
 * "rlimit_value == 0 && value_orig == endptr", from 0.80 to 1.7.2), so
 * an admin's "memlock 1G" is 1 KB, "8192k" is 8192 and "0x2000" is 0.
 * Another's file is read that way (it may take precedence over
 * hosttune's entry), with a warning; a value without a leading digit is
 * still skipped, as pam_limits skips it. */
static void test_parse_number_prefix(void **state) {
        static const char text[] = "oracle soft memlock 1G\n"
                                   "oracle hard nofile 65536k\n"
                                   "oracle soft nofile 0x2000\n"
                                   "oracle hard nproc 16384 # comment\n"
                                   "oracle soft nproc 16384 extra\n"
                                   "oracle - priority -5x\n"
                                   "oracle soft stack lots\n"
                                   "oracle - nonewprivs 1x\n"
                                   "oracle soft core unlimited extra\n";
        ht_limits_file *f = NULL;
        char *err = NULL;
        assert_int_equal(ht_limits_parse(text, strlen(text), HT_LIMITS_LENIENT, &f, &err), 0);
        assert_int_equal(f->n_entries, 7);
        /* "unlimited extra": its first word, as Linux-PAM 1.5 (Debian 12)
         * reads it (runuser's session: tests/integration/limits-real-cases.sh) */
        static const char *const want[] = {"1", "65536", "0", "16384", "16384", "-5", "unlimited"};
        for (size_t i = 0; i < ELEMENTSOF(want); i++)
                assert_string_equal(f->entries[i].value, want[i]);
        assert_int_equal(strv_length(f->read_as), 6); /* not the comment's line */
        assert_string_equal(f->read_as[0], "1: memlock \"1g\" is read by pam_limits as 1, the number it starts "
                                           "with; write the number alone");
        assert_int_equal(strv_length(f->warnings), 2); /* "lots", nonewprivs "1x" */
        ht_limits_file_free(f);
        /* Debian's chroot item: no limit, and no line skipped there */
        static const char deb[] = "ftp - chroot /ftp\nftp hard nofile 100\n";
        assert_int_equal(ht_limits_parse(deb, strlen(deb), HT_LIMITS_LENIENT, &f, &err), 0);
        assert_int_equal(f->n_entries, 1);
        assert_null(f->warnings);
        ht_limits_file_free(f);
        /* hosttune's own file (strict) still refuses it */
        assert_int_equal(ht_limits_parse(text, strlen(text), 0, &f, &err), -EINVAL);
        assert_string_equal(err, "1: invalid value \"1g\" for memlock");
        free(err);
}

static char *groups_oracle[] = { "oinstall", "dba", NULL };
static const uint32_t gids_oracle[] = { 54321, 54322 };
static const ht_limits_subject oracle = { "oracle", 54321, 54321, groups_oracle, gids_oracle, 2 };

static void test_precedence(void **state) {
        /* limits.conf, a package file, hosttune's file, an admin file. */
        ht_limits_file *files[] = {
                parse(limits_conf, 0),
                parse("@oinstall soft nofile 1024\n@oinstall hard nofile 65536\n", 0),
                parse("# Managed by hosttune\n@dba soft memlock 18874368\n@dba hard memlock 18874368\n"
                      "oracle - nofile 65536\n* soft nproc 2047\n", 0),
                parse("@dba hard memlock 1024\n", 0),
        };
        const ht_limits_file *const *fs = (const ht_limits_file *const *)files;
        ht_limits_result r;

        /* memlock: the group class; the later admin file wins the hard limit. */
        ht_limits_effective(fs, 4, &oracle, "memlock", 0, &r);
        assert_true(r.soft.set);
        assert_int_equal(r.soft.file, 2);
        assert_int_equal(r.soft.line, 2);
        assert_string_equal(r.soft.value, "18874368");
        assert_int_equal(r.hard.file, 3);
        assert_string_equal(r.hard.value, "1024");
        assert_int_equal(r.hard.cls, HT_LIMITS_CLASS_GROUP);

        /* nofile: the user entry beats group and default entries, in any order. */
        ht_limits_effective(fs, 4, &oracle, "nofile", 0, &r);
        assert_int_equal(r.soft.file, 2);
        assert_int_equal(r.soft.line, 4);
        assert_int_equal(r.soft.cls, HT_LIMITS_CLASS_USER);
        assert_int_equal(r.hard.line, 4);

        /* nproc: limits.conf's user lines beat hosttune's later "*" line. */
        ht_limits_effective(fs, 4, &oracle, "nproc", 0, &r);
        assert_int_equal(r.soft.file, 0);
        assert_int_equal(r.soft.line, 7);
        assert_int_equal(r.hard.line, 8);

        /* stack: gid range on the primary group. */
        ht_limits_effective(fs, 4, &oracle, "stack", 0, &r);
        assert_false(r.soft.set);
        assert_int_equal(r.hard.line, 11);

        /* maxlogins: %group counts, but @group is stronger. */
        char *g[] = { "admins", NULL };
        ht_limits_subject admin = { "alice", 1500, 1500, g, NULL, 0 };
        ht_limits_effective(fs, 4, &admin, "maxlogins", 0, &r);
        assert_int_equal(r.soft.line, 12);
        assert_int_equal(r.soft.cls, HT_LIMITS_CLASS_ALLGROUP);
        ht_limits_effective(fs, 4, &admin, "stack", 0, &r);
        assert_int_equal(r.soft.line, 10);      /* uid range */
        assert_int_equal(r.soft.cls, HT_LIMITS_CLASS_USER);

        /* Debian: * and groups do not reach root unless asked. */
        char *rg[] = { "root", "dba", NULL };
        ht_limits_subject root = { "root", 0, 0, rg, NULL, 0 };
        ht_limits_effective(fs, 4, &root, "memlock", 0, &r);
        assert_true(r.soft.set);
        ht_limits_effective(fs, 4, &root, "memlock", HT_LIMITS_ROOT_EXPLICIT, &r);
        assert_false(r.soft.set);
        assert_false(r.hard.set);
        for (size_t i = 0; i < 4; i++)
                ht_limits_file_free(files[i]);
}

static void test_dash_quirk_and_no_limits(void **state) {
        /* A user soft limit blocks a later group "-" entry from the hard limit too. */
        ht_limits_file *a = parse("oracle soft nofile 4096\n@dba - nofile 65536\n", 0);
        const ht_limits_file *fs[] = { a };
        ht_limits_result r;
        ht_limits_effective(fs, 1, &oracle, "nofile", 0, &r);
        assert_int_equal(r.soft.line, 1);
        assert_false(r.hard.set);
        ht_limits_file_free(a);

        ht_limits_file *b = parse("* hard nofile 10\n@dba -\n* soft nofile 5\n", 0);
        const ht_limits_file *fb[] = { b };
        ht_limits_effective(fb, 1, &oracle, "nofile", 0, &r);
        assert_true(r.no_limits);
        assert_int_equal(r.no_limits_line, 2);
        ht_limits_file_free(b);
        /* "* -" is not a no-limits line for anyone. */
        ht_limits_file *c = parse("* -\n* soft nofile 5\n", 0);
        const ht_limits_file *fc[] = { c };
        ht_limits_effective(fc, 1, &oracle, "nofile", 0, &r);
        assert_false(r.no_limits);
        assert_true(r.soft.set);
        ht_limits_file_free(c);
}

static void test_order(void **state) {
        /* ".hidden.conf": the glob pam_limits reads limits.d with skips
         * dotfiles, and so must the order (real pam_limits: tests/
         * integration/limits-real-cases.sh) */
        char *names[] = { "oracle-database-preinstall-19c.conf", "90-hosttune.conf", "20-nproc.conf", "x.conf~",
                          ".hidden.conf", ".conf", NULL };
        _cleanup_strv_free_ char **o = ht_limits_order(names);
        _cleanup_free_ char *j = strv_join(o, " ");
        assert_string_equal(j, "/etc/security/limits.conf /etc/security/limits.d/20-nproc.conf "
                               "/etc/security/limits.d/90-hosttune.conf "
                               "/etc/security/limits.d/oracle-database-preinstall-19c.conf");
}

static void test_render(void **state) {
        ht_limits_setting s[] = {
                { "oracle", "soft", "nofile", "1024" },
                { "oracle", "hard", "nofile", "65536" },
                { "@dba", "-", "memlock", "unlimited" },
                { "*", "soft", "core", "0" },
        };
        char *out = NULL, *err = NULL;
        assert_int_equal(ht_limits_render("oracle", s, 4, &out, &err), 0);
        assert_string_equal(out, "# Managed by hosttune (profile oracle). Do not edit; changes are overwritten.\n"
                                 "#<domain>  <type>  <item>   <value>\n"
                                 "oracle     soft    nofile   1024\n"
                                 "oracle     hard    nofile   65536\n"
                                 "@dba       -       memlock  unlimited\n"
                                 "*          soft    core     0\n");
        _cleanup_(ht_limits_file_freep) ht_limits_file *f = parse(out, 0);
        assert_int_equal(f->n_entries, 4);
        free(out);

        ht_limits_setting bad[][1] = {
                { { "ora cle", "soft", "nofile", "1" } },
                { { "oracle\n* hard core 0", "soft", "nofile", "1" } },
                { { "@", "soft", "nofile", "1" } },
                { { "oracle", "firm", "nofile", "1" } },
                { { "oracle", "soft", "files", "1" } },
                { { "oracle", "soft", "nofile", "1 2" } },
                { { "oracle", "soft", "nofile", "1\n" } },
                { { "oracle", "soft", "memlock", "18G" } },
                { { "oracle", "soft", "memlock", "#1" } },
                { { "oracle", "soft", "memlock", NULL } },
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                out = NULL;
                assert_int_equal(ht_limits_render("p", bad[i], 1, &out, &err), -EINVAL);
                assert_null(out);
                free(err);
        }
        ht_limits_setting dup[] = { { "oracle", "-", "nofile", "1" }, { "oracle", "soft", "nofile", "2" } };
        assert_int_equal(ht_limits_render("p", dup, 2, &out, &err), -EINVAL);
        free(err);
}

static void test_junk(void **state) {
        unsigned seed = 11;
        for (int round = 0; round < 2000; round++) {
                char buf[256];
                size_t n = rand_r(&seed) % sizeof buf;
                for (size_t i = 0; i < n; i++)
                        buf[i] = round % 2 ? (char)rand_r(&seed) : "@*%:-#1 \t\nsofthardnile"[rand_r(&seed) % 22];
                ht_limits_file *f = NULL;
                char *err = NULL;
                int r = ht_limits_parse(buf, n, round % 3 ? 0 : HT_LIMITS_LENIENT, &f, &err);
                assert_true(r == 0 || (r == -EINVAL && err));
                if (f) {
                        const ht_limits_file *fs[] = { f };
                        ht_limits_result res;
                        ht_limits_effective(fs, 1, &oracle, "nofile", 0, &res);
                }
                ht_limits_file_free(f);
                free(err);
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse),
                cmocka_unit_test(test_parse_errors),
                cmocka_unit_test(test_parse_number_prefix),
                cmocka_unit_test(test_precedence),
                cmocka_unit_test(test_dash_quirk_and_no_limits),
                cmocka_unit_test(test_order),
                cmocka_unit_test(test_render),
                cmocka_unit_test(test_junk),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
