/* tuned.conf and tuned's variable files, read as CPython 3.11's
 * RawConfigParser._read reads them with tuned's arguments (the header
 * says which). The comments name the Python each step mirrors. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format-tuned.h"
#include "util.h"

/* One code point of valid UTF-8 at p (before end): its length, or 0 where
 * Python's strict decoder fails (overlong forms, surrogates, beyond
 * U+10FFFF, truncated). */
static size_t utf8_decode(const unsigned char *p, const unsigned char *end, uint32_t *ret) {
        uint32_t c = p[0];
        size_t n;
        uint32_t min;
        if (c < 0x80) {
                *ret = c;
                return 1;
        } else if (c >= 0xc2 && c <= 0xdf)
                n = 2, c &= 0x1f, min = 0x80;
        else if (c >= 0xe0 && c <= 0xef)
                n = 3, c &= 0x0f, min = 0x800;
        else if (c >= 0xf0 && c <= 0xf4)
                n = 4, c &= 0x07, min = 0x10000;
        else
                return 0;
        if ((size_t)(end - p) < n)
                return 0;
        for (size_t i = 1; i < n; i++) {
                if ((p[i] & 0xc0) != 0x80)
                        return 0;
                c = c << 6 | (p[i] & 0x3f);
        }
        if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
                return 0;
        *ret = c;
        return n;
}

/* Python's str.isspace() (Py_UNICODE_ISSPACE), which strip(), the inline
 * comment check and the regular expressions' \s and \S all use. */
static bool py_isspace(uint32_t c) {
        return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) || c == 0x85 || c == 0xa0 ||
               c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 ||
               c == 0x202f || c == 0x205f || c == 0x3000;
}

/* The bytes of the whitespace character at p, 0 when it is none (the text
 * was checked to be UTF-8 before). */
static size_t space_at(const char *p, const char *end) {
        uint32_t c;
        if (p >= end)
                return 0;
        size_t n = utf8_decode((const unsigned char *)p, (const unsigned char *)end, &c);
        return n && py_isspace(c) ? n : 0;
}

/* [*s, *e) with whitespace taken off both ends: Python's str.strip(). */
static void strip(const char **s, const char **e) {
        size_t n;
        while ((n = space_at(*s, *e)))
                *s += n;
        const char *last = *s; /* just after the last non-space character */
        for (const char *p = *s; p < *e;) {
                n = space_at(p, *e);
                if (n)
                        p += n;
                else {
                        uint32_t c;
                        p += utf8_decode((const unsigned char *)p, (const unsigned char *)*e, &c);
                        last = p;
                }
        }
        *e = last;
}

/* One table for the names seen so far: sections (ns = SIZE_MAX) and each
 * section's keys (ns = its index), so repeats are found in constant time
 * however large the file. */
typedef struct {
        const char *name;
        size_t ns, idx;
} slot;

typedef struct {
        slot *slots;
        size_t cap, n;
} name_table;

static size_t name_hash(size_t ns, const char *name) {
        uint64_t h = 0xcbf29ce484222325u ^ ns;
        for (const unsigned char *p = (const unsigned char *)name; *p; p++)
                h = (h ^ *p) * 0x100000001b3u;
        return (size_t)(h ^ h >> 29);
}

static slot *table_find(const name_table *t, size_t ns, const char *name) {
        if (!t->cap)
                return NULL;
        for (size_t i = name_hash(ns, name) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
                slot *s = &t->slots[i];
                if (!s->name)
                        return NULL;
                if (s->ns == ns && streq(s->name, name))
                        return s;
        }
}

static void table_add(name_table *t, size_t ns, const char *name, size_t idx) {
        if (2 * (t->n + 1) > t->cap) {
                name_table bigger = {.cap = t->cap ? 2 * t->cap : 64};
                bigger.slots = xcalloc(bigger.cap, sizeof(slot));
                for (size_t i = 0; i < t->cap; i++)
                        if (t->slots[i].name)
                                table_add(&bigger, t->slots[i].ns, t->slots[i].name, t->slots[i].idx);
                free(t->slots);
                *t = bigger;
        }
        size_t i = name_hash(ns, name) & (t->cap - 1);
        while (t->slots[i].name)
                i = (i + 1) & (t->cap - 1);
        t->slots[i] = (slot){name, ns, idx};
        t->n++;
}

/* Room for one more of an array that only grows, its capacity the next
 * power of two of its length. */
static void *grow(void *a, size_t n, size_t size) {
        if (n & (n - 1))
                return a;
        return xrealloc(a, (n ? 2 * n : 1) * size);
}

typedef struct {
        const char *path;
        ht_tuned_conf *conf;   /* its sections include [DEFAULT] until the end */
        name_table names;
        size_t sect;           /* the current section (cursect), SIZE_MAX: none yet */
        size_t opt;            /* the current option (optname), SIZE_MAX: none */
        strbuf value;          /* the current option's value lines so far */
        bool value_open;       /* value is opt's and not stored yet */
        size_t indent;         /* indent_level: of the last header or option line */
        strbuf comment;        /* the comment lines above the next key */
        bool have_comment;
        char *error;
} parser;

/* While parsing, an option's value is NULL when it has none (a headerless
 * bare key) or while it is the open one; every other option has its text. */

static int fail(parser *p, unsigned line, const char *what) {
        p->error = xasprintf("%s:%u: %s", p->path, line, what);
        return -EINVAL;
}

static void buf_clear(strbuf *b) {
        b->len = 0;
        if (b->data)
                b->data[0] = 0;
}

/* Store the open value: its lines joined, rstrip()ed as
 * _join_multiline_values does (a leading "\n" of an empty first line
 * stays). */
static void flush_value(parser *p) {
        if (!p->value_open)
                return;
        ht_tuned_option *o = &p->conf->sections[p->sect].options[p->opt];
        const char *s = p->value.data ? p->value.data : "", *e = s + p->value.len;
        const char *b = s;
        strip(&b, &e);
        if (b == e)
                e = s; /* nothing but whitespace: "" */
        o->value = xstrndup(s, (size_t)(e - s));
        buf_clear(&p->value);
        p->value_open = false;
}

static void drop_comment(parser *p) {
        buf_clear(&p->comment);
        p->have_comment = false;
}

static size_t section_for(parser *p, const char *s, size_t n, unsigned line) {
        _cleanup_free_ char *name = xstrndup(s, n);
        slot *sl = table_find(&p->names, SIZE_MAX, name);
        if (sl)
                return sl->idx;
        ht_tuned_conf *c = p->conf;
        c->sections = grow(c->sections, c->n_sections, sizeof(*c->sections));
        size_t i = c->n_sections++;
        c->sections[i] = (ht_tuned_section){.name = TAKE_PTR(name), .line = line};
        table_add(&p->names, SIZE_MAX, c->sections[i].name, i);
        return i;
}

/* A key line of the current section: a new option, or a repeated key
 * replacing value, line and comment in place (strict=False keeps the
 * dict's first position). v NULL: no '=' (headerless only). */
static void set_option(parser *p, const char *k, size_t kn, const char *v, size_t vn, unsigned line) {
        _cleanup_free_ char *key = xstrndup(k, kn);
        ht_tuned_section *s = &p->conf->sections[p->sect];
        slot *sl = table_find(&p->names, p->sect, key);
        size_t i;
        if (sl) {
                i = sl->idx;
                free(s->options[i].value);
                free(s->options[i].comment);
        } else {
                s->options = grow(s->options, s->n_options, sizeof(*s->options));
                i = s->n_options++;
                s->options[i] = (ht_tuned_option){.key = TAKE_PTR(key)};
                table_add(&p->names, p->sect, s->options[i].key, i);
        }
        ht_tuned_option *o = &s->options[i];
        o->value = NULL;
        o->line = line;
        o->comment = p->have_comment ? strbuf_steal(&p->comment) : NULL;
        drop_comment(p);
        p->opt = i;
        if (v) {
                strbuf_appendn(&p->value, v, vn);
                p->value_open = true;
        }
}

/* The text of a comment line (stripped, first character '#' or ';')
 * without that character and one space after it. */
static void add_comment(parser *p, const char *s, const char *e) {
        s++;
        if (s < e && *s == ' ')
                s++;
        if (p->have_comment)
                strbuf_append(&p->comment, "\n");
        strbuf_appendn(&p->comment, s, (size_t)(e - s));
        p->have_comment = true;
}

/* Where an inline comment starts in [s, e): the first '#' at the start or
 * after whitespace; e if none. */
static const char *inline_comment(const char *s, const char *e) {
        bool after_space = true;
        for (const char *q = s; q < e;) {
                if (*q == '#' && after_space)
                        return q;
                size_t n = space_at(q, e);
                after_space = n > 0;
                if (!n) {
                        uint32_t c;
                        n = utf8_decode((const unsigned char *)q, (const unsigned char *)e, &c);
                }
                q += n;
        }
        return e;
}

/* One line [s, e) without its line end; the steps of _read's loop. */
static int parse_line(parser *p, const char *s, const char *e, unsigned line, bool headerless) {
        /* a full-line comment: the stripped line starts with '#' or ';' */
        const char *vs = s, *ve = e;
        strip(&vs, &ve);
        if (vs < ve && (*vs == '#' || *vs == ';')) {
                add_comment(p, vs, ve);
                return 0;
        }
        const char *comment = inline_comment(s, e);
        vs = s, ve = comment;
        strip(&vs, &ve);
        if (vs == ve) {
                drop_comment(p);
                /* empty_lines_in_values: an empty line without a comment
                 * belongs to the open value; rstrip() drops it unless a
                 * continuation follows */
                if (comment == e && p->value_open)
                        strbuf_append(&p->value, "\n");
                return 0;
        }

        /* cur_indent_level: the characters before the first non-space */
        size_t indent = 0;
        for (const char *q = s; q < e;) {
                size_t n = space_at(q, e);
                if (!n)
                        break;
                q += n;
                indent++;
        }
        if (p->sect != SIZE_MAX && p->opt != SIZE_MAX && indent > p->indent) {
                drop_comment(p);
                if (!p->value_open)
                        return fail(p, line, "a continuation line of a key without '=' (tuned fails on it)");
                strbuf_append(&p->value, "\n");
                strbuf_appendn(&p->value, vs, (size_t)(ve - vs));
                return 0;
        }
        p->indent = indent;

        /* SECTCRE, \[(?P<header>.+)\], matched at the start: the name runs
         * to the last ']', and what follows that is ignored */
        if (*vs == '[') {
                const char *close = NULL;
                for (const char *q = ve - 1; q > vs + 1; q--)
                        if (*q == ']') {
                                close = q;
                                break;
                        }
                if (close) {
                        flush_value(p);
                        drop_comment(p);
                        p->sect = section_for(p, vs + 1, (size_t)(close - vs - 1), line);
                        p->opt = SIZE_MAX;
                        return 0;
                }
        }
        const char *eq = memchr(vs, '=', (size_t)(ve - vs));
        if (!eq && *vs == '[' && !headerless)
                return fail(p, line, memchr(vs, ']', (size_t)(ve - vs)) ? "a section header without a name"
                                                                        : "a section header without its ']'");
        if (p->sect == SIZE_MAX)
                return fail(p, line, "an option before any [section] header");
        if (!eq) {
                if (!headerless)
                        return fail(p, line, "neither a [section] header, an option (key = value) nor a comment");
                /* allow_no_value: a key without a value */
                flush_value(p);
                set_option(p, vs, (size_t)(ve - vs), NULL, 0, line);
                return 0;
        }
        const char *ks = vs, *ke = eq, *as = eq + 1, *ae = ve;
        strip(&ks, &ke);
        strip(&as, &ae);
        if (ks == ke)
                return fail(p, line, "an option without a key before its '='");
        flush_value(p);
        set_option(p, ks, (size_t)(ke - ks), as, (size_t)(ae - as), line);
        return 0;
}

/* Text Python would read: valid UTF-8 without NUL bytes. */
static int check_text(parser *p, const char *text, size_t len) {
        const unsigned char *s = (const unsigned char *)text, *end = s + len;
        unsigned line = 1;
        for (const unsigned char *q = s; q < end;) {
                uint32_t c;
                size_t n = utf8_decode(q, end, &c);
                if (!n)
                        return fail(p, line, "not valid UTF-8");
                if (c == 0)
                        return fail(p, line, "a NUL byte");
                if (c == '\n' || (c == '\r' && !(q + 1 < end && q[1] == '\n')))
                        line++;
                q += n;
        }
        return 0;
}

static ht_tuned_option copy_option(const ht_tuned_option *o) {
        return (ht_tuned_option){
                .key = xstrdup(o->key),
                .value = o->value ? xstrdup(o->value) : NULL,
                .line = o->line,
                .comment = o->comment ? xstrdup(o->comment) : NULL,
        };
}

static void option_done(ht_tuned_option *o) {
        free(o->key);
        free(o->value);
        free(o->comment);
}

static void section_done(ht_tuned_section *s) {
        for (size_t i = 0; i < s->n_options; i++)
                option_done(&s->options[i]);
        free(s->options);
        free(s->name);
}

/* [DEFAULT] out of the sections, its options appended to each section
 * lacking them (options() and get()'s ChainMap); then the keys without a
 * value left out. A bare key of a section still hides DEFAULT's. */
static void finish(parser *p) {
        ht_tuned_conf *c = p->conf;
        slot *d = table_find(&p->names, SIZE_MAX, "DEFAULT");
        ht_tuned_section def = {0};
        if (d) {
                def = c->sections[d->idx];
                memmove(&c->sections[d->idx], &c->sections[d->idx + 1],
                        (c->n_sections - d->idx - 1) * sizeof(*c->sections));
                c->n_sections--;
                for (size_t i = 0; i < c->n_sections; i++) {
                        ht_tuned_section *s = &c->sections[i];
                        size_t own = i < d->idx ? i : i + 1; /* its index in the table */
                        for (size_t j = 0; j < def.n_options; j++)
                                if (!table_find(&p->names, own, def.options[j].key)) {
                                        s->options = grow(s->options, s->n_options, sizeof(*s->options));
                                        s->options[s->n_options++] = copy_option(&def.options[j]);
                                }
                }
                section_done(&def);
        }
        for (size_t i = 0; i < c->n_sections; i++) {
                ht_tuned_section *s = &c->sections[i];
                size_t k = 0;
                for (size_t j = 0; j < s->n_options; j++)
                        if (s->options[j].value)
                                s->options[k++] = s->options[j];
                        else
                                option_done(&s->options[j]);
                s->n_options = k;
        }
}

int ht_tuned_conf_parse(const char *text, size_t len, const char *path, bool headerless,
                        ht_tuned_conf **ret, char **ret_error) {
        _cleanup_(ht_tuned_conf_freep) ht_tuned_conf *conf = xcalloc(1, sizeof(*conf));
        parser p = {.path = path ? path : "(text)", .conf = conf, .sect = SIZE_MAX, .opt = SIZE_MAX};
        int r = check_text(&p, text, len);
        if (r >= 0) {
                const char *s = text, *end = text + len;
                if (len >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0)
                        s += 3;
                if (headerless)
                        p.sect = section_for(&p, "", 0, 0);
                /* lines end in \n, \r\n or \r (universal newlines) */
                for (unsigned line = 1; s < end && r >= 0; line++) {
                        const char *e = s;
                        while (e < end && *e != '\n' && *e != '\r')
                                e++;
                        r = parse_line(&p, s, e, line, headerless);
                        s = e + (e < end && *e == '\r' && e + 1 < end && e[1] == '\n' ? 2 : e < end);
                }
        }
        if (r >= 0) {
                flush_value(&p);
                finish(&p);
        }
        free(p.names.slots);
        strbuf_done(&p.value);
        strbuf_done(&p.comment);
        if (r < 0) {
                if (ret_error)
                        *ret_error = TAKE_PTR(p.error);
                free(p.error);
                return r;
        }
        *ret = TAKE_PTR(conf);
        return 0;
}

void ht_tuned_conf_free(ht_tuned_conf *c) {
        if (!c)
                return;
        for (size_t i = 0; i < c->n_sections; i++)
                section_done(&c->sections[i]);
        free(c->sections);
        free(c);
}

const ht_tuned_section *ht_tuned_conf_section(const ht_tuned_conf *c, const char *name) {
        for (size_t i = 0; c && i < c->n_sections; i++)
                if (streq(c->sections[i].name, name))
                        return &c->sections[i];
        return NULL;
}

const ht_tuned_option *ht_tuned_section_option(const ht_tuned_section *s, const char *key) {
        for (size_t i = 0; s && i < s->n_options; i++)
                if (streq(s->options[i].key, key))
                        return &s->options[i];
        return NULL;
}
