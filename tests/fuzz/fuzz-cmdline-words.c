/* libFuzzer target for the kernel-word checks (issue 32): each line of
 * the input is a word key=value (or a flag), checked for every format
 * (ht_cmdline_word_check). Invariants:
 * - an accepted word has a name of [A-Za-z0-9_.-] and no blank, control
 *   or non-ASCII byte, quote, '$', backquote or backslash;
 * - every GRUB 2 format gives the same verdict, and accepts no operator
 *   of GRUB 2's script (; & | < > { }); legacy GRUB accepts all they do;
 * - a word accepted for grub.cfg, written onto a menu entry's linux line
 *   by the grub.cfg editor, comes back from a tokenizer of GRUB 2's
 *   script lexer (written here from grub-core/script/yylex.l, independent
 *   of the check) as one plain word equal to it, with the entry's block
 *   intact and no operator token anywhere;
 * - the same through /etc/default/grub: the value the shell assigns, put
 *   on a linux line as grub-mkconfig's 10_linux does, tokenizes to the
 *   words the edit asked for; and through a BLS options line, which
 *   GRUB's blscfg pastes into a menu entry's script. */
#include "config.h"

#include <ctype.h>

#include "edit-bls.h"
#include "edit-grub-cfg.h"
#include "edit-grub.h"
#include "fuzz-common.h"

/* ---- a tokenizer of GRUB 2's script (grub-core/script/yylex.l) ---------- */

typedef enum { T_WORD, T_KEYWORD, T_OP, T_NL, T_BAD } tok_kind;

typedef struct {
        tok_kind kind;
        char *text;     /* raw bytes of the token */
        bool plain;     /* a word of CHAR bytes only: no quote, escape or variable */
} tok;

/* CHAR = [^{}|&$;<> \t\n'"\\] */
static bool grub_char(char c) {
        return c && !strchr("{}|&$;<> \t\n'\"\\", c);
}

static bool grub_name_start(char c) {
        return isalpha((unsigned char)c) || c == '_';
}

/* Length of a VARIABLE at s ('$' first), 0 if none:
 * $NAME ${NAME} $DIGITS ${DIGITS} $? $# $* $@ ${?} ... */
static size_t grub_variable(const char *s) {
        const char *p = s + 1;
        bool braced = *p == '{';
        if (braced)
                p++;
        const char *start = p;
        if (grub_name_start(*p))
                while (isalnum((unsigned char)*p) || *p == '_')
                        p++;
        else if (isdigit((unsigned char)*p))
                while (isdigit((unsigned char)*p))
                        p++;
        else if (*p && strchr("?#*@", *p))
                p++;
        if (p == start)
                return 0;
        if (braced) {
                if (*p != '}')
                        return 0;
                p++;
        }
        return (size_t)(p - s);
}

static const char *const grub_keywords[] = {
        "[[", "]]", "case", "do", "done", "elif", "else", "esac", "fi", "for", "if", "in",
        "select", "then", "until", "while", "function",
};

static size_t tokenize(const char *s, tok **ret) {
        tok *t = NULL;
        size_t n = 0;
        for (const char *p = s; *p;) {
                tok k = {T_WORD, NULL, true};
                const char *start = p;
                if (*p == ' ' || *p == '\t') {
                        p++;
                        continue;
                }
                if (*p == '#') {        /* COMMENT: a '#' that starts a token */
                        while (*p && *p != '\n')
                                p++;
                        continue;
                }
                if (*p == '\n') {
                        k.kind = T_NL;
                        p++;
                } else if (strchr("|&;", *p) && p[1] == *p) {
                        k.kind = T_OP;
                        p += 2;
                } else if (strchr("|&;<>{}", *p)) {
                        k.kind = T_OP;
                        p++;
                } else {
                        /* WORD: (CHAR | DQSTR | SQSTR | ESC | VARIABLE | I18NSTR)+ */
                        while (*p) {
                                if (grub_char(*p)) {
                                        p++;
                                        continue;
                                }
                                if (strchr("\\'\"$", *p))
                                        k.plain = false;    /* a quote, escape or variable follows */
                                if (*p == '\\' && p[1]) {
                                        p += 2;
                                } else if (*p == '\'') {
                                        const char *q = strchr(p + 1, '\'');
                                        if (!q) {
                                                k.kind = T_BAD;
                                                p += strlen(p);
                                                break;
                                        }
                                        p = q + 1;
                                } else if (*p == '"' || (*p == '$' && p[1] == '"')) {
                                        p += *p == '$' ? 2 : 1;
                                        while (*p && *p != '"')
                                                p += *p == '\\' && p[1] ? 2 : 1;
                                        if (!*p) {
                                                k.kind = T_BAD;
                                                break;
                                        }
                                        p++;
                                } else if (*p == '$') {
                                        size_t v = grub_variable(p);
                                        if (!v) {
                                                k.kind = T_BAD;
                                                p++;
                                                break;
                                        }
                                        p += v;
                                } else
                                        break;
                        }
                        if (p == start) {       /* a lone '\' at the end: yylex's "." */
                                k.kind = T_BAD;
                                p++;
                        }
                }
                k.text = xstrndup(start, (size_t)(p - start));
                if (k.kind == T_WORD)
                        for (size_t i = 0; i < ELEMENTSOF(grub_keywords); i++)
                                if (streq(k.text, grub_keywords[i]))
                                        k.kind = T_KEYWORD;
                t = xrealloc(t, (n + 1) * sizeof(tok));
                t[n++] = k;
        }
        *ret = t;
        return n;
}

static void toks_free(tok *t, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(t[i].text);
        free(t);
}

/* An argument as GRUB's parser takes it: a word, or a keyword (parser.y's
 * "argument" rule) other than [[ ]]. */
static bool is_argument(const tok *t, const char *want) {
        if (t->kind == T_WORD)
                return t->plain && streq(t->text, want);
        return t->kind == T_KEYWORD && streq(t->text, want) && !streq(want, "[[") && !streq(want, "]]");
}

/* s tokenizes to "linux /vmlinuz ARGS... NL" with exactly the words
 * words[], each one plain argument, and no other token. */
static void assert_linux_line(const char *s, char *const *words) {
        tok *t;
        size_t n = tokenize(s, &t);
        size_t nw = strv_length((char **)words);
        FUZZ_ASSERT(n == 2 + nw + 1);
        FUZZ_ASSERT(is_argument(&t[0], "linux") && is_argument(&t[1], "/vmlinuz"));
        for (size_t i = 0; i < nw; i++)
                FUZZ_ASSERT(is_argument(&t[2 + i], words[i]));
        FUZZ_ASSERT(t[n - 1].kind == T_NL);
        toks_free(t, n);
}

/* ---- the checks ---------------------------------------------------------- */

static const ht_cmdline_format grub2_formats[] = {
        HT_CMDLINE_FMT_GRUB_CFG, HT_CMDLINE_FMT_GRUB_DEFAULTS, HT_CMDLINE_FMT_BLS,
        HT_CMDLINE_FMT_GRUBENV, HT_CMDLINE_FMT_KERNEL_CMDLINE,
};

static bool accepted(const ht_cmdline_op *op, ht_cmdline_format fmt) {
        char *err = NULL;
        int r = ht_cmdline_word_check(op, fmt, NULL, &err);
        FUZZ_ASSERT(r == 0 ? !err : r == -EINVAL && err && strstr(err, "kernel parameter"));
        free(err);
        return r == 0;
}

static void check_universal(const ht_cmdline_op *op) {
        FUZZ_ASSERT(*op->key);
        for (const char *p = op->key; *p; p++)
                FUZZ_ASSERT(isalnum((unsigned char)*p) || strchr("_.-", *p));
        for (const char *p = op->value; p && *p; p++) {
                unsigned char c = (unsigned char)*p;
                FUZZ_ASSERT(c > 0x20 && c < 0x7f && !strchr("\"'$`\\", c));
        }
}

static void check_grub_cfg(const ht_cmdline_op *op) {
        static const char cfg[] = "menuentry 'Linux' {\n\tlinux /vmlinuz root=/dev/sda1 ro\n}\n";
        char *out = NULL, *err = NULL;
        size_t len = 0, n_lines = 0;
        FUZZ_ASSERT(ht_grub_cfg_edit(cfg, strlen(cfg), HT_GRUB_CFG_LINUX, op, 1, &out, &len, &n_lines, &err) == 0);
        FUZZ_ASSERT(n_lines == 1);
        /* the linux line: the words the edit asked for, nothing else */
        const char *body = strchr(out, '\n');
        const char *close = strrchr(out, '}');
        FUZZ_ASSERT(body && close && close > body);
        body++;
        char *line = xstrndup(body, (size_t)(close - body));
        char **before = ht_cmdline_split("root=/dev/sda1 ro");
        char **want = ht_cmdline_apply(before, op, 1);
        assert_linux_line(line + strspn(line, "\t"), want);
        /* the whole file: menuentry 'Linux' { NL ... NL } NL, no operator inside */
        tok *t;
        size_t n = tokenize(out, &t);
        FUZZ_ASSERT(n >= 6 && is_argument(&t[0], "menuentry") && t[1].kind == T_WORD && t[2].kind == T_OP &&
                    streq(t[2].text, "{") && t[n - 2].kind == T_OP && streq(t[n - 2].text, "}") &&
                    t[n - 1].kind == T_NL);
        for (size_t i = 3; i + 2 < n; i++)
                FUZZ_ASSERT(t[i].kind != T_OP && t[i].kind != T_BAD);
        toks_free(t, n);
        strv_free(before);
        strv_free(want);
        free(line);
        free(out);
}

/* What 10_linux writes for GRUB_CMDLINE_LINUX: "linux /vmlinuz ${args}",
 * the value pasted unquoted. */
static void check_grub_defaults(const ht_cmdline_op *op) {
        static const char defaults[] = "GRUB_CMDLINE_LINUX=\"quiet\"\n";
        char *out = NULL, *err = NULL;
        size_t len = 0;
        FUZZ_ASSERT(ht_grub_edit(defaults, strlen(defaults), "GRUB_CMDLINE_LINUX", NULL, op, 1, &out, &len, &err) == 0);
        ht_grub_env *env = ht_grub_env_new();
        FUZZ_ASSERT(ht_grub_eval_file(env, 0, out, len, &err) == 0);
        const ht_grub_var *v = ht_grub_env_get(env, "GRUB_CMDLINE_LINUX");
        FUZZ_ASSERT(v && v->value);
        char **before = ht_cmdline_split("quiet");
        char **want = ht_cmdline_apply(before, op, 1);
        char *line = xasprintf("linux /vmlinuz %s\n", v->value);
        assert_linux_line(line, want);
        free(line);
        strv_free(before);
        strv_free(want);
        ht_grub_env_free(env);
        free(out);
}

/* blscfg: "linux %s%s%s%s\n" with the options line pasted in. */
static void check_bls(const ht_cmdline_op *op) {
        static const char entry[] = "title Linux\nlinux /vmlinuz\noptions quiet\n";
        char *out = NULL, *err = NULL;
        size_t len = 0;
        FUZZ_ASSERT(ht_bls_edit_options(entry, strlen(entry), NULL, op, 1, &out, &len, &err) == 0);
        const char *opt = strstr(out, "options ");
        FUZZ_ASSERT(opt);
        opt += strlen("options ");
        char *value = xstrndup(opt, strcspn(opt, "\n"));
        char **before = ht_cmdline_split("quiet");
        char **want = ht_cmdline_apply(before, op, 1);
        char *line = xasprintf("linux /vmlinuz %s\n", value);
        assert_linux_line(line, want);
        free(line);
        free(value);
        strv_free(before);
        strv_free(want);
        free(out);
}

static void check_word(const char *word) {
        const char *eq = strchr(word, '=');
        char *key = eq ? xstrndup(word, (size_t)(eq - word)) : xstrdup(word);
        ht_cmdline_op op = {HT_CMDLINE_ADD, key, eq ? eq + 1 : NULL};
        bool legacy = accepted(&op, HT_CMDLINE_FMT_GRUB_LEGACY);
        bool grub2 = accepted(&op, grub2_formats[0]);
        for (size_t i = 1; i < ELEMENTSOF(grub2_formats); i++)
                FUZZ_ASSERT(accepted(&op, grub2_formats[i]) == grub2);
        FUZZ_ASSERT(!grub2 || legacy);
        if (legacy)
                check_universal(&op);
        if (grub2) {
                FUZZ_ASSERT(!op.value || !strpbrk(op.value, ";&|<>{}"));
                check_grub_cfg(&op);
                check_grub_defaults(&op);
                check_bls(&op);
        }
        free(key);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = xmalloc(size + 1);
        memcpy(text, data, size);
        text[size] = 0;
        /* each line a word (NUL ends the input: words are C strings) */
        size_t n = 0;
        for (char *p = text, *nl; n < 16; p = nl + 1, n++) {
                nl = strchr(p, '\n');
                if (nl)
                        *nl = 0;
                if (strlen(p) <= 4096)
                        check_word(p);
                if (!nl)
                        break;
        }
        free(text);
        return 0;
}
