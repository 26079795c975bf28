/* The journal room: the state directory and its journal/ directory,
 * opened and checked before anything there is trusted or written. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>

#include "audit-log.h"
#include "fault.h"
#include "fileio.h"
#include "journal-internal.h"
#include "journal.h"
#include "settings-json.h"
#include "sha256.h"
#include "util.h"

/* ---- the state directory --------------------------------------------- */

static int check_trusted(int fd, const char *what, const char *path, char **ret_error) {
        struct stat st;
        if (fstat(fd, &st) < 0)
                return ht_error(ret_error, -errno, "%s %s: %s", what, path, strerror(errno));
        if (!S_ISDIR(st.st_mode))
                return ht_error(ret_error, -ENOTDIR, "%s %s is not a directory; refusing it", what, path);
        if (st.st_uid != geteuid())
                return ht_error(ret_error, -EPERM, "%s %s is owned by uid %u, not by us (uid %u); refusing it",
                                 what, path, (unsigned)st.st_uid, (unsigned)geteuid());
        if (st.st_mode & 022)
                return ht_error(ret_error, -EPERM,
                                 "%s %s is writable by group or others (mode %04o); refusing it",
                                 what, path, (unsigned)(st.st_mode & 07777));
        return 0;
}

/* The state directory under the root (c->state_dir_host), resolved
 * through the root context like any host path, so that a link in the tree
 * (var, var/lib) cannot carry the journal out of it (issue 32): into the
 * build machine's /var/lib, whose journal a rollback of the image would
 * then consume. ret_fd: O_RDONLY directory fd, or -ENOENT (no message)
 * when it does not exist and !create. */
static int open_state_dir_in_root(const ht_context *c, bool create, ht_fsync_batch *sync, int *ret_fd,
                                  char **ret_error) {
        const char *host = c->state_dir_host, *sd = c->state_dir;
        int r = 0;
        if (create && (r = ht_mkdir_parents_batched(c, host, 0755, sync)) < 0) {
                if (ret_error)
                        *ret_error = ht_root_path_error(c, "state directory", sd, r);
                return r;
        }
        int dfd;
        _cleanup_free_ char *name = NULL;
        r = create ? ht_resolve_parent_for_write(c, host, &dfd, &name) : ht_resolve_parent(c, host, false, &dfd, &name);
        if (r == -ENOENT && !create)
                return -ENOENT;
        if (r < 0) {
                if (ret_error)
                        *ret_error = ht_root_path_error(c, "state directory", sd, r);
                return r;
        }
        _cleanup_close_ int dir_fd = dfd;
        if (create) {
                r = ht_mkdirat_exact(dir_fd, name, 0700);
                if (r == 0)
                        /* the journal must survive a crash as well as the
                         * changes it guards: make its entry durable */
                        (void)ht_fsync_dir_or_batch(dir_fd, sync);
                else if (r != -EEXIST)
                        return ht_error(ret_error, r, "cannot create state directory %s: %s", sd,
                                         ht_strerror(-r));
        }
        struct stat st;
        if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                if (errno == ENOENT && !create)
                        return -ENOENT;
                return ht_error(ret_error, -errno, "state directory %s: %s", sd, strerror(errno));
        }
        if (S_ISLNK(st.st_mode))
                return ht_error(ret_error, -ELOOP, "state directory %s is a symlink; refusing it", sd);
        int fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return ht_error(ret_error, -errno, "state directory %s: %s", sd, strerror(errno));
        *ret_fd = fd;
        return 0;
}

/* An explicit --state-dir: a real path on the machine hosttune runs on. */
static int open_state_dir_given(const ht_context *c, bool create, ht_fsync_batch *sync, int *ret_fd,
                                char **ret_error) {
        const char *sd = c->state_dir;
        if (isempty(sd) || sd[0] != '/')
                return ht_error(ret_error, -EINVAL, "state directory %s: not an absolute path",
                                 sd ? sd : "(none)");
        if (create) {
                _cleanup_free_ char *parent = xstrdup(sd);
                char *slash = strrchr(parent, '/');
                slash[slash == parent ? 1 : 0] = 0;
                int r = ht_mkdir_p(parent, 0755);
                if (r < 0)
                        return ht_error(ret_error, r, "cannot create %s: %s", parent, ht_strerror(-r));
                r = ht_mkdirat_exact(AT_FDCWD, sd, 0700);
                if (r == 0) {
                        /* the journal must survive a crash as well as the
                         * changes it guards: make its entry durable */
                        int pfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                        if (pfd >= 0 && sync)
                                (void)ht_fsync_batch_add(sync, pfd);
                        else if (pfd >= 0) {
                                (void)fsync(pfd);
                                close(pfd);
                        }
                } else if (r != -EEXIST)
                        return ht_error(ret_error, r, "cannot create state directory %s: %s", sd,
                                         ht_strerror(-r));
        }
        struct stat st;
        if (lstat(sd, &st) < 0) {
                if (errno == ENOENT && !create)
                        return -ENOENT;
                return ht_error(ret_error, -errno, "state directory %s: %s", sd, strerror(errno));
        }
        if (S_ISLNK(st.st_mode))
                return ht_error(ret_error, -ELOOP, "state directory %s is a symlink; refusing it", sd);
        int fd = open(sd, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return ht_error(ret_error, -errno, "state directory %s: %s", sd, strerror(errno));
        *ret_fd = fd;
        return 0;
}

/* Open STATE/journal (O_RDONLY directory fd), creating both when asked.
 * -ENOENT (without a message) when it does not exist and !create. The
 * fsyncs of what is created go to sync (NULL: done at once). */
int journal_open_dir(const ht_context *c, bool create, ht_fsync_batch *sync, int *ret_fd,
                     char **ret_error) {
        const char *sd = c->state_dir;
        ht_context *memo = (ht_context *)c; /* its memo fields only */
        if (create)
                memo->memo_journal_absent = false;
        else if (memo->memo_journal_absent)
                return -ENOENT;
        _cleanup_close_ int sfd = -1;
        int r = c->state_dir_host ? open_state_dir_in_root(c, create, sync, &sfd, ret_error)
                                  : open_state_dir_given(c, create, sync, &sfd, ret_error);
        if (r == -ENOENT && !create)
                memo->memo_journal_absent = true;
        if (r < 0)
                return r;
        r = check_trusted(sfd, "state directory", sd, ret_error);
        if (r < 0)
                return r;
        struct stat st;
        _cleanup_free_ char *jd = xasprintf("%s/" JOURNAL_DIR, sd);
        if (create) {
                r = ht_mkdirat_exact(sfd, JOURNAL_DIR, 0700);
                if (r == 0)
                        (void)ht_fsync_dir_or_batch(sfd, sync);
                else if (r != -EEXIST)
                        return ht_error(ret_error, r, "cannot create %s: %s", jd, ht_strerror(-r));
        }
        if (fstatat(sfd, JOURNAL_DIR, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                if (errno == ENOENT && !create) {
                        memo->memo_journal_absent = true;
                        return -ENOENT;
                }
                return ht_error(ret_error, -errno, "journal directory %s: %s", jd, strerror(errno));
        }
        if (S_ISLNK(st.st_mode))
                return ht_error(ret_error, -ELOOP, "journal directory %s is a symlink; refusing it", jd);
        int fd = openat(sfd, JOURNAL_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return ht_error(ret_error, -errno, "journal directory %s: %s", jd, strerror(errno));
        r = check_trusted(fd, "journal directory", jd, ret_error);
        if (r < 0) {
                close(fd);
                return r;
        }
        *ret_fd = fd;
        return 0;
}

int ht_state_dir_create(const ht_context *c, char **ret_error) {
        int fd;
        int r = journal_open_dir(c, true, NULL, &fd, ret_error);
        if (r < 0)
                return r;
        close(fd);
        return 0;
}

/* Remove a directory we made (files, and one level of subdirectories of
 * files: a transaction directory). Symlinks are unlinked, never followed. */
int journal_remove_tree_at(int parent_fd, const char *name, int depth) {
        int fd = openat(parent_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        DIR *d = fdopendir(fd);
        if (!d) {
                int r = -errno;
                close(fd);
                return r;
        }
        int r = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (streq(de->d_name, ".") || streq(de->d_name, ".."))
                        continue;
                struct stat st;
                if (fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
                        continue;
                if (S_ISDIR(st.st_mode)) {
                        if (depth > 0)
                                r = journal_remove_tree_at(fd, de->d_name, depth - 1);
                        else
                                r = -ENOTEMPTY;
                } else if (unlinkat(fd, de->d_name, 0) < 0)
                        r = -errno;
        }
        closedir(d);
        if (unlinkat(parent_fd, name, AT_REMOVEDIR) < 0 && r == 0)
                r = -errno;
        return r;
}
