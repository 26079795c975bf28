#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>

#include "fileio.h"
#include "lock.h"
#include "util.h"

struct ht_lock {
        int fd;
        char *path;
};

/* Create the lock file 0644 whatever the umask (O_EXCL tells whether
 * we made it, and only then is its mode ours to set), else open it. */
static int open_or_create(int dir_fd, const char *path) {
        const int flags = O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
        for (int attempt = 0; attempt < 4; attempt++) {
                int fd = openat(dir_fd, path, flags | O_CREAT | O_EXCL, 0644);
                if (fd >= 0) {
                        if (fchmod(fd, 0644) < 0) {
                                int r = -errno;
                                close(fd);
                                return r;
                        }
                        return fd;
                }
                if (errno != EEXIST)
                        return -errno;
                fd = openat(dir_fd, path, flags);
                /* removed between the two opens: create it again */
                if (fd >= 0 || errno != ENOENT)
                        return fd >= 0 ? fd : -errno;
        }
        return -EAGAIN;
}

/* path: relative to dir_fd (a directory the caller resolved and made),
 * or a real path with dir_fd AT_FDCWD, whose directory is made here. */
static int open_lock_file(int dir_fd, const char *path, int *ret_fd) {
        int fd = open_or_create(dir_fd, path);
        if (fd == -ENOENT && dir_fd == AT_FDCWD) {
                _cleanup_free_ char *dir = xstrdup(path);
                char *slash = strrchr(dir, '/');
                if (slash && slash != dir) {
                        *slash = 0;
                        int r = ht_mkdir_p(dir, 0755);
                        if (r < 0)
                                return r;
                }
                fd = open_or_create(dir_fd, path);
        }
        if (fd < 0)
                return fd;
        struct stat st;
        if (fstat(fd, &st) < 0) {
                int r = -errno;
                close(fd);
                return r;
        }
        if (!S_ISREG(st.st_mode)) {
                close(fd);
                return -EINVAL;
        }
        *ret_fd = fd;
        return 0;
}

/* The pid the holder wrote, or 0 when it has not written it yet. */
static long read_holder(int fd) {
        char buf[32];
        ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
        if (n <= 0)
                return 0;
        buf[n] = 0;
        uint64_t pid;
        if (parse_u64(strstrip(buf), &pid) < 0 || pid == 0 || pid > INT32_MAX)
                return 0;
        return (long)pid;
}

static int try_lock(int dir_fd, const char *path, int *ret_fd, long *ret_holder) {
        int fd = -1;
        int r = open_lock_file(dir_fd, path, &fd);
        if (r < 0)
                return r;
        if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
                r = errno == EWOULDBLOCK ? -EBUSY : -errno;
                if (r == -EBUSY)
                        *ret_holder = read_holder(fd);
                close(fd);
                return r;
        }
        *ret_fd = fd;
        return 0;
}

/* name: under dir_fd, or the real path lock_path when dir_fd is AT_FDCWD;
 * lock_path names the lock in messages. */
static int lock_impl(int dir_fd, const char *name, const char *lock_path, bool wait, unsigned timeout_ms,
                     ht_lock **ret, char **ret_error) {
        if (isempty(lock_path) || lock_path[0] != '/') {
                if (ret_error)
                        *ret_error = xasprintf("lock %s: not an absolute path", lock_path ? lock_path : "(null)");
                return -EINVAL;
        }
        struct timespec start;
        clock_gettime(CLOCK_MONOTONIC, &start);
        unsigned delay_ms = 10;
        int fd = -1;
        long holder = 0;
        for (;;) {
                int r = try_lock(dir_fd, name, &fd, &holder);
                if (r == 0)
                        break;
                if (r != -EBUSY) {
                        /* O_NOFOLLOW: a link planted there could point
                         * the lock's writes at any file */
                        if (ret_error && r == -ELOOP)
                                *ret_error = xasprintf("lock %s is a symlink; refusing it", lock_path);
                        else if (ret_error)
                                *ret_error = xasprintf("cannot open lock %s: %s", lock_path, ht_strerror(-r));
                        return r;
                }
                struct timespec now;
                clock_gettime(CLOCK_MONOTONIC, &now);
                long long elapsed = (now.tv_sec - start.tv_sec) * 1000LL + (now.tv_nsec - start.tv_nsec) / 1000000;
                if (!wait || elapsed >= timeout_ms) {
                        if (ret_error) {
                                _cleanup_free_ char *who = holder > 0 ? xasprintf(" (pid %ld)", holder) : xstrdup("");
                                *ret_error = xasprintf("another hosttune%s is running; lock %s%s", who, lock_path,
                                                       wait ? " (gave up waiting)" : "");
                        }
                        return -EBUSY;
                }
                unsigned left = timeout_ms - (unsigned)elapsed;
                unsigned ms = delay_ms < left ? delay_ms : left;
                struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};
                nanosleep(&ts, NULL);
                if (delay_ms < 200)
                        delay_ms *= 2;
        }

        /* The pid is written after locking: a reader that finds the file
         * empty says so rather than naming a stale holder. */
        char pid[32];
        int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
        if (ftruncate(fd, 0) < 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
                int r = -errno;
                close(fd);
                if (ret_error)
                        *ret_error = xasprintf("cannot write lock %s: %s", lock_path, ht_strerror(-r));
                return r;
        }
        ht_lock *l = xcalloc(1, sizeof(*l));
        l->fd = fd;
        l->path = xstrdup(lock_path);
        *ret = l;
        return 0;
}

int ht_lock_acquire(const char *lock_path, ht_lock **ret, char **ret_error) {
        return lock_impl(AT_FDCWD, lock_path, lock_path, false, 0, ret, ret_error);
}

int ht_lock_acquire_wait(const char *lock_path, unsigned timeout_ms, ht_lock **ret, char **ret_error) {
        return lock_impl(AT_FDCWD, lock_path, lock_path, true, timeout_ms, ret, ret_error);
}

static int lock_ctx(const ht_context *c, bool wait, unsigned timeout_ms, ht_lock **ret, char **ret_error) {
        if (!c->lock_host)
                return lock_impl(AT_FDCWD, c->lock_path, c->lock_path, wait, timeout_ms, ret, ret_error);
        /* Beneath the root like any host path (issue 32): a tree whose run
         * or var/lib is a link must not put the lock on the build machine. */
        int dfd = -1;
        _cleanup_free_ char *name = NULL;
        int r = ht_mkdir_parents(c, c->lock_host, 0755);
        if (r >= 0)
                r = ht_resolve_parent_for_write(c, c->lock_host, &dfd, &name);
        if (r < 0) {
                if (ret_error)
                        *ret_error = ht_root_path_error(c, "lock", c->lock_path, r);
                return r;
        }
        r = lock_impl(dfd, name, c->lock_path, wait, timeout_ms, ret, ret_error);
        close(dfd);
        return r;
}

int ht_lock_acquire_ctx(const ht_context *c, ht_lock **ret, char **ret_error) {
        return lock_ctx(c, false, 0, ret, ret_error);
}

int ht_lock_acquire_ctx_wait(const ht_context *c, unsigned timeout_ms, ht_lock **ret, char **ret_error) {
        return lock_ctx(c, true, timeout_ms, ret, ret_error);
}

void ht_lock_release(ht_lock *l) {
        if (!l)
                return;
        /* clear our pid while we still hold the lock */
        (void)!ftruncate(l->fd, 0);
        close(l->fd);
        free(l->path);
        free(l);
}
