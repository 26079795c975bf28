/* The rules engine and the shipped rules: hugepage sizing, memory safety,
 * AMM, Xen, THP, hugetext, swappiness; rule file errors. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "backend.h"
#include "profile.h"
#include "util.h"
#include "tmptree.h"

static char *tmp_root, *pdir, *rdir;

static void write_file(const char *dir, const char *name, const char *content) {
        tt_put(dir, name, content, 0644);
}

static int setup(void **state) {
        tmp_root = tt_mkdtemp("test-rules");
        const char *t = tmp_root;
        pdir = xasprintf("%s/profiles", t);
        rdir = xasprintf("%s/rules", t);
        assert_int_equal(mkdir(pdir, 0755), 0);
        assert_int_equal(mkdir(rdir, 0755), 0);
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

/* Facts of a host, with the few fields the rules read. */
typedef struct {
        const char *release;
        bool xen;
        const char *hp_supported;   /* "true", "false", "null" */
        const char *hp_kb;          /* "2048" or "null" */
        const char *mem_kb;
        const char *thp_supported;
        const char *thp_cmdline;    /* JSON: null or "\"always\"" */
        const char *hugetext;       /* "true"/"false" */
        const char *non_xen_entry;  /* JSON */
        const char *shm_sizes;      /* JSON array */
} host;

static const host kvm = {"5.14.0-362.el9.x86_64", false, "true", "2048", "67108864", "true", "null",
                         "false", "null", "[]"};

static char *facts_json(const host *h) {
        return xasprintf(
                "{ \"kernel\": { \"release\": \"%s\", \"xen\": %s, \"cmdline\": null },"
                "  \"memory\": { \"total_kb\": %s },"
                "  \"hugepages\": { \"supported\": %s, \"default_size_kb\": %s },"
                "  \"thp\": { \"supported\": %s, \"cmdline\": %s, \"sysfs_dir\": %s },"
                "  \"hugetext\": { \"supported\": %s },"
                "  \"bootloader\": { \"non_xen_entry\": %s },"
                "  \"shm\": { \"sizes_bytes\": %s } }",
                h->release, h->xen ? "true" : "false", h->mem_kb, h->hp_supported, h->hp_kb,
                h->thp_supported, h->thp_cmdline,
                streq(h->thp_supported, "false") ? "null" : "\"/sys/kernel/mm/transparent_hugepage\"",
                h->hugetext, h->non_xen_entry, h->shm_sizes);
}

/* Resolve a shipped profile with the shipped rules. */
static ht_resolved *shipped(const host *h, const char *name, char *const *sets) {
        ht_context *c;
        assert_int_equal(ht_context_new(tmp_root, &c), 0);
        strv_pushf(&c->profile_path, "%s/profiles", srcdir());
        strv_pushf(&c->rules_path, "%s/rules", srcdir());
        _cleanup_free_ char *fj = facts_json(h);
        json_object *f = json_tokener_parse(fj);
        assert_non_null(f);
        ht_resolved *r = NULL;
        char *err = NULL;
        if (ht_profile_resolve_json(c, f, name, sets, &r, &err) < 0)
                fail_msg("%s", err);
        json_object_put(f);
        ht_context_free(c);
        return r;
}

/* Resolve with the test's own profiles and rules; returns the error. */
static int custom(const char *name, char *const *sets, ht_resolved **ret, char **err) {
        ht_context *c;
        assert_int_equal(ht_context_new(tmp_root, &c), 0);
        strv_push(&c->profile_path, pdir);
        strv_push(&c->rules_path, rdir);
        _cleanup_free_ char *fj = facts_json(&kvm);
        json_object *f = json_tokener_parse(fj);
        *err = NULL;
        *ret = NULL;
        int k = ht_profile_resolve_json(c, f, name, sets, ret, err);
        json_object_put(f);
        ht_context_free(c);
        return k;
}

static const ht_setting *find(const ht_resolved *r, ht_backend_id b, const char *key) {
        for (size_t i = 0; i < r->n_settings; i++)
                if (r->settings[i].backend == b && streq(r->settings[i].key, key))
                        return &r->settings[i];
        return NULL;
}

static bool any_contains(char *const *l, const char *s) {
        for (size_t i = 0; l && l[i]; i++)
                if (strstr(l[i], s))
                        return true;
        return false;
}

static void test_hugepages_shm(void **state) {
        host h = kvm;
        /* 3G, 1G + 1 byte, one 4 KB segment: 1536 + 513 + 1 pages */
        h.shm_sizes = "[3221225472, 1073741825, 4096]";
        char *sets[] = {"hugepages_from=shm", NULL};
        ht_resolved *r = shipped(&h, "oracle", sets);
        assert_string_equal(find(r, HT_BK_SYSCTL, "vm.nr_hugepages")->value, "2052");
        assert_true(strstr(find(r, HT_BK_SYSCTL, "vm.nr_hugepages")->source, "hugepages-from-shm"));
        assert_null(r->errors);
        ht_resolved_free(r);

        h.shm_sizes = "[]";
        r = shipped(&h, "oracle", sets);
        assert_null(find(r, HT_BK_SYSCTL, "vm.nr_hugepages"));
        assert_true(any_contains(r->errors, "hugepages_from=shm sizes HugePages from the live SysV"));
        assert_true(any_contains(r->errors, "Fix: start the database first"));
        ht_resolved_free(r);

        char *bad[] = {"hugepages_from=sga", NULL};
        r = shipped(&kvm, "oracle", bad);
        assert_true(any_contains(r->errors, "hugepages_from must be \"size\" or \"shm\", not \"sga\""));
        ht_resolved_free(r);
}

static void test_memory_safety(void **state) {
        host h = kvm;
        h.mem_kb = "16777216"; /* 16 GB */
        char *sets[] = {"sga_max_size=18G", NULL};
        ht_resolved *r = shipped(&h, "oracle", sets);
        /* oracle: at most 70 % (Oracle's "Configuring HugePages on Linux") */
        assert_true(any_contains(r->errors, "the plan needs 18.0 GB of HugePages (9218 pages of 2048 KB), "
                                            "the host has 16 GB of memory and HugePages may take at "
                                            "most 70% of it (11.2 GB)."));
        ht_resolved_free(r);
        /* other profiles keep hosttune's 90 % */
        char *mysql[] = {"innodb_buffer_pool_size=18G", NULL};
        r = shipped(&h, "mysql", mysql);
        assert_true(any_contains(r->errors, "HugePages may take at most 90% of it (14.4 GB)."));
        ht_resolved_free(r);
        char *raised[] = {"sga_max_size=14G", "hugepages_max_percent=95", NULL};
        r = shipped(&h, "oracle", raised);
        assert_null(r->errors);
        ht_resolved_free(r);
        char *amm[] = {"sga_max_size=4G", "memory_target=6G", NULL};
        r = shipped(&h, "oracle", amm);
        assert_true(any_contains(r->errors, "Oracle automatic memory management (MEMORY_TARGET=6442450944) "
                                            "cannot use HugePages."));
        assert_true(any_contains(r->errors, "use ASMM"));
        ht_resolved_free(r);
        /* MEMORY_MAX_TARGET alone is AMM too, and is named */
        char *amm_max[] = {"sga_max_size=4G", "memory_max_target=6G", NULL};
        r = shipped(&h, "oracle", amm_max);
        assert_true(any_contains(r->errors, "Oracle automatic memory management (MEMORY_MAX_TARGET=6442450944) "
                                            "cannot use HugePages."));
        ht_resolved_free(r);
        /* AMM without HugePages is fine */
        char *amm_only[] = {"memory_target=6G", NULL};
        r = shipped(&h, "oracle", amm_only);
        assert_null(r->errors);
        ht_resolved_free(r);
}

static void test_xen(void **state) {
        host h = kvm;
        h.release = "2.6.18-398.el5xen";
        h.xen = true;
        h.hp_supported = "false";
        h.hp_kb = "null";
        h.thp_supported = "false";
        h.non_xen_entry = "\"Red Hat Enterprise Linux Server (2.6.18-398.el5)\"";
        char *sets[] = {"sga_max_size=2G", NULL};
        ht_resolved *r = shipped(&h, "oracle", sets);
        /* sized for the 2 MB pages of the kernel to come */
        assert_string_equal(find(r, HT_BK_SYSCTL, "vm.nr_hugepages")->value, "1026");
        assert_true(any_contains(r->errors, "this kernel (2.6.18-398.el5xen) is a Xen kernel, which has "
                                            "no HugePages"));
        assert_true(any_contains(r->errors, "non-Xen entry: 'Red Hat Enterprise Linux Server "
                                            "(2.6.18-398.el5)'"));
        assert_true(any_contains(r->errors, "--set allow_kernel_switch=true"));
        assert_false(r->reboot_required);
        assert_null(find(r, HT_BK_BOOTLOADER, "default"));
        /* old kernel: swappiness 10 */
        assert_string_equal(find(r, HT_BK_SYSCTL, "vm.swappiness")->value, "10");
        assert_null(find(r, HT_BK_CMDLINE, "transparent_hugepage"));
        ht_resolved_free(r);

        char *sw[] = {"sga_max_size=2G", "allow_kernel_switch=true", NULL};
        r = shipped(&h, "oracle", sw);
        assert_null(r->errors);
        assert_true(r->reboot_required);
        const ht_setting *s = find(r, HT_BK_BOOTLOADER, "default");
        assert_string_equal(s->value, "Red Hat Enterprise Linux Server (2.6.18-398.el5)");
        assert_true(strstr(s->source, "rule xen-hugepages-switch"));
        assert_true(find(r, HT_BK_SYSCTL, "vm.nr_hugepages")->boot_only);
        assert_true(any_contains(r->warnings, "is the default from now on"));
        ht_resolved_free(r);

        h.non_xen_entry = "null";
        r = shipped(&h, "oracle", sw);
        assert_true(any_contains(r->errors, "the bootloader has no non-Xen entry"));
        assert_false(r->reboot_required);
        ht_resolved_free(r);

        /* no HugePages wanted: nothing to say */
        r = shipped(&h, "oracle", NULL);
        assert_null(r->errors);
        ht_resolved_free(r);
}

static void test_thp(void **state) {
        ht_resolved *r = shipped(&kvm, "oracle", NULL);
        assert_string_equal(find(r, HT_BK_SYSFS, "/sys/kernel/mm/transparent_hugepage/enabled")->value,
                            "never");
        assert_string_equal(find(r, HT_BK_CMDLINE, "transparent_hugepage")->value, "never");
        ht_resolved_free(r);

        host uek = kvm;
        uek.release = "5.15.0-206.153.7.1.el8uek.x86_64";
        uek.thp_cmdline = "\"always\"";
        r = shipped(&uek, "oracle", NULL);
        assert_string_equal(find(r, HT_BK_SYSFS, "/sys/kernel/mm/transparent_hugepage/enabled")->value,
                            "madvise");
        assert_string_equal(find(r, HT_BK_CMDLINE, "transparent_hugepage")->value, "madvise");
        assert_true(any_contains(r->warnings, "is UEK7 or later: THP is set to madvise"));
        assert_true(any_contains(r->warnings, "booted with transparent_hugepage=always"));
        ht_resolved_free(r);

        host uek6 = kvm;
        uek6.release = "5.4.17-2136.300.7.el8uek.x86_64";
        r = shipped(&uek6, "oracle", NULL);
        assert_string_equal(find(r, HT_BK_CMDLINE, "transparent_hugepage")->value, "never");
        ht_resolved_free(r);

        /* mysql on UEK7 stays never: the exception is Oracle's */
        r = shipped(&uek, "mysql", NULL);
        assert_string_equal(find(r, HT_BK_CMDLINE, "transparent_hugepage")->value, "never");
        ht_resolved_free(r);

        /* no /sys known (image build): sysfs optional, cmdline required */
        host img = kvm;
        img.thp_supported = "null";
        r = shipped(&img, "jvm", NULL);
        const ht_setting *s = find(r, HT_BK_SYSFS, "/sys/kernel/mm/transparent_hugepage/enabled");
        assert_true(s->optional);
        assert_string_equal(s->value, "madvise");
        assert_string_equal(find(r, HT_BK_CMDLINE, "transparent_hugepage")->value, "madvise");
        ht_resolved_free(r);

        char *bad[] = {"thp=off", NULL};
        r = shipped(&kvm, "oracle", bad);
        assert_true(any_contains(r->errors, "thp must be never, madvise, always"));
        ht_resolved_free(r);
}

static void test_hugetext(void **state) {
        host al = kvm;
        al.release = "5.10.134-16.al8.x86_64";
        al.hugetext = "true";
        ht_resolved *r = shipped(&al, "mysql", NULL);
        assert_string_equal(find(r, HT_BK_SYSFS, "/sys/kernel/mm/transparent_hugepage/hugetext_enabled")->value,
                            "1");
        const ht_setting *s = find(r, HT_BK_SYSFS, "/sys/kernel/mm/transparent_hugepage/hugetext_pad_threshold");
        assert_string_equal(s->value, "4096");
        assert_string_equal(find(r, HT_BK_CMDLINE, "hugetext")->value, "1");
        assert_false(any_contains(r->warnings, "hugetext"));
        ht_resolved_free(r);

        r = shipped(&al, "jvm", NULL);
        assert_string_equal(find(r, HT_BK_CMDLINE, "hugetext")->value, "2");
        ht_resolved_free(r);
        char *both[] = {"workload=db+jit", NULL};
        r = shipped(&al, "jvm", both);
        assert_string_equal(find(r, HT_BK_CMDLINE, "hugetext")->value, "3");
        ht_resolved_free(r);

        /* a kernel without hugetext: skipped, with the reason, and no
         * warning at all (it would be on every plan of every such host) */
        r = shipped(&kvm, "mysql", NULL);
        assert_null(find(r, HT_BK_CMDLINE, "hugetext"));
        assert_null(find(r, HT_BK_SYSFS, "/sys/kernel/mm/transparent_hugepage/hugetext_enabled"));
        assert_false(any_contains(r->warnings, "hugetext"));
        assert_int_equal(r->skipped.n, 1);
        assert_string_equal(r->skipped.items[0].setting,
                            "sysfs /sys/kernel/mm/transparent_hugepage/hugetext_enabled, "
                            "sysfs /sys/kernel/mm/transparent_hugepage/hugetext_pad_threshold, cmdline hugetext");
        assert_true(strstr(r->skipped.items[0].reason, "hugetext=1: this kernel (5.14.0-362.el9.x86_64) has no "));
        assert_true(strstr(r->skipped.items[0].reason, "Alibaba Cloud Linux 2 with kernel 4.19.91-25"));
        assert_true(strstr(r->skipped.items[0].reason, "Alibaba Cloud Linux 3 with kernel 5.10.112-11"));
        assert_true(startswith(r->skipped.items[0].source, "rule hugetext-unavailable ("));
        assert_null(r->errors);
        ht_resolved_free(r);

        /* hugetext=0: nothing set, nothing skipped */
        char *off[] = {"hugetext=0", NULL};
        r = shipped(&kvm, "mysql", off);
        assert_int_equal(r->skipped.n, 0);
        ht_resolved_free(r);

        char *bad[] = {"hugetext=4", NULL};
        r = shipped(&al, "mysql", bad);
        assert_true(any_contains(r->errors, "hugetext must be 0 (off)"));
        ht_resolved_free(r);
}

/* What the pages need besides themselves follows how the workload maps
 * them (issue 33): mmap(MAP_HUGETLB) (MySQL 8.0, MariaDB 10.5+, HotSpot)
 * needs no memlock limit and no vm.hugetlb_shm_group; SysV SHM_HUGETLB
 * segments (hugepages_sysv: an old server, -XX:+UseSHM) need both. */
static void test_large_pages(void **state) {
        char *sets[] = {"innodb_buffer_pool_size=8G", "mysql_unit=mariadb", NULL};
        ht_resolved *r = shipped(&kvm, "mysql", sets);
        assert_string_equal(find(r, HT_BK_SYSCTL, "vm.nr_hugepages")->value, "4098");
        assert_null(find(r, HT_BK_SERVICE, "mariadb.service LimitMEMLOCK"));
        assert_null(find(r, HT_BK_LIMITS, "mysql soft memlock"));
        assert_null(find(r, HT_BK_SYSCTL, "vm.hugetlb_shm_group"));
        assert_false(any_contains(r->warnings, "hugetlb_shm_group"));
        ht_resolved_free(r);
        /* MySQL 5.7 or MariaDB 10.4: shmget() segments */
        char *old[] = {"innodb_buffer_pool_size=8G", "mysql_unit=mariadb", "hugepages_sysv=true", NULL};
        r = shipped(&kvm, "mysql", old);
        const ht_setting *s = find(r, HT_BK_SERVICE, "mariadb.service LimitMEMLOCK");
        assert_string_equal(s->value, "8594128896");
        assert_true(s->at_least);
        assert_string_equal(find(r, HT_BK_LIMITS, "mysql soft memlock")->value, "8392704");
        ht_resolved_free(r);

        char *heap[] = {"heap_size=31G", "jvm_user=es", NULL};
        r = shipped(&kvm, "jvm", heap);
        assert_string_equal(find(r, HT_BK_SYSCTL, "vm.nr_hugepages")->value, "15874");
        assert_null(find(r, HT_BK_LIMITS, "es hard memlock"));
        assert_null(find(r, HT_BK_SYSCTL, "vm.hugetlb_shm_group"));
        assert_non_null(find(r, HT_BK_LIMITS, "es soft nofile"));
        assert_true(find(r, HT_BK_LIMITS, "es soft nofile")->at_least);
        assert_true(find(r, HT_BK_LIMITS, "es hard nproc")->at_least);
        /* Elastic's current minimum, a bound: a host above keeps its value */
        assert_string_equal(find(r, HT_BK_SYSCTL, "vm.max_map_count")->value, "1048576");
        assert_int_equal(find(r, HT_BK_SYSCTL, "vm.max_map_count")->bound, HT_BOUND_AT_LEAST);
        ht_resolved_free(r);
        /* -XX:+UseSHM: the memlock limit again */
        char *shm[] = {"heap_size=31G", "jvm_user=es", "hugepages_sysv=true", NULL};
        r = shipped(&kvm, "jvm", shm);
        assert_string_equal(find(r, HT_BK_LIMITS, "es hard memlock")->value, "32509952");
        ht_resolved_free(r);

        /* no heap_size: no HugePages at all */
        r = shipped(&kvm, "jvm", NULL);
        assert_null(find(r, HT_BK_SYSCTL, "vm.nr_hugepages"));
        assert_null(find(r, HT_BK_LIMITS, "java soft memlock"));
        ht_resolved_free(r);
}

static void test_swappiness(void **state) {
        write_file(pdir, "zero.profile", "sysctl = { vm = { swappiness = 0; }; };\n");
        _cleanup_free_ char *src = xasprintf("%s/rules/60-swappiness.rules", srcdir());
        FILE *f = fopen(src, "re");
        assert_non_null(f);
        char buf[65536];
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        assert_true(n < sizeof(buf) - 1);
        buf[n] = 0;
        fclose(f);
        write_file(rdir, "60-swappiness.rules", buf);
        ht_resolved *r;
        char *err;
        if (custom("zero", NULL, &r, &err) < 0)
                fail_msg("%s", err);
        assert_true(any_contains(r->errors, "vm.swappiness=0 keeps the kernel from swapping"));
        assert_true(any_contains(r->errors, "(rule swappiness-zero, "));
        ht_resolved_free(r);
}

/* vm.swappiness on one kernel for one profile: the vendor's own value,
 * unchanged and without a warning, old kernel or new (issue 33: 1 used to
 * become 10 before 3.5, which no source asks for). */
static void expect_swappiness(const char *profile, const char *release, const char *value) {
        host h = kvm;
        h.release = release;
        ht_resolved *r = shipped(&h, profile, NULL);
        const ht_setting *s = find(r, HT_BK_SYSCTL, "vm.swappiness");
        if (!streq(s->value, value))
                fail_msg("%s on kernel %s: vm.swappiness %s, expected %s", profile, release, s->value, value);
        assert_false(any_contains(r->warnings, "swappiness"));
        ht_resolved_free(r);
}

static void test_swappiness_kernels(void **state) {
        static const char *const kernels[] = {
                "5.14.0-362.el9.x86_64", "3.10.0-1160.el7.x86_64", "3.5.0",
                /* RHEL 6.4 and later (2.6.32-303.el6 on) have the 3.5 behaviour */
                "2.6.32-754.35.1.el6.x86_64", "2.6.32-303.el6.x86_64",
                /* RHEL 6.3, Debian's 2.6.32, UEK R1, RHEL 5, SLES 11 SP2's 3.0, 3.4 */
                "2.6.32-279.el6.x86_64", "2.6.32-5-amd64", "2.6.32-400.37.15.el6uek.x86_64", "2.6.18-398.el5",
                "3.0.13-0.27-default", "3.4.113",
        };
        for (size_t i = 0; i < ELEMENTSOF(kernels); i++) {
                expect_swappiness("base", kernels[i], "1");
                expect_swappiness("mysql", kernels[i], "1");   /* MariaDB's 1 */
                expect_swappiness("jvm", kernels[i], "1");     /* Elastic's 1 */
                expect_swappiness("oracle", kernels[i], "10"); /* Red Hat's 10 for Oracle */
        }
}

/* cgroup v1: a warning that memory cgroups keep their own swappiness;
 * cgroup v2 or an unknown version: none. */
static void test_swappiness_cgroup(void **state) {
        static const char *const versions[] = {"1", "2", "null"};
        for (size_t i = 0; i < ELEMENTSOF(versions); i++) {
                ht_context *c;
                assert_int_equal(ht_context_new(tmp_root, &c), 0);
                strv_pushf(&c->profile_path, "%s/profiles", srcdir());
                strv_pushf(&c->rules_path, "%s/rules", srcdir());
                _cleanup_free_ char *fj = facts_json(&kvm);
                json_object *f = json_tokener_parse(fj), *cg = json_object_new_object();
                json_object_object_add(cg, "version", json_tokener_parse(versions[i]));
                json_object_object_add(f, "cgroup", cg);
                assert_non_null(f);
                ht_resolved *r = NULL;
                char *err = NULL;
                if (ht_profile_resolve_json(c, f, "mysql", NULL, &r, &err) < 0)
                        fail_msg("%s", err);
                bool warned = any_contains(r->warnings, "memory controller as cgroup v1") &&
                              any_contains(r->warnings, "vm.swappiness=1 does not reach") &&
                              any_contains(r->warnings, "(rule swappiness-cgroup-v1)");
                assert_int_equal(warned, i == 0);
                ht_resolved_free(r);
                json_object_put(f);
                ht_context_free(c);
        }
}

/* A rule that drops only optional settings lists them as skipped with its
 * message; one that drops a required setting still warns. */
static void test_rule_skips(void **state) {
        write_file(pdir, "s.profile",
                   "sysctl = { vm = { a = { value = 1; optional = true; }; b = 2; }; };\n");
        write_file(rdir, "10-s.rules",
                   "rules = (\n"
                   "  { name = \"no-a\"; skip = { backend = \"sysctl\"; key = \"vm.a\"; };\n"
                   "    warn = \"vm.a: not on this kernel\"; },\n"
                   "  { name = \"no-b\"; skip = { backend = \"sysctl\"; key = \"vm.b\"; }; }\n"
                   ");\n");
        ht_resolved *r;
        char *err;
        if (custom("s", NULL, &r, &err) < 0)
                fail_msg("%s", err);
        assert_null(find(r, HT_BK_SYSCTL, "vm.a"));
        assert_null(find(r, HT_BK_SYSCTL, "vm.b"));
        assert_int_equal(r->skipped.n, 1);
        assert_string_equal(r->skipped.items[0].setting, "sysctl vm.a");
        assert_string_equal(r->skipped.items[0].reason, "vm.a: not on this kernel");
        assert_true(startswith(r->skipped.items[0].source, "rule no-a ("));
        assert_true(strstr(r->skipped.items[0].source, "10-s.rules:2)"));
        assert_false(any_contains(r->warnings, "vm.a"));
        assert_true(any_contains(r->warnings, "skipped sysctl vm.b (from "));
        _cleanup_free_ char *text = ht_resolved_format_text(r);
        assert_true(strstr(text, "\nskipped (optional):\n  vm.a: not on this kernel (rule no-a ("));
        json_object *j = ht_resolved_to_json(r);
        json_object *sk = NULL;
        assert_true(json_object_object_get_ex(j, "skipped", &sk));
        assert_int_equal(json_object_array_length(sk), 1);
        json_object_put(j);
        ht_resolved_free(r);
}

static void test_custom_rules(void **state) {
        write_file(pdir, "app.profile",
                   "params = { level = 3; };\n"
                   "sysctl = { vm = { a = 1; b = 2; }; };\n"
                   "limits = ( { domain = \"app\"; type = \"soft\"; item = \"nofile\"; value = \"unlimited\"; } );\n");
        write_file(rdir, "10-a.rules",
                   "params = { extra = 5; who = \"app\"; };\n"
                   "rules = (\n"
                   "  { name = \"raise\"; when = \"setting.sysctl.vm.a == 1\";\n"
                   "    set = { backend = \"sysctl\"; key = \"vm.a\"; value = \"= extra + level\"; }; },\n"
                   "  { name = \"drop\"; when = \"defined(setting.sysctl.vm.b)\";\n"
                   "    skip = { backend = \"sysctl\"; key = \"vm.b\"; }; warn = \"b is ${\\\"not\\\" + \\\" wanted\\\"}\"; },\n"
                   "  { name = \"keep\"; set = { backend = \"limits\"; domain = \"${who}\"; type = \"soft\";\n"
                   "    item = \"nofile\"; value = 1024; at_least = true; }; },\n"
                   "  { name = \"never\"; when = \"false\"; error = \"not reached\"; },\n"
                   "  { name = \"unknown-facts-do-not-fire\"; when = \"facts.thp.cmdline == \\\"x\\\" || "
                   "null == 1\"; error = \"x\"; }\n"
                   ");\n");
        write_file(rdir, "20-b.rules",
                   "rules = ( { name = \"fail\"; when = \"setting.sysctl.vm.a > 7\";\n"
                   "            error = \"a is ${setting.sysctl.vm.a}, ${7 / 2} too many\"; fix = \"lower it\"; } );\n");
        write_file(rdir, "README", "not rules\n");
        ht_resolved *r;
        char *err;
        if (custom("app", NULL, &r, &err) < 0)
                fail_msg("%s", err);
        const ht_setting *s = find(r, HT_BK_SYSCTL, "vm.a");
        assert_string_equal(s->value, "8");
        assert_true(strstr(s->source, "rule raise ("));
        assert_true(strstr(s->source, "10-a.rules:4)"));
        assert_null(find(r, HT_BK_SYSCTL, "vm.b"));
        assert_true(any_contains(r->warnings, "skipped sysctl vm.b (from "));
        assert_true(any_contains(r->warnings, "): b is not wanted (rule drop)"));
        assert_true(any_contains(r->warnings, "sysctl vm.a: rule raise sets 8, replacing 1 from "));
        /* at_least keeps the larger (unlimited) value silently */
        assert_string_equal(find(r, HT_BK_LIMITS, "app soft nofile")->value, "unlimited");
        assert_int_equal(strv_length(r->errors), 1);
        assert_true(strstr(r->errors[0], "a is 8, 3.5 too many. Fix: lower it (rule fail, "));
        ht_resolved_free(r);

        /* rule parameters take --set too, and the profile overrides them */
        char *sets[] = {"extra=0", NULL};
        if (custom("app", sets, &r, &err) < 0)
                fail_msg("%s", err);
        assert_string_equal(find(r, HT_BK_SYSCTL, "vm.a")->value, "3");
        assert_null(r->errors);
        ht_resolved_free(r);
}

static void expect_rules_error(const char *rules, const char *needle) {
        write_file(pdir, "p.profile", "sysctl = { vm = { a = 1; }; };\n");
        write_file(rdir, "50-x.rules", rules);
        ht_resolved *r;
        char *err;
        int k = custom("p", NULL, &r, &err);
        if (k >= 0)
                fail_msg("rules '%s' were accepted", rules);
        if (!strstr(err, needle))
                fail_msg("error '%s' lacks '%s'", err, needle);
        free(err);
}

static void test_rule_errors(void **state) {
        expect_rules_error("rules = ( { name = \"x\"; when = \"true\"; warnn = \"w\"; } );\n",
                           "50-x.rules:1: rule 1: unknown key 'warnn' (did you mean 'warn'?)");
        expect_rules_error("rules = ( { when = \"true\"; warn = \"w\"; } );\n",
                           "50-x.rules:1: rule 1: needs a 'name'");
        expect_rules_error("rules = ( { name = \"x\"; when = \"true\"; } );\n",
                           "rule x: has no action");
        expect_rules_error("rules = ( { name = \"x\"; warn = \"a\"; },\n { name = \"x\"; warn = \"b\"; } );\n",
                           "50-x.rules:2: rule 'x' is defined twice (also at line 1)");
        expect_rules_error("rules = ( { name = \"x\"; set = { backend = \"sysctrl\"; key = \"a\"; value = 1; }; } );\n",
                           "unknown backend 'sysctrl' (did you mean 'sysctl'?)");
        expect_rules_error("rules = ( { name = \"x\"; set = { backend = \"sysctl\"; key = \"vm.a\"; }; } );\n",
                           "needs a 'value'");
        expect_rules_error("rules = ( { name = \"x\"; set = { backend = \"limits\"; key = \"a\"; value = 1; }; } );\n",
                           "'domain' is missing");
        expect_rules_error("rules = ( { name = \"x\"; when = \"1 + 1\"; warn = \"w\"; } );\n",
                           "50-x.rules:1: rule x: when: must be true or false, not '2'");
        expect_rules_error("\n\nrules = ( { name = \"x\"; when = \"setting.sysctll.vm.a == 1\"; warn = \"w\"; } );\n",
                           "50-x.rules:3: rule x: when: column 1: unknown name 'setting.sysctll.vm.a' "
                           "(did you mean 'setting.sysctl.vm.a'?)");
        expect_rules_error("rules = ( { name = \"x\"; when = \"undeclared > 1\"; warn = \"w\"; } );\n",
                           "unknown name 'undeclared'");
        expect_rules_error("rules = ( { name = \"x\"; fix = \"f\"; warn = \"w\"; } );\n",
                           "'fix' goes with 'error'");
        expect_rules_error("rules = ( { name = \"x\"; warn = \"${1 / 0}\"; } );\n", "division by zero");
        expect_rules_error("rules = ( { name = \"x\"; set = { backend = \"sysfs\"; path = \"/proc/x\"; value = 1; }; } );\n",
                           "is not a path below /sys");
        expect_rules_error("rules = ( { name = \"x\"; bootloader_default = \"= facts.bootloader.non_xen_entry\"; } );\n",
                           "needs the title of a boot entry");
        expect_rules_error("rule = ( );\n", "unknown key 'rule' (did you mean 'rules'?)");
        expect_rules_error("rules = { };\n", "rules: expected a list");
}

int main(void) {
        /* the backends a program that loads profiles knows (backend.h) */
        ht_backend_registry_use(ht_backends);
        setenv("HOSTTUNE_INSECURE_PROFILES", "1", 1);
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_hugepages_shm, setup, teardown),
                cmocka_unit_test_setup_teardown(test_memory_safety, setup, teardown),
                cmocka_unit_test_setup_teardown(test_xen, setup, teardown),
                cmocka_unit_test_setup_teardown(test_thp, setup, teardown),
                cmocka_unit_test_setup_teardown(test_hugetext, setup, teardown),
                cmocka_unit_test_setup_teardown(test_large_pages, setup, teardown),
                cmocka_unit_test_setup_teardown(test_swappiness, setup, teardown),
                cmocka_unit_test_setup_teardown(test_swappiness_kernels, setup, teardown),
                cmocka_unit_test_setup_teardown(test_swappiness_cgroup, setup, teardown),
                cmocka_unit_test_setup_teardown(test_rule_skips, setup, teardown),
                cmocka_unit_test_setup_teardown(test_custom_rules, setup, teardown),
                cmocka_unit_test_setup_teardown(test_rule_errors, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
