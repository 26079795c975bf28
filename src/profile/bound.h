/* Bounds: whether a setting's value is a target (exact) or a limit the
 * host may already pass (at least, at most, a range to widen). Pure
 * functions over value strings; no host access.
 *
 * A bounded value is one or more whitespace-separated integers, compared
 * field by field (kernel.sem's SEMMSL SEMMNS SEMOPM SEMMNI each on its
 * own). A range is one value between two bounds, written LOW..HIGH: at
 * least LOW and at most HIGH (Oracle's hard stack limit, "at least 10240
 * KB, and at most 32768 KB"). A two-field value whose every field is a
 * minimum (net.ipv4.ip_local_port_range: the low end at least 9000, the
 * high end at least 65500) is at-least. */
#pragma once

#include <stdbool.h>

typedef enum {
        HT_BOUND_EXACT,     /* the value itself: today's meaning, the default */
        HT_BOUND_AT_LEAST,  /* each field at least the bound's (a minimum) */
        HT_BOUND_AT_MOST,   /* each field at most the bound's (a maximum) */
        HT_BOUND_RANGE,     /* "LOW..HIGH": one value at least LOW, at most HIGH */
        _HT_BOUND_MAX,
} ht_bound;

/* "exact", "at-least", "at-most", "range". */
const char *ht_bound_to_string(ht_bound b);
/* The inverse; -EINVAL for anything else. */
int ht_bound_from_string(const char *s, ht_bound *ret);

/* A bound's value in canonical form: fields in decimal (byte sizes with
 * K, M, G, T become bytes), one blank between them. An exact value is
 * returned as it is. -EINVAL (or -ERANGE) with *ret_why saying what is
 * wrong: a field that is not an integer, a range not of the form
 * LOW..HIGH (one field each) or with LOW above HIGH. A range comes back
 * as "LOW..HIGH" in decimal. */
int ht_bound_normalize(ht_bound b, const char *value, char **ret, char **ret_why);

/* Whether current (as the kernel prints it: blanks or tabs between
 * fields) meets the bound want (normalised). A current value that is not
 * integers, or has another number of fields, does not. Exact compares
 * the text with blanks collapsed. */
bool ht_bound_satisfied(ht_bound b, const char *want, const char *current);

/* The value to write so that current meets want, changing only the
 * fields that fall short: kernel.sem "250 32000 32 128" at least
 * "250 32000 100 128" gives "250 32000 100 128", "1024 65535" at least
 * "9000 65500" gives "9000 65535", 65536 in 10240..32768 gives 32768,
 * 8192 gives 10240. want itself when current is NULL or not comparable,
 * or the bound is exact; for a range then its high end, the most the
 * bound allows (an unset hard stack limit is unlimited, above it). */
char *ht_bound_merge(ht_bound b, const char *want, const char *current);

/* For messages: "at least 6815744", "at most 10", "within
 * 10240..32768", or the value itself for exact. */
char *ht_bound_describe(ht_bound b, const char *want);

/* A range's two ends as written ("10240..32768"): 0, or -EINVAL when
 * want is not LOW..HIGH. The ends are returned as text (owned), so that
 * a caller with values of its own kind (limits.conf's "unlimited")
 * compares them its way. */
int ht_bound_range_ends(const char *want, char **ret_low, char **ret_high);
