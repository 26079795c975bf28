/* The write-ahead transaction journal: what apply changes is recorded
 * (prior state fsynced) before it is changed, so any transaction can be
 * undone — on request (rollback), on failure (abort) or after a crash
 * (recover).
 *
 * Durability: each state change is one manifest write (begin, commit,
 * final status); the begin record and the commit are written in place
 * and flushed with what they guard, so an apply waits for two flushes in
 * a row; see docs/DESIGN.md, "Durability", for every fsync and rename and
 * the crash it protects against.
 *
 * Layout, in the state directory (ht_context.state_dir, a real path;
 * default ROOT/var/lib/hosttune; 0700, owned by us, not a symlink, not
 * writable by group or others — refused otherwise):
 *
 *   STATE/journal/TXID/manifest.json   the transaction (json-c), 0600
 *   STATE/journal/TXID/backup/N        prior content of file item N, 0600
 *   STATE/journal/TXID/commit.json     the commit record, written in
 *                                      place, then renamed over
 *                                      manifest.json (a crash can leave it)
 *   STATE/journal/.new-TXID/           a transaction being created; it
 *                                      becomes TXID by one rename once its
 *                                      begin record is durable; recovery
 *                                      takes one whose manifest is whole as
 *                                      begun, removes any other
 *
 * TXID is "YYYYMMDDTHHMMSSZ-xxxxxxxx" (UTC time, 8 random hex digits), so
 * names sort by time. The first manifest and the backups are written into
 * .new-TXID (fsynced, then one rename); the commit record beside the
 * manifest (fsynced, then renamed over it); every other later manifest
 * replaces the old one atomically (temp, fsync, rename, fsync dir): on
 * disk it is always either the old or the new version.
 *
 * manifest.json:
 *   format "hosttune-journal", version 1, txid, command ("apply",
 *   "rollback", ...), profile (string or null), status, created (ISO 8601
 *   UTC), created_usec, updated, root, boot_id (or null), params {},
 *   facts {}, reboot_required, info {} (an apply's: notes [], set [its
 *   --set arguments], profile_file), expected [] (free-form, for
 *   verify), items [], and as they happen: committed_at, rolled_back_at,
 *   rolled_back_by (the txid of the rollback that undid it), reverts
 *   [txids a rollback transaction undoes], error, rollback_errors [].
 *   status: pending -> committed | failed (apply failed, undone) |
 *           recovered (crashed, undone by the next run);
 *           committed -> rolled-back.
 *   items[N], kind "file":
 *     {kind, backend, path, done,
 *      prior: {existed, mode "0644", uid, gid, size, sha256, backup "N",
 *              missing_dirs [parent dirs that did not exist]}
 *             (only existed and missing_dirs when it did not exist),
 *      new: {existed, mode, size, sha256} (only existed when removed)}
 *   items[N], kind "runtime":
 *     {kind, backend, key, path, done, prior: {value}, new: {value}}
 *
 * The caller holds the run lock (lock.h) around every function that
 * writes. Functions return 0 or -errno; *ret_error (when given) gets a
 * message naming the transaction and the file. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "context.h"
#include "fileio.h"
#include "profile.h"

typedef struct ht_tx ht_tx;

/* Whether a file item of backend at path names a file hosttune writes
 * (c NULL: a manifest checked on its own; follow no link). */
typedef bool (*ht_journal_file_check)(const ht_context *c, const char *backend, const char *path);
/* The journal knows no backend; the layer that does says which files a
 * transaction may record and restore (ht_backend_manages_file), before
 * any journal is read. Until it is given, every file item is refused:
 * a manifest (anyone who could write one) never decides where root
 * writes. Manifests are also refused when their root is not this run's
 * or a runtime item lies outside /proc/sys and /sys. */
void ht_journal_confine(ht_journal_file_check check);

/* Flags for ht_tx_rollback. */
enum {
        /* Restore files even when they changed since the transaction (their
         * content is neither the one before nor the one after it), and take
         * a runtime value the kernel reads back differently as a warning. */
        HT_ROLLBACK_FORCE = 1 << 0,
};

/* Start a transaction, in memory and in a hidden .new-TXID directory:
 * nothing of it exists for other runs until its first write
 * (ht_tx_write_ahead, or the final status), which makes it appear whole.
 * params and facts are JSON objects or NULL; the transaction takes its
 * own reference. command is a plain word ("apply"). A transaction freed
 * before its first write leaves nothing. */
int ht_tx_begin(const ht_context *c, const char *command, const char *profile,
                json_object *params, json_object *facts, ht_tx **ret, char **ret_error);

/* Record a file about to change: its current state (existence, content
 * into backup/N, fsynced, mode, owner) and the state it will get
 * (new_content NULL: it will be removed). In memory until
 * ht_tx_write_ahead, which must come before the change. *ret_item is its
 * index. A symlink or non-regular file at path is refused, and so is a
 * path the confinement (ht_journal_confine) does not give its backend. */
int ht_tx_record_file(ht_tx *tx, const char *backend, const char *path,
                      const void *new_content, size_t new_len, mode_t new_mode,
                      size_t *ret_item, char **ret_error);

/* Write-ahead record of a file an external tool is about to regenerate
 * (grub.cfg): its prior state as above, and "generated" as its new state,
 * so a rollback after a crash mid-tool still restores it. Once the tool
 * is done, ht_tx_update_generated records what it wrote and marks the
 * item done. */
int ht_tx_record_generated(ht_tx *tx, const char *backend, const char *path, size_t *ret_item,
                           char **ret_error);
int ht_tx_update_generated(ht_tx *tx, size_t item, char **ret_error);

/* Write-ahead record of a runtime kernel value about to change. prior
 * NULL: read it now through the context. Values with control characters
 * (tab aside) are refused: they could not be written back. */
int ht_tx_record_runtime(ht_tx *tx, const char *backend, const char *key, const char *path,
                         const char *prior_value, const char *new_value,
                         size_t *ret_item, char **ret_error);

/* Make every item recorded so far durable, with one manifest write (the
 * first: the transaction's begin record); call it before making any of
 * their changes. A transaction with nothing new to write: nothing. */
int ht_tx_write_ahead(ht_tx *tx, char **ret_error);
/* The same, with also's fsyncs (taken: the batch is empty afterwards)
 * run together with the begin record's: apply hands it the temp files of
 * the new contents, so that one flush makes both durable before the
 * first rename (docs/DESIGN.md, "Durability"). */
int ht_tx_write_ahead_with(ht_tx *tx, ht_fsync_batch *also, char **ret_error);

/* Mark item done once its change is made (the change durable). In memory,
 * written with the commit (history's "done"): recovery does not need it,
 * it compares each item's path with its prior and new states. -EINVAL for
 * an item not written ahead. */
int ht_tx_mark_done(ht_tx *tx, size_t item, char **ret_error);

/* Store what verify should check later (a JSON array; the transaction
 * takes a reference); written with the next write. */
int ht_tx_set_expected(ht_tx *tx, json_object *expected, char **ret_error);
/* In memory until the next write (commit): whether a reboot is needed,
 * and any other summary for history (info.KEY = value, reference taken). */
void ht_tx_set_reboot_required(ht_tx *tx, bool reboot_required);
void ht_tx_set_info(ht_tx *tx, const char *key, json_object *value);

/* Mark the transaction committed, with one durable manifest write. */
int ht_tx_commit(ht_tx *tx, char **ret_error);
/* The same, with also's fsyncs (taken: the batch is empty afterwards) run
 * together with the commit record's own, before its rename: apply hands
 * it the directories of the files it renamed (group commit). */
int ht_tx_commit_with(ht_tx *tx, ht_fsync_batch *also, char **ret_error);

/* Undo a committed transaction: in reverse order, files come back byte
 * for byte with mode and owner (created files and directories are
 * removed), runtime values are written back and read back. Before
 * anything changes, every backup is checked against its sha256 and every
 * file against the transaction's states (see HT_ROLLBACK_FORCE); either
 * problem changes nothing. When record is given (a pending "rollback"
 * transaction), every restore is itself journaled in it first, so a crash
 * mid-rollback is recovered too; the caller commits record afterwards.
 * Status becomes rolled-back. Human-readable lines about what was done go
 * to *ret_messages (appended). A partial failure leaves the status as it
 * was, records rollback_errors and returns -EIO, the error naming every
 * item not restored with the value it has; what was restored stays so,
 * and a retry skips it. */
int ht_tx_rollback(ht_tx *tx, ht_tx *record, unsigned flags, char ***ret_messages, char **ret_error);

/* A rollback that stopped part-way: mark its own pending transaction
 * failed, reason stored as error, without undoing what it restored (that
 * stays restored; the rolled-back transaction keeps its status and
 * rollback_errors, so the next rollback finishes it). */
int ht_tx_close_failed(ht_tx *tx, const char *reason, char **ret_error);

/* Apply failed: undo what this pending transaction did, status failed,
 * reason stored as error. When an item cannot be restored the transaction
 * stays pending (with rollback_errors), so the next run's recovery retries
 * the undo; -EIO then. */
int ht_tx_abort(ht_tx *tx, const char *reason, char ***ret_messages, char **ret_error);

/* After a failed apply or abort, what is true of the host rather than
 * of the journal (a full state directory can refuse the record of an
 * undo that did put everything back): each item whose path is not in
 * its prior state now is appended to *ret_items ("PATH" for a file,
 * "KEY is 'VALUE'" for a runtime value; one that cannot be read counts
 * as not back). Returns how many. */
size_t ht_tx_not_as_before(ht_tx *tx, char ***ret_items);
/* Whether tx's begin record reached the journal (a later run sees it,
 * and its recovery closes or undoes it); false while it is being begun:
 * nothing of the host was changed then. */
bool ht_tx_on_disk(const ht_tx *tx);

/* Find pending transactions (a crash mid-apply or mid-rollback) and undo
 * them, newest first, marking them recovered; also clear temp files and
 * unfinished transaction directories a crash left. Safe after a crash at
 * any point. Returns how many were recovered; -EBADMSG when a manifest is
 * corrupt (it is left alone and named in the messages; the others are
 * still recovered); -EIO when an undo failed. Run it, with the lock held,
 * before anything else. */
/* Create the state directory (and its journal directory) if missing,
 * with the checks every journal access makes: an image keeps its run
 * lock there. */
int ht_state_dir_create(const ht_context *c, char **ret_error);

int ht_journal_recover(const ht_context *c, char ***ret_messages, char **ret_error);

/* The txids of pending transactions (a crash mid-apply or mid-rollback,
 * or a run in progress: only the lock tells them apart), oldest first,
 * without changing anything. Returns how many; 0 without a journal;
 * -errno when the journal cannot be read (not ours, no permission). */
int ht_journal_pending(const ht_context *c, char ***ret_txids, char **ret_error);

/* History, oldest first: a JSON array of summaries {txid, created, status,
 * command, profile, params, changes, done, reboot_required, boot_id, ...};
 * a corrupt manifest shows as {txid, status "corrupt", error}. No state
 * directory: an empty array. */
int ht_journal_list(const ht_context *c, json_object **ret, char **ret_error);

/* Load one transaction. -ENOENT unknown, -EINVAL not a txid, -EBADMSG
 * corrupt (the message says where to look). */
int ht_journal_load(const ht_context *c, const char *txid, ht_tx **ret, char **ret_error);
/* Whether the state directory has a journal (1, 0), whatever it holds:
 * the sign that a transaction was begun there. -errno when it cannot be
 * used (not ours, a symlink, no permission), with *ret_error. */
int ht_journal_exists(const ht_context *c, char **ret_error);
/* The newest committed transaction of command ("apply"; NULL: any);
 * -ENOENT when there is none; -EBADMSG when a newer manifest is corrupt
 * (it might be the one meant). */
int ht_journal_last_committed(const ht_context *c, const char *command, ht_tx **ret, char **ret_error);
/* txid and every committed transaction after it, newest first (what
 * "rollback TXID" undoes). Committed "rollback" transactions are left
 * out: what they undid is marked rolled-back already, so together they
 * cancel. -ENOENT unknown txid; -EINVAL when txid is not committed;
 * -EBADMSG when a later manifest is corrupt or a later transaction is
 * still pending. */
int ht_journal_committed_since(const ht_context *c, const char *txid, ht_tx ***ret, size_t *ret_n,
                               char **ret_error);
void ht_tx_list_free(ht_tx **l, size_t n);

const char *ht_tx_txid(const ht_tx *tx);
/* "pending", "committed", "rolled-back", "recovered", "failed" */
const char *ht_tx_status(const ht_tx *tx);
const char *ht_tx_command(const ht_tx *tx);
const char *ht_tx_profile(const ht_tx *tx);
size_t ht_tx_n_items(const ht_tx *tx);

typedef enum {
        HT_TX_ITEM_FILE,
        HT_TX_ITEM_RUNTIME,
} ht_tx_item_kind;

/* One item of a transaction, as validated when it was loaded (or built);
 * strings are owned by the transaction. */
typedef struct {
        ht_tx_item_kind kind;
        const char *backend;     /* "sysctl", "cmdline", ... */
        const char *path;        /* the file; a runtime value's /proc or /sys path */
        const char *key;         /* a runtime value's key; a file's path */
        bool done;               /* its change was made */
        bool prior_existed;      /* file: it existed before */
        bool new_existed;        /* file: it exists after (false: removed) */
        bool generated;          /* file: regenerated by an external tool (grub.cfg) */
        const char *new_sha256;  /* file: its content after; NULL when removed, or generated and
                                  * the tool did not finish */
        const char *prior_value; /* runtime: before and after */
        const char *new_value;
} ht_tx_item;

/* Item i (< ht_tx_n_items) into *ret. */
void ht_tx_get_item(const ht_tx *tx, size_t i, ht_tx_item *ret);
/* ISO 8601 UTC; committed_at NULL until committed. */
const char *ht_tx_created(const ht_tx *tx);
const char *ht_tx_committed_at(const ht_tx *tx);
/* Whether its changes take full effect only at the next boot. */
bool ht_tx_reboot_required(const ht_tx *tx);
/* The boot the transaction was begun in; NULL unknown. */
const char *ht_tx_boot_id(const ht_tx *tx);
/* Whether the transaction was applied to an offline image (no kernel of
 * its own, so no boot id). */
bool ht_tx_offline(const ht_tx *tx);
/* An apply's request: the profile file it loaded (a real path; NULL
 * unknown) and a copy of its --set arguments ("K=V"; strv_free it; NULL
 * when the journal predates them). */
const char *ht_tx_profile_file(const ht_tx *tx);
char **ht_tx_set_args(const ht_tx *tx);
/* A command an apply ran once its files were in place and that makes
 * them take effect (daemon-reload, logind's SIGHUP), kept in info so a
 * rollback can run it again for the files it restores. Only its action
 * names what to run: the caller rebuilds the command from its own table
 * (ht_follow_up_get); a manifest's argv is history, never executed.
 * Strings are owned by the transaction. Tools that write a file
 * (grub-mkconfig) are not kept: the journal restores that file itself. */
typedef struct {
        const char *backend;
        const char *action;       /* "daemon-reload", "reload-logind" */
        const char *description;
} ht_tx_follow_up;
size_t ht_tx_n_follow_ups(const ht_tx *tx);
/* Follow-up i (< ht_tx_n_follow_ups) into *ret. */
void ht_tx_get_follow_up(const ht_tx *tx, size_t i, ht_tx_follow_up *ret);
/* Whether the transaction's params name this parameter (given or
 * defaulted when it began). */
bool ht_tx_has_param(const ht_tx *tx, const char *name);
/* A parameter's value as the transaction resolved it (text); NULL when
 * it names none. Owned by the transaction. */
const char *ht_tx_param(const ht_tx *tx, const char *name);
/* The state verify checks against (ht_tx_set_expected's), as settings:
 * -EBADMSG when missing or malformed. */
int ht_tx_expected(const ht_tx *tx, ht_resolved **ret);
void ht_tx_free(ht_tx *tx);
static inline void ht_tx_freep(ht_tx **tx) { ht_tx_free(*tx); }

/* Parse and validate manifest text as ht_journal_load does before it
 * trusts a transaction (json NUL-terminated at len). txid: the name of
 * its directory, which the manifest must carry; NULL: any valid txid.
 * 0, or -EBADMSG with *ret_error saying what is wrong. For the fuzzer
 * and for tools that check a journal without a context. */
int ht_journal_manifest_check(const char *json, size_t len, const char *txid, char **ret_error);
