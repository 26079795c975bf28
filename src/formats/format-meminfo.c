#include "config.h"

#include <ctype.h>
#include <stddef.h>
#include <string.h>

#include "format-meminfo.h"
#include "util.h"

static void add_problem(ht_meminfo *m, ht_meminfo_problem_kind kind, unsigned line, const char *key,
                        const char *text) {
        /* a garbled value is about its key, a cut line about its text */
        const char *about = key ? key : text;
        ht_format_problem_add(&m->problems, &m->n_problems, kind, line, NULL, about ? xstrdup(about) : NULL);
}

void ht_meminfo_parse(const char *text, size_t len, ht_meminfo *ret) {
        static const struct {
                const char *key;
                size_t off;
        } fields[] = {
                {"MemTotal", offsetof(ht_meminfo, mem_total_kb)},
                {"MemFree", offsetof(ht_meminfo, mem_free_kb)},
                {"MemAvailable", offsetof(ht_meminfo, mem_available_kb)},
                {"PageTables", offsetof(ht_meminfo, page_tables_kb)},
                {"SwapTotal", offsetof(ht_meminfo, swap_total_kb)},
                {"HugePages_Total", offsetof(ht_meminfo, hugepages_total)},
                {"HugePages_Free", offsetof(ht_meminfo, hugepages_free)},
                {"HugePages_Rsvd", offsetof(ht_meminfo, hugepages_rsvd)},
                {"HugePages_Surp", offsetof(ht_meminfo, hugepages_surp)},
                {"Hugepagesize", offsetof(ht_meminfo, hugepage_size_kb)},
        };
        ht_meminfo m = {0};
        for (size_t k = 0; k < ELEMENTSOF(fields); k++)
                *(uint64_t *)((char *)&m + fields[k].off) = HT_MEMINFO_UNKNOWN;
        /* text up to a NUL, which the kernel never writes: a read cut short */
        size_t n = strnlen(text, len);
        m.truncated = n < len || (n > 0 && text[n - 1] != '\n');
        unsigned no = 0;
        /* one copy cut into lines in place, not a copy per line */
        _cleanup_free_ char *copy = xmalloc(n + 1);
        if (n)
                memcpy(copy, text, n);
        copy[n] = 0;
        for (size_t pos = 0; pos < n;) {
                char *line = copy + pos;
                char *nl = memchr(line, '\n', n - pos);
                size_t k = nl ? (size_t)(nl - line) : n - pos;
                line[k] = 0;
                pos += k + (nl ? 1 : 0);
                no++;
                if (m.truncated && pos >= n) {
                        add_problem(&m, HT_MEMINFO_TRUNCATED, no, NULL, line);
                        break;
                }
                char *colon = strchr(line, ':');
                if (!colon) {
                        if (*strstrip(line))
                                add_problem(&m, HT_MEMINFO_NOT_KEY_VALUE, no, NULL, NULL);
                        continue;
                }
                *colon = 0;
                const char *key = line;
                if (startswith(key, "HugePages_") || streq(key, "Hugepagesize"))
                        m.hugepage_lines = true;
                size_t f;
                for (f = 0; f < ELEMENTSOF(fields); f++)
                        if (key[0] == fields[f].key[0] && streq(key, fields[f].key))
                                break;
                if (f == ELEMENTSOF(fields))
                        continue;
                char *v = strstrip(colon + 1);
                bool kb = endswith(v, " kB");
                if (kb)
                        v[strlen(v) - 3] = 0;
                v = strstrip(v);
                uint64_t x;
                /* Sizes carry " kB", page counts do not: anything else is junk. */
                bool want_kb = !startswith(key, "HugePages_");
                if (kb != want_kb || !isdigit((unsigned char)*v) || parse_u64(v, &x) < 0 || x > INT64_MAX) {
                        add_problem(&m, HT_MEMINFO_GARBLED, no, key, NULL);
                        continue;
                }
                *(uint64_t *)((char *)&m + fields[f].off) = x;
        }
        *ret = m;
}

void ht_meminfo_done(ht_meminfo *m) {
        ht_format_problems_free(m->problems, m->n_problems);
        *m = (ht_meminfo){0};
}

int ht_meminfo_read(const ht_context *c, ht_meminfo *ret) {
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        int r = ht_read_file(c, "/proc/meminfo", HT_MEMINFO_MAX_FILE, &buf, &len);
        if (r < 0)
                return r;
        ht_meminfo_parse(buf, len, ret);
        return 0;
}
