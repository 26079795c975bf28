#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <unistd.h>

#include "fault.h"
#include "fileattr.h"
#include "fileio.h"
#include "util.h"

/* Temp names: ".#NAME.<16 hex>"; NAME is cut so the whole stays below
 * NAME_MAX. ht_cleanup_temp_files knows the same pattern. */
#define TEMP_NAME_KEEP 200
#define TEMP_RANDOM_HEX 16

static int random_u64(uint64_t *ret) {
        ssize_t n;
        do
                n = getrandom(ret, sizeof(*ret), 0);
        while (n < 0 && errno == EINTR);
        if (n < 0)
                return -errno;
        return n == sizeof(*ret) ? 0 : -EIO;
}

static int write_all(int fd, const void *data, size_t len) {
        const char *p = data;
        while (len > 0) {
                ssize_t n = write(fd, p, len);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0)
                        return -errno;
                if (n == 0)
                        return -EIO;
                p += n;
                len -= (size_t)n;
        }
        return 0;
}

int ht_fsync_dir(int dir_fd) {
        int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        int r = fsync(fd) < 0 ? -errno : 0;
        close(fd);
        return r;
}

int ht_fsync_dir_or_batch(int dir_fd, ht_fsync_batch *dirs) {
        return dirs ? ht_fsync_batch_add_dir(dirs, dir_fd) : ht_fsync_dir(dir_fd);
}

int ht_fsync_batch_add(ht_fsync_batch *b, int fd) {
        if (b->n >= HT_FSYNC_BATCH_MAX) {
                int r = ht_fsync_batch_run(b);
                if (r < 0) {
                        close(fd);
                        return r;
                }
        }
        if (b->n == b->cap) {
                b->cap = b->cap ? 2 * b->cap : 8;
                b->fds = xrealloc(b->fds, b->cap * sizeof(*b->fds));
        }
        b->fds[b->n++] = fd;
        return 0;
}

int ht_fsync_batch_add_dir(ht_fsync_batch *b, int dir_fd) {
        /* O_PATH fds cannot be fsynced: a real one of the same directory */
        int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        return ht_fsync_batch_add(b, fd);
}

typedef struct {
        const int *fds;
        int *errs;
        size_t n;
        size_t next;    /* the next fd to take, shared (atomic) */
} fsync_work;

static void *fsync_worker(void *arg) {
        fsync_work *w = arg;
        for (;;) {
                size_t i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED);
                if (i >= w->n)
                        return NULL;
                w->errs[i] = fsync(w->fds[i]) < 0 ? errno : 0;
        }
}

int ht_fsync_batch_run(ht_fsync_batch *b) {
        if (b->n == 0)
                return 0;
        fsync_work w = {.fds = b->fds, .errs = xcalloc(b->n, sizeof(int)), .n = b->n};
        pthread_t th[HT_FSYNC_THREADS];
        size_t started = 0, want = b->n - 1 < HT_FSYNC_THREADS ? b->n - 1 : HT_FSYNC_THREADS;
        if (want > 0) {
                /* signals stay with the main thread (the workers block them
                 * all: a SIGINT handler or a fault's SIGKILL acts there) */
                sigset_t all, old;
                sigfillset(&all);
                pthread_sigmask(SIG_SETMASK, &all, &old);
                while (started < want && pthread_create(&th[started], NULL, fsync_worker, &w) == 0)
                        started++;
                pthread_sigmask(SIG_SETMASK, &old, NULL);
        }
        /* the caller takes its share; with no thread at all, every one */
        fsync_worker(&w);
        for (size_t k = 0; k < started; k++)
                pthread_join(th[k], NULL);
        int r = 0;
        for (size_t i = 0; i < b->n; i++) {
                if (r == 0 && w.errs[i] != 0)
                        r = -w.errs[i];
                close(b->fds[i]);
        }
        free(w.errs);
        b->n = 0;
        return r;
}

void ht_fsync_batch_done(ht_fsync_batch *b) {
        for (size_t i = 0; i < b->n; i++)
                close(b->fds[i]);
        free(b->fds);
        *b = (ht_fsync_batch){0};
}

int ht_fsync_path(const ht_context *c, const char *path) {
        int dfd;
        _cleanup_free_ char *name = NULL;
        int r = ht_resolve_parent_for_write(c, path, &dfd, &name);
        if (r < 0)
                return r == -ENOENT ? 0 : r;
        _cleanup_close_ int dir_fd = dfd;
        int fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0)
                return errno == ENOENT ? ht_fsync_dir(dir_fd) : -errno;
        r = fsync(fd) < 0 ? -errno : 0;
        close(fd);
        if (r < 0)
                return r;
        return ht_fsync_dir(dir_fd);
}

/* Whether the directory open as dir_fd (O_PATH will do) is immutable or
 * append-only (chattr +i, +a): no name may be added, renamed over or
 * removed there, not even by root. An append-only one takes a new name,
 * so a temp file would be made there, its rename refused and its unlink
 * too: it would stay. -EPERM then, before anything is made; 0 when not
 * (or statx does not say: that filesystem refuses what it refuses). */
static int dir_locked(int dir_fd) {
        struct statx stx;
        if (statx(dir_fd, "", AT_EMPTY_PATH, 0, &stx) < 0)
                return 0;
        return stx.stx_attributes & stx.stx_attributes_mask & (STATX_ATTR_IMMUTABLE | STATX_ATTR_APPEND) ? -EPERM
                                                                                                     : 0;
}

/* The temp file of an atomic replace of dir_fd/name, written, with its
 * owner and mode (exact: as given, whatever the old file has), not yet
 * fsynced: its fd and name come back. On error nothing is left. */
static int write_temp_at(int dir_fd, const char *name, const void *data, size_t len, mode_t mode, uid_t uid,
                         gid_t gid, bool exact, bool unnamed, int *ret_fd, char **ret_tmp) {
        if (isempty(name) || strchr(name, '/') || streq(name, ".") || streq(name, ".."))
                return -EINVAL;

        bool existed = false;
        struct stat st;
        _cleanup_close_ int old_fd = -1;
        if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
                /* We never write through links or onto special files. */
                if (S_ISLNK(st.st_mode))
                        return -ELOOP;
                if (S_ISDIR(st.st_mode))
                        return -EISDIR;
                if (!S_ISREG(st.st_mode))
                        return -EINVAL;
                existed = true;
                /* a rename would leave the file's other names with the
                 * old content, and the journal knows only this one; a
                 * restore (exact) puts back what it finds */
                if (st.st_nlink > 1 && !exact)
                        return -EMLINK;
                /* the old file itself: its flags and extended attributes */
                old_fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
                if (old_fd < 0)
                        return -errno;
                const char *flag;
                int r = ht_file_locked_flag(old_fd, &flag);
                if (r != 0)
                        /* the rename over it would fail once other files
                         * were renamed: refused now, before anything */
                        return r < 0 ? r : -EPERM;
                if (!exact) {
                        mode = st.st_mode;
                        uid = st.st_uid;
                        gid = st.st_gid;
                }
        } else if (errno != ENOENT)
                return -errno;
        mode &= 07777;
        int locked = dir_locked(dir_fd);
        if (locked < 0)
                return locked;

        _cleanup_free_ char *tmp = NULL;
        int fd = -1;
        if (unnamed) {
                /* no name until installed (ht_staged_file_install); a
                 * filesystem without O_TMPFILE gets a named one */
                fd = openat(dir_fd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
                if (fd < 0 && errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
                        return -errno;
        }
        for (int attempt = 0; attempt < 16 && fd < 0; attempt++) {
                uint64_t rnd;
                int r = random_u64(&rnd);
                if (r < 0)
                        return r;
                free(tmp);
                tmp = xasprintf(".#%.*s.%016llx", TEMP_NAME_KEEP, name, (unsigned long long)rnd);
                fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
                if (fd < 0 && errno != EEXIST)
                        return -errno;
        }
        if (fd < 0)
                return -EEXIST;

        int r = write_all(fd, data, len);
        if (r < 0)
                goto fail;

        struct stat tst;
        if (fstat(fd, &tst) < 0) {
                r = -errno;
                goto fail;
        }
        bool want_uid = uid != HT_UID_ANY && tst.st_uid != uid;
        bool want_gid = gid != HT_GID_ANY && tst.st_gid != gid;
        if (want_uid || want_gid) {
                /* chown before chmod: chown clears set-id bits */
                if (fchown(fd, want_uid ? uid : (uid_t)-1, want_gid ? gid : (gid_t)-1) < 0) {
                        r = -errno;
                        /* An unprivileged run on an image tree cannot make
                         * root-owned files; a new file then keeps ours. An
                         * existing owner we cannot keep is an error. */
                        if (!(r == -EPERM && !existed && !exact && geteuid() != 0))
                                goto fail;
                }
        }
        /* The ACL, SELinux label and other attributes are the inode's: a
         * rename would drop them with the old file. Before the fchmod,
         * which then sets the ACL's mask from the mode (the old file's
         * group bits are its mask: the same). After the fchown, which
         * clears security.capability. */
        if (old_fd >= 0 && (r = ht_copy_xattrs(old_fd, fd)) < 0)
                goto fail;
        if (fchmod(fd, mode) < 0) {
                r = -errno;
                goto fail;
        }
        *ret_fd = fd;
        *ret_tmp = TAKE_PTR(tmp);
        return 0;

fail:
        close(fd);
        if (tmp)
                (void)unlinkat(dir_fd, tmp, 0);
        return r;
}

/* exact: set mode and owner as given, whatever the old file has. */
static int write_atomic_at(int dir_fd, const char *name, const void *data, size_t len,
                           mode_t mode, uid_t uid, gid_t gid, bool exact, bool dir_sync) {
        int fd;
        _cleanup_free_ char *tmp = NULL;
        int r = write_temp_at(dir_fd, name, data, len, mode, uid, gid, exact, false, &fd, &tmp);
        if (r < 0)
                return r;
        r = fsync(fd) < 0 ? -errno : 0;
        if (close(fd) < 0 && r == 0)
                r = -errno;
        if (r < 0)
                goto fail;
        ht_fault_point("atomic-temp");
        if (renameat(dir_fd, tmp, dir_fd, name) < 0) {
                r = -errno;
                goto fail;
        }
        return dir_sync ? ht_fsync_dir(dir_fd) : 0;

fail:
        (void)unlinkat(dir_fd, tmp, 0);
        return r;
}

int ht_stage_file_at(int dir_fd, const char *name, const void *data, size_t len, mode_t mode_for_new,
                     ht_fsync_batch *data_batch, ht_staged_file *ret) {
        int fd;
        char *tmp;
        int r = write_temp_at(dir_fd, name, data, len, mode_for_new, HT_UID_ANY, HT_GID_ANY, false, false, &fd, &tmp);
        if (r < 0)
                return r;
        int dfd = fcntl(dir_fd, F_DUPFD_CLOEXEC, 3);
        if (dfd < 0) {
                r = -errno;
                close(fd);
                (void)unlinkat(dir_fd, tmp, 0);
                free(tmp);
                return r;
        }
        *ret = (ht_staged_file){.active = true, .dir_fd = dfd, .name = xstrdup(name), .tmp = tmp, .fd = -1};
        /* from here the temp file is ret's to remove, whatever happens */
        return ht_fsync_batch_add(data_batch, fd);
}

/* Give an unnamed temp file (O_TMPFILE) its temp name beside name. */
static int link_unnamed(int fd, int dir_fd, const char *name, char **ret_tmp) {
        for (int attempt = 0; attempt < 16; attempt++) {
                uint64_t rnd;
                int r = random_u64(&rnd);
                if (r < 0)
                        return r;
                _cleanup_free_ char *tmp = xasprintf(".#%.*s.%016llx", TEMP_NAME_KEEP, name, (unsigned long long)rnd);
                r = linkat(fd, "", dir_fd, tmp, AT_EMPTY_PATH) < 0 ? -errno : 0;
                if (r == -ENOENT || r == -EPERM) {
                        /* AT_EMPTY_PATH wants CAP_DAC_READ_SEARCH; /proc's
                         * link to the fd does not */
                        char proc[64];
                        snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
                        r = linkat(AT_FDCWD, proc, dir_fd, tmp, AT_SYMLINK_FOLLOW) < 0 ? -errno : 0;
                }
                if (r == -EEXIST)
                        continue;
                if (r < 0)
                        return r;
                *ret_tmp = TAKE_PTR(tmp);
                return 0;
        }
        return -EEXIST;
}

int ht_staged_file_install(const ht_context *c, ht_staged_file *s, ht_fsync_batch *dirs) {
        if (!s->active)
                return -EINVAL;
        if (s->fd >= 0 && !s->tmp) {
                int r = link_unnamed(s->fd, s->dir_fd, s->name, &s->tmp);
                if (r < 0)
                        return r;
                close(s->fd);
                s->fd = -1;
        }
        if (!s->tmp)
                return -EINVAL;
        ht_fault_point("atomic-temp");
        if (c)
                ht_context_cache_drop(c);
        if (renameat(s->dir_fd, s->tmp, s->dir_fd, s->name) < 0)
                return -errno;
        free(s->tmp);
        s->tmp = NULL;
        return ht_fsync_dir_or_batch(s->dir_fd, dirs);
}

void ht_staged_file_done(ht_staged_file *s) {
        if (!s->active)
                return;
        if (s->fd >= 0)
                close(s->fd);
        if (s->tmp)
                (void)unlinkat(s->dir_fd, s->tmp, 0);
        close(s->dir_fd);
        free(s->name);
        free(s->tmp);
        *s = (ht_staged_file){0};
}

int ht_write_file_atomic_at(int dir_fd, const char *name, const void *data, size_t len,
                            mode_t mode_for_new, uid_t uid_for_new, gid_t gid_for_new) {
        return write_atomic_at(dir_fd, name, data, len, mode_for_new, uid_for_new, gid_for_new, false, true);
}

int ht_write_file_atomic_at_nodirsync(int dir_fd, const char *name, const void *data, size_t len,
                                      mode_t mode_for_new) {
        return write_atomic_at(dir_fd, name, data, len, mode_for_new, HT_UID_ANY, HT_GID_ANY, false, false);
}

static char *parent_path(const char *path) {
        const char *slash = strrchr(path, '/');
        if (!slash || slash == path)
                return xstrdup("/");
        return xstrndup(path, (size_t)(slash - path));
}

int ht_mkdir_parents(const ht_context *c, const char *path, mode_t mode) {
        return ht_mkdir_parents_batched(c, path, mode, NULL);
}

int ht_mkdir_parents_batched(const ht_context *c, const char *path, mode_t mode, ht_fsync_batch *dirs) {
        int r = ht_path_check(path);
        if (r < 0)
                return r;
        _cleanup_free_ char *parent = parent_path(path);
        if (streq(parent, "/"))
                return 0;

        int dfd;
        _cleanup_free_ char *name = NULL;
        r = ht_resolve_parent_for_write(c, parent, &dfd, &name);
        if (r == -ENOENT) {
                /* the grandparent is missing too: make it first */
                r = ht_mkdir_parents_batched(c, parent, mode, dirs);
                if (r < 0)
                        return r;
                r = ht_resolve_parent_for_write(c, parent, &dfd, &name);
        }
        if (r < 0)
                return r;
        _cleanup_close_ int dir_fd = dfd;

        struct stat st;
        if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                if (errno != ENOENT)
                        return -errno;
                /* an append-only parent takes the new directory, and then
                 * a rollback cannot remove it */
                r = dir_locked(dir_fd);
                if (r < 0)
                        return r;
                bool made = mkdirat(dir_fd, name, mode) == 0;
                if (!made && errno != EEXIST)
                        return -errno;
                /* check what is there now without following a link that
                 * may have been put in its place */
                int fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (fd < 0)
                        return errno == ENOTDIR ? -ENOTDIR : -errno;
                /* mkdirat took the umask off: a root shell with umask 077
                 * would leave /etc/tmpfiles.d 0700, unreadable to the
                 * tools and users the distribution lets read it */
                r = made && fchmod(fd, mode) < 0 ? -errno : 0;
                close(fd);
                if (r < 0)
                        return r;
                /* its entry in the parent; the directory itself (mode
                 * included) is made durable by the fsync the write into it
                 * ends with (write_host_file), or the next level's */
                return ht_fsync_dir_or_batch(dir_fd, dirs);
        }
        if (S_ISDIR(st.st_mode))
                return 0;
        if (S_ISLNK(st.st_mode)) {
                /* an existing link to a directory inside the root is fine
                 * (the context follows it); a dangling one is not made */
                struct stat tst;
                r = ht_stat(c, parent, &tst);
                if (r == -ENOENT)
                        return -ELOOP;
                if (r < 0)
                        return r;
                return S_ISDIR(tst.st_mode) ? 0 : -ENOTDIR;
        }
        return -ENOTDIR;
}

int ht_mkdirat_exact(int dir_fd, const char *name, mode_t mode) {
        if (mkdirat(dir_fd, name, mode) < 0)
                return -errno;
        /* the umask may have taken bits off; what we just made is ours to
         * set, and a link swapped in meanwhile is not followed */
        int fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        int r = fchmod(fd, mode) < 0 ? -errno : 0;
        close(fd);
        return r;
}

int ht_mkdir_p(const char *path, mode_t mode) {
        if (isempty(path))
                return -EINVAL;
        int r = ht_mkdirat_exact(AT_FDCWD, path, mode);
        if (r == 0 || r == -EEXIST)
                return 0;
        if (r != -ENOENT)
                return r;
        _cleanup_free_ char *parent = parent_path(path);
        if (streq(parent, "/") || streq(parent, path))
                return -ENOENT;
        r = ht_mkdir_p(parent, mode);
        if (r < 0)
                return r;
        r = ht_mkdirat_exact(AT_FDCWD, path, mode);
        return r == -EEXIST ? 0 : r;
}

/* The directory a host file is written in, made with its parents (their
 * parents' fsyncs into dirs when batched) and resolved for writing: the
 * first steps of every write. */
static int parent_for_write(const ht_context *c, const char *path, ht_fsync_batch *dirs, int *ret_dir_fd,
                            char **ret_name) {
        int r = ht_mkdir_parents_batched(c, path, 0755, dirs);
        if (r < 0)
                return r;
        return ht_resolve_parent_for_write(c, path, ret_dir_fd, ret_name);
}

/* The one way a host file is written: parents made, the directory
 * resolved for writing, then the atomic replace (exact: force mode and
 * owner even over an existing file's). */
static int write_host_file(const ht_context *c, const char *path, const void *data, size_t len, mode_t mode,
                           uid_t uid, gid_t gid, bool exact, ht_fsync_batch *dirs) {
        int dfd;
        _cleanup_free_ char *name = NULL;
        int r = parent_for_write(c, path, dirs, &dfd, &name);
        if (r < 0)
                return r;
        _cleanup_close_ int dir_fd = dfd;
        r = write_atomic_at(dir_fd, name, data, len, mode, uid, gid, exact, !dirs);
        ht_context_cache_drop(c); /* nothing kept may outlive a write */
        if (r >= 0 && dirs)
                r = ht_fsync_batch_add_dir(dirs, dir_fd);
        return r;
}

/* exact: the mode and owner as given, whatever the file has (a restore) */
static int stage_host_file(const ht_context *c, const char *path, const void *data, size_t len, mode_t mode,
                           uid_t uid, gid_t gid, bool exact, ht_fsync_batch *data_batch, ht_fsync_batch *dirs,
                           ht_staged_file *ret) {
        int dfd;
        _cleanup_free_ char *name = NULL;
        int r = parent_for_write(c, path, dirs, &dfd, &name);
        if (r < 0)
                return r;
        _cleanup_close_ int dir_fd = dfd;
        /* a crash before the begin record that would have named them was
         * durable leaves earlier temps of this file no record knows: they
         * go when it is next written */
        (void)ht_cleanup_temp_files_at(dir_fd, name);
        int fd;
        char *tmp = NULL;
        r = write_temp_at(dir_fd, name, data, len, mode, uid, gid, exact, true, &fd, &tmp);
        ht_context_cache_drop(c); /* nothing kept may outlive a write */
        if (r < 0)
                return r;
        int keep = -1;
        if (!tmp && (keep = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0) {
                /* the batch closes its fd: an unnamed file needs one more */
                r = -errno;
                close(fd);
                return r;
        }
        *ret = (ht_staged_file){.active = true, .dir_fd = TAKE_FD(dir_fd), .name = TAKE_PTR(name), .tmp = tmp,
                                .fd = keep};
        /* from here the temp file is ret's to remove, whatever happens */
        return ht_fsync_batch_add(data_batch, fd);
}

int ht_stage_file(const ht_context *c, const char *path, const void *data, size_t len, mode_t mode_for_new,
                  uid_t uid_for_new, gid_t gid_for_new, ht_fsync_batch *data_batch, ht_fsync_batch *dirs,
                  ht_staged_file *ret) {
        return stage_host_file(c, path, data, len, mode_for_new, uid_for_new, gid_for_new, false, data_batch, dirs,
                               ret);
}

int ht_stage_file_exact(const ht_context *c, const char *path, const void *data, size_t len, mode_t mode, uid_t uid,
                        gid_t gid, ht_fsync_batch *data_batch, ht_fsync_batch *dirs, ht_staged_file *ret) {
        return stage_host_file(c, path, data, len, mode, uid, gid, true, data_batch, dirs, ret);
}

int ht_write_file_atomic(const ht_context *c, const char *path, const void *data, size_t len,
                         mode_t mode_for_new, uid_t uid_for_new, gid_t gid_for_new) {
        return write_host_file(c, path, data, len, mode_for_new, uid_for_new, gid_for_new, false, NULL);
}

int ht_write_file_atomic_batched(const ht_context *c, const char *path, const void *data, size_t len,
                                 mode_t mode_for_new, uid_t uid_for_new, gid_t gid_for_new, ht_fsync_batch *dirs) {
        return write_host_file(c, path, data, len, mode_for_new, uid_for_new, gid_for_new, false, dirs);
}

int ht_write_file_exact(const ht_context *c, const char *path, const void *data, size_t len,
                        mode_t mode, uid_t uid, gid_t gid) {
        return write_host_file(c, path, data, len, mode, uid, gid, true, NULL);
}

int ht_remove_file(const ht_context *c, const char *path) {
        return ht_remove_file_batched(c, path, NULL);
}

int ht_remove_file_batched(const ht_context *c, const char *path, ht_fsync_batch *dirs) {
        int dfd;
        _cleanup_free_ char *name = NULL;
        int r = ht_resolve_parent_for_write(c, path, &dfd, &name);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        _cleanup_close_ int dir_fd = dfd;
        struct stat st;
        if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                return errno == ENOENT ? 0 : -errno;
        if (S_ISLNK(st.st_mode))
                return -ELOOP;
        if (S_ISDIR(st.st_mode))
                return -EISDIR;
        ht_context_cache_drop(c);
        if (unlinkat(dir_fd, name, 0) < 0)
                return errno == ENOENT ? 0 : -errno;
        return ht_fsync_dir_or_batch(dir_fd, dirs);
}

char *ht_tool_temp_path(const char *path) {
        const char *slash = strrchr(path, '/');
        if (!slash)
                return xasprintf("." HT_TOOL_TEMP_FMT, path);
        return xasprintf("%.*s/." HT_TOOL_TEMP_FMT, (int)(slash - path), path, slash + 1);
}

bool ht_is_temp_name(const char *entry, const char *name) {
        const char *rnd;
        if (name) {
                /* a tool's output (ht_tool_temp_path) and the tool's own ".new" */
                _cleanup_free_ char *tool = xasprintf("." HT_TOOL_TEMP_FMT, name);
                if (streq(entry, tool) || (startswith(entry, tool) && streq(entry + strlen(tool), ".new")))
                        return true;
                _cleanup_free_ char *prefix = xasprintf(".#%.*s.", TEMP_NAME_KEEP, name);
                if (!startswith(entry, prefix))
                        return false;
                rnd = entry + strlen(prefix);
        } else {
                /* ".#" NAME "." hex, NAME not empty */
                size_t n = strlen(entry);
                if (!startswith(entry, ".#") || n < 2 + 1 + 1 + TEMP_RANDOM_HEX || entry[n - TEMP_RANDOM_HEX - 1] != '.')
                        return false;
                rnd = entry + n - TEMP_RANDOM_HEX;
        }
        if (strlen(rnd) != TEMP_RANDOM_HEX)
                return false;
        return strspn(rnd, "0123456789abcdef") == TEMP_RANDOM_HEX;
}

int ht_cleanup_temp_files_at(int dir_fd, const char *name) {
        int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        DIR *d = fdopendir(fd);
        if (!d) {
                int r = -errno;
                close(fd);
                return r;
        }
        int removed = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (!ht_is_temp_name(de->d_name, name))
                        continue;
                struct stat st;
                if (fstatat(dir_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
                        continue;
                if (unlinkat(dir_fd, de->d_name, 0) == 0)
                        removed++;
        }
        closedir(d);
        if (removed > 0) {
                int r = ht_fsync_dir(dir_fd);
                if (r < 0)
                        return r;
        }
        return removed;
}

int ht_cleanup_temp_files(const ht_context *c, const char *path) {
        int dfd;
        _cleanup_free_ char *name = NULL;
        int r = ht_resolve_parent_for_write(c, path, &dfd, &name);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        _cleanup_close_ int dir_fd = dfd;
        return ht_cleanup_temp_files_at(dir_fd, name);
}

int ht_check_regular_fd(int fd, size_t max, struct stat *ret_st) {
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (ret_st)
                *ret_st = st;
        if (!S_ISREG(st.st_mode))
                return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
        if ((uintmax_t)st.st_size > max)
                return -EFBIG;
        return 0;
}

int ht_read_regular_fd(int fd, size_t max, struct stat *ret_st, char **ret, size_t *ret_len) {
        struct stat st;
        int r = ht_check_regular_fd(fd, max, &st);
        if (r < 0)
                return r;
        r = ht_read_fd_hint(fd, max, (size_t)st.st_size, ret, ret_len);
        if (r < 0)
                return r;
        if (ret_st)
                *ret_st = st;
        return 0;
}

int ht_read_file_untrusted(const ht_context *c, const char *path, size_t max, ht_controllers *ctl,
                           char **ret, size_t *ret_len, char **ret_why) {
        ht_controllers who = ctl ? *ctl : (ht_controllers){0};
        int dfd;
        char *n;
        /* the type before the open: opening a device can do things (a
         * tape rewinds, a watchdog arms); the walk looked at the name it
         * ended on (S_IFMT: it did not) */
        struct stat st = {.st_mode = S_IFMT};
        int r = ht_resolve_parent_controlled(c, path, &who, &dfd, &n, &st);
        if (r < 0) {
                *ret_why = xstrdup(ht_strerror(-r));
                return r;
        }
        _cleanup_close_ int dir_fd = dfd;
        _cleanup_free_ char *name = n;
        if (st.st_mode == 0) {
                *ret_why = xstrdup(ht_strerror(ENOENT));
                return -ENOENT;
        }
        if (st.st_mode == S_IFMT && fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                r = -errno;
                *ret_why = xstrdup(ht_strerror(-r));
                return r;
        }
        if (!S_ISREG(st.st_mode)) {
                *ret_why = xasprintf("%s, not a regular file", ht_file_kind(st.st_mode));
                return S_ISDIR(st.st_mode) ? -EISDIR : S_ISLNK(st.st_mode) ? -ELOOP : -EINVAL;
        }
        _cleanup_close_ int fd = openat(dir_fd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
                r = -errno;
                *ret_why = xstrdup(ht_strerror(-r));
                return r;
        }
        struct stat fst;
        r = ht_check_regular_fd(fd, max, &fst);
        if (r == -EFBIG) {
                *ret_why = xasprintf("larger than %zu bytes (%jd)", max, (intmax_t)fst.st_size);
                return r;
        }
        if (r < 0 || fst.st_dev != st.st_dev || fst.st_ino != st.st_ino) {
                *ret_why = xstrdup("replaced while it was opened");
                return r < 0 ? r : -EAGAIN;
        }
        uid_t u;
        if (!ht_controllers_can_read(&who, &fst, &u)) {
                if (u == (uid_t)-1)
                        *ret_why = xasprintf("not readable by others, and others can change the way to it "
                                             "or what named it (owner %ju, mode %04o)",
                                             (uintmax_t)fst.st_uid, (unsigned)(fst.st_mode & 07777));
                else
                        *ret_why = xasprintf("uid %ju, who can change the way to it or what named it, could "
                                             "not read it (owner %ju, mode %04o)", (uintmax_t)u,
                                             (uintmax_t)fst.st_uid, (unsigned)(fst.st_mode & 07777));
                return -EACCES;
        }
        r = ht_read_fd_hint(fd, max, (size_t)fst.st_size, ret, ret_len);
        if (r < 0) {
                *ret_why = r == -EFBIG ? xasprintf("larger than %zu bytes", max) : xstrdup(ht_strerror(-r));
                return r;
        }
        ht_controllers_add(&who, &fst);
        if (ctl)
                *ctl = who;
        return 0;
}

int ht_read_file_at(int dir_fd, const char *name, size_t max, char **ret, size_t *ret_len) {
        _cleanup_close_ int fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return -errno;
        return ht_read_regular_fd(fd, max, NULL, ret, ret_len);
}

void ht_file_snapshot_free(ht_file_snapshot *s) {
        if (!s)
                return;
        free(s->path);
        free(s->content);
        strv_free(s->missing_dirs);
        free(s);
}

/* The parent directories of path that do not exist, outermost first. */
static int find_missing_dirs(const ht_context *c, const char *path, char ***ret) {
        _cleanup_free_ char *parent = parent_path(path);
        char **l = NULL;
        for (const char *p = parent + 1; *p; ) {
                size_t n = strcspn(p, "/");
                p += n;
                _cleanup_free_ char *prefix = xstrndup(parent, (size_t)(p - parent));
                struct stat st;
                if (l || ht_lstat(c, prefix, &st) == -ENOENT)
                        strv_push(&l, prefix);
                while (*p == '/')
                        p++;
        }
        *ret = l;
        return 0;
}

int ht_file_snapshot_take(const ht_context *c, const char *path, ht_file_snapshot **ret) {
        int dfd, fd = -1;
        _cleanup_free_ char *name = NULL;
        int r = ht_resolve_parent_for_write(c, path, &dfd, &name);
        if (r < 0 && r != -ENOENT)
                return r;
        ht_file_snapshot *s = xcalloc(1, sizeof(*s));
        s->path = xstrdup(path);
        if (r == -ENOENT) {
                /* a parent directory is missing: so is the file */
                find_missing_dirs(c, path, &s->missing_dirs);
                *ret = s;
                return 0;
        }
        _cleanup_close_ int dir_fd = dfd;

        struct stat st;
        if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                r = -errno;
                if (r == -ENOENT) {
                        *ret = s;
                        return 0;
                }
                goto fail;
        }
        if (S_ISLNK(st.st_mode)) {
                r = -ELOOP;
                goto fail;
        }
        if (!S_ISREG(st.st_mode)) {
                r = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
                goto fail;
        }
        fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
                r = -errno;
                goto fail;
        }
        struct stat fst;
        if (fstat(fd, &fst) < 0) {
                r = -errno;
                goto fail;
        }
        if (fst.st_dev != st.st_dev || fst.st_ino != st.st_ino) {
                r = -EAGAIN; /* replaced under us */
                goto fail;
        }
        r = ht_read_fd(fd, HT_FILE_MAX, &s->content, &s->len);
        if (r < 0)
                goto fail;
        s->existed = true;
        s->mode = fst.st_mode & 07777;
        s->uid = fst.st_uid;
        s->gid = fst.st_gid;
        close(fd);
        *ret = s;
        return 0;

fail:
        if (fd >= 0)
                close(fd);
        ht_file_snapshot_free(s);
        return r;
}

int ht_file_restore(const ht_context *c, const ht_file_snapshot *s) {
        return ht_file_restore_batched(c, s, NULL);
}

int ht_file_restore_batched(const ht_context *c, const ht_file_snapshot *s, ht_fsync_batch *dirs) {
        if (s->existed)
                return write_host_file(c, s->path, s->content ? s->content : "", s->len, s->mode, s->uid, s->gid,
                                       true, dirs);
        int r = ht_remove_file_batched(c, s->path, dirs);
        if (r < 0)
                return r;
        /* directories made for the file go too, deepest first, if empty */
        for (size_t i = strv_length(s->missing_dirs); i > 0; i--) {
                const char *dir = s->missing_dirs[i - 1];
                int dfd;
                _cleanup_free_ char *name = NULL;
                r = ht_resolve_parent_for_write(c, dir, &dfd, &name);
                if (r == -ENOENT)
                        continue;
                if (r < 0)
                        return r;
                struct stat st;
                if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
                    unlinkat(dfd, name, AT_REMOVEDIR) == 0)
                        (void)ht_fsync_dir_or_batch(dfd, dirs);
                close(dfd);
        }
        return 0;
}

/* The one [word] of a choice list such as "always [madvise] never"
 * (mm/huge_memory.c enabled_show/defrag_show, mm/shmem.c
 * shmem_enabled_show, block/elevator.c elv_iosched_show print the list with
 * the current one bracketed), NULL when raw is not such a list. */
static char *choice_word(const char *raw) {
        _cleanup_strv_free_ char **words = strv_split(raw, " \t");
        char *found = NULL;
        for (size_t i = 0; words && words[i]; i++) {
                const char *w = words[i];
                size_t n = strlen(w);
                if (!strpbrk(w, "[]"))
                        continue;
                /* one word, wholly bracketed, once */
                bool marked = n >= 3 && w[0] == '[' && strcspn(w + 1, "[]") == n - 2 && w[n - 1] == ']';
                if (found || !marked) {
                        free(found);
                        return NULL;
                }
                found = xstrndup(w + 1, n - 2);
        }
        return found;
}

/* Every field a decimal integer: what proc_dointvec and
 * proc_doulongvec_minmax print, tab-separated (kernel/sysctl.c,
 * __do_proc_dointvec: proc_put_char(..., '\t')) and parse separated by any
 * whitespace: kernel.sem, net.ipv4.ip_local_port_range, tcp_rmem. */
static bool numeric_fields(const char *raw) {
        _cleanup_strv_free_ char **words = strv_split(raw, " \t");
        if (!words || !words[0])
                return false;
        for (size_t i = 0; words[i]; i++) {
                const char *w = words[i] + (words[i][0] == '-');
                if (!*w || strspn(w, "0123456789") != strlen(w))
                        return false;
        }
        return true;
}

/* A kernel choice file ("always [madvise] never") takes one of its words
 * and then shows the list with that one marked; it refuses anything else
 * with EINVAL, the list it shows included. list is such a line. */
static int choice_select(const char *list, const char *value, char **ret_shown) {
        if (isempty(value) || strpbrk(value, " \t[]"))
                return -EINVAL;
        _cleanup_strv_free_ char **words = strv_split(list, " \t");
        bool found = false;
        for (size_t i = 0; words && words[i]; i++) {
                char *w = words[i];
                size_t n = strlen(w);
                if (n >= 2 && w[0] == '[' && w[n - 1] == ']') {
                        memmove(w, w + 1, n - 2);
                        w[n - 2] = 0;
                }
                if (streq(w, value)) {
                        char *marked = xasprintf("[%s]", w);
                        free(words[i]);
                        words[i] = marked;
                        found = true;
                }
        }
        if (!found)
                return -EINVAL;
        *ret_shown = strv_join(words, " ");
        return 0;
}

int ht_write_kernel_value(const ht_context *c, const char *path, const char *value, char **ret_readback) {
        if (!value || has_control_chars(value))
                return -EINVAL;
        _cleanup_close_ int fd = ht_open(c, path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0);
        if (fd < 0)
                return fd;
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EINVAL;
        /* procfs and sysfs take the value as one write at offset 0;
         * ordinary files (fixture trees) must lose their old bytes, and one
         * that stands for a choice file behaves as the kernel's does, so a
         * fixture refuses what the kernel would refuse. */
        struct statfs sfs;
        if (fstatfs(fd, &sfs) < 0)
                return -errno;
        _cleanup_free_ char *shown = NULL;
        if (sfs.f_type != PROC_SUPER_MAGIC && sfs.f_type != SYSFS_MAGIC) {
                _cleanup_free_ char *cur = NULL;
                if (ht_read_line(c, path, &cur) >= 0 && strchr(cur, '[')) {
                        int r = choice_select(cur, value, &shown);
                        if (r < 0)
                                return r;
                } else if (startswith(path, "/proc/sys/") && numeric_fields(value)) {
                        /* and a sysctl of integer fields prints them
                         * tab-separated, whatever separated them on write */
                        _cleanup_strv_free_ char **f = strv_split(value, " \t");
                        shown = strv_join(f, "\t");
                }
                if (ftruncate(fd, 0) < 0)
                        return -errno;
        }

        _cleanup_free_ char *line = xasprintf("%s\n", shown ? shown : value);
        size_t len = strlen(line);
        ssize_t n;
        do
                n = write(fd, line, len);
        while (n < 0 && errno == EINTR);
        ht_context_cache_drop(c); /* the read-back must see the kernel's answer */
        if (n < 0)
                return -errno;
        if ((size_t)n != len)
                return -EIO;
        int fd2 = TAKE_FD(fd);
        if (close(fd2) < 0)
                return -errno;
        if (!ret_readback)
                return 0;
        return ht_read_line(c, path, ret_readback);
}

bool ht_kernel_values_equal(const char *a, const char *b) {
        if (!a || !b)
                return a == b;
        return ht_ws_equal(a, b);
}

char *ht_kernel_value_effective(const char *raw) {
        const char *open = strchr(raw, '[');
        const char *close = open ? strchr(open, ']') : NULL;
        if (open && close)
                return xstrndup(open + 1, (size_t)(close - open - 1));
        return normalize_ws(raw);
}

char *ht_kernel_value_to_restore(const char *raw) {
        char *w = choice_word(raw);
        if (w)
                return w;
        /* only numbers are folded: a string's blanks (core_pattern) are its own */
        return numeric_fields(raw) ? normalize_ws(raw) : xstrdup(raw);
}

/* ==== The trust policy for hosttune's own configuration (profiles, rules,
 * tuned profiles): what root reads as instructions must be root's. */

#define HT_INSECURE_ENV "HOSTTUNE_INSECURE_PROFILES"

/* A refusal of the trust policy, -EPERM: what is wrong, then the one
 * explanation every refusal ends with, the fix or the escape hatch. */
_printf_(4, 5) static int refuse(char **ret_error, const char *fix, const char *fix_path, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        _cleanup_free_ char *what = xvasprintf(fmt, ap);
        va_end(ap);
        *ret_error = xasprintf("%s (%s %s, or set " HT_INSECURE_ENV "=1)", what, fix, fix_path);
        return -EPERM;
}

/* The trust check on the stat of the file already open. */
static int check_trust(const struct stat *st, const char *path, bool as_root, char **ret_error) {
        if (!as_root)
                return 0;
        /* Escape hatch for test rigs and image builds whose checkout is not
         * root-owned; documented in hosttune.profile(5). */
        if (ht_env_true(HT_INSECURE_ENV))
                return 0;
        if (st->st_uid != 0) {
                return refuse(ret_error, "chown root", path,
                              "%s: owned by uid %u, not root: refusing to use it while running as root",
                              path, (unsigned)st->st_uid);
        }
        if (st->st_mode & (S_IWGRP | S_IWOTH)) {
                return refuse(ret_error, "chmod go-w", path,
                              "%s: writable by group or others (mode %04o): refusing to use it while "
                              "running as root", path, (unsigned)(st->st_mode & 07777));
        }
        return 0;
}

/* hosttune never changes its ids: asked once */
static uid_t own_euid(void) {
        static uid_t euid = (uid_t)-1;
        if (euid == (uid_t)-1)
                euid = geteuid();
        return euid;
}

/* Whether uid may own a directory on the way to a profile: root, or the
 * user running hosttune (whose own files they are anyway). */
static bool dir_owner_ok(uid_t uid, uid_t euid) {
        return uid == 0 || uid == euid;
}

/* Real directories whose chain check_dir_chain passed in this process:
 * every directory of such a chain is owned by root (or us) and, but for
 * sticky ones above the first, writable by nobody else, so only root (or
 * we) could make it fail since; a run loads its profiles and rules from a
 * handful of directories, and each file would stat the whole chain again.
 * Failures are not kept: their message is made each time. */
#define TRUSTED_DIRS_MAX 16
static char *trusted_dirs[TRUSTED_DIRS_MAX];
static uid_t trusted_dirs_euid;

/* A table of TRUSTED_DIRS_MAX names, filled from the front. */
static bool dir_table_has(char *const *table, const char *dir) {
        for (size_t i = 0; i < TRUSTED_DIRS_MAX && table[i]; i++)
                if (streq(table[i], dir))
                        return true;
        return false;
}

/* false when the table is full */
static bool dir_table_add(char **table, const char *dir) {
        for (size_t i = 0; i < TRUSTED_DIRS_MAX; i++)
                if (!table[i]) {
                        table[i] = xstrdup(dir);
                        return true;
                }
        return false;
}

static bool dir_chain_known(const char *dir, uid_t euid) {
        return euid == trusted_dirs_euid && dir_table_has(trusted_dirs, dir);
}

static void dir_chain_remember(const char *dir, uid_t euid) {
        if (trusted_dirs[0] && euid != trusted_dirs_euid)
                return;
        trusted_dirs_euid = euid;
        dir_table_add(trusted_dirs, dir);
}

/* The directories above such a directory, which passed the rule for
 * those above (owned by root or us, writable by others only when
 * sticky) in this process: a chain that reaches one of them passed from
 * there up, by the same reasoning (only root or we could change that).
 * The rules directory beside the profiles' one stats /tmp and / once. */
static char *trusted_above[TRUSTED_DIRS_MAX];

static bool dir_above_known(const char *dir, uid_t euid) {
        return euid == trusted_dirs_euid && trusted_dirs[0] && dir_table_has(trusted_above, dir);
}

/* After dir_chain_remember(dir): each directory above dir. */
static void dir_above_remember(const char *dir, uid_t euid) {
        if (euid != trusted_dirs_euid)
                return;
        _cleanup_free_ char *d = xstrdup(dir);
        while (!streq(d, "/")) {
                char *slash = strrchr(d, '/');
                if (slash == d)
                        slash[1] = 0;
                else
                        *slash = 0;
                if (dir_above_known(d, euid) || !dir_table_add(trusted_above, d))
                        return; /* those above it are known, or no room */
        }
}

/* The directory dir (a real path) and those above it, for a profile found
 * in it as shown. dir itself: owned by root (or us) and not writable by
 * group or others, sticky or not (in a /tmp-like directory anyone may
 * add a name: a link to any root-owned profile under a new name). Above
 * it: owned by root (or us), and writable by others only when sticky,
 * where nobody but its owner may rename or replace the directory below. */
static int check_dir_chain(const char *dir, const char *shown, uid_t euid, char **ret_error) {
        if (dir_chain_known(dir, euid))
                return 0;
        _cleanup_free_ char *d = xstrdup(dir);
        bool first = true;
        for (;;) {
                if (!first && dir_above_known(d, euid)) {
                        dir_chain_remember(dir, euid);
                        dir_above_remember(dir, euid);
                        return 0;
                }
                struct stat st;
                if (stat(d, &st) < 0) {
                        int r = -errno;
                        *ret_error = xasprintf("%s: found through %s: %s", shown, d, ht_strerror(-r));
                        return r;
                }
                const char *fix = euid == 0 ? "root" : "root or you";
                if (!dir_owner_ok(st.st_uid, euid)) {
                        return refuse(ret_error, "chown root", d,
                                      "%s: found through %s, owned by uid %u, not %s: refusing it, since "
                                      "its owner can put any file there", shown, d, (unsigned)st.st_uid, fix);
                }
                if ((st.st_mode & (S_IWGRP | S_IWOTH)) && (first || !(st.st_mode & S_ISVTX))) {
                        return refuse(ret_error, "chmod go-w", d,
                                      "%s: found through %s, writable by group or others (mode %04o): "
                                      "refusing it, since anyone who may write there can put a file or "
                                      "a link there", shown, d, (unsigned)(st.st_mode & 07777));
                }
                if (streq(d, "/")) {
                        dir_chain_remember(dir, euid);
                        dir_above_remember(dir, euid);
                        return 0;
                }
                char *slash = strrchr(d, '/');
                if (slash == d)
                        slash[1] = 0;
                else
                        *slash = 0;
                first = false;
        }
}

/* path without its last n components ("/" at most); NULL when it has
 * fewer. */
static char *strip_components(const char *path, unsigned n) {
        char *d = xstrdup(path);
        for (unsigned i = 0; i < n; i++) {
                char *slash = strrchr(d, '/');
                if (!slash) {
                        free(d);
                        return NULL;
                }
                if (slash == d) {
                        slash[1] = 0;
                        break;
                }
                *slash = 0;
        }
        return d;
}

/* check_dir_chain on the real path of dir; *ret_real (may be NULL) gets it. */
static int check_dir_real(const char *dir, const char *shown, uid_t euid, char **ret_real, char **ret_error) {
        _cleanup_free_ char *real = realpath(dir, NULL);
        if (!real) {
                int r = -errno;
                *ret_error = xasprintf("%s: %s: %s", shown, dir, ht_strerror(-r));
                return r;
        }
        int r = check_dir_chain(real, shown, euid, ret_error);
        if (r >= 0 && ret_real)
                *ret_real = TAKE_PTR(real);
        return r;
}

int ht_trust_check_dirs(int fd, const char *path, unsigned names, char **ret_error) {
        /* the same escape hatch as for the files themselves */
        if (ht_env_true(HT_INSECURE_ENV))
                return 0;
        uid_t euid = own_euid();
        /* where the name was found: the directory searched (a tuned
         * profile's NAME/tuned.conf: the directory above NAME), then the
         * file's own directory, reached as the name leads */
        _cleanup_free_ char *searched = strip_components(path, names ? names : 1);
        _cleanup_free_ char *own = strip_components(path, 1);
        _cleanup_free_ char *own_real = NULL;
        if (!searched || !own)
                return 0; /* a relative name: the caller's own directory */
        /* one name (a profile, a rules file): the directory searched is
         * the file's own, resolved once */
        int r = check_dir_real(searched, path, euid, names > 1 ? NULL : &own_real, ret_error);
        if (r >= 0 && names > 1)
                r = check_dir_real(own, path, euid, &own_real, ret_error);
        if (r < 0)
                return r;
        /* where the file is, when a link led elsewhere: the file opened */
        char proc[64], target[PATH_MAX];
        snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
        ssize_t n = readlink(proc, target, sizeof(target) - 1);
        if (n <= 0 || target[0] != '/')
                return 0; /* no /proc: the directories searched are what was asked for */
        target[n] = 0;
        _cleanup_free_ char *target_dir = strip_components(target, 1);
        if (!target_dir || streq_ptr(target_dir, own_real))
                return 0;
        return check_dir_chain(target_dir, path, euid, ret_error);
}

int ht_trust_check_file(int fd, const char *path, bool as_root, char **ret_error) {
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        return check_trust(&st, path, as_root, ret_error);
}

/* ht_read_trusted; names 0: the directories were checked by the caller */
static int read_trusted(int fd, const char *shown, size_t max, unsigned names, char **ret, size_t *ret_len,
                        char **ret_error) {
        struct stat st;
        int r = ht_check_regular_fd(fd, max, &st);
        if (r == -EFBIG) {
                *ret_error = xasprintf("%s: too large (%lld bytes, at most %zu)", shown,
                                       (long long)st.st_size, max);
                return r;
        }
        if (r == -EINVAL || r == -EISDIR) {
                *ret_error = xasprintf("%s: not a regular file", shown);
                return -EINVAL;
        }
        if (r < 0) {
                *ret_error = xasprintf("%s: %s", shown, ht_strerror(-r));
                return r;
        }
        r = check_trust(&st, shown, own_euid() == 0, ret_error);
        if (r >= 0 && names)
                r = ht_trust_check_dirs(fd, shown, names, ret_error);
        if (r < 0)
                return r;

        /* Read through the fd that was checked, so the file parsed is the
         * file trusted. */
        _cleanup_free_ char *buf = NULL;
        size_t len;
        r = ht_read_fd_hint(fd, max, (size_t)st.st_size, &buf, &len);
        if (r < 0) {
                *ret_error = xasprintf("%s: %s", shown, r == -EFBIG ? "too large" : ht_strerror(-r));
                return r;
        }
        /* configuration is text: a NUL would cut what the parser sees */
        if (memchr(buf, 0, len)) {
                *ret_error = xasprintf("%s: holds a NUL byte: not a text file", shown);
                return -EINVAL;
        }
        *ret = TAKE_PTR(buf);
        *ret_len = len;
        return 0;
}

int ht_read_trusted(int fd, const char *shown, size_t max, unsigned names, char **ret, size_t *ret_len,
                    char **ret_error) {
        return read_trusted(fd, shown, max, names ? names : 1, ret, ret_len, ret_error);
}

/* Search directories opened once, each checked as ht_trust_check_dirs
 * checks the directory searched: a profile or rules file found in one is
 * opened relative to the fd whose chain passed, so the file read is an
 * entry of the very directory checked. The string path is not walked
 * again between the check and the open (realpath() walked it after the
 * open, a readlink a component and a getcwd for a relative one, and a
 * link on the way could be swapped in between), and the file's own
 * /proc/self/fd link need not be read: opened O_NOFOLLOW in that
 * directory, it is in it. A run's search directories are resolved once;
 * one removed since holds nothing (rmdir takes only an empty one), so a
 * file missing from it looks again whether the name leads elsewhere. */
#define SEARCH_DIRS_MAX 8
static struct search_dir {
        char *path;
        int fd;
        dev_t dev;
        ino_t ino;
        bool checked;   /* false: offered by a listing, checked at first use */
} search_dirs[SEARCH_DIRS_MAX];
static size_t search_dirs_next;

static struct search_dir *search_dir_find(const char *dir) {
        for (size_t i = 0; i < SEARCH_DIRS_MAX; i++)
                if (search_dirs[i].path && streq(search_dirs[i].path, dir))
                        return &search_dirs[i];
        return NULL;
}

static void search_dir_forget(struct search_dir *s) {
        free(s->path);
        close(s->fd);
        *s = (struct search_dir){0};
}

/* A checked fd of dir (kept: not to be closed), -errno with *ret_error,
 * or -ENOSYS (no /proc to name the directory opened) for the caller to
 * take the path as before. */
static int search_dir_fd(const char *dir, const char *shown, uid_t euid, char **ret_error) {
        struct search_dir *s = search_dir_find(dir);
        if (s && s->checked)
                return s->fd;
        int fd;
        if (s) {
                /* the listing's fd: this directory as it was opened then */
                fd = s->fd;
                free(s->path);
                *s = (struct search_dir){0};
        } else if ((fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
                int r = -errno;
                *ret_error = xasprintf("%s: %s: %s", shown, dir, ht_strerror(-r));
                return r;
        }
        /* the directory opened, whatever the name leads to meanwhile */
        char proc[64], real[PATH_MAX];
        snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
        ssize_t n = readlink(proc, real, sizeof(real) - 1);
        struct stat st;
        if (n <= 0 || real[0] != '/' || fstat(fd, &st) < 0) {
                close(fd);
                return -ENOSYS;
        }
        real[n] = 0;
        int r = check_dir_chain(real, shown, euid, ret_error);
        if (r < 0) {
                close(fd);
                return r;
        }
        s = &search_dirs[search_dirs_next];
        search_dirs_next = (search_dirs_next + 1) % SEARCH_DIRS_MAX;
        if (s->path)
                search_dir_forget(s);
        *s = (struct search_dir){.path = xstrdup(dir), .fd = fd, .dev = st.st_dev, .ino = st.st_ino, .checked = true};
        return fd;
}

void ht_trusted_dir_offer(const char *dir, int fd) {
        if (ht_env_true(HT_INSECURE_ENV) || search_dir_find(dir)) {
                close(fd);
                return;
        }
        struct search_dir *s = &search_dirs[search_dirs_next];
        search_dirs_next = (search_dirs_next + 1) % SEARCH_DIRS_MAX;
        if (s->path)
                search_dir_forget(s);
        *s = (struct search_dir){.path = xstrdup(dir), .fd = fd};
}

bool ht_trusted_dir_kept(const char *dir) {
        const struct search_dir *s;
        return !ht_env_true(HT_INSECURE_ENV) && (s = search_dir_find(dir)) && s->checked;
}

/* The kept directory of dir removed or replaced since: dropped (true). */
static bool search_dir_stale(const char *dir) {
        struct search_dir *s = search_dir_find(dir);
        struct stat st;
        if (!s || (stat(dir, &st) == 0 && st.st_dev == s->dev && st.st_ino == s->ino))
                return false;
        search_dir_forget(s);
        return true;
}

int ht_read_trusted_path(const char *path, size_t max, char **ret, size_t *ret_len, char **ret_error) {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : NULL;
        /* a plain name in a directory: opened in the checked directory */
        if (base && base[0] && !streq(base, ".") && !streq(base, "..") && !ht_env_true(HT_INSECURE_ENV)) {
                _cleanup_free_ char *dir = strip_components(path, 1);
                for (int again = 1;; again--) {
                        int dfd = search_dir_fd(dir, path, own_euid(), ret_error);
                        if (dfd == -ENOSYS)
                                break;
                        if (dfd < 0)
                                return dfd;
                        /* O_NONBLOCK: a FIFO on the path must not hang the run */
                        _cleanup_close_ int fd =
                                openat(dfd, base, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | O_NOFOLLOW);
                        if (fd >= 0)
                                return read_trusted(fd, path, max, 0, ret, ret_len, ret_error);
                        int r = -errno;
                        if (r == -ENOENT && again && search_dir_stale(dir))
                                continue;
                        if (r != -ELOOP)
                                return ht_error(ret_error, r, "%s: %s", path, ht_strerror(-r));
                        /* a link: opened as named, and where it leads is
                         * checked too (ht_trust_check_dirs) */
                        break;
                }
        }
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0) {
                int r = -errno;
                return ht_error(ret_error, r, "%s: %s", path, ht_strerror(-r));
        }
        return read_trusted(fd, path, max, 1, ret, ret_len, ret_error);
}
