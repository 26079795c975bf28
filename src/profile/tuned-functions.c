/* tuned's ${f:...} functions (tuned-functions.h): the scanner is a
 * transcription of tuned 2.20's Functions._process, the functions of
 * tuned/profiles/functions/function_*.py and the cpulist helpers of
 * tuned/utils/commands.py, with Python's int() and str.strip() spelled
 * out where tuned leans on them. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "facts.h"
#include "regex-python.h"
#include "tuned-functions.h"
#include "util.h"

/* Linux's largest NR_CPUS (x86 MAXSMP): a bitmap that size holds every
 * CPU a host can have, where tuned's Python lists grow without bound. */
#define CPU_MAX 8192
/* tuned values are a line; a bound keeps nested calls from growing
 * without end (each result is copied into its caller's arguments). */
#define EXPAND_MAX (1024 * 1024)
#define DEPTH_MAX 64

typedef struct {
        uint64_t bits[CPU_MAX / 64];
} cpuset;

static void cpuset_add(cpuset *s, size_t cpu) { s->bits[cpu / 64] |= UINT64_C(1) << (cpu % 64); }
static void cpuset_del(cpuset *s, size_t cpu) { s->bits[cpu / 64] &= ~(UINT64_C(1) << (cpu % 64)); }
static bool cpuset_has(const cpuset *s, size_t cpu) { return s->bits[cpu / 64] >> (cpu % 64) & 1; }

typedef struct {
        json_object *facts;
        const char *name; /* the function being called */
        char *error;
} fn_ctx;

static int fail(fn_ctx *c, int r, const char *fmt, ...) _printf_(3, 4);
static int fail(fn_ctx *c, int r, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        free(c->error);
        c->error = xvasprintf(fmt, ap);
        va_end(ap);
        return r;
}

/* ---- Python's whitespace, str.strip() and int() ---- */

/* The characters str.isspace() takes beyond ASCII, in UTF-8. */
static const char *const unicode_spaces[] = {
        "\xc2\x85", "\xc2\xa0", "\xe1\x9a\x80", "\xe2\x80\x80", "\xe2\x80\x81", "\xe2\x80\x82",
        "\xe2\x80\x83", "\xe2\x80\x84", "\xe2\x80\x85", "\xe2\x80\x86", "\xe2\x80\x87", "\xe2\x80\x88",
        "\xe2\x80\x89", "\xe2\x80\x8a", "\xe2\x80\xa8", "\xe2\x80\xa9", "\xe2\x80\xaf", "\xe2\x81\x9f",
        "\xe3\x80\x80",
};

static bool ascii_space(unsigned char c) {
        return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1c && c <= 0x1f);
}

/* The length of the whitespace character s[0..n) starts with, or 0. */
static size_t space_at_start(const char *s, size_t n) {
        if (n && ascii_space((unsigned char)s[0]))
                return 1;
        for (size_t i = 0; i < ELEMENTSOF(unicode_spaces); i++) {
                size_t l = strlen(unicode_spaces[i]);
                if (n >= l && memcmp(s, unicode_spaces[i], l) == 0)
                        return l;
        }
        return 0;
}

static size_t space_at_end(const char *s, size_t n) {
        if (n && ascii_space((unsigned char)s[n - 1]))
                return 1;
        for (size_t i = 0; i < ELEMENTSOF(unicode_spaces); i++) {
                size_t l = strlen(unicode_spaces[i]);
                if (n >= l && memcmp(s + n - l, unicode_spaces[i], l) == 0)
                        return l;
        }
        return 0;
}

/* str.strip(): *s and *n narrowed to the text between the whitespace. */
static void py_strip(const char **s, size_t *n) {
        size_t l;
        while ((l = space_at_start(*s, *n))) {
                *s += l;
                *n -= l;
        }
        while ((l = space_at_end(*s, *n)))
                *n -= l;
}

static int digit_value(char c, int base) {
        int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;
        return v < base ? v : -1;
}

/* The zeros of Unicode's decimal digits (category Nd, Unicode 14 as
 * Python 3.11 has it; each block runs 0-9), which int() reads as well. */
static const uint32_t unicode_zeros[] = {
        0x660,   0x6f0,   0x7c0,   0x966,   0x9e6,   0xa66,   0xae6,   0xb66,   0xbe6,   0xc66,   0xce6,
        0xd66,   0xde6,   0xe50,   0xed0,   0xf20,   0x1040,  0x1090,  0x17e0,  0x1810,  0x1946,  0x19d0,
        0x1a80,  0x1a90,  0x1b50,  0x1bb0,  0x1c40,  0x1c50,  0xa620,  0xa8d0,  0xa900,  0xa9d0,  0xa9f0,
        0xaa50,  0xabf0,  0xff10,  0x104a0, 0x10d30, 0x11066, 0x110f0, 0x11136, 0x111d0, 0x112f0, 0x11450,
        0x114d0, 0x11650, 0x116c0, 0x11730, 0x118e0, 0x11950, 0x11c50, 0x11d50, 0x11da0, 0x16a60, 0x16ac0,
        0x16b50, 0x1d7ce, 0x1d7d8, 0x1d7e2, 0x1d7ec, 0x1d7f6, 0x1e140, 0x1e2f0, 0x1e950, 0x1fbf0,
};

/* The code point of the UTF-8 sequence at s (*len its length), or -1. */
static int32_t utf8_decode(const char *s, size_t n, size_t *len) {
        const unsigned char *u = (const unsigned char *)s;
        size_t l = u[0] >= 0xf0 ? 4 : u[0] >= 0xe0 ? 3 : u[0] >= 0xc0 ? 2 : 0;
        if (!l || l > n)
                return -1;
        int32_t cp = u[0] & (0x7f >> l);
        for (size_t i = 1; i < l; i++) {
                if ((u[i] & 0xc0) != 0x80)
                        return -1;
                cp = cp << 6 | (u[i] & 0x3f);
        }
        *len = l;
        return cp;
}

/* Python's int(s, base) for base 10 and 16: 0 with *digits (lower case,
 * no leading zeros, "0" for zero) and *neg, or -EINVAL where Python
 * raises ValueError. Like CPython, other scripts' decimal digits become
 * ASCII ones and Unicode whitespace a space first. */
static int py_int(const char *in, size_t in_n, int base, bool *neg, char **digits) {
        _cleanup_free_ char *ascii = xmalloc(in_n + 1);
        size_t n = 0;
        for (size_t i = 0; i < in_n;) {
                if ((unsigned char)in[i] < 0x80) {
                        ascii[n++] = in[i++];
                        continue;
                }
                size_t sp = space_at_start(in + i, in_n - i), len = 1;
                if (sp) {
                        ascii[n++] = ' ';
                        i += sp;
                        continue;
                }
                int32_t cp = utf8_decode(in + i, in_n - i, &len);
                char c = '?';
                for (size_t z = 0; cp >= 0 && z < ELEMENTSOF(unicode_zeros); z++)
                        if ((uint32_t)cp >= unicode_zeros[z] && (uint32_t)cp <= unicode_zeros[z] + 9)
                                c = (char)('0' + (cp - (int32_t)unicode_zeros[z]));
                ascii[n++] = c;
                i += len;
        }
        const char *s = ascii;
        py_strip(&s, &n);
        *neg = false;
        if (n && (*s == '+' || *s == '-')) {
                *neg = *s == '-';
                s++, n--;
        }
        bool prefix = false;
        if (base == 16 && n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
                s += 2, n -= 2;
                prefix = true;
        }
        if (prefix && n && *s == '_') /* 0x_f: one underscore after the prefix */
                s++, n--;
        strbuf b = {0};
        size_t i = 0;
        for (;;) {
                if (i >= n || digit_value(s[i], base) < 0) {
                        strbuf_done(&b);
                        return -EINVAL;
                }
                char d = (char)(s[i] | (base == 16 ? 0x20 : 0));
                if (b.len || d != '0')
                        strbuf_appendn(&b, &d, 1);
                i++;
                if (i == n)
                        break;
                if (s[i] == '_')
                        i++; /* one underscore between digits */
        }
        if (!b.len)
                strbuf_append(&b, "0");
        if (streq(b.data, "0"))
                *neg = false;
        *digits = strbuf_steal(&b);
        return 0;
}

static uint64_t digits_u64_saturated(const char *d) {
        uint64_t v = 0;
        for (; *d; d++) {
                if (v > (UINT64_MAX - 9) / 10)
                        return UINT64_MAX;
                v = v * 10 + (uint64_t)(*d - '0');
        }
        return v;
}

/* ---- tuned.utils.commands' cpulists ---- */

/* hex2cpulist's int(mask, 16) into *set: -EINVAL for junk. */
static int hex_into(fn_ctx *c, const char *mask, cpuset *set) {
        _cleanup_free_ char *digits = NULL;
        bool neg;
        int r = py_int(mask, strlen(mask), 16, &neg, &digits);
        if (r < 0)
                return fail(c, -EINVAL, "%s: invalid hexadecimal mask '%s'", c->name, mask);
        if (neg)
                return 0; /* tuned's bit loop runs while mask > 0 */
        size_t nd = strlen(digits);
        for (size_t k = 0; k < nd; k++) {
                int v = digit_value(digits[nd - 1 - k], 16);
                for (int bit = 0; bit < 4; bit++)
                        if (v >> bit & 1) {
                                if (k * 4 + bit >= CPU_MAX)
                                        return fail(c, -EINVAL, "%s: mask '%s' names a CPU above %d, the most Linux has",
                                                    c->name, mask, CPU_MAX - 1);
                                cpuset_add(set, k * 4 + bit);
                        }
        }
        return 0;
}

/* Python's int() of s[0..n) for a CPU number: 0, 1 for ValueError
 * (tuned's cpulist_unpack then gives []), <0 with c->error. */
static int cpu_number(fn_ctx *c, const char *s, size_t n, uint64_t *ret) {
        _cleanup_free_ char *digits = NULL;
        bool neg;
        int r = py_int(s, n, 10, &neg, &digits);
        if (r < 0)
                return 1;
        *ret = neg ? 0 : digits_u64_saturated(digits); /* no '-' reaches here: it splits ranges */
        return 0;
}

/* A range a..b of cpulist_unpack, each end up to the first and second '-'. */
static int cpu_range(fn_ctx *c, const char *s, size_t n, uint64_t *lo, uint64_t *hi) {
        const char *dash = memchr(s, '-', n);
        if (!dash) {
                int r = cpu_number(c, s, n, lo);
                *hi = *lo;
                return r;
        }
        const char *rest = dash + 1, *end = s + n;
        const char *dash2 = memchr(rest, '-', end - rest);
        int r = cpu_number(c, s, dash - s, lo);
        if (r != 0)
                return r;
        return cpu_number(c, rest, (dash2 ? dash2 : end) - rest, hi);
}

typedef struct {
        uint64_t lo, hi;
} cpu_span;

static bool hex_prefix(const char *s, size_t n) { return n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'); }

/* commands.cpulist_unpack(l): 0 with *ret (empty where tuned returns []),
 * <0 with c->error. */
static int cpulist_unpack(fn_ctx *c, const char *l, cpuset *ret) {
        memset(ret, 0, sizeof(*ret));
        size_t n = strlen(l);
        while (n && (*l == '\'' || *l == '"'))
                l++, n--;
        while (n && (l[n - 1] == '\'' || l[n - 1] == '"'))
                n--;

        _cleanup_strv_free_ char **ll2 = NULL;
        size_t ll2_n = 0, ll2_cap = 0;
        _cleanup_free_ cpu_span *negated = NULL;
        size_t n_negated = 0;
        bool hexmask = false;
        strbuf hv = {0};
        int r = 0;
        for (const char *p = l, *end = l + n;;) {
                const char *comma = memchr(p, ',', end - p);
                size_t len = (comma ? comma : end) - p;
                if (hexmask) {
                        if (!len) {
                                hexmask = false;
                                strv_push_counted(&ll2, &ll2_n, &ll2_cap, hv.data);
                                strbuf_done(&hv);
                        } else
                                strbuf_appendn(&hv, p, len);
                } else if (hex_prefix(p, len)) {
                        hexmask = true;
                        strbuf_appendn(&hv, p, len);
                } else if (len && (*p == '^' || *p == '!')) {
                        cpu_span sp;
                        r = cpu_range(c, p + 1, len - 1, &sp.lo, &sp.hi);
                        if (r != 0)
                                goto done; /* 1: ValueError, tuned returns [] */
                        negated = xrealloc(negated, (n_negated + 1) * sizeof(*negated));
                        negated[n_negated++] = sp;
                } else if (len) {
                        _cleanup_free_ char *v = xstrndup(p, len);
                        strv_push_counted(&ll2, &ll2_n, &ll2_cap, v);
                }
                if (!comma)
                        break;
                p = comma + 1;
        }
        if (hv.len)
                strv_push_counted(&ll2, &ll2_n, &ll2_cap, hv.data);

        for (size_t i = 0; i < ll2_n; i++) {
                const char *v = ll2[i];
                if (hex_prefix(v, strlen(v))) {
                        r = hex_into(c, v, ret);
                        if (r < 0)
                                goto done;
                        continue;
                }
                uint64_t lo, hi;
                r = cpu_range(c, v, strlen(v), &lo, &hi);
                if (r != 0)
                        goto done;
                if (lo > hi)
                        continue; /* Python's empty range */
                if (hi >= CPU_MAX) {
                        r = fail(c, -EINVAL, "%s: CPU %" PRIu64 " is above %d, the most Linux has", c->name, hi, CPU_MAX - 1);
                        goto done;
                }
                for (uint64_t cpu = lo; cpu <= hi; cpu++)
                        cpuset_add(ret, cpu);
        }
        for (size_t i = 0; i < n_negated; i++)
                for (uint64_t cpu = negated[i].lo; cpu <= negated[i].hi && cpu < CPU_MAX; cpu++)
                        cpuset_del(ret, cpu);
done:
        strbuf_done(&hv);
        if (r == 1) {
                memset(ret, 0, sizeof(*ret));
                r = 0;
        }
        return r;
}

/* ",".join(prefix + str(cpu)) */
static char *cpuset_list(const cpuset *s, const char *prefix) {
        strbuf b = {0};
        strbuf_append(&b, "");
        for (size_t cpu = 0; cpu < CPU_MAX; cpu++)
                if (cpuset_has(s, cpu))
                        strbuf_appendf(&b, "%s%s%zu", b.len ? "," : "", prefix, cpu);
        return strbuf_steal(&b);
}

/* commands.cpulist_pack: runs as "a-b", single CPUs as "a". */
static char *cpuset_pack(const cpuset *s) {
        strbuf b = {0};
        strbuf_append(&b, "");
        for (size_t cpu = 0; cpu < CPU_MAX; cpu++) {
                if (!cpuset_has(s, cpu))
                        continue;
                size_t last = cpu;
                while (last + 1 < CPU_MAX && cpuset_has(s, last + 1))
                        last++;
                strbuf_appendf(&b, "%s%zu", b.len ? "," : "", cpu);
                if (last > cpu)
                        strbuf_appendf(&b, "-%zu", last);
                cpu = last;
        }
        return strbuf_steal(&b);
}

/* commands.cpulist2hex: "%x" of the mask, zero-filled to whole 32-bit
 * groups, the groups comma-separated. */
static char *cpuset_hex(const cpuset *s) {
        size_t top = 0; /* hex digits "%x" prints: at least one */
        for (size_t cpu = 0; cpu < CPU_MAX; cpu++)
                if (cpuset_has(s, cpu))
                        top = cpu / 4 + 1;
        size_t nd = top ? top : 1;
        nd = (nd + 7) / 8 * 8;
        strbuf b = {0};
        strbuf_append(&b, "");
        for (size_t k = nd; k-- > 0;) {
                unsigned v = 0;
                for (int bit = 0; bit < 4; bit++)
                        if (k * 4 + bit < CPU_MAX && cpuset_has(s, k * 4 + bit))
                                v |= 1u << bit;
                strbuf_appendf(&b, "%x", v);
                if (k && k % 8 == 0)
                        strbuf_append(&b, ",");
        }
        return strbuf_steal(&b);
}

/* ---- facts ---- */

/* through the look-up, which builds a plan's lazy tree's group */
static const char *fact_string(json_object *facts, const char *group, const char *key) {
        _cleanup_free_ char *dotted = group ? xasprintf("%s.%s", group, key) : NULL;
        json_object *v = ht_facts_lookup_field(facts, dotted ? dotted : key, NULL);
        return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* The CPUs /sys/devices/system/cpu/WHICH lists, from facts cpu.WHICH. */
static int facts_cpus(fn_ctx *c, const char *which, cpuset *ret) {
        const char *l = fact_string(c->facts, "cpu", which);
        if (!l)
                return fail(c, -ENOTSUP, "%s needs the %s CPUs (/sys/devices/system/cpu/%s), which the facts lack (cpu.%s)",
                            c->name, which, which, which);
        return cpulist_unpack(c, l, ret);
}

/* ---- the functions: 0 and *ret, or 0 and *ret NULL where tuned's
 * function returns None (the call stays as written) ---- */

typedef int (*fn_impl)(fn_ctx *c, char **args, size_t n, char **ret);

static char *join(char **args, size_t n, const char *sep) {
        strbuf b = {0};
        strbuf_append(&b, "");
        for (size_t i = 0; i < n; i++) {
                if (i)
                        strbuf_append(&b, sep);
                strbuf_append(&b, args[i]);
        }
        return strbuf_steal(&b);
}

static int fn_strip(fn_ctx *c, char **args, size_t n, char **ret) {
        _cleanup_free_ char *all = join(args, n, "");
        const char *s = all;
        size_t len = strlen(s);
        py_strip(&s, &len);
        *ret = xstrndup(s, len);
        return 0;
}

static int fn_kb2s(fn_ctx *c, char **args, size_t n, char **ret) {
        _cleanup_free_ char *digits = NULL;
        bool neg;
        int r = py_int(args[0], strlen(args[0]), 10, &neg, &digits);
        if (r < 0)
                return 0; /* ValueError: None */
        /* str(int(x) * 2), as long as the digits go */
        size_t nd = strlen(digits);
        char *out = xmalloc(nd + 3), *p = out + nd + 2;
        *p = 0;
        int carry = 0;
        for (size_t i = nd; i-- > 0;) {
                int d = (digits[i] - '0') * 2 + carry;
                *--p = (char)('0' + d % 10);
                carry = d / 10;
        }
        if (carry)
                *--p = '1';
        if (neg)
                *--p = '-';
        memmove(out, p, strlen(p) + 1);
        *ret = out;
        return 0;
}

static int fn_s2kb(fn_ctx *c, char **args, size_t n, char **ret) {
        _cleanup_free_ char *digits = NULL;
        bool neg;
        int r = py_int(args[0], strlen(args[0]), 10, &neg, &digits);
        if (r < 0)
                return 0;
        /* int(round(int(x) / 2)): the exact half, correctly rounded to a
         * double as Python's true division does, then rounded half to even */
        size_t nd = strlen(digits);
        strbuf q = {0};
        strbuf_append(&q, neg ? "-" : "");
        int rem = 0;
        for (size_t i = 0; i < nd; i++) {
                int d = rem * 10 + (digits[i] - '0');
                char ch = (char)('0' + d / 2);
                rem = d % 2;
                strbuf_appendn(&q, &ch, 1);
        }
        strbuf_append(&q, rem ? ".5" : "");
        double half = strtod(q.data, NULL);
        strbuf_done(&q);
        if (isinf(half))
                return fail(c, -EINVAL, "s2kb: '%s' is too large (integer division result too large for a float)", args[0]);
        double v = rint(half);
        *ret = v == 0 ? xstrdup("0") : xasprintf("%.0f", v);
        return 0;
}

static int unpack_args(fn_ctx *c, char **args, size_t n, const char *sep, cpuset *set) {
        _cleanup_free_ char *l = join(args, n, sep);
        return cpulist_unpack(c, l, set);
}

static int fn_cpulist_unpack(fn_ctx *c, char **args, size_t n, char **ret) {
        cpuset s;
        int r = unpack_args(c, args, n, ",,", &s);
        if (r < 0)
                return r;
        *ret = cpuset_list(&s, "");
        return 0;
}

static int fn_cpulist_pack(fn_ctx *c, char **args, size_t n, char **ret) {
        cpuset s;
        int r = unpack_args(c, args, n, ",,", &s);
        if (r < 0)
                return r;
        *ret = cpuset_pack(&s);
        return 0;
}

static int fn_cpulist2devs(fn_ctx *c, char **args, size_t n, char **ret) {
        cpuset s;
        int r = unpack_args(c, args, n, ",", &s);
        if (r < 0)
                return r;
        *ret = cpuset_list(&s, "cpu");
        return 0;
}

static int fn_cpulist2hex(fn_ctx *c, char **args, size_t n, char **ret) {
        cpuset s;
        int r = unpack_args(c, args, n, ",,", &s);
        if (r < 0)
                return r;
        *ret = cpuset_hex(&s);
        return 0;
}

/* cpulist_invert prints list(set(online) - set(cpus)): the order of a
 * CPython set's hash table, where an int is its own hash. This is
 * CPython 3.7-3.12's Objects/setobject.c, cut down to small ints without
 * deletions: set_add_entry and set_insert_clean's probing (9 linear
 * probes, then perturbation), set_table_resize's growth, and
 * set_difference's two ways (a copy of so when it is over 4 times the
 * other, else a new set filled in so's order). */
#define PYSET_EMPTY (-1)
#define PYSET_LINEAR_PROBES 9
#define PYSET_PERTURB_SHIFT 5

typedef struct {
        int32_t *table;
        size_t mask, fill;
} pyset;

static void pyset_alloc(pyset *s, size_t size) {
        s->table = xmalloc(size * sizeof(*s->table));
        for (size_t i = 0; i < size; i++)
                s->table[i] = PYSET_EMPTY;
        s->mask = size - 1;
        s->fill = 0;
}

static void pyset_insert_clean(int32_t *table, size_t mask, int32_t key) {
        size_t perturb = (size_t)key, i = (size_t)key & mask;
        for (;;) {
                size_t e = i;
                if (table[e] == PYSET_EMPTY)
                        goto found;
                if (i + PYSET_LINEAR_PROBES <= mask)
                        for (int j = 0; j < PYSET_LINEAR_PROBES; j++)
                                if (table[++e] == PYSET_EMPTY)
                                        goto found;
                perturb >>= PYSET_PERTURB_SHIFT;
                i = (i * 5 + 1 + perturb) & mask;
                continue;
        found:
                table[e] = key;
                return;
        }
}

/* set_table_resize: the smallest power of two above minused, at least 8,
 * the entries moved over in table order. */
static void pyset_resize(pyset *s, size_t minused) {
        size_t size = 8;
        while (size <= minused)
                size <<= 1;
        int32_t *old = s->table;
        size_t old_mask = s->mask, fill = s->fill;
        pyset_alloc(s, size);
        for (size_t i = 0; i <= old_mask; i++)
                if (old[i] != PYSET_EMPTY)
                        pyset_insert_clean(s->table, s->mask, old[i]);
        s->fill = fill;
        free(old);
}

/* set_add_entry of a key not yet in s. */
static void pyset_add(pyset *s, int32_t key) {
        pyset_insert_clean(s->table, s->mask, key); /* no dummies: the same probe sequence */
        s->fill++;
        if (s->fill * 5 >= s->mask * 3)
                pyset_resize(s, s->fill > 50000 ? s->fill * 2 : s->fill * 4);
}

static char *python_set_difference(const cpuset *online, const cpuset *cpus) {
        pyset so, result;
        size_t n_online = 0, n_cpus = 0;
        pyset_alloc(&so, 8);
        for (size_t cpu = 0; cpu < CPU_MAX; cpu++) {
                if (cpuset_has(online, cpu)) {
                        pyset_add(&so, (int32_t)cpu); /* set(list): one add at a time */
                        n_online++;
                }
                n_cpus += cpuset_has(cpus, cpu);
        }
        pyset_alloc(&result, 8);
        if ((n_online >> 2) > n_cpus) {
                /* set_copy: set_merge sizes the table once, then copies so's
                 * table as it is when the sizes agree, else re-inserts */
                if (n_online * 5 >= result.mask * 3)
                        pyset_resize(&result, n_online * 2);
                if (result.mask == so.mask)
                        memcpy(result.table, so.table, (so.mask + 1) * sizeof(*so.table));
                else
                        for (size_t i = 0; i <= so.mask; i++)
                                if (so.table[i] != PYSET_EMPTY)
                                        pyset_insert_clean(result.table, result.mask, so.table[i]);
                /* then set_difference_update leaves dummies: skipped below */
        } else
                for (size_t i = 0; i <= so.mask; i++)
                        if (so.table[i] != PYSET_EMPTY && !cpuset_has(cpus, (size_t)so.table[i]))
                                pyset_add(&result, so.table[i]);
        strbuf b = {0};
        strbuf_append(&b, "");
        for (size_t i = 0; i <= result.mask; i++) {
                int32_t k = result.table[i];
                if (k != PYSET_EMPTY && !cpuset_has(cpus, (size_t)k))
                        strbuf_appendf(&b, "%s%" PRId32, b.len ? "," : "", k);
        }
        free(so.table);
        free(result.table);
        return strbuf_steal(&b);
}

/* commands.cpulist_invert's two sets: the list, then the online CPUs
 * (tuned reads /sys/devices/system/cpu/online after unpacking). */
static int invert_sets(fn_ctx *c, char **args, size_t n, cpuset *cpus, cpuset *online) {
        int r = unpack_args(c, args, n, ",,", cpus);
        return r < 0 ? r : facts_cpus(c, "online", online);
}

static int fn_cpulist_invert(fn_ctx *c, char **args, size_t n, char **ret) {
        cpuset cpus, online;
        int r = invert_sets(c, args, n, &cpus, &online);
        if (r < 0)
                return r;
        *ret = python_set_difference(&online, &cpus);
        return 0;
}

static int fn_cpulist2hex_invert(fn_ctx *c, char **args, size_t n, char **ret) {
        cpuset cpus, online;
        int r = invert_sets(c, args, n, &cpus, &online);
        if (r < 0)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(online.bits); i++)
                online.bits[i] &= ~cpus.bits[i];
        *ret = cpuset_hex(&online);
        return 0;
}

static int fn_hex2cpulist(fn_ctx *c, char **args, size_t n, char **ret) {
        /* commands.hex2cpulist drops the commas first */
        _cleanup_free_ char *mask = xmalloc(strlen(args[0]) + 1);
        char *q = mask;
        for (const char *p = args[0]; *p; p++)
                if (*p != ',')
                        *q++ = *p;
        *q = 0;
        cpuset s = {{0}};
        int r = hex_into(c, mask, &s);
        if (r < 0)
                return r;
        *ret = cpuset_list(&s, "");
        return 0;
}

/* cpulist_online and cpulist_present: the listed CPUs the host has so. */
static int filter(fn_ctx *c, char **args, size_t n, const char *sep, const char *which, char **ret) {
        cpuset s, have;
        int r = unpack_args(c, args, n, sep, &s);
        if (r < 0)
                return r;
        r = facts_cpus(c, which, &have);
        if (r < 0)
                return r;
        for (size_t i = 0; i < ELEMENTSOF(s.bits); i++)
                s.bits[i] &= have.bits[i];
        *ret = cpuset_list(&s, "");
        return 0;
}

static int fn_cpulist_online(fn_ctx *c, char **args, size_t n, char **ret) {
        return filter(c, args, n, ",", "online", ret); /* tuned joins these with one comma */
}

static int fn_cpulist_present(fn_ctx *c, char **args, size_t n, char **ret) {
        return filter(c, args, n, ",,", "present", ret);
}

/* re.search(pattern, subject[, re.MULTILINE]) through regcomp. */
static int search(fn_ctx *c, const char *pattern, const char *subject, bool *ret) {
        _cleanup_free_ char *ere = NULL;
        int r = ht_regex_from_python(pattern, &ere, NULL);
        if (r == -EOPNOTSUPP)
                return fail(c, -ENOTSUP,
                            "%s: the regular expression '%s' uses Python syntax POSIX regular expressions lack "
                            "(backreferences, lookaround, inline flags, ...)",
                            c->name, pattern);
        if (r < 0)
                return fail(c, -EINVAL, "%s: invalid regular expression '%s'", c->name, pattern);
        regex_t re;
        int e = regcomp(&re, ere, REG_EXTENDED | REG_NEWLINE | REG_NOSUB);
        if (e) {
                char msg[128];
                regerror(e, &re, msg, sizeof(msg));
                return fail(c, -EINVAL, "%s: invalid regular expression '%s': %s", c->name, pattern, msg);
        }
        *ret = regexec(&re, subject, 0, NULL, 0) == 0;
        regfree(&re);
        return 0;
}

static int fn_regex_search_ternary(fn_ctx *c, char **args, size_t n, char **ret) {
        bool m;
        int r = search(c, args[1], args[0], &m);
        if (r < 0)
                return r;
        *ret = xstrdup(args[m ? 2 : 3]);
        return 0;
}

static int fn_cpuinfo_check(fn_ctx *c, char **args, size_t n, char **ret) {
        const char *cpuinfo = fact_string(c->facts, "cpu", "cpuinfo");
        if (!cpuinfo)
                return fail(c, -ENOTSUP, "cpuinfo_check needs /proc/cpuinfo, which the facts lack (cpu.cpuinfo)");
        for (size_t i = 0; i + 1 < n; i += 2) {
                bool m;
                int r = search(c, args[i], cpuinfo, &m);
                if (r < 0)
                        return r;
                if (m) {
                        *ret = xstrdup(args[i + 1]);
                        return 0;
                }
        }
        *ret = xstrdup(n % 2 ? args[n - 1] : "");
        return 0;
}

static int fn_virt_check(fn_ctx *c, char **args, size_t n, char **ret) {
        const char *hv = fact_string(c->facts, NULL, "hypervisor");
        const char *container = fact_string(c->facts, NULL, "container");
        /* the containers virt-what 1.25 names: /.dockerenv, container=podman
         * or /run/.containerenv, container=lxc*, OpenVZ's /proc/vz */
        bool known_container = container && (streq(container, "docker") || streq(container, "podman") ||
                                             strncasecmp(container, "lxc", 3) == 0 || streq(container, "openvz"));
        bool vm = hv && !streq(hv, "none");
        if (vm || known_container) {
                *ret = xstrdup(args[0]);
                return 0;
        }
        if (hv && !container) {
                *ret = xstrdup(args[1]);
                return 0;
        }
        if (container)
                return fail(c, -ENOTSUP,
                            "virt_check: tuned asks virt-what, whose answer in a %s container on bare metal depends on "
                            "the container's cgroup paths, which the facts lack",
                            container);
        return fail(c, -ENOTSUP, "virt_check: tuned asks virt-what whether this is a virtual machine; "
                                 "the facts do not say (no hypervisor)");
}

static int assert_equal(fn_ctx *c, char **args, bool want_equal) {
        bool eq = streq(args[1], args[2]);
        if (eq != want_equal)
                return fail(c, -EINVAL, "assertion '%s' failed: '%s' %s '%s'", args[0], args[1], want_equal ? "!=" : "==",
                            args[2]);
        return 0; /* tuned's assertions return None: the call stays */
}

static int fn_assertion(fn_ctx *c, char **args, size_t n, char **ret) { return assert_equal(c, args, true); }
static int fn_assertion_non_equal(fn_ctx *c, char **args, size_t n, char **ret) { return assert_equal(c, args, false); }

static int fn_exec(fn_ctx *c, char **args, size_t n, char **ret) {
        return fail(c, -ENOTSUP, "exec runs '%s' and takes its output; hosttune runs no programs to read a profile", args[0]);
}

static bool ascii_digits(const char *s) {
        if (!*s)
                return false;
        for (; *s; s++)
                if (*s < '0' || *s > '9')
                        return false;
        return true;
}

static int fn_check_net_queue_count(fn_ctx *c, char **args, size_t n, char **ret) {
        if (ascii_digits(args[0])) {
                *ret = xstrdup(args[0]);
                return 0;
        }
        return fail(c, -ENOTSUP,
                    "check_net_queue_count: without a queue count ('%s') tuned runs nproc, the number of CPUs "
                    "its daemon may run on, which the facts lack",
                    args[0]);
}

static int fn_calc_isolated_cores(fn_ctx *c, char **args, size_t n, char **ret) {
        if (n > 0 && !ascii_digits(args[0]))
                return fail(c, -EINVAL,
                            "invalid argument '%s' for builtin function 'calc_isolated_cores', it must be non-negative integer",
                            args[0]);
        return fail(c, -ENOTSUP, "calc_isolated_cores needs each CPU's package "
                                 "(/sys/devices/system/cpu/cpu*/topology/physical_package_id), which the facts lack");
}

/* tuned's functions/ directory: name, most and least arguments (0: no
 * most, -1: no least), as each function's base.Function.__init__. */
static const struct {
        const char *name;
        int nargs_max, nargs_min;
        fn_impl impl;
} functions[] = {
        {"assertion", 3, 3, fn_assertion},
        {"assertion_non_equal", 3, 3, fn_assertion_non_equal},
        {"calc_isolated_cores", 1, -1, fn_calc_isolated_cores},
        {"check_net_queue_count", 1, 1, fn_check_net_queue_count},
        {"cpuinfo_check", 0, 2, fn_cpuinfo_check},
        {"cpulist2devs", 0, -1, fn_cpulist2devs},
        {"cpulist2hex", 0, -1, fn_cpulist2hex},
        {"cpulist2hex_invert", 0, -1, fn_cpulist2hex_invert},
        {"cpulist_invert", 0, -1, fn_cpulist_invert},
        {"cpulist_online", 0, -1, fn_cpulist_online},
        {"cpulist_pack", 0, -1, fn_cpulist_pack},
        {"cpulist_present", 0, -1, fn_cpulist_present},
        {"cpulist_unpack", 0, -1, fn_cpulist_unpack},
        {"exec", 0, 1, fn_exec},
        {"hex2cpulist", 1, 1, fn_hex2cpulist},
        {"kb2s", 1, 1, fn_kb2s},
        {"regex_search_ternary", 4, 4, fn_regex_search_ternary},
        {"s2kb", 1, 1, fn_s2kb},
        {"strip", 0, 1, fn_strip},
        {"virt_check", 2, 2, fn_virt_check},
};

/* ---- the scanner ---- */

/* One argument of a call: "\:" is ':'. */
static char *unescape_colons(const char *s, size_t n) {
        char *out = xmalloc(n + 1), *q = out;
        for (size_t i = 0; i < n; i++) {
                if (s[i] == '\\' && i + 1 < n && s[i + 1] == ':')
                        i++;
                *q++ = s[i];
        }
        *q = 0;
        return out;
}

typedef struct {
        char *s;
        size_t len;
} text;

/* Functions._process_func: the span s[from..close) is "${...", close the
 * index of its '}'. On a substitution *cnt moves as tuned's _sub moves it. */
static int process_call(fn_ctx *c, text *t, size_t from, size_t *cnt) {
        size_t close = *cnt;
        const char *span = t->s + from;
        size_t n = close - from;
        if (n < 3 || memcmp(span, "${f", 3) != 0 || (n > 3 && span[3] != ':'))
                return 0; /* no call: a variable tuned leaves be */
        if (n == 3)
                return fail(c, -EINVAL, "'${f}' names no function");

        _cleanup_strv_free_ char **parts = NULL;
        size_t n_parts = 0;
        size_t start = 4;
        for (size_t i = 4; i <= n; i++)
                if (i == n || (span[i] == ':' && span[i - 1] != '\\')) {
                        strv_push_take(&parts, unescape_colons(span + start, i - start));
                        n_parts++;
                        start = i + 1;
                }
        const char *name = parts[0];
        if (!*name || !ht_word_chars(name, "_"))
                return fail(c, -ENOEXEC, "invalid function name '%s'", name);
        size_t f = 0;
        while (f < ELEMENTSOF(functions) && !streq(functions[f].name, name))
                f++;
        if (f == ELEMENTSOF(functions))
                return fail(c, -ENOEXEC, "function '%s' not implemented", name);
        size_t nargs = n_parts - 1;
        if ((functions[f].nargs_max != 0 && (size_t)functions[f].nargs_max < nargs) ||
            (functions[f].nargs_min >= 0 && (size_t)functions[f].nargs_min > nargs))
                return fail(c, -ENOEXEC, "invalid number of arguments for builtin function '%s'", name);

        c->name = functions[f].name;
        _cleanup_free_ char *result = NULL;
        int r = functions[f].impl(c, parts + 1, nargs, &result);
        if (r < 0 || !result)
                return r;

        size_t rlen = strlen(result), old = close - from + 1;
        if (t->len - old + rlen > EXPAND_MAX)
                return fail(c, -EINVAL, "%s: the expanded value grows beyond %d bytes", name, EXPAND_MAX);
        if (rlen > old)
                t->s = xrealloc(t->s, t->len - old + rlen + 1);
        memmove(t->s + from + rlen, t->s + close + 1, t->len - close); /* with the NUL */
        memcpy(t->s + from, result, rlen);
        t->len = t->len - old + rlen;
        *cnt = from + rlen >= 1 ? from + rlen - 1 : 0; /* tuned clamps at 0 */
        return 0;
}

/* Functions.expand's last step, re.sub(r'\\(\${f:.*})', r'\1', s): the
 * backslash goes before "${f:" when a '}' follows on its line, and the
 * greedy .* swallows the rest of the line up to the last '}'. */
static char *unescape_calls(const char *s, size_t len) {
        strbuf b = {0};
        strbuf_grow(&b, len);
        strbuf_append(&b, "");
        for (size_t i = 0; i < len;) {
                if (s[i] == '\\' && len - i >= 5 && memcmp(s + i + 1, "${f:", 4) == 0) {
                        size_t last = 0;
                        for (size_t j = i + 5; j < len && s[j] != '\n'; j++)
                                if (s[j] == '}')
                                        last = j;
                        if (last) {
                                strbuf_appendn(&b, s + i + 1, last - i);
                                i = last + 1;
                                continue;
                        }
                }
                strbuf_appendn(&b, s + i, 1);
                i++;
        }
        return strbuf_steal(&b);
}

int ht_tuned_expand_functions(const char *input, json_object *facts, char **ret, char **ret_error) {
        fn_ctx c = { .facts = facts };
        text t = { .s = xstrdup(input), .len = strlen(input) };
        struct {
                bool esc;
                size_t pos;
        } stack[DEPTH_MAX];
        size_t depth = 0, cnt = 0;
        bool esc = false;
        int r = 0;

        if (t.len > EXPAND_MAX) {
                r = fail(&c, -EINVAL, "the value is longer than %d bytes", EXPAND_MAX);
                goto done;
        }
        while (cnt < t.len) {
                if (t.s[cnt] == '}') {
                        if (!depth) {
                                r = fail(&c, -EINVAL, "invalid variable syntax, non pair '}' in: '%s'", input);
                                goto done;
                        }
                        depth--;
                        if (!stack[depth].esc) {
                                r = process_call(&c, &t, stack[depth].pos, &cnt);
                                if (r < 0)
                                        goto done;
                        }
                } else if (t.s[cnt] == '$' && t.s[cnt + 1] == '{') {
                        if (depth == DEPTH_MAX) {
                                r = fail(&c, -EINVAL, "more than %d nested '${' in: '%s'", DEPTH_MAX, input);
                                goto done;
                        }
                        stack[depth].esc = esc;
                        stack[depth].pos = cnt;
                        depth++;
                }
                esc = cnt < t.len && t.s[cnt] == '\\';
                cnt++;
        }
        if (depth) {
                r = fail(&c, -EINVAL, "invalid variable syntax, non pair '{' in: '%s'", input);
                goto done;
        }
        *ret = unescape_calls(t.s, t.len);
done:
        free(t.s);
        if (r < 0) {
                if (ret_error)
                        *ret_error = TAKE_PTR(c.error);
        }
        free(c.error);
        return r;
}
