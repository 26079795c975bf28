/* BLS entries and grubenv: the one parser of each (format-bls.h). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "format-bls.h"
#include "util.h"

static bool is_blank(char c) {
        return c == ' ' || c == '\t' || c == '\r';
}

static void add_problem(ht_format_problem **l, size_t *n, unsigned line, const char *message) {
        ht_format_problem_add(l, n, 0, line, xstrdup(message), NULL);
}

void ht_bls_entry_free(ht_bls_entry *e) {
        if (!e)
                return;
        for (size_t i = 0; i < e->n_lines; i++) {
                free(e->lines[i].key);
                free(e->lines[i].value);
        }
        free(e->lines);
        ht_format_problems_free(e->problems, e->n_problems);
        free(e);
}

ht_bls_entry *ht_bls_parse_entry(const char *content, size_t len) {
        ht_bls_entry *e = xcalloc(1, sizeof(*e));
        size_t pos = 0;
        unsigned line = 0;

        while (pos < len) {
                const char *nl = memchr(content + pos, '\n', len - pos);
                size_t end = nl ? (size_t)(nl - content) : len;
                size_t next = nl ? end + 1 : len;
                line++;
                const char *junk = NULL;
                for (size_t i = pos; i < end && !junk; i++) {
                        unsigned char c = content[i];
                        if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f)
                                junk = c ? "control character" : "NUL byte";
                }
                if (!junk) {
                        _cleanup_free_ char *t = xstrndup(content + pos, end - pos);
                        if (!ht_valid_utf8(t))
                                junk = "text that is not UTF-8";
                }
                if (junk) {
                        add_problem(&e->problems, &e->n_problems, line, junk);
                        pos = next;
                        continue;
                }
                size_t k = pos;
                while (k < end && is_blank(content[k]))
                        k++;
                if (k < end && content[k] != '#') {
                        size_t ks = k;
                        while (k < end && !is_blank(content[k]))
                                k++;
                        bool key_ok = true;
                        for (size_t i = ks; i < k; i++)
                                key_ok = key_ok && (isalnum((unsigned char)content[i]) || strchr("_-.", content[i]));
                        if (!key_ok) {
                                add_problem(&e->problems, &e->n_problems, line, "invalid key");
                                pos = next;
                                continue;
                        }
                        size_t vs = k, ve = end;
                        while (vs < ve && is_blank(content[vs]))
                                vs++;
                        while (ve > vs && is_blank(content[ve - 1]))
                                ve--;
                        e->lines = xrealloc(e->lines, (e->n_lines + 1) * sizeof(ht_bls_line));
                        e->lines[e->n_lines++] = (ht_bls_line){
                                .key = xstrndup(content + ks, k - ks),
                                .value = xstrndup(content + vs, ve - vs),
                                .line = line,
                                .value_start = vs,
                                .value_end = ve,
                        };
                }
                pos = next;
        }
        return e;
}

int ht_bls_parse(const char *content, size_t len, ht_bls_entry **ret, char **ret_error) {
        ht_bls_entry *e = ht_bls_parse_entry(content, len);
        if (e->n_problems) {
                *ret_error = xasprintf("%u: %s", e->problems[0].line, e->problems[0].message);
                ht_bls_entry_free(e);
                return -EINVAL;
        }
        *ret = e;
        return 0;
}

const char *ht_bls_get(const ht_bls_entry *e, const char *key) {
        for (size_t i = 0; e && i < e->n_lines; i++)
                if (streq(e->lines[i].key, key))
                        return e->lines[i].value;
        return NULL;
}

char *ht_bls_options(const ht_bls_entry *e) {
        _cleanup_strv_free_ char **l = NULL;
        for (size_t i = 0; e && i < e->n_lines; i++)
                if (streq(e->lines[i].key, "options"))
                        strv_push(&l, e->lines[i].value);
        return l ? strv_join(l, " ") : NULL;
}

bool ht_bls_uses_kernelopts(const char *options) {
        for (const char *p = options ? strchr(options, '$') : NULL; p; p = strchr(p + 1, '$')) {
                const char *n = p + 1 + (p[1] == '{');
                if (startswith(n, "kernelopts") && !(isalnum((unsigned char)n[10]) || n[10] == '_') &&
                    (p[1] != '{' || n[10] == '}'))
                        return true;
        }
        return false;
}

void ht_grubenv_free(ht_grubenv *e) {
        if (!e)
                return;
        for (size_t i = 0; i < e->n; i++) {
                free(e->vars[i].name);
                free(e->vars[i].value);
        }
        free(e->vars);
        ht_format_problems_free(e->problems, e->n_problems);
        free(e);
}

static void env_problem(ht_grubenv *e, ht_grubenv_problem_kind kind, unsigned line) {
        ht_format_problem_add(&e->problems, &e->n_problems, kind, line, NULL, NULL);
}

ht_grubenv *ht_grubenv_parse_block(const char *content, size_t len) {
        ht_grubenv *e = xcalloc(1, sizeof(*e));
        e->size = len;
        size_t hl = strlen(HT_GRUBENV_HEADER);
        if (len < hl || memcmp(content, HT_GRUBENV_HEADER, hl) != 0) {
                env_problem(e, HT_GRUBENV_NO_HEADER, 1);
                return e;
        }
        /* GRUB writes none; one kept would end the edited text early for
         * every caller using strlen() */
        const char *nul = memchr(content, 0, len);
        size_t stop = nul ? (size_t)(nul - content) : len;
        size_t pos = hl;
        unsigned line = 1;
        e->data_end = hl;
        while (pos < stop) {
                line++;
                size_t start = pos;
                if (content[start] == '#') {
                        /* padding, or a comment */
                        const char *nl = memchr(content + pos, '\n', stop - pos);
                        pos = nl ? (size_t)(nl - content) + 1 : stop;
                        continue;
                }
                /* a value's '\' escapes the next byte, a newline too
                 * (grub_envblk_set writes "\\\n" for one) */
                size_t end = start;
                while (end < stop && content[end] != '\n')
                        end += content[end] == '\\' ? 2 : 1;
                if (end >= stop) {
                        env_problem(e, HT_GRUBENV_TRUNCATED, line);
                        break;
                }
                pos = end + 1;
                const char *eq = memchr(content + start, '=', end - start);
                bool bad = !eq || eq == content + start;
                for (size_t i = start; i < end && !bad; i++)
                        bad = ((unsigned char)content[i] < 0x20 && content[i] != '\t' &&
                               !(content[i] == '\n' && i > start && content[i - 1] == '\\')) ||
                              content[i] == 0x7f;
                for (size_t i = start; i < end; i++)
                        line += content[i] == '\n';
                if (bad) {
                        env_problem(e, HT_GRUBENV_BAD_LINE, line);
                        continue;
                }
                strbuf v = {0};
                strbuf_append(&v, "");
                bool escaped = false;
                for (const char *q = eq + 1; q < content + end; q++) {
                        if (*q == '\\' && q + 1 < content + end) {
                                escaped = true;
                                q++;
                        }
                        strbuf_appendn(&v, q, 1);
                }
                e->vars = xrealloc(e->vars, (e->n + 1) * sizeof(*e->vars));
                e->vars[e->n++] = (ht_grubenv_var){
                        .name = xstrndup(content + start, (size_t)(eq - (content + start))),
                        .value = strbuf_steal(&v),
                        .line = line,
                        .start = start,
                        .end = end + 1,
                        .value_start = (size_t)(eq + 1 - content),
                        .escaped = escaped,
                };
                e->data_end = end + 1;
        }
        if (nul) {
                unsigned nl_line = 1;
                for (const char *p = content; p < nul; p++)
                        nl_line += *p == '\n';
                env_problem(e, HT_GRUBENV_NUL, nl_line);
        }
        return e;
}

int ht_grubenv_parse(const char *content, size_t len, ht_grubenv **ret, char **ret_error) {
        ht_grubenv *e = ht_grubenv_parse_block(content, len);
        for (size_t i = 0; i < e->n_problems; i++) {
                /* a NUL byte first: it is what cut the block short */
                const ht_format_problem *p = &e->problems[e->problems[e->n_problems - 1].kind == HT_GRUBENV_NUL
                                                                   ? e->n_problems - 1
                                                                   : i];
                if (p->kind == HT_GRUBENV_NO_HEADER)
                        *ret_error = xstrdup("1: not a GRUB environment block (no \"# GRUB Environment Block\" header)");
                else
                        *ret_error = xasprintf("%u: malformed GRUB environment line%s", p->line,
                                               p->kind == HT_GRUBENV_NUL ? " (NUL byte)" : "");
                ht_grubenv_free(e);
                return -EINVAL;
        }
        *ret = e;
        return 0;
}

ssize_t ht_grubenv_find(const ht_grubenv *e, const char *name) {
        ssize_t k = -1;
        for (size_t i = 0; e && i < e->n; i++)
                if (streq(e->vars[i].name, name))
                        k = (ssize_t)i;
        return k;
}

const char *ht_grubenv_get(const ht_grubenv *e, const char *name) {
        ssize_t k = ht_grubenv_find(e, name);
        return k >= 0 ? e->vars[k].value : NULL;
}

char *ht_bls_expand(const char *s, ht_bls_lookup lookup, const void *userdata) {
        strbuf b = {0};
        strbuf_append(&b, "");
        while (s && *s) {
                if (*s != '$') {
                        strbuf_appendn(&b, s, 1);
                        s++;
                        continue;
                }
                bool brace = s[1] == '{';
                const char *n = s + 1 + brace;
                size_t len = 0;
                while (isalnum((unsigned char)n[len]) || n[len] == '_')
                        len++;
                if (len == 0 || (brace && n[len] != '}')) {
                        /* no variable: GRUB keeps the text */
                        strbuf_appendn(&b, s, 1);
                        s++;
                        continue;
                }
                _cleanup_free_ char *name = xstrndup(n, len);
                const char *v = lookup ? lookup(userdata, name) : NULL;
                if (v)
                        strbuf_append(&b, v);
                s = n + len + brace;
        }
        _cleanup_free_ char *raw = strbuf_steal(&b);
        return normalize_ws(raw);
}

static const char *env_lookup(const void *userdata, const char *name) {
        return ht_grubenv_get(userdata, name);
}

char *ht_bls_expand_env(const char *options, const ht_grubenv *env) {
        return ht_bls_expand(options, env ? env_lookup : NULL, env);
}
