/* cpu: the cpufreq governor, the energy-performance preference (EPP) or
 * bias (EPB), and intel_pstate's min_perf_pct, written at runtime through
 * sysfs and persisted as tmpfiles.d "w" lines in hosttune's own file.
 *
 * The governor and EPP are written per cpufreq policy, not per CPU: they
 * are attributes of the policy (Documentation/admin-guide/pm/cpufreq.rst:
 * "the policyX directories ... contain policy-specific attributes",
 * cpuN/cpufreq being a link to its policy's directory), so one write per
 * policy covers every CPU that shares it (acpi-cpufreq may put several
 * in one) and no policy is written twice. An inactive policy (all its
 * CPUs offline: affected_cpus is empty) answers EBUSY to reads and writes
 * (cpufreq.c store()) and is left alone. EPB is a per-CPU register
 * (/sys/devices/system/cpu/cpuN/power/energy_perf_bias, present only
 * while the CPU is online, Documentation/admin-guide/pm/intel_epb.rst).
 *
 * The file is its own, not the sysfs backend's /etc/tmpfiles.d/hosttune.conf:
 * each backend plans its file whole (its settings, or removal when it has
 * none), and two backends planning one file would each overwrite the
 * other's lines. */
#include "config.h"

#include <stddef.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "backend-common.h"
#include "backend.h"
#include "edit-tmpfiles.h"
#include "fileio.h"
#include "profile-section.h"
#include "util.h"

#define CPU_TMPFILES "/etc/tmpfiles.d/hosttune-cpu.conf"
#define CPU_DIR "/sys/devices/system/cpu"
#define CPUFREQ_DIR CPU_DIR "/cpufreq"
#define PSTATE_DIR CPU_DIR "/intel_pstate"

enum { KEY_GOVERNOR, KEY_EPP, KEY_EPB, KEY_MIN_PERF_PCT, _KEY_MAX };

/* The section's keys, in the order plans write them: the governor first,
 * since the EPP a policy accepts depends on it. */
static const char *const cpu_keys[] = {
        [KEY_GOVERNOR] = "governor",
        [KEY_EPP] = "energy_performance_preference",
        [KEY_EPB] = "energy_perf_bias",
        [KEY_MIN_PERF_PCT] = "min_perf_pct",
        NULL,
};

/* The persisted lines. tmpfiles.d(5) of systemd 252, "w, w+": "Lines of
 * this type accept shell-style globs in place of normal path names", so
 * one line covers every policy or CPU of the host at boot, and an image
 * needs no knowledge of the CPUs it will run on. */
static const char *const persist_paths[] = {
        [KEY_GOVERNOR] = CPUFREQ_DIR "/policy*/scaling_governor",
        [KEY_EPP] = CPUFREQ_DIR "/policy*/energy_performance_preference",
        [KEY_EPB] = CPU_DIR "/cpu[0-9]*/power/energy_perf_bias",
        [KEY_MIN_PERF_PCT] = PSTATE_DIR "/min_perf_pct",
};

/* arch/x86/kernel/cpu/intel_epb.c: the names energy_perf_bias takes on
 * write (since 4.13) for the values it shows. */
static const struct {
        const char *name;
        unsigned value;
} epb_names[] = {
        {"performance", 0}, {"balance-performance", 4}, {"normal", 6}, {"balance-power", 8}, {"power", 15},
};

/* Scaling drivers that refuse an EPP other than "performance" while the
 * policy's governor is "performance" (-EBUSY): intel_pstate in active
 * mode (intel_pstate_set_energy_pref_index: "refuse to set EPP to any
 * values different from 0 (performance) if the current policy is
 * "performance", because those values would be overridden") and
 * amd-pstate-epp (store_energy_performance_preference: "EPP cannot be set
 * under performance policy"). In passive mode intel_pstate registers as
 * intel_cpufreq, where "performance" is the generic governor. */
static bool driver_forces_epp(const char *driver) {
        return driver && (streq(driver, "intel_pstate") || streq(driver, "amd-pstate-epp"));
}

typedef struct {
        char *name;        /* "policy3" */
        char *cpus;        /* affected_cpus: its online CPUs, "" when inactive */
        char *driver;      /* scaling_driver */
        char *governor;    /* scaling_governor */
        char **governors;  /* scaling_available_governors */
        char *epp;         /* energy_performance_preference, NULL: none */
        char **epps;       /* energy_performance_available_preferences */
} policy;

typedef struct {
        policy *list;
        size_t n;
        size_t n_active;
} policies;

static void policies_done(policies *p) {
        for (size_t i = 0; i < p->n; i++) {
                policy *q = &p->list[i];
                free(q->name);
                free(q->cpus);
                free(q->driver);
                free(q->governor);
                strv_free(q->governors);
                free(q->epp);
                strv_free(q->epps);
        }
        free(p->list);
}

static char *read_attr(const ht_context *c, const char *dir, const char *name) {
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, name);
        char *v = NULL;
        return ht_read_line(c, path, &v) < 0 ? NULL : v;
}

static char **read_words(const ht_context *c, const char *dir, const char *name) {
        _cleanup_free_ char *v = read_attr(c, dir, name);
        return v ? strv_split(v, " \t") : NULL;
}

static void load_policies(const ht_context *c, policies *ret) {
        *ret = (policies){0};
        _cleanup_strv_free_ char **names = ht_list_numbered(c, CPUFREQ_DIR, "policy", NULL);
        size_t n = strv_length(names);
        ret->list = n ? xcalloc(n, sizeof(policy)) : NULL;
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *dir = xasprintf("%s/%s", CPUFREQ_DIR, names[i]);
                policy *q = &ret->list[ret->n++];
                q->name = xstrdup(names[i]);
                q->cpus = read_attr(c, dir, "affected_cpus");
                if (!q->cpus)
                        q->cpus = xstrdup("");
                if (isempty(q->cpus))
                        continue;
                ret->n_active++;
                q->driver = read_attr(c, dir, "scaling_driver");
                q->governor = read_attr(c, dir, "scaling_governor");
                q->governors = read_words(c, dir, "scaling_available_governors");
                q->epp = read_attr(c, dir, "energy_performance_preference");
                q->epps = read_words(c, dir, "energy_performance_available_preferences");
        }
}

/* "policy0 (CPUs 0 1)" for notes and messages */
static char *policy_label(const policy *q) {
        return strchr(q->cpus, ' ') ? xasprintf("%s (CPUs %s)", q->name, q->cpus)
                                    : xasprintf("%s (CPU %s)", q->name, q->cpus);
}

/* A setting the host cannot take: skipped once when optional (one line,
 * however many CPUs), else an error with the fix. */
static void cannot_take(ht_plan *plan, const ht_setting *s, const char *why) {
        ht_change *ch = ht_plan_add_change(plan, HT_BK_CPU, s->key, NULL, s->value);
        ch->source = ht_plan_strdup(plan, s->source);
        if (s->optional) {
                ch->outcome = HT_OUTCOME_SKIPPED;
                _cleanup_free_ char *what = xasprintf("cpu %s", s->key);
                ht_plan_skip(plan, what, s->source, "cpu %s = %s: %s", s->key, s->value, why);
        } else {
                ch->outcome = HT_OUTCOME_FAILED;
                ht_plan_error(plan, "%s: cpu %s = %s: %s; mark the setting optional to skip it on such hosts",
                              s->source, s->key, s->value, why);
        }
}

typedef struct {
        const ht_context *c;
        const ht_facts *f;
        ht_plan *plan;
        bool warned_readonly;
} planner;

static ht_change *add_runtime(planner *p, const ht_setting *s, const char *path, const char *cur,
                              const char *desired, const char *note) {
        ht_change *ch = ht_plan_add_change(p->plan, HT_BK_CPU, s->key, cur, desired);
        ch->path = ht_plan_strdup(p->plan, path);
        ch->source = ht_plan_strdup(p->plan, s->source);
        ch->runtime = true;
        ch->note = ht_plan_strdup(p->plan, note);
        if (p->f->sys_readonly == HT_YES || p->f->container) {
                ch->runtime = false;
                ch->outcome = HT_OUTCOME_SKIPPED;
                /* a privileged container may write cpufreq: the host's CPUs */
                if (!p->warned_readonly && p->f->sys_readonly != HT_YES)
                        ht_plan_warn(p->plan, "cpu: not namespaced: this %s container shares the host's CPUs, and "
                                     "writing their cpufreq settings would change them for the host and every "
                                     "container on it; the runtime changes are skipped (set them on the host; the "
                                     "tmpfiles.d entries apply only where this tree boots as a host)",
                                     p->f->container);
                else if (!p->warned_readonly)
                        ht_plan_warn(p->plan, "cpu: /sys is read-only here (a container?): the runtime changes are skipped; the tmpfiles.d entries still apply at the next boot of the host");
                p->warned_readonly = true;
        }
        return ch;
}

/* The first of the active policies pred rejects, and how many it
 * rejects, for one message however many CPUs there are. */
typedef bool (*policy_pred)(const policy *q, const char *value);

static const policy *first_failing(const policies *ps, policy_pred ok, const char *value, size_t *ret_n) {
        const policy *first = NULL;
        size_t n = 0;
        for (size_t i = 0; i < ps->n; i++) {
                const policy *q = &ps->list[i];
                if (isempty(q->cpus) || ok(q, value))
                        continue;
                if (!first)
                        first = q;
                n++;
        }
        *ret_n = n;
        return first;
}

static char *and_more(size_t n) {
        return n > 1 ? xasprintf(" and %zu more polic%s", n - 1, n == 2 ? "y" : "ies") : xstrdup("");
}

static bool offers_governor(const policy *q, const char *g) {
        return strv_contains(q->governors, g);
}

/* Drivers with a policy of their own (cpufreq_driver->setpolicy) take
 * only "performance" and "powersave"; the others take any governor the
 * kernel has, registered or not: scaling_available_governors lists the
 * registered ones, and a write of another loads it
 * (drivers/cpufreq/cpufreq.c, cpufreq_parse_governor:
 * request_module("cpufreq_%s", str_governor)). Debian builds ondemand,
 * conservative, powersave and userspace as modules: none is listed
 * before something loads it. */
static bool setpolicy_driver(const char *driver) {
        return driver && (streq(driver, "intel_pstate") || streq(driver, "amd-pstate-epp"));
}

/* The module a write of governor g would load, as installed for the
 * running kernel (kernel/drivers/cpufreq/cpufreq_G.ko[.xz|.zst|.gz]). */
static bool governor_module(const ht_context *c, const ht_facts *f, const char *g) {
        static const char *const ext[] = {".ko", ".ko.xz", ".ko.zst", ".ko.gz"};
        if (isempty(f->kernel_release) || strchr(f->kernel_release, '/'))
                return false;
        for (size_t i = 0; i < ELEMENTSOF(ext); i++) {
                _cleanup_free_ char *p = xasprintf("/lib/modules/%s/kernel/drivers/cpufreq/cpufreq_%s%s",
                                                   f->kernel_release, g, ext[i]);
                if (ht_exists(c, p))
                        return true;
        }
        return false;
}

static bool plan_governor(planner *p, const policies *ps, const ht_setting *s) {
        if (ps->n_active == 0) {
                cannot_take(p->plan, s, ps->n ? "every cpufreq policy is inactive (its CPUs are offline)"
                                              : "no cpufreq on this host (" CPUFREQ_DIR " has no policy; most virtual machines have none)");
                return false;
        }
        size_t n_bad;
        const policy *bad = first_failing(ps, offers_governor, s->value, &n_bad);
        /* not registered yet, but the write loads it */
        bool loads = false;
        if (bad && governor_module(p->c, p->f, s->value)) {
                loads = true;
                for (size_t i = 0; i < ps->n && loads; i++)
                        loads = isempty(ps->list[i].cpus) || !setpolicy_driver(ps->list[i].driver);
        }
        if (loads)
                bad = NULL;
        if (bad) {
                _cleanup_free_ char *label = policy_label(bad), *more = and_more(n_bad);
                _cleanup_free_ char *offered = bad->governors ? strv_join(bad->governors, " ") : xstrdup("none");
                /* intel_pstate in active mode has its own two policies; the
                 * generic governors come with its passive mode */
                bool active = streq_ptr(bad->driver, "intel_pstate");
                bool amd_active = streq_ptr(bad->driver, "amd-pstate-epp");
                _cleanup_free_ char *why = xasprintf("governor '%s' is not offered by %s%s (scaling_driver %s, scaling_available_governors: %s)%s",
                                                     s->value, label, more, bad->driver ? bad->driver : "unknown", offered,
                                                     active ? "; intel_pstate in active mode offers only performance and powersave, intel_pstate=passive on the kernel command line the generic governors"
                                                     : amd_active ? "; amd-pstate in active mode (amd-pstate-epp) offers only performance and powersave, amd_pstate=passive or amd_pstate=guided on the kernel command line the generic governors"
                                                     : "");
                cannot_take(p->plan, s, why);
                return false;
        }
        /* one name, two governors: intel_pstate's (and amd-pstate-epp's)
         * powersave lets the hardware scale with the load; the generic one
         * of the other drivers "causes the lowest frequency, within the
         * scaling_min_freq limit, to be requested" (admin-guide/pm/
         * cpufreq.rst), intel_pstate in passive mode (intel_cpufreq)
         * included. A profile written for the first pins the CPUs low on
         * the others. */
        if (streq(s->value, "powersave"))
                for (size_t i = 0; i < ps->n; i++) {
                        const policy *q = &ps->list[i];
                        if (isempty(q->cpus) || setpolicy_driver(q->driver))
                                continue;
                        _cleanup_free_ char *label = policy_label(q);
                        ht_plan_warn(p->plan, "%s: cpu governor = powersave on %s (scaling_driver %s) is the generic "
                                     "powersave governor, which holds the lowest frequency the policy allows "
                                     "(Documentation/admin-guide/pm/cpufreq.rst), not intel_pstate's or "
                                     "amd-pstate's dynamic powersave; schedutil or ondemand scale with the load",
                                     s->source, label, q->driver ? q->driver : "unknown");
                        break;
                }
        for (size_t i = 0; i < ps->n; i++) {
                const policy *q = &ps->list[i];
                if (isempty(q->cpus) || streq_ptr(q->governor, s->value))
                        continue;
                _cleanup_free_ char *path = xasprintf("%s/%s/scaling_governor", CPUFREQ_DIR, q->name);
                _cleanup_free_ char *label = policy_label(q);
                _cleanup_free_ char *note = loads && !offers_governor(q, s->value)
                        ? xasprintf("%s; the write loads the governor's module (cpufreq_%s)", label, s->value)
                        : NULL;
                add_runtime(p, s, path, q->governor, s->value, note ? note : label);
        }
        return true;
}

static bool has_epp(const policy *q, const char *v) {
        (void)v;
        return q->epp != NULL;
}

static bool offers_epp(const policy *q, const char *v) {
        return strv_contains(q->epps, v);
}

/* The governor a policy has once the plan's governor is written. */
static const char *governor_after(const policy *q, const ht_setting *gov) {
        return gov ? gov->value : q->governor;
}

static bool plan_epp(planner *p, const policies *ps, const ht_setting *s, const ht_setting *gov) {
        if (ps->n_active == 0) {
                cannot_take(p->plan, s, "no cpufreq on this host (" CPUFREQ_DIR " has no active policy; most virtual machines have none)");
                return false;
        }
        size_t n_bad;
        const policy *bad = first_failing(ps, has_epp, NULL, &n_bad);
        if (bad) {
                _cleanup_free_ char *label = policy_label(bad), *more = and_more(n_bad);
                _cleanup_free_ char *why = xasprintf("%s%s has no energy_performance_preference (scaling_driver %s: only intel_pstate and amd-pstate with hardware P-states have one; energy_perf_bias is the older interface)",
                                                     label, more, bad->driver ? bad->driver : "unknown");
                cannot_take(p->plan, s, why);
                return false;
        }
        bad = first_failing(ps, offers_epp, s->value, &n_bad);
        if (bad) {
                _cleanup_free_ char *label = policy_label(bad), *more = and_more(n_bad);
                _cleanup_free_ char *offered = bad->epps ? strv_join(bad->epps, " ") : xstrdup("none");
                _cleanup_free_ char *why = xasprintf("energy_performance_preference '%s' is not offered by %s%s (energy_performance_available_preferences: %s)",
                                                     s->value, label, more, offered);
                cannot_take(p->plan, s, why);
                return false;
        }
        for (size_t i = 0; i < ps->n; i++) {
                const policy *q = &ps->list[i];
                if (isempty(q->cpus) || !driver_forces_epp(q->driver) || !streq_ptr(governor_after(q, gov), "performance"))
                        continue;
                if (streq(s->value, "performance"))
                        continue;
                _cleanup_free_ char *label = policy_label(q);
                _cleanup_free_ char *why = xasprintf("energy_performance_preference '%s' cannot be set on %s while its governor is performance: %s refuses any preference but performance then (EBUSY); set governor = \"powersave\" in the cpu section too, or the preference to performance",
                                                     s->value, label, q->driver);
                cannot_take(p->plan, s, why);
                return false;
        }
        for (size_t i = 0; i < ps->n; i++) {
                const policy *q = &ps->list[i];
                if (isempty(q->cpus) || streq_ptr(q->epp, s->value))
                        continue;
                /* the performance governor of these drivers holds EPP at 0
                 * ("performance") itself and puts the old one back when it
                 * goes; writing it too would make a rollback restore the old
                 * preference first, which the kernel refuses (EBUSY) */
                if (driver_forces_epp(q->driver) && streq_ptr(governor_after(q, gov), "performance"))
                        continue;
                _cleanup_free_ char *path = xasprintf("%s/%s/energy_performance_preference", CPUFREQ_DIR, q->name);
                _cleanup_free_ char *label = policy_label(q);
                add_runtime(p, s, path, q->epp, s->value, label);
        }
        return true;
}

/* energy_perf_bias reads back as a number: the value as one, 0..15 */
static int epb_number(const char *v, char **ret) {
        for (size_t i = 0; i < ELEMENTSOF(epb_names); i++)
                if (streq(v, epb_names[i].name)) {
                        *ret = xasprintf("%u", epb_names[i].value);
                        return 0;
                }
        uint64_t n;
        if (strspn(v, "0123456789") != strlen(v) || parse_u64(v, &n) < 0 || n > 15)
                return -EINVAL;
        *ret = xasprintf("%u", (unsigned)n);
        return 0;
}

static bool plan_epb(planner *p, const ht_setting *s, const char *number) {
        _cleanup_strv_free_ char **cpus = ht_list_numbered(p->c, CPU_DIR, "cpu", NULL);
        size_t n = 0;
        for (size_t i = 0; cpus && cpus[i]; i++) {
                _cleanup_free_ char *path = xasprintf("%s/%s/power/energy_perf_bias", CPU_DIR, cpus[i]);
                _cleanup_free_ char *cur = NULL;
                if (ht_read_line(p->c, path, &cur) < 0)
                        continue;  /* offline, or no EPB */
                n++;
                if (streq(cur, number))
                        continue;
                add_runtime(p, s, path, cur, number, cpus[i]);
        }
        if (n == 0) {
                cannot_take(p->plan, s, "no CPU has energy_perf_bias (" CPU_DIR "/cpuN/power/energy_perf_bias: Intel CPUs with EPB only; most virtual machines have none)");
                return false;
        }
        return true;
}

static bool plan_min_perf_pct(planner *p, const ht_setting *s, unsigned want) {
        _cleanup_free_ char *status = read_attr(p->c, PSTATE_DIR, "status");
        _cleanup_free_ char *cur = read_attr(p->c, PSTATE_DIR, "min_perf_pct");
        if (!cur || streq_ptr(status, "off")) {
                cannot_take(p->plan, s, cur ? "intel_pstate is off (" PSTATE_DIR "/status)"
                                            : "no intel_pstate on this host (" PSTATE_DIR "/min_perf_pct)");
                return false;
        }
        _cleanup_free_ char *max = read_attr(p->c, PSTATE_DIR, "max_perf_pct");
        uint64_t c_v, m_v;
        /* the kernel clamps min_perf_pct to max_perf_pct without an error */
        if (max && parse_u64(max, &m_v) >= 0 && want > m_v) {
                _cleanup_free_ char *why = xasprintf("min_perf_pct %u is above max_perf_pct %s, to which intel_pstate would clamp it", want, max);
                cannot_take(p->plan, s, why);
                return false;
        }
        /* a floor: a host already above it keeps its value */
        if (parse_u64(cur, &c_v) >= 0 && c_v >= want) {
                ht_change *ch = ht_plan_add_change(p->plan, HT_BK_CPU, s->key, cur, cur);
                ch->source = ht_plan_strdup(p->plan, s->source);
                ch->outcome = HT_OUTCOME_KEPT;
                ch->bound = HT_BOUND_AT_LEAST;
                ch->bound_value = ht_plan_strdup(p->plan, s->value);
                return true;
        }
        _cleanup_free_ char *value = xasprintf("%u", want);
        ht_change *ch = add_runtime(p, s, PSTATE_DIR "/min_perf_pct", cur, value, NULL);
        ch->bound = HT_BOUND_AT_LEAST;
        ch->bound_value = ht_plan_strdup(p->plan, s->value);
        return true;
}

/* What a value of key must look like; the value as written (EPB: the
 * number it reads back as) in *ret. */
static const char *check_key_value(int key, const char *v, char **ret) {
        switch (key) {
        case KEY_GOVERNOR:
        case KEY_EPP:
                /* the kernel's names: "performance", "balance_power", ... */
                if (!ht_word_chars(v, "_-"))
                        return "is not a name (letters, digits, '_' and '-')";
                *ret = xstrdup(v);
                return NULL;
        case KEY_EPB:
                if (epb_number(v, ret) < 0)
                        return "must be 0..15 or performance, balance-performance, normal, balance-power or power";
                return NULL;
        case KEY_MIN_PERF_PCT: {
                uint64_t n;
                if (parse_u64(v, &n) < 0 || n > 100)
                        return "must be a percentage, 0..100";
                *ret = xasprintf("%u", (unsigned)n);
                return NULL;
        }
        }
        return "is not a cpu key";
}

static int key_index(const char *key) {
        for (int i = 0; i < _KEY_MAX; i++)
                if (streq(cpu_keys[i], key))
                        return i;
        return -1;
}

/* An image has no running kernel: the change is the value its first boot
 * writes now (hosttune's file, as an earlier apply left it) against the
 * one planned. */
static void add_offline(ht_plan *plan, const ht_setting *s, const char *persist_path, const char *value,
                        const char *old) {
        _cleanup_free_ char *cur = old ? ht_tmpfiles_w_argument(old, persist_path) : NULL;
        if (streq_ptr(cur, value))
                return;
        ht_change *ch = ht_plan_add_change(plan, HT_BK_CPU, s->key, cur, value);
        ch->source = ht_plan_strdup(plan, s->source);
}

static int cpu_plan(const ht_context *c, const ht_facts *f, const ht_resolved *r, ht_plan *plan) {
        const ht_setting *want[_KEY_MAX] = {0};
        for (size_t i = 0; i < r->n_settings; i++) {
                const ht_setting *s = &r->settings[i];
                int k = s->backend == HT_BK_CPU ? key_index(s->key) : -1;
                if (k >= 0)
                        want[k] = s;
        }
        _cleanup_free_ char *old = NULL;
        size_t old_len = 0;
        int old_r = ht_read_optional(c, CPU_TMPFILES, &old, &old_len);
        if (old_r < 0) {
                ht_plan_error(plan, "cannot read %s: %s", CPU_TMPFILES, ht_strerror(-old_r));
                return 0;
        }

        bool live = ht_root_is_live(c);
        planner p = {.c = c, .f = f, .plan = plan};
        policies ps = {0};
        if (live && (want[KEY_GOVERNOR] || want[KEY_EPP]))
                load_policies(c, &ps);
        strbuf persisted = {0};
        size_t n = 0;
        for (int k = 0; k < _KEY_MAX; k++) {
                const ht_setting *s = want[k];
                if (!s)
                        continue;
                _cleanup_free_ char *value = NULL;
                const char *why = s->value ? check_key_value(k, s->value, &value) : "needs a value";
                if (!why && !ht_tmpfiles_value_ok(value))
                        why = "holds characters that cannot be persisted safely";
                if (why) {
                        ht_plan_error(plan, "%s: cpu %s: '%s' %s", s->source, s->key, s->value ? s->value : "", why);
                        continue;
                }
                bool ok = true;
                if (!live)
                        add_offline(plan, s, persist_paths[k], value, old);
                else if (k == KEY_GOVERNOR)
                        ok = plan_governor(&p, &ps, s);
                else if (k == KEY_EPP)
                        ok = plan_epp(&p, &ps, s, want[KEY_GOVERNOR]);
                else if (k == KEY_EPB)
                        ok = plan_epb(&p, s, value);
                else
                        ok = plan_min_perf_pct(&p, s, (unsigned)strtoul(value, NULL, 10));
                if (!ok)
                        continue;
                ht_tmpfiles_append_w(&persisted, persist_paths[k], value);
                n++;
        }
        policies_done(&ps);

        if (n == 0) {
                /* nothing to persist: a file from an earlier profile goes */
                ht_plan_own_file(plan, HT_BK_CPU, CPU_TMPFILES, old, old_len, NULL);
                strbuf_done(&persisted);
                return 0;
        }
        _cleanup_free_ char *header = ht_managed_header(plan->profile, "#");
        _cleanup_free_ char *body = strbuf_steal(&persisted);
        _cleanup_free_ char *content = xasprintf("%s# Applied at boot by systemd-tmpfiles (tmpfiles.d(5) \"w\" lines; the\n"
                                                 "# globs cover every cpufreq policy and CPU the host boots with).\n%s",
                                                 header, body);
        ht_plan_own_file(plan, HT_BK_CPU, CPU_TMPFILES, old, old_len, content);
        return 0;
}

/* cpu = { governor = "performance"; energy_perf_bias = { value = "performance"; optional = true; }; }; */
static int cpu_parse_section(ht_pfile *p, const config_setting_t *s, char **ret_error) {
        int r = ht_cfg_want_group(s, cpu_keys, p->path, "cpu", ret_error);
        if (r < 0)
                return r;
        for (int i = 0; i < config_setting_length(s); i++) {
                const config_setting_t *m = config_setting_get_elem(s, i);
                const char *name = config_setting_name(m);
                _cleanup_free_ char *what = xasprintf("cpu %s", name);
                if (config_setting_type(m) != CONFIG_TYPE_GROUP && !ht_cfg_is_scalar(m))
                        return ht_error(ret_error, -EINVAL, "%s:%u: %s: expected a value or a group, not %s", p->path,
                                        ht_cfg_line(m), what, ht_cfg_type_name(config_setting_type(m)));
                ht_entry *e = ht_entry_push(&p->entries, &p->n_entries, HT_BK_CPU, p->path, ht_cfg_line(m));
                e->key = (ht_spec){.kind = HT_SPEC_LIT, .lit = ht_value_str(name)};
                r = ht_cfg_leaf_value(m, p->path, what, e, ret_error);
                if (r < 0)
                        return r;
        }
        return 0;
}

static const ht_backend_field cpu_rule_fields[] = {
        {.name = "key", .offset = offsetof(ht_entry, key)},
        {0},
};

static int cpu_check_key(const char *k) {
        return key_index(k) >= 0 ? 0 : -EINVAL;
}

static int cpu_canon_key(ht_resolver *r, const ht_entry *e, const char *what, ht_setting *s, char **ret_value,
                         char **ret_error) {
        int k = ht_entry_eval_field(r, &e->key, e, what, "key", &s->key, ret_error);
        if (k >= 0 && cpu_check_key(s->key) < 0) {
                const char *close = closest_word(s->key, (char *const *)cpu_keys);
                *ret_error = xasprintf("%s:%u: %s: unknown cpu key '%s'%s%s%s (governor, "
                                       "energy_performance_preference, energy_perf_bias, min_perf_pct)",
                                       e->file, e->line, what, s->key, close ? " (did you mean '" : "",
                                       close ? close : "", close ? "'?)" : "");
                k = -EINVAL;
        }
        return k;
}

/* Every value of the section is one word; the key's own check (a
 * governor name, a percentage) is the plan's, which knows the key. */
static const char *cpu_check_value(const char *t) {
        return isempty(t) || !ht_word_chars(t, "_-") ? "must be one word (letters, digits, '_' and '-')" : NULL;
}

/* The files its plan writes (ht_backend.files). */
static const char *const cpu_files[] = {CPU_TMPFILES, NULL};

const ht_backend ht_backend_cpu = {
        .id = HT_BK_CPU,
        .name = "cpu",
        .files = cpu_files,
        .rule_fields = cpu_rule_fields,
        .parse_section = cpu_parse_section,
        .canon_key = cpu_canon_key,
        .check_key = cpu_check_key,
        .check_value = cpu_check_value,
        .plan = cpu_plan,
};
