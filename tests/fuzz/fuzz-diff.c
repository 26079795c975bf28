/* libFuzzer target for the unified diff: the input is two files (split
 * at FUZZ_SEP, else in the middle); the diff must be empty exactly when
 * they are equal, and applying it to the first, with the strict patch
 * reader below, must give the second byte for byte. */
#include "config.h"

#include "diff.h"
#include "fuzz-common.h"

typedef struct {
        const char *p;
        size_t len;     /* including the '\n', if any */
} span;

static size_t lines_of(const char *s, size_t n, span **ret) {
        span *l = xcalloc(n + 1, sizeof(span));
        size_t k = 0, start = 0;
        for (size_t i = 0; i < n; i++)
                if (s[i] == '\n') {
                        l[k++] = (span){s + start, i + 1 - start};
                        start = i + 1;
                }
        if (start < n)
                l[k++] = (span){s + start, n - start};
        *ret = l;
        return k;
}

static bool span_eq(span x, const char *p, size_t len) {
        return x.len == len && memcmp(x.p, p, len) == 0;
}

/* "-l,s" or "-l" (s = 1). */
static const char *range(const char *p, char sign, size_t *l, size_t *s) {
        FUZZ_ASSERT(*p == sign);
        char *end;
        *l = strtoul(p + 1, &end, 10);
        *s = 1;
        if (*end == ',')
                *s = strtoul(end + 1, &end, 10);
        return end;
}

/* Apply diff to a and return the result; abort on anything malformed. */
static char *apply(const char *a, size_t a_len, const char *diff, size_t *ret_len) {
        span *al, *dl;
        size_t na = lines_of(a, a_len, &al), nd = lines_of(diff, strlen(diff), &dl);
        strbuf out = {0};
        size_t ai = 0;  /* next line of a to copy */

        FUZZ_ASSERT(nd >= 3 && startswith(dl[0].p, "--- a\n") && startswith(dl[1].p, "+++ b\n"));
        size_t d = 2;
        while (d < nd) {
                FUZZ_ASSERT(dl[d].len > 4 && memcmp(dl[d].p, "@@ -", 4) == 0);
                size_t ol, os, nl, ns;
                const char *p = range(dl[d].p + 3, '-', &ol, &os);
                FUZZ_ASSERT(*p == ' ');
                p = range(p + 1, '+', &nl, &ns);
                FUZZ_ASSERT(strncmp(p, " @@\n", 4) == 0);
                d++;
                /* with an empty range, l is the line before it */
                size_t first = os == 0 ? ol : ol - 1;
                FUZZ_ASSERT(first >= ai && first <= na);
                for (; ai < first; ai++)
                        strbuf_appendn(&out, al[ai].p, al[ai].len);
                size_t seen_old = 0, seen_new = 0;
                while (d < nd && dl[d].p[0] != '@') {
                        char kind = dl[d].p[0];
                        FUZZ_ASSERT(kind == ' ' || kind == '-' || kind == '+');
                        const char *text = dl[d].p + 1;
                        size_t len = dl[d].len - 1;
                        FUZZ_ASSERT(len > 0 && text[len - 1] == '\n');
                        d++;
                        if (d < nd && dl[d].p[0] == '\\') {
                                FUZZ_ASSERT(span_eq(dl[d], "\\ No newline at end of file\n", 28));
                                len--;  /* the line has no newline */
                                d++;
                        }
                        if (kind != '+') {
                                FUZZ_ASSERT(ai < na && span_eq(al[ai], text, len));
                                ai++;
                                seen_old++;
                        }
                        if (kind != '-') {
                                strbuf_appendn(&out, text, len);
                                seen_new++;
                        }
                }
                FUZZ_ASSERT(seen_old == os && seen_new == ns);
        }
        for (; ai < na; ai++)
                strbuf_appendn(&out, al[ai].p, al[ai].len);
        free(al);
        free(dl);
        *ret_len = out.len;
        return out.data ? strbuf_steal(&out) : xstrdup("");
}

static void check(const char *a, size_t a_len, const char *b, size_t b_len, bool a_absent) {
        char *diff = ht_unified_diff("a", a_absent ? NULL : a, a_len, "b", b, b_len, HT_DIFF_CONTEXT);
        bool binary = memchr(a, 0, a_len) || memchr(b, 0, b_len);
        bool equal = a_len == b_len && memcmp(a, b, a_len) == 0;
        if (equal) {
                FUZZ_ASSERT(!diff);
                return;
        }
        FUZZ_ASSERT(diff);
        if (binary)
                FUZZ_ASSERT(startswith(diff, "Binary files "));
        else {
                size_t len;
                char *got = apply(a, a_len, diff, &len);
                FUZZ_ASSERT(len == b_len && memcmp(got, b, b_len) == 0);
                free(got);
        }
        free(diff);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *parts[2];
        size_t lens[2];
        size_t n = fuzz_split(data, size, parts, lens, 2);
        if (n < 2) {
                /* no separator: the two halves */
                size_t h = size / 2;
                parts[1] = xmalloc(size - h + 1);
                memcpy(parts[1], parts[0] + h, size - h);
                parts[1][size - h] = 0;
                lens[1] = size - h;
                parts[0][h] = 0;
                lens[0] = h;
                n = 2;
        }
        check(parts[0], lens[0], parts[1], lens[1], false);
        check(parts[1], lens[1], parts[0], lens[0], false);
        check("", 0, parts[1], lens[1], true);
        /* fewer lines of context than the default still apply */
        char *diff = ht_unified_diff("a", parts[0], lens[0], "b", parts[1], lens[1], 0);
        if (diff && !startswith(diff, "Binary files ")) {
                size_t len;
                char *got = apply(parts[0], lens[0], diff, &len);
                FUZZ_ASSERT(len == lens[1] && memcmp(got, parts[1], len) == 0);
                free(got);
        }
        free(diff);
        fuzz_parts_free(parts, n);
        return 0;
}
