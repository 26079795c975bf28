/* GRUB defaults: in-place edits of one variable's words, on the
 * assignments the one reader of these files finds
 * (format-grub-defaults.h). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "edit-grub.h"
#include "util.h"

static bool is_name_start(char c) {
        return isalpha((unsigned char)c) || c == '_';
}

static bool is_name_char(char c) {
        return isalnum((unsigned char)c) || c == '_';
}

/* The editable body of a value: one double-quoted, single-quoted or
 * unquoted segment. */
typedef enum { FORM_EMPTY, FORM_DQ, FORM_SQ, FORM_BARE } value_form;

static int classify_value(const char *s, size_t start, size_t end, value_form *form,
                          size_t *body_start, size_t *body_end, const char **why) {
        /* The kernel's word split takes \v and \f as blanks, the shell
         * does not: with such bytes the two would disagree. */
        for (size_t i = start; i < end; i++)
                if (((unsigned char)s[i] < 0x20 && !strchr("\t\r\n", s[i])) || s[i] == 0x7f) {
                        *why = "the value holds control characters";
                        return -EINVAL;
                }
        if (start == end) {
                *form = FORM_EMPTY;
                *body_start = *body_end = start;
                return 0;
        }
        char q = s[start];
        if (q == '"' || q == '\'') {
                if (end - start < 2 || s[end - 1] != q) {
                        *why = "the value mixes quoted and unquoted parts";
                        return -EINVAL;
                }
                for (size_t i = start + 1; i < end - 1; i++) {
                        if (s[i] == q) {
                                *why = "the value mixes quoted and unquoted parts";
                                return -EINVAL;
                        }
                        if (q == '"' && s[i] == '\\' && i + 1 < end - 1 && s[i + 1] == '\n') {
                                i++;
                                continue;
                        }
                        if (s[i] == '\\') {
                                *why = "the value holds backslash escapes";
                                return -EINVAL;
                        }
                        if (q == '"' && s[i] == '`') {
                                *why = "the value holds command substitution";
                                return -EINVAL;
                        }
                }
                *form = q == '"' ? FORM_DQ : FORM_SQ;
                *body_start = start + 1;
                *body_end = end - 1;
                return 0;
        }
        for (size_t i = start; i < end; i++)
                if (strchr("\"'\\`", s[i])) {
                        *why = "the value mixes quoted and unquoted parts or holds escapes";
                        return -EINVAL;
                }
        *form = FORM_BARE;
        *body_start = start;
        *body_end = end;
        return 0;
}

/* Words of a double-quoted or bare body: blanks and newlines separate,
 * a backslash-newline joins. $NAME / ${NAME} words are opaque; any other
 * '$' use makes the body uneditable. */
static int body_words(const char *s, size_t start, size_t end, value_form form, ht_word_span **ret,
                      size_t *ret_n, const char **why) {
        ht_word_span *w = NULL;
        size_t n = 0, i = start;
        bool dq = form == FORM_DQ;
        while (i < end) {
                if (strchr(" \t\r\n", s[i]) || (dq && s[i] == '\\')) {
                        i += s[i] == '\\' ? 2 : 1;
                        continue;
                }
                size_t ws = i;
                strbuf text = {};
                while (i < end && !strchr(" \t\r\n", s[i])) {
                        if (dq && s[i] == '\\') {
                                i += 2;
                                continue;
                        }
                        strbuf_appendn(&text, s + i++, 1);
                }
                size_t we = i;
                /* A trailing backslash-newline belongs to the separator. */
                while (dq && we - ws >= 2 && s[we - 2] == '\\' && s[we - 1] == '\n')
                        we -= 2;
                char *t = strbuf_steal(&text);
                bool opaque = false;
                if (form != FORM_SQ && strchr(t, '$')) {
                        size_t tl = strlen(t), k = 1;
                        bool braced = t[1] == '{';
                        if (braced)
                                k = 2;
                        bool ok = t[0] == '$' && k < tl && is_name_start(t[k]);
                        while (ok && k < tl && is_name_char(t[k]))
                                k++;
                        ok = ok && (braced ? (k + 1 == tl && t[k] == '}') : k == tl);
                        if (!ok) {
                                free(t);
                                ht_word_spans_free(w, n);
                                *why = "the value uses '$' other than as a whole $NAME word";
                                return -EINVAL;
                        }
                        opaque = true;
                }
                w = xrealloc(w, (n + 1) * sizeof(ht_word_span));
                w[n++] = (ht_word_span){ ws, we, t, opaque };
        }
        *ret = w;
        *ret_n = n;
        return 0;
}

static bool bare_safe(const char *s) {
        if (!*s)
                return true;
        for (; *s; s++)
                if (!isalnum((unsigned char)*s) && !strchr("_.,:/=+-@%", *s))
                        return false;
        return true;
}

/* Same words, in any order: where a kept reference sits decides the order,
 * not what the kernel gets. */
static bool words_equal(char **a, char **b) {
        qsort(a, strv_length(a), sizeof(char *), strv_sort_cmp);
        qsort(b, strv_length(b), sizeof(char *), strv_sort_cmp);
        size_t i = 0;
        for (; a[i] && b[i]; i++)
                if (!streq(a[i], b[i]))
                        return false;
        return !a[i] && !b[i];
}

int ht_grub_edit(const char *content, size_t len, const char *name, const ht_grub_env *before,
                 const ht_cmdline_op *ops, size_t n_ops,
                 char **ret, size_t *ret_len, char **ret_error) {
        return ht_grub_edit_parsed(NULL, content, len, name, before, ops, n_ops, ret, ret_len, NULL, ret_error);
}

int ht_grub_edit_parsed(const ht_grub_file *parsed, const char *content, size_t len, const char *name,
                        const ht_grub_env *before, const ht_cmdline_op *ops, size_t n_ops,
                        char **ret, size_t *ret_len, const ht_grub_file **ret_parsed, char **ret_error) {
        _cleanup_(ht_grub_file_unrefp) const ht_grub_file *f = parsed ? ht_grub_file_ref(parsed) : NULL;
        _cleanup_(ht_grub_file_freep) ht_grub_file *f_new = NULL;
        if (ret_parsed)
                *ret_parsed = NULL;
        _cleanup_(ht_grub_env_freep) ht_grub_env *env = ht_grub_env_copy(before);
        _cleanup_free_ char *err = NULL, *new_body = NULL, *old_value = NULL;
        _cleanup_strv_free_ char **hidden = NULL, **expected = NULL;
        ht_word_span *words = NULL;
        size_t n_words = 0, new_body_len;
        const char *why = NULL;
        int r;

        if (!is_name_start(*name))
                return ht_error(ret_error, -EINVAL, "invalid variable name \"%s\"", name);
        for (const char *p = name; *p; p++)
                if (!is_name_char(*p))
                        return ht_error(ret_error, -EINVAL, "invalid variable name \"%s\"", name);
        if ((r = ht_cmdline_ops_check(ops, n_ops, HT_CMDLINE_FMT_GRUB_DEFAULTS, ret_error)) < 0)
                return r;

        if (!f) {
                ht_grub_file *g = NULL;
                r = ht_grub_parse(content, len, &g, ret_error);
                if (r < 0)
                        return r;
                f = g;
        }

        ssize_t last = -1;
        for (size_t i = 0; i < f->n_assignments; i++)
                if (streq(f->assignments[i].name, name))
                        last = (ssize_t)i;
        /* a file sourced (or an eval) after the edit point may set it again */
        for (size_t i = last < 0 ? 0 : (size_t)last; i < f->n_assignments; i++)
                if (f->assignments[i].opaque)
                        return ht_error(ret_error, -EINVAL,
                                        "%u: a file sourced or an eval here (., source, eval), which hosttune does not "
                                        "follow, may set %s; edit the file by hand", f->assignments[i].line, name);

        strbuf out = {};
        if (last < 0) {
                /* No assignment here: append one, building on the value the
                 * earlier files left (if any) by reference. */
                const ht_grub_var *v = ht_grub_env_get(env, name);
                if (v && !v->value)
                        return ht_error(ret_error, -EINVAL, "%s is set in an earlier file in a way hosttune cannot "
                                        "compute (%s)", name, v->why);
                if (v && !isempty(v->value))
                        hidden = ht_cmdline_split(v->value);
                _cleanup_free_ char *ref = v && !isempty(v->value) ? xasprintf("$%s", name) : NULL;
                ht_word_span refw = { 0, ref ? strlen(ref) : 0, ref, true };
                r = ht_cmdline_edit_body(HT_CMDLINE_FMT_GRUB_DEFAULTS, ref ? ref : "", ref ? strlen(ref) : 0, &refw, ref ? 1 : 0,
                                         hidden, ops, n_ops, &new_body, &new_body_len, &err);
                if (r < 0) {
                        *ret_error = TAKE_PTR(err);
                        return r;
                }
                if (ref ? streq(new_body, ref) : !*new_body) {
                        /* Nothing to add. */
                        *ret = xstrndup(content, len);
                        *ret_len = len;
                        if (ret_parsed)
                                *ret_parsed = ht_grub_file_ref(f);
                        return 0;
                }
                strbuf_appendn(&out, content, len);
                if (len > 0 && content[len - 1] != '\n')
                        strbuf_append(&out, "\n");
                /* a backslash-newline at the end would join our line to the
                 * last one; an empty line ends that statement first */
                if (out.len >= 2 && out.data[out.len - 2] == '\\')
                        strbuf_append(&out, "\n");
                strbuf_appendf(&out, "%s=\"%s\"\n", name, new_body);
                goto verify;
        }

        const ht_grub_assignment *a = &f->assignments[last];
        if (a->declared)
                return ht_error(ret_error, -EINVAL,
                                "%u: %s is set by readonly, declare, typeset or local here, which hosttune does not "
                                "follow (and after readonly a new assignment would stop grub-mkconfig); edit the file "
                                "by hand", a->line, name);
        if (a->unset)
                return ht_error(ret_error, -EINVAL,
                                "%u: %s is unset here, after its assignments: an edit of them would not "
                                "reach grub-mkconfig; edit the file by hand", a->line, name);
        if (a->conditional)
                return ht_error(ret_error, -EINVAL, "%u: %s is assigned inside a shell conditional; edit it by hand",
                                a->line, name);
        /* an edit of the value before it would be appended to on bash
         * and not on dash, whatever /bin/sh is */
        if (a->append)
                return ht_error(ret_error, -EINVAL,
                                "%u: %s is appended to with +=, which bash (RHEL's and SUSE's /bin/sh) does and "
                                "dash (Debian's) does not; edit the file by hand", a->line, name);
        for (ssize_t i = 0; i < last; i++)
                ht_grub_eval_assignment(env, 0, content, &f->assignments[i]);

        value_form form;
        size_t bs, be;
        if (classify_value(content, a->value_start, a->value_end, &form, &bs, &be, &why) < 0 ||
            body_words(content, bs, be, form, &words, &n_words, &why) < 0) {
                return ht_error(ret_error, -EINVAL, "%u: cannot edit %s safely: %s", a->line, name, why);
        }
        if (!ht_grub_expand_value(content, a->value_start, a->value_end, env, &old_value, &why)) {
                *ret_error = xasprintf("%u: cannot edit %s safely: %s", a->line, name, why);
                r = -EINVAL;
                goto finish;
        }
        for (size_t i = 0; i < n_words; i++) {
                if (!words[i].opaque)
                        continue;
                _cleanup_free_ char *expanded = NULL;
                if (!ht_grub_expand_value(words[i].text, 0, strlen(words[i].text), env, &expanded, &why)) {
                        *ret_error = xasprintf("%u: cannot edit %s safely: %s %s", a->line, name, words[i].text, why);
                        r = -EINVAL;
                        goto finish;
                }
                _cleanup_strv_free_ char **l = ht_cmdline_split(expanded);
                for (size_t k = 0; l[k]; k++)
                        strv_push(&hidden, l[k]);
        }
        /* Spans are offsets in content; the editor wants them in the body. */
        for (size_t i = 0; i < n_words; i++) {
                words[i].start -= bs;
                words[i].end -= bs;
        }
        r = ht_cmdline_edit_body(HT_CMDLINE_FMT_GRUB_DEFAULTS, content + bs, be - bs, words, n_words, hidden, ops, n_ops,
                                 &new_body, &new_body_len, &err);
        if (r < 0) {
                *ret_error = xasprintf("%u: %s", a->line, err);
                goto finish;
        }

        strbuf_appendn(&out, content, a->value_start);
        if (form == FORM_EMPTY || form == FORM_BARE) {
                if (bare_safe(new_body))
                        strbuf_append(&out, new_body);
                else
                        strbuf_appendf(&out, "\"%s\"", new_body);
        } else {
                char q = form == FORM_DQ ? '"' : '\'';
                strbuf_appendn(&out, &q, 1);
                strbuf_appendn(&out, new_body, new_body_len);
                strbuf_appendn(&out, &q, 1);
        }
        strbuf_appendn(&out, content + a->value_end, len - a->value_end);

verify:
        /* Check the edit against the model: the new file must leave the
         * words the ops ask for. */
        {
                _cleanup_(ht_grub_env_freep) ht_grub_env *e_old = ht_grub_env_copy(before), *e_new = ht_grub_env_copy(before);
                _cleanup_free_ char *e2 = NULL;
                ht_grub_eval_parsed(e_old, 0, content, f); /* content's parse, above */
                if (ht_grub_parse(out.data, out.len, &f_new, &e2) < 0) {
                        strbuf_done(&out);
                        *ret_error = xasprintf("internal error: edited %s does not parse", name);
                        r = -EINVAL;
                        goto finish;
                }
                ht_grub_eval_parsed(e_new, 0, out.data, f_new);
                const ht_grub_var *vo = ht_grub_env_get(e_old, name), *vn = ht_grub_env_get(e_new, name);
                _cleanup_strv_free_ char **ow = ht_cmdline_split(vo && vo->value ? vo->value : "");
                _cleanup_strv_free_ char **nw = ht_cmdline_split(vn && vn->value ? vn->value : "");
                expected = ht_cmdline_apply(ow, ops, n_ops);
                if (!vn || !vn->value || !words_equal(expected, nw)) {
                        strbuf_done(&out);
                        *ret_error = xasprintf("internal error: editing %s would not give the expected words", name);
                        r = -EINVAL;
                        goto finish;
                }
        }
        if (!out.data)
                strbuf_append(&out, "");
        *ret_len = out.len;
        *ret = strbuf_steal(&out);
        if (ret_parsed)
                *ret_parsed = TAKE_PTR(f_new);
        r = 0;
finish:
        ht_word_spans_free(words, n_words);
        return r;
}
