/* Writing host files safely: the one atomic-replace helper every file
 * write goes through, snapshots of a file's prior state and their exact
 * restore, and runtime kernel value writes with read-back.
 *
 * MUST, for every function here:
 *  - never write through a symlink: the last component is never followed,
 *    an existing symlink or non-regular file at the target is refused;
 *  - act relative to directory fds (openat and friends), resolved through
 *    the root context, so nothing leaves the root;
 *  - leave either the old or the new file, never a half-written one, and
 *    no temp file behind on error. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "context.h"

/* Largest file hosttune snapshots or backs up (grub.cfg is far below). */
#define HT_FILE_MAX (64u * 1024 * 1024)

/* "No preference": keep the owner the creating process gives the file. */
#define HT_UID_ANY ((uid_t)-1)
#define HT_GID_ANY ((gid_t)-1)

/* fds to flush together (group commit, docs/DESIGN.md "Durability"):
 * the fsyncs of one phase of a transaction guard independent things, so
 * they run at once, on a few threads, and the phase waits for one flush
 * rather than for each in turn. What must be durable before the next
 * ordered step (a rename, the commit) is in the batch that runs before it.
 * The batch owns its fds and closes them when it runs. */
typedef struct {
        int *fds;
        size_t n, cap;
} ht_fsync_batch;

/* Add fd (taken: closed by the batch, also on error). A batch that grows
 * past HT_FSYNC_BATCH_MAX runs first (flushing early is never wrong). */
#define HT_FSYNC_BATCH_MAX 64
int ht_fsync_batch_add(ht_fsync_batch *b, int fd);
/* Add the directory of any fd of it (an O_PATH fd included). */
int ht_fsync_batch_add_dir(ht_fsync_batch *b, int dir_fd);
/* fsync every fd at once (up to HT_FSYNC_THREADS threads, the caller
 * one of them), wait for all, close them; empty afterwards. The first
 * error, or 0. 16: an apply's two flushes hold 10 to 15 fsyncs on the
 * example hosts, each then on its own thread, so none waits for a second
 * round behind another on a slow disk (BENCHMARKS.md, "Slow fsyncs"). */
#define HT_FSYNC_THREADS 16
int ht_fsync_batch_run(ht_fsync_batch *b);
/* Close without flushing (an error path). */
void ht_fsync_batch_done(ht_fsync_batch *b);

/* A directory's fsync, now (dirs NULL) or with the batch. */
int ht_fsync_dir_or_batch(int dir_fd, ht_fsync_batch *dirs);

/* An atomic replace in two steps, for a caller that replaces several
 * files with one wait for their flushes: ht_stage_file makes the parents
 * (their new entries' directory fsyncs into dirs, or at once when dirs is
 * NULL), writes the temp file with its mode and owner and hands its fd to
 * data; once data has run, ht_staged_file_install renames it over the
 * file and hands the directory to dirs (NULL: fsynced at once);
 * ht_staged_file_done removes a temp file not installed. The same checks
 * and the same temp names as ht_write_file_atomic. ht_stage_file's temp
 * file has no name until it is installed (O_TMPFILE, where the
 * filesystem has it; linked under the temp name then renamed): a crash
 * before leaves nothing in the directory, whatever record named it. */
typedef struct {
        bool active;
        int dir_fd;     /* the file's directory (owned) */
        char *name;
        char *tmp;      /* the temp file; NULL once renamed */
        int fd;         /* an unnamed temp file (owned), linked at install; -1: tmp is named */
} ht_staged_file;
int ht_stage_file(const ht_context *c, const char *path, const void *data, size_t len, mode_t mode_for_new,
                  uid_t uid_for_new, gid_t gid_for_new, ht_fsync_batch *data_batch, ht_fsync_batch *dirs,
                  ht_staged_file *ret);
/* The same with exactly this mode and owner, whatever the file has (a
 * rollback stages its restores: ht_file_restore's temp file, not yet
 * renamed). */
int ht_stage_file_exact(const ht_context *c, const char *path, const void *data, size_t len, mode_t mode, uid_t uid,
                        gid_t gid, ht_fsync_batch *data_batch, ht_fsync_batch *dirs, ht_staged_file *ret);
/* The same in a directory fd (the journal's manifest): no parents. */
int ht_stage_file_at(int dir_fd, const char *name, const void *data, size_t len, mode_t mode_for_new,
                     ht_fsync_batch *data_batch, ht_staged_file *ret);
int ht_staged_file_install(const ht_context *c, ht_staged_file *s, ht_fsync_batch *dirs);
void ht_staged_file_done(ht_staged_file *s);

/* ht_remove_file with the directory's fsync handed to dirs. */
int ht_remove_file_batched(const ht_context *c, const char *path, ht_fsync_batch *dirs);

/* ht_mkdir_parents with the new entries' fsyncs handed to dirs. */
int ht_mkdir_parents_batched(const ht_context *c, const char *path, mode_t mode, ht_fsync_batch *dirs);

/* Replace dir_fd/name with data atomically: temp file in the same
 * directory (O_CREAT|O_EXCL|O_NOFOLLOW, random name), write, fchown and
 * fchmod to the existing file's owner and mode (or the *_for_new ones when
 * it does not exist yet), fsync, renameat, fsync the directory. An
 * existing symlink is -ELOOP, a directory -EISDIR, anything else that is
 * not a regular file -EINVAL. When an unprivileged process cannot give a
 * NEW file the requested owner, the file keeps the process's own (image
 * builds run without root); an existing file's owner that cannot be kept
 * is -EPERM. dir_fd may be an O_PATH fd. */
int ht_write_file_atomic_at(int dir_fd, const char *name, const void *data, size_t len,
                            mode_t mode_for_new, uid_t uid_for_new, gid_t gid_for_new);

/* The same without the directory fsync: for a caller that changes the
 * directory again (the journal removes its PENDING marker) and fsyncs it
 * once for both. Not durable until then. */
int ht_write_file_atomic_at_nodirsync(int dir_fd, const char *name, const void *data, size_t len,
                                      mode_t mode_for_new);

/* The same for a host path through the root context; missing parent
 * directories are created first (0755, see ht_mkdir_parents). */
int ht_write_file_atomic(const ht_context *c, const char *path, const void *data, size_t len,
                         mode_t mode_for_new, uid_t uid_for_new, gid_t gid_for_new);
/* The same, but the directory (and any new parent) goes into dirs, for
 * the caller to flush with others: the new name is not durable until
 * then, the data is. */
int ht_write_file_atomic_batched(const ht_context *c, const char *path, const void *data, size_t len,
                                 mode_t mode_for_new, uid_t uid_for_new, gid_t gid_for_new, ht_fsync_batch *dirs);

/* Create the missing parent directories of host path with mode. Existing
 * components are resolved as the context does (symlinks inside the root
 * are followed); new ones are made with mkdirat and opened O_NOFOLLOW,
 * and get exactly mode (not masked by the umask), and
 * nothing is created through a dangling symlink (-ELOOP). A non-directory
 * in the way is -ENOTDIR. Each new entry is fsynced in its parent; the
 * caller fsyncs the last new directory (by writing into it). */
int ht_mkdir_parents(const ht_context *c, const char *path, mode_t mode);

/* mkdirat(2) with exactly mode, whatever the umask (fchmod on what was
 * made). -EEXIST, untouched, when something is there already. */
int ht_mkdirat_exact(int dir_fd, const char *name, mode_t mode);

/* mkdir -p for a real path (not a host path: the state directory, the
 * lock's directory): missing components get exactly mode; existing ones may be
 * anything the caller then checks. */
int ht_mkdir_p(const char *path, mode_t mode);

/* Remove the regular file at host path (never a symlink's target: a
 * symlink there is -ELOOP) and fsync the directory. Absent already: 0. */
int ht_remove_file(const ht_context *c, const char *path);

/* Where an external tool writes the file it generates (grub-mkconfig -o),
 * so that apply can put it in place atomically: ".NAME.hosttune-tmp"
 * beside path (the tool may add its own ".new" to that). */
#define HT_TOOL_TEMP_FMT "%s.hosttune-tmp"
char *ht_tool_temp_path(const char *path);

/* Remove temp files a crashed ht_write_file_atomic left next to path
 * (".#NAME.<16 hex>"), and a crashed tool's (ht_tool_temp_path and its
 * ".new"). Returns how many were removed, or -errno. */
int ht_cleanup_temp_files(const ht_context *c, const char *path);
/* The one rule for what a crash leaves of a write (issue 36): whether
 * directory entry entry is the temp file of an atomic write of name
 * (".#NAME.<16 hex>"; name NULL: of any file), or, name given, the
 * tool's output for it (ht_tool_temp_path and its ".new"). */
bool ht_is_temp_name(const char *entry, const char *name);
/* Remove the regular files in dir_fd that ht_is_temp_name(entry, name)
 * matches; fsync dir_fd when any went. How many, or -errno. */
int ht_cleanup_temp_files_at(int dir_fd, const char *name);

/* A file's state before hosttune changes it. */
typedef struct {
        char *path;           /* host path */
        bool existed;
        char *content;        /* NUL-terminated copy; NULL when !existed */
        size_t len;
        mode_t mode;          /* permission bits (07777) */
        uid_t uid;
        gid_t gid;
        char **missing_dirs;  /* parent dirs that did not exist, outermost
                               * first; removed again (when empty) by a
                               * restore of a file that did not exist */
} ht_file_snapshot;

/* Capture the state of host path via lstat: -ELOOP for a symlink, -EINVAL
 * for anything but a regular file, -EFBIG beyond HT_FILE_MAX. A missing
 * file (or missing parent directories) is a valid snapshot. */
int ht_file_snapshot_take(const ht_context *c, const char *path, ht_file_snapshot **ret);
void ht_file_snapshot_free(ht_file_snapshot *s);
static inline void ht_file_snapshot_freep(ht_file_snapshot **s) { ht_file_snapshot_free(*s); }

/* Put the file back exactly as snapshotted: content byte for byte, mode
 * and owner (atomically), or remove it (and the directories that did not
 * exist before) when it did not exist. */
int ht_file_restore(const ht_context *c, const ht_file_snapshot *s);
/* The same with the directories' fsyncs handed to dirs (the data's own
 * fsync is done before the rename, as always): the caller flushes them
 * before it records the restore as made. */
int ht_file_restore_batched(const ht_context *c, const ht_file_snapshot *s, ht_fsync_batch *dirs);

/* Replace the file like ht_write_file_atomic but with exactly this mode
 * and owner, whatever the existing file has (restores use it). */
int ht_write_file_exact(const ht_context *c, const char *path, const void *data, size_t len,
                        mode_t mode, uid_t uid, gid_t gid);

/* Read a whole regular file dir_fd/name without following a symlink
 * (-ELOOP); NUL-terminated; -EFBIG beyond max. Opened O_NONBLOCK, so a
 * FIFO or a device does not block (it is refused, -EINVAL). */
int ht_read_file_at(int dir_fd, const char *name, size_t max, char **ret, size_t *ret_len);

/* The checks before reading a file someone else may have put there, on
 * the fd opened (O_NONBLOCK: opening a FIFO does not wait for a writer):
 * a regular file (-EISDIR for a directory, -EINVAL for a FIFO, device or
 * socket) of at most max bytes by fstat (-EFBIG: a 2 GB sparse file is
 * refused before a byte is read). Its stat in *ret_st when given (also
 * on failure, once fstat succeeded). Every read of such a file goes
 * through here: ht_read_file_at, the profile, rules and tuned reads,
 * ht_read_file_untrusted below. */
int ht_check_regular_fd(int fd, size_t max, struct stat *ret_st);
/* ht_check_regular_fd, then the whole file (NUL-terminated). */
int ht_read_regular_fd(int fd, size_t max, struct stat *ret_st, char **ret, size_t *ret_len);
/* Read a whole host file that another user may control (an Oracle
 * home's parameter files, oratab, MySQL option files and what they
 * include): links are followed inside the root, the owners of every
 * directory passed are added to *ctl (which comes in holding those of
 * the files that named path, and leaves with the file's own owner added),
 * the file's type is checked before it is opened (a FIFO, device or
 * socket is never opened), it is opened O_NONBLOCK|O_NOCTTY|O_NOFOLLOW
 * and checked again (ht_check_regular_fd, the same inode), and read only
 * when every one of *ctl could read it themselves
 * (ht_controllers_can_read: a link or IFILE= to /etc/shadow is not read
 * for oracle). On failure -errno and *ret_why says why, naming no
 * content; ctl may be NULL (nobody named it). */
int ht_read_file_untrusted(const ht_context *c, const char *path, size_t max, ht_controllers *ctl,
                           char **ret, size_t *ret_len, char **ret_why);
/* What a file of this mode is, for messages ("a FIFO"). */
const char *ht_file_kind(mode_t mode);

/* fsync a directory given any fd of it (O_PATH fds cannot be fsynced). */
int ht_fsync_dir(int dir_fd);

/* Make a file another program wrote durable: fsync the host path (not
 * followed if a symlink) and its directory. Tools such as grub-mkconfig
 * rename their output into place without an fsync; after a power cut
 * that file could be empty on disk while our journal says it is done.
 * Missing: 0 (the tool removed it; the journal records that). */
int ht_fsync_path(const ht_context *c, const char *path);

/* Write a runtime kernel value (/proc/sys, /sys; ordinary files in
 * fixture trees, which behave as the kernel's: a choice list takes one of
 * its words and shows it marked, a /proc/sys value of integer fields is
 * shown tab-separated): value plus "\n" in one write(2), then read it back.
 * The read-back (trailing newline removed) goes to *ret_readback when
 * given; the caller compares it, as the kernel may normalise or clamp.
 * Values with control characters (tab aside) are -EINVAL; the kernel's
 * own refusal comes back as its errno. */
int ht_write_kernel_value(const ht_context *c, const char *path, const char *value, char **ret_readback);

/* A kernel value as the kernel prints it, compared without caring about
 * runs of whitespace ("250\t32000" == "250 32000"). */
bool ht_kernel_values_equal(const char *a, const char *b);

/* A kernel value as it counts: for a choice such as THP's
 * "always [madvise] never" the bracketed word, else the value with runs of
 * whitespace folded. */
char *ht_kernel_value_effective(const char *raw);

/* A value read from a kernel file in the form the kernel takes on write,
 * as the journal keeps it and rollback writes it back: for a choice list
 * the bracketed word (the file refuses the list it shows with EINVAL:
 * mm/huge_memory.c enabled_store takes one of its words), for fields that
 * are all integers one space between them ("250\t32000" as kernel.sem
 * prints it is "250 32000"), any other value exactly as read. */
char *ht_kernel_value_to_restore(const char *raw);

/* ==== The trust policy for hosttune's own configuration: profiles,
 * rules and tuned profiles, which root reads as instructions. */
/* Whether a profile or rules file may be trusted: as root (as_root), a
 * file must be owned by root and not writable by group or others, unless
 * HOSTTUNE_INSECURE_PROFILES=1. 0 or -EPERM with *ret_error set. */
int ht_trust_check_file(int fd, const char *path, bool as_root, char **ret_error);
/* Whether the directories a profile, rules or tuned file was found through
 * may be trusted (issue 32): the directory searched (path is the real path
 * as searched, whose last `names` components were the search's: 1 for
 * NAME.profile, 2 for a tuned NAME/tuned.conf), the file's own directory
 * and, when a link led elsewhere, the one the file opened as fd is in,
 * each with every directory above it. Each must be
 * owned by root (or by the user running hosttune); the file's own
 * directory must not be writable by group or others, sticky or not, and
 * one above it only when sticky. Unless HOSTTUNE_INSECURE_PROFILES=1.
 * 0, or -EPERM with *ret_error naming the file and the directory. */
int ht_trust_check_dirs(int fd, const char *path, unsigned names, char **ret_error);
/* Read a whole file under that policy, through fd (opened O_NONBLOCK by
 * the caller; shown names it in messages): a regular file of at most max
 * bytes, trusted (ht_trust_check_file as root, ht_trust_check_dirs with
 * names), text without a NUL byte. The one read of profiles, rules and
 * tuned files. -errno with *ret_error naming shown. */
int ht_read_trusted(int fd, const char *shown, size_t max, unsigned names, char **ret, size_t *ret_len,
                    char **ret_error);
/* ht_read_trusted of a profile or rules file by its path (names 1),
 * opened relative to its directory, which is opened and checked once a
 * run: the file read is an entry of the directory checked. */
int ht_read_trusted_path(const char *path, size_t max, char **ret, size_t *ret_len, char **ret_error);
/* Whether ht_read_trusted_path holds dir opened and checked (a file of a
 * profile chain was read from it): a name looked for there is best just
 * read (-ENOENT: not there), one system call instead of a test and an
 * open. */
bool ht_trusted_dir_kept(const char *dir);
/* A directory of a search path just listed (fd: opened O_DIRECTORY by
 * its path dir, taken over): kept for ht_read_trusted_path, which checks
 * it as it would one it opened itself at its first file, so the
 * directory listed is the one read from, opened once. */
void ht_trusted_dir_offer(const char *dir, int fd);
