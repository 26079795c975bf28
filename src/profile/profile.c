/* Profile resolution, its steps run in turn: the inheritance chain
 * (profile-inherit.c), the rules files (profile-paths.c), parameters and
 * --set (profile-eval.c, profile-set.c), every entry evaluated
 * (profile-entry.c) into the settings (profile-settings.c), then the rules
 * (rules.c, through resolver.h), into one ht_resolved. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "accounts.h"
#include "backend.h"
#include "compose.h"
#include "profile-builtin.h"
#include "resolver-internal.h"
#include "tuned.h"
#include "util.h"

/* --- resolution ----------------------------------------------------- */

void ht_resolver_done(ht_resolver *r) {
        for (size_t i = 0; i < r->n_chain; i++) {
                ht_pfile_free(r->chain[i]);
                strv_free(r->ancestors[i]);
        }
        free(r->chain);
        free(r->ancestors);
        for (size_t i = 0; i < r->n_rfiles; i++)
                ht_rfile_free(r->rfiles[i]);
        free(r->rfiles);
        for (size_t i = 0; i < r->n_params; i++) {
                ht_spec_done(&r->params[i].spec); /* name and source: r->arena's */
                free(r->params[i].from);
                ht_value_done(&r->params[i].value);
        }
        free(r->params);
        ht_resolver_eval_done(r);
        for (size_t i = 0; i < r->n_settings; i++)
                ht_setting_done(&r->settings[i].s);
        free(r->settings);
        free(r->index);
        strv_free(r->warnings);
        ht_skips_done(&r->skipped);
        strv_free(r->errors);
        free(r->lookup_error);
        strv_free(r->candidates);
        free(r->param_stack);
        strv_free(r->fact_from);
        ht_group_unref(r->groups);
        json_object_put(r->not_used);
        ht_arena_done(&r->arena); /* empty once build_resolved took it */
}

static int param_cmp(const void *a, const void *b) {
        return strcmp(((const ht_param *)a)->name, ((const ht_param *)b)->name);
}

static int build_resolved(ht_resolver *r, const char *name, ht_resolved **ret, char **ret_error) {
        ht_resolved *res = xcalloc(1, sizeof(*res));
        const ht_pfile *leaf = r->chain[r->n_chain - 1];
        res->name = xstrdup(name);
        res->file = xstrdup(leaf->path);
        for (size_t i = r->n_chain; i > 0; i--)
                if (r->chain[i - 1]->summary) {
                        res->summary = xstrdup(r->chain[i - 1]->summary);
                        break;
                }
        for (size_t i = 0; i < r->n_chain; i++)
                strv_push(&res->chain, r->chain[i]->name);

        res->params = xcalloc(r->n_params ? r->n_params : 1, sizeof(*res->params));
        for (size_t i = 0; i < r->n_params; i++) {
                ht_rparam *p = &r->params[i];
                int k = ht_param_eval(r, p, ret_error);
                if (k < 0) {
                        ht_resolved_free(res);
                        return k;
                }
                ht_arena *a = &res->arena;
                _cleanup_free_ char *value = ht_value_format(&p->value);
                /* p's name and source are in r's arena, which res adopts
                         * below: shared, not copied */
                res->params[res->n_params++] = (ht_param){
                        .name = p->name,
                        .value = ht_arena_strdup(a, value),
                        .source = p->from ? ht_arena_printf(a, "%s from %s", ht_param_source(r, p), p->from)
                                          : ht_param_source(r, p),
                        .citation = ht_arena_strdup(a, p->citation),
                };
        }
        qsort(res->params, res->n_params, sizeof(*res->params), param_cmp);

        /* the settings' strings are in r's arena: they move together */
        ht_arena_adopt(&res->arena, &r->arena);
        res->settings = xcalloc(r->n_settings ? r->n_settings : 1, sizeof(*res->settings));
        for (size_t i = 0; i < r->n_settings; i++) {
                res->settings[i] = r->settings[i].s;
                r->settings[i].s = (ht_setting){0};
        }
        res->n_settings = r->n_settings;
        res->warnings = TAKE_PTR(r->warnings);
        res->skipped = r->skipped;
        r->skipped = (ht_skips){0};
        res->errors = TAKE_PTR(r->errors);
        res->not_used = TAKE_PTR(r->not_used);
        res->reboot_required = r->reboot_required;
        *ret = res;
        return 0;
}

static int resolve_json(const ht_context *c, json_object *facts, const char *name, char *const *sets,
                        const char *only, char ***ret_workloads, ht_resolved **ret, char **ret_error);

/* issue 37: a profile name, or "oracle+jvm" (parts joined by +) */
static bool name_valid(const char *name) {
        if (ht_profile_name_valid(name))
                return true;
        if (!name || !strchr(name, '+'))
                return false;
        _cleanup_strv_free_ char **parts = strv_split(name, "+");
        size_t n = 0;
        for (; parts[n]; n++)
                if (!ht_profile_name_valid(parts[n]))
                        return false;
        return n >= 2 && name[0] != '+' && name[strlen(name) - 1] != '+' && !strstr(name, "++");
}

/* issue 37: compose.c labels settings as the resolver does */
static const ht_compose_ops compose_ops = {
        .label = ht_setting_label,
        .backend_name = ht_backend_id_to_string,
};

/* issue 37: a profile of several workload profiles is resolved once as
 * a whole (its chain, parameters and order: show's params), then once
 * per workload on that workload's branch alone, and the branches are
 * composed by meaning (compose.c) into its settings. */
int ht_profile_resolve_json(const ht_context *c, json_object *facts, const char *name,
                            char *const *sets, ht_resolved **ret, char **ret_error) {
        _cleanup_strv_free_ char **workloads = NULL;
        ht_resolved *res = NULL;
        int k = resolve_json(c, facts, name, sets, NULL, &workloads, &res, ret_error);
        if (k < 0 || strv_length(workloads) < 2) {
                if (k >= 0)
                        *ret = res;
                return k;
        }
        size_t n = strv_length(workloads);
        ht_resolved **subs = xcalloc(n, sizeof(*subs));
        for (size_t i = 0; i < n && k >= 0; i++)
                k = resolve_json(c, facts, name, sets, workloads[i], NULL, &subs[i], ret_error);
        if (k >= 0)
                k = ht_compose(res, subs, workloads, n, facts, &compose_ops, ret_error);
        for (size_t i = 0; i < n; i++)
                ht_resolved_free(subs[i]);
        free(subs);
        if (k < 0) {
                ht_resolved_free(res);
                return k;
        }
        *ret = res;
        return 0;
}

/* only (issue 37; NULL: the whole chain): resolve that workload
 * profile's branch alone. ret_workloads (when not NULL): the workload
 * profiles of the chain. */
static int resolve_json(const ht_context *c, json_object *facts, const char *name, char *const *sets,
                        const char *only, char ***ret_workloads, ht_resolved **ret, char **ret_error) {
        bool tuned = name && startswith(name, HT_TUNED_PREFIX);
        if (!tuned && !name_valid(name))
                return ht_error(ret_error, -EINVAL, "'%s' is not a valid profile name", name ? name : "");
        ht_resolver r = {.c = c, .facts = facts};
        chain_state st = {.dirs = ht_profile_dirs(c)};
        _cleanup_strv_free_ char **rdirs = ht_rules_dirs(c);
        _cleanup_strv_free_ char **rpaths = NULL;
        _cleanup_strv_free_ char **pins = NULL;  /* --set sysctl.: key, value, ... */
        int k;
        if (tuned) {
                /* one converted file: tuned's include chain is merged already */
                ht_pfile *p = NULL;
                k = ht_pfile_from_tuned(c, facts, name + strlen(HT_TUNED_PREFIX), &p, &st.warnings, ret_error);
                if (k >= 0) {
                        st.files = xcalloc(1, sizeof(*st.files));
                        st.ancestors = xcalloc(1, sizeof(*st.ancestors));
                        st.files[0] = p;
                        st.n_files = 1;
                }
        } else
                k = visit(&st, name, NULL, 0, ret_error);
        r.chain = st.files;
        r.ancestors = st.ancestors;
        r.n_chain = st.n_files;
        for (size_t i = 0; st.warnings && st.warnings[i]; i++)
                strv_push(&r.warnings, st.warnings[i]);
        strv_free(st.warnings);
        strv_free(st.dirs);
        strv_free(st.stack);
        if (k < 0)
                goto out;

        /* an unreadable rules directory is an error, not a warning: its
         * rules may be the safety caps this plan must obey */
        const ht_builtin_file **rbuiltin = NULL;
        char *rwarning = NULL;
        k = ht_rules_find(c, rdirs, &rpaths, &rbuiltin, &rwarning, ret_error);
        if (k < 0)
                goto out;
        if (rwarning)
                strv_push_take(&r.warnings, rwarning);
        for (size_t i = 0; rpaths && rpaths[i]; i++) {
                ht_rfile *f = NULL;
                k = rbuiltin[i] ? ht_rfile_load_builtin(rbuiltin[i], &f, ret_error) :
                                  ht_rfile_load(rpaths[i], &f, ret_error);
                if (k < 0) {
                        free(rbuiltin);
                        goto out;
                }
                r.rfiles = xrealloc(r.rfiles, (r.n_rfiles + 1) * sizeof(*r.rfiles));
                r.rfiles[r.n_rfiles++] = f;
        }
        free(rbuiltin);

        /* Defaults: the rules' own, then the chain's, later wins. */
        for (size_t i = 0; i < r.n_rfiles; i++)
                for (size_t j = 0; j < r.rfiles[i]->n_params; j++)
                        ht_param_declare(&r, &r.rfiles[i]->params[j]);
        for (size_t i = 0; i < r.n_chain; i++)
                for (size_t j = 0; ht_compose_in_branch(&r, i, only) && j < r.chain[i]->n_params; j++)
                        ht_param_declare(&r, &r.chain[i]->params[j]);
        for (size_t i = 0; sets && sets[i]; i++) {
                if (startswith(sets[i], HT_SYSCTL_SET_PREFIX)) {
                        char *key, *value;
                        k = ht_set_parse_sysctl(sets[i], &key, &value, ret_error);
                        if (k < 0)
                                goto out;
                        strv_push_take(&pins, key);
                        strv_push_take(&pins, value);
                        continue;
                }
                /* a branch lacks the other workloads' parameters */
                _cleanup_free_ char *pname = only && strchr(sets[i], '=') ?
                        xstrndup(sets[i], strchr(sets[i], '=') - sets[i]) : NULL;
                if (pname && !ht_param_find(&r, pname))
                        continue;
                k = ht_set_param(&r, sets[i], ret_error);
                if (k < 0)
                        goto out;
        }

        for (size_t i = 0; i < r.n_chain; i++) {
                const ht_pfile *p = r.chain[i];
                for (size_t j = 0; ht_compose_in_branch(&r, i, only) && j < p->n_entries; j++) {
                        const ht_entry *e = &p->entries[j];
                        ht_setting s = {0};
                        bool skipped;
                        k = ht_entry_eval(&r, e, ht_backend_section_name(e->backend), &s, &skipped,
                                          ret_error);
                        if (k < 0)
                                goto out;
                        if (skipped)
                                continue;
                        k = ht_resolver_add_entry(&r, &s, (int)i, NULL, e->file, e->line, e->when != NULL, ret_error);
                        if (k < 0)
                                goto out;
                }
        }

        /* before the rules, which size other settings from it */
        for (size_t i = 0; pins && pins[i]; i += 2)
                ht_set_pin_sysctl(&r, pins[i], pins[i + 1]);

        k = ht_rules_run(&r, r.rfiles, r.n_rfiles, ret_error);
        if (k < 0)
                goto out;
        if (ret_workloads && !tuned)
                *ret_workloads = ht_compose_workloads(&r);
        k = build_resolved(&r, name, ret, ret_error);
out:
        ht_resolver_done(&r);
        return k;
}

int ht_profile_resolve(const ht_context *c, const ht_facts *facts, const char *name,
                       char *const *sets, ht_resolved **ret, char **ret_error) {
        /* the groups the profile's expressions name are built, no more */
        json_object *j = facts ? ht_facts_to_json_lazy(facts) : json_object_new_object();
        int k = ht_profile_resolve_json(c, j, name, sets, ret, ret_error);
        json_object_put(j);
        return k;
}
