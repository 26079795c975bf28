/* The expression parser's internals that the tree evaluator (expr-tree.c)
 * shares with the evaluating parser (expr.c): a tree node calls the same
 * operators, functions and lookups, which report through the same parser
 * state, so that both give the same values and messages. Not for other
 * files. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "expr.h"

/* the most arguments a function takes */
#define MAX_ARGS 32

typedef enum {
        T_END, T_NUM, T_STR, T_NAME, T_LPAREN, T_RPAREN, T_COMMA,
        T_PLUS, T_MINUS, T_STAR, T_SLASH, T_NOT, T_AND, T_OR,
        T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE,
} tok_type;

typedef struct {
        tok_type type;
        size_t pos, len;   /* span in the source */
        int64_t num;       /* T_NUM */
        char *str;         /* T_STR, decoded, owned */
} token;

/* An evaluated value plus, for a null that came from a name, where that
 * name sits in the source (for "NAME is unknown on this host"). */
typedef struct {
        ht_value v;
        size_t origin_pos, origin_len;
        uint32_t node;   /* compiling: the node built for it */
} val;

typedef struct {
        const char *src;
        size_t len, pos;
        token tok;
        unsigned depth;
        const ht_expr_env *env;
        char *error;
        size_t error_pos;
        /* compiling (ht_expr_compile): the parse runs in skip mode, which
         * checks the syntax and evaluates nothing, and builds the tree */
        bool build;
        ht_expr_node *nodes;   /* first in the caller's stack buffers */
        uint32_t n_nodes, cap_nodes;
        uint32_t *kids;
        uint32_t n_kids, cap_kids;
        char *strs;            /* the names and strings, each NUL-ended; a
                                * node's num is its offset until the end */
        size_t n_strs, cap_strs;
        bool nodes_heap, kids_heap, strs_heap;
} parser;

static inline void val_done(val *v) {
        ht_value_done(&v->v);
        v->origin_len = 0;
}

static inline val val_of(ht_value v) {
        return (val){ .v = v };
}

/* Each returns 0 or a negative errno with p->error set; the caller still
 * owns the operands. */
/* v must be of type t: else a message naming what needed it, at pos */
int expr_need(parser *p, const val *v, ht_value_type t, size_t pos, const char *what);
/* the value of the name at pos/len in the source */
int expr_name_value(parser *p, const char *name, size_t pos, size_t len, val *ret);
/* defined(name), the name at pos */
int expr_defined_value(parser *p, const char *name, size_t pos, val *ret);
/* '!' or unary '-' at pos */
int expr_apply_unary(parser *p, tok_type op, size_t pos, val *v, val *ret);
/* + - * / at pos */
int expr_apply_arith(parser *p, tok_type op, size_t pos, val *a, val *b, val *ret);
/* == != < <= > >= at pos */
int expr_apply_cmp(parser *p, tok_type op, size_t pos, val *a, val *b, val *ret);
/* the function fn (its index in the parser's table; the arguments' count
 * checked when parsing) called at pos */
int expr_call_builtin(parser *p, unsigned fn, size_t pos, val *args, size_t n, val *ret);
/* r, with p's message (or one for r) handed to *ret_error */
int expr_finish_error(parser *p, int r, char **ret_error);

/* expr-number.c: exact rationals (each -ERANGE on overflow, -EDOM on a
 * zero denominator) and NUMBER (digits and a unit suffix) */
int expr_make_rat(__int128 num, __int128 den, ht_value *ret);
int expr_rat_add(const ht_value *a, const ht_value *b, bool subtract, ht_value *ret);
int expr_rat_mul(const ht_value *a, const ht_value *b, ht_value *ret);
int expr_rat_div(const ht_value *a, const ht_value *b, ht_value *ret);
int expr_rat_cmp(const ht_value *a, const ht_value *b);
int64_t expr_rat_floor(const ht_value *v);
int64_t expr_rat_ceil(const ht_value *v);
int expr_parse_number(const char *s, size_t n, int64_t *ret);

/* Compiling into the caller's stack space first: a tree of a few dozen
 * nodes (every shipped expression's) needs no allocation. */
typedef struct {
        ht_expr_node nodes[48];
        uint32_t kids[96];
        char strs[512];
} expr_build_space;
/* Parse src into a tree in p's buffers (st, then the heap): *ret views
 * them until expr_build_done(p), which the caller calls in any case. */
int expr_build(parser *p, expr_build_space *st, const char *src, ht_expr *ret);
void expr_build_done(parser *p);
