/* The profile model's lifecycle and validation: specs, entries, profile
 * and rules files, settings and resolved profiles freed; names checked;
 * the words messages use for a value. What the loader
 * (profile-load.c), the built-in decoder (profile-builtin.c) and the
 * resolver share, below all three. */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>

#include "profile-model.h"
#include "util.h"

bool ht_setting_same_key(const ht_setting *a, const ht_setting *b) {
        if (a->backend != b->backend || !streq(a->key, b->key))
                return false;
        for (size_t k = 0; k < HT_KEY_FIELDS_MAX; k++)
                if (!streq_ptr(a->fields[k], b->fields[k]))
                        return false;
        return true;
}

void ht_setting_done(ht_setting *s) {
        /* its strings are an arena's (profile.h): nothing to free */
        *s = (ht_setting){0};
}

const char *ht_setting_value_text(const ht_setting *s) {
        if (s->remove)
                return isempty(s->value) ? "(removed)" : "(this value removed)";
        return s->value ? s->value : "(unset)";
}

/* What show prints after a bounded value: which way the host may differ. */
const char *ht_bound_suffix(ht_bound b) {
        switch (b) {
        case HT_BOUND_AT_LEAST: return " (at least)";
        case HT_BOUND_AT_MOST: return " (at most)";
        case HT_BOUND_RANGE: return " (range)";
        default: return "";
        }
}

void ht_resolved_free(ht_resolved *r) {
        if (!r)
                return;
        free(r->name);
        free(r->summary);
        free(r->file);
        strv_free(r->chain);
        /* the strings of params and settings are in r->arena */
        free(r->params);
        free(r->settings);
        strv_free(r->warnings);
        ht_skips_done(&r->skipped);
        strv_free(r->errors);
        json_object_put(r->not_used);
        json_object_put(r->composed);
        ht_arena_done(&r->arena);
        free(r);
}

void ht_spec_done(ht_spec *s) {
        if (!s)
                return;
        ht_value_done(&s->lit);
        free(s->text);
        *s = (ht_spec){0};
}

void ht_spec_copy(ht_spec *dst, const ht_spec *src) {
        *dst = (ht_spec){.kind = src->kind, .lit = ht_value_copy(&src->lit),
                         .text = src->text ? xstrdup(src->text) : NULL};
}

void ht_entry_done(ht_entry *e) {
        ht_spec_done(&e->key);
        for (size_t k = 0; k < HT_KEY_FIELDS_MAX; k++)
                ht_spec_done(&e->fields[k]);
        ht_spec_done(&e->value);
        free(e->when);
        e->when = NULL;
}

void ht_param_decl_done(ht_param_decl *p) {
        free(p->name);
        ht_spec_done(&p->spec);
}

void ht_pfile_free(ht_pfile *p) {
        if (!p)
                return;
        if (!p->borrowed) {
                free(p->name);
                free(p->path);
                strv_free(p->parents);
                free(p->summary);
                for (size_t i = 0; i < p->n_params; i++)
                        ht_param_decl_done(&p->params[i]);
                for (size_t i = 0; i < p->n_entries; i++)
                        ht_entry_done(&p->entries[i]);
                free(p->params);
                free(p->entries);
        }
        strv_free(p->comments);
        strv_free(p->origin_files);
        ht_arena_done(&p->arena);
        free(p);
}

static void rule_done(ht_rule *r) {
        free(r->name);
        free(r->when);
        for (size_t i = 0; i < r->n_sets; i++)
                ht_entry_done(&r->sets[i]);
        for (size_t i = 0; i < r->n_skips; i++)
                ht_entry_done(&r->skips[i]);
        ht_spec_done(&r->warn);
        ht_spec_done(&r->error);
        ht_spec_done(&r->fix);
        ht_spec_done(&r->bootloader_default);
        free(r->sets);
        free(r->skips);
}

void ht_rfile_free(ht_rfile *f) {
        if (!f)
                return;
        if (!f->borrowed) {
                free(f->path);
                for (size_t i = 0; i < f->n_params; i++)
                        ht_param_decl_done(&f->params[i]);
                free(f->params);
                for (size_t i = 0; i < f->n_rules; i++)
                        rule_done(&f->rules[i]);
                free(f->rules);
        }
        strv_free(f->comments);
        ht_arena_done(&f->arena);
        free(f);
}

bool ht_profile_name_valid(const char *name) {
        if (isempty(name) || name[0] == '.' || strlen(name) > 128)
                return false;
        for (const char *p = name; *p; p++)
                if (!isalnum((unsigned char)*p) && !strchr("_.-", *p))
                        return false;
        return true;
}

const char *ht_entry_param_ref(const ht_entry *e) {
        const char *t = e->value.kind == HT_SPEC_EXPR ? e->value.text : NULL;
        if (!t || !(isalpha((unsigned char)t[0]) || t[0] == '_') || streq(t, "true") ||
            streq(t, "false") || streq(t, "null"))
                return NULL;
        for (const char *p = t; *p; p++)
                if (!isalnum((unsigned char)*p) && *p != '_')
                        return NULL;
        return t;
}
