#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend-common.h"
#include "backend.h"
#include "fileattr.h"
#include "journal.h"
#include "planner.h"
#include "spawn.h"
#include "tuners.h"
#include "util.h"

static int make_plan(const ht_context *c, const char *profile, char *const *sets, ht_planning *ret,
                     char **ret_error);

int ht_make_plan(const ht_context *c, const char *profile, char *const *sets, ht_planning *ret, char **ret_error) {
        ht_planning p = {0};
        /* each host file read once, whoever parses it (context.h) */
        ht_context_cache_begin(c);
        int r = make_plan(c, profile, sets, &p, ret_error);
        ht_context_cache_end(c);
        if (r < 0)
                return r;
        *ret = p;
        return 0;
}

/* Warn about every setting another tuner of the host (running or enabled)
 * writes after hosttune's and would undo (issue 38). */
static void warn_tuners(const ht_context *c, const ht_facts *f, const ht_resolved *r, ht_plan *plan) {
        ht_tuner_settings ts;
        ht_tuner_settings_collect(c, f, &ts);
        for (size_t i = 0; ts.warnings && ts.warnings[i]; i++)
                ht_plan_warn(plan, "%s", ts.warnings[i]);
        for (size_t i = 0; i < r->n_settings; i++) {
                const ht_setting *s = &r->settings[i];
                for (size_t j = 0; j < ts.n; j++) {
                        const ht_tuner_setting *t = &ts.s[j];
                        if (!ht_tuner_setting_matches(t, s->backend, s->key) ||
                            !ht_tuner_setting_conflicts(t, s->bound, s->value))
                                continue;
                        _cleanup_free_ char *what = ht_tuner_setting_describe(t);
                        _cleanup_free_ char *want = s->backend == HT_BK_SYSCTL ? ht_bound_describe(s->bound, s->value)
                                                                              : xstrdup(s->value ? s->value : "");
                        ht_plan_warn(plan, "%s: it undoes hosttune's %s %s = %s (%s); %s",
                                     what, ht_backend_id_to_string(s->backend), s->key, want, s->source, t->advice);
                }
        }
        ht_tuner_settings_done(&ts);
}

bool ht_action_runs_tool(const ht_context *c, const ht_post_action *a) {
        return !streq(a->action, "daemon-reload") && a->argv && ht_spawn_available(c, a->argv) &&
               !(c->offline_root && geteuid() != 0);
}

int ht_generated_refusal(const ht_context *c, const ht_post_action *a) {
        if (!a->generates)
                return 0;
        bool renamed = strv_contains(a->argv, a->generates);
        int r = renamed ? ht_write_refusal(c, a->generates, false) : 0;
        if (r == 0) {
                r = ht_dir_write_refusal(c, a->generates);
                if (r != -EROFS && !(r == -EPERM && renamed))
                        r = 0;
        }
        return r;
}

/* Why apply cannot write in path's directory (ht_dir_write_refusal: a
 * read-only mount, chattr +i or +a), each directory asked once a plan
 * (*rw lists those found writable, *refused those not, each followed by
 * its -errno as text). */
static int dir_refusal(const ht_context *c, const char *path, char ***rw, char ***refused) {
        _cleanup_free_ char *dir = xstrndup(path, (size_t)(strrchr(path, '/') - path));
        for (size_t i = 0; *refused && (*refused)[i] && (*refused)[i + 1]; i += 2)
                if (streq((*refused)[i], dir))
                        return atoi((*refused)[i + 1]);
        if (strv_contains(*rw, dir))
                return 0;
        int r = ht_dir_write_refusal(c, path);
        if (r != -EROFS && r != -EPERM) {
                strv_push(rw, dir);
                return 0;
        }
        strv_push(refused, dir);
        strv_pushf(refused, "%d", r);
        return r;
}

/* The files apply will refuse to replace or remove (a hard link, chattr
 * +i or +a, a FIFO where the file is, a link, a read-only mount), said by
 * the plan in apply's words. Every file is asked, one statx each through
 * the root: a file the plan found absent too, since its read followed a
 * link (one to /dev/null in a tree without /dev, a dangling one, reads as
 * absent), and that costs one failed open when nothing is there. Each
 * directory is asked once whether its mount is read-only (a 'ro' /boot
 * or /etc: apply's first write there fails with EROFS) or it is
 * immutable or append-only (EPERM). */
static void warn_refused_files(const ht_context *c, ht_plan *plan) {
        _cleanup_strv_free_ char **rw = NULL, **refused = NULL;
        for (size_t i = 0; i < plan->n_files; i++) {
                const ht_file_edit *fe = &plan->files[i];
                int r = ht_write_refusal(c, fe->path, !fe->new_content);
                if (r == 0)
                        r = dir_refusal(c, fe->path, &rw, &refused);
                if (r == 0)
                        continue;
                _cleanup_free_ char *shown = ht_display_path(c, fe->path);
                _cleanup_free_ char *hint = ht_write_error_hint(c, fe->path, r);
                ht_plan_warn(plan, "cannot %s %s: %s%s; apply refuses it and changes nothing",
                             fe->new_content ? "write" : "remove", shown, ht_strerror(-r), hint);
        }
        /* what a follow-up's tool writes (grub-mkconfig's grub.cfg), when
         * apply runs the tool */
        for (size_t i = 0; i < plan->n_actions; i++) {
                const char *gen = plan->actions[i].generates;
                int r = ht_generated_refusal(c, &plan->actions[i]);
                if (r == 0 || !ht_action_runs_tool(c, &plan->actions[i]))
                        continue;
                _cleanup_free_ char *shown = ht_display_path(c, gen);
                _cleanup_free_ char *hint = ht_write_error_hint(c, gen, r);
                ht_plan_warn(plan, "cannot write %s: %s%s; apply refuses it and changes nothing", shown,
                             ht_strerror(-r), hint);
        }
}

/* A profile applied before, and still in effect, stays: a second
 * workload's apply adds to it (oracle, then jvm, plans oracle+jvm), it
 * does not replace it. Planned alone, jvm would lower the SGA's HugePages
 * to the JVM's, put THP back to madvise against Oracle's "never" and drop
 * the oracle user's limits: whatever the first apply set for its
 * workload, the second would take away. So when the last committed
 * apply's profile (each part of a NAME+NAME) is a workload's and not in
 * the chain of the one asked for, the two are composed by meaning
 * (hosttune.profile(5), COMPOSITION), with that apply's --set arguments
 * first and this run's after them (the later wins); when the one asked
 * for is in the applied one's chain (base after oracle), the applied one
 * is planned again. To replace a profile, roll it back first.
 * p->resolved is the profile asked for, or NULL when it could not be
 * resolved alone (a --set of the applied profile's parameter). Returns 1
 * when p->resolved was replaced (*note says how), 0 when nothing was
 * applied or the profile asked for keeps it (*note may say the journal
 * could not be read), -errno when the two cannot be planned together. */
static int keep_applied(const ht_context *c, const ht_facts *f, const char *profile, ht_planning *p,
                        char **note, char **ret_error) {
        ht_tx *tx = NULL;
        _cleanup_free_ char *jerr = NULL;
        int r = ht_journal_last_committed(c, "apply", &tx, &jerr);
        if (r == -ENOENT)
                return 0;
        if (r < 0) {
                *note = xasprintf("the journal cannot be read (%s): whether a profile applied before is "
                                  "kept is not known to this plan (apply keeps it)", jerr ? jerr : ht_strerror(-r));
                return 0;
        }
        const char *applied = ht_tx_profile(tx), *txid = ht_tx_txid(tx);
        /* only a workload's tuning is kept (a profile that requires or
         * prefers values or sizes HugePages, as composition counts them,
         * compose.c); another profile (a site's cpu governor) is replaced
         * by the next one, as before */
        const char *req = ht_tx_param(tx, "requires"), *pref = ht_tx_param(tx, "prefers");
        const char *hp = ht_tx_param(tx, "hugepages_bytes");
        if (isempty(req) && isempty(pref) && (isempty(hp) || streq(hp, "0"))) {
                ht_tx_free(tx);
                return 0;
        }
        _cleanup_strv_free_ char **before = strv_split(applied, "+"), **asked = strv_split(profile, "+");
        _cleanup_strv_free_ char **missing = NULL, **parts = NULL;
        for (size_t i = 0; before && before[i]; i++)
                if (*before[i] && !strv_contains(p->resolved ? p->resolved->chain : asked, before[i]))
                        strv_push(&missing, before[i]);
        if (!missing) {
                ht_tx_free(tx);
                return 0;
        }
        char **sets = ht_tx_set_args(tx);
        _cleanup_free_ char *carried = NULL;
        if (sets && sets[0]) {
                _cleanup_free_ char *l = strv_join(sets, " --set ");
                carried = xasprintf(", with its --set %s", l);
        }
        for (size_t i = 0; p->sets && p->sets[i]; i++)
                strv_push(&sets, p->sets[i]);
        /* the applied profile again, when it holds the one asked for */
        ht_resolved *res = NULL;
        _cleanup_free_ char *err = NULL, *name = NULL;
        if (ht_profile_resolve(c, f, applied, sets, &res, &err) >= 0) {
                bool holds = true;
                for (size_t i = 0; asked && asked[i] && holds; i++)
                        holds = !*asked[i] || strv_contains(res->chain, asked[i]);
                if (holds)
                        name = xstrdup(applied);
                else {
                        ht_resolved_free(res);
                        res = NULL;
                }
        }
        if (!name) {
                /* the applied parts, then the asked ones, each once */
                char **const lists[] = {before, asked};
                for (size_t l = 0; l < ELEMENTSOF(lists); l++)
                        for (size_t i = 0; lists[l] && lists[l][i]; i++)
                                if (*lists[l][i] && !strv_contains(parts, lists[l][i]))
                                        strv_push(&parts, lists[l][i]);
                name = strv_join(parts, "+");
                free(err);
                err = NULL;
                r = ht_profile_resolve(c, f, name, sets, &res, &err);
                if (r < 0) {
                        if (p->resolved)
                                r = ht_error(ret_error, r,
                                             "profile %s, applied in transaction %s and still in effect, is not "
                                             "part of %s, which would undo what it set; planned together as %s "
                                             "they fail: %s. To replace it, roll it back first: hosttune "
                                             "rollback %s",
                                             applied, txid, profile, name, err, txid);
                        else
                                r = 0;  /* the caller reports the profile's own error */
                        strv_free(sets);
                        ht_tx_free(tx);
                        return r;
                }
        }
        _cleanup_free_ char *miss = strv_join(missing, ", ");
        *note = xasprintf("profile %s, applied in transaction %s, stays: %s is not part of %s, so this plan is "
                          "%s%s, and what %s set is not lowered; to replace it, roll it back first "
                          "(hosttune rollback %s)",
                          applied, txid, miss, profile, name, carried ? carried : "", applied, txid);
        ht_resolved_free(p->resolved);
        p->resolved = res;
        strv_free(p->sets);
        p->sets = sets;
        ht_tx_free(tx);
        return 1;
}

/* What composition decided, under the change it makes: a reviewer of
 * "plan oracle+jvm" sees that oracle asked vm.swappiness 10 and jvm 1,
 * and why 1 (show's "composed by meaning" has every setting). */
static void note_composed(const ht_resolved *r, ht_plan *plan) {
        json_object *l, *o, *cs;
        if (!r->composed || !json_object_object_get_ex(r->composed, "settings", &l))
                return;
        for (size_t i = 0; i < plan->n_changes; i++) {
                ht_change *ch = &plan->changes[i];
                if (ch->outcome != HT_OUTCOME_CHANGE || ch->note)
                        continue;
                _cleanup_free_ char *label = xasprintf("%s %s", ht_backend_id_to_string(ch->backend),
                                                       ch->setting ? ch->setting : ch->key);
                for (size_t k = 0; k < json_object_array_length(l); k++) {
                        json_object *e = json_object_array_get_idx(l, k);
                        if (!json_object_object_get_ex(e, "setting", &o) || !streq(json_object_get_string(o), label))
                                continue;
                        strbuf b = {0};
                        strbuf_appendf(&b, "composed (%s) from",
                                       json_object_object_get_ex(e, "how", &o) ? json_object_get_string(o) : "?");
                        size_t n = json_object_object_get_ex(e, "contributors", &cs) ? json_object_array_length(cs) : 0;
                        for (size_t j = 0; j < n; j++) {
                                json_object *x = json_object_array_get_idx(cs, j), *pr, *v;
                                json_object_object_get_ex(x, "profile", &pr);
                                json_object_object_get_ex(x, "value", &v);
                                strbuf_appendf(&b, "%s %s %s", j ? "," : "", json_object_get_string(pr),
                                               v ? json_object_get_string(v) : "(unset)");
                        }
                        if (json_object_object_get_ex(e, "why", &o))
                                strbuf_appendf(&b, ": %s", json_object_get_string(o));
                        ch->note = ht_plan_strdup(plan, b.data);
                        strbuf_done(&b);
                        break;
                }
        }
}

static int make_plan(const ht_context *c, const char *profile, char *const *sets, ht_planning *ret,
                     char **ret_error) {
        ht_planning p = {0};
        int r = ht_facts_collect(c, HT_FACTS_HOST, &p.facts);
        if (r < 0)
                return ht_error(ret_error, r, "cannot collect facts: %s", ht_strerror(-r));
        for (size_t i = 0; sets && sets[i]; i++)
                strv_push(&p.sets, sets[i]);
        _cleanup_free_ char *alone_error = NULL, *kept = NULL;
        int alone = ht_profile_resolve(c, p.facts, profile, sets, &p.resolved, &alone_error);
        r = keep_applied(c, p.facts, profile, &p, &kept, ret_error);
        if (r == 0 && alone < 0) {
                *ret_error = TAKE_PTR(alone_error);
                r = alone;
        }
        if (r < 0) {
                ht_planning_done(&p);
                return r;
        }
        p.plan = ht_plan_new(p.resolved->name);
        if (kept)
                strv_push(&p.plan->warnings, kept);
        p.plan->offline = !ht_root_is_live(c);
        p.plan->reboot_required = p.resolved->reboot_required;
        for (size_t i = 0; p.resolved->warnings && p.resolved->warnings[i]; i++)
                strv_push(&p.plan->warnings, p.resolved->warnings[i]);
        ht_skips_copy(&p.plan->skipped, &p.resolved->skipped);
        for (size_t i = 0; p.resolved->errors && p.resolved->errors[i]; i++)
                strv_push(&p.plan->errors, p.resolved->errors[i]);
        p.plan->not_used = json_object_get(p.resolved->not_used);
        for (size_t i = 0; ht_backends[i]; i++) {
                if (!ht_backends[i]->plan)
                        continue;
                r = ht_backends[i]->plan(c, p.facts, p.resolved, p.plan);
                if (r < 0) {
                        *ret_error = xasprintf("%s backend failed: %s", ht_backends[i]->name, ht_strerror(-r));
                        ht_planning_done(&p);
                        return r;
                }
        }
        note_composed(p.resolved, p.plan);
        warn_tuners(c, p.facts, p.resolved, p.plan);
        warn_refused_files(c, p.plan);
        /* An image has never booted: it boots with everything persisted
         * in it, so no apply of an image needs a reboot, the first or a
         * repeated one. */
        if (p.plan->offline) {
                p.plan->reboot_required = false;
                for (size_t i = 0; i < p.plan->n_changes; i++)
                        p.plan->changes[i].reboot_required = false;
        }
        for (size_t i = 0; i < p.plan->n_changes; i++)
                if (p.plan->changes[i].reboot_required && p.plan->changes[i].outcome == HT_OUTCOME_CHANGE)
                        p.plan->reboot_required = true;
        *ret = p;
        return 0;
}

void ht_planning_done(ht_planning *p) {
        ht_plan_free(p->plan);
        ht_resolved_free(p->resolved);
        ht_facts_free(p->facts);
        strv_free(p->sets);
        *p = (ht_planning){0};
}
