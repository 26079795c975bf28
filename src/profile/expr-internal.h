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
        ht_expr_node *nodes;
        uint32_t n_nodes, cap_nodes;
        uint32_t *kids;
        uint32_t n_kids, cap_kids;
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
