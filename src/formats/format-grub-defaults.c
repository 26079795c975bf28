/* GRUB defaults files: a small reader of POSIX shell syntax, enough to
 * find plain assignments and their quoted values, never to run them.
 * Anything beyond that (commands, conditionals, substitutions) is noted,
 * so the values that depend on it are reported as unknown instead of
 * guessed. The one reader of these files (format-grub-defaults.h). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "format-grub-defaults.h"
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

static void add_assignment(ht_grub_file *f, ht_grub_assignment a) {
        if (f->n_assignments == f->cap) {
                f->cap = f->cap ? 2 * f->cap : 16;
                f->assignments = xrealloc(f->assignments, f->cap * sizeof(ht_grub_assignment));
        }
        f->assignments[f->n_assignments++] = a;
}

static bool word_is(const scanner *sc, size_t start, const char *kw) {
        size_t n = strlen(kw);
        return sc->pos - start == n && memcmp(sc->s + start, kw, n) == 0;
}

static unsigned long parse_count;

unsigned long ht_grub_parse_count(void) {
        return parse_count;
}

const ht_grub_file *ht_grub_file_ref(const ht_grub_file *f) {
        ((ht_grub_file *)f)->refs++; /* the count only: the parse stays as it is */
        return f;
}

void ht_grub_file_free(const ht_grub_file *cf) {
        ht_grub_file *f = (ht_grub_file *)cf;
        if (!f || --f->refs > 0)
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
        f->refs = 1;
        parse_count++;
        unsigned depth = 0;     /* nesting of compound commands and subshells */
        /* the depth of a `for ... in /etc/default/grub.d/ *.cfg` loop (the
         * Arch wiki's, in /etc/default/grub), 0 none: its `. "$x"` reads
         * the files the boot facts read after this one */
        unsigned grub_d_loop = 0;
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
                /* in the arguments of `unset` (functions: after -f); a
                 * redirection's target is none of them */
                bool unsetting = false, unset_functions = false, redirect_target = false;
                /* in the arguments of readonly, declare, typeset or local:
                 * builtins that set or pin a name */
                bool declaring = false;
                size_t pending_start = f->n_assignments;

                for (;;) {
                        skip_blanks(&sc);
                        if (sc.pos >= len)
                                break;
                        char c = content[sc.pos];
                        if (c == '\n' || c == ';')
                                break;
                        if (c == '#') {
                                /* memchr: the shipped file is mostly comment,
                                 * and each plan parses it six times */
                                const char *nl = memchr(content + sc.pos, '\n', len - sc.pos);
                                sc.pos = nl ? (size_t)(nl - content) : len;
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
                        if (c == '<' && sc.pos + 1 < len && content[sc.pos + 1] == '<') {
                                r = scan_error(&sc, sc.line, "a here-document (<<): its lines look like "
                                               "assignments and are not, and hosttune does not follow shell "
                                               "code; remove it or edit the file by hand");
                                goto fail;
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
                                redirect_target = c == '<' || c == '>';
                                command = true;
                                continue;
                        }

                        size_t start = sc.pos;
                        unsigned line = sc.line;
                        size_t p = start;
                        if (!command && is_name_start(content[p])) {
                                while (p < len && is_name_char(content[p]))
                                        p++;
                                bool append = p + 1 < len && content[p] == '+' && content[p + 1] == '=';
                                if (append)
                                        p++;
                                if (p < len && content[p] == '=') {
                                        sc.pos = p + 1;
                                        if ((r = scan_word(&sc)) < 0)
                                                goto fail;
                                        add_assignment(f, (ht_grub_assignment){
                                                .name = xstrndup(content + start, p - start - append),
                                                .line = line,
                                                .value_start = p + 1,
                                                .value_end = sc.pos,
                                                .exported = exported,
                                                .conditional = depth > 0 || cond_once,
                                                .append = append,
                                        });
                                        first = false;
                                        continue;
                                }
                        }
                        if ((r = scan_word(&sc)) < 0)
                                goto fail;
                        if (command && declaring) {
                                /* NAME or NAME=value: the name's value is the
                                 * builtin's from here on (readonly also makes a
                                 * later assignment abort grub-mkconfig) */
                                size_t e = start;
                                while (e < sc.pos && is_name_char(content[e]))
                                        e++;
                                if (content[start] != '-' && is_name_start(content[start]) && e > start &&
                                    (e == sc.pos || content[e] == '=' || (content[e] == '+' && e + 1 < sc.pos &&
                                                                          content[e + 1] == '=')))
                                        add_assignment(f, (ht_grub_assignment){
                                                .name = xstrndup(content + start, e - start),
                                                .line = line,
                                                .value_start = start,
                                                .value_end = start,
                                                .conditional = depth > 0 || cond_once,
                                                .unset = true,
                                                .declared = true,
                                        });
                                continue;
                        }
                        if (command && unsetting) {
                                bool plain_name = is_name_start(content[start]);
                                for (size_t i = start; i < sc.pos; i++)
                                        plain_name = plain_name && is_name_char(content[i]);
                                bool fd = sc.pos < len && strchr("<>", content[sc.pos]);
                                for (size_t i = start; fd && i < sc.pos; i++)
                                        fd = isdigit((unsigned char)content[i]);
                                if (redirect_target || fd)
                                        redirect_target = false;  /* 2>/dev/null */
                                else if (content[start] == '-')
                                        unset_functions = unset_functions || memchr(content + start, 'f', sc.pos - start);
                                else if (!plain_name) {
                                        r = scan_error(&sc, line, "unset of a name hosttune cannot read "
                                                       "without running the shell");
                                        goto fail;
                                } else if (!unset_functions)
                                        add_assignment(f, (ht_grub_assignment){
                                                .name = xstrndup(content + start, sc.pos - start),
                                                .line = line,
                                                .value_start = start,
                                                .value_end = start,
                                                .conditional = depth > 0 || cond_once,
                                                .unset = true,
                                        });
                                continue;
                        }
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
                                      word_is(&sc, start, "until") || word_is(&sc, start, "{"))) {
                                depth++;
                                if (!grub_d_loop && word_is(&sc, start, "for")) {
                                        const char *nl = memchr(content + sc.pos, '\n', len - sc.pos);
                                        size_t n = nl ? (size_t)(nl - (content + sc.pos)) : len - sc.pos;
                                        if (memmem(content + sc.pos, n, "/default/grub.d/", 16))
                                                grub_d_loop = depth;
                                }
                        } else if (first && (word_is(&sc, start, "fi") || word_is(&sc, start, "esac") ||
                                           word_is(&sc, start, "done") || word_is(&sc, start, "}"))) {
                                if (depth > 0)
                                        depth--;
                                if (depth < grub_d_loop)
                                        grub_d_loop = 0;
                        }
                        /* A command: assignments before it only reach its
                         * environment, so they are not variables of the file. */
                        for (size_t i = pending_start; i < f->n_assignments; i++)
                                free(f->assignments[i].name);
                        f->n_assignments = pending_start;
                        if (!f->complex_line)
                                f->complex_line = line;
                        if (first && !grub_d_loop && (word_is(&sc, start, ".") || word_is(&sc, start, "source") ||
                                                      word_is(&sc, start, "eval")))
                                add_assignment(f, (ht_grub_assignment){
                                        .name = xstrdup(""),
                                        .line = line,
                                        .value_start = start,
                                        .value_end = start,
                                        .conditional = depth > 0 || cond_once,
                                        .opaque = true,
                                });
                        unsetting = first && word_is(&sc, start, "unset");
                        declaring = first && (word_is(&sc, start, "readonly") || word_is(&sc, start, "declare") ||
                                              word_is(&sc, start, "typeset") || word_is(&sc, start, "local"));
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
        ht_arena_done(&e->arena);
        strbuf_done(&e->expand);
        free(e->vars);
        free(e->slots);
        free(e);
}

static size_t name_hash(const char *s) {
        size_t h = 14695981039346656037ULL;     /* FNV-1a */
        for (; *s; s++)
                h = (h ^ (unsigned char)*s) * 1099511628211ULL;
        return h;
}

/* The slot holding name, or the empty one where it would go. */
static size_t *env_find_slot(const ht_grub_env *e, const char *name) {
        size_t mask = e->n_slots - 1;
        for (size_t i = name_hash(name) & mask;; i = (i + 1) & mask)
                if (!e->slots[i] || streq(e->vars[e->slots[i] - 1].name, name))
                        return &e->slots[i];
}

const ht_grub_var *ht_grub_env_get(const ht_grub_env *e, const char *name) {
        if (!e)
                return NULL;
        size_t k = e->n_slots ? *env_find_slot(e, name) : 0;
        return k ? &e->vars[k - 1] : e->opaque ? &e->opaque_var : NULL;
}

static ht_grub_var *env_slot(ht_grub_env *e, const char *name) {
        /* the variable itself, never the stand-in for names after a
         * sourced file (ht_grub_env_get's opaque_var) */
        size_t k = e->n_slots ? *env_find_slot(e, name) : 0;
        ht_grub_var *v = k ? &e->vars[k - 1] : NULL;
        if (v) {
                v->value = v->why = v->if_run = v->if_not = NULL;
                return v;
        }
        if (2 * (e->n_vars + 1) > e->n_slots) {
                /* at most half full: probes stay short */
                free(e->slots);
                e->n_slots = e->n_slots ? 2 * e->n_slots : 64;
                e->slots = xcalloc(e->n_slots, sizeof(size_t));
                for (size_t i = 0; i < e->n_vars; i++)
                        *env_find_slot(e, e->vars[i].name) = i + 1;
        }
        if (e->n_vars == e->cap) {
                e->cap = e->cap ? 2 * e->cap : 16;
                e->vars = xrealloc(e->vars, e->cap * sizeof(ht_grub_var));
        }
        *env_find_slot(e, name) = e->n_vars + 1;
        v = &e->vars[e->n_vars++];
        *v = (ht_grub_var){ .name = ht_arena_strdup(&e->arena, name) };
        return v;
}

ht_grub_env *ht_grub_env_copy(const ht_grub_env *src) {
        ht_grub_env *e = ht_grub_env_new();
        if (src && src->opaque) {
                e->opaque = true;
                e->opaque_var = src->opaque_var;
                e->opaque_var.why = ht_arena_strdup(&e->arena, src->opaque_var.why);
        }
        for (size_t i = 0; src && i < src->n_vars; i++) {
                ht_grub_var *v = env_slot(e, src->vars[i].name);
                v->value = ht_arena_strdup(&e->arena, src->vars[i].value);
                v->why = ht_arena_strdup(&e->arena, src->vars[i].why);
                v->if_run = ht_arena_strdup(&e->arena, src->vars[i].if_run);
                v->if_not = ht_arena_strdup(&e->arena, src->vars[i].if_not);
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

/* The value the shell assigns for the raw word s[start..end), appended
 * to out; false (out holding a part) when that needs the shell. */
static bool expand_into(const char *s, size_t start, size_t end, const ht_grub_env *env, strbuf *o,
                        const char **why) {
        size_t i = start;
        while (i < end) {
                char c = s[i];
                if (c == '\\') {
                        if (i + 1 < end && s[i + 1] != '\n')
                                strbuf_appendn(o, s + i + 1, 1);
                        i += 2;
                } else if (c == '\'') {
                        size_t q = i + 1;
                        while (q < end && s[q] != '\'')
                                q++;
                        strbuf_appendn(o, s + i + 1, q - i - 1);
                        i = q + 1;
                } else if (c == '"') {
                        for (i++; i < end && s[i] != '"';) {
                                if (s[i] == '\\' && i + 1 < end && strchr("$`\"\\\n", s[i + 1])) {
                                        if (s[i + 1] != '\n')
                                                strbuf_appendn(o, s + i + 1, 1);
                                        i += 2;
                                } else if (s[i] == '$') {
                                        if (!expand_dollar(s, end, &i, env, o, why))
                                                goto unknown;
                                } else if (s[i] == '`') {
                                        *why = "command substitution";
                                        goto unknown;
                                } else
                                        strbuf_appendn(o, s + i++, 1);
                        }
                        i++;
                } else if (c == '$') {
                        if (!expand_dollar(s, end, &i, env, o, why))
                                goto unknown;
                } else if (c == '`') {
                        *why = "command substitution";
                        goto unknown;
                } else
                        strbuf_appendn(o, s + i++, 1);
        }
        return true;
unknown:
        return false;
}

bool ht_grub_expand_value(const char *s, size_t start, size_t end, const ht_grub_env *env, char **ret,
                          const char **why) {
        strbuf out = {};
        if (!expand_into(s, start, end, env, &out, why)) {
                strbuf_done(&out);
                return false;
        }
        if (!out.data)
                strbuf_append(&out, "");
        *ret = strbuf_steal(&out);
        return true;
}

void ht_grub_eval_assignment(ht_grub_env *env, size_t file_index, const char *content,
                             const ht_grub_assignment *a) {
        if (a->opaque) {
                /* whatever the sourced file or the eval sets: every value
                 * so far, and every name not assigned again, unknown */
                char *why = ht_arena_printf(&env->arena, "%u: a file sourced or an eval here (., source, eval), "
                                            "which hosttune does not follow, may set it", a->line);
                for (size_t i = 0; i < env->n_vars; i++) {
                        ht_grub_var *v = &env->vars[i];
                        *v = (ht_grub_var){.name = v->name, .why = why, .file = file_index, .line = a->line};
                }
                env->opaque = true;
                env->opaque_var = (ht_grub_var){.name = (char *)"", .why = why, .file = file_index, .line = a->line};
                return;
        }
        const char *why = a->declared ? "set or made read-only by readonly, declare, typeset or local here, which "
                                        "hosttune does not follow"
                          : a->unset  ? "unset here, which hosttune does not follow"
                          : a->append ? "appended to with +=, which bash (RHEL's and SUSE's /bin/sh) "
                                        "does and dash (Debian's) does not"
                                      : NULL;
        /* expanded in the env's buffer, kept for every assignment, and
         * copied into its arena: no string of its own */
        strbuf *x = &env->expand;
        x->len = 0;
        bool ok = !a->conditional && !a->unset && !a->append &&
                  expand_into(content, a->value_start, a->value_end, env, x, &why);
        /* a conditional assignment of a computable value over a known one
         * (unset: empty): both outcomes, for the readers that can use them */
        const ht_grub_var *prev = ht_grub_env_get(env, a->name);
        const char *dummy = NULL;
        char *if_run = NULL, *if_not = NULL;
        if (a->conditional && !a->unset && !a->append && (!prev || prev->value) &&
            expand_into(content, a->value_start, a->value_end, env, x, &dummy)) {
                if_run = ht_arena_strndup(&env->arena, x->data ? x->data : "", x->len);
                if_not = ht_arena_strdup(&env->arena, prev ? prev->value : "");
        }
        ht_grub_var *v = env_slot(env, a->name);
        v->if_run = if_run;
        v->if_not = if_not;
        v->file = file_index;
        v->line = a->line;
        if (ok)
                v->value = ht_arena_strndup(&env->arena, x->data ? x->data : "", x->len);
        else
                v->why = ht_arena_printf(&env->arena, "%u: %s", a->line,
                                   a->conditional && !a->unset ? "assigned inside a shell conditional or command list"
                                                               : why);
}

void ht_grub_eval_parsed(ht_grub_env *env, size_t file_index, const char *content, const ht_grub_file *f) {
        for (size_t i = 0; i < f->n_assignments; i++)
                ht_grub_eval_assignment(env, file_index, content, &f->assignments[i]);
}

int ht_grub_eval_file(ht_grub_env *env, size_t file_index, const char *content, size_t len,
                      char **ret_error) {
        _cleanup_(ht_grub_file_freep) ht_grub_file *f = NULL;
        int r = ht_grub_parse(content, len, &f, ret_error);
        if (r < 0)
                return r;
        ht_grub_eval_parsed(env, file_index, content, f);
        return 0;
}

static void grub_file_unref(void *f) {
        ht_grub_file_free(f);
}

const ht_parsed_kind ht_grub_parsed_kind = {"GRUB defaults", grub_file_unref};

int ht_grub_parse_host(const ht_context *c, const char *path, const char *content, size_t len,
                       const ht_grub_file **ret, char **ret_error) {
        /* kept only for the very bytes given: an edit of them parses anew */
        const ht_grub_file *kept = ht_context_parsed(c, path, &ht_grub_parsed_kind, content, len);
        if (kept) {
                *ret = ht_grub_file_ref(kept);
                return 0;
        }
        ht_grub_file *f = NULL;
        int r = ht_grub_parse(content, len, &f, ret_error);
        if (r < 0)
                return r;
        ht_context_keep_parsed(c, path, &ht_grub_parsed_kind, (void *)ht_grub_file_ref(f), content, len);
        *ret = f;
        return 0;
}

int ht_grub_eval_host(const ht_context *c, const char *path, ht_grub_env *env, size_t file_index,
                      const char *content, size_t len, char **ret_error) {
        const ht_grub_file *f = NULL;
        int r = ht_grub_parse_host(c, path, content, len, &f, ret_error);
        if (r < 0)
                return r;
        ht_grub_eval_parsed(env, file_index, content, f);
        ht_grub_file_free(f);
        return 0;
}

char **ht_grub_defaults_files(char *const *grubd_names) {
        char **l = NULL;
        strv_push(&l, HT_GRUB_DEFAULTS);
        for (size_t i = 0; grubd_names && grubd_names[i]; i++)
                /* the shell's glob: '*' matches no leading '.' */
                if (endswith(grubd_names[i], ".cfg") && !strchr(grubd_names[i], '/') && grubd_names[i][0] != '.')
                        strv_pushf(&l, "%s/%s", HT_GRUB_DEFAULTS_DIR, grubd_names[i]);
        return l;
}


const char *const ht_grub_mkconfig_paths[] = {
        "/usr/sbin/grub2-mkconfig", "/sbin/grub2-mkconfig", "/usr/sbin/grub-mkconfig", "/sbin/grub-mkconfig", NULL,
};
