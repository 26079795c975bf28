/* The journal room: the journal as a whole: history, lookups, and
 * recovery of pending transactions. */
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

/* One transaction of the journal into *e: its manifest, or why not
 * (e->tx NULL, ordered by its txid's second). */
static void load_entry(const ht_context *c, int jfd, const char *txid, entry *e) {
        memset(e, 0, sizeof(*e));
        e->txid = xstrdup(txid);
        if (journal_tx_load_at(c, jfd, e->txid, &e->tx, &e->error) < 0) {
                e->tx = NULL;
                e->usec = usec_from_txid(e->txid);
        } else {
                journal_tx_detach(e->tx);
                json_object *v;
                json_object_object_get_ex(e->tx->m, "created_usec", &v);
                e->usec = json_object_get_int64(v);
        }
}

/* Every transaction in the journal, oldest first, or (only_pending)
 * those carrying the pending marker: the common question of every run,
 * answered without reading the rest. */
static int load_all_ex(const ht_context *c, int jfd, bool only_pending, entry **ret, size_t *ret_n,
                       char ***ret_begun, char **ret_error) {
        int fd = openat(jfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        DIR *d = fd < 0 ? NULL : fdopendir(fd);
        if (!d) {
                int r = -errno;
                if (fd >= 0)
                        close(fd);
                return ht_error(ret_error, r, "cannot list %s/" JOURNAL_DIR ": %s", c->state_dir, ht_strerror(-r));
        }
        entry *l = NULL;
        size_t n = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
                /* a begun transaction whose rename to TXID a power cut
                 * lost (docs/DESIGN.md, "Durability"): pending too */
                if (ret_begun && startswith(de->d_name, NEW_PREFIX) &&
                    journal_txid_valid(de->d_name + strlen(NEW_PREFIX))) {
                        _cleanup_close_ int ufd = openat(jfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                        if (ufd >= 0 && journal_record_whole_at(ufd, de->d_name + strlen(NEW_PREFIX)))
                                strv_push(ret_begun, de->d_name + strlen(NEW_PREFIX));
                        continue;
                }
                if (!journal_txid_valid(de->d_name))
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
        return load_all_ex(c, jfd, false, ret, ret_n, NULL, ret_error);
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
                journal_tx_item(e->tx, i, &it);
                done += it.done;
        }
        json_object_object_add(o, "changes", json_object_new_int64((int64_t)n));
        json_object_object_add(o, "done", json_object_new_int64((int64_t)done));
        return o;
}

int ht_journal_list(const ht_context *c, json_object **ret, char **ret_error) {
        int jfd;
        int r = journal_open_dir(c, false, NULL, &jfd, ret_error);
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
        int r = journal_open_dir(c, false, NULL, &jfd, ret_error);
        if (r == -ENOENT) {
                *ret_txids = NULL;
                return 0;
        }
        if (r < 0)
                return r;
        entry *l;
        size_t n;
        char **txids = NULL;
        r = load_all_ex(c, jfd, true, &l, &n, &txids, ret_error);
        close(jfd);
        if (r < 0) {
                strv_free(txids);
                return r;
        }
        int k = (int)strv_length(txids);
        for (size_t i = 0; i < n; i++)
                /* a commit record found beside its manifest needs
                 * recovery's check as much as a pending transaction */
                if (l[i].tx && (streq_ptr(ht_tx_status(l[i].tx), "pending") || l[i].tx->commit_unconfirmed)) {
                        strv_push(&txids, l[i].txid);
                        k++;
                }
        entries_free(l, n);
        *ret_txids = txids;
        return k;
}

int ht_journal_load(const ht_context *c, const char *txid, ht_tx **ret, char **ret_error) {
        if (!journal_txid_valid(txid))
                return ht_error(ret_error, -EINVAL, "%s is not a transaction id (like 20261130T091502Z-1a2b3c4d)",
                                 txid ? txid : "(null)");
        int jfd;
        int r = journal_open_dir(c, false, NULL, &jfd, ret_error);
        if (r == -ENOENT)
                return ht_error(ret_error, -ENOENT, "no transaction %s: the journal %s/" JOURNAL_DIR " is empty",
                                 txid, c->state_dir);
        if (r < 0)
                return r;
        r = journal_tx_load_at(c, jfd, txid, ret, ret_error);
        close(jfd);
        return r;
}

int ht_journal_exists(const ht_context *c, char **ret_error) {
        int jfd;
        int r = journal_open_dir(c, false, NULL, &jfd, ret_error);
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
        int r = journal_open_dir(c, false, NULL, &jfd, ret_error);
        if (r == -ENOENT)
                return ht_error(ret_error, -ENOENT, "no committed transaction in %s", c->state_dir);
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
                return ht_error(ret_error, r, "cannot list %s/" JOURNAL_DIR ": %s", c->state_dir, ht_strerror(-r));
        }
        char **names = NULL;
        size_t n = 0;
        struct dirent *de;
        while ((de = readdir(d)))
                if (journal_txid_valid(de->d_name)) {
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
                                r = ht_error(ret_error, -EBADMSG,
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
        if (found && (r = journal_tx_attach(found, jfd)) < 0) {
                ht_tx_free(found);
                close(jfd);
                return ht_error(ret_error, r, "journal: cannot open a transaction in %s: %s", c->state_dir,
                                 ht_strerror(-r));
        }
        close(jfd);
        if (!found)
                return ht_error(ret_error, -ENOENT, "no committed %s%stransaction in %s", command ? command : "",
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
                return ht_error(ret_error, -EINVAL, "journal %s: transaction is %s, not committed", txid,
                                 ht_tx_status(first));
        int jfd;
        r = journal_open_dir(c, false, NULL, &jfd, ret_error);
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
                        r = ht_error(ret_error, -EBADMSG, "%s", e->error);
                else if (streq_ptr(ht_tx_status(e->tx), "pending"))
                        r = ht_error(ret_error, -EBADMSG,
                                      "journal %s: an unfinished transaction is in the way; recover it first",
                                      e->txid);
                else if (streq_ptr(ht_tx_status(e->tx), "committed") &&
                         !streq_ptr(ht_tx_command(e->tx), "rollback")) {
                        int q = journal_tx_attach(e->tx, jfd);
                        if (q < 0)
                                r = ht_error(ret_error, q, "journal %s: cannot open it: %s", e->txid, ht_strerror(-q));
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

/* Whether the rollback rtxid is committed, as read now (its commit
 * record, whole, counts: recovery checks it first, being newer). */
static bool rollback_committed(const ht_context *c, int jfd, const char *rtxid) {
        _cleanup_(ht_tx_freep) ht_tx *r = NULL;
        return rtxid && journal_tx_load_at(c, jfd, rtxid, &r, NULL) >= 0 && streq_ptr(ht_tx_status(r), "committed") &&
               streq_ptr(ht_tx_command(r), "rollback");
}

/* A rollback's commit record stands only with the status "rolled-back"
 * of every transaction it undid, written in the same flush: one that
 * reads otherwise now (its record cut) was not rolled back by a commit
 * that stands. A transaction that cannot be read is no evidence. */
static bool reverts_hold(const ht_context *c, int jfd, ht_tx *tx) {
        json_object *rev;
        if (!json_object_object_get_ex(tx->m, "reverts", &rev) || !json_object_is_type(rev, json_type_array))
                return true;
        for (size_t i = 0; i < json_object_array_length(rev); i++) {
                const char *t = json_object_get_string(json_object_array_get_idx(rev, i));
                _cleanup_(ht_tx_freep) ht_tx *target = NULL;
                if (!t || journal_tx_load_at(c, jfd, t, &target, NULL) < 0)
                        continue;
                if (!streq_ptr(ht_tx_status(target), "rolled-back") ||
                    !streq_ptr(journal_get_str(target->m, "rolled_back_by"), tx->txid))
                        return false;
        }
        return true;
}

/* A record written in place that a crash left beside the manifest (e->tx
 * loaded from it). A commit stands when every file is past its prior
 * state and, for a rollback, every transaction it undid says so;
 * an undone transaction's "rolled-back" stands when its rollback is
 * committed. One that stands is finished (renamed over the manifest, the
 * marker removed, flushed); otherwise a write of its flush was lost, so
 * it is removed and e->tx reloaded from the manifest (an apply or a
 * rollback then pending, for the undo; an undone transaction committed,
 * as before its rollback). Read again first: the undo of a newer
 * rollback, just before, may have put its status back. */
static int finish_commit(const ht_context *c, int jfd, entry *e, char ***ret_messages) {
        ht_tx *fresh = NULL;
        int r = journal_tx_load_at(c, jfd, e->txid, &fresh, NULL);
        if (r < 0)
                return r;
        ht_tx_free(e->tx);
        e->tx = fresh;
        ht_tx *tx = fresh;
        if (!tx->commit_unconfirmed) {
                journal_tx_detach(tx);
                return 0;
        }
        bool commit = streq_ptr(ht_tx_status(tx), "committed");
        bool files = !commit || journal_commit_holds(tx);
        bool stands = commit ? files && reverts_hold(c, jfd, tx) :
                               rollback_committed(c, jfd, journal_get_str(tx->m, "rolled_back_by"));
        if (stands) {
                if (renameat(tx->fd, COMMIT_RECORD, tx->fd, MANIFEST) < 0)
                        return -errno;
                if (unlinkat(tx->fd, PENDING_MARKER, 0) < 0 && errno != ENOENT)
                        return -errno;
                r = ht_fsync_dir(tx->fd);
                journal_tx_detach(tx);
                if (r >= 0)
                        tx->commit_unconfirmed = false;
                return r;
        }
        if (unlinkat(tx->fd, COMMIT_RECORD, 0) < 0)
                return -errno;
        /* an undone transaction's marker: it is as its manifest says */
        if (!commit && unlinkat(tx->fd, PENDING_MARKER, 0) < 0 && errno != ENOENT)
                return -errno;
        r = ht_fsync_dir(tx->fd);
        journal_tx_detach(tx);
        if (r < 0)
                return r;
        if (ret_messages) {
                if (!commit)
                        strv_pushf(ret_messages, "journal %s: its status rolled-back was written, but its rollback "
                                   "%s did not commit: it stays as it was", e->txid,
                                   journal_get_str(tx->m, "rolled_back_by"));
                else if (!files)
                        strv_pushf(ret_messages, "journal %s: its commit record was written, but not every file it "
                                   "committed reached the disk: it is not committed", e->txid);
                else
                        strv_pushf(ret_messages, "journal %s: its commit record was written, but not the status of "
                                   "every transaction it rolled back: it is not committed", e->txid);
        }
        ht_tx_free(e->tx);
        e->tx = NULL;
        free(e->error);
        e->error = NULL;
        r = journal_tx_load_at(c, jfd, e->txid, &e->tx, &e->error);
        if (r < 0) {
                e->tx = NULL;
                return r;
        }
        journal_tx_detach(e->tx);
        return 0;
}

int ht_journal_recover(const ht_context *c, char ***ret_messages, char **ret_error) {
        int jfd;
        int r = journal_open_dir(c, false, NULL, &jfd, ret_error);
        if (r == -ENOENT)
                return 0;
        if (r < 0)
                return r;
        _cleanup_close_ int journal_fd = jfd;

        /* A crash before the begin record's flush returned leaves
         * .new-TXID: nothing was changed for it, and it goes. One whose
         * record is whole was flushed (a crash cuts a record written in
         * place: its JSON does not close) and may have changed files
         * before its rename to TXID was durable: it becomes TXID, pending,
         * and is undone below. */
        int fd = openat(journal_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return ht_error(ret_error, -errno, "cannot list %s/" JOURNAL_DIR ": %s", c->state_dir,
                                 strerror(errno));
        DIR *d = fdopendir(fd);
        if (!d) {
                close(fd);
                return ht_error(ret_error, -errno, "cannot list %s/" JOURNAL_DIR ": %s", c->state_dir,
                                 strerror(errno));
        }
        char **unfinished = NULL;
        struct dirent *de;
        while ((de = readdir(d)))
                if (startswith(de->d_name, NEW_PREFIX) && journal_txid_valid(de->d_name + strlen(NEW_PREFIX)))
                        strv_push(&unfinished, de->d_name);
        closedir(d);
        bool renamed = false;
        for (char **u = unfinished; u && *u; u++) {
                const char *txid = *u + strlen(NEW_PREFIX);
                _cleanup_close_ int ufd = openat(journal_fd, *u, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (ufd >= 0 && journal_record_whole_at(ufd, txid)) {
                        /* the marker may not have survived with it */
                        (void)journal_mark_pending_at(ufd);
                        if (ht_fsync_dir(ufd) >= 0 && renameat(journal_fd, *u, journal_fd, txid) == 0) {
                                renamed = true;
                                continue;
                        }
                }
                if (journal_remove_tree_at(journal_fd, *u, 1) == 0 && ret_messages)
                        strv_pushf(ret_messages, "journal: removed %s (a transaction that never started)", *u);
        }
        strv_free(unfinished);
        if (renamed && (r = ht_fsync_dir(journal_fd)) < 0)
                return ht_error(ret_error, r, "cannot fsync %s/" JOURNAL_DIR ": %s", c->state_dir,
                                         ht_strerror(-r));
        /* temps of a manifest write a crash cut short: the one rule of
         * every atomic write (ht_is_temp_name) */
        (void)ht_cleanup_temp_files_at(journal_fd, NULL);

        entry *l;
        size_t n;
        r = load_all_ex(c, journal_fd, true, &l, &n, NULL, ret_error);
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
                if (journal_tx_attach(l[i].tx, journal_fd) == 0) {
                        (void)ht_cleanup_temp_files_at(l[i].tx->fd, NULL);
                        (void)ht_cleanup_temp_files_at(l[i].tx->backup_fd, NULL);
                        /* a record a crash cut (not whole: the loader took
                         * the manifest) beside a finished manifest: never
                         * a record (a pending one's goes with its undo) */
                        if (!l[i].tx->commit_unconfirmed && !streq_ptr(ht_tx_status(l[i].tx), "pending") &&
                            unlinkat(l[i].tx->fd, COMMIT_RECORD, 0) == 0)
                                (void)unlinkat(l[i].tx->fd, PENDING_MARKER, 0);
                }
                journal_tx_detach(l[i].tx);
        }
        for (size_t i = n; i > 0; i--) {
                ht_tx *tx = l[i - 1].tx;
                if (tx && tx->commit_unconfirmed) {
                        r = finish_commit(c, journal_fd, &l[i - 1], ret_messages);
                        if (r < 0) {
                                n_failed++;
                                if (!first_error)
                                        first_error = xasprintf("journal %s: cannot finish its commit: %s",
                                                                l[i - 1].txid, ht_strerror(-r));
                                continue;
                        }
                        tx = l[i - 1].tx;
                }
                if (!tx || !streq_ptr(ht_tx_status(tx), "pending"))
                        continue;
                _cleanup_free_ char *err = NULL;
                char **msgs = NULL;
                r = journal_tx_attach(tx, journal_fd);
                if (r < 0)
                        err = xasprintf("journal %s: cannot open it: %s", tx->txid, ht_strerror(-r));
                else {
                        /* an apply whose own undo stopped part-way says why it failed */
                        const char *why = journal_get_str(tx->m, "error");
                        _cleanup_free_ char *reason = why ? xasprintf("%s; its undo finished by the next run", why) :
                                                            xstrdup("interrupted; undone by the next run");
                        r = journal_undo(tx, NULL, 0, "recovered", reason, &msgs, &err);
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
                r = ht_error(ret_error, n_failed > 0 ? -EIO : -EBADMSG, "%s", first_error);
                free(first_error);
                return r;
        }
        return recovered;
}
