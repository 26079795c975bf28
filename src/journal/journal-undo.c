/* The journal room: undo, the one path back for rollback, abort and
 * recovery. */
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
#include "fileattr.h"
#include "fileio.h"
#include "journal-internal.h"
#include "journal.h"
#include "settings-json.h"
#include "sha256.h"
#include "util.h"

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
                return ht_error(ret_error, r,
                                 "journal %s: backup of %s (%s/" BACKUP_DIR "/%s) cannot be read: %s; nothing was "
                                 "restored",
                                 tx->txid, it->path, tx->dir, it->backup, ht_strerror(-r));
        }
        char hex[HT_SHA256_HEX_SIZE];
        ht_sha256_hex(s->content, s->len, hex);
        if (s->len != it->prior_size || !streq(hex, it->prior_sha)) {
                ht_file_snapshot_free(s);
                return ht_error(ret_error, -EBADMSG,
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

/* The file is exactly as the transaction found it (content, mode,
 * owner): its undo needs no backup. A crash inside the begin record's
 * flush can leave backups that are not whole, but then no file was
 * changed yet (docs/DESIGN.md, "Durability"). */
static bool as_before(const item *it, const ht_file_snapshot *cur) {
        /* the cheap tests first: a file the transaction changed mostly
         * differs in size, and is then not hashed again here */
        if (!it->prior_existed || !cur->existed || cur->len != it->prior_size ||
            (cur->mode & 07777) != (it->prior_mode & 0777) || cur->uid != it->prior_uid ||
            cur->gid != it->prior_gid)
                return false;
        return state_is(cur, true, it->prior_sha);
}

bool journal_commit_holds(ht_tx *tx) {
        size_t n = ht_tx_n_items(tx);
        for (size_t i = 0; i < n; i++) {
                item it;
                journal_tx_item(tx, i, &it);
                if (!it.file)
                        continue;
                _cleanup_(ht_file_snapshot_freep) ht_file_snapshot *cur = NULL;
                if (ht_file_snapshot_take(tx->c, it.path, &cur) < 0)
                        return false;
                /* still as before, though it was to change: its rename
                 * was lost, so the commit cannot stand */
                if (state_is(cur, it.prior_existed, it.prior_sha) && !state_is(cur, it.new_existed, it.new_sha))
                        return false;
        }
        return true;
}

/* The file is as this transaction left it, or as it found it (any item
 * of the same path counts: a path may be recorded more than once). */
static bool file_state_known(const ht_tx *tx, const char *path, const ht_file_snapshot *cur) {
        size_t n = ht_tx_n_items(tx);
        for (size_t i = 0; i < n; i++) {
                item it;
                journal_tx_item(tx, i, &it);
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

/* The directories the transaction made for a file that was not there
 * are gone again. */
static bool missing_dirs_absent(const ht_context *c, const item *it) {
        for (size_t k = 0; it->missing_dirs && k < json_object_array_length(it->missing_dirs); k++) {
                struct stat st;
                if (ht_lstat(c, json_object_get_string(json_object_array_get_idx(it->missing_dirs, k)), &st) == 0)
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
static int file_undo_states(ht_tx *tx, const item *it, bool clean, ht_file_snapshot **ret_prior,
                            ht_file_snapshot **ret_cur, char ***errors) {
        const ht_context *c = tx->c;
        _cleanup_free_ char *err = NULL;
        _cleanup_(ht_file_snapshot_freep) ht_file_snapshot *prior = NULL, *cur = NULL;
        /* a crash inside an atomic write leaves its temp file behind (not
         * when clean is false: the restore's own staged temp is there) */
        if (clean)
                (void)ht_cleanup_temp_files(c, it->path);
        int r = ht_file_snapshot_take(c, it->path, &cur);
        if (r < 0) {
                _cleanup_free_ char *dp = ht_display_path(c, it->path);
                strv_pushf(errors, "%s: cannot read its current state: %s", dp, ht_strerror(-r));
                return r;
        }
        if (as_before(it, cur))
                return 0;
        r = prior_snapshot(tx, it, &prior, &err);
        if (r < 0) {
                strv_push(errors, err);
                err = NULL;
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
        bool same = same_file(cur, prior) && (prior->existed || missing_dirs_absent(c, it));
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

/* The restore staged for one item (stage_undo): its temp file, written
 * and flushed before the first restore, and the state it puts back. */
typedef struct {
        ht_staged_file file;
        ht_file_snapshot *prior;
} staged_restore;

static void staged_restore_done(staged_restore *s) {
        ht_staged_file_done(&s->file);
        ht_file_snapshot_free(s->prior);
        s->prior = NULL;
}

/* Whether the restore staged is still the one to make: same content,
 * mode and owner (nothing but this undo writes the file under the lock;
 * checked, not trusted). */
static bool staged_matches(const staged_restore *s, const ht_file_snapshot *prior) {
        return s && s->file.active && s->prior && prior->existed && s->prior->len == prior->len &&
               (prior->len == 0 || memcmp(s->prior->content, prior->content, prior->len) == 0) &&
               s->prior->mode == prior->mode &&
               s->prior->uid == prior->uid && s->prior->gid == prior->gid;
}

/* Put one file back. 1 restored, 0 it already was as before, negative on
 * failure. record: the rollback transaction that journaled this restore
 * as its item ridx (SIZE_MAX: none), marked done once it is made. staged:
 * its content's temp file, already durable (NULL or inactive: written and
 * flushed here); dropped when the restore is not made with it. */
static int undo_file(ht_tx *tx, const item *it, ht_tx *record, size_t ridx, staged_restore *staged,
                     ht_fsync_batch *dirs, char ***msgs, char ***errors) {
        const ht_context *c = tx->c;
        _cleanup_free_ char *dp = ht_display_path(c, it->path);
        _cleanup_free_ char *err = NULL;
        _cleanup_(ht_file_snapshot_freep) ht_file_snapshot *prior = NULL, *cur = NULL;
        bool have_staged = staged && staged->file.active;
        int r = file_undo_states(tx, it, !have_staged, &prior, &cur, errors);
        if (r <= 0) {
                if (staged)
                        staged_restore_done(staged);
                return r;
        }
        _cleanup_free_ char *old = short_sha(cur), *new = short_sha(prior);
        if (staged_matches(staged, prior))
                r = ht_staged_file_install(c, &staged->file, dirs);
        else {
                if (staged)
                        staged_restore_done(staged);
                r = ht_file_restore_batched(c, prior, dirs);
        }
        if (staged)
                staged_restore_done(staged);
        ht_audit_change("hosttune-rollback", it->path, old, new, tx->txid, r >= 0);
        if (r < 0) {
                _cleanup_free_ char *hint = ht_write_error_hint(c, it->path, r);
                strv_pushf(errors, "%s: cannot restore it: %s%s", dp, ht_strerror(-r), hint);
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

/* Stage every file restore tx's undo will make: the content that comes
 * back into an unnamed temp file in its directory (ht_stage_file_exact),
 * whose data goes into data, flushed at once before the first restore,
 * so a restore is then only a rename (a removal needs no data). The
 * first, newest, item of a path that needs a restore is staged; an
 * older one of the same path is restored on its own (ht_file_restore)
 * if it still needs one. With a record (a rollback), every restore (its
 * path's state now, before the restore) is journaled there too and the
 * record written once, flushed with data: the restores of a rollback are
 * write-ahead like an apply's changes. ridx[i]: item i's index in
 * record, SIZE_MAX when it needs no restore (or its path is recorded
 * already: the first, newest, record of a path holds its state before
 * this rollback). A temp file that cannot be staged leaves its restore
 * to the undo, which reports what fails. */
static int stage_undo(ht_tx *tx, ht_tx *record, size_t *ridx, staged_restore *staged, ht_fsync_batch *dirs,
                      char **ret_error) {
        size_t n = ht_tx_n_items(tx);
        _cleanup_strv_free_ char **seen = NULL, **errors = NULL;
        _cleanup_(ht_fsync_batch_done) ht_fsync_batch data = {0};
        for (size_t i = n; i > 0; i--) {
                item it;
                journal_tx_item(tx, i - 1, &it);
                ridx[i - 1] = SIZE_MAX;
                char *err = NULL;
                int r = 0;
                if (it.file) {
                        _cleanup_(ht_file_snapshot_freep) ht_file_snapshot *prior = NULL, *cur = NULL;
                        if (strv_contains(seen, it.path) ||
                            file_undo_states(tx, &it, true, &prior, &cur, &errors) <= 0)
                                continue;
                        strv_push(&seen, it.path);
                        if (record)
                                r = ht_tx_record_file(record, it.backend, it.path,
                                                      prior->existed ? prior->content : NULL, prior->len,
                                                      prior->mode, &ridx[i - 1], &err);
                        if (r >= 0 && prior->existed &&
                            ht_stage_file_exact(tx->c, it.path, prior->content ? prior->content : "", prior->len,
                                                prior->mode, prior->uid, prior->gid, &data, dirs,
                                                &staged[i - 1].file) >= 0)
                                staged[i - 1].prior = TAKE_PTR(prior);
                        else
                                staged_restore_done(&staged[i - 1]);
                } else if (record) {
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
        if (!record) {
                int r = ht_fsync_batch_run(&data);
                return r < 0 ? ht_error(ret_error, r, "journal %s: cannot flush the restores' temp files: %s",
                                         tx->txid, ht_strerror(-r)) : 0;
        }
        json_object *rev;
        if (!json_object_object_get_ex(record->m, "reverts", &rev)) {
                rev = json_object_new_array();
                json_object_object_add(record->m, "reverts", rev);
        }
        json_object_array_add(rev, json_object_new_string(tx->txid));
        return journal_tx_write(record, &data, ret_error);
}

static int open_journal_for(const ht_tx *tx, int *ret_fd) {
        return journal_open_dir(tx->c, false, NULL, ret_fd, NULL);
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
                if (journal_tx_load_at(tx->c, jfd, t, &target, NULL) < 0)
                        continue;
                if (!streq_ptr(ht_tx_status(target), "rolled-back") ||
                    !streq_ptr(journal_get_str(target->m, "rolled_back_by"), tx->txid))
                        continue;
                journal_set_status(target, "committed");
                json_object_object_del(target->m, "rolled_back_by");
                json_object_object_del(target->m, "rolled_back_at");
                if (journal_tx_write(target, NULL, NULL) == 0)
                        strv_pushf(msgs, "journal %s: committed again (its rollback %s did not finish)", t, tx->txid);
        }
        close(jfd);
}

int journal_undo(ht_tx *tx, ht_tx *record, unsigned flags, const char *final_status, const char *reason,
                 char ***ret_messages, char **ret_error) {
        const ht_context *c = tx->c;
        size_t n = ht_tx_n_items(tx);
        _cleanup_free_ char *saved_status = NULL;
        int r;

        if (record == tx)
                return ht_error(ret_error, -EINVAL, "journal %s: a transaction cannot record its own rollback",
                                 tx->txid);
        if (record) {
                r = journal_require_pending(record, ret_error);
                if (r < 0)
                        return r;
        }

        /* 1. Check everything before changing anything: every backup must
         * match its checksum, every file must be in a state this
         * transaction knows (before or after), unless forced. */
        for (size_t i = 0; i < n; i++) {
                item it;
                journal_tx_item(tx, i, &it);
                if (!it.file)
                        continue;
                _cleanup_(ht_file_snapshot_freep) ht_file_snapshot *prior = NULL, *cur = NULL;
                r = ht_file_snapshot_take(c, it.path, &cur);
                _cleanup_free_ char *dp = ht_display_path(c, it.path);
                if (r < 0) {
                        _cleanup_free_ char *hint = ht_write_error_hint(c, it.path, r);
                        return ht_error(ret_error, r, "journal %s: cannot read %s: %s%s; nothing was restored",
                                         tx->txid, dp, ht_strerror(-r), hint);
                }
                /* a backup is checked where it is needed: a file as it was
                 * before needs none */
                if (!as_before(&it, cur) && (r = prior_snapshot(tx, &it, &prior, ret_error)) < 0)
                        return r;
                if (flags & HT_ROLLBACK_FORCE)
                        continue;
                if (!file_state_known(tx, it.path, cur))
                        return ht_error(ret_error, -ESTALE,
                                         "journal %s: %s was changed since this transaction (its content is "
                                         "neither the one before nor the one after it); nothing was restored; "
                                         "force the rollback to overwrite it",
                                         tx->txid, dp);
        }

        /* an undone rollback hands no status to its commit: what it had
         * written is put back by reinstate_reverted */
        tx->n_reverted = 0;
        _cleanup_free_ size_t *ridx = xcalloc(n + 1, sizeof(size_t));
        for (size_t i = 0; i < n; i++)
                ridx[i] = SIZE_MAX;
        /* the restored files' directories (and the parents of directories
         * made again): flushed at once with the new status, which is not
         * durable before they are */
        ht_fsync_batch dirs = {0};
        staged_restore *staged = xcalloc(n + 1, sizeof(*staged));
        r = stage_undo(tx, record, ridx, staged, &dirs, ret_error);
        if (r < 0) {
                for (size_t i = 0; i < n; i++)
                        staged_restore_done(&staged[i]);
                free(staged);
                ht_fsync_batch_done(&dirs);
                return r;
        }

        /* 2. Undo, newest change first; keep going past a failure so as
         * much as possible is back, and report every failure. Each file's
         * data is durable already (stage_undo): its restore is a rename. */
        char **msgs = NULL, **errors = NULL;
        size_t n_restored = 0, n_same = 0;
        for (size_t i = n; i > 0; i--) {
                item it;
                journal_tx_item(tx, i - 1, &it);
                int k = it.file ? undo_file(tx, &it, record, ridx[i - 1], &staged[i - 1], &dirs, &msgs, &errors) :
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
                (void)journal_tx_write(tx, &dirs, NULL);
                _cleanup_free_ char *all = strv_join(errors, "; ");
                r = ht_error(ret_error, -EIO,
                              "journal %s: %zu of %zu item(s) not restored: %s; %zu restored now, %zu already as "
                              "before (they stay so)",
                              tx->txid, strv_length(errors), n, all, n_restored, n_same);
                goto out;
        }
        saved_status = xstrdup(ht_tx_status(tx));
        journal_set_status(tx, final_status);
        journal_set_now(tx, streq(final_status, "rolled-back") ? "rolled_back_at" : "undone_at");
        if (record)
                json_object_object_add(tx->m, "rolled_back_by", json_object_new_string(record->txid));
        if (reason)
                json_object_object_add(tx->m, "error", json_object_new_string(reason));
        json_object_object_del(tx->m, "rollback_errors");
        r = 0;
        if (record) {
                /* written with the rollback's commit, in one flush with the
                 * directories: see write_reverted_records */
                for (size_t i = 0; i < dirs.n; i++) {
                        int k = ht_fsync_batch_add(&record->sync, dirs.fds[i]);
                        if (r >= 0)
                                r = k;
                }
                dirs.n = 0;
                if (r < 0) {
                        journal_set_status(tx, saved_status);
                        r = ht_error(ret_error, r, "journal %s: %s", tx->txid, ht_strerror(-r));
                        goto out;
                }
                record->reverted = xrealloc(record->reverted, (record->n_reverted + 1) * sizeof(ht_tx *));
                record->reverted[record->n_reverted++] = tx;
        } else {
                r = journal_tx_write(tx, &dirs, ret_error);
                if (r < 0) {
                        journal_set_status(tx, saved_status);
                        goto out;
                }
                ht_fault_point("rollback-status");
        }
        reinstate_reverted(tx, &msgs);
        r = 0;
out:
        for (size_t i = 0; i < n; i++)
                staged_restore_done(&staged[i]);
        free(staged);
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
                return ht_error(ret_error, -EINVAL,
                                 "journal %s: transaction is %s; only committed transactions can be rolled back",
                                 tx->txid, ht_tx_status(tx));
        return journal_undo(tx, record, flags, "rolled-back", NULL, ret_messages, ret_error);
}

int ht_tx_close_failed(ht_tx *tx, const char *reason, char **ret_error) {
        int r = journal_require_pending(tx, ret_error);
        if (r < 0)
                return r;
        journal_set_status(tx, "failed");
        journal_set_now(tx, "failed_at");
        json_object_object_add(tx->m, "error", json_object_new_string(reason ? reason : "failed"));
        r = journal_tx_write(tx, NULL, ret_error);
        if (r < 0)
                journal_set_status(tx, "pending");
        return r;
}

size_t ht_tx_not_as_before(ht_tx *tx, char ***ret_items) {
        size_t n = ht_tx_n_items(tx), k = 0;
        _cleanup_strv_free_ char **ignored = NULL;
        for (size_t i = 0; i < n; i++) {
                item it;
                journal_tx_item(tx, i, &it);
                if (!it.file) {
                        _cleanup_free_ char *cur = NULL;
                        if (runtime_undo_states(tx, &it, &cur, &ignored) != 0) {
                                _cleanup_free_ char *ecur = cur ? ht_kernel_value_effective(cur) : NULL;
                                strv_pushf(ret_items, "%s is '%s'", it.key, ecur ? ecur : "unreadable");
                                k++;
                        }
                        continue;
                }
                _cleanup_(ht_file_snapshot_freep) ht_file_snapshot *cur = NULL;
                /* the very bytes, mode and owner; or absent, and the
                 * directories made for it too */
                if (ht_file_snapshot_take(tx->c, it.path, &cur) < 0 ||
                    (it.prior_existed ? !as_before(&it, cur) : cur->existed || !missing_dirs_absent(tx->c, &it))) {
                        strv_push_take(ret_items, ht_display_path(tx->c, it.path));
                        k++;
                }
        }
        return k;
}

int ht_tx_abort(ht_tx *tx, const char *reason, char ***ret_messages, char **ret_error) {
        int r = journal_require_pending(tx, ret_error);
        if (r < 0)
                return r;
        return journal_undo(tx, NULL, 0, "failed", reason ? reason : "apply failed", ret_messages, ret_error);
}
