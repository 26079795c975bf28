#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "apply.h"
#include "backend-common.h"
#include "backend.h"
#include "fileio.h"
#include "format-meminfo.h"
#include "journal.h"
#include "profile.h"
#include "settings-json.h"
#include "sha256.h"
#include "util.h"
#include "tuners.h"
#include "verify.h"

const char *ht_check_status_to_string(ht_check_status s) {
        switch (s) {
        case HT_CHECK_OK: return "ok";
        case HT_CHECK_DRIFT: return "drift";
        case HT_CHECK_PENDING: return "reboot-pending";
        }
        return "unknown";
}

void ht_verify_result_done(ht_verify_result *r) {
        for (size_t i = 0; i < r->n_checks; i++) {
                free(r->checks[i].backend);
                free(r->checks[i].key);
                free(r->checks[i].expected);
                free(r->checks[i].actual);
                free(r->checks[i].hint);
        }
        free(r->checks);
        free(r->message);
        free(r->rolled_back_txid);
        free(r->rolled_back_profile);
        free(r->rolled_back_by);
        free(r->rolled_back_at);
        free(r->txid);
        free(r->profile);
        free(r->applied_at);
        strv_free(r->warnings);
        *r = (ht_verify_result){0};
}

static char *dup_or_null(const char *s) {
        return s ? xstrdup(s) : NULL;
}

static void add_check(ht_verify_result *r, const char *backend, const char *key, const char *expected,
                      const char *actual, ht_check_status st, const char *hint) {
        r->checks = xrealloc(r->checks, (r->n_checks + 1) * sizeof(ht_check));
        r->checks[r->n_checks++] = (ht_check){
                .backend = xstrdup(backend),
                .key = xstrdup(key),
                .expected = dup_or_null(expected),
                .actual = dup_or_null(actual),
                .status = st,
                .hint = dup_or_null(hint),
        };
        if (st == HT_CHECK_DRIFT || (st == HT_CHECK_PENDING && r->status == HT_CHECK_OK))
                r->status = st;
}

static bool is_default_profile_dir(const ht_context *c, const char *dir) {
        _cleanup_strv_free_ char **dflt = NULL;
        ht_profile_default_path(c, &dflt);
        return strv_contains(dflt, dir);
}

/* "hosttune [--root R] [--profile-path D] COMMAND PROFILE [--set K=V]...":
 * what repeats the transaction's request, from its manifest (older
 * journals have no info.set: then the profile alone). */
static char *request_command(const ht_context *c, ht_tx *tx, const char *command) {
        strbuf b = {0};
        strbuf_append(&b, "hosttune");
        if (c->offline_root) {
                strbuf_append(&b, " --root ");
                ht_shell_word_append(&b, c->root);
        }
        const char *file = ht_tx_profile_file(tx);
        const char *slash = file ? strrchr(file, '/') : NULL;
        if (slash && slash != file) {
                _cleanup_free_ char *dir = xstrndup(file, (size_t)(slash - file));
                if (!is_default_profile_dir(c, dir)) {
                        strbuf_append(&b, " --profile-path ");
                        ht_shell_word_append(&b, dir);
                }
        }
        strbuf_appendf(&b, " %s ", command);
        ht_shell_word_append(&b, ht_tx_profile(tx) ? ht_tx_profile(tx) : "PROFILE");
        _cleanup_strv_free_ char **sets = ht_tx_set_args(tx);
        for (size_t i = 0; sets && sets[i]; i++) {
                strbuf_append(&b, " --set ");
                ht_shell_word_append(&b, sets[i]);
        }
        return strbuf_steal(&b);
}

/* The change that judges a setting: a boot-time override outranks a
 * plain difference, and of a setting's changes on several devices
 * (ht_change.setting) one that still differs outranks one kept. */
static const ht_change *find_change(const ht_plan *p, ht_backend_id b, const char *key) {
        const ht_change *found = NULL;
        for (size_t i = 0; i < p->n_changes; i++) {
                const ht_change *ch = &p->changes[i];
                if (ch->backend != b || !streq(ch->setting ? ch->setting : ch->key, key))
                        continue;
                if (!found || ch->outcome == HT_OUTCOME_OVERRIDDEN ||
                    (found->outcome == HT_OUTCOME_KEPT && ch->outcome != HT_OUTCOME_KEPT))
                        found = ch;
        }
        return found;
}

static bool is_hugepages(const ht_setting *s) {
        return ht_backend_sets_hugepages(s->backend, s->key);
}

/* Who wrote a runtime value that drifted, where it can be told (issue
 * 38): a tuner of the host that sets the key to the value found (or owns
 * the key); NULL when none does. */
static char *blame_tuner(const ht_tuner_settings *ts, const ht_setting *s, const char *actual) {
        for (size_t j = 0; j < ts->n; j++) {
                const ht_tuner_setting *t = &ts->s[j];
                if (!ht_tuner_setting_matches(t, s->backend, s->key))
                        continue;
                if (t->value && !(actual && ht_kernel_values_equal(t->value, actual)))
                        continue;
                _cleanup_free_ char *what = ht_tuner_setting_describe(t);
                return xasprintf("changed since apply: %s; %s", what, t->advice);
        }
        return NULL;
}

/* One check per setting, from what the backends see now. */
static void check_settings(const ht_resolved *want, const ht_plan *p, const ht_verify_result *res,
                           const char *reapply, const ht_tuner_settings *ts, ht_verify_result *out) {
        bool rebooted = res->rebooted;
        _cleanup_free_ char *runtime_hint = xasprintf("the running value differs: changed since apply; run '%s' "
                                                      "again or find who changed it", reapply);
        for (size_t i = 0; i < want->n_settings; i++) {
                const ht_setting *s = &want->settings[i];
                const char *bk = ht_backend_id_to_string(s->backend);
                const ht_change *ch = find_change(p, s->backend, s->key);
                /* a bounded value is expected to meet its bound: "at least
                 * 6815744", whatever the host has above it */
                _cleanup_free_ char *described = s->bound != HT_BOUND_EXACT && s->value
                                                         ? ht_bound_describe(s->bound, s->value) : NULL;
                const char *expected = s->remove ? "(absent)" : described ? described : s->value;
                if (ht_backends[s->backend]->words && !s->remove) {
                        /* the word as it appears on the command line */
                        if (!ch) {
                                _cleanup_free_ char *w = isempty(s->value) ? xstrdup(s->key) : xasprintf("%s=%s", s->key, s->value);
                                add_check(out, bk, s->key, w, w, HT_CHECK_OK, NULL);
                                continue;
                        }
                        expected = ch->desired;
                }
                if (!ch) {
                        add_check(out, bk, s->key, expected, described ? s->value : expected, HT_CHECK_OK, NULL);
                        continue;
                }
                switch (ch->outcome) {
                case HT_OUTCOME_SKIPPED:
                        /* a note says who sets it instead (a container's node) */
                        add_check(out, bk, s->key, expected, ch->current, HT_CHECK_OK,
                                  ch->note ? ch->note : "skipped: the host cannot take it (optional)");
                        break;
                case HT_OUTCOME_OVERRIDDEN:
                        add_check(out, bk, s->key, expected, ch->current, HT_CHECK_DRIFT, ch->note);
                        break;
                case HT_OUTCOME_FAILED:
                        add_check(out, bk, s->key, expected, ch->current, HT_CHECK_DRIFT,
                                  "the host cannot take this setting any more");
                        break;
                case HT_OUTCOME_KEPT:
                        if (ch->reboot_required)
                                add_check(out, bk, s->key, expected, ch->current,
                                          rebooted ? HT_CHECK_DRIFT : HT_CHECK_PENDING,
                                          rebooted ? "not in effect after the reboot: was the bootloader configuration regenerated (grub-mkconfig/update-grub)?"
                                                   : "takes effect at the next boot");
                        else if (!ch->current && ch->note)
                                /* nothing to read yet, and the note says why
                                 * (a sysctl of an interface not there now) */
                                add_check(out, bk, s->key, expected, NULL, HT_CHECK_OK, ch->note);
                        else
                                add_check(out, bk, s->key, expected, ch->bound_value ? ch->current : expected,
                                          HT_CHECK_OK, NULL);
                        break;
                case HT_OUTCOME_CHANGE:
                        /* a short vm.nr_hugepages is judged by the HugePages check */
                        if (is_hugepages(s) && ch->runtime)
                                break;
                        if (ch->runtime) {
                                _cleanup_free_ char *blame = blame_tuner(ts, s, ch->current);
                                add_check(out, bk, s->key, expected, ch->current, HT_CHECK_DRIFT,
                                          blame ? blame : runtime_hint);
                        }
                        else
                                add_check(out, bk, s->key, expected, ch->current, HT_CHECK_DRIFT,
                                          "the persisted configuration differs from what was applied");
                        break;
                }
        }
}

/* The final state recorded for each file apply wrote, by content hash. */
static void check_files(const ht_context *c, ht_tx *tx, ht_verify_result *out) {
        _cleanup_free_ char *plan = request_command(c, tx, "plan");
        _cleanup_free_ char *edited_hint = xasprintf("edited since apply; see the diff with '%s', re-apply or roll back",
                                                     plan);
        size_t n = ht_tx_n_items(tx);
        for (size_t i = 0; i < n; i++) {
                ht_tx_item it;
                ht_tx_get_item(tx, i, &it);
                /* grub.cfg is regenerated by kernel updates too: its words are
                 * checked on /proc/cmdline instead */
                if (it.kind != HT_TX_ITEM_FILE || it.generated)
                        continue;
                const char *path = it.path;
                /* a later item for the same path has the final state */
                bool later = false;
                for (size_t k = i + 1; k < n && !later; k++) {
                        ht_tx_item o;
                        ht_tx_get_item(tx, k, &o);
                        later = streq(o.path, path);
                }
                if (later)
                        continue;
                const char *want = it.new_sha256;
                _cleanup_(ht_file_snapshot_freep) ht_file_snapshot *s = NULL;
                int r = ht_file_snapshot_take(c, path, &s);
                char hex[HT_SHA256_HEX_SIZE] = "";
                const char *actual;
                if (r < 0)
                        actual = "(unreadable)";
                else if (!s->existed)
                        actual = "(absent)";
                else {
                        ht_sha256_hex(s->content, s->len, hex);
                        actual = hex;
                }
                _cleanup_free_ char *want_s = want ? xasprintf("sha256:%.16s", want) : xstrdup("(absent)");
                _cleanup_free_ char *got_s = hex[0] ? xasprintf("sha256:%.16s", hex) : xstrdup(actual);
                bool ok = want ? (hex[0] && streq(hex, want)) : (r == 0 && !s->existed);
                add_check(out, "file", path, want_s, got_s, ok ? HT_CHECK_OK : HT_CHECK_DRIFT,
                          ok ? NULL : edited_hint);
        }
}

/* btime of /proc/stat: the boot's wall-clock time, or -1. */
static int64_t boot_time(const ht_context *c) {
        _cleanup_free_ char *buf = NULL;
        if (ht_read_file(c, "/proc/stat", 1u << 20, &buf, NULL) < 0)
                return -1;
        const char *p = strstr(buf, "\nbtime ");
        uint64_t v;
        if (!p)
                return -1;
        _cleanup_free_ char *num = xstrndup(p + 7, strcspn(p + 7, "\n"));
        return parse_u64(num, &v) == 0 && v < INT64_MAX ? (int64_t)v : -1;
}

/* Seconds since boot (/proc/uptime), -1 unknown. */
static double uptime_now(const ht_context *c) {
        _cleanup_free_ char *buf = NULL;
        if (ht_read_file(c, "/proc/uptime", 4096, &buf, NULL) < 0)
                return -1;
        char *end = NULL;
        double v = strtod(buf, &end);
        return end != buf && v >= 0 ? v : -1;
}

/* HugePages in use now (faulted plus reserved, at most Total), from a
 * fresh read of /proc/meminfo; -1 when it cannot be read. */
static int64_t hugepages_in_use(const ht_context *c, uint64_t *ret_free, uint64_t *ret_rsvd) {
        ht_meminfo m;
        if (ht_meminfo_read(c, &m) < 0)
                return -1;
        uint64_t t = m.hugepages_total, fr = m.hugepages_free, rs = m.hugepages_rsvd;
        ht_meminfo_done(&m);
        if (t == HT_MEMINFO_UNKNOWN || fr == HT_MEMINFO_UNKNOWN || rs == HT_MEMINFO_UNKNOWN)
                return -1;
        uint64_t used = (t >= fr ? t - fr : 0) + rs;
        *ret_free = fr;
        *ret_rsvd = rs;
        return (int64_t)(used > t ? t : used);
}

/* The settle window: the youngest workload process (kinds) is younger
 * than settle seconds and the pool is not yet half in use. A JVM or a
 * database maps its pages some time after it starts (Java 17 with
 * -Xmx512m: 1.2 s; a database recovering its logs: longer), and the
 * boot-time unit may start right after it; the window lets it, bounded:
 * at most settle seconds after the youngest one started, re-reading
 * /proc/meminfo every 500 ms. *used, *fr, *rs are updated; the seconds
 * waited and the youngest process are returned for the check's text. */
static double settle_wait(const ht_context *c, const ht_facts *f, unsigned kinds, uint64_t base, unsigned settle,
                          uint64_t *used, uint64_t *fr, uint64_t *rs, unsigned *ret_pid, double *ret_age) {
        long tck = sysconf(_SC_CLK_TCK);
        double up = uptime_now(c), youngest = -1;
        unsigned ypid = 0;
        if (settle == 0 || up < 0 || tck <= 0)
                return 0;
        for (size_t i = 0; i < f->n_processes; i++) {
                const ht_process *p = &f->processes[i];
                ht_proc_memory m;
                if (!(kinds & (1u << p->kind)) || ht_proc_memory_read(c, p->pid, &m) < 0 ||
                    m.start_ticks == HT_U64_UNKNOWN)
                        continue;
                double age = up - (double)m.start_ticks / (double)tck;
                if (age < 0)
                        age = 0;
                if (youngest < 0 || age < youngest) {
                        youngest = age;
                        ypid = p->pid;
                }
        }
        *ret_pid = ypid;
        *ret_age = youngest;
        if (youngest < 0 || youngest >= settle)
                return 0;
        double left = (double)settle - youngest, waited = 0;
        while (*used * 2 < base && waited < left) {
                struct timespec ts = {0, 500 * 1000 * 1000};
                nanosleep(&ts, NULL);
                waited += 0.5;
                uint64_t nf, nr;
                int64_t u = hugepages_in_use(c, &nf, &nr);
                if (u >= 0) {
                        *used = (uint64_t)u;
                        *fr = nf;
                        *rs = nr;
                }
        }
        return waited;
}

/* The workload runs: does it use the HugePages reserved for it? The
 * database that restarted without them (large pages off in its
 * configuration, a memlock limit too low, or its caches taking the pages
 * first so that the buffer pool's mmap(MAP_HUGETLB) fails with ENOMEM and
 * falls back to 4 KB pages: MariaDB says nothing in its error log) leaves
 * the pool idle, and every other check is still ok. In use is taken from
 * /proc/meminfo: pages faulted in (Total - Free) and pages reserved for a
 * mapping not yet touched (Rsvd: mmap(MAP_HUGETLB) and shmget(SHM_HUGETLB)
 * reserve the whole size at once; kernel
 * Documentation/admin-guide/mm/hugetlbpage.rst). Fewer than half of the
 * pages asked for in use is drift; at boot, before the database has
 * started, there is nothing to judge. */
static void check_hugepages_used(const ht_context *c, const ht_facts *f, unsigned kinds, uint64_t asked,
                                 const char *applied_at, bool reboot_pending, unsigned settle,
                                 ht_verify_result *out) {
        size_t n_workload = 0;
        for (size_t i = 0; i < f->n_processes; i++)
                n_workload += !!(kinds & (1u << f->processes[i].kind));
        if (!n_workload || asked == 0 || f->hugepages_total == HT_U64_UNKNOWN ||
            f->hugepages_free == HT_U64_UNKNOWN || f->hugepages_rsvd == HT_U64_UNKNOWN)
                return;
        uint64_t base = asked < f->hugepages_total ? asked : f->hugepages_total;
        if (base == 0)
                return;  /* none came: the HugePages_Total check says so */
        uint64_t faulted = f->hugepages_total >= f->hugepages_free ? f->hugepages_total - f->hugepages_free : 0;
        uint64_t used = faulted + f->hugepages_rsvd, hp_free = f->hugepages_free, hp_rsvd = f->hugepages_rsvd;
        if (used > f->hugepages_total)
                used = f->hugepages_total;
        unsigned young_pid = 0;
        double young_age = -1, waited = 0;
        if (used * 2 < base)
                waited = settle_wait(c, f, kinds, base, settle, &used, &hp_free, &hp_rsvd, &young_pid, &young_age);
        _cleanup_free_ char *expected = xasprintf("%" PRIu64 " in use (at least half of them)", base);
        _cleanup_free_ char *actual = xasprintf("%" PRIu64 " in use (%" PRIu64 " free, %" PRIu64 " reserved)", used,
                                                hp_free, hp_rsvd);
        if (used * 2 >= base) {
                _cleanup_free_ char *note = waited > 0 ? xasprintf("in use %.1f s after verify started: pid %u had "
                                                                   "started %.1f s before it (settle window %u s)",
                                                                   waited, young_pid, young_age, settle)
                                                       : NULL;
                add_check(out, "hugepages", "HugePages in use", expected, actual, HT_CHECK_OK, note);
                return;
        }
        /* who runs, and which of them started before the apply (its pages
         * are taken when it starts: a server not restarted since runs
         * without them) */
        int64_t btime = boot_time(c), applied = ht_parse_iso_time(applied_at);
        long tck = sysconf(_SC_CLK_TCK);
        strbuf who = {0}, stale = {0};
        size_t shown = 0, n_stale = 0, n_started_known = 0;
        uint64_t hugetlb_kb = 0;
        for (size_t i = 0; i < f->n_processes; i++) {
                const ht_process *p = &f->processes[i];
                ht_proc_memory m;
                if (!(kinds & (1u << p->kind)) || ht_proc_memory_read(c, p->pid, &m) < 0)
                        continue;
                /* mapped counts the reserved pages too; an SGA is shared:
                 * every process attached maps it, so the most any one maps */
                if (m.hugetlb_mapped_kb != HT_U64_UNKNOWN && m.hugetlb_mapped_kb > hugetlb_kb)
                        hugetlb_kb = m.hugetlb_mapped_kb;
                if (m.hugetlb_kb != HT_U64_UNKNOWN && m.hugetlb_kb > hugetlb_kb)
                        hugetlb_kb = m.hugetlb_kb;
                if (shown++ < 3)
                        strbuf_appendf(&who, "%s%s (pid %u)", who.len ? ", " : "", p->name, p->pid);
                bool started_known = btime >= 0 && applied >= 0 && tck > 0 && m.start_ticks != HT_U64_UNKNOWN;
                n_started_known += started_known;
                if (started_known && btime + (int64_t)(m.start_ticks / (uint64_t)tck) < applied && n_stale++ < 3)
                        strbuf_appendf(&stale, "%s%s (pid %u)", stale.len ? ", " : "", p->name, p->pid);
        }
        if (!shown) {
                free(strbuf_steal(&who));
                free(strbuf_steal(&stale));
                return;  /* gone meanwhile */
        }
        if (shown > 3)
                strbuf_appendf(&who, " and %zu more", shown - 3);
        _cleanup_free_ char *who_s = strbuf_steal(&who), *stale_s = strbuf_steal(&stale);
        if (reboot_pending && n_stale > 0 && n_stale == n_started_known) {
                /* provisioning: the server came with its package and runs
                 * since before the apply, whose reboot restarts it (every
                 * process whose start is known started before it) */
                _cleanup_free_ char *hint = xasprintf("%s started before the apply and %s without its HugePages until "
                                                      "the pending reboot restarts %s (or restart %s now)",
                                                      stale_s, n_stale == 1 ? "runs" : "run",
                                                      n_stale == 1 ? "it" : "them", n_stale == 1 ? "it" : "them");
                add_check(out, "hugepages", "HugePages in use", expected, actual, HT_CHECK_PENDING, hint);
                return;
        }
        _cleanup_free_ char *settled = waited > 0 ? xasprintf("; still so after waiting %.1f s for pid %u, which had "
                                                              "started %.1f s before verify (settle window %u s)",
                                                              waited, young_pid, young_age, settle)
                                       : xstrdup("");
        _cleanup_free_ char *restart = *stale_s ? xasprintf("; not restarted since the apply: %s started before it, "
                                                            "restart it to take the pages", stale_s)
                                                : xstrdup("");
        _cleanup_free_ char *hint = xasprintf(
                "%s while %s %s: the workload runs without its HugePages; likely causes: large pages off in its "
                "configuration (MariaDB/MySQL large_pages=ON, JVM -XX:+UseLargePages, Oracle use_large_pages), its "
                "memlock limit (LimitMEMLOCK, limits.conf memlock), not restarted since the apply, or the pages taken "
                "by another process first (its other caches, another program)%s; the most any of its processes "
                "maps in HugePages is %" PRIu64 " kB (/proc/PID/smaps)%s",
                used == 0 ? "all HugePages free" : "far fewer HugePages in use than asked for", who_s,
                shown == 1 ? "runs" : "run", restart, hugetlb_kb, settled);
        add_check(out, "hugepages", "HugePages in use", expected, actual, HT_CHECK_DRIFT, hint);
}

/* Whose pages they are: the kinds of process the applied profile tunes,
 * from its parameters (oracle_user, mysql_user, jvm_user: the shipped
 * profiles and those inheriting them), as a mask of 1 << ht_process_kind;
 * every kind for a profile with none of them. A JVM on a host tuned for
 * Oracle does not take the SGA's pages. */
static unsigned workload_kinds(const ht_tx *tx) {
        static const struct {
                const char *param;
                ht_process_kind kind;
        } map[] = {{"oracle_user", HT_PROC_ORACLE}, {"mysql_user", HT_PROC_MYSQL}, {"jvm_user", HT_PROC_JAVA}};
        unsigned kinds = 0;
        for (size_t i = 0; i < ELEMENTSOF(map); i++)
                if (ht_tx_has_param(tx, map[i].param))
                        kinds |= 1u << map[i].kind;
        return kinds ? kinds : (1u << HT_PROC_ORACLE) | (1u << HT_PROC_MYSQL) | (1u << HT_PROC_JAVA);
}

static int sort_rank(ht_check_status s) {
        return s == HT_CHECK_DRIFT ? 0 : s == HT_CHECK_PENDING ? 1 : 2;
}

static int check_cmp(const void *a, const void *b) {
        const ht_check *x = a, *y = b;
        return sort_rank(x->status) - sort_rank(y->status);
}

static const char *summary_string(json_object *o, const char *key) {
        json_object *v;
        return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string) ?
                       json_object_get_string(v) : NULL;
}

/* The newest summary in list matching command and status, or the one
 * with txid (when txid is not NULL); NULL when there is none. */
static json_object *find_summary(json_object *list, const char *command, const char *status, const char *txid) {
        for (size_t i = json_object_array_length(list); i > 0; i--) {
                json_object *t = json_object_array_get_idx(list, i - 1);
                if (txid ? streq_ptr(summary_string(t, "txid"), txid)
                         : streq_ptr(summary_string(t, "command"), command) &&
                                   streq_ptr(summary_string(t, "status"), status))
                        return t;
        }
        return NULL;
}

/* A journal with no apply in effect: say why, from the history — the
 * newest apply rolled back and the rollback that did it, or none. */
static int nothing_applied(const ht_context *c, const ht_facts *facts, ht_verify_result *ret, char **ret_error) {
        json_object *list = NULL;
        int r = ht_journal_list(c, &list, ret_error);
        if (r < 0)
                return r;
        ht_verify_result res = {.applied = false, .status = HT_CHECK_OK};
        json_object *undone = find_summary(list, "apply", "rolled-back", NULL);
        if (undone) {
                res.rolled_back_txid = dup_or_null(summary_string(undone, "txid"));
                res.rolled_back_profile = dup_or_null(summary_string(undone, "profile"));
                res.rolled_back_by = dup_or_null(summary_string(undone, "rolled_back_by"));
                res.rolled_back_at = dup_or_null(summary_string(undone, "rolled_back_at"));
                /* a rollback of kernel command line words is complete only
                 * after the next boot */
                json_object *t = res.rolled_back_by ? find_summary(list, NULL, NULL, res.rolled_back_by) : NULL, *v;
                if (t) {
                        bool reboot = json_object_object_get_ex(t, "reboot_required", &v) && json_object_get_boolean(v);
                        const char *boot_then = summary_string(t, "boot_id");
                        _cleanup_(ht_facts_freep) ht_facts *collected = NULL;
                        const ht_facts *f = facts;
                        if (reboot && !f && ht_facts_collect(c, HT_FACTS_HOST, &collected) >= 0)
                                f = collected;
                        res.rollback_reboot_pending = reboot && boot_then && f && f->boot_id && streq(boot_then, f->boot_id);
                }
                res.message = xasprintf("nothing to verify: the last apply (transaction %s, profile %s) was rolled "
                                        "back by %s%s%s; none of hosttune's tuning is in effect%s",
                                        res.rolled_back_txid ? res.rolled_back_txid : "?",
                                        res.rolled_back_profile ? res.rolled_back_profile : "?",
                                        res.rolled_back_by ? res.rolled_back_by : "?",
                                        res.rolled_back_at ? " at " : "", res.rolled_back_at ? res.rolled_back_at : "",
                                        res.rollback_reboot_pending ? "; the rollback takes full effect at the next boot" : "");
        } else
                res.message = xasprintf("nothing to verify: the journal (%s) holds no apply in effect (none was "
                                        "committed, or each was undone)", c->state_dir);
        json_object_put(list);
        *ret = res;
        return 0;
}

int ht_verify(const ht_context *c, const ht_facts *facts, ht_verify_result *ret, char **ret_error) {
        return ht_verify_settle(c, facts, 0, ret, ret_error);
}

int ht_verify_settle(const ht_context *c, const ht_facts *facts, unsigned settle, ht_verify_result *ret,
                     char **ret_error) {
        ht_tx *tx = NULL;
        char *err = NULL;
        int r = ht_journal_last_committed(c, "apply", &tx, &err);
        if (r == -ENOENT) {
                free(err);
                err = NULL;
                r = ht_journal_exists(c, &err);
                if (r > 0)
                        return nothing_applied(c, facts, ret, ret_error);
                if (r < 0) {
                        *ret_error = err;
                        return r;
                }
                return ht_error(ret_error, -ENOENT,
                                "nothing to verify: no journal in %s, so nothing was applied there; run "
                                "'hosttune apply PROFILE' first", c->state_dir);
        }
        if (r < 0) {
                *ret_error = err;
                return r;
        }
        ht_verify_result res = {.applied = true};
        res.txid = xstrdup(ht_tx_txid(tx));
        res.profile = dup_or_null(ht_tx_profile(tx));
        res.applied_at = dup_or_null(ht_tx_committed_at(tx));

        ht_resolved *want = NULL;
        r = ht_tx_expected(tx, &want);
        if (r < 0) {
                *ret_error = xasprintf("journal %s: the expected state is missing or malformed", res.txid);
                ht_tx_free(tx);
                ht_verify_result_done(&res);
                return -EBADMSG;
        }

        ht_facts *collected = NULL;
        r = facts ? 0 : ht_facts_collect(c, HT_FACTS_WITH_WORKLOAD, &collected);
        const ht_facts *f = facts ? facts : collected;
        if (r < 0) {
                *ret_error = xasprintf("cannot collect facts: %s", ht_strerror(-r));
                ht_resolved_free(want);
                ht_tx_free(tx);
                ht_verify_result_done(&res);
                return r;
        }
        const char *boot_then = ht_tx_boot_id(tx);
        /* An image applied offline that now runs a kernel has booted:
         * its first boot is the reboot the apply waited for. */
        res.rebooted = boot_then ? f->boot_id && !streq(boot_then, f->boot_id) : ht_tx_offline(tx) && f->boot_id;

        ht_plan *p = ht_plan_new(res.profile);
        p->offline = !ht_root_is_live(c);
        for (size_t i = 0; ht_backends[i]; i++)
                if (ht_backends[i]->plan)
                        ht_backends[i]->plan(c, f, want, p);
        _cleanup_free_ char *reapply = request_command(c, tx, "apply");
        ht_tuner_settings ts;
        ht_tuner_settings_collect(c, f, &ts);
        check_settings(want, p, &res, reapply, &ts, &res);
        ht_tuner_settings_done(&ts);
        for (size_t i = 0; p->errors && p->errors[i]; i++)
                strv_push(&res.warnings, p->errors[i]);
        for (size_t i = 0; f->unread_warnings && f->unread_warnings[i]; i++)
                strv_push(&res.warnings, f->unread_warnings[i]);

        /* HugePages_Total must reach what was asked; short before a reboot
         * is the fragmented-memory case apply reported. */
        for (size_t i = 0; i < want->n_settings; i++) {
                const ht_setting *s = &want->settings[i];
                uint64_t asked, total;
                if (!is_hugepages(s) || parse_u64(s->value, &asked) < 0 || ht_read_hugepages_total(c, &total) < 0)
                        continue;
                char a[32], t[32];
                snprintf(a, sizeof a, "%" PRIu64, asked);
                snprintf(t, sizeof t, "%" PRIu64, total);
                ht_check_status st = total >= asked ? HT_CHECK_OK : res.rebooted ? HT_CHECK_DRIFT : HT_CHECK_PENDING;
                add_check(&res, "hugepages", "HugePages_Total", a, t, st,
                          st == HT_CHECK_OK ? NULL :
                          res.rebooted ? "short after a reboot: the host lacks the memory, or something else holds it"
                                       : "memory too fragmented now; the boot-time setting allocates them at the next boot");
        }
        for (size_t i = 0; i < want->n_settings; i++) {
                uint64_t asked;
                if (is_hugepages(&want->settings[i]) && parse_u64(want->settings[i].value, &asked) == 0 &&
                    f->workload_collected)
                        check_hugepages_used(c, f, workload_kinds(tx), asked, res.applied_at,
                                             !res.rebooted && ht_tx_reboot_required(tx), settle, &res);
        }
        check_files(c, tx, &res);
        /* Oracle's own start gate, as plan says it (rules/15-oracle.rules,
         * oracle-use-large-pages-only, cites Oracle's USE_LARGE_PAGES):
         * instances started outside systemd pass no hosttune gate */
        for (size_t i = 0; i < want->n_settings; i++) {
                uint64_t asked;
                if (!is_hugepages(&want->settings[i]) || parse_u64(want->settings[i].value, &asked) < 0 || asked == 0 ||
                    isempty(ht_tx_param(tx, "oracle_release")))
                        continue;
                _cleanup_free_ char *sids = ht_oracle_use_large_pages_true(f);
                if (sids)
                        strv_pushf(&res.warnings, "oracle %s: use_large_pages is TRUE (set, or by default), so an "
                                   "instance started when too few HugePages are free runs with the rest of its SGA "
                                   "in 4 KB pages; use_large_pages=ONLY makes Oracle itself refuse to start "
                                   "without them (ALTER SYSTEM SET use_large_pages=ONLY SCOPE=SPFILE, then "
                                   "restart; Oracle Database Reference, USE_LARGE_PAGES)", sids);
                break;
        }
        if (res.n_checks > 1) /* qsort of NULL, 0 is undefined */
                qsort(res.checks, res.n_checks, sizeof(ht_check), check_cmp);

        ht_plan_free(p);
        ht_facts_free(collected);
        ht_resolved_free(want);
        ht_tx_free(tx);
        *ret = res;
        return 0;
}

json_object *ht_verify_to_json(const ht_verify_result *r) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "status", json_object_new_string(ht_check_status_to_string(r->status)));
        json_object_object_add(o, "applied", json_object_new_boolean(r->applied));
        if (!r->applied) {
                json_object_object_add(o, "message", json_object_new_string(r->message ? r->message : ""));
                json_object *rb = NULL;
                if (r->rolled_back_txid) {
                        rb = json_object_new_object();
                        json_object_object_add(rb, "txid", json_object_new_string(r->rolled_back_txid));
                        json_object_object_add(rb, "profile", r->rolled_back_profile ? json_object_new_string(r->rolled_back_profile) : NULL);
                        json_object_object_add(rb, "by", r->rolled_back_by ? json_object_new_string(r->rolled_back_by) : NULL);
                        json_object_object_add(rb, "at", r->rolled_back_at ? json_object_new_string(r->rolled_back_at) : NULL);
                        json_object_object_add(rb, "reboot_pending", json_object_new_boolean(r->rollback_reboot_pending));
                }
                json_object_object_add(o, "rolled_back", rb);
        }
        json_object_object_add(o, "txid", r->txid ? json_object_new_string(r->txid) : NULL);
        json_object_object_add(o, "profile", r->profile ? json_object_new_string(r->profile) : NULL);
        json_object_object_add(o, "applied_at", r->applied_at ? json_object_new_string(r->applied_at) : NULL);
        json_object_object_add(o, "rebooted_since_apply", json_object_new_boolean(r->rebooted));
        json_object *a = json_object_new_array();
        for (size_t i = 0; i < r->n_checks; i++) {
                const ht_check *ck = &r->checks[i];
                json_object *e = json_object_new_object();
                json_object_object_add(e, "backend", json_object_new_string(ck->backend));
                json_object_object_add(e, "key", json_object_new_string(ck->key));
                json_object_object_add(e, "expected", ck->expected ? json_object_new_string(ck->expected) : NULL);
                json_object_object_add(e, "actual", ck->actual ? json_object_new_string(ck->actual) : NULL);
                json_object_object_add(e, "status", json_object_new_string(ht_check_status_to_string(ck->status)));
                if (ck->hint)
                        json_object_object_add(e, "hint", json_object_new_string(ck->hint));
                json_object_array_add(a, e);
        }
        json_object_object_add(o, "checks", a);
        json_object *w = json_object_new_array();
        for (size_t i = 0; r->warnings && r->warnings[i]; i++)
                json_object_array_add(w, json_object_new_string(r->warnings[i]));
        json_object_object_add(o, "warnings", w);
        return o;
}
