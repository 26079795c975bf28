#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "edit-unit.h"
#include "recommend.h"
#include "util.h"

/* Points: a running server is the workload; shared memory of the owner
 * says a database ran (or runs) here; units and binaries say it is
 * installed; a user or config file alone is weaker. */
enum {
        PTS_RUNNING = 5,
        PTS_SHM = 3,
        PTS_JAVA = 3,
        PTS_INSTALLED = 2,
        PTS_LARGE_HEAP = 2,
        PTS_USER = 1,
};

/* A heap from here on is "large": where HugePages and THP matter. */
#define LARGE_HEAP (UINT64_C(4) << 30)

static void evidence(ht_candidate *c, unsigned points, unsigned pid, const char *source, const char *fmt, ...)
        _printf_(5, 6);
static void evidence(ht_candidate *c, unsigned points, unsigned pid, const char *source, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        char *what = xvasprintf(fmt, ap);
        va_end(ap);
        c->evidence = xrealloc(c->evidence, (c->n_evidence + 1) * sizeof(*c->evidence));
        c->evidence[c->n_evidence++] = (ht_evidence){.points = points, .what = what,
                                                     .source = source ? xstrdup(source) : NULL, .pid = pid};
        c->score += points;
}

/* A process that is not trusted (ht_trust) counts nothing: any user can
 * start a "java" or an "ora_pmon_X"; it is listed with no points. */
static bool untrusted(ht_candidate *c, const ht_process *p, const char *src) {
        if (p->trust != HT_TRUST_NONE)
                return false;
        evidence(c, 0, p->pid, src, "%s is running, but not as root, a system service or the user named: not used",
                 p->name);
        return true;
}

static char *gib(uint64_t bytes) {
        return xasprintf("%.1f GiB", (double)bytes / (1024.0 * 1024 * 1024));
}

static void score_oracle(const ht_facts *f, ht_candidate *c) {
        if (f->oracle_user) {
                if (f->oracle_uid >= 0)
                        evidence(c, PTS_USER, 0, "/etc/passwd", "user oracle (uid %" PRId64 ")", f->oracle_uid);
                else
                        evidence(c, PTS_USER, 0, "/etc/passwd", "user oracle");
        }
        if (f->oratab) {
                if (f->oratab_sids) {
                        _cleanup_free_ char *sids = strv_join(f->oratab_sids, ", ");
                        evidence(c, PTS_INSTALLED, 0, f->oratab, "oratab lists %s", sids);
                } else
                        evidence(c, PTS_USER, 0, f->oratab, "oratab exists but lists no database");
        }
        bool pmon = false, other = false;
        for (size_t i = 0; i < f->n_processes; i++) {
                const ht_process *p = &f->processes[i];
                if (p->kind != HT_PROC_ORACLE)
                        continue;
                _cleanup_free_ char *src = xasprintf("/proc/%u", p->pid);
                if (untrusted(c, p, src))
                        continue;
                if (startswith(p->name, "ora_pmon_")) {
                        /* one instance or several: the workload counts once */
                        evidence(c, pmon ? 0 : PTS_RUNNING, p->pid, src, "%s is running (instance %s)", p->name,
                                 p->name + strlen("ora_pmon_"));
                        pmon = true;
                } else
                        other = true;
        }
        if (!pmon && other)
                for (size_t i = 0; i < f->n_processes; i++)
                        if (f->processes[i].kind == HT_PROC_ORACLE && f->processes[i].trust != HT_TRUST_NONE) {
                                _cleanup_free_ char *src = xasprintf("/proc/%u", f->processes[i].pid);
                                evidence(c, PTS_SHM, f->processes[i].pid, src, "%s is running (no ora_pmon_*)",
                                         f->processes[i].name);
                                break;
                        }
        if (f->shm_known && f->oracle_uid >= 0) {
                size_t n = 0;
                uint64_t bytes = 0;
                for (size_t i = 0; i < f->n_shm; i++)
                        if ((int64_t)f->shm[i].uid == f->oracle_uid) {
                                n++;
                                bytes += f->shm[i].size_bytes;
                        }
                if (n) {
                        _cleanup_free_ char *b = gib(bytes);
                        evidence(c, PTS_SHM, 0, "/proc/sysvipc/shm",
                                 "%zu SysV shared memory segment%s (%s) owned by oracle (uid %" PRId64 ")", n,
                                 n == 1 ? "" : "s", b, f->oracle_uid);
                }
        }
}

static void score_mysql(const ht_facts *f, ht_candidate *c) {
        /* One line a unit: its aliases (links to it under another name)
         * and its copies (merged /usr's /lib/systemd/system) folded in,
         * the points counted once (facts: mysql_unit_real). */
        size_t n_units = strv_length(f->mysql_units);
        bool *done = xcalloc(n_units + 1, sizeof(*done));
        bool scored = false;
        for (size_t i = 0; i < n_units; i++) {
                if (done[i])
                        continue;
                const char *real = f->mysql_unit_real && f->mysql_unit_real[i] ? f->mysql_unit_real[i]
                                                                              : strrchr(f->mysql_units[i], '/') + 1;
                const char *source = NULL;
                _cleanup_strv_free_ char **aliases = NULL;
                for (size_t j = i; j < n_units; j++) {
                        const char *name = strrchr(f->mysql_units[j], '/') + 1;
                        const char *rj = f->mysql_unit_real && f->mysql_unit_real[j] ? f->mysql_unit_real[j] : name;
                        if (!streq(rj, real))
                                continue;
                        done[j] = true;
                        if (streq(name, real)) {
                                if (!source)
                                        source = f->mysql_units[j];
                        } else if (!strv_contains(aliases, name))
                                strv_push(&aliases, name);
                }
                if (aliases) {
                        qsort(aliases, strv_length(aliases), sizeof(char *), strv_sort_cmp);
                        _cleanup_free_ char *a = strv_join(aliases, ", ");
                        evidence(c, scored ? 0 : PTS_INSTALLED, 0, source ? source : f->mysql_units[i],
                                 "unit %s is installed (alias%s %s)", real, aliases[1] ? "es" : "", a);
                } else
                        evidence(c, scored ? 0 : PTS_INSTALLED, 0, source ? source : f->mysql_units[i],
                                 "unit %s is installed", real);
                scored = true;
        }
        free(done);
        for (size_t i = 0; f->mysql_binaries && f->mysql_binaries[i]; i++)
                evidence(c, i == 0 ? PTS_INSTALLED : 0, 0, f->mysql_binaries[i], "server binary %s is installed",
                         strrchr(f->mysql_binaries[i], '/') + 1);
        bool running = false;
        for (size_t i = 0; i < f->n_processes; i++) {
                const ht_process *p = &f->processes[i];
                if (p->kind != HT_PROC_MYSQL)
                        continue;
                _cleanup_free_ char *src = xasprintf("/proc/%u", p->pid);
                if (untrusted(c, p, src))
                        continue;
                evidence(c, running ? 0 : PTS_RUNNING, p->pid, src, "%s is running", p->name);
                running = true;
        }
}

static void score_jvm(const ht_facts *f, ht_candidate *c) {
        bool running = false, large = false;
        for (size_t i = 0; i < f->n_processes; i++) {
                const ht_process *p = &f->processes[i];
                if (p->kind != HT_PROC_JAVA)
                        continue;
                _cleanup_free_ char *src = xasprintf("/proc/%u", p->pid);
                if (untrusted(c, p, src))
                        continue;
                if (p->max_heap_bytes != HT_U64_UNKNOWN) {
                        _cleanup_free_ char *h = gib(p->max_heap_bytes);
                        bool big = p->max_heap_bytes >= LARGE_HEAP;
                        evidence(c, (running ? 0 : PTS_JAVA) + (big && !large ? PTS_LARGE_HEAP : 0), p->pid, src,
                                 "java is running, heap %s (-Xmx)%s", h, big ? ": a large heap" : "");
                        large = large || big;
                } else
                        evidence(c, running ? 0 : PTS_JAVA, p->pid, src, "java is running (heap size not given)");
                running = true;
        }
}

static void suggest(const ht_facts *f, ht_recommendation *r) {
        if (streq(r->profile, "oracle")) {
                bool shm = false;
                for (size_t i = 0; f->shm_known && i < f->n_shm; i++)
                        shm = shm || (int64_t)f->shm[i].uid == f->oracle_uid;
                /* the running SGA sizes the HugePages exactly */
                strv_push(&r->sets, shm ? "hugepages_from=shm" : "sga_max_size=SIZE");
        } else if (streq(r->profile, "mysql")) {
                /* Only what the plain plan would not find (issue 39): the
                 * profile takes the running server's unit itself
                 * (facts.workload.mysql.unit), else mysqld.service; a unit
                 * file of another name with no server running in it is
                 * named (an /etc one first) */
                const char *unit = f->mysql_units ? strrchr(f->mysql_units[0], '/') + 1 : NULL;
                /* a unit name as a profile's is checked (edit-unit.h) */
                if (!f->mysql_config.unit && unit && !streq(unit, "mysqld.service") && ht_unit_name_valid(unit))
                        strv_pushf(&r->sets, "mysql_unit=%s", unit);
        }
        /* jvm: the profile takes the JVMs' owner, group and unit from the
         * running processes (facts.workload.jvm.user, .group, .unit), as
         * this would name them: nothing to add (issue 39). heap_size
         * follows -XX:+UseLargePages and is not pinned. */
}

void ht_recommend(const ht_facts *f, ht_recommendation *ret) {
        ht_recommendation r = {0};
        r.candidates[HT_REC_ORACLE].profile = "oracle";
        r.candidates[HT_REC_MYSQL].profile = "mysql";
        r.candidates[HT_REC_JVM].profile = "jvm";
        score_oracle(f, &r.candidates[HT_REC_ORACLE]);
        score_mysql(f, &r.candidates[HT_REC_MYSQL]);
        score_jvm(f, &r.candidates[HT_REC_JVM]);

        /* Highest score; on a tie the earlier one: the databases before the
         * JVM, since a database host often runs Java tools beside it (agents,
         * installers) and its settings matter more. */
        int best = -1;
        size_t matched = 0;
        for (int i = 0; i < _HT_REC_MAX; i++) {
                if (r.candidates[i].score == 0)
                        continue;
                matched++;
                if (best < 0 || r.candidates[i].score > r.candidates[best].score)
                        best = i;
        }
        if (best < 0) {
                r.profile = "base";
                r.why = xasprintf("no Oracle Database, MySQL/MariaDB or JVM was found (no oracle user or oratab, "
                                  "no mysqld/mariadb/mysql unit or server binary%s): base fits a general host",
                                  f->processes_known ? ", no ora_*, mysqld, mariadbd or java process running"
                                                     : "; running processes could not be looked at");
                *ret = r;
                return;
        }
        r.profile = r.candidates[best].profile;
        r.score = r.candidates[best].score;
        if (matched == 1)
                r.why = xasprintf("only %s's evidence was found (score %u)", r.profile, r.score);
        else {
                strbuf others = {0};
                _cleanup_strv_free_ char **tied = NULL;
                for (int i = 0; i < _HT_REC_MAX; i++) {
                        if (i == best || r.candidates[i].score == 0)
                                continue;
                        strbuf_appendf(&others, "%s%s %u", others.len ? ", " : "", r.candidates[i].profile,
                                       r.candidates[i].score);
                        if (r.candidates[i].score == r.score)
                                strv_push(&tied, r.candidates[i].profile);
                }
                _cleanup_free_ char *o = strbuf_steal(&others);
                if (tied) {
                        _cleanup_free_ char *t = strv_join(tied, " and ");
                        r.why = xasprintf("%s and %s tie at score %u; %s is chosen because database profiles come "
                                          "before jvm (a database host often runs Java tools beside it, and the "
                                          "database's settings matter more); scores: %s %u, %s",
                                          r.profile, t, r.score, r.profile, r.profile, r.score, o);
                } else
                        r.why = xasprintf("%s has the highest score (%s %u, %s); the others' settings are not "
                                          "applied: review them if those workloads matter here",
                                          r.profile, r.profile, r.score, o);
        }
        suggest(f, &r);
        *ret = r;
}

void ht_recommendation_done(ht_recommendation *r) {
        for (int i = 0; i < _HT_REC_MAX; i++) {
                for (size_t k = 0; k < r->candidates[i].n_evidence; k++) {
                        free(r->candidates[i].evidence[k].what);
                        free(r->candidates[i].evidence[k].source);
                }
                free(r->candidates[i].evidence);
        }
        free(r->why);
        strv_free(r->sets);
        *r = (ht_recommendation){0};
}

char *ht_recommendation_command(const ht_recommendation *r) {
        /* every word quoted for the shell it is pasted into: users, groups
         * and units come from the host's files and processes */
        _cleanup_strv_free_ char **argv = NULL;
        strv_push(&argv, "hosttune");
        strv_push(&argv, "plan");
        strv_push(&argv, r->profile);
        for (size_t i = 0; r->sets && r->sets[i]; i++) {
                strv_push(&argv, "--set");
                strv_push(&argv, r->sets[i]);
        }
        return ht_shell_join(argv);
}

json_object *ht_recommendation_to_json(const ht_recommendation *r) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "profile", json_object_new_string(r->profile));
        json_object_object_add(o, "score", json_object_new_int64(r->score));
        json_object_object_add(o, "why", json_object_new_string(r->why ? r->why : ""));
        json_object *sets = json_object_new_array();
        for (size_t i = 0; r->sets && r->sets[i]; i++)
                json_object_array_add(sets, json_object_new_string(r->sets[i]));
        json_object_object_add(o, "sets", sets);
        char *cmd = ht_recommendation_command(r);
        json_object_object_add(o, "command", json_object_new_string(cmd));
        free(cmd);
        json_object *cands = json_object_new_array();
        for (int i = 0; i < _HT_REC_MAX; i++) {
                const ht_candidate *c = &r->candidates[i];
                json_object *j = json_object_new_object();
                json_object_object_add(j, "profile", json_object_new_string(c->profile));
                json_object_object_add(j, "score", json_object_new_int64(c->score));
                json_object *ev = json_object_new_array();
                for (size_t k = 0; k < c->n_evidence; k++) {
                        const ht_evidence *e = &c->evidence[k];
                        json_object *je = json_object_new_object();
                        json_object_object_add(je, "points", json_object_new_int64(e->points));
                        json_object_object_add(je, "what", json_object_new_string(e->what));
                        json_object_object_add(je, "source", e->source ? json_object_new_string(e->source) : NULL);
                        json_object_object_add(je, "pid", e->pid ? json_object_new_int64(e->pid) : NULL);
                        json_object_array_add(ev, je);
                }
                json_object_object_add(j, "evidence", ev);
                json_object_array_add(cands, j);
        }
        json_object_object_add(o, "candidates", cands);
        return o;
}
