#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "bound.h"
#include "util.h"

/* kernel.sem has 4 fields; nothing hosttune bounds has more than a few */
#define MAX_FIELDS 16

static const char *const names[_HT_BOUND_MAX] = {
        [HT_BOUND_EXACT] = "exact",
        [HT_BOUND_AT_LEAST] = "at-least",
        [HT_BOUND_AT_MOST] = "at-most",
        [HT_BOUND_RANGE] = "range",
};

const char *ht_bound_to_string(ht_bound b) {
        return b >= 0 && b < _HT_BOUND_MAX ? names[b] : "unknown";
}

int ht_bound_from_string(const char *s, ht_bound *ret) {
        for (int i = 0; s && i < _HT_BOUND_MAX; i++)
                if (streq(s, names[i])) {
                        *ret = (ht_bound)i;
                        return 0;
                }
        return -EINVAL;
}

/* Kernel values span int64 (-1 for "no limit" in some knobs) and uint64
 * (kernel.shmall 18446744073692774399): sign and magnitude hold both. */
typedef struct {
        bool neg;
        uint64_t mag;
} num;

static int num_cmp(num a, num b) {
        if (a.neg != b.neg)
                return a.neg ? -1 : 1;
        int c = a.mag < b.mag ? -1 : a.mag > b.mag;
        return a.neg ? -c : c;
}

/* One field: [-]digits, or with sizes a K/M/G/T suffix (bytes). */
static int num_parse(const char *s, bool sizes, num *ret) {
        num n = {.neg = s[0] == '-'};
        const char *d = s + n.neg;
        if (!isdigit((unsigned char)*d))
                return -EINVAL;
        int k = sizes && !n.neg ? parse_size_bytes(d, &n.mag) : parse_u64(d, &n.mag);
        if (k < 0)
                return k;
        if (n.neg && n.mag == 0)
                n.neg = false;
        *ret = n;
        return 0;
}

static char *num_format(num n) {
        return xasprintf("%s%" PRIu64, n.neg ? "-" : "", n.mag);
}

/* Split on blanks and tabs into at most MAX_FIELDS numbers: the words
 * strv_split(s, " \t") gives, copied to the stack one at a time (every
 * bounded value of a plan passes here several times). */
static int fields_parse(const char *s, bool sizes, num *ret, size_t *ret_n) {
        size_t n = 0;
        for (const char *p = s + strspn(s, " \t"); *p; p += strspn(p, " \t")) {
                n++;
                p += strcspn(p, " \t");
        }
        if (n == 0)
                return -EINVAL;
        if (n > MAX_FIELDS)
                return -E2BIG;
        size_t i = 0;
        for (const char *p = s + strspn(s, " \t"); *p; p += strspn(p, " \t")) {
                size_t len = strcspn(p, " \t");
                char small[64];
                _cleanup_free_ char *heap = len < sizeof small ? NULL : xstrndup(p, len);
                if (!heap) {
                        memcpy(small, p, len);
                        small[len] = 0;
                }
                int k = num_parse(heap ? heap : small, sizes, &ret[i++]);
                if (k < 0)
                        return k;
                p += len;
        }
        *ret_n = n;
        return 0;
}

int ht_bound_normalize(ht_bound b, const char *value, char **ret, char **ret_why) {
        if (b == HT_BOUND_EXACT) {
                *ret = xstrdup(value);
                return 0;
        }
        if (b == HT_BOUND_RANGE) {
                _cleanup_free_ char *lo = NULL, *hi = NULL;
                num l, h;
                int k = ht_bound_range_ends(value, &lo, &hi);
                if (k < 0) {
                        *ret_why = xstrdup(strchr(value, '.') ? "a range is LOW..HIGH, one integer at each end"
                                                              : "a range is LOW..HIGH (at least LOW, at most HIGH); "
                                                                "for a value whose every field is a minimum, such as "
                                                                "a port range \"9000 65500\", use at-least");
                        return -EINVAL;
                }
                k = num_parse(lo, true, &l);
                if (k >= 0)
                        k = num_parse(hi, true, &h);
                if (k < 0) {
                        *ret_why = xstrdup(k == -ERANGE ? "a field does not fit in 64 bits"
                                                        : "a range's ends must be integers (sizes take K, M, G, T)");
                        return k == -ERANGE ? -ERANGE : -EINVAL;
                }
                if (num_cmp(l, h) > 0) {
                        *ret_why = xstrdup("a range's low end is above its high end");
                        return -EINVAL;
                }
                _cleanup_free_ char *a = num_format(l), *z = num_format(h);
                *ret = xasprintf("%s..%s", a, z);
                return 0;
        }
        num f[MAX_FIELDS];
        size_t n = 0;
        int k = fields_parse(value, true, f, &n);
        if (k == -E2BIG) {
                *ret_why = xasprintf("a bound takes at most %d fields", MAX_FIELDS);
                return -EINVAL;
        }
        if (k < 0) {
                *ret_why = xstrdup(k == -ERANGE ? "a field does not fit in 64 bits"
                                                : "a bound's fields must be integers (sizes take K, M, G, T)");
                return k == -ERANGE ? -ERANGE : -EINVAL;
        }
        strbuf out = {0};
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *t = num_format(f[i]);
                strbuf_appendf(&out, "%s%s", i ? " " : "", t);
        }
        *ret = strbuf_steal(&out);
        return 0;
}

int ht_bound_range_ends(const char *want, char **ret_low, char **ret_high) {
        const char *dots = want ? strstr(want, "..") : NULL;
        if (!dots)
                return -EINVAL;
        _cleanup_free_ char *a = xstrndup(want, dots - want), *z = xstrdup(dots + 2);
        const char *lo = strstrip(a), *hi = strstrip(z);
        if (isempty(lo) || isempty(hi) || strpbrk(lo, " \t.") || strpbrk(hi, " \t."))
                return -EINVAL;
        *ret_low = xstrdup(lo);
        *ret_high = xstrdup(hi);
        return 0;
}

/* A range's ends as numbers (want normalised: "LOW..HIGH"). */
static bool range_parse(const char *want, num *lo, num *hi) {
        _cleanup_free_ char *l = NULL, *h = NULL;
        return ht_bound_range_ends(want, &l, &h) == 0 && num_parse(l, false, lo) == 0 && num_parse(h, false, hi) == 0;
}

/* current as one number, or false. */
static bool one_field(const char *current, num *ret) {
        num c[MAX_FIELDS];
        size_t n = 0;
        if (!current || fields_parse(current, false, c, &n) < 0 || n != 1)
                return false;
        *ret = c[0];
        return true;
}

/* Field i's sense of "enough": +1 at least, -1 at most. */
static int field_sense(ht_bound b, size_t i) {
        (void)i;
        return b == HT_BOUND_AT_MOST ? -1 : 1;
}

/* Both sides as numbers with the same field count, or false. */
static bool comparable(const char *want, const char *current, num *w, num *c, size_t *ret_n) {
        size_t nw = 0, nc = 0;
        if (!want || !current || fields_parse(want, false, w, &nw) < 0 ||
            fields_parse(current, false, c, &nc) < 0 || nw != nc)
                return false;
        *ret_n = nw;
        return true;
}

bool ht_bound_satisfied(ht_bound b, const char *want, const char *current) {
        if (b == HT_BOUND_EXACT) {
                if (!want || !current)
                        return want == current;
                return ht_ws_equal(want, current);
        }
        num w[MAX_FIELDS], c[MAX_FIELDS];
        size_t n;
        if (b == HT_BOUND_RANGE) {
                num lo, hi, v;
                return range_parse(want, &lo, &hi) && one_field(current, &v) && num_cmp(v, lo) >= 0 &&
                       num_cmp(v, hi) <= 0;
        }
        if (!comparable(want, current, w, c, &n))
                return false;
        for (size_t i = 0; i < n; i++)
                if (num_cmp(c[i], w[i]) * field_sense(b, i) < 0)
                        return false;
        return true;
}

char *ht_bound_merge(ht_bound b, const char *want, const char *current) {
        num w[MAX_FIELDS], c[MAX_FIELDS];
        size_t n;
        if (b == HT_BOUND_RANGE) {
                num lo, hi, v;
                if (!range_parse(want, &lo, &hi))
                        return xstrdup(want);
                if (!one_field(current, &v) || num_cmp(v, hi) > 0)
                        return num_format(hi);
                return num_format(num_cmp(v, lo) < 0 ? lo : v);
        }
        if (b == HT_BOUND_EXACT || !comparable(want, current, w, c, &n))
                return xstrdup(want);
        strbuf out = {0};
        for (size_t i = 0; i < n; i++) {
                num keep = num_cmp(c[i], w[i]) * field_sense(b, i) >= 0 ? c[i] : w[i];
                _cleanup_free_ char *t = num_format(keep);
                strbuf_appendf(&out, "%s%s", i ? " " : "", t);
        }
        return strbuf_steal(&out);
}

char *ht_bound_describe(ht_bound b, const char *want) {
        switch (b) {
        case HT_BOUND_AT_LEAST: return xasprintf("at least %s", want);
        case HT_BOUND_AT_MOST: return xasprintf("at most %s", want);
        case HT_BOUND_RANGE: return xasprintf("within %s", want);
        default: return xstrdup(want);
        }
}
