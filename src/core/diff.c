/* Unified diff: lines are interned to integers, lines found in only one
 * file are set aside as changed (they can never match, so the longest
 * common subsequence is unaffected), and the rest goes through Myers'
 * O(ND) algorithm in its linear-space, divide-and-conquer form. A cost
 * cap keeps pathological inputs fast at the price of a non-minimal (but
 * still correct) diff, as GNU diff does. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "diff.h"
#include "util.h"

/* Beyond this many edit steps per split, take the furthest forward point
 * instead of searching on: the diff stays valid, only longer. */
#define DIFF_COST_LIMIT 4096

typedef struct {
        const char *p;
        size_t len;             /* including the '\n', if any */
} line_t;

typedef struct {
        const int *a, *b;       /* interned line ids */
        const size_t *amap, *bmap;  /* index in the filtered arrays -> line number */
        bool *ca, *cb;          /* changed flags, by line number */
        ptrdiff_t *vf, *vb;     /* furthest-reaching x per diagonal */
        ptrdiff_t voff;
} myers_t;

/* The lines of s[0..n): a last one without '\n' counts. */
static size_t count_lines(const char *s, size_t n) {
        /* memchr, not a byte loop: plans diff a few KB of files each */
        size_t count = 0;
        if (n > 0) {   /* s may be NULL when n is 0: no arithmetic on it then */
                for (const char *p = s, *end = s + n, *nl; p < end && (nl = memchr(p, '\n', end - p));
                     p = nl + 1)
                        count++;
                if (s[n - 1] != '\n')
                        count++;
        }
        return count;
}

/* The lines into l (count_lines() of them). */
static void split_lines(const char *s, size_t n, line_t *l) {
        size_t k = 0, start = 0;
        for (const char *nl; start < n && (nl = memchr(s + start, '\n', n - start));) {
                size_t i = nl - s;
                l[k++] = (line_t){ s + start, i + 1 - start };
                start = i + 1;
        }
        if (start < n)
                l[k++] = (line_t){ s + start, n - start };
}

/* Eight bytes a step: the hash only places a line in the table, the ids
 * go by first appearance whatever it is. */
static uint64_t hash_line(const line_t *l) {
        uint64_t h = UINT64_C(1469598103934665603) ^ l->len;
        size_t i = 0;
        for (; i + 8 <= l->len; i += 8) {
                uint64_t w;
                memcpy(&w, l->p + i, 8);
                h = (h ^ w) * UINT64_C(0x9e3779b97f4a7c15);
                h ^= h >> 29;
        }
        for (; i < l->len; i++) {
                h ^= (unsigned char)l->p[i];
                h *= UINT64_C(1099511628211);
        }
        return h ^ (h >> 32);
}

struct slot {
        const line_t *line;
        uint64_t hash;
        int id;
};

/* The slots of intern_lines()'s table: a power of two, at least twice the lines. */
static size_t table_cap(size_t na, size_t nb) {
        size_t cap = 16;
        while (cap < 2 * (na + nb) + 1)
                cap <<= 1;
        return cap;
}

/* Give every distinct line an integer id, shared between both files;
 * table has table_cap() zeroed slots. */
static int intern_lines(const line_t *la, size_t na, const line_t *lb, size_t nb,
                        int *ida, int *idb, struct slot *table) {
        size_t cap = table_cap(na, nb);
        int next = 0;

        for (int side = 0; side < 2; side++) {
                const line_t *lines = side ? lb : la;
                size_t n = side ? nb : na;
                int *ids = side ? idb : ida;
                for (size_t i = 0; i < n; i++) {
                        uint64_t h = hash_line(&lines[i]);
                        size_t pos = h & (cap - 1);
                        for (;;) {
                                struct slot *s = &table[pos];
                                if (!s->line) {
                                        *s = (struct slot){ &lines[i], h, next++ };
                                        ids[i] = s->id;
                                        break;
                                }
                                if (s->hash == h && s->line->len == lines[i].len &&
                                    memcmp(s->line->p, lines[i].p, lines[i].len) == 0) {
                                        ids[i] = s->id;
                                        break;
                                }
                                pos = (pos + 1) & (cap - 1);
                        }
                }
        }
        return next;
}

/* Find a point (x, y) on an optimal (or, past the cost limit, merely
 * valid) edit path through a[xoff..xlim) x b[yoff..ylim), strictly inside
 * the box so both halves are smaller; the bounded-diagonal form of GNU
 * diff's diag(). The caller trimmed common ends, so both ranges are
 * non-empty. Returns false when no inner point is found (the caller then
 * marks the whole box changed, which is still a correct diff). */
static bool middle_point(myers_t *m, ptrdiff_t xoff, ptrdiff_t xlim, ptrdiff_t yoff, ptrdiff_t ylim,
                         size_t *rx, size_t *ry) {
        ptrdiff_t *fd = m->vf + m->voff, *bd = m->vb + m->voff;
        const int *xv = m->a, *yv = m->b;
        ptrdiff_t dmin = xoff - ylim, dmax = xlim - yoff;
        ptrdiff_t fmid = xoff - yoff, bmid = xlim - ylim;
        ptrdiff_t fmin = fmid, fmax = fmid, bmin = bmid, bmax = bmid;
        bool odd = (fmid - bmid) & 1;
        ptrdiff_t x, y;

        fd[fmid] = xoff;
        bd[bmid] = xlim;
        for (ptrdiff_t c = 1;; c++) {
                /* Forward: one more edit on every diagonal, sentinels at the
                 * edges of the box so the comparisons pick the inner move. */
                if (fmin > dmin)
                        fd[--fmin - 1] = -1;
                else
                        fmin++;
                if (fmax < dmax)
                        fd[++fmax + 1] = -1;
                else
                        fmax--;
                for (ptrdiff_t d = fmax; d >= fmin; d -= 2) {
                        ptrdiff_t tlo = fd[d - 1], thi = fd[d + 1];
                        x = tlo < thi ? thi : tlo + 1;
                        for (y = x - d; x < xlim && y < ylim && xv[x] == yv[y]; x++, y++)
                                ;
                        fd[d] = x;
                        if (odd && bmin <= d && d <= bmax && bd[d] <= x)
                                goto found;
                }
                if (bmin > dmin)
                        bd[--bmin - 1] = PTRDIFF_MAX;
                else
                        bmin++;
                if (bmax < dmax)
                        bd[++bmax + 1] = PTRDIFF_MAX;
                else
                        bmax--;
                for (ptrdiff_t d = bmax; d >= bmin; d -= 2) {
                        ptrdiff_t tlo = bd[d - 1], thi = bd[d + 1];
                        x = tlo < thi ? tlo : thi - 1;
                        for (y = x - d; xoff < x && yoff < y && xv[x - 1] == yv[y - 1]; x--, y--)
                                ;
                        bd[d] = x;
                        if (!odd && fmin <= d && d <= fmax && x <= fd[d])
                                goto found;
                }
                if (c >= DIFF_COST_LIMIT) {
                        /* Too expensive: settle for the forward point that got furthest. */
                        ptrdiff_t best = -1;
                        for (ptrdiff_t d = fmax; d >= fmin; d -= 2) {
                                ptrdiff_t fx = fd[d] < xlim ? fd[d] : xlim;
                                ptrdiff_t fy = fx - d;
                                if (fy > ylim || fy < yoff || fx < xoff)
                                        continue;
                                if (fx + fy > best) {
                                        best = fx + fy;
                                        x = fx;
                                        y = fy;
                                }
                        }
                        if (best < 0)
                                return false;
                        goto found;
                }
        }
found:
        if ((x == xoff && y == yoff) || (x == xlim && y == ylim))
                return false;
        *rx = x;
        *ry = y;
        return true;
}

static void mark_range(myers_t *m, size_t a0, size_t a1, size_t b0, size_t b1) {
        for (size_t i = a0; i < a1; i++)
                m->ca[m->amap[i]] = true;
        for (size_t j = b0; j < b1; j++)
                m->cb[m->bmap[j]] = true;
}

static void compare(myers_t *m, size_t a0, size_t a1, size_t b0, size_t b1) {
        while (a0 < a1 && b0 < b1 && m->a[a0] == m->b[b0])
                a0++, b0++;
        while (a0 < a1 && b0 < b1 && m->a[a1 - 1] == m->b[b1 - 1])
                a1--, b1--;
        if (a0 == a1 || b0 == b1) {
                mark_range(m, a0, a1, b0, b1);
                return;
        }
        size_t x, y;
        if (!middle_point(m, a0, a1, b0, b1, &x, &y)) {
                mark_range(m, a0, a1, b0, b1);
                return;
        }
        compare(m, a0, x, b0, y);
        compare(m, x, a1, y, b1);
}

typedef struct {
        size_t a0, a1, b0, b1;
} change_t;

/* A diff's working arrays, carved from one zeroed allocation: a plan
 * diffs a few files, and these were a dozen malloc calls each. */
typedef struct {
        line_t *la, *lb;
        bool *ca, *cb;
        int *ida, *idb, *fa, *fb;
        size_t *cnta, *cntb, *amap, *bmap;
        ptrdiff_t *vf, *vb;
        struct slot *table;
        change_t *changes;      /* each holds a line at least: na + nb at most */
        void *block;
} scratch_t;

/* n elements of size bytes at *at, which moves past them (8-aligned) */
static void *carve(char **at, size_t n, size_t size) {
        void *p = *at;
        *at += (n * size + 7) & ~(size_t)7;
        return p;
}

static void scratch_new(scratch_t *w, size_t na, size_t nb) {
        /* ids, counts by id (at most na + nb ids), the filtered lines and
         * the diagonals (nfa + nfb + 5 at most); what is read before it
         * is written (the intern table, the counts, the changed flags,
         * the diagonals) first, zeroed, the rest after it, not */
        size_t ids = na + nb + 1, vsize = na + nb + 5, cap = table_cap(na, nb);
        size_t zeroed[] = {
                cap * sizeof(struct slot), ids * sizeof(size_t), ids * sizeof(size_t),
                vsize * sizeof(ptrdiff_t), vsize * sizeof(ptrdiff_t), (na + 1) * sizeof(bool), (nb + 1) * sizeof(bool),
        };
        size_t rest[] = {
                (na + 1) * sizeof(line_t), (nb + 1) * sizeof(line_t), ids * sizeof(change_t),
                (na + 1) * sizeof(size_t), (nb + 1) * sizeof(size_t),
                (na + 1) * sizeof(int), (nb + 1) * sizeof(int), (na + 1) * sizeof(int), (nb + 1) * sizeof(int),
        };
        size_t nz = 0, total = 0;
        for (size_t i = 0; i < ELEMENTSOF(zeroed); i++)
                nz += (zeroed[i] + 7) & ~(size_t)7;
        total = nz;
        for (size_t i = 0; i < ELEMENTSOF(rest); i++)
                total += (rest[i] + 7) & ~(size_t)7;
        char *at = w->block = xmalloc(total);
        memset(at, 0, nz);
        w->table = carve(&at, cap, sizeof(struct slot));
        w->cnta = carve(&at, ids, sizeof(size_t));
        w->cntb = carve(&at, ids, sizeof(size_t));
        w->vf = carve(&at, vsize, sizeof(ptrdiff_t));
        w->vb = carve(&at, vsize, sizeof(ptrdiff_t));
        w->ca = carve(&at, na + 1, sizeof(bool));
        w->cb = carve(&at, nb + 1, sizeof(bool));
        w->la = carve(&at, na + 1, sizeof(line_t));
        w->lb = carve(&at, nb + 1, sizeof(line_t));
        w->changes = carve(&at, ids, sizeof(change_t));
        w->amap = carve(&at, na + 1, sizeof(size_t));
        w->bmap = carve(&at, nb + 1, sizeof(size_t));
        w->ida = carve(&at, na + 1, sizeof(int));
        w->idb = carve(&at, nb + 1, sizeof(int));
        w->fa = carve(&at, na + 1, sizeof(int));
        w->fb = carve(&at, nb + 1, sizeof(int));
}

/* Fill w->ca/cb with the lines that differ between the files. */
static void diff_lines(scratch_t *w, size_t na, size_t nb) {
        const line_t *la = w->la, *lb = w->lb;
        bool *ca = w->ca, *cb = w->cb;
        int *ida = w->ida, *idb = w->idb;
        intern_lines(la, na, lb, nb, ida, idb, w->table);
        size_t *cnta = w->cnta, *cntb = w->cntb;
        for (size_t i = 0; i < na; i++)
                cnta[ida[i]]++;
        for (size_t j = 0; j < nb; j++)
                cntb[idb[j]]++;

        int *fa = w->fa, *fb = w->fb;
        size_t *amap = w->amap, *bmap = w->bmap;
        size_t nfa = 0, nfb = 0;
        for (size_t i = 0; i < na; i++) {
                if (cntb[ida[i]] == 0) {
                        ca[i] = true;
                        continue;
                }
                fa[nfa] = ida[i];
                amap[nfa++] = i;
        }
        for (size_t j = 0; j < nb; j++) {
                if (cnta[idb[j]] == 0) {
                        cb[j] = true;
                        continue;
                }
                fb[nfb] = idb[j];
                bmap[nfb++] = j;
        }

        /* Diagonals run from -nfb to nfa, plus a sentinel on each side. */
        myers_t m = {
                .a = fa, .b = fb, .amap = amap, .bmap = bmap, .ca = ca, .cb = cb,
                .vf = w->vf, .vb = w->vb,
                .voff = nfb + 2,
        };
        compare(&m, 0, nfa, 0, nfb);
}

/* GNU diff's range format: "l,s", "l" when s == 1, and for an empty range
 * the line before it with ",0" (what patch expects for empty files). */
static void append_range(strbuf *out, size_t start, size_t count) {
        if (count == 0)
                strbuf_appendf(out, "%zu,0", start);
        else if (count == 1)
                strbuf_appendf(out, "%zu", start + 1);
        else
                strbuf_appendf(out, "%zu,%zu", start + 1, count);
}

static void append_line(strbuf *out, char tag, const line_t *l) {
        strbuf_appendn(out, &tag, 1);
        strbuf_appendn(out, l->p, l->len);
        if (l->len == 0 || l->p[l->len - 1] != '\n')
                strbuf_append(out, "\n\\ No newline at end of file\n");
}

char *ht_unified_diff(const char *a_label, const char *a, size_t a_len,
                      const char *b_label, const char *b, size_t b_len,
                      unsigned context) {
        if (!a)
                a_len = 0;
        if (!b)
                b_len = 0;
        if (a_len == b_len && (a_len == 0 || memcmp(a, b, a_len) == 0))
                return NULL;
        if ((a_len && memchr(a, 0, a_len)) || (b_len && memchr(b, 0, b_len)))
                return xasprintf("Binary files %s and %s differ\n", a_label, b_label);

        size_t na = count_lines(a, a_len), nb = count_lines(b, b_len);
        scratch_t w;
        scratch_new(&w, na, nb);
        const line_t *la = w.la, *lb = w.lb;
        const bool *ca = w.ca, *cb = w.cb;
        split_lines(a, a_len, w.la);
        split_lines(b, b_len, w.lb);
        diff_lines(&w, na, nb);

        /* Walk both files in step: unchanged lines pair up in order. */
        change_t *changes = w.changes;
        size_t n_changes = 0, i = 0, j = 0;
        while (i < na || j < nb) {
                if (i < na && j < nb && !ca[i] && !cb[j]) {
                        i++, j++;
                        continue;
                }
                change_t c = { i, i, j, j };
                while (c.a1 < na && ca[c.a1])
                        c.a1++;
                while (c.b1 < nb && cb[c.b1])
                        c.b1++;
                if (c.a1 == c.a0 && c.b1 == c.b0)
                        break;  /* cannot happen with a consistent script */
                changes[n_changes++] = c;
                i = c.a1;
                j = c.b1;
        }

        /* sized once: each line goes out at most once, with its tag (and
         * the no-newline marker), plus the labels and the hunk headers */
        strbuf out = {};
        strbuf_grow(&out, a_len + b_len + na + nb + strlen(a_label) + strlen(b_label) + 64 * (n_changes + 1));
        strbuf_appendf(&out, "--- %s\n+++ %s\n", a_label, b_label);
        for (size_t h = 0; h < n_changes;) {
                size_t last = h;
                while (last + 1 < n_changes && changes[last + 1].a0 - changes[last].a1 <= 2 * (size_t)context)
                        last++;
                size_t before = changes[h].a0 < context ? changes[h].a0 : context;
                size_t after = na - changes[last].a1 < context ? na - changes[last].a1 : context;
                size_t as = changes[h].a0 - before, ae = changes[last].a1 + after;
                size_t bs = changes[h].b0 - before, be = changes[last].b1 + after;

                strbuf_append(&out, "@@ -");
                append_range(&out, as, ae - as);
                strbuf_append(&out, " +");
                append_range(&out, bs, be - bs);
                strbuf_append(&out, " @@\n");

                size_t ai = as;
                for (size_t c = h; c <= last; c++) {
                        for (; ai < changes[c].a0; ai++)
                                append_line(&out, ' ', &la[ai]);
                        for (size_t k = changes[c].a0; k < changes[c].a1; k++)
                                append_line(&out, '-', &la[k]);
                        for (size_t k = changes[c].b0; k < changes[c].b1; k++)
                                append_line(&out, '+', &lb[k]);
                        ai = changes[c].a1;
                }
                for (; ai < ae; ai++)
                        append_line(&out, ' ', &la[ai]);
                h = last + 1;
        }
        free(w.block);
        return strbuf_steal(&out);
}
