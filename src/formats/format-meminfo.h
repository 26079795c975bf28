/* /proc/meminfo, the one parser for every reader: the memory facts
 * (facts-memory.c), apply's and verify's HugePages_Total check after
 * writing vm.nr_hugepages (apply.c), the JVM facts' heap and page sizes
 * (facts-jvm.c). ht_meminfo_parse is pure (text in, figures out);
 * ht_meminfo_read reads the file through the root context. The callers
 * decide what to say about its problems.
 *
 * The kernel's format (fs/proc/meminfo.c, mm/hugetlb.c
 * hugetlb_report_meminfo): "Key:" padded with blanks, then a decimal
 * number, " kB" after sizes and nothing after the HugePages_ page counts;
 * one line each, every line ending in a newline. A value in the wrong
 * form is garbled, not guessed at; the last line without a newline (or
 * text after a NUL) means the read was cut short: it is not used. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "context.h"
#include "format-problem.h"

/* The kernel's file is about 1.5 kB; the facts read up to their limit
 * for any source (HT_FACTS_MAX_FILE), and so does ht_meminfo_read. */
#define HT_MEMINFO_MAX_FILE (4u << 20)

/* A figure the file does not give (UINT64_MAX, facts.h's HT_U64_UNKNOWN). */
#define HT_MEMINFO_UNKNOWN UINT64_MAX

typedef enum {
        HT_MEMINFO_TRUNCATED,     /* the last line, cut short: text holds it */
        HT_MEMINFO_NOT_KEY_VALUE, /* a line that is not blank and has no ':' */
        HT_MEMINFO_GARBLED,       /* a known key with a value in the wrong form: text holds the key */
} ht_meminfo_problem_kind;

typedef struct {
        /* kB */
        uint64_t mem_total_kb, mem_free_kb, mem_available_kb, page_tables_kb, swap_total_kb;
        uint64_t hugepage_size_kb; /* Hugepagesize: the default HugePage size */
        /* pages of the default size */
        uint64_t hugepages_total, hugepages_free, hugepages_rsvd, hugepages_surp;
        /* any HugePages_ or Hugepagesize line, valid or not: the kernel has
         * hugetlbfs (old Xen kernels print none) */
        bool hugepage_lines;
        bool truncated;
        ht_format_problem *problems; /* in file order; kind: ht_meminfo_problem_kind */
        size_t n_problems;
} ht_meminfo;

/* Parse the file's text (len bytes). Never fails: what cannot be read is
 * HT_MEMINFO_UNKNOWN and listed in problems. */
void ht_meminfo_parse(const char *text, size_t len, ht_meminfo *ret);
void ht_meminfo_done(ht_meminfo *m);
/* Read and parse the host's /proc/meminfo; -errno when it cannot be read. */
int ht_meminfo_read(const ht_context *c, ht_meminfo *ret);
