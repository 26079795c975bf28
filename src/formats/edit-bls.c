/* BLS entries, grubenv and /etc/kernel/cmdline. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "edit-bls.h"
#include "util.h"

static const char *strempty_or(const char *s) {
        return s ? s : "";
}

static bool is_blank(char c) {
        return c == ' ' || c == '\t' || c == '\r';
}

void ht_bls_entry_free(ht_bls_entry *e) {
        if (!e)
                return;
        for (size_t i = 0; i < e->n_lines; i++) {
                free(e->lines[i].key);
                free(e->lines[i].value);
        }
        free(e->lines);
        free(e);
}

int ht_bls_parse(const char *content, size_t len, ht_bls_entry **ret, char **ret_error) {
        ht_bls_entry *e = xcalloc(1, sizeof(*e));
        size_t pos = 0;
        unsigned line = 0;

        while (pos < len) {
                const char *nl = memchr(content + pos, '\n', len - pos);
                size_t end = nl ? (size_t)(nl - content) : len;
                line++;
                for (size_t i = pos; i < end; i++) {
                        unsigned char c = content[i];
                        if ((c < 0x20 && c != '\t' && c != '\r') || c == 0x7f) {
                                *ret_error = xasprintf("%u: %s", line, c ? "control character" : "NUL byte");
                                ht_bls_entry_free(e);
                                return -EINVAL;
                        }
                }
                size_t k = pos;
                while (k < end && is_blank(content[k]))
                        k++;
                if (k < end && content[k] != '#') {
                        size_t ks = k;
                        while (k < end && !is_blank(content[k]))
                                k++;
                        for (size_t i = ks; i < k; i++)
                                if (!isalnum((unsigned char)content[i]) && !strchr("_-.", content[i])) {
                                        *ret_error = xasprintf("%u: invalid key", line);
                                        ht_bls_entry_free(e);
                                        return -EINVAL;
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
                pos = nl ? end + 1 : len;
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

bool ht_bls_uses_kernelopts(const char *options) {
        _cleanup_strv_free_ char **w = ht_cmdline_split(options ? options : "");
        return strv_contains(w, "$kernelopts") || strv_contains(w, "${kernelopts}");
}

void ht_grubenv_free(ht_grubenv *e) {
        if (!e)
                return;
        strv_free(e->names);
        strv_free(e->values);
        free(e);
}

const char *ht_grubenv_get(const ht_grubenv *e, const char *name) {
        for (size_t i = 0; e && i < e->n; i++)
                if (streq(e->names[i], name))
                        return e->values[i];
        return NULL;
}

/* The variable lines of a block: [start, end) spans, the name and the
 * value with grub's backslash escapes undone. */
typedef struct {
        size_t start, end, value_start;
        char *name, *value;
        bool escaped;
} env_line;

static int grubenv_lines(const char *content, size_t len, env_line **ret, size_t *ret_n, size_t *ret_data_end,
                         char **ret_error) {
        size_t hl = strlen(HT_GRUBENV_HEADER);
        if (len < hl || memcmp(content, HT_GRUBENV_HEADER, hl) != 0) {
                *ret_error = xstrdup("1: not a GRUB environment block (no \"# GRUB Environment Block\" header)");
                return -EINVAL;
        }
        env_line *l = NULL;
        size_t n = 0, pos = hl, data_end = hl;
        unsigned line = 1;
        /* GRUB writes none; one kept would end the edited text early for
         * every caller using strlen() */
        const char *nul = memchr(content, 0, len);
        if (nul) {
                for (const char *p = content; p < nul; p++)
                        line += *p == '\n';
                *ret_error = xasprintf("%u: malformed GRUB environment line (NUL byte)", line);
                return -EINVAL;
        }
        while (pos < len) {
                line++;
                size_t start = pos;
                if (content[pos] == '#') {
                        /* Padding (or a comment): runs to the next newline. */
                        const char *nl = memchr(content + pos, '\n', len - pos);
                        pos = nl ? (size_t)(nl - content) + 1 : len;
                        continue;
                }
                strbuf v = {};
                size_t eq = 0, i = pos;
                bool escaped = false;
                for (; i < len && content[i] != '\n'; i++) {
                        if (!eq && content[i] == '=') {
                                eq = i;
                                continue;
                        }
                        if (content[i] == 0) {
                                strbuf_done(&v);
                                goto bad;
                        }
                        if (eq && content[i] == '\\' && i + 1 < len) {
                                escaped = true;
                                i++;
                        }
                        if (eq)
                                strbuf_appendn(&v, content + i, 1);
                }
                if (!eq || eq == start || i >= len) {
                        strbuf_done(&v);
                        goto bad;
                }
                l = xrealloc(l, (n + 1) * sizeof(env_line));
                l[n++] = (env_line){ start, i + 1, eq + 1, xstrndup(content + start, eq - start),
                                     v.data ? strbuf_steal(&v) : xstrdup(""), escaped };
                pos = i + 1;
                data_end = pos;
        }
        *ret = l;
        *ret_n = n;
        *ret_data_end = data_end;
        return 0;
bad:
        for (size_t k = 0; k < n; k++) {
                free(l[k].name);
                free(l[k].value);
        }
        free(l);
        *ret_error = xasprintf("%u: malformed GRUB environment line", line);
        return -EINVAL;
}

static void env_lines_free(env_line *l, size_t n) {
        for (size_t k = 0; k < n; k++) {
                free(l[k].name);
                free(l[k].value);
        }
        free(l);
}

int ht_grubenv_parse(const char *content, size_t len, ht_grubenv **ret, char **ret_error) {
        env_line *l;
        size_t n, data_end;
        int r = grubenv_lines(content, len, &l, &n, &data_end, ret_error);
        if (r < 0)
                return r;
        ht_grubenv *e = xcalloc(1, sizeof(*e));
        e->size = len;
        for (size_t i = 0; i < n; i++) {
                strv_push(&e->names, l[i].name);
                strv_push(&e->values, l[i].value);
        }
        e->n = n;
        env_lines_free(l, n);
        *ret = e;
        return 0;
}

/* Edit the words of body[0..len) with ops; hidden as for ht_cmdline_edit_body. */
static int edit_words(const char *body, size_t len, char *const *hidden, const ht_cmdline_op *ops, size_t n_ops,
                      char **ret, size_t *ret_len, char **ret_error) {
        ht_word_span *w;
        size_t nw = ht_word_spans_simple(body, len, &w);
        int r = ht_cmdline_edit_body(body, len, w, nw, hidden, ops, n_ops, ret, ret_len, ret_error);
        ht_word_spans_free(w, nw);
        return r;
}

int ht_bls_edit_options(const char *content, size_t len, const ht_grubenv *env,
                        const ht_cmdline_op *ops, size_t n_ops,
                        char **ret, size_t *ret_len, char **ret_error) {
        _cleanup_(ht_bls_entry_freep) ht_bls_entry *e = NULL;
        int r = ht_bls_parse(content, len, &e, ret_error);
        if (r < 0)
                return r;
        const ht_bls_line *opt = NULL;
        for (size_t i = 0; i < e->n_lines; i++)
                if (streq(e->lines[i].key, "options")) {
                        if (opt) {
                                *ret_error = xasprintf("%u: more than one options line", e->lines[i].line);
                                return -EINVAL;
                        }
                        opt = &e->lines[i];
                }

        _cleanup_free_ char *body = NULL;
        size_t body_len;
        strbuf out = {};
        if (!opt) {
                r = edit_words("", 0, NULL, ops, n_ops, &body, &body_len, ret_error);
                if (r < 0)
                        return r;
                if (!*body) {
                        *ret = xstrndup(content, len);
                        *ret_len = len;
                        return 0;
                }
                strbuf_appendn(&out, content, len);
                if (len > 0 && content[len - 1] != '\n')
                        strbuf_append(&out, "\n");
                strbuf_appendf(&out, "options %s\n", body);
        } else {
                /* $name words expand from grubenv, as GRUB does. */
                _cleanup_strv_free_ char **words = ht_cmdline_split(opt->value), **hidden = NULL;
                for (size_t i = 0; words[i]; i++) {
                        if (words[i][0] != '$')
                                continue;
                        if (!env) {
                                *ret_error = xasprintf("%u: options use %s from grubenv, which is not known",
                                                       opt->line, words[i]);
                                return -EINVAL;
                        }
                        _cleanup_free_ char *name = xstrdup(words[i] + 1);
                        if (name[0] == '{' && endswith(name, "}")) {
                                memmove(name, name + 1, strlen(name));
                                name[strlen(name) - 1] = 0;
                        }
                        _cleanup_strv_free_ char **l = ht_cmdline_split(strempty_or(ht_grubenv_get(env, name)));
                        for (size_t k = 0; l[k]; k++)
                                strv_push(&hidden, l[k]);
                }
                _cleanup_free_ char *err = NULL;
                r = edit_words(content + opt->value_start, opt->value_end - opt->value_start, hidden, ops, n_ops,
                               &body, &body_len, &err);
                if (r < 0) {
                        *ret_error = xasprintf("%u: %s%s", opt->line, err,
                                               ht_bls_uses_kernelopts(opt->value) ? " ($kernelopts in grubenv)" : "");
                        return r;
                }
                strbuf_appendn(&out, content, opt->value_start);
                /* a bare "options" line: the words need a blank after the key */
                if (opt->value_start == opt->value_end && body_len > 0 &&
                    (opt->value_start == 0 || !is_blank(content[opt->value_start - 1])))
                        strbuf_append(&out, " ");
                strbuf_appendn(&out, body, body_len);
                strbuf_appendn(&out, content + opt->value_end, len - opt->value_end);
        }
        *ret_len = out.len;
        *ret = strbuf_steal(&out);
        return 0;
}

int ht_grubenv_edit_kernelopts(const char *content, size_t len, const ht_cmdline_op *ops, size_t n_ops,
                               char **ret, size_t *ret_len, char **ret_error) {
        env_line *l;
        size_t n, data_end;
        int r = grubenv_lines(content, len, &l, &n, &data_end, ret_error);
        if (r < 0)
                return r;
        ssize_t k = -1;
        for (size_t i = 0; i < n; i++)
                if (streq(l[i].name, "kernelopts"))
                        k = (ssize_t)i;
        strbuf out = {};
        _cleanup_free_ char *body = NULL, *err = NULL;
        size_t body_len;
        if (k >= 0) {
                if (l[k].escaped) {
                        *ret_error = xstrdup("kernelopts in grubenv holds backslash escapes; edit it with grub2-editenv");
                        r = -EINVAL;
                        goto finish;
                }
                r = edit_words(content + l[k].value_start, l[k].end - 1 - l[k].value_start, NULL, ops, n_ops,
                               &body, &body_len, &err);
                if (r < 0) {
                        *ret_error = xasprintf("kernelopts: %s", err);
                        goto finish;
                }
                strbuf_appendn(&out, content, l[k].value_start);
                strbuf_appendn(&out, body, body_len);
                strbuf_appendn(&out, content + l[k].end - 1, data_end - (l[k].end - 1));
        } else {
                r = edit_words("", 0, NULL, ops, n_ops, &body, &body_len, &err);
                if (r < 0) {
                        *ret_error = xasprintf("kernelopts: %s", err);
                        goto finish;
                }
                strbuf_appendn(&out, content, data_end);
                if (*body)
                        strbuf_appendf(&out, "kernelopts=%s\n", body);
        }
        size_t size = len < HT_GRUBENV_SIZE ? HT_GRUBENV_SIZE : len;
        if (out.len > size) {
                *ret_error = xasprintf("grubenv would need %zu bytes, more than its %zu-byte block", out.len, size);
                strbuf_done(&out);
                r = -ENOSPC;
                goto finish;
        }
        while (out.len < size)
                strbuf_append(&out, "#");
        *ret_len = out.len;
        *ret = strbuf_steal(&out);
        r = 0;
finish:
        if (r < 0)
                strbuf_done(&out);
        env_lines_free(l, n);
        return r;
}

int ht_kernel_cmdline_edit(const char *content, size_t len, const ht_cmdline_op *ops, size_t n_ops,
                           char **ret, size_t *ret_len, char **ret_error) {
        size_t end = len;
        while (end > 0 && (content[end - 1] == '\n' || content[end - 1] == '\r'))
                end--;
        for (size_t i = 0; i < end; i++)
                if (content[i] == '\n' || content[i] == 0 || ((unsigned char)content[i] < 0x20 && content[i] != '\t')) {
                        *ret_error = xstrdup(content[i] == '\n' ? "2: /etc/kernel/cmdline holds more than one line"
                                                                : "1: control character");
                        return -EINVAL;
                }
        _cleanup_free_ char *body = NULL;
        size_t body_len;
        int r = edit_words(content, end, NULL, ops, n_ops, &body, &body_len, ret_error);
        if (r < 0)
                return r;
        strbuf out = {};
        strbuf_appendn(&out, body, body_len);
        strbuf_appendn(&out, content + end, len - end);
        if (len == 0 && body_len > 0)
                strbuf_append(&out, "\n");
        if (!out.data)
                strbuf_append(&out, "");
        *ret_len = out.len;
        *ret = strbuf_steal(&out);
        return 0;
}
