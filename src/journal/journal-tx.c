/* The journal room: a transaction's life up to its commit: begin, the
 * write-ahead records of each item, done, commit. */
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

/* ---- begin, record, done, commit -------------------------------------- */

int ht_tx_begin(const ht_context *c, const char *command, const char *profile,
                json_object *params, json_object *facts, ht_tx **ret, char **ret_error) {
        if (!journal_plain_word(command))
                return ht_error(ret_error, -EINVAL, "journal: invalid command name");
        if ((params && !json_object_is_type(params, json_type_object)) ||
            (facts && !json_object_is_type(facts, json_type_object)))
                return ht_error(ret_error, -EINVAL, "journal: params and facts must be JSON objects");
        if (profile && has_control_chars(profile))
                return ht_error(ret_error, -EINVAL, "journal: invalid profile name");

        int jfd;
        /* a new state directory's entries: flushed with the begin record */
        _cleanup_(ht_fsync_batch_done) ht_fsync_batch sync = {0};
        int r = journal_open_dir(c, true, &sync, &jfd, ret_error);
        if (r < 0)
                return r;
        _cleanup_close_ int journal_fd = jfd;

        int64_t usec = journal_now_usec();
        _cleanup_free_ char *txid = NULL, *tmp = NULL, *created = NULL, *boot_id = NULL, *real_root = NULL;
        for (int attempt = 0;; attempt++) {
                if (attempt >= 16)
                        return ht_error(ret_error, -EEXIST, "journal: cannot find a free transaction id");
                free(txid);
                free(tmp);
                txid = journal_new_txid(usec);
                tmp = xasprintf(NEW_PREFIX "%s", txid);
                struct stat st;
                if (fstatat(journal_fd, txid, &st, AT_SYMLINK_NOFOLLOW) == 0)
                        continue;
                r = ht_mkdirat_exact(journal_fd, tmp, 0700);
                if (r == 0)
                        break;
                if (r != -EEXIST) {
                        (void)unlinkat(journal_fd, tmp, AT_REMOVEDIR);
                        return ht_error(ret_error, r, "journal: cannot create %s/" JOURNAL_DIR "/%s: %s",
                                         c->state_dir, tmp, ht_strerror(-r));
                }
        }
        int fd = openat(journal_fd, tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0) {
                r = -errno;
                (void)unlinkat(journal_fd, tmp, AT_REMOVEDIR);
                return ht_error(ret_error, r, "journal: cannot open %s: %s", tmp, ht_strerror(-r));
        }
        _cleanup_(ht_tx_freep) ht_tx *tx = journal_tx_new(c, txid, fd);
        tx->sync = sync;
        sync = (ht_fsync_batch){0};
        if ((r = ht_mkdirat_exact(fd, BACKUP_DIR, 0700)) < 0 ||
            (tx->backup_fd = openat(fd, BACKUP_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
                if (r >= 0)
                        r = -errno;
                r = ht_error(ret_error, r, "journal %s: cannot create the backup directory: %s", txid,
                              ht_strerror(-r));
                goto fail;
        }

        json_object *m = tx->m = json_object_new_object();
        json_object_object_add(m, "format", json_object_new_string(FORMAT));
        json_object_object_add(m, "version", json_object_new_int(FORMAT_VERSION));
        json_object_object_add(m, "txid", json_object_new_string(txid));
        json_object_object_add(m, "command", json_object_new_string(command));
        json_object_object_add(m, "profile", journal_jstr(profile));
        json_object_object_add(m, "status", json_object_new_string("pending"));
        created = journal_iso_time((time_t)(usec / 1000000));
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
        json_object_object_add(m, "boot_id", journal_jstr(boot_id));
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
        (void)journal_remove_tree_at(journal_fd, tmp, 1);
        return r;
}

int journal_require_pending(const ht_tx *tx, char **ret_error) {
        if (!streq_ptr(ht_tx_status(tx), "pending"))
                return ht_error(ret_error, -EINVAL, "journal %s: transaction is %s, not pending", tx->txid,
                                 ht_tx_status(tx));
        return 0;
}

/* Append an item, in memory: ht_tx_write_ahead puts it on disk. */
static int append_item(ht_tx *tx, json_object *it, size_t *ret_item, char **ret_error) {
        (void)ret_error;
        json_object *items = journal_items_of(tx);
        size_t idx = json_object_array_length(items);
        json_object_array_add(items, it);
        ht_fault_point("record");
        if (ret_item)
                *ret_item = idx;
        return 0;
}

int ht_tx_write_ahead(ht_tx *tx, char **ret_error) {
        return ht_tx_write_ahead_with(tx, NULL, ret_error);
}

int ht_tx_write_ahead_with(ht_tx *tx, ht_fsync_batch *also, char **ret_error) {
        int r = journal_require_pending(tx, ret_error);
        if (r < 0)
                return r;
        if (!tx->new_name && tx->n_durable == ht_tx_n_items(tx) && (!also || also->n == 0))
                return 0;
        return journal_tx_write(tx, also, ret_error);
}

int ht_tx_record_file(ht_tx *tx, const char *backend, const char *path,
                      const void *new_content, size_t new_len, mode_t new_mode,
                      size_t *ret_item, char **ret_error) {
        int r = journal_require_pending(tx, ret_error);
        if (r < 0)
                return r;
        if (!journal_plain_word(backend))
                return ht_error(ret_error, -EINVAL, "journal %s: invalid backend name", tx->txid);
        if (!path || ht_path_check(path) < 0)
                return ht_error(ret_error, -EINVAL, "journal %s: %s is not a clean absolute path", tx->txid,
                                 path ? path : "(null)");
        if (new_len > HT_FILE_MAX)
                return ht_error(ret_error, -EFBIG, "journal %s: new content of %s is too large", tx->txid, path);
        /* what a rollback would refuse to restore is never recorded: a
         * backend's files table that misses a path fails here, at once */
        if (!(journal_file_check && journal_file_check(tx->c, backend, path)))
                return ht_error(ret_error, -EPERM, "journal %s: %s is not a file the %s backend writes", tx->txid,
                                 path, backend);

        _cleanup_(ht_file_snapshot_freep) ht_file_snapshot *s = NULL;
        r = ht_file_snapshot_take(tx->c, path, &s);
        if (r < 0) {
                _cleanup_free_ char *dp = ht_display_path(tx->c, path);
                _cleanup_free_ char *hint = ht_write_error_hint(tx->c, path, r);
                return ht_error(ret_error, r, "cannot record the current state of %s: %s%s", dp, ht_strerror(-r),
                                hint);
        }

        size_t idx = json_object_array_length(journal_items_of(tx));
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
                _cleanup_free_ char *mode = journal_mode_string(s->mode);
                _cleanup_free_ char *name = xasprintf("%zu", idx);
                json_object_object_add(prior, "mode", json_object_new_string(mode));
                json_object_object_add(prior, "uid", json_object_new_int64(s->uid));
                json_object_object_add(prior, "gid", json_object_new_int64(s->gid));
                json_object_object_add(prior, "size", json_object_new_int64((int64_t)s->len));
                json_object_object_add(prior, "sha256", json_object_new_string(hex));
                json_object_object_add(prior, "backup", json_object_new_string(name));
                /* its own name, unknown to any manifest on disk until the
                 * next tx_write (which fsyncs backup/): no temp, no rename */
                r = journal_write_new_file_at(tx->backup_fd, name, s->content, s->len, &tx->sync);
                if (r >= 0)
                        tx->backups_unsynced = true;
                if (r < 0) {
                        json_object_put(it);
                        return ht_error(ret_error, r, "journal %s: cannot write backup %s/" BACKUP_DIR "/%s: %s",
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
                _cleanup_free_ char *mode = journal_mode_string(new_mode);
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
        json_object *it = json_object_array_get_idx(journal_items_of(tx), idx);
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
                return ht_error(ret_error, -EINVAL, "journal %s: no item %zu", tx->txid, idx);
        if (idx >= tx->n_durable)
                return ht_error(ret_error, -EINVAL, "journal %s: item %zu was not written ahead of its change",
                                 tx->txid, idx);
        return 0;
}

int ht_tx_update_generated(ht_tx *tx, size_t idx, char **ret_error) {
        int r = require_durable(tx, idx, ret_error);
        if (r < 0)
                return r;
        json_object *it = json_object_array_get_idx(journal_items_of(tx), idx);
        const char *path = journal_get_str(it, "path");
        _cleanup_(ht_file_snapshot_freep) ht_file_snapshot *s = NULL;
        r = ht_file_snapshot_take(tx->c, path, &s);
        if (r < 0)
                return ht_error(ret_error, r, "journal %s: cannot read %s: %s", tx->txid, path, ht_strerror(-r));
        json_object *new = json_object_new_object();
        json_object_object_add(new, "existed", json_object_new_boolean(s->existed));
        json_object_object_add(new, "generated", json_object_new_boolean(true));
        if (s->existed) {
                char hex[HT_SHA256_HEX_SIZE];
                ht_sha256_hex(s->content, s->len, hex);
                _cleanup_free_ char *mode = journal_mode_string(s->mode);
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
        int r = journal_require_pending(tx, ret_error);
        if (r < 0)
                return r;
        if (!journal_plain_word(backend))
                return ht_error(ret_error, -EINVAL, "journal %s: invalid backend name", tx->txid);
        if (isempty(key) || has_control_chars(key))
                return ht_error(ret_error, -EINVAL, "journal %s: invalid key", tx->txid);
        if (!path || ht_path_check(path) < 0 || !journal_runtime_path_ok(path))
                return ht_error(ret_error, -EINVAL,
                                 "journal %s: %s: %s is not a clean absolute path below /proc/sys or /sys", tx->txid,
                                 key, path ? path : "(null)");
        _cleanup_free_ char *read_value = NULL;
        if (!prior_value) {
                r = ht_read_line(tx->c, path, &read_value);
                if (r < 0) {
                        _cleanup_free_ char *dp = ht_display_path(tx->c, path);
                        return ht_error(ret_error, r, "cannot record the current value of %s (%s): %s", key, dp,
                                         ht_strerror(-r));
                }
                prior_value = read_value;
        }
        if (!journal_value_ok(prior_value))
                return ht_error(ret_error, -EINVAL,
                                 "journal %s: the current value of %s spans lines; it could not be restored", tx->txid,
                                 key);
        /* kept as the kernel takes it back: "madvise", not the "always
         * [madvise] never" the file shows; "250 32000 32 128" for the
         * tab-separated fields of kernel.sem */
        _cleanup_free_ char *writable = ht_kernel_value_to_restore(prior_value);
        if (!journal_value_ok(new_value))
                return ht_error(ret_error, -EINVAL, "journal %s: invalid new value for %s", tx->txid, key);

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
        json_object_object_add(json_object_array_get_idx(journal_items_of(tx), idx), "done", json_object_new_boolean(true));
        ht_fault_point("done");
        return 0;
}

int ht_tx_set_expected(ht_tx *tx, json_object *expected, char **ret_error) {
        if (!expected || !json_object_is_type(expected, json_type_array))
                return ht_error(ret_error, -EINVAL, "journal %s: expected must be a JSON array", tx->txid);
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
        int r = journal_require_pending(tx, ret_error);
        if (r < 0)
                return r;
        ht_fault_point("pre-commit");
        journal_set_status(tx, "committed");
        journal_set_now(tx, "committed_at");
        /* its fault point "commit" is inside: once the record is durable,
         * before it is renamed over the manifest */
        r = journal_tx_write(tx, also, ret_error);
        if (r < 0) {
                journal_set_status(tx, "pending");
                return r;
        }
        return 0;
}
