/* The rules engine: rules files evaluated in order over params, facts
 * and the settings asked for so far; each firing rule derives or
 * overrides settings, drops them, warns, fails, or asks for a bootloader
 * change. */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#include "backend.h"
#include "resolver.h"
#include "util.h"

static int eval_when(ht_resolver *r, const ht_rule *rule, bool *ret, char **ret_error) {
        if (!rule->when) {
                *ret = true;
                return 0;
        }
        ht_spec sp = {.kind = HT_SPEC_EXPR, .text = rule->when};
        char what_small[128];
        _cleanup_free_ char *what_heap = NULL;
        const char *what = ht_what(what_small, &what_heap, "rule ", rule->name, ": when");
        ht_value v = {0};
        int k = ht_spec_eval(r, &sp, rule->file, rule->line, what, &v, ret_error);
        if (k < 0)
                return k;
        /* A condition over unknown facts does not fire: rules that must
         * speak up about unknown facts test defined() themselves. */
        if (v.type == HT_VAL_NULL)
                *ret = false;
        else if (v.type == HT_VAL_BOOL)
                *ret = v.num != 0;
        else {
                _cleanup_free_ char *t = ht_value_format(&v);
                ht_value_done(&v);
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: must be true or false, not '%s'", rule->file,
                                rule->line, what, t);
        }
        ht_value_done(&v);
        return 0;
}

static int run_sets(ht_resolver *r, const ht_rule *rule, char **ret_error) {
        char what_small[128];
        _cleanup_free_ char *what_heap = NULL;
        const char *what = ht_what(what_small, &what_heap, "rule ", rule->name, ": set");
        for (size_t i = 0; i < rule->n_sets; i++) {
                const ht_entry *e = &rule->sets[i];
                ht_setting s = {0};
                bool skipped;
                int k = ht_entry_eval(r, e, what, &s, &skipped, ret_error);
                if (k < 0)
                        return k;
                if (skipped)
                        continue;
                if (!s.value) {
                        /* Flags only: change how an existing setting is applied. */
                        bool pinned;
                        ht_setting *old = ht_resolver_setting(r, &s, &pinned);
                        if (old) {
                                if (e->has_optional)
                                        old->optional = e->optional;
                                if (e->required) {
                                        old->required = true;
                                        old->optional = false;
                                }
                                if (e->has_boot_only)
                                        old->boot_only = e->boot_only;
                                /* a --set value stays exact */
                                if (e->has_bound && !pinned)
                                        old->bound = e->bound;
                        }
                        ht_setting_done(&s);
                        continue;
                }
                k = ht_resolver_add(r, &s, -1, rule->name, e->file, e->line, ret_error);
                ht_setting_done(&s);
                if (k < 0)
                        return k;
        }
        return 0;
}

/* Drop the settings the rule names; *ret_skipped lists them with their
 * sources for the warning, *ret_names as "backend key", and *ret_required
 * says whether one of them was not optional. */
static int run_skips(ht_resolver *r, const ht_rule *rule, char ***ret_skipped, char ***ret_names,
                     bool *ret_required, char **ret_error) {
        char what_small[128];
        _cleanup_free_ char *what_heap = NULL;
        const char *what = ht_what(what_small, &what_heap, "rule ", rule->name, ": skip");
        for (size_t i = 0; i < rule->n_skips; i++) {
                ht_setting s = {0};
                bool skipped;
                int k = ht_entry_eval(r, &rule->skips[i], what, &s, &skipped, ret_error);
                if (k < 0)
                        return k;
                ht_setting *old = skipped ? NULL : ht_resolver_setting(r, &s, NULL);
                if (old) {
                        strv_pushf(ret_skipped, "%s %s (from %s)",
                                   ht_backend_id_to_string(old->backend), old->key,
                                   old->source);
                        strv_pushf(ret_names, "%s %s", ht_backend_id_to_string(old->backend),
                                   old->key);
                        if (!old->optional)
                                *ret_required = true;
                        ht_resolver_drop(r, old);
                }
                ht_setting_done(&s);
        }
        return 0;
}

static int run_bootloader(ht_resolver *r, const ht_rule *rule, char **ret_error) {
        char what_small[128];
        _cleanup_free_ char *what_heap = NULL;
        const char *what = ht_what(what_small, &what_heap, "rule ", rule->name, ": bootloader_default");
        ht_value v = {0};
        int k = ht_spec_eval(r, &rule->bootloader_default, rule->file, rule->line, what, &v,
                             ret_error);
        if (k < 0)
                return k;
        if (v.type != HT_VAL_STR || isempty(v.str) || has_control_chars(v.str)) {
                ht_value_done(&v);
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: needs the title of a boot entry", rule->file,
                                rule->line, what);
        }
        ht_setting s = {.backend = ht_backend_by_name("bootloader")->id,
                        .key = ht_resolver_strdup(r, "default"), .value = ht_resolver_strdup(r, v.str)};
        ht_value_done(&v);
        ht_resolver_reboot_required(r);
        k = ht_resolver_add(r, &s, -1, rule->name, rule->file, rule->line, ret_error);
        ht_setting_done(&s);
        return k;
}

static int run_rule(ht_resolver *r, const ht_rule *rule, char **ret_error) {
        bool fire;
        int k = eval_when(r, rule, &fire, ret_error);
        if (k < 0 || !fire)
                return k;
        k = run_sets(r, rule, ret_error);
        if (k < 0)
                return k;
        _cleanup_strv_free_ char **skipped = NULL, **names = NULL;
        bool required = false;
        k = run_skips(r, rule, &skipped, &names, &required, ret_error);
        if (k < 0)
                return k;
        if (rule->bootloader_default.kind != HT_SPEC_NONE) {
                k = run_bootloader(r, rule, ret_error);
                if (k < 0)
                        return k;
        }
        _cleanup_free_ char *warn = NULL;
        if (rule->warn.kind != HT_SPEC_NONE) {
                char what_small[128];
                _cleanup_free_ char *what_heap = NULL;
                const char *what = ht_what(what_small, &what_heap, "rule ", rule->name, ": warn");
                k = ht_spec_eval_message(r, &rule->warn, rule->file, rule->line, what, &warn,
                                         ret_error);
                if (k < 0)
                        return k;
        }
        if (skipped && !required) {
                /* Only optional settings dropped: the host cannot take
                 * them (a kernel without the knob), which is no warning;
                 * show and plan list it with the rule's reason. */
                _cleanup_free_ char *list = strv_join(names, ", ");
                _cleanup_free_ char *src = xasprintf("rule %s (%s:%u)", rule->name, rule->file, rule->line);
                _cleanup_free_ char *why = warn ? NULL : xasprintf("left out by rule %s", rule->name);
                ht_resolver_skip(r, list, warn ? warn : why, src);
        } else if (skipped) {
                _cleanup_free_ char *list = strv_join(skipped, ", ");
                ht_resolver_warn(r, "skipped %s%s%s (rule %s)", list, warn ? ": " : "",
                           warn ? warn : "", rule->name);
        } else if (warn)
                ht_resolver_warn(r, "%s (rule %s)", warn, rule->name);
        if (rule->error.kind != HT_SPEC_NONE) {
                char what_small[128];
                _cleanup_free_ char *what_heap = NULL;
                const char *what = ht_what(what_small, &what_heap, "rule ", rule->name, ": error");
                _cleanup_free_ char *msg = NULL, *fix = NULL;
                k = ht_spec_eval_message(r, &rule->error, rule->file, rule->line, what, &msg,
                                         ret_error);
                if (k >= 0 && rule->fix.kind != HT_SPEC_NONE)
                        k = ht_spec_eval_message(r, &rule->fix, rule->file, rule->line, what, &fix,
                                                 ret_error);
                if (k < 0)
                        return k;
                /* "MESSAGE. Fix: FIX (rule NAME, FILE:LINE)" */
                bool stop = !isempty(msg) && strchr(".!?", msg[strlen(msg) - 1]);
                ht_resolver_error(r, "%s%s%s%s (rule %s, %s:%u)", msg, stop || !fix ? "" : ".",
                           fix ? " Fix: " : "", fix ? fix : "", rule->name, rule->file, rule->line);
        }
        return 0;
}

int ht_rules_run(ht_resolver *r, ht_rfile *const *rfiles, size_t n_rfiles, char **ret_error) {
        for (size_t i = 0; i < n_rfiles; i++)
                for (size_t j = 0; j < rfiles[i]->n_rules; j++) {
                        int k = run_rule(r, &rfiles[i]->rules[j], ret_error);
                        if (k < 0)
                                return k;
                }
        return 0;
}
