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

/* Edit the words of body[0..len) with ops; hidden as for ht_cmdline_edit_body. */
static int edit_words(ht_cmdline_format fmt, const char *body, size_t len, char *const *hidden,
                      const ht_cmdline_op *ops, size_t n_ops, char **ret, size_t *ret_len, char **ret_error) {
        ht_word_span *w;
        size_t nw = ht_word_spans_simple(body, len, &w);
        int r = ht_cmdline_edit_body(fmt, body, len, w, nw, hidden, ops, n_ops, ret, ret_len, ret_error);
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
                        if (opt)
                                return ht_error(ret_error, -EINVAL, "%u: more than one options line", e->lines[i].line);
                        opt = &e->lines[i];
                }

        _cleanup_free_ char *body = NULL;
        size_t body_len;
        strbuf out = {};
        if (!opt) {
                r = edit_words(HT_CMDLINE_FMT_BLS, "", 0, NULL, ops, n_ops, &body, &body_len, ret_error);
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
                        if (!env)
                                return ht_error(ret_error, -EINVAL,
                                                "%u: options use %s from grubenv, which is not known",
                                                opt->line, words[i]);
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
                r = edit_words(HT_CMDLINE_FMT_BLS, content + opt->value_start, opt->value_end - opt->value_start, hidden, ops, n_ops,
                               &body, &body_len, &err);
                if (r < 0)
                        return ht_error(ret_error, r, "%u: %s%s", opt->line, err,
                                        ht_bls_uses_kernelopts(opt->value) ? " ($kernelopts in grubenv)" : "");
                size_t keep = opt->value_start;
                /* every word removed: "options", not "options " (the
                 * separator after the key goes with the last word) */
                if (body_len == 0 && opt->value_end > opt->value_start)
                        while (keep > 0 && is_blank(content[keep - 1]))
                                keep--;
                strbuf_appendn(&out, content, keep);
                /* a bare "options" line: the words need a blank after the key */
                if (opt->value_start == opt->value_end && body_len > 0 &&
                    (opt->value_start == 0 || !is_blank(content[opt->value_start - 1])))
                        strbuf_append(&out, " ");
                strbuf_appendn(&out, body, body_len);
                size_t rest = opt->value_end;
                if (keep < opt->value_start)
                        while (rest < len && is_blank(content[rest]) && content[rest] != '\r')
                                rest++;
                strbuf_appendn(&out, content + rest, len - rest);
        }
        *ret_len = out.len;
        *ret = strbuf_steal(&out);
        return 0;
}

int ht_grubenv_edit_kernelopts(const char *content, size_t len, const ht_cmdline_op *ops, size_t n_ops,
                               char **ret, size_t *ret_len, char **ret_error) {
        _cleanup_(ht_grubenv_freep) ht_grubenv *env = NULL;
        int r = ht_grubenv_parse(content, len, &env, ret_error);
        if (r < 0)
                return r;
        ssize_t k = ht_grubenv_find(env, "kernelopts");
        strbuf out = {};
        _cleanup_free_ char *body = NULL, *err = NULL;
        size_t body_len;
        if (k >= 0) {
                const ht_grubenv_var *v = &env->vars[k];
                if (v->escaped) {
                        *ret_error = xstrdup("kernelopts in grubenv holds backslash escapes; edit it with grub2-editenv");
                        return -EINVAL;
                }
                r = edit_words(HT_CMDLINE_FMT_GRUBENV, content + v->value_start, v->end - 1 - v->value_start, NULL, ops, n_ops, &body,
                               &body_len, &err);
                if (r < 0)
                        return ht_error(ret_error, r, "kernelopts: %s", err);
                strbuf_appendn(&out, content, v->value_start);
                strbuf_appendn(&out, body, body_len);
                strbuf_appendn(&out, content + v->end - 1, env->data_end - (v->end - 1));
        } else {
                r = edit_words(HT_CMDLINE_FMT_GRUBENV, "", 0, NULL, ops, n_ops, &body, &body_len, &err);
                if (r < 0)
                        return ht_error(ret_error, r, "kernelopts: %s", err);
                strbuf_appendn(&out, content, env->data_end);
                if (*body)
                        strbuf_appendf(&out, "kernelopts=%s\n", body);
        }
        size_t size = len < HT_GRUBENV_SIZE ? HT_GRUBENV_SIZE : len;
        if (out.len > size) {
                *ret_error = xasprintf("grubenv would need %zu bytes, more than its %zu-byte block", out.len, size);
                strbuf_done(&out);
                return -ENOSPC;
        }
        while (out.len < size)
                strbuf_append(&out, "#");
        *ret_len = out.len;
        *ret = strbuf_steal(&out);
        return 0;
}

int ht_kernel_cmdline_edit(const char *content, size_t len, const ht_cmdline_op *ops, size_t n_ops,
                           char **ret, size_t *ret_len, char **ret_error) {
        size_t end = len;
        while (end > 0 && (content[end - 1] == '\n' || content[end - 1] == '\r'))
                end--;
        for (size_t i = 0; i < end; i++)
                if (content[i] == '\n' || content[i] == 0 || ((unsigned char)content[i] < 0x20 && content[i] != '\t')) {
                        *ret_error = xstrdup(content[i] == '\n' ? "2: more than one line (kernel-install joins them; hosttune edits a command line of one line: join them by hand)"
                                                                : "1: control character");
                        return -EINVAL;
                }
        _cleanup_free_ char *body = NULL;
        size_t body_len;
        int r = edit_words(HT_CMDLINE_FMT_KERNEL_CMDLINE, content, end, NULL, ops, n_ops, &body, &body_len, ret_error);
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
