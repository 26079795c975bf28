#include "config.h"

#include <errno.h>
#include <string.h>

#include "backend-common.h"
#include "backend.h"
#include "fileattr.h"
#include "planner.h"
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

/* The files apply will refuse to replace or remove (a hard link, chattr
 * +i or +a, a FIFO where the file is), said by the plan in apply's words.
 * Only a file that is there (its old content read: a FIFO reads empty)
 * is asked, one statx each: a file the plan creates costs nothing. */
static void warn_refused_files(const ht_context *c, ht_plan *plan) {
        for (size_t i = 0; i < plan->n_files; i++) {
                const ht_file_edit *fe = &plan->files[i];
                if (!fe->old_content)
                        continue;
                int r = ht_write_refusal(c, fe->path, !fe->new_content);
                if (r == 0)
                        continue;
                _cleanup_free_ char *shown = ht_display_path(c, fe->path);
                _cleanup_free_ char *hint = ht_write_error_hint(c, fe->path, r);
                ht_plan_warn(plan, "cannot %s %s: %s%s; apply refuses it and changes nothing",
                             fe->new_content ? "write" : "remove", shown, ht_strerror(-r), hint);
        }
}

static int make_plan(const ht_context *c, const char *profile, char *const *sets, ht_planning *ret,
                     char **ret_error) {
        ht_planning p = {0};
        int r = ht_facts_collect(c, HT_FACTS_HOST, &p.facts);
        if (r < 0)
                return ht_error(ret_error, r, "cannot collect facts: %s", ht_strerror(-r));
        r = ht_profile_resolve(c, p.facts, profile, sets, &p.resolved, ret_error);
        if (r < 0) {
                ht_planning_done(&p);
                return r;
        }
        for (size_t i = 0; sets && sets[i]; i++)
                strv_push(&p.sets, sets[i]);
        p.plan = ht_plan_new(p.resolved->name);
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
