#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "apply.h"
#include "context.h"
#include "fault.h"
#include "fileio.h"
#include "journal.h"
#include "sha256.h"
#include "tmptree.h"
#include "util.h"

/* A temp directory holding a fake host (root/) and a state directory
 * (state/) outside it, as with --state-dir. */
typedef struct {
        char *top, *root, *state;
        ht_context *c;
} fixture;

static const char *current_state_dir;
static json_object *loaded_manifests[64];
static size_t n_loaded_manifests;

static void build_host(fixture *f) {
        const char *dirs[] = {"etc", "etc/sysctl.d", "etc/default", "etc/systemd", "etc/systemd/system",
                              "proc", "proc/sys", "proc/sys/vm", "proc/sys/kernel", "proc/sys/kernel/random"};
        assert_int_equal(mkdir(f->root, 0755), 0);
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++)
                tt_mkdir(f->root, dirs[i]);
        tt_put(f->root, "etc/sysctl.d/10-other.conf", "kernel.panic = 10\n", 0644);
        tt_put(f->root, "etc/sysctl.d/99-hosttune.conf", "vm.swappiness = 30\n", 0640);
        tt_put(f->root, "etc/default/grub", "GRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX=\"quiet\"\n", 0644);
        tt_put(f->root, "etc/obsolete.conf", "remove me\n", 0600);
        tt_put(f->root, "proc/sys/vm/swappiness", "60\n", 0644);
        tt_put(f->root, "proc/sys/vm/nr_hugepages", "0\n", 0644);
        tt_put(f->root, "proc/sys/kernel/random/boot_id", "0f3c2b9e-6a1d-4e8f-9b7a-2c4d6e8f0a1b\n", 0444);
}

static void rebuild(fixture *f) {
        ht_context_free(f->c);
        tt_rm_rf(f->root);
        tt_rm_rf(f->state);
        build_host(f);
        assert_int_equal(ht_context_new(f->root, &f->c), 0);
        ht_context_set_state_dir(f->c, f->state);
        current_state_dir = f->state;
}

/* The files these tests' transactions name stand for a backend's; the
 * stand-ins for /etc/passwd and /etc/shadow are no backend's (the real
 * predicate, ht_backend_manages_file, is tested in test-backend.c). */
static bool test_files(const ht_context *c, const char *backend, const char *path) {
        (void)c;
        (void)backend;
        return !streq(path, "/etc/passwd") && !streq(path, "/etc/shadow");
}

static int setup(void **state) {
        ht_journal_confine(test_files);
        setenv("HOSTTUNE_NO_AUDIT", "1", 1);
        unsetenv("HOSTTUNE_FAULT_AFTER");
        fixture *f = xcalloc(1, sizeof(*f));
        f->top = tt_mkdtemp("journal");
        f->root = xasprintf("%s/root", f->top);
        f->state = xasprintf("%s/state", f->top);
        rebuild(f);
        *state = f;
        return 0;
}

static int teardown(void **state) {
        fixture *f = *state;
        while (n_loaded_manifests > 0)
                json_object_put(loaded_manifests[--n_loaded_manifests]);
        ht_context_free(f->c);
        tt_rm_rf(f->top);
        free(f->top);
        free(f->root);
        free(f->state);
        free(f);
        return 0;
}

static const char NEW_SYSCTL[] = "# hosttune\nvm.swappiness = 10\nvm.nr_hugepages = 512\n";
static const char NEW_DROPIN[] = "[Service]\nLimitMEMLOCK=infinity\n";
static const char NEW_GRUB[] = "GRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX=\"quiet transparent_hugepage=never\"\n";
#define DROPIN "/etc/systemd/system/mysqld.service.d/50-hosttune.conf"

static void must(int r, char *err) {
        if (r < 0)
                fail_msg("%s (%s)", err ? err : "no message", strerror(-r));
        free(err);
}

static void write_new(const ht_context *c, const char *path, const char *data) {
        uid_t uid = geteuid() == 0 ? 0 : HT_UID_ANY;
        gid_t gid = geteuid() == 0 ? 0 : HT_GID_ANY;
        assert_int_equal(ht_write_file_atomic(c, path, data, strlen(data), 0644, uid, gid), 0);
}

/* What apply will do: record everything first (write-ahead), then change
 * each item and mark it done; or, interleaved, record-change-done one
 * item at a time. Fault points between the changes as apply has them. */
static ht_tx *run_apply(const ht_context *c, bool interleaved, bool commit) {
        json_object *params = json_object_new_object();
        json_object_object_add(params, "sga_max_size", json_object_new_string("18G"));
        json_object *facts = json_object_new_object();
        json_object_object_add(facts, "memory.total_kb", json_object_new_int64(32 * 1024 * 1024));
        ht_tx *tx = NULL;
        char *err = NULL;
        must(ht_tx_begin(c, "apply", "oracle", params, facts, &tx, &err), err);
        json_object_put(params);
        json_object_put(facts);

        struct {
                bool file;
                const char *backend, *key, *path, *data;
        } items[] = {
                {true, "sysctl", NULL, "/etc/sysctl.d/99-hosttune.conf", NEW_SYSCTL},
                {true, "service", NULL, DROPIN, NEW_DROPIN},
                {true, "bootloader", NULL, "/etc/default/grub", NEW_GRUB},
                {true, "limits", NULL, "/etc/obsolete.conf", NULL},
                {false, "sysctl", "vm.swappiness", "/proc/sys/vm/swappiness", "10"},
                {false, "sysctl", "vm.nr_hugepages", "/proc/sys/vm/nr_hugepages", "512"},
        };
        size_t idx[ELEMENTSOF(items)];
        for (size_t pass = 0; pass < (interleaved ? 1 : 2); pass++)
                for (size_t i = 0; i < ELEMENTSOF(items); i++) {
                        if (pass == 0) {
                                err = NULL;
                                if (items[i].file)
                                        must(ht_tx_record_file(tx, items[i].backend, items[i].path, items[i].data,
                                                               items[i].data ? strlen(items[i].data) : 0, 0644,
                                                               &idx[i], &err), err);
                                else
                                        must(ht_tx_record_runtime(tx, items[i].backend, items[i].key, items[i].path,
                                                                  NULL, items[i].data, &idx[i], &err), err);
                                /* write-ahead: all records at once, or each before its change */
                                if (!interleaved) {
                                        if (i + 1 == ELEMENTSOF(items)) {
                                                err = NULL;
                                                must(ht_tx_write_ahead(tx, &err), err);
                                        }
                                        continue;
                                }
                                err = NULL;
                                must(ht_tx_write_ahead(tx, &err), err);
                        }
                        if (items[i].file && items[i].data)
                                write_new(c, items[i].path, items[i].data);
                        else if (items[i].file)
                                assert_int_equal(ht_remove_file(c, items[i].path), 0);
                        else {
                                char *rb = NULL;
                                assert_int_equal(ht_write_kernel_value(c, items[i].path, items[i].data, &rb), 0);
                                assert_string_equal(rb, items[i].data);
                                free(rb);
                        }
                        ht_fault_point(items[i].file ? "apply-file" : "apply-runtime");
                        err = NULL;
                        must(ht_tx_mark_done(tx, idx[i], &err), err);
                }
        json_object *expected = json_object_new_array();
        json_object_array_add(expected, json_object_new_string("vm.swappiness=10"));
        err = NULL;
        must(ht_tx_set_expected(tx, expected, &err), err);
        json_object_put(expected);
        ht_tx_set_reboot_required(tx, true);
        if (commit) {
                err = NULL;
                must(ht_tx_commit(tx, &err), err);
        }
        return tx;
}

/* manifest_of's: the manifest as written to disk (the documented
 * format), kept until the test's teardown. */
static json_object *manifest_of(const ht_tx *tx) {
        char *path = xasprintf("%s/journal/%s/manifest.json", current_state_dir, ht_tx_txid(tx));
        json_object *m = json_object_from_file(path);
        free(path);
        assert_non_null(m);
        assert_true(n_loaded_manifests < ELEMENTSOF(loaded_manifests));
        loaded_manifests[n_loaded_manifests++] = m;
        return m;
}

static json_object *item_at(ht_tx *tx, size_t i) {
        json_object *items;
        assert_true(json_object_object_get_ex(manifest_of(tx), "items", &items));
        return json_object_array_get_idx(items, i);
}

static const char *str_at(json_object *o, const char *k1, const char *k2) {
        json_object *v;
        assert_true(json_object_object_get_ex(o, k1, &v));
        if (k2)
                assert_true(json_object_object_get_ex(v, k2, &v));
        return json_object_get_string(v);
}

/* The accessors give what the manifest on disk says, item by item. */
static void test_item_accessors(void **state) {
        fixture *f = *state;
        ht_tx *tx = run_apply(f->c, false, false);
        json_object *sets = json_object_new_array();
        json_object_array_add(sets, json_object_new_string("sga_max_size=18G"));
        json_object_array_add(sets, json_object_new_string("oracle_user=o r"));
        ht_tx_set_info(tx, "set", sets);
        json_object_put(sets);
        json_object *file = json_object_new_string("/usr/share/hosttune/profiles/oracle.conf");
        ht_tx_set_info(tx, "profile_file", file);
        json_object_put(file);
        json_object *follow_ups = json_tokener_parse(
                "[{\"backend\": \"service\", \"action\": \"daemon-reload\", \"description\": \"reload systemd\"},"
                " {\"backend\": \"systemd\", \"action\": \"reload-logind\", \"description\": \"SIGHUP logind\","
                "  \"argv\": [\"systemctl\", \"kill\", \"--signal=SIGHUP\", \"systemd-logind.service\"]}]");
        ht_tx_set_info(tx, "follow_ups", follow_ups);
        json_object_put(follow_ups);
        char *err = NULL;
        must(ht_tx_commit(tx, &err), err);
        char *txid = xstrdup(ht_tx_txid(tx));
        ht_tx_free(tx);
        assert_int_equal(ht_journal_load(f->c, txid, &tx, &err), 0);

        json_object *m = manifest_of(tx);
        assert_int_equal(ht_tx_n_items(tx), 6);
        for (size_t i = 0; i < ht_tx_n_items(tx); i++) {
                ht_tx_item it;
                ht_tx_get_item(tx, i, &it);
                json_object *o = item_at(tx, i);
                bool file_item = streq(str_at(o, "kind", NULL), "file");
                assert_int_equal(it.kind, file_item ? HT_TX_ITEM_FILE : HT_TX_ITEM_RUNTIME);
                assert_string_equal(it.backend, str_at(o, "backend", NULL));
                assert_string_equal(it.path, str_at(o, "path", NULL));
                assert_true(it.done);
                assert_false(it.generated);
                if (file_item) {
                        assert_string_equal(it.key, it.path);
                        assert_int_equal(it.prior_existed, streq(str_at(o, "prior", "existed"), "true"));
                        assert_int_equal(it.new_existed, streq(str_at(o, "new", "existed"), "true"));
                        if (it.new_existed)
                                assert_string_equal(it.new_sha256, str_at(o, "new", "sha256"));
                        else
                                assert_null(it.new_sha256);
                        assert_null(it.prior_value);
                } else {
                        assert_string_equal(it.key, str_at(o, "key", NULL));
                        assert_string_equal(it.prior_value, str_at(o, "prior", "value"));
                        assert_string_equal(it.new_value, str_at(o, "new", "value"));
                        assert_null(it.new_sha256);
                }
        }
        /* the expectations as the fixture wrote them */
        ht_tx_item it;
        ht_tx_get_item(tx, 0, &it);
        char hex[HT_SHA256_HEX_SIZE];
        ht_sha256_hex(NEW_SYSCTL, strlen(NEW_SYSCTL), hex);
        assert_string_equal(it.new_sha256, hex);
        ht_tx_get_item(tx, 3, &it);
        assert_true(it.prior_existed);
        assert_false(it.new_existed);
        ht_tx_get_item(tx, 5, &it);
        assert_string_equal(it.key, "vm.nr_hugepages");
        assert_string_equal(it.prior_value, "0");
        assert_string_equal(it.new_value, "512");

        assert_string_equal(ht_tx_boot_id(tx), "0f3c2b9e-6a1d-4e8f-9b7a-2c4d6e8f0a1b");
        assert_string_equal(ht_tx_committed_at(tx), str_at(m, "committed_at", NULL));
        assert_string_equal(ht_tx_created(tx), str_at(m, "created", NULL));
        assert_true(ht_tx_reboot_required(tx));
        assert_true(ht_tx_has_param(tx, "sga_max_size"));
        assert_false(ht_tx_has_param(tx, "oracle_user"));
        assert_string_equal(ht_tx_profile_file(tx), "/usr/share/hosttune/profiles/oracle.conf");
        char **set = ht_tx_set_args(tx);
        assert_int_equal(strv_length(set), 2);
        assert_string_equal(set[0], "sga_max_size=18G");
        assert_string_equal(set[1], "oracle_user=o r");
        strv_free(set);
        assert_int_equal(ht_tx_n_follow_ups(tx), 2);
        ht_tx_follow_up fu;
        ht_tx_get_follow_up(tx, 0, &fu);
        assert_string_equal(fu.backend, "service");
        assert_string_equal(fu.action, "daemon-reload");
        assert_string_equal(fu.description, "reload systemd");
        ht_tx_get_follow_up(tx, 1, &fu);
        assert_string_equal(fu.action, "reload-logind");
        /* run_apply's expected state is not a settings array */
        ht_resolved *want = NULL;
        assert_int_equal(ht_tx_expected(tx, &want), -EBADMSG);
        assert_null(want);
        ht_tx_free(tx);
        free(txid);
}

/* A manifest whose request fields have the wrong type is corrupt, not
 * read as something else. */
static void test_manifest_request_fields_checked(void **state) {
        (void)state;
        static const char *const bad[] = {
                "\"info\": {\"set\": \"a=1\"}",
                "\"info\": {\"set\": [\"a=1\", 2]}",
                "\"info\": {\"profile_file\": 7}",
                "\"boot_id\": 5",
                "\"committed_at\": true",
                "\"info\": {\"follow_ups\": {}}",
                "\"info\": {\"follow_ups\": [{\"backend\": \"systemd\", \"action\": \"x\"}]}",
                "\"info\": {\"follow_ups\": [{\"backend\": \"systemd\", \"action\": \"x\", "
                "\"description\": \"d\", \"argv\": []}]}",
                "\"info\": {\"follow_ups\": [{\"backend\": \"systemd\", \"action\": \"x\", "
                "\"description\": \"d\", \"argv\": [\"systemctl\", 1]}]}",
        };
        static const char *const what[] = {"info.set: not an array", "info.set[1]: not a string",
                                           "info.profile_file: not a string", "boot_id: not a string",
                                           "committed_at: not a string", "info.follow_ups: not an array",
                                           "info.follow_ups[0]: not an object with backend, action and description",
                                           "info.follow_ups[0].argv: not a non-empty array",
                                           "info.follow_ups[0].argv[1]: not a string"};
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                char *json = xasprintf("{\"format\": \"hosttune-journal\", \"version\": 1, "
                                       "\"txid\": \"20261201T120000Z-0123abcd\", \"status\": \"committed\", "
                                       "\"command\": \"apply\", \"created\": \"2026-12-01T12:00:00Z\", "
                                       "\"created_usec\": 1, \"items\": [], %s}", bad[i]);
                char *err = NULL;
                assert_int_equal(ht_journal_manifest_check(json, strlen(json), NULL, &err), -EBADMSG);
                assert_non_null(strstr(err, what[i]));
                free(err);
                free(json);
        }
        const char *good = "{\"format\": \"hosttune-journal\", \"version\": 1, "
                           "\"txid\": \"20261201T120000Z-0123abcd\", \"status\": \"committed\", "
                           "\"command\": \"apply\", \"created\": \"2026-12-01T12:00:00Z\", "
                           "\"created_usec\": 1, \"items\": [], \"boot_id\": null, "
                           "\"info\": {\"set\": [\"a=1\"], \"profile_file\": \"/p\"}}";
        char *err = NULL;
        assert_int_equal(ht_journal_manifest_check(good, strlen(good), NULL, &err), 0);
}

static void test_begin_record_commit_list_load(void **state) {
        fixture *f = *state;
        ht_tx *tx = run_apply(f->c, false, true);
        char *txid = xstrdup(ht_tx_txid(tx));
        assert_int_equal(strlen(txid), 25);
        assert_string_equal(ht_tx_status(tx), "committed");
        assert_int_equal(ht_tx_n_items(tx), 6);
        ht_tx_free(tx);

        /* the state directory and its journal are private */
        struct stat st;
        assert_int_equal(stat(f->state, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0700);
        char *jd = xasprintf("%s/journal/%s", f->state, txid);
        assert_int_equal(stat(jd, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0700);
        /* backups: the prior content, 0600 */
        char *b0 = xasprintf("%s/backup/0", jd);
        assert_int_equal(stat(b0, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0600);
        char *s = tt_get(jd, "backup/0");
        assert_string_equal(s, "vm.swappiness = 30\n");
        free(s);
        assert_false(tt_exists(jd, "backup/1")); /* the drop-in did not exist */

        char *err = NULL;
        assert_int_equal(ht_journal_load(f->c, txid, &tx, &err), 0);
        json_object *m = manifest_of(tx);
        assert_string_equal(str_at(m, "command", NULL), "apply");
        assert_string_equal(str_at(m, "profile", NULL), "oracle");
        assert_string_equal(str_at(m, "params", "sga_max_size"), "18G");
        assert_string_equal(str_at(m, "boot_id", NULL), "0f3c2b9e-6a1d-4e8f-9b7a-2c4d6e8f0a1b");
        assert_string_equal(str_at(m, "reboot_required", NULL), "true");
        json_object *it = item_at(tx, 0);
        assert_string_equal(str_at(it, "kind", NULL), "file");
        assert_string_equal(str_at(it, "prior", "mode"), "0640");
        assert_string_equal(str_at(it, "done", NULL), "true");
        it = item_at(tx, 1);
        assert_string_equal(str_at(it, "prior", "existed"), "false");
        json_object *md;
        assert_true(json_object_object_get_ex(json_object_object_get(it, "prior"), "missing_dirs", &md));
        assert_int_equal(json_object_array_length(md), 1);
        assert_string_equal(json_object_get_string(json_object_array_get_idx(md, 0)),
                            "/etc/systemd/system/mysqld.service.d");
        it = item_at(tx, 3);
        assert_string_equal(str_at(it, "new", "existed"), "false");
        it = item_at(tx, 4);
        assert_string_equal(str_at(it, "kind", NULL), "runtime");
        assert_string_equal(str_at(it, "key", NULL), "vm.swappiness");
        assert_string_equal(str_at(it, "prior", "value"), "60");
        assert_string_equal(str_at(it, "new", "value"), "10");
        assert_string_equal(json_object_get_string(json_object_array_get_idx(json_object_object_get(m, "expected"), 0)),
                            "vm.swappiness=10");
        ht_tx_free(tx);

        json_object *list;
        assert_int_equal(ht_journal_list(f->c, &list, &err), 0);
        assert_int_equal(json_object_array_length(list), 1);
        json_object *e = json_object_array_get_idx(list, 0);
        assert_string_equal(str_at(e, "txid", NULL), txid);
        assert_string_equal(str_at(e, "status", NULL), "committed");
        assert_int_equal(json_object_get_int(json_object_object_get(e, "changes")), 6);
        assert_int_equal(json_object_get_int(json_object_object_get(e, "done")), 6);
        json_object_put(list);

        assert_int_equal(ht_journal_last_committed(f->c, "apply", &tx, &err), 0);
        assert_string_equal(ht_tx_txid(tx), txid);
        ht_tx_free(tx);
        assert_int_equal(ht_journal_last_committed(f->c, "rollback", &tx, &err), -ENOENT);
        free(err);
        free(jd);
        free(b0);
        free(txid);
}

static void test_sha_recorded(void **state) {
        fixture *f = *state;
        ht_tx *tx = run_apply(f->c, true, true);
        char hex[HT_SHA256_HEX_SIZE];
        ht_sha256_hex("vm.swappiness = 30\n", 19, hex);
        assert_string_equal(str_at(item_at(tx, 0), "prior", "sha256"), hex);
        ht_sha256_hex(NEW_SYSCTL, strlen(NEW_SYSCTL), hex);
        assert_string_equal(str_at(item_at(tx, 0), "new", "sha256"), hex);
        ht_tx_free(tx);
}

static void test_rollback_restores_tree(void **state) {
        fixture *f = *state;
        char *before = tt_tree(f->root);
        ht_tx_free(run_apply(f->c, false, true));
        char *applied = tt_tree(f->root);
        assert_string_not_equal(before, applied);

        ht_tx *tx;
        char *err = NULL;
        assert_int_equal(ht_journal_last_committed(f->c, "apply", &tx, &err), 0);
        char **msgs = NULL;
        must(ht_tx_rollback(tx, NULL, 0, &msgs, &err), err);
        assert_true(strv_length(msgs) >= 6);
        char *after = tt_tree(f->root);
        assert_string_equal(before, after);
        assert_string_equal(ht_tx_status(tx), "rolled-back");
        /* once is enough */
        err = NULL;
        assert_int_equal(ht_tx_rollback(tx, NULL, 0, NULL, &err), -EINVAL);
        assert_non_null(strstr(err, "rolled-back"));
        free(err);
        ht_tx_free(tx);
        err = NULL;
        assert_int_equal(ht_journal_last_committed(f->c, "apply", &tx, &err), -ENOENT);
        free(err);
        strv_free(msgs);
        free(before);
        free(applied);
        free(after);
}

static void test_rollback_is_recorded_and_can_be_undone(void **state) {
        fixture *f = *state;
        char *before = tt_tree(f->root);
        ht_tx *apply = run_apply(f->c, false, true);
        char *applied = tt_tree(f->root);

        ht_tx *rb = NULL;
        char *err = NULL;
        must(ht_tx_begin(f->c, "rollback", "oracle", NULL, NULL, &rb, &err), err);
        err = NULL;
        must(ht_tx_rollback(apply, rb, 0, NULL, &err), err);
        err = NULL;
        must(ht_tx_commit(rb, &err), err);
        char *after = tt_tree(f->root);
        assert_string_equal(before, after);
        assert_string_equal(str_at(manifest_of(apply), "rolled_back_by", NULL), ht_tx_txid(rb));
        assert_int_equal(ht_tx_n_items(rb), 6);

        /* undoing the rollback brings the apply back */
        ht_tx *last = NULL;
        err = NULL;
        assert_int_equal(ht_journal_last_committed(f->c, NULL, &last, &err), 0);
        assert_string_equal(ht_tx_txid(last), ht_tx_txid(rb));
        err = NULL;
        must(ht_tx_rollback(last, NULL, 0, NULL, &err), err);
        char *redone = tt_tree(f->root);
        assert_string_equal(applied, redone);
        ht_tx *again = NULL;
        err = NULL;
        assert_int_equal(ht_journal_load(f->c, ht_tx_txid(apply), &again, &err), 0);
        assert_string_equal(ht_tx_status(again), "committed");
        ht_tx_free(again);
        ht_tx_free(last);
        ht_tx_free(rb);
        ht_tx_free(apply);
        free(before);
        free(applied);
        free(after);
        free(redone);
}

static void test_rollback_refuses_changed_file(void **state) {
        fixture *f = *state;
        char *before = tt_tree(f->root);
        ht_tx *tx = run_apply(f->c, false, true);
        /* an administrator edits the file afterwards */
        tt_put(f->root, "etc/default/grub", "GRUB_TIMEOUT=1\n", 0644);
        char *edited = tt_tree(f->root);
        char *err = NULL;
        assert_int_equal(ht_tx_rollback(tx, NULL, 0, NULL, &err), -ESTALE);
        assert_non_null(strstr(err, "/etc/default/grub was changed since"));
        assert_non_null(strstr(err, "nothing was restored"));
        free(err);
        char *now = tt_tree(f->root);
        assert_string_equal(edited, now);
        assert_string_equal(ht_tx_status(tx), "committed");
        err = NULL;
        must(ht_tx_rollback(tx, NULL, HT_ROLLBACK_FORCE, NULL, &err), err);
        free(now);
        now = tt_tree(f->root);
        assert_string_equal(before, now);
        ht_tx_free(tx);
        free(before);
        free(edited);
        free(now);
}

static void test_abort(void **state) {
        fixture *f = *state;
        char *before = tt_tree(f->root);
        ht_tx *tx = run_apply(f->c, true, false);
        char **msgs = NULL;
        char *err = NULL;
        must(ht_tx_abort(tx, "grub2-mkconfig failed", &msgs, &err), err);
        char *after = tt_tree(f->root);
        assert_string_equal(before, after);
        assert_string_equal(ht_tx_status(tx), "failed");
        assert_string_equal(str_at(manifest_of(tx), "error", NULL), "grub2-mkconfig failed");
        ht_tx_free(tx);
        strv_free(msgs);
        free(before);
        free(after);
}

/* A bootloader tool that fails after writing part of grub.cfg: the
 * generated item has no new checksum yet; abort must restore the file
 * (this crashed on a NULL checksum once). */
static void test_abort_generated_tool_failed(void **state) {
        fixture *f = *state;
        tt_mkdir(f->root, "boot");
        tt_mkdir(f->root, "boot/grub");
        tt_put(f->root, "boot/grub/grub.cfg", "menuentry old {}\n", 0600);
        char *before = tt_tree(f->root);
        ht_tx *tx = NULL;
        char *err = NULL;
        size_t item;
        must(ht_tx_begin(f->c, "apply", "oracle", NULL, NULL, &tx, &err), err);
        must(ht_tx_record_generated(tx, "cmdline", "/boot/grub/grub.cfg", &item, &err), err);
        tt_put(f->root, "boot/grub/grub.cfg", "# half writ", 0600);
        char **msgs = NULL;
        must(ht_tx_abort(tx, "grub-mkconfig failed", &msgs, &err), err);
        char *after = tt_tree(f->root);
        assert_string_equal(before, after);
        assert_string_equal(ht_tx_status(tx), "failed");
        ht_tx_free(tx);
        strv_free(msgs);
        free(before);
        free(after);
}

static void assert_no_pending(fixture *f) {
        json_object *list;
        char *err = NULL;
        must(ht_journal_list(f->c, &list, &err), NULL);
        for (size_t i = 0; i < json_object_array_length(list); i++) {
                const char *st = str_at(json_object_array_get_idx(list, i), "status", NULL);
                assert_string_not_equal(st, "pending");
                assert_string_not_equal(st, "corrupt");
        }
        json_object_put(list);
}

/* Kill apply after fault point 1, 2, 3, ... in turn; each time the next
 * run's recovery must bring the whole host tree back byte for byte. */
/* The single transaction in the journal, or NULL when there is none. */
static ht_tx *only_tx(fixture *f) {
        json_object *list;
        must(ht_journal_list(f->c, &list, NULL), NULL);
        ht_tx *tx = NULL;
        assert_true(json_object_array_length(list) <= 1);
        if (json_object_array_length(list) == 1)
                must(ht_journal_load(f->c, str_at(json_object_array_get_idx(list, 0), "txid", NULL), &tx, NULL),
                     NULL);
        json_object_put(list);
        return tx;
}

static void crash_every_step(fixture *f, bool interleaved) {
        rebuild(f);
        ht_tx_free(run_apply(f->c, interleaved, true));
        char *applied = tt_tree(f->root);
        int steps = 0;
        for (int n = 1;; n++) {
                rebuild(f);
                char *before = tt_tree(f->root);
                pid_t pid = fork();
                assert_true(pid >= 0);
                if (pid == 0) {
                        char buf[16];
                        snprintf(buf, sizeof(buf), "%d", n);
                        setenv("HOSTTUNE_FAULT_AFTER", buf, 1);
                        ht_fault_reset();
                        ht_tx_free(run_apply(f->c, interleaved, true));
                        _exit(0);
                }
                int st;
                assert_int_equal(waitpid(pid, &st, 0), pid);
                if (WIFEXITED(st)) {
                        assert_int_equal(WEXITSTATUS(st), 0);
                        free(before);
                        break;
                }
                assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
                steps++;
                char **msgs = NULL;
                char *err = NULL;
                int r = ht_journal_recover(f->c, &msgs, &err);
                if (r < 0)
                        fail_msg("step %d: recover: %s", n, err);
                assert_true(r == 0 || r == 1);
                char *after = tt_tree(f->root);
                /* killed after the commit reached the disk: it stands */
                ht_tx *tx = only_tx(f);
                if (tx && streq(ht_tx_status(tx), "committed"))
                        assert_string_equal(applied, after);
                else if (!streq(before, after))
                        fail_msg("step %d: tree differs after recovery:\n--- before\n%s--- after\n%s", n, before,
                                 after);
                if (tx)
                        assert_true(streq(ht_tx_status(tx), "committed") || streq(ht_tx_status(tx), "recovered"));
                ht_tx_free(tx);
                assert_no_pending(f);
                /* recovery is idempotent */
                assert_int_equal(ht_journal_recover(f->c, NULL, NULL), 0);
                char *again = tt_tree(f->root);
                assert_string_equal(again, after);
                free(again);
                strv_free(msgs);
                free(before);
                free(after);
        }
        /* every record, change, done and atomic temp was a crash point */
        assert_true(steps > 25);
        free(applied);
}

static void test_crash_recovery_write_ahead(void **state) {
        crash_every_step(*state, false);
}

static void test_crash_recovery_interleaved(void **state) {
        crash_every_step(*state, true);
}

/* atomic-temp:3: the last file's temp, flushed, not yet renamed (the
 * commit record is written in place: what a power cut leaves of it is
 * test_power_cut_records's) */
static void test_crash_named_steps(void **state) {
        fixture *f = *state;
        const char *steps[] = {"tx-begin", "record-backup:2", "record:3", "apply-file:2", "done:4",
                               "apply-runtime", "pre-commit", "atomic-temp:3"};
        for (size_t i = 0; i < ELEMENTSOF(steps); i++) {
                rebuild(f);
                char *before = tt_tree(f->root);
                pid_t pid = fork();
                if (pid == 0) {
                        setenv("HOSTTUNE_FAULT_AFTER", steps[i], 1);
                        ht_fault_reset();
                        ht_tx_free(run_apply(f->c, false, true));
                        _exit(0);
                }
                int st;
                assert_int_equal(waitpid(pid, &st, 0), pid);
                assert_true(WIFSIGNALED(st));
                /* a crash after tx-begin (the write-ahead: every record on
                 * disk) leaves exactly one pending; one while the records
                 * are made, none (nothing was changed for it) */
                bool ahead = !startswith(steps[i], "record");
                char **pend = NULL;
                assert_int_equal(ht_journal_pending(f->c, &pend, NULL), ahead);
                assert_int_equal(strv_length(pend), ahead);
                strv_free(pend);
                char *err = NULL;
                int r = ht_journal_recover(f->c, NULL, &err);
                pend = NULL;
                assert_int_equal(ht_journal_pending(f->c, &pend, NULL), 0);
                if (r < 0)
                        fail_msg("%s: %s", steps[i], err);
                char *after = tt_tree(f->root);
                assert_string_equal(before, after);
                free(before);
                free(after);
        }
}

/* What a power cut (not a kill: the page cache goes too) can leave of the
 * records written in place (docs/DESIGN.md, "Durability"), made by hand:
 * a whole begin record in .new-TXID whose rename was lost, though files
 * changed; a whole commit record whose rename over the manifest was lost,
 * with every file new (it stands) or with one rename lost (it does not);
 * a commit record the cut left half-written (no commit). */
static void test_power_cut_records(void **state) {
        fixture *f = *state;
        const char *cases[] = {"begin-not-renamed", "commit-whole", "commit-rename-lost", "commit-torn"};
        for (size_t k = 0; k < ELEMENTSOF(cases); k++) {
                const char *kind = cases[k];
                rebuild(f);
                char *before = tt_tree(f->root);
                ht_tx *tx = run_apply(f->c, false, false);
                char *txid = xstrdup(ht_tx_txid(tx));
                char *jd = xasprintf("%s/journal", f->state);
                char *dir = xasprintf("%s/%s", jd, txid);
                char *begin = tt_get(dir, "manifest.json");
                assert_non_null(begin);
                if (streq(kind, "begin-not-renamed")) {
                        ht_tx_free(tx);
                        char *nd = xasprintf("%s/.new-%s", jd, txid);
                        assert_int_equal(rename(dir, nd), 0);
                        char *marker = xasprintf("%s/PENDING", nd);
                        assert_int_equal(unlink(marker), 0);
                        free(marker);
                        free(nd);
                } else {
                        char *err = NULL;
                        must(ht_tx_commit(tx, &err), err);
                        ht_tx_free(tx);
                        char *committed = tt_get(dir, "manifest.json");
                        if (streq(kind, "commit-torn"))
                                committed[strlen(committed) / 2] = 0;
                        tt_put(dir, "commit.json", committed, 0600);
                        tt_put(dir, "manifest.json", begin, 0600);
                        tt_put(dir, "PENDING", "", 0600);
                        free(committed);
                }
                char *applied = tt_tree(f->root);
                /* every run asks this before it recovers: each case is one */
                char **pend = NULL;
                assert_int_equal(ht_journal_pending(f->c, &pend, NULL), 1);
                assert_string_equal(pend[0], txid);
                strv_free(pend);
                if (streq(kind, "commit-rename-lost"))
                        tt_put(f->root, "etc/default/grub", "GRUB_TIMEOUT=5\nGRUB_CMDLINE_LINUX=\"quiet\"\n", 0644);
                char *err = NULL;
                char **msgs = NULL;
                int r = ht_journal_recover(f->c, &msgs, &err);
                if (r < 0)
                        fail_msg("%s: %s", kind, err);
                strv_free(msgs);
                bool stands = streq(kind, "commit-whole");
                assert_int_equal(r, stands ? 0 : 1);
                char *after = tt_tree(f->root);
                assert_string_equal(after, stands ? applied : before);
                ht_tx *back = NULL;
                must(ht_journal_load(f->c, txid, &back, &err), err);
                assert_string_equal(ht_tx_status(back), stands ? "committed" : "recovered");
                ht_tx_free(back);
                assert_false(tt_exists(dir, "commit.json"));
                assert_false(tt_exists(dir, "PENDING"));
                free(after);
                free(applied);
                free(begin);
                free(dir);
                free(jd);
                free(txid);
                free(before);
        }
}

/* A fresh fixture, applied (committed): the tree before and after, and
 * the apply's TXID (the caller frees all three). */
static void rebuild_and_apply(fixture *f, char **before, char **applied, char **txid) {
        rebuild(f);
        *before = tt_tree(f->root);
        ht_tx *apply = run_apply(f->c, false, true);
        *applied = tt_tree(f->root);
        *txid = xstrdup(ht_tx_txid(apply));
        ht_tx_free(apply);
}

/* What a power cut inside (or just after) a rollback's last flush can
 * leave of the two records it writes in place (docs/DESIGN.md,
 * "Durability"): the undone apply's status in its TXID/commit.json and
 * the rollback's commit record, each whole or cut, renamed or not, and a
 * restored file's rename lost. The rollback stands only when both records
 * are whole and every file is back; otherwise it is undone and the apply
 * is committed again. Either way the journal agrees with the tree, and
 * no record is left beside a manifest. */
static void test_power_cut_rollback_records(void **state) {
        fixture *f = *state;
        const char *cases[] = {"both-whole", "status-torn", "rollback-torn", "status-rename-lost",
                               "file-rename-lost"};
        for (size_t k = 0; k < ELEMENTSOF(cases); k++) {
                const char *kind = cases[k];
                char *before, *applied, *txid;
                rebuild_and_apply(f, &before, &applied, &txid);
                char *jd = xasprintf("%s/journal", f->state);
                char *tdir = xasprintf("%s/%s", jd, txid);
                char *t_committed = tt_get(tdir, "manifest.json");
                ht_tx *rb = NULL, *target = NULL;
                char *err = NULL;
                must(ht_tx_begin(f->c, "rollback", NULL, NULL, NULL, &rb, &err), err);
                must(ht_journal_last_committed(f->c, "apply", &target, &err), err);
                must(ht_tx_rollback(target, rb, 0, NULL, &err), err);
                char *rtxid = xstrdup(ht_tx_txid(rb));
                char *rdir = xasprintf("%s/%s", jd, rtxid);
                /* the undone status waits for the commit: nothing else */
                char *t_now = tt_get(tdir, "manifest.json");
                assert_string_equal(t_now, t_committed);
                free(t_now);
                char *r_begin = tt_get(rdir, "manifest.json");
                must(ht_tx_commit(rb, &err), err);
                ht_tx_free(rb);
                ht_tx_free(target);
                char *rolled = tt_tree(f->root);
                assert_string_equal(rolled, before);
                free(rolled);
                char *t_final = tt_get(tdir, "manifest.json");
                char *r_final = tt_get(rdir, "manifest.json");
                assert_non_null(strstr(t_final, "\"rolled-back\""));
                if (streq(kind, "status-torn"))
                        t_final[strlen(t_final) / 2] = 0;
                if (streq(kind, "rollback-torn"))
                        r_final[strlen(r_final) / 2] = 0;
                tt_put(tdir, "commit.json", t_final, 0600);
                tt_put(tdir, "manifest.json", t_committed, 0600);
                tt_put(tdir, "PENDING", "", 0600);
                if (!streq(kind, "status-rename-lost")) {
                        tt_put(rdir, "commit.json", r_final, 0600);
                        tt_put(rdir, "manifest.json", r_begin, 0600);
                        tt_put(rdir, "PENDING", "", 0600);
                }
                if (streq(kind, "file-rename-lost"))
                        tt_put(f->root, "etc/default/grub", NEW_GRUB, 0644);
                char **pend = NULL;
                int want_pending = streq(kind, "status-torn") || streq(kind, "status-rename-lost") ? 1 : 2;
                assert_int_equal(ht_journal_pending(f->c, &pend, NULL), want_pending);
                strv_free(pend);
                char **msgs = NULL;
                int r = ht_journal_recover(f->c, &msgs, &err);
                if (r < 0)
                        fail_msg("%s: %s", kind, err);
                strv_free(msgs);
                bool stands = streq(kind, "both-whole") || streq(kind, "status-rename-lost");
                assert_int_equal(r, stands ? 0 : 1);
                char *after = tt_tree(f->root);
                if (!streq(after, stands ? before : applied))
                        fail_msg("%s: the tree is not as %s:\n%s", kind, stands ? "before" : "applied", after);
                ht_tx *t = NULL, *rr = NULL;
                must(ht_journal_load(f->c, txid, &t, &err), err);
                must(ht_journal_load(f->c, rtxid, &rr, &err), err);
                assert_string_equal(ht_tx_status(t), stands ? "rolled-back" : "committed");
                assert_string_equal(ht_tx_status(rr), stands ? "committed" : "recovered");
                ht_tx_free(t);
                ht_tx_free(rr);
                assert_false(tt_exists(tdir, "commit.json"));
                assert_false(tt_exists(rdir, "commit.json"));
                assert_false(tt_exists(rdir, "PENDING"));
                assert_false(tt_exists(tdir, "PENDING"));
                pend = NULL;
                assert_int_equal(ht_journal_pending(f->c, &pend, NULL), 0);
                assert_no_pending(f);
                free(after);
                free(t_final);
                free(r_final);
                free(r_begin);
                free(t_committed);
                free(rdir);
                free(rtxid);
                free(tdir);
                free(jd);
                free(txid);
                free(applied);
                free(before);
        }
}

/* Kill a recorded rollback at every step: afterwards the host is either
 * as applied (rollback undone, apply committed again) or as before
 * (rollback finished, apply rolled back), and the journal agrees. */
static void test_crash_during_rollback(void **state) {
        fixture *f = *state;
        int killed = 0;
        for (int n = 1;; n++) {
                char *before, *applied, *txid;
                rebuild_and_apply(f, &before, &applied, &txid);
                pid_t pid = fork();
                if (pid == 0) {
                        char buf[16];
                        snprintf(buf, sizeof(buf), "%d", n);
                        setenv("HOSTTUNE_FAULT_AFTER", buf, 1);
                        ht_fault_reset();
                        ht_tx *rb = NULL, *target = NULL;
                        char *err = NULL;
                        if (ht_tx_begin(f->c, "rollback", NULL, NULL, NULL, &rb, &err) < 0 ||
                            ht_journal_last_committed(f->c, "apply", &target, &err) < 0 ||
                            ht_tx_rollback(target, rb, 0, NULL, &err) < 0 || ht_tx_commit(rb, &err) < 0)
                                _exit(3);
                        _exit(0);
                }
                int st;
                assert_int_equal(waitpid(pid, &st, 0), pid);
                bool finished = WIFEXITED(st);
                if (finished)
                        assert_int_equal(WEXITSTATUS(st), 0);
                else
                        killed++;
                char *err = NULL;
                int r = ht_journal_recover(f->c, NULL, &err);
                if (r < 0)
                        fail_msg("step %d: %s", n, err);
                char *after = tt_tree(f->root);
                ht_tx *tx = NULL;
                must(ht_journal_load(f->c, txid, &tx, &err), err);
                if (streq(after, applied))
                        assert_string_equal(ht_tx_status(tx), "committed");
                else if (streq(after, before))
                        assert_string_equal(ht_tx_status(tx), "rolled-back");
                else
                        fail_msg("step %d: the tree is neither as applied nor as before:\n%s", n, after);
                assert_no_pending(f);
                ht_tx_free(tx);
                free(txid);
                free(before);
                free(applied);
                free(after);
                if (finished)
                        break;
        }
        assert_true(killed > 15);
}

static char *manifest_path(fixture *f, const char *txid) {
        return xasprintf("%s/journal/%s/manifest.json", f->state, txid);
}

static void test_corrupt_manifest(void **state) {
        fixture *f = *state;
        const char *variants[] = {"truncate", "garbage", "empty", "wrong-type", "missing", "trailing", "version",
                                  "bad-path", "nul"};
        for (size_t v = 0; v < ELEMENTSOF(variants); v++) {
                rebuild(f);
                /* a crashed, pending apply whose manifest then got damaged */
                ht_tx *tx = run_apply(f->c, false, false);
                char *txid = xstrdup(ht_tx_txid(tx));
                ht_tx_free(tx);
                char *mp = manifest_path(f, txid);
                char *dir = xasprintf("%s/journal/%s", f->state, txid);
                char *good = tt_get(dir, "manifest.json");
                assert_non_null(good);
                char *bad;
                const char *kind = variants[v];
                if (streq(kind, "truncate"))
                        bad = xstrndup(good, strlen(good) / 2);
                else if (streq(kind, "garbage"))
                        bad = xstrdup("\x01\x02 this is not json {{{");
                else if (streq(kind, "empty"))
                        bad = xstrdup("");
                else if (streq(kind, "wrong-type")) {
                        json_object *m = json_tokener_parse(good);
                        json_object *it = json_object_array_get_idx(json_object_object_get(m, "items"), 0);
                        json_object_object_add(json_object_object_get(it, "prior"), "sha256", json_object_new_int(5));
                        bad = xstrdup(json_object_to_json_string(m));
                        json_object_put(m);
                } else if (streq(kind, "missing")) {
                        json_object *m = json_tokener_parse(good);
                        json_object_object_del(m, "status");
                        bad = xstrdup(json_object_to_json_string(m));
                        json_object_put(m);
                } else if (streq(kind, "trailing"))
                        bad = xasprintf("%s}garbage", good);
                else if (streq(kind, "version")) {
                        json_object *m = json_tokener_parse(good);
                        json_object_object_add(m, "version", json_object_new_int(99));
                        bad = xstrdup(json_object_to_json_string(m));
                        json_object_put(m);
                } else if (streq(kind, "bad-path")) {
                        json_object *m = json_tokener_parse(good);
                        json_object *it = json_object_array_get_idx(json_object_object_get(m, "items"), 0);
                        json_object_object_add(it, "path", json_object_new_string("/etc/../../outside"));
                        bad = xstrdup(json_object_to_json_string(m));
                        json_object_put(m);
                } else {
                        bad = xstrdup("{\"format\":\"hosttune-journal\"}\n");
                }
                int fd = open(mp, O_WRONLY | O_TRUNC);
                assert_true(fd >= 0);
                size_t len = strlen(bad);
                if (streq(kind, "nul"))
                        len++;  /* write the terminating NUL too */
                assert_int_equal(write(fd, bad, len), (ssize_t)len);
                close(fd);

                char *host = tt_tree(f->root);
                char *st_before = tt_tree(f->state);
                char **msgs = NULL;
                char *err = NULL;
                assert_int_equal(ht_journal_recover(f->c, &msgs, &err), -EBADMSG);
                char *want = xasprintf("journal %s: manifest is corrupt: ", txid);
                if (!startswith(err, want))
                        fail_msg("%s: %s", kind, err);
                assert_non_null(strstr(err, "leaving it alone; inspect "));
                assert_non_null(strstr(err, dir));
                assert_true(strv_contains(msgs, err));
                /* nothing touched: neither the host nor the journal */
                char *host_after = tt_tree(f->root);
                char *st_after = tt_tree(f->state);
                assert_string_equal(host, host_after);
                assert_string_equal(st_before, st_after);

                json_object *list;
                char *lerr = NULL;
                assert_int_equal(ht_journal_list(f->c, &list, &lerr), 0);
                assert_int_equal(json_object_array_length(list), 1);
                assert_string_equal(str_at(json_object_array_get_idx(list, 0), "status", NULL), "corrupt");
                json_object_put(list);
                ht_tx *t = NULL;
                char *e2 = NULL;
                assert_int_equal(ht_journal_load(f->c, txid, &t, &e2), -EBADMSG);
                assert_null(t);
                free(e2);
                /* the corrupt one may be the last apply: no older one is
                 * picked for "rollback" in its place */
                e2 = NULL;
                assert_int_equal(ht_journal_last_committed(f->c, "apply", &t, &e2), -EBADMSG);
                assert_null(t);
                assert_non_null(strstr(e2, "manifest is corrupt"));
                free(e2);
                /* and pending ones (ht_journal_pending) do not include it */
                char **pend = NULL;
                assert_int_equal(ht_journal_pending(f->c, &pend, NULL), 0);
                assert_null(pend);

                strv_free(msgs);
                free(err);
                free(want);
                free(host);
                free(host_after);
                free(st_before);
                free(st_after);
                free(bad);
                free(good);
                free(dir);
                free(mp);
                free(txid);
        }
}

static void test_backup_checksum_mismatch(void **state) {
        fixture *f = *state;
        ht_tx *tx = run_apply(f->c, false, true);
        char *dir = xasprintf("%s/journal/%s", f->state, ht_tx_txid(tx));
        tt_put(dir, "backup/2", "GRUB_TIMEOUT=0\n", 0600);  /* the grub backup */
        char *host = tt_tree(f->root);
        char *err = NULL;
        assert_int_equal(ht_tx_rollback(tx, NULL, 0, NULL, &err), -EBADMSG);
        assert_non_null(strstr(err, "does not match its checksum"));
        assert_non_null(strstr(err, "nothing was restored"));
        free(err);
        /* no partial restore from a bad journal, even forced */
        err = NULL;
        assert_int_equal(ht_tx_rollback(tx, NULL, HT_ROLLBACK_FORCE, NULL, &err), -EBADMSG);
        free(err);
        char *host_after = tt_tree(f->root);
        assert_string_equal(host, host_after);
        assert_string_equal(ht_tx_status(tx), "committed");
        /* a missing backup is the same */
        char *b = xasprintf("%s/backup/2", dir);
        assert_int_equal(unlink(b), 0);
        err = NULL;
        assert_int_equal(ht_tx_rollback(tx, NULL, 0, NULL, &err), -ENOENT);
        assert_non_null(strstr(err, "cannot be read"));
        free(err);
        free(host_after);
        host_after = tt_tree(f->root);
        assert_string_equal(host, host_after);
        ht_tx_free(tx);
        free(b);
        free(dir);
        free(host);
        free(host_after);
}

static void test_state_dir_refused(void **state) {
        fixture *f = *state;
        char *real = xasprintf("%s/real-state", f->top);
        assert_int_equal(mkdir(real, 0700), 0);
        assert_int_equal(symlink(real, f->state), 0);
        ht_tx *tx = NULL;
        char *err = NULL;
        assert_int_equal(ht_tx_begin(f->c, "apply", "x", NULL, NULL, &tx, &err), -ELOOP);
        assert_null(tx);
        assert_non_null(strstr(err, "is a symlink; refusing it"));
        free(err);
        err = NULL;
        json_object *list = NULL;
        assert_int_equal(ht_journal_list(f->c, &list, &err), -ELOOP);
        free(err);
        err = NULL;
        assert_int_equal(ht_journal_recover(f->c, NULL, &err), -ELOOP);
        free(err);
        assert_false(tt_exists(real, "journal"));
        unlink(f->state);

        /* writable by others */
        assert_int_equal(mkdir(f->state, 0700), 0);
        assert_int_equal(chmod(f->state, 0777), 0);
        err = NULL;
        assert_int_equal(ht_tx_begin(f->c, "apply", "x", NULL, NULL, &tx, &err), -EPERM);
        assert_non_null(strstr(err, "writable by group or others"));
        free(err);
        assert_int_equal(chmod(f->state, 0700), 0);

        /* journal/ a symlink inside a good state dir */
        char *jl = xasprintf("%s/journal", f->state);
        assert_int_equal(symlink(real, jl), 0);
        err = NULL;
        assert_int_equal(ht_tx_begin(f->c, "apply", "x", NULL, NULL, &tx, &err), -ELOOP);
        free(err);
        unlink(jl);

        if (geteuid() == 0) {
                assert_int_equal(chown(f->state, 12345, 12345), 0);
                err = NULL;
                assert_int_equal(ht_tx_begin(f->c, "apply", "x", NULL, NULL, &tx, &err), -EPERM);
                assert_non_null(strstr(err, "owned by uid 12345"));
                free(err);
                assert_int_equal(chown(f->state, 0, 0), 0);
        }
        /* a fresh state dir in a missing parent is created 0700 */
        _cleanup_free_ char *sd = xasprintf("%s/a/b/state", f->top);
        ht_context_set_state_dir(f->c, sd);
        err = NULL;
        must(ht_tx_begin(f->c, "apply", NULL, NULL, NULL, &tx, &err), err);
        ht_tx_free(tx);
        free(jl);
        free(real);
}

static void test_bad_input(void **state) {
        fixture *f = *state;
        ht_tx *tx = NULL;
        char *err = NULL;
        const char *bad_ids[] = {"../../etc", "20261130T091502Z-1a2b3c4", "20261130T091502Z-1A2B3C4D", "", "x"};
        for (size_t i = 0; i < ELEMENTSOF(bad_ids); i++) {
                err = NULL;
                assert_int_equal(ht_journal_load(f->c, bad_ids[i], &tx, &err), -EINVAL);
                free(err);
        }
        err = NULL;
        assert_int_equal(ht_journal_load(f->c, "20261130T091502Z-1a2b3c4d", &tx, &err), -ENOENT);
        free(err);
        err = NULL;
        assert_int_equal(ht_tx_begin(f->c, "apply; rm", NULL, NULL, NULL, &tx, &err), -EINVAL);
        free(err);
        json_object *arr = json_object_new_array();
        err = NULL;
        assert_int_equal(ht_tx_begin(f->c, "apply", NULL, arr, NULL, &tx, &err), -EINVAL);
        free(err);

        char *before = tt_tree(f->root);
        err = NULL;
        must(ht_tx_begin(f->c, "apply", "p", NULL, NULL, &tx, &err), err);
        size_t idx;
        tt_symlink(f->root, "/etc/default/grub", "etc/grub-link");
        const struct {
                const char *path;
                int r;
        } files[] = {
                {"/etc/../etc/passwd", -EINVAL},
                {"relative", -EINVAL},
                {"/etc/grub-link", -ELOOP},
                {"/etc", -EISDIR},
        };
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                err = NULL;
                assert_int_equal(ht_tx_record_file(tx, "sysctl", files[i].path, "x", 1, 0644, &idx, &err), files[i].r);
                assert_non_null(err);
                free(err);
        }
        err = NULL;
        assert_int_equal(ht_tx_record_file(tx, "Bad Backend", "/etc/x", "x", 1, 0644, &idx, &err), -EINVAL);
        free(err);
        err = NULL;
        assert_int_equal(ht_tx_record_runtime(tx, "sysctl", "vm.x", "/proc/sys/vm/swappiness", NULL, "1\n2", &idx, &err),
                         -EINVAL);
        free(err);
        err = NULL;
        assert_int_equal(ht_tx_record_runtime(tx, "sysctl", "vm.x", "/proc/sys/vm/nosuch", NULL, "1", &idx, &err),
                         -ENOENT);
        assert_non_null(strstr(err, "vm.x"));
        free(err);
        err = NULL;
        assert_int_equal(ht_tx_record_runtime(tx, "sysctl", "vm.x", "/proc/sys/vm/swappiness", "a\nb", "1", &idx, &err),
                         -EINVAL);
        free(err);
        err = NULL;
        assert_int_equal(ht_tx_mark_done(tx, 0, &err), -EINVAL);
        free(err);
        err = NULL;
        assert_int_equal(ht_tx_set_expected(tx, NULL, &err), -EINVAL);
        free(err);
        assert_int_equal(ht_tx_n_items(tx), 0);
        err = NULL;
        must(ht_tx_commit(tx, &err), err);
        err = NULL;
        assert_int_equal(ht_tx_commit(tx, &err), -EINVAL);
        free(err);
        err = NULL;
        assert_int_equal(ht_tx_record_file(tx, "sysctl", "/etc/x", "x", 1, 0644, &idx, &err), -EINVAL);
        free(err);
        err = NULL;
        assert_int_equal(ht_tx_abort(tx, "x", NULL, &err), -EINVAL);
        free(err);
        /* rolling back an empty transaction changes nothing */
        err = NULL;
        must(ht_tx_rollback(tx, NULL, 0, NULL, &err), err);
        char *gl = xasprintf("%s/etc/grub-link", f->root);
        unlink(gl);
        free(gl);
        char *after = tt_tree(f->root);
        assert_string_equal(before, after);
        ht_tx_free(tx);
        json_object_put(arr);
        free(before);
        free(after);
}

static void test_committed_since(void **state) {
        fixture *f = *state;
        char *before_all = tt_tree(f->root);
        char *ids[3];
        char *trees[3];
        const char *values[] = {"11", "12", "13"};
        for (int i = 0; i < 3; i++) {
                ht_tx *tx = NULL;
                char *err = NULL;
                size_t idx;
                must(ht_tx_begin(f->c, "apply", "p", NULL, NULL, &tx, &err), err);
                char *content = xasprintf("vm.swappiness = %s\n", values[i]);
                err = NULL;
                must(ht_tx_record_file(tx, "sysctl", "/etc/sysctl.d/99-hosttune.conf", content, strlen(content), 0644,
                                       &idx, &err), err);
                must(ht_tx_write_ahead(tx, NULL), NULL);
                write_new(f->c, "/etc/sysctl.d/99-hosttune.conf", content);
                must(ht_tx_mark_done(tx, idx, NULL), NULL);
                err = NULL;
                must(ht_tx_record_runtime(tx, "sysctl", "vm.swappiness", "/proc/sys/vm/swappiness", NULL, values[i],
                                          &idx, &err), err);
                must(ht_tx_write_ahead(tx, NULL), NULL);
                assert_int_equal(ht_write_kernel_value(f->c, "/proc/sys/vm/swappiness", values[i], NULL), 0);
                must(ht_tx_mark_done(tx, idx, NULL), NULL);
                must(ht_tx_commit(tx, NULL), NULL);
                ids[i] = xstrdup(ht_tx_txid(tx));
                trees[i] = tt_tree(f->root);
                ht_tx_free(tx);
                free(content);
        }
        ht_tx **l = NULL;
        size_t n = 0;
        char *err = NULL;
        must(ht_journal_committed_since(f->c, ids[1], &l, &n, &err), err);
        assert_int_equal(n, 2);
        assert_string_equal(ht_tx_txid(l[0]), ids[2]);
        assert_string_equal(ht_tx_txid(l[1]), ids[1]);
        for (size_t i = 0; i < n; i++) {
                err = NULL;
                must(ht_tx_rollback(l[i], NULL, 0, NULL, &err), err);
        }
        ht_tx_list_free(l, n);
        char *now = tt_tree(f->root);
        assert_string_equal(now, trees[0]);
        /* history: oldest first */
        json_object *list;
        must(ht_journal_list(f->c, &list, NULL), NULL);
        assert_int_equal(json_object_array_length(list), 3);
        for (int i = 0; i < 3; i++)
                assert_string_equal(str_at(json_object_array_get_idx(list, (size_t)i), "txid", NULL), ids[i]);
        assert_string_equal(str_at(json_object_array_get_idx(list, 0), "status", NULL), "committed");
        assert_string_equal(str_at(json_object_array_get_idx(list, 2), "status", NULL), "rolled-back");
        json_object_put(list);
        /* a rolled-back one cannot start a range */
        err = NULL;
        assert_int_equal(ht_journal_committed_since(f->c, ids[2], &l, &n, &err), -EINVAL);
        free(err);
        err = NULL;
        must(ht_journal_committed_since(f->c, ids[0], &l, &n, &err), err);
        assert_int_equal(n, 1);
        must(ht_tx_rollback(l[0], NULL, 0, NULL, NULL), NULL);
        ht_tx_list_free(l, n);
        free(now);
        now = tt_tree(f->root);
        assert_string_equal(now, before_all);
        for (int i = 0; i < 3; i++) {
                free(ids[i]);
                free(trees[i]);
        }
        free(now);
        free(before_all);
}

static void test_recover_cleans_leftovers(void **state) {
        fixture *f = *state;
        ht_tx_free(run_apply(f->c, false, true));
        /* what a crash inside begin and inside atomic writes leaves */
        char *nd = xasprintf("%s/journal/.new-20261130T091502Z-00000000", f->state);
        assert_int_equal(mkdir(nd, 0700), 0);
        tt_put(nd, "manifest.json", "{", 0600);
        tt_mkdir(nd, "backup");
        tt_put(nd, "backup/0", "x", 0600);
        /* a manifest write's temp goes; anything else named ".#" is not
         * ours and stays: one rule (ht_is_temp_name) for host and journal */
        char *jd = xasprintf("%s/journal", f->state);
        tt_put(jd, ".#manifest.json.0123456789abcdef", "half", 0600);
        tt_put(jd, ".#notes", "an admin's", 0600);
        char *err = NULL;
        char **msgs = NULL;
        assert_int_equal(ht_journal_recover(f->c, &msgs, &err), 0);
        assert_false(tt_exists(nd, ""));
        assert_false(tt_exists(jd, ".#manifest.json.0123456789abcdef"));
        assert_true(tt_exists(jd, ".#notes"));
        free(jd);
        assert_int_equal(strv_length(msgs), 1);
        strv_free(msgs);
        /* host temp files go when a transaction touching that file is
         * undone (the journal names the directories to look in) */
        ht_tx *tx = NULL;
        must(ht_journal_last_committed(f->c, "apply", &tx, NULL), NULL);
        tt_put(f->root, "etc/default/.#grub.0123456789abcdef", "half", 0600);
        must(ht_tx_rollback(tx, NULL, 0, NULL, NULL), NULL);
        assert_false(tt_exists(f->root, "etc/default/.#grub.0123456789abcdef"));
        ht_tx_free(tx);
        /* no journal at all: nothing to do */
        _cleanup_free_ char *sd = xasprintf("%s/none", f->top);
        ht_context_set_state_dir(f->c, sd);
        assert_int_equal(ht_journal_recover(f->c, NULL, NULL), 0);
        json_object *list;
        must(ht_journal_list(f->c, &list, NULL), NULL);
        assert_int_equal(json_object_array_length(list), 0);
        json_object_put(list);
        assert_false(tt_exists(f->top, "none"));
        free(nd);
}

static void test_long_history_few_fds(void **state) {
        fixture *f = *state;
        for (int i = 0; i < 80; i++) {
                ht_tx *tx = NULL;
                must(ht_tx_begin(f->c, "apply", "p", NULL, NULL, &tx, NULL), NULL);
                must(ht_tx_commit(tx, NULL), NULL);
                ht_tx_free(tx);
        }
        /* listing a long history must not hold a descriptor per entry */
        struct rlimit old, few;
        assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
        few = old;
        few.rlim_cur = 40;
        assert_int_equal(setrlimit(RLIMIT_NOFILE, &few), 0);
        json_object *list = NULL;
        char *err = NULL;
        int r1 = ht_journal_list(f->c, &list, &err);
        ht_tx *tx = NULL;
        int r2 = ht_journal_last_committed(f->c, "apply", &tx, &err);
        int r3 = ht_journal_recover(f->c, NULL, &err);
        assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
        must(r1, NULL);
        must(r2, NULL);
        assert_int_equal(r3, 0);
        assert_int_equal(json_object_array_length(list), 80);
        for (size_t i = 0; i < 80; i++)
                assert_string_equal(str_at(json_object_array_get_idx(list, i), "status", NULL), "committed");
        /* the one handed out can still be rolled back */
        must(ht_tx_rollback(tx, NULL, 0, NULL, NULL), NULL);
        ht_tx_free(tx);
        json_object_put(list);
}

/* The journal keeps a runtime value as the kernel takes it on write: the
 * marked word of a choice list, integer fields one space apart. */
static void test_runtime_prior_writable(void **state) {
        fixture *f = *state;
        tt_mkdir(f->root, "sys");
        tt_mkdir(f->root, "sys/kernel");
        tt_mkdir(f->root, "sys/kernel/mm");
        tt_mkdir(f->root, "sys/kernel/mm/transparent_hugepage");
        tt_put(f->root, "sys/kernel/mm/transparent_hugepage/defrag",
               "always defer [defer+madvise] madvise never\n", 0644);
        tt_put(f->root, "proc/sys/kernel/sem", "32000\t1024000000\t500\t32000\n", 0644);
        tt_put(f->root, "proc/sys/kernel/core_pattern", "core  %p\n", 0644);
        ht_tx *tx = NULL;
        char *err = NULL;
        must(ht_tx_begin(f->c, "apply", "t", NULL, NULL, &tx, &err), err);
        size_t i0, i1, i2, i3;
        err = NULL;
        must(ht_tx_record_runtime(tx, "sysfs", "/sys/kernel/mm/transparent_hugepage/defrag",
                                  "/sys/kernel/mm/transparent_hugepage/defrag", NULL, "never", &i0, &err), err);
        err = NULL;
        must(ht_tx_record_runtime(tx, "sysctl", "kernel.sem", "/proc/sys/kernel/sem", NULL, "32000 1024000000 500 32000",
                                  &i1, &err), err);
        err = NULL;
        must(ht_tx_record_runtime(tx, "sysctl", "kernel.core_pattern", "/proc/sys/kernel/core_pattern", NULL, "core",
                                  &i2, &err), err);
        /* a value given by the caller (a rollback recording what it found) too */
        err = NULL;
        must(ht_tx_record_runtime(tx, "sysfs", "x", "/sys/kernel/mm/transparent_hugepage/defrag",
                                  "[always] madvise never", "madvise", &i3, &err), err);
        must(ht_tx_write_ahead(tx, NULL), NULL);
        assert_string_equal(str_at(item_at(tx, i0), "prior", "value"), "defer+madvise");
        assert_string_equal(str_at(item_at(tx, i1), "prior", "value"), "32000 1024000000 500 32000");
        assert_string_equal(str_at(item_at(tx, i2), "prior", "value"), "core  %p");
        assert_string_equal(str_at(item_at(tx, i3), "prior", "value"), "always");
        /* and the manifest on disk says the same */
        char *mp = xasprintf("%s/journal/%s/manifest.json", f->state, ht_tx_txid(tx));
        json_object *m = json_object_from_file(mp);
        assert_non_null(m);
        json_object *items, *prior, *v;
        assert_true(json_object_object_get_ex(m, "items", &items));
        assert_true(json_object_object_get_ex(json_object_array_get_idx(items, i0), "prior", &prior));
        assert_true(json_object_object_get_ex(prior, "value", &v));
        assert_string_equal(json_object_get_string(v), "defer+madvise");
        json_object_put(m);
        free(mp);
        ht_tx_free(tx);
}

static int read_int(const char *root, const char *rel) {
        char *s = tt_get(root, rel);
        int v = atoi(s);
        free(s);
        return v;
}

/* A rollback that cannot put one value back: what it restored stays
 * restored, the error names the item and the value it has, the apply
 * stays committed, and a second rollback finishes it. */
static void test_rollback_partial_failure(void **state) {
        fixture *f = *state;
        char *before = tt_tree(f->root);
        ht_tx_free(run_apply(f->c, false, true));
        ht_tx *tx, *rb = NULL;
        char *err = NULL;
        assert_int_equal(ht_journal_last_committed(f->c, "apply", &tx, &err), 0);
        must(ht_tx_begin(f->c, "rollback", "oracle", NULL, NULL, &rb, &err), err);
        /* newest first: nr_hugepages is restored, then swappiness fails */
        setenv("HOSTTUNE_FAULT_FAIL", "restore-runtime:2", 1);
        ht_fault_reset();
        char **msgs = NULL;
        err = NULL;
        assert_int_equal(ht_tx_rollback(tx, rb, 0, &msgs, &err), -EIO);
        unsetenv("HOSTTUNE_FAULT_FAIL");
        assert_non_null(err);
        assert_non_null(strstr(err, "1 of 6 item(s) not restored"));
        assert_non_null(strstr(err, "vm.swappiness"));
        assert_non_null(strstr(err, "writing '60' back failed"));
        assert_non_null(strstr(err, "it is '10'"));
        assert_non_null(strstr(err, "5 restored now"));
        free(err);
        assert_string_equal(ht_tx_status(tx), "committed");
        assert_int_equal(read_int(f->root, "proc/sys/vm/nr_hugepages"), 0);
        assert_int_equal(read_int(f->root, "proc/sys/vm/swappiness"), 10);
        bool said = false;
        for (char **m = msgs; m && *m; m++)
                said = said || strstr(*m, "vm.nr_hugepages: restored 0 (was 512)");
        assert_true(said);
        strv_free(msgs);
        msgs = NULL;
        /* the rollback record is closed as failed, its restores kept */
        err = NULL;
        must(ht_tx_close_failed(rb, "rollback incomplete", &err), err);
        assert_string_equal(ht_tx_status(rb), "failed");
        ht_tx_free(rb);
        assert_int_equal(read_int(f->root, "proc/sys/vm/nr_hugepages"), 0);
        ht_tx_free(tx);

        /* no pending transaction is left for a recovery to undo */
        err = NULL;
        assert_int_equal(ht_journal_recover(f->c, NULL, &err), 0);
        assert_int_equal(read_int(f->root, "proc/sys/vm/nr_hugepages"), 0);

        /* again: only swappiness is left, and it goes back */
        err = NULL;
        assert_int_equal(ht_journal_last_committed(f->c, "apply", &tx, &err), 0);
        must(ht_tx_rollback(tx, NULL, 0, &msgs, &err), err);
        assert_int_equal(strv_length(msgs), 1);
        assert_string_equal(msgs[0], "vm.swappiness: restored 60 (was 10)");
        assert_string_equal(ht_tx_status(tx), "rolled-back");
        assert_null(json_object_object_get(manifest_of(tx), "rollback_errors"));
        char *after = tt_tree(f->root);
        assert_string_equal(before, after);
        strv_free(msgs);
        ht_tx_free(tx);
        free(before);
        free(after);
}

/* Issue 32: a manifest anyone could have written decides nothing root
 * would not do itself. Each tampering, in a committed transaction (what
 * rollback reads) and in a pending one (what the crash recovery at the
 * start of every command reads): the manifest is refused, named, nothing
 * on the host changes, and no message carries the content of a file. */
#define SHADOW "root:$6$SECRETHASH$x:19000:0:99999:7:::\n"
#define PASSWD "root:x:0:0:root:/root:/bin/bash\n"
static void test_tampered_manifest_confined(void **state) {
        fixture *f = *state;
        const char *variants[] = {"runtime-shadow", "runtime-dev", "file-passwd-setuid", "root"};
        for (size_t v = 0; v < ELEMENTSOF(variants); v++)
                for (int pending = 0; pending < 2; pending++) {
                        const char *kind = variants[v];
                        rebuild(f);
                        tt_put(f->root, "etc/shadow", SHADOW, 0640);
                        tt_put(f->root, "etc/passwd", PASSWD, 0644);
                        ht_tx *tx = run_apply(f->c, false, true);
                        char *txid = xstrdup(ht_tx_txid(tx));
                        ht_tx_free(tx);
                        char *mp = manifest_path(f, txid);
                        json_object *m = json_object_from_file(mp);
                        assert_non_null(m);
                        json_object *items = json_object_object_get(m, "items");
                        if (startswith(kind, "runtime")) {
                                /* items[4]: vm.swappiness, read back "60" before */
                                json_object *it = json_object_array_get_idx(items, 4);
                                json_object_object_add(it, "path", json_object_new_string(
                                                       streq(kind, "runtime-shadow") ? "/etc/shadow" : "/dev/sda"));
                        } else if (streq(kind, "file-passwd-setuid")) {
                                /* items[0]: the sysctl drop-in with its backup;
                                 * "new" made the passwd stand-in's own, so the
                                 * undo takes it for the transaction's state */
                                json_object *it = json_object_array_get_idx(items, 0);
                                char hex[HT_SHA256_HEX_SIZE];
                                ht_sha256_hex(PASSWD, strlen(PASSWD), hex);
                                json_object_object_add(it, "path", json_object_new_string("/etc/passwd"));
                                json_object_object_add(json_object_object_get(it, "prior"), "mode",
                                                       json_object_new_string("4755"));
                                json_object_object_add(json_object_object_get(it, "new"), "sha256",
                                                       json_object_new_string(hex));
                        } else
                                json_object_object_add(m, "root", json_object_new_string("/elsewhere"));
                        if (pending) {
                                json_object_object_add(m, "status", json_object_new_string("pending"));
                                char *dir = xasprintf("%s/journal/%s", f->state, txid);
                                tt_put(dir, "PENDING", "", 0600);
                                free(dir);
                        }
                        assert_int_equal(json_object_to_file_ext(mp, m, JSON_C_TO_STRING_PRETTY), 0);
                        json_object_put(m);

                        char *host = tt_tree(f->root);
                        char **msgs = NULL;
                        char *err = NULL;
                        int r;
                        if (pending)
                                r = ht_journal_recover(f->c, &msgs, &err);
                        else {
                                ht_tx *t = NULL;
                                r = ht_journal_last_committed(f->c, "apply", &t, &err);
                                if (r == 0) {
                                        /* the old journal took it: what its rollback does */
                                        r = ht_tx_rollback(t, NULL, HT_ROLLBACK_FORCE, &msgs, &err);
                                        ht_tx_free(t);
                                        r = r == 0 ? 1 : r;
                                }
                        }
                        char *host_after = tt_tree(f->root);
                        if (!streq(host, host_after))
                                fail_msg("%s (%s): the host changed", kind, pending ? "recovery" : "rollback");
                        char *shadow = tt_get(f->root, "etc/shadow"), *passwd = tt_get(f->root, "etc/passwd");
                        assert_string_equal(shadow, SHADOW);
                        assert_string_equal(passwd, PASSWD);
                        struct stat st;
                        char *pp = xasprintf("%s/etc/passwd", f->root);
                        assert_int_equal(stat(pp, &st), 0);
                        assert_int_equal(st.st_mode & 07777, 0644);
                        if (r != -EBADMSG)
                                fail_msg("%s (%s): %d, not refused: %s", kind, pending ? "recovery" : "rollback", r,
                                         err ? err : "");
                        char *want = xasprintf("journal %s: manifest refused: ", txid);
                        if (!startswith(err, want))
                                fail_msg("%s: %s", kind, err);
                        assert_non_null(strstr(err, mp));
                        /* no file's content in any message */
                        char *all = strv_join(msgs, "\n");
                        char *text = xasprintf("%s\n%s", err, all ? all : "");
                        assert_null(strstr(text, "SECRETHASH"));
                        assert_null(strstr(text, "root:x:"));
                        assert_null(strstr(text, "vm.swappiness = 30"));
                        free(text);
                        free(all);
                        free(want);
                        free(pp);
                        free(shadow);
                        free(passwd);
                        free(host);
                        free(host_after);
                        strv_free(msgs);
                        free(err);
                        free(mp);
                        free(txid);
                }
}

/* Recording refuses what a rollback would refuse to restore. */
static void test_record_confined(void **state) {
        fixture *f = *state;
        tt_put(f->root, "etc/passwd", PASSWD, 0644);
        ht_tx *tx = NULL;
        char *err = NULL;
        size_t idx;
        must(ht_tx_begin(f->c, "apply", NULL, NULL, NULL, &tx, &err), err);
        err = NULL;
        assert_int_equal(ht_tx_record_file(tx, "sysctl", "/etc/passwd", "x", 1, 0644, &idx, &err), -EPERM);
        assert_non_null(strstr(err, "/etc/passwd is not a file the sysctl backend writes"));
        free(err);
        err = NULL;
        assert_int_equal(ht_tx_record_runtime(tx, "sysctl", "x", "/etc/passwd", "1", "2", &idx, &err), -EINVAL);
        free(err);
        err = NULL;
        must(ht_tx_abort(tx, "test", NULL, &err), err);
        ht_tx_free(tx);
        /* with no confinement given, no file item at all */
        ht_journal_confine(NULL);
        err = NULL;
        must(ht_tx_begin(f->c, "apply", NULL, NULL, NULL, &tx, &err), err);
        err = NULL;
        assert_int_equal(ht_tx_record_file(tx, "sysctl", "/etc/sysctl.d/99-hosttune.conf", "x", 1, 0644, &idx, &err),
                         -EPERM);
        free(err);
        err = NULL;
        must(ht_tx_abort(tx, "test", NULL, &err), err);
        ht_tx_free(tx);
        ht_journal_confine(test_files);
}

/* A setuid bit or a stranger's owner in a valid manifest of a managed
 * file is not restored: the mode loses it, the owner becomes root's (or
 * ours, not root). */
static void test_restore_mode_owner_confined(void **state) {
        fixture *f = *state;
        ht_tx *tx = run_apply(f->c, false, true);
        char *txid = xstrdup(ht_tx_txid(tx));
        ht_tx_free(tx);
        char *mp = manifest_path(f, txid);
        json_object *m = json_object_from_file(mp);
        json_object *prior = json_object_object_get(json_object_array_get_idx(json_object_object_get(m, "items"), 0),
                                                    "prior");
        json_object_object_add(prior, "mode", json_object_new_string("6755"));
        json_object_object_add(prior, "uid", json_object_new_int64(4242));
        json_object_object_add(prior, "gid", json_object_new_int64(4242));
        assert_int_equal(json_object_to_file_ext(mp, m, JSON_C_TO_STRING_PRETTY), 0);
        json_object_put(m);
        char *err = NULL;
        must(ht_journal_last_committed(f->c, "apply", &tx, &err), err);
        err = NULL;
        must(ht_tx_rollback(tx, NULL, 0, NULL, &err), err);
        ht_tx_free(tx);
        struct stat st;
        char *p = xasprintf("%s/etc/sysctl.d/99-hosttune.conf", f->root);
        assert_int_equal(stat(p, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0755);
        assert_int_equal(st.st_uid, geteuid());
        assert_true(st.st_uid != 4242 && st.st_gid != 4242);
        free(p);
        free(mp);
        free(txid);
}

/* A follow-up's command comes from hosttune's table, keyed by its
 * action, never from the manifest: an argv there is not run, even for
 * "/" (the only root whose follow-ups run at all). */
static void test_follow_up_argv_not_run(void **state) {
        fixture *f = *state;
        ht_context *c = NULL;
        assert_int_equal(ht_context_new("/", &c), 0);
        /* never the real host's /var/lib/hosttune */
        char *state_dir = xasprintf("%s/state-slash", f->top);
        ht_context_set_state_dir(c, state_dir);
        free(state_dir);
        char *marker = xasprintf("%s/pwned", f->top);
        ht_tx *tx = NULL;
        char *err = NULL;
        must(ht_tx_begin(c, "apply", NULL, NULL, NULL, &tx, &err), err);
        char *json = xasprintf("[{\"backend\": \"systemd\", \"action\": \"pwn\", \"description\": \"d\","
                               "  \"argv\": [\"/usr/bin/touch\", \"%s\"]},"
                               " {\"backend\": \"cmdline\", \"action\": \"regenerate-grub\", \"description\": \"d\","
                               "  \"argv\": [\"/usr/bin/touch\", \"%s\"]}]",
                               marker, marker);
        json_object *fu = json_tokener_parse(json);
        ht_tx_set_info(tx, "follow_ups", fu);
        json_object_put(fu);
        err = NULL;
        must(ht_tx_commit(tx, &err), err);
        char *txid = xstrdup(ht_tx_txid(tx));
        ht_tx_free(tx);
        err = NULL;
        must(ht_journal_load(c, txid, &tx, &err), err);
        char **msgs = NULL;
        ht_rollback_follow_ups(c, &tx, 1, &msgs);
        assert_int_equal(access(marker, F_OK), -1);
        char *all = strv_join(msgs, "\n");
        assert_non_null(strstr(all ? all : "", "follow-up pwn is not one hosttune knows; not run"));
        free(all);
        strv_free(msgs);
        ht_tx_free(tx);
        ht_context_free(c);
        free(txid);
        free(json);
        free(marker);
}

static void test_fault_spec(void **state) {
        /* numeric, named, named:N; a non-matching spec never fires */
        const struct {
                const char *spec;
                int fire_at; /* 1-based index into the sequence, 0 never */
        } cases[] = {
                {"3", 3}, {"b", 2}, {"b:2", 4}, {"c", 0}, {"b:x", 0}, {"", 0},
        };
        const char *seq[] = {"a", "b", "a", "b", "a"};
        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                int p[2];
                assert_int_equal(pipe(p), 0);
                pid_t pid = fork();
                if (pid == 0) {
                        close(p[0]);
                        setenv("HOSTTUNE_FAULT_AFTER", cases[i].spec, 1);
                        ht_fault_reset();
                        for (size_t k = 0; k < ELEMENTSOF(seq); k++) {
                                char ch = (char)('1' + k);
                                (void)!write(p[1], &ch, 1);
                                ht_fault_point(seq[k]);
                        }
                        _exit(0);
                }
                close(p[1]);
                char buf[16] = {0};
                ssize_t n = read(p[0], buf, sizeof(buf) - 1);
                while (n > 0 && n < (ssize_t)ELEMENTSOF(seq)) {
                        ssize_t m = read(p[0], buf + n, sizeof(buf) - 1 - (size_t)n);
                        if (m <= 0)
                                break;
                        n += m;
                }
                close(p[0]);
                int st;
                assert_int_equal(waitpid(pid, &st, 0), pid);
                if (cases[i].fire_at == 0) {
                        assert_true(WIFEXITED(st));
                        assert_int_equal(n, 5);
                } else {
                        assert_true(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
                        assert_int_equal(n, cases[i].fire_at);
                }
        }
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_begin_record_commit_list_load, setup, teardown),
                cmocka_unit_test_setup_teardown(test_item_accessors, setup, teardown),
                cmocka_unit_test(test_manifest_request_fields_checked),
                cmocka_unit_test_setup_teardown(test_sha_recorded, setup, teardown),
                cmocka_unit_test_setup_teardown(test_rollback_restores_tree, setup, teardown),
                cmocka_unit_test_setup_teardown(test_rollback_is_recorded_and_can_be_undone, setup, teardown),
                cmocka_unit_test_setup_teardown(test_rollback_refuses_changed_file, setup, teardown),
                cmocka_unit_test_setup_teardown(test_abort, setup, teardown),
                cmocka_unit_test_setup_teardown(test_abort_generated_tool_failed, setup, teardown),
                cmocka_unit_test_setup_teardown(test_crash_recovery_write_ahead, setup, teardown),
                cmocka_unit_test_setup_teardown(test_crash_recovery_interleaved, setup, teardown),
                cmocka_unit_test_setup_teardown(test_crash_named_steps, setup, teardown),
                cmocka_unit_test_setup_teardown(test_crash_during_rollback, setup, teardown),
                cmocka_unit_test_setup_teardown(test_power_cut_records, setup, teardown),
                cmocka_unit_test_setup_teardown(test_power_cut_rollback_records, setup, teardown),
                cmocka_unit_test_setup_teardown(test_corrupt_manifest, setup, teardown),
                cmocka_unit_test_setup_teardown(test_backup_checksum_mismatch, setup, teardown),
                cmocka_unit_test_setup_teardown(test_state_dir_refused, setup, teardown),
                cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
                cmocka_unit_test_setup_teardown(test_committed_since, setup, teardown),
                cmocka_unit_test_setup_teardown(test_recover_cleans_leftovers, setup, teardown),
                cmocka_unit_test_setup_teardown(test_long_history_few_fds, setup, teardown),
                cmocka_unit_test_setup_teardown(test_runtime_prior_writable, setup, teardown),
                cmocka_unit_test_setup_teardown(test_rollback_partial_failure, setup, teardown),
                cmocka_unit_test(test_fault_spec),
                cmocka_unit_test_setup_teardown(test_tampered_manifest_confined, setup, teardown),
                cmocka_unit_test_setup_teardown(test_record_confined, setup, teardown),
                cmocka_unit_test_setup_teardown(test_restore_mode_owner_confined, setup, teardown),
                cmocka_unit_test_setup_teardown(test_follow_up_argv_not_run, setup, teardown),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
