/* The root context: every host access goes through it. Host paths are
 * absolute paths as the tuned system sees them ("/etc/default/grub"); the
 * context resolves them under its root directory (--root), following
 * symlinks as a chroot would but refusing any that lead out of the root. */
#pragma once

#include <dirent.h>
#include <stdio.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

typedef enum {
        HT_COLOR_AUTO,
        HT_COLOR_ALWAYS,
        HT_COLOR_NEVER,
} ht_color_mode;

typedef struct ht_context {
        char *root;          /* "/" or the --root directory, as given */
        int root_fd;         /* O_PATH directory fd of root */
        bool offline_root;   /* root != "/" */
        /* --live-root: the tree is the running system, whatever its
         * /proc says, and its programs may run, confined (spawn.c) */
        bool live_root_forced;
        char *state_dir;     /* real path; default: root + /var/lib/hosttune */
        /* The state directory as a host path resolved under the root like
         * any other ("/var/lib/hosttune"), or NULL for an explicit
         * --state-dir, the only state directory outside the root (issue 32:
         * a link in the tree must not carry the journal out of it) */
        char *state_dir_host;
        char *lock_path;     /* real path; default: root + /run/hosttune.lock, and
                              * state_dir + /lock for an offline image (for messages
                              * when lock_host is set) */
        char *lock_host;     /* the lock as a host path under the root, or NULL
                              * when it is in an explicit --state-dir */
        bool lock_in_state_dir;
        char **profile_path; /* real directories, searched in order */
        char **rules_path;
        char **tuned_path;   /* --tuned-path: real directories searched before the host's tuned dirs */
        /* how many of rules_path's first directories the user named
         * (--rules-path): each must hold rules files */
        size_t rules_path_given;
        bool json;
        bool quiet;
        ht_color_mode color;
        char *facts_file;    /* --facts FILE: kernel facts for an offline image, or NULL */
        /* What the tree under root is, asked once (hosttune creates
         * neither /proc nor systemd's binaries): 0 not asked yet, 1 yes,
         * -1 no. The only fields written through a const context. */
        signed char memo_root_live;
        signed char memo_systemd_sysctl;
        /* why a tree with a /proc or /sys is an image (NULL: it is not,
         * or it has neither) */
        char *memo_image_why;
        /* whether the tree's /proc is a procfs: 0 not asked yet, 1, -1 */
        signed char memo_proc_real;
        /* what ht_read_file read while a plan is made (NULL: no cache) */
        struct ht_read_cache *memo_cache;
        /* /proc/sys opened once through the root while the cache is kept,
         * so that a plan's fifteen-odd keys are opened below it, not each
         * walked from the root: 0 not opened yet, fd + 1, or -1 none
         * (no /proc/sys, or hidden); dropped with the cache */
        int memo_proc_sys_fd;
        /* ht_context_systemd_booted while the cache is kept: 0 not asked
         * yet, 1, -1; dropped with the cache */
        signed char memo_sd_booted;
        /* the journal found absent (a plan asks for a pending
         * transaction, then for the last apply): asked once a run until
         * hosttune creates it; dropped with the cache too */
        bool memo_journal_absent;
} ht_context;


/* Open root (a directory) and fill in defaults. -errno on failure. */
int ht_context_new(const char *root, ht_context **ret);
void ht_context_free(ht_context *c);
/* An explicit state directory (--state-dir): a real path on the machine
 * hosttune runs on, not under the root. */
void ht_context_set_state_dir(ht_context *c, const char *dir);
/* Put the lock in the state directory (an offline image's /run is not a
 * running system's). */
void ht_context_lock_in_state_dir(ht_context *c);
static inline void ht_context_freep(ht_context **c) { ht_context_free(*c); }

/* Whether the tree is a running system: a --root tree only with
 * --live-root (issue 32: never inferred from what the tree holds; the
 * test suite's fixtures, whose /proc and /sys are plain files, by the
 * test-only HOSTTUNE_TEST_LIVE_FIXTURES=1); "/" unless it is a chroot of
 * an image whose /proc is the build machine's, or has neither /proc/sys
 * nor /sys. Otherwise the tree is an offline image: a /proc or /sys in it
 * then reads as missing, so nothing of a kernel is read or changed.
 * Asked once. */
bool ht_context_root_live(const ht_context *c);
/* For an image with a /proc or /sys in it (a kernel's mounted in, or a
 * --root tree's own): what showed it (for the warning); NULL otherwise. */
const char *ht_context_image_why(const ht_context *c);
/* Whether the tree is a running system whose /proc is a real procfs, so
 * the kernel behind it is the one hosttune runs on (uname(2) tells of it);
 * false for fixture trees, whose /proc is plain files, and images. */
bool ht_context_kernel_is_ours(const ht_context *c);

/* A per-run cache of host file contents, so that a plan reads each host
 * file once whoever asks for it (the facts, the backends, the editors all
 * parse the same /etc/default/grub): between begin and end, ht_read_file
 * and ht_read_line serve a path they read before from memory. Keyed by the
 * host path as asked (resolving links to key by the file would cost the
 * system calls the cache saves). Any write through the context (fileio.h's
 * writers, ht_open for writing) and any program run (ht_spawn) drops it,
 * so nothing read after a write is stale; end drops it and stops
 * keeping. Only the planning of plan and apply (ht_make_plan) keeps one:
 * apply, verify and rollback read what they write back afresh. */
void ht_context_cache_begin(const ht_context *c);
void ht_context_cache_end(const ht_context *c);
void ht_context_cache_drop(const ht_context *c);

/* Whether the host was booted by systemd, as sd_booted(3) decides it
 * (/run/systemd/system a directory, not a link) under the root. Asked
 * once while the cache is kept (the facts and the sysctl backend both
 * ask); each time otherwise. */
bool ht_context_systemd_booted(const ht_context *c);

/* Beside the bytes, the cache keeps what they parse to, so that a plan
 * parses each host file once too (/etc/default/grub: the boot facts and
 * the cmdline backend; /etc/passwd: the facts and the limits backend).
 * A kind names the parser (compared by address) and how to drop the one
 * reference the cache holds; parsed objects are reference-counted and
 * read-only once kept, so an editor copies or parses afresh. A kept parse
 * goes with its bytes: any write through the context, any program run,
 * the end of the cache. */
typedef struct ht_parsed_kind {
        const char *name;
        void (*unref)(void *obj);
} ht_parsed_kind;
/* The parse of kind kept for path, or NULL: none kept, the cache no
 * longer holds path or (text non-NULL) its bytes are not text's. The
 * cache's reference, borrowed: take one of your own before anything can
 * write through c. */
void *ht_context_parsed(const ht_context *c, const char *path, const ht_parsed_kind *kind, const char *text,
                        size_t len);
/* Keep obj, the parse of kind of text (path's bytes as read through c;
 * NULL: the bytes the cache holds), for the rest of the plan, replacing
 * one kept before. Takes over the reference given: when the cache holds
 * no such bytes of path (no cache, ht_read_file_nokeep, too large, or an
 * edited text), it drops it at once. */
void ht_context_keep_parsed(const ht_context *c, const char *path, const ht_parsed_kind *kind, void *obj,
                            const char *text, size_t len);

/* Check that path is an absolute host path with no "..", no empty or
 * control-character components and a sane length. 0 or -EINVAL. */
int ht_path_check(const char *path);

/* Resolve host path to its parent directory fd and final name. When
 * follow_last is set a symlink in the last component is followed too.
 * Symlinks are resolved inside the root; one that leads out is -EXDEV.
 * The final component need not exist. */
int ht_resolve_parent(const ht_context *c, const char *path, bool follow_last,
                      int *ret_dir_fd, char **ret_name);

/* ht_resolve_parent for a file hosttune is about to write, create or
 * remove (the last component is never followed). Running as root, every
 * directory passed below the root (those holding a symlink followed
 * included) must be owned by root and not writable by group or others:
 * -EPERM otherwise, since whoever may write there could have redirected
 * the path. */
int ht_resolve_parent_for_write(const ht_context *c, const char *path, int *ret_dir_fd, char **ret_name);

/* Who besides root (and the user hosttune runs as) can shape a file
 * hosttune reads: the owners of the directories on its way and of the
 * files whose content named it (an IFILE=, an !include), and "anyone"
 * when one of those is writable by group or others. Zero-initialised:
 * nobody else. */
#define HT_CONTROLLERS_MAX 4
typedef struct {
        size_t n;
        uid_t uid[HT_CONTROLLERS_MAX];
        gid_t gid[HT_CONTROLLERS_MAX]; /* the group of what uid[i] owns */
        bool anyone;
} ht_controllers;
/* Count the owner of a directory or file (st) among them, unless root or
 * us; writable by group or others: anyone. */
void ht_controllers_add(ht_controllers *w, const struct stat *st);
/* Whether each of them could read the file of st themselves (it is
 * theirs, readable by others, or readable by the group of what they
 * own), so that reading it as root tells nobody what they could not
 * read. false: the first who could not in *ret_uid ((uid_t)-1: anyone). */
bool ht_controllers_can_read(const ht_controllers *w, const struct stat *st, uid_t *ret_uid);
/* ht_resolve_parent following every link, with the owners of the
 * directories passed (those holding a link included) added to *ctl.
 * ret_last (may be NULL): the stat of the name the walk ended on, not a
 * link (it opened it to see), or st_mode 0 when that name is not there;
 * untouched when the walk ended on "." (a path ending in ".." or "/"). */
int ht_resolve_parent_controlled(const ht_context *c, const char *path, ht_controllers *ctl,
                                 int *ret_dir_fd, char **ret_name, struct stat *ret_last);

/* The parent of a host path reached without following any symlink (one
 * on the way is -ELOOP, a file -ENOTDIR), whoever owns the directories:
 * for a new file renamed into a directory another user owns (Debian's
 * node_exporter textfile directory, the prometheus user's), where
 * ht_resolve_parent_for_write refuses and a link there could redirect a
 * followed path. */
int ht_resolve_parent_nofollow(const ht_context *c, const char *path, int *ret_dir_fd, char **ret_name);

/* open(2) a host path. Intermediate symlinks are followed inside the
 * root; the last component is followed too unless flags has O_NOFOLLOW
 * or O_CREAT (files hosttune writes are never written through a link). */
int ht_open(const ht_context *c, const char *path, int flags, mode_t mode);

/* A host file opened for reading line by line (/proc/PID/smaps is read a
 * line at a time: it can be large). -errno on failure. */
int ht_fopen_read(const ht_context *c, const char *path, FILE **ret);

/* Read a whole host file (at most max bytes; -EFBIG beyond). The result
 * is NUL-terminated; embedded NULs are kept and counted in ret_len. */
int ht_read_file(const ht_context *c, const char *path, size_t max, char **ret, size_t *ret_len);
/* ht_read_file for a caller that reads the file once and keeps what it
 * needs (every udev rules file, for the block backend's warnings): the
 * cache serves it if it holds it, but keeps no copy, which would only
 * cost memory. */
int ht_read_file_nokeep(const ht_context *c, const char *path, size_t max, char **ret, size_t *ret_len);
/* Read a one-line kernel value (sysfs, procfs): contents with the
 * trailing newline removed. */
int ht_read_line(const ht_context *c, const char *path, char **ret);

/* An O_PATH fd of the host directory path (links followed inside the
 * root), for reading the files below it without walking the path again
 * each time: a device's sysfs directory. -errno. */
int ht_open_dir(const ht_context *c, const char *path);
/* ht_read_file and ht_read_line of dir/rel, opened relative to dir_fd
 * (from ht_open_dir of the host path dir) beneath it; what that cannot
 * open (a link leading above dir_fd) is read through the root as
 * dir/rel. dir_fd < 0: through the root. */
int ht_read_file_below(const ht_context *c, int dir_fd, const char *dir, const char *rel, size_t max,
                       char **ret, size_t *ret_len);
int ht_read_line_below(const ht_context *c, int dir_fd, const char *dir, const char *rel, char **ret);

/* readlink(2) of a host path's last component (intermediate links are
 * followed inside the root, the last never): the target as written.
 * -EINVAL when it exists and is no symlink. Three system calls where
 * ht_lstat and a walk to the link's directory took a dozen. */
int ht_readlink(const ht_context *c, const char *path, char **ret);

int ht_stat(const ht_context *c, const char *path, struct stat *ret);
int ht_lstat(const ht_context *c, const char *path, struct stat *ret);
/* ht_lstat's statx(2): the same three calls, with what fstat cannot
 * give (stx_attributes: chattr +i, +a where the filesystem says so). */
struct statx;
int ht_lstatx(const ht_context *c, const char *path, unsigned mask, struct statx *ret);
bool ht_exists(const ht_context *c, const char *path);
/* Whether the host path can be opened for writing right now (a read-only
 * mount or a container's /sys answer no). */
bool ht_writable(const ht_context *c, const char *path);
/* opendir(3) a host directory; the caller closedir()s. */
int ht_opendir(const ht_context *c, const char *path, DIR **ret);
/* Sorted names of the entries of a host directory (no "." or ".."),
 * optionally only those ending with suffix. Missing directory: empty list. */
int ht_list_dir(const ht_context *c, const char *path, const char *suffix, char ***ret);
/* The entries of the host directory named PREFIX<number> ("policy12",
 * "cpu3"), in number order (policy2 before policy10); their count in
 * *ret_n when given. An unreadable directory gives an empty list. */
char **ht_list_numbered(const ht_context *c, const char *dir, const char *prefix, size_t *ret_n);
/* The same for the entries that may be symlinks (the directory says so,
 * or cannot tell): check each with ht_lstat. */
int ht_list_links(const ht_context *c, const char *path, char ***ret);

/* The message for an error r of a walk under the root to hosttune's own
 * WHAT (the state directory, the lock) shown as SHOWN: a link out of the
 * root (-EXDEV), a directory others may write (-EPERM), a loop (-ELOOP). */
char *ht_root_path_error(const ht_context *c, const char *what, const char *shown, int r);
/* What to add to a write's error r on a managed file: why a symlink
 * (-ELOOP), a directory on the way (-EPERM) or a file with other hard
 * links (-EMLINK) was refused and the fix;
 * "" for any other error. One wording for apply and the journal. */
const char *ht_write_refusal_hint(int r);

/* A path for messages: the host path prefixed with the root when the root
 * is not "/", so users can open the file they are told about. */
char *ht_display_path(const ht_context *c, const char *path);
