/* Kernel, OS, CPU and virtualization facts: /proc/sys/kernel, /proc/cmdline,
 * /etc/os-release (or the release files of older distributions),
 * /proc/cpuinfo, NUMA nodes, Xen and DMI (containers: facts-virt.c). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "facts-internal.h"
#include "facts.h"
#include "util.h"

/* A garbled file should say so, not fill the report with one line each. */
#define MAX_WARNINGS_PER_FILE 3

/* One os-release value with shell quoting (os-release(5)): "..." with
 * backslash escapes for $ " \ `, '...' literal, or a bare word with
 * backslash escapes. NULL when the quoting is broken. */
char *ht_shell_unquote(const char *v) {
        strbuf b = {0};
        strbuf_append(&b, "");
        const char *p = v;
        while (*p) {
                if (*p == '"') {
                        p++;
                        while (*p && *p != '"') {
                                if (*p == '\\' && p[1] && strchr("$\"\\`", p[1]))
                                        p++;
                                /* the run up to the next quote or
                                 * backslash at once, not a byte a call */
                                size_t n = 1 + strcspn(p + 1, "\"\\");
                                strbuf_appendn(&b, p, n);
                                p += n;
                        }
                        if (*p != '"')
                                goto bad;
                        p++;
                } else if (*p == '\'') {
                        const char *end = strchr(p + 1, '\'');
                        if (!end)
                                goto bad;
                        strbuf_appendn(&b, p + 1, (size_t)(end - p - 1));
                        p = end + 1;
                } else if (*p == '\\' && p[1]) {
                        strbuf_appendn(&b, p + 1, 1);
                        p += 2;
                } else if (isspace((unsigned char)*p)) {
                        /* unquoted whitespace ends the assignment; only a
                         * comment may follow */
                        while (isspace((unsigned char)*p))
                                p++;
                        if (*p && *p != '#')
                                goto bad;
                        break;
                } else {
                        size_t n = 1 + strcspn(p + 1, "\"'\\ \t\n\v\f\r");
                        strbuf_appendn(&b, p, n);
                        p += n;
                }
        }
        return strbuf_steal(&b);
bad:
        strbuf_done(&b);
        return NULL;
}

void ht_facts_parse_os_release(ht_facts *f, const char *buf, size_t len, const char *where) {
        ht_facts_check_nul(f, buf, len, where);
        _cleanup_strv_free_ char **lines = strv_split(buf, "\n");
        unsigned bad = 0;
        for (size_t i = 0; lines[i]; i++) {
                char *line = strstrip(lines[i]);
                if (!*line || *line == '#')
                        continue;
                char *eq = strchr(line, '=');
                size_t kl = eq ? (size_t)(eq - line) : 0;
                bool key_ok = kl > 0;
                for (size_t k = 0; k < kl; k++)
                        if (!isupper((unsigned char)line[k]) && !isdigit((unsigned char)line[k]) &&
                            line[k] != '_')
                                key_ok = false;
                _cleanup_free_ char *val = key_ok ? ht_shell_unquote(eq + 1) : NULL;
                if (!val || has_control_chars(val) || !ht_valid_utf8(val) ||
                    has_control_chars(line) || !ht_valid_utf8(line)) {
                        if (++bad <= MAX_WARNINGS_PER_FILE)
                                ht_facts_warn(f, "%s:%zu: not a KEY=value line (binary junk or broken quoting), ignored",
                                              where, i + 1);
                        continue;
                }
                char **dst = NULL;
                *eq = 0;
                if (streq(line, "ID"))
                        dst = &f->os_id;
                else if (streq(line, "ID_LIKE"))
                        dst = &f->os_id_like;
                else if (streq(line, "VERSION_ID"))
                        dst = &f->os_version_id;
                else if (streq(line, "NAME"))
                        dst = &f->os_name;
                else if (streq(line, "PRETTY_NAME"))
                        dst = &f->os_pretty_name;
                if (dst) {
                        free(*dst);
                        *dst = TAKE_PTR(val);
                }
        }
        if (bad > MAX_WARNINGS_PER_FILE)
                ht_facts_warn(f, "%s: %u more bad lines", where, bad - MAX_WARNINGS_PER_FILE);
        if (isempty(f->os_id)) {
                free(f->os_id);
                f->os_id = NULL;
                ht_facts_warn(f, "%s: no ID= line, OS unknown", where);
        }
}

/* The first "release X.Y" (or "VERSION = X" for SuSE) number in buf. */
static char *release_number(const char *buf) {
        const char *p = strstr(buf, " release ");
        if (!p)
                return NULL;
        p += strlen(" release ");
        size_t n = strspn(p, "0123456789.");
        while (n > 0 && p[n - 1] == '.')
                n--;
        return n > 0 && isdigit((unsigned char)*p) ? xstrndup(p, n) : NULL;
}

int ht_parse_release_file(const char *name, const char *buf, char **ret_id, char **ret_version,
                          char **ret_pretty) {
        _cleanup_free_ char *first = xstrndup(buf, strcspn(buf, "\n"));
        strstrip(first);
        if (!*first || has_control_chars(first) || !ht_valid_utf8(first))
                return -EINVAL;
        const char *id = NULL;
        char *version = NULL;

        if (streq(name, "debian_version")) {
                /* "12.5", "6.0.10"; testing says "bookworm/sid": no number.
                 * os-release's VERSION_ID is the major number only. */
                id = "debian";
                if (isdigit((unsigned char)first[0]))
                        version = xstrndup(first, strspn(first, "0123456789"));
        } else if (streq(name, "SuSE-release")) {
                id = startswith(first, "openSUSE") ? "opensuse" : "sles";
                const char *v = strstr(buf, "VERSION = ");
                const char *pl = strstr(buf, "PATCHLEVEL = ");
                if (v) {
                        v += strlen("VERSION = ");
                        size_t n = strspn(v, "0123456789.");
                        if (n > 0) {
                                version = xstrndup(v, n);
                                if (pl) {
                                        pl += strlen("PATCHLEVEL = ");
                                        size_t m = strspn(pl, "0123456789");
                                        if (m > 0 && !strchr(version, '.')) {
                                                char *vv = xasprintf("%s.%.*s", version, (int)m, pl);
                                                free(version);
                                                version = vv;
                                        }
                                }
                        }
                }
        } else {
                /* Red Hat family: "<Name> release <X.Y> (<Codename>)". */
                static const struct {
                        const char *prefix, *id;
                } names[] = {
                        {"Red Hat Enterprise Linux", "rhel"},
                        {"CentOS", "centos"},
                        {"Oracle Linux", "ol"},
                        /* Oracle Enterprise Linux 5 called itself this */
                        {"Enterprise Linux Enterprise Linux", "ol"},
                        {"Scientific Linux", "scientific"},
                        {"Fedora", "fedora"},
                        {"Rocky Linux", "rocky"},
                        {"AlmaLinux", "almalinux"},
                        {"Alibaba Cloud Linux", "alinux"},
                        {"Aliyun Linux", "alinux"},
                };
                for (size_t i = 0; i < ELEMENTSOF(names); i++)
                        if (startswith(first, names[i].prefix)) {
                                id = names[i].id;
                                break;
                        }
                if (!id)
                        return -EINVAL;
                version = release_number(first);
        }
        *ret_id = xstrdup(id);
        *ret_version = version;
        if (ret_pretty)
                *ret_pretty = TAKE_PTR(first);
        return 0;
}

const char *ht_release_machine(const char *release) {
        /* RPM kernels end in their package's architecture, Debian's in
         * their flavour (linux-image-6.1.0-18-amd64, -cloud-amd64, -rt-arm64) */
        static const struct {
                const char *suffix, *machine;
        } names[] = {
                {".x86_64", "x86_64"},   {".aarch64", "aarch64"},    {".ppc64le", "ppc64le"},
                {".s390x", "s390x"},     {".i686", "i686"},          {"-amd64", "x86_64"},
                {"-arm64", "aarch64"},   {"-686", "i686"},           {"-686-pae", "i686"},
                {"-powerpc64le", "ppc64le"}, {"-s390x", "s390x"},    {"-armmp", "armv7l"},
                {"-armmp-lpae", "armv7l"},
        };
        if (!release)
                return NULL;
        /* RHEL 9 and later name a kernel variant after the architecture
         * with a '+': kernel-64k's "5.14.0-362.8.1.el9_3.aarch64+64k",
         * kernel-rt's "...x86_64+rt", kernel-debug's "...+debug", and
         * "+rt-64k", "+64k-debug" (kernel.spec's variant suffix, as
         * uname -r and /boot/vmlinuz-* show it): the architecture is what
         * stands before it */
        size_t n = strlen(release);
        const char *plus = strrchr(release, '+');
        if (plus && plus[1] && strspn(plus + 1, "abcdefghijklmnopqrstuvwxyz0123456789-") == strlen(plus + 1))
                n = (size_t)(plus - release);
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                size_t k = strlen(names[i].suffix);
                if (n >= k && memcmp(release + n - k, names[i].suffix, k) == 0)
                        return names[i].machine;
        }
        return NULL;
}

const char *ht_kernel_config_machine(const char *config) {
        /* the architecture symbols of arch/x86/Kconfig and arch/arm64/Kconfig */
        static const struct {
                const char *line, *machine;
        } names[] = {
                {"CONFIG_X86_64=y", "x86_64"}, {"CONFIG_ARM64=y", "aarch64"},
                {"CONFIG_X86_32=y", "i686"},
        };
        for (const char *l = config; l && *l; l += strcspn(l, "\n"), l += *l == '\n') {
                size_t n = strcspn(l, "\n");
                for (size_t i = 0; i < ELEMENTSOF(names); i++)
                        if (n == strlen(names[i].line) && memcmp(l, names[i].line, n) == 0)
                                return names[i].machine;
        }
        return NULL;
}

/* A part of uname for a tree: its /proc/sys/kernel file, one line with no
 * control characters (the version has spaces, the others none). */
static char *uname_part(const ht_context *c, ht_facts *f, const char *path, bool spaces) {
        char *s = NULL;
        if (ht_facts_read_line(c, f, path, false, &s) < 0)
                return NULL;
        if (!*s || (!spaces && strchr(s, ' '))) {
                _cleanup_free_ char *d = ht_display_path(c, path);
                ht_facts_warn(f, "%s: \"%s\" is not what the kernel prints there, ignored", d, s);
                free(s);
                return NULL;
        }
        return s;
}

/* kernel.uname and kernel.machine. For the kernel hosttune runs on,
 * uname(2), exactly what Python's os.uname() gives tuned. For a tree the
 * files the kernel takes them from (kernel/utsname_sysctl.c): ostype,
 * hostname, osrelease, version, and arch (Linux 6.1 and later); an older
 * kernel's machine is the architecture its release is named for, else its
 * /boot/config-RELEASE's. A part still unknown leaves uname unknown: a
 * regex over a made-up string could match where tuned's would not. */
static void collect_uname(const ht_context *c, ht_facts *f) {
        if (ht_context_kernel_is_ours(c)) {
                struct utsname u;
                if (uname(&u) == 0) {
                        f->kernel_machine = xstrdup(u.machine);
                        f->kernel_uname = xasprintf("%s %s %s %s %s", u.sysname, u.nodename, u.release,
                                                    u.version, u.machine);
                }
                return;
        }
        f->kernel_machine = uname_part(c, f, "/proc/sys/kernel/arch", false);
        if (!f->kernel_machine && ht_release_machine(f->kernel_release))
                f->kernel_machine = xstrdup(ht_release_machine(f->kernel_release));
        if (!f->kernel_machine && f->kernel_release) {
                _cleanup_free_ char *path = xasprintf("/boot/config-%s", f->kernel_release);
                _cleanup_free_ char *config = NULL;
                if (ht_path_check(path) == 0 && ht_facts_read(c, f, path, false, &config, NULL) == 0 &&
                    ht_kernel_config_machine(config))
                        f->kernel_machine = xstrdup(ht_kernel_config_machine(config));
        }
        _cleanup_free_ char *sysname = uname_part(c, f, "/proc/sys/kernel/ostype", false);
        _cleanup_free_ char *nodename = uname_part(c, f, "/proc/sys/kernel/hostname", false);
        _cleanup_free_ char *version = uname_part(c, f, "/proc/sys/kernel/version", true);
        if (sysname && nodename && f->kernel_release && version && f->kernel_machine)
                f->kernel_uname = xasprintf("%s %s %s %s %s", sysname, nodename, f->kernel_release, version,
                                            f->kernel_machine);
}

void ht_facts_collect_kernel(const ht_context *c, ht_facts *f) {
        char *s;
        if (ht_facts_read_line(c, f, "/proc/sys/kernel/osrelease", true, &s) == 0) {
                if (*s && !strchr(s, ' '))
                        f->kernel_release = s;
                else {
                        _cleanup_free_ char *d = ht_display_path(c, "/proc/sys/kernel/osrelease");
                        ht_facts_warn(f, "%s: \"%s\" is not a kernel release", d, s);
                        free(s);
                }
        }
        collect_uname(c, f);
        if (ht_facts_read_line(c, f, "/proc/cmdline", true, &s) == 0)
                f->kernel_cmdline = s;
        if (ht_facts_read_line(c, f, "/proc/sys/kernel/random/boot_id", true, &s) == 0) {
                bool ok = strlen(s) == 36;
                for (size_t i = 0; ok && i < 36; i++)
                        ok = (i == 8 || i == 13 || i == 18 || i == 23) ? s[i] == '-'
                                                                       : isxdigit((unsigned char)s[i]);
                if (ok)
                        f->boot_id = s;
                else {
                        _cleanup_free_ char *d = ht_display_path(c, "/proc/sys/kernel/random/boot_id");
                        ht_facts_warn(f, "%s: \"%s\" is not a UUID", d, s);
                        free(s);
                }
        }
}

void ht_facts_collect_os(const ht_context *c, ht_facts *f) {
        char *buf;
        size_t len;
        const char *path = "/etc/os-release";
        int r = ht_facts_read(c, f, path, false, &buf, &len);
        if (r == -ENOENT) {
                path = "/usr/lib/os-release";
                r = ht_facts_read(c, f, path, false, &buf, &len);
        }
        bool os_release_missing = r == -ENOENT;
        if (r == 0) {
                _cleanup_free_ char *d = ht_display_path(c, path);
                ht_facts_parse_os_release(f, buf, len, d);
                free(buf);
                if (f->os_id)
                        return;
        }

        /* Hosts older than os-release (RHEL 5/6, SLES 11, Debian 6): the
         * vendor release files. Oracle and CentOS ship redhat-release too,
         * so their own file is asked first. */
        static const char *const files[] = {
                "/etc/oracle-release", "/etc/centos-release", "/etc/redhat-release",
                "/etc/SuSE-release",   "/etc/debian_version",
        };
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                if (ht_facts_read(c, f, files[i], false, &buf, &len) < 0)
                        continue;
                _cleanup_free_ char *d = ht_display_path(c, files[i]);
                ht_facts_check_nul(f, buf, len, d);
                char *id, *version, *pretty;
                r = ht_parse_release_file(strrchr(files[i], '/') + 1, buf, &id, &version, &pretty);
                free(buf);
                if (r < 0) {
                        ht_facts_warn(f, "%s: not a release line I know, ignored", d);
                        continue;
                }
                free(f->os_id);
                free(f->os_version_id);
                free(f->os_pretty_name);
                f->os_id = id;
                f->os_version_id = version;
                f->os_pretty_name = pretty;
                return;
        }
        if (!f->os_id) {
                _cleanup_free_ char *d = ht_display_path(c, "/etc/os-release");
                ht_facts_warn(f, "%s: %s, and no vendor release file either: OS unknown", d,
                              os_release_missing ? "missing" : "unusable");
        }
}

/* Flags that rules care about: page sizes (pse 2 MB, pdpe1gb 1 GB), being
 * a guest, and the vector units JVM and database rules mention. */
static const char *const interesting_flags[] = {
        "pse", "pdpe1gb", "hypervisor", "lm", "nx", "ht", "aes", "sse4_2", "avx", "avx2", "avx512f",
};

static bool key_is(const char *key, size_t len, const char *want) {
        return len == strlen(want) && memcmp(key, want, len) == 0;
}

/* "processor 3", s390x's per-CPU key (arch/s390/kernel/processor.c
 * prints "processor %d: version = ..."): the word, one blank, a number */
static bool key_is_s390_processor(const char *key, size_t len) {
        const size_t n = strlen("processor ");
        if (len <= n || memcmp(key, "processor ", n) != 0)
                return false;
        for (size_t i = n; i < len; i++)
                if (!isdigit((unsigned char)key[i]))
                        return false;
        return true;
}

void ht_facts_parse_cpuinfo(ht_facts *f, const char *buf, size_t len, const char *where) {
        ht_facts_check_nul(f, buf, len, where);
        unsigned count = 0;
        bool have_flags = false, powerpc = false;
        f->cpu_flags_x86 = false;
        strv_free(f->cpu_flags);
        f->cpu_flags = xcalloc(1, sizeof(char *));
        /* A line at a time, in place: a big host has thousands of lines
         * (one block per CPU) and only the first flags line matters. */
        for (const char *l = buf; *l; l += strcspn(l, "\n"), l += *l == '\n') {
                size_t n = strcspn(l, "\n");
                const char *colon = memchr(l, ':', n);
                if (!colon)
                        continue;
                const char *key = l, *key_end = colon;
                while (key < colon && isspace((unsigned char)*key))
                        key++;
                while (key_end > key && isspace((unsigned char)key_end[-1]))
                        key_end--;
                size_t klen = (size_t)(key_end - key);
                /* each architecture names its lines its own way (the
                 * kernel's arch/{x86,arm64,powerpc,s390}/kernel show_cpuinfo):
                 * a CPU is "processor : N" but s390x's "processor N: ...";
                 * the flags are x86's "flags", arm64's "Features", s390x's
                 * "features"; PowerPC has none and says "timebase" once */
                if (key_is(key, klen, "processor") || key_is_s390_processor(key, klen))
                        count++;
                else if (key_is(key, klen, "timebase"))
                        powerpc = true;
                else if (!have_flags && (key_is(key, klen, "flags") || key_is(key, klen, "Features") ||
                                         key_is(key, klen, "features"))) {
                        have_flags = true;
                        f->cpu_flags_x86 = key_is(key, klen, "flags");
                        /* the words between blanks, in place: a flags line
                         * has a hundred or more, and only a few matter */
                        bool found[ELEMENTSOF(interesting_flags)] = {0};
                        for (const char *w = colon + 1, *end = l + n; w < end;) {
                                size_t wn = strcspn(w, " \t\n");
                                if (wn > (size_t)(end - w))
                                        wn = (size_t)(end - w);
                                for (size_t k = 0; wn && k < ELEMENTSOF(interesting_flags); k++)
                                        if (w[0] == interesting_flags[k][0] && key_is(w, wn, interesting_flags[k]))
                                                found[k] = true;
                                w += wn;
                                w += strspn(w, " \t");
                        }
                        for (size_t k = 0; k < ELEMENTSOF(interesting_flags); k++)
                                if (found[k])
                                        strv_push(&f->cpu_flags, interesting_flags[k]);
                }
        }
        f->cpu_count = count;
        if (count == 0)
                ht_facts_warn(f, "%s: no \"processor\" lines, CPU count unknown", where);
        if (!have_flags) {
                /* PowerPC's has none to find: no warning for that */
                if (!powerpc)
                        ht_facts_warn(f, "%s: no flags line, CPU flags unknown", where);
                strv_free(f->cpu_flags);
                f->cpu_flags = NULL;
        }
}

char *ht_cpuinfo_distinct_lines(const char *buf) {
        /* an open-addressing set of line spans: a 128-CPU host has ~3500
         * lines, a few hundred distinct ("processor : N", core and APIC ids) */
        typedef struct {
                const char *p;
                size_t n;
        } span;
        size_t lines = 1, len = strlen(buf);
        for (const char *p = buf, *end = buf + len; (p = memchr(p, '\n', (size_t)(end - p))); p++)
                lines++;
        size_t size = 16;
        while (size < 2 * lines)
                size *= 2;
        span *set = xcalloc(size, sizeof(*set));
        strbuf out = {0};
        strbuf_append(&out, "");
        bool first = true;
        for (const char *l = buf, *end = buf + len, *next; l < end; l = next) {
                const char *nl = memchr(l, '\n', (size_t)(end - l));
                size_t n = nl ? (size_t)(nl - l) : (size_t)(end - l);
                next = nl ? nl + 1 : end;
                /* eight bytes a step (the hash only places a line in the
                 * set: the output keeps the lines' order) */
                uint64_t h = 14695981039346656037ULL ^ n;
                size_t i = 0;
                for (; i + 8 <= n; i += 8) {
                        uint64_t w;
                        memcpy(&w, l + i, 8);
                        h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
                        h ^= h >> 29;
                }
                for (; i < n; i++)
                        h = (h ^ (unsigned char)l[i]) * 1099511628211ULL;
                h ^= h >> 32;
                size_t k = (size_t)h & (size - 1);
                bool seen = false;
                for (; set[k].p; k = (k + 1) & (size - 1))
                        if (set[k].n == n && memcmp(set[k].p, l, n) == 0) {
                                seen = true;
                                break;
                        }
                if (seen)
                        continue;
                set[k] = (span){l, n};
                if (!first)
                        strbuf_append(&out, "\n");
                first = false;
                strbuf_appendn(&out, l, n);
        }
        free(set);
        return strbuf_steal(&out);
}

/* A cpulist file (Documentation/ABI/stable/sysfs-devices-system-cpu):
 * "0-3,8"; NULL when absent or not one. */
static char *read_cpulist(const ht_context *c, ht_facts *f, const char *path) {
        char *s = NULL;
        if (ht_facts_read_line(c, f, path, false, &s) < 0)
                return NULL;
        if (!*s || strspn(s, "0123456789,-") != strlen(s) || !isdigit((unsigned char)s[0])) {
                _cleanup_free_ char *d = ht_display_path(c, path);
                ht_facts_warn(f, "%s: \"%s\" is not a CPU list, ignored", d, s);
                free(s);
                return NULL;
        }
        return s;
}

void ht_facts_collect_cpu(const ht_context *c, ht_facts *f) {
        char *buf;
        size_t len;
        if (ht_facts_read(c, f, "/proc/cpuinfo", true, &buf, &len) == 0) {
                _cleanup_free_ char *d = ht_display_path(c, "/proc/cpuinfo");
                ht_facts_parse_cpuinfo(f, buf, len, d);
                /* the text before a NUL, which the parse warned about:
                 * its distinct lines are made by the JSON's cpu group */
                f->cpu_cpuinfo_text = buf;
        }
        f->cpu_online = read_cpulist(c, f, "/sys/devices/system/cpu/online");
        f->cpu_present = read_cpulist(c, f, "/sys/devices/system/cpu/present");

        /* A kernel without CONFIG_NUMA has no node directory at all; that
         * is one node, but we cannot tell it from an unreadable /sys. */
        _cleanup_strv_free_ char **nodes = NULL;
        if (ht_list_dir(c, "/sys/devices/system/node", NULL, &nodes) < 0)
                return;
        unsigned n = 0;
        for (size_t i = 0; nodes[i]; i++)
                if (startswith(nodes[i], "node") && nodes[i][4] &&
                    strspn(nodes[i] + 4, "0123456789") == strlen(nodes[i] + 4))
                        n++;
        f->numa_nodes = n;
}

const char *ht_hypervisor_from_dmi(const char *sys_vendor, const char *product_name,
                                   const char *bios_vendor) {
        /* The vendor strings systemd-detect-virt knows (src/basic/virt.c),
         * cloud names first: their hypervisors are KVM or Xen underneath
         * but tuning advice differs. */
        static const struct {
                const char *match, *name;
        } vendors[] = {
                {"Amazon EC2", "amazon"},
                {"Alibaba Cloud", "alibaba"},
                {"Google", "google"},
                {"KVM", "kvm"},
                {"OpenStack", "kvm"},
                {"QEMU", "kvm"},
                {"VMware", "vmware"},
                {"VMW", "vmware"},
                {"innotek GmbH", "oracle"},
                {"VirtualBox", "oracle"},
                {"Oracle Corporation", "oracle"},
                {"Xen", "xen"},
                {"Bochs", "bochs"},
                {"Parallels", "parallels"},
                {"BHYVE", "bhyve"},
                {"Apple Virtualization", "apple"},
        };
        const char *const fields[] = {sys_vendor, product_name, bios_vendor};
        for (size_t k = 0; k < ELEMENTSOF(fields); k++) {
                if (!fields[k])
                        continue;
                for (size_t i = 0; i < ELEMENTSOF(vendors); i++)
                        if (startswith(fields[k], vendors[i].match))
                                return vendors[i].name;
        }
        /* Microsoft sells hardware too: only its "Virtual Machine" is Hyper-V. */
        if (streq_ptr(sys_vendor, "Microsoft Corporation") &&
            streq_ptr(product_name, "Virtual Machine"))
                return "hyperv";
        return NULL;
}

/* The SMBIOS BIOS Characteristics Extension Byte 2's bit 4, "the system
 * is a virtual machine" (DSP0134 3.4.0, 2.1.2.2), from the type 0 table
 * the kernel exposes (root only): 1 set, 0 unset, -1 unknown. Byte 1 is
 * the table's length, 0x12 plus the extension bytes: byte 2 is at 0x13.
 * As systemd's detect_vm_smbios() (src/basic/virt.c) reads it. */
static int smbios_vm_bit(const ht_context *c) {
        _cleanup_free_ char *raw = NULL;
        size_t len = 0;
        if (ht_read_file(c, "/sys/firmware/dmi/entries/0-0/raw", 4096, &raw, &len) < 0 || len < 20 ||
            (unsigned char)raw[1] < 20)
                return -1;
        return ((unsigned char)raw[0x13] >> 4) & 1;
}

/* An EC2 instance type's name says bare metal: "c6g.metal",
 * "m7i.metal-24xl" (systemd's detect_vm_dmi(): ".metal" at the end or
 * before a '-') */
static bool ec2_metal(const char *product) {
        const char *m = product ? strstr(product, ".metal") : NULL;
        return m && (m[6] == '\0' || m[6] == '-');
}

static char *read_optional_line(const ht_context *c, ht_facts *f, const char *path) {
        char *s = NULL;
        if (ht_facts_read_line(c, f, path, false, &s) < 0)
                return NULL;
        strstrip(s);
        return s;
}

void ht_facts_collect_virt(const ht_context *c, ht_facts *f) {
        _cleanup_free_ char *hv_type = read_optional_line(c, f, "/sys/hypervisor/type");
        f->xen_guest_type = read_optional_line(c, f, "/sys/hypervisor/guest_type");
        _cleanup_free_ char *caps = NULL;
        bool have_proc_xen = ht_facts_read(c, f, "/proc/xen/capabilities", false, &caps, NULL) == 0;
        f->xen_dom0 = have_proc_xen && strstr(caps, "control_d");

        bool xen = streq_ptr(hv_type, "xen") || have_proc_xen;
        if (xen) {
                if (f->xen_dom0)
                        f->xen_type = xstrdup("dom0");
                else if (f->xen_guest_type) {
                        f->xen_type = xstrdup(f->xen_guest_type);
                        for (char *p = f->xen_type; *p; p++)
                                *p = (char)tolower((unsigned char)*p);
                } else
                        f->xen_type = xstrdup("domU");
        }
        /* Old-style Xen kernels (RHEL 5 "el5xen", SLES "-xen") and PV
         * guests of pvops kernels: both lack usable HugePages. HVM guests
         * run ordinary kernels. */
        bool pv = f->xen_dom0 || streq_ptr(f->xen_guest_type, "PV") ||
                  (have_proc_xen && !f->xen_guest_type);
        f->kernel_xen = (f->kernel_release && strstr(f->kernel_release, "xen")) || (xen && pv);

        _cleanup_free_ char *sys_vendor = read_optional_line(c, f, "/sys/class/dmi/id/sys_vendor");
        _cleanup_free_ char *product = read_optional_line(c, f, "/sys/class/dmi/id/product_name");
        _cleanup_free_ char *bios = read_optional_line(c, f, "/sys/class/dmi/id/bios_vendor");
        const char *dmi = ht_hypervisor_from_dmi(sys_vendor, product, bios);
        bool flag = strv_contains(f->cpu_flags, "hypervisor");

        /* The CPU's hypervisor flag decides guest or not; DMI only names
         * the hypervisor, since vendors like Oracle or Amazon sell bare
         * metal under the same strings their clouds use. Xen PV guests
         * hide the flag, /sys/hypervisor tells them. Only x86 has the
         * flag (CPUID leaf 1, ECX bit 31): arm64's "Features" and s390x's
         * "features" never list it, so their missing flag says nothing
         * and DMI names the guest. Amazon's DMI strings are the same on
         * its bare-metal instances (a1.metal, c6g.metal, m7g.metal on
         * arm64), where SMBIOS's "virtual machine" bit, or else the
         * instance type's name, tells them apart, as systemd's
         * detect_vm_dmi() does; elsewhere the bit set with no vendor
         * known is a guest of some hypervisor (systemd's vm-other). */
        if (xen)
                f->hypervisor = xstrdup("xen");
        else if (f->cpu_flags && f->cpu_flags_x86 && !flag)
                f->hypervisor = xstrdup("none");
        else if (streq_ptr(dmi, "amazon") && !flag) {
                int vm = smbios_vm_bit(c);
                f->hypervisor = xstrdup(vm == 0 || (vm < 0 && ec2_metal(product)) ? "none" : "amazon");
        } else if (dmi)
                f->hypervisor = xstrdup(dmi);
        else if (flag || (!f->cpu_flags_x86 && smbios_vm_bit(c) == 1))
                f->hypervisor = xstrdup("other");
}
