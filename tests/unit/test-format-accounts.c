/* format-accounts: /etc/passwd and /etc/group as glibc's files backend
 * reads them, and the facts and the editors reading the same file alike. */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "accounts.h"
#include "backend.h"
#include "facts-internal.h"
#include "facts.h"
#include "format-accounts.h"
#include "profile.h"
#include "tmptree.h"
#include "util.h"

/* The head of Debian's base-passwd passwd.master and group.master, what
 * RHEL's setup package ships, the users and groups oracle-database-
 * preinstall-19c adds (uid/gid 54321.., dba 54322, oper 54323, ...), and
 * around them the lines glibc's files backend skips or reads otherwise
 * than a naive split: comments, blanks, indentation, nss_compat's +/-
 * entries, short lines, an empty password field, a bad id, a duplicate. */
static const char PASSWD[] =
        "root:x:0:0:root:/root:/bin/bash\n"
        "daemon:*:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
        "bin:x:1:1:bin:/bin:/sbin/nologin\n"                    /* RHEL's bin: a later uid 1 */
        "# local accounts below\n"
        "\n"
        "   \n"
        "nobody:x:65534:65534:Kernel Overflow User:/:/sbin/nologin\n"
        "short:x:1001\n"                                        /* no gid: glibc skips it */
        "badid:x:10x1:1001::/home/badid:/bin/sh\n"              /* not a number */
        "huge:x:4294967296:1::/:/bin/sh\n"                      /* above 32 bits */
        "+oracle::::::\n"                                       /* nss_compat */
        "-grid\n"
        "+\n"
        "oracle::54321:54321::/home/oracle:/bin/bash\n"         /* empty password field */
        "  grid:x:54331:54321:Grid Infrastructure:/home/grid:/bin/bash\n"
        "oracle:x:1:1:a second oracle:/:/bin/sh\n"              /* the first wins */
        "mysql:x:27:27:MySQL Server:/var/lib/mysql:/sbin/nologin";  /* no newline at the end */

static const char GROUP[] =
        "root:x:0:\n"
        "daemon:*:1:\n"
        "#oper:x:54323:oracle\n"
        "+@nisgroup\n"
        "-dba::::\n"
        "oinstall::54321:\n"                                    /* empty password field */
        "dba:x:54322:oracle, grid,,\n"                          /* blanks, empty members */
        "oper:x:54323\n"                                        /* no member field: still a group */
        "backupdba:x:54324:oracle\n"
        "asmadmin:x:5433a:grid\n"                               /* bad gid */
        "dgdba:x:54325:oracle:grid\n"                           /* a colon in the member list */
        "\tkmdba:x:54326:oracle\n"
        "racdba:x:54330:oracle\n"
        "mysql:x:27:\n"
        "dba:x:1:nobody\n";                                     /* the first wins */

static void test_passwd_glibc_rules(void **state) {
        (void)state;
        ht_passwd p;
        ht_passwd_parse(PASSWD, strlen(PASSWD), &p);
        static const struct {
                const char *name;
                uint32_t uid, gid;
                unsigned line;
        } want[] = {
                {"root", 0, 0, 1},          {"daemon", 1, 1, 2},     {"bin", 1, 1, 3},
                {"nobody", 65534, 65534, 7}, {"oracle", 54321, 54321, 14}, {"grid", 54331, 54321, 15},
                {"oracle", 1, 1, 16},       {"mysql", 27, 27, 17},
        };
        assert_int_equal(p.n_users, ELEMENTSOF(want));
        for (size_t i = 0; i < ELEMENTSOF(want); i++) {
                assert_string_equal(p.users[i].name, want[i].name);
                assert_int_equal(p.users[i].uid, want[i].uid);
                assert_int_equal(p.users[i].gid, want[i].gid);
                assert_int_equal(p.users[i].line, want[i].line);
        }
        assert_int_equal(ht_passwd_by_name(&p, "oracle")->line, 14);
        assert_string_equal(ht_passwd_by_uid(&p, 1)->name, "daemon");
        assert_null(ht_passwd_by_name(&p, "short"));
        assert_null(ht_passwd_by_name(&p, "badid"));
        assert_null(ht_passwd_by_name(&p, "huge"));
        assert_null(ht_passwd_by_name(&p, "+oracle"));
        assert_null(ht_passwd_by_name(&p, "+"));
        ht_passwd_done(&p);

        /* nothing, or nothing but comments */
        ht_passwd_parse("", 0, &p);
        assert_int_equal(p.n_users, 0);
        ht_passwd_done(&p);
        ht_passwd_parse("# x:x:1:1::/:/bin/sh\n", 21, &p);
        assert_int_equal(p.n_users, 0);
        ht_passwd_done(&p);
        /* a NUL ends the line's text; the next line still counts */
        static const char nul[] = "a:x:5:5\0junk\nb:x:6:6::/:/bin/sh\n";
        ht_passwd_parse(nul, sizeof(nul) - 1, &p);
        assert_int_equal(p.n_users, 2);
        assert_int_equal(p.users[1].line, 2);
        ht_passwd_done(&p);
}

static void test_group_glibc_rules(void **state) {
        (void)state;
        ht_group g;
        ht_group_parse(GROUP, strlen(GROUP), &g);
        static const struct {
                const char *name;
                uint32_t gid;
                const char *members; /* joined with '|' */
                unsigned line;
        } want[] = {
                {"root", 0, "", 1},
                {"daemon", 1, "", 2},
                {"oinstall", 54321, "", 6},
                {"dba", 54322, "oracle|grid", 7},
                {"oper", 54323, "", 8},
                {"backupdba", 54324, "oracle", 9},
                {"dgdba", 54325, "oracle:grid", 11},
                {"kmdba", 54326, "oracle", 12},
                {"racdba", 54330, "oracle", 13},
                {"mysql", 27, "", 14},
                {"dba", 1, "nobody", 15},
        };
        assert_int_equal(g.n_groups, ELEMENTSOF(want));
        for (size_t i = 0; i < ELEMENTSOF(want); i++) {
                assert_string_equal(g.groups[i].name, want[i].name);
                assert_int_equal(g.groups[i].gid, want[i].gid);
                _cleanup_free_ char *m = strv_join(g.groups[i].members, "|");
                assert_string_equal(m, want[i].members);
                assert_int_equal(g.groups[i].line, want[i].line);
        }
        assert_int_equal(ht_group_by_name(&g, "dba")->gid, 54322);
        assert_string_equal(ht_group_by_gid(&g, 1)->name, "daemon");
        assert_null(ht_group_by_name(&g, "asmadmin"));
        assert_null(ht_group_by_name(&g, "+@nisgroup"));
        assert_null(ht_group_by_name(&g, "-dba"));
        ht_group_done(&g);
}

static const char *facts_json =
        "{ \"kernel\": { \"release\": \"5.14.0-362.el9.x86_64\", \"xen\": false, \"cmdline\": null },"
        "  \"memory\": { \"total_kb\": 67108864 },"
        "  \"hugepages\": { \"supported\": true, \"default_size_kb\": 2048, \"sizes_kb\": [2048, 1048576] },"
        "  \"thp\": { \"supported\": true, \"enabled\": \"always\", \"cmdline\": null,"
        "             \"sysfs_dir\": \"/sys/kernel/mm/transparent_hugepage\" },"
        "  \"hugetext\": { \"supported\": false },"
        "  \"bootloader\": { \"kind\": \"grub2\", \"non_xen_entry\": null },"
        "  \"shm\": { \"segments\": 0, \"total_bytes\": 0, \"sizes_bytes\": [] },"
        "  \"cpu\": { \"flags\": [\"pse\", \"pdpe1gb\"] } }";

/* gid.NAME as a profile sees it (the resolver behind sysctl's
 * vm.hugetlb_shm_group), "" when unknown. */
static char *profile_gid(ht_context *c, const char *pdir, const char *group) {
        _cleanup_free_ char *text = xasprintf("params = { grp = \"%s\"; };\n"
                                              "sysctl = { vm = { g = { value = \"= gid.grp\"; optional = true; }; }; };\n",
                                              group);
        tt_put(pdir, "g.profile", text, 0644);
        json_object *f = json_tokener_parse(facts_json);
        assert_non_null(f);
        ht_resolved *r = NULL;
        char *err = NULL;
        if (ht_profile_resolve_json(c, f, "g", NULL, &r, &err) < 0)
                fail_msg("%s", err);
        json_object_put(f);
        char *v = NULL;
        for (size_t i = 0; i < r->n_settings && !v; i++)
                if (streq(r->settings[i].key, "vm.g"))
                        v = xstrdup(r->settings[i].value);
        ht_resolved_free(r);
        return v ? v : xstrdup("");
}

/* The same host files through the facts (the oracle user, a database
 * owner's name, its groups) and through the editors' side (the limits
 * backend's user and groups, the profile's gid.NAME): they agree, and
 * with what glibc would return. */
static void test_facts_and_editors_agree(void **state) {
        (void)state;
        char *top = tt_mkdtemp("format-accounts");
        _cleanup_free_ char *root = xasprintf("%s/root", top);
        _cleanup_free_ char *pdir = xasprintf("%s/profiles", top);
        _cleanup_free_ char *rdir = xasprintf("%s/rules", top);
        tt_mkdir(top, "root");
        tt_mkdir(top, "profiles");
        tt_mkdir(top, "rules");
        tt_mkdir(root, "etc");
        tt_put(root, "etc/passwd", PASSWD, 0644);
        tt_put(root, "etc/group", GROUP, 0644);
        ht_context *c;
        assert_int_equal(ht_context_new(root, &c), 0);
        strv_push(&c->profile_path, pdir);
        strv_push(&c->rules_path, rdir);

        ht_passwd p;
        ht_group g;
        ht_passwd_parse(PASSWD, strlen(PASSWD), &p);
        ht_group_parse(GROUP, strlen(GROUP), &g);

        /* facts */
        ht_facts *f = ht_facts_new();
        ht_facts_collect_workload(c, f);
        assert_string_equal(f->oracle_user, "oracle");
        assert_int_equal(f->oracle_uid, 54321);
        /* editors: the limits backend's account of the same user */
        uint32_t uid, gid;
        assert_int_equal(ht_account_user(c, f->oracle_user, &uid, &gid), 0);
        assert_int_equal(uid, (uint32_t)f->oracle_uid);
        assert_int_equal(uid, ht_passwd_by_name(&p, "oracle")->uid);
        assert_int_equal(gid, 54321);

        /* every uid and every name, both ways */
        const char *names[] = {"root", "daemon", "bin", "nobody", "oracle", "grid", "mysql",
                               "short", "badid", "huge", "+oracle", "+", "-grid"};
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                const ht_passwd_entry *e = ht_passwd_by_name(&p, names[i]);
                int r = ht_account_user(c, names[i], &uid, &gid);
                assert_int_equal(r, e ? 0 : -ENOENT);
                if (!e)
                        continue;
                assert_int_equal(uid, e->uid);
                _cleanup_free_ char *back = ht_facts_passwd_name(c, uid);
                assert_string_equal(back, ht_passwd_by_uid(&p, uid)->name);
        }
        _cleanup_free_ char *owner = ht_facts_passwd_name(c, 54321);
        assert_string_equal(owner, "oracle");
        assert_null(ht_facts_passwd_name(c, 1001)); /* "short" is no user */

        /* groups: the profile's gid.NAME, the accounts' lookup, the parse */
        const char *groups[] = {"root", "oinstall", "dba", "oper", "backupdba", "asmadmin", "dgdba",
                                "kmdba", "racdba", "mysql", "+@nisgroup", "-dba", "nosuch"};
        for (size_t i = 0; i < ELEMENTSOF(groups); i++) {
                const ht_group_entry *e = ht_group_by_name(&g, groups[i]);
                _cleanup_free_ char *pg = profile_gid(c, pdir, groups[i]);
                _cleanup_free_ char *want = e ? xasprintf("%" PRIu32, e->gid) : xstrdup("");
                assert_string_equal(pg, want);
                uint32_t agid;
                assert_int_equal(ht_account_group(c, groups[i], &agid), e ? 0 : -ENOENT);
                if (e)
                        assert_int_equal(agid, e->gid);
        }
        _cleanup_free_ char *dba = profile_gid(c, pdir, "dba");
        assert_string_equal(dba, "54322");

        /* the oracle user's groups, as the facts' database owner and the
         * limits backend both ask */
        char **gnames;
        uint32_t *gids;
        size_t n;
        assert_int_equal(ht_account_groups_of(c, "oracle", 54321, &gnames, &gids, &n), 0);
        _cleanup_free_ char *joined = strv_join(gnames, " ");
        assert_string_equal(joined, "oinstall dba backupdba kmdba racdba");
        assert_int_equal(n, 5);
        assert_int_equal(gids[1], 54322);
        strv_free(gnames);
        free(gids);

        ht_passwd_done(&p);
        ht_group_done(&g);
        ht_facts_free(f);
        ht_context_free(c);
        tt_rm_rf(top);
        free(top);
}

int main(void) {
        /* the backends a program that loads profiles knows (backend.h) */
        ht_backend_registry_use(ht_backends);
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_passwd_glibc_rules),
                cmocka_unit_test(test_group_glibc_rules),
                cmocka_unit_test(test_facts_and_editors_agree),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
