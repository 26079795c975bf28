/* Mount facts through libmount: hugetlbfs mounts and their page sizes,
 * whether /sys and /proc/sys are read-only (containers), whether /boot is
 * a mount of its own, which cgroup version holds the memory controller. /proc/self/mountinfo is read through the context
 * and handed to libmount as a memory stream, so fixtures work. */
#include "config.h"

#include <errno.h>
#include <libmount.h>
#include <stdio.h>

#include "facts-internal.h"
#include "facts.h"
#include "util.h"

/* The mount that holds path: the last (topmost) one whose target is path
 * or a parent directory of it. */
static struct libmnt_fs *mount_of(struct libmnt_table *tb, const char *path) {
        struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
        struct libmnt_fs *fs, *best = NULL;
        size_t best_len = 0;
        if (!it)
                return NULL;
        while (mnt_table_next_fs(tb, it, &fs) == 0) {
                const char *t = mnt_fs_get_target(fs);
                if (!t)
                        continue;
                size_t n = strlen(t);
                while (n > 1 && t[n - 1] == '/')
                        n--;
                bool covers = streq(t, "/") ||
                              (strncmp(path, t, n) == 0 && (path[n] == 0 || path[n] == '/'));
                if (covers && n >= best_len) {
                        best = fs;
                        best_len = n;
                }
        }
        mnt_free_iter(it);
        return best;
}

static int count_parse_error(struct libmnt_table *tb, const char *filename, int line) {
        unsigned *bad = mnt_table_get_userdata(tb);
        (*bad)++;
        return 1; /* recoverable: skip the line, go on */
}

static ht_tristate readonly_of(struct libmnt_table *tb, const char *path) {
        struct libmnt_fs *fs = mount_of(tb, path);
        if (!fs)
                return HT_UNKNOWN;
        /* the per-mount flag is what containers set; a read-only
         * superblock makes every mount of it read-only too */
        const char *vfs = mnt_fs_get_vfs_options(fs), *sb = mnt_fs_get_fs_options(fs);
        bool ro = (vfs && mnt_optstr_get_option(vfs, "ro", NULL, NULL) == 0) ||
                  (sb && mnt_optstr_get_option(sb, "ro", NULL, NULL) == 0);
        return ro ? HT_YES : HT_NO;
}

static void parse_table(ht_facts *f, const char *buf, size_t len, const char *where,
                        bool mountinfo) {
        ht_facts_check_nul(f, buf, len, where);
        size_t n = strlen(buf);
        if (n == 0) {
                ht_facts_warn(f, "%s: empty, mount facts unknown", where);
                return;
        }
        struct libmnt_table *tb = mnt_new_table();
        if (!tb)
                return;
        /* libmount skips lines it cannot parse; count them so a garbled
         * file says so. */
        unsigned bad = 0;
        mnt_table_set_userdata(tb, &bad);
        mnt_table_set_parser_errcb(tb, count_parse_error);
        FILE *stream = fmemopen((void *)buf, n, "r");
        if (!stream) {
                ht_facts_warn(f, "%s: cannot open as a stream: %s", where, strerror(errno));
                mnt_unref_table(tb);
                return;
        }
        /* libmount resolves the name it is given (realpath: a readlink per
         * component) only to learn which task's mount table this is, which
         * hosttune never asks; "/" resolves with no system call. Messages
         * name the file with `where`. */
        int r = mnt_table_parse_stream(tb, stream, "/");
        fclose(stream);
        /* libmount guesses the format from the first line: a table without
         * mount roots was not mountinfo. */
        struct libmnt_fs *first = NULL;
        if (r < 0 || mnt_table_first_fs(tb, &first) != 0 || (mountinfo && !mnt_fs_get_root(first)) ||
            !mnt_fs_get_target(first) || !mnt_fs_get_fstype(first)) {
                ht_facts_warn(f, "%s: not in %s format, mount facts unknown", where,
                              mountinfo ? "mountinfo" : "/proc/mounts");
                mnt_unref_table(tb);
                return;
        }
        if (bad)
                ht_facts_warn(f, "%s: %u lines libmount could not parse were skipped", where, bad);

        struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
        struct libmnt_fs *fs;
        bool memory_v1 = false, any_v1 = false, v2 = false;
        while (it && mnt_table_next_fs(tb, it, &fs) == 0) {
                const char *type = mnt_fs_get_fstype(fs), *target = mnt_fs_get_target(fs);
                if (!type || !target)
                        continue;
                if (streq(target, "/boot"))
                        f->boot_separate = true;
                if (streq(type, "cgroup2"))
                        v2 = true;
                else if (streq(type, "cgroup")) {
                        /* v1 names its controllers in the superblock
                         * options ("rw,memory"); hybrid systems mount
                         * cgroup2 beside them, with no controllers */
                        const char *o = mnt_fs_get_fs_options(fs);
                        any_v1 = true;
                        if (o && mnt_optstr_get_option(o, "memory", NULL, NULL) == 0)
                                memory_v1 = true;
                }
                if (!streq(type, "hugetlbfs"))
                        continue;
                ht_hugetlbfs_mount m = {
                        .fstype = xstrdup(type),
                        .target = xstrdup(target),
                        .pagesize_kb = f->hugepage_default_kb,
                };
                const char *opts = mnt_fs_get_fs_options(fs);
                char *val = NULL;
                size_t vlen = 0;
                if (opts && mnt_optstr_get_option(opts, "pagesize", &val, &vlen) == 0) {
                        /* "pagesize" without "=value" gives no value at all */
                        _cleanup_free_ char *v = val ? xstrndup(val, vlen) : xstrdup("");
                        uint64_t bytes;
                        if (parse_size_bytes(v, &bytes) == 0 && bytes >= 1024)
                                m.pagesize_kb = bytes / 1024;
                        else
                                ht_facts_warn(f, "%s: hugetlbfs on %s has a bad pagesize=%s", where,
                                              target, v);
                }
                f->hugetlbfs = xrealloc(f->hugetlbfs, (f->n_hugetlbfs + 1) * sizeof(ht_hugetlbfs_mount));
                f->hugetlbfs[f->n_hugetlbfs++] = m;
        }
        mnt_free_iter(it);
        f->cgroup_version = memory_v1 ? 1 : v2 ? 2 : any_v1 ? 1 : 0;
        f->sys_readonly = readonly_of(tb, "/sys");
        f->proc_sys_readonly = readonly_of(tb, "/proc/sys");
        /* looked up only where it can differ: a writable net/ below a
         * read-only /proc/sys (a read-only one below a writable /proc/sys
         * is no container's) */
        f->proc_sys_net_readonly = f->proc_sys_readonly == HT_YES ? readonly_of(tb, "/proc/sys/net")
                                                                  : f->proc_sys_readonly;
        struct libmnt_fs *root = mount_of(tb, "/");
        if (root && mnt_fs_get_fstype(root) && !has_control_chars(mnt_fs_get_fstype(root)))
                f->root_fstype = xstrdup(mnt_fs_get_fstype(root));
        mnt_unref_table(tb);
}

void ht_facts_parse_mountinfo(ht_facts *f, const char *buf, size_t len, const char *where) {
        parse_table(f, buf, len, where, true);
}

void ht_facts_collect_mounts(const ht_context *c, ht_facts *f) {
        char *buf;
        size_t len;
        /* Kernels before 2.6.26 (RHEL 5) have no mountinfo; /proc/mounts
         * says the same for what we need. */
        const char *path = "/proc/self/mountinfo";
        bool mountinfo = true;
        int r = ht_facts_read(c, f, path, false, &buf, &len);
        if (r == -ENOENT) {
                path = "/proc/mounts";
                mountinfo = false;
                r = ht_facts_read(c, f, path, false, &buf, &len);
                if (r == -ENOENT) {
                        _cleanup_free_ char *d = ht_display_path(c, "/proc/self/mountinfo");
                        ht_facts_warn(f, "%s (and /proc/mounts): missing, mount facts unknown", d);
                }
        }
        if (r < 0)
                return;
        _cleanup_free_ char *d = ht_display_path(c, path);
        parse_table(f, buf, len, d, mountinfo);
        free(buf);
}
