/* Profile loader and resolver: format, inheritance, params, sections,
 * provenance, and every kind of bad input with its file:line message. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

#include "fileio.h"
#include "backend.h"
#include "profile.h"
#include "util.h"
#include "tmptree.h"

static char *tmp_root;     /* a fake host: etc/group */
static char *pdir, *rdir;  /* profiles and (empty) rules of one test */

static void write_file(const char *dir, const char *name, const char *content) {
        tt_put(dir, name, content, 0644);
}

static int setup(void **state) {
        tmp_root = tt_mkdtemp("test-profile");
        const char *t = tmp_root;
        pdir = xasprintf("%s/profiles", t);
        rdir = xasprintf("%s/rules", t);
        _cleanup_free_ char *etc = xasprintf("%s/etc", t);
        assert_int_equal(mkdir(pdir, 0755), 0);
        assert_int_equal(mkdir(rdir, 0755), 0);
        assert_int_equal(mkdir(etc, 0755), 0);
        write_file(etc, "group", "root:x:0:\ndba:x:54322:oracle\noinstall:x:54321:\n");
        write_file(etc, "passwd", "root:x:0:0::/root:/bin/sh\noracle:x:54321:54321::/home/oracle:/bin/bash\n");
        return 0;
}

static int teardown(void **state) {
        tt_rm_rf(tmp_root);
        free(tmp_root);
        free(pdir);
        free(rdir);
        return 0;
}

static const char *srcdir(void) {
        const char *s = getenv("top_srcdir");
        return s ? s : ".";
}

static const char *facts_2m =
        "{ \"kernel\": { \"release\": \"5.14.0-362.el9.x86_64\", \"xen\": false, \"cmdline\": null },"
        "  \"memory\": { \"total_kb\": 67108864 },"
        "  \"hugepages\": { \"supported\": true, \"default_size_kb\": 2048, \"sizes_kb\": [2048, 1048576] },"
        "  \"thp\": { \"supported\": true, \"enabled\": \"always\", \"cmdline\": null,"
        "             \"sysfs_dir\": \"/sys/kernel/mm/transparent_hugepage\" },"
        "  \"hugetext\": { \"supported\": false },"
        "  \"bootloader\": { \"kind\": \"grub2\", \"non_xen_entry\": null },"
        "  \"shm\": { \"segments\": 0, \"total_bytes\": 0, \"sizes_bytes\": [] },"
        "  \"cpu\": { \"flags\": [\"pse\", \"pdpe1gb\"] } }";

/* Resolve with the test's dirs (or the shipped ones). */
static int resolve_in(const char *profiles, const char *rules, const char *facts_json,
                      const char *name, char *const *sets, ht_resolved **ret, char **err) {
        ht_context *c;
        assert_int_equal(ht_context_new(tmp_root, &c), 0);
        strv_push(&c->profile_path, profiles);
        strv_push(&c->rules_path, rules);
        json_object *f = json_tokener_parse(facts_json);
        assert_non_null(f);
        *err = NULL;
        int r = ht_profile_resolve_json(c, f, name, sets, ret, err);
        json_object_put(f);
        ht_context_free(c);
        return r;
}

static int resolve(const char *name, char *const *sets, ht_resolved **ret, char **err) {
        return resolve_in(pdir, rdir, facts_2m, name, sets, ret, err);
}

static const ht_setting *find(const ht_resolved *r, ht_backend_id b, const char *key) {
        for (size_t i = 0; i < r->n_settings; i++)
                if (r->settings[i].backend == b && streq(r->settings[i].key, key))
                        return &r->settings[i];
        return NULL;
}

static const char *param(const ht_resolved *r, const char *name) {
        for (size_t i = 0; i < r->n_params; i++)
                if (streq(r->params[i].name, name))
                        return r->params[i].value;
        return NULL;
}

static bool any_contains(char *const *l, const char *s) {
        for (size_t i = 0; l && l[i]; i++)
                if (strstr(l[i], s))
                        return true;
        return false;
}

/* Expect resolving name to fail with a message holding every needle. */
static void expect_error(const char *name, char *const *sets, int err, ...) {
        ht_resolved *r = NULL;
        char *msg = NULL;
        int k = resolve(name, sets, &r, &msg);
        if (k >= 0)
                fail_msg("resolving %s succeeded", name);
        assert_null(r);
        assert_non_null(msg);
        if (err)
                assert_int_equal(k, err);
        va_list ap;
        va_start(ap, err);
        for (const char *n; (n = va_arg(ap, const char *));)
                if (!strstr(msg, n))
                        fail_msg("error '%s' lacks '%s'", msg, n);
        va_end(ap);
        free(msg);
}

static void test_seed_oracle(void **state) {
        /* The seed case: SGA 18G on 2 MB pages with slack 2 is 9218 pages. */
        _cleanup_free_ char *p = xasprintf("%s/profiles", srcdir());
        _cleanup_free_ char *rl = xasprintf("%s/rules", srcdir());
        char *sets[] = {"sga_max_size=18G", NULL};
        ht_resolved *r;
        char *err;
        int k = resolve_in(p, rl, facts_2m, "oracle", sets, &r, &err);
        if (k < 0)
                fail_msg("%s", err);
        const ht_setting *s = find(r, HT_BK_SYSCTL, "vm.nr_hugepages");
        assert_non_null(s);
        assert_string_equal(s->value, "9218");
        assert_true(startswith(s->source, "rule hugepages-from-size ("));
        /* the preinstall values, with their provenance */
        s = find(r, HT_BK_SYSCTL, "kernel.shmmax");
        assert_string_equal(s->value, "4398046511104");
        assert_true(strstr(s->source, "profiles/oracle.profile:"));
        assert_string_equal(find(r, HT_BK_SYSCTL, "kernel.sem")->value, "250 32000 100 128");
        assert_string_equal(find(r, HT_BK_SYSCTL, "net.ipv4.conf.all.rp_filter")->value, "2");
        assert_string_equal(find(r, HT_BK_SYSCTL, "vm.swappiness")->value, "10");
        s = find(r, HT_BK_LIMITS, "oracle soft memlock");
        assert_string_equal(s->value, "134217728");
        assert_string_equal(ht_setting_field(s, "domain"), "oracle");
        assert_string_equal(ht_setting_field(s, "item"), "memlock");
        /* a minimum, like every oracle limit (profile-load: at_least) */
        assert_true(s->at_least);
        s = find(r, HT_BK_LIMITS, "oracle hard data");
        assert_string_equal(s->value, "unlimited");
        assert_true(s->at_least);
        /* gid of oinstall (Oracle's "Configuring HugePages on Linux")
         * from the fake host's /etc/group */
        assert_string_equal(find(r, HT_BK_SYSCTL, "vm.hugetlb_shm_group")->value, "54321");
        assert_string_equal(find(r, HT_BK_SYSFS, "/sys/kernel/mm/transparent_hugepage/enabled")->value,
                            "never");
        s = find(r, HT_BK_CMDLINE, "transparent_hugepage");
        assert_string_equal(s->value, "never");
        assert_string_equal(ht_setting_field(s, "target"), "linux");
        assert_string_equal(param(r, "sga_max_size"), "19327352832");
        assert_null(r->errors);
        assert_false(r->reboot_required);
        assert_string_equal(r->chain[0], "base");
        assert_string_equal(r->chain[1], "oracle");

        /* the memlock rule raises the preinstall value when the SGA needs more */
        ht_resolved_free(r);
        char *big[] = {"sga_max_size=200G", "hugepages_max_percent=100", NULL};
        _cleanup_free_ char *facts = xstrdup(facts_2m);
        char *m = strstr(facts, "67108864");
        memcpy(m, "268435456", 9);  /* 256 GB */
        k = resolve_in(p, rl, facts, "oracle", big, &r, &err);
        if (k < 0)
                fail_msg("%s", err);
        assert_string_equal(find(r, HT_BK_SYSCTL, "vm.nr_hugepages")->value, "102402");
        s = find(r, HT_BK_LIMITS, "oracle hard memlock");
        /* Oracle: "at least 90 percent of the current RAM when HugePages
         * memory is enabled": 90 % of 256 GB (241591910 KB) is above both
         * the pages (209719296 KB) and the package's 128 GB (issue 33) */
        assert_string_equal(s->value, "241591910");
        assert_true(s->at_least);
        assert_true(any_contains(r->warnings, "rule hugepages-memlock sets 209719296, replacing "
                                              "134217728 from"));
        assert_true(any_contains(r->warnings, "rule hugepages-memlock-ram sets 241591910, replacing "
                                              "209719296 from"));
        ht_resolved_free(r);
        /* 64 GB and 18 GB of SGA: 90 % (60397977 KB) is below 128 GB, kept */
        char *small[] = {"sga_max_size=18G", NULL};
        k = resolve_in(p, rl, facts_2m, "oracle", small, &r, &err);
        if (k < 0)
                fail_msg("%s", err);
        assert_string_equal(find(r, HT_BK_LIMITS, "oracle hard memlock")->value, "134217728");
        ht_resolved_free(r);
        /* no HugePages: no share of RAM either (3 GB minimum, below 128 GB) */
        k = resolve_in(p, rl, facts, "oracle", NULL, &r, &err);
        if (k < 0)
                fail_msg("%s", err);
        assert_string_equal(find(r, HT_BK_LIMITS, "oracle hard memlock")->value, "134217728");
        ht_resolved_free(r);
}

static void test_sections(void **state) {
        write_file(pdir, "all.profile",
                   "summary = \"every section\";\n"
                   "params = { size = \"1G\"; user = \"app\"; big = 4398046511104; on = true; };\n"
                   "sysctl = {\n"
                   "  vm = { swappiness = 10; nr_hugepages = { value = \"= size / 2M\"; optional = true; }; };\n"
                   "  kernel = { sem = \"250   32000\t100 128\"; panic_on_oops = true; };\n"
                   "  fs = { aio-max-nr = \"= big\"; };\n"
                   "};\n"
                   "sysfs = { kernel = { mm = { ksm = { run = 0; }; }; }; };\n"
                   "limits = ( { domain = \"= user\"; type = \"-\"; item = \"memlock\"; value = \"= size / 1K\"; },\n"
                   "           { domain = \"@dba\"; type = \"hard\"; item = \"nofile\"; value = \"unlimited\"; optional = true; } );\n"
                   "services = { app = { LimitNOFILE = 65536; LimitMEMLOCK = { value = \"infinity\"; optional = true; }; }; };\n"
                   "cmdline = ( { add = [\"transparent_hugepage=never\", \"nosmt\", \"hugepagesz=${size / 1M}M\"];\n"
                   "              remove = [\"quiet\", \"console=ttyS0\"]; },\n"
                   "            { add = \"dom0_mem=4G\"; target = \"xen\"; optional = true; } );\n");
        write_file(pdir, "list.profile",
                   "sysctl = ( { key = \"net.ipv4.conf.eth0/100.rp_filter\"; value = 2; },\n"
                   "           { key = \"vm.value\"; value = 1; optional = true; } );\n"
                   "sysfs = ( { path = \"/sys/block/sda/queue/scheduler\"; value = \"none\"; } );\n"
                   "services = ( { unit = \"db@main.service\"; TasksMax = 4096; } );\n");
        ht_resolved *r;
        char *err;
        if (resolve("all", NULL, &r, &err) < 0)
                fail_msg("%s", err);
        assert_string_equal(r->summary, "every section");
        const ht_setting *s = find(r, HT_BK_SYSCTL, "vm.nr_hugepages");
        assert_string_equal(s->value, "512");
        assert_true(s->optional);
        assert_true(endswith(s->source, "all.profile:4"));
        assert_string_equal(find(r, HT_BK_SYSCTL, "kernel.sem")->value, "250 32000 100 128");
        assert_string_equal(find(r, HT_BK_SYSCTL, "kernel.panic_on_oops")->value, "1");
        assert_string_equal(find(r, HT_BK_SYSCTL, "fs.aio-max-nr")->value, "4398046511104");
        assert_string_equal(find(r, HT_BK_SYSFS, "/sys/kernel/mm/ksm/run")->value, "0");
        s = find(r, HT_BK_LIMITS, "app - memlock");
        assert_string_equal(s->value, "1048576");
        assert_string_equal(ht_setting_field(s, "type"), "-");
        assert_true(find(r, HT_BK_LIMITS, "@dba hard nofile")->optional);
        s = find(r, HT_BK_SERVICE, "app.service LimitNOFILE");
        assert_string_equal(ht_setting_field(s, "unit"), "app.service");
        assert_string_equal(ht_setting_field(s, "directive"), "LimitNOFILE");
        assert_string_equal(s->value, "65536");
        assert_true(find(r, HT_BK_SERVICE, "app.service LimitMEMLOCK")->optional);
        s = find(r, HT_BK_CMDLINE, "transparent_hugepage");
        assert_string_equal(s->value, "never");
        assert_false(s->remove);
        assert_string_equal(find(r, HT_BK_CMDLINE, "nosmt")->value, "");
        assert_string_equal(find(r, HT_BK_CMDLINE, "hugepagesz")->value, "1024M");
        s = find(r, HT_BK_CMDLINE, "quiet");
        assert_true(s->remove);
        assert_string_equal(s->value, "");
        assert_string_equal(find(r, HT_BK_CMDLINE, "console")->value, "ttyS0");
        s = find(r, HT_BK_CMDLINE, "dom0_mem");
        assert_string_equal(ht_setting_field(s, "target"), "xen");
        assert_true(s->optional);

        /* JSON and text carry the same */
        json_object *j = ht_resolved_to_json(r);
        const char *js = json_object_to_json_string(j);
        assert_non_null(strstr(js, "\"app.service LimitNOFILE\""));
        assert_non_null(strstr(js, "\"reboot_required\""));
        json_object_put(j);
        _cleanup_free_ char *t = ht_resolved_format_text(r);
        assert_non_null(strstr(t, "sysctl   kernel.sem = 250 32000 100 128"));
        assert_non_null(strstr(t, "cmdline  remove quiet"));
        assert_non_null(strstr(t, "cmdline  dom0_mem=4G (xen) (optional)"));
        ht_resolved_free(r);

        if (resolve("list", NULL, &r, &err) < 0)
                fail_msg("%s", err);
        assert_non_null(find(r, HT_BK_SYSCTL, "net.ipv4.conf.eth0/100.rp_filter"));
        assert_non_null(find(r, HT_BK_SYSCTL, "vm.value"));
        assert_string_equal(find(r, HT_BK_SYSFS, "/sys/block/sda/queue/scheduler")->value, "none");
        assert_string_equal(find(r, HT_BK_SERVICE, "db@main.service TasksMax")->value, "4096");
        ht_resolved_free(r);
}

static void test_inheritance(void **state) {
        write_file(pdir, "root.profile", "summary = \"root\";\n"
                                         "params = { n = 1; };\n"
                                         "sysctl = { vm = { a = 1; b = 1; }; };\n");
        write_file(pdir, "left.profile", "inherit = \"root\";\nsysctl = { vm = { a = 2; c = 5; }; };\n");
        write_file(pdir, "right.profile", "inherit = \"root\";\nparams = { n = 3; };\n"
                                          "sysctl = { vm = { c = 6; d = \"= n\"; }; };\n");
        write_file(pdir, "both.profile", "inherit = [\"left\", \"right\"];\n"
                                         "sysctl = { vm = { b = 9; }; };\n");
        ht_resolved *r;
        char *err;
        if (resolve("both", NULL, &r, &err) < 0)
                fail_msg("%s", err);
        /* depth first, diamond read once, later wins */
        assert_int_equal(strv_length(r->chain), 4);
        assert_string_equal(r->chain[0], "root");
        assert_string_equal(r->chain[1], "left");
        assert_string_equal(r->chain[2], "right");
        assert_string_equal(r->chain[3], "both");
        assert_string_equal(r->summary, "root");
        assert_string_equal(find(r, HT_BK_SYSCTL, "vm.a")->value, "2");
        assert_string_equal(find(r, HT_BK_SYSCTL, "vm.b")->value, "9");
        assert_true(endswith(find(r, HT_BK_SYSCTL, "vm.b")->source, "both.profile:2"));
        assert_string_equal(find(r, HT_BK_SYSCTL, "vm.c")->value, "6");
        assert_string_equal(find(r, HT_BK_SYSCTL, "vm.d")->value, "3");
        /* left and right are siblings: their disagreement is a conflict
         * naming both sources; children overriding parents are not */
        assert_int_equal(strv_length(r->warnings), 1);
        assert_non_null(strstr(r->warnings[0], "conflict: sysctl vm.c is 5 at "));
        assert_non_null(strstr(r->warnings[0], "left.profile:2 but 6 at "));
        assert_non_null(strstr(r->warnings[0], "right.profile:3"));
        ht_resolved_free(r);

        /* --set overrides any level; params of children override parents */
        char *sets[] = {"n=7", NULL};
        if (resolve("both", sets, &r, &err) < 0)
                fail_msg("%s", err);
        assert_string_equal(find(r, HT_BK_SYSCTL, "vm.d")->value, "7");
        for (size_t i = 0; i < r->n_params; i++)
                if (streq(r->params[i].name, "n"))
                        assert_string_equal(r->params[i].source, "--set");
        ht_resolved_free(r);
}

static void test_inheritance_errors(void **state) {
        write_file(pdir, "cyc-a.profile", "inherit = \"cyc-b\";\n");
        write_file(pdir, "cyc-b.profile", "summary = \"b\";\ninherit = [\"root2\", \"cyc-a\"];\n");
        write_file(pdir, "root2.profile", "summary = \"r\";\n");
        expect_error("cyc-a", NULL, -ELOOP, "cyc-b.profile:2: inheritance cycle: cyc-a -> cyc-b -> cyc-a",
                     NULL);
        write_file(pdir, "orphan.profile", "\n\ninherit = \"rot2\";\n");
        expect_error("orphan", NULL, -ENOENT, "orphan.profile:3: parent profile 'rot2' not found",
                     "orphan -> rot2", "did you mean 'root2'", NULL);
        expect_error("nosuch", NULL, -ENOENT, "profile 'nosuch' not found", NULL);
        expect_error("../etc/passwd", NULL, -EINVAL, "not a valid profile name", NULL);
        write_file(pdir, "badparent.profile", "inherit = [\"ok\", 3];\n");
        expect_error("badparent", NULL, -EINVAL, "badparent.profile:1: mismatched element type", NULL);
        write_file(pdir, "badparent2.profile", "inherit = ( \"ok\", 3 );\n");
        expect_error("badparent2", NULL, -EINVAL, "badparent2.profile:1: inherit: expected a string",
                     NULL);
}

static void test_params(void **state) {
        write_file(pdir, "p.profile",
                   "params = { sga = 0; user = \"oracle\"; flag = false; derived = \"= sga / 2\"; };\n"
                   "sysctl = { vm = { x = \"= derived\"; y = \"= if(flag, 1, 2)\"; }; };\n"
                   "limits = ( { domain = \"= user\"; type = \"soft\"; item = \"nofile\"; value = 1; } );\n");
        char *ok[] = {"sga=4G", "flag=yes", "user=1000", NULL};
        ht_resolved *r;
        char *err;
        if (resolve("p", ok, &r, &err) < 0)
                fail_msg("%s", err);
        assert_string_equal(find(r, HT_BK_SYSCTL, "vm.x")->value, "2147483648");
        assert_string_equal(find(r, HT_BK_SYSCTL, "vm.y")->value, "1");
        assert_non_null(find(r, HT_BK_LIMITS, "1000 soft nofile"));
        ht_resolved_free(r);

        char *expr[] = {"sga== 2G + 2G", NULL};
        if (resolve("p", expr, &r, &err) < 0)
                fail_msg("%s", err);
        assert_string_equal(find(r, HT_BK_SYSCTL, "vm.x")->value, "2147483648");
        ht_resolved_free(r);

        /* The facts handed in have no workload group (plans do not collect
         * it up front): naming it reads it from the host. */
        write_file(pdir, "wl.profile", "sysctl = { vm = { o = { value = \"= facts.workload.oracle.uid\"; }; }; };\n");
        if (resolve("wl", NULL, &r, &err) < 0)
                fail_msg("%s", err);
        assert_string_equal(find(r, HT_BK_SYSCTL, "vm.o")->value, "54321");
        ht_resolved_free(r);
        write_file(pdir, "wl2.profile", "sysctl = { vm = { o = \"= facts.workload.oracle.uidd\"; }; };\n");
        expect_error("wl2", NULL, -ENOENT, "unknown name 'facts.workload.oracle.uidd' (did you mean "
                                           "'facts.workload.oracle.uid'?)", NULL);

        char *unknown[] = {"sgaa=1G", NULL};
        expect_error("p", unknown, -EINVAL, "unknown parameter 'sgaa' (did you mean 'sga'?)", NULL);
        char *type[] = {"sga=lots", NULL};
        expect_error("p", type, -EINVAL, "parameter sga takes an integer", "p.profile:1", NULL);
        char *range[] = {"sga=99999999999999999999", NULL};
        expect_error("p", range, -EINVAL, "does not fit in 64 bits", NULL);
        char *unit[] = {"sga=18Q", NULL};
        expect_error("p", unit, -EINVAL, "--set sga=18Q: parameter sga takes an integer", NULL);
        write_file(pdir, "gid.profile", "params = { grp = \"dba\"; nogrp = \"nobody-here\"; };\n"
                                        "sysctl = { vm = { g = \"= gid.grp\"; h = { value = \"= gid.nogrp\"; "
                                        "optional = true; }; }; };\n");
        ht_resolved *g;
        if (resolve("gid", NULL, &g, &err) < 0)
                fail_msg("%s", err);
        assert_string_equal(find(g, HT_BK_SYSCTL, "vm.g")->value, "54322");
        assert_null(find(g, HT_BK_SYSCTL, "vm.h"));
        ht_resolved_free(g);
        write_file(pdir, "gid2.profile", "params = { grp = \"dba\"; };\n"
                                         "sysctl = { vm = { g = \"= gid.gpr\"; }; };\n");
        expect_error("gid2", NULL, -ENOENT, "did you mean 'gid.grp'", NULL);
        char *flag[] = {"flag=maybe", NULL};
        expect_error("p", flag, -EINVAL, "takes true or false", NULL);
        char *noeq[] = {"sga", NULL};
        expect_error("p", noeq, -EINVAL, "expected NAME=VALUE", NULL);
        char *div0[] = {"sga== 1 / 0", NULL};
        expect_error("p", div0, -EDOM, "division by zero", NULL);

        write_file(pdir, "pcycle.profile", "params = { a = \"= b + 1\"; b = \"= a\"; };\n"
                                           "sysctl = { vm = { x = \"= a\"; }; };\n");
        expect_error("pcycle", NULL, 0, "pcycle.profile:1: params a: the parameters refer to each other: "
                                        "a -> b -> a", NULL);
}

static void test_expression_errors(void **state) {
        write_file(pdir, "e1.profile", "\nsysctl = { vm = { x = \"= 1 / 0\"; }; };\n");
        expect_error("e1", NULL, -EDOM, "e1.profile:2: sysctl vm.x: column", "division by zero", NULL);
        write_file(pdir, "e2.profile", "sysctl = { vm = { x = \"= 8E * 2\"; }; };\n");
        expect_error("e2", NULL, -ERANGE, "e2.profile:1: sysctl vm.x:", NULL);
        write_file(pdir, "e3.profile", "params = { sga_max_size = 1; };\n"
                                       "sysctl = { vm = { x = \"= sga_max_sise\"; }; };\n");
        expect_error("e3", NULL, -ENOENT, "e3.profile:2:", "did you mean 'sga_max_size'", NULL);
        write_file(pdir, "e4.profile", "sysctl = { vm = { x = \"= facts.memory.totl_kb\"; }; };\n");
        expect_error("e4", NULL, -ENOENT, "did you mean 'facts.memory.total_kb'", NULL);
        write_file(pdir, "e5.profile", "sysctl = { vm = { x = \"= 7 / 2\"; }; };\n");
        expect_error("e5", NULL, -EINVAL, "e5.profile:1: sysctl vm.x: value '3.5' is a fraction", NULL);
        write_file(pdir, "e6.profile", "sysctl = { vm = { x = \"= facts.thp.cmdline\"; }; };\n");
        expect_error("e6", NULL, 0, "e6.profile:1:", "unknown on this host", NULL);
        write_file(pdir, "e7.profile", "sysctl = { vm = { x = \"= 1 +\"; }; };\n");
        expect_error("e7", NULL, -EINVAL, "e7.profile:1: sysctl vm.x: column", NULL);
        write_file(pdir, "e8.profile", "sysctl = { vm = { x = \"${1 + 1\"; }; };\n");
        expect_error("e8", NULL, -EINVAL, "without a closing", NULL);

        /* an optional setting whose value is unknown is skipped: listed,
         * with the reason, not warned about */
        write_file(pdir, "opt.profile", "sysctl = { vm = { x = { value = \"= facts.thp.cmdline\"; "
                                        "optional = true; }; y = 1; }; };\n");
        ht_resolved *r;
        char *err;
        if (resolve("opt", NULL, &r, &err) < 0)
                fail_msg("%s", err);
        assert_null(find(r, HT_BK_SYSCTL, "vm.x"));
        assert_non_null(find(r, HT_BK_SYSCTL, "vm.y"));
        assert_false(any_contains(r->warnings, "vm.x"));
        assert_int_equal(r->skipped.n, 1);
        assert_string_equal(r->skipped.items[0].setting, "sysctl vm.x");
        assert_true(strstr(r->skipped.items[0].reason, "sysctl vm.x: its value is unknown on this host"));
        assert_true(strstr(r->skipped.items[0].source, "opt.profile:1"));
        ht_resolved_free(r);
}

static void test_format_errors(void **state) {
        write_file(pdir, "syn.profile", "summary = \"x\";\nsysctl = { vm = { a = = 1; }; };\n");
        expect_error("syn", NULL, -EINVAL, "syn.profile:2: syntax error", NULL);
        write_file(pdir, "sec.profile", "\nsysctll = { };\n");
        expect_error("sec", NULL, -EINVAL, "sec.profile:2: profile: unknown key 'sysctll' (did you mean "
                                           "'sysctl'?)", NULL);
        write_file(pdir, "float.profile", "sysctl = { vm = { a = 1.5; }; };\n");
        expect_error("float", NULL, -EINVAL, "float.profile:1: sysctl vm.a: floating point", NULL);
        write_file(pdir, "arr.profile", "sysctl = { vm = { a = [1, 2]; }; };\n");
        expect_error("arr", NULL, -EINVAL, "arr.profile:1: sysctl vm.a: expected a value or a group",
                     NULL);
        write_file(pdir, "leaf.profile", "sysctl = { vm = { a = { value = 1; optinal = true; }; }; };\n");
        expect_error("leaf", NULL, -EINVAL, "unknown key 'optinal' (did you mean 'optional'?)", NULL);
        write_file(pdir, "sum.profile", "summary = 3;\n");
        expect_error("sum", NULL, -EINVAL, "sum.profile:1: summary: expected a string, not an integer",
                     NULL);
        write_file(pdir, "lim.profile", "limits = ( { domain = \"x\"; type = \"soft\"; item = \"nofile\"; "
                                        "valeu = 1; } );\n");
        expect_error("lim", NULL, -EINVAL, "limits entry 1: unknown key 'valeu' (did you mean 'value'?)",
                     NULL);
        write_file(pdir, "lim2.profile", "limits = ( { domain = \"x\"; type = \"soft\"; item = \"nofiles\"; "
                                         "value = 1; } );\n");
        expect_error("lim2", NULL, -EINVAL, "unknown limits item 'nofiles' (did you mean 'nofile'?)",
                     NULL);
        write_file(pdir, "lim3.profile", "limits = ( { domain = \"x\"; type = \"soft\"; item = \"nofile\"; "
                                         "value = \"lots\"; } );\n");
        expect_error("lim3", NULL, -EINVAL, "value 'lots' must be an integer", NULL);
        write_file(pdir, "lim4.profile", "limits = ( { domain = \"x y\"; type = \"soft\"; item = \"nofile\"; "
                                         "value = 1; } );\n");
        expect_error("lim4", NULL, -EINVAL, "is not a limits.conf domain", NULL);
        write_file(pdir, "svc.profile", "services = { db = { LimitNOFLE = 1; }; };\n");
        expect_error("svc", NULL, -EINVAL, "svc.profile:1: services db.service: unknown directive "
                                           "'LimitNOFLE' (did you mean 'LimitNOFILE'?)", NULL);
        write_file(pdir, "cmd.profile", "cmdline = { add = [\"a b\"]; };\n");
        expect_error("cmd", NULL, -EINVAL, "is not a kernel parameter name", NULL);
        write_file(pdir, "cmd2.profile", "cmdline = { add = [\"x=\\\"q\\\"\"]; };\n");
        expect_error("cmd2", NULL, -EINVAL, "must not hold spaces, quotes", NULL);
        write_file(pdir, "cmd3.profile", "cmdline = { add = [\"x=1\"]; target = \"hyper\"; };\n");
        expect_error("cmd3", NULL, -EINVAL, "target 'hyper' must be linux or xen", NULL);
        /* Comments and indentation are dropped before libconfig reads the
         * file: line numbers must still be the file's own, and a '#' or
         * a '/' '*' inside a string is no comment. */
        write_file(pdir, "cmt.profile", "/* a\n   block */ summary = \"# not /* a comment\";\n"
                                        "  # one\n  // two\n\tsysctl = { vm = { a = = 1; }; };\n");
        expect_error("cmt", NULL, -EINVAL, "cmt.profile:5: syntax error", NULL);
        write_file(pdir, "cmt2.profile", "summary = \"x\";\n/* never\n closed\n");
        expect_error("cmt2", NULL, -EINVAL, "cmt2.profile:2: unterminated comment", NULL);
        write_file(pdir, "cmt3.profile", "summary = \"a # b\"; /* x */ sysctl = { vm/**/ = { a = 1; }; };\n");
        ht_resolved *cr;
        char *cerr;
        if (resolve("cmt3", NULL, &cr, &cerr) < 0)
                fail_msg("%s", cerr);
        assert_string_equal(cr->summary, "a # b");
        assert_non_null(find(cr, HT_BK_SYSCTL, "vm.a"));
        ht_resolved_free(cr);
        write_file(pdir, "inc.profile", "# x\n  @include \"/tmp/other\"\n");
        expect_error("inc", NULL, -EINVAL, "inc.profile:2: @include is not supported", NULL);
        write_file(pdir, "huge.profile", "sysctl = { vm = { a = 99999999999999999999; }; };\n");
        expect_error("huge", NULL, -ERANGE, "huge.profile:1: integer 99999999999999999999 does not fit",
                     NULL);
        write_file(pdir, "ctl.profile", "sysctl = { vm = { a = \"1\\n2\"; }; };\n");
        expect_error("ctl", NULL, -EINVAL, "control characters", NULL);
        write_file(pdir, "dup.profile", "limits = ( { domain = \"x\"; type = \"soft\"; item = \"nofile\"; value = 1; },\n"
                                        "           { domain = \"x\"; type = \"soft\"; item = \"nofile\"; value = 2; } );\n");
        expect_error("dup", NULL, -EINVAL, "dup.profile:2: limits x soft nofile is set twice in this file "
                                           "(also at line 1)", NULL);
        /* past the resolver's hash index threshold, repeats are still found */
        strbuf b = {0};
        strbuf_append(&b, "sysctl = (\n");
        for (int i = 0; i < 100; i++)
                strbuf_appendf(&b, "  { key = \"bench.k%03d\"; value = \"%d\"; },\n", i, i);
        strbuf_append(&b, "  { key = \"bench.k042\"; value = \"7\"; }\n);\n");
        write_file(pdir, "dup100.profile", b.data);
        strbuf_done(&b);
        expect_error("dup100", NULL, -EINVAL, "dup100.profile:102: sysctl bench.k042 is set twice in this file "
                                              "(also at line 44)", NULL);
}

/* Bounds as written (hosttune.profile(5), BOUNDS): the group form in the
 * tree and in a key list, sizes, expressions, what rules may do, and
 * every malformed bound named with its file and line. */
static void test_bounds(void **state) {
        write_file(pdir, "b.profile", "params = { mem = \"2G\"; };\n"
                   "sysctl = {\n"
                   "        fs = { file-max = { value = 6815744; bound = \"at-least\"; }; };\n"
                   "        kernel = { sem = { value = \"250  32000 100\t128\"; bound = \"at-least\"; };\n"
                   "                   shmmax = { value = \"4T\"; bound = \"at-least\"; };\n"
                   "                   shmall = { value = \"= mem / 4096\"; bound = \"at-least\"; };\n"
                   "                   panic = { value = 10; bound = \"at-most\"; };\n"
                   "                   panic_on_oops = { value = 1; bound = \"exact\"; }; };\n"
                   "        net = { ipv4 = { ip_local_port_range = { value = \"9000 65500\"; bound = \"at-least\"; };\n"
                   "                         tcp_fin_timeout = { value = \"10..30\"; bound = \"range\"; }; }; };\n"
                   "        vm = { swappiness = 1; };\n"
                   "};\n");
        ht_resolved *r;
        char *err;
        if (resolve("b", NULL, &r, &err) < 0)
                fail_msg("%s", err);
        const ht_setting *s = find(r, HT_BK_SYSCTL, "fs.file-max");
        assert_string_equal(s->value, "6815744");
        assert_int_equal(s->bound, HT_BOUND_AT_LEAST);
        s = find(r, HT_BK_SYSCTL, "kernel.sem");
        assert_string_equal(s->value, "250 32000 100 128");
        assert_int_equal(s->bound, HT_BOUND_AT_LEAST);
        assert_string_equal(find(r, HT_BK_SYSCTL, "kernel.shmmax")->value, "4398046511104");
        assert_string_equal(find(r, HT_BK_SYSCTL, "kernel.shmall")->value, "524288");
        assert_int_equal(find(r, HT_BK_SYSCTL, "kernel.panic")->bound, HT_BOUND_AT_MOST);
        assert_int_equal(find(r, HT_BK_SYSCTL, "kernel.panic_on_oops")->bound, HT_BOUND_EXACT);
        assert_int_equal(find(r, HT_BK_SYSCTL, "net.ipv4.ip_local_port_range")->bound, HT_BOUND_AT_LEAST);
        assert_int_equal(find(r, HT_BK_SYSCTL, "net.ipv4.tcp_fin_timeout")->bound, HT_BOUND_RANGE);
        assert_string_equal(find(r, HT_BK_SYSCTL, "net.ipv4.tcp_fin_timeout")->value, "10..30");
        assert_int_equal(find(r, HT_BK_SYSCTL, "vm.swappiness")->bound, HT_BOUND_EXACT);
        _cleanup_free_ char *text = ht_resolved_format_text(r);
        assert_non_null(strstr(text, "fs.file-max = 6815744 (at least)"));
        assert_non_null(strstr(text, "kernel.panic = 10 (at most)"));
        assert_non_null(strstr(text, "ip_local_port_range = 9000 65500 (at least)"));
        assert_non_null(strstr(text, "tcp_fin_timeout = 10..30 (range)"));
        json_object *j = ht_resolved_to_json(r);
        json_object *set = json_object_array_get_idx(json_object_object_get(j, "settings"), 0);
        assert_string_equal(json_object_get_string(json_object_object_get(set, "bound")), "at-least");
        json_object_put(j);
        ht_resolved_free(r);

        /* a key list takes a bound too */
        write_file(pdir, "kl.profile", "sysctl = ( { key = \"vm.max_map_count\"; value = 1048576; bound = \"at-least\"; } );\n");
        if (resolve("kl", NULL, &r, &err) < 0)
                fail_msg("%s", err);
        assert_int_equal(find(r, HT_BK_SYSCTL, "vm.max_map_count")->bound, HT_BOUND_AT_LEAST);
        ht_resolved_free(r);

        /* a rule's set is exact unless it says otherwise; a flags-only set
         * changes the bound alone */
        write_file(rdir, "50-b.rules",
                   "rules = ( { name = \"exact-file-max\"; set = { backend = \"sysctl\"; key = \"fs.file-max\"; value = 7000000; }; },\n"
                   "          { name = \"sem-exact\"; set = { backend = \"sysctl\"; key = \"kernel.sem\"; bound = \"exact\"; }; } );\n");
        if (resolve("b", NULL, &r, &err) < 0)
                fail_msg("%s", err);
        s = find(r, HT_BK_SYSCTL, "fs.file-max");
        assert_string_equal(s->value, "7000000");
        assert_int_equal(s->bound, HT_BOUND_EXACT);
        s = find(r, HT_BK_SYSCTL, "kernel.sem");
        assert_string_equal(s->value, "250 32000 100 128");
        assert_int_equal(s->bound, HT_BOUND_EXACT);
        ht_resolved_free(r);
        _cleanup_free_ char *rf = xasprintf("%s/50-b.rules", rdir);
        assert_int_equal(unlink(rf), 0);

        /* malformed bounds: file and line, and what is wrong */
        write_file(pdir, "e1.profile", "sysctl = {\n  fs = { file-max = { value = 1; bound = \"atleast\"; }; };\n};\n");
        expect_error("e1", NULL, -EINVAL, "e1.profile:2: sysctl fs.file-max: bound: 'atleast' is not a bound "
                                          "(exact, at-least, at-most, range)", NULL);
        write_file(pdir, "e2.profile", "sysctl = {\n\n  fs = { file-max = { value = \"lots\"; bound = \"at-least\"; }; };\n};\n");
        expect_error("e2", NULL, -EINVAL, "e2.profile:3: sysctl fs.file-max at-least: 'lots': a bound's fields "
                                          "must be integers", NULL);
        write_file(pdir, "e3.profile", "sysctl = { net = { r = { value = \"9000\"; bound = \"range\"; }; }; };\n");
        expect_error("e3", NULL, -EINVAL, "e3.profile:1: sysctl net.r range: '9000': a range is LOW..HIGH", NULL);
        write_file(pdir, "e4.profile", "sysctl = { net = { r = { value = \"65500..9000\"; bound = \"range\"; }; }; };\n");
        expect_error("e4", NULL, -EINVAL, "e4.profile:1:", "low end is above its high end", NULL);
        /* the old widening form of a port range: refused, naming at-least */
        write_file(pdir, "e4b.profile", "sysctl = { net = { r = { value = \"9000 65500\"; bound = \"range\"; }; }; };\n");
        expect_error("e4b", NULL, -EINVAL, "e4b.profile:1:", "use at-least", NULL);
        write_file(pdir, "e5.profile", "sysctl = { vm = { a = { value = 1; bound = 1; }; }; };\n");
        expect_error("e5", NULL, -EINVAL, "e5.profile:1: sysctl vm.a: bound: expected a string", NULL);
        write_file(pdir, "e6.profile", "sysfs = { kernel = { x = { value = 1; bound = \"at-least\"; }; }; };\n");
        expect_error("e6", NULL, -EINVAL, "e6.profile:1:", "only sysctl, block and limits settings take a bound", NULL);
        /* limits take a bound (a range: Oracle's hard stack), not two that disagree */
        write_file(pdir, "e7.profile", "limits = ( { domain = \"x\"; type = \"soft\"; item = \"nofile\"; value = \"1..2\"; "
                                       "at_least = true; bound = \"range\"; } );\n");
        expect_error("e7", NULL, -EINVAL, "e7.profile:1: limits entry 1: at_least = true and bound = \"range\" "
                                          "contradict each other", NULL);
        write_file(pdir, "e7b.profile", "limits = ( { domain = \"x\"; type = \"hard\"; item = \"stack\"; "
                                        "value = \"32768..10240\"; bound = \"range\"; } );\n");
        expect_error("e7b", NULL, -EINVAL, "e7b.profile:1:", "low end is above its high end", NULL);
        write_file(pdir, "lr.profile", "limits = ( { domain = \"x\"; type = \"hard\"; item = \"stack\"; "
                                       "value = \" 10240 .. 32768 \"; bound = \"range\"; } );\n");
        if (resolve("lr", NULL, &r, &err) < 0)
                fail_msg("%s", err);
        assert_string_equal(find(r, HT_BK_LIMITS, "x hard stack")->value, "10240..32768");
        assert_int_equal(find(r, HT_BK_LIMITS, "x hard stack")->bound, HT_BOUND_RANGE);
        ht_resolved_free(r);
        /* an expression is checked once evaluated, at the setting's line */
        write_file(pdir, "e8.profile", "params = { w = \"many\"; };\nsysctl = {\n  vm = { a = { value = \"= w\"; "
                                       "bound = \"at-least\"; }; };\n};\n");
        expect_error("e8", NULL, -EINVAL, "e8.profile:3: sysctl vm.a at-least: 'many': a bound's fields must be "
                                          "integers", NULL);
        write_file(pdir, "e9.profile", "sysctl = { vm = { a = { value = true; bound = \"at-most\"; }; }; };\n");
        expect_error("e9", NULL, -EINVAL, "e9.profile:1: sysctl vm.a at-most:", NULL);
}

static void test_key_safety(void **state) {
        write_file(pdir, "t1.profile", "sysfs = ( { path = \"/sys/../etc/passwd\"; value = 1; } );\n");
        expect_error("t1", NULL, -EINVAL, "is not a path below /sys", NULL);
        write_file(pdir, "t2.profile", "sysfs = ( { path = \"/etc/passwd\"; value = 1; } );\n");
        expect_error("t2", NULL, -EINVAL, "is not a path below /sys", NULL);
        write_file(pdir, "t3.profile", "sysfs = ( { path = \"/sys/kernel/./mm\"; value = 1; } );\n");
        expect_error("t3", NULL, -EINVAL, "is not a path below /sys", NULL);
        write_file(pdir, "t4.profile", "params = { p = \"..\"; };\n"
                                       "sysfs = ( { path = \"/sys/kernel/${p}/x\"; value = 1; } );\n");
        expect_error("t4", NULL, -EINVAL, "is not a path below /sys", NULL);
        write_file(pdir, "t5.profile", "sysctl = ( { key = \"vm..x\"; value = 1; } );\n");
        expect_error("t5", NULL, -EINVAL, "'vm..x' is not a sysctl name", NULL);
        write_file(pdir, "t6.profile", "sysctl = ( { key = \"../../etc/x\"; value = 1; } );\n");
        expect_error("t6", NULL, -EINVAL, "is not a sysctl name", NULL);
        write_file(pdir, "t7.profile", "sysfs = ( { path = \"/sys/kernel/mm/x\"; value = \"\"; } );\n");
        expect_error("t7", NULL, -EINVAL, "is empty", NULL);
}

static void test_trust(void **state) {
        _cleanup_free_ char *path = xasprintf("%s/trust.profile", pdir);
        write_file(pdir, "trust.profile", "summary = \"t\";\n");
        assert_int_equal(chmod(path, 0666), 0);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        char *err = NULL;
        unsetenv("HOSTTUNE_INSECURE_PROFILES");
        assert_int_equal(ht_trust_check_file(fd, path, true, &err), -EPERM);
        assert_non_null(strstr(err, "writable by group or others (mode 0666)"));
        assert_non_null(strstr(err, "chmod go-w"));
        free(err);
        err = NULL;
        /* not root: nothing to protect */
        assert_int_equal(ht_trust_check_file(fd, path, false, &err), 0);
        setenv("HOSTTUNE_INSECURE_PROFILES", "1", 1);
        assert_int_equal(ht_trust_check_file(fd, path, true, &err), 0);
        unsetenv("HOSTTUNE_INSECURE_PROFILES");
        if (geteuid() == 0) {
                /* owned by someone else */
                assert_int_equal(fchown(fd, 1, 0), 0);
                assert_int_equal(chmod(path, 0644), 0);
                assert_int_equal(ht_trust_check_file(fd, path, true, &err), -EPERM);
                assert_non_null(strstr(err, "owned by uid 1, not root"));
                free(err);
                expect_error("trust", NULL, -EPERM, "trust.profile: owned by uid 1", NULL);
        }
        close(fd);
        remove(path);
        setenv("HOSTTUNE_INSECURE_PROFILES", "1", 1);
}

static void test_list_and_paths(void **state) {
        _cleanup_free_ char *second = xasprintf("%s/second", tmp_root);
        assert_int_equal(mkdir(second, 0755), 0);
        write_file(second, "shadowed.profile", "summary = \"shipped\";\n");
        write_file(second, "zzz.profile", "summary = \"last\";\n");
        _cleanup_free_ char *first = xasprintf("%s/first", tmp_root);
        assert_int_equal(mkdir(first, 0755), 0);
        write_file(first, "shadowed.profile", "summary = \"local\";\n");
        write_file(first, "README", "not a profile\n");

        ht_context *c;
        assert_int_equal(ht_context_new(tmp_root, &c), 0);
        strv_push(&c->profile_path, first);
        strv_push(&c->profile_path, "/nonexistent/dir");
        strv_push(&c->profile_path, second);
        ht_profile_info *l;
        size_t n;
        char *err = NULL;
        assert_int_equal(ht_profile_list(c, &l, &n, &err), 0);
        assert_int_equal(n, 2);
        assert_string_equal(l[0].name, "shadowed");
        assert_string_equal(l[0].summary, "local");
        assert_true(startswith(l[0].file, first));
        assert_string_equal(l[1].name, "zzz");
        ht_profile_info_free(l, n);

        char **d;
        assert_int_equal(ht_profile_default_path(c, &d), 0);
        _cleanup_free_ char *etc = xasprintf("%s/etc/hosttune/profiles", tmp_root);
        assert_string_equal(d[0], etc);
        assert_true(endswith(d[1], "/profiles"));
        strv_free(d);
        assert_int_equal(ht_rules_default_path(c, &d), 0);
        assert_true(endswith(d[0], "/etc/hosttune/rules"));
        strv_free(d);
        ht_context_free(c);
}

/* In a directory a profile was read from (kept checked), a parent is
 * loaded at once, the open its test (issue 34: no faccessat first): one
 * missing there is looked for further on the path; one there but broken
 * is its error, never skipped for a later copy. With the trust checks on. */
static void test_parent_in_kept_dir(void **state) {
        _cleanup_free_ char *first = xasprintf("%s/kept1", tmp_root), *second = xasprintf("%s/kept2", tmp_root);
        assert_int_equal(mkdir(first, 0755), 0);
        assert_int_equal(mkdir(second, 0755), 0);
        write_file(first, "kid.profile", "inherit = \"mom\";\nparams = { k = 1; };\n");
        write_file(second, "mom.profile", "params = { m = 2; };\n");
        write_file(first, "kid2.profile", "inherit = \"broken\";\n");
        write_file(first, "broken.profile", "this is = = not a profile\n");
        write_file(second, "broken.profile", "params = { b = 3; };\n");
        unsetenv("HOSTTUNE_INSECURE_PROFILES");
        for (int round = 0; round < 2; round++) {
                ht_context *c;
                assert_int_equal(ht_context_new(tmp_root, &c), 0);
                strv_push(&c->profile_path, first);
                strv_push(&c->profile_path, second);
                strv_push(&c->rules_path, rdir);
                json_object *f = json_tokener_parse(facts_2m);
                ht_resolved *r = NULL;
                char *err = NULL;
                if (round == 0) {
                        assert_int_equal(ht_profile_resolve_json(c, f, "kid", NULL, &r, &err), 0);
                        assert_string_equal(param(r, "k"), "1");
                        assert_string_equal(param(r, "m"), "2");
                        ht_resolved_free(r);
                } else {
                        assert_true(ht_profile_resolve_json(c, f, "kid2", NULL, &r, &err) < 0);
                        assert_non_null(err);
                        if (!strstr(err, "kept1/broken.profile"))
                                fail_msg("error '%s' does not name kept1/broken.profile", err);
                        free(err);
                }
                json_object_put(f);
                ht_context_free(c);
        }
        setenv("HOSTTUNE_INSECURE_PROFILES", "1", 1);
}

static void test_shipped_profiles_list(void **state) {
        ht_context *c;
        assert_int_equal(ht_context_new("/", &c), 0);
        strv_pushf(&c->profile_path, "%s/profiles", srcdir());
        ht_profile_info *l;
        size_t n;
        char *err = NULL;
        if (ht_profile_list(c, &l, &n, &err) < 0)
                fail_msg("%s", err);
        assert_int_equal(n, 4);
        assert_string_equal(l[0].name, "base");
        assert_string_equal(l[1].name, "jvm");
        assert_string_equal(l[2].name, "mysql");
        assert_string_equal(l[3].name, "oracle");
        for (size_t i = 0; i < n; i++)
                assert_false(isempty(l[i].summary));
        ht_profile_info_free(l, n);
        ht_context_free(c);
}

int main(void) {
        /* the backends a program that loads profiles knows (backend.h) */
        ht_backend_registry_use(ht_backends);
        /* The temp files are ours; the trust test sets this itself. */
        setenv("HOSTTUNE_INSECURE_PROFILES", "1", 1);
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_seed_oracle, setup, teardown),
                cmocka_unit_test_setup_teardown(test_sections, setup, teardown),
                cmocka_unit_test_setup_teardown(test_inheritance, setup, teardown),
                cmocka_unit_test_setup_teardown(test_inheritance_errors, setup, teardown),
                cmocka_unit_test_setup_teardown(test_params, setup, teardown),
                cmocka_unit_test_setup_teardown(test_expression_errors, setup, teardown),
                cmocka_unit_test_setup_teardown(test_format_errors, setup, teardown),
                cmocka_unit_test_setup_teardown(test_bounds, setup, teardown),
                cmocka_unit_test_setup_teardown(test_key_safety, setup, teardown),
                cmocka_unit_test_setup_teardown(test_trust, setup, teardown),
                cmocka_unit_test_setup_teardown(test_list_and_paths, setup, teardown),
                cmocka_unit_test_setup_teardown(test_parent_in_kept_dir, setup, teardown),
                cmocka_unit_test_setup_teardown(test_shipped_profiles_list, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
