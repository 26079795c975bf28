/* What a replace by rename would lose of the file it replaces: its
 * extended attributes (POSIX ACLs, the SELinux label, user attributes)
 * live on the inode, and the temp file renamed over it is a new inode;
 * and inode flags (chattr +i/+a) that make the rename fail. */
#pragma once

#include "context.h"

/* Copy every extended attribute of the file open as from onto the file
 * open as to: system.posix_acl_access (the ACL), security.selinux (the
 * label), user.*, trusted.* (listed only to root). Not security.ima and
 * security.evm: they sign the old content, and the kernel's IMA/EVM
 * writes them for the new one. 0, or -errno of the first that cannot be
 * read or set (the caller refuses the write: a file that silently lost
 * its ACL or label is worse than one not tuned). A filesystem without
 * extended attributes has none to copy: 0. */
int ht_copy_xattrs(int from, int to);

/* Whether the file open as fd is immutable or append-only (chattr +i,
 * +a): then nothing may rename over it or unlink it, not even root
 * (EPERM). 1 with *ret_flag "immutable" or "append-only", 0 when
 * neither (or the filesystem has no such flags), -errno. */
int ht_file_locked_flag(int fd, const char **ret_flag);

/* Why writing host path failed with EPERM when it was not the directory
 * check: " (it is immutable: chattr -i PATH to let hosttune write it)"
 * and the like for the file or its directory, or NULL. */
char *ht_locked_file_hint(const ht_context *c, const char *path);

/* What apply's write (or, removal, its unlink) of host path will be
 * refused with, as it refuses it before changing anything: -EMLINK for
 * a file with other hard links, -EPERM for an immutable or append-only
 * one, -EINVAL for one that is no regular file (a FIFO), -ELOOP and
 * -EISDIR; 0 when none of them (or path is absent, or cannot be seen:
 * apply says what then). For plan, which reads the file already: one
 * statx through the root, open and ioctl only on a filesystem whose
 * statx does not give the flags. */
int ht_write_refusal(const ht_context *c, const char *path, bool removal);

/* Why nothing can be written in host path's directory (or, when it is
 * not there yet, the nearest one above that is: apply makes the rest
 * there): -EROFS on a read-only mount (a 'ro' or read-only bind mount, an
 * image-based system's /usr), -EPERM when the directory is immutable or
 * append-only (chattr +i, +a: no name may be added, renamed over or
 * removed there, not even by root); 0, or another -errno when it cannot
 * be asked. An fstatfs and a statx of the directory opened through the
 * root (O_PATH). */
int ht_dir_write_refusal(const ht_context *c, const char *path);

/* What to add to write error r on host path, for apply, rollback and the
 * journal alike: the flag (EPERM from chattr +i/+a), what the file is
 * when not a regular file (EINVAL: a FIFO), a read-only mount (EROFS),
 * else ht_write_refusal_hint's. Never NULL ("" when nothing to add). */
char *ht_write_error_hint(const ht_context *c, const char *path, int r);
