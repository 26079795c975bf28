/* Composition by meaning (issue 37; compose.h). Each workload profile
 * was resolved on its own branch of the inheritance (itself, its
 * ancestors, the profiles that inherit it), so each sized its HugePages,
 * memlock limits and choices from its own configuration. Here the
 * branches meet, setting by setting:
 *   - a setting every branch gives the same value is that value;
 *   - a summed one (vm.nr_hugepages: each workload maps its own pages)
 *     is the sum, checked against the strictest cap (hugepages_max_percent);
 *   - bounds combine: the highest minimum, the lowest maximum; an empty
 *     range is an error naming both sources;
 *   - limits of different users are different settings and never meet;
 *   - exact values that differ follow what the profiles declare (a
 *     workload that requires a value beats one that prefers one; two
 *     requires that differ are an error; "lowest" takes the lowest),
 *     and only where they declare nothing does the inherit order decide,
 *     which a warning says. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bound.h"
#include "compose.h"
#include "resolver-internal.h"
#include "util.h"

bool ht_compose_in_branch(const ht_resolver *r, size_t i, const char *only) {
        if (!only || streq(r->chain[i]->name, only) || strv_contains(r->ancestors[i], only))
                return true;
        for (size_t w = 0; w < r->n_chain; w++)
                if (streq(r->chain[w]->name, only))
                        return strv_contains(r->ancestors[w], r->chain[i]->name);
        return false;
}

char **ht_compose_workloads(const ht_resolver *r) {
        char **l = NULL;
        for (size_t i = 0; i < r->n_chain; i++) {
                _cleanup_strv_free_ char **names = NULL;
                for (size_t j = 0; j < r->chain[i]->n_params; j++)
                        strv_push(&names, r->chain[i]->params[j].name);
                if (ht_compose_is_workload(names))
                        strv_push(&l, r->chain[i]->name);
        }
        char **out = NULL;
        for (size_t i = 0; l && l[i]; i++) {
                bool refined = false;
                for (size_t j = 0; j < r->n_chain && !refined; j++)
                        refined = strv_contains(l, r->chain[j]->name) && !streq(r->chain[j]->name, l[i]) &&
                                  strv_contains(r->ancestors[j], l[i]);
                if (!refined)
                        strv_push(&out, l[i]);
        }
        strv_free(l);
        return out;
}

bool ht_compose_is_workload(char *const *param_names) {
        return strv_contains(param_names, "hugepages_bytes") ||
               strv_contains(param_names, HT_COMPOSE_REQUIRES) ||
               strv_contains(param_names, HT_COMPOSE_PREFERS);
}

/* the model's own (profile-model.c, below this file) */
static void setting_clear(ht_setting *s) {
        ht_setting_done(s);
}

static char *dup0(const char *s) { return s ? xstrdup(s) : NULL; }

/* A branch's setting for res: its strings copied into a, res's arena,
 * which owns every setting's strings (profile.h) and outlives the
 * branches. */
static ht_setting setting_copy(ht_arena *a, const ht_setting *s) {
        ht_setting c = *s;
        c.key = ht_arena_strdup(a, s->key);
        c.value = ht_arena_strdup(a, s->value);
        c.source = ht_arena_strdup(a, s->source);
        c.citation = ht_arena_strdup(a, s->citation);
        for (size_t k = 0; k < HT_KEY_FIELDS_MAX; k++)
                c.fields[k] = ht_arena_strdup(a, s->fields[k]);
        return c;
}

static bool same_value(const ht_setting *a, const ht_setting *b) {
        return streq_ptr(a->value, b->value) && a->remove == b->remove && a->bound == b->bound &&
               a->at_least == b->at_least;
}

/* set by ht_compose for the call (compose.h, ht_compose_ops) */
static const ht_compose_ops *ops;

static char *label(const ht_setting *s) {
        return ops->label(s);
}

static const ht_param *param(const ht_resolved *r, const char *name) {
        for (size_t i = 0; i < r->n_params; i++)
                if (streq(r->params[i].name, name))
                        return &r->params[i];
        return NULL;
}

/* The name in r's list `which` that declares s, or NULL: BACKEND.KEY, or a
 * parameter whose value a rule made into s's value. */
static const char *declares(const ht_resolved *r, const char *which, const ht_setting *s) {
        const ht_param *l = param(r, which);
        if (!l || isempty(l->value))
                return NULL;
        _cleanup_free_ char *bk = xasprintf("%s.%s", ops->backend_name(s->backend), s->key);
        _cleanup_strv_free_ char **names = strv_split(l->value, " ,\t");
        for (size_t i = 0; names && names[i]; i++) {
                if (isempty(names[i]))
                        continue;
                if (streq(names[i], bk))
                        return l->source;
                const ht_param *p = param(r, names[i]);
                if (p && s->source && startswith(s->source, "rule ") && streq_ptr(p->value, s->value))
                        return l->source;
        }
        return NULL;
}

typedef struct {
        size_t sub;            /* index into subs */
        const ht_setting *s;
} contrib;

typedef struct {
        contrib *c;
        size_t n;
} group;

/* Numeric order of a limit or bound field: unlimited is the largest. */
static bool num(const char *s, long double *ret) {
        if (!s)
                return false;
        if (streq(s, "unlimited") || streq(s, "infinity") || streq(s, "-1")) {
                *ret = 1e300L;
                return true;
        }
        char *end;
        errno = 0;
        long double v = strtold(s, &end);
        if (errno || end == s || *end)
                return false;
        *ret = v;
        return true;
}

/* Field-wise max (want_max) or min of two bounded values with the same
 * number of fields; NULL when they are not comparable. */
static char *fieldwise(const char *a, const char *b, bool want_max) {
        _cleanup_strv_free_ char **fa = strv_split(a, " \t");
        _cleanup_strv_free_ char **fb = strv_split(b, " \t");
        if (strv_length(fa) != strv_length(fb) || !fa)
                return NULL;
        strbuf out = {0};
        for (size_t i = 0; fa[i]; i++) {
                long double x, y;
                if (!num(fa[i], &x) || !num(fb[i], &y)) {
                        strbuf_done(&out);
                        return NULL;
                }
                strbuf_appendf(&out, "%s%s", i ? " " : "", (want_max ? x >= y : x <= y) ? fa[i] : fb[i]);
        }
        return strbuf_steal(&out);
}

typedef struct {
        ht_resolved *const *subs;
        char *const *names;
        size_t n;
        json_object *settings;  /* res->composed.settings */
        char **warnings;
        ht_arena *arena;        /* res's: the composed settings' strings */
} state;

static json_object *contributors(const state *st, const group *g, const char *which_meaning) {
        json_object *a = json_object_new_array();
        for (size_t i = 0; i < g->n; i++) {
                const ht_resolved *r = st->subs[g->c[i].sub];
                const ht_setting *s = g->c[i].s;
                json_object *o = json_object_new_object();
                json_object_object_add(o, "profile", json_object_new_string(st->names[g->c[i].sub]));
                json_object_object_add(o, "value", s->value ? json_object_new_string(s->value) : NULL);
                json_object_object_add(o, "bound", json_object_new_string(
                                                           s->at_least ? "at-least" : ht_bound_to_string(s->bound)));
                json_object_object_add(o, "source", json_object_new_string(s->source ? s->source : ""));
                const char *meaning = NULL, *decl = NULL;
                static const char *const kinds[] = {HT_COMPOSE_REQUIRES, HT_COMPOSE_LOWEST,
                                                    HT_COMPOSE_SUMMED, HT_COMPOSE_PREFERS};
                for (size_t k = 0; k < ELEMENTSOF(kinds) && !meaning; k++)
                        if ((decl = declares(r, kinds[k], s)))
                                meaning = kinds[k];
                (void)which_meaning;
                json_object_object_add(o, "meaning", meaning ? json_object_new_string(meaning) : NULL);
                json_object_object_add(o, "declared_at", decl ? json_object_new_string(decl) : NULL);
                json_object_array_add(a, o);
        }
        return a;
}

static void record(state *st, const group *g, const ht_setting *result, const char *how, const char *why) {
        json_object *o = json_object_new_object();
        _cleanup_free_ char *l = label(result);
        json_object_object_add(o, "setting", json_object_new_string(l));
        json_object_object_add(o, "value", result->value ? json_object_new_string(result->value) : NULL);
        json_object_object_add(o, "bound", json_object_new_string(result->at_least ? "at-least"
                                                                                  : ht_bound_to_string(result->bound)));
        json_object_object_add(o, "how", json_object_new_string(how));
        json_object_object_add(o, "why", json_object_new_string(why));
        json_object_object_add(o, "contributors", contributors(st, g, how));
        json_object_array_add(st->settings, o);
}

/* "oracle (profiles/oracle.profile:132)" for messages. */
static char *who(const state *st, const contrib *c) {
        return xasprintf("%s from %s (%s)", c->s->value ? c->s->value : "(unset)", st->names[c->sub],
                         c->s->source ? c->s->source : "?");
}

/* Bounds: the highest minimum and the lowest maximum. An exact value
 * among them must meet the others' bounds. 1: combined into *out; 0: not
 * a bounds group; <0 error. */
static int combine_bounds(state *st, const group *g, ht_setting *out, char **ret_error) {
        const contrib *lo = NULL, *hi = NULL, *exact = NULL;
        _cleanup_free_ char *lov = NULL, *hiv = NULL;
        for (size_t i = 0; i < g->n; i++) {
                const ht_setting *s = g->c[i].s;
                if (s->remove || !s->value)
                        return 0;
                bool min = s->at_least || s->bound == HT_BOUND_AT_LEAST, max = s->bound == HT_BOUND_AT_MOST;
                _cleanup_free_ char *l = NULL, *h = NULL;
                if (s->bound == HT_BOUND_RANGE) {
                        if (ht_bound_range_ends(s->value, &l, &h) < 0)
                                return 0;
                        min = max = true;
                } else if (min)
                        l = xstrdup(s->value);
                else if (max)
                        h = xstrdup(s->value);
                else {
                        if (exact && !streq(exact->s->value, s->value))
                                return 0;  /* two exact values: a choice, not bounds */
                        exact = &g->c[i];
                        continue;
                }
                if (min) {
                        char *m = lov ? fieldwise(lov, l, true) : xstrdup(l);
                        if (!m)
                                return 0;
                        if (!lov || !streq(m, lov))
                                lo = &g->c[i];
                        free(lov);
                        lov = m;
                }
                if (max) {
                        char *m = hiv ? fieldwise(hiv, h, false) : xstrdup(h);
                        if (!m)
                                return 0;
                        if (!hiv || !streq(m, hiv))
                                hi = &g->c[i];
                        free(hiv);
                        hiv = m;
                }
        }
        if (!lo && !hi)
                return 0;
        _cleanup_free_ char *l = label(g->c[0].s);
        if (lov && hiv) {
                _cleanup_free_ char *bad = fieldwise(lov, hiv, false);
                if (!bad || !streq(bad, lov)) {
                        _cleanup_free_ char *a = who(st, lo), *b = who(st, hi);
                        *ret_error = xasprintf("%s: the workloads' bounds leave no value: at least %s, "
                                               "but at most %s", l, a, b);
                        return -EINVAL;
                }
        }
        if (exact) {
                /* an exact value that meets every bound serves all */
                bool ok = (!lov || ht_bound_satisfied(HT_BOUND_AT_LEAST, lov, exact->s->value)) &&
                          (!hiv || ht_bound_satisfied(HT_BOUND_AT_MOST, hiv, exact->s->value));
                if (!ok)
                        return 0;
                *out = setting_copy(st->arena, exact->s);
                _cleanup_free_ char *why = xasprintf("the exact value of %s meets the other workloads' "
                                                     "bounds", st->names[exact->sub]);
                record(st, g, out, "exact within bounds", why);
                return 1;
        }
        const contrib *base = lo ? lo : hi;
        *out = setting_copy(st->arena, base->s);
        if (lov && hiv && !out->at_least) {
                if (streq(lov, hiv)) {
                        out->value = ht_arena_strdup(st->arena, lov);
                        out->bound = HT_BOUND_EXACT;
                } else {
                        out->value = ht_arena_printf(st->arena, "%s..%s", lov, hiv);
                        out->bound = HT_BOUND_RANGE;
                }
        } else {
                out->value = ht_arena_strdup(st->arena, lov ? lov : hiv);
                if (!out->at_least)
                        out->bound = lov ? HT_BOUND_AT_LEAST : HT_BOUND_AT_MOST;
        }
        if (lo && hi && lo != hi)
                out->source = ht_arena_printf(st->arena, "%s; %s", lo->s->source, hi->s->source);
        strbuf why = {0};
        strbuf_append(&why, "bounds combine:");
        if (lov)
                strbuf_appendf(&why, " the highest minimum (%s's)", st->names[lo->sub]);
        if (hiv)
                strbuf_appendf(&why, "%s the lowest maximum (%s's)", lov ? "," : "", st->names[hi->sub]);
        _cleanup_free_ char *w = strbuf_steal(&why);
        record(st, g, out, "bounds", w);
        return 1;
}

static int combine_sum(state *st, const group *g, ht_setting *out, char **ret_error) {
        long double total = 0;
        strbuf src = {0};
        for (size_t i = 0; i < g->n; i++) {
                long double v;
                if (!num(g->c[i].s->value, &v) || v >= 1e300L) {
                        strbuf_done(&src);
                        _cleanup_free_ char *l = label(g->c[i].s), *a = who(st, &g->c[i]);
                        *ret_error = xasprintf("%s: declared summed, but %s is not a number", l, a);
                        return -EINVAL;
                }
                total += v;
                strbuf_appendf(&src, "%s%s %s (%s)", i ? " + " : "", st->names[g->c[i].sub],
                               g->c[i].s->value, g->c[i].s->source ? g->c[i].s->source : "?");
        }
        *out = setting_copy(st->arena, g->c[0].s);
        out->value = ht_arena_printf(st->arena, "%.0Lf", total);
        _cleanup_free_ char *s = strbuf_steal(&src);
        out->source = ht_arena_printf(st->arena, "sum of the workloads': %s", s);
        record(st, g, out, "sum", "each workload maps its own pages, so the pool holds them all");
        return 1;
}

/* Exact values that differ: requires beats prefers; two requires are an
 * error; "lowest" takes the lowest; otherwise the inherit order, said. */
static int combine_choice(state *st, const group *g, ht_setting *out, char **ret_error) {
        const contrib *req = NULL;
        const char *req_decl = NULL;
        bool lowest = false;
        for (size_t i = 0; i < g->n; i++) {
                const ht_resolved *r = st->subs[g->c[i].sub];
                const char *d = declares(r, HT_COMPOSE_REQUIRES, g->c[i].s);
                if (d) {
                        if (req && !same_value(req->s, g->c[i].s)) {
                                _cleanup_free_ char *l = label(g->c[i].s), *a = who(st, req), *b = who(st, &g->c[i]);
                                *ret_error = xasprintf("%s: two workloads require values that exclude each "
                                                       "other: %s, required at %s, and %s, required at %s",
                                                       l, a, req_decl, b, d);
                                return -EINVAL;
                        }
                        if (!req) {
                                req = &g->c[i];
                                req_decl = d;
                        }
                }
                if (declares(r, HT_COMPOSE_LOWEST, g->c[i].s))
                        lowest = true;
        }
        if (req) {
                *out = setting_copy(st->arena, req->s);
                strbuf b = {0};
                strbuf_appendf(&b, "%s requires %s (declared at %s); ", st->names[req->sub],
                               req->s->value ? req->s->value : "(unset)", req_decl);
                bool first = true;
                for (size_t i = 0; i < g->n; i++) {
                        if (same_value(g->c[i].s, req->s))
                                continue;
                        const char *p = declares(st->subs[g->c[i].sub], HT_COMPOSE_PREFERS, g->c[i].s);
                        strbuf_appendf(&b, "%s%s %s %s%s%s", first ? "" : ", ", st->names[g->c[i].sub],
                                       p ? "only prefers" : "declares nothing for",
                                       g->c[i].s->value ? g->c[i].s->value : "(unset)", p ? " at " : "",
                                       p ? p : "");
                        first = false;
                }
                strbuf_append(&b, ": requires beats prefers");
                _cleanup_free_ char *why = strbuf_steal(&b);
                record(st, g, out, "requires", why);
                return 1;
        }
        if (lowest) {
                const contrib *best = NULL;
                long double bv = 0;
                for (size_t i = 0; i < g->n; i++) {
                        long double v;
                        if (g->c[i].s->bound != HT_BOUND_EXACT || !num(g->c[i].s->value, &v)) {
                                best = NULL;
                                break;
                        }
                        if (!best || v < bv) {
                                best = &g->c[i];
                                bv = v;
                        }
                }
                if (best) {
                        *out = setting_copy(st->arena, best->s);
                        _cleanup_free_ char *why = xasprintf("declared lowest: the lowest value (%s's) "
                                                             "serves every workload that asks for less",
                                                             st->names[best->sub]);
                        record(st, g, out, "lowest", why);
                        return 1;
                }
        }
        /* One value declared preferred where the others declare nothing:
         * a declared meaning beats none. */
        const contrib *pref = NULL;
        const char *pref_decl = NULL;
        bool one = true;
        for (size_t i = 0; i < g->n; i++) {
                const char *d = declares(st->subs[g->c[i].sub], HT_COMPOSE_PREFERS, g->c[i].s);
                if (!d)
                        continue;
                if (pref && !same_value(pref->s, g->c[i].s))
                        one = false;
                if (!pref) {
                        pref = &g->c[i];
                        pref_decl = d;
                }
        }
        if (pref && one) {
                *out = setting_copy(st->arena, pref->s);
                _cleanup_free_ char *why = xasprintf("%s prefers %s (declared at %s), the other workloads "
                                                     "declare nothing for it: a declared preference beats none",
                                                     st->names[pref->sub], pref->s->value ? pref->s->value : "(unset)",
                                                     pref_decl);
                record(st, g, out, "prefers", why);
                return 1;
        }
        /* Nothing declared: the inherit order, as before, and said. */
        const contrib *last = &g->c[0];
        for (size_t i = 1; i < g->n; i++)
                if (g->c[i].sub > last->sub)
                        last = &g->c[i];
        *out = setting_copy(st->arena, last->s);
        strbuf b = {0};
        _cleanup_free_ char *l = label(last->s);
        strbuf_appendf(&b, "order decides: %s is ", l);
        for (size_t i = 0; i < g->n; i++) {
                _cleanup_free_ char *a = who(st, &g->c[i]);
                strbuf_appendf(&b, "%s%s", i ? " but " : "", a);
        }
        strbuf_appendf(&b, "; no profile declares requires, prefers or lowest for it, so %s, the later "
                           "in the inherit list, wins", st->names[last->sub]);
        char *w = strbuf_steal(&b);
        strv_push(&st->warnings, w);
        record(st, g, out, "order", w);
        free(w);
        return 1;
}

static bool is_summed(const state *st, const group *g) {
        for (size_t i = 0; i < g->n; i++)
                if (declares(st->subs[g->c[i].sub], HT_COMPOSE_SUMMED, g->c[i].s))
                        return true;
        return false;
}

/* The strictest HugePages cap of the workloads that take pages, against
 * the sum: the hugepages-fit rule of each branch saw only its own. */
/* The cap is returned as {"percent", "source", "profile"} (NULL: none
 * found), which budget reads; the error only where two or more workloads
 * take pages (one alone is its own hugepages-fit rule's). */
static json_object *check_cap(state *st, const ht_setting *sum, json_object *facts, char ***errors,
                              json_object *pages) {
        /* through the look-up, which builds a plan's lazy tree's group */
        int64_t total_kb = json_object_get_int64(ht_facts_lookup_field(facts, "memory.total_kb", NULL));
        long double pct = 101;
        const char *pct_src = NULL, *pct_who = NULL;
        long double page_kb = 0;
        for (size_t i = 0; i < json_object_array_length(pages); i++) {
                json_object *e = json_object_array_get_idx(pages, i), *o;
                const char *name = json_object_object_get_ex(e, "profile", &o) ? json_object_get_string(o) : "";
                for (size_t k = 0; k < st->n; k++) {
                        if (!streq(st->names[k], name))
                                continue;
                        const ht_param *p = param(st->subs[k], "hugepages_max_percent");
                        const ht_param *ps = param(st->subs[k], "hugepage_size_kb");
                        long double v;
                        if (p && num(p->value, &v) && v < pct) {
                                pct = v;
                                pct_src = p->source;
                                pct_who = st->names[k];
                        }
                        if (ps && num(ps->value, &v))
                                page_kb = v;
                }
        }
        if (!pct_src)
                return NULL;
        json_object *cap = json_object_new_object();
        json_object_object_add(cap, "percent", json_object_new_int64((int64_t)pct));
        json_object_object_add(cap, "source", json_object_new_string(pct_src));
        json_object_object_add(cap, "profile", json_object_new_string(pct_who));
        long double n;
        if (json_object_array_length(pages) < 2 || page_kb <= 0 || !num(sum->value, &n) || total_kb <= 0)
                return cap;
        if (n * page_kb * 100 <= (long double)total_kb * pct)
                return cap;
        strv_pushf(errors, "the workloads' HugePages sum to %.0Lf pages of %.0Lf KB (%.1Lf GB: %s), but %s "
                           "caps HugePages at %.0Lf%% of the host's %.1Lf GB of memory (%.1Lf GB), as %s says. "
                           "Fix: size the workloads' memory to fit (sga_max_size, innodb_buffer_pool_size, "
                           "heap_size), or add memory.",
                   n, page_kb, n * page_kb / 1048576.0L, sum->source, pct_who, pct,
                   total_kb / 1048576.0L, total_kb * pct / 100 / 1048576.0L, pct_src);
        return cap;
}

/* Whether warning w of branch r speaks of r's own value of a setting
 * that composition gave another value (out): "KEY=VALUE". */
static bool lost_in(const ht_resolved *r, const ht_setting *out, const char *w) {
        for (size_t i = 0; i < r->n_settings; i++) {
                const ht_setting *s = &r->settings[i];
                if (!ht_setting_same_key(s, out) || streq_ptr(s->value, out->value) || !s->value || !s->key)
                        continue;
                _cleanup_free_ char *needle = xasprintf("%s=%s", s->key, s->value);
                return strstr(w, needle) != NULL;
        }
        return false;
}

static void skips_union(ht_skips *dst, const ht_skips *src) {
        for (size_t i = 0; i < src->n; i++) {
                bool have = false;
                for (size_t k = 0; k < dst->n && !have; k++)
                        have = streq(dst->items[k].setting, src->items[i].setting) &&
                               streq(dst->items[k].reason, src->items[i].reason);
                if (have)
                        continue;
                dst->items = xrealloc(dst->items, (dst->n + 1) * sizeof(*dst->items));
                const ht_skip *s = &src->items[i];
                dst->items[dst->n++] = (ht_skip){.setting = dup0(s->setting), .reason = dup0(s->reason),
                                                 .source = dup0(s->source), .set_by = dup0(s->set_by),
                                                 .condition = dup0(s->condition)};
        }
}

static void strv_union(char ***dst, char *const *src) {
        for (size_t i = 0; src && src[i]; i++)
                if (!strv_contains(*dst, src[i]))
                        strv_push(dst, src[i]);
}

int ht_compose(ht_resolved *res, ht_resolved *const *subs, char *const *names, size_t n,
               json_object *facts, const ht_compose_ops *o, char **ret_error) {
        ops = o;
        /* Output in the order of the workloads' names, not of the inherit
         * list: oracle+jvm and jvm+oracle make the same plan. */
        size_t *order = xcalloc(n ? n : 1, sizeof(*order));
        for (size_t i = 0; i < n; i++) {
                size_t j = i;
                while (j > 0 && strcmp(names[order[j - 1]], names[i]) > 0) {
                        order[j] = order[j - 1];
                        j--;
                }
                order[j] = i;
        }
        group *groups = NULL;
        size_t n_groups = 0;
        for (size_t oi = 0; oi < n; oi++) {
                const ht_resolved *r = subs[order[oi]];
                for (size_t i = 0; i < r->n_settings; i++) {
                        const ht_setting *s = &r->settings[i];
                        group *g = NULL;
                        for (size_t k = 0; k < n_groups && !g; k++)
                                if (ht_setting_same_key(groups[k].c[0].s, s))
                                        g = &groups[k];
                        if (!g) {
                                groups = xrealloc(groups, (n_groups + 1) * sizeof(*groups));
                                g = &groups[n_groups++];
                                *g = (group){0};
                        }
                        g->c = xrealloc(g->c, (g->n + 1) * sizeof(*g->c));
                        g->c[g->n++] = (contrib){.sub = order[oi], .s = s};
                }
        }

        state st = {.subs = subs, .names = names, .n = n, .settings = json_object_new_array(),
                    .arena = &res->arena};
        json_object *pages = json_object_new_array();
        ht_setting *out = xcalloc(n_groups ? n_groups : 1, sizeof(*out));
        size_t n_out = 0;
        char **errors = NULL;
        int k = 0;
        for (size_t gi = 0; gi < n_groups && k >= 0; gi++) {
                group *g = &groups[gi];
                bool all_same = true;
                for (size_t i = 1; i < g->n; i++)
                        all_same = all_same && same_value(g->c[0].s, g->c[i].s);
                bool summed = is_summed(&st, g);
                if (summed && g->c[0].s->backend == HT_BK_SYSCTL && streq(g->c[0].s->key, "vm.nr_hugepages"))
                        for (size_t i = 0; i < g->n; i++) {
                                json_object *e = json_object_new_object();
                                json_object_object_add(e, "profile", json_object_new_string(names[g->c[i].sub]));
                                json_object_object_add(e, "pages", json_object_new_int64(
                                                                           strtoll(g->c[i].s->value ? g->c[i].s->value : "0", NULL, 10)));
                                json_object_object_add(e, "source", json_object_new_string(
                                                                            g->c[i].s->source ? g->c[i].s->source : ""));
                                json_object_array_add(pages, e);
                        }
                if (g->n == 1 || (all_same && !summed)) {
                        out[n_out++] = setting_copy(st.arena, g->c[0].s);
                        continue;
                }
                if (summed)
                        k = combine_sum(&st, g, &out[n_out], ret_error);
                else {
                        k = combine_bounds(&st, g, &out[n_out], ret_error);
                        if (k == 0)
                                k = combine_choice(&st, g, &out[n_out], ret_error);
                }
                if (k > 0)
                        n_out++;
        }
        json_object *cap = NULL;
        for (size_t i = 0; k >= 0 && i < n_out && !cap; i++)
                if (out[i].backend == HT_BK_SYSCTL && streq(out[i].key, "vm.nr_hugepages"))
                        cap = check_cap(&st, &out[i], facts, &errors, pages);
        for (size_t i = 0; i < n_groups; i++)
                free(groups[i].c);
        free(groups);
        if (k < 0) {
                free(order);
                for (size_t i = 0; i < n_out; i++)
                        setting_clear(&out[i]);
                free(out);
                strv_free(errors);
                strv_free(st.warnings);
                json_object_put(st.settings);
                json_object_put(pages);
                json_object_put(cap);
                return k;
        }

        /* The order-resolved settings are replaced: what a branch planned
         * from another's parameters (jvm's hugepages_bytes of 0 over
         * Oracle's SGA) is no plan of either. */
        for (size_t i = 0; i < res->n_settings; i++)
                setting_clear(&res->settings[i]);
        free(res->settings);
        res->settings = out;
        res->n_settings = n_out;

        char **warnings = NULL;
        for (size_t oi = 0; oi < n; oi++) {
                /* a branch's warning about a value composition did not
                 * take ("vm.swappiness=10 does not reach ...") would
                 * mislead: left out */
                for (size_t i = 0; subs[order[oi]]->warnings && subs[order[oi]]->warnings[i]; i++) {
                        const char *w = subs[order[oi]]->warnings[i];
                        bool stale = false;
                        for (size_t g = 0; g < n_out && !stale; g++)
                                for (size_t c = 0; c < n && !stale; c++)
                                        stale = c == order[oi] && lost_in(subs[c], &out[g], w);
                        if (!stale && !strv_contains(warnings, w))
                                strv_push(&warnings, w);
                }
                strv_union(&errors, subs[order[oi]]->errors);
        }
        strv_union(&warnings, st.warnings);
        strv_free(st.warnings);
        /* the order-resolved warnings go with its settings (each branch
         * walked the same chain, so its warnings of the chain itself, a
         * profile directory it could not read, are in the branches') */
        strv_free(res->warnings);
        res->warnings = warnings;
        strv_free(res->errors);
        res->errors = errors;
        ht_skips_done(&res->skipped);
        for (size_t oi = 0; oi < n; oi++) {
                skips_union(&res->skipped, &subs[order[oi]]->skipped);
                res->reboot_required = res->reboot_required || subs[oi]->reboot_required;
        }

        /* A parameter the branches resolved differently (thp, hugepages_bytes)
         * has no one value: show each workload's, not the inherit order's. */
        for (size_t i = 0; i < res->n_params; i++) {
                ht_param *rp = &res->params[i];
                strbuf v = {0};
                bool differ = false;
                const char *first = NULL;
                for (size_t oi = 0; oi < n; oi++) {
                        const ht_param *bp = param(subs[order[oi]], rp->name);
                        if (!bp)
                                continue;
                        if (first && !streq_ptr(first, bp->value))
                                differ = true;
                        if (!first)
                                first = bp->value ? bp->value : "";
                        strbuf_appendf(&v, "%s%s: %s", v.len ? "; " : "", names[order[oi]],
                                       isempty(bp->value) ? "\"\"" : bp->value);
                }
                if (!differ) {
                        strbuf_done(&v);
                        continue;
                }
                /* res's parameter strings are in its arena (profile.h) */
                rp->value = ht_arena_strdup(&res->arena, v.data);
                strbuf_done(&v);
                rp->source = ht_arena_strdup(&res->arena, "per workload (composed by meaning)");
        }

        json_object *c = json_object_new_object();
        json_object *w = json_object_new_array();
        for (size_t i = 0; i < n; i++)
                json_object_array_add(w, json_object_new_string(names[i]));
        json_object_object_add(c, "workloads", w);
        json_object_object_add(c, "settings", st.settings);
        json_object_object_add(c, "hugepages", pages);
        json_object_object_add(c, "hugepages_cap", cap);
        json_object_put(res->composed);
        res->composed = c;
        free(order);
        return 0;
}

char *ht_compose_format_text(json_object *composed) {
        strbuf b = {0};
        json_object *w, *l, *o;
        if (!composed || !json_object_object_get_ex(composed, "settings", &l))
                return xstrdup("");
        strbuf_append(&b, "\ncomposed by meaning (workloads:");
        if (json_object_object_get_ex(composed, "workloads", &w))
                for (size_t i = 0; i < json_object_array_length(w); i++)
                        strbuf_appendf(&b, " %s", json_object_get_string(json_object_array_get_idx(w, i)));
        strbuf_append(&b, "):\n");
        if (!json_object_array_length(l))
                strbuf_append(&b, "  (no setting differs between them)\n");
        for (size_t i = 0; i < json_object_array_length(l); i++) {
                json_object *e = json_object_array_get_idx(l, i), *c;
#define S(obj, k) (json_object_object_get_ex(obj, k, &o) && o ? json_object_get_string(o) : "")
                strbuf_appendf(&b, "  %s = %s (%s): %s\n", S(e, "setting"), S(e, "value"), S(e, "how"),
                               S(e, "why"));
                if (!json_object_object_get_ex(e, "contributors", &c))
                        continue;
                for (size_t k = 0; k < json_object_array_length(c); k++) {
                        json_object *x = json_object_array_get_idx(c, k);
                        const char *m = S(x, "meaning");
                        strbuf_appendf(&b, "    %-8s %s (%s)", S(x, "profile"), S(x, "value"), S(x, "bound"));
                        if (*m)
                                strbuf_appendf(&b, " %s, declared at %s", m, S(x, "declared_at"));
                        strbuf_appendf(&b, "  %s\n", S(x, "source"));
                }
#undef S
        }
        return strbuf_steal(&b);
}
