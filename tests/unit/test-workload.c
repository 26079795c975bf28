/* Workload facts (java heaps, oratab), --facts loading, and the
 * recommendation's scores, ties and no match. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "facts-internal.h"
#include "facts.h"
#include "recommend.h"
#include "tmptree.h"
#include "util.h"

static int heap(const char *argv, size_t len, uint64_t *ret) {
        return ht_java_max_heap(argv, len, ret);
}
#define HEAP(lit, ret) heap(lit, sizeof(lit) - 1, ret)

static void test_java_heap(void **state) {
        uint64_t h = 0;
        assert_int_equal(HEAP("java\0-Xmx8g\0", &h), 0);
        assert_int_equal(h, UINT64_C(8) << 30);
        /* the last one wins, as in the JVM */
        assert_int_equal(HEAP("java\0-Xmx8g\0-Xmx512m\0", &h), 0);
        assert_int_equal(h, UINT64_C(512) << 20);
        assert_int_equal(HEAP("java\0-XX:MaxHeapSize=1073741824\0", &h), 0);
        assert_int_equal(h, UINT64_C(1) << 30);
        assert_int_equal(HEAP("java\0-Xms4g\0-jar\0x\0", &h), -ENOENT);
        /* junk is no heap, and does not reset a good one */
        assert_int_equal(HEAP("java\0-Xmx\0-Xmxjunk\0-Xmx8gb\0-Xmx-1g\0", &h), -ENOENT);
        assert_int_equal(HEAP("java\0-Xmx2g\0-Xmx99999999999999999999999g\0", &h), 0);
        assert_int_equal(h, UINT64_C(2) << 30);
        /* an argument not ended by NUL (cut short) is not read past the end */
        char cut[] = {'-', 'X', 'm', 'x', '4', 'g'};
        assert_int_equal(heap(cut, sizeof cut, &h), -ENOENT);
        assert_int_equal(heap("", 0, &h), -ENOENT);
}

static void test_oratab(void **state) {
        ht_facts *f = ht_facts_new();
        const char *t = "# comment\n\nORCL:/u01/app/oracle/product/19/db:Y\n*:/u01/home:N\n"
                        "+ASM:/u01/grid:N\nORCL:/dup:N\nbad sid:/x:N\nnocolon\nCDB2:/x:N";
        ht_facts_parse_oratab(f, t, strlen(t), "oratab");
        assert_int_equal(strv_length(f->oratab_sids), 3);
        assert_string_equal(f->oratab_sids[0], "ORCL");
        assert_string_equal(f->oratab_sids[1], "+ASM");
        assert_string_equal(f->oratab_sids[2], "CDB2");
        ht_facts_free(f);
}

static char *write_tmp(const char *dir, const char *name, const char *content) {
        tt_put(dir, name, content, 0644);
        return xasprintf("%s/%s", dir, name);
}

static void test_load_kernel(void **state) {
        char *d = tt_mkdtemp("load");
        ht_facts *f = ht_facts_new();
        char *err = NULL;

        /* a round trip: what facts-json writes, facts-load reads */
        ht_facts *src = ht_facts_new();
        src->kernel_release = xstrdup("5.10.134-16.al8.x86_64");
        src->kernel_cmdline = xstrdup("ro transparent_hugepage=never hugetext=1");
        src->mem_total_kb = 8000000;
        src->memory_known = true;
        src->hugepages_supported = HT_YES;
        src->hugepage_default_kb = 2048;
        src->hugepage_sizes_kb = xmalloc(2 * sizeof(uint64_t));
        src->hugepage_sizes_kb[0] = 2048;
        src->hugepage_sizes_kb[1] = 1048576;
        src->n_hugepage_sizes = 2;
        src->hugepages_total = src->hugepages_free = src->hugepages_rsvd = src->hugepages_surp = 0;
        src->thp_supported = HT_YES;
        src->thp_enabled = xstrdup("madvise");
        src->thp_sysfs_dir = xstrdup("/sys/kernel/mm/transparent_hugepage");
        src->hugetext_supported = HT_YES;
        src->hugetext_enabled = 1;
        src->cpu_count = 4;
        strv_push(&src->cpu_flags, "pdpe1gb");
        src->hypervisor = xstrdup("kvm");
        src->cgroup_version = 1;
        json_object *j = ht_facts_to_json(src);
        char *good = write_tmp(d, "good.json", json_object_to_json_string(j));
        json_object_put(j);
        ht_facts_free(src);

        assert_int_equal(ht_facts_load_kernel(f, good, &err), 0);
        assert_string_equal(f->kernel_release, "5.10.134-16.al8.x86_64");
        assert_int_equal(f->mem_total_kb, 8000000);
        assert_true(f->memory_known);
        assert_int_equal(f->hugepage_default_kb, 2048);
        assert_int_equal(f->n_hugepage_sizes, 2);
        assert_int_equal(f->hugepage_sizes_kb[1], 1048576);
        assert_int_equal(f->hugetext_supported, HT_YES);
        assert_int_equal(f->hugetext_enabled, 1);
        assert_int_equal(f->cpu_count, 4);
        assert_string_equal(f->thp_cmdline, "never");
        assert_string_equal(f->hypervisor, "kvm");
        assert_int_equal(f->cgroup_version, 1);
        assert_string_equal(f->facts_file, good);
        assert_null(f->boot_id);

        /* bad files: an error naming the field; f keeps what it had */
        static const struct {
                const char *json, *msg;
        } bad[] = {
                {"{\"kernel\": {\"release\": 5}, \"memory\": {}}", "kernel.release: expected a string, got int"},
                {"{\"kernel\": {}, \"memory\": {\"total_kb\": -1}}", "memory.total_kb: expected a whole number"},
                {"{\"kernel\": {}, \"memory\": {}, \"hugepages\": {\"sizes_kb\": [2048, \"x\"]}}", "element 1"},
                {"{\"kernel\": {}, \"memory\": {}, \"thp\": {\"sysfs_dir\": \"/etc\"}}", "thp.sysfs_dir"},
                {"{\"kernel\": {\"cmdline\": \"a\\nb\"}, \"memory\": {}}", "kernel.cmdline"},
                {"{\"kernel\": {}, \"memory\": {}, \"cpu\": {\"flags\": [\"a b\"]}}", "cpu.flags"},
                {"{\"kernel\": {}, \"memory\": {}, \"hugepages\": {\"default_size_kb\": 0}}", "0 is not a page size"},
                {"{\"kernel\": {}, \"memory\": {}, \"cgroup\": {\"version\": 3}}", "cgroup.version: must be 1 or 2, not 3"},
                {"{\"kernel\": {}, \"memory\": {}, \"cgroup\": {\"version\": \"1\"}}", "cgroup.version: expected a whole number"},
                {"{\"kernel\": {}, \"memory\": {}, \"image\": {\"offline\": true}}", "collected from an offline image"},
                {"{\"kernel\": {}}", "does not look like the output"},
                {"[]", "does not look like the output"},
                {"{\"kernel\": {}, \"memory\": {}} junk", "not valid JSON"},
                {"", "not valid JSON"},
        };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                char *p = write_tmp(d, "bad.json", bad[i].json);
                err = NULL;
                assert_true(ht_facts_load_kernel(f, p, &err) < 0);
                assert_non_null(err);
                if (!strstr(err, bad[i].msg))
                        fail_msg("case %zu: '%s' lacks '%s'", i, err, bad[i].msg);
                free(err);
                free(p);
                assert_string_equal(f->kernel_release, "5.10.134-16.al8.x86_64");
        }
        err = NULL;
        char *missing = xasprintf("%s/missing.json", d);
        assert_int_equal(ht_facts_load_kernel(f, missing, &err), -ENOENT);
        free(err);
        err = NULL;
        assert_int_equal(ht_facts_load_kernel(f, d, &err), -EINVAL);
        assert_non_null(strstr(err, "not a regular file"));
        free(err);
        free(missing);
        free(good);
        ht_facts_free(f);
        tt_rm_rf(d);
        free(d);
}

static void add_proc(ht_facts *f, unsigned pid, const char *name, ht_process_kind k, uint64_t heap) {
        f->processes = xrealloc(f->processes, (f->n_processes + 1) * sizeof(*f->processes));
        /* a system service's: trusted (ht_trust) */
        f->processes[f->n_processes++] = (ht_process){.pid = pid, .name = xstrdup(name), .kind = k,
                                                      .max_heap_bytes = heap, .trust = HT_TRUST_SERVICE,
                                                      .uid = -1};
        f->processes_known = true;
}

static void test_recommend(void **state) {
        ht_recommendation r;
        ht_facts *f = ht_facts_new();

        /* nothing: base, and why */
        ht_recommend(f, &r);
        assert_string_equal(r.profile, "base");
        assert_int_equal(r.score, 0);
        assert_non_null(strstr(r.why, "running processes could not be looked at"));
        ht_recommendation_done(&r);

        /* a tie between a large JVM (3+2) and a running mysqld (5): mysql */
        add_proc(f, 10, "java", HT_PROC_JAVA, UINT64_C(16) << 30);
        add_proc(f, 20, "mysqld", HT_PROC_MYSQL, HT_U64_UNKNOWN);
        ht_recommend(f, &r);
        assert_string_equal(r.profile, "mysql");
        assert_int_equal(r.candidates[HT_REC_MYSQL].score, 5);
        assert_int_equal(r.candidates[HT_REC_JVM].score, 5);
        assert_non_null(strstr(r.why, "tie at score 5"));
        assert_null(r.sets);
        ht_recommendation_done(&r);

        /* Oracle with shared memory beats both, and sizes from shm */
        f->oracle_user = xstrdup("oracle");
        f->oracle_uid = 54321;
        f->shm_known = true;
        f->shm = xcalloc(2, sizeof(*f->shm));
        f->shm[0] = (ht_shm_segment){.size_bytes = UINT64_C(1) << 30, .uid = 54321};
        f->shm[1] = (ht_shm_segment){.size_bytes = 4096, .uid = 0};
        f->n_shm = 2;
        add_proc(f, 30, "ora_pmon_ORCL", HT_PROC_ORACLE, HT_U64_UNKNOWN);
        add_proc(f, 31, "ora_pmon_CDB2", HT_PROC_ORACLE, HT_U64_UNKNOWN);
        ht_recommend(f, &r);
        assert_string_equal(r.profile, "oracle");
        /* user 1 + one running instance 5 (the second adds nothing) + shm 3 */
        assert_int_equal(r.score, 9);
        assert_int_equal(r.candidates[HT_REC_ORACLE].n_evidence, 4);
        assert_non_null(strstr(r.candidates[HT_REC_ORACLE].evidence[3].what, "1 SysV shared memory segment (1.0 GiB)"));
        assert_string_equal(r.sets[0], "hugepages_from=shm");
        assert_non_null(strstr(r.why, "highest score"));
        char *cmd = ht_recommendation_command(&r);
        assert_string_equal(cmd, "hosttune plan oracle --set hugepages_from=shm");
        free(cmd);
        json_object *j = ht_recommendation_to_json(&r);
        assert_non_null(strstr(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN), "\"pid\":30"));
        json_object_put(j);
        ht_recommendation_done(&r);
        ht_facts_free(f);

        /* a MariaDB unit: the profile is told which unit */
        f = ht_facts_new();
        strv_push(&f->mysql_units, "/usr/lib/systemd/system/mariadb.service");
        ht_recommend(f, &r);
        assert_string_equal(r.profile, "mysql");
        assert_string_equal(r.sets[0], "mysql_unit=mariadb.service");
        ht_recommendation_done(&r);
        ht_facts_free(f);
}

/* /proc of a tree: only the processes that matter, junk skipped. */
static void test_collect(void **state) {
        char *d = tt_mkdtemp("workload");
        tt_mkdir(d, "proc");
        tt_mkdir(d, "proc/sys");
        tt_mkdir(d, "proc/sys/kernel");
        tt_mkdir(d, "etc");
        tt_put(d, "etc/passwd", "root:x:0:0::/root:/bin/sh\noracle:x:1001:1001::/home/oracle:/bin/sh\n", 0644);
        const char *procs[][3] = {
                {"7", "ora_pmon_LONGSID\n", "ora_pmon_LONGSIDNAME                 "},
                {"8", "bash\n", "-bash"},
                {"9", "java\n", "/opt/jdk/bin/java\0-Xmx3g"},
                {"10", "\001\377\n", "\377"},
        };
        for (size_t i = 0; i < ELEMENTSOF(procs); i++) {
                char *p = xasprintf("proc/%s", procs[i][0]);
                tt_mkdir(d, p);
                char *c = xasprintf("%s/comm", p), *l = xasprintf("%s/cmdline", p);
                tt_put(d, c, procs[i][1], 0644);
                tt_put(d, l, procs[i][2], 0644);
                free(p);
                free(c);
                free(l);
        }
        tt_mkdir(d, "proc/notapid");
        ht_context *c;
        assert_int_equal(ht_context_new(d, &c), 0);
        ht_facts *f = ht_facts_new();
        ht_facts_collect_workload(c, f);
        assert_true(f->processes_known);
        assert_int_equal(f->n_processes, 2);
        /* argv[0] has the whole name comm cut at 15 bytes */
        assert_string_equal(f->processes[0].name, "ora_pmon_LONGSIDNAME");
        assert_int_equal(f->processes[1].pid, 9);
        /* the cmdline was cut by tt_put at the NUL: no heap */
        assert_int_equal(f->processes[1].max_heap_bytes, HT_U64_UNKNOWN);
        assert_string_equal(f->oracle_user, "oracle");
        assert_int_equal(f->oracle_uid, 1001);
        assert_null(f->oratab);
        assert_int_equal(strv_length(f->warnings), 0);
        ht_facts_free(f);
        ht_context_free(c);
        tt_rm_rf(d);
        free(d);
}

/* systemd's tree in /proc/PID/cgroup: which processes are a system
 * service's, and that unit's name, never a sub-cgroup's (issue 32). */
static void test_cgroup(void **state) {
        static const struct {
                const char *text;
                ht_cgroup_kind kind;
                const char *unit, *bad;
        } cases[] = {
                /* cgroup v2 */
                {"0::/system.slice/mariadb.service\n", HT_CG_SERVICE, "mariadb.service", NULL},
                {"0::/system.slice/system-getty.slice/getty@tty1.service\n", HT_CG_SERVICE, "getty@tty1.service", NULL},
                {"0::/app.slice/es.service\n", HT_CG_SERVICE, "es.service", NULL},
                /* a Delegate=yes unit's sub-cgroups: the unit, not what it names below */
                {"0::/system.slice/runner.service/payload/mariadb.service\n", HT_CG_SERVICE, "runner.service", NULL},
                /* cg_escape()'s '_' */
                {"0::/system.slice/__private.service\n", HT_CG_SERVICE, "_private.service", NULL},
                {"0::/system.slice/systemd-fsck@dev-disk-by\\x2dlabel-data.service\n", HT_CG_SERVICE,
                 "systemd-fsck@dev-disk-by\\x2dlabel-data.service", NULL},
                {"0::/system.slice/docker-0123abcd.scope\n", HT_CG_OTHER, "docker-0123abcd.scope", NULL},
                {"0::/init.scope\n", HT_CG_OTHER, "init.scope", NULL},
                {"0::/\n", HT_CG_OTHER, NULL, NULL},
                {"0::/user.slice/user-1000.slice/session-3.scope\n", HT_CG_USER, NULL, NULL},
                {"0::/user.slice/user-1000.slice/user@1000.service/app.slice/mariadb.service\n", HT_CG_USER, NULL, NULL},
                {"0::/machine.slice/machine-db.scope/payload/system.slice/mariadb.service\n", HT_CG_MACHINE, NULL, NULL},
                {"0::/system.slice/$(touch x).service\n", HT_CG_OTHER, NULL, "$(touch x).service"},
                {"0::/system.slice/`id`.service\n", HT_CG_OTHER, NULL, "`id`.service"},
                {"0::/system.slice/a\033[2Jb.service\n", HT_CG_OTHER, NULL, "a?[2Jb.service"},
                {"0::/system.slice/../../etc/x.service\n", HT_CG_OTHER, NULL, ".."},
                /* cgroup v1 (RHEL 7, legacy mode): name=systemd, whatever the
                 * other hierarchies and a "0::" line say */
                {"11:pids:/system.slice/a.service\n1:name=systemd:/system.slice/mariadb.service\n0::/\n",
                 HT_CG_SERVICE, "mariadb.service", NULL},
                {"1:name=systemd:/user.slice/user-54321.slice/session-3.scope\n0::/system.slice/x.service\n",
                 HT_CG_USER, NULL, NULL},
                {"5:memory:/system.slice/a.service\n", HT_CG_UNKNOWN, NULL, NULL},
                {"", HT_CG_UNKNOWN, NULL, NULL},
                {"0::relative.service\n", HT_CG_UNKNOWN, NULL, NULL},
        };
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char *path, *unit, *bad;
                ht_cgroup_kind k = ht_cgroup_parse(cases[i].text, &path, &unit, &bad);
                assert_int_equal(k, cases[i].kind);
                if (cases[i].unit)
                        assert_string_equal(unit, cases[i].unit);
                else
                        assert_null(unit);
                if (cases[i].bad)
                        assert_string_equal(bad, cases[i].bad);
                else
                        assert_null(bad);
                assert_true(k == HT_CG_UNKNOWN ? path == NULL : path != NULL);
                for (const char *p = path; p && *p; p++)
                        assert_true(*p >= 0x20 && *p < 0x7f);
                free(path);
                free(unit);
                free(bad);
        }
}

/* Trust from /proc/PID/status and cgroup: root needs real, effective and
 * saved uid 0; a named user needs all three to be that user's. */
static void test_trust(void **state) {
        char *d = tt_mkdtemp("trust");
        tt_mkdir(d, "proc");
        tt_mkdir(d, "etc");
        tt_put(d, "etc/passwd", "root:x:0:0::/root:/bin/sh\nes:x:112:117::/:/bin/false\n", 0644);
        const char *procs[][4] = {
                {"10", "Uid:\t0\t0\t0\t0\n", "0::/user.slice/user-0.slice/session-1.scope\n"},
                {"11", "Uid:\t112\t0\t0\t0\n", "0::/user.slice/user-112.slice/session-2.scope\n"},
                {"12", "Uid:\t112\t112\t112\t112\n", "0::/system.slice/es.service\n"},
                {"13", "Uid:\t112\t112\t112\t112\n", "0::/user.slice/user-112.slice/session-2.scope\n"},
                {"14", "Uid:\t0\t0\t112\t0\n", "0::/user.slice/user-112.slice/session-2.scope\n"},
                {"15", "Uid:\tjunk\n", "junk"},
        };
        for (size_t i = 0; i < ELEMENTSOF(procs); i++) {
                char *p = xasprintf("proc/%s", procs[i][0]);
                tt_mkdir(d, p);
                char *a = xasprintf("%s/comm", p), *b = xasprintf("%s/status", p), *c = xasprintf("%s/cgroup", p);
                tt_put(d, a, "java\n", 0644);
                tt_put(d, b, procs[i][1], 0644);
                tt_put(d, c, procs[i][2], 0644);
                free(p);
                free(a);
                free(b);
                free(c);
        }
        ht_context *c;
        assert_int_equal(ht_context_new(d, &c), 0);
        for (int named = 0; named < 2; named++) {
                ht_facts *f = ht_facts_new();
                if (named)
                        f->trust.user[HT_PROC_JAVA] = xstrdup("es");
                ht_facts_collect_workload_parts(c, f, HT_WORKLOAD_PROCESSES);
                assert_int_equal(f->n_processes, 6);
                static const ht_trust want[2][6] = {
                        {HT_TRUST_ROOT, HT_TRUST_NONE, HT_TRUST_SERVICE, HT_TRUST_NONE, HT_TRUST_NONE, HT_TRUST_NONE},
                        {HT_TRUST_ROOT, HT_TRUST_NONE, HT_TRUST_SERVICE, HT_TRUST_USER, HT_TRUST_NONE, HT_TRUST_NONE},
                };
                for (size_t i = 0; i < 6; i++)
                        assert_int_equal(f->processes[i].trust, want[named][i]);
                assert_string_equal(f->processes[2].unit, "es.service");
                assert_true(f->processes[1].uids_differ);
                assert_int_equal(f->processes[5].uid, -1);
                char *why = ht_process_not_used_reason(&f->processes[1]);
                assert_string_equal(why, "owned by es (uid 112; its effective or saved uid differs), in a user's "
                                         "session or user manager (/user.slice/user-112.slice/session-2.scope); "
                                         "not root's, not a system service's, not jvm_user's");
                free(why);
                /* a uid that is not one has no --set to offer */
                assert_null(ht_process_use_set(&f->processes[1]));
                char *set = ht_process_use_set(&f->processes[3]);
                assert_string_equal(set, "jvm_user=es");
                free(set);
                ht_facts_free(f);
        }
        ht_context_free(c);
        tt_rm_rf(d);
        free(d);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_java_heap),
                cmocka_unit_test(test_oratab),
                cmocka_unit_test(test_load_kernel),
                cmocka_unit_test(test_recommend),
                cmocka_unit_test(test_collect),
                cmocka_unit_test(test_cgroup),
                cmocka_unit_test(test_trust),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
