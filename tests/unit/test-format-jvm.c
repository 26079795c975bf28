/* format-jvm: HotSpot's options as a JVM gets them — sizes with k/m/g/t,
 * the last occurrence winning, +/- flags, the environment variables'
 * white space and quotes, the launcher's options ending at the main
 * class, -jar or -m, options that take a value, an argument cut short. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "format-jvm.h"

#define M (UINT64_C(1) << 20)
#define G (UINT64_C(1) << 30)

static void test_option(void **state) {
        (void)state;
        ht_jvm_options o;
        ht_jvm_options_init(&o);
        assert_true(ht_jvm_option(&o, "-Xmx4g"));
        assert_int_equal(o.max_heap, 4 * G);
        assert_true(ht_jvm_option(&o, "-XX:MaxHeapSize=512M"));
        assert_int_equal(o.max_heap, 512 * M);
        assert_true(ht_jvm_option(&o, "-Xms1024k"));
        assert_int_equal(o.initial_heap, 1024 * 1024);
        assert_true(ht_jvm_option(&o, "-XX:InitialHeapSize=2147483648"));
        assert_int_equal(o.initial_heap, 2 * G);
        assert_true(ht_jvm_option(&o, "-XX:LargePageSizeInBytes=1g"));
        assert_int_equal(o.large_page_size, G);
        assert_true(ht_jvm_option(&o, "-XX:ReservedCodeCacheSize=256m"));
        assert_int_equal(o.code_cache, 256 * M);
        assert_true(ht_jvm_option(&o, "-XX:+UseLargePages"));
        assert_int_equal(o.use_large_pages, 1);
        assert_true(ht_jvm_option(&o, "-XX:-UseLargePages"));
        assert_int_equal(o.use_large_pages, 0);
        assert_true(ht_jvm_option(&o, "-XX:+UseTransparentHugePages"));
        assert_int_equal(o.use_thp, 1);
        /* SysV large pages (rules/10-hugepages.rules, hugepages_sysv) */
        assert_int_equal(o.use_shm, -1);
        assert_true(ht_jvm_option(&o, "-XX:+UseSHM"));
        assert_int_equal(o.use_shm, 1);
        assert_true(ht_jvm_option(&o, "-XX:-UseSHM"));
        assert_int_equal(o.use_shm, 0);
        assert_true(ht_jvm_option(&o, "-XX:-TieredCompilation"));
        assert_int_equal(o.tiered, 0);
        assert_true(ht_jvm_option(&o, "-XX:MaxRAMPercentage=37.5"));
        assert_int_equal(o.max_ram_percentage_milli, 37500);
        /* not sizes HotSpot takes: the value stays */
        static const char *const bad[] = {"-Xmx", "-Xmx4gb", "-Xmx4 g", "-Xmx-1g", "-Xmx4x", "-Xmx 4g",
                                          "-Xmx99999999999999999999999g", "-XX:MaxRAMPercentage=101",
                                          "-XX:MaxRAMPercentage=.5", "-XX:+UseLargePagesX", "-XX:UseLargePages"};
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                assert_false(ht_jvm_option(&o, bad[i]));
        assert_int_equal(o.max_heap, 512 * M);
        assert_int_equal(o.max_ram_percentage_milli, 37500);
        assert_int_equal(o.use_large_pages, 0);
}

/* A size HotSpot refuses ("Invalid maximum heap size: -Xmx...", exit 1;
 * a code cache above 2048M, "Invalid ReservedCodeCacheSize=3072M. Must be
 * at most 2048M.") is counted: a JVM does not start with one, so options
 * holding one are no running JVM's, and facts-jvm.c sizes nothing from
 * them. Such a -Xmx used to be skipped, and the JVM sized as if it had
 * none: a quarter of the memory in HugePages from a forged command line. */
static void test_invalid_sizes(void **state) {
        (void)state;
        ht_jvm_options o;
        ht_jvm_options_init(&o);
        assert_true(ht_jvm_option(&o, "-Xmx4g"));
        assert_true(ht_jvm_option(&o, "-XX:ReservedCodeCacheSize=2048m"));
        assert_int_equal(o.invalid_sizes, 0);
        static const char *const bad[] = {"-Xmx99999999999999999999g", "-Xmxabc", "-Xmx", "-Xms4gb",
                                          "-XX:MaxHeapSize=-1", "-XX:LargePageSizeInBytes=2x",
                                          "-XX:ReservedCodeCacheSize=2049m", "-XX:ReservedCodeCacheSize=1000g"};
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                assert_false(ht_jvm_option(&o, bad[i]));
                assert_int_equal(o.invalid_sizes, i + 1);
        }
        /* the values given before stay; other options do not count */
        assert_int_equal(o.max_heap, 4 * G);
        assert_int_equal(o.code_cache, 2 * G);
        assert_false(ht_jvm_option(&o, "-XX:+UseLargePagesX"));
        assert_false(ht_jvm_option(&o, "-Dfoo=-Xmxabc"));
        assert_int_equal(o.invalid_sizes, 8);
        /* the command line and the environment alike */
        ht_jvm_options_init(&o);
        static const char cmd[] = "java\0-Xmx1g\0-Xmx12345678901234567890123g\0-jar\0app.jar";
        ht_jvm_parse_cmdline(&o, cmd, sizeof(cmd) - 1);
        assert_int_equal(o.invalid_sizes, 1);
        ht_jvm_parse_env(&o, "-Xms1q -Xmx2g", 13);
        assert_int_equal(o.invalid_sizes, 2);
        assert_int_equal(o.max_heap, 2 * G);
}

/* The heap without -Xmx: JDK 8 deployments size it with
 * -XX:MaxRAMFraction (Elasticsearch 6's and many container images'
 * "-XX:MaxRAMFraction=2"), which HotSpot still converts when
 * MaxRAMPercentage is not given (runtime/arguments.cpp,
 * Arguments::set_heap_size, "Convert deprecated flags"); -XX:MaxRAM
 * replaces the physical memory; -Xms above the share raises it
 * ("reasonable_max = MAX2(reasonable_max, InitialHeapSize)"). It was
 * counted as 25 % of the memory whatever these said. */
static void test_default_heap(void **state) {
        (void)state;
        ht_jvm_options o;
        ht_jvm_options_init(&o);
        assert_int_equal(ht_jvm_default_heap(&o, 16 * G), 4 * G);
        /* MaxRAM 128G by default, a quarter of it 32G, held below the
         * compressed oops limit: 30G (HotSpot's 32G less 2G less 32M for
         * G1, never less) */
        assert_int_equal(ht_jvm_default_heap(&o, 512 * G), 30 * G);
        assert_true(ht_jvm_option(&o, "-XX:MaxRAMFraction=2"));
        assert_int_equal(ht_jvm_default_heap(&o, 16 * G), 8 * G);
        assert_true(ht_jvm_option(&o, "-XX:MaxRAMFraction=1"));
        assert_int_equal(ht_jvm_default_heap(&o, 16 * G), 16 * G);
        /* a percentage given wins over a fraction */
        assert_true(ht_jvm_option(&o, "-XX:MaxRAMPercentage=75"));
        assert_int_equal(ht_jvm_default_heap(&o, 16 * G), 12 * G);
        ht_jvm_options_init(&o);
        assert_true(ht_jvm_option(&o, "-XX:MaxRAM=8g"));
        assert_int_equal(ht_jvm_default_heap(&o, 16 * G), 2 * G);
        assert_true(ht_jvm_option(&o, "-XX:MaxRAM=256g"));
        assert_int_equal(ht_jvm_default_heap(&o, 16 * G), 64 * G);
        /* not what HotSpot takes (range 1 to max_uintx): the value stays */
        static const char *const bad[] = {"-XX:MaxRAMFraction=0", "-XX:MaxRAMFraction=", "-XX:MaxRAMFraction=2.5",
                                          "-XX:MaxRAMFraction=-1", "-XX:MaxRAM=1x"};
        assert_true(ht_jvm_option(&o, "-XX:MaxRAMFraction=4"));
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
                assert_false(ht_jvm_option(&o, bad[i]));
        assert_int_equal(o.max_ram_fraction, 4);
        assert_int_equal(o.max_ram, 256 * G);

        /* A RAM sizing flag sizes from all of the memory, not 128G of it,
         * and turns compressed oops off rather than capping the heap
         * (Arguments::set_heap_size, override_coop_limit; Java 17.0.15:
         * -XX:MaxRAM=512g -XX:MaxRAMPercentage=75 gives MaxHeapSize
         * 412316860416, -XX:MaxRAM=256g 68719476736 with compressed oops
         * off, -XX:MaxRAM=256g -XX:+UseCompressedOops 32178700288). The
         * percentage was taken of 128G: a quarter of the heap counted. */
        ht_jvm_options_init(&o);
        assert_true(ht_jvm_option(&o, "-XX:MaxRAMPercentage=75"));
        assert_int_equal(ht_jvm_default_heap(&o, 512 * G), 384 * G);
        ht_jvm_options_init(&o);
        assert_true(ht_jvm_option(&o, "-XX:MaxRAMFraction=2"));
        assert_int_equal(ht_jvm_default_heap(&o, 512 * G), 256 * G);
        ht_jvm_options_init(&o);
        assert_true(ht_jvm_option(&o, "-XX:InitialRAMPercentage=5"));
        assert_int_equal(ht_jvm_default_heap(&o, 512 * G), 128 * G);
        ht_jvm_options_init(&o);
        assert_true(ht_jvm_option(&o, "-XX:MinRAMFraction=4"));
        assert_false(ht_jvm_option(&o, "-XX:MinRAMFraction=0"));
        assert_int_equal(ht_jvm_default_heap(&o, 512 * G), 128 * G);
        ht_jvm_options_init(&o);
        assert_true(ht_jvm_option(&o, "-XX:MaxRAM=512g"));
        assert_true(ht_jvm_option(&o, "-XX:MaxRAMPercentage=75"));
        assert_int_equal(ht_jvm_default_heap(&o, 16 * G), 384 * G);
        ht_jvm_options_init(&o);
        assert_true(ht_jvm_option(&o, "-XX:MaxRAM=256g"));
        assert_true(ht_jvm_option(&o, "-XX:+UseCompressedOops"));
        assert_int_equal(ht_jvm_default_heap(&o, 16 * G), 30 * G);
        /* without compressed oops, no cap */
        ht_jvm_options_init(&o);
        assert_true(ht_jvm_option(&o, "-XX:-UseCompressedOops"));
        assert_int_equal(ht_jvm_default_heap(&o, 512 * G), 32 * G);

        /* -Xms above the share is the maximum too */
        ht_jvm_options_init(&o);
        assert_true(ht_jvm_option(&o, "-Xms8g"));
        assert_int_equal(ht_jvm_default_heap(&o, 16 * G), 8 * G);
        assert_true(ht_jvm_option(&o, "-Xms1g"));
        assert_int_equal(ht_jvm_default_heap(&o, 16 * G), 4 * G);

        /* in a java command line as a JDK 8 service runs it */
        static const char cmd[] = "/usr/lib/jvm/java-8-openjdk-amd64/bin/java\0-XX:+UseLargePages\0"
                                  "-XX:MaxRAMFraction=2\0-jar\0app.jar\0";
        ht_jvm_options_init(&o);
        ht_jvm_parse_cmdline(&o, cmd, sizeof(cmd) - 1);
        assert_int_equal(o.use_large_pages, 1);
        assert_int_equal(ht_jvm_default_heap(&o, 16 * G), 8 * G);
}

/* The collector: the last -XX:+Use...GC wins; -XX:-UseG1GC after it
 * gives HotSpot's choice back (issue 39: G1 sizes its bitmaps). */
static void test_gc(void **state) {
        (void)state;
        ht_jvm_options o;
        ht_jvm_options_init(&o);
        assert_int_equal(o.gc, HT_JVM_GC_DEFAULT);
        assert_true(ht_jvm_option(&o, "-XX:+UseParallelGC"));
        assert_int_equal(o.gc, HT_JVM_GC_PARALLEL);
        assert_true(ht_jvm_option(&o, "-XX:+UseG1GC"));
        assert_int_equal(o.gc, HT_JVM_GC_G1);
        assert_true(ht_jvm_option(&o, "-XX:-UseParallelGC"));
        assert_int_equal(o.gc, HT_JVM_GC_G1);
        assert_true(ht_jvm_option(&o, "-XX:-UseG1GC"));
        assert_int_equal(o.gc, HT_JVM_GC_DEFAULT);
        assert_true(ht_jvm_option(&o, "-XX:+UseZGC"));
        assert_int_equal(o.gc, HT_JVM_GC_Z);
        assert_false(ht_jvm_option(&o, "-XX:+UseG1GCX"));
        assert_int_equal(o.gc, HT_JVM_GC_Z);
}

static void test_env(void **state) {
        (void)state;
        ht_jvm_options o;
        ht_jvm_options_init(&o);
        const char *v = "  -XX:+UseLargePages\t'-Xmx2g' \"-XX:ReservedCodeCacheSize=64m\" -Dx=\"a b\" -Xmx3g  ";
        ht_jvm_parse_env(&o, v, strlen(v));
        assert_int_equal(o.use_large_pages, 1);
        assert_int_equal(o.max_heap, 3 * G);
        assert_int_equal(o.code_cache, 64 * M);
        /* a length shorter than the string: what follows is not read */
        ht_jvm_options_init(&o);
        ht_jvm_parse_env(&o, "-Xmx1g -Xmx2g", 6);
        assert_int_equal(o.max_heap, G);
        ht_jvm_parse_env(&o, "", 0);
        /* an unmatched quote (HotSpot refuses to start): one word, no option */
        ht_jvm_options_init(&o);
        ht_jvm_parse_env(&o, "'unterminated -Xmx1g", 20);
        assert_int_equal(o.max_heap, UINT64_MAX);
}

/* Which large pages the options give, as Java 17.0.15 (Debian 12's
 * openjdk-17-jdk-headless) took them with 800 HugePages of 2 MB reserved
 * and -Xmx512m (smaps, HugePages_Rsvd): -XX:+UseSHM or -XX:+UseHugeTLBFS
 * alone map the heap on HugePages (264 and 384 pages), and so does
 * -XX:+AggressiveHeap, even after -XX:-UseLargePages; -XX:+UseLargePages
 * beside -XX:-UseTransparentHugePages or -XX:-UseSHM maps none ("UseLargePages
 * disabled, no large pages configured and available on the system").
 * Only -XX:+UseLargePages without -XX:+UseTransparentHugePages was
 * counted before: the first three sized nothing, the last two a heap
 * that takes no HugePages. */
static void test_large_pages_kind(void **state) {
        (void)state;
        static const struct {
                const char *opts;
                ht_jvm_large_pages want;
        } cases[] = {
                {"", HT_JVM_LP_NONE},
                {"-XX:+UseLargePages", HT_JVM_LP_HUGETLBFS},
                {"-XX:+UseLargePages -XX:+UseTransparentHugePages", HT_JVM_LP_THP},
                {"-XX:+UseTransparentHugePages", HT_JVM_LP_THP},
                {"-XX:+UseLargePages -XX:-UseTransparentHugePages", HT_JVM_LP_NONE},
                {"-XX:+UseLargePages -XX:-UseSHM", HT_JVM_LP_NONE},
                {"-XX:+UseLargePages -XX:+UseSHM", HT_JVM_LP_SHM},
                {"-XX:+UseSHM", HT_JVM_LP_SHM},
                {"-XX:+UseHugeTLBFS", HT_JVM_LP_HUGETLBFS},
                {"-XX:+UseSHM -XX:+UseHugeTLBFS", HT_JVM_LP_HUGETLBFS},
                {"-XX:-UseLargePages -XX:+UseSHM", HT_JVM_LP_NONE},
                {"-XX:+UseLargePages -XX:-UseLargePages", HT_JVM_LP_NONE},
                {"-XX:+AggressiveHeap", HT_JVM_LP_HUGETLBFS},
                {"-XX:-UseLargePages -XX:+AggressiveHeap", HT_JVM_LP_HUGETLBFS},
                {"-XX:+AggressiveHeap -XX:-UseTransparentHugePages", HT_JVM_LP_NONE},
        };
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                ht_jvm_options o;
                ht_jvm_options_init(&o);
                ht_jvm_parse_env(&o, cases[i].opts, strlen(cases[i].opts));
                if (ht_jvm_large_pages_kind(&o) != cases[i].want)
                        fail_msg("\"%s\": kind %d, not %d", cases[i].opts, ht_jvm_large_pages_kind(&o),
                                 cases[i].want);
        }
        /* -XX:+AggressiveHeap without -Xmx: half the memory, at most all
         * of it less 160 MB (Java 17.0.15 on 24683748 kB: 12639535104,
         * the half rounded up to 2 MB) */
        ht_jvm_options o;
        ht_jvm_options_init(&o);
        assert_true(ht_jvm_option(&o, "-XX:+AggressiveHeap"));
        assert_int_equal(ht_jvm_default_heap(&o, UINT64_C(24683748) * 1024), UINT64_C(24683748) * 512);
        assert_int_equal(ht_jvm_default_heap(&o, 256 * M), 96 * M);
}

#define CMD(s) s, sizeof(s) - 1

static void test_cmdline(void **state) {
        (void)state;
        ht_jvm_options o;
        ht_jvm_options_init(&o);
        /* argv[0] is not an option even when it looks like one */
        ht_jvm_parse_cmdline(&o, CMD("-Xmx9g\0-cp\0-Xmx1g\0-Xmx2g\0-XX:+UseLargePages\0Main\0-Xmx5g\0"));
        assert_int_equal(o.max_heap, 2 * G);
        assert_int_equal(o.use_large_pages, 1);
        ht_jvm_options_init(&o);
        ht_jvm_parse_cmdline(&o, CMD("java\0-Xmx2g\0-jar\0app.jar\0-Xmx5g\0"));
        assert_int_equal(o.max_heap, 2 * G);
        ht_jvm_options_init(&o);
        ht_jvm_parse_cmdline(&o, CMD("java\0-Xmx2g\0-m\0mod/Main\0-Xmx5g\0"));
        assert_int_equal(o.max_heap, 2 * G);
        ht_jvm_options_init(&o);
        ht_jvm_parse_cmdline(&o, CMD("java\0@/etc/app/jvm.options\0-Xmx2g\0Main\0"));
        assert_int_equal(o.argfiles, 1);
        assert_int_equal(o.max_heap, 2 * G);
        /* option files HotSpot reads, as Elasticsearch-style services
         * and app servers pass them: counted, so facts can say their
         * options are not known (they were dropped without a word) */
        ht_jvm_options_init(&o);
        ht_jvm_parse_cmdline(&o, CMD("java\0-XX:VMOptionsFile=/etc/app/vm.options\0-XX:Flags=.hotspotrc\0"
                                     "-Xmx2g\0Main\0"));
        assert_int_equal(o.option_files, 2);
        assert_int_equal(o.argfiles, 0);
        assert_int_equal(o.max_heap, 2 * G);
        /* the last argument without its NUL (cut short) is not read */
        ht_jvm_options_init(&o);
        ht_jvm_parse_cmdline(&o, CMD("java\0-Xmx2g\0-Xmx4"));
        assert_int_equal(o.max_heap, 2 * G);
        ht_jvm_parse_cmdline(&o, "", 0);
}

static void test_environ(void **state) {
        (void)state;
        size_t n = 0;
        const char env[] = "A=1\0JAVA_TOOL_OPTIONS=-Xmx1g\0JAVA_TOOL_OPTIONSX=no\0JAVA_TOOL_OPTIONS=-Xmx2g\0";
        const char *v = ht_jvm_environ_get(env, sizeof(env) - 1, "JAVA_TOOL_OPTIONS", &n);
        assert_non_null(v);
        assert_int_equal(n, 6);
        assert_memory_equal(v, "-Xmx1g", 6);
        assert_null(ht_jvm_environ_get(env, sizeof(env) - 1, "JDK_JAVA_OPTIONS", &n));
        /* cut short: the value ends where the buffer does */
        v = ht_jvm_environ_get("X=abc", 5, "X", &n);
        assert_non_null(v);
        assert_int_equal(n, 3);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_option),
                cmocka_unit_test(test_invalid_sizes),
                cmocka_unit_test(test_gc),
                cmocka_unit_test(test_default_heap),
                cmocka_unit_test(test_large_pages_kind),
                cmocka_unit_test(test_env),
                cmocka_unit_test(test_cmdline),
                cmocka_unit_test(test_environ),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
