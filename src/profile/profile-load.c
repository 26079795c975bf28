/* Loading profile and rule files: trust check, libconfig parsing, and the
 * translation of every section into unevaluated entries with their file
 * and line. Nothing here evaluates an expression. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libconfig.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>

#include "fileio.h"
#include "profile-builtin.h"
#include "profile-section.h"
#include "util.h"

static bool ident_char(char c) {
        return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '*';
}

/* What prescan saw on each line: libconfig drops comments, but a
 * setting's comment is where a shipped value cites its source
 * (hosttune.profile(5), SOURCES). */
typedef struct {
        const char *comment;  /* the text after '#' or '//', in the file's bytes */
        size_t len;
        bool code;            /* starts with something that is not a comment */
} line_info;

typedef struct {
        line_info *lines;     /* by line number; [0] unused */
        unsigned n, cap;
} comment_map;

static line_info *line_at(comment_map *m, unsigned line) {
        if (line >= m->cap) {
                unsigned cap = m->cap ? m->cap : 64;
                while (cap <= line)
                        cap *= 2;
                m->lines = xrealloc(m->lines, cap * sizeof(*m->lines));
                memset(m->lines + m->cap, 0, (cap - m->cap) * sizeof(*m->lines));
                m->cap = cap;
        }
        if (line > m->n)
                m->n = line;
        return &m->lines[line];
}

static void comment_map_done(comment_map *m) {
        free(m->lines);
        *m = (comment_map){0};
}

static void append_comment_line(strbuf *b, const line_info *li) {
        const char *s = li->comment, *e = li->comment + li->len;
        while (s < e && (*s == ' ' || *s == '\t'))
                s++;
        while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
                e--;
        if (s == e)
                return;
        if (b->len)
                strbuf_append(b, " ");
        /* one line of text: a tab is a space, other control bytes go */
        for (const char *p = s; p < e;) {
                size_t run = 0;
                while (p + run < e && (unsigned char)p[run] >= 0x20 && p[run] != 0x7f)
                        run++;
                strbuf_appendn(b, p, run);
                p += run;
                if (p < e) {
                        if (*p == '\t')
                                strbuf_append(b, " ");
                        p++;
                }
        }
}

/* The comment of whatever starts at line: the comment lines directly
 * above it (no blank line between), then a comment at the end of its own
 * line; joined into one line. NULL when there is none; else kept in
 * *owned, which the file struct frees. */
static const char *comment_for(const comment_map *m, unsigned line, char ***owned) {
        if (!m || line == 0 || line > m->n)
                return NULL;
        unsigned top = line;
        while (top > 1 && !m->lines[top - 1].code && m->lines[top - 1].comment)
                top--;
        strbuf b = {0};
        for (unsigned l = top; l < line; l++)
                append_comment_line(&b, &m->lines[l]);
        if (m->lines[line].code && m->lines[line].comment)
                append_comment_line(&b, &m->lines[line]);
        if (!b.len) {
                strbuf_done(&b);
                return NULL;
        }
        char *c = strbuf_steal(&b);
        strv_push_take(owned, c);
        return c;
}

/* libconfig 1.5 silently truncates an integer literal that does not fit
 * in 32 bits unless it carries an L suffix (shmmax = 4398046511104 would
 * become 0). Add the suffix where needed, refuse what does not fit in 64
 * bits, and refuse @include, which would read a file no trust check has
 * seen. Strings and comments are left alone; line numbers are kept. */
static int prescan(const char *path, const char *in, comment_map *cm, char **ret,
                   char **ret_error) {
        /* The output is the input without comments and indentation (less
         * for libconfig's scanner to read; newlines stay, so line numbers
         * do too) and with the L suffixes: runs between those changes
         * are copied whole. The comments go to cm, by line. */
        strbuf out = {0};
        strbuf_grow(&out, strlen(in) + 1);
        const char *copied = in;
        unsigned line = 1;
        bool line_start = true;
        const char *p = in;

        while (*p) {
                char c = *p;
                if (c == '\n') {
                        line++;
                        line_start = true;
                        p++;
                        continue;
                }
                if (c == ' ' || c == '\t' || c == '\r') {
                        if (line_start) {
                                strbuf_appendn(&out, copied, p - copied);
                                p += strspn(p, " \t\r");
                                copied = p;
                        } else
                                p++;
                        continue;
                }
                if (line_start && c == '@') {
                        strbuf_done(&out);
                        return ht_error(ret_error, -EINVAL, "%s:%u: @include is not supported: use inherit "
                                        "to build on another profile", path, line);
                }
                bool first = line_start;
                line_start = false;
                if (c == '#' || (c == '/' && p[1] == '/')) {
                        strbuf_appendn(&out, copied, p - copied);
                        line_info *li = line_at(cm, line);
                        li->comment = p + (c == '#' ? 1 : 2);
                        li->len = strcspn(li->comment, "\n");
                        p = li->comment + li->len;
                        copied = p;
                        continue;
                }
                if (first && !(c == '/' && p[1] == '*'))
                        line_at(cm, line)->code = true;
                if (c == '/' && p[1] == '*') {
                        const char *e = strstr(p + 2, "*/");
                        if (!e) {
                                strbuf_done(&out);
                                return ht_error(ret_error, -EINVAL, "%s:%u: unterminated comment", path, line);
                        }
                        size_t n = (size_t)(e + 2 - p);
                        strbuf_appendn(&out, copied, p - copied);
                        /* a space keeps the tokens either side apart */
                        strbuf_append(&out, " ");
                        for (size_t i = 0; i < n; i++)
                                if (p[i] == '\n') {
                                        line++;
                                        strbuf_append(&out, "\n");
                                }
                        p += n;
                        copied = p;
                        /* what follows it on its last line may still be
                         * the first token there */
                        if (first || memchr(p - n, '\n', n))
                                line_start = true;
                        continue;
                }
                if (c == '"') {
                        const char *s = p + 1;
                        unsigned start_line = line;
                        while (*s && *s != '"') {
                                if (*s == '\\' && s[1])
                                        s++;
                                if (*s == '\n')
                                        line++;
                                s++;
                        }
                        if (!*s) {
                                /* libconfig 1.5 leaks its string buffer on
                                 * this, and its message names the last line */
                                strbuf_done(&out);
                                return ht_error(ret_error, -EINVAL, "%s:%u: unterminated string", path, start_line);
                        }
                        p = s + 1;
                        continue;
                }
                if (isalpha((unsigned char)c) || c == '*') {
                        const char *s = p;
                        while (ident_char(*s))
                                s++;
                        p = s;
                        continue;
                }
                if (isdigit((unsigned char)c) ||
                    ((c == '-' || c == '+') && isdigit((unsigned char)p[1]))) {
                        const char *s = p;
                        bool neg = c == '-';
                        if (c == '-' || c == '+')
                                s++;
                        const char *digits = s;
                        bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
                        if (hex) {
                                s += 2;
                                digits = s;
                                while (isxdigit((unsigned char)*s))
                                        s++;
                        } else
                                while (isdigit((unsigned char)*s))
                                        s++;
                        if (!hex && (*s == '.' || *s == 'e' || *s == 'E')) {
                                /* A float: left for the type check to refuse. */
                                while (isalnum((unsigned char)*s) || *s == '.' ||
                                       ((*s == '-' || *s == '+') && (s[-1] == 'e' || s[-1] == 'E')))
                                        s++;
                                p = s;
                                continue;
                        }
                        bool has_l = *s == 'L';
                        uint64_t v = 0;
                        bool overflow = false;
                        for (const char *d = digits; d < s; d++) {
                                unsigned dv = isdigit((unsigned char)*d)
                                                      ? (unsigned)(*d - '0')
                                                      : (unsigned)(tolower((unsigned char)*d) - 'a' + 10);
                                unsigned base = hex ? 16 : 10;
                                if (v > (UINT64_MAX - dv) / base) {
                                        overflow = true;
                                        break;
                                }
                                v = v * base + dv;
                        }
                        if (overflow || (!neg && v > INT64_MAX) ||
                            (neg && v > (uint64_t)INT64_MAX + 1)) {
                                strbuf_done(&out);
                                return ht_error(ret_error, -ERANGE, "%s:%u: integer %.*s does not fit in 64 bits",
                                                path, line, (int)(s - p), p);
                        }
                        bool fits32 = neg ? v <= (uint64_t)INT32_MAX + 1 : v <= INT32_MAX;
                        if (!fits32 && !has_l) {
                                strbuf_appendn(&out, copied, s - copied);
                                strbuf_append(&out, "L");
                                copied = s;
                        }
                        p = s;
                        continue;
                }
                p++;
        }
        strbuf_append(&out, copied);
        *ret = strbuf_steal(&out);
        return 0;
}

/* Open, check and read one profile or rules file. */
static int read_checked(const char *path, char **ret_buf, size_t *ret_len, char **ret_error) {
        return ht_read_trusted_path(path, HT_PROFILE_MAX_SIZE, ret_buf, ret_len, ret_error);
}

static int parse_text(const char *path, const char *buf, struct config_t *cfg, comment_map *cm,
                      char **ret_error) {
        _cleanup_free_ char *text = NULL;
        int r = prescan(path, buf, cm, &text, ret_error);
        if (r < 0) {
                comment_map_done(cm);
                return r;
        }

        config_init(cfg);
        if (!config_read_string(cfg, text)) {
                *ret_error = xasprintf("%s:%d: %s", path, config_error_line(cfg),
                                       config_error_text(cfg));
                config_destroy(cfg);
                comment_map_done(cm);
                return -EINVAL;
        }
        return 0;
}

unsigned ht_cfg_line(const config_setting_t *s) {
        return config_setting_source_line(s);
}

const char *ht_cfg_type_name(int type) {
        switch (type) {
        case CONFIG_TYPE_GROUP: return "a group { }";
        case CONFIG_TYPE_LIST: return "a list ( )";
        case CONFIG_TYPE_ARRAY: return "an array [ ]";
        case CONFIG_TYPE_INT:
        case CONFIG_TYPE_INT64: return "an integer";
        case CONFIG_TYPE_FLOAT: return "a floating point number";
        case CONFIG_TYPE_STRING: return "a string";
        case CONFIG_TYPE_BOOL: return "a boolean";
        default: return "an unknown type";
        }
}

bool ht_cfg_is_scalar(const config_setting_t *s) {
        int t = config_setting_type(s);
        return t == CONFIG_TYPE_INT || t == CONFIG_TYPE_INT64 || t == CONFIG_TYPE_BOOL ||
               t == CONFIG_TYPE_STRING || t == CONFIG_TYPE_FLOAT;
}

/* A value as written: integers and booleans are literals, a string
 * starting with '=' an expression, a string with ${ a template. */
int ht_cfg_spec(const config_setting_t *s, const char *file, const char *what, ht_spec *ret,
                     char **ret_error) {
        switch (config_setting_type(s)) {
        case CONFIG_TYPE_INT:
        case CONFIG_TYPE_INT64:
                *ret = (ht_spec){.kind = HT_SPEC_LIT,
                                 .lit = ht_value_int(config_setting_get_int64(s))};
                return 0;
        case CONFIG_TYPE_BOOL:
                *ret = (ht_spec){.kind = HT_SPEC_LIT,
                                 .lit = ht_value_bool(config_setting_get_bool(s))};
                return 0;
        case CONFIG_TYPE_STRING: {
                const char *str = config_setting_get_string(s);
                if (has_control_chars(str))
                        return ht_error(ret_error, -EINVAL, "%s:%u: %s: control characters are not allowed in "
                                        "values", file, ht_cfg_line(s), what);
                if (str[0] == '=') {
                        _cleanup_free_ char *e = xstrdup(str + 1);
                        if (isempty(strstrip(e)))
                                return ht_error(ret_error, -EINVAL, "%s:%u: %s: empty expression after '='",
                                                file, ht_cfg_line(s), what);
                        *ret = (ht_spec){.kind = HT_SPEC_EXPR, .text = xstrdup(strstrip(e))};
                        return 0;
                }
                if (strstr(str, "${")) {
                        *ret = (ht_spec){.kind = HT_SPEC_TEMPLATE, .text = xstrdup(str)};
                        return 0;
                }
                *ret = (ht_spec){.kind = HT_SPEC_LIT, .lit = ht_value_str(str)};
                return 0;
        }
        case CONFIG_TYPE_FLOAT:
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: floating point numbers are not supported; "
                                "write an integer (sizes take K, M, G, T)",
                                file, ht_cfg_line(s), what);
        default:
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: expected a number, a string or a boolean, "
                                "not %s", file, ht_cfg_line(s), what,
                                ht_cfg_type_name(config_setting_type(s)));
        }
}

int ht_cfg_want_type(const config_setting_t *s, int type, const char *file, const char *what,
                     char **ret_error) {
        int t = config_setting_type(s);
        if (t == type || (type == CONFIG_TYPE_INT && t == CONFIG_TYPE_INT64))
                return 0;
        return ht_error(ret_error, -EINVAL, "%s:%u: %s: expected %s, not %s", file, ht_cfg_line(s), what,
                        ht_cfg_type_name(type), ht_cfg_type_name(t));
}

/* Every member of group g must be one of allowed. */
int ht_cfg_check_members(const config_setting_t *g, const char *const *allowed, const char *file,
                         const char *what, char **ret_error) {
        for (int i = 0; i < config_setting_length(g); i++) {
                const config_setting_t *m = config_setting_get_elem(g, i);
                const char *n = config_setting_name(m);
                if (strv_contains((char *const *)allowed, n))
                        continue;
                const char *close = closest_word(n, (char *const *)allowed);
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: unknown key '%s'%s%s%s", file, ht_cfg_line(m), what,
                                n, close ? " (did you mean '" : "", close ? close : "",
                                close ? "'?)" : "");
        }
        return 0;
}

int ht_cfg_want_group(const config_setting_t *g, const char *const *allowed, const char *file, const char *what,
                      char **ret_error) {
        int r = ht_cfg_want_type(g, CONFIG_TYPE_GROUP, file, what, ret_error);
        return r < 0 ? r : ht_cfg_check_members(g, allowed, file, what, ret_error);
}

int ht_cfg_get_bool(const config_setting_t *g, const char *name, const char *file, const char *what,
                    bool *ret, bool *ret_present, char **ret_error) {
        const config_setting_t *m = config_setting_get_member(g, name);
        if (ret_present)
                *ret_present = m != NULL;
        if (!m)
                return 0;
        _cleanup_free_ char *w = xasprintf("%s: %s", what, name);
        int r = ht_cfg_want_type(m, CONFIG_TYPE_BOOL, file, w, ret_error);
        if (r < 0)
                return r;
        *ret = config_setting_get_bool(m);
        return 0;
}

int ht_cfg_get_spec(const config_setting_t *g, const char *name, bool required, const char *file,
                    const char *what, ht_spec *ret, char **ret_error) {
        const config_setting_t *m = config_setting_get_member(g, name);
        if (!m) {
                if (!required)
                        return 0;
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: '%s' is missing", file, ht_cfg_line(g), what, name);
        }
        _cleanup_free_ char *w = xasprintf("%s: %s", what, name);
        return ht_cfg_spec(m, file, w, ret, ret_error);
}

ht_entry *ht_entry_push(ht_entry **l, size_t *n, ht_backend_id b, const char *file,
                            unsigned line) {
        *l = xrealloc(*l, (*n + 1) * sizeof(**l));
        ht_entry *e = &(*l)[(*n)++];
        *e = (ht_entry){.backend = b, .file = file, .line = line};
        return e;
}

/* bound = "exact" | "at-least" | "at-most" | "range" (sysctl, block,
 * limits). A literal value is checked here, so a malformed minimum fails
 * at load with its file and line; an expression is checked when
 * evaluated. */
int ht_cfg_get_bound(const config_setting_t *g, const char *file, const char *what, ht_entry *e,
                     char **ret_error) {
        const config_setting_t *m = config_setting_get_member(g, "bound");
        if (!m)
                return 0;
        _cleanup_free_ char *w = xasprintf("%s: bound", what);
        int r = ht_cfg_want_type(m, CONFIG_TYPE_STRING, file, w, ret_error);
        if (r < 0)
                return r;
        if (!(ht_backend_get(e->backend)->entry_flags & HT_ENTRY_BOUND)) {
                _cleanup_free_ char *which = ht_backends_with_flag(HT_ENTRY_BOUND, NULL);
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: only %s settings take a bound", file,
                                ht_cfg_line(m), w, which);
        }
        const char *name = config_setting_get_string(m);
        if (ht_bound_from_string(name, &e->bound) < 0)
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: '%s' is not a bound (exact, at-least, at-most, "
                                "range)", file, ht_cfg_line(m), w, name);
        e->has_bound = true;
        if (e->value.kind != HT_SPEC_LIT || e->bound == HT_BOUND_EXACT)
                return 0;
        _cleanup_free_ char *text = e->value.lit.type == HT_VAL_STR ? xstrdup(e->value.lit.str)
                                                                    : ht_value_format(&e->value.lit);
        _cleanup_free_ char *norm = NULL, *why = NULL;
        if (e->value.lit.type == HT_VAL_BOOL ||
            ht_bound_normalize(e->bound, text, &norm, &why) < 0) {
                return ht_error(ret_error, -EINVAL, "%s:%u: %s %s: '%s': %s", file, ht_cfg_line(m), what, name, text,
                                why ? why : "a bound's fields must be integers");
        }
        return 0;
}

int ht_cfg_get_when(const config_setting_t *g, const char *file, const char *what, char **ret,
                    char **ret_error) {
        const config_setting_t *m = config_setting_get_member(g, "when");
        if (!m)
                return 0;
        _cleanup_free_ char *w = xasprintf("%s: when", what);
        int r = ht_cfg_want_type(m, CONFIG_TYPE_STRING, file, w, ret_error);
        if (r < 0)
                return r;
        const char *text = config_setting_get_string(m);
        /* the expression itself, as a rule's when: no '=' in front */
        _cleanup_free_ char *t = xstrdup(text);
        if (isempty(strstrip(t)) || has_control_chars(text))
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: expected an expression (a condition over facts and "
                                "parameters), not %s", file, ht_cfg_line(m), w,
                                isempty(t) ? "an empty string" : "control characters");
        free(*ret);
        *ret = TAKE_PTR(t);
        return 0;
}

static const char *const value_group_keys[] = {"value", "optional", "bound", "when", NULL};

/* A leaf value: a scalar, or { value = ...; optional = true; bound = ...; when = ...; }. */
int ht_cfg_leaf_value(const config_setting_t *m, const char *file, const char *what, ht_entry *e,
                      char **ret_error) {
        if (config_setting_type(m) == CONFIG_TYPE_GROUP) {
                int r = ht_cfg_check_members(m, value_group_keys, file, what, ret_error);
                if (r < 0)
                        return r;
                r = ht_cfg_get_when(m, file, what, &e->when, ret_error);
                if (r < 0)
                        return r;
                r = ht_cfg_get_bool(m, "optional", file, what, &e->optional, &e->has_optional, ret_error);
                if (r < 0)
                        return r;
                r = ht_cfg_get_spec(m, "value", true, file, what, &e->value, ret_error);
                if (r < 0)
                        return r;
                return ht_cfg_get_bound(m, file, what, e, ret_error);
        }
        return ht_cfg_spec(m, file, what, &e->value, ret_error);
}

/* sysctl and sysfs as nested groups: names joined with '.' (sysctl) or
 * '/' (sysfs). A group with a "value" member is a leaf. */
static int parse_tree(ht_pfile *p, const config_setting_t *g, ht_backend_id b, char sep,
                      const char *prefix, char **ret_error) {
        for (int i = 0; i < config_setting_length(g); i++) {
                const config_setting_t *m = config_setting_get_elem(g, i);
                _cleanup_free_ char *key = prefix ? xasprintf("%s%c%s", prefix, sep,
                                                              config_setting_name(m))
                                                  : xstrdup(config_setting_name(m));
                _cleanup_free_ char *what = xasprintf("%s %s", ht_backend_id_to_string(b), key);
                int t = config_setting_type(m);
                if (t == CONFIG_TYPE_GROUP && !config_setting_get_member(m, "value")) {
                        int r = parse_tree(p, m, b, sep, key, ret_error);
                        if (r < 0)
                                return r;
                        continue;
                }
                if (t != CONFIG_TYPE_GROUP && !ht_cfg_is_scalar(m))
                        return ht_error(ret_error, -EINVAL, "%s:%u: %s: expected a value or a group, not %s",
                                        p->path, ht_cfg_line(m), what, ht_cfg_type_name(t));
                ht_entry *e = ht_entry_push(&p->entries, &p->n_entries, b, p->path, ht_cfg_line(m));
                e->key = (ht_spec){.kind = HT_SPEC_LIT, .lit = ht_value_str(key)};
                int r = ht_cfg_leaf_value(m, p->path, what, e, ret_error);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* sysctl and sysfs as a list of { key|path = ...; value = ...; optional = ...; }
 * for keys that are not libconfig names. */
static int parse_key_list(ht_pfile *p, const config_setting_t *l, ht_backend_id b,
                          const char *const *allowed, char **ret_error) {
        for (int i = 0; i < config_setting_length(l); i++) {
                const config_setting_t *m = config_setting_get_elem(l, i);
                _cleanup_free_ char *what = xasprintf("%s entry %d", ht_backend_id_to_string(b), i + 1);
                int r = ht_cfg_want_group(m, allowed, p->path, what, ret_error);
                if (r < 0)
                        return r;
                ht_entry *e = ht_entry_push(&p->entries, &p->n_entries, b, p->path, ht_cfg_line(m));
                r = ht_cfg_get_spec(m, allowed[0], true, p->path, what, &e->key, ret_error);
                if (r >= 0)
                        r = ht_cfg_get_spec(m, "value", true, p->path, what, &e->value, ret_error);
                if (r >= 0)
                        r = ht_cfg_get_bool(m, "optional", p->path, what, &e->optional, &e->has_optional,
                                     ret_error);
                if (r >= 0)
                        r = ht_cfg_get_bound(m, p->path, what, e, ret_error);
                if (r >= 0)
                        r = ht_cfg_get_when(m, p->path, what, &e->when, ret_error);
                if (r < 0)
                        return r;
        }
        return 0;
}

int ht_cfg_keyed_section(ht_pfile *p, const config_setting_t *s, ht_backend_id b, char sep,
                         const char *root, const char *const *list_keys, char **ret_error) {
        int t = config_setting_type(s);
        if (t == CONFIG_TYPE_GROUP)
                return parse_tree(p, s, b, sep, root, ret_error);
        if (t == CONFIG_TYPE_LIST)
                return parse_key_list(p, s, b, list_keys, ret_error);
        return ht_error(ret_error, -EINVAL, "%s:%u: %s: expected a group { } or a list ( ), not %s", p->path,
                        ht_cfg_line(s), ht_backend_id_to_string(b), ht_cfg_type_name(t));
}

static int parse_params(const config_setting_t *s, const char *file, ht_param_decl **params,
                        size_t *n_params, char **ret_error) {
        int r = ht_cfg_want_type(s, CONFIG_TYPE_GROUP, file, "params", ret_error);
        if (r < 0)
                return r;
        for (int i = 0; i < config_setting_length(s); i++) {
                const config_setting_t *m = config_setting_get_elem(s, i);
                _cleanup_free_ char *what = xasprintf("params %s", config_setting_name(m));
                ht_spec sp = {0};
                r = ht_cfg_spec(m, file, what, &sp, ret_error);
                if (r < 0)
                        return r;
                *params = xrealloc(*params, (*n_params + 1) * sizeof(**params));
                (*params)[(*n_params)++] = (ht_param_decl){
                        .name = xstrdup(config_setting_name(m)),
                        .spec = sp,
                        .file = file,
                        .line = ht_cfg_line(m),
                };
        }
        return 0;
}

static int parse_inherit(ht_pfile *p, const config_setting_t *s, char **ret_error) {
        int t = config_setting_type(s);
        p->inherit_line = ht_cfg_line(s);
        if (t == CONFIG_TYPE_STRING) {
                strv_push(&p->parents, config_setting_get_string(s));
        } else if (t == CONFIG_TYPE_ARRAY || t == CONFIG_TYPE_LIST) {
                for (int i = 0; i < config_setting_length(s); i++) {
                        const config_setting_t *m = config_setting_get_elem(s, i);
                        int r = ht_cfg_want_type(m, CONFIG_TYPE_STRING, p->path, "inherit", ret_error);
                        if (r < 0)
                                return r;
                        strv_push(&p->parents, config_setting_get_string(m));
                }
        } else {
                return ht_error(ret_error, -EINVAL, "%s:%u: inherit: expected a profile name or an array of "
                                "names, not %s", p->path, ht_cfg_line(s), ht_cfg_type_name(t));
        }
        for (size_t i = 0; p->parents && p->parents[i]; i++)
                if (!ht_profile_name_valid(p->parents[i]))
                        return ht_error(ret_error, -EINVAL, "%s:%u: inherit: '%s' is not a valid profile name",
                                        p->path, p->inherit_line, p->parents[i]);
        return 0;
}

/* A profile's own keys, then every backend's section. */
static char **profile_sections(void) {
        char **l = NULL;
        strv_push(&l, "summary");
        strv_push(&l, "inherit");
        strv_push(&l, "params");
        for (int i = 0; i < _HT_BK_MAX; i++)
                if (ht_backend_get(i)->parse_section)
                        strv_push(&l, ht_backend_section_name(i));
        return l;
}

static const ht_backend *section_backend(const char *name) {
        for (int i = 0; i < _HT_BK_MAX; i++)
                if (ht_backend_get(i)->parse_section && streq(name, ht_backend_section_name(i)))
                        return ht_backend_get(i);
        return NULL;
}

int ht_pfile_load(const char *path, const char *name, ht_pfile **ret, char **ret_error) {
        _cleanup_free_ char *buf = NULL;
        size_t len;
        int r = read_checked(path, &buf, &len, ret_error);
        if (r < 0)
                return r;
        if ((*ret = ht_builtin_pfile(path, name, buf, len)))
                return 0;
        return ht_pfile_parse(path, name, buf, ret, ret_error);
}

int ht_pfile_parse(const char *path, const char *name, const char *buf, ht_pfile **ret, char **ret_error) {
        int r;
        config_t cfg;
        comment_map cm = {0};
        r = parse_text(path, buf, &cfg, &cm, ret_error);
        if (r < 0)
                return r;

        ht_pfile *p = xcalloc(1, sizeof(*p));
        p->name = xstrdup(name);
        p->path = xstrdup(path);
        const config_setting_t *root = config_root_setting(&cfg);
        _cleanup_strv_free_ char **sections = profile_sections();
        r = ht_cfg_check_members(root, (const char *const *)sections, path, "profile", ret_error);
        for (int i = 0; r >= 0 && i < config_setting_length(root); i++) {
                const config_setting_t *s = config_setting_get_elem(root, i);
                const char *n = config_setting_name(s);
                if (streq(n, "summary")) {
                        r = ht_cfg_want_type(s, CONFIG_TYPE_STRING, path, "summary", ret_error);
                        if (r >= 0)
                                p->summary = xstrdup(config_setting_get_string(s));
                } else if (streq(n, "inherit"))
                        r = parse_inherit(p, s, ret_error);
                else if (streq(n, "params"))
                        r = parse_params(s, p->path, &p->params, &p->n_params, ret_error);
                else
                        r = section_backend(n)->parse_section(p, s, ret_error);
        }
        config_destroy(&cfg);
        for (size_t i = 0; r >= 0 && i < p->n_params; i++)
                p->params[i].comment = comment_for(&cm, p->params[i].line, &p->comments);
        for (size_t i = 0; r >= 0 && i < p->n_entries; i++)
                p->entries[i].comment = comment_for(&cm, p->entries[i].line, &p->comments);
        comment_map_done(&cm);
        if (r < 0) {
                ht_pfile_free(p);
                return r;
        }
        *ret = p;
        return 0;
}

/* A `set` or `skip` of a rule: backend plus the key fields. */
static int parse_rule_entry(ht_rfile *f, ht_rule *rule, const config_setting_t *g, bool skip,
                            char **ret_error) {
        static const char *const flag_keys[] = {
                "value", "optional", "required", "remove", "boot_only", "at_least", "bound", NULL,
        };
        /* backend, every backend's key fields (rule_fields), and for a set
         * the value and flags: a new backend's fields need no line here */
        _cleanup_strv_free_ char **allowed = NULL;
        strv_push(&allowed, "backend");
        for (int i = 0; i < _HT_BK_MAX; i++)
                for (const ht_backend_field *fl = ht_backend_get(i)->rule_fields; fl && fl->name; fl++) {
                        if (!strv_contains(allowed, fl->name))
                                strv_push(&allowed, fl->name);
                        if (fl->alias && !strv_contains(allowed, fl->alias))
                                strv_push(&allowed, fl->alias);
                }
        for (size_t i = 0; !skip && flag_keys[i]; i++)
                strv_push(&allowed, flag_keys[i]);
        _cleanup_free_ char *what = xasprintf("rule %s: %s", rule->name, skip ? "skip" : "set");
        int r = ht_cfg_want_group(g, (const char *const *)allowed, f->path, what, ret_error);
        if (r < 0)
                return r;
        /* the backends a rule may name: all but the internal ones */
        _cleanup_strv_free_ char **names = NULL;
        for (int i = 0; i < _HT_BK_MAX; i++)
                if (!ht_backend_get(i)->internal)
                        strv_push(&names, ht_backend_get(i)->name);
        const config_setting_t *bs = config_setting_get_member(g, "backend");
        if (!bs || config_setting_type(bs) != CONFIG_TYPE_STRING) {
                _cleanup_free_ char *list = strv_join(names, ", ");
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: 'backend' must be a string (%s)", f->path,
                                ht_cfg_line(g), what, list);
        }
        ht_backend_id b;
        const char *bname = config_setting_get_string(bs);
        if (ht_backend_from_string(bname, &b) < 0 || ht_backend_get(b)->internal) {
                const char *close = closest_word(bname, names);
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: unknown backend '%s'%s%s%s", f->path,
                                ht_cfg_line(bs), what, bname, close ? " (did you mean '" : "",
                                close ? close : "", close ? "'?)" : "");
        }
        ht_entry **l = skip ? &rule->skips : &rule->sets;
        size_t *n = skip ? &rule->n_skips : &rule->n_sets;
        ht_entry *e = ht_entry_push(l, n, b, f->path, ht_cfg_line(g));
        const ht_backend *bk = ht_backend_get(b);
        for (const ht_backend_field *fl = bk->rule_fields; r >= 0 && fl && fl->name; fl++) {
                /* sysfs: "path", or "key" as the other backends call it */
                const char *name = fl->alias && !config_setting_get_member(g, fl->name) ? fl->alias
                                                                                        : fl->name;
                r = ht_cfg_get_spec(g, name, !fl->optional, f->path, what,
                                    (ht_spec *)((char *)e + fl->offset), ret_error);
        }
        if (r < 0 || skip)
                return r;
        r = ht_cfg_get_spec(g, "value", false, f->path, what, &e->value, ret_error);
        if (r >= 0)
                r = ht_cfg_get_bool(g, "optional", f->path, what, &e->optional, &e->has_optional,
                             ret_error);
        if (r >= 0)
                r = ht_cfg_get_bool(g, "required", f->path, what, &e->required, NULL, ret_error);
        if (r >= 0)
                r = ht_cfg_get_bool(g, "remove", f->path, what, &e->remove, NULL, ret_error);
        if (r >= 0)
                r = ht_cfg_get_bool(g, "boot_only", f->path, what, &e->boot_only, &e->has_boot_only,
                             ret_error);
        if (r >= 0)
                r = ht_cfg_get_bool(g, "at_least", f->path, what, &e->at_least, NULL, ret_error);
        if (r >= 0)
                r = ht_cfg_get_bound(g, f->path, what, e, ret_error);
        if (r < 0)
                return r;
        if (e->value.kind == HT_SPEC_NONE && !e->remove && !e->has_optional && !e->has_boot_only &&
            !e->has_bound && !e->required) {
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: needs a 'value' (or only flags: optional, "
                                "required, boot_only, bound)", f->path, ht_cfg_line(g), what);
        }
        if (e->required && !(bk->entry_flags & HT_ENTRY_REQUIRED)) {
                size_t nb;
                _cleanup_free_ char *which = ht_backends_with_flag(HT_ENTRY_REQUIRED, &nb);
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: 'required' is only for the %s backend%s "
                                "(other settings are required unless optional)",
                                f->path, ht_cfg_line(g), what, which, nb == 1 ? "" : "s");
        }
        if (e->required && e->optional)
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: 'optional' and 'required' contradict each other; "
                                "give one", f->path, ht_cfg_line(g), what);
        if (e->remove && !(bk->entry_flags & HT_ENTRY_REMOVE)) {
                size_t nb;
                _cleanup_free_ char *which = ht_backends_with_flag(HT_ENTRY_REMOVE, &nb);
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: 'remove' is only for the %s backend%s", f->path,
                                ht_cfg_line(g), what, which, nb == 1 ? "" : "s");
        }
        if (e->remove && e->value.kind == HT_SPEC_NONE)
                e->value = (ht_spec){.kind = HT_SPEC_LIT, .lit = ht_value_str("")};
        return 0;
}

static int parse_rule_entries(ht_rfile *f, ht_rule *rule, const config_setting_t *s, bool skip,
                              char **ret_error) {
        if (config_setting_type(s) == CONFIG_TYPE_LIST) {
                for (int i = 0; i < config_setting_length(s); i++) {
                        int r = parse_rule_entry(f, rule, config_setting_get_elem(s, i), skip,
                                                 ret_error);
                        if (r < 0)
                                return r;
                }
                return 0;
        }
        return parse_rule_entry(f, rule, s, skip, ret_error);
}

/* A set's comment is its own, else the rule's: above the rule, above its
 * name, or its description. */
static void rule_comments(ht_rfile *f, ht_rule *rule, const config_setting_t *g,
                          const comment_map *cm) {
        const char *rc = NULL;
        bool looked = false;
        for (size_t i = 0; i < rule->n_sets; i++) {
                ht_entry *e = &rule->sets[i];
                if ((e->comment = comment_for(cm, e->line, &f->comments)))
                        continue;
                if (!looked) {
                        looked = true;
                        const config_setting_t *n = config_setting_get_member(g, "name");
                        const config_setting_t *d = config_setting_get_member(g, "description");
                        rc = comment_for(cm, rule->line, &f->comments);
                        if (!rc && n && ht_cfg_line(n) != rule->line)
                                rc = comment_for(cm, ht_cfg_line(n), &f->comments);
                        if (!rc && d && config_setting_type(d) == CONFIG_TYPE_STRING &&
                            !isempty(config_setting_get_string(d))) {
                                strv_push(&f->comments, config_setting_get_string(d));
                                rc = f->comments[strv_length(f->comments) - 1];
                        }
                }
                e->comment = rc;
        }
}

static int parse_rule(ht_rfile *f, const config_setting_t *g, int index, const comment_map *cm,
                      char **ret_error) {
        static const char *const keys[] = {
                "name", "description", "when", "set", "skip", "warn", "error", "fix",
                "bootloader_default", NULL,
        };
        _cleanup_free_ char *what = xasprintf("rule %d", index + 1);
        int r = ht_cfg_want_group(g, keys, f->path, what, ret_error);
        if (r < 0)
                return r;
        const config_setting_t *n = config_setting_get_member(g, "name");
        if (!n || config_setting_type(n) != CONFIG_TYPE_STRING ||
            !ht_profile_name_valid(config_setting_get_string(n))) {
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: needs a 'name' (letters, digits, '-', '_')",
                                f->path, ht_cfg_line(g), what);
        }
        for (size_t i = 0; i < f->n_rules; i++)
                if (streq(f->rules[i].name, config_setting_get_string(n)))
                        return ht_error(ret_error, -EINVAL, "%s:%u: rule '%s' is defined twice (also at line %u)",
                                        f->path, ht_cfg_line(g), f->rules[i].name,
                                        f->rules[i].line);
        f->rules = xrealloc(f->rules, (f->n_rules + 1) * sizeof(*f->rules));
        ht_rule *rule = &f->rules[f->n_rules++];
        *rule = (ht_rule){.name = xstrdup(config_setting_get_string(n)), .file = f->path,
                          .line = ht_cfg_line(g)};
        free(what);
        what = xasprintf("rule %s", rule->name);

        const config_setting_t *s = config_setting_get_member(g, "when");
        if (s) {
                _cleanup_free_ char *w = xasprintf("%s: when", what);
                r = ht_cfg_want_type(s, CONFIG_TYPE_STRING, f->path, w, ret_error);
                if (r < 0)
                        return r;
                /* when is always an expression; a leading '=' is allowed. */
                const char *t = config_setting_get_string(s);
                rule->when = xstrdup(t[0] == '=' ? t + 1 : t);
                if (isempty(strstrip(rule->when)))
                        return ht_error(ret_error, -EINVAL, "%s:%u: %s: empty condition", f->path, ht_cfg_line(s), w);
        }
        const struct {
                const char *name;
                ht_spec *spec;
        } strings[] = {
                {"warn", &rule->warn},
                {"error", &rule->error},
                {"fix", &rule->fix},
                {"bootloader_default", &rule->bootloader_default},
        };
        for (size_t i = 0; i < ELEMENTSOF(strings); i++) {
                s = config_setting_get_member(g, strings[i].name);
                if (!s)
                        continue;
                _cleanup_free_ char *w = xasprintf("%s: %s", what, strings[i].name);
                r = ht_cfg_want_type(s, CONFIG_TYPE_STRING, f->path, w, ret_error);
                if (r >= 0)
                        r = ht_cfg_spec(s, f->path, w, strings[i].spec, ret_error);
                if (r < 0)
                        return r;
        }
        s = config_setting_get_member(g, "description");
        if (s) {
                _cleanup_free_ char *w = xasprintf("%s: description", what);
                r = ht_cfg_want_type(s, CONFIG_TYPE_STRING, f->path, w, ret_error);
                if (r < 0)
                        return r;
        }
        s = config_setting_get_member(g, "set");
        if (s && (r = parse_rule_entries(f, rule, s, false, ret_error)) < 0)
                return r;
        rule_comments(f, rule, g, cm);
        s = config_setting_get_member(g, "skip");
        if (s && (r = parse_rule_entries(f, rule, s, true, ret_error)) < 0)
                return r;
        if (rule->fix.kind != HT_SPEC_NONE && rule->error.kind == HT_SPEC_NONE)
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: 'fix' goes with 'error'", f->path, ht_cfg_line(g),
                                what);
        if (!rule->n_sets && !rule->n_skips && rule->warn.kind == HT_SPEC_NONE &&
            rule->error.kind == HT_SPEC_NONE && rule->bootloader_default.kind == HT_SPEC_NONE) {
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: has no action (set, skip, warn, error, "
                                "bootloader_default)", f->path, ht_cfg_line(g), what);
        }
        return 0;
}

static int rfile_parse(const char *path, const char *buf, size_t len, ht_rfile **ret, char **ret_error);

int ht_rfile_load(const char *path, ht_rfile **ret, char **ret_error) {
        _cleanup_free_ char *buf = NULL;
        size_t len;
        int r = read_checked(path, &buf, &len, ret_error);
        if (r < 0)
                return r;
        return rfile_parse(path, buf, len, ret, ret_error);
}

int ht_rfile_load_builtin(const struct ht_builtin_file *b, ht_rfile **ret, char **ret_error) {
        _cleanup_free_ char *path = xasprintf(HT_BUILTIN_RULES_DIR "/%s", b->name);
        _cleanup_free_ char *buf = xstrndup((const char *)b->text, b->text_len);
        return rfile_parse(path, buf, b->text_len, ret, ret_error);
}

/* buf is NUL-terminated (len bytes before it). */
static int rfile_parse(const char *path, const char *buf, size_t len, ht_rfile **ret, char **ret_error) {
        static const char *const sections[] = {"params", "rules", NULL};
        int r;
        if ((*ret = ht_builtin_rfile(path, buf, len)))
                return 0;
        config_t cfg;
        comment_map cm = {0};
        r = parse_text(path, buf, &cfg, &cm, ret_error);
        if (r < 0)
                return r;
        ht_rfile *f = xcalloc(1, sizeof(*f));
        f->path = xstrdup(path);
        const config_setting_t *root = config_root_setting(&cfg);
        r = ht_cfg_check_members(root, sections, path, "rules file", ret_error);
        const config_setting_t *s = config_setting_get_member(root, "params");
        if (r >= 0 && s)
                r = parse_params(s, f->path, &f->params, &f->n_params, ret_error);
        s = config_setting_get_member(root, "rules");
        if (r >= 0 && s) {
                r = ht_cfg_want_type(s, CONFIG_TYPE_LIST, path, "rules", ret_error);
                for (int i = 0; r >= 0 && i < config_setting_length(s); i++)
                        r = parse_rule(f, config_setting_get_elem(s, i), i, &cm, ret_error);
        }
        config_destroy(&cfg);
        for (size_t i = 0; r >= 0 && i < f->n_params; i++)
                f->params[i].comment = comment_for(&cm, f->params[i].line, &f->comments);
        comment_map_done(&cm);
        if (r < 0) {
                ht_rfile_free(f);
                return r;
        }
        *ret = f;
        return 0;
}

int ht_search_path_list(char *const *dirs, const char *suffix, char ***ret_paths,
                        char ***ret_names, char **ret_error) {
        return ht_search_path_list_counted(dirs, suffix, ret_paths, ret_names, NULL, ret_error);
}

int ht_search_path_list_counted(char *const *dirs, const char *suffix, char ***ret_paths,
                                char ***ret_names, size_t **ret_found, char **ret_error) {
        _cleanup_strv_free_ char **names = NULL;
        _cleanup_strv_free_ char **paths = NULL;
        _cleanup_free_ size_t *counts = xcalloc(strv_length((char **)dirs) + 1, sizeof(*counts));
        /* getdents64 on the fd: opendir would fstat it for a buffer size */
        _Alignas(struct dirent64) char buf[8192];
        for (size_t i = 0; dirs && dirs[i]; i++) {
                int d = open(dirs[i], O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
                if (d < 0) {
                        int r = -errno;
                        if (r == -ENOENT || r == -ENOTDIR)
                                counts[i] = r == -ENOENT ? HT_SEARCH_DIR_MISSING : HT_SEARCH_DIR_NOT_DIR;
                        if (r == -ENOENT || r == -ENOTDIR)
                                continue;
                        if (ret_error)
                                *ret_error = xasprintf("cannot read %s directory %s: %s",
                                                       suffix[0] == '.' ? suffix + 1 : suffix, dirs[i],
                                                       ht_strerror(-r));
                        return r;
                }
                _cleanup_strv_free_ char **found = NULL;
                ssize_t got;
                /* an error reading it ends the list, as readdir's did */
                while ((got = getdents64(d, buf, sizeof buf)) > 0)
                        for (ssize_t off = 0; off < got;) {
                                const struct dirent64 *de = (const struct dirent64 *)(buf + off);
                                off += de->d_reclen;
                                if (de->d_name[0] == '.' || !endswith(de->d_name, suffix))
                                        continue;
                                strv_push(&found, de->d_name);
                        }
                if (found)
                        ht_trusted_dir_offer(dirs[i], d); /* its files are read next */
                else
                        close(d);
                if (found)
                        qsort(found, strv_length(found), sizeof(char *), strv_sort_cmp);
                for (size_t j = 0; found && found[j]; j++) {
                        _cleanup_free_ char *n = xstrndup(found[j], strlen(found[j]) - strlen(suffix));
                        if (!ht_profile_name_valid(n))
                                continue;
                        counts[i]++;
                        /* An earlier directory shadows a later one. */
                        if (strv_contains(names, n))
                                continue;
                        strv_push(&names, n);
                        strv_push_take(&paths, xasprintf("%s/%s", dirs[i], found[j]));
                }
        }
        /* Sort both lists together by name. */
        size_t n = strv_length(names);
        strv_sort_parallel(names, n, (void *const[]){paths, NULL}, (const size_t[]){sizeof(*paths)});
        if (ret_paths)
                *ret_paths = TAKE_PTR(paths);
        if (ret_names)
                *ret_names = TAKE_PTR(names);
        if (ret_found)
                *ret_found = TAKE_PTR(counts);
        return 0;
}
