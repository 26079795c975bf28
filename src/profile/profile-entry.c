/* One entry of a profile or a rule evaluated into a setting: its key
 * fields by its backend, its `when`, its value checked for the backend,
 * and what it cites. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "resolver-internal.h"
#include "util.h"

/* Value text for a backend; NULL with *why when it cannot be one. */
/* In the resolver's arena, as every setting's strings (resolver.h). */
static char *setting_text(ht_resolver *r, const ht_value *v, ht_backend_id b, const char **why) {
        const ht_backend *bk = ht_backend_get(b);
        char *t;
        switch (v->type) {
        case HT_VAL_INT:
                if (v->den != 1) {
                        *why = "is a fraction: use ceil() or floor()";
                        return NULL;
                }
                t = ht_resolver_int(r, v->num);
                break;
        case HT_VAL_BOOL:
                t = ht_resolver_strdup(r, v->num ? "1" : "0");
                break;
        case HT_VAL_STR:
                if (bk->collapse_ws) {
                        _cleanup_free_ char *n = normalize_ws(v->str);
                        t = ht_resolver_strdup(r, n);
                } else
                        t = ht_resolver_strdup(r, v->str);
                break;
        default:
                *why = "is unknown";
                return NULL;
        }
        if (has_control_chars(t) || strlen(t) > 4096) {
                *why = "holds control characters or is too long";
                return NULL;
        }
        if (bk->check_value && (*why = bk->check_value(t)))
                return NULL;
        return t;
}

/* A key field: a string (or a number) that must be known. */
int ht_entry_eval_string(ht_resolver *r, const ht_spec *sp, const ht_entry *e, const char *what,
                         const char *field, char **ret, char **ret_error) {
        /* most keys are literal strings: no copy, and the label for
         * messages only when there is one to give */
        if (sp->kind == HT_SPEC_LIT && sp->lit.type == HT_VAL_STR) {
                *ret = xstrdup(sp->lit.str ? sp->lit.str : "");
                return 0;
        }
        char w_small[128];
        _cleanup_free_ char *w_heap = NULL;
        const char *w = ht_what(w_small, &w_heap, what, ": ", field);
        ht_value v = {0};
        int k = ht_spec_eval(r, sp, e->file, e->line, w, &v, ret_error);
        if (k < 0)
                return k;
        if (v.type == HT_VAL_NULL || v.type == HT_VAL_BOOL || (v.type == HT_VAL_INT && v.den != 1)) {
                ht_value_done(&v);
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: must be a known name or number", e->file,
                                e->line, w);
        }
        *ret = ht_value_format(&v);
        ht_value_done(&v);
        return 0;
}

int ht_entry_eval_field(ht_resolver *r, const ht_spec *sp, const ht_entry *e, const char *what,
                        const char *field, char **ret, char **ret_error) {
        if (sp->kind == HT_SPEC_LIT && sp->lit.type == HT_VAL_STR) {
                *ret = ht_resolver_strdup(r, sp->lit.str ? sp->lit.str : "");
                return 0;
        }
        _cleanup_free_ char *t = NULL;
        int k = ht_entry_eval_string(r, sp, e, what, field, &t, ret_error);
        if (k >= 0)
                *ret = ht_resolver_strdup(r, t);
        return k;
}

/* What a setting cites: its comment in the file; for a value that is one
 * parameter ("= open_files_limit") without a comment of its own, that
 * parameter's; and a parameter given with --set says so, since the value
 * is then the user's, not the source's. */
static char *entry_citation(ht_resolver *r, const ht_entry *e) {
        const char *name = ht_entry_param_ref(e);
        const ht_rparam *p = name ? ht_param_find(r, name) : NULL;
        if (p && streq_ptr(p->source, "--set"))
                return e->comment ? ht_resolver_printf(r, "%s (value: --set %s)", e->comment, name)
                                  : ht_resolver_printf(r, "--set %s", name);
        if (e->comment)
                return ht_resolver_strdup(r, e->comment);
        if (p && p->citation)
                return ht_resolver_printf(r, "%s: %s", name, p->citation);
        return NULL;
}

/* A setting's `when`: 1 true, 0 false, -ENODATA not known on this host
 * (a null result, or a fact it needs unknown), other -errno an error of
 * the profile (syntax, types, a condition that is no boolean). */
static int eval_when(ht_resolver *r, const ht_entry *e, const char *label, char **ret_error) {
        char what_small[128];
        _cleanup_free_ char *what_heap = NULL;
        const char *what = ht_what(what_small, &what_heap, label, ": when", "");
        _cleanup_free_ char *err = NULL;
        ht_value v = ht_value_null();
        int k = ht_resolver_eval_expr(r, e->when, e->file, e->line, what, &v, &err);
        if (k == -ENODATA)
                return k;
        if (k < 0) {
                *ret_error = TAKE_PTR(err);
                return k;
        }
        if (v.type == HT_VAL_NULL)
                return -ENODATA;
        if (v.type != HT_VAL_BOOL) {
                _cleanup_free_ char *t = ht_value_format(&v);
                *ret_error = xasprintf("%s:%u: %s: the condition must be true or false, not %s '%s'", e->file,
                                       e->line, what, v.type == HT_VAL_INT ? "the integer" : "the string", t);
                ht_value_done(&v);
                return -EINVAL;
        }
        return v.num ? 1 : 0;
}

int ht_entry_eval(ht_resolver *r, const ht_entry *e, const char *what, ht_setting *ret,
                  bool *ret_skipped, char **ret_error) {
        ht_setting s = {.backend = e->backend, .optional = e->optional, .required = e->required,
                        .remove = e->remove,
                        .boot_only = e->boot_only, .at_least = e->at_least, .bound = e->bound};
        _cleanup_free_ char *word_value = NULL;
        /* "sysctl vm.x": the context of this entry's messages, made for
         * each entry, on the stack unless the backend words its own */
        char label_small[128];
        _cleanup_free_ char *label_heap = NULL;
        const char *label;
        int k = 0;
        *ret_skipped = false;

        const ht_backend *bk = ht_backend_get(e->backend);
        if (bk && bk->canon_key)
                k = bk->canon_key(r, e, what, &s, &word_value, ret_error);
        else {
                *ret_error = xasprintf("%s:%u: %s: unsupported backend", e->file, e->line, what);
                k = -EINVAL;
        }
        if (k < 0) {
                ht_setting_done(&s);
                return k;
        }
        if (bk->label)
                label = label_heap = bk->label(&s);
        else
                label = ht_what(label_small, &label_heap, ht_backend_id_to_string(s.backend), " ", s.key);

        if (e->when) {
                /* before the value, which may need what the condition
                 * guards (a fact of another architecture) */
                k = eval_when(r, e, label, ret_error);
                if (k < 0 && k != -ENODATA) {
                        ht_setting_done(&s);
                        return k;
                }
                if (k <= 0) {
                        _cleanup_free_ char *src = xasprintf("%s:%u", e->file, e->line);
                        _cleanup_free_ char *why = xasprintf("%s: its condition is %s: %s", label,
                                                             k == 0 ? "false" : "unknown on this host", e->when);
                        ht_skips_add_condition(&r->skipped, label, why, src, e->when);
                        ht_setting_done(&s);
                        *ret_skipped = true;
                        return 0;
                }
        }

        ht_value v = {0};
        if (word_value)
                v = ht_value_str(word_value);
        else if (e->value.kind != HT_SPEC_NONE) {
                k = ht_spec_eval(r, &e->value, e->file, e->line, label, &v, ret_error);
                if (k < 0) {
                        ht_setting_done(&s);
                        return k;
                }
        } else {
                /* A rule set with flags only: the caller finds the setting. */
                *ret = s;
                return 0;
        }
        if (v.type == HT_VAL_NULL) {
                if (s.optional) {
                        _cleanup_free_ char *src = xasprintf("%s:%u", e->file, e->line);
                        _cleanup_free_ char *why = xasprintf("%s: its value is unknown on this host", label);
                        ht_skips_add(&r->skipped, label, why, src);
                        ht_setting_done(&s);
                        *ret_skipped = true;
                        return 0;
                }
                *ret_error = xasprintf("%s:%u: %s: the value is unknown on this host (a fact "
                                       "that could not be read?); guard it with defined() or mark "
                                       "the setting optional%s", e->file, e->line, label, ht_offline_hint(r));
                ht_setting_done(&s);
                return -EINVAL;
        }
        const char *why = NULL;
        s.value = setting_text(r, &v, e->backend, &why);
        if (!s.value) {
                _cleanup_free_ char *t = ht_value_format(&v);
                *ret_error = xasprintf("%s:%u: %s: value '%s' %s", e->file, e->line, label, t, why);
                ht_value_done(&v);
                ht_setting_done(&s);
                return -EINVAL;
        }
        ht_value_done(&v);
        if (s.bound != HT_BOUND_EXACT) {
                /* fields in decimal, so that plan, the drop-in and verify
                 * compare and write the same text */
                _cleanup_free_ char *norm = NULL, *bwhy = NULL;
                k = ht_bound_normalize(s.bound, s.value, &norm, &bwhy);
                if (k < 0) {
                        *ret_error = xasprintf("%s:%u: %s %s: '%s': %s", e->file, e->line, label,
                                               ht_bound_to_string(s.bound), s.value, bwhy);
                        ht_setting_done(&s);
                        return k;
                }
                s.value = ht_resolver_strdup(r, norm);
        }
        s.citation = entry_citation(r, e);
        *ret = s;
        return 0;
}
