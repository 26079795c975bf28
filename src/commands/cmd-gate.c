/* hosttune gate UNIT (issue 37): before a database or JVM unit starts,
 * check that the host still has what the last apply sized for it, in a
 * few reads and no plan: the free HugePages (free minus reserved) against
 * the pages the unit needs, the unit's effective LimitMEMLOCK where the
 * apply set one, THP as the profile wants it, and the booted command line
 * against the words the apply persisted.
 *
 * What the unit needs is what apply recorded, not a new resolution of the
 * profile: the journal's last committed apply, its expected settings (the
 * unit's StartGate, LimitMEMLOCK, vm.nr_hugepages, THP, command-line
 * words) and its parameters (hugepages_bytes and hugepage_size_kb: the
 * unit's own pages, without the slack). Reading the journal takes root,
 * so the drop-in runs the gate with systemd's "+" prefix.
 *
 * Warn mode logs each shortfall with its fix and exits 0. Refuse mode
 * (--refuse, or start_gate=refuse in the applied profile) exits 2 when the
 * pages or the memlock limit are short, the two that make the database
 * run on 4 KB pages; THP and the command line are only logged. Under
 * systemd, stderr is the journal (the unit's own entries): each line
 * carries its syslog priority prefix there (systemd.exec(5),
 * SyslogLevelPrefix=), and libsystemd is not loaded at all. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend-common.h"
#include "backend.h"
#include "commands.h"
#include "edit-unit.h"
#include "format-meminfo.h"
#include "journal.h"
#include "render.h"
#include "util.h"

typedef enum {
        GATE_OK,
        GATE_SHORT,
        GATE_UNKNOWN,  /* could not be read: said, never refused for */
} gate_status;

typedef struct {
        const char *check;  /* "hugepages", "memlock", "thp", "cmdline" */
        gate_status status;
        bool blocks;        /* refuse mode fails the start for it */
        char *expected, *actual;
        char *message;      /* a shortfall or why unknown; NULL when ok */
        char *fix;
} gate_check;

typedef struct {
        gate_check *c;
        size_t n;
} gate_checks;

static gate_check *add(gate_checks *l, const char *check, gate_status st, const char *expected, const char *actual) {
        l->c = xrealloc(l->c, (l->n + 1) * sizeof(*l->c));
        gate_check *g = &l->c[l->n++];
        /* short HugePages or memlock make the database run on 4 KB pages */
        *g = (gate_check){.check = check, .status = st, .expected = expected ? xstrdup(expected) : NULL,
                          .actual = actual ? xstrdup(actual) : NULL,
                          .blocks = streq(check, "hugepages") || streq(check, "memlock")};
        return g;
}

static void gate_checks_done(gate_checks *l) {
        for (size_t i = 0; i < l->n; i++) {
                free(l->c[i].expected);
                free(l->c[i].actual);
                free(l->c[i].message);
                free(l->c[i].fix);
        }
        free(l->c);
}

static const char *status_name(gate_status s) {
        return s == GATE_OK ? "ok" : s == GATE_SHORT ? "short" : "unknown";
}

static char *with_suffix(const char *u) {
        return strchr(u, '.') ? xstrdup(u) : xasprintf("%s.service", u);
}

/* Whether a setting's unit is the gated one: by name, else by the gated
 * unit's aliases (a setting may name mysqld.service, an Alias= of the
 * mariadb.service the drop-in names). *names caches them. */
static bool same_unit(const ht_context *c, const char *setting_unit, const char *unit, char ***names) {
        if (!setting_unit)
                return false;
        _cleanup_free_ char *su = with_suffix(setting_unit);
        if (streq(su, unit))
                return true;
        /* a template's settings (mariadb@.service, several instances)
         * are each instance's: its drop-in reaches them all */
        const char *at = strchr(su, '@');
        if (at && at[1] == '.' && strncmp(su, unit, (size_t)(at - su + 1)) == 0 && endswith(unit, at + 1) &&
            strlen(unit) > strlen(su))
                return true;
        if (!*names && ht_unit_names(c, unit, names) < 0)
                strv_push(names, unit);
        return strv_contains(*names, su);
}

/* Whether s is a setting of the backend named name (generic code looks a
 * backend up by name, docs/DESIGN.md, "Backends"). */
static bool of_backend(const ht_setting *s, const char *name) {
        const ht_backend *b = ht_backend_by_name(name);
        return b && s->backend == b->id;
}

static uint64_t u64_or(const char *s, uint64_t dflt) {
        uint64_t v;
        return s && parse_u64(s, &v) == 0 ? v : dflt;
}

/* A parameter the composed workloads resolved differently is recorded
 * as "w1: v1; w2: v2" (compose.c, "per workload"): workload w's value,
 * NULL when v is not of that form or has no w. */
static char *workload_value(const char *v, const char *w) {
        if (!v || !strstr(v, ": "))
                return NULL;
        _cleanup_strv_free_ char **parts = strv_split(v, ";");
        for (size_t i = 0; parts[i]; i++) {
                const char *p = parts[i] + strspn(parts[i], " ");
                size_t n = strlen(w);
                if (strncmp(p, w, n) == 0 && startswith(p + n, ": "))
                        return streq(p + n + 2, "\"\"") ? xstrdup("") : xstrdup(p + n + 2);
        }
        return NULL;
}

/* The workload of a composed apply whose hugepages_unit is the gated
 * unit (by name or alias); NULL when the apply was of one workload. */
static char *unit_workload(const ht_context *c, const char *units, const char *unit, char ***names) {
        if (!units || !strstr(units, ": "))
                return NULL;
        _cleanup_strv_free_ char **parts = strv_split(units, ";");
        for (size_t i = 0; parts[i]; i++) {
                const char *p = parts[i] + strspn(parts[i], " ");
                const char *colon = strstr(p, ": ");
                if (colon && same_unit(c, colon + 2, unit, names))
                        return xstrndup(p, (size_t)(colon - p));
        }
        return NULL;
}

/* Free HugePages (HugePages_Free minus HugePages_Rsvd: pages a mapping
 * has reserved are not free for another, mm/hugetlb.c) against need. */
static void check_hugepages(const ht_context *c, uint64_t need, const char *need_from, uint64_t asked,
                            gate_checks *l) {
        char want[32];
        snprintf(want, sizeof want, "%" PRIu64, need);
        ht_meminfo m;
        int r = ht_meminfo_read(c, &m);
        if (r < 0 || m.hugepages_free == HT_MEMINFO_UNKNOWN || m.hugepages_total == HT_MEMINFO_UNKNOWN) {
                gate_check *g = add(l, "hugepages", GATE_UNKNOWN, want, NULL);
                g->message = xasprintf("cannot read HugePages_Free from /proc/meminfo%s%s", r < 0 ? ": " : "",
                                       r < 0 ? ht_strerror(-r) : "");
                if (r >= 0)
                        ht_meminfo_done(&m);
                return;
        }
        uint64_t rsvd = m.hugepages_rsvd == HT_MEMINFO_UNKNOWN ? 0 : m.hugepages_rsvd;
        uint64_t avail = m.hugepages_free > rsvd ? m.hugepages_free - rsvd : 0;
        char have[32];
        snprintf(have, sizeof have, "%" PRIu64, avail);
        gate_check *g = add(l, "hugepages", avail >= need ? GATE_OK : GATE_SHORT, want, have);
        if (g->status == GATE_SHORT) {
                g->message = xasprintf("needs %" PRIu64 " free HugePages (%s), but %" PRIu64 " are free "
                                       "(HugePages_Free %" PRIu64 " - HugePages_Rsvd %" PRIu64 ", of HugePages_Total %"
                                       PRIu64 "): it would put its memory in 4 KB pages",
                                       need, need_from, avail, m.hugepages_free, rsvd, m.hugepages_total);
                if (asked > 0 && m.hugepages_total < asked)
                        g->fix = xasprintf("the kernel holds %" PRIu64 " of the %" PRIu64 " pages vm.nr_hugepages "
                                           "asks for (memory too fragmented when they were allocated): reboot, "
                                           "so they are allocated at boot, or free memory and run 'sysctl -w "
                                           "vm.nr_hugepages=%" PRIu64 "'", m.hugepages_total, asked, asked);
                else
                        g->fix = xasprintf("other processes hold %" PRIu64 " of them: 'ipcs -m' lists the SysV "
                                           "segments and Private_Hugetlb/Shared_Hugetlb in /proc/PID/smaps the "
                                           "mappings; stop what should not hold them, or size the pool for both "
                                           "and apply again", m.hugepages_total - avail);
        }
        ht_meminfo_done(&m);
}

/* The unit's LimitMEMLOCK as systemd gives it (its files, else the
 * default every service gets) against the minimum the apply set. */
static void check_memlock(const ht_context *c, const char *unit, const char *want, gate_checks *l) {
        _cleanup_(ht_facts_freep) ht_facts *f = ht_facts_new();
        _cleanup_free_ char *rel = NULL, *value = NULL, *from = NULL;
        /* the default (8M or 64K) depends on the kernel (ht_systemd_default_limit) */
        if (ht_read_file(c, "/proc/sys/kernel/osrelease", 256, &rel, NULL) >= 0)
                f->kernel_release = xstrndup(rel, strcspn(rel, "\n"));
        int r = ht_unit_effective_limit(c, f, unit, "LimitMEMLOCK", &value, &from);
        uint64_t ws, wh, vs, vh;
        if (r < 0 || ht_unit_parse_limit("LimitMEMLOCK", want, &ws, &wh) < 0 ||
            ht_unit_parse_limit("LimitMEMLOCK", value, &vs, &vh) < 0) {
                gate_check *g = add(l, "memlock", GATE_UNKNOWN, want, value);
                g->message = xasprintf("cannot tell the LimitMEMLOCK of %s%s%s", unit, r < 0 ? ": " : "",
                                       r < 0 ? ht_strerror(-r) : "");
                return;
        }
        gate_check *g = add(l, "memlock", vs >= ws && vh >= wh ? GATE_OK : GATE_SHORT, want, value);
        if (g->status == GATE_SHORT) {
                g->message = xasprintf("LimitMEMLOCK is %s (%s), below the %s the applied profile set: its "
                                       "HugePages segments cannot be locked", value, from ? from : "?", want);
                g->fix = xasprintf("raise or remove LimitMEMLOCK= there, or apply the profile again; then "
                                   "'systemctl daemon-reload'");
        }
}

/* The mode in brackets of a sysfs choice file ("always madvise [never]");
 * a file of one word (a fixture host's, as written) is that word. */
static char *bracketed(const char *text) {
        const char *a = strchr(text, '['), *b = a ? strchr(a, ']') : NULL;
        if (b)
                return xstrndup(a + 1, (size_t)(b - a - 1));
        _cleanup_free_ char *w = xstrdup(text);
        char *t = strstrip(w);
        return *t && !strpbrk(t, " \t\n") ? xstrdup(t) : NULL;
}

static void check_thp(const ht_context *c, const ht_setting *s, gate_checks *l) {
        _cleanup_free_ char *text = NULL, *now = NULL;
        int r = ht_read_file(c, s->key, 4096, &text, NULL);
        now = r >= 0 ? bracketed(text) : NULL;
        gate_check *g = add(l, "thp", !now ? GATE_UNKNOWN : streq(now, s->value) ? GATE_OK : GATE_SHORT, s->value, now);
        if (!now)
                g->message = xasprintf("cannot read the THP mode from %s", s->key);
        else if (g->status == GATE_SHORT) {
                g->message = xasprintf("Transparent HugePages are %s, the applied profile wants %s (%s)", now,
                                       s->value, s->key);
                g->fix = xasprintf("'echo %s > %s', or apply the profile again ('hosttune verify' names "
                                   "what changed it)", s->value, s->key);
        }
}

/* The words the apply persisted on the Linux command line (a Xen
 * hypervisor's are not in /proc/cmdline) against the booted one. */
static void check_cmdline(const ht_context *c, const ht_resolved *want, gate_checks *l) {
        _cleanup_free_ char *text = NULL;
        _cleanup_strv_free_ char **words = NULL;
        strbuf missing = {0}, expected = {0};
        bool any = false;
        int r = 0;
        for (size_t i = 0; i < want->n_settings; i++) {
                const ht_setting *s = &want->settings[i];
                if (!of_backend(s, "cmdline") || (ht_setting_field(s, "target") && !streq(ht_setting_field(s, "target"), "linux")))
                        continue;
                if (!any && (r = ht_read_file(c, "/proc/cmdline", 1 << 16, &text, NULL)) < 0)
                        break;
                if (!any)
                        words = strv_split(text, " \t\n");
                any = true;
                _cleanup_free_ char *word = isempty(s->value) ? xstrdup(s->key) : xasprintf("%s=%s", s->key, s->value);
                bool has = false, has_key = false;
                for (size_t w = 0; words && words[w]; w++) {
                        has = has || streq(words[w], word);
                        const char *eq = strchr(words[w], '=');
                        size_t kl = eq ? (size_t)(eq - words[w]) : strlen(words[w]);
                        has_key = has_key || (kl == strlen(s->key) && strncmp(words[w], s->key, kl) == 0);
                }
                bool fine = s->remove ? (isempty(s->value) ? !has_key : !has) : has;
                strbuf_appendf(&expected, "%s%s%s", expected.len ? " " : "", s->remove ? "no " : "", word);
                if (!fine)
                        strbuf_appendf(&missing, "%s%s%s", missing.len ? ", " : "", s->remove ? "still has " : "",
                                       word);
        }
        _cleanup_free_ char *exp = strbuf_steal(&expected), *miss = strbuf_steal(&missing);
        if (r < 0) {
                gate_check *g = add(l, "cmdline", GATE_UNKNOWN, NULL, NULL);
                g->message = xasprintf("cannot read /proc/cmdline: %s", ht_strerror(-r));
                return;
        }
        if (!any)
                return;
        gate_check *g = add(l, "cmdline", isempty(miss) ? GATE_OK : GATE_SHORT, exp, isempty(miss) ? exp : NULL);
        if (g->status == GATE_SHORT) {
                g->message = xasprintf("the booted command line lacks what the applied profile persisted: %s",
                                       miss);
                g->fix = xstrdup("reboot to boot with it ('hosttune verify' says whether one is pending)");
        }
}

/* stderr is the journal (systemd.exec(5), $JOURNAL_STREAM: "the device
 * and inode numbers of the file descriptors should be compared with the
 * values set in the environment variable"). */
static bool stderr_is_journal(void) {
        const char *js = getenv("JOURNAL_STREAM");
        unsigned long long dev, ino;
        struct stat st;
        return js && sscanf(js, "%llu:%llu", &dev, &ino) == 2 && fstat(STDERR_FILENO, &st) == 0 &&
               (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

/* One line to stderr; in the journal with its priority ("<3>" err, "<4>"
 * warning, "<5>" notice: SyslogLevelPrefix=, on by default). */
static void say(bool journal, int prio, const char *unit, const char *text) {
        _cleanup_free_ char *safe = ht_text_safe(text);
        if (journal)
                fprintf(stderr, "<%d>", prio);
        fprintf(stderr, "hosttune gate: %s: %s\n", unit, safe);
}

static json_object *jstr(const char *s) {
        return s ? json_object_new_string(s) : NULL;
}

int ht_cmd_gate(const ht_cmd_opts *o) {
        const ht_context *c = o->ctx;
        _cleanup_free_ char *unit = with_suffix(o->args[0]);
        _cleanup_strv_free_ char **names = NULL;
        if (!ht_unit_name_valid(unit)) {
                ht_report_error("gate: '%s' is not a systemd unit name", o->args[0]);
                return HT_EXIT_ERROR;
        }
        bool journal = stderr_is_journal();
        _cleanup_(ht_tx_freep) ht_tx *tx = NULL;
        _cleanup_free_ char *err = NULL;
        int r = ht_journal_last_committed(c, "apply", &tx, &err);
        if (r == -ENOENT) {
                /* rolled back, or never applied: no drop-in should run us,
                 * and no record says what to check */
                if (!c->quiet)
                        say(journal, 5, unit, "no apply is in effect here: nothing to check");
                if (c->json) {
                        json_object *j = json_object_new_object();
                        json_object_object_add(j, "unit", json_object_new_string(unit));
                        json_object_object_add(j, "applied", json_object_new_boolean(false));
                        json_object_object_add(j, "checks", json_object_new_array());
                        ht_print_json(stdout, j);
                        json_object_put(j);
                }
                return HT_EXIT_OK;
        }
        if (r < 0) {
                /* warn mode never stops a start for what it cannot read;
                 * --json (a program, not systemd) gets the error object */
                ht_report_error("gate: %s", err);
                return o->refuse || c->json ? HT_EXIT_ERROR : HT_EXIT_OK;
        }
        _cleanup_(ht_resolved_freep) ht_resolved *want = NULL;
        if (ht_tx_expected(tx, &want) < 0) {
                ht_report_error("gate: journal %s: the expected state is missing or malformed", ht_tx_txid(tx));
                return o->refuse || c->json ? HT_EXIT_ERROR : HT_EXIT_OK;
        }

        const ht_setting *gate = NULL, *memlock = NULL, *thp = NULL;
        uint64_t asked = 0;
        for (size_t i = 0; i < want->n_settings; i++) {
                const ht_setting *s = &want->settings[i];
                if (ht_backend_sets_hugepages(s->backend, s->key))
                        asked = u64_or(s->value, 0);
                else if (of_backend(s, "sysfs") && endswith(s->key, "/transparent_hugepage/enabled"))
                        thp = s;
                else if (of_backend(s, "service") && streq_ptr(ht_setting_field(s, "directive"), HT_GATE_DIRECTIVE) &&
                         same_unit(c, ht_setting_field(s, "unit"), unit, &names))
                        gate = s;
                else if (of_backend(s, "service") && streq_ptr(ht_setting_field(s, "directive"), "LimitMEMLOCK") &&
                         same_unit(c, ht_setting_field(s, "unit"), unit, &names))
                        memlock = s;
        }
        const char *profile = ht_tx_profile(tx) ? ht_tx_profile(tx) : "?";
        bool refuse = o->refuse || (gate && streq_ptr(gate->value, "refuse"));
        gate_checks l = {0};
        if (gate) {
                /* the unit's own pages: hugepages_bytes in pages of the
                 * size it was sized with (rules/10-hugepages.rules), not
                 * the slack; without them (sized from live segments) the
                 * whole pool the apply asked for */
                const char *pb = ht_tx_param(tx, "hugepages_bytes"), *pk = ht_tx_param(tx, "hugepage_size_kb");
                /* a composed apply (mysql+jvm): the pool is the sum of the
                 * workloads' pages; this unit needs its own workload's */
                _cleanup_free_ char *w = unit_workload(c, ht_tx_param(tx, "hugepages_unit"), unit, &names);
                _cleanup_free_ char *wb = w ? workload_value(pb, w) : NULL, *wk = w ? workload_value(pk, w) : NULL;
                uint64_t bytes = u64_or(wb ? wb : pb, 0);
                uint64_t kb = u64_or(wk ? wk : pk, 0);
                uint64_t need = asked;
                _cleanup_free_ char *from = xasprintf("vm.nr_hugepages=%" PRIu64 " of profile %s", asked, profile);
                _cleanup_free_ char *of = w ? xasprintf("workload %s of profile %s", w, profile) : xasprintf("profile %s", profile);
                /* a mariadb@/mysqld@ instance: the apply sized every
                 * instance's pages together (facts-mysql.c); this one
                 * needs its own, from its option groups as they are now */
                uint64_t ib;
                _cleanup_free_ char *ifrom = NULL;
                _cleanup_(ht_facts_freep) ht_facts *mf = ht_facts_new();
                bool instance = ht_facts_mysql_instance_large_pages(c, mf, unit, &ib, &ifrom) == 0;
                if (instance) {
                        bytes = ib;
                        free(of);
                        of = xasprintf("%s's option groups (%s)", unit, ifrom ? ifrom : "large_pages off");
                }
                if (bytes > 0 && kb > 0 && kb <= UINT64_MAX / 1024) {
                        uint64_t pages = bytes / (kb * 1024) + (bytes % (kb * 1024) ? 1 : 0);
                        if (pages <= asked) {
                                need = pages;
                                free(from);
                                from = instance ? xasprintf("%" PRIu64 " bytes in large pages of %s, in %" PRIu64
                                                            " kB pages", bytes, of, kb)
                                                : xasprintf("hugepages_bytes=%" PRIu64 " of %s in %" PRIu64
                                                            " kB pages", bytes, of, kb);
                        }
                }
                /* (a StartGate a profile set by hand for a unit without
                 * HugePages checks the rest; so does one whose workload
                 * sized none in a composition) */
                if (asked > 0 && !((wb || instance) && bytes == 0))
                        check_hugepages(c, need, from, asked, &l);
                if (memlock)
                        check_memlock(c, unit, memlock->value, &l);
                if (thp)
                        check_thp(c, thp, &l);
                check_cmdline(c, want, &l);
        }

        bool blocked = false, shortfall = false, unknown = false;
        for (size_t i = 0; i < l.n; i++) {
                shortfall = shortfall || l.c[i].status == GATE_SHORT;
                unknown = unknown || l.c[i].status == GATE_UNKNOWN;
                blocked = blocked || (l.c[i].blocks && l.c[i].status == GATE_SHORT);
        }
        bool refused = refuse && blocked;
        if (c->json) {
                json_object *j = json_object_new_object();
                json_object_object_add(j, "unit", json_object_new_string(unit));
                json_object_object_add(j, "applied", json_object_new_boolean(true));
                json_object_object_add(j, "txid", jstr(ht_tx_txid(tx)));
                json_object_object_add(j, "profile", jstr(ht_tx_profile(tx)));
                json_object_object_add(j, "gate", gate ? jstr(gate->value) : NULL);
                json_object_object_add(j, "mode", json_object_new_string(refuse ? "refuse" : "warn"));
                json_object_object_add(j, "refused", json_object_new_boolean(refused));
                json_object *a = json_object_new_array();
                for (size_t i = 0; i < l.n; i++) {
                        const gate_check *g = &l.c[i];
                        json_object *e = json_object_new_object();
                        json_object_object_add(e, "check", json_object_new_string(g->check));
                        json_object_object_add(e, "status", json_object_new_string(status_name(g->status)));
                        json_object_object_add(e, "blocks", json_object_new_boolean(g->blocks));
                        json_object_object_add(e, "expected", jstr(g->expected));
                        json_object_object_add(e, "actual", jstr(g->actual));
                        json_object_object_add(e, "message", jstr(g->message));
                        json_object_object_add(e, "fix", jstr(g->fix));
                        json_object_array_add(a, e);
                }
                json_object_object_add(j, "checks", a);
                ht_print_json(stdout, j);
                json_object_put(j);
        }
        if (!gate) {
                if (!c->quiet) {
                        _cleanup_free_ char *m = xasprintf("the last apply (profile %s, transaction %s) set no start "
                                                           "gate for it: nothing to check", profile, ht_tx_txid(tx));
                        say(journal, 5, unit, m);
                }
                gate_checks_done(&l);
                return HT_EXIT_OK;
        }
        strbuf okb = {0};
        for (size_t i = 0; i < l.n; i++) {
                const gate_check *g = &l.c[i];
                if (g->status == GATE_OK) {
                        strbuf_appendf(&okb, "%s%s %s", okb.len ? ", " : "",
                                       streq(g->check, "hugepages") ? "free HugePages" :
                                       streq(g->check, "memlock") ? "LimitMEMLOCK" :
                                       streq(g->check, "thp") ? "THP" : "command line", g->actual);
                        if (streq(g->check, "hugepages"))
                                strbuf_appendf(&okb, " (needs %s)", g->expected);
                        continue;
                }
                if (c->quiet && !(refused && g->blocks))
                        continue;
                _cleanup_free_ char *m = g->fix ? xasprintf("%s; fix: %s", g->message, g->fix) : xstrdup(g->message);
                say(journal, refused && g->blocks ? 3 : 4, unit, m);
        }
        _cleanup_free_ char *oks = strbuf_steal(&okb);
        if (refused) {
                _cleanup_free_ char *m = xasprintf("refused: it would start without the HugePages or the memlock "
                                                   "limit profile %s sized for it (start gate: refuse); fix the "
                                                   "above and start it again", profile);
                say(journal, 3, unit, m);
        } else if (shortfall && !c->quiet) {
                _cleanup_free_ char *m = xasprintf("starts anyway (start gate: warn; start_gate=refuse or "
                                                   "--refuse keeps it from starting when its HugePages or "
                                                   "memlock limit are short)");
                say(journal, 4, unit, m);
        } else if (!shortfall && unknown && !c->quiet) {
                /* not "ready": what could not be read is not known to be there */
                _cleanup_free_ char *m = xasprintf("starts, but not every check could be made (above)%s%s; "
                                                   "profile %s", isempty(oks) ? "" : "; ", isempty(oks) ? "" : oks,
                                                   profile);
                say(journal, 4, unit, m);
        } else if (!shortfall && !c->quiet && !c->json)
                printf("hosttune gate: %s: ready (%s; profile %s)\n", unit, isempty(oks) ? "nothing to check" : oks,
                       profile);
        gate_checks_done(&l);
        return refused ? HT_EXIT_PENDING : HT_EXIT_OK;
}
