/* --facts FILE: the facts only a running kernel knows, read back from the
 * JSON `hosttune facts --json` printed on a machine of the target shape,
 * for an offline image (a --root with no /proc/sys or /sys). The inverse
 * of facts-json.c for those fields; the image's own files still give the
 * rest (os-release, bootloader, users). The file is untrusted input:
 * every field is type-checked and every string that reaches a path, a
 * message or a file is checked for what it may hold. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>

#include "facts-internal.h"
#include "facts.h"
#include "util.h"

#define MAX_FACTS_FILE (4u << 20)
#define MAX_STRING 4096

typedef struct {
        json_object *root;
        const char *path;
        char *error;
} loader;

static int bad(loader *l, const char *name, const char *fmt, ...) _printf_(3, 4);
static int bad(loader *l, const char *name, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        _cleanup_free_ char *what = xvasprintf(fmt, ap);
        va_end(ap);
        if (!l->error)
                l->error = xasprintf("%s: %s: %s", l->path, name, what);
        return -EINVAL;
}

static const char *type_name(json_object *o) {
        return o ? json_type_to_name(json_object_get_type(o)) : "null";
}

/* The node of a dotted name; NULL for null or absent (both: unknown). */
static json_object *get(loader *l, const char *name) {
        return ht_facts_lookup(l->root, name, NULL);
}

typedef bool (*str_check)(const char *s);

static bool word_chars(const char *s, const char *extra) {
        if (!*s)
                return false;
        for (const char *p = s; *p; p++)
                if (!isalnum((unsigned char)*p) && !strchr(extra, *p))
                        return false;
        return true;
}
static bool ok_release(const char *s) { return word_chars(s, "._-+~"); }
static bool ok_name(const char *s) { return word_chars(s, "_-"); }
static bool ok_choice(const char *s) { return word_chars(s, "_-+"); }
static bool ok_cmdline(const char *s) { return !has_control_chars(s) && !strchr(s, '\t'); }
static bool ok_thp_dir(const char *s) {
        return streq(s, "/sys/kernel/mm/transparent_hugepage") ||
               streq(s, "/sys/kernel/mm/redhat_transparent_hugepage");
}
static bool ok_flag(const char *s) { return word_chars(s, "_"); }
static bool ok_uname(const char *s) { return *s && !has_control_chars(s) && !strchr(s, '\t'); }
static bool ok_cpulist(const char *s) { return isdigit((unsigned char)*s) && strspn(s, "0123456789,-") == strlen(s); }

/* cpu.cpuinfo: lines of text, tabs and newlines the only control characters */
static int load_cpuinfo(loader *l, ht_facts *f) {
        const char *name = "cpu.cpuinfo";
        json_object *o = get(l, name);
        if (!o)
                return 0;
        if (!json_object_is_type(o, json_type_string))
                return bad(l, name, "expected a string, got %s", type_name(o));
        const char *s = json_object_get_string(o);
        size_t n = (size_t)json_object_get_string_len(o);
        if (n != strlen(s) || n > HT_FACTS_MAX_FILE)
                return bad(l, name, "not the text of a /proc/cpuinfo");
        for (const char *p = s; *p; p++)
                if (((unsigned char)*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f)
                        return bad(l, name, "holds control characters, not the text of a /proc/cpuinfo");
        free(f->cpu_cpuinfo);
        f->cpu_cpuinfo = xstrdup(s);
        return 0;
}

static int load_str(loader *l, const char *name, str_check check, char **field) {
        json_object *o = get(l, name);
        if (!o)
                return 0;
        if (!json_object_is_type(o, json_type_string))
                return bad(l, name, "expected a string, got %s", type_name(o));
        const char *s = json_object_get_string(o);
        if (strlen(s) > MAX_STRING || (size_t)json_object_get_string_len(o) != strlen(s) || !check(s))
                return bad(l, name, "\"%.60s\" is not a value this fact can have", s);
        free(*field);
        *field = xstrdup(s);
        return 0;
}

static int load_u64(loader *l, const char *name, uint64_t *field) {
        json_object *o = get(l, name);
        if (!o)
                return 0;
        /* over uint64's range, as facts --json prints it: not the
         * INT64_MAX json-c's get_int64 stops at */
        if (ht_json_get_u64(o, field) < 0)
                return bad(l, name, "expected a whole number >= 0, got %s", type_name(o));
        return 0;
}

static int load_i64(loader *l, const char *name, int64_t *field) {
        uint64_t v = HT_U64_UNKNOWN;
        int r = load_u64(l, name, &v);
        if (r == 0 && v != HT_U64_UNKNOWN && v > INT64_MAX)
                return bad(l, name, "%" PRIu64 " is not a value this fact can have", v);
        if (r == 0 && v != HT_U64_UNKNOWN)
                *field = (int64_t)v;
        return r;
}

static int load_bool(loader *l, const char *name, bool *field, bool *ret_known) {
        json_object *o = get(l, name);
        if (ret_known)
                *ret_known = false;
        if (!o)
                return 0;
        if (!json_object_is_type(o, json_type_boolean))
                return bad(l, name, "expected true or false, got %s", type_name(o));
        *field = json_object_get_boolean(o);
        if (ret_known)
                *ret_known = true;
        return 0;
}

static int load_tri(loader *l, const char *name, ht_tristate *field) {
        bool v, known;
        int r = load_bool(l, name, &v, &known);
        if (r == 0 && known)
                *field = v ? HT_YES : HT_NO;
        return r;
}

static int load_sizes(loader *l, ht_facts *f) {
        const char *name = "hugepages.sizes_kb";
        json_object *o = get(l, name);
        if (!o)
                return 0;
        if (!json_object_is_type(o, json_type_array))
                return bad(l, name, "expected a list of numbers, got %s", type_name(o));
        size_t n = json_object_array_length(o);
        if (n > 64)
                return bad(l, name, "%zu page sizes is not a real kernel", n);
        uint64_t *sizes = xcalloc(n + 1, sizeof(uint64_t));
        for (size_t i = 0; i < n; i++) {
                json_object *e = json_object_array_get_idx(o, i);
                if (ht_json_get_u64(e, &sizes[i]) < 0 || sizes[i] == 0) {
                        free(sizes);
                        return bad(l, name, "element %zu: expected a page size in KB, got %s", i, type_name(e));
                }
        }
        free(f->hugepage_sizes_kb);
        f->hugepage_sizes_kb = sizes;
        f->n_hugepage_sizes = n;
        return 0;
}

static int load_flags(loader *l, ht_facts *f) {
        const char *name = "cpu.flags";
        json_object *o = get(l, name);
        if (!o)
                return 0;
        if (!json_object_is_type(o, json_type_array))
                return bad(l, name, "expected a list of words, got %s", type_name(o));
        char **flags = xcalloc(1, sizeof(char *));
        for (size_t i = 0; i < json_object_array_length(o) && i < 4096; i++) {
                json_object *e = json_object_array_get_idx(o, i);
                if (!e || !json_object_is_type(e, json_type_string) || !ok_flag(json_object_get_string(e)) ||
                    strlen(json_object_get_string(e)) > 64) {
                        strv_free(flags);
                        return bad(l, name, "element %zu is not a CPU flag", i);
                }
                strv_push(&flags, json_object_get_string(e));
        }
        strv_free(f->cpu_flags);
        f->cpu_flags = flags;
        return 0;
}

/* Read and parse the file; a syntax error names its line. */
static int read_json(const char *path, json_object **ret, char **ret_error) {
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
                int r = -errno;
                return ht_error(ret_error, r, "cannot open %s: %s", path, ht_strerror(-r));
        }
        struct stat st;
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
                return ht_error(ret_error, -EINVAL, "%s: not a regular file", path);
        if (st.st_size > (off_t)MAX_FACTS_FILE)
                return ht_error(ret_error, -EFBIG,
                                "%s: too large for a facts file (over %u bytes)", path, MAX_FACTS_FILE);
        _cleanup_free_ char *text = NULL;
        size_t len;
        int k = ht_read_fd(fd, MAX_FACTS_FILE, &text, &len);
        if (k == -EFBIG)
                return ht_error(ret_error, k, "%s: too large for a facts file", path);
        if (k < 0)
                return ht_error(ret_error, k, "cannot read %s: %s", path, ht_strerror(-k));
        json_tokener *tok = json_tokener_new();
        json_object *o = json_tokener_parse_ex(tok, text, (int)len);
        enum json_tokener_error jerr = json_tokener_get_error(tok);
        size_t off = (size_t)json_tokener_get_parse_end(tok);
        json_tokener_free(tok);
        if (!o || jerr != json_tokener_success || text[off + strspn(text + off, " \t\r\n")]) {
                unsigned line = 1;
                for (size_t i = 0; i < off && i < len; i++)
                        line += text[i] == '\n';
                *ret_error = xasprintf("%s:%u: not valid JSON (%s)", path, line,
                                       o && jerr == json_tokener_success ? "text after the end"
                                       : jerr == json_tokener_continue ? "unexpected end of file"
                                                                        : json_tokener_error_desc(jerr));
                json_object_put(o);
                return -EBADMSG;
        }
        *ret = o;
        return 0;
}

int ht_facts_load_kernel(ht_facts *f, const char *path, char **ret_error) {
        loader l = {.path = path};
        int r = read_json(path, &l.root, ret_error);
        if (r < 0)
                return r;
        json_object *kernel = NULL, *memory = NULL;
        if (!json_object_is_type(l.root, json_type_object) ||
            !json_object_object_get_ex(l.root, "kernel", &kernel) || !json_object_is_type(kernel, json_type_object) ||
            !json_object_object_get_ex(l.root, "memory", &memory) || !json_object_is_type(memory, json_type_object)) {
                json_object_put(l.root);
                return ht_error(ret_error, -EINVAL, "%s: does not look like the output of 'hosttune facts --json' "
                                "(no kernel and memory objects)", path);
        }
        bool offline = false;
        if (load_bool(&l, "image.offline", &offline, NULL) == 0 && offline) {
                json_object_put(l.root);
                return ht_error(ret_error, -EINVAL,
                                "%s: these facts were collected from an offline image and hold no kernel facts; "
                                "run 'hosttune facts --json' on a running machine of the target shape", path);
        }

        /* Load into a scratch object so that a bad field leaves f as it was. */
        ht_facts *t = ht_facts_new();
        r = 0;
        r = r ?: load_str(&l, "kernel.release", ok_release, &t->kernel_release);
        r = r ?: load_str(&l, "kernel.uname", ok_uname, &t->kernel_uname);
        r = r ?: load_str(&l, "kernel.machine", ok_flag, &t->kernel_machine);
        r = r ?: load_str(&l, "kernel.cmdline", ok_cmdline, &t->kernel_cmdline);
        r = r ?: load_bool(&l, "kernel.xen", &t->kernel_xen, NULL);
        r = r ?: load_str(&l, "hypervisor", ok_name, &t->hypervisor);
        r = r ?: load_str(&l, "xen.type", ok_name, &t->xen_type);
        r = r ?: load_str(&l, "xen.guest_type", ok_name, &t->xen_guest_type);
        r = r ?: load_bool(&l, "xen.dom0", &t->xen_dom0, NULL);
        uint64_t cpus = HT_U64_UNKNOWN, nodes = HT_U64_UNKNOWN;
        r = r ?: load_u64(&l, "cpu.count", &cpus);
        r = r ?: load_flags(&l, t);
        r = r ?: load_str(&l, "cpu.online", ok_cpulist, &t->cpu_online);
        r = r ?: load_str(&l, "cpu.present", ok_cpulist, &t->cpu_present);
        r = r ?: load_cpuinfo(&l, t);
        r = r ?: load_u64(&l, "numa.nodes", &nodes);
        r = r ?: load_u64(&l, "memory.total_kb", &t->mem_total_kb);
        r = r ?: load_u64(&l, "memory.free_kb", &t->mem_free_kb);
        r = r ?: load_u64(&l, "memory.available_kb", &t->mem_available_kb);
        r = r ?: load_u64(&l, "memory.page_tables_kb", &t->page_tables_kb);
        r = r ?: load_u64(&l, "memory.swap_total_kb", &t->swap_total_kb);
        r = r ?: load_tri(&l, "hugepages.supported", &t->hugepages_supported);
        r = r ?: load_u64(&l, "hugepages.default_size_kb", &t->hugepage_default_kb);
        r = r ?: load_sizes(&l, t);
        r = r ?: load_u64(&l, "hugepages.total", &t->hugepages_total);
        r = r ?: load_u64(&l, "hugepages.free", &t->hugepages_free);
        r = r ?: load_u64(&l, "hugepages.rsvd", &t->hugepages_rsvd);
        r = r ?: load_u64(&l, "hugepages.surp", &t->hugepages_surp);
        r = r ?: load_bool(&l, "hugepages.gigantic_possible", &t->gigantic_pages_possible, NULL);
        r = r ?: load_tri(&l, "thp.supported", &t->thp_supported);
        r = r ?: load_str(&l, "thp.enabled", ok_choice, &t->thp_enabled);
        r = r ?: load_str(&l, "thp.defrag", ok_choice, &t->thp_defrag);
        r = r ?: load_str(&l, "thp.sysfs_dir", ok_thp_dir, &t->thp_sysfs_dir);
        r = r ?: load_tri(&l, "hugetext.supported", &t->hugetext_supported);
        r = r ?: load_i64(&l, "hugetext.enabled", &t->hugetext_enabled);
        r = r ?: load_i64(&l, "hugetext.pad_threshold", &t->hugetext_pad_threshold);
        /* the running system's choice (systemd and the kernel command
         * line), not the image's: taken from the file like the kernel */
        uint64_t cgv = HT_U64_UNKNOWN;
        r = r ?: load_u64(&l, "cgroup.version", &cgv);
        if (r == 0 && cgv != HT_U64_UNKNOWN && cgv != 1 && cgv != 2)
                r = bad(&l, "cgroup.version", "must be 1 or 2, not %llu", (unsigned long long)cgv);
        if (r == 0 && (cpus > 65536 && cpus != HT_U64_UNKNOWN))
                r = bad(&l, "cpu.count", "%llu CPUs is not a real machine", (unsigned long long)cpus);
        if (r == 0 && (nodes > 65536 && nodes != HT_U64_UNKNOWN))
                r = bad(&l, "numa.nodes", "%llu nodes is not a real machine", (unsigned long long)nodes);
        if (r == 0 && t->hugepage_default_kb == 0)
                r = bad(&l, "hugepages.default_size_kb", "0 is not a page size");
        if (r < 0) {
                *ret_error = TAKE_PTR(l.error);
                ht_facts_free(t);
                json_object_put(l.root);
                return r;
        }
        json_object_put(l.root);

        /* Move the kernel facts over; what the file did not know stays unknown. */
#define MOVE(x) do { __typeof__(f->x) _tmp = f->x; f->x = t->x; t->x = _tmp; } while (0)
        MOVE(kernel_release);
        MOVE(kernel_uname);
        MOVE(kernel_machine);
        MOVE(cpu_online);
        MOVE(cpu_present);
        MOVE(cpu_cpuinfo);
        MOVE(cpu_cpuinfo_text); /* the file's cpu.cpuinfo, not this host's text */
        MOVE(kernel_cmdline);
        MOVE(kernel_xen);
        MOVE(hypervisor);
        MOVE(xen_type);
        MOVE(xen_guest_type);
        MOVE(xen_dom0);
        MOVE(cpu_flags);
        MOVE(mem_total_kb);
        MOVE(mem_free_kb);
        MOVE(mem_available_kb);
        MOVE(page_tables_kb);
        MOVE(swap_total_kb);
        MOVE(hugepages_supported);
        MOVE(hugepage_default_kb);
        MOVE(hugepage_sizes_kb);
        MOVE(n_hugepage_sizes);
        MOVE(hugepages_total);
        MOVE(hugepages_free);
        MOVE(hugepages_rsvd);
        MOVE(hugepages_surp);
        MOVE(gigantic_pages_possible);
        MOVE(thp_supported);
        MOVE(thp_enabled);
        MOVE(thp_defrag);
        MOVE(thp_sysfs_dir);
        MOVE(hugetext_supported);
        MOVE(hugetext_enabled);
        MOVE(hugetext_pad_threshold);
#undef MOVE
        ht_facts_free(t);
        f->cpu_count = cpus == HT_U64_UNKNOWN ? 0 : (unsigned)cpus;
        f->numa_nodes = nodes == HT_U64_UNKNOWN ? 0 : (unsigned)nodes;
        f->memory_known = f->mem_total_kb != HT_U64_UNKNOWN;
        f->cgroup_version = cgv == HT_U64_UNKNOWN ? 0 : (unsigned)cgv;
        free(f->thp_cmdline);
        f->thp_cmdline = ht_cmdline_value(f->kernel_cmdline, "transparent_hugepage");
        free(f->facts_file);
        f->facts_file = xstrdup(path);
        return 0;
}
