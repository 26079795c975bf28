/* The parsed form of the shipped profiles and rules (see profile-builtin.h).
 *
 * A byte string: unsigned LEB128 numbers, signed ones zigzag-encoded,
 * strings as length + 1 then the bytes (0: NULL), arrays as their count
 * then the elements; a spec as a header byte and the fields it names
 * (put_spec), an expression's text as an offset into the frozen pool
 * where it has one (put_x). The file pointers an entry, parameter or rule borrows
 * are not stored: they are the path of the file read. The form only ever
 * travels from ht-freeze to the same build's hosttune, so it has no
 * version; the reader still checks every bound and gives up (the caller
 * then parses the file) rather than trust it. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "profile-builtin.h"

/* A field added to these structures must be written and read here too:
 * the sizes catch it on 64-bit builds. */
#if __SIZEOF_POINTER__ == 8
_Static_assert(sizeof(ht_value) == 32, "ht_value changed: update profile-builtin.c");
_Static_assert(sizeof(ht_spec) == 48, "ht_spec changed: update profile-builtin.c");
_Static_assert(sizeof(ht_entry) == 296, "ht_entry changed: update profile-builtin.c");
_Static_assert(sizeof(ht_param_decl) == 80, "ht_param_decl changed: update profile-builtin.c");
/* ht_pfile.origin_files is only a converted tuned profile's, never a
 * built-in's; the arena (16 bytes) is only where a decoded copy lives */
_Static_assert(sizeof(ht_pfile) == 88 + sizeof(ht_arena), "ht_pfile changed: update profile-builtin.c");
_Static_assert(sizeof(ht_rule) == 256, "ht_rule changed: update profile-builtin.c");
_Static_assert(sizeof(ht_rfile) == 56 + sizeof(ht_arena), "ht_rfile changed: update profile-builtin.c");
#endif

#define PFILE_MAGIC 'P'
#define RFILE_MAGIC 'R'

/* --- writing -------------------------------------------------------- */

static void put_u(strbuf *b, uint64_t v) {
        char out[10];
        size_t n = 0;
        do {
                out[n] = (char)(v & 0x7f);
                v >>= 7;
                if (v)
                        out[n] |= (char)0x80;
                n++;
        } while (v);
        strbuf_appendn(b, out, n);
}

static void put_i(strbuf *b, int64_t v) {
        put_u(b, v < 0 ? ((uint64_t)~v << 1) | 1 : (uint64_t)v << 1);
}

static void put_s(strbuf *b, const char *s) {
        if (!s) {
                put_u(b, 0);
                return;
        }
        size_t n = strlen(s);
        put_u(b, (uint64_t)n + 1);
        strbuf_appendn(b, s, n);
}

/* A string the reader borrows: put_s's form with a NUL after it. */
static void put_s0(strbuf *b, const char *s) {
        put_s(b, s);
        if (s)
                strbuf_appendn(b, "", 1);
}

/* An expression's text (an EXPR spec's, a condition): where the frozen
 * table has it, the offset of its text in ht_builtin_expr_chars, beside
 * which the table's index of its tree is stored (ht_builtin_expr_at: no
 * search when it is evaluated); else the text itself. */
#define X_NULL 0
#define X_INLINE 1
#define X_POOL 2

static bool (*pool_find)(const char *text, size_t len, uint32_t *ret_text);

void ht_builtin_put_pool(bool (*find)(const char *text, size_t len, uint32_t *ret_text)) {
        pool_find = find;
}

/* The default: the table this program has. */
static bool linked_find(const char *text, size_t len, uint32_t *ret_text) {
        const ht_builtin_expr *b = ht_builtin_expr_lookup(text, len);
        if (!b)
                return false;
        *ret_text = b->text;
        return true;
}

static void put_x(strbuf *b, const char *s) {
        uint32_t off;
        if (!s) {
                put_u(b, X_NULL);
        } else if ((pool_find ? pool_find : linked_find)(s, strlen(s), &off)) {
                put_u(b, X_POOL);
                put_u(b, off);
        } else {
                put_u(b, X_INLINE);
                put_s0(b, s);
        }
}

/* A spec: one header byte, then only the fields it says are there.
 * Most of an entry's five specs are absent (all zero: header 0, one
 * byte), and a present one is a literal or a text, so reading all six
 * fields of each was most of a plan's decoding. */
#define SPEC_KIND 0x03       /* ht_spec_kind */
#define SPEC_TYPE_SHIFT 2    /* lit.type, 2 bits */
#define SPEC_NUM 0x10        /* lit.num != 0 follows */
#define SPEC_DEN 0x20        /* lit.den != 0 follows */
#define SPEC_STR 0x40        /* lit.str follows */
#define SPEC_TEXT 0x80       /* text follows */
_Static_assert(HT_SPEC_TEMPLATE <= SPEC_KIND && HT_VAL_STR <= 3, "a spec's header holds its kind and type");

static void put_spec(strbuf *b, const ht_spec *s) {
        unsigned char h = (unsigned char)(s->kind | s->lit.type << SPEC_TYPE_SHIFT | (s->lit.num ? SPEC_NUM : 0) |
                                          (s->lit.den ? SPEC_DEN : 0) | (s->lit.str ? SPEC_STR : 0) |
                                          (s->text ? SPEC_TEXT : 0));
        strbuf_appendn(b, (const char *)&h, 1);
        if (s->lit.num)
                put_i(b, s->lit.num);
        if (s->lit.den)
                put_i(b, s->lit.den);
        if (s->lit.str)
                put_s0(b, s->lit.str);
        if (!s->text)
                return;
        if (s->kind == HT_SPEC_EXPR)
                put_x(b, s->text);
        else
                put_s0(b, s->text);
}

enum {
        F_CMDLINE_WORD = 1 << 0,
        F_OPTIONAL = 1 << 1,
        F_REMOVE = 1 << 2,
        F_BOOT_ONLY = 1 << 3,
        F_AT_LEAST = 1 << 4,
        F_HAS_OPTIONAL = 1 << 5,
        F_HAS_BOOT_ONLY = 1 << 6,
        F_HAS_BOUND = 1 << 7,
        F_REQUIRED = 1 << 8,
};

static bool put_entries(strbuf *b, const ht_entry *l, size_t n, const char *path) {
        put_u(b, n);
        for (size_t i = 0; i < n; i++) {
                const ht_entry *e = &l[i];
                if (e->file != path)
                        return false;
                put_u(b, e->backend);
                put_spec(b, &e->key);
                for (size_t k = 0; k < HT_KEY_FIELDS_MAX; k++)
                        put_spec(b, &e->fields[k]);
                put_spec(b, &e->value);
                put_x(b, e->when);
                put_u(b, (e->cmdline_word ? F_CMDLINE_WORD : 0) | (e->optional ? F_OPTIONAL : 0) |
                                 (e->remove ? F_REMOVE : 0) | (e->boot_only ? F_BOOT_ONLY : 0) |
                                 (e->at_least ? F_AT_LEAST : 0) |
                                 (e->has_optional ? F_HAS_OPTIONAL : 0) |
                                 (e->has_boot_only ? F_HAS_BOOT_ONLY : 0) |
                                 (e->has_bound ? F_HAS_BOUND : 0) |
                                 (e->required ? F_REQUIRED : 0));
                put_u(b, e->bound);
                put_u(b, e->line);
                put_s0(b, e->comment);
        }
        return true;
}

static bool put_params(strbuf *b, const ht_param_decl *l, size_t n, const char *path) {
        put_u(b, n);
        for (size_t i = 0; i < n; i++) {
                if (l[i].file != path)
                        return false;
                put_s0(b, l[i].name);
                put_spec(b, &l[i].spec);
                put_u(b, l[i].line);
                put_s0(b, l[i].comment);
        }
        return true;
}

bool ht_builtin_put_pfile(strbuf *b, const ht_pfile *p) {
        put_u(b, PFILE_MAGIC);
        put_s0(b, p->summary);
        size_t n = p->parents ? strv_length(p->parents) + 1 : 0;
        put_u(b, n);
        for (size_t i = 0; i + 1 < n; i++)
                put_s(b, p->parents[i]);
        put_u(b, p->inherit_line);
        return put_params(b, p->params, p->n_params, p->path) &&
               put_entries(b, p->entries, p->n_entries, p->path);
}

bool ht_builtin_put_rfile(strbuf *b, const ht_rfile *f) {
        put_u(b, RFILE_MAGIC);
        if (!put_params(b, f->params, f->n_params, f->path))
                return false;
        put_u(b, f->n_rules);
        for (size_t i = 0; i < f->n_rules; i++) {
                const ht_rule *r = &f->rules[i];
                if (r->file != f->path)
                        return false;
                put_s0(b, r->name);
                put_u(b, r->line);
                put_x(b, r->when);
                if (!put_entries(b, r->sets, r->n_sets, f->path) ||
                    !put_entries(b, r->skips, r->n_skips, f->path))
                        return false;
                put_spec(b, &r->warn);
                put_spec(b, &r->error);
                put_spec(b, &r->fix);
                put_spec(b, &r->bootloader_default);
        }
        return true;
}

/* --- reading -------------------------------------------------------- */

typedef struct {
        const unsigned char *p, *end;
        bool bad;
        ht_arena *arena;  /* the file's: its arrays and copied strings */
} reader;

static uint64_t get_u(reader *r) {
        uint64_t v = 0;
        for (unsigned shift = 0; shift < 64; shift += 7) {
                if (r->p >= r->end) {
                        r->bad = true;
                        return 0;
                }
                unsigned char c = *r->p++;
                v |= (uint64_t)(c & 0x7f) << shift;
                if (!(c & 0x80))
                        return v;
        }
        r->bad = true;
        return 0;
}

static int64_t get_i(reader *r) {
        uint64_t u = get_u(r);
        return u & 1 ? (int64_t)~(u >> 1) : (int64_t)(u >> 1);
}

/* A count of elements at least min_size bytes each, bounded by what is left. */
static size_t get_count(reader *r, size_t min_size) {
        uint64_t n = get_u(r);
        if (n > (uint64_t)(r->end - r->p) / min_size) {
                r->bad = true;
                return 0;
        }
        return (size_t)n;
}

static unsigned get_line(reader *r) {
        uint64_t v = get_u(r);
        if (v > UINT32_MAX)
                r->bad = true;
        return (unsigned)v;
}

static char *get_s(reader *r) {
        uint64_t n = get_u(r);
        if (n == 0)
                return NULL;
        if (n - 1 > (uint64_t)(r->end - r->p)) {
                r->bad = true;
                return NULL;
        }
        char *s = ht_arena_strndup(r->arena, (const char *)r->p, (size_t)(n - 1));
        r->p += n - 1;
        return s;
}

/* A put_s0 string, borrowed from the form: the comments, which are
 * the longest strings and only `show` prints, cost no copy. */
static const char *get_s0(reader *r) {
        uint64_t n = get_u(r);
        if (n == 0)
                return NULL;
        if (n > (uint64_t)(r->end - r->p) || r->p[n - 1] != 0) {
                r->bad = true;
                return NULL;
        }
        const char *s = (const char *)r->p;
        r->p += n;
        return s;
}

/* A string of a borrowed file (ht_pfile.borrowed): the structures hold
 * char *, which its free function then leaves alone. */
static char *get_b(reader *r) {
        return (char *)get_s0(r);
}

/* The 4 bytes before an expression's text in the pool: its tree's
 * index in ht_builtin_exprs, least significant first. */
static uint32_t pool_index(const char *text) {
        const unsigned char *p = (const unsigned char *)text - 4;
        return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* put_x's text: borrowed from the form or from the pool. */
static char *get_x(reader *r) {
        uint64_t tag = get_u(r);
        if (tag == X_NULL)
                return NULL;
        if (tag == X_INLINE)
                return get_b(r);
        uint64_t off = get_u(r);
        /* Within the pool, whose last byte is a NUL: a string, read no
         * further than the pool. Whether it is an expression's text is
         * checked when it is evaluated (ht_builtin_expr_at): checking it
         * here read the table and the pool at every load, a page each
         * that evaluating the file may not need. */
        if (tag != X_POOL || off < 4 || off >= ht_builtin_expr_n_chars ||
            ht_builtin_expr_chars[ht_builtin_expr_n_chars - 1] != 0) {
                r->bad = true;
                return NULL;
        }
        return (char *)ht_builtin_expr_chars + off;
}

static void get_spec(reader *r, ht_spec *s) {
        if (r->p >= r->end) {
                r->bad = true;
                return;
        }
        unsigned h = *r->p++;
        if (!h)
                return;   /* absent: what calloc left */
        s->kind = (ht_spec_kind)(h & SPEC_KIND);
        s->lit.type = (ht_value_type)(h >> SPEC_TYPE_SHIFT & 3);
        if (h & SPEC_NUM)
                s->lit.num = get_i(r);
        if (h & SPEC_DEN)
                s->lit.den = get_i(r);
        if (h & SPEC_STR && !(s->lit.str = get_b(r)))
                r->bad = true;
        if (h & SPEC_TEXT && !(s->text = s->kind == HT_SPEC_EXPR ? get_x(r) : get_b(r)))
                r->bad = true;
}

static ht_entry *get_entries(reader *r, size_t *ret_n, const char *path) {
        size_t n = get_count(r, 2);
        ht_entry *l = n ? ht_arena_calloc(r->arena, n, sizeof(*l)) : NULL;
        for (size_t i = 0; i < n; i++) {
                ht_entry *e = &l[i];
                uint64_t b = get_u(r);
                if (b >= _HT_BK_MAX)
                        r->bad = true;
                e->backend = (ht_backend_id)b;
                get_spec(r, &e->key);
                for (size_t k = 0; k < HT_KEY_FIELDS_MAX; k++)
                        get_spec(r, &e->fields[k]);
                get_spec(r, &e->value);
                e->when = get_x(r);
                uint64_t flags = get_u(r);
                e->cmdline_word = flags & F_CMDLINE_WORD;
                e->optional = flags & F_OPTIONAL;
                e->remove = flags & F_REMOVE;
                e->boot_only = flags & F_BOOT_ONLY;
                e->at_least = flags & F_AT_LEAST;
                e->has_optional = flags & F_HAS_OPTIONAL;
                e->has_boot_only = flags & F_HAS_BOOT_ONLY;
                e->has_bound = flags & F_HAS_BOUND;
                e->required = flags & F_REQUIRED;
                uint64_t bound = get_u(r);
                if (bound >= _HT_BOUND_MAX)
                        r->bad = true;
                e->bound = (ht_bound)bound;
                e->line = get_line(r);
                e->comment = get_s0(r);
                e->file = path;
        }
        *ret_n = n;
        return l;
}

static ht_param_decl *get_params(reader *r, size_t *ret_n, const char *path) {
        size_t n = get_count(r, 2);
        ht_param_decl *l = n ? ht_arena_calloc(r->arena, n, sizeof(*l)) : NULL;
        for (size_t i = 0; i < n; i++) {
                l[i].name = get_b(r);
                get_spec(r, &l[i].spec);
                l[i].line = get_line(r);
                l[i].comment = get_s0(r);
                l[i].file = path;
        }
        *ret_n = n;
        return l;
}

static bool finished(const reader *r) {
        return !r->bad && r->p == r->end;
}

ht_pfile *ht_builtin_get_pfile(const unsigned char *blob, size_t len, const char *path,
                               const char *name) {
        reader r = {blob, blob + len, false, NULL};
        if (get_u(&r) != PFILE_MAGIC)
                return NULL;
        ht_pfile *p = xcalloc(1, sizeof(*p));
        r.arena = &p->arena;
        p->name = ht_arena_strdup(r.arena, name);
        p->path = ht_arena_strdup(r.arena, path);
        p->borrowed = true;
        p->summary = get_b(&r);
        size_t n = get_count(&r, 1);
        if (n > 0) {
                p->parents = ht_arena_calloc(r.arena, n, sizeof(char *));
                for (size_t i = 0; i + 1 < n && !r.bad; i++)
                        if (!(p->parents[i] = get_s(&r)))
                                r.bad = true;
        }
        p->inherit_line = get_line(&r);
        p->params = get_params(&r, &p->n_params, p->path);
        p->entries = get_entries(&r, &p->n_entries, p->path);
        if (!finished(&r)) {
                ht_pfile_free(p);
                return NULL;
        }
        return p;
}

ht_rfile *ht_builtin_get_rfile(const unsigned char *blob, size_t len, const char *path) {
        reader r = {blob, blob + len, false, NULL};
        if (get_u(&r) != RFILE_MAGIC)
                return NULL;
        ht_rfile *f = xcalloc(1, sizeof(*f));
        r.arena = &f->arena;
        f->path = ht_arena_strdup(r.arena, path);
        f->borrowed = true;
        f->params = get_params(&r, &f->n_params, f->path);
        size_t n = get_count(&r, 4);
        f->rules = n ? ht_arena_calloc(r.arena, n, sizeof(*f->rules)) : NULL;
        f->n_rules = n;
        for (size_t i = 0; i < n; i++) {
                ht_rule *rule = &f->rules[i];
                rule->file = f->path;
                rule->name = get_b(&r);
                rule->line = get_line(&r);
                rule->when = get_x(&r);
                rule->sets = get_entries(&r, &rule->n_sets, f->path);
                rule->skips = get_entries(&r, &rule->n_skips, f->path);
                get_spec(&r, &rule->warn);
                get_spec(&r, &rule->error);
                get_spec(&r, &rule->fix);
                get_spec(&r, &rule->bootloader_default);
        }
        if (!finished(&r)) {
                ht_rfile_free(f);
                return NULL;
        }
        return f;
}

/* --- expressions ---------------------------------------------------- */

uint64_t ht_builtin_expr_key(const char *text, size_t len) {
        /* the length, the first 8 bytes and the last 8, byte by byte so
         * that the key does not depend on the byte order of the machine
         * that built the table */
        uint64_t h = len * UINT64_C(0x9e3779b97f4a7c15);
        size_t n = len < 8 ? len : 8;
        for (size_t i = 0; i < n; i++)
                h = (h ^ (unsigned char)text[i]) * UINT64_C(0x100000001b3);
        for (size_t i = len - n; i < len; i++)
                h = (h ^ (unsigned char)text[i]) * UINT64_C(0x100000001b3);
        return h ^ (h >> 29);
}

void ht_builtin_expr_view(const ht_builtin_expr *b, ht_expr *ret) {
        *ret = (ht_expr){ .nodes = ht_builtin_expr_nodes + b->nodes, .kids = ht_builtin_expr_kids + b->kids,
                          .strings = ht_builtin_expr_chars, .n_nodes = b->n_nodes, .n_kids = b->n_kids,
                          .root = b->root };
}

bool ht_builtin_expr_at(const char *text, size_t len, ht_expr *ret) {
        uintptr_t t = (uintptr_t)text, pool = (uintptr_t)ht_builtin_expr_chars;
        if (t < pool + 4 || t >= pool + ht_builtin_expr_n_chars)
                return false;
        uint32_t i = pool_index(text);
        if (i >= ht_builtin_n_exprs)
                return false;
        const ht_builtin_expr *b = &ht_builtin_exprs[i];
        if (b->text != t - pool || b->len != len)
                return false;
        ht_builtin_expr_view(b, ret);
        return true;
}

bool ht_builtin_expr_find(const char *text, size_t len, ht_expr *ret) {
        const ht_builtin_expr *b = ht_builtin_expr_lookup(text, len);
        if (!b)
                return false;
        ht_builtin_expr_view(b, ret);
        return true;
}

const ht_builtin_expr *ht_builtin_expr_lookup(const char *text, size_t len) {
        if (ht_builtin_n_exprs == 0)
                return NULL;
        uint64_t key = ht_builtin_expr_key(text, len);
        size_t lo = 0, hi = ht_builtin_n_exprs;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (ht_builtin_exprs[mid].key < key)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        for (; lo < ht_builtin_n_exprs && ht_builtin_exprs[lo].key == key; lo++) {
                const ht_builtin_expr *b = &ht_builtin_exprs[lo];
                if (b->len == len && memcmp(ht_builtin_expr_text(b), text, len) == 0)
                        return b;
        }
        return NULL;
}

typedef void (*expr_fn)(const char *text, size_t len, void *userdata);

/* As profile-eval.c's eval_template() finds them. */
static void template_exprs(const char *p, expr_fn fn, void *userdata) {
        while (p && *p) {
                if (p[0] == '$' && p[1] == '$' && p[2] == '{') {
                        p += 3;
                        continue;
                }
                if (p[0] != '$' || p[1] != '{') {
                        p++;
                        continue;
                }
                const char *s = ht_expr_template_end(p + 2);
                if (*s != '}')
                        return;
                fn(p + 2, (size_t)(s - p - 2), userdata);
                p = s + 1;
        }
}

static void spec_exprs(const ht_spec *sp, expr_fn fn, void *userdata) {
        if (sp->kind == HT_SPEC_EXPR && sp->text)
                fn(sp->text, strlen(sp->text), userdata);
        else if (sp->kind == HT_SPEC_TEMPLATE)
                template_exprs(sp->text, fn, userdata);
}

static void entry_exprs(const ht_entry *l, size_t n, expr_fn fn, void *userdata) {
        for (size_t i = 0; i < n; i++) {
                spec_exprs(&l[i].key, fn, userdata);
                for (size_t k = 0; k < HT_KEY_FIELDS_MAX; k++)
                        spec_exprs(&l[i].fields[k], fn, userdata);
                spec_exprs(&l[i].value, fn, userdata);
                if (l[i].when)
                        fn(l[i].when, strlen(l[i].when), userdata);
        }
}

void ht_builtin_pfile_exprs(const ht_pfile *p, expr_fn fn, void *userdata) {
        for (size_t i = 0; i < p->n_params; i++)
                spec_exprs(&p->params[i].spec, fn, userdata);
        entry_exprs(p->entries, p->n_entries, fn, userdata);
}

void ht_builtin_rfile_exprs(const ht_rfile *f, expr_fn fn, void *userdata) {
        for (size_t i = 0; i < f->n_params; i++)
                spec_exprs(&f->params[i].spec, fn, userdata);
        for (size_t i = 0; i < f->n_rules; i++) {
                const ht_rule *r = &f->rules[i];
                if (r->when)
                        fn(r->when, strlen(r->when), userdata);
                entry_exprs(r->sets, r->n_sets, fn, userdata);
                entry_exprs(r->skips, r->n_skips, fn, userdata);
                spec_exprs(&r->warn, fn, userdata);
                spec_exprs(&r->error, fn, userdata);
                spec_exprs(&r->fix, fn, userdata);
                spec_exprs(&r->bootloader_default, fn, userdata);
        }
}

const ht_builtin_file *ht_builtin_find(const char *path, const char *buf, size_t len) {
        if (ht_env_true("HOSTTUNE_NO_BUILTIN_PROFILES"))
                return NULL;
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        for (size_t i = 0; i < ht_builtin_n_files; i++) {
                const ht_builtin_file *f = &ht_builtin_files[i];
                if (f->text_len == len && streq(f->name, base) && memcmp(f->text, buf, len) == 0)
                        return f;
        }
        return NULL;
}

ht_pfile *ht_builtin_pfile(const char *path, const char *name, const char *buf, size_t len) {
        const ht_builtin_file *b = ht_builtin_find(path, buf, len);
        return b ? ht_builtin_get_pfile(b->blob, b->blob_len, path, name) : NULL;
}

ht_rfile *ht_builtin_rfile(const char *path, const char *buf, size_t len) {
        const ht_builtin_file *b = ht_builtin_find(path, buf, len);
        return b ? ht_builtin_get_rfile(b->blob, b->blob_len, path) : NULL;
}
