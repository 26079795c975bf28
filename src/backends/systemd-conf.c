/* What the systemd backend and the limits and service backends share
 * about systemd's configuration: where its conf.d drop-ins are, and what
 * a service gets when its unit sets no Limit*= (DefaultLimitX= of
 * system.conf, systemd's compiled defaults, PID 1's /proc/1/limits). In
 * a file of its own so that no backend calls another's (docs/DESIGN.md,
 * "Rooms"). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend-common.h"
#include "edit-systemd-conf.h"
#include "edit-unit.h"
#include "systemd-conf.h"
#include "util.h"

/* The conf.d directories of systemd 252 (CONF_PATHS: /etc, /run,
 * /usr/local/lib, /usr/lib; /lib on split-usr builds, Debian's man page
 * lists it), highest priority first. */
const char *const ht_sdconf_dirs[] = {
        "/etc/systemd", "/run/systemd", "/usr/local/lib/systemd", "/usr/lib/systemd", "/lib/systemd", NULL,
};


static int found_cmp(const void *a, const void *b) {
        return strcmp(((const ht_sdconf_found *)a)->name, ((const ht_sdconf_found *)b)->name);
}

void ht_sdconf_found_free(ht_sdconf_found *l, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(l[i].name);
                free(l[i].path);
                free(l[i].text);
        }
        free(l);
}

/* Every drop-in systemd reads for NAME.conf, sorted by file name; one
 * masked by a link to /dev/null, or hidden by a file of the same name in
 * an earlier directory, is left out. */
int ht_sdconf_collect_dropins(const ht_context *c, const char *daemon, ht_sdconf_found **ret, size_t *ret_n) {
        ht_sdconf_found *l = NULL;
        size_t n = 0;
        _cleanup_strv_free_ char **seen = NULL;
        for (size_t d = 0; ht_sdconf_dirs[d]; d++) {
                _cleanup_free_ char *dir = xasprintf("%s/%s.conf.d", ht_sdconf_dirs[d], daemon);
                _cleanup_strv_free_ char **names = NULL;
                ht_list_dir(c, dir, ".conf", &names);
                for (size_t i = 0; names && names[i]; i++) {
                        /* conf_files_list(): a hidden file is not one */
                        if (names[i][0] == '.' || strv_contains(seen, names[i]))
                                continue;
                        strv_push(&seen, names[i]);
                        _cleanup_free_ char *path = xasprintf("%s/%s", dir, names[i]);
                        _cleanup_free_ char *target = NULL;
                        struct stat st;
                        if (ht_lstat(c, path, &st) == 0 && S_ISLNK(st.st_mode) &&
                            ht_resolve_host_link(c, path, &target) == 0 && streq(target, "/dev/null"))
                                continue;
                        char *text = NULL;
                        size_t len = 0;
                        int r = ht_read_optional(c, path, &text, &len);
                        if (r < 0) {
                                ht_sdconf_found_free(l, n);
                                return r;
                        }
                        if (!text)
                                continue;
                        l = xrealloc(l, (n + 1) * sizeof(*l));
                        l[n++] = (ht_sdconf_found){.name = xstrdup(names[i]), .path = TAKE_PTR(path), .text = text, .len = len};
                }
        }
        if (n)
                qsort(l, n, sizeof(*l), found_cmp);
        *ret = l;
        *ret_n = n;
        return 0;
}

/* The main file: systemd 252 reads /etc/systemd/NAME.conf; newer ones the
 * first of it, /run, /usr/local/lib and /usr/lib (where distributions
 * that keep /etc empty ship it). A 252 host has nothing but /etc's. */
int ht_sdconf_read_main(const ht_context *c, const char *daemon, ht_sdconf_found *ret) {
        for (size_t d = 0; ht_sdconf_dirs[d]; d++) {
                _cleanup_free_ char *path = xasprintf("%s/%s.conf", ht_sdconf_dirs[d], daemon);
                char *text = NULL;
                size_t len = 0;
                int r = ht_read_optional(c, path, &text, &len);
                if (r < 0)
                        return r;
                if (text) {
                        *ret = (ht_sdconf_found){.name = xasprintf("%s.conf", daemon), .path = TAKE_PTR(path),
                                           .text = text, .len = len};
                        return 1;
                }
        }
        return 0;
}

/* The version of the systemd the root has, from the name of its shared
 * library (libsystemd-shared-252.so; Debian, Ubuntu: /usr/lib/<triplet>/
 * systemd or /lib/systemd; Fedora, RHEL, SUSE: /usr/lib/systemd or
 * /usr/lib64/systemd); 0 unknown. */
static unsigned systemd_version(const ht_context *c) {
        static const char *const dirs[] = {
                "/usr/lib/systemd", "/lib/systemd", "/usr/lib64/systemd", "/usr/lib/x86_64-linux-gnu/systemd",
                "/usr/lib/aarch64-linux-gnu/systemd", "/usr/lib/powerpc64le-linux-gnu/systemd",
                "/usr/lib/s390x-linux-gnu/systemd", NULL,
        };
        for (size_t d = 0; dirs[d]; d++) {
                _cleanup_strv_free_ char **names = NULL;
                ht_list_dir(c, dirs[d], ".so", &names);
                for (size_t i = 0; names && names[i]; i++) {
                        if (!startswith(names[i], "libsystemd-shared-"))
                                continue;
                        const char *p = names[i] + strlen("libsystemd-shared-");
                        /* "252.so", Fedora's "256.11-1.fc41.so" */
                        size_t digits = strspn(p, "0123456789");
                        if (digits == 0 || digits > 4)
                                continue;
                        _cleanup_free_ char *num = xstrndup(p, digits);
                        uint64_t v;
                        if (parse_u64(num, &v) == 0 && v > 0)
                                return (unsigned)v;
                }
        }
        return 0;
}

/* The row of /proc/PID/limits for directive, and its multiplier. */
static const char *limits_row(const char *directive) {
        static const struct {
                const char *directive, *row;
        } rows[] = {
                {"LimitCPU", "Max cpu time"},          {"LimitFSIZE", "Max file size"},
                {"LimitDATA", "Max data size"},        {"LimitSTACK", "Max stack size"},
                {"LimitCORE", "Max core file size"},   {"LimitRSS", "Max resident set"},
                {"LimitNPROC", "Max processes"},       {"LimitNOFILE", "Max open files"},
                {"LimitMEMLOCK", "Max locked memory"}, {"LimitAS", "Max address space"},
                {"LimitLOCKS", "Max file locks"},      {"LimitSIGPENDING", "Max pending signals"},
                {"LimitMSGQUEUE", "Max msgqueue size"}, {"LimitNICE", "Max nice priority"},
                {"LimitRTPRIO", "Max realtime priority"}, {"LimitRTTIME", "Max realtime timeout"},
        };
        for (size_t i = 0; i < ELEMENTSOF(rows); i++)
                if (streq(rows[i].directive, directive))
                        return rows[i].row;
        return NULL;
}

int ht_proc_limits_parse(const char *text, const char *directive, uint64_t *ret_soft, uint64_t *ret_hard) {
        const char *row = limits_row(directive);
        if (!row || !text)
                return -EINVAL;
        for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
                if (!startswith(l, row) || (l[strlen(row)] != ' ' && l[strlen(row)] != '\t'))
                        continue;
                const char *p = l + strlen(row);
                uint64_t v[2];
                for (int k = 0; k < 2; k++) {
                        while (*p == ' ' || *p == '\t')
                                p++;
                        size_t n = strcspn(p, " \t\n");
                        _cleanup_free_ char *w = xstrndup(p, n);
                        if (streq(w, "unlimited"))
                                v[k] = HT_LIMIT_INFINITY;
                        else if (parse_u64(w, &v[k]) < 0)
                                return -EBADMSG;
                        p += n;
                }
                *ret_soft = v[0];
                *ret_hard = v[1];
                return 0;
        }
        return -ENODATA;
}

/* The running kernel's release is at least major.minor. */
static bool kernel_at_least(const ht_facts *f, unsigned major, unsigned minor) {
        unsigned a = 0, b = 0;
        if (!f || !f->kernel_release || sscanf(f->kernel_release, "%u.%u", &a, &b) != 2)
                return false;
        return a > major || (a == major && b >= minor);
}

int ht_systemd_default_limit(const ht_context *c, const ht_facts *f, const char *directive, uint64_t *ret_soft,
                             uint64_t *ret_hard, char **ret_from) {
        if (!limits_row(directive))
                return -EINVAL;
        /* DefaultLimitX= of system.conf and its drop-ins, in systemd's
         * order (systemd-system.conf(5): "DefaultLimitCPU=, ... These
         * settings control various default resource limits for units") */
        _cleanup_free_ char *key = xasprintf("Default%s", directive);
        ht_sdconf_found main_file = {0};
        ht_sdconf_found *drop = NULL;
        size_t nd = 0;
        int r = ht_sdconf_read_main(c, "system", &main_file);
        if (r >= 0)
                r = ht_sdconf_collect_dropins(c, "system", &drop, &nd);
        if (r < 0) {
                ht_sdconf_found_free(drop, nd);
                free(main_file.name);
                free(main_file.path);
                free(main_file.text);
                return r;
        }
        size_t n_all = nd + 1;
        ht_sdconf_file *all = xcalloc(n_all, sizeof(*all));
        size_t k = 0;
        if (main_file.text)
                all[k++] = (ht_sdconf_file){.path = main_file.path, .text = main_file.text, .len = main_file.len};
        for (size_t i = 0; i < nd; i++)
                all[k++] = (ht_sdconf_file){.path = drop[i].path, .text = drop[i].text, .len = drop[i].len};
        /* the last value systemd takes: one it refuses ("Failed to parse
         * resource value, ignoring", config_parse_rlimit, as for units)
         * leaves the one before in force */
        _cleanup_free_ char *v = NULL;
        int at = -1;
        for (size_t i = k; i > 0 && at < 0; i--)
                if (ht_unit_limit_value(all[i - 1].text, all[i - 1].len, "Manager", key, directive, &v) > 0)
                        at = (int)(i - 1);
        int found = 0;
        if (at >= 0 && ht_unit_parse_limit(directive, v, ret_soft, ret_hard) == 0) {
                _cleanup_free_ char *shown = ht_display_path(c, all[at].path);
                *ret_from = xasprintf("%s=%s in %s", key, v, shown);
                found = 1;
        }
        free(all);
        ht_sdconf_found_free(drop, nd);
        free(main_file.name);
        free(main_file.path);
        free(main_file.text);
        if (found)
                return 0;

        unsigned ver = systemd_version(c);
        if (streq(directive, "LimitNOFILE")) {
                /* systemd 240 and later give services 1024 soft, 512K hard
                 * (NEWS for 240: the hard limit "is now bumped to 512K",
                 * the soft one stays 1024 for select(); systemd-system.conf
                 * (5): "DefaultLimitNOFILE= defaults to 1024:524288");
                 * before, the kernel's 1024:4096 (INR_OPEN_CUR, INR_OPEN_MAX
                 * in include/uapi/linux/fs.h) passed on. Unknown: 240 or
                 * later, every supported distribution's. */
                bool new = ver == 0 || ver >= 240;
                *ret_soft = 1024;
                *ret_hard = new ? 524288 : 4096;
                *ret_from = ver ? xasprintf("systemd %u's default for services (%s)", ver,
                                            new ? "DefaultLimitNOFILE=1024:524288 since 240" : "the kernel's 1024:4096")
                                : xstrdup("systemd's default for services (DefaultLimitNOFILE=1024:524288 since 240)");
                return 0;
        }
        if (streq(directive, "LimitMEMLOCK")) {
                /* 8M: the kernel's default since 5.16 (MLOCK_LIMIT,
                 * include/uapi/linux/resource.h), which systemd also gives
                 * services on older kernels in its later versions
                 * (src/basic/def.h, DEFAULT_RLIMIT_MEMLOCK: "Since kernel
                 * 5.16 the kernel default limit was raised to 8M. Let's
                 * adjust things on old kernels too"); before 5.16 the
                 * kernel's 64K, the smaller one taken when both may be */
                bool big = kernel_at_least(f, 5, 16);
                *ret_soft = *ret_hard = big ? UINT64_C(8) << 20 : UINT64_C(64) << 10;
                *ret_from = xstrdup(big ? "the kernel's default since 5.16, 8M" : "the kernel's default before 5.16, 64K");
                return 0;
        }
        /* The rest, LimitNPROC among them, systemd leaves as the kernel
         * started PID 1 and passes on (for NPROC the kernel's default,
         * threads-max / 2: kernel/fork.c, set_max_threads and
         * fork_init); PID 1 raises only its own NOFILE and MEMLOCK, which
         * are above. */
        _cleanup_free_ char *lim = NULL;
        r = ht_read_file(c, "/proc/1/limits", 1 << 16, &lim, NULL);
        if (r < 0)
                return r;
        r = ht_proc_limits_parse(lim, directive, ret_soft, ret_hard);
        if (r < 0)
                return r;
        *ret_from = xstrdup(streq(directive, "LimitNPROC") ? "the kernel's default, as PID 1 has it (/proc/1/limits)"
                                                            : "as PID 1 has it (/proc/1/limits)");
        return 0;
}
