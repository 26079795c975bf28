/* GRUB defaults files: a small reader of POSIX shell syntax, enough to
 * find plain assignments and their quoted values, never to run them.
 * Anything beyond that (commands, conditionals, substitutions) is noted,
 * so the values that depend on it are reported as unknown instead of
 * guessed. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "edit-grub.h"
#include "util.h"

typedef struct {
        const char *s;
        size_t len, pos;
        unsigned line;
        char **error;
} scanner;

static int scan_error(scanner *sc, unsigned line, const char *what) {
        *sc->error = xasprintf("%u: %s", line, what);
        return -EINVAL;
}

static bool is_name_start(char c) {
        return isalpha((unsigned char)c) || c == '_';
}

static bool is_name_char(char c) {
        return isalnum((unsigned char)c) || c == '_';
}

static bool at_continuation(const scanner *sc) {
        return sc->pos + 1 < sc->len && sc->s[sc->pos] == '\\' && sc->s[sc->pos + 1] == '\n';
}

static void skip_blanks(scanner *sc) {
        while (sc->pos < sc->len) {
                char c = sc->s[sc->pos];
                if (c == ' ' || c == '\t' || c == '\r')
                        sc->pos++;
                else if (at_continuation(sc)) {
                        sc->pos += 2;
                        sc->line++;
                } else
                        break;
        }
}

/* Step over a backslash escape (two bytes), counting a newline. */
static void skip_escape(scanner *sc) {
        if (sc->pos + 1 < sc->len && sc->s[sc->pos + 1] == '\n')
                sc->line++;
        sc->pos += sc->pos + 1 < sc->len ? 2 : 1;
}

static int scan_dq(scanner *sc);
static int scan_dollar(scanner *sc);

static int scan_sq(scanner *sc) {
        unsigned start = sc->line;
        for (sc->pos++; sc->pos < sc->len; sc->pos++) {
                if (sc->s[sc->pos] == '\'') {
                        sc->pos++;
                        return 0;
                }
                if (sc->s[sc->pos] == '\n')
                        sc->line++;
        }
        return scan_error(sc, start, "unterminated single quote");
}

static int scan_backtick(scanner *sc) {
        unsigned start = sc->line;
        for (sc->pos++; sc->pos < sc->len;) {
                char c = sc->s[sc->pos];
                if (c == '\\') {
                        skip_escape(sc);
                        continue;
                }
                if (c == '`') {
                        sc->pos++;
                        return 0;
                }
                if (c == '\n')
                        sc->line++;
                sc->pos++;
        }
        return scan_error(sc, start, "unterminated backquote");
}

static int scan_dq(scanner *sc) {
        unsigned start = sc->line;
        int r;
        for (sc->pos++; sc->pos < sc->len;) {
                char c = sc->s[sc->pos];
                if (c == '\\')
                        skip_escape(sc);
                else if (c == '"') {
                        sc->pos++;
                        return 0;
                } else if (c == '$') {
                        if ((r = scan_dollar(sc)) < 0)
                                return r;
                } else if (c == '`') {
                        if ((r = scan_backtick(sc)) < 0)
                                return r;
                } else {
                        if (c == '\n')
                                sc->line++;
                        sc->pos++;
                }
        }
        return scan_error(sc, start, "unterminated double quote");
}

/* An escape, a quoted string or a backtick at sc->pos, scanned whole:
 * 0, or 1 when c starts none of them, or <0 from the scan. */
static int scan_quoting(scanner *sc, char c) {
        switch (c) {
        case '\\':
                skip_escape(sc);
                return 0;
        case '\'':
                return scan_sq(sc);
        case '"':
                return scan_dq(sc);
        case '`':
                return scan_backtick(sc);
        default:
                return 1;
        }
}

/* $(...), ${...} or a plain $: step over it, quotes and nesting included. */
static int scan_dollar(scanner *sc) {
        unsigned start = sc->line;
        int r;
        if (sc->pos + 1 >= sc->len) {
                sc->pos++;
                return 0;
        }
        char open = sc->s[sc->pos + 1];
        if (open != '(' && open != '{') {
                sc->pos++;
                return 0;
        }
        char close = open == '(' ? ')' : '}';
        unsigned depth = 1;
        for (sc->pos += 2; sc->pos < sc->len;) {
                char c = sc->s[sc->pos];
                if ((r = scan_quoting(sc, c)) < 0)
                        return r;
                if (r == 0)
                        continue;
                if (c == open)
                        depth++;
                else if (c == close && --depth == 0) {
                        sc->pos++;
                        return 0;
                } else if (c == '\n')
                        sc->line++;
                sc->pos++;
        }
        return scan_error(sc, start, open == '(' ? "unterminated $(" : "unterminated ${");
}

static bool is_word_end(char c) {
        return strchr(" \t\r\n;&|<>()", c) != NULL;
}

/* One shell word from sc->pos; stops at an unquoted blank or operator. */
static int scan_word(scanner *sc) {
        int r;
        while (sc->pos < sc->len) {
                char c = sc->s[sc->pos];
                if (is_word_end(c))
                        break;
                if ((r = scan_quoting(sc, c)) < 0)
                        return r;
                if (r == 0)
                        continue;
                if (c == '$') {
                        if ((r = scan_dollar(sc)) < 0)
                                return r;
                } else
                        sc->pos++;
        }
        return 0;
}

static bool word_is(const scanner *sc, size_t start, const char *kw) {
        size_t n = strlen(kw);
        return sc->pos - start == n && memcmp(sc->s + start, kw, n) == 0;
}

void ht_grub_file_free(ht_grub_file *f) {
        if (!f)
                return;
        for (size_t i = 0; i < f->n_assignments; i++)
                free(f->assignments[i].name);
        free(f->assignments);
        free(f);
}

int ht_grub_parse(const char *content, size_t len, ht_grub_file **ret, char **ret_error) {
        _cleanup_free_ char *error = NULL;
        scanner sc = { content, len, 0, 1, &error };
        ht_grub_file *f = xcalloc(1, sizeof(*f));
        unsigned depth = 0;     /* nesting of compound commands and subshells */
        unsigned parens = 0;    /* open subshell parentheses */
        int r;

        const char *nul = memchr(content, 0, len);
        if (nul) {
                unsigned line = 1;
                for (const char *p = content; p < nul; p++)
                        line += *p == '\n';
                *ret_error = xasprintf("%u: NUL byte in a shell file", line);
                ht_grub_file_free(f);
                return -EINVAL;
        }

        while (sc.pos < len) {
                /* One statement. */
                bool first = true, exported = false, command = false;
                bool cond_once = false;
                size_t pending_start = f->n_assignments;

                for (;;) {
                        skip_blanks(&sc);
                        if (sc.pos >= len)
                                break;
                        char c = content[sc.pos];
                        if (c == '\n' || c == ';')
                                break;
                        if (c == '#') {
                                while (sc.pos < len && content[sc.pos] != '\n')
                                        sc.pos++;
                                break;
                        }
                        if (c == '&' || c == '|') {
                                /* What follows && || | runs only sometimes (or in a subshell). */
                                bool cond = sc.pos + 1 < len && content[sc.pos + 1] != c ? c == '|' : true;
                                while (sc.pos < len && (content[sc.pos] == '&' || content[sc.pos] == '|'))
                                        sc.pos++;
                                if (!f->complex_line)
                                        f->complex_line = sc.line;
                                command = false;
                                first = true;
                                cond_once = cond;
                                pending_start = f->n_assignments;
                                continue;
                        }
                        if (c == '(' || c == ')' || c == '<' || c == '>') {
                                if (!f->complex_line)
                                        f->complex_line = sc.line;
                                sc.pos++;
                                if (c == '(') {
                                        parens++;
                                        depth++;
                                } else if (c == ')') {
                                        /* Closes a subshell, or ends a case pattern;
                                         * either way a new statement follows. */
                                        if (parens > 0) {
                                                parens--;
                                                depth--;
                                        }
                                        command = false;
                                        first = true;
                                        pending_start = f->n_assignments;
                                        continue;
                                }
                                command = true;
                                continue;
                        }

                        size_t start = sc.pos;
                        unsigned line = sc.line;
                        size_t p = start;
                        if (!command && is_name_start(content[p])) {
                                while (p < len && is_name_char(content[p]))
                                        p++;
                                if (p < len && content[p] == '=') {
                                        sc.pos = p + 1;
                                        if ((r = scan_word(&sc)) < 0)
                                                goto fail;
                                        f->assignments = xrealloc(f->assignments,
                                                                  (f->n_assignments + 1) * sizeof(ht_grub_assignment));
                                        f->assignments[f->n_assignments++] = (ht_grub_assignment){
                                                .name = xstrndup(content + start, p - start),
                                                .line = line,
                                                .value_start = p + 1,
                                                .value_end = sc.pos,
                                                .exported = exported,
                                                .conditional = depth > 0 || cond_once,
                                        };
                                        first = false;
                                        continue;
                                }
                        }
                        if ((r = scan_word(&sc)) < 0)
                                goto fail;
                        if (command)
                                continue;
                        if (first && word_is(&sc, start, "export")) {
                                exported = true;
                                first = false;
                                continue;
                        }
                        if (exported) {
                                bool plain_name = is_name_start(content[start]);
                                for (size_t i = start; i < sc.pos; i++)
                                        plain_name = plain_name && is_name_char(content[i]);
                                if (plain_name)
                                        continue;
                        }
                        if (first && (word_is(&sc, start, "then") || word_is(&sc, start, "else") ||
                                      word_is(&sc, start, "do"))) {
                                first = true;
                                continue;
                        }
                        if (first && (word_is(&sc, start, "if") || word_is(&sc, start, "case") ||
                                      word_is(&sc, start, "for") || word_is(&sc, start, "while") ||
                                      word_is(&sc, start, "until") || word_is(&sc, start, "{")))
                                depth++;
                        else if (first && (word_is(&sc, start, "fi") || word_is(&sc, start, "esac") ||
                                           word_is(&sc, start, "done") || word_is(&sc, start, "}"))) {
                                if (depth > 0)
                                        depth--;
                        }
                        /* A command: assignments before it only reach its
                         * environment, so they are not variables of the file. */
                        for (size_t i = pending_start; i < f->n_assignments; i++)
                                free(f->assignments[i].name);
                        f->n_assignments = pending_start;
                        if (!f->complex_line)
                                f->complex_line = line;
                        command = true;
                        first = false;
                }
                if (sc.pos < len) {
                        if (content[sc.pos] == '\n')
                                sc.line++;
                        sc.pos++;
                }
        }
        if (depth > 0) {
                /* The shell refuses it too; an assignment appended to it
                 * would land inside the open block. */
                *ret_error = xasprintf("%u: unexpected end of file: an if, case, loop, { or ( is not closed",
                                       sc.line);
                ht_grub_file_free(f);
                return -EINVAL;
        }
        *ret = f;
        return 0;
fail:
        ht_grub_file_free(f);
        *ret_error = TAKE_PTR(error);
        return r;
}

ht_grub_env *ht_grub_env_new(void) {
        return xcalloc(1, sizeof(ht_grub_env));
}

void ht_grub_env_free(ht_grub_env *e) {
        if (!e)
                return;
        for (size_t i = 0; i < e->n_vars; i++) {
                free(e->vars[i].name);
                free(e->vars[i].value);
                free(e->vars[i].why);
        }
        free(e->vars);
        free(e);
}

const ht_grub_var *ht_grub_env_get(const ht_grub_env *e, const char *name) {
        for (size_t i = 0; e && i < e->n_vars; i++)
                if (streq(e->vars[i].name, name))
                        return &e->vars[i];
        return NULL;
}

static ht_grub_var *env_slot(ht_grub_env *e, const char *name) {
        ht_grub_var *v = (ht_grub_var *)ht_grub_env_get(e, name);
        if (v) {
                free(v->value);
                free(v->why);
                v->value = v->why = NULL;
                return v;
        }
        e->vars = xrealloc(e->vars, (e->n_vars + 1) * sizeof(ht_grub_var));
        v = &e->vars[e->n_vars++];
        *v = (ht_grub_var){ .name = xstrdup(name) };
        return v;
}

static ht_grub_env *env_copy(const ht_grub_env *src) {
        ht_grub_env *e = ht_grub_env_new();
        for (size_t i = 0; src && i < src->n_vars; i++) {
                ht_grub_var *v = env_slot(e, src->vars[i].name);
                v->value = src->vars[i].value ? xstrdup(src->vars[i].value) : NULL;
                v->why = src->vars[i].why ? xstrdup(src->vars[i].why) : NULL;
                v->file = src->vars[i].file;
                v->line = src->vars[i].line;
        }
        return e;
}

/* Expand $NAME or ${NAME} at s[*i] (s[*i] == '$'). Returns false with
 * *why when the expansion needs the shell. */
static bool expand_dollar(const char *s, size_t end, size_t *i, const ht_grub_env *env, strbuf *out,
                          const char **why) {
        size_t p = *i + 1;
        if (p >= end) {
                strbuf_append(out, "$");
                *i = p;
                return true;
        }
        size_t name_start, name_end;
        if (s[p] == '(') {
                *why = "command substitution";
                return false;
        }
        if (s[p] == '{') {
                name_start = p + 1;
                name_end = name_start;
                while (name_end < end && is_name_char(s[name_end]))
                        name_end++;
                if (name_end == name_start || name_end >= end || s[name_end] != '}' ||
                    !is_name_start(s[name_start])) {
                        *why = "parameter expansion beyond ${NAME}";
                        return false;
                }
                *i = name_end + 1;
        } else if (is_name_start(s[p])) {
                name_start = p;
                name_end = p;
                while (name_end < end && is_name_char(s[name_end]))
                        name_end++;
                *i = name_end;
        } else if (isdigit((unsigned char)s[p]) || strchr("@*#?$!-", s[p])) {
                *why = "special shell parameter";
                return false;
        } else {
                strbuf_append(out, "$");
                *i = p;
                return true;
        }
        _cleanup_free_ char *name = xstrndup(s + name_start, name_end - name_start);
        const ht_grub_var *v = ht_grub_env_get(env, name);
        if (v && !v->value) {
                *why = "reference to a variable with an unknown value";
                return false;
        }
        if (v)
                strbuf_append(out, v->value);
        return true;
}

/* The value the shell assigns for the raw word s[start..end). */
static bool expand_value(const char *s, size_t start, size_t end, const ht_grub_env *env, char **ret,
                         const char **why) {
        strbuf out = {};
        size_t i = start;
        while (i < end) {
                char c = s[i];
                if (c == '\\') {
                        if (i + 1 < end && s[i + 1] != '\n')
                                strbuf_appendn(&out, s + i + 1, 1);
                        i += 2;
                } else if (c == '\'') {
                        size_t q = i + 1;
                        while (q < end && s[q] != '\'')
                                q++;
                        strbuf_appendn(&out, s + i + 1, q - i - 1);
                        i = q + 1;
                } else if (c == '"') {
                        for (i++; i < end && s[i] != '"';) {
                                if (s[i] == '\\' && i + 1 < end && strchr("$`\"\\\n", s[i + 1])) {
                                        if (s[i + 1] != '\n')
                                                strbuf_appendn(&out, s + i + 1, 1);
                                        i += 2;
                                } else if (s[i] == '$') {
                                        if (!expand_dollar(s, end, &i, env, &out, why))
                                                goto unknown;
                                } else if (s[i] == '`') {
                                        *why = "command substitution";
                                        goto unknown;
                                } else
                                        strbuf_appendn(&out, s + i++, 1);
                        }
                        i++;
                } else if (c == '$') {
                        if (!expand_dollar(s, end, &i, env, &out, why))
                                goto unknown;
                } else if (c == '`') {
                        *why = "command substitution";
                        goto unknown;
                } else
                        strbuf_appendn(&out, s + i++, 1);
        }
        if (!out.data)
                strbuf_append(&out, "");
        *ret = strbuf_steal(&out);
        return true;
unknown:
        strbuf_done(&out);
        return false;
}

static void eval_assignment(ht_grub_env *env, size_t file_index, const char *content,
                            const ht_grub_assignment *a) {
        char *value = NULL;
        const char *why = NULL;
        bool ok = !a->conditional &&
                  expand_value(content, a->value_start, a->value_end, env, &value, &why);
        ht_grub_var *v = env_slot(env, a->name);
        v->file = file_index;
        v->line = a->line;
        if (ok)
                v->value = value;
        else
                v->why = xasprintf("%u: %s", a->line,
                                   a->conditional ? "assigned inside a shell conditional or command list" : why);
}

int ht_grub_eval_file(ht_grub_env *env, size_t file_index, const char *content, size_t len,
                      char **ret_error) {
        _cleanup_(ht_grub_file_freep) ht_grub_file *f = NULL;
        int r = ht_grub_parse(content, len, &f, ret_error);
        if (r < 0)
                return r;
        for (size_t i = 0; i < f->n_assignments; i++)
                eval_assignment(env, file_index, content, &f->assignments[i]);
        return 0;
}

char **ht_grub_defaults_files(char *const *grubd_names) {
        char **l = NULL;
        strv_push(&l, HT_GRUB_DEFAULTS);
        for (size_t i = 0; grubd_names && grubd_names[i]; i++)
                if (endswith(grubd_names[i], ".cfg") && !strchr(grubd_names[i], '/'))
                        strv_pushf(&l, "%s/%s", HT_GRUB_DEFAULTS_DIR, grubd_names[i]);
        return l;
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
        _cleanup_(ht_grub_file_freep) ht_grub_file *f = NULL;
        _cleanup_(ht_grub_env_freep) ht_grub_env *env = env_copy(before);
        _cleanup_free_ char *err = NULL, *new_body = NULL, *old_value = NULL;
        _cleanup_strv_free_ char **hidden = NULL, **expected = NULL;
        ht_word_span *words = NULL;
        size_t n_words = 0, new_body_len;
        const char *why = NULL;
        int r;

        if (!is_name_start(*name)) {
                *ret_error = xasprintf("invalid variable name \"%s\"", name);
                return -EINVAL;
        }
        for (const char *p = name; *p; p++)
                if (!is_name_char(*p)) {
                        *ret_error = xasprintf("invalid variable name \"%s\"", name);
                        return -EINVAL;
                }
        for (size_t i = 0; i < n_ops; i++)
                if ((r = ht_cmdline_op_check(&ops[i], ret_error)) < 0)
                        return r;

        r = ht_grub_parse(content, len, &f, ret_error);
        if (r < 0)
                return r;

        ssize_t last = -1;
        for (size_t i = 0; i < f->n_assignments; i++)
                if (streq(f->assignments[i].name, name))
                        last = (ssize_t)i;

        strbuf out = {};
        if (last < 0) {
                /* No assignment here: append one, building on the value the
                 * earlier files left (if any) by reference. */
                const ht_grub_var *v = ht_grub_env_get(env, name);
                if (v && !v->value) {
                        *ret_error = xasprintf("%s is set in an earlier file in a way hosttune cannot "
                                               "compute (%s)", name, v->why);
                        return -EINVAL;
                }
                if (v && !isempty(v->value))
                        hidden = ht_cmdline_split(v->value);
                _cleanup_free_ char *ref = v && !isempty(v->value) ? xasprintf("$%s", name) : NULL;
                ht_word_span refw = { 0, ref ? strlen(ref) : 0, ref, true };
                r = ht_cmdline_edit_body(ref ? ref : "", ref ? strlen(ref) : 0, &refw, ref ? 1 : 0,
                                         hidden, ops, n_ops, &new_body, &new_body_len, &err);
                if (r < 0) {
                        *ret_error = TAKE_PTR(err);
                        return r;
                }
                if (ref ? streq(new_body, ref) : !*new_body) {
                        /* Nothing to add. */
                        *ret = xstrndup(content, len);
                        *ret_len = len;
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
        if (a->conditional) {
                *ret_error = xasprintf("%u: %s is assigned inside a shell conditional; edit it by hand",
                                       a->line, name);
                return -EINVAL;
        }
        for (ssize_t i = 0; i < last; i++)
                eval_assignment(env, 0, content, &f->assignments[i]);

        value_form form;
        size_t bs, be;
        if (classify_value(content, a->value_start, a->value_end, &form, &bs, &be, &why) < 0 ||
            body_words(content, bs, be, form, &words, &n_words, &why) < 0) {
                *ret_error = xasprintf("%u: cannot edit %s safely: %s", a->line, name, why);
                return -EINVAL;
        }
        if (!expand_value(content, a->value_start, a->value_end, env, &old_value, &why)) {
                *ret_error = xasprintf("%u: cannot edit %s safely: %s", a->line, name, why);
                r = -EINVAL;
                goto finish;
        }
        for (size_t i = 0; i < n_words; i++) {
                if (!words[i].opaque)
                        continue;
                _cleanup_free_ char *expanded = NULL;
                if (!expand_value(words[i].text, 0, strlen(words[i].text), env, &expanded, &why)) {
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
        r = ht_cmdline_edit_body(content + bs, be - bs, words, n_words, hidden, ops, n_ops,
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
                _cleanup_(ht_grub_env_freep) ht_grub_env *e_old = env_copy(before), *e_new = env_copy(before);
                _cleanup_free_ char *e1 = NULL, *e2 = NULL;
                if (ht_grub_eval_file(e_old, 0, content, len, &e1) < 0 ||
                    ht_grub_eval_file(e_new, 0, out.data, out.len, &e2) < 0) {
                        strbuf_done(&out);
                        *ret_error = xasprintf("internal error: edited %s does not parse", name);
                        r = -EINVAL;
                        goto finish;
                }
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
        r = 0;
finish:
        ht_word_spans_free(words, n_words);
        return r;
}
