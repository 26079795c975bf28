#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/magic.h>
#if __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#endif

#include "context.h"
#include "util.h"

#define HT_MAX_SYMLINKS 40
#define HT_DEFAULT_STATE_DIR "/var/lib/hosttune"
#define HT_DEFAULT_LOCK "/run/hosttune.lock"

static char *join_root(const char *root, const char *path) {
        if (streq(root, "/"))
                return xstrdup(path);
        size_t n = strlen(root);
        while (n > 1 && root[n - 1] == '/')
                n--;
        return xasprintf("%.*s%s", (int)n, root, path);
}

int ht_context_new(const char *root, ht_context **ret) {
        if (!root)
                root = "/";
        int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        ht_context *c = xcalloc(1, sizeof(*c));
        c->root = xstrdup(root);
        c->root_fd = fd;
        c->offline_root = !streq(root, "/");
        /* the journal wants absolute paths, whatever the cwd later: the
         * directory opened names itself in one readlink (realpath walks
         * the name again, a readlink a component and a getcwd when it is
         * relative); without /proc, realpath */
        char *abs = NULL;
        if (!streq(root, "/")) {
                char proc[64], buf[PATH_MAX];
                snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
                ssize_t n = readlink(proc, buf, sizeof(buf) - 1);
                if (n > 0 && buf[0] == '/') {
                        buf[n] = 0;
                        if (!endswith(buf, " (deleted)"))
                                abs = xstrdup(buf);
                }
        }
        if (!abs)
                abs = realpath(root, NULL);
        c->state_dir = join_root(abs ? abs : root, HT_DEFAULT_STATE_DIR);
        c->lock_path = join_root(abs ? abs : root, HT_DEFAULT_LOCK);
        c->state_dir_host = xstrdup(HT_DEFAULT_STATE_DIR);
        c->lock_host = xstrdup(HT_DEFAULT_LOCK);
        free(abs);
        c->color = HT_COLOR_AUTO;
        *ret = c;
        return 0;
}

/* ---- the read cache ---- */

/* The most a plan keeps: far above what it reads (about 60 KB on the
 * example host), and a bound on a host with thousands of devices. */
#define HT_READ_CACHE_MAX (4u << 20)

typedef struct cache_entry {
        struct cache_entry *next;
        size_t hash;
        char *data;     /* NUL-terminated copy, after the path in this block */
        size_t len;
        /* the parse of data (ht_context_keep_parsed), one reference */
        void *parsed;
        const ht_parsed_kind *parsed_kind;
        char path[];
} cache_entry;

struct ht_read_cache {
        cache_entry **buckets;
        size_t n_buckets;  /* a power of two */
        size_t n, bytes;
};

static size_t path_hash(const char *s) {
        size_t h = 14695981039346656037u; /* FNV-1a */
        for (; *s; s++)
                h = (h ^ (unsigned char)*s) * 1099511628211u;
        return h;
}

static void cache_clear(struct ht_read_cache *k) {
        for (size_t i = 0; i < k->n_buckets; i++)
                for (cache_entry *e = k->buckets[i], *next; e; e = next) {
                        next = e->next;
                        if (e->parsed)
                                e->parsed_kind->unref(e->parsed);
                        free(e);
                }
        memset(k->buckets, 0, k->n_buckets * sizeof(*k->buckets));
        k->n = k->bytes = 0;
}

void ht_context_cache_begin(const ht_context *c) {
        ht_context *memo = (ht_context *)c; /* its memo fields only */
        if (memo->memo_cache)
                return;
        memo->memo_cache = xcalloc(1, sizeof(*memo->memo_cache));
        memo->memo_cache->n_buckets = 64;
        memo->memo_cache->buckets = xcalloc(64, sizeof(cache_entry *));
}

/* The /proc/sys fd and what the root's tree was found to be go with the
 * cache: a write or a program run may have changed what the root's
 * /proc/sys or /run/systemd/system names (a fixture's, an image's, a
 * booted systemd's), and the next look goes through the root afresh. */
static void proc_sys_drop(const ht_context *c) {
        ht_context *memo = (ht_context *)c; /* its memo fields only */
        if (memo->memo_proc_sys_fd > 0)
                close(memo->memo_proc_sys_fd - 1);
        memo->memo_proc_sys_fd = 0;
        memo->memo_sd_booted = 0;
        memo->memo_journal_absent = false;
}

void ht_context_cache_drop(const ht_context *c) {
        if (c && c->memo_cache) {
                cache_clear(c->memo_cache);
                proc_sys_drop(c);
        }
}

void ht_context_cache_end(const ht_context *c) {
        ht_context *memo = (ht_context *)c;
        if (!memo || !memo->memo_cache)
                return;
        cache_clear(memo->memo_cache);
        proc_sys_drop(c);
        free(memo->memo_cache->buckets);
        free(memo->memo_cache);
        memo->memo_cache = NULL;
}

static const cache_entry *cache_find(const ht_context *c, const char *path, size_t hash) {
        struct ht_read_cache *k = c->memo_cache;
        if (!k)
                return NULL;
        for (const cache_entry *e = k->buckets[hash & (k->n_buckets - 1)]; e; e = e->next)
                if (e->hash == hash && streq(e->path, path))
                        return e;
        return NULL;
}

/* The path's hash when a cache is kept (0 otherwise: nothing looks). */
static size_t cache_hash(const ht_context *c, const char *path) {
        return c->memo_cache ? path_hash(path) : 0;
}

static void cache_put(const ht_context *c, const char *path, size_t hash, const char *data, size_t len) {
        struct ht_read_cache *k = c->memo_cache;
        if (!k || len > HT_READ_CACHE_MAX - k->bytes)
                return;
        if (k->n >= k->n_buckets) {
                /* rehash at one entry a bucket: lookups stay constant
                 * with thousands of devices' files */
                size_t nb = 2 * k->n_buckets;
                cache_entry **b = xcalloc(nb, sizeof(*b));
                for (size_t i = 0; i < k->n_buckets; i++)
                        for (cache_entry *e = k->buckets[i], *next; e; e = next) {
                                next = e->next;
                                size_t h = e->hash & (nb - 1);
                                e->next = b[h];
                                b[h] = e;
                        }
                free(k->buckets);
                k->buckets = b;
                k->n_buckets = nb;
        }
        /* one block: the entry, its path, the copy */
        size_t pl = strlen(path);
        cache_entry *e = xmalloc(sizeof(*e) + pl + 1 + len + 1);
        memcpy(e->path, path, pl + 1);
        e->data = e->path + pl + 1;
        memcpy(e->data, data, len + 1);
        e->len = len;
        e->parsed = NULL;
        e->parsed_kind = NULL;
        e->hash = hash;
        e->next = k->buckets[hash & (k->n_buckets - 1)];
        k->buckets[hash & (k->n_buckets - 1)] = e;
        k->n++;
        k->bytes += len;
}

/* The entry of path when the cache holds it and (text non-NULL) its
 * bytes are text's. */
static cache_entry *cache_find_text(const ht_context *c, const char *path, const char *text, size_t len) {
        if (!c->memo_cache)
                return NULL;
        cache_entry *e = (cache_entry *)cache_find(c, path, path_hash(path));
        if (!e || (text && (e->len != len || memcmp(e->data, text, len) != 0)))
                return NULL;
        return e;
}

void *ht_context_parsed(const ht_context *c, const char *path, const ht_parsed_kind *kind, const char *text,
                        size_t len) {
        const cache_entry *e = cache_find_text(c, path, text, len);
        return e && e->parsed_kind == kind ? e->parsed : NULL;
}

void ht_context_keep_parsed(const ht_context *c, const char *path, const ht_parsed_kind *kind, void *obj,
                            const char *text, size_t len) {
        cache_entry *e = cache_find_text(c, path, text, len);
        if (!e) {
                kind->unref(obj); /* not kept: the reference given is dropped */
                return;
        }
        if (e->parsed)
                e->parsed_kind->unref(e->parsed);
        e->parsed = obj;
        e->parsed_kind = kind;
}

/* A copy of what the cache holds, as ht_read_file gives it. */
static int cache_serve(const cache_entry *e, size_t max, char **ret, size_t *ret_len) {
        if (e->len > max)
                return -EFBIG;
        char *s = xmalloc(e->len + 1);
        memcpy(s, e->data, e->len + 1);
        *ret = s;
        if (ret_len)
                *ret_len = e->len;
        return 0;
}

void ht_context_free(ht_context *c) {
        if (!c)
                return;
        ht_context_cache_end(c);
        if (c->root_fd >= 0)
                close(c->root_fd);
        free(c->root);
        free(c->state_dir);
        free(c->lock_path);
        free(c->state_dir_host);
        free(c->lock_host);
        free(c->memo_image_why);
        strv_free(c->profile_path);
        strv_free(c->rules_path);
        strv_free(c->tuned_path);
        free(c->facts_file);
        free(c);
}

void ht_context_set_state_dir(ht_context *c, const char *dir) {
        free(c->state_dir);
        c->state_dir = xstrdup(dir);
        free(c->state_dir_host);
        c->state_dir_host = NULL;
        if (c->lock_in_state_dir)
                ht_context_lock_in_state_dir(c);
}

void ht_context_lock_in_state_dir(ht_context *c) {
        free(c->lock_path);
        c->lock_path = xasprintf("%s/lock", c->state_dir);
        free(c->lock_host);
        c->lock_host = c->state_dir_host ? xasprintf("%s/lock", c->state_dir_host) : NULL;
        c->lock_in_state_dir = true;
}

/* The file system type of name under the root (not following a link
 * there), or 0. */
static long fs_type_at(int root_fd, const char *name) {
        int fd = openat(root_fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return 0;
        struct statfs sfs;
        long t = fstatfs(fd, &sfs) == 0 ? (long)sfs.f_type : 0;
        close(fd);
        return t;
}

static bool exists_at(int root_fd, const char *name) {
        struct stat st;
        return fstatat(root_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Whether our own root directory is the root of a mount, as a system's
 * is; in a chroot into a directory it is not. Linux 5.8's statx says so
 * in one call; an older kernel cannot tell: the usual host. */
static bool own_root_is_mount(int root_fd) {
        struct statx stx;
        if (statx(root_fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS, &stx) < 0 ||
            !(stx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT))
                return true;
        return stx.stx_attributes & STATX_ATTR_MOUNT_ROOT;
}

/* 1 live, -1 an image; *ret_why says what showed an image that has a
 * kernel's files mounted in. Raw system calls on root_fd: this decides
 * what the root context lets through, so it cannot use it. */
static signed char detect_root_live(const ht_context *c, char **ret_why) {
        if (c->live_root_forced)
                return 1;
        bool proc = exists_at(c->root_fd, "proc/sys/kernel"), sys = exists_at(c->root_fd, "sys/kernel");
        if (!proc && !sys)
                return -1;
        bool real_proc = fs_type_at(c->root_fd, "proc") == PROC_SUPER_MAGIC;
        ((ht_context *)c)->memo_proc_real = real_proc ? 1 : -1; /* proc_is_procfs's answer */
        bool real_sys = fs_type_at(c->root_fd, "sys") == SYSFS_MAGIC;
        bool own = streq(c->root, "/");
        const char *shown = own ? "" : c->root;
        if (!own) {
                /* A --root tree is an image unless the administrator says
                 * otherwise (issue 32): what the tree holds is whoever built
                 * it's to choose, and a live tree has its tools run. Only
                 * the test suite, by a variable of its own, takes plain
                 * files standing for a kernel (a fixture) for a live one. */
                if (!real_proc && !real_sys && streq_ptr(getenv("HOSTTUNE_TEST_LIVE_FIXTURES"), "1"))
                        return 1;
                if (real_sys && !real_proc)
                        *ret_why = xasprintf("%s/sys is a sysfs but %s/proc is no procfs: the kernel files are "
                                             "the build machine's, not this tree's", shown, shown);
                else
                        *ret_why = xasprintf("%s has %s, but a --root tree is an image unless --live-root says "
                                             "it is the running system", shown,
                                             proc && sys ? "a /proc and a /sys" : proc ? "a /proc" : "a /sys");
                return -1;
        }
        if (!real_proc && !real_sys)
                return 1; /* plain files standing for a kernel: a test fixture */
        if (!real_proc) {
                *ret_why = xasprintf("%s/sys is a sysfs but %s/proc is no procfs: the kernel files are the build "
                                     "machine's, not this tree's", shown, shown);
                return -1;
        }
        /* The tree is that kernel's system when PID 1 runs in it. Reading
         * PID 1's root needs the right to trace it (root, usually). */
        struct stat init_root, tree;
        if (fstatat(c->root_fd, "proc/1/root", &init_root, 0) == 0) {
                if (fstat(c->root_fd, &tree) < 0 ||
                    (init_root.st_dev == tree.st_dev && init_root.st_ino == tree.st_ino))
                        return 1;
                *ret_why = xstrdup("/proc and /sys are a running kernel's, but its PID 1 has another root "
                                   "directory: this tree is not that system (a chroot or image build with "
                                   "the build machine's /proc and /sys mounted in)");
                return -1;
        }
        if (own_root_is_mount(c->root_fd))
                return 1;
        *ret_why = xstrdup("/ is a chroot into a directory (no mount has it as its mount point) with "
                           "the build machine's /proc and /sys mounted in");
        return -1;
}

bool ht_context_root_live(const ht_context *c) {
        ht_context *memo = (ht_context *)c; /* its memo fields only */
        if (!memo->memo_root_live)
                memo->memo_root_live = detect_root_live(c, &memo->memo_image_why);
        return memo->memo_root_live > 0;
}

const char *ht_context_image_why(const ht_context *c) {
        return ht_context_root_live(c) ? NULL : c->memo_image_why;
}

/* Whether the tree's /proc is a procfs (asked once). */
static bool proc_is_procfs(const ht_context *c) {
        ht_context *memo = (ht_context *)c; /* its memo fields only */
        if (!memo->memo_proc_real)
                memo->memo_proc_real = fs_type_at(c->root_fd, "proc") == PROC_SUPER_MAGIC ? 1 : -1;
        return memo->memo_proc_real > 0;
}

bool ht_context_kernel_is_ours(const ht_context *c) {
        return ht_context_root_live(c) && proc_is_procfs(c);
}

/* In an image with the build machine's /proc or /sys mounted in, that
 * kernel is none of hosttune's business: its files read as missing, as
 * in an image without them. */
static bool kernel_path_hidden(const ht_context *c, const char *path) {
        const char *p = path + strspn(path, "/");
        size_t n = strcspn(p, "/");
        if (!((n == 4 && strncmp(p, "proc", 4) == 0) || (n == 3 && strncmp(p, "sys", 3) == 0)))
                return false;
        return ht_context_image_why(c) != NULL;
}

int ht_path_check(const char *path) {
        if (!path || path[0] != '/')
                return -EINVAL;
        /* One pass, a table load a byte (every host path passes here, a
         * walked one twice before): a control byte or a tab refuses it at
         * once; the first name that is ".." or longer than NAME_MAX
         * decides after the length. */
        static const bool stop[256] = {
                [0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1, [0x05] = 1, [0x06] = 1, [0x07] = 1,
                [0x08] = 1, [0x09] = 1, [0x0a] = 1, [0x0b] = 1, [0x0c] = 1, [0x0d] = 1, [0x0e] = 1, [0x0f] = 1,
                [0x10] = 1, [0x11] = 1, [0x12] = 1, [0x13] = 1, [0x14] = 1, [0x15] = 1, [0x16] = 1, [0x17] = 1,
                [0x18] = 1, [0x19] = 1, [0x1a] = 1, [0x1b] = 1, [0x1c] = 1, [0x1d] = 1, [0x1e] = 1, [0x1f] = 1,
                [0x7f] = 1, ['/'] = 1,
        };
        const unsigned char *p = (const unsigned char *)path;
        int name_err = 0;
        for (;;) {
                const unsigned char *name = p;
                while (!stop[*p])
                        p++;
                size_t n = (size_t)(p - name);
                if (!name_err && n == 2 && name[0] == '.' && name[1] == '.')
                        name_err = -EINVAL;
                else if (!name_err && n > NAME_MAX)
                        name_err = -ENAMETOOLONG;
                if (*p == '/') {
                        p++;
                        continue;
                }
                if (*p)
                        return -EINVAL; /* a control byte */
                break;
        }
        if ((size_t)(p - (const unsigned char *)path) >= PATH_MAX)
                return -EINVAL;
        return name_err;
}

/* Re-open the directory named by walked (its components joined by '/',
 * "" for the root), walking down from the root. Every component was
 * checked to be a real directory when it was added. */
static int reopen_walked(int root_fd, const char *walked) {
        int fd = fcntl(root_fd, F_DUPFD_CLOEXEC, 3);
        if (fd < 0)
                return -errno;
        char comp[NAME_MAX + 1];
        for (const char *p = walked; *p;) {
                size_t n = strcspn(p, "/");
                memcpy(comp, p, n);
                comp[n] = 0;
                p += n + (p[n] == '/');
                int nfd = openat(fd, comp, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
                close(fd);
                if (nfd < 0)
                        return -errno;
                fd = nfd;
        }
        return fd;
}

/* For writes by root: a directory below the root that someone other than
 * root owns, or that group or others may write, could hold a symlink or a
 * swapped component planted by that someone. */
static int dir_safe(int fd) {
        if (geteuid() != 0)
                return 0;
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (st.st_uid != 0 || (st.st_mode & (S_IWGRP | S_IWOTH)))
                return -EPERM;
        return 0;
}

static bool owner_trusted(uid_t uid) {
        return uid == 0 || uid == geteuid();
}

void ht_controllers_add(ht_controllers *w, const struct stat *st) {
        /* who can write it may replace what it holds (a directory) or
         * what it says (a file): anyone, for all we know */
        if (st->st_mode & (S_IWGRP | S_IWOTH))
                w->anyone = true;
        if (owner_trusted(st->st_uid))
                return;
        for (size_t i = 0; i < w->n; i++)
                if (w->uid[i] == st->st_uid)
                        return;
        if (w->n == HT_CONTROLLERS_MAX) {
                w->anyone = true; /* too many to track: the strictest rule */
                return;
        }
        w->uid[w->n] = st->st_uid;
        w->gid[w->n++] = st->st_gid;
}

bool ht_controllers_can_read(const ht_controllers *w, const struct stat *st, uid_t *ret_uid) {
        if (st->st_mode & S_IROTH)
                return true;
        if (w->anyone) {
                if (ret_uid)
                        *ret_uid = (uid_t)-1;
                return false;
        }
        /* the owner can chmod it; a group member can read a group-readable
         * file, and the group of what a user owns is one of theirs (chown
         * lets an owner give a file only a group they are in) */
        for (size_t i = 0; i < w->n; i++)
                if (st->st_uid != w->uid[i] && !((st->st_mode & S_IRGRP) && st->st_gid == w->gid[i])) {
                        if (ret_uid)
                                *ret_uid = w->uid[i];
                        return false;
                }
        return true;
}

/* Close a directory fd of the walk unless it is the root's own. */
static void drop(const ht_context *c, int fd) {
        if (fd >= 0 && fd != c->root_fd)
                close(fd);
}

/* ret_last (may be NULL): what the walk saw of the last name, when it
 * looked (a followed walk does): its stat, or st_mode 0 when it is not
 * there; left alone when it did not look. */
static int walk_parent(const ht_context *c, const char *path, bool follow_last, bool safe,
                       ht_controllers *ctl, int *ret_dir_fd, char ret_name[NAME_MAX + 1], struct stat *ret_last);

/* path checked, then walked (walk_parent, for a caller that checked it:
 * the name into its buffer, no allocation a walk) */
static int resolve_parent(const ht_context *c, const char *path, bool follow_last, bool safe,
                          ht_controllers *ctl, int *ret_dir_fd, char **ret_name, struct stat *ret_last) {
        int r = ht_path_check(path);
        if (r < 0)
                return r;
        char name[NAME_MAX + 1];
        r = walk_parent(c, path, follow_last, safe, ctl, ret_dir_fd, name, ret_last);
        if (r >= 0)
                *ret_name = xstrdup(name);
        return r;
}

static int walk_parent(const ht_context *c, const char *path, bool follow_last, bool safe,
                       ht_controllers *ctl, int *ret_dir_fd, char ret_name[NAME_MAX + 1], struct stat *ret_last) {
        int r;

        /* p is what is left to walk, in path or, after a symlink, in
         * spliced (the target in front of the rest). Targets may contain
         * ".." as long as they stay inside the root. The walk allocates
         * nothing but a spliced path and the name returned: on kernels
         * without openat2 (before 5.6: RHEL 8's) and under valgrind every
         * host path comes through here. */
        const char *p = path;
        char *spliced = NULL;
        /* the directories walked below the root, joined by '/': what ".."
         * re-opens; a directory path longer than PATH_MAX is refused */
        char walked[PATH_MAX];
        size_t walked_len = 0;
        walked[0] = 0;
        char comp[NAME_MAX + 1];
        int links = 0;
        /* the root's own fd until a directory below is opened (closed by
         * drop() only when it is not): a dup of it would cost two calls
         * a walk; what is returned is always the caller's to close */
        int cur = c->root_fd;

        for (;;) {
                while (*p == '/')
                        p++;
                if (!*p) {
                        /* path was "/" (or ended in slashes): the directory itself */
                        strcpy(comp, ".");
                        goto found;
                }
                size_t n = strcspn(p, "/");
                if (n > NAME_MAX) {
                        r = -ENAMETOOLONG; /* only a symlink's target can hold one */
                        goto fail;
                }
                memcpy(comp, p, n);
                comp[n] = 0;
                const char *rest = p + n;
                bool last = rest[strspn(rest, "/")] == 0;

                if (streq(comp, ".")) {
                        p = rest;
                        continue;
                }
                if (streq(comp, "..")) {
                        if (walked_len == 0) {
                                r = -EXDEV; /* a symlink tried to climb out of the root */
                                goto fail;
                        }
                        char *slash = strrchr(walked, '/');
                        walked_len = slash ? (size_t)(slash - walked) : 0;
                        walked[walked_len] = 0;
                        drop(c, cur);
                        cur = reopen_walked(c->root_fd, walked);
                        if (cur < 0) {
                                r = cur;
                                goto fail;
                        }
                        p = rest;
                        if (last) {
                                /* ends on a directory reached through ".." */
                                strcpy(comp, ".");
                                goto found;
                        }
                        continue;
                }

                /* the root itself (nothing walked yet): the caller chose it */
                if (safe && walked_len > 0 && (r = dir_safe(cur)) < 0)
                        goto fail;
                /* the last name, not followed: the caller acts on it in
                 * the directory returned (fstatat, openat, mkdirat...) and
                 * sees what it is, or that it is not there; opening it
                 * here to look first would only say the same */
                if (last && !follow_last)
                        goto found;
                int fd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0 && errno == ENOENT && last) {
                        if (ret_last)
                                ret_last->st_mode = 0;
                        goto found;
                }
                if (fd < 0) {
                        r = -errno;
                        goto fail;
                }
                struct stat st;
                if (fstat(fd, &st) < 0) {
                        r = -errno;
                        close(fd);
                        goto fail;
                }
                if (S_ISLNK(st.st_mode) && (!last || follow_last)) {
                        char target[PATH_MAX];
                        ssize_t len = readlinkat(fd, "", target, sizeof(target) - 1);
                        close(fd);
                        if (len < 0) {
                                r = -errno;
                                goto fail;
                        }
                        target[len] = 0;
                        if (++links > HT_MAX_SYMLINKS) {
                                r = -ELOOP;
                                goto fail;
                        }
                        char *next = xasprintf("%s%s", target, rest);
                        if (target[0] == '/') {
                                /* absolute targets mean the root's own "/" */
                                walked_len = 0;
                                walked[0] = 0;
                                drop(c, cur);
                                cur = c->root_fd;
                        }
                        free(spliced);
                        p = spliced = next;
                        continue;
                }
                if (last) {
                        close(fd);
                        if (ret_last)
                                *ret_last = st;
                        goto found;
                }
                if (!S_ISDIR(st.st_mode)) {
                        close(fd);
                        r = -ENOTDIR;
                        goto fail;
                }
                if (walked_len + 1 + n >= sizeof(walked)) {
                        close(fd);
                        r = -ENAMETOOLONG;
                        goto fail;
                }
                /* a directory on the way: its owner is one who may
                 * have put a link or another file in it */
                if (ctl)
                        ht_controllers_add(ctl, &st);
                drop(c, cur);
                cur = fd;
                if (walked_len > 0)
                        walked[walked_len++] = '/';
                memcpy(walked + walked_len, comp, n + 1);
                walked_len += n;
                p = rest;
        }

found:
        if (cur == c->root_fd && (cur = fcntl(c->root_fd, F_DUPFD_CLOEXEC, 3)) < 0) {
                r = -errno;
                goto fail;
        }
        *ret_dir_fd = cur;
        strcpy(ret_name, comp);
        free(spliced);
        return 0;
fail:
        drop(c, cur);
        free(spliced);
        return r;
}

/* The common case in one system call: openat2(2) with RESOLVE_BENEATH
 * opens the path below the root in the kernel, refusing ".." that climbs
 * out, absolute symlinks and magic links. Whatever it refuses or cannot do
 * (absolute links, which mean the root's own "/"; loops; kernels before
 * 5.6; seccomp filters) is left to the component walk, which decides.
 * Returns the fd, or -EAGAIN for "walk instead". The path was checked. */
static int open_beneath_at(int dir_fd, const char *path, int flags, mode_t mode) {
#if defined(SYS_openat2) && defined(RESOLVE_BENEATH)
        static bool unsupported;
        if (unsupported)
                return -EAGAIN;
        const char *rel = path + strspn(path, "/");
        if (!*rel)
                return -EAGAIN;
        struct open_how how = {
                .flags = (unsigned)(flags | O_CLOEXEC),
                .mode = (flags & (O_CREAT | O_TMPFILE)) ? mode : 0,
                .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
        };
        int fd = (int)syscall(SYS_openat2, dir_fd, rel, &how, sizeof(how));
        if (fd >= 0)
                return fd;
        if (errno == ENOSYS || errno == EPERM || errno == E2BIG)
                unsupported = true;
        if (errno == ENOSYS || errno == EPERM || errno == E2BIG || errno == EINVAL || errno == EXDEV ||
            errno == ELOOP || errno == EAGAIN)
                return -EAGAIN;
        return -errno;
#else
        return -EAGAIN;
#endif
}

static int open_beneath(const ht_context *c, const char *path, int flags, mode_t mode) {
        return open_beneath_at(c->root_fd, path, flags, mode);
}

/* The parent of a path whose last name is not followed, in one openat2
 * (the walk: two calls a directory and the closes). NULL name: the walk
 * decides (a root-level name, "." or "..", or what openat2 leaves to it). */
static int parent_beneath(const ht_context *c, const char *path, int *ret_dir_fd, char **ret_name) {
        size_t n = strlen(path);
        while (n > 1 && path[n - 1] == '/')
                n--;
        const char *slash = memrchr(path, '/', n);
        if (!slash || slash == path)
                return -EAGAIN;
        const char *last = slash + 1;
        size_t last_len = n - (size_t)(last - path);
        if (last_len == 0 || last_len > NAME_MAX || (last[0] == '.' && (last_len == 1 || (last_len == 2 && last[1] == '.'))))
                return -EAGAIN;
        _cleanup_free_ char *parent = xstrndup(path, (size_t)(slash - path));
        int fd = open_beneath(c, parent, O_PATH | O_DIRECTORY, 0);
        if (fd < 0)
                return fd;
        *ret_dir_fd = fd;
        *ret_name = xstrndup(last, last_len);
        return 0;
}

int ht_resolve_parent(const ht_context *c, const char *path, bool follow_last,
                      int *ret_dir_fd, char **ret_name) {
        if (path && kernel_path_hidden(c, path))
                return -ENOENT;
        if (!follow_last && path && ht_path_check(path) >= 0) {
                /* what the walk would find when openat2 takes the path:
                 * the directories below the root, none of them a link
                 * out of it (those it leaves to the walk) */
                int r = parent_beneath(c, path, ret_dir_fd, ret_name);
                if (r != -EAGAIN)
                        return r;
        }
        return resolve_parent(c, path, follow_last, false, NULL, ret_dir_fd, ret_name, NULL);
}

int ht_resolve_parent_for_write(const ht_context *c, const char *path, int *ret_dir_fd, char **ret_name) {
        if (path && kernel_path_hidden(c, path))
                return -ENOENT;
        return resolve_parent(c, path, false, true, NULL, ret_dir_fd, ret_name, NULL);
}

int ht_resolve_parent_controlled(const ht_context *c, const char *path, ht_controllers *ctl,
                                 int *ret_dir_fd, char **ret_name, struct stat *ret_last) {
        if (path && kernel_path_hidden(c, path))
                return -ENOENT;
        return resolve_parent(c, path, true, false, ctl, ret_dir_fd, ret_name, ret_last);
}

int ht_resolve_parent_nofollow(const ht_context *c, const char *path, int *ret_dir_fd, char **ret_name) {
        int r = ht_path_check(path);
        if (r < 0)
                return r;
        if (kernel_path_hidden(c, path))
                return -ENOENT;
        _cleanup_strv_free_ char **parts = strv_split(path, "/");
        size_t n = strv_length(parts);
        if (n == 0)
                return -EISDIR;
        int dir = fcntl(c->root_fd, F_DUPFD_CLOEXEC, 3);
        if (dir < 0)
                return -errno;
        for (size_t i = 0; i + 1 < n; i++) {
                int fd = openat(dir, parts[i], O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0) {
                        /* a link: O_NOFOLLOW with O_PATH opens it, and
                         * O_DIRECTORY then fails with ENOTDIR */
                        struct stat st;
                        r = -errno;
                        if (r == -ENOTDIR && fstatat(dir, parts[i], &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                            S_ISLNK(st.st_mode))
                                r = -ELOOP;
                        close(dir);
                        return r;
                }
                close(dir);
                dir = fd;
        }
        *ret_dir_fd = dir;
        *ret_name = xstrdup(parts[n - 1]);
        return 0;
}

static int open_host(const ht_context *c, const char *path, int flags, mode_t mode) {
        bool follow = !(flags & (O_NOFOLLOW | O_CREAT));
        int r = ht_path_check(path);
        if (r < 0)
                return r;
        if (kernel_path_hidden(c, path))
                return -ENOENT;
        int fd = open_beneath(c, path, follow ? flags : flags | O_NOFOLLOW, mode);
        if (fd != -EAGAIN)
                return fd;
        int dfd;
        char name[NAME_MAX + 1];
        r = walk_parent(c, path, follow, false, NULL, &dfd, name, NULL); /* openat2 said walk */
        if (r < 0)
                return r;
        fd = openat(dfd, name, flags | O_NOFOLLOW | O_CLOEXEC, mode);
        r = fd < 0 ? -errno : fd;
        close(dfd);
        return r;
}

int ht_open(const ht_context *c, const char *path, int flags, mode_t mode) {
        if (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC))
                ht_context_cache_drop(c); /* what is kept may be about to change */
        return open_host(c, path, flags, mode);
}

int ht_fopen_read(const ht_context *c, const char *path, FILE **ret) {
        /* O_NONBLOCK: a FIFO where a file was expected must not hang root's
         * hosttune (and its lock); reading one gives EOF or EAGAIN */
        int fd = ht_open(c, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY, 0);
        if (fd < 0)
                return fd;
        FILE *f = fdopen(fd, "r");
        if (!f) {
                int r = -errno;
                close(fd);
                return r;
        }
        *ret = f;
        return 0;
}

static bool path_under(const char *path, const char *dir) {
        size_t n = strlen(dir);
        return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == 0);
}

/* When a short read ends a host file (util.h, ht_eof_rule), so that the
 * read of 0 bytes that would confirm it is spared: 61 of the example
 * host's plan's 489 system calls were such reads. */
static ht_eof_rule eof_rule(const ht_context *c, const char *path) {
        if (path_under(path, "/proc/sys"))
                return HT_EOF_SHORT;
        /* cgroupfs, debugfs, tracefs and securityfs files under /sys are
         * seq_files of many records, as procfs's are */
        if (path_under(path, "/sys/fs") || path_under(path, "/sys/kernel/debug") ||
            path_under(path, "/sys/kernel/tracing") || path_under(path, "/sys/kernel/security"))
                return HT_EOF_READ0;
        if (path_under(path, "/sys"))
                return HT_EOF_SHORT_PAGE;
        /* a procfs seq_file returns what fits its page of records; a
         * fixture's /proc holds regular files */
        if (path_under(path, "/proc"))
                return proc_is_procfs(c) ? HT_EOF_READ0 : HT_EOF_SHORT;
        return HT_EOF_SHORT;
}

/* Read fd (path's, opened for reading) whole and close it; kept for the
 * rest of the plan when keep. */
static int read_opened(const ht_context *c, int fd, const char *path, size_t hash, size_t max, bool keep,
                       char **ret, size_t *ret_len) {
        size_t len = 0;
        int r = ht_read_fd_eof(fd, max, 0, eof_rule(c, path), ret, &len);
        close(fd);
        if (r < 0)
                return r;
        if (keep)
                cache_put(c, path, hash, *ret, len);
        if (ret_len)
                *ret_len = len;
        return 0;
}

/* Open rel below dir_fd for reading, no link followed: openat2 beneath
 * it, or where there is none (kernels before 5.6, valgrind) a name at a
 * time with O_NOFOLLOW, one call a name. -EAGAIN for whatever the root's
 * walk must decide (a link, a name that is no directory); rel holds no
 * ".." (the path it ends was checked). */
static int open_below(int dir_fd, const char *rel, int flags) {
        int fd = open_beneath_at(dir_fd, rel, flags, 0);
        if (fd != -EAGAIN)
                return fd;
        int cur = dir_fd;
        char comp[NAME_MAX + 1];
        for (const char *p = rel;;) {
                while (*p == '/')
                        p++;
                size_t n = strcspn(p, "/");
                const char *rest = p + n;
                bool last = rest[strspn(rest, "/")] == 0;
                if (n == 0 || n > NAME_MAX || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) {
                        fd = -EAGAIN; /* the walk's cases, for the walk */
                        break;
                }
                memcpy(comp, p, n);
                comp[n] = 0;
                if (last) {
                        fd = openat(cur, comp, flags | O_NOFOLLOW | O_CLOEXEC);
                        fd = fd >= 0 ? fd : errno == ENOENT ? -ENOENT : -EAGAIN;
                        break;
                }
                /* a link: O_NOFOLLOW with O_DIRECTORY fails, ENOTDIR */
                int nfd = openat(cur, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (nfd < 0) {
                        fd = errno == ENOENT ? -ENOENT : -EAGAIN;
                        break;
                }
                if (cur != dir_fd)
                        close(cur);
                cur = nfd;
                p = rest;
        }
        if (cur != dir_fd)
                close(cur);
        return fd;
}

/* The /proc/sys fd kept with the cache (proc_sys_drop), or -1. */
static int proc_sys_fd(const ht_context *c) {
        ht_context *memo = (ht_context *)c; /* its memo fields only */
        if (!memo->memo_cache)
                return -1;
        if (memo->memo_proc_sys_fd == 0) {
                int fd = ht_open_dir(c, "/proc/sys");
                memo->memo_proc_sys_fd = fd >= 0 ? fd + 1 : -1;
        }
        return memo->memo_proc_sys_fd > 0 ? memo->memo_proc_sys_fd - 1 : -1;
}

/* path opened for reading: a /proc/sys key below the /proc/sys kept
 * (when the kernel walk below it may open it; otherwise, and for every
 * other path, through the root). The path is checked here as by ht_open. */
static int open_for_read(const ht_context *c, const char *path) {
        const int flags = O_RDONLY | O_NONBLOCK | O_NOCTTY;
        if (strncmp(path, "/proc/sys/", 10) == 0 && ht_path_check(path) >= 0) {
                int dfd = proc_sys_fd(c);
                if (dfd >= 0) {
                        int fd = open_below(dfd, path + 10, flags);
                        if (fd != -EAGAIN)
                                return fd;
                }
        }
        return ht_open(c, path, flags, 0);
}

static int read_file(const ht_context *c, const char *path, size_t max, bool keep, char **ret, size_t *ret_len) {
        size_t hash = cache_hash(c, path);
        const cache_entry *e = cache_find(c, path, hash);
        if (e)
                return cache_serve(e, max, ret, ret_len);
        int fd = open_for_read(c, path);
        if (fd < 0)
                return fd;
        /* No fstat: read() of a directory fails with EISDIR by itself,
         * and plan reads some fifty files; O_NONBLOCK keeps a FIFO from
         * hanging it. Files other users control go through
         * ht_read_file_untrusted, which checks what it opened. */
        return read_opened(c, fd, path, hash, max, keep, ret, ret_len);
}

int ht_read_file(const ht_context *c, const char *path, size_t max, char **ret, size_t *ret_len) {
        return read_file(c, path, max, true, ret, ret_len);
}

int ht_read_file_nokeep(const ht_context *c, const char *path, size_t max, char **ret, size_t *ret_len) {
        return read_file(c, path, max, false, ret, ret_len);
}

int ht_open_dir(const ht_context *c, const char *path) {
        int r = ht_path_check(path);
        if (r < 0)
                return r;
        if (kernel_path_hidden(c, path))
                return -ENOENT;
        int fd = open_beneath(c, path, O_PATH | O_DIRECTORY, 0);
        if (fd != -EAGAIN)
                return fd;
        return open_host(c, path, O_PATH | O_DIRECTORY, 0);
}

int ht_read_file_below(const ht_context *c, int dir_fd, const char *dir, const char *rel, size_t max,
                       char **ret, size_t *ret_len) {
        _cleanup_free_ char *path = xasprintf("%s/%s", dir, rel);
        size_t hash = cache_hash(c, path);
        const cache_entry *e = cache_find(c, path, hash);
        if (e)
                return cache_serve(e, max, ret, ret_len);
        if (dir_fd < 0)
                return ht_read_file(c, path, max, ret, ret_len);
        /* below the directory in the kernel's walk; what it refuses (a
         * link that climbs out of it) the root's walk decides */
        int fd = open_below(dir_fd, rel, O_RDONLY);
        if (fd == -EAGAIN)
                return ht_read_file(c, path, max, ret, ret_len);
        if (fd < 0)
                return fd;
        return read_opened(c, fd, path, hash, max, true, ret, ret_len);
}

static void chomp(char *s, size_t len) {
        while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r'))
                s[--len] = 0;
}

int ht_read_line_below(const ht_context *c, int dir_fd, const char *dir, const char *rel, char **ret) {
        size_t len;
        int r = ht_read_file_below(c, dir_fd, dir, rel, 1 << 20, ret, &len);
        if (r >= 0)
                chomp(*ret, len);
        return r;
}

int ht_read_line(const ht_context *c, const char *path, char **ret) {
        char *s;
        size_t len;
        int r = ht_read_file(c, path, 1 << 20, &s, &len);
        if (r < 0)
                return r;
        while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r'))
                s[--len] = 0;
        *ret = s;
        return 0;
}

int ht_readlink(const ht_context *c, const char *path, char **ret) {
        int r = ht_path_check(path);
        if (r < 0)
                return r;
        if (kernel_path_hidden(c, path))
                return -ENOENT;
        char target[PATH_MAX];
        ssize_t k;
        int fd = open_beneath(c, path, O_PATH | O_NOFOLLOW, 0);
        if (fd >= 0) {
                /* "" names the link fd itself; a file that is none is
                 * ENOENT (EINVAL on some kernels): it was opened, so it
                 * exists */
                k = readlinkat(fd, "", target, sizeof(target) - 1);
                r = k < 0 ? (errno == ENOENT ? -EINVAL : -errno) : 0;
                close(fd);
        } else if (fd != -EAGAIN) {
                return fd;
        } else {
                int dfd;
                char name[NAME_MAX + 1];
                r = walk_parent(c, path, false, false, NULL, &dfd, name, NULL); /* openat2 said walk */
                if (r < 0)
                        return r;
                k = readlinkat(dfd, name, target, sizeof(target) - 1);
                r = k < 0 ? -errno : 0;
                close(dfd);
        }
        if (r < 0)
                return r;
        if (k == 0)
                return -EINVAL;
        target[k] = 0;
        *ret = xstrdup(target);
        return 0;
}

/* What to stat for path (checked and not hidden): an O_PATH fd of it
 * (*name empty) or, where openat2 said walk, its parent's fd and name. */
static int stat_target(const ht_context *c, const char *path, bool follow, char name[NAME_MAX + 1]) {
        int fd = open_beneath(c, path, O_PATH | (follow ? 0 : O_NOFOLLOW), 0);
        if (fd != -EAGAIN) {
                name[0] = 0;
                return fd;
        }
        int dfd;
        int r = walk_parent(c, path, follow, false, NULL, &dfd, name, NULL);
        return r < 0 ? r : dfd;
}

static int stat_checked(const ht_context *c, const char *path, bool follow, struct stat *ret) {
        char name[NAME_MAX + 1];
        int fd = stat_target(c, path, follow, name);
        if (fd < 0)
                return fd;
        int r = fstatat(fd, name, ret, name[0] ? AT_SYMLINK_NOFOLLOW : AT_EMPTY_PATH) < 0 ? -errno : 0;
        close(fd);
        return r;
}

static int stat_impl(const ht_context *c, const char *path, bool follow, struct stat *ret) {
        int r = ht_path_check(path);
        if (r < 0)
                return r;
        if (kernel_path_hidden(c, path))
                return -ENOENT;
        return stat_checked(c, path, follow, ret);
}

int ht_lstatx(const ht_context *c, const char *path, unsigned mask, struct statx *ret) {
        int r = ht_path_check(path);
        if (r < 0)
                return r;
        if (kernel_path_hidden(c, path))
                return -ENOENT;
        char name[NAME_MAX + 1];
        int fd = stat_target(c, path, false, name);
        if (fd < 0)
                return fd;
        r = statx(fd, name, (name[0] ? 0 : AT_EMPTY_PATH) | AT_SYMLINK_NOFOLLOW, mask, ret) < 0 ? -errno : 0;
        close(fd);
        return r;
}

bool ht_context_systemd_booted(const ht_context *c) {
        ht_context *memo = (ht_context *)c; /* its memo field only */
        if (memo->memo_cache && memo->memo_sd_booted)
                return memo->memo_sd_booted > 0;
        struct stat st;
        bool b = stat_impl(c, "/run/systemd/system", false, &st) == 0 && S_ISDIR(st.st_mode);
        if (memo->memo_cache)
                memo->memo_sd_booted = b ? 1 : -1;
        return b;
}

int ht_stat(const ht_context *c, const char *path, struct stat *ret) {
        return stat_impl(c, path, true, ret);
}

int ht_lstat(const ht_context *c, const char *path, struct stat *ret) {
        return stat_impl(c, path, false, ret);
}

bool ht_exists(const ht_context *c, const char *path) {
        /* an O_PATH open that succeeds is the answer: no fstat needed */
        if (ht_path_check(path) < 0 || kernel_path_hidden(c, path))
                return false;
        /* a file this plan read (the cache's entries are dropped by any
         * write through the context): its open already said it is there */
        if (c->memo_cache && cache_find(c, path, path_hash(path)))
                return true;
        int fd = open_beneath(c, path, O_PATH, 0);
        if (fd >= 0) {
                close(fd);
                return true;
        }
        if (fd != -EAGAIN)
                return false;
        struct stat st;
        return stat_checked(c, path, true, &st) == 0;
}

bool ht_writable(const ht_context *c, const char *path) {
        /* opened, never written: what the cache keeps stays true */
        int fd = open_host(c, path, O_WRONLY | O_NONBLOCK, 0);
        if (fd < 0)
                return false;
        close(fd);
        return true;
}

int ht_opendir(const ht_context *c, const char *path, DIR **ret) {
        int fd = ht_open(c, path, O_RDONLY | O_DIRECTORY, 0);
        if (fd < 0)
                return fd;
        DIR *d = fdopendir(fd);
        if (!d) {
                int r = -errno;
                close(fd);
                return r;
        }
        *ret = d;
        return 0;
}

/* A directory's entries as the per-plan cache keeps them: each a d_type
 * byte, the name and its NUL, "." and ".." left out. Keyed by the path
 * behind a byte no host path starts with, beside the files read. */
/* "\001PATH" into buf (PATH_MAX + 2 bytes): a listing's key beside the
 * files' own, on the stack (a plan lists some thirty directories); NULL
 * when the path is too long to be one. */
static const char *listing_key(char *buf, const char *path) {
        size_t n = strlen(path);
        if (n >= PATH_MAX)
                return NULL;
        buf[0] = '\001';
        memcpy(buf + 1, path, n + 1);
        return buf;
}

/* The entries of the directory at path into *ret (listing_key's form).
 * getdents64 on the fd itself: fdopendir would fstat it and set its
 * close-on-exec flag again, two calls more a directory for nothing. */
static int read_listing(const ht_context *c, const char *path, char **ret, size_t *ret_len) {
        int fd = ht_open(c, path, O_RDONLY | O_DIRECTORY, 0);
        if (fd < 0)
                return fd;
        _cleanup_free_ char *buf = xmalloc(32768);
        char *out = NULL;
        size_t len = 0, cap = 0;
        for (;;) {
                ssize_t n = getdents64(fd, buf, 32768);
                if (n < 0) {
                        int r = -errno;
                        close(fd);
                        free(out);
                        return r;
                }
                if (n == 0)
                        break;
                for (ssize_t off = 0; off < n;) {
                        const struct dirent64 *de = (const struct dirent64 *)(buf + off);
                        off += de->d_reclen;
                        if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                                continue;
                        size_t nl = strlen(de->d_name);
                        if (len + nl + 2 > cap) {
                                cap = (len + nl + 2) * 2;
                                out = xrealloc(out, cap + 1);
                        }
                        out[len++] = (char)de->d_type;
                        memcpy(out + len, de->d_name, nl + 1);
                        len += nl + 1;
                }
        }
        close(fd);
        if (!out)
                out = xmalloc(1);
        out[len] = 0;
        *ret = out;
        *ret_len = len;
        return 0;
}

static int list_dir(const ht_context *c, const char *path, const char *suffix, bool links_only, char ***ret) {
        char key_buf[PATH_MAX + 2];
        const char *key = c->memo_cache ? listing_key(key_buf, path) : NULL;
        size_t hash = key ? path_hash(key) : 0;
        const cache_entry *e = key ? cache_find(c, key, hash) : NULL;
        _cleanup_free_ char *owned = NULL;
        const char *ents;
        size_t len = 0;
        if (e) {
                ents = e->data;
                len = e->len;
        } else {
                int r = read_listing(c, path, &owned, &len);
                if (r == -ENOENT || r == -ENOTDIR) {
                        *ret = xcalloc(1, sizeof(char *));
                        return 0;
                }
                if (r < 0)
                        return r;
                if (key)
                        cache_put(c, key, hash, owned, len);
                ents = owned;
        }
        char **l = xcalloc(1, sizeof(char *));
        /* counted: quadratic otherwise in a /sys directory of thousands
         * of CPUs */
        size_t n = 0, cap = 1;
        for (size_t off = 0; off < len;) {
                unsigned char type = (unsigned char)ents[off];
                const char *name = ents + off + 1;
                off += strlen(name) + 2;
                if (suffix && !endswith(name, suffix))
                        continue;
                /* d_type spares a stat of every other entry; a file system
                 * that does not fill it in (DT_UNKNOWN) lists them all */
                if (links_only && type != DT_LNK && type != DT_UNKNOWN)
                        continue;
                strv_push_counted(&l, &n, &cap, name);
        }
        qsort(l, n, sizeof(char *), strv_sort_cmp);
        *ret = l;
        return 0;
}

int ht_list_dir(const ht_context *c, const char *path, const char *suffix, char ***ret) {
        return list_dir(c, path, suffix, false, ret);
}

int ht_list_links(const ht_context *c, const char *path, char ***ret) {
        return list_dir(c, path, NULL, true, ret);
}

const char *ht_write_refusal_hint(int r) {
        switch (r) {
        case -ELOOP:
                return " (it is a symlink: hosttune never writes through a symlink)";
        case -EPERM:
                return " (a directory on the way is not owned by root or is writable by group or others: "
                       "chown root, chmod go-w)";
        case -EMLINK:
                return " (it has other hard links: a replace would leave them with the old content; hosttune "
                       "refuses it: give this name a copy of its own first)";
        default:
                return "";
        }
}

char *ht_root_path_error(const ht_context *c, const char *what, const char *shown, int r) {
        switch (r) {
        case -EXDEV:
                return xasprintf("%s %s: a symlink on the way leads out of %s; refusing it (hosttune's state "
                                 "stays inside the root; --state-dir DIR is the way to keep it elsewhere)",
                                 what, shown, c->root);
        case -EPERM:
                return xasprintf("%s %s: a directory on the way is not owned by root or is writable by group "
                                 "or others; refusing it", what, shown);
        case -ELOOP:
                return xasprintf("%s %s: a symlink loop, or a link where a directory is made; refusing it",
                                 what, shown);
        default:
                return xasprintf("%s %s: %s", what, shown, ht_strerror(-r));
        }
}

char *ht_display_path(const ht_context *c, const char *path) {
        return join_root(c->root, path);
}

static bool numbered(const char *name, const char *prefix) {
        if (!startswith(name, prefix))
                return false;
        const char *d = name + strlen(prefix);
        return *d && strspn(d, "0123456789") == strlen(d);
}

static int cmp_numbered(const void *a, const void *b) {
        const char *x = *(char *const *)a, *y = *(char *const *)b;
        size_t lx = strlen(x), ly = strlen(y);
        return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
}

char **ht_list_numbered(const ht_context *c, const char *dir, const char *prefix, size_t *ret_n) {
        _cleanup_strv_free_ char **names = NULL;
        ht_list_dir(c, dir, NULL, &names);
        /* filled in place: strv_push counts the list at every push, and a
         * host may have thousands of CPUs */
        size_t n = 0, total = strv_length(names);
        char **out = xcalloc(total + 1, sizeof(char *));
        for (size_t i = 0; i < total; i++)
                if (numbered(names[i], prefix))
                        out[n++] = xstrdup(names[i]);
        qsort(out, n, sizeof(char *), cmp_numbered);
        if (ret_n)
                *ret_n = n;
        return out;
}
