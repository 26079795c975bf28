/* Exact rationals (an integer value is num/den until ceil() or floor()),
 * numbers with unit suffixes, and values as text for messages: what the
 * parser (expr.c) and its functions compute with. Calls nothing in
 * expr.c (the values are built in place). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "expr.h"
#include "expr-internal.h"
#include "util.h"

/* ---- exact rationals ---- */

static __int128 gcd128(__int128 a, __int128 b) {
        if (a < 0)
                a = -a;
        if (b < 0)
                b = -b;
        while (b) {
                __int128 t = a % b;
                a = b;
                b = t;
        }
        return a;
}

/* Reduce num/den into a value; every product fed here comes from two
 * int64 operands, so it fits an __int128 with room to negate. */
int expr_make_rat(__int128 num, __int128 den, ht_value *ret) {
        if (den == 0)
                return -EDOM;
        if (den < 0) {
                num = -num;
                den = -den;
        }
        __int128 g = gcd128(num, den);
        if (g > 1) {
                num /= g;
                den /= g;
        }
        if (num < INT64_MIN || num > INT64_MAX || den > INT64_MAX)
                return -ERANGE;
        *ret = (ht_value){ .type = HT_VAL_INT, .num = (int64_t)num, .den = (int64_t)den };
        return 0;
}

int expr_rat_add(const ht_value *a, const ht_value *b, bool subtract, ht_value *ret) {
        if (a->den == 1 && b->den == 1) {
                int64_t r;
                if (subtract ? __builtin_sub_overflow(a->num, b->num, &r)
                             : __builtin_add_overflow(a->num, b->num, &r))
                        return -ERANGE;
                *ret = (ht_value){ .type = HT_VAL_INT, .num = r, .den = 1 };
                return 0;
        }
        __int128 x = (__int128)a->num * b->den, y = (__int128)b->num * a->den, s;
        if (subtract ? __builtin_sub_overflow(x, y, &s) : __builtin_add_overflow(x, y, &s))
                return -ERANGE;
        return expr_make_rat(s, (__int128)a->den * b->den, ret);
}

int expr_rat_mul(const ht_value *a, const ht_value *b, ht_value *ret) {
        if (a->den == 1 && b->den == 1) {
                int64_t r;
                if (__builtin_mul_overflow(a->num, b->num, &r))
                        return -ERANGE;
                *ret = (ht_value){ .type = HT_VAL_INT, .num = r, .den = 1 };
                return 0;
        }
        return expr_make_rat((__int128)a->num * b->num, (__int128)a->den * b->den, ret);
}

int expr_rat_div(const ht_value *a, const ht_value *b, ht_value *ret) {
        if (b->num == 0)
                return -EDOM;
        return expr_make_rat((__int128)a->num * b->den, (__int128)a->den * b->num, ret);
}

int expr_rat_cmp(const ht_value *a, const ht_value *b) {
        __int128 x = (__int128)a->num * b->den, y = (__int128)b->num * a->den;
        return (x > y) - (x < y);
}

int64_t expr_rat_floor(const ht_value *v) {
        int64_t q = v->num / v->den;
        if (v->num % v->den != 0 && v->num < 0)
                q--;
        return q;
}

int64_t expr_rat_ceil(const ht_value *v) {
        int64_t q = v->num / v->den;
        if (v->num % v->den != 0 && v->num > 0)
                q++;
        return q;
}

/* ---- numbers with unit suffixes ---- */

/* Parse s[0..n) as digits plus an optional unit suffix. */
int expr_parse_number(const char *s, size_t n, int64_t *ret) {
        size_t i = 0;
        int64_t v = 0;
        if (n == 0 || !isdigit((unsigned char)s[0]))
                return -EINVAL;
        for (; i < n && isdigit((unsigned char)s[i]); i++)
                if (__builtin_mul_overflow(v, 10, &v) ||
                    __builtin_add_overflow(v, s[i] - '0', &v))
                        return -ERANGE;

        unsigned shift = 0;
        if (i < n) {
                static const char units[] = "kmgtpe";
                const char *u = strchr(units, tolower((unsigned char)s[i]));
                if (u && *u) {
                        shift = 10 * (unsigned)(u - units + 1);
                        i++;
                        if (i < n && tolower((unsigned char)s[i]) == 'i') {
                                i++;
                                if (i >= n || tolower((unsigned char)s[i]) != 'b')
                                        return -EINVAL;
                        }
                }
                if (i < n && tolower((unsigned char)s[i]) == 'b')
                        i++;
                if (i < n)
                        return -EINVAL;
        }
        if (shift > 0) {
                if (v > (INT64_MAX >> shift))
                        return -ERANGE;
                v <<= shift;
        }
        *ret = v;
        return 0;
}

char *ht_value_format(const ht_value *v) {
        switch (v->type) {
        case HT_VAL_INT: {
                if (v->den == 1 || v->den == 0)
                        return xasprintf("%" PRId64, v->num);
                /* A fraction in a message: two decimals are enough to read. */
                __int128 n = v->num, d = v->den;
                bool neg = n < 0;
                if (neg)
                        n = -n;
                __int128 scaled = (n * 100 + d / 2) / d;
                long long ip = (long long)(scaled / 100);
                int fp = (int)(scaled % 100);
                if (fp % 10 == 0)
                        return xasprintf("%s%lld.%d", neg ? "-" : "", ip, fp / 10);
                return xasprintf("%s%lld.%02d", neg ? "-" : "", ip, fp);
        }
        case HT_VAL_BOOL:
                return xstrdup(v->num ? "true" : "false");
        case HT_VAL_STR:
                return xstrdup(v->str ? v->str : "");
        default:
                return xstrdup("unknown");
        }
}
