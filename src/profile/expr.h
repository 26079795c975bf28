/* Profile and rule expressions: 64-bit integer arithmetic with unit
 * suffixes, exact division, comparisons, logic, strings, and names looked
 * up through a callback (params, facts.*, settings).
 *
 * Grammar, loosest binding first:
 *   expr    := or
 *   or      := and ( "||" and )*
 *   and     := cmp ( "&&" cmp )*
 *   cmp     := sum [ ("=="|"!="|"<"|"<="|">"|">=") sum ]   (not chainable)
 *   sum     := product ( ("+"|"-") product )*
 *   product := unary ( ("*"|"/") unary )*
 *   unary   := ("-"|"!") unary | primary
 *   primary := NUMBER | STRING | "true" | "false" | "null" | NAME
 *            | FUNC "(" [ expr ( "," expr )* ] ")" | "(" expr ")"
 *   NUMBER  := decimal digits with an optional unit suffix, case-insensitive:
 *              K M G T P E = 1024^1..6 bytes, optionally followed by "B" or
 *              "iB" ("18G" = "18GB" = "18GiB" = 19327352832); a bare "B"
 *              means bytes. There are no decimal (1000) units.
 *   STRING  := '"' chars '"' with the escapes \" and \\ only
 *   NAME    := part ( "." part )*, part = [A-Za-z0-9_]+, the first part
 *              starting with a letter or '_' ("-" is always minus)
 *
 * Semantics: integers are exact rationals (num/den), so 7/2 stays 3.5 until
 * ceil()/floor(); + - * / and literals fail with -ERANGE on 64-bit
 * overflow, "/" by zero with -EDOM. "+" also concatenates two strings.
 * Comparisons take two integers, two strings (byte order) or two booleans
 * (== and != only); == and != also take null on either side. && || ! take
 * booleans only (an integer is not truthy) and short-circuit. Anything else
 * that meets a null fails: with -ENODATA "NAME is unknown on this host" when
 * the null came from a name, else -EINVAL.
 *
 * Functions: ceil(x) floor(x) abs(x) min(a,...) max(a,...) kb(bytes)
 * pages(bytes, page_kb) int(x) str(x) contains(s, sub) startswith(s, prefix)
 * version_ge(a, b) version_lt(a, b) matches(text, regex) defined(NAME)
 * if(cond, a, b).
 * matches() is Python's re.search(regex, text, re.MULTILINE) for the
 * regexes tuned profiles write (regex-python.h); a null text gives null.
 * if() evaluates only the branch it takes; defined() is true when the name
 * resolves to a non-null value and never fails for an unknown name.
 * version_*() split both strings into runs of digits (compared as numbers)
 * and runs of letters (compared as bytes), ignoring any other character;
 * a number ranks above letters, and when one side runs out the longer one
 * is greater: "5.10.112-11.al8" > "5.10.112-11" > "5.10.112-10" > "5.10".
 *
 * Limits: sources over HT_EXPR_MAX_LEN bytes, nesting over
 * HT_EXPR_MAX_DEPTH levels, calls with over 32 arguments and "+" building
 * a string over 1 MiB are errors. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define HT_EXPR_MAX_LEN (64 * 1024)
#define HT_EXPR_MAX_DEPTH 200

typedef enum {
        HT_VAL_NULL,   /* an unknown fact, or a name that is not defined */
        HT_VAL_INT,    /* 64-bit signed; may be a fraction num/den until ceil/floor */
        HT_VAL_BOOL,
        HT_VAL_STR,
} ht_value_type;

typedef struct {
        ht_value_type type;
        int64_t num;   /* INT: numerator; BOOL: 0/1 */
        int64_t den;   /* INT: denominator, > 0, 1 for whole numbers */
        char *str;     /* STR: owned */
} ht_value;

void ht_value_done(ht_value *v);
ht_value ht_value_int(int64_t n);
ht_value ht_value_bool(bool b);
ht_value ht_value_str(const char *s);  /* copies */
ht_value ht_value_null(void);
/* A deep copy (the string is duplicated). */
ht_value ht_value_copy(const ht_value *v);
/* "integer", "boolean", "string" or "null", for messages. */
const char *ht_value_type_name(ht_value_type t);
/* Text form for files and messages: integers in decimal, booleans as
 * "true"/"false" (the caller maps them to 1/0 where a kernel wants that),
 * strings as is. A fraction is -EDOM (ceil()/floor() it), null -ENODATA. */
int ht_value_to_string(const ht_value *v, char **ret);

/* Resolve a name (letters, digits, '_' and '.'-separated parts, e.g.
 * "sga_max_size", "facts.memory.total_kb"). Return 0 and fill *ret, or
 * -ENOENT for an unknown name (the evaluator reports it, with a
 * suggestion when the callback offers candidates). A known name whose
 * value this host lacks should return 0 with a null value. Any other
 * negative errno is passed through. */
typedef int (*ht_expr_lookup_fn)(void *userdata, const char *name, ht_value *ret);

typedef struct {
        ht_expr_lookup_fn lookup;   /* NULL: no names are known */
        void *userdata;
        /* Optional: a new NULL-terminated list of the names lookup knows,
         * used for "did you mean" suggestions; the evaluator frees it
         * with strv_free(). Called only when a name is unknown. */
        char **(*candidates)(void *userdata);
} ht_expr_env;

/* A parsed expression: a tree of nodes in one array, children before
 * their parents, evaluated by ht_expr_run() without the source being
 * lexed again. The shipped files' trees are frozen into the built-in data
 * (tools/ht-freeze.c writes them with ht_expr_write_c()), so its layout is
 * shared with the generated builtin-data.c. Nodes, kids and strings hold
 * no pointer, only indexes and offsets: the frozen trees of all shipped
 * files are three arrays in .rodata that the loader has nothing to
 * relocate (pointers there cost every start a page fault and a dirty page
 * per 4 KiB of .data.rel.ro); an ht_expr is a view of one tree in them. */
typedef enum {
        HT_EXPR_NUM,      /* num */
        HT_EXPR_STR,      /* str: the decoded string */
        HT_EXPR_TRUE,
        HT_EXPR_FALSE,
        HT_EXPR_NULL,
        HT_EXPR_NAME,     /* str: the name; pos, len: where it is */
        HT_EXPR_DEFINED,  /* defined(NAME): str the name, pos where it is */
        HT_EXPR_UNARY,    /* op '-' or '!' applied to kid 0 */
        HT_EXPR_ARITH,    /* kid 0 then HT_EXPR_STEP kids: ((k0 op1 k1) op2 k2)... */
        HT_EXPR_STEP,     /* op (at pos) and its right operand, kid 0 */
        HT_EXPR_CMP,      /* kid 0 op kid 1 */
        HT_EXPR_AND,      /* kid 0 && kid 1 && ...: each evaluated only if needed */
        HT_EXPR_OR,
        HT_EXPR_IF,       /* if(kid 0, kid 1, kid 2) */
        HT_EXPR_CALL,     /* op: the function; pos: its name; the kids its arguments */
} ht_expr_kind;

typedef struct {
        uint8_t kind;       /* ht_expr_kind */
        uint8_t op;         /* UNARY, STEP, CMP: the operator; CALL: the function */
        uint16_t n_kids;
        uint32_t kids;      /* the first child's index in ht_expr.kids */
        uint32_t pos;       /* where a message about this node points */
        uint32_t start;     /* where the node's text starts, a '(' around it included */
        uint32_t len;       /* NAME: the name's length */
        uint32_t str;       /* STR, NAME, DEFINED: the string's offset in ht_expr.strings; else 0 */
        int64_t num;
} ht_expr_node;

typedef struct ht_expr {
        const ht_expr_node *nodes;
        const uint32_t *kids;      /* children's node indexes, in nodes */
        const char *strings;       /* the nodes' strings, each NUL-ended */
        uint32_t n_nodes, n_kids, root;
        bool owned;         /* from ht_expr_compile(): ht_expr_free() frees it */
} ht_expr;

/* A node's string (STR, NAME, DEFINED). */
static inline const char *ht_expr_node_str(const ht_expr *e, const ht_expr_node *n) {
        return e->strings + n->str;
}

/* Parse src (NUL-terminated) into a tree. On a syntax error (anything
 * ht_expr_eval_text() would report before it looks a name up, or after)
 * returns the error with no message: ht_expr_eval_ex() then evaluates the
 * text, which says where the error is, in the order it always has. */
int ht_expr_compile(const char *src, ht_expr **ret);
void ht_expr_free(ht_expr *e);
/* Evaluate a tree; src/len is the text it was parsed from (messages quote
 * it). Results, errors and the names looked up are those of
 * ht_expr_eval_text() on the same text. */
int ht_expr_run(const ht_expr *e, const char *src, size_t len, const ht_expr_env *env,
                ht_value *ret, char **ret_error);
/* Two trees that evaluate alike (the tests compare frozen and fresh). */
bool ht_expr_equal(const ht_expr *a, const ht_expr *b);
/* Append e's nodes, kids and strings as C initialisers to the three
 * pools ht-freeze writes (the array bodies of ht_builtin_expr_nodes,
 * _kids and _chars, profile-builtin.h); *n_chars is the chars pool's
 * length so far, advanced by the strings written: a node's str is its
 * string's offset in the pool. Its kids stay indexes within e. */
void ht_expr_write_c(FILE *nodes, FILE *kids, FILE *chars, uint32_t *n_chars, const ht_expr *e);
/* Append len bytes and a NUL to the chars pool, as ht_expr_write_c()
 * does: returns their offset. */
uint32_t ht_expr_write_c_chars(FILE *chars, uint32_t *n_chars, const char *s, size_t len);
/* The end of a template's ${EXPR}: s is the byte after "${"; returns the
 * '}' that closes it (one inside a string literal does not) or the NUL. */
const char *ht_expr_template_end(const char *s);

/* The evaluating parser: parse and evaluate src in one pass (what
 * ht_expr_eval_ex() falls back on for a text that does not parse, and
 * what the tests compare trees with). */
int ht_expr_eval_text(const char *src, const ht_expr_env *env, ht_value *ret, char **ret_error);

/* Parse and evaluate src. On error returns -EINVAL (syntax, type),
 * -ERANGE (overflow), -EDOM (division by zero), -ENOENT (unknown name),
 * -ENODATA (a null value used where a value is needed) or the lookup's own
 * error, and sets *ret_error to "column N: what went wrong" followed by
 * two lines: the source (a window of it when long) and a caret under
 * column N. The result may be null, or a fraction (see
 * ht_value_to_string). *ret is untouched on failure. */
int ht_expr_eval_ex(const char *src, const ht_expr_env *env,
                    ht_value *ret, char **ret_error);
/* ht_expr_eval_ex() without suggestions. */
int ht_expr_eval(const char *src, ht_expr_lookup_fn lookup, void *userdata,
                 ht_value *ret, char **ret_error);

/* Parse a --set value or a literal: an optional '-' and a NUMBER as in
 * the grammar ("18G", "42", "-1") → int bytes, exactly "true"/"false" →
 * bool, anything else (including "yes", "no", " 42", "1.5" and numbers
 * that overflow) → string. */
ht_value ht_value_parse_literal(const char *s);
/* A value as text for messages; fractions with two decimals. */
char *ht_value_format(const ht_value *v);

/* version_ge()/version_lt() compare with ht_version_compare (util.h). */
