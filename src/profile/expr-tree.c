/* Evaluating a parsed expression (expr.h's ht_expr): a walk over the
 * tree that calls the evaluating parser's own operators, functions and
 * lookups (expr-internal.h) in the order it does, skipping what it skips;
 * and the trees' copies, comparison and C form for the built-in data. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "expr.h"
#include "expr-internal.h"
#include "util.h"

static int run(parser *p, const ht_expr *e, uint32_t i, val *ret);

/* kids[0] op kids[1] op ...: as parse_logic() evaluates it. */
static int run_logic(parser *p, const ht_expr *e, const ht_expr_node *n, val *ret) {
        const uint32_t *k = e->kids + n->kids;
        bool is_or = n->kind == HT_EXPR_OR;
        const char *what = is_or ? "'||'" : "'&&'";
        bool res = false;
        for (size_t j = 0; j < n->n_kids; j++) {
                val b = {0};
                int r = run(p, e, k[j], &b);
                if (r >= 0) {
                        r = expr_need(p, &b, HT_VAL_BOOL, e->nodes[k[j]].start, what);
                        res = b.v.num;
                }
                val_done(&b);
                if (r < 0)
                        return r;
                if (is_or ? res : !res)   /* decided: the rest is not evaluated */
                        break;
        }
        *ret = val_of(ht_value_bool(res));
        return 0;
}

/* kids[0] then each step's "op operand", left to right. */
static int run_arith(parser *p, const ht_expr *e, const ht_expr_node *n, val *ret) {
        const uint32_t *k = e->kids + n->kids;
        val a = {0};
        int r = run(p, e, k[0], &a);
        if (r < 0)
                return r;
        for (size_t j = 1; j < n->n_kids; j++) {
                const ht_expr_node *step = &e->nodes[k[j]];
                val b = {0}, c = {0};
                r = run(p, e, e->kids[step->kids], &b);
                if (r >= 0)
                        r = expr_apply_arith(p, (tok_type)step->op, step->pos, &a, &b, &c);
                val_done(&b);
                val_done(&a);
                if (r < 0)
                        return r;
                a = c;
        }
        *ret = a;
        return 0;
}

static int run_call(parser *p, const ht_expr *e, const ht_expr_node *n, val *ret) {
        const uint32_t *k = e->kids + n->kids;
        val args[MAX_ARGS];
        size_t i = 0;
        int r = 0;
        for (; i < n->n_kids && r >= 0; i++) {
                args[i] = (val){0};
                r = run(p, e, k[i], &args[i]);
        }
        if (r >= 0)
                r = expr_call_builtin(p, n->op, n->pos, args, n->n_kids, ret);
        for (size_t j = 0; j < i; j++)
                val_done(&args[j]);
        return r;
}

static int run(parser *p, const ht_expr *e, uint32_t i, val *ret) {
        const ht_expr_node *n = &e->nodes[i];
        const uint32_t *k = e->kids + n->kids;
        int r;
        switch ((ht_expr_kind)n->kind) {
        case HT_EXPR_NUM:
                *ret = val_of(ht_value_int(n->num));
                return 0;
        case HT_EXPR_STR:
                *ret = val_of(ht_value_str(ht_expr_node_str(e, n)));
                return 0;
        case HT_EXPR_TRUE:
        case HT_EXPR_FALSE:
                *ret = val_of(ht_value_bool(n->kind == HT_EXPR_TRUE));
                return 0;
        case HT_EXPR_NULL:
                *ret = val_of(ht_value_null());
                return 0;
        case HT_EXPR_NAME:
                return expr_name_value(p, ht_expr_node_str(e, n), n->pos, n->len, ret);
        case HT_EXPR_DEFINED:
                return expr_defined_value(p, ht_expr_node_str(e, n), n->pos, ret);
        case HT_EXPR_UNARY: {
                val v = {0};
                r = run(p, e, k[0], &v);
                if (r >= 0)
                        r = expr_apply_unary(p, (tok_type)n->op, n->pos, &v, ret);
                val_done(&v);
                return r;
        }
        case HT_EXPR_ARITH:
                return run_arith(p, e, n, ret);
        case HT_EXPR_CMP: {
                val a = {0}, b = {0};
                r = run(p, e, k[0], &a);
                if (r >= 0)
                        r = run(p, e, k[1], &b);
                if (r >= 0)
                        r = expr_apply_cmp(p, (tok_type)n->op, n->pos, &a, &b, ret);
                val_done(&a);
                val_done(&b);
                return r;
        }
        case HT_EXPR_AND:
        case HT_EXPR_OR:
                return run_logic(p, e, n, ret);
        case HT_EXPR_IF: {
                val cond = {0};
                r = run(p, e, k[0], &cond);
                if (r >= 0)
                        r = expr_need(p, &cond, HT_VAL_BOOL, e->nodes[k[0]].start, "the condition of if()");
                bool take_a = r >= 0 && cond.v.num;
                val_done(&cond);
                if (r < 0)
                        return r;
                return run(p, e, k[take_a ? 1 : 2], ret);
        }
        case HT_EXPR_CALL:
                return run_call(p, e, n, ret);
        case HT_EXPR_STEP:
                break;
        }
        return -EINVAL;   /* a damaged tree: expr_finish_error() words it */
}

int ht_expr_run(const ht_expr *e, const char *src, size_t len, const ht_expr_env *env,
                ht_value *ret, char **ret_error) {
        parser p = { .src = src, .len = len, .env = env };
        val v = {0};
        int r = run(&p, e, e->root, &v);
        if (r < 0) {
                val_done(&v);
                return expr_finish_error(&p, r, ret_error);
        }
        *ret = v.v;
        return 0;
}

static bool has_str(const ht_expr_node *n) {
        return n->kind == HT_EXPR_STR || n->kind == HT_EXPR_NAME || n->kind == HT_EXPR_DEFINED;
}

bool ht_expr_equal(const ht_expr *a, const ht_expr *b) {
        if (a->n_nodes != b->n_nodes || a->n_kids != b->n_kids || a->root != b->root)
                return false;
        if (a->n_kids && memcmp(a->kids, b->kids, a->n_kids * sizeof(*a->kids)) != 0)
                return false;
        for (uint32_t i = 0; i < a->n_nodes; i++) {
                const ht_expr_node *x = &a->nodes[i], *y = &b->nodes[i];
                if (x->kind != y->kind || x->op != y->op || x->n_kids != y->n_kids || x->kids != y->kids ||
                    x->pos != y->pos || x->start != y->start || x->len != y->len || x->num != y->num)
                        return false;
                /* the same string, wherever each pool keeps it */
                if (has_str(x) ? !streq(ht_expr_node_str(a, x), ht_expr_node_str(b, y)) : x->str != y->str)
                        return false;
        }
        return true;
}

uint32_t ht_expr_write_c_chars(FILE *chars, uint32_t *n_chars, const char *s, size_t len) {
        uint32_t at = *n_chars;
        /* as bytes: no C escaping to get wrong */
        for (size_t k = 0; k <= len; k++, (*n_chars)++)
                fprintf(chars, "%s0x%02x,", *n_chars % 16 ? "" : "\n        ", k < len ? (unsigned char)s[k] : 0);
        return at;
}

void ht_expr_write_c(FILE *nodes, FILE *kids, FILE *chars, uint32_t *n_chars, const ht_expr *e) {
        for (uint32_t i = 0; i < e->n_nodes; i++) {
                const ht_expr_node *n = &e->nodes[i];
                uint32_t str = 0;
                if (has_str(n)) {
                        const char *s = ht_expr_node_str(e, n);
                        str = ht_expr_write_c_chars(chars, n_chars, s, strlen(s));
                }
                fprintf(nodes, "        {%u, %u, %u, %" PRIu32 ", %" PRIu32 ", %" PRIu32 ", %" PRIu32 ", %" PRIu32 ", ",
                        n->kind, n->op, n->n_kids, n->kids, n->pos, n->start, n->len, str);
                if (n->num == INT64_MIN)
                        fprintf(nodes, "INT64_MIN},\n");
                else
                        fprintf(nodes, "INT64_C(%" PRId64 ")},\n", n->num);
        }
        for (uint32_t i = 0; i < e->n_kids; i++)
                fprintf(kids, "%s%" PRIu32 ",", i % 16 ? " " : "\n        ", e->kids[i]);
}

const char *ht_expr_template_end(const char *s) {
        bool quoted = false;
        while (*s && (quoted || *s != '}')) {
                if (*s == '"')
                        quoted = !quoted;
                else if (quoted && *s == '\\' && s[1])
                        s++;
                s++;
        }
        return s;
}

int ht_expr_eval_ex(const char *src, const ht_expr_env *env, ht_value *ret, char **ret_error) {
        parser p;
        expr_build_space st;
        ht_expr e;
        int r = expr_build(&p, &st, src, &e);
        if (r < 0)
                /* a syntax error: the evaluating parser reports it, after
                 * whatever it meets first, as it always has */
                r = ht_expr_eval_text(src, env, ret, ret_error);
        else
                r = ht_expr_run(&e, src, strlen(src), env, ret, ret_error);
        expr_build_done(&p);
        return r;
}

int ht_expr_eval(const char *src, ht_expr_lookup_fn lookup, void *userdata,
                 ht_value *ret, char **ret_error) {
        const ht_expr_env env = { .lookup = lookup, .userdata = userdata };
        return ht_expr_eval_ex(src, &env, ret, ret_error);
}
