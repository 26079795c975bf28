/* Bounds: whether a setting's value is a target (exact) or a limit the
 * host may already pass (at least, at most, a range to widen). Pure
 * functions over value strings; no host access.
 *
 * A bounded value is one or more whitespace-separated integers, compared
 * field by field (kernel.sem's SEMMSL SEMMNS SEMOPM SEMMNI each on its
 * own). A range has two fields, low and high, and may only widen: the
 * host's low end at most the bound's, its high end at least the bound's
 * (net.ipv4.ip_local_port_range). */
#pragma once

#include <stdbool.h>

typedef enum {
        HT_BOUND_EXACT,     /* the value itself: today's meaning, the default */
        HT_BOUND_AT_LEAST,  /* each field at least the bound's (a minimum) */
        HT_BOUND_AT_MOST,   /* each field at most the bound's (a maximum) */
        HT_BOUND_RANGE,     /* "LOW HIGH": low at most, high at least */
        _HT_BOUND_MAX,
} ht_bound;

/* "exact", "at-least", "at-most", "range". */
const char *ht_bound_to_string(ht_bound b);
/* The inverse; -EINVAL for anything else. */
int ht_bound_from_string(const char *s, ht_bound *ret);

/* A bound's value in canonical form: fields in decimal (byte sizes with
 * K, M, G, T become bytes), one blank between them. An exact value is
 * returned as it is. -EINVAL (or -ERANGE) with *ret_why saying what is
 * wrong: a field that is not an integer, a range without exactly two
 * fields or with its low end above its high end. */
int ht_bound_normalize(ht_bound b, const char *value, char **ret, char **ret_why);

/* Whether current (as the kernel prints it: blanks or tabs between
 * fields) meets the bound want (normalised). A current value that is not
 * integers, or has another number of fields, does not. Exact compares
 * the text with blanks collapsed. */
bool ht_bound_satisfied(ht_bound b, const char *want, const char *current);

/* The value to write so that current meets want, changing only the
 * fields that fall short: kernel.sem "250 32000 32 128" at least
 * "250 32000 100 128" gives "250 32000 100 128", "32768 60999" in the
 * range "9000 65500" gives "9000 65500". want itself when current is
 * NULL or not comparable, or the bound is exact. */
char *ht_bound_merge(ht_bound b, const char *want, const char *current);

/* For messages: "at least 6815744", "at most 10", "a range covering
 * 9000 65500", or the value itself for exact. */
char *ht_bound_describe(ht_bound b, const char *want);
