/* HotSpot's options as a running JVM got them. Sources: the java(1) man
 * page of JDK 17/21 ("Overview of Java Options", "Advanced Runtime
 * Options", "Using the JDK_JAVA_OPTIONS Launcher Environment Variable",
 * "Large Pages") and HotSpot's src/hotspot/share/runtime/arguments.cpp
 * (Arguments::parse_vm_init_args: JAVA_TOOL_OPTIONS, then the command
 * line, then _JAVA_OPTIONS; a later option overrides an earlier one). */
#include "config.h"

#include <string.h>

#include "format-jvm.h"
#include "util.h"

void ht_jvm_options_init(ht_jvm_options *o) {
        *o = (ht_jvm_options){.max_heap = UINT64_MAX, .initial_heap = UINT64_MAX,
                              .large_page_size = UINT64_MAX, .code_cache = UINT64_MAX,
                              .max_ram_percentage_milli = UINT64_MAX, .max_ram = UINT64_MAX,
                              .use_large_pages = -1, .use_thp = -1, .tiered = -1,
                              .use_shm = -1, .use_hugetlbfs = -1, .aggressive_heap = -1,
                              .compressed_oops = -1, .container_support = -1};
}

ht_jvm_large_pages ht_jvm_large_pages_kind(const ht_jvm_options *o) {
        /* Arguments::set_aggressive_heap_flags: FLAG_SET_DEFAULT(UseLargePages,
         * true), after the options are parsed: the value and its origin
         * both, so a -XX:-UseLargePages before it no longer counts (Java
         * 17.0.15 with "-XX:-UseLargePages -XX:+AggressiveHeap" maps its
         * heap and code cache on HugePages) */
        bool aggressive = o->aggressive_heap == 1;
        int large = aggressive ? -1 : o->use_large_pages;
        bool lp = large == 1 || aggressive;
        /* large_page_init: "Not using large pages" unless one is on;
         * "The user explicitly turned off large pages" */
        if (!(lp || o->use_thp == 1 || o->use_hugetlbfs == 1 || o->use_shm == 1) || large == 0)
                return HT_JVM_LP_NONE;
        /* setup_large_page_type: "The type of large pages has not been
         * specified by the user. Try UseHugeTLBFS and then UseSHM." (SHM
         * only where the HugeTLBFS check fails: no page to map at all) */
        if (o->use_thp < 0 && o->use_hugetlbfs < 0 && o->use_shm < 0)
                return HT_JVM_LP_HUGETLBFS;
        if (o->use_thp == 1)
                return HT_JVM_LP_THP;
        if (o->use_hugetlbfs == 1)
                return HT_JVM_LP_HUGETLBFS;
        if (o->use_shm == 1)
                return HT_JVM_LP_SHM;
        return HT_JVM_LP_NONE;
}

/* HotSpot's sizes: digits and at most one of k, m, g, t (either case),
 * nothing else ("-Xmxsize ... Append the letter k or K to indicate
 * kilobytes, m or M ..., or g or G", java(1)). */
static bool jvm_size(const char *v, uint64_t *ret) {
        size_t digits = strspn(v, "0123456789");
        if (digits == 0 || digits > 20)
                return false;
        if (v[digits] && !(strchr("kKmMgGtT", v[digits]) && v[digits + 1] == 0))
                return false;
        uint64_t b;
        if (parse_size_bytes(v, &b) < 0)
                return false;
        *ret = b;
        return true;
}

/* A percentage as HotSpot's double flags take it: "50", "37.5" (0 to 100). */
static bool jvm_percentage(const char *v, uint64_t *ret) {
        size_t digits = strspn(v, "0123456789");
        if (digits == 0 || digits > 3)
                return false;
        uint64_t milli = 0;
        for (size_t i = 0; i < digits; i++)
                milli = milli * 10 + (uint64_t)(v[i] - '0');
        milli *= 1000;
        const char *p = v + digits;
        if (*p == '.') {
                p++;
                size_t frac = strspn(p, "0123456789");
                if (frac == 0)
                        return false;
                uint64_t scale = 100;
                for (size_t i = 0; i < frac && i < 3; i++, scale /= 10)
                        milli += (uint64_t)(p[i] - '0') * scale;
                p += frac;
        }
        if (*p || milli > 100000)
                return false;
        *ret = milli;
        return true;
}

/* HotSpot's default -XX:MaxRAM on 64-bit servers (runtime/globals.hpp) */
#define MAX_RAM_DEFAULT (UINT64_C(128) << 30)
/* OopEncodingHeapMax (32 GB with 8-byte object alignment) less
 * HeapBaseMinAddress's default (2 GB on x86-64 and arm64) */
#define COOP_HEAP_MAX (UINT64_C(30) << 30)

uint64_t ht_jvm_default_heap(const ht_jvm_options *o, uint64_t ram) {
        /* Arguments::set_aggressive_heap_flags: "The heap size is half of
         * available memory, or (at most) all of possible memory less
         * 160mb", set as if on the command line (Java 17.0.15 on a host of
         * 24683748 kB: MaxHeapSize 12639535104, half of it in 2 MB) */
        if (o->aggressive_heap == 1) {
                uint64_t less = ram > (UINT64_C(160) << 20) ? ram - (UINT64_C(160) << 20) : 0;
                return ram / 2 < less ? ram / 2 : less;
        }
        /* Arguments::set_heap_size (runtime/arguments.cpp, JDK 10 to 21):
         * "phys_mem = FLAG_IS_DEFAULT(MaxRAM) ? MIN2(os::physical_memory(),
         * MaxRAM) : MaxRAM", and "Convert deprecated flags": with
         * MaxRAMFraction given and MaxRAMPercentage not, MaxRAMPercentage
         * = 100.0 / MaxRAMFraction (JDK 8 divides by MaxRAMFraction, the
         * same) */
        uint64_t m = o->max_ram != UINT64_MAX ? o->max_ram : ram < MAX_RAM_DEFAULT ? ram : MAX_RAM_DEFAULT;
        /* "If the user specified one of these options, they want specific
         * memory sizing so do not limit memory based on compressed oops
         * addressability. Also, memory limits will be calculated based on
         * available os physical memory, not our MaxRAM limit, unless
         * MaxRAM is also specified" (override_coop_limit, JDK 10 to 21):
         * -XX:MaxRAMPercentage=75 on a 512 GB host is a 384 GB heap, not
         * 96 GB */
        bool override = o->max_ram_percentage_milli != UINT64_MAX || o->max_ram_fraction || o->max_ram != UINT64_MAX ||
                        o->other_ram_flags;
        if (override && o->max_ram == UINT64_MAX)
                m = ram;
        uint64_t heap;
        if (o->max_ram_percentage_milli == UINT64_MAX && o->max_ram_fraction)
                heap = m / o->max_ram_fraction;
        else {
                uint64_t pct = o->max_ram_percentage_milli != UINT64_MAX ? o->max_ram_percentage_milli : 25000;
                /* m * pct / 100000 without overflow, as exact as HotSpot's double */
                heap = m / 100000 * pct + m % 100000 * pct / 100000;
        }
        /* "Limit the heap size to the maximum possible when using
         * compressed oops": 32 GB, less HeapBaseMinAddress (2 GB) and the
         * null page padded to the collector's largest alignment (32 MB
         * for G1, 2 MB for Parallel in Java 17.0.15: -XX:MaxRAM=256g
         * -XX:+UseCompressedOops gives MaxHeapSize 32178700288 and
         * 32210157568); counted as 30 GB, a little more, never less.
         * With a sizing flag HotSpot turns compressed oops off instead,
         * unless -XX:+UseCompressedOops is given; -XX:-UseCompressedOops
         * has no cap. */
        if (heap > COOP_HEAP_MAX && (override ? o->compressed_oops == 1 : o->compressed_oops != 0))
                heap = COOP_HEAP_MAX;
        /* "An initial heap size was specified on the command line, so be
         * sure that the maximum size is consistent": -Xms above the share
         * is the maximum */
        if (o->initial_heap != UINT64_MAX && o->initial_heap > heap)
                heap = o->initial_heap;
        return heap;
}

bool ht_jvm_option(ht_jvm_options *o, const char *a) {
        static const struct {
                const char *prefix;
                size_t offset;
        } sizes[] = {
                {"-Xmx", offsetof(ht_jvm_options, max_heap)},
                {"-XX:MaxHeapSize=", offsetof(ht_jvm_options, max_heap)},
                {"-Xms", offsetof(ht_jvm_options, initial_heap)},
                {"-XX:InitialHeapSize=", offsetof(ht_jvm_options, initial_heap)},
                {"-XX:LargePageSizeInBytes=", offsetof(ht_jvm_options, large_page_size)},
                {"-XX:ReservedCodeCacheSize=", offsetof(ht_jvm_options, code_cache)},
                {"-XX:MaxRAM=", offsetof(ht_jvm_options, max_ram)},
        };
        for (size_t i = 0; i < ELEMENTSOF(sizes); i++)
                if (startswith(a, sizes[i].prefix)) {
                        uint64_t b;
                        /* a code cache above 2048M is refused too: "Invalid
                         * ReservedCodeCacheSize=%dM. Must be at most %uM."
                         * (compilerDefinitions.cpp, CompilerConfig::
                         * check_args_consistency; CODE_CACHE_SIZE_LIMIT, 2G;
                         * test/hotspot/jtreg/compiler/codecache/CheckUpperLimit.java) */
                        if (!jvm_size(a + strlen(sizes[i].prefix), &b) ||
                            (sizes[i].offset == offsetof(ht_jvm_options, code_cache) && b > (UINT64_C(2) << 30))) {
                                o->invalid_sizes++;
                                return false;
                        }
                        *(uint64_t *)((char *)o + sizes[i].offset) = b;
                        return true;
                }
        if (startswith(a, "-XX:MaxRAMPercentage="))
                return jvm_percentage(a + strlen("-XX:MaxRAMPercentage="), &o->max_ram_percentage_milli);
        if (startswith(a, "-XX:MinRAMPercentage=") || startswith(a, "-XX:InitialRAMPercentage=")) {
                uint64_t unused;
                if (!jvm_percentage(strchr(a, '=') + 1, &unused))
                        return false;
                o->other_ram_flags = true;
                return true;
        }
        if (startswith(a, "-XX:MinRAMFraction=") || startswith(a, "-XX:InitialRAMFraction=")) {
                const char *v = strchr(a, '=') + 1;
                size_t digits = strspn(v, "0123456789");
                if (digits == 0 || digits > 19 || v[digits] || strspn(v, "0") == digits)
                        return false;
                o->other_ram_flags = true;
                return true;
        }
        if (startswith(a, "-XX:MaxRAMFraction=")) {
                /* a uintx, range(1, max_uintx) in runtime/globals.hpp */
                const char *v = a + strlen("-XX:MaxRAMFraction=");
                size_t digits = strspn(v, "0123456789");
                uint64_t n = 0;
                if (digits == 0 || digits > 19 || v[digits])
                        return false;
                for (size_t i = 0; i < digits; i++)
                        n = n * 10 + (uint64_t)(v[i] - '0');
                if (n == 0)
                        return false;
                o->max_ram_fraction = n;
                return true;
        }
        static const struct {
                const char *name;
                size_t offset;
        } flags[] = {
                {"UseLargePages", offsetof(ht_jvm_options, use_large_pages)},
                {"UseTransparentHugePages", offsetof(ht_jvm_options, use_thp)},
                {"TieredCompilation", offsetof(ht_jvm_options, tiered)},
                {"UseSHM", offsetof(ht_jvm_options, use_shm)},
                {"UseHugeTLBFS", offsetof(ht_jvm_options, use_hugetlbfs)},
                {"AggressiveHeap", offsetof(ht_jvm_options, aggressive_heap)},
                {"UseCompressedOops", offsetof(ht_jvm_options, compressed_oops)},
                {"UseContainerSupport", offsetof(ht_jvm_options, container_support)},
        };
        static const struct {
                const char *name;
                int gc;
        } gcs[] = {
                {"UseG1GC", HT_JVM_GC_G1},         {"UseParallelGC", HT_JVM_GC_PARALLEL},
                {"UseSerialGC", HT_JVM_GC_SERIAL}, {"UseZGC", HT_JVM_GC_Z},
                {"UseShenandoahGC", HT_JVM_GC_SHENANDOAH}, {"UseEpsilonGC", HT_JVM_GC_OTHER},
                {"UseConcMarkSweepGC", HT_JVM_GC_OTHER}, {"UseParallelOldGC", HT_JVM_GC_PARALLEL},
        };
        for (size_t i = 0; i < ELEMENTSOF(gcs); i++)
                if ((startswith(a, "-XX:+") || startswith(a, "-XX:-")) && streq(a + 5, gcs[i].name)) {
                        /* -XX:-UseG1GC turns that one off: HotSpot then
                         * picks its default again */
                        if (a[4] == '+')
                                o->gc = gcs[i].gc;
                        else if (o->gc == gcs[i].gc)
                                o->gc = HT_JVM_GC_DEFAULT;
                        return true;
                }
        if (startswith(a, "-XX:+") || startswith(a, "-XX:-"))
                for (size_t i = 0; i < ELEMENTSOF(flags); i++)
                        if (streq(a + 5, flags[i].name)) {
                                *(int *)((char *)o + flags[i].offset) = a[4] == '+';
                                return true;
                        }
        return false;
}

void ht_jvm_parse_env(ht_jvm_options *o, const char *v, size_t len) {
        /* arguments.cpp, parse_options_environment_variable: options are
         * separated by white space; a single- or double-quoted part keeps
         * its white space. */
        char *word = xmalloc(len + 1);
        size_t i = 0;
        while (i < len) {
                while (i < len && strchr(" \t\n\r\f\v", v[i]) && v[i])
                        i++;
                if (i >= len || !v[i])
                        break;
                size_t n = 0;
                char quote = 0;
                for (; i < len && v[i]; i++) {
                        char ch = v[i];
                        if (quote) {
                                if (ch == quote)
                                        quote = 0;
                                else
                                        word[n++] = ch;
                        } else if (ch == '\'' || ch == '"')
                                quote = ch;
                        else if (strchr(" \t\n\r\f\v", ch))
                                break;
                        else
                                word[n++] = ch;
                }
                word[n] = 0;
                (void)ht_jvm_option(o, word);
        }
        free(word);
}

/* Launcher options that take the next argument as their value (java(1),
 * "Standard Options for Java"): it is not an option itself. */
static bool takes_value(const char *a) {
        static const char *const with_value[] = {"-cp", "-classpath", "--class-path", "-p", "--module-path",
                                                 "--upgrade-module-path", "--add-modules", "--limit-modules",
                                                 "--add-reads", "--add-exports", "--add-opens",
                                                 "--patch-module", "--enable-native-access", "--source"};
        for (size_t i = 0; i < ELEMENTSOF(with_value); i++)
                if (streq(a, with_value[i]))
                        return true;
        return false;
}

void ht_jvm_parse_cmdline(ht_jvm_options *o, const char *cmd, size_t len) {
        bool first = true, skip_next = false;
        for (size_t off = 0; off < len;) {
                size_t n = strnlen(cmd + off, len - off);
                /* an argument cut short (no NUL before len) is not read */
                if (off + n >= len)
                        break;
                const char *a = cmd + off;
                off += n + 1;
                if (first) {
                        first = false;
                        continue;
                }
                if (skip_next) {
                        skip_next = false;
                        continue;
                }
                /* what follows the main class, -jar FILE or -m MODULE is
                 * the application's, not the JVM's */
                if (a[0] != '-' && a[0] != '@')
                        break;
                if (streq(a, "-jar") || streq(a, "-m") || streq(a, "--module") || startswith(a, "--module="))
                        break;
                if (a[0] == '@') {
                        o->argfiles++;
                        continue;
                }
                /* HotSpot reads these files' options in their place
                 * (runtime/arguments.cpp, parse_vm_options_file and
                 * process_settings_file; java(1), -XX:VMOptionsFile and
                 * -XX:Flags) */
                if (startswith(a, "-XX:VMOptionsFile=") || startswith(a, "-XX:Flags=")) {
                        o->option_files++;
                        continue;
                }
                if (takes_value(a)) {
                        skip_next = true;
                        continue;
                }
                (void)ht_jvm_option(o, a);
        }
}

const char *ht_jvm_environ_get(const char *env, size_t len, const char *name, size_t *ret_len) {
        size_t nl = strlen(name);
        const char *found = NULL;
        size_t found_len = 0;
        for (size_t off = 0; off < len;) {
                size_t n = strnlen(env + off, len - off);
                /* the first, as getenv(3) in glibc finds it */
                if (n > nl && memcmp(env + off, name, nl) == 0 && env[off + nl] == '=') {
                        found = env + off + nl + 1;
                        found_len = n - nl - 1;
                        break;
                }
                off += n + 1;
        }
        if (found && ret_len)
                *ret_len = found_len;
        return found;
}
