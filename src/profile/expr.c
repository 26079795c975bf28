/* The expression parser: a recursive-descent parser that evaluates as
 * it parses. Branches that must not run (the right side of a decided && or
 * ||, the untaken arm of if()) are parsed in "skip" mode, which checks the
 * syntax but looks nothing up and computes nothing, so a guard such as
 * `defined(x) && x > 0` never touches an unknown x. Compiling
 * (ht_expr_compile) is a parse in skip mode that also builds the tree
 * expr-tree.c evaluates, with the same operators and functions (below). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "expr.h"
#include "expr-internal.h"
#include "regex-python.h"
#include "util.h"

#define MAX_STR_LEN (1024 * 1024)
#define SNIPPET_WIDTH 72

/* ---- values ---- */

void ht_value_done(ht_value *v) {
        if (!v)
                return;
        free(v->str);
        *v = ht_value_null();
}

ht_value ht_value_int(int64_t n) {
        return (ht_value){ .type = HT_VAL_INT, .num = n, .den = 1 };
}

ht_value ht_value_bool(bool b) {
        return (ht_value){ .type = HT_VAL_BOOL, .num = b, .den = 1 };
}

ht_value ht_value_str(const char *s) {
        return (ht_value){ .type = HT_VAL_STR, .den = 1, .str = xstrdup(s ? s : "") };
}

ht_value ht_value_null(void) {
        return (ht_value){ .type = HT_VAL_NULL, .den = 1 };
}

ht_value ht_value_copy(const ht_value *v) {
        ht_value c = *v;
        if (c.type == HT_VAL_STR)
                c.str = xstrdup(v->str ? v->str : "");
        else
                c.str = NULL;
        return c;
}

const char *ht_value_type_name(ht_value_type t) {
        switch (t) {
        case HT_VAL_INT: return "integer";
        case HT_VAL_BOOL: return "boolean";
        case HT_VAL_STR: return "string";
        case HT_VAL_NULL: break;
        }
        return "null";
}

int ht_value_to_string(const ht_value *v, char **ret) {
        switch (v->type) {
        case HT_VAL_INT:
                if (v->den != 1)
                        return -EDOM;
                *ret = xasprintf("%" PRId64, v->num);
                return 0;
        case HT_VAL_BOOL:
                *ret = xstrdup(v->num ? "true" : "false");
                return 0;
        case HT_VAL_STR:
                *ret = xstrdup(v->str ? v->str : "");
                return 0;
        case HT_VAL_NULL:
                break;
        }
        return -ENODATA;
}

/* ---- literals ---- */

ht_value ht_value_parse_literal(const char *s) {
        if (!s)
                return ht_value_null();
        if (streq(s, "true"))
                return ht_value_bool(true);
        if (streq(s, "false"))
                return ht_value_bool(false);
        bool neg = s[0] == '-';
        int64_t v;
        if (expr_parse_number(s + neg, strlen(s + neg), &v) == 0)
                return ht_value_int(neg ? -v : v);
        return ht_value_str(s);
}

/* ---- lexer ---- */

/* Room for need elements of size in *buf, which starts in the caller's
 * stack buffer (*heap false) and moves to the heap when that is full: a
 * plan compiles its user files' expressions with no allocation here. */
static void *grow(void *buf, bool *heap, size_t cap, size_t need, size_t size, size_t *ret_cap) {
        size_t n = cap * 2 > need ? cap * 2 : need;
        void *b;
        if (*heap)
                b = xrealloc(buf, n * size);
        else {
                b = xmalloc(n * size);
                memcpy(b, buf, cap * size);
                *heap = true;
        }
        *ret_cap = n;
        return b;
}

/* Append a node with its children; returns its index. */
static uint32_t emit(parser *p, ht_expr_node n, const uint32_t *kids, size_t n_kids) {
        size_t cap;
        if (p->n_kids + n_kids > p->cap_kids) {
                p->kids = grow(p->kids, &p->kids_heap, p->cap_kids, p->n_kids + n_kids, sizeof(*p->kids), &cap);
                p->cap_kids = (uint32_t)cap;
        }
        n.kids = p->n_kids;
        n.n_kids = (uint16_t)n_kids;
        if (n_kids)
                memcpy(p->kids + p->n_kids, kids, n_kids * sizeof(*kids));
        p->n_kids += (uint32_t)n_kids;
        if (p->n_nodes == p->cap_nodes) {
                p->nodes = grow(p->nodes, &p->nodes_heap, p->cap_nodes, p->n_nodes + 1, sizeof(*p->nodes), &cap);
                p->cap_nodes = (uint32_t)cap;
        }
        p->nodes[p->n_nodes] = n;
        return p->n_nodes++;
}

/* A chain's operands while compiling: on the stack unless long. */
typedef struct {
        uint32_t *v;
        size_t n, cap;
        bool heap;
        uint32_t small[16];
} chain;

static void chain_init(chain *c, uint32_t first) {
        c->v = c->small;
        c->cap = ELEMENTSOF(c->small);
        c->heap = false;
        c->v[0] = first;
        c->n = 1;
}

static void chain_push(chain *c, uint32_t id) {
        if (c->n == c->cap)
                c->v = grow(c->v, &c->heap, c->cap, c->n + 1, sizeof(*c->v), &c->cap);
        c->v[c->n++] = id;
}

static void chain_done(chain *c) {
        if (c->heap)
                free(c->v);
}

/* s[0..len) kept for a node: its offset among the strings. */
static int64_t keep_str(parser *p, const char *s, size_t len) {
        if (p->n_strs + len + 1 > p->cap_strs)
                p->strs = grow(p->strs, &p->strs_heap, p->cap_strs, p->n_strs + len + 1, 1, &p->cap_strs);
        size_t at = p->n_strs;
        memcpy(p->strs + at, s, len);
        p->strs[at + len] = 0;
        p->n_strs += len + 1;
        return (int64_t)at;
}

/* A node with no children at pos; a string node's str is kept (offset in
 * num until the tree is finished). */
static uint32_t emit_leaf(parser *p, ht_expr_kind kind, size_t pos, int64_t num, const char *str) {
        if (str)
                num = keep_str(p, str, strlen(str));
        return emit(p, (ht_expr_node){ .kind = kind, .pos = (uint32_t)pos, .start = (uint32_t)pos,
                                       .num = num }, NULL, 0);
}

/* Write a one-line excerpt of the source around pos into b, and a caret
 * line under pos. Control characters become spaces so the caret lines up. */
static void append_snippet(strbuf *b, const char *src, size_t len, size_t pos) {
        size_t start = 0, end = len;
        if (len > SNIPPET_WIDTH) {
                start = pos > SNIPPET_WIDTH / 2 ? pos - SNIPPET_WIDTH / 2 : 0;
                end = start + SNIPPET_WIDTH;
                if (end > len) {
                        end = len;
                        start = len - SNIPPET_WIDTH;
                }
        }
        const char *pre = start > 0 ? "..." : "", *post = end < len ? "..." : "";
        strbuf_appendf(b, "\n    %s", pre);
        for (size_t i = start; i < end; i++) {
                char c = src[i];
                strbuf_appendn(b, (unsigned char)c < 0x20 || c == 0x7f ? " " : &c, 1);
        }
        strbuf_appendf(b, "%s\n    ", post);
        for (size_t i = 0; i < strlen(pre) + (pos - start); i++)
                strbuf_append(b, " ");
        strbuf_append(b, "^");
}

_printf_(4, 5)
static int fail(parser *p, int r, size_t pos, const char *fmt, ...) {
        if (p->error)
                return r;   /* keep the first, innermost message */
        va_list ap;
        va_start(ap, fmt);
        _cleanup_free_ char *msg = xvasprintf(fmt, ap);
        va_end(ap);
        if (pos > p->len)
                pos = p->len;
        strbuf b = {0};
        strbuf_appendf(&b, "column %zu: %s", pos + 1, msg);
        append_snippet(&b, p->src, p->len, pos);
        p->error = strbuf_steal(&b);
        p->error_pos = pos;
        return r;
}

/* The token's text, shortened, for messages. */
static char *tok_text(const parser *p) {
        if (p->tok.type == T_END)
                return xstrdup("end of expression");
        size_t n = p->tok.len > 32 ? 32 : p->tok.len;
        return xasprintf("'%.*s%s'", (int)n, p->src + p->tok.pos, p->tok.len > n ? "..." : "");
}

/* The bytes of a NAME: 1 a letter or '_', 2 a digit. ASCII, as
 * isalnum() is in the C locale hosttune runs in (it never calls
 * setlocale()), one load a byte: a plan lexes some 8,000 bytes of names. */
static const unsigned char name_class[256] = {
        ['0'] = 2, ['1'] = 2, ['2'] = 2, ['3'] = 2, ['4'] = 2, ['5'] = 2, ['6'] = 2, ['7'] = 2,
        ['8'] = 2, ['9'] = 2, ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1,
        ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1,
        ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1,
        ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1, ['_'] = 1, ['a'] = 1, ['b'] = 1, ['c'] = 1,
        ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1, ['k'] = 1,
        ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1,
        ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
};

static inline bool is_digit(char c) {
        return name_class[(unsigned char)c] == 2;
}

static inline bool is_name_start(char c) {
        return name_class[(unsigned char)c] == 1;
}

static inline bool is_name_char(char c) {
        return name_class[(unsigned char)c] != 0;
}

static int lex_string(parser *p) {
        strbuf b = {0};
        size_t i = p->pos + 1;
        for (;; i++) {
                /* the run of plain bytes up to the next quote, backslash
                 * or control character, appended at once */
                size_t run = i;
                while (run < p->len && p->src[run] != '"' && p->src[run] != '\\' &&
                       ((unsigned char)p->src[run] >= 0x20 || p->src[run] == '\t'))
                        run++;
                if (run > i) {
                        strbuf_appendn(&b, p->src + i, run - i);
                        i = run;
                }
                if (i >= p->len) {
                        strbuf_done(&b);
                        return fail(p, -EINVAL, p->pos, "unterminated string");
                }
                char c = p->src[i];
                if (c == '"')
                        break;
                if ((unsigned char)c < 0x20 && c != '\t') {
                        strbuf_done(&b);
                        return fail(p, -EINVAL, i, "control character in string");
                }
                if (c == '\\') {
                        char e = i + 1 < p->len ? p->src[i + 1] : 0;
                        if (e != '"' && e != '\\') {
                                strbuf_done(&b);
                                return fail(p, -EINVAL, i,
                                            "unknown escape in string (only \\\" and \\\\ are allowed)");
                        }
                        c = e;
                        i++;
                }
                strbuf_appendn(&b, &c, 1);
        }
        p->tok.type = T_STR;
        p->tok.len = i + 1 - p->pos;
        p->tok.str = strbuf_steal(&b);
        return 0;
}

/* Read the next token into p->tok. */
static int lex(parser *p) {
        free(p->tok.str);
        p->tok = (token){0};

        while (p->pos < p->len && (p->src[p->pos] == ' ' || p->src[p->pos] == '\t' ||
                                   p->src[p->pos] == '\r' || p->src[p->pos] == '\n'))
                p->pos++;
        p->tok.pos = p->pos;
        if (p->pos >= p->len) {
                p->tok.type = T_END;
                return 0;
        }

        const char *s = p->src + p->pos;
        size_t rest = p->len - p->pos;
        char c = s[0], c1 = rest > 1 ? s[1] : 0;
        int r = 0;

        /* the source ends in a NUL (len is its strlen), which is no name
         * byte: the scans below stop there without a bound to check */
        if (is_digit(c)) {
                size_t n = 0;
                while (is_name_char(s[n]))
                        n++;
                p->tok.type = T_NUM;
                p->tok.len = n;
                r = expr_parse_number(s, n, &p->tok.num);
                if (r == -ERANGE)
                        return fail(p, r, p->pos, "integer overflow in '%.*s'", (int)n, s);
                if (r < 0)
                        return fail(p, r, p->pos,
                                    "bad number '%.*s' (units are K, M, G, T, P, E, optionally followed by B or iB)",
                                    (int)(n > 32 ? 32 : n), s);
        } else if (is_name_start(c)) {
                size_t n = 0;
                for (;;) {
                        while (is_name_char(s[n]))
                                n++;
                        if (s[n] == '.' && is_name_char(s[n + 1]))
                                n++;
                        else
                                break;
                }
                p->tok.type = T_NAME;
                p->tok.len = n;
        } else if (c == '"') {
                r = lex_string(p);
                if (r < 0)
                        return r;
        } else {
                /* one switch, not a table search: plans lex about a
                 * thousand tokens */
                tok_type t = T_END;
                size_t n = 1;
                switch (c) {
                case '&': if (c1 == '&') { t = T_AND; n = 2; } break;
                case '|': if (c1 == '|') { t = T_OR; n = 2; } break;
                case '=': if (c1 == '=') { t = T_EQ; n = 2; } break;
                case '!': t = c1 == '=' ? T_NE : T_NOT; n = c1 == '=' ? 2 : 1; break;
                case '<': t = c1 == '=' ? T_LE : T_LT; n = c1 == '=' ? 2 : 1; break;
                case '>': t = c1 == '=' ? T_GE : T_GT; n = c1 == '=' ? 2 : 1; break;
                case '+': t = T_PLUS; break;
                case '-': t = T_MINUS; break;
                case '*': t = T_STAR; break;
                case '/': t = T_SLASH; break;
                case '(': t = T_LPAREN; break;
                case ')': t = T_RPAREN; break;
                case ',': t = T_COMMA; break;
                default: break;
                }
                if (t != T_END) {
                        p->tok.type = t;
                        p->tok.len = n;
                }
                if (t == T_END) {
                        if (c == '=')
                                return fail(p, -EINVAL, p->pos, "unexpected '=' (use '==' to compare)");
                        if ((c == '&' && c1 != '&') || (c == '|' && c1 != '|'))
                                return fail(p, -EINVAL, p->pos, "unexpected '%c' (use '%c%c')", c, c, c);
                        if (c == '.' && p->pos > 0 && isdigit((unsigned char)p->src[p->pos - 1]))
                                return fail(p, -EINVAL, p->pos,
                                            "unexpected '.' (write fractions as a division, e.g. 3/2)");
                        if (isprint((unsigned char)c))
                                return fail(p, -EINVAL, p->pos, "unexpected character '%c'", c);
                        return fail(p, -EINVAL, p->pos, "unexpected byte 0x%02x", (unsigned char)c);
                }
        }
        p->pos += p->tok.len;
        return 0;
}

static int expect(parser *p, tok_type t, const char *what) {
        if (p->tok.type != t) {
                _cleanup_free_ char *got = tok_text(p);
                return fail(p, -EINVAL, p->tok.pos, "expected %s, got %s", what, got);
        }
        return lex(p);
}

/* ---- type checks shared by operators and functions ---- */

/* Fail for a null operand: name it when it came from a lookup. */
static int fail_null(parser *p, const val *v, size_t pos, const char *what) {
        if (v->origin_len > 0)
                return fail(p, -ENODATA, v->origin_pos, "'%.*s' is unknown on this host",
                            (int)v->origin_len, p->src + v->origin_pos);
        return fail(p, -EINVAL, pos, "%s needs a value, got null", what);
}

int expr_need(parser *p, const val *v, ht_value_type t, size_t pos, const char *what) {
        if (v->v.type == t)
                return 0;
        if (v->v.type == HT_VAL_NULL)
                return fail_null(p, v, pos, what);
        return fail(p, -EINVAL, pos, "%s needs %s %s, got %s", what,
                    t == HT_VAL_INT ? "an" : "a", ht_value_type_name(t),
                    ht_value_type_name(v->v.type));
}

static int arith_error(parser *p, int r, size_t pos) {
        if (r == -EDOM)
                return fail(p, r, pos, "division by zero");
        return fail(p, r, pos, "integer overflow");
}

/* ---- parser ---- */

static int parse_or(parser *p, bool skip, val *ret);

static int lookup_name(parser *p, const char *name, ht_value *ret) {
        const ht_expr_env *env = p->env;
        if (!env || !env->lookup)
                return -ENOENT;
        ht_value v = ht_value_null();
        int r = env->lookup(env->userdata, name, &v);
        if (r < 0) {
                ht_value_done(&v);
                return r;
        }
        /* Do not trust the callback to hand back a normal form. */
        if (v.type == HT_VAL_STR && !v.str)
                v.str = xstrdup("");
        else if (v.type != HT_VAL_STR) {
                free(v.str);
                v.str = NULL;
        }
        if (v.type == HT_VAL_INT && v.den != 1) {
                ht_value n;
                r = expr_make_rat(v.num, v.den, &n);
                if (r < 0)
                        return r == -EDOM ? -EINVAL : r;
                v = n;
        }
        if (v.type == HT_VAL_BOOL)
                v.num = !!v.num;
        *ret = v;
        return 0;
}

static int unknown_name(parser *p, const char *name, size_t pos) {
        _cleanup_strv_free_ char **cands = NULL;
        if (p->env && p->env->candidates)
                cands = p->env->candidates(p->env->userdata);
        const char *best = closest_word(name, cands);
        if (best)
                return fail(p, -ENOENT, pos, "unknown name '%s' (did you mean '%s'?)", name, best);
        return fail(p, -ENOENT, pos, "unknown name '%s'", name);
}

/* A token's text as a string: on the stack when short (names are looked
 * up a hundred times a plan), else in *heap, which the caller frees. */
static const char *tok_name(const parser *p, size_t pos, size_t len, char small[static 128], char **heap) {
        *heap = NULL;
        if (len < 128) {
                memcpy(small, p->src + pos, len);
                small[len] = 0;
                return small;
        }
        return *heap = xstrndup(p->src + pos, len);
}

/* The value of the name at pos/len in the source. */
int expr_name_value(parser *p, const char *name, size_t pos, size_t len, val *ret) {
        ht_value v;
        int r = lookup_name(p, name, &v);
        if (r == -ENOENT)
                return unknown_name(p, name, pos);
        if (r < 0)
                return fail(p, r, pos, "cannot look up '%s': %s", name, ht_strerror(-r));
        *ret = (val){ .v = v };
        if (v.type == HT_VAL_NULL) {
                ret->origin_pos = pos;
                ret->origin_len = len;
        }
        return 0;
}

static int parse_name_value(parser *p, bool skip, val *ret) {
        size_t pos = p->tok.pos, len = p->tok.len;
        int r = lex(p);
        if (r < 0)
                return r;
        if (skip) {
                *ret = val_of(ht_value_null());
                if (p->build)
                        ret->node = emit(p, (ht_expr_node){ .kind = HT_EXPR_NAME, .pos = (uint32_t)pos,
                                                            .start = (uint32_t)pos, .len = (uint32_t)len,
                                                            .num = keep_str(p, p->src + pos, len) },
                                         NULL, 0);
                return 0;
        }
        char small[128];
        _cleanup_free_ char *heap = NULL;
        const char *name = tok_name(p, pos, len, small, &heap);
        return expr_name_value(p, name, pos, len, ret);
}

/* defined(NAME): the argument is a name, not an expression. */
static int parse_defined(parser *p, bool skip, val *ret) {
        int r = expect(p, T_LPAREN, "'('");
        if (r < 0)
                return r;
        if (p->tok.type != T_NAME) {
                _cleanup_free_ char *got = tok_text(p);
                return fail(p, -EINVAL, p->tok.pos, "defined() takes a name, got %s", got);
        }
        _cleanup_free_ char *name = xstrndup(p->src + p->tok.pos, p->tok.len);
        size_t pos = p->tok.pos;
        r = lex(p);
        if (r < 0)
                return r;
        r = expect(p, T_RPAREN, "')' after the name in defined()");
        if (r < 0)
                return r;
        if (skip) {
                *ret = val_of(ht_value_null());
                if (p->build)
                        ret->node = emit_leaf(p, HT_EXPR_DEFINED, pos, 0, name);
                return 0;
        }
        return expr_defined_value(p, name, pos, ret);
}

/* defined(name), the name at pos. */
int expr_defined_value(parser *p, const char *name, size_t pos, val *ret) {
        ht_value v;
        int r = lookup_name(p, name, &v);
        if (r == -ENOENT) {
                *ret = val_of(ht_value_bool(false));
                return 0;
        }
        if (r < 0)
                return fail(p, r, pos, "cannot look up '%s': %s", name, ht_strerror(-r));
        bool def = v.type != HT_VAL_NULL;
        ht_value_done(&v);
        *ret = val_of(ht_value_bool(def));
        return 0;
}

/* if(cond, a, b): only the chosen branch is evaluated. */
static int parse_if(parser *p, bool skip, val *ret) {
        val cond = {0}, a = {0}, b = {0};
        int r = expect(p, T_LPAREN, "'('");
        if (r < 0)
                return r;
        size_t cpos = p->tok.pos;
        r = parse_or(p, skip, &cond);
        if (r < 0)
                goto out;
        if (!skip) {
                r = expr_need(p, &cond, HT_VAL_BOOL, cpos, "the condition of if()");
                if (r < 0)
                        goto out;
        }
        bool take_a = !skip && cond.v.num;
        bool take_b = !skip && !cond.v.num;
        if ((r = expect(p, T_COMMA, "',' after the condition of if()")) < 0 ||
            (r = parse_or(p, !take_a, &a)) < 0 ||
            (r = expect(p, T_COMMA, "',' and a third argument to if()")) < 0 ||
            (r = parse_or(p, !take_b, &b)) < 0 ||
            (r = expect(p, T_RPAREN, "')' after the third argument of if()")) < 0)
                goto out;
        if (take_a)
                *ret = a, a = (val){0};
        else if (take_b)
                *ret = b, b = (val){0};
        else
                *ret = val_of(ht_value_null());
        if (p->build)
                ret->node = emit(p, (ht_expr_node){ .kind = HT_EXPR_IF, .pos = (uint32_t)cpos },
                                 (uint32_t[]){ cond.node, a.node, b.node }, 3);
out:
        val_done(&cond);
        val_done(&a);
        val_done(&b);
        return r;
}

typedef int (*builtin_fn)(parser *p, size_t pos, val *args, size_t n, val *ret);

static int fn_ceil_floor(parser *p, size_t pos, val *args, size_t n, val *ret, bool up) {
        int r = expr_need(p, &args[0], HT_VAL_INT, pos, up ? "ceil()" : "floor()");
        if (r < 0)
                return r;
        *ret = val_of(ht_value_int(up ? expr_rat_ceil(&args[0].v) : expr_rat_floor(&args[0].v)));
        return 0;
}

static int fn_ceil(parser *p, size_t pos, val *args, size_t n, val *ret) {
        return fn_ceil_floor(p, pos, args, n, ret, true);
}

static int fn_floor(parser *p, size_t pos, val *args, size_t n, val *ret) {
        return fn_ceil_floor(p, pos, args, n, ret, false);
}

static int fn_abs(parser *p, size_t pos, val *args, size_t n, val *ret) {
        int r = expr_need(p, &args[0], HT_VAL_INT, pos, "abs()");
        if (r < 0)
                return r;
        ht_value v = args[0].v;
        if (v.num < 0 && __builtin_sub_overflow(0, v.num, &v.num))
                return arith_error(p, -ERANGE, pos);
        *ret = val_of(v);
        return 0;
}

static int fn_minmax(parser *p, size_t pos, val *args, size_t n, val *ret, bool want_max) {
        const char *what = want_max ? "max()" : "min()";
        size_t best = 0;
        for (size_t i = 0; i < n; i++) {
                int r = expr_need(p, &args[i], HT_VAL_INT, pos, what);
                if (r < 0)
                        return r;
                int c = expr_rat_cmp(&args[i].v, &args[best].v);
                if (want_max ? c > 0 : c < 0)
                        best = i;
        }
        *ret = val_of(args[best].v);
        return 0;
}

static int fn_min(parser *p, size_t pos, val *args, size_t n, val *ret) {
        return fn_minmax(p, pos, args, n, ret, false);
}

static int fn_max(parser *p, size_t pos, val *args, size_t n, val *ret) {
        return fn_minmax(p, pos, args, n, ret, true);
}

static int ceil_div(parser *p, size_t pos, const ht_value *a, const ht_value *b, val *ret) {
        ht_value q;
        int r = expr_rat_div(a, b, &q);
        if (r < 0)
                return arith_error(p, r, pos);
        *ret = val_of(ht_value_int(expr_rat_ceil(&q)));
        return 0;
}

static int fn_kb(parser *p, size_t pos, val *args, size_t n, val *ret) {
        int r = expr_need(p, &args[0], HT_VAL_INT, pos, "kb()");
        if (r < 0)
                return r;
        ht_value k = ht_value_int(1024);
        return ceil_div(p, pos, &args[0].v, &k, ret);
}

static int fn_pages(parser *p, size_t pos, val *args, size_t n, val *ret) {
        int r = expr_need(p, &args[0], HT_VAL_INT, pos, "pages()");
        if (r < 0)
                return r;
        r = expr_need(p, &args[1], HT_VAL_INT, pos, "pages()");
        if (r < 0)
                return r;
        ht_value k = ht_value_int(1024), page;
        r = expr_rat_mul(&args[1].v, &k, &page);
        if (r < 0)
                return arith_error(p, r, pos);
        return ceil_div(p, pos, &args[0].v, &page, ret);
}

static int fn_str(parser *p, size_t pos, val *args, size_t n, val *ret) {
        const ht_value *v = &args[0].v;
        if (v->type == HT_VAL_NULL)
                return fail_null(p, &args[0], pos, "str()");
        char *s;
        int r = ht_value_to_string(v, &s);
        if (r == -EDOM)
                return fail(p, -EDOM, pos,
                            "str(): %" PRId64 "/%" PRId64 " is not a whole number; use ceil() or floor()",
                            v->num, v->den);
        if (r < 0)
                return fail(p, r, pos, "str(): %s", ht_strerror(-r));
        *ret = val_of((ht_value){ .type = HT_VAL_STR, .den = 1, .str = s });
        return 0;
}

static int fn_int(parser *p, size_t pos, val *args, size_t n, val *ret) {
        const ht_value *v = &args[0].v;
        if (v->type == HT_VAL_INT) {
                *ret = val_of(*v);
                return 0;
        }
        int r = expr_need(p, &args[0], HT_VAL_STR, pos, "int()");
        if (r < 0)
                return r;
        const char *s = v->str;
        size_t len = strlen(s);
        while (len > 0 && isspace((unsigned char)s[len - 1]))
                len--;
        while (len > 0 && isspace((unsigned char)*s))
                s++, len--;
        bool neg = len > 0 && *s == '-';
        int64_t x;
        r = expr_parse_number(s + neg, len - neg, &x);
        if (r == -ERANGE)
                return fail(p, r, pos, "int(): integer overflow in '%s'", v->str);
        if (r < 0)
                return fail(p, r, pos, "int(): '%s' is not an integer (with an optional unit K, M, G, T)",
                            v->str);
        *ret = val_of(ht_value_int(neg ? -x : x));
        return 0;
}

static int two_strings(parser *p, size_t pos, val *args, const char *what) {
        int r = expr_need(p, &args[0], HT_VAL_STR, pos, what);
        if (r < 0)
                return r;
        return expr_need(p, &args[1], HT_VAL_STR, pos, what);
}

static int fn_contains(parser *p, size_t pos, val *args, size_t n, val *ret) {
        int r = two_strings(p, pos, args, "contains()");
        if (r < 0)
                return r;
        *ret = val_of(ht_value_bool(strstr(args[0].v.str, args[1].v.str)));
        return 0;
}

static int fn_startswith(parser *p, size_t pos, val *args, size_t n, val *ret) {
        int r = two_strings(p, pos, args, "startswith()");
        if (r < 0)
                return r;
        *ret = val_of(ht_value_bool(startswith(args[0].v.str, args[1].v.str)));
        return 0;
}

/* Versions are strings; a whole number ("version_ge(x, 5)") is taken as
 * its decimal text. */
static int version_arg(parser *p, size_t pos, val *v, const char *what) {
        if (v->v.type == HT_VAL_INT && v->v.den == 1) {
                char *s = xasprintf("%" PRId64, v->v.num);
                v->v = (ht_value){ .type = HT_VAL_STR, .den = 1, .str = s };
        }
        return expr_need(p, v, HT_VAL_STR, pos, what);
}

static int fn_version(parser *p, size_t pos, val *args, val *ret, bool ge) {
        const char *what = ge ? "version_ge()" : "version_lt()";
        int r = version_arg(p, pos, &args[0], what);
        if (r < 0)
                return r;
        r = version_arg(p, pos, &args[1], what);
        if (r < 0)
                return r;
        int c = ht_version_compare(args[0].v.str, args[1].v.str);
        *ret = val_of(ht_value_bool(ge ? c >= 0 : c < 0));
        return 0;
}

static int fn_version_ge(parser *p, size_t pos, val *args, size_t n, val *ret) {
        return fn_version(p, pos, args, ret, true);
}

static int fn_version_lt(parser *p, size_t pos, val *args, size_t n, val *ret) {
        return fn_version(p, pos, args, ret, false);
}

/* matches(text, regex): Python's re.search(regex, text, re.MULTILINE)
 * for the regexes tuned profiles write (regex-python.h). The regex is
 * checked even when text is null, so a typo fails on every host; a null
 * text gives a null that still names its fact, so that `a && b` over it
 * says which fact this host does not know. */
static int fn_matches(parser *p, size_t pos, val *args, size_t n, val *ret) {
        int r = expr_need(p, &args[1], HT_VAL_STR, pos, "matches()");
        if (r < 0)
                return r;
        regex_t re;
        _cleanup_free_ char *why = NULL;
        if (ht_regex_compile_python(args[1].v.str, &re, &why) < 0)
                return fail(p, -EINVAL, pos, "matches(): the regex \"%s\" is not one hosttune can use: %s",
                            args[1].v.str, why);
        if (args[0].v.type == HT_VAL_NULL) {
                regfree(&re);
                *ret = val_of(ht_value_null());
                ret->origin_pos = args[0].origin_pos;
                ret->origin_len = args[0].origin_len;
                return 0;
        }
        r = expr_need(p, &args[0], HT_VAL_STR, pos, "matches()");
        if (r == 0)
                *ret = val_of(ht_value_bool(ht_regex_search(&re, args[0].v.str)));
        regfree(&re);
        return r;
}

static const struct builtin {
        const char *name;
        unsigned min_args, max_args;
        builtin_fn fn;
} builtins[] = {
        { "abs", 1, 1, fn_abs },
        { "ceil", 1, 1, fn_ceil },
        { "contains", 2, 2, fn_contains },
        { "defined", 1, 1, NULL },   /* parsed by parse_defined() */
        { "floor", 1, 1, fn_floor },
        { "if", 3, 3, NULL },        /* parsed by parse_if() */
        { "int", 1, 1, fn_int },
        { "kb", 1, 1, fn_kb },
        { "matches", 2, 2, fn_matches },
        { "max", 1, MAX_ARGS, fn_max },
        { "min", 1, MAX_ARGS, fn_min },
        { "pages", 2, 2, fn_pages },
        { "startswith", 2, 2, fn_startswith },
        { "str", 1, 1, fn_str },
        { "version_ge", 2, 2, fn_version_ge },
        { "version_lt", 2, 2, fn_version_lt },
};

int expr_call_builtin(parser *p, unsigned fn, size_t pos, val *args, size_t n, val *ret) {
        return builtins[fn].fn(p, pos, args, n, ret);
}

static int parse_call(parser *p, bool skip, val *ret) {
        size_t pos = p->tok.pos, len = p->tok.len;
        char small[128];
        _cleanup_free_ char *heap = NULL;
        const char *name = tok_name(p, pos, len, small, &heap);
        const struct builtin *f = NULL;
        /* the names are distinct: the first byte rules out most */
        for (size_t i = 0; i < ELEMENTSOF(builtins) && !f; i++)
                if (builtins[i].name[0] == name[0] && streq(builtins[i].name, name))
                        f = &builtins[i];
        if (!f) {
                char *names[ELEMENTSOF(builtins) + 1];
                for (size_t i = 0; i < ELEMENTSOF(builtins); i++)
                        names[i] = (char *)builtins[i].name;
                names[ELEMENTSOF(builtins)] = NULL;
                const char *best = closest_word(name, names);
                if (best)
                        return fail(p, -EINVAL, pos, "unknown function '%s' (did you mean '%s'?)", name, best);
                return fail(p, -EINVAL, pos, "unknown function '%s'", name);
        }
        int r = lex(p);
        if (r < 0)
                return r;
        if (f->fn == NULL)   /* defined() and if() parse their own arguments */
                return name[0] == 'd' ? parse_defined(p, skip, ret) : parse_if(p, skip, ret);
        uint32_t arg_nodes[MAX_ARGS];

        r = expect(p, T_LPAREN, "'('");
        if (r < 0)
                return r;
        val args[MAX_ARGS];   /* each zeroed before use: 32 are 1.5 KB */
        size_t n = 0;
        if (p->tok.type != T_RPAREN)
                for (;;) {
                        if (n == f->max_args) {
                                r = fail(p, -EINVAL, p->tok.pos, "too many arguments to %s() (at most %u)",
                                         name, f->max_args);
                                goto out;
                        }
                        args[n] = (val){0};
                        r = parse_or(p, skip, &args[n]);
                        if (r < 0)
                                goto out;
                        arg_nodes[n] = args[n].node;
                        n++;
                        if (p->tok.type != T_COMMA)
                                break;
                        r = lex(p);
                        if (r < 0)
                                goto out;
                }
        r = expect(p, T_RPAREN, "',' or ')' in the arguments");
        if (r < 0)
                goto out;
        if (n < f->min_args) {
                r = fail(p, -EINVAL, pos, "%s() takes %s%u argument%s, got %zu", name,
                         f->min_args == f->max_args ? "" : "at least ", f->min_args,
                         f->min_args == 1 ? "" : "s", n);
                goto out;
        }
        if (skip) {
                *ret = val_of(ht_value_null());
                if (p->build)
                        ret->node = emit(p, (ht_expr_node){ .kind = HT_EXPR_CALL, .op = (uint8_t)(f - builtins),
                                                            .pos = (uint32_t)pos }, arg_nodes, n);
        } else
                r = f->fn(p, pos, args, n, ret);
out:
        for (size_t i = 0; i < n; i++)
                val_done(&args[i]);
        return r;
}

static int parse_primary(parser *p, bool skip, val *ret) {
        int r;
        switch (p->tok.type) {
        case T_NUM:
                *ret = val_of(ht_value_int(p->tok.num));
                if (p->build)
                        ret->node = emit_leaf(p, HT_EXPR_NUM, p->tok.pos, p->tok.num, NULL);
                return lex(p);
        case T_STR:
                if (p->build) {
                        *ret = val_of(ht_value_null());
                        ret->node = emit_leaf(p, HT_EXPR_STR, p->tok.pos, 0, p->tok.str);
                } else
                        *ret = val_of((ht_value){ .type = HT_VAL_STR, .den = 1, .str = TAKE_PTR(p->tok.str) });
                r = lex(p);
                if (r < 0)
                        val_done(ret);
                return r;
        case T_NAME: {
                const char *s = p->src + p->tok.pos;
                size_t n = p->tok.len;
                if (n == 4 && memcmp(s, "true", 4) == 0) {
                        *ret = val_of(ht_value_bool(true));
                        if (p->build)
                                ret->node = emit_leaf(p, HT_EXPR_TRUE, p->tok.pos, 0, NULL);
                        return lex(p);
                }
                if (n == 5 && memcmp(s, "false", 5) == 0) {
                        *ret = val_of(ht_value_bool(false));
                        if (p->build)
                                ret->node = emit_leaf(p, HT_EXPR_FALSE, p->tok.pos, 0, NULL);
                        return lex(p);
                }
                if (n == 4 && memcmp(s, "null", 4) == 0) {
                        *ret = val_of(ht_value_null());
                        if (p->build)
                                ret->node = emit_leaf(p, HT_EXPR_NULL, p->tok.pos, 0, NULL);
                        return lex(p);
                }
                /* A name directly followed by '(' is a call. */
                size_t after = p->tok.pos + n;
                while (after < p->len && (p->src[after] == ' ' || p->src[after] == '\t' ||
                                          p->src[after] == '\r' || p->src[after] == '\n'))
                        after++;
                if (after < p->len && p->src[after] == '(')
                        return parse_call(p, skip, ret);
                return parse_name_value(p, skip, ret);
        }
        case T_LPAREN: {
                r = lex(p);
                if (r < 0)
                        return r;
                r = parse_or(p, skip, ret);
                if (r < 0)
                        return r;
                r = expect(p, T_RPAREN, "')'");
                if (r < 0)
                        val_done(ret);
                return r;
        }
        case T_END:
                return fail(p, -EINVAL, p->tok.pos, "unexpected end of expression");
        default: {
                _cleanup_free_ char *got = tok_text(p);
                return fail(p, -EINVAL, p->tok.pos, "expected a value, got %s", got);
        }
        }
}

/* '!' or unary '-' (op) at pos applied to v; the caller still owns v. */
int expr_apply_unary(parser *p, tok_type op, size_t pos, val *v, val *ret) {
        int r;
        if (op == T_NOT) {
                r = expr_need(p, v, HT_VAL_BOOL, pos, "'!'");
                if (r == 0)
                        *ret = val_of(ht_value_bool(!v->v.num));
        } else {
                r = expr_need(p, v, HT_VAL_INT, pos, "unary '-'");
                if (r == 0) {
                        ht_value n = v->v;
                        if (__builtin_sub_overflow(0, n.num, &n.num))
                                r = arith_error(p, -ERANGE, pos);
                        else
                                *ret = val_of(n);
                }
        }
        return r;
}

static int parse_unary(parser *p, bool skip, val *ret) {
        if (p->depth >= HT_EXPR_MAX_DEPTH)
                return fail(p, -EINVAL, p->tok.pos, "expression too deeply nested (more than %d levels)",
                            HT_EXPR_MAX_DEPTH);
        p->depth++;
        int r;
        tok_type op = p->tok.type;
        size_t pos = p->tok.pos;
        if (op != T_MINUS && op != T_NOT) {
                r = parse_primary(p, skip, ret);
                goto out;
        }
        r = lex(p);
        if (r < 0)
                goto out;
        val v = {0};
        r = parse_unary(p, skip, &v);
        if (r < 0)
                goto out;
        if (skip) {
                *ret = v;
                if (p->build)
                        ret->node = emit(p, (ht_expr_node){ .kind = HT_EXPR_UNARY, .op = (uint8_t)op,
                                                            .pos = (uint32_t)pos }, &v.node, 1);
                goto out;
        }
        r = expr_apply_unary(p, op, pos, &v, ret);
        val_done(&v);
out:
        /* the text of what was parsed here starts at its first token */
        if (r >= 0 && p->build)
                p->nodes[ret->node].start = (uint32_t)pos;
        p->depth--;
        return r;
}

static const char *op_text(tok_type t) {
        switch (t) {
        case T_PLUS: return "+";
        case T_MINUS: return "-";
        case T_STAR: return "*";
        case T_SLASH: return "/";
        case T_AND: return "&&";
        case T_OR: return "||";
        case T_EQ: return "==";
        case T_NE: return "!=";
        case T_LT: return "<";
        case T_LE: return "<=";
        case T_GT: return ">";
        case T_GE: return ">=";
        default: return "?";
        }
}

/* Apply an arithmetic operator; the caller still owns a and b. */
int expr_apply_arith(parser *p, tok_type op, size_t pos, val *a, val *b, val *ret) {
        const char *o = op_text(op);
        int r;
        if (a->v.type == HT_VAL_NULL || b->v.type == HT_VAL_NULL) {
                _cleanup_free_ char *what = xasprintf("'%s'", o);
                return fail_null(p, a->v.type == HT_VAL_NULL ? a : b, pos, what);
        }
        if (op == T_PLUS && a->v.type == HT_VAL_STR && b->v.type == HT_VAL_STR) {
                size_t la = strlen(a->v.str), lb = strlen(b->v.str);
                if (la + lb > MAX_STR_LEN)
                        return fail(p, -ERANGE, pos, "string too long (more than %d bytes)", MAX_STR_LEN);
                char *s = xmalloc(la + lb + 1);
                memcpy(s, a->v.str, la);
                memcpy(s + la, b->v.str, lb + 1);
                *ret = val_of((ht_value){ .type = HT_VAL_STR, .den = 1, .str = s });
                return 0;
        }
        if (a->v.type != HT_VAL_INT || b->v.type != HT_VAL_INT)
                return fail(p, -EINVAL, pos, "operator '%s' cannot take %s and %s%s", o,
                            ht_value_type_name(a->v.type), ht_value_type_name(b->v.type),
                            a->v.type == HT_VAL_STR || b->v.type == HT_VAL_STR
                                    ? " (use int() or str() to convert)" : "");
        ht_value v;
        switch (op) {
        case T_PLUS: r = expr_rat_add(&a->v, &b->v, false, &v); break;
        case T_MINUS: r = expr_rat_add(&a->v, &b->v, true, &v); break;
        case T_STAR: r = expr_rat_mul(&a->v, &b->v, &v); break;
        default: r = expr_rat_div(&a->v, &b->v, &v); break;
        }
        if (r < 0)
                return arith_error(p, r, pos);
        *ret = val_of(v);
        return 0;
}

/* One left-associative arithmetic level: operand (op operand)*, where
 * the operands are parsed by next and op is one of the two tokens. */
/* Inlined into parse_sum() and parse_product(), as parse_logic() is into
 * parse_and() and parse_or(): every value passes through each level, and
 * a call less per level (next() a direct call) saves 13 k instructions a
 * plan. */
__attribute__((always_inline))
static inline int parse_arith_level(parser *p, bool skip, val *ret, tok_type op1, tok_type op2,
                             int (*next)(parser *, bool, val *)) {
        val a = {0};
        int r = next(p, skip, &a);
        if (r < 0)
                return r;
        /* compiling: the operand, then a step node for each "op operand" */
        bool steps = p->build && (p->tok.type == op1 || p->tok.type == op2);
        chain ch;
        if (steps)
                chain_init(&ch, a.node);
        while (p->tok.type == op1 || p->tok.type == op2) {
                tok_type op = p->tok.type;
                size_t pos = p->tok.pos;
                val b = {0}, c = {0};
                r = lex(p);
                if (r >= 0)
                        r = next(p, skip, &b);
                if (r >= 0 && !skip)
                        r = expr_apply_arith(p, op, pos, &a, &b, &c);
                if (r >= 0 && steps)
                        chain_push(&ch, emit(p, (ht_expr_node){ .kind = HT_EXPR_STEP, .op = (uint8_t)op,
                                                                .pos = (uint32_t)pos }, &b.node, 1));
                val_done(&b);
                if (r < 0) {
                        val_done(&a);
                        if (steps)
                                chain_done(&ch);
                        return r;
                }
                val_done(&a);
                a = c;
        }
        if (steps) {
                /* chains are long only in made-up input: the kid count is 16 bits */
                if (ch.n > UINT16_MAX)
                        r = fail(p, -EINVAL, p->tok.pos, "expression too long to compile");
                else {
                        uint32_t start = p->nodes[ch.v[0]].start;
                        a.node = emit(p, (ht_expr_node){ .kind = HT_EXPR_ARITH, .pos = start, .start = start },
                                      ch.v, ch.n);
                }
                chain_done(&ch);
                if (r < 0)
                        return r;
        }
        *ret = a;
        return 0;
}

static int parse_product(parser *p, bool skip, val *ret) {
        return parse_arith_level(p, skip, ret, T_STAR, T_SLASH, parse_unary);
}

static int parse_sum(parser *p, bool skip, val *ret) {
        return parse_arith_level(p, skip, ret, T_PLUS, T_MINUS, parse_product);
}

static bool is_cmp(tok_type t) {
        return t == T_EQ || t == T_NE || t == T_LT || t == T_LE || t == T_GT || t == T_GE;
}

int expr_apply_cmp(parser *p, tok_type op, size_t pos, val *a, val *b, val *ret) {
        const char *o = op_text(op);
        bool eq_op = op == T_EQ || op == T_NE;
        ht_value_type ta = a->v.type, tb = b->v.type;
        int c;

        if (eq_op && (ta == HT_VAL_NULL || tb == HT_VAL_NULL)) {
                c = ta == tb ? 0 : 1;
        } else if (ta == HT_VAL_NULL || tb == HT_VAL_NULL) {
                _cleanup_free_ char *what = xasprintf("'%s'", o);
                return fail_null(p, ta == HT_VAL_NULL ? a : b, pos, what);
        } else if (ta != tb) {
                return fail(p, -EINVAL, pos, "operator '%s' cannot compare %s and %s", o,
                            ht_value_type_name(ta), ht_value_type_name(tb));
        } else if (ta == HT_VAL_INT) {
                c = expr_rat_cmp(&a->v, &b->v);
        } else if (ta == HT_VAL_STR) {
                c = strcmp(a->v.str, b->v.str);
        } else if (eq_op) {
                c = a->v.num != b->v.num;
        } else {
                return fail(p, -EINVAL, pos, "operator '%s' cannot order booleans (only == and != apply)", o);
        }

        bool res;
        switch (op) {
        case T_EQ: res = c == 0; break;
        case T_NE: res = c != 0; break;
        case T_LT: res = c < 0; break;
        case T_LE: res = c <= 0; break;
        case T_GT: res = c > 0; break;
        default: res = c >= 0; break;
        }
        *ret = val_of(ht_value_bool(res));
        return 0;
}

static int parse_cmp(parser *p, bool skip, val *ret) {
        val a = {0};
        int r = parse_sum(p, skip, &a);
        if (r < 0)
                return r;
        if (!is_cmp(p->tok.type)) {
                *ret = a;
                return 0;
        }
        tok_type op = p->tok.type;
        size_t pos = p->tok.pos;
        val b = {0}, c = {0};
        r = lex(p);
        if (r >= 0)
                r = parse_sum(p, skip, &b);
        if (r >= 0 && is_cmp(p->tok.type))
                r = fail(p, -EINVAL, p->tok.pos, "comparisons cannot be chained (join them with '&&')");
        if (r >= 0 && !skip)
                r = expr_apply_cmp(p, op, pos, &a, &b, &c);
        if (r >= 0 && p->build) {
                uint32_t start = p->nodes[a.node].start;
                c.node = emit(p, (ht_expr_node){ .kind = HT_EXPR_CMP, .op = (uint8_t)op, .pos = (uint32_t)pos,
                                                 .start = start }, (uint32_t[]){ a.node, b.node }, 2);
        }
        val_done(&a);
        val_done(&b);
        if (r < 0)
                return r;
        *ret = c;
        return 0;
}

static int parse_and(parser *p, bool skip, val *ret);

/* a && b and a || b: b is evaluated only when a does not decide. */
__attribute__((always_inline))
static inline int parse_logic(parser *p, bool skip, tok_type op, val *ret) {
        int (*operand)(parser *, bool, val *) = op == T_OR ? parse_and : parse_cmp;
        val a = {0};
        size_t apos = p->tok.pos;
        int r = operand(p, skip, &a);
        if (r < 0)
                return r;
        if (p->tok.type != op) {
                *ret = a;
                return 0;
        }
        const char *what = op == T_OR ? "'||'" : "'&&'";
        bool decided = false, res = false;
        chain ch;
        if (p->build)
                chain_init(&ch, a.node);
        if (!skip) {
                r = expr_need(p, &a, HT_VAL_BOOL, apos, what);
                if (r < 0)
                        goto out;
                res = a.v.num;
                decided = op == T_OR ? res : !res;
        }
        while (p->tok.type == op) {
                val b = {0};
                r = lex(p);
                if (r < 0)
                        goto out;
                size_t bpos = p->tok.pos;
                bool skip_b = skip || decided;
                r = operand(p, skip_b, &b);
                if (r >= 0 && !skip_b) {
                        r = expr_need(p, &b, HT_VAL_BOOL, bpos, what);
                        res = b.v.num;
                        decided = op == T_OR ? res : !res;
                }
                if (r >= 0 && p->build)
                        chain_push(&ch, b.node);
                val_done(&b);
                if (r < 0)
                        goto out;
        }
        *ret = val_of(skip ? ht_value_null() : ht_value_bool(res));
        if (p->build) {
                if (ch.n > UINT16_MAX) {
                        r = fail(p, -EINVAL, p->tok.pos, "expression too long to compile");
                        goto out;
                }
                uint32_t start = p->nodes[ch.v[0]].start;
                ret->node = emit(p, (ht_expr_node){ .kind = op == T_OR ? HT_EXPR_OR : HT_EXPR_AND, .pos = start,
                                                    .start = start }, ch.v, ch.n);
        }
out:
        if (p->build)
                chain_done(&ch);
        val_done(&a);
        return r;
}

static int parse_and(parser *p, bool skip, val *ret) {
        return parse_logic(p, skip, T_AND, ret);
}

static int parse_or(parser *p, bool skip, val *ret) {
        return parse_logic(p, skip, T_OR, ret);
}

/* What the parser left in p, as the caller's error. */
int expr_finish_error(parser *p, int r, char **ret_error) {
        if (!p->error)   /* every failure path sets one; stay safe */
                fail(p, r, p->pos, "%s", ht_strerror(-r));
        if (ret_error)
                *ret_error = TAKE_PTR(p->error);
        free(p->error);
        p->error = NULL;
        return r;
}

int expr_build(parser *p, expr_build_space *st, const char *src, ht_expr *ret) {
        *p = (parser){ .src = src ? src : "", .build = true, .nodes = st->nodes,
                       .cap_nodes = ELEMENTSOF(st->nodes), .kids = st->kids, .cap_kids = ELEMENTSOF(st->kids),
                       .strs = st->strs, .cap_strs = sizeof(st->strs) };
        p->len = strlen(p->src);
        val v = {0};
        if (p->len > HT_EXPR_MAX_LEN)
                return -EINVAL;
        int r = lex(p);
        if (r >= 0 && p->tok.type == T_END)
                r = -EINVAL;
        if (r >= 0)
                r = parse_or(p, true, &v);
        if (r >= 0 && p->tok.type != T_END)
                r = -EINVAL;
        free(p->tok.str);
        p->tok.str = NULL;
        free(p->error);
        p->error = NULL;
        if (r < 0)
                return r;
        /* the strings are all kept now: a string node's offset from num
         * to str (p->strs may have moved while they were added) */
        for (uint32_t i = 0; i < p->n_nodes; i++) {
                ht_expr_node *n = &p->nodes[i];
                if (n->kind == HT_EXPR_NAME || n->kind == HT_EXPR_STR || n->kind == HT_EXPR_DEFINED) {
                        n->str = (uint32_t)n->num;
                        n->num = 0;
                }
        }
        *ret = (ht_expr){ .nodes = p->nodes, .kids = p->kids, .strings = p->strs, .n_nodes = p->n_nodes,
                          .n_kids = p->n_kids, .root = v.node };
        return 0;
}

void expr_build_done(parser *p) {
        if (p->nodes_heap)
                free(p->nodes);
        if (p->kids_heap)
                free(p->kids);
        if (p->strs_heap)
                free(p->strs);
}

_Static_assert(sizeof(ht_expr) % _Alignof(ht_expr_node) == 0, "ht_expr_compile's block: nodes after the struct");
_Static_assert(sizeof(ht_expr_node) % _Alignof(uint32_t) == 0, "ht_expr_compile's block: kids after the nodes");

int ht_expr_compile(const char *src, ht_expr **ret) {
        parser p;
        expr_build_space st;
        ht_expr t;
        int r = expr_build(&p, &st, src, &t);
        if (r < 0) {
                expr_build_done(&p);
                return r;
        }
        /* one block: the struct, the nodes, the kids (one at least: kids
         * + 0 on NULL would be undefined), the strings */
        size_t n_kids = t.n_kids ? t.n_kids : 1;
        size_t size = sizeof(ht_expr) + t.n_nodes * sizeof(ht_expr_node) + n_kids * sizeof(uint32_t) + p.n_strs;
        char *block = xmalloc(size);
        ht_expr *e = (ht_expr *)block;
        ht_expr_node *nodes = (ht_expr_node *)(block + sizeof(ht_expr));
        uint32_t *kids = (uint32_t *)(nodes + t.n_nodes);
        char *strs = (char *)(kids + n_kids);
        memcpy(nodes, t.nodes, t.n_nodes * sizeof(*nodes));
        kids[0] = 0;
        memcpy(kids, t.kids, t.n_kids * sizeof(*kids));
        memcpy(strs, p.strs, p.n_strs);
        *e = t;
        e->nodes = nodes;
        e->kids = kids;
        e->strings = strs;
        e->owned = true;
        expr_build_done(&p);
        *ret = e;
        return 0;
}

void ht_expr_free(ht_expr *e) {
        if (e && e->owned)
                free(e);
}

int ht_expr_eval_text(const char *src, const ht_expr_env *env, ht_value *ret, char **ret_error) {
        parser p = { .src = src ? src : "", .env = env };
        p.len = strlen(p.src);
        int r;
        val v = {0};

        if (p.len > HT_EXPR_MAX_LEN) {
                r = -EINVAL;
                if (ret_error)
                        *ret_error = xasprintf("expression too long (%zu bytes, at most %d)",
                                               p.len, HT_EXPR_MAX_LEN);
                return r;
        }
        r = lex(&p);
        if (r >= 0 && p.tok.type == T_END)
                r = fail(&p, -EINVAL, 0, "empty expression");
        if (r >= 0)
                r = parse_or(&p, false, &v);
        if (r >= 0 && p.tok.type != T_END) {
                _cleanup_free_ char *got = tok_text(&p);
                r = fail(&p, -EINVAL, p.tok.pos, "unexpected %s after the expression", got);
        }
        free(p.tok.str);
        if (r < 0) {
                val_done(&v);
                return expr_finish_error(&p, r, ret_error);
        }
        *ret = v.v;
        return 0;
}
