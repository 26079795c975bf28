#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "backend-common.h"
#include "backend.h"
#include "planner.h"
#include "spawn.h"
#include "util.h"

/* An image's bootloader files are edited in place; its own tool then
 * regenerates grub.cfg inside it (chrooted) when the image has the tool
 * and we may chroot, else someone runs it at the image's first boot.
 * Say which, as apply will do it. */
static void plan_offline_actions(const ht_context *c, ht_plan *plan) {
        for (size_t i = 0; i < plan->n_actions; i++) {
                ht_post_action *a = &plan->actions[i];
                if (!a->argv)
                        continue;
                _cleanup_free_ char *cmd = strv_join(a->argv, " ");
                char *d;
                if (!ht_spawn_available(c, a->argv)) {
                        ht_plan_warn(plan, "%s is not in this image: run '%s' at its first boot", a->argv[0], cmd);
                        d = xasprintf("%s, at the image's first boot", a->description ? a->description : a->action);
                } else if (geteuid() != 0) {
                        ht_plan_warn(plan, "only root can run %s inside the image (chroot): run '%s' at its first boot, "
                                     "or apply as root", a->argv[0], cmd);
                        d = xasprintf("%s, at the image's first boot", a->description ? a->description : a->action);
                } else
                        d = xasprintf("%s, inside the image (chroot)", a->description ? a->description : a->action);
                free(a->description);
                a->description = d;
        }
}

int ht_make_plan(const ht_context *c, const char *profile, char *const *sets, ht_planning *ret, char **ret_error) {
        ht_planning p = {0};
        int r = ht_facts_collect(c, HT_FACTS_HOST, &p.facts);
        if (r < 0) {
                *ret_error = xasprintf("cannot collect facts: %s", ht_strerror(-r));
                return r;
        }
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
        for (size_t i = 0; ht_backends[i]; i++) {
                r = ht_backends[i]->plan(c, p.facts, p.resolved, p.plan);
                if (r < 0) {
                        *ret_error = xasprintf("%s backend failed: %s", ht_backends[i]->name, ht_strerror(-r));
                        ht_planning_done(&p);
                        return r;
                }
        }
        if (c->offline_root && p.plan->offline)
                plan_offline_actions(c, p.plan);
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
