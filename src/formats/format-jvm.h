/* HotSpot's options as a running JVM got them: the command line and the
 * environment variables the launcher and the JVM read. Pure parsing, no
 * host access (facts-jvm.c reads /proc/PID). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A JVM's environment or command line is read up to this much. */
#define HT_JVM_MAX_ARGS (256u << 10)

/* The options that decide a JVM's large pages; sizes in bytes,
 * UINT64_MAX when not given; -1 not given, 0 off, 1 on for the flags. */
typedef struct {
        uint64_t max_heap;          /* -Xmx, -XX:MaxHeapSize= */
        uint64_t initial_heap;      /* -Xms, -XX:InitialHeapSize= */
        uint64_t large_page_size;   /* -XX:LargePageSizeInBytes= */
        uint64_t code_cache;        /* -XX:ReservedCodeCacheSize= */
        /* -XX:MaxRAMPercentage= in thousandths of a percent (25000: 25 %) */
        uint64_t max_ram_percentage_milli;
        /* -XX:MaxRAMFraction= (JDK 8's, deprecated in 10 and still
         * read), 0 not given; -XX:MaxRAM= in bytes, UINT64_MAX not given */
        uint64_t max_ram_fraction;
        uint64_t max_ram;
        /* -XX:MinRAMPercentage=, -XX:InitialRAMPercentage= or their
         * -XX:...RAMFraction= given: like the three above, they make
         * HotSpot size from all of the memory, not 128 GB of it, and
         * lift the compressed oops cap (Arguments::set_heap_size,
         * override_coop_limit) */
        bool other_ram_flags;
        int compressed_oops;        /* -XX:[+-]UseCompressedOops */
        int container_support;      /* -XX:[+-]UseContainerSupport */
        int use_large_pages;        /* -XX:[+-]UseLargePages */
        int use_thp;                /* -XX:[+-]UseTransparentHugePages */
        int use_shm;                /* -XX:[+-]UseSHM: large pages as SysV SHM_HUGETLB */
        int use_hugetlbfs;          /* -XX:[+-]UseHugeTLBFS: large pages with mmap(MAP_HUGETLB) */
        int aggressive_heap;        /* -XX:[+-]AggressiveHeap */
        int tiered;                 /* -XX:[+-]TieredCompilation */
        int gc;                     /* the last -XX:+UseXxxGC, HT_JVM_GC_*; 0 none given */
        unsigned argfiles;          /* @argfiles on the command line (not read) */
        /* -XX:VMOptionsFile= and -XX:Flags= on the command line: files
         * HotSpot reads options from (not read) */
        unsigned option_files;
        /* size options HotSpot refuses ("-Xmx99999999999999999999g",
         * "-Xmxfoo"): it does not start with one (Arguments::parse_each_vm_init_arg:
         * "Invalid maximum heap size"), so options with one are no running
         * JVM's (a command line the process rewrote) */
        unsigned invalid_sizes;
} ht_jvm_options;

/* The collectors -XX:+Use...GC selects (HotSpot's gc/shared/gcConfig.cpp
 * list); OTHER for Epsilon, CMS and any the sizing does not know. */
enum { HT_JVM_GC_DEFAULT = 0, HT_JVM_GC_G1, HT_JVM_GC_PARALLEL, HT_JVM_GC_SERIAL, HT_JVM_GC_Z,
       HT_JVM_GC_SHENANDOAH, HT_JVM_GC_OTHER };

void ht_jvm_options_init(ht_jvm_options *o);

/* How HotSpot maps its large pages with these options: none, HugeTLB
 * pages with mmap(MAP_HUGETLB), SysV SHM_HUGETLB segments, or
 * transparent huge pages (which take no HugePages). */
typedef enum { HT_JVM_LP_NONE, HT_JVM_LP_HUGETLBFS, HT_JVM_LP_SHM, HT_JVM_LP_THP } ht_jvm_large_pages;
/* The kind HotSpot 8 to 21 chooses (os_linux.cpp, os::large_page_init and
 * os::Linux::setup_large_page_type): -XX:+UseLargePages, or any of
 * -XX:+UseTransparentHugePages, -XX:+UseHugeTLBFS, -XX:+UseSHM alone,
 * or -XX:+AggressiveHeap turns them on; -XX:-UseLargePages off (but not
 * against -XX:+AggressiveHeap, which sets it again); with none of the
 * three kinds named HugeTLBFS, else the one turned on (THP, then
 * HugeTLBFS, then SHM), and none when a kind is only turned off
 * ("-XX:+UseLargePages -XX:-UseTransparentHugePages": "UseLargePages
 * disabled, no large pages configured"). */
ht_jvm_large_pages ht_jvm_large_pages_kind(const ht_jvm_options *o);
/* The heap HotSpot sizes when no -Xmx is given, on a host with ram bytes
 * of memory (Arguments::set_heap_size): MaxRAMPercentage (25 %) of the
 * memory, of MaxRAM (128 GB on 64-bit servers) at most unless a RAM
 * sizing flag is given, below the compressed oops limit, -Xms at least. */
uint64_t ht_jvm_default_heap(const ht_jvm_options *o, uint64_t ram);
/* One option ("-Xmx4g"); true when it is one of those above and well
 * formed. The last occurrence wins, as in HotSpot. */
bool ht_jvm_option(ht_jvm_options *o, const char *arg);
/* An environment variable's value (JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS):
 * options separated by white space, quotes grouping. */
void ht_jvm_parse_env(ht_jvm_options *o, const char *value, size_t len);
/* /proc/PID/cmdline (NUL-separated, argv[0] first): the launcher's
 * options, up to the main class, -jar FILE or -m MODULE. */
void ht_jvm_parse_cmdline(ht_jvm_options *o, const char *cmd, size_t len);
/* The value of NAME in /proc/PID/environ (NUL-separated NAME=value), the
 * first when repeated, as getenv(3); NULL when absent. Points into env. */
const char *ht_jvm_environ_get(const char *env, size_t len, const char *name, size_t *ret_len);
