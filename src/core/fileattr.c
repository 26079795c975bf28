#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <sys/xattr.h>

#include "fileattr.h"
#include "fileio.h"
#include "util.h"

/* Bound on one attribute's value: an ACL of a few hundred entries or a
 * label is far below (the kernel's own limit is XATTR_SIZE_MAX, 64 KiB). */
#define XATTR_VALUE_MAX (64u * 1024)

/* statfs's f_flags holds the mount's ST_* flags (Linux 2.6.36,
 * include/linux/statfs.h); glibc does not name the bit */
#ifndef ST_VALID
#define ST_VALID 0x0020
#endif

static bool xattr_content_bound(const char *name) {
        return streq(name, "security.ima") || streq(name, "security.evm");
}

/* declared in fileio.h, beside the reads that name it */
const char *ht_file_kind(mode_t mode) {
        switch (mode & S_IFMT) {
        case S_IFREG: return "a regular file";
        case S_IFDIR: return "a directory";
        case S_IFLNK: return "a symbolic link";
        case S_IFIFO: return "a FIFO";
        case S_IFCHR: return "a character device";
        case S_IFBLK: return "a block device";
        case S_IFSOCK: return "a socket";
        }
        return "not a regular file";
}

int ht_copy_xattrs(int from, int to) {
        ssize_t n = flistxattr(from, NULL, 0);
        if (n < 0)
                return errno == EOPNOTSUPP ? 0 : -errno;
        if (n == 0)
                return 0;
        _cleanup_free_ char *names = xmalloc((size_t)n + 1);
        /* the list may have grown since: ERANGE, taken as an error */
        n = flistxattr(from, names, (size_t)n);
        if (n < 0)
                return -errno;
        names[n] = '\0';
        _cleanup_free_ char *value = xmalloc(XATTR_VALUE_MAX);
        for (const char *name = names; name < names + n; name += strlen(name) + 1) {
                if (!*name || xattr_content_bound(name))
                        continue;
                ssize_t len = fgetxattr(from, name, value, XATTR_VALUE_MAX);
                if (len < 0) {
                        if (errno == ENODATA) /* removed since the listing */
                                continue;
                        return -errno;
                }
                if (fsetxattr(to, name, value, (size_t)len, 0) < 0)
                        return -errno;
        }
        return 0;
}

int ht_file_locked_flag(int fd, const char **ret_flag) {
        int flags = 0;
        if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0)
                return errno == ENOTTY || errno == EOPNOTSUPP || errno == EINVAL ? 0 : -errno;
        if (flags & FS_IMMUTABLE_FL)
                return *ret_flag = "immutable", 1;
        if (flags & FS_APPEND_FL)
                return *ret_flag = "append-only", 1;
        return 0;
}

/* path's flag, through the root context without following a last link. */
static int locked_at(const ht_context *c, const char *path, bool dir, const char **ret_flag) {
        int dfd;
        _cleanup_free_ char *name = NULL;
        int r = ht_resolve_parent_for_write(c, path, &dfd, &name);
        if (r < 0)
                return r;
        _cleanup_close_ int dir_fd = dfd;
        _cleanup_close_ int fd = openat(dir_fd, name,
                                        O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC |
                                                (dir ? O_DIRECTORY : 0));
        if (fd < 0)
                return -errno;
        return ht_file_locked_flag(fd, ret_flag);
}

char *ht_locked_file_hint(const ht_context *c, const char *path) {
        const char *flag;
        _cleanup_free_ char *shown = ht_display_path(c, path);
        if (locked_at(c, path, false, &flag) > 0)
                return xasprintf(" (it is %s: 'chattr -%c %s' lets hosttune replace it; hosttune does not clear the "
                                 "flag itself)", flag, flag[0] == 'i' ? 'i' : 'a', shown);
        /* its directory, or the nearest one above that is there (apply
         * makes the rest in it) */
        _cleanup_free_ char *dir = xstrndup(path, (size_t)(strrchr(path, '/') - path));
        for (;;) {
                int r = *dir ? locked_at(c, dir, true, &flag) : 0;
                if (r > 0) {
                        _cleanup_free_ char *dshown = ht_display_path(c, dir);
                        return xasprintf(" (its directory %s is %s: 'chattr -%c %s' lets hosttune write there; "
                                         "hosttune does not clear the flag itself)", dshown, flag,
                                         flag[0] == 'i' ? 'i' : 'a', dshown);
                }
                if (r != -ENOENT)
                        return NULL;
                *strrchr(dir, '/') = 0;
        }
}

int ht_write_refusal(const ht_context *c, const char *path, bool removal) {
        struct statx stx;
        if (ht_lstatx(c, path, STATX_TYPE | STATX_NLINK, &stx) < 0)
                return 0;
        mode_t kind = stx.stx_mode & S_IFMT;
        /* the checks of fileio.c's write_temp_at and remove, in order */
        if (kind == S_IFLNK)
                return -ELOOP;
        if (kind == S_IFDIR)
                return -EISDIR;
        if (!removal && kind != S_IFREG)
                return -EINVAL;
        if (!removal && stx.stx_nlink > 1)
                return -EMLINK;
        const uint64_t locked = STATX_ATTR_IMMUTABLE | STATX_ATTR_APPEND;
        if ((stx.stx_attributes_mask & locked) == locked)
                return stx.stx_attributes & locked ? -EPERM : 0;
        const char *flag;
        return kind == S_IFREG && locked_at(c, path, false, &flag) > 0 ? -EPERM : 0;
}

int ht_dir_write_refusal(const ht_context *c, const char *path) {
        _cleanup_free_ char *dir = xstrndup(path, (size_t)(strrchr(path, '/') - path));
        for (;;) {
                int fd = ht_open_dir(c, *dir ? dir : "/");
                char *slash = strrchr(dir, '/');
                if (fd == -ENOENT && slash) {
                        *slash = 0;
                        continue;
                }
                if (fd < 0)
                        return fd;
                struct statfs sfs;
                struct statx stx;
                int r = fstatfs(fd, &sfs) < 0 ? -errno : 0;
                if (r == 0 && (sfs.f_flags & ST_VALID) && (sfs.f_flags & ST_RDONLY))
                        r = -EROFS;
                else if (r == 0 && statx(fd, "", AT_EMPTY_PATH, 0, &stx) == 0 &&
                         (stx.stx_attributes & stx.stx_attributes_mask &
                          (STATX_ATTR_IMMUTABLE | STATX_ATTR_APPEND)))
                        r = -EPERM;
                close(fd);
                return r;
        }
}

char *ht_write_error_hint(const ht_context *c, const char *path, int r) {
        struct stat st;
        if (r == -EPERM) {
                char *locked = ht_locked_file_hint(c, path);
                if (locked)
                        return locked;
        } else if (r == -EINVAL && ht_lstat(c, path, &st) == 0 && !S_ISREG(st.st_mode))
                return xasprintf(" (it is %s, not a regular file: hosttune writes only regular files)",
                                 ht_file_kind(st.st_mode));
        else if (r == -ELOOP) {
                /* a link to /dev/null is how systemd's readers (sysctl.d,
                 * tmpfiles.d, udev's rules.d, a unit's drop-in) mask a name,
                 * and pam_limits reads it as an empty file: the
                 * administrator turned the file off on purpose */
                _cleanup_free_ char *target = NULL;
                if (ht_readlink(c, path, &target) == 0 && streq(target, "/dev/null"))
                        return xstrdup(" (it is a symlink to /dev/null, which masks the file: the host reads nothing "
                                       "under this name; hosttune never writes through a symlink: remove the link "
                                       "to let hosttune write its file)");
        } else if (r == -EROFS)
                return xstrdup(" (a read-only mount: an image-based system's /usr, a read-only bind mount; "
                               "change it in the image, or remount it read-write)");
        return xstrdup(ht_write_refusal_hint(r));
}
