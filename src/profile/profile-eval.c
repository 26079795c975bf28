/* The expression environment a profile's expressions see (facts,
 * settings, parameters, gids) and the evaluation of specs and parameters
 * in it: one file, since a parameter's value is an expression over other
 * parameters, so looking one up evaluates it. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "accounts.h"
#include "backend.h"
#include "profile-builtin.h"
#include "resolver-internal.h"
#include "util.h"

/* --- the lookup behind every expression ----------------------------- */

static void fact_names(json_object *o, const char *prefix, char ***l) {
        json_object_object_foreach(o, k, v) {
                _cleanup_free_ char *n = prefix ? xasprintf("%s.%s", prefix, k) : xstrdup(k);
                if (v && json_object_is_type(v, json_type_object))
                        fact_names(v, n, l);
                else
                        strv_pushf(l, "facts.%s", n);
        }
}

static void set_lookup_error(ht_resolver *r, char *msg) {
        if (r->lookup_error)
                free(msg);
        else
                r->lookup_error = msg;
}

/* The names next to an unknown one, for the evaluator's "did you mean". */
static void set_candidates(ht_resolver *r, char **candidates) {
        strv_free(r->candidates);
        r->candidates = candidates;
}

static char **take_candidates(void *userdata) {
        ht_resolver *r = userdata;
        return TAKE_PTR(r->candidates);
}

/* The HugePages an existing set of SysV segments needs at the default
 * page size: the sum of ceil(size / Hugepagesize) over the segments, as
 * Oracle's hugepages_settings.sh computes it (MOS Doc ID 401749.1). */
static int derived_shm_pages(ht_resolver *r, ht_value *ret) {
        bool e1, e2;
        json_object *kb = ht_facts_lookup_field(r->facts, "hugepages.default_size_kb", &e1);
        json_object *sizes = ht_facts_lookup_field(r->facts, "shm.sizes_bytes", &e2);
        if (!kb || !json_object_is_type(kb, json_type_int) || json_object_get_int64(kb) <= 0 ||
            !sizes || !json_object_is_type(sizes, json_type_array)) {
                *ret = ht_value_null();
                return 0;
        }
        uint64_t page = (uint64_t)json_object_get_int64(kb) * 1024, total = 0;
        for (size_t i = 0; i < json_object_array_length(sizes); i++) {
                int64_t sz = json_object_get_int64(json_object_array_get_idx(sizes, i));
                if (sz < 0)
                        continue;
                total += ((uint64_t)sz + page - 1) / page;
        }
        *ret = ht_value_int((int64_t)total);
        return 0;
}

/* The users and units the administrator names for the workloads: a
 * parameter given a plain value, on the command line (--set) or in a
 * profile; a default computed from the facts names nobody (it would
 * trust what it was read from). ht_workload_trust is indexed by
 * ht_process_kind. */
static void workload_trust(void *userdata, ht_workload_trust *t) {
        ht_resolver *r = userdata;
        static const struct {
                const char *param;
                ht_process_kind kind;
                bool unit;
        } named[] = {
                {"oracle_user", HT_PROC_ORACLE, false},
                {"mysql_user", HT_PROC_MYSQL, false}, {"mysql_unit", HT_PROC_MYSQL, true},
                {"jvm_user", HT_PROC_JAVA, false},    {"jvm_unit", HT_PROC_JAVA, true},
        };
        *t = (ht_workload_trust){0};
        for (size_t i = 0; i < ELEMENTSOF(named); i++) {
                const ht_rparam *p = ht_param_find(r, named[i].param);
                if (!p || p->spec.kind != HT_SPEC_LIT || p->spec.lit.type != HT_VAL_STR ||
                    isempty(p->spec.lit.str))
                        continue;
                char **slot = named[i].unit ? &t->unit[named[i].kind] : &t->user[named[i].kind];
                *slot = p->spec.lit.str;
        }
}

/* The processes a workload's facts left out (facts.workload.GROUP.not_used),
 * for show and plan to list; each once. */
static void collect_not_used(ht_resolver *r, const char *group) {
        _cleanup_free_ char *name = xasprintf("workload.%s.not_used", group);
        json_object *l = ht_facts_lookup_field(r->facts, name, NULL);
        if (!l || !json_object_is_type(l, json_type_array) || !json_object_array_length(l))
                return;
        if (!r->not_used)
                r->not_used = json_object_new_array();
        for (size_t i = 0; i < json_object_array_length(l); i++) {
                json_object *e = json_object_array_get_idx(l, i);
                bool have = false;
                for (size_t k = 0; k < json_object_array_length(r->not_used) && !have; k++)
                        have = json_object_equal(json_object_array_get_idx(r->not_used, k), e);
                if (!have)
                        json_object_array_add(r->not_used, json_object_get(e));
        }
}

/* The key of the parameters' and the facts' tables: the length and the
 * first and last 8 bytes, mixed (a byte-at-a-time hash of every name
 * cost more than the look-ups it saved; equal keys are told apart by
 * the compare that follows). */
static uint64_t name_hash(const char *s) {
        size_t n = strlen(s);
        uint64_t a = 0, b = 0;
        if (n >= 8) {
                memcpy(&a, s, 8);
                memcpy(&b, s + n - 8, 8);
        } else
                for (size_t i = 0; i < n; i++)
                        a |= (uint64_t)(unsigned char)s[i] << (8 * i);
        uint64_t h = (a ^ (b * UINT64_C(0x9e3779b97f4a7c15)) ^ n) * UINT64_C(0xff51afd7ed558ccd);
        return h ^ (h >> 29);
}

static ht_name_memo *memo_find(ht_memo *t, const char *name, uint64_t h) {
        if (!t->size)
                return NULL;
        size_t mask = t->size - 1;
        for (size_t i = h & mask; t->slots[i].name; i = (i + 1) & mask)
                if (t->slots[i].hash == h && streq(t->slots[i].name, name))
                        return &t->slots[i];
        return NULL;
}

/* Keep v (a copy) as what name reads now, in generation gen. */
static void memo_put(ht_resolver *r, ht_memo *t, unsigned gen, const char *name, uint64_t h, const ht_value *v,
                     const char *from) {
        ht_name_memo *m = memo_find(t, name, h);
        if (!m) {
                if (2 * (t->n + 1) > t->size) {
                        /* grow: rehash the entries into twice the room */
                        size_t size = t->size ? 2 * t->size : 64;
                        ht_name_memo *n = xcalloc(size, sizeof(*n));
                        for (size_t i = 0; i < t->size; i++) {
                                ht_name_memo *o = &t->slots[i];
                                if (!o->name)
                                        continue;
                                size_t k = o->hash & (size - 1);
                                while (n[k].name)
                                        k = (k + 1) & (size - 1);
                                n[k] = *o;
                        }
                        free(t->slots);
                        t->slots = n;
                        t->size = size;
                }
                size_t mask = t->size - 1, i = h & mask;
                while (t->slots[i].name)
                        i = (i + 1) & mask;
                m = &t->slots[i];
                *m = (ht_name_memo){.name = ht_arena_strdup(&r->arena, name), .hash = h};
                t->n++;
        } else
                ht_value_done(&m->value);
        m->gen = gen;
        m->value = ht_value_copy(v);
        m->from = from ? ht_arena_strdup(&r->arena, from) : NULL;
}

static void memo_done(ht_memo *t) {
        for (size_t i = 0; i < t->size; i++)
                ht_value_done(&t->slots[i].value);
        free(t->slots);
        *t = (ht_memo){0};
}

/* A fact's provenance, for the expression being evaluated. */
static void note_from(ht_resolver *r, const char *from) {
        if (from && !strv_contains(r->fact_from, from))
                strv_push(&r->fact_from, from);
}

static int read_fact(ht_resolver *r, const char *dotted, ht_value *ret, const char **ret_from);

/* A fact by its dotted name: read once, then from the memo while the
 * facts room has read nothing more (facts_gen). What a read does beside
 * the value is done by the first: the workload's warnings and left-out
 * processes are kept once (a second read adds nothing), and the facts
 * room's demand is met. Only the provenance is per expression, so a
 * memo hit notes it again. Errors (an unknown name, a group) are not
 * kept: each says so, with its candidates, as before. */
static int lookup_fact(ht_resolver *r, const char *dotted, ht_value *ret) {
        uint64_t h = name_hash(dotted);
        ht_name_memo *m = memo_find(&r->facts_memo, dotted, h);
        if (m && m->gen == r->facts_gen) {
                note_from(r, m->from);
                *ret = ht_value_copy(&m->value);
                return 0;
        }
        const char *from = NULL;
        int k = read_fact(r, dotted, ret, &from);
        if (k < 0)
                return k;
        memo_put(r, &r->facts_memo, r->facts_gen, dotted, h, ret, from);
        return 0;
}

static int read_fact(ht_resolver *r, const char *dotted, ht_value *ret, const char **ret_from) {
        if (streq(dotted, "shm.hugepages_needed"))
                return derived_shm_pages(r, ret);
        /* Plans collect no workload or device facts up front
         * (HT_FACTS_HOST): the facts room reads what a name needs now. */
        r->demand.trust = workload_trust;
        r->demand.userdata = r;
        unsigned parts = r->demand.workload_parts;
        bool devices = r->demand.devices_read;
        ht_facts_need(r->c, r->facts, dotted, &r->demand, &r->warnings);
        if (parts != r->demand.workload_parts || devices != r->demand.devices_read)
                r->facts_gen++;   /* more read, some maybe anew: the memo is old */
        /* What reading a workload's files found wrong (a database left
         * out, a file not read) is shown by the plans that use its facts:
         * workload.warnings.oracle for facts.workload.oracle.*, ... */
        json_object *ws = NULL;
        if (startswith(dotted, "workload.") && !startswith(dotted, "workload.warnings") && r->facts &&
            json_object_is_type(r->facts, json_type_object)) {
                _cleanup_free_ char *group = xstrndup(dotted + 9, strcspn(dotted + 9, "."));
                _cleanup_free_ char *wn = xasprintf("workload.warnings.%s", group);
                ws = ht_facts_lookup_field(r->facts, wn, NULL);
        }
        if (startswith(dotted, "workload.") && !startswith(dotted, "workload.warnings") && r->facts &&
            json_object_is_type(r->facts, json_type_object)) {
                _cleanup_free_ char *group = xstrndup(dotted + 9, strcspn(dotted + 9, "."));
                collect_not_used(r, group);
        }
        for (size_t i = 0; ws && json_object_is_type(ws, json_type_array) && i < json_object_array_length(ws); i++) {
                const char *m = json_object_get_string(json_object_array_get_idx(ws, i));
                if (m && !strv_contains(r->warnings, m))
                        strv_push(&r->warnings, m);
        }
        bool exists;
        json_object *o = ht_facts_lookup_field(r->facts, dotted, &exists);
        /* Provenance: a fact read from the host's files says which, in a
         * NAME_from string beside it ("sga_bytes_from"). */
        if (exists && o && !json_object_is_type(o, json_type_null)) {
                /* NAME_from on the stack when short: most facts looked up
                 * are read, and each asks */
                char fn_small[128];
                _cleanup_free_ char *fn_heap = NULL;
                const char *fn = fn_small;
                size_t dn = strlen(dotted);
                if (dn + sizeof "_from" <= sizeof fn_small) {
                        memcpy(fn_small, dotted, dn);
                        memcpy(fn_small + dn, "_from", sizeof "_from");
                } else
                        fn = fn_heap = xasprintf("%s_from", dotted);
                bool fe;
                json_object *from = ht_facts_lookup_field(r->facts, fn, &fe);
                if (from && json_object_is_type(from, json_type_string)) {
                        *ret_from = json_object_get_string(from);
                        note_from(r, *ret_from);
                }
        }
        if (!exists) {
                char **names = NULL;
                if (r->facts && json_object_is_type(r->facts, json_type_object)) {
                        ht_facts_json_fill_all(r->facts); /* every name, for "did you mean" */
                        fact_names(r->facts, NULL, &names);
                }
                strv_push(&names, "facts.shm.hugepages_needed");
                set_candidates(r, names);
                return -ENOENT;
        }
        switch (o ? json_object_get_type(o) : json_type_null) {
        case json_type_null:
                *ret = ht_value_null();
                return 0;
        case json_type_boolean:
                *ret = ht_value_bool(json_object_get_boolean(o));
                return 0;
        case json_type_int: {
                /* an expression's numbers are int64: a fact above
                 * (ht_json_u64) is unknown to it, as it was when facts
                 * printed it as null, never INT64_MAX as json-c clamps */
                uint64_t u;
                if (ht_json_get_u64(o, &u) == 0 && u > INT64_MAX)
                        *ret = ht_value_null();
                else
                        *ret = ht_value_int(json_object_get_int64(o));
                return 0;
        }
        case json_type_double: {
                double d = json_object_get_double(o);
                if (d != (double)(int64_t)d) {
                        set_lookup_error(r, xasprintf("facts.%s is not a whole number", dotted));
                        return -EINVAL;
                }
                *ret = ht_value_int((int64_t)d);
                return 0;
        }
        case json_type_string:
                *ret = ht_value_str(json_object_get_string(o));
                return 0;
        case json_type_array: {
                /* A list fact (cpu.flags, hugepages.sizes_kb) reads as its
                 * words joined with spaces, for contains(). */
                strbuf b = {0};
                for (size_t i = 0; i < json_object_array_length(o); i++) {
                        json_object *e = json_object_array_get_idx(o, i);
                        if (i)
                                strbuf_append(&b, " ");
                        strbuf_append(&b, e ? json_object_get_string(e) : "null");
                }
                char *s = b.data ? strbuf_steal(&b) : xstrdup("");
                *ret = ht_value_str(s);
                free(s);
                return 0;
        }
        default:
                set_lookup_error(r, xasprintf("facts.%s is a group of facts, not a value", dotted));
                return -EINVAL;
        }
}

static int read_setting(ht_resolver *r, const char *rest, ht_value *ret);

/* setting.BACKEND.NAME: the value a setting asked for so far has, kept
 * while no setting is added, replaced, dropped or handed out to be
 * changed (settings_gen, profile-settings.c); the rules read some the
 * many times (vm.nr_hugepages 30 times a plan), each a scan of all the
 * settings and a parse of the value. An unknown backend is not kept. */
static int lookup_setting(ht_resolver *r, const char *rest, ht_value *ret) {
        uint64_t h = name_hash(rest);
        ht_name_memo *m = memo_find(&r->settings_memo, rest, h);
        if (m && m->gen == r->settings_gen) {
                *ret = ht_value_copy(&m->value);
                return 0;
        }
        int k = read_setting(r, rest, ret);
        if (k < 0)
                return k;
        memo_put(r, &r->settings_memo, r->settings_gen, rest, h, ret, NULL);
        return 0;
}

static int read_setting(ht_resolver *r, const char *rest, ht_value *ret) {
        const char *dot = strchr(rest, '.');
        /* the backend's name: a short word, copied to the stack */
        char bname[32];
        size_t bn = dot ? (size_t)(dot - rest) : 0;
        ht_backend_id b;
        if (dot && bn < sizeof bname) {
                memcpy(bname, rest, bn);
                bname[bn] = 0;
        }
        if (!dot || bn >= sizeof bname || ht_backend_from_string(bname, &b) < 0) {
                char **names = NULL;
                for (int i = 0; i < _HT_BK_MAX; i++)
                        strv_pushf(&names, "setting.%s%s", ht_backend_id_to_string(i),
                                   dot ? dot : "");
                set_candidates(r, names);
                return -ENOENT;
        }
        char *(*expr_name)(const ht_setting *) = ht_backend_get(b)->expr_name;
        for (size_t i = 0; i < r->n_settings; i++) {
                const ht_setting *s = &r->settings[i].s;
                if (s->backend != b || s->remove || !s->value)
                        continue;
                /* most names are their keys: no copy */
                _cleanup_free_ char *n = expr_name ? expr_name(s) : NULL;
                const char *name = n ? n : s->key;
                /* the first byte rules out most of a backend's settings */
                if (name[0] == dot[1] && streq(name, dot + 1)) {
                        *ret = ht_value_parse_literal(s->value);
                        return 0;
                }
        }
        *ret = ht_value_null();
        return 0;
}

ht_rparam *ht_param_find(ht_resolver *r, const char *name) {
        if (!r->param_index_size)
                return NULL;
        size_t mask = r->param_index_size - 1;
        for (size_t i = name_hash(name) & mask; r->param_index[i]; i = (i + 1) & mask) {
                ht_rparam *p = &r->params[r->param_index[i] - 1];
                if (streq(p->name, name))
                        return p;
        }
        return NULL;
}

static void param_index_insert(ht_resolver *r, size_t pos) {
        size_t mask = r->param_index_size - 1;
        size_t i = name_hash(r->params[pos].name) & mask;
        while (r->param_index[i])
                i = (i + 1) & mask;
        r->param_index[i] = pos + 1;
}

/* params[pos] is new: index it, in twice the room of all. */
static void param_index_add(ht_resolver *r, size_t pos) {
        if (2 * (r->n_params + 1) <= r->param_index_size) {
                param_index_insert(r, pos);
                return;
        }
        size_t size = r->param_index_size ? 2 * r->param_index_size : 128;
        free(r->param_index);
        r->param_index = xcalloc(size, sizeof(*r->param_index));
        r->param_index_size = size;
        for (size_t i = 0; i < r->n_params; i++)
                param_index_insert(r, i);
}

char *ht_param_source(ht_resolver *r, ht_rparam *p) {
        /* "FILE:LINE" when asked: some 50 parameters are declared a plan,
         * a later declaration of a name replacing the earlier */
        if (!p->source)
                p->source = ht_resolver_file_line(r, "", "", "", p->file, p->line, "");
        return p->source;
}

void ht_params_forget(ht_resolver *r) {
        if (!r->params_evaluated)
                return;
        for (size_t i = 0; i < r->n_params; i++) {
                ht_rparam *p = &r->params[i];
                if (p->state != 2)
                        continue;
                ht_value_done(&p->value);
                free(p->from);
                p->from = NULL;
                p->state = 0;
        }
        r->params_evaluated = false;
}

void ht_resolver_eval_done(ht_resolver *r) {
        free(r->param_index);
        memo_done(&r->facts_memo);
        memo_done(&r->settings_memo);
}

char **ht_param_names(ht_resolver *r) {
        char **l = NULL;
        for (size_t i = 0; i < r->n_params; i++)
                strv_push(&l, r->params[i].name);
        return l;
}


static int lookup_param(ht_resolver *r, const char *name, ht_value *ret) {
        ht_rparam *p = ht_param_find(r, name);
        if (!p) {
                set_candidates(r, ht_param_names(r));
                return -ENOENT;
        }
        char *e = NULL;
        int k = ht_param_eval(r, p, &e);
        if (k < 0) {
                set_lookup_error(r, e);
                return k == -ENOENT ? -EINVAL : k;
        }
        if (p->from && !strv_contains(r->fact_from, p->from))
                strv_push(&r->fact_from, p->from);
        *ret = ht_value_copy(&p->value);
        return 0;
}

/* /etc/group of the host behind the context. */
static int lookup_gid(ht_resolver *r, const char *param, ht_value *ret) {
        ht_value name = {0};
        if (!ht_param_find(r, param)) {
                char **names = NULL;
                for (size_t i = 0; i < r->n_params; i++)
                        strv_pushf(&names, "gid.%s", r->params[i].name);
                set_candidates(r, names);
                return -ENOENT;
        }
        int k = lookup_param(r, param, &name);
        if (k < 0)
                return k;
        if (name.type != HT_VAL_STR || isempty(name.str)) {
                ht_value_done(&name);
                *ret = ht_value_null();
                return 0;
        }
        if (!r->groups_read) {
                r->groups_read = true;
                /* unreadable: no group is known, as with an empty file */
                if (!r->c || ht_group_read(r->c, &r->groups) < 0)
                        r->groups = NULL;
        }
        const ht_group_entry *g = r->groups ? ht_group_by_name(r->groups, name.str) : NULL;
        *ret = g ? ht_value_int((int64_t)g->gid) : ht_value_null();
        ht_value_done(&name);
        return 0;
}

static int lookup(void *userdata, const char *name, ht_value *ret) {
        ht_resolver *r = userdata;
        if (startswith(name, "facts."))
                return lookup_fact(r, name + 6, ret);
        if (startswith(name, "setting."))
                return lookup_setting(r, name + 8, ret);
        if (startswith(name, "gid."))
                return lookup_gid(r, name + 4, ret);
        return lookup_param(r, name, ret);
}

/* --- evaluating specs ----------------------------------------------- */

/* For a fact a running kernel would know: on an offline image without
 * --facts, say where it can come from. "" otherwise. */
const char *ht_offline_hint(ht_resolver *r) {
        bool e1, e2;
        json_object *off = ht_facts_lookup_field(r->facts, "image.offline", &e1);
        json_object *file = ht_facts_lookup_field(r->facts, "image.facts_file", &e2);
        if (off && json_object_is_type(off, json_type_boolean) && json_object_get_boolean(off) && !file)
                return "\n  (this is an offline image: the facts only a running kernel knows come from "
                       "--facts FILE, what 'hosttune facts --json' prints on a machine of the target shape)";
        return "";
}

/* text/len evaluated: its tree built in when it is a shipped file's, else
 * parsed now (a text that does not parse is evaluated by the evaluating
 * parser, which says where). text[len] need not be a NUL. */
static int eval_expr_text(ht_resolver *r, const char *text, size_t len, const ht_expr_env *env,
                          ht_value *ret, char **ret_error) {
        if (r->expr_mode == EXPR_MODE_UNSET)
                r->expr_mode = ht_env_true("HOSTTUNE_TEST_EXPR_TEXT")        ? EXPR_MODE_TEXT
                               : ht_env_true("HOSTTUNE_NO_BUILTIN_PROFILES") ? EXPR_MODE_PARSE
                                                                             : EXPR_MODE_BUILTIN;
        ht_expr frozen;
        /* a shipped file's expression has its tree's index beside its
         * text; a template's ${EXPR} is searched for */
        if (r->expr_mode == EXPR_MODE_BUILTIN &&
            (ht_builtin_expr_at(text, len, &frozen) || ht_builtin_expr_find(text, len, &frozen)))
                return ht_expr_run(&frozen, text, len, env, ret, ret_error);
        _cleanup_free_ char *copy = text[len] ? xstrndup(text, len) : NULL;
        const char *src = copy ? copy : text;
        if (r->expr_mode == EXPR_MODE_TEXT)
                return ht_expr_eval_text(src, env, ret, ret_error);
        return ht_expr_eval_ex(src, env, ret, ret_error);
}

static int eval_expr_n(ht_resolver *r, const char *text, size_t len, const char *file, unsigned line,
                       const char *what, ht_value *ret, char **ret_error) {
        free(r->lookup_error);
        r->lookup_error = NULL;
        set_candidates(r, NULL);
        _cleanup_free_ char *e = NULL;
        ht_value v = ht_value_null();
        ht_expr_env env = {.lookup = lookup, .userdata = r, .candidates = take_candidates};
        int k = eval_expr_text(r, text, len, &env, &v, &e);
        set_candidates(r, NULL);
        if (k < 0) {
                ht_value_done(&v);
                if (r->lookup_error)
                        *ret_error = line ? xasprintf("%s\n  (needed by %s:%u: %s)",
                                                      r->lookup_error, file, line, what)
                                          : xasprintf("%s\n  (needed by %s: %s)",
                                                      r->lookup_error, file, what);
                else if (line)
                        *ret_error = xasprintf("%s:%u: %s: %s%s", file, line, what,
                                               e ? e : ht_strerror(-k), k == -ENODATA ? ht_offline_hint(r) : "");
                else
                        *ret_error = xasprintf("%s %s: %s%s", file, what, e ? e : ht_strerror(-k),
                                               k == -ENODATA ? ht_offline_hint(r) : "");
                free(r->lookup_error);
                r->lookup_error = NULL;
                return k;
        }
        *ret = v;
        return 0;
}

int ht_resolver_eval_expr(ht_resolver *r, const char *text, const char *file, unsigned line,
                          const char *what, ht_value *ret, char **ret_error) {
        return eval_expr_n(r, text, strlen(text), file, line, what, ret, ret_error);
}

/* "${EXPR}" replaced by the value of EXPR, "$${" by "${". With
 * null_text, an unknown value reads "unknown" (messages); otherwise the
 * whole template is null (settings: optional ones are then skipped). */
static int eval_template(ht_resolver *r, const char *text, const char *file, unsigned line,
                         const char *what, bool null_text, ht_value *ret, char **ret_error) {
        strbuf b = {0};
        bool is_null = false;
        const char *p = text;
        while (*p) {
                if (p[0] == '$' && p[1] == '$' && p[2] == '{') {
                        strbuf_append(&b, "${");
                        p += 3;
                        continue;
                }
                if (p[0] != '$' || p[1] != '{') {
                        strbuf_appendn(&b, p++, 1);
                        continue;
                }
                /* as ht_builtin_pfile_exprs() finds them for the build */
                const char *s = ht_expr_template_end(p + 2);
                if (*s != '}') {
                        strbuf_done(&b);
                        return ht_error(ret_error, -EINVAL, "%s:%u: %s: '${' without a closing '}'", file, line,
                                        what);
                }
                ht_value v = {0};
                int k = eval_expr_n(r, p + 2, (size_t)(s - p - 2), file, line, what, &v, ret_error);
                if (k < 0) {
                        strbuf_done(&b);
                        return k;
                }
                if (v.type == HT_VAL_NULL && !null_text)
                        is_null = true;
                _cleanup_free_ char *t = ht_value_format(&v);
                ht_value_done(&v);
                strbuf_append(&b, t);
                p = s + 1;
        }
        char *out = b.data ? strbuf_steal(&b) : xstrdup("");
        *ret = is_null ? ht_value_null() : ht_value_str(out);
        free(out);
        return 0;
}

static int spec_eval(ht_resolver *r, const ht_spec *sp, const char *file, unsigned line,
                     const char *what, bool null_text, ht_value *ret, char **ret_error) {
        switch (sp->kind) {
        case HT_SPEC_LIT:
                *ret = ht_value_copy(&sp->lit);
                return 0;
        case HT_SPEC_EXPR:
                return ht_resolver_eval_expr(r, sp->text, file, line, what, ret, ret_error);
        case HT_SPEC_TEMPLATE:
                return eval_template(r, sp->text, file, line, what, null_text, ret, ret_error);
        default:
                *ret = ht_value_null();
                return 0;
        }
}

int ht_spec_eval(ht_resolver *r, const ht_spec *sp, const char *file, unsigned line,
                 const char *what, ht_value *ret, char **ret_error) {
        return spec_eval(r, sp, file, line, what, false, ret, ret_error);
}

int ht_spec_eval_message(ht_resolver *r, const ht_spec *sp, const char *file, unsigned line,
                         const char *what, char **ret, char **ret_error) {
        ht_value v = {0};
        int k = spec_eval(r, sp, file, line, what, true, &v, ret_error);
        if (k < 0)
                return k;
        *ret = ht_value_format(&v);
        ht_value_done(&v);
        return 0;
}

/* --- parameters ----------------------------------------------------- */

void ht_param_declare(ht_resolver *r, const ht_param_decl *d) {
        ht_rparam *p = ht_param_find(r, d->name);
        if (!p) {
                /* grown by doubling: a realloc each was a copy of all
                 * before it (some 70 parameters a plan) */
                if (r->n_params == r->params_cap) {
                        r->params_cap = r->params_cap ? 2 * r->params_cap : 32;
                        r->params = xrealloc(r->params, r->params_cap * sizeof(*r->params));
                }
                p = &r->params[r->n_params++];
                *p = (ht_rparam){.name = ht_resolver_strdup(r, d->name)};
                param_index_add(r, r->n_params - 1);
        } else {
                ht_spec_done(&p->spec);
                ht_params_forget(r);
        }
        ht_spec_copy(&p->spec, &d->spec);
        /* A string default reads like a --set value: "18G" is a size. */
        if (p->spec.kind == HT_SPEC_LIT && p->spec.lit.type == HT_VAL_STR) {
                ht_value v = ht_value_parse_literal(p->spec.lit.str);
                if (v.type == HT_VAL_STR)
                        ht_value_done(&v);
                else {
                        ht_value_done(&p->spec.lit);
                        p->spec.lit = v;
                }
        }
        p->source = NULL;   /* "file:line", made when asked (ht_param_source) */
        p->citation = d->comment;
        p->file = d->file;
        p->line = d->line;
}

int ht_param_eval(ht_resolver *r, ht_rparam *p, char **ret_error) {
        if (p->state == 2)
                return 0;
        if (p->state == 1) {
                strbuf b = {0};
                bool on = false;
                for (size_t i = 0; i < r->n_param_stack; i++) {
                        if (streq(r->param_stack[i], p->name))
                                on = true;
                        if (on)
                                strbuf_appendf(&b, "%s -> ", r->param_stack[i]);
                }
                strbuf_append(&b, p->name);
                _cleanup_free_ char *chain = strbuf_steal(&b);
                return ht_error(ret_error, -ELOOP, "%s:%u: params %s: the parameters refer to each other: %s",
                                p->file, p->line, p->name, chain);
        }
        p->state = 1;
        if (r->n_param_stack == r->param_stack_cap) {
                r->param_stack_cap = r->param_stack_cap ? 2 * r->param_stack_cap : 16;
                r->param_stack = xrealloc(r->param_stack, r->param_stack_cap * sizeof(*r->param_stack));
        }
        r->param_stack[r->n_param_stack++] = p->name;
        /* "params NAME", for messages only: on the stack when short (every
         * parameter is evaluated once a plan) */
        char what_small[128];
        _cleanup_free_ char *what_heap = NULL;
        const char *what = p->name;
        if (p->line) {
                size_t n = strlen(p->name);
                if (n + sizeof "params " <= sizeof what_small) {
                        memcpy(what_small, "params ", 7);
                        memcpy(what_small + 7, p->name, n + 1);
                        what = what_small;
                } else
                        what = what_heap = xasprintf("params %s", p->name);
        }
        /* Nested lookups reset the evaluator's side channel: keep ours. */
        char *saved_error = TAKE_PTR(r->lookup_error);
        char **saved_cands = TAKE_PTR(r->candidates);
        char **saved_from = TAKE_PTR(r->fact_from);
        ht_value v = {0};
        int k = ht_spec_eval(r, &p->spec, p->file, p->line, what, &v, ret_error);
        free(r->lookup_error);
        r->lookup_error = saved_error;
        set_candidates(r, saved_cands);
        /* A value of nothing (0, "", null) took nothing from those files. */
        _cleanup_strv_free_ char **from = TAKE_PTR(r->fact_from);
        r->fact_from = saved_from;
        bool something = k >= 0 && !(v.type == HT_VAL_NULL || (v.type == HT_VAL_INT && v.num == 0) ||
                                     (v.type == HT_VAL_STR && isempty(v.str)));
        free(p->from);
        p->from = something && from ? strv_join(from, ", ") : NULL;
        r->n_param_stack--;
        if (k < 0) {
                p->state = 0;
                return k;
        }
        p->value = v;
        p->state = 2;
        r->params_evaluated = true;
        return 0;
}
