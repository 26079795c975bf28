/* format-meminfo: /proc/meminfo as the kernel writes it, and the facts
 * and apply/verify reading the same file alike. */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "apply.h"
#include "facts-internal.h"
#include "facts.h"
#include "format-meminfo.h"
#include "tmptree.h"
#include "util.h"

static const char *srcdir(void) {
        const char *s = getenv("top_srcdir");
        return s ? s : ".";
}

/* A Debian 12 KVM guest's file (6.1 kernel), as the fixture host has it. */
static char *debian12(void) {
        _cleanup_free_ char *dir = xasprintf("%s/tests/hosts/debian12-kvm/proc", srcdir());
        char *s = tt_get(dir, "meminfo");
        assert_non_null(s);
        return s;
}

/* text with the line starting with key replaced (NULL: removed). */
static char *with_line(const char *text, const char *key, const char *line) {
        strbuf b = {0};
        for (const char *p = text; *p;) {
                size_t n = strcspn(p, "\n");
                if (startswith(p, key)) {
                        if (line)
                                strbuf_appendf(&b, "%s\n", line);
                } else
                        strbuf_appendn(&b, p, n + (p[n] == '\n'));
                p += n + (p[n] == '\n');
        }
        return strbuf_steal(&b);
}

static void test_kernel_file(void **state) {
        (void)state;
        _cleanup_free_ char *text = debian12();
        ht_meminfo m;
        ht_meminfo_parse(text, strlen(text), &m);
        assert_int_equal(m.mem_total_kb, 16377536);
        assert_int_equal(m.mem_free_kb, 14978204);
        assert_int_equal(m.mem_available_kb, 15689732);
        assert_int_equal(m.page_tables_kb, 3508);
        assert_int_equal(m.swap_total_kb, 1000444);
        assert_int_equal(m.hugepages_total, 0);
        assert_int_equal(m.hugepages_free, 0);
        assert_int_equal(m.hugepages_rsvd, 0);
        assert_int_equal(m.hugepages_surp, 0);
        assert_int_equal(m.hugepage_size_kb, 2048);
        assert_true(m.hugepage_lines);
        assert_false(m.truncated);
        assert_int_equal(m.n_problems, 0);
        ht_meminfo_done(&m);
}

static void test_problems(void **state) {
        (void)state;
        static const char text[] = "MemTotal:       16377536 kB\n"
                                   "garbage line\n"
                                   "\n"
                                   "HugePages_Total:     512 kB\n" /* a count has no unit */
                                   "Hugepagesize:       2048\n"    /* a size has one */
                                   "MemFree:        0x10 kB\n"
                                   "HugePages_Free:      51";      /* cut short */
        ht_meminfo m;
        ht_meminfo_parse(text, strlen(text), &m);
        assert_int_equal(m.mem_total_kb, 16377536);
        assert_true(m.hugepages_total == HT_MEMINFO_UNKNOWN);
        assert_true(m.hugepage_size_kb == HT_MEMINFO_UNKNOWN);
        assert_true(m.mem_free_kb == HT_MEMINFO_UNKNOWN);
        assert_true(m.hugepages_free == HT_MEMINFO_UNKNOWN);
        assert_true(m.hugepage_lines);
        assert_true(m.truncated);
        assert_int_equal(m.n_problems, 5);
        assert_int_equal(m.problems[0].kind, HT_MEMINFO_NOT_KEY_VALUE);
        assert_int_equal(m.problems[0].line, 2);
        assert_int_equal(m.problems[1].kind, HT_MEMINFO_GARBLED);
        assert_string_equal(m.problems[1].text, "HugePages_Total");
        assert_int_equal(m.problems[1].line, 4);
        assert_string_equal(m.problems[2].text, "Hugepagesize");
        assert_string_equal(m.problems[3].text, "MemFree");
        assert_int_equal(m.problems[4].kind, HT_MEMINFO_TRUNCATED);
        assert_int_equal(m.problems[4].line, 7);
        assert_string_equal(m.problems[4].text, "HugePages_Free:      51");
        ht_meminfo_done(&m);

        /* a NUL: what follows is not read, and the line before it is
         * taken as cut short */
        static const char nul[] = "MemTotal:       16377536 kB\nSwapTotal:  0 kB\n\0HugePages_Total: 5\n";
        ht_meminfo_parse(nul, sizeof(nul) - 1, &m);
        assert_true(m.truncated);
        assert_int_equal(m.mem_total_kb, 16377536);
        assert_true(m.swap_total_kb == HT_MEMINFO_UNKNOWN);
        assert_false(m.hugepage_lines);
        ht_meminfo_done(&m);

        /* an old Xen kernel's file: no HugePages lines at all */
        static const char xen[] = "MemTotal:      8388608 kB\nMemFree:       6124512 kB\n";
        ht_meminfo_parse(xen, strlen(xen), &m);
        assert_false(m.hugepage_lines);
        assert_false(m.truncated);
        assert_int_equal(m.n_problems, 0);
        ht_meminfo_done(&m);
}

/* The same file through the memory facts and through apply's and
 * verify's HugePages_Total check: the same figure, or unknown to both. */
static void test_facts_and_apply_agree(void **state) {
        (void)state;
        _cleanup_free_ char *base = debian12();
        struct {
                const char *what;
                char *text;
                uint64_t want; /* HT_U64_UNKNOWN: none */
        } cases[] = {
                {"the kernel's file", xstrdup(base), 0},
                {"512 pages", with_line(base, "HugePages_Total:", "HugePages_Total:     512"), 512},
                {"a count with a unit", with_line(base, "HugePages_Total:", "HugePages_Total:     512 kB"),
                 HT_U64_UNKNOWN},
                {"hex", with_line(base, "HugePages_Total:", "HugePages_Total:     0x200"), HT_U64_UNKNOWN},
                {"no HugePages lines", with_line(base, "HugePages_Total:", NULL), HT_U64_UNKNOWN},
                {"cut short in the line", xstrndup(base, strstr(base, "HugePages_Total:") - base + 24),
                 HT_U64_UNKNOWN},
                {"nothing but the line", xstrdup("HugePages_Total:      64\n"), 64},
        };
        char *top = tt_mkdtemp("format-meminfo");
        tt_mkdir(top, "proc");
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                tt_put(top, "proc/meminfo", cases[i].text, 0444);
                ht_context *c;
                assert_int_equal(ht_context_new(top, &c), 0);
                ht_facts *f = ht_facts_new();
                ht_facts_collect_memory(c, f);
                uint64_t total = 0;
                int r = ht_read_hugepages_total(c, &total);
                if (f->hugepages_total != cases[i].want)
                        fail_msg("%s: the facts read %" PRIu64, cases[i].what, f->hugepages_total);
                if (cases[i].want == HT_U64_UNKNOWN) {
                        if (r >= 0)
                                fail_msg("%s: apply read %" PRIu64 ", the facts nothing", cases[i].what, total);
                } else if (r < 0 || total != cases[i].want)
                        fail_msg("%s: apply read %s, the facts %" PRIu64, cases[i].what,
                                 r < 0 ? "nothing" : "another figure", f->hugepages_total);
                ht_facts_free(f);
                ht_context_free(c);
                free(cases[i].text);
        }
        tt_rm_rf(top);
        free(top);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_kernel_file),
                cmocka_unit_test(test_problems),
                cmocka_unit_test(test_facts_and_apply_agree),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
