/* Profile and rule expressions: 64-bit integer arithmetic with unit
 * suffixes, exact division, comparisons, logic, strings, and names looked
 * up through a callback (params, facts.*, settings). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

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
/* Text form for files and messages: integers in decimal, booleans as
 * "true"/"false" (the caller maps them to 1/0 where a kernel wants that),
 * strings as is. A fraction is -EDOM (ceil()/floor() it). */
int ht_value_to_string(const ht_value *v, char **ret);

/* Resolve a name (letters, digits, '_' and '.'-separated parts, e.g.
 * "sga_max_size", "facts.memory.total_kb"). Return 0 and fill *ret, or
 * -ENOENT for an unknown name (the evaluator reports it, with a
 * suggestion when the callback offers candidates). */
typedef int (*ht_expr_lookup_fn)(void *userdata, const char *name, ht_value *ret);

/* Parse and evaluate src. On error returns -EINVAL (syntax, type),
 * -ERANGE (overflow), -EDOM (division by zero), -ENOENT (unknown name),
 * and sets *ret_error to a message naming the column. */
int ht_expr_eval(const char *src, ht_expr_lookup_fn lookup, void *userdata,
                 ht_value *ret, char **ret_error);

/* Parse a --set value or a literal: "18G" → int bytes, "true" → bool,
 * "42" → int, anything else → string. */
ht_value ht_value_parse_literal(const char *s);
