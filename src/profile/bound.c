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

/* Split on blanks and tabs into at most MAX_FIELDS numbers. */
static int fields_parse(const char *s, bool sizes, num *ret, size_t *ret_n) {
        _cleanup_strv_free_ char **w = strv_split(s, " \t");
        size_t n = strv_length(w);
        if (n == 0)
                return -EINVAL;
        if (n > MAX_FIELDS)
                return -E2BIG;
        for (size_t i = 0; i < n; i++) {
                int k = num_parse(w[i], sizes, &ret[i]);
                if (k < 0)
                        return k;
        }
        *ret_n = n;
        return 0;
}

int ht_bound_normalize(ht_bound b, const char *value, char **ret, char **ret_why) {
        if (b == HT_BOUND_EXACT) {
                *ret = xstrdup(value);
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
        if (b == HT_BOUND_RANGE && n != 2) {
                *ret_why = xstrdup("a range takes two fields, the low and the high end");
                return -EINVAL;
        }
        if (b == HT_BOUND_RANGE && num_cmp(f[0], f[1]) > 0) {
                *ret_why = xstrdup("a range's low end is above its high end");
                return -EINVAL;
        }
        strbuf out = {0};
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *t = num_format(f[i]);
                strbuf_appendf(&out, "%s%s", i ? " " : "", t);
        }
        *ret = strbuf_steal(&out);
        return 0;
}

/* Field i's sense of "enough": +1 at least, -1 at most. */
static int field_sense(ht_bound b, size_t i) {
        if (b == HT_BOUND_RANGE)
                return i == 0 ? -1 : 1;
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
                _cleanup_free_ char *a = normalize_ws(want), *c = normalize_ws(current);
                return streq(a, c);
        }
        num w[MAX_FIELDS], c[MAX_FIELDS];
        size_t n;
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
        case HT_BOUND_RANGE: return xasprintf("a range covering %s", want);
        default: return xstrdup(want);
        }
}
