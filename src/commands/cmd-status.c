/* status: what the tuning is doing for the host now — the figures a
 * diagnosis in the field starts from: page-table memory (an SGA without
 * HugePages costs gigabytes of it), HugePages in use next to what the
 * applied profile asked for, major faults and swapping, THP and hugetext
 * (with the text really mapped in huge pages), the last transaction and
 * whether a reboot is pending. Read-only: no lock, nothing written. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "commands.h"
#include "facts.h"
#include "journal.h"
#include "openmetrics.h"
#include "render.h"
#include "util.h"
#include "verify.h"

/* The /proc/vmstat counters status reports, in this order. */
static const char *const vm_counters[] = {"pgmajfault", "pswpin", "pswpout"};
#define N_VM ELEMENTSOF(vm_counters)

/* Read the counters; one missing is HT_U64_UNKNOWN (pswpin/out need
 * CONFIG_SWAP... and old kernels lack pgmajfault). */
static int read_vmstat(const ht_context *c, uint64_t out[N_VM]) {
        _cleanup_free_ char *buf = NULL;
        int r = ht_read_file(c, "/proc/vmstat", 1u << 20, &buf, NULL);
        for (size_t i = 0; i < N_VM; i++)
                out[i] = HT_U64_UNKNOWN;
        if (r < 0)
                return r;
        _cleanup_strv_free_ char **lines = strv_split(buf, "\n");
        for (size_t l = 0; lines[l]; l++) {
                char name[64];
                char num[32];
                if (sscanf(lines[l], "%63s %31s", name, num) != 2)
                        continue;
                for (size_t i = 0; i < N_VM; i++) {
                        uint64_t v;
                        if (streq(name, vm_counters[i]) && parse_u64(num, &v) == 0)
                                out[i] = v;
                }
        }
        return 0;
}

/* Sum of FilePmdMapped (KB) of one process: smaps_rollup (one line per
 * field, kernel 4.14+) when there, else every mapping of smaps. */
static int file_pmd_mapped_kb(const ht_context *c, unsigned pid, uint64_t *ret) {
        static const char *const files[] = {"smaps_rollup", "smaps"};
        int r = -ENOENT;
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                _cleanup_free_ char *path = xasprintf("/proc/%u/%s", pid, files[i]);
                FILE *f = NULL;
                r = ht_fopen_read(c, path, &f);
                if (r == -ENOMEM)
                        return r;
                if (r < 0)
                        continue;
                uint64_t sum = 0;
                bool seen = false;
                char *line = NULL;
                size_t cap = 0;
                while (getline(&line, &cap, f) > 0) {
                        if (!startswith(line, "FilePmdMapped:"))
                                continue;
                        char *p = line + strlen("FilePmdMapped:");
                        char *end;
                        errno = 0;
                        unsigned long long v = strtoull(p, &end, 10);
                        if (errno == 0 && end != p) {
                                sum += v;
                                seen = true;
                        }
                }
                free(line);
                fclose(f);
                /* a kernel without the field (before 4.8) tells nothing */
                if (!seen)
                        return -ENODATA;
                *ret = sum;
                return 0;
        }
        return r;
}

static json_object *ju64(uint64_t v) {
        return ht_json_u64(v);
}

static const char *jget(json_object *o, const char *k) {
        json_object *v;
        if (!o || !json_object_object_get_ex(o, k, &v) || !v || !json_object_is_type(v, json_type_string))
                return NULL;
        return json_object_get_string(v);
}

static bool jbool(json_object *o, const char *k) {
        json_object *v;
        return o && json_object_object_get_ex(o, k, &v) && v && json_object_get_boolean(v);
}

static char *human(uint64_t bytes) {
        static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
        double v = (double)bytes;
        size_t u = 0;
        while (v >= 1024 && u + 1 < ELEMENTSOF(units)) {
                v /= 1024;
                u++;
        }
        return u == 0 ? xasprintf("%" PRIu64 " B", bytes) : xasprintf("%.1f %s", v, units[u]);
}

static const char *hugetext_mode(int64_t m) {
        switch (m) {
        case 0: return "off";
        case 1: return "binaries and libraries";
        case 2: return "anonymous executable memory (JIT code)";
        case 3: return "binaries, libraries and JIT code";
        }
        return "unknown mode";
}

/* vm.nr_hugepages of the state verify checks (what the apply asked for),
 * a copy or NULL. */
static char *expected_hugepages(const ht_tx *tx) {
        ht_resolved *want = NULL;
        if (ht_tx_expected(tx, &want) < 0)
                return NULL;
        char *v = NULL;
        for (size_t i = 0; i < want->n_settings && !v; i++) {
                const ht_setting *s = &want->settings[i];
                if (s->value && ht_backend_sets_hugepages(s->backend, s->key))
                        v = xstrdup(s->value);
        }
        ht_resolved_free(want);
        return v;
}

static void sleep_seconds(unsigned s) {
        struct timespec ts = {.tv_sec = s}, rem;
        while (nanosleep(&ts, &rem) < 0 && errno == EINTR)
                ts = rem;
}

typedef struct {
        unsigned pid;
        const char *name;
        uint64_t kb;
} mapped;

typedef struct {
        const ht_process *p;
        ht_proc_memory m;
        uint64_t majflt1;  /* after --interval, else HT_U64_UNKNOWN */
} proc_usage;

/* Major faults per second over the interval, or < 0 when unknown. */
static double majflt_rate(const proc_usage *u, unsigned interval) {
        if (!interval || u->m.majflt == HT_U64_UNKNOWN || u->majflt1 == HT_U64_UNKNOWN || u->majflt1 < u->m.majflt)
                return -1;
        return (double)(u->majflt1 - u->m.majflt) / interval;
}

static void print_kb_row(const char *label, uint64_t kb) {
        if (kb == HT_U64_UNKNOWN) {
                printf("    %-40s unknown\n", label);
                return;
        }
        _cleanup_free_ char *h = human(kb * 1024);
        printf("    %-40s %12" PRIu64 " kB  %s\n", label, kb, h);
}

/* What the metrics of status are made from. */
typedef struct {
        const ht_facts *f;
        const proc_usage *use;
        size_t n_use;
        const uint64_t *vm;            /* N_VM counters, the last read */
        int reboot;                    /* 1, 0, -1 unknown */
        const ht_verify_result *vr;    /* NULL: verify could not judge */
        int64_t now;
} status_metrics;

static void render_status(ht_om *m, const void *data) {
        const status_metrics *s = data;
        const ht_facts *f = s->f;
        ht_om_verify(m, s->vr, s->reboot, s->now);

        bool hp = f->hugepages_supported == HT_YES;
        ht_om_family(m, "hosttune_hugepages", HT_OM_GAUGE, NULL,
                     "HugePages of the default size by state (/proc/meminfo HugePages_Total, _Free, _Rsvd, _Surp).");
        const struct {
                const char *state;
                uint64_t v;
        } rows[] = {{"total", f->hugepages_total}, {"free", f->hugepages_free}, {"reserved", f->hugepages_rsvd},
                    {"surplus", f->hugepages_surp}};
        for (size_t i = 0; hp && i < ELEMENTSOF(rows); i++)
                if (rows[i].v != HT_U64_UNKNOWN && rows[i].v <= INT64_MAX)
                        ht_om_sample(m, (int64_t)rows[i].v, "state", rows[i].state, NULL);

        ht_om_family(m, "hosttune_workload_hugepages_bytes", HT_OM_GAUGE, "bytes",
                     "HugePages in use by each database or JVM process (smaps_rollup Private_Hugetlb + Shared_Hugetlb).");
        for (size_t i = 0; i < s->n_use; i++) {
                const proc_usage *u = &s->use[i];
                if (u->m.hugetlb_kb == HT_U64_UNKNOWN || u->m.hugetlb_kb > INT64_MAX / 1024)
                        continue;
                char pid[16];
                snprintf(pid, sizeof(pid), "%u", u->p->pid);
                ht_om_sample(m, (int64_t)(u->m.hugetlb_kb * 1024), "kind", ht_process_kind_to_string(u->p->kind), "name",
                             u->p->name, "pid", pid, NULL);
        }

        ht_om_family(m, "hosttune_page_tables_bytes", HT_OM_GAUGE, "bytes",
                     "Memory used by page tables (/proc/meminfo PageTables).");
        if (f->page_tables_kb != HT_U64_UNKNOWN && f->page_tables_kb <= INT64_MAX / 1024)
                ht_om_sample(m, (int64_t)(f->page_tables_kb * 1024), NULL);

        /* pgmajfault and pswpin of /proc/vmstat, counted since boot */
        const struct {
                const char *name, *help;
                uint64_t v;
        } counters[] = {{"hosttune_major_faults", "Major page faults since boot (/proc/vmstat pgmajfault).", s->vm[0]},
                        {"hosttune_swap_ins", "Pages swapped in since boot (/proc/vmstat pswpin).", s->vm[1]}};
        for (size_t i = 0; i < ELEMENTSOF(counters); i++) {
                ht_om_family(m, counters[i].name, HT_OM_COUNTER, NULL, counters[i].help);
                if (counters[i].v != HT_U64_UNKNOWN && counters[i].v <= INT64_MAX)
                        ht_om_sample(m, (int64_t)counters[i].v, NULL);
        }
}

/* Everything status reports, gathered once; the JSON, text and metrics
 * renderers below only read it (verify's shape: result, then render). */
typedef struct {
        ht_facts *f;
        char **warnings;
        uint64_t vm0[N_VM], vm1[N_VM];  /* vm1: after --interval */
        bool rates;                     /* vm1 and majflt1 hold the interval's end */
        unsigned interval;
        proc_usage *use;                /* the database and JVM processes */
        size_t n_use;
        mapped *maps;                   /* their text in huge pages */
        size_t n_maps;
        uint64_t mapped_total;
        json_object *history;           /* the journal's transactions */
        json_object *last;              /* the last of them, or NULL (borrowed) */
        ht_tx *applied;                 /* the last committed apply, or NULL */
        uint64_t want;                  /* its vm.nr_hugepages, or HT_U64_UNKNOWN */
        int reboot;                     /* 1, 0, -1 unknown */
        const char *reboot_tx;          /* the transaction that needs it (borrowed) */
        uint64_t page_kb;
        bool hp;                        /* HugePages known, of page_kb */
        uint64_t truly_free;
        ht_verify_result vr;
        char *verr;
        bool verified;                  /* vr holds verify's verdict */
        size_t vcount[3];               /* vr's checks by ht_check_status */
} status_result;

static void status_result_done(status_result *s) {
        ht_verify_result_done(&s->vr);
        free(s->verr);
        free(s->maps);
        free(s->use);
        ht_tx_free(s->applied);
        json_object_put(s->history);
        strv_free(s->warnings);
        ht_facts_free(s->f);
        *s = (status_result){0};
}

/* n HugePages in bytes; unknown when n or the page size is. */
static uint64_t hp_bytes(const status_result *s, uint64_t n) {
        return n == HT_U64_UNKNOWN || !s->hp ? HT_U64_UNKNOWN : n * s->page_kb * 1024;
}

/* The counters at the end: after the interval when there was one. */
static const uint64_t *vm_now(const status_result *s) {
        return s->rates ? s->vm1 : s->vm0;
}

/* Collect what status reports into s. An error that leaves nothing to
 * report is reported here and returns HT_EXIT_ERROR; else 0, with what
 * could not be read in s->warnings. */
static int status_gather(const ht_cmd_opts *o, status_result *s) {
        const ht_context *c = o->ctx;
        *s = (status_result){.interval = o->interval};
        if (!ht_facts_root_live(c)) {
                _cleanup_free_ char *d = ht_display_path(c, "/");
                ht_report_error("%s is an offline image: status reads a running kernel (/proc, /sys); "
                                "run it on the host once it has booted", d);
                return HT_EXIT_ERROR;
        }
        int r = ht_facts_collect(c, HT_FACTS_WITH_WORKLOAD, &s->f);
        if (r < 0) {
                ht_report_error("cannot collect facts: %s", ht_strerror(-r));
                return HT_EXIT_ERROR;
        }
        const ht_facts *f = s->f;
        if (!f->memory_known) {
                _cleanup_free_ char *d = ht_display_path(c, "/proc/meminfo");
                ht_report_error("cannot read %s: status needs it", d);
                return HT_EXIT_ERROR;
        }
        for (size_t i = 0; f->unread_warnings && f->unread_warnings[i]; i++)
                strv_push(&s->warnings, f->unread_warnings[i]);

        r = read_vmstat(c, s->vm0);
        if (r < 0) {
                _cleanup_free_ char *d = ht_display_path(c, "/proc/vmstat");
                strv_pushf(&s->warnings, "%s: %s: paging counters unknown", d, ht_strerror(-r));
        }
        s->rates = o->interval > 0 && r >= 0;

        /* What each database or JVM process took: page tables, HugeTLB
         * pages, major faults. The figures a DBA otherwise gets with
         * SystemTap or by reading /proc by hand (kernel
         * Documentation/filesystems/proc.rst). */
        size_t use_unreadable = 0;
        for (size_t i = 0; i < f->n_processes; i++) {
                ht_proc_memory m;
                if (ht_proc_memory_read(c, f->processes[i].pid, &m) < 0)
                        continue;  /* gone meanwhile */
                if (m.smaps_unreadable)
                        use_unreadable++;
                s->use = xrealloc(s->use, (s->n_use + 1) * sizeof(*s->use));
                s->use[s->n_use++] = (proc_usage){&f->processes[i], m, HT_U64_UNKNOWN};
        }
        if (use_unreadable)
                strv_pushf(&s->warnings, "the HugePages of %zu process%s are unknown: smaps_rollup needs root",
                           use_unreadable, use_unreadable == 1 ? "" : "es");
        if (s->rates) {
                sleep_seconds(o->interval);
                if (read_vmstat(c, s->vm1) < 0)
                        s->rates = false;
                for (size_t i = 0; s->rates && i < s->n_use; i++)
                        if (ht_proc_majflt_read(c, s->use[i].p->pid, &s->use[i].majflt1) < 0)
                                s->use[i].majflt1 = HT_U64_UNKNOWN;
        }

        /* hugetext: text the database and JVM processes have in huge pages */
        size_t unreadable = 0;
        for (size_t i = 0; i < f->n_processes; i++) {
                uint64_t kb = 0;
                int k = file_pmd_mapped_kb(c, f->processes[i].pid, &kb);
                if (k == -ENOENT || k == -ESRCH)
                        continue;  /* gone meanwhile */
                if (k < 0) {
                        unreadable++;
                        continue;
                }
                s->maps = xrealloc(s->maps, (s->n_maps + 1) * sizeof(*s->maps));
                s->maps[s->n_maps++] = (mapped){f->processes[i].pid, f->processes[i].name, kb};
                s->mapped_total += kb;
        }
        if (unreadable)
                strv_pushf(&s->warnings, "the smaps of %zu process%s could not be read (run as root)", unreadable,
                           unreadable == 1 ? "" : "es");

        /* the journal: last transaction, last applied profile */
        _cleanup_free_ char *jerr = NULL;
        if (ht_journal_list(c, &s->history, &jerr) < 0) {
                strv_pushf(&s->warnings, "cannot read the journal: %s", jerr ? jerr : "unknown error");
                s->history = json_object_new_array();
        }
        size_t n_tx = json_object_array_length(s->history);
        s->last = n_tx ? json_object_array_get_idx(s->history, n_tx - 1) : NULL;
        _cleanup_free_ char *aerr = NULL;
        int ar = ht_journal_last_committed(c, "apply", &s->applied, &aerr);
        if (ar < 0 && ar != -ENOENT)
                strv_pushf(&s->warnings, "cannot read the last apply: %s", aerr ? aerr : ht_strerror(-ar));
        _cleanup_free_ char *want_s = s->applied ? expected_hugepages(s->applied) : NULL;
        s->want = HT_U64_UNKNOWN;
        if (want_s && parse_u64(want_s, &s->want) < 0)
                s->want = HT_U64_UNKNOWN;

        /* A reboot is pending when a transaction that needs one committed
         * during this boot (its boot id is the current one). */
        for (size_t i = 0; i < n_tx; i++) {
                json_object *t = json_object_array_get_idx(s->history, i);
                if (!streq_ptr(jget(t, "status"), "committed") || !jbool(t, "reboot_required"))
                        continue;
                const char *b = jget(t, "boot_id");
                if (!b || !f->boot_id) {
                        s->reboot = s->reboot == 1 ? 1 : -1;
                        continue;
                }
                if (streq(b, f->boot_id)) {
                        s->reboot = 1;
                        s->reboot_tx = jget(t, "txid");
                }
        }

        s->page_kb = f->hugepage_default_kb;
        s->hp = f->hugepages_supported == HT_YES && s->page_kb != HT_U64_UNKNOWN;
        s->truly_free = s->hp && f->hugepages_free != HT_U64_UNKNOWN && f->hugepages_rsvd != HT_U64_UNKNOWN
                                ? (f->hugepages_free >= f->hugepages_rsvd ? f->hugepages_free - f->hugepages_rsvd : 0)
                                : HT_U64_UNKNOWN;

        /* verify's verdict on the last apply, in the same terms as 'hosttune verify' */
        s->verified = s->applied && ht_verify(c, f, &s->vr, &s->verr) == 0;
        for (size_t i = 0; s->verified && i < s->vr.n_checks; i++)
                s->vcount[s->vr.checks[i].status]++;
        return 0;
}

static json_object *status_to_json(const status_result *s) {
        const ht_facts *f = s->f;
        const ht_tx *applied = s->applied;
        const uint64_t *vm0 = s->vm0, *vm1 = s->vm1;
        json_object *j = json_object_new_object();
        json_object *mem = json_object_new_object();
        json_object_object_add(mem, "total_kb", ju64(f->mem_total_kb));
        json_object_object_add(mem, "page_tables_kb", ju64(f->page_tables_kb));
        json_object_object_add(j, "memory", mem);

        json_object *h = json_object_new_object();
        json_object_object_add(h, "supported",
                               f->hugepages_supported == HT_UNKNOWN ? NULL
                               : json_object_new_boolean(f->hugepages_supported == HT_YES));
        json_object_object_add(h, "page_size_kb", s->hp ? ju64(s->page_kb) : NULL);
        const struct {
                const char *name;
                uint64_t v;
        } rows[] = {{"total", f->hugepages_total}, {"free", f->hugepages_free}, {"rsvd", f->hugepages_rsvd},
                    {"surp", f->hugepages_surp}, {"truly_free", s->truly_free}, {"requested", s->want}};
        for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
                json_object_object_add(h, rows[i].name, ju64(rows[i].v));
                _cleanup_free_ char *bn = xasprintf("%s_bytes", rows[i].name);
                json_object_object_add(h, bn, ju64(hp_bytes(s, rows[i].v)));
        }
        json_object_object_add(h, "requested_by", applied ? json_object_new_string(ht_tx_txid(applied)) : NULL);
        json_object_object_add(j, "hugepages", h);

        json_object *vm = json_object_new_object(), *since = json_object_new_object();
        for (size_t i = 0; i < N_VM; i++)
                json_object_object_add(since, vm_counters[i], ju64(vm_now(s)[i]));
        json_object_object_add(vm, "since_boot", since);
        json_object_object_add(vm, "interval_seconds", s->rates ? json_object_new_int64(s->interval) : NULL);
        json_object *rate = NULL;
        if (s->rates) {
                rate = json_object_new_object();
                for (size_t i = 0; i < N_VM; i++) {
                        bool ok = vm0[i] != HT_U64_UNKNOWN && vm1[i] != HT_U64_UNKNOWN && vm1[i] >= vm0[i];
                        json_object_object_add(rate, vm_counters[i],
                                               ok ? json_object_new_double((double)(vm1[i] - vm0[i]) / s->interval)
                                                  : NULL);
                }
        }
        json_object_object_add(vm, "per_second", rate);
        json_object_object_add(j, "vmstat", vm);

        json_object *thp = json_object_new_object();
        json_object_object_add(thp, "enabled", f->thp_enabled ? json_object_new_string(f->thp_enabled) : NULL);
        json_object_object_add(thp, "defrag", f->thp_defrag ? json_object_new_string(f->thp_defrag) : NULL);
        json_object_object_add(j, "thp", thp);

        json_object *ht = json_object_new_object();
        json_object_object_add(ht, "supported", f->hugetext_supported == HT_UNKNOWN ? NULL
                                                : json_object_new_boolean(f->hugetext_supported == HT_YES));
        json_object_object_add(ht, "enabled", f->hugetext_enabled >= 0 ? json_object_new_int64(f->hugetext_enabled) : NULL);
        json_object *procs = json_object_new_array();
        for (size_t i = 0; i < s->n_maps; i++) {
                json_object *p = json_object_new_object();
                json_object_object_add(p, "pid", json_object_new_int64(s->maps[i].pid));
                json_object_object_add(p, "name", json_object_new_string(s->maps[i].name));
                json_object_object_add(p, "file_pmd_mapped_kb", ju64(s->maps[i].kb));
                json_object_array_add(procs, p);
        }
        json_object_object_add(ht, "processes", procs);
        json_object_object_add(ht, "file_pmd_mapped_kb", s->n_maps ? ju64(s->mapped_total) : NULL);
        json_object_object_add(j, "hugetext", ht);

        json_object *pa = json_object_new_array();
        for (size_t i = 0; i < s->n_use; i++) {
                const proc_usage *u = &s->use[i];
                json_object *p = json_object_new_object();
                json_object_object_add(p, "pid", json_object_new_int64(u->p->pid));
                json_object_object_add(p, "name", json_object_new_string(u->p->name));
                json_object_object_add(p, "kind", json_object_new_string(ht_process_kind_to_string(u->p->kind)));
                json_object_object_add(p, "vm_pte_kb", ju64(u->m.vm_pte_kb));
                json_object_object_add(p, "hugetlb_kb", ju64(u->m.hugetlb_kb));
                json_object_object_add(p, "private_hugetlb_kb", ju64(u->m.private_hugetlb_kb));
                json_object_object_add(p, "shared_hugetlb_kb", ju64(u->m.shared_hugetlb_kb));
                json_object_object_add(p, "hugetlb_mapped_kb", ju64(u->m.hugetlb_mapped_kb));
                json_object_object_add(p, "file_pmd_mapped_kb", ju64(u->m.file_pmd_mapped_kb));
                json_object_object_add(p, "majflt", ju64(s->rates && u->majflt1 != HT_U64_UNKNOWN ? u->majflt1 : u->m.majflt));
                double rt = s->rates ? majflt_rate(u, s->interval) : -1;
                json_object_object_add(p, "majflt_per_second", rt >= 0 ? json_object_new_double(rt) : NULL);
                json_object_array_add(pa, p);
        }
        json_object_object_add(j, "processes", pa);

        json_object_object_add(j, "last_transaction", s->last ? json_object_get(s->last) : NULL);
        json_object *ap = NULL;
        if (applied) {
                ap = json_object_new_object();
                json_object_object_add(ap, "txid", json_object_new_string(ht_tx_txid(applied)));
                json_object_object_add(ap, "profile", ht_tx_profile(applied) ? json_object_new_string(ht_tx_profile(applied)) : NULL);
                const char *at = ht_tx_committed_at(applied) ? ht_tx_committed_at(applied) : ht_tx_created(applied);
                json_object_object_add(ap, "time", at ? json_object_new_string(at) : NULL);
                json_object_object_add(ap, "boot_id", ht_tx_boot_id(applied) ? json_object_new_string(ht_tx_boot_id(applied)) : NULL);
                json_object_object_add(ap, "reboot_required", json_object_new_boolean(ht_tx_reboot_required(applied)));
        }
        json_object_object_add(j, "applied", ap);
        json_object_object_add(j, "boot_id", f->boot_id ? json_object_new_string(f->boot_id) : NULL);
        json_object_object_add(j, "reboot_pending", s->reboot < 0 ? NULL : json_object_new_boolean(s->reboot));
        json_object *v = json_object_new_object();
        json_object_object_add(v, "status", s->verified ? json_object_new_string(ht_check_status_to_string(s->vr.status)) : NULL);
        if (s->verified) {
                json_object_object_add(v, "ok", json_object_new_int64((int64_t)s->vcount[HT_CHECK_OK]));
                json_object_object_add(v, "drift", json_object_new_int64((int64_t)s->vcount[HT_CHECK_DRIFT]));
                json_object_object_add(v, "pending", json_object_new_int64((int64_t)s->vcount[HT_CHECK_PENDING]));
        } else
                json_object_object_add(v, "hint", json_object_new_string(s->verr ? s->verr : "nothing applied yet"));
        json_object_object_add(j, "verify", v);
        json_object *w = json_object_new_array();
        for (size_t i = 0; s->warnings && s->warnings[i]; i++)
                json_object_array_add(w, json_object_new_string(s->warnings[i]));
        json_object_object_add(j, "warnings", w);
        return j;
}

static void status_print(const ht_context *c, const status_result *s) {
        const ht_facts *f = s->f;
        const ht_tx *applied = s->applied;
        const uint64_t *vm0 = s->vm0, *vm1 = s->vm1;
        _cleanup_free_ char *pt = human(f->page_tables_kb == HT_U64_UNKNOWN ? 0 : f->page_tables_kb * 1024);
        if (f->page_tables_kb != HT_U64_UNKNOWN)
                printf("Page tables:  %" PRIu64 " kB (%s)\n", f->page_tables_kb, pt);
        else
                printf("Page tables:  unknown\n");

        if (f->hugepages_supported == HT_NO)
                printf("HugePages:    not supported by this kernel\n");
        else if (!s->hp)
                printf("HugePages:    unknown\n");
        else {
                printf("HugePages:    %" PRIu64 " kB pages\n", s->page_kb);
                const struct {
                        const char *label;
                        uint64_t v;
                } rows[] = {{"total", f->hugepages_total}, {"free", f->hugepages_free},
                            {"reserved", f->hugepages_rsvd}, {"surplus", f->hugepages_surp},
                            {"truly free (free - reserved)", s->truly_free}};
                for (size_t i = 0; i < ELEMENTSOF(rows); i++) {
                        if (rows[i].v == HT_U64_UNKNOWN) {
                                printf("  %-30s unknown\n", rows[i].label);
                                continue;
                        }
                        _cleanup_free_ char *b = human(hp_bytes(s, rows[i].v));
                        printf("  %-30s %10" PRIu64 " pages  %s\n", rows[i].label, rows[i].v, b);
                }
                if (s->want != HT_U64_UNKNOWN) {
                        _cleanup_free_ char *b = human(hp_bytes(s, s->want));
                        printf("  %-30s %10" PRIu64 " pages  %s (vm.nr_hugepages of profile %s, %s)%s\n",
                               "asked for", s->want, b, ht_tx_profile(applied) ? ht_tx_profile(applied) : "-",
                               ht_tx_txid(applied),
                               f->hugepages_total != HT_U64_UNKNOWN && f->hugepages_total < s->want
                                       ? ": short of it" : "");
                } else if (applied)
                        printf("  %-30s none (profile %s sets no vm.nr_hugepages)\n", "asked for",
                               ht_tx_profile(applied) ? ht_tx_profile(applied) : "-");
        }

        printf("Paging:       %s\n", s->rates ? "since boot, and per second over the interval" : "since boot");
        for (size_t i = 0; i < N_VM; i++) {
                uint64_t now = vm_now(s)[i];
                if (now == HT_U64_UNKNOWN) {
                        printf("  %-12s unknown\n", vm_counters[i]);
                        continue;
                }
                printf("  %-12s %14" PRIu64, vm_counters[i], now);
                if (s->rates && vm0[i] != HT_U64_UNKNOWN && vm1[i] >= vm0[i])
                        printf("  %10.1f/s", (double)(vm1[i] - vm0[i]) / s->interval);
                putchar('\n');
        }

        _cleanup_free_ char *thp = ht_text_safe(f->thp_enabled ? f->thp_enabled : "unknown");
        _cleanup_free_ char *defrag = ht_text_safe(f->thp_defrag ? f->thp_defrag : "unknown");
        printf("THP:          %s (defrag %s)\n", thp, defrag);
        if (f->hugetext_supported == HT_YES)
                printf("hugetext:     %" PRId64 " (%s)\n", f->hugetext_enabled, hugetext_mode(f->hugetext_enabled));
        else
                printf("hugetext:     %s\n", f->hugetext_supported == HT_NO ? "not in this kernel" : "unknown");
        if (s->n_maps) {
                printf("  text in transparent huge pages (FilePmdMapped, not HugePages):\n");
                for (size_t i = 0; i < s->n_maps; i++)
                        printf("    %-20s pid %-8u %10" PRIu64 " kB\n", s->maps[i].name, s->maps[i].pid, s->maps[i].kb);
                printf("    %-33s %10" PRIu64 " kB\n", "total", s->mapped_total);
        } else if (f->processes_known)
                printf("  no database or JVM process found\n");

        if (s->n_use)
                printf("Processes:    the database and JVM processes%s\n",
                       s->rates ? "; major faults since start, and per second over the interval" : "");
        for (size_t i = 0; i < s->n_use; i++) {
                const proc_usage *u = &s->use[i];
                printf("  %s pid %u (%s)\n", u->p->name, u->p->pid, ht_process_kind_to_string(u->p->kind));
                print_kb_row("page tables (VmPTE)", u->m.vm_pte_kb);
                print_kb_row("HugePages in use (Hugetlb)", u->m.hugetlb_kb);
                if (u->m.private_hugetlb_kb != HT_U64_UNKNOWN || u->m.shared_hugetlb_kb != HT_U64_UNKNOWN) {
                        print_kb_row("  private (Private_Hugetlb)", u->m.private_hugetlb_kb);
                        print_kb_row("  shared (Shared_Hugetlb)", u->m.shared_hugetlb_kb);
                }
                print_kb_row("HugePages mapped (reserved or in use)", u->m.hugetlb_mapped_kb);
                print_kb_row("file text in THP (FilePmdMapped)", u->m.file_pmd_mapped_kb);
                uint64_t mf = s->rates && u->majflt1 != HT_U64_UNKNOWN ? u->majflt1 : u->m.majflt;
                if (mf == HT_U64_UNKNOWN)
                        printf("    %-40s unknown\n", "major faults (majflt)");
                else {
                        printf("    %-40s %12" PRIu64, "major faults (majflt)", mf);
                        double rt = s->rates ? majflt_rate(u, s->interval) : -1;
                        if (rt >= 0)
                                printf("  %.1f/s", rt);
                        putchar('\n');
                }
        }

        json_object *last = s->last;
        if (last)
                printf("Last transaction: %s %s %s, %s (%s)\n", jget(last, "txid"),
                       jget(last, "command") ? jget(last, "command") : "-",
                       jget(last, "profile") ? jget(last, "profile") : "-", jget(last, "status"),
                       jget(last, "created") ? jget(last, "created") : "-");
        else
                printf("Last transaction: none in %s\n", c->state_dir);
        if (applied) {
                const char *at = ht_tx_committed_at(applied) ? ht_tx_committed_at(applied) : ht_tx_created(applied);
                printf("Applied profile:  %s (%s, %s)\n", ht_tx_profile(applied) ? ht_tx_profile(applied) : "-",
                       ht_tx_txid(applied), at ? at : "-");
        } else
                printf("Applied profile:  none\n");
        if (s->reboot == 1)
                printf("Reboot pending:   yes (transaction %s needs one)\n", s->reboot_tx ? s->reboot_tx : "-");
        else
                printf("Reboot pending:   %s\n", s->reboot == 0 ? "no" : "unknown (no boot id)");
        if (s->verified)
                printf("Verify:           %s (%zu ok, %zu drift, %zu pending a reboot; details: hosttune verify)\n",
                       ht_check_status_to_string(s->vr.status), s->vcount[HT_CHECK_OK], s->vcount[HT_CHECK_DRIFT],
                       s->vcount[HT_CHECK_PENDING]);
        else {
                /* verify's message may name a value read from the host */
                _cleanup_free_ char *v = ht_text_safe(s->verr ? s->verr : "nothing applied yet");
                printf("Verify:           %s\n", v);
        }
}

int ht_cmd_status(const ht_cmd_opts *o) {
        const ht_context *c = o->ctx;
        status_result s;
        int r = status_gather(o, &s);
        if (r != 0) {
                status_result_done(&s);
                return r;
        }
        /* nothing applied is verify's "ok (nothing applied)" */
        ht_verify_result nothing = {0};
        status_metrics sm = {s.f, s.use, s.n_use, vm_now(&s), s.reboot,
                             s.verified ? &s.vr : !s.applied ? &nothing : NULL, (int64_t)time(NULL)};
        if (o->format == HT_FORMAT_OPENMETRICS) {
                /* stdout is the exposition, written below; warnings go to stderr */
                ht_report_warnings(c, s.warnings);
        } else if (c->json) {
                json_object *j = status_to_json(&s);
                ht_print_json(stdout, j);
                json_object_put(j);
        } else {
                status_print(c, &s);
                ht_report_warnings(c, s.warnings);
        }
        int metrics_rc = ht_cmd_emit_metrics(o, render_status, &sm);
        status_result_done(&s);
        return metrics_rc ? metrics_rc : HT_EXIT_OK;
}
