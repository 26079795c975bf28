/* JVM facts: for each running java, the options that decide its heap
 * and large pages, from its command line and the environment variables
 * the launcher and the JVM read; its owner and its systemd unit; and
 * what the JVMs with -XX:+UseLargePages need in HugePages. Read through
 * the root context (/proc/PID/ of a fixture works); a process that
 * cannot be read is a warning and left out, never a failure. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "accounts.h"
#include "facts-internal.h"
#include "facts.h"
#include "fileio.h"
#include "format-meminfo.h"
#include "format-jvm.h"
#include "util.h"

/* The code cache's default size, java(1), -XX:ReservedCodeCacheSize:
 * "The default maximum code cache size is 240 MB; if you disable tiered
 * compilation with the option -XX:-TieredCompilation, then the default
 * size is 48 MB." */
#define CODE_CACHE_TIERED (UINT64_C(240) << 20)
#define CODE_CACHE_NO_TIERED (UINT64_C(48) << 20)
/* The most user address space a 64-bit Linux process has: 56 bits, 64 PiB,
 * x86-64 with 5-level paging (Documentation/arch/x86/x86_64/mm.rst,
 * "user-space virtual memory, different per mm"; arm64 has at most 52) */
#define VA_MAX (UINT64_C(1) << 56)
/* size rounded up to whole pages of lp when it takes them: HotSpot
 * reserves a structure on large pages only when it holds at least
 * min_pages of them (os::page_size_for_region_unaligned/_aligned,
 * runtime/os.cpp: the largest page size with region_size / min_pages >=
 * page size; the aligned variant also wants region_size a multiple of
 * it), and then rounds the reservation up to the page size
 * (ReservedSpace's constructor, memory/virtualspace.cpp). */
static uint64_t on_large_pages(uint64_t size, uint64_t lp, uint64_t min_pages, bool aligned) {
        if (!lp || size / lp < min_pages || (aligned && size % lp))
                return 0;
        return (size + lp - 1) / lp * lp;
}

/* What a collector maps on large pages besides the heap, for a heap of
 * heap bytes and large pages of lp (JDK 17, HotSpot's source):
 * - G1 (gc/g1/g1CollectedHeap.cpp, G1CollectedHeap::initialize): the
 *   block offset table, the card table and the card counts table, one
 *   byte per 512-byte card each (heap / 512), and the two marking
 *   bitmaps "Prev Bitmap" and "Next Bitmap", one bit per 8-byte heap word
 *   (G1CMBitMap::compute_size: heap / 64 each), each through
 *   create_aux_memory_mapper, which asks for os::page_size_for_region_
 *   unaligned(size, 1): large pages as soon as the structure holds one.
 *   With -Xmx512m the bitmaps are the two 8 MB reservations Java 17
 *   logged as "Failed to reserve and commit memory" when only the heap
 *   and the code cache were counted. JDK 20 keeps one bitmap (JDK-8210708)
 *   and JDK 21 drops the card counts (JDK-8225409): counted so when the
 *   JDK's release file says which (jdk_feature), else as in 17, which
 *   gives a later JDK heap / 64 + heap / 512 more than it maps, never less.
 * - Parallel (gc/parallel/parMarkBitMap.cpp, ParMarkBitMap::initialize):
 *   its mark bitmap, two bits per heap word (heap / 32), on large pages
 *   only when it holds 10 of them and is a multiple of their size
 *   (page_size_for_region_aligned(raw_bytes, 10)); its summary data
 *   (psParallelCompact.cpp, ParallelCompactData::create_vspace, the same
 *   rule): the block table, 2 bytes per 128-word block (heap / 512).
 * - Serial: its card table and block offset table take the small page
 *   size (gc/shared/cardTable.cpp: _page_size(os::vm_page_size())).
 * - ZGC and Shenandoah manage their large pages themselves (ZGC through
 *   a hugetlbfs-backed memfd): not sized here, warned. */
static uint64_t gc_large_bytes(int gc, uint64_t heap, uint64_t lp, unsigned feature) {
        switch (gc) {
        case HT_JVM_GC_G1: {
                /* feature 0 (unknown): as JDK 17, never short */
                unsigned tables = feature >= 21 ? 2 : 3, bitmaps = feature >= 20 ? 1 : 2;
                return tables * on_large_pages(heap / 512, lp, 1, false) + bitmaps * on_large_pages(heap / 64, lp, 1, false);
        }
        case HT_JVM_GC_PARALLEL:
                return on_large_pages(heap / 32, lp, 10, true) + on_large_pages(heap / 512, lp, 10, true);
        default:
                return 0;
        }
}

/* The JDK's feature release of a JVM (17, 21; 0 unknown): JAVA_VERSION
 * of the release file of the JDK its executable is in (/proc/PID/exe ->
 * JDK/bin/java; JDK/release, "JAVA_VERSION=\"21.0.2\"", which every JDK
 * since 9 ships, and 8's "1.8.0_402"). The JDK may be a user's: read as a
 * file that user controls. */
static unsigned jdk_feature(const ht_context *c, unsigned pid) {
        _cleanup_free_ char *p_exe = xasprintf("/proc/%u/exe", pid), *exe = NULL;
        if (ht_readlink(c, p_exe, &exe) < 0 || exe[0] != '/' || !endswith(exe, "/bin/java"))
                return 0;
        _cleanup_free_ char *rel = xasprintf("%.*srelease", (int)(strlen(exe) - strlen("bin/java")), exe);
        _cleanup_free_ char *buf = NULL, *why = NULL;
        size_t len = 0;
        if (ht_read_file_untrusted(c, rel, 1 << 16, NULL, &buf, &len, &why) < 0)
                return 0;
        const char *v = strstr(buf, "JAVA_VERSION=\"");
        if (!v || (v != buf && v[-1] != '\n'))
                return 0;
        v += strlen("JAVA_VERSION=\"");
        if (startswith(v, "1."))
                v += 2;  /* "1.8.0_402": 8 */
        unsigned f = 0;
        for (size_t i = 0; i < 3 && v[i] >= '0' && v[i] <= '9'; i++)
                f = f * 10 + (unsigned)(v[i] - '0');
        return f;
}

static const char *gc_name(int gc) {
        switch (gc) {
        case HT_JVM_GC_G1: return "g1";
        case HT_JVM_GC_PARALLEL: return "parallel";
        case HT_JVM_GC_SERIAL: return "serial";
        case HT_JVM_GC_Z: return "z";
        case HT_JVM_GC_SHENANDOAH: return "shenandoah";
        default: return "other";
        }
}

const char *ht_jvm_gc_name(int gc) {
        return gc_name(gc);
}

/* The name of the primary group of user in the root's /etc/passwd and
 * /etc/group (never NSS), or NULL. */
static char *primary_group(const ht_context *c, const char *user) {
        uint32_t uid, gid;
        if (ht_account_user(c, user, &uid, &gid) < 0)
                return NULL;
        return ht_account_group_name(c, gid);
}

/* MemTotal of /proc/meminfo in bytes, 0 unknown. */
static uint64_t mem_total(const ht_context *c) {
        ht_meminfo m;
        if (ht_meminfo_read(c, &m) < 0)
                return 0;
        uint64_t kb = m.mem_total_kb;
        ht_meminfo_done(&m);
        return kb == HT_MEMINFO_UNKNOWN || kb > UINT64_MAX / 1024 ? 0 : kb * 1024;
}

/* Hugepagesize of /proc/meminfo in bytes, 2 MiB when unknown. */
static uint64_t hugepage_size(const ht_context *c) {
        ht_meminfo m;
        uint64_t kb = HT_MEMINFO_UNKNOWN;
        if (ht_meminfo_read(c, &m) == 0) {
                kb = m.hugepage_size_kb;
                ht_meminfo_done(&m);
        }
        return kb > 0 && kb < (UINT64_C(1) << 32) ? kb * 1024 : UINT64_C(2) << 20;
}

/* The large page size HotSpot maps with (os_linux.cpp of JDK 17,
 * os::Linux::setup_large_page_size and find_large_page_size; JDK 21's
 * os::large_page_init alike): -XX:LargePageSizeInBytes= when the kernel
 * has that size (a /sys/kernel/mm/hugepages/hugepages-NkB directory),
 * else the default, Hugepagesize ("Using the default large page size";
 * Java 17.0.15 with -XX:LargePageSizeInBytes=1g on a kernel with 2 MB
 * pages only maps its heap, code cache and G1's bitmaps on 2 MB pages).
 * SysV segments always come in the default size ("No support for using
 * specific page sizes with SHM"). With 1 GB pages JDK 17 maps only what
 * holds one on them, the rest in 4 KB pages; JDK 21 puts the rest (code
 * cache, G1's tables) on the default size, not counted here. */
static uint64_t large_page_size(const ht_context *c, const ht_jvm_options *o, ht_jvm_large_pages kind,
                                uint64_t page) {
        uint64_t want = o->large_page_size;
        if (kind == HT_JVM_LP_SHM || want == UINT64_MAX || want == 0 || want == page || want % 1024)
                return page;
        _cleanup_free_ char *dir = xasprintf("/sys/kernel/mm/hugepages/hugepages-%" PRIu64 "kB", want / 1024);
        return ht_exists(c, dir) ? want : page;
}

/* The processors HotSpot counts: the facts' count, else the
 * "processor" lines of /proc/cpuinfo, one per online processor (HotSpot
 * counts its affinity mask or its cgroup's quota, at most these); 0
 * unknown. */
static unsigned online_cpus(const ht_context *c, const ht_facts *f) {
        if (f->cpu_count)
                return f->cpu_count;
        _cleanup_free_ char *buf = NULL;
        if (ht_read_file(c, "/proc/cpuinfo", 1 << 22, &buf, NULL) < 0)
                return 0;
        unsigned n = 0;
        for (const char *p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
                if (startswith(p, "processor") && strchr(" \t:", p[9]))
                        n++;
        return n;
}

/* A number in a cgroup file ("2147483648\n"); false for "max" and
 * anything else. */
static bool cgroup_number(const char *buf, uint64_t *ret) {
        _cleanup_free_ char *t = xstrndup(buf, strcspn(buf, "\n"));
        return parse_u64(t, ret) == 0;
}

/* The memory limit HotSpot's container support (on by default since JDK
 * 10 and 8u191; -XX:-UseContainerSupport turns it off) takes for the
 * physical memory of java pid, the way Java 17 reads it
 * (os/linux/cgroupV1Subsystem_linux.cpp, cgroupV2Subsystem_linux.cpp,
 * read_memory_limit_in_bytes; os::physical_memory: the limit when it is
 * below the machine's memory): with cgroup v1's memory controller,
 * memory.limit_in_bytes of the process's memory cgroup, or when that is
 * not below the memory, hierarchical_memory_limit of its memory.stat
 * (the smallest of its parents'); on cgroup v2, memory.max of the
 * process's own cgroup ("max": none; a parent's limit counts only from
 * JDK 24 on, JDK-8322420, so not here: never short). Java 17.0.15 in a
 * memory cgroup v1 under one limited to 2 GB: MaxHeapSize 536870912, a
 * quarter of it, where 25 % of the host's 24 GB was counted. This is how
 * a JVM in a service with MemoryMax= (MemoryLimit= on v1) or in a
 * container sizes itself. UINT64_MAX: none, or not found; *from the file
 * it came from. The cgroup files are the kernel's, read through the
 * root's /sys/fs/cgroup. */
static uint64_t cgroup_memory_limit(const ht_context *c, unsigned pid, uint64_t ram, char **from) {
        *from = NULL;
        _cleanup_free_ char *p_cg = xasprintf("/proc/%u/cgroup", pid), *cg = NULL;
        if (ht_read_file(c, p_cg, 1 << 16, &cg, NULL) < 0)
                return UINT64_MAX;
        _cleanup_strv_free_ char **lines = strv_split(cg, "\n");
        const char *v1 = NULL, *v2 = NULL;
        for (size_t i = 0; lines[i]; i++) {
                const char *a = strchr(lines[i], ':'), *b = a ? strchr(a + 1, ':') : NULL;
                if (!b)
                        continue;
                _cleanup_free_ char *ctl = xstrndup(a + 1, (size_t)(b - a - 1));
                _cleanup_strv_free_ char **ctls = strv_split(ctl, ",");
                if (strv_contains(ctls, "memory"))
                        v1 = b + 1;
                else if (startswith(lines[i], "0::"))
                        v2 = b + 1;
        }
        const char *path = v1 ? v1 : v2;
        if (!path || path[0] != '/')
                return UINT64_MAX;
        /* the kernel names no cgroup "." or "..": a path with one is not
         * its */
        _cleanup_strv_free_ char **parts = strv_split(path, "/");
        for (size_t i = 0; parts[i]; i++)
                if (streq(parts[i], ".") || streq(parts[i], ".."))
                        return UINT64_MAX;
        const char *rel = streq(path, "/") ? "" : path;
        uint64_t limit = UINT64_MAX, v;
        _cleanup_free_ char *buf = NULL;
        if (v1) {
                _cleanup_free_ char *f_limit = xasprintf("/sys/fs/cgroup/memory%s/memory.limit_in_bytes", rel);
                if (ht_read_file(c, f_limit, 4096, &buf, NULL) == 0 && cgroup_number(buf, &v)) {
                        limit = v;
                        *from = xstrdup(f_limit);
                }
                if (limit >= ram) {
                        _cleanup_free_ char *f_stat = xasprintf("/sys/fs/cgroup/memory%s/memory.stat", rel);
                        free(buf);
                        buf = NULL;
                        const char *h;
                        if (ht_read_file(c, f_stat, 1 << 16, &buf, NULL) == 0 &&
                            (h = strstr(buf, "hierarchical_memory_limit ")) && (h == buf || h[-1] == '\n') &&
                            cgroup_number(h + strlen("hierarchical_memory_limit "), &v)) {
                                limit = v;
                                free(*from);
                                *from = xstrdup(f_stat);
                        }
                }
        } else {
                _cleanup_free_ char *f_max = xasprintf("/sys/fs/cgroup%s/memory.max", rel);
                if (ht_read_file(c, f_max, 4096, &buf, NULL) == 0 && cgroup_number(buf, &v)) {
                        limit = v;
                        *from = xstrdup(f_max);
                }
        }
        /* v1's "unlimited" is a page count's maximum (9223372036854771712):
         * at or above the memory, HotSpot takes the memory */
        if (limit >= ram) {
                free(*from);
                *from = NULL;
                return UINT64_MAX;
        }
        return limit;
}

/* Read one env variable's options into o; says in from where it came. */
static void env_options(ht_jvm_options *o, const char *env, size_t env_len, const char *name,
                        const char *p_env, char ***from) {
        size_t n;
        const char *v = env ? ht_jvm_environ_get(env, env_len, name, &n) : NULL;
        if (!v)
                return;
        ht_jvm_options before = *o;
        ht_jvm_parse_env(o, v, n);
        if (memcmp(&before, o, sizeof(before)) != 0) {
                _cleanup_free_ char *s = xasprintf("%s (%s)", p_env, name);
                strv_push(from, s);
        }
}

/* pr's options; what cannot be read is warned about only for a trusted
 * JVM, so another user's processes cannot fill the warnings. */
static void collect_one(const ht_context *c, ht_facts *f, const ht_process *pr, uint64_t ram, uint64_t page,
                        unsigned cpus) {
        unsigned pid = pr->pid;
        bool trusted = pr->trust != HT_TRUST_NONE;
        _cleanup_free_ char *p_cmd = xasprintf("/proc/%u/cmdline", pid);
        _cleanup_free_ char *p_env = xasprintf("/proc/%u/environ", pid);
        _cleanup_free_ char *cmd = NULL, *env = NULL;
        size_t cmd_len = 0, env_len = 0;
        /* What the process's owner wrote (its command line, its
         * environment): read as a file that user controls, which in a
         * tree of plain files (an image, a fixture) may be a FIFO */
        _cleanup_free_ char *why = NULL;
        int r = ht_read_file_untrusted(c, p_cmd, HT_JVM_MAX_ARGS, NULL, &cmd, &cmd_len, &why);
        if (r == -ENOENT || r == -ESRCH)
                return; /* gone since it was listed */
        _cleanup_free_ char *d_cmd = ht_display_path(c, p_cmd);
        if (r < 0) {
                if (trusted)
                        ht_facts_warn(f, "%s: cannot be read (%s): java %u left out", d_cmd,
                                      r == -EFBIG ? "longer than 256 KiB" : why, pid);
                return;
        }
        free(why);
        why = NULL;
        r = ht_read_file_untrusted(c, p_env, HT_JVM_MAX_ARGS, NULL, &env, &env_len, &why);
        if (r < 0 && r != -ENOENT && trusted) {
                _cleanup_free_ char *d = ht_display_path(c, p_env);
                ht_facts_warn(f, "%s: cannot be read (%s): JAVA_TOOL_OPTIONS and JDK_JAVA_OPTIONS of java %u "
                              "not known", d, r == -EFBIG ? "longer than 256 KiB" : why, pid);
        }

        ht_jvm j = {.pid = pid, .uid = pr->uid, .trusted = trusted};
        ht_jvm_options_init(&j.opt);
        /* The order HotSpot reads them in, the last value winning:
         * JAVA_TOOL_OPTIONS first (the JVM prepends its options to those
         * the launcher passes to JNI_CreateJavaVM: JVM TI specification,
         * "Environment Variable JAVA_TOOL_OPTIONS"; arguments.cpp parses
         * it before them); then JDK_JAVA_OPTIONS, which only the java
         * launcher of JDK 9 and later reads, prepending its content to
         * the command line's arguments in the process (java(1), "Using
         * the JDK_JAVA_OPTIONS Launcher Environment Variable"; JDK 8's
         * launcher ignores it), so it is not in /proc/PID/cmdline; then
         * the command line; then _JAVA_OPTIONS, which arguments.cpp
         * parses last, overriding both. */
        env_options(&j.opt, env, env_len, "JAVA_TOOL_OPTIONS", p_env, &j.options_from);
        /* JDK 8's launcher has no JDK_JAVA_OPTIONS (added in JDK 9, JEP
         * 293; libjli/args.c, JLI_AddArgsFromEnvVar): a JDK 8 JVM
         * started where it is set for newer ones does not take it; its
         * release file says which (unknown: read, as before) */
        bool feature_read = false;
        if (env && ht_jvm_environ_get(env, env_len, "JDK_JAVA_OPTIONS", NULL)) {
                j.jdk_feature = jdk_feature(c, pid);
                feature_read = true;
        }
        if (!j.jdk_feature || j.jdk_feature >= 9)
                env_options(&j.opt, env, env_len, "JDK_JAVA_OPTIONS", p_env, &j.options_from);
        ht_jvm_options before = j.opt;
        ht_jvm_parse_cmdline(&j.opt, cmd, cmd_len);
        if (memcmp(&before, &j.opt, sizeof(before)) != 0)
                strv_push(&j.options_from, p_cmd);
        env_options(&j.opt, env, env_len, "_JAVA_OPTIONS", p_env, &j.options_from);
        if (j.opt.argfiles && trusted)
                ht_facts_warn(f, "%s: %u @argfile(s) on java %u's command line are not read: "
                              "options in them are not known", d_cmd, j.opt.argfiles, pid);
        if (j.opt.option_files && trusted)
                ht_facts_warn(f, "%s: %u -XX:VMOptionsFile= or -XX:Flags= file(s) on java %u's command line "
                              "are not read: options in them are not known", d_cmd, j.opt.option_files, pid);

        j.user = pr->user ? xstrdup(pr->user) : NULL;
        /* a drop-in reaches a service; a scope is no unit to tune */
        j.unit = pr->unit && endswith(pr->unit, ".service") ? xstrdup(pr->unit) : NULL;

        /* The collector: the one named, else HotSpot's choice, G1 on a
         * "server class machine" (2 or more processors and 2 GB less
         * 256 MB of memory or more), else Serial (gc/shared/gcConfig.cpp,
         * GCConfig::select_gc_ergonomically; runtime/os.cpp,
         * os::is_server_class_machine) */
        j.gc = j.opt.gc;
        /* -XX:+AggressiveHeap sets -XX:+UseParallelGC (arguments.cpp,
         * set_aggressive_heap_flags; with another collector named HotSpot
         * refuses to start: "Multiple garbage collectors selected") */
        if (j.opt.aggressive_heap == 1)
                j.gc = HT_JVM_GC_PARALLEL;
        if (j.gc == HT_JVM_GC_DEFAULT)
                j.gc = cpus >= 2 && ram >= (UINT64_C(2) << 30) - (UINT64_C(256) << 20) ? HT_JVM_GC_G1
                                                                                         : HT_JVM_GC_SERIAL;

        /* HugePages: HotSpot maps the heap with explicit huge pages
         * (HugeTLB) through mmap(MAP_HUGETLB) or SysV SHM_HUGETLB
         * segments; with -XX:+UseTransparentHugePages it uses THP instead
         * and takes no HugePages (java(1), "Large Pages"). Which one the
         * options choose: ht_jvm_large_pages_kind. */
        j.large_pages = ht_jvm_large_pages_kind(&j.opt);
        bool hugetlb = j.large_pages == HT_JVM_LP_HUGETLBFS || j.large_pages == HT_JVM_LP_SHM;
        j.heap_bytes = j.opt.max_heap;
        j.memory_limit = UINT64_MAX;
        if (j.heap_bytes == UINT64_MAX && ram) {
                /* not given: HotSpot's default, MaxRAMPercentage (25 %)
                 * of the physical memory (java(1), -XX:MaxRAMPercentage),
                 * or MaxRAMFraction's share; the physical memory is its
                 * cgroup's memory limit where one is below MemTotal */
                uint64_t phys = ram;
                if (j.opt.container_support != 0) {
                        j.memory_limit = cgroup_memory_limit(c, pid, ram, &j.memory_limit_from);
                        if (j.memory_limit != UINT64_MAX) {
                                phys = j.memory_limit;
                                strv_push(&j.options_from, j.memory_limit_from);
                        }
                }
                j.heap_bytes = ht_jvm_default_heap(&j.opt, phys);
                j.heap_default = true;
        }
        if (hugetlb && j.opt.invalid_sizes) {
                /* HotSpot exits on a size it cannot parse ("Invalid maximum
                 * heap size: -Xmx..."): these are not a running JVM's
                 * options, and nothing is sized from them */
                if (trusted)
                        ht_facts_warn(f, "%s: java %u's options hold %u size%s HotSpot refuses (it does not "
                                      "start with one): its large pages are not counted", d_cmd, pid,
                                      j.opt.invalid_sizes, j.opt.invalid_sizes == 1 ? "" : "s");
        } else if (hugetlb) {
                uint64_t lp = large_page_size(c, &j.opt, j.large_pages, page);
                j.page_size = lp;
                uint64_t cc = j.opt.code_cache != UINT64_MAX ? j.opt.code_cache
                              : j.opt.tiered == 0            ? CODE_CACHE_NO_TIERED
                                                             : CODE_CACHE_TIERED;
                j.code_cache_bytes = cc;
                /* The code cache takes large pages when it holds at least
                 * 8 of them (codeCache.cpp, CodeCache::initialize_heaps:
                 * page_size(false, 8)), else ordinary ones; never SysV
                 * segments, which HotSpot does not map executable
                 * (os_linux.cpp, os::can_execute_large_page_memory():
                 * "UseTransparentHugePages || UseHugeTLBFS"; Java 17.0.15
                 * with -XX:+UseSHM maps its heap and G1's bitmaps as
                 * SYSV segments and its code cache in 4 KB pages). */
                j.code_cache_large = cc / lp >= 8 && j.large_pages == HT_JVM_LP_HUGETLBFS;
                if (j.heap_bytes != UINT64_MAX) {
                        if (!feature_read)
                                j.jdk_feature = jdk_feature(c, pid);
                        j.gc_large_bytes = gc_large_bytes(j.gc, j.heap_bytes, lp, j.jdk_feature);
                        if (trusted && (j.gc == HT_JVM_GC_Z || j.gc == HT_JVM_GC_SHENANDOAH))
                                ht_facts_warn(f, "%s: java %u uses %s, which maps its large pages its own way: "
                                              "only its heap and code cache are counted in HugePages", d_cmd, pid,
                                              j.gc == HT_JVM_GC_Z ? "ZGC" : "Shenandoah");
                        /* the heap in whole pages: HotSpot aligns it to the
                         * large page size (heap alignment) */
                        uint64_t heap = j.heap_bytes <= VA_MAX ? (j.heap_bytes + lp - 1) / lp * lp : j.heap_bytes;
                        j.large_pages_bytes = heap + (j.code_cache_large ? cc : 0) + j.gc_large_bytes;
                        if (j.heap_bytes > VA_MAX || cc > VA_MAX || j.gc_large_bytes > VA_MAX ||
                            j.large_pages_bytes > VA_MAX) {
                                /* more than any process can map: HotSpot could not
                                 * have reserved it, so not a running JVM's options */
                                if (trusted)
                                        ht_facts_warn(f, "%s: java %u's heap (%" PRIu64 " bytes) and code cache "
                                                      "(%" PRIu64 ") are more than a process can map (64 PiB): "
                                                      "not a running JVM's options, its large pages are not "
                                                      "counted", d_cmd, pid, j.heap_bytes, cc);
                                j.large_pages_bytes = 0;
                        } else if (j.heap_default && trusted)
                                ht_facts_warn(f, "%s: java %u has large pages and no -Xmx: its heap "
                                              "is counted as HotSpot's default, %s%s%s", d_cmd, pid,
                                              j.opt.aggressive_heap == 1 ? "-XX:+AggressiveHeap's half of the memory"
                                              : j.opt.max_ram_percentage_milli != UINT64_MAX
                                                      ? "the -XX:MaxRAMPercentage share of the memory"
                                              : j.opt.max_ram_fraction ? "the -XX:MaxRAMFraction share of the memory"
                                                                       : "a quarter of the memory",
                                              j.memory_limit != UINT64_MAX ? " limit of its cgroup, " : "",
                                              j.memory_limit_from ? j.memory_limit_from : "");
                        if (lp != page && j.large_pages_bytes && trusted)
                                ht_facts_warn(f, "%s: java %u maps its heap in pages of %" PRIu64 " kB "
                                              "(-XX:LargePageSizeInBytes), not in the default HugePages of %" PRIu64
                                              " kB that vm.nr_hugepages sizes: it needs %" PRIu64 " of them in "
                                              "/sys/kernel/mm/hugepages/hugepages-%" PRIu64 "kB/nr_hugepages (at boot: "
                                              "hugepagesz=%" PRIu64 "K hugepages=%" PRIu64 " on the kernel command line), "
                                              "which hosttune does not size: not counted", d_cmd, pid, lp / 1024,
                                              page / 1024, (j.large_pages_bytes + lp - 1) / lp, lp / 1024, lp / 1024,
                                              (j.large_pages_bytes + lp - 1) / lp);
                }
        }
        f->jvms = xrealloc(f->jvms, (f->n_jvms + 1) * sizeof(*f->jvms));
        f->jvms[f->n_jvms++] = j;
}

void ht_facts_collect_jvm(const ht_context *c, ht_facts *f) {
        uint64_t ram = 0, page = 0;
        unsigned cpus = 0;
        for (size_t i = 0; i < f->n_processes; i++) {
                if (f->processes[i].kind != HT_PROC_JAVA)
                        continue;
                if (!page) {
                        ram = mem_total(c);
                        page = hugepage_size(c);
                        cpus = online_cpus(c, f);
                }
                collect_one(c, f, &f->processes[i], ram, page, cpus);
        }
        /* Sizes, owner and unit come from the trusted JVMs only (ht_trust) */
        for (size_t i = 0; i < f->n_jvms; i++) {
                const ht_jvm *j = &f->jvms[i];
                /* only what comes from the default pool, which
                 * vm.nr_hugepages sizes */
                if (j->trusted && j->large_pages_bytes > 0 && j->page_size == page &&
                    f->jvm_large_pages_bytes <= UINT64_MAX / 2 - j->large_pages_bytes) {
                        f->jvm_large_pages_bytes += j->large_pages_bytes;
                        /* HotSpot maps large pages with mmap(MAP_HUGETLB)
                         * (UseHugeTLBFS), as SysV SHM_HUGETLB segments only
                         * when -XX:+UseSHM chose them (os_linux.cpp,
                         * os::reserve_memory_special(); a -XX:+UseSHM
                         * beside -XX:+UseHugeTLBFS does not) */
                        f->jvm_large_pages_shm = f->jvm_large_pages_shm || j->large_pages == HT_JVM_LP_SHM;
                        for (size_t k = 0; j->options_from && j->options_from[k]; k++)
                                if (!strv_contains(f->jvm_large_pages_from, j->options_from[k]))
                                        strv_push(&f->jvm_large_pages_from, j->options_from[k]);
                }
        }
        /* The owner and unit for the profile: one each, or none. */
        const ht_jvm *uj = NULL, *nj = NULL;
        bool several_users = false, several_units = false;
        for (size_t i = 0; i < f->n_jvms; i++) {
                const ht_jvm *j = &f->jvms[i];
                if (!j->trusted)
                        continue;
                if (j->user) {
                        if (uj && !streq(uj->user, j->user))
                                several_users = true;
                        else if (!uj)
                                uj = j;
                }
                if (j->unit) {
                        if (nj && !streq(nj->unit, j->unit))
                                several_units = true;
                        else if (!nj)
                                nj = j;
                }
        }
        if (several_users)
                ht_facts_warn(f, "JVMs run as several users (%s and others): none is taken for jvm_user",
                              uj->user);
        else if (uj) {
                f->jvm_user = xstrdup(uj->user);
                f->jvm_user_from = xasprintf("/proc/%u/status", uj->pid);
                /* vm.hugetlb_shm_group and the limits want the owner's
                 * group: its primary one */
                f->jvm_group = primary_group(c, uj->user);
        }
        if (several_units)
                ht_facts_warn(f, "JVMs run in several units (%s and others): none is taken for jvm_unit",
                              nj->unit);
        else if (nj) {
                f->jvm_unit = xstrdup(nj->unit);
                f->jvm_unit_from = xasprintf("/proc/%u/cgroup", nj->pid);
        }
}

void ht_facts_jvm_free(ht_facts *f) {
        for (size_t i = 0; i < f->n_jvms; i++) {
                free(f->jvms[i].user);
                free(f->jvms[i].unit);
                free(f->jvms[i].memory_limit_from);
                strv_free(f->jvms[i].options_from);
        }
        free(f->jvms);
        strv_free(f->jvm_large_pages_from);
        free(f->jvm_user);
        free(f->jvm_user_from);
        free(f->jvm_group);
        free(f->jvm_unit);
        free(f->jvm_unit_from);
        strv_free(f->jvm_warnings);
}
