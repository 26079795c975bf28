/* Memory facts: /proc/meminfo, HugePages sizes, THP and hugetext knobs,
 * SysV shared memory segments. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "facts-internal.h"
#include "facts.h"
#include "format-meminfo.h"
#include "util.h"

#define MAX_WARNINGS_PER_FILE 3

/* Split buf into lines; *ret_truncated tells whether the last line had no
 * newline (the kernel always ends these files with one, so a missing one
 * means the read was cut short). */
static char **split_lines(const char *buf, bool *ret_truncated) {
        size_t n = strlen(buf);
        *ret_truncated = n > 0 && buf[n - 1] != '\n';
        char **l = xcalloc(1, sizeof(char *));
        const char *p = buf;
        while (*p) {
                size_t k = strcspn(p, "\n");
                strv_push_take(&l, xstrndup(p, k));
                p += k;
                if (*p)
                        p++;
        }
        return l;
}

void ht_facts_parse_meminfo(ht_facts *f, const char *buf, size_t len, const char *where) {
        ht_facts_check_nul(f, buf, len, where);
        ht_meminfo m;
        ht_meminfo_parse(buf, len, &m);
        unsigned bad = 0;
        for (size_t i = 0; i < m.n_problems; i++) {
                const ht_format_problem *p = &m.problems[i];
                if (p->kind == HT_MEMINFO_TRUNCATED)
                        ht_facts_warn(f, "%s:%u: truncated line \"%.40s\", ignored", where, p->line, p->text);
                else if (++bad > MAX_WARNINGS_PER_FILE)
                        continue;
                else if (p->kind == HT_MEMINFO_NOT_KEY_VALUE)
                        ht_facts_warn(f, "%s:%u: not a \"Key: value\" line, ignored", where, p->line);
                else
                        ht_facts_warn(f, "%s:%u: %s has a garbled value, unknown", where, p->line, p->text);
        }
        if (bad > MAX_WARNINGS_PER_FILE)
                ht_facts_warn(f, "%s: %u more bad lines", where, bad - MAX_WARNINGS_PER_FILE);
        static const struct {
                size_t from, to;
        } copy[] = {
                {offsetof(ht_meminfo, mem_total_kb), offsetof(ht_facts, mem_total_kb)},
                {offsetof(ht_meminfo, mem_free_kb), offsetof(ht_facts, mem_free_kb)},
                {offsetof(ht_meminfo, mem_available_kb), offsetof(ht_facts, mem_available_kb)},
                {offsetof(ht_meminfo, page_tables_kb), offsetof(ht_facts, page_tables_kb)},
                {offsetof(ht_meminfo, swap_total_kb), offsetof(ht_facts, swap_total_kb)},
                {offsetof(ht_meminfo, hugepages_total), offsetof(ht_facts, hugepages_total)},
                {offsetof(ht_meminfo, hugepages_free), offsetof(ht_facts, hugepages_free)},
                {offsetof(ht_meminfo, hugepages_rsvd), offsetof(ht_facts, hugepages_rsvd)},
                {offsetof(ht_meminfo, hugepages_surp), offsetof(ht_facts, hugepages_surp)},
                {offsetof(ht_meminfo, hugepage_size_kb), offsetof(ht_facts, hugepage_default_kb)},
        };
        for (size_t i = 0; i < ELEMENTSOF(copy); i++) {
                uint64_t v = *(const uint64_t *)((const char *)&m + copy[i].from);
                if (v != HT_MEMINFO_UNKNOWN)
                        *(uint64_t *)((char *)f + copy[i].to) = v;
        }

        f->memory_known = f->mem_total_kb != HT_U64_UNKNOWN;
        if (!f->memory_known)
                ht_facts_warn(f, "%s: no valid MemTotal, memory size unknown", where);
        if (m.hugepage_lines)
                f->hugepages_supported = HT_YES;
        else if (!m.truncated && f->memory_known)
                /* Kernels without hugetlbfs (old Xen kernels) print no
                 * HugePages lines at all. A cut-short file proves nothing. */
                f->hugepages_supported = HT_NO;
        if (f->hugepages_supported == HT_YES && f->hugepage_default_kb == HT_U64_UNKNOWN)
                ht_facts_warn(f, "%s: HugePages lines without a valid Hugepagesize", where);
        ht_meminfo_done(&m);
}

int ht_parse_bracketed(const char *s, char **ret) {
        const char *open = strchr(s, '[');
        if (!open)
                return -EINVAL;
        const char *close = strchr(open, ']');
        if (!close || close == open + 1)
                return -EINVAL;
        if (strchr(close, '[') || memchr(open + 1, '[', (size_t)(close - open - 1)))
                return -EINVAL;
        for (const char *p = open + 1; p < close; p++)
                if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-' && *p != '+')
                        return -EINVAL;
        *ret = xstrndup(open + 1, (size_t)(close - open - 1));
        return 0;
}

static int cmp_u64(const void *a, const void *b) {
        uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
        return x < y ? -1 : x > y;
}

void ht_facts_collect_memory(const ht_context *c, ht_facts *f) {
        char *buf;
        size_t len;
        if (ht_facts_read(c, f, "/proc/meminfo", true, &buf, &len) == 0) {
                _cleanup_free_ char *d = ht_display_path(c, "/proc/meminfo");
                ht_facts_parse_meminfo(f, buf, len, d);
                free(buf);
        }

        _cleanup_strv_free_ char **dirs = NULL;
        if (ht_list_dir(c, "/sys/kernel/mm/hugepages", NULL, &dirs) < 0)
                dirs = xcalloc(1, sizeof(char *));
        for (size_t i = 0; dirs[i]; i++) {
                const char *p = dirs[i];
                uint64_t kb;
                if (!startswith(p, "hugepages-") || !endswith(p, "kB"))
                        continue;
                _cleanup_free_ char *num = xstrndup(p + 10, strlen(p) - 12);
                if (!isdigit((unsigned char)*num) || parse_u64(num, &kb) < 0 || kb == 0)
                        continue;
                f->hugepage_sizes_kb = xrealloc(f->hugepage_sizes_kb,
                                                (f->n_hugepage_sizes + 1) * sizeof(uint64_t));
                f->hugepage_sizes_kb[f->n_hugepage_sizes++] = kb;
        }
        /* Kernels before 2.6.27 have no per-size directories: the one size
         * they support is Hugepagesize. */
        if (f->n_hugepage_sizes == 0 && f->hugepages_supported == HT_YES &&
            f->hugepage_default_kb != HT_U64_UNKNOWN) {
                f->hugepage_sizes_kb = xmalloc(sizeof(uint64_t));
                f->hugepage_sizes_kb[f->n_hugepage_sizes++] = f->hugepage_default_kb;
        }
        if (f->n_hugepage_sizes > 0)
                qsort(f->hugepage_sizes_kb, f->n_hugepage_sizes, sizeof(uint64_t), cmp_u64);

        /* 1 GB pages need pdpe1gb on x86; elsewhere a size directory of
         * 1 GB or more says the same. */
        f->gigantic_pages_possible = strv_contains(f->cpu_flags, "pdpe1gb");
        for (size_t i = 0; i < f->n_hugepage_sizes; i++)
                if (f->hugepage_sizes_kb[i] >= 1024 * 1024)
                        f->gigantic_pages_possible = true;
}

static char *read_choice(const ht_context *c, ht_facts *f, const char *dir, const char *name) {
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, name);
        _cleanup_free_ char *s = NULL;
        if (ht_facts_read_line(c, f, path, true, &s) < 0)
                return NULL;
        char *word;
        if (ht_parse_bracketed(s, &word) < 0) {
                _cleanup_free_ char *d = ht_display_path(c, path);
                ht_facts_warn(f, "%s: \"%.60s\" has no single [bracketed] choice, unknown", d, s);
                return NULL;
        }
        return word;
}

static int64_t read_knob(const ht_context *c, ht_facts *f, const char *path) {
        _cleanup_free_ char *s = NULL;
        int64_t v;
        if (ht_facts_read_line(c, f, path, true, &s) < 0)
                return -1;
        if (parse_i64(strstrip(s), &v) < 0 || v < 0) {
                _cleanup_free_ char *d = ht_display_path(c, path);
                ht_facts_warn(f, "%s: \"%.40s\" is not a number, unknown", d, s);
                return -1;
        }
        return v;
}

/* Whether the sysfs file is there: while a plan keeps what it reads it is
 * read, not just looked for, so that the read that follows is served
 * from memory (one open instead of two). */
static bool sysfs_file_there(const ht_context *c, const char *path) {
        if (!c->memo_cache)
                return ht_exists(c, path);
        char *s = NULL;
        int k = ht_read_line(c, path, &s);
        free(s);
        if (k == -ENOENT || k == -ENOTDIR)
                return false;
        return k >= 0 || ht_exists(c, path);
}

void ht_facts_collect_thp(const ht_context *c, ht_facts *f) {
        /* RHEL 6 backported THP under its own name. */
        static const char *const dirs[] = {
                "/sys/kernel/mm/transparent_hugepage",
                "/sys/kernel/mm/redhat_transparent_hugepage",
        };
        f->thp_cmdline = ht_cmdline_value(f->kernel_cmdline, "transparent_hugepage");
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                _cleanup_free_ char *enabled = xasprintf("%s/enabled", dirs[i]);
                if (!sysfs_file_there(c, enabled))
                        continue;
                f->thp_supported = HT_YES;
                f->thp_sysfs_dir = xstrdup(dirs[i]);
                f->thp_enabled = read_choice(c, f, dirs[i], "enabled");
                f->thp_defrag = read_choice(c, f, dirs[i], "defrag");
                break;
        }
        if (f->thp_supported != HT_YES) {
                /* sysfs there but no THP directory: a kernel without THP */
                if (ht_exists(c, "/sys/kernel"))
                        f->thp_supported = HT_NO;
                else {
                        _cleanup_free_ char *d = ht_display_path(c, "/sys/kernel");
                        ht_facts_warn(f, "%s: missing (sysfs not mounted?), THP unknown", d);
                }
                f->hugetext_supported = f->thp_supported;
                return;
        }

        /* hugetext: Alibaba Cloud Linux kernels only; probe the knob. */
        const char *ht_dir = "/sys/kernel/mm/transparent_hugepage";
        _cleanup_free_ char *enabled = xasprintf("%s/hugetext_enabled", ht_dir);
        _cleanup_free_ char *pad = xasprintf("%s/hugetext_pad_threshold", ht_dir);
        if (!ht_exists(c, enabled)) {
                f->hugetext_supported = HT_NO;
                return;
        }
        f->hugetext_supported = HT_YES;
        f->hugetext_enabled = read_knob(c, f, enabled);
        if (ht_exists(c, pad))
                f->hugetext_pad_threshold = read_knob(c, f, pad);
}

void ht_facts_parse_shm(ht_facts *f, const char *buf, size_t len, const char *where) {
        bool nul = ht_facts_check_nul(f, buf, len, where);
        bool truncated;
        _cleanup_strv_free_ char **lines = split_lines(buf, &truncated);
        truncated = truncated || nul;
        size_t n = strv_length(lines);
        if (n == 0) {
                ht_facts_warn(f, "%s: empty, no header line: shared memory unknown", where);
                return;
        }
        /* Columns by name: the layout grew (rss, swap) over the years. */
        _cleanup_strv_free_ char **hdr = strv_split(lines[0], " \t");
        int col_key = -1, col_shmid = -1, col_size = -1, col_uid = -1, col_nattch = -1;
        for (int i = 0; hdr[i]; i++) {
                if (streq(hdr[i], "key"))
                        col_key = i;
                else if (streq(hdr[i], "shmid"))
                        col_shmid = i;
                else if (streq(hdr[i], "size"))
                        col_size = i;
                else if (streq(hdr[i], "uid"))
                        col_uid = i;
                else if (streq(hdr[i], "nattch"))
                        col_nattch = i;
        }
        if (col_key < 0 || col_shmid < 0 || col_size < 0 || col_uid < 0 || col_nattch < 0) {
                ht_facts_warn(f, "%s:1: not the kernel's header (key shmid ... size ... uid), shared memory unknown",
                              where);
                return;
        }
        int need = col_key;
        need = col_shmid > need ? col_shmid : need;
        need = col_size > need ? col_size : need;
        need = col_uid > need ? col_uid : need;
        need = col_nattch > need ? col_nattch : need;

        free(f->shm);
        f->shm = NULL;
        f->n_shm = 0;
        f->shm_total_bytes = 0;
        bool ok = true;
        unsigned bad = 0;
        for (size_t i = 1; i < n; i++) {
                if (truncated && i == n - 1) {
                        ht_facts_warn(f, "%s:%zu: truncated line, ignored", where, i + 1);
                        ok = false;
                        break;
                }
                if (!*strstrip(lines[i]))
                        continue;
                _cleanup_strv_free_ char **w = strv_split(lines[i], " \t");
                ht_shm_segment s = {0};
                int64_t key;
                uint64_t uid;
                if ((int)strv_length(w) <= need || parse_i64(w[col_key], &key) < 0 ||
                    parse_u64(w[col_shmid], &s.shmid) < 0 || parse_u64(w[col_size], &s.size_bytes) < 0 || s.size_bytes > INT64_MAX ||
                    parse_u64(w[col_uid], &uid) < 0 || uid > UINT32_MAX ||
                    parse_u64(w[col_nattch], &s.nattch) < 0 || key < INT32_MIN || key > UINT32_MAX) {
                        if (++bad <= MAX_WARNINGS_PER_FILE)
                                ht_facts_warn(f, "%s:%zu: garbled segment line, ignored", where, i + 1);
                        ok = false;
                        continue;
                }
                /* key_t is printed signed ("%10d"): keep the 32 bits */
                s.key = (uint32_t)key;
                s.uid = (unsigned)uid;
                if (s.size_bytes > UINT64_MAX - f->shm_total_bytes) {
                        ht_facts_warn(f, "%s:%zu: sizes overflow, shared memory unknown", where, i + 1);
                        ok = false;
                        break;
                }
                f->shm_total_bytes += s.size_bytes;
                f->shm = xrealloc(f->shm, (f->n_shm + 1) * sizeof(ht_shm_segment));
                f->shm[f->n_shm++] = s;
        }
        if (bad > MAX_WARNINGS_PER_FILE)
                ht_facts_warn(f, "%s: %u more bad lines", where, bad - MAX_WARNINGS_PER_FILE);
        /* A sum with segments missing would under-size HugePages: only a
         * clean read is a known total. */
        f->shm_known = ok;
}

void ht_facts_collect_shm(const ht_context *c, ht_facts *f) {
        char *buf;
        size_t len;
        if (ht_facts_read(c, f, "/proc/sysvipc/shm", true, &buf, &len) < 0)
                return;
        _cleanup_free_ char *d = ht_display_path(c, "/proc/sysvipc/shm");
        ht_facts_parse_shm(f, buf, len, d);
        free(buf);
}
