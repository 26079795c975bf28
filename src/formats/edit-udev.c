#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "edit-udev.h"
#include "util.h"

const char *const ht_udev_dirs[] = {
        "/etc/udev/rules.d",
        "/run/udev/rules.d",
        "/usr/local/lib/udev/rules.d",
        "/usr/lib/udev/rules.d",
        "/lib/udev/rules.d",
        NULL,
};

static const char *const op_names[] = {
        [HT_UDEV_MATCH] = "==", [HT_UDEV_NOMATCH] = "!=", [HT_UDEV_ASSIGN] = "=",
        [HT_UDEV_ADD] = "+=",   [HT_UDEV_REMOVE] = "-=",  [HT_UDEV_FINAL] = ":=",
};

const char *ht_udev_op_to_string(ht_udev_op op) {
        return op <= HT_UDEV_FINAL ? op_names[op] : "?";
}

bool ht_udev_op_assigns(ht_udev_op op) {
        return op == HT_UDEV_ASSIGN || op == HT_UDEV_ADD || op == HT_UDEV_FINAL;
}

void ht_udev_tokens_free(ht_udev_token *t, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(t[i].key);
                free(t[i].attr);
                free(t[i].value);
        }
        free(t);
}

void ht_udev_file_free(ht_udev_file *f) {
        if (!f)
                return;
        for (size_t i = 0; i < f->n_rules; i++)
                ht_udev_tokens_free(f->rules[i].tokens, f->rules[i].n_tokens);
        free(f->rules);
        strv_free(f->warnings);
        free(f);
}

static bool is_key_char(char ch) {
        return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_';
}

static bool is_blank(char ch) {
        return ch == ' ' || ch == '\t';
}

/* The C escapes of an e"..." value (udev's cunescape): the common ones;
 * anything else is refused, as udevd refuses the line. */
static int unescape_one(const char **p, strbuf *out) {
        const char *s = *p;
        char ch;
        switch (s[1]) {
        case 'n': ch = '\n'; break;
        case 't': ch = '\t'; break;
        case 'r': ch = '\r'; break;
        case 'a': ch = '\a'; break;
        case 'b': ch = '\b'; break;
        case 'f': ch = '\f'; break;
        case 'v': ch = '\v'; break;
        case '\\': ch = '\\'; break;
        case '"': ch = '"'; break;
        case '\'': ch = '\''; break;
        default: return -EINVAL;
        }
        strbuf_appendn(out, &ch, 1);
        *p = s + 2;
        return 0;
}

static int parse_value(const char **p, char **ret, char **ret_error) {
        const char *s = *p;
        bool esc = false;
        if (*s == 'e' && s[1] == '"') {
                esc = true;
                s++;
        }
        if (*s != '"') {
                *ret_error = xstrdup("the value must be in double quotes");
                return -EINVAL;
        }
        s++;
        strbuf b = {0};
        strbuf_append(&b, "");
        while (*s != '"') {
                if (*s == 0) {
                        strbuf_done(&b);
                        *ret_error = xstrdup("the value's closing quote is missing");
                        return -EINVAL;
                }
                if (*s == '\\' && esc) {
                        if (unescape_one(&s, &b) < 0) {
                                strbuf_done(&b);
                                *ret_error = xstrdup("the value has an escape udev does not know");
                                return -EINVAL;
                        }
                        continue;
                }
                /* a plain value knows one escape: \" for a quote */
                if (*s == '\\' && s[1] == '"')
                        s++;
                strbuf_appendn(&b, s, 1);
                s++;
        }
        *p = s + 1;
        *ret = strbuf_steal(&b);
        return 0;
}

int ht_udev_parse_rule(const char *text, ht_udev_token **ret, size_t *ret_n, char **ret_error) {
        ht_udev_token *t = NULL;
        size_t n = 0;
        const char *p = text;
        for (;;) {
                while (is_blank(*p))
                        p++;
                if (*p == 0)
                        break;
                const char *k = p;
                while (is_key_char(*p))
                        p++;
                if (p == k) {
                        *ret_error = xasprintf("expected a key at '%.20s'", k);
                        goto fail;
                }
                _cleanup_free_ char *key = xstrndup(k, (size_t)(p - k)), *attr = NULL, *value = NULL;
                if (*p == '{') {
                        const char *end = strchr(p, '}');
                        if (!end) {
                                *ret_error = xasprintf("%s: the '}' of the attribute is missing", key);
                                goto fail;
                        }
                        attr = xstrndup(p + 1, (size_t)(end - p - 1));
                        p = end + 1;
                }
                while (is_blank(*p))
                        p++;
                ht_udev_op op;
                if (startswith(p, "=="))
                        op = HT_UDEV_MATCH;
                else if (startswith(p, "!="))
                        op = HT_UDEV_NOMATCH;
                else if (startswith(p, "+="))
                        op = HT_UDEV_ADD;
                else if (startswith(p, "-="))
                        op = HT_UDEV_REMOVE;
                else if (startswith(p, ":="))
                        op = HT_UDEV_FINAL;
                else if (*p == '=')
                        op = HT_UDEV_ASSIGN;
                else {
                        *ret_error = xasprintf("%s: expected an operator (==, !=, =, +=, -=, :=)", key);
                        goto fail;
                }
                p += op == HT_UDEV_ASSIGN ? 1 : 2;
                while (is_blank(*p))
                        p++;
                _cleanup_free_ char *why = NULL;
                if (parse_value(&p, &value, &why) < 0) {
                        *ret_error = xasprintf("%s: %s", key, why);
                        goto fail;
                }
                t = xrealloc(t, (n + 1) * sizeof(*t));
                t[n++] = (ht_udev_token){.key = TAKE_PTR(key), .attr = TAKE_PTR(attr), .op = op,
                                         .value = TAKE_PTR(value)};
                while (is_blank(*p))
                        p++;
                /* udevd takes blanks alone between tokens too (with a warning) */
                if (*p == ',')
                        p++;
        }
        if (n == 0) {
                *ret_error = xstrdup("the rule is empty");
                goto fail;
        }
        *ret = t;
        *ret_n = n;
        return 0;
fail:
        ht_udev_tokens_free(t, n);
        return -EINVAL;
}

int ht_udev_parse(const char *text, size_t len, ht_udev_file **ret) {
        ht_udev_file *f = xcalloc(1, sizeof(*f));
        strbuf logical = {0};
        unsigned first = 0, lineno = 0;
        const char *p = text, *end = text + len;
        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
                _cleanup_free_ char *raw = xstrndup(p, l);
                p = nl ? nl + 1 : end;
                lineno++;
                /* a NUL inside a line ends it for udevd's reader as well */
                char *s = raw;
                size_t sl = strlen(s);
                if (sl > 0 && s[sl - 1] == '\r')
                        s[--sl] = 0;
                char *lead = s;
                while (is_blank(*lead))
                        lead++;
                if (logical.len == 0 && (*lead == '#' || *lead == 0))
                        continue;
                if (logical.len == 0)
                        first = lineno;
                bool more = sl > 0 && s[sl - 1] == '\\';
                if (more)
                        s[--sl] = 0;
                strbuf_append(&logical, logical.len == 0 ? lead : s);
                if (more && p < end)
                        continue;
                _cleanup_free_ char *line = strbuf_steal(&logical);
                logical = (strbuf){0};
                ht_udev_token *t = NULL;
                size_t n = 0;
                _cleanup_free_ char *why = NULL;
                if (ht_udev_parse_rule(line, &t, &n, &why) < 0) {
                        strv_pushf(&f->warnings, "%u: %s", first, why);
                        continue;
                }
                f->rules = xrealloc(f->rules, (f->n_rules + 1) * sizeof(*f->rules));
                f->rules[f->n_rules++] = (ht_udev_rule){.line = first, .tokens = t, .n_tokens = n};
        }
        strbuf_done(&logical);
        *ret = f;
        return 0;
}

bool ht_udev_value_safe(const char *value) {
        return value && !has_control_chars(value) && !strpbrk(value, "\"\\\t");
}

char *ht_udev_format_rule(const ht_udev_token *t, size_t n) {
        strbuf b = {0};
        strbuf_append(&b, "");
        for (size_t i = 0; i < n; i++) {
                bool key_ok = !isempty(t[i].key);
                for (const char *k = t[i].key; key_ok && *k; k++)
                        key_ok = is_key_char(*k);
                if (!key_ok || !ht_udev_value_safe(t[i].value) ||
                    (t[i].attr && (!ht_udev_value_safe(t[i].attr) || strpbrk(t[i].attr, "{}")))) {
                        strbuf_done(&b);
                        return NULL;
                }
                /* KEY{attr}OP"value", piece by piece: a format of seven
                 * strings cost more to parse than the pieces to copy */
                if (i)
                        strbuf_append(&b, ", ");
                strbuf_append(&b, t[i].key);
                if (t[i].attr) {
                        strbuf_append(&b, "{");
                        strbuf_append(&b, t[i].attr);
                        strbuf_append(&b, "}");
                }
                strbuf_append(&b, ht_udev_op_to_string(t[i].op));
                strbuf_append(&b, "\"");
                strbuf_append(&b, t[i].value);
                strbuf_append(&b, "\"");
        }
        return strbuf_steal(&b);
}

char **ht_udev_order(const char *const *dirs, char *const *const *names) {
        /* name -> the first directory that has it */
        char **seen = NULL, **paths = NULL;
        for (size_t d = 0; dirs[d]; d++)
                for (size_t i = 0; names[d] && names[d][i]; i++) {
                        if (!endswith(names[d][i], ".rules") || strv_contains(seen, names[d][i]))
                                continue;
                        strv_push(&seen, names[d][i]);
                        strv_pushf(&paths, "%s/%s", dirs[d], names[d][i]);
                }
        size_t n = strv_length(paths);
        /* sorted by the name alone, as conf_files_list does */
        for (size_t i = 1; i < n; i++)
                for (size_t j = i; j > 0 && strcmp(strrchr(paths[j - 1], '/') + 1, strrchr(paths[j], '/') + 1) > 0; j--) {
                        char *tmp = paths[j];
                        paths[j] = paths[j - 1];
                        paths[j - 1] = tmp;
                }
        strv_free(seen);
        return paths;
}
