/* The settings asked for so far: a hash index over them, and adding one
 * (a child over its parent, a conflict between unrelated parents, a
 * rule's override, a --set value kept). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "resolver-internal.h"
#include "util.h"

/* The settings' strings live in r->arena (resolver.h). */
char *ht_resolver_strdup(ht_resolver *r, const char *s) {
        return ht_arena_strdup(&r->arena, s);
}

char *ht_resolver_printf(ht_resolver *r, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        char *s = ht_arena_vprintf(&r->arena, fmt, ap);
        va_end(ap);
        return s;
}

char *ht_resolver_file_line(ht_resolver *r, const char *a, const char *b, const char *c, const char *file,
                            unsigned line, const char *post) {
        char digits[16];
        size_t nd = 0, na = strlen(a), nb = strlen(b), nc = strlen(c), nf = strlen(file), np = strlen(post);
        do
                digits[nd++] = (char)('0' + line % 10);
        while ((line /= 10));
        char *s = ht_arena_alloc(&r->arena, na + nb + nc + nf + 1 + nd + np + 1), *d = s;
        memcpy(d, a, na);
        memcpy(d += na, b, nb);
        memcpy(d += nb, c, nc);
        memcpy(d += nc, file, nf);
        d += nf;
        *d++ = ':';
        while (nd)
                *d++ = digits[--nd];
        memcpy(d, post, np + 1);
        return s;
}

char *ht_resolver_int(ht_resolver *r, int64_t n) {
        char digits[24];
        size_t nd = 0;
        /* as unsigned: INT64_MIN has no positive counterpart */
        uint64_t u = n < 0 ? -(uint64_t)n : (uint64_t)n;
        do
                digits[nd++] = (char)('0' + u % 10);
        while ((u /= 10));
        char *s = ht_arena_alloc(&r->arena, nd + 2), *d = s;
        if (n < 0)
                *d++ = '-';
        while (nd)
                *d++ = digits[--nd];
        *d = 0;
        return s;
}

char *ht_setting_label(const ht_setting *s) {
        const ht_backend *bk = ht_backend_get(s->backend);
        if (bk && bk->label)
                return bk->label(s);
        return xasprintf("%s %s", ht_backend_id_to_string(s->backend), s->key);
}

/* FNV-1a over the backend, the key and the key fields. */
static size_t setting_hash(const ht_setting *s) {
        uint64_t h = 14695981039346656037ULL;
        h = (h ^ (unsigned)s->backend) * 1099511628211ULL;
        for (const char *p = s->key; p && *p; p++)
                h = (h ^ (unsigned char)*p) * 1099511628211ULL;
        for (size_t k = 0; k < HT_KEY_FIELDS_MAX; k++) {
                h = (h ^ 0xff) * 1099511628211ULL;
                for (const char *p = s->fields[k]; p && *p; p++)
                        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
        }
        return (size_t)h;
}

static void index_insert(ht_resolver *r, size_t pos) {
        size_t mask = r->index_size - 1;
        size_t i = setting_hash(&r->settings[pos].s) & mask;
        while (r->index[i])
                i = (i + 1) & mask;
        r->index[i] = pos + 1;
}

/* (Re)build the index with room for twice the settings. */
static void index_rebuild(ht_resolver *r) {
        size_t size = 64;
        while (size < 2 * (r->n_settings + 1))
                size *= 2;
        free(r->index);
        r->index = xcalloc(size, sizeof(*r->index));
        r->index_size = size;
        for (size_t i = 0; i < r->n_settings; i++)
                index_insert(r, i);
}

/* Small profiles (all shipped ones) are searched in place. */
#define RESOLVER_INDEX_FROM 32

ht_rsetting *ht_resolver_find(ht_resolver *r, const ht_setting *like) {
        if (r->n_settings < RESOLVER_INDEX_FROM) {
                /* the backend and the key's first byte rule out most
                 * without a call */
                for (size_t i = 0; i < r->n_settings; i++) {
                        const ht_setting *s = &r->settings[i].s;
                        if (s->backend == like->backend && s->key[0] == like->key[0] &&
                            ht_setting_same_key(s, like))
                                return &r->settings[i];
                }
                return NULL;
        }
        if (!r->index)
                index_rebuild(r);
        size_t mask = r->index_size - 1;
        for (size_t i = setting_hash(like) & mask; r->index[i]; i = (i + 1) & mask) {
                ht_rsetting *rs = &r->settings[r->index[i] - 1];
                if (ht_setting_same_key(&rs->s, like))
                        return rs;
        }
        return NULL;
}

void ht_resolver_remove(ht_resolver *r, ht_rsetting *rs) {
        r->settings_gen++;   /* what setting.* read may have changed */
        size_t i = rs - r->settings;
        ht_setting_done(&rs->s);
        memmove(rs, rs + 1, (r->n_settings - i - 1) * sizeof(*rs));
        r->n_settings--;
        /* positions after i moved: rebuilt on the next find */
        free(r->index);
        r->index = NULL;
        r->index_size = 0;
}

/* Numeric order of limit values, for at_least: unlimited is largest. */
static bool limit_value(const char *s, long double *ret) {
        if (streq(s, "unlimited") || streq(s, "infinity") || streq(s, "-1")) {
                *ret = 1e30L;
                return true;
        }
        uint64_t v;
        if (parse_size_bytes(s, &v) == 0) {
                *ret = (long double)v;
                return true;
        }
        return false;
}

static bool is_ancestor(ht_resolver *r, int of, int who) {
        return who >= 0 && of >= 0 && strv_contains(r->ancestors[of], r->chain[who]->name);
}

/* A new setting at the end; takes s. */
ht_rsetting *ht_resolver_append(ht_resolver *r, ht_setting *s, int origin, const char *file,
                                   unsigned line) {
        r->settings_gen++;
        if (r->n_settings == r->settings_cap) {
                r->settings_cap = r->settings_cap ? 2 * r->settings_cap : 16;
                r->settings = xrealloc(r->settings, r->settings_cap * sizeof(*r->settings));
        }
        r->settings[r->n_settings++] = (ht_rsetting){.s = *s, .origin = origin, .file = file,
                                                     .line = line};
        *s = (ht_setting){0};
        if (r->index) {
                if (2 * (r->n_settings + 1) > r->index_size)
                        index_rebuild(r);
                else
                        index_insert(r, r->n_settings - 1);
        }
        return &r->settings[r->n_settings - 1];
}

/* conditional: the profile entry has a `when` (and it held). */
int ht_resolver_add_entry(ht_resolver *r, ht_setting *s, int origin, const char *rule, const char *file,
                        unsigned line, bool conditional, char **ret_error) {
        /* "rule NAME (FILE:LINE)" or "FILE:LINE", for every setting added */
        s->source = rule ? ht_resolver_file_line(r, "rule ", rule, " (", file, line, ")")
                         : ht_resolver_file_line(r, "", "", "", file, line, "");
        ht_rsetting *old = ht_resolver_find(r, s);
        if (!old) {
                ht_rsetting *rs = ht_resolver_append(r, s, origin, file, line);
                rs->plain_line = rule || conditional ? 0 : line;
                return 0;
        }
        _cleanup_free_ char *label = ht_setting_label(s);
        if (old->pinned) {
                /* the user named this value on the command line */
                if (!streq_ptr(old->s.value, s->value) || s->bound != HT_BOUND_EXACT)
                        strv_pushf(&r->warnings, "%s: rule %s would set %s%s; kept %s from --set",
                                   label, rule ? rule : file, ht_setting_value_text(s),
                                   ht_bound_suffix(s->bound), old->s.value);
                ht_setting_done(s);
                return 0;
        }
        bool same = streq_ptr(old->s.value, s->value) && old->s.remove == s->remove &&
                    old->s.bound == s->bound;
        unsigned plain_line = rule || conditional ? 0 : line;
        if (!rule && old->origin == origin) {
                /* one file: an entry with a `when` may override another
                 * (later wins); two without one are a mistake */
                if (!conditional && old->plain_line) {
                        *ret_error = xasprintf("%s:%u: %s is set twice in this file (also at line "
                                               "%u)", file, line, label, old->plain_line);
                        ht_setting_done(s);
                        return -EINVAL;
                }
                if (old->plain_line)
                        plain_line = old->plain_line;
        } else if (!rule) {
                /* A child overriding its own ancestor is what inheritance
                 * is for; two unrelated parents disagreeing is a conflict. */
                if (!same && !is_ancestor(r, origin, old->origin))
                        strv_pushf(&r->warnings, "conflict: %s is %s at %s but %s at %s; %s wins "
                                   "(later in the inherit list)", label, ht_setting_value_text(&old->s),
                                   old->s.source, ht_setting_value_text(s), s->source, s->source);
        } else {
                long double a, b;
                if (s->at_least && old->s.value && s->value && !old->s.remove &&
                    limit_value(old->s.value, &a) && limit_value(s->value, &b) && a >= b) {
                        /* Already large enough: keep the value as it is. */
                        ht_setting_done(s);
                        return 0;
                }
                if (!same)
                        strv_pushf(&r->warnings, "%s: rule %s sets %s, replacing %s from %s", label,
                                   rule, ht_setting_value_text(s), ht_setting_value_text(&old->s),
                                   old->s.source);
        }
        ht_setting_done(&old->s);
        r->settings_gen++;
        old->s = *s;
        old->origin = origin;
        old->file = file;
        old->line = line;
        old->plain_line = plain_line;
        *s = (ht_setting){0};
        return 0;
}

int ht_resolver_add(ht_resolver *r, ht_setting *s, int origin, const char *rule, const char *file,
                    unsigned line, char **ret_error) {
        return ht_resolver_add_entry(r, s, origin, rule, file, line, false, ret_error);
}

ht_setting *ht_resolver_setting(ht_resolver *r, const ht_setting *like, bool *ret_pinned) {
        ht_rsetting *rs = ht_resolver_find(r, like);
        if (rs)
                r->settings_gen++;   /* the caller may change it */
        if (ret_pinned)
                *ret_pinned = rs && rs->pinned;
        return rs ? &rs->s : NULL;
}

void ht_resolver_drop(ht_resolver *r, ht_setting *s) {
        /* s is the first member of its ht_rsetting */
        ht_resolver_remove(r, (ht_rsetting *)s);
}

void ht_resolver_warn(ht_resolver *r, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        strv_push_take(&r->warnings, xvasprintf(fmt, ap));
        va_end(ap);
}

void ht_resolver_error(ht_resolver *r, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        strv_push_take(&r->errors, xvasprintf(fmt, ap));
        va_end(ap);
}

void ht_resolver_skip(ht_resolver *r, const char *setting, const char *reason, const char *source) {
        ht_skips_add(&r->skipped, setting, reason, source);
}

void ht_resolver_reboot_required(ht_resolver *r) {
        r->reboot_required = true;
}
