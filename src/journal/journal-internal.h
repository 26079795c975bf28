/* Internals of the journal room, shared by its files (journal-dir.c,
 * journal-manifest.c, journal-tx.c, journal-undo.c, journal-list.c):
 * not for other rooms, which use journal.h. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "fileio.h"
#include "journal.h"
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
/* the commit record, written in place (docs/DESIGN.md, "Durability") */
#define COMMIT_RECORD "commit.json"
#define PENDING_MARKER "PENDING"
/* Create the empty PENDING marker in a transaction's directory (durable
 * with that directory's next fsync): 0 or -errno. */
int journal_mark_pending_at(int dir_fd);
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
        int journal_fd;         /* STATE/journal, for that rename; -1 once flushed */
        char *new_name;         /* ".new-TXID"; NULL once visible */
        bool journal_unsynced;  /* the rename to TXID: flushed with the next record */
        bool commit_unconfirmed;/* loaded from COMMIT_RECORD: recovery checks it */
        size_t n_durable;       /* items the manifest on disk holds */
        bool backups_unsynced;  /* backup/ has entries not yet fsynced */
        /* flushed at once before the next manifest is renamed into place:
         * the backups' data, a new state directory's entries (tx_write) */
        ht_fsync_batch sync;
        /* A rollback's undone transactions whose status "rolled-back" is
         * set but not written: each goes into its directory's commit
         * record, in place, with this transaction's commit, in one flush
         * (docs/DESIGN.md, "Durability"). Borrowed, not freed here. */
        ht_tx **reverted;
        size_t n_reverted;
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

/* The confinement ht_journal_confine was given (NULL: none yet). */
extern ht_journal_file_check journal_file_check;

/* journal-manifest.c: helpers, manifest I/O and validation, the model */
bool journal_runtime_path_ok(const char *path);
const char *journal_get_str(json_object *o, const char *key);
json_object *journal_items_of(const ht_tx *tx);
bool journal_plain_word(const char *s);
void journal_set_now(ht_tx *tx, const char *key);
bool journal_txid_valid(const char *s);
char *journal_iso_time(time_t t);
json_object *journal_jstr(const char *s);
char *journal_mode_string(mode_t m);
char *journal_new_txid(int64_t usec);
int64_t journal_now_usec(void);
void journal_set_status(ht_tx *tx, const char *status);
void journal_tx_item(const ht_tx *tx, size_t i, item *it);
int journal_tx_attach(ht_tx *tx, int jfd);
void journal_tx_detach(ht_tx *tx);
int journal_tx_load_at(const ht_context *c, int jfd, const char *txid, ht_tx **ret, char **ret_error);
ht_tx *journal_tx_new(const ht_context *c, const char *txid, int fd);
int journal_tx_write(ht_tx *tx, ht_fsync_batch *also, char **ret_error);
/* Whether dir_fd/MANIFEST is a whole, valid manifest of txid (a begin
 * record cut by a crash is not: JSON that does not close, or zeros). */
bool journal_record_whole_at(int dir_fd, const char *txid);
bool journal_value_ok(const char *s);
int journal_write_new_file_at(int dir_fd, const char *name, const void *data, size_t len, ht_fsync_batch *sync);

/* journal-dir.c: the state directory */
int journal_open_dir(const ht_context *c, bool create, ht_fsync_batch *sync, int *ret_fd,
                     char **ret_error);
int journal_remove_tree_at(int parent_fd, const char *name, int depth);

/* Whether a record the loader took from COMMIT_RECORD is final: a
 * commit, or an undone transaction's "rolled-back" written with its
 * rollback's commit. */
bool journal_record_final(json_object *m);

/* journal-tx.c */
int journal_require_pending(const ht_tx *tx, char **ret_error);

/* journal-undo.c */
/* A commit record found by recovery (commit_unconfirmed): whether every
 * file item is past its prior state (1), or some rename it waited for
 * was lost with a crash (0: it is not committed). */
bool journal_commit_holds(ht_tx *tx);
int journal_undo(ht_tx *tx, ht_tx *record, unsigned flags, const char *final_status, const char *reason,
                 char ***ret_messages, char **ret_error);
