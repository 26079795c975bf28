/* The journal room: the transaction model (ht_tx and its accessors), the
 * manifest's JSON written durably and read back validated. */
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

ht_journal_file_check journal_file_check;

void ht_journal_confine(ht_journal_file_check check) {
        journal_file_check = check;
}

/* Kernel values live there and nowhere else: a runtime item elsewhere
 * (/etc/shadow) would be truncated and rewritten by its undo. */
bool journal_runtime_path_ok(const char *path) {
        return startswith(path, "/proc/sys/") || startswith(path, "/sys/");
}

/* ---- small helpers ---------------------------------------------------- */

bool journal_plain_word(const char *s) {
        return !isempty(s) && strlen(s) < 64 &&
               strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-_") == strlen(s);
}

bool journal_txid_valid(const char *s) {
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

char *journal_iso_time(time_t t) {
        struct tm tm;
        char buf[32];
        gmtime_r(&t, &tm);
        strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
        return xstrdup(buf);
}

int64_t journal_now_usec(void) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

char *journal_new_txid(int64_t usec) {
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

char *journal_mode_string(mode_t m) {
        return xasprintf("%04o", (unsigned)(m & 07777));
}

json_object *journal_jstr(const char *s) {
        return s ? json_object_new_string(s) : NULL;
}

const char *journal_get_str(json_object *o, const char *key) {
        json_object *v;
        if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
                return NULL;
        return json_object_get_string(v);
}

void journal_set_status(ht_tx *tx, const char *status) {
        json_object_object_add(tx->m, "status", json_object_new_string(status));
}

void journal_set_now(ht_tx *tx, const char *key) {
        char *t = journal_iso_time(time(NULL));
        json_object_object_add(tx->m, key, json_object_new_string(t));
        free(t);
}

json_object *journal_items_of(const ht_tx *tx) {
        json_object *v = NULL;
        json_object_object_get_ex(tx->m, "items", &v);
        return v;
}

/* ---- manifest I/O and validation -------------------------------------- */

/* sync: where its fsync goes (NULL: now) */
int journal_write_new_file_at(int dir_fd, const char *name, const void *data, size_t len, ht_fsync_batch *sync) {
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

int journal_mark_pending_at(int dir_fd) {
        int fd = openat(dir_fd, PENDING_MARKER, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0)
                return -errno;
        close(fd);
        return 0;
}

bool journal_record_final(json_object *m) {
        const char *status = journal_get_str(m, "status");
        return streq_ptr(status, "committed") ||
               (streq_ptr(status, "rolled-back") && journal_get_str(m, "rolled_back_by"));
}

static char *tx_text(ht_tx *tx) {
        journal_set_now(tx, "updated");
        const char *s = json_object_to_json_string_ext(tx->m, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
        return xasprintf("%s\n", s);
}

/* A rollback's commit: the status "rolled-back" of every transaction it
 * undid, each written in place into that one's COMMIT_RECORD, into the
 * same flush (tx->sync) as the rollback's own commit record and the
 * restored files' directories. A loader prefers the whole record to the
 * manifest; recovery lets it stand only with the rollback's commit
 * (finish_commit). On error the records written are removed. */
static int write_reverted_records(ht_tx *tx) {
        size_t i;
        int r = 0;
        for (i = 0; i < tx->n_reverted && r >= 0; i++) {
                ht_tx *t = tx->reverted[i];
                _cleanup_free_ char *text = tx_text(t);
                /* a record a crash cut is no record: this one replaces it */
                (void)unlinkat(t->fd, COMMIT_RECORD, 0);
                r = journal_write_new_file_at(t->fd, COMMIT_RECORD, text, strlen(text), &tx->sync);
                if (r >= 0) {
                        /* so that recovery, which reads only marked
                         * transactions, finishes it if a cut loses its rename */
                        r = journal_mark_pending_at(t->fd);
                }
                if (r >= 0)
                        r = ht_fsync_batch_add_dir(&tx->sync, t->fd);
        }
        if (r < 0)
                for (size_t k = 0; k < i; k++) {
                        (void)unlinkat(tx->reverted[k]->fd, COMMIT_RECORD, 0);
                        (void)unlinkat(tx->reverted[k]->fd, PENDING_MARKER, 0);
                }
        return r;
}

/* A rollback that ends other than committed (closed failed part-way):
 * its undone transactions' statuses are written now, each on its own,
 * the restored files' directories (tx->sync) flushed with the first. */
static int write_reverted_now(ht_tx *tx, char **ret_error) {
        int r = 0;
        for (size_t i = 0; i < tx->n_reverted; i++) {
                int k = journal_tx_write(tx->reverted[i], &tx->sync, ret_error);
                if (r >= 0)
                        r = k;
        }
        tx->n_reverted = 0;
        return r;
}

/* Write the manifest, durably; every state change of a transaction is
 * one call (docs/DESIGN.md, "Durability", has each fsync and rename and
 * the crash it protects against). Each step's fsyncs are independent of
 * each other and run at once (tx->sync, a group commit); what must come
 * after them waits for all:
 * - the first (the begin record: every item's prior state) is written in
 *   place into the hidden .new-TXID and flushed at once with the backups'
 *   data, backup/, .new-TXID/ (its PENDING marker), journal/ (the entry
 *   .new-TXID), a new state directory's entries and also's fds (apply's
 *   temp files of the new contents). Then the rename to TXID, not waited
 *   for: recovery takes a .new-TXID whose manifest is whole as begun, and
 *   one whose manifest a crash cut (JSON that does not close) as never
 *   begun. Nothing is changed before that flush returns.
 * - the commit is written in place too (COMMIT_RECORD), flushed at once
 *   with also's fds (the directories of the files the transaction
 *   renamed), the transaction's directory and, while the rename to TXID is
 *   not, journal/. Then it is renamed over the manifest and the marker
 *   removed, not waited for: a crash in the flush can leave a commit
 *   record and a lost rename, which recovery tells by the files' states
 *   (journal_commit_holds).
 * - others (failed, recovered, rolled-back, items added for another part
 *   of a rollback): a temp file flushed (with also's fds) and renamed over
 *   the manifest, the PENDING marker and a commit record removed once the
 *   status is final, the directory fsynced once for all.
 * The marker lets every run find unfinished transactions without parsing
 * the whole journal; it is removed after the final manifest is in place,
 * so a crash in between leaves at worst a marker on a finished
 * transaction, which recovery skips. */
int journal_tx_write(ht_tx *tx, ht_fsync_batch *also, char **ret_error) {
        const char *status = ht_tx_status(tx);
        bool pending = streq_ptr(status, "pending");
        int r = 0;
        if (tx->n_reverted > 0 && !pending && !streq_ptr(status, "committed")) {
                r = write_reverted_now(tx, ret_error);
                if (r < 0)
                        return r;
        }
        _cleanup_free_ char *text = tx_text(tx);
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
                        return ht_error(ret_error, r, "journal %s: cannot fsync %s/" BACKUP_DIR ": %s", tx->txid,
                                         tx->dir, ht_strerror(-r));
                tx->backups_unsynced = false;
        }
        if (r >= 0 && tx->new_name) {
                r = journal_write_new_file_at(tx->fd, MANIFEST, text, strlen(text), &tx->sync);
                if (r >= 0 && pending) {
                        /* empty: the directory fsync makes it durable */
                        r = journal_mark_pending_at(tx->fd);
                }
                if (r >= 0)
                        r = ht_fsync_batch_add_dir(&tx->sync, tx->fd);
                if (r >= 0)
                        r = ht_fsync_batch_add_dir(&tx->sync, tx->journal_fd);
                if (r >= 0)
                        r = ht_fsync_batch_run(&tx->sync);
                /* the rename is flushed with the next record */
                if (r >= 0 && renameat(tx->journal_fd, tx->new_name, tx->journal_fd, tx->txid) < 0)
                        r = -errno;
                if (r < 0)
                        return ht_error(ret_error, r, "journal %s: cannot write %s/" MANIFEST ": %s", tx->txid,
                                         tx->dir, ht_strerror(-r));
                free(tx->new_name);
                tx->new_name = NULL;
                tx->journal_unsynced = true;
                tx->n_durable = ht_tx_n_items(tx);
                ht_fault_point("tx-begin");
                return 0;
        }
        if (r >= 0 && tx->journal_unsynced) {
                r = ht_fsync_batch_add_dir(&tx->sync, tx->journal_fd);
                if (r >= 0) {
                        close(tx->journal_fd);
                        tx->journal_fd = -1;
                        tx->journal_unsynced = false;
                }
        }
        if (r >= 0 && streq_ptr(status, "committed")) {
                bool reverted_written = false;
                if (tx->n_reverted > 0) {
                        r = write_reverted_records(tx);
                        reverted_written = r >= 0;
                }
                if (r >= 0)
                        r = journal_write_new_file_at(tx->fd, COMMIT_RECORD, text, strlen(text), &tx->sync);
                if (r >= 0)
                        r = ht_fsync_batch_add_dir(&tx->sync, tx->fd);
                if (r >= 0)
                        r = ht_fsync_batch_run(&tx->sync);
                if (r < 0) {
                        /* not committed: the undo's record replaces it; the
                         * undone transactions stay as their manifests say */
                        (void)unlinkat(tx->fd, COMMIT_RECORD, 0);
                        for (size_t i = 0; reverted_written && i < tx->n_reverted; i++) {
                                (void)unlinkat(tx->reverted[i]->fd, COMMIT_RECORD, 0);
                                (void)unlinkat(tx->reverted[i]->fd, PENDING_MARKER, 0);
                        }
                        return ht_error(ret_error, r, "journal %s: cannot write %s/" COMMIT_RECORD ": %s",
                                         tx->txid, tx->dir, ht_strerror(-r));
                }
                /* durable: the commit record holds until these are (with
                 * the transaction's next write, or recovery's) */
                ht_fault_point("commit");
                for (size_t i = 0; i < tx->n_reverted; i++) {
                        ht_tx *t = tx->reverted[i];
                        (void)renameat(t->fd, COMMIT_RECORD, t->fd, MANIFEST);
                        (void)unlinkat(t->fd, PENDING_MARKER, 0);
                        t->n_durable = ht_tx_n_items(t);
                        ht_fault_point("rollback-status");
                }
                tx->n_reverted = 0;
                (void)renameat(tx->fd, COMMIT_RECORD, tx->fd, MANIFEST);
                (void)unlinkat(tx->fd, PENDING_MARKER, 0);
                tx->n_durable = ht_tx_n_items(tx);
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
        /* a commit record a crash left, now superseded */
        if (r >= 0 && unlinkat(tx->fd, COMMIT_RECORD, 0) < 0 && errno != ENOENT)
                r = -errno;
        if (r >= 0)
                r = ht_fsync_batch_run(&tx->sync);
        if (r < 0) {
                /* what was not flushed is flushed with the next write */
                return ht_error(ret_error, r, "journal %s: cannot write %s/" MANIFEST ": %s", tx->txid, tx->dir,
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

bool journal_value_ok(const char *s) {
        return s && !has_control_chars(s);
}

static int parse_item(json_object *o, size_t i, item *it, char **ret_detail) {
        memset(it, 0, sizeof(*it));
        if (!json_object_is_type(o, json_type_object))
                BAD("items[%zu]: not an object", i);
        const char *kind = journal_get_str(o, "kind");
        if (!kind || !(streq(kind, "file") || streq(kind, "runtime")))
                BAD("items[%zu].kind: missing or not \"file\"/\"runtime\"", i);
        it->file = streq(kind, "file");
        it->backend = journal_get_str(o, "backend");
        if (!journal_plain_word(it->backend))
                BAD("items[%zu].backend: missing or invalid", i);
        it->path = journal_get_str(o, "path");
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
                it->key = journal_get_str(o, "key");
                if (isempty(it->key) || has_control_chars(it->key))
                        BAD("items[%zu].key: missing or invalid", i);
                it->prior_value = journal_get_str(prior, "value");
                if (!journal_value_ok(it->prior_value))
                        BAD("items[%zu].prior.value: missing or invalid", i);
                it->new_value = journal_get_str(new, "value");
                if (!journal_value_ok(it->new_value))
                        BAD("items[%zu].new.value: missing or invalid", i);
                return 0;
        }

        it->key = it->path;
        if (get_bool_req(prior, "existed", &it->prior_existed) < 0)
                BAD("items[%zu].prior.existed: missing or not a boolean", i);
        if (it->prior_existed) {
                int64_t x;
                if (parse_mode(journal_get_str(prior, "mode"), &it->prior_mode) < 0)
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
                it->prior_sha = journal_get_str(prior, "sha256");
                if (!sha_valid(it->prior_sha))
                        BAD("items[%zu].prior.sha256: missing or not 64 hex digits", i);
                it->backup = journal_get_str(prior, "backup");
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
                it->new_sha = journal_get_str(new, "sha256");
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
        if (!streq_ptr(journal_get_str(m, "format"), FORMAT))
                BAD("format: missing or not \"" FORMAT "\"");
        int64_t v;
        if (get_int_req(m, "version", 1, INT32_MAX, &v) < 0)
                BAD("version: missing or invalid");
        if (v > FORMAT_VERSION)
                BAD("version %" PRId64 " is newer than this hosttune understands (%d)", v, FORMAT_VERSION);
        /* txid NULL: a manifest checked on its own (ht_journal_manifest_check) */
        if (txid ? !streq_ptr(journal_get_str(m, "txid"), txid) : !journal_txid_valid(journal_get_str(m, "txid")))
                BAD("txid: missing or not the directory's name");
        const char *status = journal_get_str(m, "status");
        bool known = false;
        for (size_t i = 0; status && i < ELEMENTSOF(statuses); i++)
                known = known || streq(status, statuses[i]);
        if (!known)
                BAD("status: missing or unknown");
        if (!journal_plain_word(journal_get_str(m, "command")))
                BAD("command: missing or invalid");
        if (!journal_get_str(m, "created") || get_int_req(m, "created_usec", 0, INT64_MAX, &v) < 0)
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
                                if (!json_object_is_type(f, json_type_object) || !journal_plain_word(journal_get_str(f, "backend")) ||
                                    !journal_plain_word(journal_get_str(f, "action")) || !journal_value_ok(journal_get_str(f, "description")))
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
                        if (!json_object_is_type(t, json_type_string) || !journal_txid_valid(json_object_get_string(t)))
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
        const char *root = journal_get_str(m, "root");
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
                if (!it.file && !journal_runtime_path_ok(it.path))
                        BAD("items[%zu].path: %s: a runtime value outside /proc/sys and /sys", i, it.path);
                if (it.file && !(journal_file_check && journal_file_check(c, it.backend, it.path)))
                        BAD("items[%zu].path: %s is not a file the %s backend writes", i, it.path, it.backend);
        }
        return 0;
}

void journal_tx_item(const ht_tx *tx, size_t i, item *it) {
        _cleanup_free_ char *detail = NULL;
        /* validated at load or built by us: cannot fail */
        if (parse_item(json_object_array_get_idx(journal_items_of(tx), i), i, it, &detail) < 0)
                abort();
}

ht_tx *journal_tx_new(const ht_context *c, const char *txid, int fd) {
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
                (void)journal_remove_tree_at(tx->journal_fd, tx->new_name, 1);
                free(tx->new_name);
        }
        if (tx->journal_fd >= 0)
                close(tx->journal_fd);
        json_object_put(tx->m);
        free(tx->reverted);
        free(tx->txid);
        free(tx->dir);
        free(tx);
}

static int corrupt(char **ret_error, const ht_context *c, const char *txid, const char *detail) {
        return ht_error(ret_error, -EBADMSG,
                         "journal %s: manifest is corrupt: %s; leaving it alone; inspect %s/" JOURNAL_DIR "/%s",
                         txid, detail, c->state_dir, txid);
}

/* Valid, but asks for what hosttune never does: tampered with, or copied
 * from another tree. Nothing of it is acted on. */
static int refused(char **ret_error, const ht_context *c, const char *txid, const char *detail) {
        return ht_error(ret_error, -EBADMSG,
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
        if (txid && !journal_txid_valid(txid))
                return ht_error(ret_error, -EINVAL, "%s is not a transaction id", txid);
        json_object *m = NULL;
        _cleanup_free_ char *detail = NULL;
        int r = manifest_parse(json, len, txid, &m, &detail);
        if (r >= 0)
                r = manifest_confined(NULL, m, &detail);
        json_object_put(m);
        if (r < 0)
                return ht_error(ret_error, r, "manifest: %s", detail);
        return 0;
}

bool journal_record_whole_at(int dir_fd, const char *txid) {
        _cleanup_free_ char *text = NULL, *detail = NULL;
        size_t len = 0;
        json_object *m = NULL;
        if (ht_read_file_at(dir_fd, MANIFEST, MANIFEST_MAX, &text, &len) < 0 ||
            manifest_parse(text, len, txid, &m, &detail) < 0)
                return false;
        json_object_put(m);
        return true;
}

int journal_tx_load_at(const ht_context *c, int jfd, const char *txid, ht_tx **ret, char **ret_error) {
        if (!journal_txid_valid(txid))
                return ht_error(ret_error, -EINVAL, "%s is not a transaction id (like 20261130T091502Z-1a2b3c4d)",
                                 txid ? txid : "(null)");
        int fd = openat(jfd, txid, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
                if (errno == ENOENT)
                        return ht_error(ret_error, -ENOENT, "no transaction %s in %s/" JOURNAL_DIR, txid,
                                         c->state_dir);
                return corrupt(ret_error, c, txid, strerror(errno));
        }
        _cleanup_(ht_tx_freep) ht_tx *tx = journal_tx_new(c, txid, fd);

        _cleanup_free_ char *text = NULL, *detail = NULL;
        size_t len = 0;
        /* a commit record not yet renamed over the manifest (a crash came
         * first) is the newest record, when whole; one a crash cut is no
         * commit at all (recovery removes it) */
        int r = ht_read_file_at(fd, COMMIT_RECORD, MANIFEST_MAX, &text, &len);
        if (r >= 0) {
                json_object *cm = NULL;
                if (manifest_parse(text, len, txid, &cm, &detail) >= 0 && journal_record_final(cm)) {
                        tx->m = cm;
                        tx->commit_unconfirmed = true;
                } else
                        json_object_put(cm);
                free(text);
                text = NULL;
                free(detail);
                detail = NULL;
        }
        if (!tx->m) {
                r = ht_read_file_at(fd, MANIFEST, MANIFEST_MAX, &text, &len);
                if (r < 0) {
                        _cleanup_free_ char *d = xasprintf(MANIFEST ": %s", ht_strerror(-r));
                        return corrupt(ret_error, c, txid, d);
                }
                r = manifest_parse(text, len, txid, &tx->m, &detail);
                if (r < 0)
                        return corrupt(ret_error, c, txid, detail);
        }
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
void journal_tx_detach(ht_tx *tx) {
        if (tx->fd >= 0)
                close(tx->fd);
        if (tx->backup_fd >= 0)
                close(tx->backup_fd);
        tx->fd = tx->backup_fd = -1;
}

int journal_tx_attach(ht_tx *tx, int jfd) {
        if (tx->fd >= 0)
                return 0;
        tx->fd = openat(jfd, tx->txid, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (tx->fd < 0)
                return -errno;
        tx->backup_fd = openat(tx->fd, BACKUP_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (tx->backup_fd < 0) {
                int r = -errno;
                journal_tx_detach(tx);
                return r;
        }
        return 0;
}

/* ---- accessors --------------------------------------------------------- */

bool ht_tx_on_disk(const ht_tx *tx) {
        return !tx->new_name;
}

const char *ht_tx_txid(const ht_tx *tx) {
        return tx->txid;
}

const char *ht_tx_status(const ht_tx *tx) {
        return journal_get_str(tx->m, "status");
}

const char *ht_tx_command(const ht_tx *tx) {
        return journal_get_str(tx->m, "command");
}

const char *ht_tx_profile(const ht_tx *tx) {
        return journal_get_str(tx->m, "profile");
}

size_t ht_tx_n_items(const ht_tx *tx) {
        json_object *items = journal_items_of(tx);
        return items ? json_object_array_length(items) : 0;
}

void ht_tx_get_item(const ht_tx *tx, size_t i, ht_tx_item *ret) {
        item it;
        journal_tx_item(tx, i, &it);
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
        return journal_get_str(tx->m, "created");
}

const char *ht_tx_committed_at(const ht_tx *tx) {
        return journal_get_str(tx->m, "committed_at");
}

bool ht_tx_reboot_required(const ht_tx *tx) {
        json_object *v;
        return json_object_object_get_ex(tx->m, "reboot_required", &v) && v && json_object_get_boolean(v);
}

const char *ht_tx_boot_id(const ht_tx *tx) {
        return journal_get_str(tx->m, "boot_id");
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
        return journal_get_str(info_of(tx), "profile_file");
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
                .backend = journal_get_str(f, "backend"),
                .action = journal_get_str(f, "action"),
                .description = journal_get_str(f, "description"),
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
