/* Block devices and CPU frequency as the running kernel's /sys shows
 * them: what the block and cpu backends act on, for `facts`. The kinds
 * are format-block.c's, which the block backend uses too, so the facts
 * name the devices it leaves alone the way it does. Only a live root is
 * read: an image has no /sys of its own, and --facts does not carry
 * these (another machine's disks and CPUs are not the image's; the
 * backends read /sys themselves at apply). Hosts have thousands of disks
 * and CPUs (BENCHMARKS.md): one pass each, no quadratic pushes. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "facts-internal.h"
#include "facts.h"
#include "format-block.h"
#include "util.h"

#define CPU_DIR "/sys/devices/system/cpu"

/* A sysfs attribute, NULL when absent (no warning: kernels differ in
 * which they have) or garbled (ht_facts_read_line warns). */
static char *attr(const ht_context *c, ht_facts *f, const char *dir, const char *name) {
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, name);
        char *v = NULL;
        if (ht_facts_read_line(c, f, path, false, &v) < 0)
                return NULL;
        /* sysfs pads some lists with a trailing blank ("... bfq ") */
        char *s = strstrip(v);
        memmove(v, s, strlen(s) + 1);
        return v;
}

static uint64_t attr_u64(const ht_context *c, ht_facts *f, const char *dir, const char *name) {
        _cleanup_free_ char *v = attr(c, f, dir, name);
        uint64_t n;
        return v && parse_u64(v, &n) >= 0 ? n : HT_U64_UNKNOWN;
}

static ht_tristate attr_bool(const ht_context *c, ht_facts *f, const char *dir, const char *name) {
        _cleanup_free_ char *v = attr(c, f, dir, name);
        return streq_ptr(v, "1") ? HT_YES : streq_ptr(v, "0") ? HT_NO : HT_UNKNOWN;
}

static char **attr_words(const ht_context *c, ht_facts *f, const char *dir, const char *name) {
        _cleanup_free_ char *v = attr(c, f, dir, name);
        return v ? strv_split(v, " \t") : NULL;
}

/* ---- block ---- */

int ht_sys_block_list(const ht_context *c, ht_sys_block **ret, size_t *ret_n) {
        _cleanup_strv_free_ char **names = NULL;
        int r = ht_list_dir(c, "/sys/block", NULL, &names);
        if (r < 0)
                return r;
        /* ht_list_dir sorts by name */
        size_t total = strv_length(names);
        ht_sys_block *l = total ? xcalloc(total, sizeof(*l)) : NULL;
        for (size_t i = 0; i < total; i++)
                l[i] = (ht_sys_block){.name = xstrdup(names[i]), .path = xasprintf("/sys/block/%s", names[i]),
                                      .kind = ht_block_kind_of(names[i])};
        *ret = l;
        *ret_n = total;
        return 0;
}

void ht_sys_block_list_free(ht_sys_block *l, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(l[i].name);
                free(l[i].path);
        }
        free(l);
}

char **ht_sys_block_slaves(const ht_context *c, const char *dir) {
        _cleanup_free_ char *sdir = xasprintf("%s/slaves", dir);
        char **slaves = NULL;
        if (ht_list_dir(c, sdir, NULL, &slaves) < 0)
                return NULL;
        return slaves;
}

void ht_facts_collect_block(const ht_context *c, ht_facts *f) {
        ht_sys_block *l = NULL;
        size_t total = 0;
        if (ht_sys_block_list(c, &l, &total) < 0)
                return;
        f->block_known = true;
        /* in name order: the order the facts promise */
        f->block_devices = total ? xcalloc(total, sizeof(ht_block_device)) : NULL;
        for (size_t i = 0; i < total; i++) {
                const char *dir = l[i].path;
                ht_block_kind kind = l[i].kind;
                ht_block_device *d = &f->block_devices[f->n_block_devices++];
                d->name = xstrdup(l[i].name);
                d->kind = ht_block_kind_to_string(kind);
                d->rotational = attr_bool(c, f, dir, "queue/rotational");
                d->removable = attr_bool(c, f, dir, "removable");
                _cleanup_free_ char *sched = attr(c, f, dir, "queue/scheduler");
                if (sched) {
                        d->scheduler = ht_block_scheduler_selected(sched);
                        d->schedulers = ht_block_scheduler_offered(sched);
                }
                if (!d->schedulers)
                        d->schedulers = xcalloc(1, sizeof(char *));
                d->read_ahead_kb = attr_u64(c, f, dir, "queue/read_ahead_kb");
                d->nr_requests = attr_u64(c, f, dir, "queue/nr_requests");
                d->rq_affinity = attr_u64(c, f, dir, "queue/rq_affinity");
                if (ht_block_kind_stacked(kind)) {
                        d->slaves = ht_sys_block_slaves(c, dir);
                        if (!d->slaves)
                                d->slaves = xcalloc(1, sizeof(char *));
                }
        }
        ht_sys_block_list_free(l, total);
}

/* ---- cpufreq ---- */

static int64_t pct(const ht_context *c, ht_facts *f, const char *name) {
        uint64_t v = attr_u64(c, f, CPU_DIR "/intel_pstate", name);
        return v == HT_U64_UNKNOWN || v > 100 ? -1 : (int64_t)v;
}

/* energy_perf_bias is per CPU (an MSR each): 1024 lines of "6" say less
 * than "6 on 1024 CPUs", so the facts keep the distinct values and their
 * counts, in the order of the first CPU that has each. */
static void collect_epb(const ht_context *c, ht_facts *f) {
        size_t n = 0;
        _cleanup_strv_free_ char **cpus = ht_list_numbered(c, CPU_DIR, "cpu", &n);
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *dir = xasprintf(CPU_DIR "/%s/power", cpus[i]);
                _cleanup_free_ char *v = attr(c, f, dir, "energy_perf_bias");
                if (!v)
                        continue;
                /* a handful of distinct values at most: a linear look */
                size_t k = 0;
                while (k < f->n_epb && !streq(f->epb[k].value, v))
                        k++;
                if (k == f->n_epb) {
                        f->epb = xrealloc(f->epb, (f->n_epb + 1) * sizeof(*f->epb));
                        f->epb[f->n_epb++] = (ht_epb_count){.value = TAKE_PTR(v)};
                }
                f->epb[k].cpus++;
        }
}

void ht_facts_collect_cpufreq(const ht_context *c, ht_facts *f) {
        _cleanup_strv_free_ char **top = NULL;
        if (ht_list_dir(c, CPU_DIR, NULL, &top) < 0)
                return;
        f->cpufreq_known = true;
        size_t n = 0;
        _cleanup_strv_free_ char **names = ht_list_numbered(c, CPU_DIR "/cpufreq", "policy", &n);
        f->cpufreq_policies = n ? xcalloc(n, sizeof(ht_cpufreq_policy)) : NULL;
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *dir = xasprintf(CPU_DIR "/cpufreq/%s", names[i]);
                ht_cpufreq_policy *q = &f->cpufreq_policies[f->n_cpufreq_policies++];
                q->name = xstrdup(names[i]);
                q->cpus = attr(c, f, dir, "affected_cpus");
                if (!q->cpus)
                        q->cpus = xstrdup("");
                q->governor = attr(c, f, dir, "scaling_governor");
                q->governors = attr_words(c, f, dir, "scaling_available_governors");
                q->epp = attr(c, f, dir, "energy_performance_preference");
                q->epps = attr_words(c, f, dir, "energy_performance_available_preferences");
        }
        f->cpufreq_driver = attr(c, f, CPU_DIR "/cpufreq/policy0", "scaling_driver");
        f->intel_pstate_status = attr(c, f, CPU_DIR "/intel_pstate", "status");
        f->intel_pstate_min_perf_pct = pct(c, f, "min_perf_pct");
        f->intel_pstate_max_perf_pct = pct(c, f, "max_perf_pct");
        collect_epb(c, f);
}

void ht_facts_devices_free(ht_facts *f) {
        for (size_t i = 0; i < f->n_block_devices; i++) {
                ht_block_device *d = &f->block_devices[i];
                free(d->name);
                free(d->scheduler);
                strv_free(d->schedulers);
                strv_free(d->slaves);
        }
        free(f->block_devices);
        for (size_t i = 0; i < f->n_cpufreq_policies; i++) {
                ht_cpufreq_policy *q = &f->cpufreq_policies[i];
                free(q->name);
                free(q->cpus);
                free(q->governor);
                strv_free(q->governors);
                free(q->epp);
                strv_free(q->epps);
        }
        free(f->cpufreq_policies);
        for (size_t i = 0; i < f->n_epb; i++)
                free(f->epb[i].value);
        free(f->epb);
        free(f->cpufreq_driver);
        free(f->intel_pstate_status);
}
