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
#include "journal.h"
#include "settings-json.h"
#include "sha256.h"
#include "util.h"

/* MUST, here: every path under the state directory is opened relative to
 * a directory fd with O_NOFOLLOW; the state and journal directories are
 * checked (ours, not writable by others) before anything is trusted or
 * written; nothing is restored before the whole manifest and every
 * backup it names have been validated.
 *
 * And confined (issue 32): whoever can write a manifest must not get
 * more from root's rollback than hosttune itself would do. A manifest is
 * refused unless its root is this run's, every file item names a file
 * its backend writes (ht_journal_confine) and every runtime item a path
 * below /proc/sys or /sys; follow-up commands are rebuilt by the caller
 * from its own table, never taken from the manifest; no mode bit beyond
 * 0777 and no owner but root or the file's own is ever restored; no
 * message carries a file's content. */

#define JOURNAL_DIR "journal"
#define MANIFEST "manifest.json"
#define PENDING_MARKER "PENDING"
#define BACKUP_DIR "backup"
#define NEW_PREFIX ".new-"
#define FORMAT "hosttune-journal"
#define FORMAT_VERSION 1
#define TXID_LEN 25
#define MANIFEST_MAX (64u * 1024 * 1024)

struct ht_tx {
        const ht_context *c;
        char *txid;
        char *dir;      /* STATE/journal/TXID, for messages */
        int fd;         /* the transaction directory */
        int backup_fd;  /* its backup/ directory */
        json_object *m;
        /* A transaction being begun lives in STATE/journal/.new-TXID until
         * its first write (tx_write) renames it into sight: */
        int journal_fd;         /* STATE/journal, for that rename; -1 after */
        char *new_name;         /* ".new-TXID"; NULL once visible */
        size_t n_durable;       /* items the manifest on disk holds */
        bool backups_unsynced;  /* backup/ has entries not yet fsynced */
        /* flushed at once before the next manifest is renamed into place:
         * the backups' data, a new state directory's entries (tx_write) */
        ht_fsync_batch sync;
};

/* One item of a validated manifest; strings point into the manifest. */
typedef struct {
        bool file;
        const char *backend, *key, *path;
        bool done;
        bool prior_existed;
        mode_t prior_mode;
        uid_t prior_uid;
        gid_t prior_gid;
        uint64_t prior_size;
        const char *prior_sha, *backup;
        json_object *missing_dirs;
        bool new_existed;
        bool generated;         /* written by an external tool: any content is its own */
        const char *new_sha;
        const char *prior_value, *new_value;
} item;

static ht_journal_file_check file_check;

void ht_journal_confine(ht_journal_file_check check) {
        file_check = check;
}

/* Kernel values live there and nowhere else: a runtime item elsewhere
 * (/etc/shadow) would be truncated and rewritten by its undo. */
static bool runtime_path_ok(const char *path) {
        return startswith(path, "/proc/sys/") || startswith(path, "/sys/");
}

static int set_error(char **ret_error, int r, const char *fmt, ...) _printf_(3, 4);
static int set_error(char **ret_error, int r, const char *fmt, ...) {
        if (ret_error) {
                va_list ap;
                va_start(ap, fmt);
                *ret_error = xvasprintf(fmt, ap);
                va_end(ap);
        }
        return r;
}

/* ---- small helpers ---------------------------------------------------- */

static bool plain_word(const char *s) {
        return !isempty(s) && strlen(s) < 64 &&
               strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-_") == strlen(s);
}

static bool txid_valid(const char *s) {
        if (!s || strlen(s) != TXID_LEN)
                return false;
        for (int i = 0; i < TXID_LEN; i++) {
                char ch = s[i];
                bool ok;
                if (i == 8)
                        ok = ch == 'T';
                else if (i == 15)
                        ok = ch == 'Z';
                else if (i == 16)
                        ok = ch == '-';
                else if (i > 16)
                        ok = (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
                else
                        ok = ch >= '0' && ch <= '9';
                if (!ok)
                        return false;
        }
        return true;
}

static char *iso_time(time_t t) {
        struct tm tm;
        char buf[32];
        gmtime_r(&t, &tm);
        strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
        return xstrdup(buf);
}

static int64_t now_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static char *new_txid(int64_t usec) {
        time_t t = (time_t)(usec / 1000000);
        struct tm tm;
        char buf[32];
        gmtime_r(&t, &tm);
        strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", &tm);
        uint32_t rnd = 0;
        if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
                rnd = (uint32_t)(usec ^ getpid());
        return xasprintf("%s-%08" PRIx32, buf, rnd);
}

static char *mode_string(mode_t m) {
        return xasprintf("%04o", (unsigned)(m & 07777));
}

static json_object *jstr(const char *s) {
        return s ? json_object_new_string(s) : NULL;
}

static const char *get_str(json_object *o, const char *key) {
        json_object *v;
        if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
                return NULL;
        return json_object_get_string(v);
}

static void set_status(ht_tx *tx, const char *status) {
        json_object_object_add(tx->m, "status", json_object_new_string(status));
}

static void set_now(ht_tx *tx, const char *key) {
        char *t = iso_time(time(NULL));
        json_object_object_add(tx->m, key, json_object_new_string(t));
        free(t);
}

static json_object *items_of(const ht_tx *tx) {
        json_object *v = NULL;
        json_object_object_get_ex(tx->m, "items", &v);
        return v;
}

/* ---- the state directory --------------------------------------------- */

static int check_trusted(int fd, const char *what, const char *path, char **ret_error) {
        struct stat st;
        if (fstat(fd, &st) < 0)
                return set_error(ret_error, -errno, "%s %s: %s", what, path, strerror(errno));
        if (!S_ISDIR(st.st_mode))
                return set_error(ret_error, -ENOTDIR, "%s %s is not a directory; refusing it", what, path);
        if (st.st_uid != geteuid())
                return set_error(ret_error, -EPERM, "%s %s is owned by uid %u, not by us (uid %u); refusing it",
                                 what, path, (unsigned)st.st_uid, (unsigned)geteuid());
        if (st.st_mode & 022)
                return set_error(ret_error, -EPERM,
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
                        return set_error(ret_error, r, "cannot create state directory %s: %s", sd,
                                         ht_strerror(-r));
        }
        struct stat st;
        if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                if (errno == ENOENT && !create)
                        return -ENOENT;
                return set_error(ret_error, -errno, "state directory %s: %s", sd, strerror(errno));
        }
        if (S_ISLNK(st.st_mode))
                return set_error(ret_error, -ELOOP, "state directory %s is a symlink; refusing it", sd);
        int fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return set_error(ret_error, -errno, "state directory %s: %s", sd, strerror(errno));
        *ret_fd = fd;
        return 0;
}

/* An explicit --state-dir: a real path on the machine hosttune runs on. */
static int open_state_dir_given(const ht_context *c, bool create, ht_fsync_batch *sync, int *ret_fd,
                                char **ret_error) {
        const char *sd = c->state_dir;
        if (isempty(sd) || sd[0] != '/')
                return set_error(ret_error, -EINVAL, "state directory %s: not an absolute path",
                                 sd ? sd : "(none)");
        if (create) {
                _cleanup_free_ char *parent = xstrdup(sd);
                char *slash = strrchr(parent, '/');
                slash[slash == parent ? 1 : 0] = 0;
                int r = ht_mkdir_p(parent, 0755);
                if (r < 0)
                        return set_error(ret_error, r, "cannot create %s: %s", parent, ht_strerror(-r));
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
                        return set_error(ret_error, r, "cannot create state directory %s: %s", sd,
                                         ht_strerror(-r));
        }
        struct stat st;
        if (lstat(sd, &st) < 0) {
                if (errno == ENOENT && !create)
                        return -ENOENT;
                return set_error(ret_error, -errno, "state directory %s: %s", sd, strerror(errno));
        }
        if (S_ISLNK(st.st_mode))
                return set_error(ret_error, -ELOOP, "state directory %s is a symlink; refusing it", sd);
        int fd = open(sd, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return set_error(ret_error, -errno, "state directory %s: %s", sd, strerror(errno));
        *ret_fd = fd;
        return 0;
}

/* Open STATE/journal (O_RDONLY directory fd), creating both when asked.
 * -ENOENT (without a message) when it does not exist and !create. The
 * fsyncs of what is created go to sync (NULL: done at once). */
static int open_journal_dir(const ht_context *c, bool create, ht_fsync_batch *sync, int *ret_fd,
                            char **ret_error) {
        const char *sd = c->state_dir;
        _cleanup_close_ int sfd = -1;
        int r = c->state_dir_host ? open_state_dir_in_root(c, create, sync, &sfd, ret_error)
                                  : open_state_dir_given(c, create, sync, &sfd, ret_error);
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
                        return set_error(ret_error, r, "cannot create %s: %s", jd, ht_strerror(-r));
        }
        if (fstatat(sfd, JOURNAL_DIR, &st, AT_SYMLINK_NOFOLLOW) < 0) {
                if (errno == ENOENT && !create)
                        return -ENOENT;
                return set_error(ret_error, -errno, "journal directory %s: %s", jd, strerror(errno));
        }
        if (S_ISLNK(st.st_mode))
                return set_error(ret_error, -ELOOP, "journal directory %s is a symlink; refusing it", jd);
        int fd = openat(sfd, JOURNAL_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
                return set_error(ret_error, -errno, "journal directory %s: %s", jd, strerror(errno));
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
        int r = open_journal_dir(c, true, NULL, &fd, ret_error);
        if (r < 0)
                return r;
        close(fd);
        return 0;
}

/* Remove regular files named ".#..." (temps of a crashed atomic write). */
static void remove_dot_temps(int dir_fd) {
        int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return;
        DIR *d = fdopendir(fd);
        if (!d) {
                close(fd);
                return;
        }
        struct dirent *de;
        while ((de = readdir(d))) {
                struct stat st;
                if (startswith(de->d_name, ".#") &&
                    fstatat(dir_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
                        (void)unlinkat(dir_fd, de->d_name, 0);
        }
        closedir(d);
}

/* Remove a directory we made (files, and one level of subdirectories of
 * files: a transaction directory). Symlinks are unlinked, never followed. */
static int remove_tree_at(int parent_fd, const char *name, int depth) {
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
                                r = remove_tree_at(fd, de->d_name, depth - 1);
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

/* ---- manifest I/O and validation -------------------------------------- */

/* sync: where its fsync goes (NULL: now) */
static int write_new_file_at(int dir_fd, const char *name, const void *data, size_t len, ht_fsync_batch *sync) {
        int fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
                return -errno;
        const char *p = data;
        while (len > 0) {
                ssize_t k = write(fd, p, len);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k < 0) {
                        int r = -errno;
                        close(fd);
                        return r;
                }
                p += k;
                len -= (size_t)k;
        }
        if (sync)
                return ht_fsync_batch_add(sync, fd);
        int r = fsync(fd) < 0 ? -errno : 0;
        close(fd);
        return r;
}

/* Write the manifest, durably; every state change of a transaction is
 * one call (docs/DESIGN.md, "Durability"). Each step's fsyncs are
 * independent of each other and run at once (tx->sync, a group commit);
 * the rename that makes the step visible waits for all of them:
 * - the first (the begin record: every item's prior state) into the
 *   hidden .new-TXID: the backups' data (written by ht_tx_record_file),
 *   backup/, the manifest and .new-TXID/ with its PENDING marker flushed
 *   together, with a new state directory's entries; then the rename to
 *   TXID and the fsync of journal/. Until that rename, no transaction
 *   exists, and nothing was changed for it.
 * - later ones (commit, rolled-back, recovered, failed, items added for
 *   another part of a rollback): a temp file flushed (with also's fds:
 *   the directories of the files the transaction renamed, so that every
 *   one of them is durable before the commit is) and renamed over the
 *   manifest, the PENDING marker removed once the status is final, the
 *   directory fsynced once for both.
 * The marker lets every run find unfinished transactions without parsing
 * the whole journal; it is removed after the final manifest is in place,
 * so a crash in between leaves at worst a marker on a finished
 * transaction, which recovery skips. */
static int tx_write(ht_tx *tx, ht_fsync_batch *also, char **ret_error) {
        set_now(tx, "updated");
        const char *s = json_object_to_json_string_ext(tx->m, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
        _cleanup_free_ char *text = xasprintf("%s\n", s);
        bool pending = streq_ptr(ht_tx_status(tx), "pending");
        int r = 0;
        for (size_t i = 0; also && i < also->n; i++) {
                /* each fd is taken, also after an error */
                int k = ht_fsync_batch_add(&tx->sync, also->fds[i]);
                if (r >= 0)
                        r = k;
        }
        if (also)
                also->n = 0;
        if (r >= 0 && tx->backups_unsynced) {
                r = ht_fsync_batch_add_dir(&tx->sync, tx->backup_fd);
                if (r < 0)
                        return set_error(ret_error, r, "journal %s: cannot fsync %s/" BACKUP_DIR ": %s", tx->txid,
                                         tx->dir, ht_strerror(-r));
                tx->backups_unsynced = false;
        }
        if (r >= 0 && tx->new_name) {
                r = write_new_file_at(tx->fd, MANIFEST, text, strlen(text), &tx->sync);
                if (r >= 0 && pending) {
                        /* empty: the directory fsync makes it durable */
                        int mfd = openat(tx->fd, PENDING_MARKER, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
                        if (mfd < 0)
                                r = -errno;
                        else
                                close(mfd);
                }
                if (r >= 0)
                        r = ht_fsync_batch_add_dir(&tx->sync, tx->fd);
                if (r >= 0)
                        r = ht_fsync_batch_run(&tx->sync);
                if (r >= 0 && renameat(tx->journal_fd, tx->new_name, tx->journal_fd, tx->txid) < 0)
                        r = -errno;
                if (r >= 0)
                        r = ht_fsync_dir(tx->journal_fd);
                if (r < 0)
                        return set_error(ret_error, r, "journal %s: cannot write %s/" MANIFEST ": %s", tx->txid,
                                         tx->dir, ht_strerror(-r));
                free(tx->new_name);
                tx->new_name = NULL;
                close(tx->journal_fd);
                tx->journal_fd = -1;
                tx->n_durable = ht_tx_n_items(tx);
                ht_fault_point("tx-begin");
                return 0;
        }
        ht_staged_file st = {0};
        if (r >= 0)
                r = ht_stage_file_at(tx->fd, MANIFEST, text, strlen(text), 0600, &tx->sync, &st);
        if (r >= 0)
                r = ht_fsync_batch_run(&tx->sync);
        if (r >= 0)
                r = ht_staged_file_install(NULL, &st, &tx->sync);
        ht_staged_file_done(&st);
        if (r >= 0 && !pending && unlinkat(tx->fd, PENDING_MARKER, 0) < 0 && errno != ENOENT)
                r = -errno;
        if (r >= 0)
                r = ht_fsync_batch_run(&tx->sync);
        if (r < 0) {
                /* what was not flushed is flushed with the next write */
                return set_error(ret_error, r, "journal %s: cannot write %s/" MANIFEST ": %s", tx->txid, tx->dir,
                                 ht_strerror(-r));
        }
        tx->n_durable = ht_tx_n_items(tx);
        return 0;
}

#define BAD(...) do { *ret_detail = xasprintf(__VA_ARGS__); return -EBADMSG; } while (0)

static int get_bool_req(json_object *o, const char *key, bool *ret) {
        json_object *v;
        if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_boolean))
                return -EBADMSG;
        *ret = json_object_get_boolean(v);
        return 0;
}

static int get_int_req(json_object *o, const char *key, int64_t min, int64_t max, int64_t *ret) {
        json_object *v;
        if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_int))
                return -EBADMSG;
        errno = 0;
        int64_t x = json_object_get_int64(v);
        if (errno != 0 || x < min || x > max)
                return -EBADMSG;
        *ret = x;
        return 0;
}

static bool sha_valid(const char *s) {
        return s && strlen(s) == 64 && strspn(s, "0123456789abcdef") == 64;
}

static int parse_mode(const char *s, mode_t *ret) {
        if (!s || strlen(s) < 1 || strlen(s) > 5 || strspn(s, "01234567") != strlen(s))
                return -EBADMSG;
        unsigned long m = strtoul(s, NULL, 8);
        if (m > 07777)
                return -EBADMSG;
        *ret = (mode_t)m;
        return 0;
}

static bool value_ok(const char *s) {
        return s && !has_control_chars(s);
}

static int parse_item(json_object *o, size_t i, item *it, char **ret_detail) {
        memset(it, 0, sizeof(*it));
        if (!json_object_is_type(o, json_type_object))
                BAD("items[%zu]: not an object", i);
        const char *kind = get_str(o, "kind");
        if (!kind || !(streq(kind, "file") || streq(kind, "runtime")))
                BAD("items[%zu].kind: missing or not \"file\"/\"runtime\"", i);
        it->file = streq(kind, "file");
        it->backend = get_str(o, "backend");
        if (!plain_word(it->backend))
                BAD("items[%zu].backend: missing or invalid", i);
        it->path = get_str(o, "path");
        if (!it->path || ht_path_check(it->path) < 0)
                BAD("items[%zu].path: missing or not a clean absolute path", i);
        if (get_bool_req(o, "done", &it->done) < 0)
                BAD("items[%zu].done: missing or not a boolean", i);
        json_object *prior, *new;
        if (!json_object_object_get_ex(o, "prior", &prior) || !json_object_is_type(prior, json_type_object))
                BAD("items[%zu].prior: missing or not an object", i);
        if (!json_object_object_get_ex(o, "new", &new) || !json_object_is_type(new, json_type_object))
                BAD("items[%zu].new: missing or not an object", i);

        if (!it->file) {
                it->key = get_str(o, "key");
                if (isempty(it->key) || has_control_chars(it->key))
                        BAD("items[%zu].key: missing or invalid", i);
                it->prior_value = get_str(prior, "value");
                if (!value_ok(it->prior_value))
                        BAD("items[%zu].prior.value: missing or invalid", i);
                it->new_value = get_str(new, "value");
                if (!value_ok(it->new_value))
                        BAD("items[%zu].new.value: missing or invalid", i);
                return 0;
        }

        it->key = it->path;
        if (get_bool_req(prior, "existed", &it->prior_existed) < 0)
                BAD("items[%zu].prior.existed: missing or not a boolean", i);
        if (it->prior_existed) {
                int64_t x;
                if (parse_mode(get_str(prior, "mode"), &it->prior_mode) < 0)
                        BAD("items[%zu].prior.mode: missing or not an octal mode", i);
                if (get_int_req(prior, "uid", 0, UINT32_MAX - 1, &x) < 0)
                        BAD("items[%zu].prior.uid: missing or out of range", i);
                it->prior_uid = (uid_t)x;
                if (get_int_req(prior, "gid", 0, UINT32_MAX - 1, &x) < 0)
                        BAD("items[%zu].prior.gid: missing or out of range", i);
                it->prior_gid = (gid_t)x;
                if (get_int_req(prior, "size", 0, HT_FILE_MAX, &x) < 0)
                        BAD("items[%zu].prior.size: missing or out of range", i);
                it->prior_size = (uint64_t)x;
                it->prior_sha = get_str(prior, "sha256");
                if (!sha_valid(it->prior_sha))
                        BAD("items[%zu].prior.sha256: missing or not 64 hex digits", i);
                it->backup = get_str(prior, "backup");
                if (isempty(it->backup) || strlen(it->backup) > 20 ||
                    strspn(it->backup, "0123456789") != strlen(it->backup))
                        BAD("items[%zu].prior.backup: missing or not a backup name", i);
        } else {
                json_object *md = NULL;
                if (json_object_object_get_ex(prior, "missing_dirs", &md)) {
                        if (!json_object_is_type(md, json_type_array))
                                BAD("items[%zu].prior.missing_dirs: not an array", i);
                        for (size_t k = 0; k < json_object_array_length(md); k++) {
                                json_object *d = json_object_array_get_idx(md, k);
                                const char *dir = json_object_get_string(d);
                                if (!json_object_is_type(d, json_type_string) || ht_path_check(dir) < 0 ||
                                    !startswith(it->path, dir) || it->path[strlen(dir)] != '/')
                                        BAD("items[%zu].prior.missing_dirs[%zu]: not a parent of the path", i, k);
                        }
                        it->missing_dirs = md;
                }
        }
        if (get_bool_req(new, "existed", &it->new_existed) < 0)
                BAD("items[%zu].new.existed: missing or not a boolean", i);
        json_object *gen;
        it->generated = json_object_object_get_ex(new, "generated", &gen) && json_object_get_boolean(gen);
        if (it->new_existed) {
                it->new_sha = get_str(new, "sha256");
                /* a generated file has no known content until the tool ran */
                if (!(it->generated && !it->new_sha) && !sha_valid(it->new_sha))
                        BAD("items[%zu].new.sha256: missing or not 64 hex digits", i);
        }
        return 0;
}

static const char *const statuses[] = {"pending", "committed", "rolled-back", "recovered", "failed"};

static int validate_manifest(json_object *m, const char *txid, char **ret_detail) {
        if (!json_object_is_type(m, json_type_object))
                BAD("not a JSON object");
        if (!streq_ptr(get_str(m, "format"), FORMAT))
                BAD("format: missing or not \"" FORMAT "\"");
        int64_t v;
        if (get_int_req(m, "version", 1, INT32_MAX, &v) < 0)
                BAD("version: missing or invalid");
        if (v > FORMAT_VERSION)
                BAD("version %" PRId64 " is newer than this hosttune understands (%d)", v, FORMAT_VERSION);
        /* txid NULL: a manifest checked on its own (ht_journal_manifest_check) */
        if (txid ? !streq_ptr(get_str(m, "txid"), txid) : !txid_valid(get_str(m, "txid")))
                BAD("txid: missing or not the directory's name");
        const char *status = get_str(m, "status");
        bool known = false;
        for (size_t i = 0; status && i < ELEMENTSOF(statuses); i++)
                known = known || streq(status, statuses[i]);
        if (!known)
                BAD("status: missing or unknown");
        if (!plain_word(get_str(m, "command")))
                BAD("command: missing or invalid");
        if (!get_str(m, "created") || get_int_req(m, "created_usec", 0, INT64_MAX, &v) < 0)
                BAD("created: missing or invalid");
        json_object *o;
        if (json_object_object_get_ex(m, "profile", &o) && o && !json_object_is_type(o, json_type_string))
                BAD("profile: not a string");
        const char *objects[] = {"params", "facts", "info"};
        for (size_t i = 0; i < ELEMENTSOF(objects); i++)
                if (json_object_object_get_ex(m, objects[i], &o) && o && !json_object_is_type(o, json_type_object))
                        BAD("%s: not an object", objects[i]);
        if (json_object_object_get_ex(m, "expected", &o) && o && !json_object_is_type(o, json_type_array))
                BAD("expected: not an array");
        if (json_object_object_get_ex(m, "offline", &o) && o && !json_object_is_type(o, json_type_boolean))
                BAD("offline: not a boolean");
        const char *strings[] = {"boot_id", "committed_at"};
        for (size_t i = 0; i < ELEMENTSOF(strings); i++)
                if (json_object_object_get_ex(m, strings[i], &o) && o && !json_object_is_type(o, json_type_string))
                        BAD("%s: not a string", strings[i]);
        json_object *info;
        if (json_object_object_get_ex(m, "info", &info) && info) {
                if (json_object_object_get_ex(info, "profile_file", &o) && o &&
                    !json_object_is_type(o, json_type_string))
                        BAD("info.profile_file: not a string");
                if (json_object_object_get_ex(info, "set", &o) && o) {
                        if (!json_object_is_type(o, json_type_array))
                                BAD("info.set: not an array");
                        for (size_t i = 0; i < json_object_array_length(o); i++)
                                if (!json_object_is_type(json_object_array_get_idx(o, i), json_type_string))
                                        BAD("info.set[%zu]: not a string", i);
                }
                if (json_object_object_get_ex(info, "follow_ups", &o) && o) {
                        if (!json_object_is_type(o, json_type_array))
                                BAD("info.follow_ups: not an array");
                        for (size_t i = 0; i < json_object_array_length(o); i++) {
                                json_object *f = json_object_array_get_idx(o, i), *argv = NULL;
                                if (!json_object_is_type(f, json_type_object) || !plain_word(get_str(f, "backend")) ||
                                    !plain_word(get_str(f, "action")) || !value_ok(get_str(f, "description")))
                                        BAD("info.follow_ups[%zu]: not an object with backend, action and description", i);
                                if (json_object_object_get_ex(f, "argv", &argv) && argv) {
                                        size_t n = json_object_is_type(argv, json_type_array)
                                                           ? json_object_array_length(argv) : 0;
                                        if (n == 0)
                                                BAD("info.follow_ups[%zu].argv: not a non-empty array", i);
                                        for (size_t a = 0; a < n; a++)
                                                if (!json_object_is_type(json_object_array_get_idx(argv, a),
                                                                         json_type_string))
                                                        BAD("info.follow_ups[%zu].argv[%zu]: not a string", i, a);
                                }
                        }
                }
        }
        if (json_object_object_get_ex(m, "reverts", &o)) {
                if (!json_object_is_type(o, json_type_array))
                        BAD("reverts: not an array");
                for (size_t i = 0; i < json_object_array_length(o); i++) {
                        json_object *t = json_object_array_get_idx(o, i);
                        if (!json_object_is_type(t, json_type_string) || !txid_valid(json_object_get_string(t)))
                                BAD("reverts[%zu]: not a transaction id", i);
                }
        }
        if (!json_object_object_get_ex(m, "items", &o) || !json_object_is_type(o, json_type_array))
                BAD("items: missing or not an array");
        for (size_t i = 0; i < json_object_array_length(o); i++) {
                item it;
                int r = parse_item(json_object_array_get_idx(o, i), i, &it, ret_detail);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Whether the manifest is about this run's root. The danger is a journal
 * of another tree: the host's read for an image (a var/lib link, a
 * shared --state-dir) or an image's for the host; its undo would put one
 * tree's files into the other and mark the other's history undone. So:
 * - its root is this one, as given or as a real path; or
 * - the journal lies inside this root (not "/"): it is the tree's own and
 *   was copied or moved with it, and every path is resolved under the
 *   root anyway; or
 * - an image's transaction ("offline"), read by that image once booted
 *   from its own default state directory. */
static bool root_matches(const ht_context *c, json_object *m) {
        const char *root = get_str(m, "root");
        if (!root)
                return false;
        if (streq(root, c->root))
                return true;
        _cleanup_free_ char *real = realpath(c->root, NULL);
        _cleanup_free_ char *state = c->state_dir ? realpath(c->state_dir, NULL) : NULL;
        if (!real || !state)
                return false;
        if (streq(root, real))
                return true;
        if (!streq(real, "/"))
                return startswith(state, real) && state[strlen(real)] == '/';
        json_object *o;
        bool offline = json_object_object_get_ex(m, "offline", &o) && o && json_object_get_boolean(o);
        return offline && streq(state, "/var/lib/hosttune");
}

/* What a valid manifest must also be before a word of it is acted on:
 * for this root, and about files hosttune writes. c NULL: a manifest on
 * its own (no root to compare, no link followed). */
static int manifest_confined(const ht_context *c, json_object *m, char **ret_detail) {
        if (c && !root_matches(c, m))
                BAD("root: not this run's root (%s): a journal of another tree", c->root);
        json_object *items = NULL;
        json_object_object_get_ex(m, "items", &items);
        for (size_t i = 0; i < json_object_array_length(items); i++) {
                item it;
                int r = parse_item(json_object_array_get_idx(items, i), i, &it, ret_detail);
                if (r < 0)
                        return r;
                if (!it.file && !runtime_path_ok(it.path))
                        BAD("items[%zu].path: %s: a runtime value outside /proc/sys and /sys", i, it.path);
                if (it.file && !(file_check && file_check(c, it.backend, it.path)))
                        BAD("items[%zu].path: %s is not a file the %s backend writes", i, it.path, it.backend);
        }
        return 0;
}

static void tx_item(const ht_tx *tx, size_t i, item *it) {
        _cleanup_free_ char *detail = NULL;
        /* validated at load or built by us: cannot fail */
        if (parse_item(json_object_array_get_idx(items_of(tx), i), i, it, &detail) < 0)
                abort();
}

static ht_tx *tx_new(const ht_context *c, const char *txid, int fd) {
        ht_tx *tx = xcalloc(1, sizeof(*tx));
        tx->c = c;
        tx->txid = xstrdup(txid);
        tx->dir = xasprintf("%s/" JOURNAL_DIR "/%s", c->state_dir, txid);
        tx->fd = fd;
        tx->backup_fd = -1;
        tx->journal_fd = -1;
        return tx;
}

void ht_tx_free(ht_tx *tx) {
        if (!tx)
                return;
        ht_fsync_batch_done(&tx->sync);
        if (tx->fd >= 0)
                close(tx->fd);
        if (tx->backup_fd >= 0)
                close(tx->backup_fd);
        if (tx->new_name) {
                /* begun, never written: nothing was changed for it */
                (void)remove_tree_at(tx->journal_fd, tx->new_name, 1);
                free(tx->new_name);
        }
        if (tx->journal_fd >= 0)
                close(tx->journal_fd);
        json_object_put(tx->m);
        free(tx->txid);
        free(tx->dir);
        free(tx);
}

static int corrupt(char **ret_error, const ht_context *c, const char *txid, const char *detail) {
        return set_error(ret_error, -EBADMSG,
                         "journal %s: manifest is corrupt: %s; leaving it alone; inspect %s/" JOURNAL_DIR "/%s",
                         txid, detail, c->state_dir, txid);
}

/* Valid, but asks for what hosttune never does: tampered with, or copied
 * from another tree. Nothing of it is acted on. */
static int refused(char **ret_error, const ht_context *c, const char *txid, const char *detail) {
        return set_error(ret_error, -EBADMSG,
                         "journal %s: manifest refused: %s; nothing of it is acted on; inspect %s/" JOURNAL_DIR
                         "/%s/" MANIFEST,
                         txid, detail, c->state_dir, txid);
}

/* Parse and validate a manifest's text (what tx_load_at trusts). On
 * failure *ret_detail says what is wrong. */
static int manifest_parse(const char *text, size_t len, const char *txid, json_object **ret,
                          char **ret_detail) {
        if (len > MANIFEST_MAX) {
                *ret_detail = xstrdup("too large");
                return -EBADMSG;
        }
        if (strnlen(text, len) != len) {
                *ret_detail = xstrdup("it contains NUL bytes");
                return -EBADMSG;
        }
        json_tokener *tok = json_tokener_new();
        json_object *m = json_tokener_parse_ex(tok, text, (int)len);
        enum json_tokener_error jerr = json_tokener_get_error(tok);
#if JSON_C_VERSION_NUM >= ((0 << 16) | (15 << 8))
        size_t end = jerr == json_tokener_success ? json_tokener_get_parse_end(tok) : 0;
#else
        size_t end = jerr == json_tokener_success ? (size_t)tok->char_offset : 0;
#endif
        json_tokener_free(tok);
        if (jerr != json_tokener_success || !m) {
                json_object_put(m);
                *ret_detail = xasprintf("not valid JSON (%s)",
                                        jerr == json_tokener_continue ? "truncated" : json_tokener_error_desc(jerr));
                return -EBADMSG;
        }
        if (end + strspn(text + end, " \t\r\n") != len) {
                json_object_put(m);
                *ret_detail = xstrdup("trailing garbage after the JSON object");
                return -EBADMSG;
        }
        int r = validate_manifest(m, txid, ret_detail);
        if (r < 0) {
                json_object_put(m);
                return r;
        }
        *ret = m;
        return 0;
}

int ht_journal_manifest_check(const char *json, size_t len, const char *txid, char **ret_error) {
        if (txid && !txid_valid(txid))
                return set_error(ret_error, -EINVAL, "%s is not a transaction id", txid);
        json_object *m = NULL;
        _cleanup_free_ char *detail = NULL;
        int r = manifest_parse(json, len, txid, &m, &detail);
        if (r >= 0)
                r = manifest_confined(NULL, m, &detail);
        json_object_put(m);
        if (r < 0)
                return set_error(ret_error, r, "manifest: %s", detail);
        return 0;
}

static int tx_load_at(const ht_context *c, int jfd, const char *txid, ht_tx **ret, char **ret_error) {
        if (!txid_valid(txid))
                return set_error(ret_error, -EINVAL, "%s is not a transaction id (like 20261130T091502Z-1a2b3c4d)",
                                 txid ? txid : "(null)");
        int fd = openat(jfd, txid, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
                if (errno == ENOENT)
                        return set_error(ret_error, -ENOENT, "no transaction %s in %s/" JOURNAL_DIR, txid,
                                         c->state_dir);
                return corrupt(ret_error, c, txid, strerror(errno));
        }
        _cleanup_(ht_tx_freep) ht_tx *tx = tx_new(c, txid, fd);

        _cleanup_free_ char *text = NULL;
        size_t len = 0;
        int r = ht_read_file_at(fd, MANIFEST, MANIFEST_MAX, &text, &len);
        if (r < 0) {
                _cleanup_free_ char *d = xasprintf(MANIFEST ": %s", ht_strerror(-r));
                return corrupt(ret_error, c, txid, d);
        }
        _cleanup_free_ char *detail = NULL;
        r = manifest_parse(text, len, txid, &tx->m, &detail);
        if (r < 0)
                return corrupt(ret_error, c, txid, detail);
        r = manifest_confined(c, tx->m, &detail);
        if (r < 0)
                return refused(ret_error, c, txid, detail);

        tx->backup_fd = openat(fd, BACKUP_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (tx->backup_fd < 0)
                return corrupt(ret_error, c, txid, "the backup directory is missing");
        *ret = TAKE_PTR(tx);
        return 0;
}

/* load_all keeps whole journals in memory but not their fds (a long
 * history would run out of them); a transaction handed out gets its
 * directory fds back here. */
static void tx_detach(ht_tx *tx) {
        if (tx->fd >= 0)
                close(tx->fd);
        if (tx->backup_fd >= 0)
                close(tx->backup_fd);
        tx->fd = tx->backup_fd = -1;
}

static int tx_attach(ht_tx *tx, int jfd) {
        if (tx->fd >= 0)
                return 0;
        tx->fd = openat(jfd, tx->txid, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (tx->fd < 0)
                return -errno;
        tx->backup_fd = openat(tx->fd, BACKUP_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (tx->backup_fd < 0) {
                int r = -errno;
                tx_detach(tx);
                return r;
        }
        return 0;
}

/* ---- begin, record, done, commit -------------------------------------- */

int ht_tx_begin(const ht_context *c, const char *command, const char *profile,
                json_object *params, json_object *facts, ht_tx **ret, char **ret_error) {
        if (!plain_word(command))
                return set_error(ret_error, -EINVAL, "journal: invalid command name");
        if ((params && !json_object_is_type(params, json_type_object)) ||
            (facts && !json_object_is_type(facts, json_type_object)))
                return set_error(ret_error, -EINVAL, "journal: params and facts must be JSON objects");
        if (profile && has_control_chars(profile))
                return set_error(ret_error, -EINVAL, "journal: invalid profile name");

        int jfd;
        /* a new state directory's entries: flushed with the begin record */
        _cleanup_(ht_fsync_batch_done) ht_fsync_batch sync = {0};
        int r = open_journal_dir(c, true, &sync, &jfd, ret_error);
        if (r < 0)
                return r;
        _cleanup_close_ int journal_fd = jfd;

        int64_t usec = now_usec();
        _cleanup_free_ char *txid = NULL, *tmp = NULL, *created = NULL, *boot_id = NULL, *real_root = NULL;
        for (int attempt = 0;; attempt++) {
                if (attempt >= 16)
                        return set_error(ret_error, -EEXIST, "journal: cannot find a free transaction id");
                free(txid);
                free(tmp);
                txid = new_txid(usec);
                tmp = xasprintf(NEW_PREFIX "%s", txid);
                struct stat st;
                if (fstatat(journal_fd, txid, &st, AT_SYMLINK_NOFOLLOW) == 0)
                        continue;
                r = ht_mkdirat_exact(journal_fd, tmp, 0700);
                if (r == 0)
                        break;
                if (r != -EEXIST) {
                        (void)unlinkat(journal_fd, tmp, AT_REMOVEDIR);
                        return set_error(ret_error, r, "journal: cannot create %s/" JOURNAL_DIR "/%s: %s",
                                         c->state_dir, tmp, ht_strerror(-r));
                }
        }
        int fd = openat(journal_fd, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
                r = -errno;
                (void)unlinkat(journal_fd, tmp, AT_REMOVEDIR);
                return set_error(ret_error, r, "journal: cannot open %s: %s", tmp, ht_strerror(-r));
        }
        _cleanup_(ht_tx_freep) ht_tx *tx = tx_new(c, txid, fd);
        tx->sync = sync;
        sync = (ht_fsync_batch){0};
        if ((r = ht_mkdirat_exact(fd, BACKUP_DIR, 0700)) < 0 ||
            (tx->backup_fd = openat(fd, BACKUP_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
                if (r >= 0)
                        r = -errno;
                r = set_error(ret_error, r, "journal %s: cannot create the backup directory: %s", txid,
                              ht_strerror(-r));
                goto fail;
        }

        json_object *m = tx->m = json_object_new_object();
        json_object_object_add(m, "format", json_object_new_string(FORMAT));
        json_object_object_add(m, "version", json_object_new_int(FORMAT_VERSION));
        json_object_object_add(m, "txid", json_object_new_string(txid));
        json_object_object_add(m, "command", json_object_new_string(command));
        json_object_object_add(m, "profile", jstr(profile));
        json_object_object_add(m, "status", json_object_new_string("pending"));
        created = iso_time((time_t)(usec / 1000000));
        json_object_object_add(m, "created", json_object_new_string(created));
        json_object_object_add(m, "created_usec", json_object_new_int64(usec));
        /* a real path, so a copy of the tree (and its journal) elsewhere is
         * told apart from it */
        real_root = realpath(c->root, NULL);
        json_object_object_add(m, "root", json_object_new_string(real_root ? real_root : c->root));
        if (ht_read_line(c, "/proc/sys/kernel/random/boot_id", &boot_id) < 0 || has_control_chars(boot_id)) {
                free(boot_id);
                boot_id = NULL;
        }
        json_object_object_add(m, "boot_id", jstr(boot_id));
        /* an image's apply: its first boot is a boot since, though no
         * boot id was there to record */
        if (!ht_context_root_live(c))
                json_object_object_add(m, "offline", json_object_new_boolean(true));
        json_object_object_add(m, "params", params ? json_object_get(params) : json_object_new_object());
        json_object_object_add(m, "facts", facts ? json_object_get(facts) : json_object_new_object());
        json_object_object_add(m, "reboot_required", json_object_new_boolean(false));
        json_object_object_add(m, "info", json_object_new_object());
        json_object_object_add(m, "expected", json_object_new_array());
        json_object_object_add(m, "items", json_object_new_array());

        /* nothing is on disk but the hidden directory: the items come
         * first, and the first tx_write makes it all appear by one rename */
        tx->journal_fd = TAKE_FD(journal_fd);
        tx->new_name = TAKE_PTR(tmp);
        *ret = TAKE_PTR(tx);
        return 0;

fail:
        (void)remove_tree_at(journal_fd, tmp, 1);
        return r;
}

static int require_pending(const ht_tx *tx, char **ret_error) {
        if (!streq_ptr(ht_tx_status(tx), "pending"))
                return set_error(ret_error, -EINVAL, "journal %s: transaction is %s, not pending", tx->txid,
                                 ht_tx_status(tx));
        return 0;
}

/* Append an item, in memory: ht_tx_write_ahead puts it on disk. */
static int append_item(ht_tx *tx, json_object *it, size_t *ret_item, char **ret_error) {
        (void)ret_error;
        json_object *items = items_of(tx);
        size_t idx = json_object_array_length(items);
        json_object_array_add(items, it);
        ht_fault_point("record");
        if (ret_item)
                *ret_item = idx;
        return 0;
}

int ht_tx_write_ahead(ht_tx *tx, char **ret_error) {
        int r = require_pending(tx, ret_error);
        if (r < 0)
                return r;
        if (!tx->new_name && tx->n_durable == ht_tx_n_items(tx))
                return 0;
        return tx_write(tx, NULL, ret_error);
}

int ht_tx_record_file(ht_tx *tx, const char *backend, const char *path,
                      const void *new_content, size_t new_len, mode_t new_mode,
                      size_t *ret_item, char **ret_error) {
        int r = require_pending(tx, ret_error);
        if (r < 0)
                return r;
        if (!plain_word(backend))
                return set_error(ret_error, -EINVAL, "journal %s: invalid backend name", tx->txid);
        if (!path || ht_path_check(path) < 0)
                return set_error(ret_error, -EINVAL, "journal %s: %s is not a clean absolute path", tx->txid,
                                 path ? path : "(null)");
        if (new_len > HT_FILE_MAX)
                return set_error(ret_error, -EFBIG, "journal %s: new content of %s is too large", tx->txid, path);
        /* what a rollback would refuse to restore is never recorded: a
         * backend's files table that misses a path fails here, at once */
        if (!(file_check && file_check(tx->c, backend, path)))
                return set_error(ret_error, -EPERM, "journal %s: %s is not a file the %s backend writes", tx->txid,
                                 path, backend);

        _cleanup_(ht_file_snapshot_freep) ht_file_snapshot *s = NULL;
        r = ht_file_snapshot_take(tx->c, path, &s);
        if (r < 0) {
                _cleanup_free_ char *dp = ht_display_path(tx->c, path);
                return set_error(ret_error, r, "cannot record the current state of %s: %s%s", dp, ht_strerror(-r),
                                 r == -ELOOP ? " (hosttune never writes through a symlink)"
                                 : r == -EPERM ? " (a directory on the way is not owned by root or is writable by group or others: chown root, chmod go-w)" : "");
        }

        size_t idx = json_object_array_length(items_of(tx));
        json_object *it = json_object_new_object();
        json_object_object_add(it, "kind", json_object_new_string("file"));
        json_object_object_add(it, "backend", json_object_new_string(backend));
        json_object_object_add(it, "path", json_object_new_string(path));
        json_object_object_add(it, "done", json_object_new_boolean(false));

        json_object *prior = json_object_new_object();
        json_object_object_add(it, "prior", prior);
        json_object_object_add(prior, "existed", json_object_new_boolean(s->existed));
        if (s->existed) {
                char hex[HT_SHA256_HEX_SIZE];
                ht_sha256_hex(s->content, s->len, hex);
                _cleanup_free_ char *mode = mode_string(s->mode);
                _cleanup_free_ char *name = xasprintf("%zu", idx);
                json_object_object_add(prior, "mode", json_object_new_string(mode));
                json_object_object_add(prior, "uid", json_object_new_int64(s->uid));
                json_object_object_add(prior, "gid", json_object_new_int64(s->gid));
                json_object_object_add(prior, "size", json_object_new_int64((int64_t)s->len));
                json_object_object_add(prior, "sha256", json_object_new_string(hex));
                json_object_object_add(prior, "backup", json_object_new_string(name));
                /* its own name, unknown to any manifest on disk until the
                 * next tx_write (which fsyncs backup/): no temp, no rename */
                r = write_new_file_at(tx->backup_fd, name, s->content, s->len, &tx->sync);
                if (r >= 0)
                        tx->backups_unsynced = true;
                if (r < 0) {
                        json_object_put(it);
                        return set_error(ret_error, r, "journal %s: cannot write backup %s/" BACKUP_DIR "/%s: %s",
                                         tx->txid, tx->dir, name, ht_strerror(-r));
                }
                ht_fault_point("record-backup");
        } else {
                json_object *md = json_object_new_array();
                for (char **d = s->missing_dirs; d && *d; d++)
                        json_object_array_add(md, json_object_new_string(*d));
                json_object_object_add(prior, "missing_dirs", md);
        }

        json_object *new = json_object_new_object();
        json_object_object_add(it, "new", new);
        json_object_object_add(new, "existed", json_object_new_boolean(new_content != NULL));
        if (new_content) {
                char hex[HT_SHA256_HEX_SIZE];
                ht_sha256_hex(new_content, new_len, hex);
                _cleanup_free_ char *mode = mode_string(new_mode);
                json_object_object_add(new, "mode", json_object_new_string(mode));
                json_object_object_add(new, "size", json_object_new_int64((int64_t)new_len));
                json_object_object_add(new, "sha256", json_object_new_string(hex));
        }
        return append_item(tx, it, ret_item, ret_error);
}

int ht_tx_record_generated(ht_tx *tx, const char *backend, const char *path, size_t *ret_item,
                            char **ret_error) {
        size_t idx;
        /* the prior state as for any file; the new state is the tool's */
        int r = ht_tx_record_file(tx, backend, path, "", 0, 0644, &idx, ret_error);
        if (r < 0)
                return r;
        json_object *it = json_object_array_get_idx(items_of(tx), idx);
        json_object *new = json_object_new_object();
        json_object_object_add(new, "existed", json_object_new_boolean(true));
        json_object_object_add(new, "generated", json_object_new_boolean(true));
        json_object_object_add(it, "new", new);
        *ret_item = idx;
        return 0;
}

/* An item's change may be made, and so marked, only once its record is
 * on disk: the write-ahead rule, checked rather than trusted. */
static int require_durable(ht_tx *tx, size_t idx, char **ret_error) {
        if (idx >= ht_tx_n_items(tx))
                return set_error(ret_error, -EINVAL, "journal %s: no item %zu", tx->txid, idx);
        if (idx >= tx->n_durable)
                return set_error(ret_error, -EINVAL, "journal %s: item %zu was not written ahead of its change",
                                 tx->txid, idx);
        return 0;
}

int ht_tx_update_generated(ht_tx *tx, size_t idx, char **ret_error) {
        int r = require_durable(tx, idx, ret_error);
        if (r < 0)
                return r;
        json_object *it = json_object_array_get_idx(items_of(tx), idx);
        const char *path = get_str(it, "path");
        _cleanup_(ht_file_snapshot_freep) ht_file_snapshot *s = NULL;
        r = ht_file_snapshot_take(tx->c, path, &s);
        if (r < 0)
                return set_error(ret_error, r, "journal %s: cannot read %s: %s", tx->txid, path, ht_strerror(-r));
        json_object *new = json_object_new_object();
        json_object_object_add(new, "existed", json_object_new_boolean(s->existed));
        json_object_object_add(new, "generated", json_object_new_boolean(true));
        if (s->existed) {
                char hex[HT_SHA256_HEX_SIZE];
                ht_sha256_hex(s->content, s->len, hex);
                _cleanup_free_ char *mode = mode_string(s->mode);
                json_object_object_add(new, "mode", json_object_new_string(mode));
                json_object_object_add(new, "size", json_object_new_int64((int64_t)s->len));
                json_object_object_add(new, "sha256", json_object_new_string(hex));
        }
        /* on disk with the commit: until then recovery takes any content
         * of a generated file for the tool's own */
        json_object_object_add(it, "new", new);
        json_object_object_add(it, "done", json_object_new_boolean(true));
        return 0;
}

int ht_tx_record_runtime(ht_tx *tx, const char *backend, const char *key, const char *path,
                         const char *prior_value, const char *new_value,
                         size_t *ret_item, char **ret_error) {
        int r = require_pending(tx, ret_error);
        if (r < 0)
                return r;
        if (!plain_word(backend))
                return set_error(ret_error, -EINVAL, "journal %s: invalid backend name", tx->txid);
        if (isempty(key) || has_control_chars(key))
                return set_error(ret_error, -EINVAL, "journal %s: invalid key", tx->txid);
        if (!path || ht_path_check(path) < 0 || !runtime_path_ok(path))
                return set_error(ret_error, -EINVAL,
                                 "journal %s: %s: %s is not a clean absolute path below /proc/sys or /sys", tx->txid,
                                 key, path ? path : "(null)");
        _cleanup_free_ char *read_value = NULL;
        if (!prior_value) {
                r = ht_read_line(tx->c, path, &read_value);
                if (r < 0) {
                        _cleanup_free_ char *dp = ht_display_path(tx->c, path);
                        return set_error(ret_error, r, "cannot record the current value of %s (%s): %s", key, dp,
                                         ht_strerror(-r));
                }
                prior_value = read_value;
        }
        if (!value_ok(prior_value))
                return set_error(ret_error, -EINVAL,
                                 "journal %s: the current value of %s spans lines; it could not be restored", tx->txid,
                                 key);
        /* kept as the kernel takes it back: "madvise", not the "always
         * [madvise] never" the file shows; "250 32000 32 128" for the
         * tab-separated fields of kernel.sem */
        _cleanup_free_ char *writable = ht_kernel_value_to_restore(prior_value);
        if (!value_ok(new_value))
                return set_error(ret_error, -EINVAL, "journal %s: invalid new value for %s", tx->txid, key);

        json_object *it = json_object_new_object();
        json_object_object_add(it, "kind", json_object_new_string("runtime"));
        json_object_object_add(it, "backend", json_object_new_string(backend));
        json_object_object_add(it, "key", json_object_new_string(key));
        json_object_object_add(it, "path", json_object_new_string(path));
        json_object_object_add(it, "done", json_object_new_boolean(false));
        json_object *prior = json_object_new_object();
        json_object_object_add(prior, "value", json_object_new_string(writable));
        json_object_object_add(it, "prior", prior);
        json_object *new = json_object_new_object();
        json_object_object_add(new, "value", json_object_new_string(new_value));
        json_object_object_add(it, "new", new);
        return append_item(tx, it, ret_item, ret_error);
}

int ht_tx_mark_done(ht_tx *tx, size_t idx, char **ret_error) {
        int r = require_durable(tx, idx, ret_error);
        if (r < 0)
                return r;
        /* in memory: recovery judges each item by what is on disk (its
         * path against its prior and new states), not by this flag, which
         * the commit writes for history */
        json_object_object_add(json_object_array_get_idx(items_of(tx), idx), "done", json_object_new_boolean(true));
        ht_fault_point("done");
        return 0;
}

int ht_tx_set_expected(ht_tx *tx, json_object *expected, char **ret_error) {
        if (!expected || !json_object_is_type(expected, json_type_array))
                return set_error(ret_error, -EINVAL, "journal %s: expected must be a JSON array", tx->txid);
        json_object_object_add(tx->m, "expected", json_object_get(expected));
        return 0;
}

void ht_tx_set_reboot_required(ht_tx *tx, bool reboot_required) {
        json_object_object_add(tx->m, "reboot_required", json_object_new_boolean(reboot_required));
}

void ht_tx_set_info(ht_tx *tx, const char *key, json_object *value) {
        json_object *info;
        if (!json_object_object_get_ex(tx->m, "info", &info) || !json_object_is_type(info, json_type_object)) {
                info = json_object_new_object();
                json_object_object_add(tx->m, "info", info);
        }
        json_object_object_add(info, key, json_object_get(value));
}

int ht_tx_commit(ht_tx *tx, char **ret_error) {
        return ht_tx_commit_with(tx, NULL, ret_error);
}

int ht_tx_commit_with(ht_tx *tx, ht_fsync_batch *also, char **ret_error) {
        int r = require_pending(tx, ret_error);
        if (r < 0)
                return r;
        ht_fault_point("pre-commit");
        set_status(tx, "committed");
        set_now(tx, "committed_at");
        r = tx_write(tx, also, ret_error);
        if (r < 0) {
                set_status(tx, "pending");
                return r;
        }
        ht_fault_point("commit");
        return 0;
}

/* ---- undo: rollback, abort, recovery ---------------------------------- */

/* The file as the transaction saw it before: content from the backup,
 * checked against the recorded size and sha256. */
static int prior_snapshot(const ht_tx *tx, const item *it, ht_file_snapshot **ret, char **ret_error) {
        ht_file_snapshot *s = xcalloc(1, sizeof(*s));
        s->path = xstrdup(it->path);
        s->existed = it->prior_existed;
        if (!it->prior_existed) {
                for (size_t k = 0; it->missing_dirs && k < json_object_array_length(it->missing_dirs); k++)
                        strv_push(&s->missing_dirs,
                                  json_object_get_string(json_object_array_get_idx(it->missing_dirs, k)));
                *ret = s;
                return 0;
        }
        /* never a setuid, setgid or sticky bit: no file hosttune writes has
         * one, and a manifest that says so was tampered with */
        s->mode = it->prior_mode & 0777;
        s->uid = it->prior_uid;
        s->gid = it->prior_gid;
        int r = ht_read_file_at(tx->backup_fd, it->backup, HT_FILE_MAX, &s->content, &s->len);
        if (r < 0) {
                ht_file_snapshot_free(s);
                return set_error(ret_error, r,
                                 "journal %s: backup of %s (%s/" BACKUP_DIR "/%s) cannot be read: %s; nothing was "
                                 "restored",
                                 tx->txid, it->path, tx->dir, it->backup, ht_strerror(-r));
        }
        char hex[HT_SHA256_HEX_SIZE];
        ht_sha256_hex(s->content, s->len, hex);
        if (s->len != it->prior_size || !streq(hex, it->prior_sha)) {
                ht_file_snapshot_free(s);
                return set_error(ret_error, -EBADMSG,
                                 "journal %s: backup of %s (%s/" BACKUP_DIR "/%s) does not match its checksum; "
                                 "nothing was restored; inspect %s",
                                 tx->txid, it->path, tx->dir, it->backup, tx->dir);
        }
        *ret = s;
        return 0;
}

static bool state_is(const ht_file_snapshot *cur, bool existed, const char *sha) {
        if (cur->existed != existed)
                return false;
        if (!existed)
                return true;
        /* a generated file's new state has no checksum until its tool ran */
        if (!sha)
                return false;
        char hex[HT_SHA256_HEX_SIZE];
        ht_sha256_hex(cur->content, cur->len, hex);
        return streq(hex, sha);
}

/* The file is as this transaction left it, or as it found it (any item
 * of the same path counts: a path may be recorded more than once). */
static bool file_state_known(const ht_tx *tx, const char *path, const ht_file_snapshot *cur) {
        size_t n = ht_tx_n_items(tx);
        for (size_t i = 0; i < n; i++) {
                item it;
                tx_item(tx, i, &it);
                if (!it.file || !streq(it.path, path))
                        continue;
                if (state_is(cur, it.prior_existed, it.prior_sha) || state_is(cur, it.new_existed, it.new_sha))
                        return true;
                /* a tool (grub-mkconfig) was still writing it when we stopped */
                if (it.generated && !it.new_sha)
                        return true;
        }
        return false;
}

static bool same_file(const ht_file_snapshot *a, const ht_file_snapshot *b) {
        if (a->existed != b->existed)
                return false;
        if (!a->existed)
                return true;
        return a->len == b->len && memcmp(a->content, b->content, a->len) == 0 && a->mode == b->mode &&
               (b->uid == HT_UID_ANY || a->uid == b->uid) && (b->gid == HT_GID_ANY || a->gid == b->gid);
}

static bool dirs_absent(const ht_context *c, char **dirs) {
        for (char **d = dirs; d && *d; d++) {
                struct stat st;
                if (ht_lstat(c, *d, &st) == 0)
                        return false;
        }
        return true;
}

static char *short_sha(const ht_file_snapshot *s) {
        if (!s || !s->existed)
                return xstrdup("(absent)");
        char hex[HT_SHA256_HEX_SIZE];
        ht_sha256_hex(s->content, s->len, hex);
        return xasprintf("sha256:%.16s", hex);
}

/* Item it's prior state (from its backup) and the path's current state,
 * with the owner it may get back. 1: it must be restored, 0: it is as
 * before, negative: an error pushed to *errors. */
static int file_undo_states(ht_tx *tx, const item *it, ht_file_snapshot **ret_prior, ht_file_snapshot **ret_cur,
                            char ***errors) {
        const ht_context *c = tx->c;
        _cleanup_free_ char *err = NULL;
        _cleanup_(ht_file_snapshot_freep) ht_file_snapshot *prior = NULL, *cur = NULL;
        int r = prior_snapshot(tx, it, &prior, &err);
        if (r < 0) {
                strv_push(errors, err);
                err = NULL;
                return r;
        }
        /* a crash inside an atomic write leaves its temp file behind */
        (void)ht_cleanup_temp_files(c, it->path);
        r = ht_file_snapshot_take(c, it->path, &cur);
        if (r < 0) {
                _cleanup_free_ char *dp = ht_display_path(c, it->path);
                strv_pushf(errors, "%s: cannot read its current state: %s", dp, ht_strerror(-r));
                return r;
        }
        /* an owner other than root comes back only onto the file that has
         * it: a manifest must not hand a file root reads at boot to
         * another user */
        if (prior->existed && (prior->uid != 0 || prior->gid != 0) &&
            !(cur->existed && cur->uid == prior->uid && cur->gid == prior->gid)) {
                prior->uid = geteuid() == 0 ? 0 : HT_UID_ANY;
                prior->gid = geteuid() == 0 ? 0 : HT_GID_ANY;
        }
        bool same = same_file(cur, prior) && (prior->existed || dirs_absent(c, prior->missing_dirs));
        *ret_prior = TAKE_PTR(prior);
        *ret_cur = TAKE_PTR(cur);
        return same ? 0 : 1;
}

/* The owner a restored file gets: the one restored, or (HT_UID_ANY: not
 * set) the one it has. */
static unsigned long cur_owner(const ht_file_snapshot *prior, const ht_file_snapshot *cur, bool uid) {
        if (uid)
                return prior->uid != HT_UID_ANY ? prior->uid : cur->existed ? cur->uid : geteuid();
        return prior->gid != HT_GID_ANY ? prior->gid : cur->existed ? cur->gid : getegid();
}

/* Put one file back. 1 restored, 0 it already was as before, negative on
 * failure. record: the rollback transaction that journaled this restore
 * as its item ridx (SIZE_MAX: none), marked done once it is made. */
static int undo_file(ht_tx *tx, const item *it, ht_tx *record, size_t ridx, ht_fsync_batch *dirs, char ***msgs,
                     char ***errors) {
        const ht_context *c = tx->c;
        _cleanup_free_ char *dp = ht_display_path(c, it->path);
        _cleanup_free_ char *err = NULL;
        _cleanup_(ht_file_snapshot_freep) ht_file_snapshot *prior = NULL, *cur = NULL;
        int r = file_undo_states(tx, it, &prior, &cur, errors);
        if (r <= 0)
                return r;
        _cleanup_free_ char *old = short_sha(cur), *new = short_sha(prior);
        r = ht_file_restore_batched(c, prior, dirs);
        ht_audit_change("hosttune-rollback", it->path, old, new, tx->txid, r >= 0);
        if (r < 0) {
                strv_pushf(errors, "%s: cannot restore it: %s", dp, ht_strerror(-r));
                return r;
        }
        if (prior->existed)
                strv_pushf(msgs, "%s: restored (%zu bytes, mode %04o, owner %u:%u)", dp, prior->len,
                           (unsigned)prior->mode, (unsigned)cur_owner(prior, cur, true),
                           (unsigned)cur_owner(prior, cur, false));
        else
                strv_pushf(msgs, "%s: removed (it did not exist before)", dp);
        if (record && ridx != SIZE_MAX) {
                r = ht_tx_mark_done(record, ridx, &err);
                if (r < 0) {
                        strv_push(errors, err);
                        err = NULL;
                        return r;
                }
        }
        return 1;
}

/* A runtime item's current value, and whether it differs from the one
 * before (1), or not (0); negative on a read error (pushed). */
static int runtime_undo_states(ht_tx *tx, const item *it, char **ret_cur, char ***errors) {
        _cleanup_free_ char *cur = NULL;
        int r = ht_read_line(tx->c, it->path, &cur);
        if (r < 0) {
                _cleanup_free_ char *dp = ht_display_path(tx->c, it->path);
                strv_pushf(errors, "%s (%s): cannot read it: %s", it->key, dp, ht_strerror(-r));
                return r;
        }
        _cleanup_free_ char *want = ht_kernel_value_effective(it->prior_value);
        _cleanup_free_ char *ecur = ht_kernel_value_effective(cur);
        *ret_cur = TAKE_PTR(cur);
        return streq(ecur, want) ? 0 : 1;
}

/* Put one runtime value back and read it back. 1 restored, 0 it already
 * was as before, negative on failure, with the value the kernel has now in
 * the error (what is where must be clear from the message alone). */
static int undo_runtime(ht_tx *tx, const item *it, ht_tx *record, size_t ridx, unsigned flags, char ***msgs,
                        char ***errors) {
        const ht_context *c = tx->c;
        _cleanup_free_ char *dp = ht_display_path(c, it->path);
        _cleanup_free_ char *cur = NULL, *err = NULL, *rb = NULL;
        int r = runtime_undo_states(tx, it, &cur, errors);
        if (r <= 0)
                return r;
        /* What goes back is the value as the kernel takes it: the journal
         * keeps it so, and a journal written before it did keeps the line
         * as read ("always [madvise] never"), which the choice file would
         * refuse. */
        _cleanup_free_ char *restore = ht_kernel_value_to_restore(it->prior_value);
        _cleanup_free_ char *want = ht_kernel_value_effective(it->prior_value);
        _cleanup_free_ char *ecur = ht_kernel_value_effective(cur);
        r = ht_fault_fail("restore-runtime");
        if (r == 0)
                r = ht_write_kernel_value(c, it->path, restore, &rb);
        if (r < 0) {
                /* the value found after the refused write, not the one before */
                _cleanup_free_ char *now = NULL;
                bool known = ht_read_line(c, it->path, &now) >= 0;
                _cleanup_free_ char *enow = known ? ht_kernel_value_effective(now) : NULL;
                ht_audit_change("hosttune-rollback", it->key, cur, restore, tx->txid, false);
                strv_pushf(errors, "%s (%s): writing '%s' back failed (%s); it is '%s'", it->key, dp,
                           restore, ht_strerror(-r), known ? enow : "unreadable");
                return r;
        }
        /* read back: the kernel may take a write and keep another value */
        _cleanup_free_ char *erb = ht_kernel_value_effective(rb);
        bool ok = streq(erb, want);
        ht_audit_change("hosttune-rollback", it->key, cur, restore, tx->txid, ok);
        if (!ok) {
                if (!(flags & HT_ROLLBACK_FORCE)) {
                        strv_pushf(errors, "%s (%s): wrote '%s' back, the kernel reads '%s'", it->key,
                                   dp, restore, erb);
                        return -EIO;
                }
                strv_pushf(msgs, "%s: wrote %s back, the kernel reads %s (forced)", it->key, restore, erb);
        } else
                strv_pushf(msgs, "%s: restored %s (was %s)", it->key, restore, ecur);
        if (record && ridx != SIZE_MAX) {
                r = ht_tx_mark_done(record, ridx, &err);
                if (r < 0) {
                        strv_push(errors, err);
                        err = NULL;
                        return r;
                }
        }
        return 1;
}

/* Journal in record every restore tx's undo will make (its path's state
 * now, before the restore), then write record once: the restores of a
 * rollback are write-ahead like an apply's changes. ridx[i]: item i's
 * index in record, SIZE_MAX when it needs no restore (or its path is
 * recorded already: the first, newest, record of a path holds its state
 * before this rollback). */
static int record_undo(ht_tx *tx, ht_tx *record, size_t *ridx, char **ret_error) {
        size_t n = ht_tx_n_items(tx);
        _cleanup_strv_free_ char **seen = NULL, **errors = NULL;
        for (size_t i = n; i > 0; i--) {
                item it;
                tx_item(tx, i - 1, &it);
                ridx[i - 1] = SIZE_MAX;
                char *err = NULL;
                int r;
                if (it.file) {
                        _cleanup_(ht_file_snapshot_freep) ht_file_snapshot *prior = NULL, *cur = NULL;
                        if (strv_contains(seen, it.path) || file_undo_states(tx, &it, &prior, &cur, &errors) <= 0)
                                continue;
                        strv_push(&seen, it.path);
                        r = ht_tx_record_file(record, it.backend, it.path, prior->existed ? prior->content : NULL,
                                              prior->len, prior->mode, &ridx[i - 1], &err);
                } else {
                        _cleanup_free_ char *cur = NULL, *restore = ht_kernel_value_to_restore(it.prior_value);
                        if (runtime_undo_states(tx, &it, &cur, &errors) <= 0)
                                continue;
                        r = ht_tx_record_runtime(record, it.backend, it.key, it.path, cur, restore, &ridx[i - 1],
                                                 &err);
                }
                if (r < 0) {
                        if (ret_error)
                                *ret_error = err;
                        else
                                free(err);
                        return r;
                }
        }
        /* what cannot be read now is reported by the undo itself */
        json_object *rev;
        if (!json_object_object_get_ex(record->m, "reverts", &rev)) {
                rev = json_object_new_array();
                json_object_object_add(record->m, "reverts", rev);
        }
        json_object_array_add(rev, json_object_new_string(tx->txid));
        return tx_write(record, NULL, ret_error);
}

static int open_journal_for(const ht_tx *tx, int *ret_fd) {
        return open_journal_dir(tx->c, false, NULL, ret_fd, NULL);
}

/* A rollback transaction that is itself undone: the transactions it had
 * marked rolled back are committed again, since their changes are back. */
static void reinstate_reverted(ht_tx *tx, char ***msgs) {
        json_object *rev;
        if (!json_object_object_get_ex(tx->m, "reverts", &rev) || !json_object_is_type(rev, json_type_array))
                return;
        int jfd;
        if (open_journal_for(tx, &jfd) < 0)
                return;
        for (size_t i = 0; i < json_object_array_length(rev); i++) {
                const char *t = json_object_get_string(json_object_array_get_idx(rev, i));
                _cleanup_(ht_tx_freep) ht_tx *target = NULL;
                if (tx_load_at(tx->c, jfd, t, &target, NULL) < 0)
                        continue;
                if (!streq_ptr(ht_tx_status(target), "rolled-back") ||
                    !streq_ptr(get_str(target->m, "rolled_back_by"), tx->txid))
                        continue;
                set_status(target, "committed");
                json_object_object_del(target->m, "rolled_back_by");
                json_object_object_del(target->m, "rolled_back_at");
                if (tx_write(target, NULL, NULL) == 0)
                        strv_pushf(msgs, "journal %s: committed again (its rollback %s did not finish)", t, tx->txid);
        }
        close(jfd);
}

static int undo(ht_tx *tx, ht_tx *record, unsigned flags, const char *final_status, const char *reason,
                char ***ret_messages, char **ret_error) {
        const ht_context *c = tx->c;
        size_t n = ht_tx_n_items(tx);
        _cleanup_free_ char *saved_status = NULL;
        int r;

        if (record == tx)
                return set_error(ret_error, -EINVAL, "journal %s: a transaction cannot record its own rollback",
                                 tx->txid);
        if (record) {
                r = require_pending(record, ret_error);
                if (r < 0)
                        return r;
        }

        /* 1. Check everything before changing anything: every backup must
         * match its checksum, every file must be in a state this
         * transaction knows (before or after), unless forced. */
        for (size_t i = 0; i < n; i++) {
                item it;
                tx_item(tx, i, &it);
                if (!it.file)
                        continue;
                _cleanup_(ht_file_snapshot_freep) ht_file_snapshot *prior = NULL, *cur = NULL;
                r = prior_snapshot(tx, &it, &prior, ret_error);
                if (r < 0)
                        return r;
                if (flags & HT_ROLLBACK_FORCE)
                        continue;
                r = ht_file_snapshot_take(c, it.path, &cur);
                _cleanup_free_ char *dp = ht_display_path(c, it.path);
                if (r < 0)
                        return set_error(ret_error, r, "journal %s: cannot read %s: %s; nothing was restored",
                                         tx->txid, dp, ht_strerror(-r));
                if (!file_state_known(tx, it.path, cur))
                        return set_error(ret_error, -ESTALE,
                                         "journal %s: %s was changed since this transaction (its content is "
                                         "neither the one before nor the one after it); nothing was restored; "
                                         "force the rollback to overwrite it",
                                         tx->txid, dp);
        }

        _cleanup_free_ size_t *ridx = xcalloc(n + 1, sizeof(size_t));
        for (size_t i = 0; i < n; i++)
                ridx[i] = SIZE_MAX;
        if (record) {
                r = record_undo(tx, record, ridx, ret_error);
                if (r < 0)
                        return r;
        }

        /* 2. Undo, newest change first; keep going past a failure so as
         * much as possible is back, and report every failure. */
        char **msgs = NULL, **errors = NULL;
        size_t n_restored = 0, n_same = 0;
        /* the restored files' directories: flushed at once with the new
         * status (tx_write), which is not durable before they are */
        ht_fsync_batch dirs = {0};
        for (size_t i = n; i > 0; i--) {
                item it;
                tx_item(tx, i - 1, &it);
                int k = it.file ? undo_file(tx, &it, record, ridx[i - 1], &dirs, &msgs, &errors) :
                                  undo_runtime(tx, &it, record, ridx[i - 1], flags, &msgs, &errors);
                if (k > 0)
                        n_restored++;
                else if (k == 0)
                        n_same++;
                ht_fault_point("rollback-item");
        }

        /* 3. The new status, or the errors for a retry. What was restored
         * stays restored: undoing it again would hide the half-way state
         * behind a second change; the retry skips what is already back. */
        if (errors) {
                json_object *arr = json_object_new_array();
                for (char **e = errors; *e; e++)
                        json_object_array_add(arr, json_object_new_string(*e));
                json_object_object_add(tx->m, "rollback_errors", arr);
                /* an apply's undo that stopped: why it was undone, for the run that finishes it */
                if (reason && streq_ptr(ht_tx_status(tx), "pending"))
                        json_object_object_add(tx->m, "error", json_object_new_string(reason));
                (void)tx_write(tx, &dirs, NULL);
                _cleanup_free_ char *all = strv_join(errors, "; ");
                r = set_error(ret_error, -EIO,
                              "journal %s: %zu of %zu item(s) not restored: %s; %zu restored now, %zu already as "
                              "before (they stay so)",
                              tx->txid, strv_length(errors), n, all, n_restored, n_same);
                goto out;
        }
        saved_status = xstrdup(ht_tx_status(tx));
        set_status(tx, final_status);
        set_now(tx, streq(final_status, "rolled-back") ? "rolled_back_at" : "undone_at");
        if (record)
                json_object_object_add(tx->m, "rolled_back_by", json_object_new_string(record->txid));
        if (reason)
                json_object_object_add(tx->m, "error", json_object_new_string(reason));
        json_object_object_del(tx->m, "rollback_errors");
        r = tx_write(tx, &dirs, ret_error);
        if (r < 0) {
                set_status(tx, saved_status);
                goto out;
        }
        ht_fault_point("rollback-status");
        reinstate_reverted(tx, &msgs);
        r = 0;
out:
        ht_fsync_batch_done(&dirs);
        if (ret_messages)
                for (char **m = msgs; m && *m; m++)
                        strv_push(ret_messages, *m);
        strv_free(msgs);
        strv_free(errors);
        return r;
}

int ht_tx_rollback(ht_tx *tx, ht_tx *record, unsigned flags, char ***ret_messages, char **ret_error) {
        if (!streq_ptr(ht_tx_status(tx), "committed"))
                return set_error(ret_error, -EINVAL,
                                 "journal %s: transaction is %s; only committed transactions can be rolled back",
                                 tx->txid, ht_tx_status(tx));
        return undo(tx, record, flags, "rolled-back", NULL, ret_messages, ret_error);
}

int ht_tx_close_failed(ht_tx *tx, const char *reason, char **ret_error) {
        int r = require_pending(tx, ret_error);
        if (r < 0)
                return r;
        set_status(tx, "failed");
        set_now(tx, "failed_at");
        json_object_object_add(tx->m, "error", json_object_new_string(reason ? reason : "failed"));
        r = tx_write(tx, NULL, ret_error);
        if (r < 0)
                set_status(tx, "pending");
        return r;
}

int ht_tx_abort(ht_tx *tx, const char *reason, char ***ret_messages, char **ret_error) {
        int r = require_pending(tx, ret_error);
        if (r < 0)
                return r;
        return undo(tx, NULL, 0, "failed", reason ? reason : "apply failed", ret_messages, ret_error);
}

/* ---- listing and recovery --------------------------------------------- */

typedef struct {
        char *txid;
        int64_t usec;
        ht_tx *tx;     /* NULL when corrupt */
        char *error;
} entry;

static int64_t usec_from_txid(const char *txid) {
        struct tm tm = {0};
        if (sscanf(txid, "%4d%2d%2dT%2d%2d%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
                   &tm.tm_sec) != 6)
                return 0;
        tm.tm_year -= 1900;
        tm.tm_mon -= 1;
        return (int64_t)timegm(&tm) * 1000000;
}

static int entry_cmp(const void *a, const void *b) {
        const entry *x = a, *y = b;
        if (x->usec != y->usec)
                return x->usec < y->usec ? -1 : 1;
        return strcmp(x->txid, y->txid);
}

static void entries_free(entry *e, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(e[i].txid);
                ht_tx_free(e[i].tx);
                free(e[i].error);
        }
        free(e);
}

/* Every transaction in the journal, oldest first, or (only_pending)
 * those carrying the pending marker: the common question of every run,
 * answered without reading the rest. */
/* One transaction of the journal into *e: its manifest, or why not
 * (e->tx NULL, ordered by its txid's second). */
static void load_entry(const ht_context *c, int jfd, const char *txid, entry *e) {
        memset(e, 0, sizeof(*e));
        e->txid = xstrdup(txid);
        if (tx_load_at(c, jfd, e->txid, &e->tx, &e->error) < 0) {
                e->tx = NULL;
                e->usec = usec_from_txid(e->txid);
        } else {
                tx_detach(e->tx);
                json_object *v;
                json_object_object_get_ex(e->tx->m, "created_usec", &v);
                e->usec = json_object_get_int64(v);
        }
}

static int load_all_ex(const ht_context *c, int jfd, bool only_pending, entry **ret, size_t *ret_n,
                       char **ret_error) {
        int fd = openat(jfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR *d = fd < 0 ? NULL : fdopendir(fd);
        if (!d) {
                int r = -errno;
                if (fd >= 0)
                        close(fd);
                return set_error(ret_error, r, "cannot list %s/" JOURNAL_DIR ": %s", c->state_dir, ht_strerror(-r));
        }
        entry *l = NULL;
        size_t n = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                if (!txid_valid(de->d_name))
                        continue;
                if (only_pending) {
                        _cleanup_free_ char *marker = xasprintf("%s/" PENDING_MARKER, de->d_name);
                        if (faccessat(jfd, marker, F_OK, AT_SYMLINK_NOFOLLOW) < 0)
                                continue;
                }
                l = xrealloc(l, (n + 1) * sizeof(*l));
                load_entry(c, jfd, de->d_name, &l[n++]);
        }
        closedir(d);
        if (n > 0)
                qsort(l, n, sizeof(*l), entry_cmp);
        *ret = l;
        *ret_n = n;
        return 0;
}

static int load_all(const ht_context *c, int jfd, entry **ret, size_t *ret_n, char **ret_error) {
        return load_all_ex(c, jfd, false, ret, ret_n, ret_error);
}

static void copy_key(json_object *to, json_object *from, const char *key) {
        json_object *v;
        if (json_object_object_get_ex(from, key, &v))
                json_object_object_add(to, key, json_object_get(v));
}

static json_object *summary(const entry *e) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "txid", json_object_new_string(e->txid));
        if (!e->tx) {
                json_object_object_add(o, "status", json_object_new_string("corrupt"));
                json_object_object_add(o, "error", json_object_new_string(e->error ? e->error : "corrupt"));
                return o;
        }
        json_object *m = e->tx->m;
        const char *keys[] = {"created", "status", "command", "profile", "params", "reboot_required", "boot_id",
                              "committed_at", "rolled_back_at", "rolled_back_by", "reverts", "error",
                              "rollback_errors", "info"};
        for (size_t i = 0; i < ELEMENTSOF(keys); i++)
                copy_key(o, m, keys[i]);
        size_t n = ht_tx_n_items(e->tx), done = 0;
        for (size_t i = 0; i < n; i++) {
                item it;
                tx_item(e->tx, i, &it);
                done += it.done;
        }
        json_object_object_add(o, "changes", json_object_new_int64((int64_t)n));
        json_object_object_add(o, "done", json_object_new_int64((int64_t)done));
        return o;
}

int ht_journal_list(const ht_context *c, json_object **ret, char **ret_error) {
        int jfd;
        int r = open_journal_dir(c, false, NULL, &jfd, ret_error);
        if (r == -ENOENT) {
                *ret = json_object_new_array();
                return 0;
        }
        if (r < 0)
                return r;
        entry *l;
        size_t n;
        r = load_all(c, jfd, &l, &n, ret_error);
        close(jfd);
        if (r < 0)
                return r;
        json_object *arr = json_object_new_array();
        for (size_t i = 0; i < n; i++)
                json_object_array_add(arr, summary(&l[i]));
        entries_free(l, n);
        *ret = arr;
        return 0;
}

int ht_journal_pending(const ht_context *c, char ***ret_txids, char **ret_error) {
        int jfd;
        int r = open_journal_dir(c, false, NULL, &jfd, ret_error);
        if (r == -ENOENT) {
                *ret_txids = NULL;
                return 0;
        }
        if (r < 0)
                return r;
        entry *l;
        size_t n;
        r = load_all_ex(c, jfd, true, &l, &n, ret_error);
        close(jfd);
        if (r < 0)
                return r;
        char **txids = NULL;
        int k = 0;
        for (size_t i = 0; i < n; i++)
                if (l[i].tx && streq_ptr(ht_tx_status(l[i].tx), "pending")) {
                        strv_push(&txids, l[i].txid);
                        k++;
                }
        entries_free(l, n);
        *ret_txids = txids;
        return k;
}

int ht_journal_load(const ht_context *c, const char *txid, ht_tx **ret, char **ret_error) {
        if (!txid_valid(txid))
                return set_error(ret_error, -EINVAL, "%s is not a transaction id (like 20261130T091502Z-1a2b3c4d)",
                                 txid ? txid : "(null)");
        int jfd;
        int r = open_journal_dir(c, false, NULL, &jfd, ret_error);
        if (r == -ENOENT)
                return set_error(ret_error, -ENOENT, "no transaction %s: the journal %s/" JOURNAL_DIR " is empty",
                                 txid, c->state_dir);
        if (r < 0)
                return r;
        r = tx_load_at(c, jfd, txid, ret, ret_error);
        close(jfd);
        return r;
}

int ht_journal_exists(const ht_context *c, char **ret_error) {
        int jfd;
        int r = open_journal_dir(c, false, NULL, &jfd, ret_error);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        close(jfd);
        return 1;
}

static int txid_cmp_desc(const void *a, const void *b) {
        return strcmp(*(char *const *)b, *(char *const *)a);
}

int ht_journal_last_committed(const ht_context *c, const char *command, ht_tx **ret, char **ret_error) {
        int jfd;
        int r = open_journal_dir(c, false, NULL, &jfd, ret_error);
        if (r == -ENOENT)
                return set_error(ret_error, -ENOENT, "no committed transaction in %s", c->state_dir);
        if (r < 0)
                return r;
        /* Newest first, one second at a time: a txid starts with its UTC
         * second, and within one second created_usec orders them as
         * load_all does. So only the manifests from the answer on are
         * parsed, not the whole history (the start gate asks before every
         * database start, issue 37). */
        int fd = openat(jfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR *d = fd < 0 ? NULL : fdopendir(fd);
        if (!d) {
                r = -errno;
                if (fd >= 0)
                        close(fd);
                close(jfd);
                return set_error(ret_error, r, "cannot list %s/" JOURNAL_DIR ": %s", c->state_dir, ht_strerror(-r));
        }
        char **names = NULL;
        size_t n = 0;
        struct dirent *de;
        while ((de = readdir(d)))
                if (txid_valid(de->d_name)) {
                        names = xrealloc(names, (n + 1) * sizeof(*names));
                        names[n++] = xstrdup(de->d_name);
                }
        closedir(d);
        if (n > 1)
                qsort(names, n, sizeof(*names), txid_cmp_desc);
        ht_tx *found = NULL;
        r = 0;
        for (size_t i = 0, j; i < n && !found && r >= 0; i = j) {
                /* "YYYYMMDDTHHMMSSZ": the txids of one second */
                for (j = i + 1; j < n && strncmp(names[j], names[i], 16) == 0; j++)
                        ;
                size_t m = j - i;
                entry *l = xcalloc(m, sizeof(*l));
                for (size_t k = 0; k < m; k++)
                        load_entry(c, jfd, names[i + k], &l[k]);
                if (m > 1)
                        qsort(l, m, sizeof(*l), entry_cmp);
                for (size_t k = m; k > 0 && !found; k--) {
                        ht_tx *tx = l[k - 1].tx;
                        if (!tx) {
                                /* a corrupt newer manifest may be the last apply:
                                 * undoing an older one instead would be a guess */
                                r = set_error(ret_error, -EBADMSG,
                                              "%s; it may be the last transaction, so none is rolled back; move it "
                                              "out of %s/" JOURNAL_DIR " or name the transaction to roll back",
                                              l[k - 1].error, c->state_dir);
                                break;
                        }
                        if (streq_ptr(ht_tx_status(tx), "committed") &&
                            (!command || streq_ptr(ht_tx_command(tx), command)))
                                found = TAKE_PTR(l[k - 1].tx);
                }
                entries_free(l, m);
        }
        for (size_t i = 0; i < n; i++)
                free(names[i]);
        free(names);
        if (r < 0) {
                close(jfd);
                return r;
        }
        if (found && (r = tx_attach(found, jfd)) < 0) {
                ht_tx_free(found);
                close(jfd);
                return set_error(ret_error, r, "journal: cannot open a transaction in %s: %s", c->state_dir,
                                 ht_strerror(-r));
        }
        close(jfd);
        if (!found)
                return set_error(ret_error, -ENOENT, "no committed %s%stransaction in %s", command ? command : "",
                                 command ? " " : "", c->state_dir);
        *ret = found;
        return 0;
}

void ht_tx_list_free(ht_tx **l, size_t n) {
        for (size_t i = 0; i < n; i++)
                ht_tx_free(l[i]);
        free(l);
}

int ht_journal_committed_since(const ht_context *c, const char *txid, ht_tx ***ret, size_t *ret_n,
                               char **ret_error) {
        _cleanup_(ht_tx_freep) ht_tx *first = NULL;
        int r = ht_journal_load(c, txid, &first, ret_error);
        if (r < 0)
                return r;
        if (!streq_ptr(ht_tx_status(first), "committed"))
                return set_error(ret_error, -EINVAL, "journal %s: transaction is %s, not committed", txid,
                                 ht_tx_status(first));
        int jfd;
        r = open_journal_dir(c, false, NULL, &jfd, ret_error);
        if (r < 0)
                return r;
        entry *l;
        size_t n;
        r = load_all(c, jfd, &l, &n, ret_error);
        if (r < 0) {
                close(jfd);
                return r;
        }
        size_t start = n;
        for (size_t i = 0; i < n; i++)
                if (streq(l[i].txid, txid))
                        start = i;
        ht_tx **out = NULL;
        size_t k = 0;
        r = 0;
        for (size_t i = n; i > start && r == 0; i--) {
                entry *e = &l[i - 1];
                if (!e->tx)
                        r = set_error(ret_error, -EBADMSG, "%s", e->error);
                else if (streq_ptr(ht_tx_status(e->tx), "pending"))
                        r = set_error(ret_error, -EBADMSG,
                                      "journal %s: an unfinished transaction is in the way; recover it first",
                                      e->txid);
                else if (streq_ptr(ht_tx_status(e->tx), "committed") &&
                         !streq_ptr(ht_tx_command(e->tx), "rollback")) {
                        int q = tx_attach(e->tx, jfd);
                        if (q < 0)
                                r = set_error(ret_error, q, "journal %s: cannot open it: %s", e->txid, ht_strerror(-q));
                        else {
                                out = xrealloc(out, (k + 1) * sizeof(*out));
                                out[k++] = TAKE_PTR(e->tx);
                        }
                }
        }
        close(jfd);
        entries_free(l, n);
        if (r < 0) {
                ht_tx_list_free(out, k);
                return r;
        }
        *ret = out;
        *ret_n = k;
        return 0;
}

int ht_journal_recover(const ht_context *c, char ***ret_messages, char **ret_error) {
        int jfd;
        int r = open_journal_dir(c, false, NULL, &jfd, ret_error);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        _cleanup_close_ int journal_fd = jfd;

        /* A crash inside ht_tx_begin leaves .new-TXID: nothing was changed
         * for it yet (begin had not returned), so it just goes. */
        int fd = openat(journal_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return set_error(ret_error, -errno, "cannot list %s/" JOURNAL_DIR ": %s", c->state_dir,
                                 strerror(errno));
        DIR *d = fdopendir(fd);
        if (!d) {
                close(fd);
                return set_error(ret_error, -errno, "cannot list %s/" JOURNAL_DIR ": %s", c->state_dir,
                                 strerror(errno));
        }
        char **unfinished = NULL;
        struct dirent *de;
        while ((de = readdir(d)))
                if (startswith(de->d_name, NEW_PREFIX) && txid_valid(de->d_name + strlen(NEW_PREFIX)))
                        strv_push(&unfinished, de->d_name);
        closedir(d);
        for (char **u = unfinished; u && *u; u++)
                if (remove_tree_at(journal_fd, *u, 1) == 0 && ret_messages)
                        strv_pushf(ret_messages, "journal: removed %s (a transaction that never started)", *u);
        strv_free(unfinished);
        remove_dot_temps(journal_fd);

        entry *l;
        size_t n;
        r = load_all_ex(c, journal_fd, true, &l, &n, ret_error);
        if (r < 0)
                return r;

        int recovered = 0, n_corrupt = 0, n_failed = 0;
        char *first_error = NULL;
        for (size_t i = 0; i < n; i++) {
                if (!l[i].tx) {
                        n_corrupt++;
                        if (ret_messages)
                                strv_push(ret_messages, l[i].error);
                        if (!first_error)
                                first_error = xstrdup(l[i].error);
                        continue;
                }
                if (tx_attach(l[i].tx, journal_fd) == 0) {
                        remove_dot_temps(l[i].tx->fd);
                        remove_dot_temps(l[i].tx->backup_fd);
                }
                tx_detach(l[i].tx);
        }
        for (size_t i = n; i > 0; i--) {
                ht_tx *tx = l[i - 1].tx;
                if (!tx || !streq_ptr(ht_tx_status(tx), "pending"))
                        continue;
                _cleanup_free_ char *err = NULL;
                char **msgs = NULL;
                r = tx_attach(tx, journal_fd);
                if (r < 0)
                        err = xasprintf("journal %s: cannot open it: %s", tx->txid, ht_strerror(-r));
                else {
                        /* an apply whose own undo stopped part-way says why it failed */
                        const char *why = get_str(tx->m, "error");
                        _cleanup_free_ char *reason = why ? xasprintf("%s; its undo finished by the next run", why) :
                                                            xstrdup("interrupted; undone by the next run");
                        r = undo(tx, NULL, 0, "recovered", reason, &msgs, &err);
                }
                if (ret_messages) {
                        strv_pushf(ret_messages, "journal %s: an unfinished %s was found%s", tx->txid,
                                   ht_tx_command(tx), r < 0 ? "" : "; undone");
                        for (char **m = msgs; m && *m; m++)
                                strv_push(ret_messages, *m);
                        if (r < 0)
                                strv_push(ret_messages, err);
                }
                strv_free(msgs);
                if (r < 0) {
                        n_failed++;
                        if (!first_error)
                                first_error = TAKE_PTR(err);
                } else
                        recovered++;
        }
        entries_free(l, n);

        if (n_failed > 0 || n_corrupt > 0) {
                r = set_error(ret_error, n_failed > 0 ? -EIO : -EBADMSG, "%s", first_error);
                free(first_error);
                return r;
        }
        return recovered;
}

/* ---- accessors --------------------------------------------------------- */

const char *ht_tx_txid(const ht_tx *tx) {
        return tx->txid;
}

const char *ht_tx_status(const ht_tx *tx) {
        return get_str(tx->m, "status");
}

const char *ht_tx_command(const ht_tx *tx) {
        return get_str(tx->m, "command");
}

const char *ht_tx_profile(const ht_tx *tx) {
        return get_str(tx->m, "profile");
}

size_t ht_tx_n_items(const ht_tx *tx) {
        json_object *items = items_of(tx);
        return items ? json_object_array_length(items) : 0;
}

void ht_tx_get_item(const ht_tx *tx, size_t i, ht_tx_item *ret) {
        item it;
        tx_item(tx, i, &it);
        *ret = (ht_tx_item){
                .kind = it.file ? HT_TX_ITEM_FILE : HT_TX_ITEM_RUNTIME,
                .backend = it.backend,
                .path = it.path,
                .key = it.key,
                .done = it.done,
                .prior_existed = it.file && it.prior_existed,
                .new_existed = it.file && it.new_existed,
                .generated = it.generated,
                .new_sha256 = it.file && it.new_existed ? it.new_sha : NULL,
                .prior_value = it.prior_value,
                .new_value = it.new_value,
        };
}

const char *ht_tx_created(const ht_tx *tx) {
        return get_str(tx->m, "created");
}

const char *ht_tx_committed_at(const ht_tx *tx) {
        return get_str(tx->m, "committed_at");
}

bool ht_tx_reboot_required(const ht_tx *tx) {
        json_object *v;
        return json_object_object_get_ex(tx->m, "reboot_required", &v) && v && json_object_get_boolean(v);
}

const char *ht_tx_boot_id(const ht_tx *tx) {
        return get_str(tx->m, "boot_id");
}

bool ht_tx_offline(const ht_tx *tx) {
        json_object *v;
        return json_object_object_get_ex(tx->m, "offline", &v) && v && json_object_get_boolean(v);
}

static json_object *info_of(const ht_tx *tx) {
        json_object *info = NULL;
        json_object_object_get_ex(tx->m, "info", &info);
        return info;
}

const char *ht_tx_profile_file(const ht_tx *tx) {
        return get_str(info_of(tx), "profile_file");
}

char **ht_tx_set_args(const ht_tx *tx) {
        json_object *info = info_of(tx), *sets;
        if (!info || !json_object_object_get_ex(info, "set", &sets) || !json_object_is_type(sets, json_type_array))
                return NULL;
        char **l = NULL;
        size_t n = json_object_array_length(sets);
        l = xcalloc(n + 1, sizeof(char *));
        for (size_t i = 0; i < n; i++)
                l[i] = xstrdup(json_object_get_string(json_object_array_get_idx(sets, i)));
        return l;
}

size_t ht_tx_n_follow_ups(const ht_tx *tx) {
        json_object *info = info_of(tx), *l;
        if (!info || !json_object_object_get_ex(info, "follow_ups", &l) || !json_object_is_type(l, json_type_array))
                return 0;
        return json_object_array_length(l);
}

void ht_tx_get_follow_up(const ht_tx *tx, size_t i, ht_tx_follow_up *ret) {
        json_object *l, *f;
        json_object_object_get_ex(info_of(tx), "follow_ups", &l);
        f = json_object_array_get_idx(l, i);
        /* an argv the manifest holds is history only: never run */
        *ret = (ht_tx_follow_up){
                .backend = get_str(f, "backend"),
                .action = get_str(f, "action"),
                .description = get_str(f, "description"),
        };
}

bool ht_tx_has_param(const ht_tx *tx, const char *name) {
        json_object *params;
        return json_object_object_get_ex(tx->m, "params", &params) && params &&
               json_object_object_get_ex(params, name, NULL);
}

const char *ht_tx_param(const ht_tx *tx, const char *name) {
        json_object *params, *v;
        if (!json_object_object_get_ex(tx->m, "params", &params) || !params ||
            !json_object_object_get_ex(params, name, &v) || !json_object_is_type(v, json_type_string))
                return NULL;
        return json_object_get_string(v);
}

int ht_tx_expected(const ht_tx *tx, ht_resolved **ret) {
        json_object *expected = NULL;
        json_object_object_get_ex(tx->m, "expected", &expected);
        return ht_settings_from_json(expected, ht_tx_profile(tx), ret);
}
