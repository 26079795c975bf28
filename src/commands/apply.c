#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply.h"
#include "audit-log.h"
#include "backend-common.h"
#include "backend.h"
#include "fault.h"
#include "interrupt.h"
#include "fileattr.h"
#include "fileio.h"
#include "format-meminfo.h"
#include "journal.h"
#include "settings-json.h"
#include "spawn.h"
#include "util.h"

void ht_apply_result_done(ht_apply_result *r) {
        free(r->txid);
        strv_free(r->notes);
        strv_free(r->undo_messages);
        *r = (ht_apply_result){0};
}

int ht_read_hugepages_total(const ht_context *c, uint64_t *ret) {
        ht_meminfo m;
        int r = ht_meminfo_read(c, &m);
        if (r < 0)
                return r;
        uint64_t v = m.hugepages_total;
        ht_meminfo_done(&m);
        if (v == HT_MEMINFO_UNKNOWN)
                return -ENODATA;
        *ret = v;
        return 0;
}

static json_object *params_json(const ht_resolved *r) {
        json_object *o = json_object_new_object();
        for (size_t i = 0; i < r->n_params; i++)
                json_object_object_add(o, r->params[i].name, json_object_new_string(r->params[i].value));
        return o;
}

/* The facts a later reader of the journal needs to understand it. */
static json_object *facts_that_mattered(const ht_facts *f) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "kernel_release", f->kernel_release ? json_object_new_string(f->kernel_release) : NULL);
        json_object_object_add(o, "kernel_cmdline", f->kernel_cmdline ? json_object_new_string(f->kernel_cmdline) : NULL);
        json_object_object_add(o, "os_id", f->os_id ? json_object_new_string(f->os_id) : NULL);
        json_object_object_add(o, "os_version_id", f->os_version_id ? json_object_new_string(f->os_version_id) : NULL);
        json_object_object_add(o, "bootloader", json_object_new_string(ht_bootloader_kind_to_string(f->bootloader)));
        if (f->memory_known)
                json_object_object_add(o, "mem_total_kb", json_object_new_int64((int64_t)f->mem_total_kb));
        if (f->hugepages_supported == HT_YES) {
                json_object_object_add(o, "hugepage_size_kb", json_object_new_int64((int64_t)f->hugepage_default_kb));
                json_object_object_add(o, "hugepages_total", json_object_new_int64((int64_t)f->hugepages_total));
        }
        return o;
}

static int record_file(ht_tx *tx, const ht_file_edit *fe, size_t *ret_item, char **ret_error) {
        char *err = NULL;
        int r = ht_tx_record_file(tx, ht_backend_id_to_string(fe->backend), fe->path, fe->new_content,
                                  fe->new_len, fe->mode, ret_item, &err);
        if (r < 0)
                return ht_error(ret_error, r, "%s", err), free(err), r;
        return 0;
}

static int file_error(const ht_context *c, const ht_file_edit *fe, int r, char **ret_error) {
        _cleanup_free_ char *shown = ht_display_path(c, fe->path);
        _cleanup_free_ char *hint = ht_write_error_hint(c, fe->path, r);
        return ht_error(ret_error, r, "cannot %s %s: %s%s", fe->new_content ? "write" : "remove", shown,
                        ht_strerror(-r), hint);
}

/* Every file of the plan, as a group (docs/DESIGN.md, "Durability"):
 * each new content into a temp file beside its file (stage_files), before
 * the begin record is written, so that one flush makes the temp files
 * and the begin record durable together (ht_tx_write_ahead_with takes
 * data); then each renamed over its file (or a file removed) by
 * install_files; the directories' fsyncs go to dirs, which the commit
 * flushes together with its own record. No other item comes between: the
 * runtime values and the follow-up commands (the bootloader tool that
 * reads /etc/default/grub) come after every file is in place, as before.
 * On error, staged temp files are left for the caller's
 * ht_staged_file_done. */
static int stage_files(const ht_context *c, const ht_plan *plan, ht_staged_file *staged, ht_fsync_batch *data,
                       ht_fsync_batch *dirs, char **ret_error) {
        int r = 0;
        for (size_t i = 0; i < plan->n_files && r >= 0; i++) {
                const ht_file_edit *fe = &plan->files[i];
                if (fe->new_content &&
                    (r = ht_stage_file(c, fe->path, fe->new_content, fe->new_len, fe->mode, 0, 0, data, dirs,
                                       &staged[i])) < 0)
                        r = file_error(c, fe, r, ret_error);
        }
        return r;
}

static int install_files(const ht_context *c, ht_tx *tx, const ht_plan *plan, const size_t *items,
                         ht_staged_file *staged, ht_fsync_batch *dirs, char **ret_error) {
        char *err = NULL;
        for (size_t i = 0; i < plan->n_files; i++) {
                const ht_file_edit *fe = &plan->files[i];
                int r = fe->new_content ? ht_staged_file_install(c, &staged[i], dirs)
                                        : ht_remove_file_batched(c, fe->path, dirs);
                if (r < 0)
                        return file_error(c, fe, r, ret_error);
                ht_fault_point("apply-file");
                r = ht_tx_mark_done(tx, items[i], &err);
                if (r < 0)
                        return ht_error(ret_error, r, "%s", err), free(err), r;
        }
        return 0;
}

/* Journal a runtime change ahead, and before it the value its write resets. */
/* Whether apply writes ch's runtime value (and journals it first). */
static bool writes_runtime(const ht_change *ch) {
        return ch->outcome == HT_OUTCOME_CHANGE && ch->runtime && ch->path;
}

static int record_runtime(const ht_context *c, ht_tx *tx, const ht_change *ch, size_t *ret_item,
                          size_t *ret_reset_item, char **ret_error) {
        size_t item, reset_item = SIZE_MAX;
        char *err = NULL;
        int r;
        if (ch->resets_path) {
                /* journaled before the write that resets it, so the undo,
                 * newest first, restores it after that write's own undo
                 * (which resets it again); "new" is what it holds now:
                 * hosttune does not set it */
                _cleanup_free_ char *now = NULL;
                r = ht_read_line(c, ch->resets_path, &now);
                if (r >= 0) {
                        const char *v = strstrip(now);
                        r = ht_tx_record_runtime(tx, ht_backend_id_to_string(ch->backend), ch->resets_key,
                                                 ch->resets_path, v, v, &reset_item, &err);
                }
                if (r < 0)
                        return ht_error(ret_error, r, "%s", err ? err : ht_strerror(-r)), free(err), r;
        }
        r = ht_tx_record_runtime(tx, ht_backend_id_to_string(ch->backend), ch->key, ch->path, NULL,
                                 ch->desired, &item, &err);
        if (r < 0)
                return ht_error(ret_error, r, "%s", err), free(err), r;
        *ret_item = item;
        *ret_reset_item = reset_item;
        return 0;
}

/* Write one runtime value, read it back. vm.nr_hugepages may come back
 * short when memory is fragmented: that is not a failure — the value is
 * persisted and a reboot completes it. */
static int apply_runtime(const ht_context *c, ht_tx *tx, ht_change *ch, size_t item, size_t reset_item,
                         ht_apply_result *res, char **ret_error) {
        char *err = NULL;
        int r;
        _cleanup_free_ char *readback = NULL;
        r = ht_fault_fail("apply-runtime-write");
        if (r == 0)
                r = ht_write_kernel_value(c, ch->path, ch->desired, &readback);
        if (r < 0)
                return ht_error(ret_error, r, "cannot write %s = %s: %s", ch->key, ch->desired, ht_strerror(-r));
        ht_fault_point("apply-runtime");
        r = ht_tx_mark_done(tx, item, &err);
        if (r >= 0 && reset_item != SIZE_MAX)
                r = ht_tx_mark_done(tx, reset_item, &err);
        if (r < 0)
                return ht_error(ret_error, r, "%s", err), free(err), r;

        if (ht_backend_sets_hugepages(ch->backend, ch->key)) {
                uint64_t want = 0, total = 0;
                if (parse_u64(ch->desired, &want) == 0 && ht_read_hugepages_total(c, &total) == 0 && total < want) {
                        strv_pushf(&res->notes,
                                   "HugePages_Total is %" PRIu64 " of the %" PRIu64 " asked for: memory is too fragmented "
                                   "to allocate them now; the setting is persisted and takes full effect after a reboot",
                                   total, want);
                        ch->reboot_required = true;
                        res->reboot_required = true;
                }
                return 0;
        }
        _cleanup_free_ char *got = readback ? ht_kernel_value_effective(readback) : NULL;
        if (!ht_kernel_values_equal(got, ch->desired))
                return ht_error(ret_error, -EIO, "%s: wrote %s but the kernel reads back %s", ch->key, ch->desired,
                                got ? got : "(nothing)");
        return 0;
}

/* Debian's grub-mkconfig (2.06) rewrites its -o file in place ("cat
 * grub.cfg.new > grub.cfg") and syncs nothing: a power cut in that window
 * leaves a truncated grub.cfg, and GRUB cannot boot the machine that would
 * recover it. So the tool writes a file beside it (ht_tool_temp_path),
 * which apply then puts in place as any other (fsync, rename, directory
 * fsync); recovery removes what a crash left of it. dirs: where the
 * directory's fsync goes (NULL: now); a removal a crash loses leaves a
 * temp that recovery removes, so it can wait for the commit's flush. */
static void remove_tool_temps(const ht_context *c, const char *tmp, ht_fsync_batch *dirs) {
        _cleanup_free_ char *tool_new = xasprintf("%s.new", tmp);
        (void)ht_remove_file_batched(c, tmp, dirs);
        (void)ht_remove_file_batched(c, tool_new, dirs);     /* grub-mkconfig's own temp, left by a crash */
}

static int install_tool_output(const ht_context *c, const char *tmp, const char *path, ht_fsync_batch *dirs,
                               char **ret_error) {
        _cleanup_free_ char *data = NULL;
        size_t len;
        int r = ht_read_file(c, tmp, HT_FILE_MAX, &data, &len);
        if (r >= 0)
                r = ht_write_file_atomic_batched(c, path, data, len, 0644, 0, 0, dirs);
        remove_tool_temps(c, tmp, dirs);
        if (r < 0) {
                _cleanup_free_ char *shown = ht_display_path(c, path);
                return ht_error(ret_error, r, "cannot put the new %s in place: %s", shown, ht_strerror(-r));
        }
        return 0;
}

int ht_follow_up_run(const ht_context *c, const char *action, char *const *argv, char ***notes) {
        /* only the running systemd and daemons of the running host */
        if (c->offline_root)
                return 0;
        if (streq(action, "daemon-reload")) {
                char *err = NULL;
                int r = ht_daemon_reload(&err);
                if (r < 0) {
                        strv_pushf(notes, "%s; run 'systemctl daemon-reload' by hand", err);
                        free(err);
                        return r;
                }
                return 1;
        }
        if (!argv || !argv[0])
                return 0;
        _cleanup_free_ char *cmd = ht_shell_join(argv);
        if (!ht_spawn_available(c, argv)) {
                strv_pushf(notes, "%s was not found; run '%s' by hand", argv[0], cmd);
                return -ENOENT;
        }
        _cleanup_free_ char *output = NULL;
        int r = ht_spawn(c, argv, &output);
        if (r != 0) {
                strv_pushf(notes, "%s failed (%s%d): %s; run it by hand", cmd, r < 0 ? "error " : "exit status ",
                           r < 0 ? -r : r, output ? strstrip(output) : "");
                return r < 0 ? r : -EIO;
        }
        return 1;
}

void ht_rollback_follow_ups(const ht_context *c, ht_tx *const *txs, size_t n, char ***msgs) {
        _cleanup_strv_free_ char **seen = NULL;
        for (size_t t = 0; t < n; t++)
                for (size_t i = 0; i < ht_tx_n_follow_ups(txs[t]); i++) {
                        ht_tx_follow_up f;
                        ht_tx_get_follow_up(txs[t], i, &f);
                        /* what runs as root comes from hosttune's own table,
                         * keyed by the action; a manifest names it at most */
                        const ht_follow_up_def *def = ht_follow_up_get(f.action);
                        if (!def) {
                                strv_pushf(msgs, "journal %s: follow-up %s is not one hosttune knows; not run",
                                           ht_tx_txid(txs[t]), f.action);
                                continue;
                        }
                        if (strv_contains(seen, def->action))
                                continue;
                        strv_push(&seen, def->action);
                        if (ht_follow_up_run(c, def->action, (char *const *)def->argv, msgs) > 0)
                                strv_pushf(msgs, "followed up: %s", f.description);
                }
}

/* The follow-ups a rollback must run again (see ht_tx_follow_up). */
static json_object *follow_ups_json(const ht_plan *plan) {
        json_object *l = NULL;
        for (size_t i = 0; i < plan->n_actions; i++) {
                const ht_post_action *a = &plan->actions[i];
                if (a->generates)
                        continue;
                json_object *f = json_object_new_object();
                json_object_object_add(f, "backend", json_object_new_string(ht_backend_id_to_string(a->backend)));
                json_object_object_add(f, "action", json_object_new_string(a->action));
                json_object_object_add(f, "description", json_object_new_string(a->description));
                if (a->argv)
                        json_object_object_add(f, "argv", ht_strv_to_json(a->argv));
                if (!l)
                        l = json_object_new_array();
                json_object_array_add(l, f);
        }
        return l;
}

/* Whether run_action gets as far as running a's tool (and so changes the
 * file it generates, which must be journaled ahead with the rest). */

/* item: the generated file's journal item (recorded ahead), SIZE_MAX: none */
static int run_action(const ht_context *c, ht_tx *tx, const ht_plan *plan, const ht_post_action *a, size_t item,
                      ht_fsync_batch *dirs, ht_apply_result *res, char **ret_error) {
        if (streq(a->action, "daemon-reload")) {
                ht_follow_up_run(c, a->action, NULL, &res->notes);
                return 0;
        }
        if (!a->argv)
                return 0;
        if (!ht_spawn_available(c, a->argv)) {
                _cleanup_free_ char *cmd = ht_shell_join(a->argv);
                if (c->offline_root) {
                        strv_pushf(&res->notes, "%s is not in this image: run '%s' at its first boot", a->argv[0], cmd);
                        return 0;
                }
                return ht_error(ret_error, -ENOENT, "cannot %s: %s was not found", a->description, a->argv[0]);
        }
        if (c->offline_root && !c->live_root_forced) {
                /* the tree's program is whoever made the tree's (issue 32):
                 * the files are right, the tool can run in the tree later */
                _cleanup_free_ char *cmd = ht_shell_join(a->argv);
                strv_pushf(&res->notes, "hosttune runs no program of a --root tree without --live-root: run '%s' "
                           "in %s yourself", cmd, c->root);
                return 0;
        }
        if (c->offline_root && geteuid() != 0) {
                /* confining it needs root; the files are right, the tool can run later */
                _cleanup_free_ char *cmd = ht_shell_join(a->argv);
                strv_pushf(&res->notes, "only root can run %s confined in the tree (its own namespaces): run '%s' "
                           "at its first boot", a->argv[0], cmd);
                return 0;
        }
        /* The file the command writes (grub.cfg) is journaled too, ahead */
        const char *generated = item != SIZE_MAX ? a->generates : NULL;
        char *err = NULL;
        int r;
        /* the argument naming the generated file names a temp file instead */
        _cleanup_strv_free_ char **argv = NULL;
        _cleanup_free_ char *tmp = NULL;
        for (size_t i = 0; a->argv[i]; i++) {
                bool names_it = generated && streq(a->argv[i], generated);
                if (names_it && !tmp)
                        tmp = ht_tool_temp_path(generated);
                strv_push(&argv, names_it ? tmp : a->argv[i]);
        }
        if (tmp)
                remove_tool_temps(c, tmp, NULL);
        _cleanup_free_ char *output = NULL;
        r = ht_spawn(c, argv, &output);
        ht_fault_point("apply-action");
        if (r != 0 && tmp)
                remove_tool_temps(c, tmp, NULL);
        if (r != 0) {
                _cleanup_free_ char *cmd = ht_shell_join(a->argv);
                return ht_error(ret_error, r < 0 ? r : -EIO, "%s failed (%s%d): %s", cmd, r < 0 ? "error " : "exit status ",
                                r < 0 ? -r : r, output ? strstrip(output) : "");
        }
        if (generated) {
                /* its data durable before its rename; its directory is
                 * flushed with the commit record, as the other files'
                 * are: until the commit, recovery takes any content of
                 * the generated file for the tool's and restores it */
                if (tmp) {
                        r = install_tool_output(c, tmp, generated, dirs, ret_error);
                        if (r < 0)
                                return r;
                } else
                        r = ht_fsync_path(c, generated);
                if (r < 0) {
                        _cleanup_free_ char *shown = ht_display_path(c, generated);
                        return ht_error(ret_error, r, "cannot fsync %s after %s: %s", shown, a->argv[0], ht_strerror(-r));
                }
                r = ht_tx_update_generated(tx, item, &err);
                if (r < 0)
                        return ht_error(ret_error, r, "%s", err), free(err), r;
        }
        return 0;
}

/* A SIGINT, SIGTERM or SIGHUP the command caught (interrupt.h): before
 * the commit, apply stops at its next step and undoes what it changed,
 * as for any failure, rather than leave the host half-changed for the
 * next run's recovery; after it, the apply is done and stays. */
static int check_interrupted(char **ret_error) {
        int sig = ht_interrupted();
        if (!sig)
                return 0;
        *ret_error = xasprintf("interrupted by %s before the commit", ht_interrupt_name(sig));
        return -EINTR;
}

int ht_apply(const ht_context *c, ht_planning *p, ht_apply_result *ret, char **ret_error) {
        ht_plan *plan = p->plan;
        ht_apply_result res = {0};
        if (plan->errors)
                return ht_error(ret_error, -EINVAL, "the plan has errors; nothing was changed");
        res.reboot_required = plan->reboot_required;
        if (!ht_plan_changed(plan)) {
                *ret = res;
                return 0;
        }

        ht_tx *tx = NULL;
        char *err = NULL;
        size_t actions_ran = 0;
        int r = check_interrupted(&err);
        if (r < 0) {
                *ret_error = err;
                return r;
        }
        _cleanup_free_ size_t *file_items = NULL, *change_items = NULL, *action_items = NULL;
        ht_staged_file *staged = xcalloc(plan->n_files + 1, sizeof(*staged));
        ht_fsync_batch dirs = {0};      /* fsynced with the commit record */
        json_object *params = params_json(p->resolved), *facts = facts_that_mattered(p->facts);
        r = ht_tx_begin(c, "apply", p->resolved->name, params, facts, &tx, &err);
        /* the transaction holds its own references */
        json_object_put(params);
        json_object_put(facts);
        if (r < 0) {
                free(staged);
                *ret_error = err;
                return r;
        }
        json_object *expected = ht_settings_to_json(p->resolved);
        r = ht_tx_set_expected(tx, expected, &err);
        json_object_put(expected);
        if (r < 0)
                goto undo;
        /* for a rollback, and for this apply's own undo should one of them
         * fail: the files it restores need them again */
        json_object *follow_ups = follow_ups_json(plan);
        if (follow_ups) {
                ht_tx_set_info(tx, "follow_ups", follow_ups);
                json_object_put(follow_ups);
        }

        /* 1. Write-ahead: every item's prior state (and backup) first, on
         * disk by one manifest write, before anything changes. */
        file_items = xcalloc(plan->n_files + 1, sizeof(size_t));
        change_items = xcalloc(2 * plan->n_changes + 1, sizeof(size_t));
        action_items = xcalloc(plan->n_actions + 1, sizeof(size_t));
        for (size_t i = 0; i < plan->n_files; i++) {
                r = record_file(tx, &plan->files[i], &file_items[i], &err);
                if (r < 0)
                        goto undo;
        }
        for (size_t i = 0; i < plan->n_changes; i++) {
                ht_change *ch = &plan->changes[i];
                if (!writes_runtime(ch))
                        continue;
                r = record_runtime(c, tx, ch, &change_items[2 * i], &change_items[2 * i + 1], &err);
                if (r < 0)
                        goto undo;
        }
        for (size_t i = 0; i < plan->n_actions; i++) {
                const ht_post_action *a = &plan->actions[i];
                action_items[i] = SIZE_MAX;
                if (!a->generates || !ht_action_runs_tool(c, a))
                        continue;
                r = ht_tx_record_generated(tx, ht_backend_id_to_string(a->backend), a->generates, &action_items[i],
                                           &err);
                if (r < 0)
                        goto undo;
                /* a read-only /boot ('ro' in fstab, Fedora CoreOS's), an
                 * immutable grub.cfg or /boot/grub: the tool's output
                 * could not be put in place after every file is; refused
                 * now, as plan said */
                r = ht_generated_refusal(c, a);
                if (r < 0) {
                        _cleanup_free_ char *shown = ht_display_path(c, a->generates);
                        _cleanup_free_ char *hint = ht_write_error_hint(c, a->generates, r);
                        r = ht_error(&err, r, "cannot write %s: %s%s", shown, ht_strerror(-r), hint);
                        goto undo;
                }
                r = 0;
        }
        /* with the new contents' temp files: every file's data durable
         * with the begin record, before any rename */
        ht_fsync_batch data = {0};
        r = stage_files(c, plan, staged, &data, &dirs, &err);
        if (r >= 0)
                r = ht_tx_write_ahead_with(tx, &data, &err);
        ht_fsync_batch_done(&data);
        if (r >= 0)
                r = check_interrupted(&err);
        if (r < 0)
                goto undo;

        /* 2. The changes: the files as a group (install_files), then the
         * runtime values, then the follow-ups; done is in memory until
         * the commit */
        /* from here a failure has changed the host, and the undo must
         * put it back */
        res.host_changed = true;
        r = install_files(c, tx, plan, file_items, staged, &dirs, &err);
        if (r < 0)
                goto undo;
        for (size_t i = 0; i < plan->n_changes; i++) {
                ht_change *ch = &plan->changes[i];
                if (!writes_runtime(ch))
                        continue;
                r = check_interrupted(&err);
                if (r >= 0)
                        r = apply_runtime(c, tx, ch, change_items[2 * i], change_items[2 * i + 1], &res, &err);
                if (r < 0)
                        goto undo;
        }
        for (; actions_ran < plan->n_actions; actions_ran++) {
                r = check_interrupted(&err);
                if (r < 0)
                        goto undo;
                r = run_action(c, tx, plan, &plan->actions[actions_ran], action_items[actions_ran], &dirs, &res, &err);
                if (r < 0)
                        goto undo;
        }

        res.reboot_required = res.reboot_required || plan->reboot_required;
        ht_tx_set_reboot_required(tx, res.reboot_required);
        /* how it was asked for, so verify can say how to ask again */
        json_object *sets = ht_strv_to_json(p->sets);
        ht_tx_set_info(tx, "set", sets);
        json_object_put(sets);
        /* absolute, so the command verify suggests works from anywhere */
        char *profile_file = p->resolved->file ? realpath(p->resolved->file, NULL) : NULL;
        if (profile_file) {
                json_object *file = json_object_new_string(profile_file);
                ht_tx_set_info(tx, "profile_file", file);
                json_object_put(file);
                free(profile_file);
        }
        if (res.notes) {
                json_object *notes = json_object_new_array();
                for (size_t i = 0; res.notes[i]; i++)
                        json_object_array_add(notes, json_object_new_string(res.notes[i]));
                ht_tx_set_info(tx, "notes", notes);
                json_object_put(notes);
        }
        ht_fault_point("apply-commit");
        r = check_interrupted(&err);
        if (r < 0)
                goto undo;
        /* the files' directories flushed with the commit record, and all
         * of them durable before it is renamed into place */
        r = ht_tx_commit_with(tx, &dirs, &err);
        if (r < 0)
                goto undo;
        for (size_t i = 0; i < plan->n_files; i++)
                ht_staged_file_done(&staged[i]);
        free(staged);
        ht_fsync_batch_done(&dirs);

        res.txid = xstrdup(ht_tx_txid(tx));
        res.changed = true;
        for (size_t i = 0; i < plan->n_changes; i++) {
                const ht_change *ch = &plan->changes[i];
                if (ch->outcome == HT_OUTCOME_CHANGE)
                        ht_audit_change("hosttune-apply", ch->key, ch->current, ch->desired, res.txid, true);
        }
        for (size_t i = 0; i < plan->n_files; i++)
                ht_audit_change("hosttune-apply", plan->files[i].path, NULL, NULL, res.txid, true);
        ht_tx_free(tx);
        *ret = res;
        return 0;

undo:;
        /* temp files not renamed yet go first: the undo restores the rest */
        for (size_t i = 0; i < plan->n_files; i++)
                ht_staged_file_done(&staged[i]);
        free(staged);
        ht_fsync_batch_done(&dirs);
        _cleanup_free_ char *reason = err ? err : xstrdup(ht_strerror(-r));
        char *undo_err = NULL;
        if (ht_tx_abort(tx, reason, &res.undo_messages, &undo_err) < 0) {
                /* What the host is, not what the journal could write: a full
                 * state directory refuses the record of an undo that put
                 * everything back, and nothing was changed before the
                 * first install. */
                _cleanup_strv_free_ char **left = NULL;
                size_t n_left = res.host_changed ? ht_tx_not_as_before(tx, &left) : 0;
                const char *why = undo_err ? undo_err : "unknown error";
                if (n_left > 0) {
                        /* the transaction stays pending: every later run retries */
                        _cleanup_free_ char *names = strv_join(left, ", ");
                        strv_pushf(&res.undo_messages, "the undo of the failed apply did not finish: %s", why);
                        strv_pushf(&res.undo_messages, "not as before: %s", names);
                        res.undo_incomplete = true;
                } else if (ht_tx_on_disk(tx))
                        strv_pushf(&res.undo_messages, "%s; the host is as before, the journal could not record it: "
                                   "transaction %s stays pending, and the first hosttune run (any command) with "
                                   "room in %s closes it, with nothing to undo", why, ht_tx_txid(tx), c->state_dir);
                else
                        strv_pushf(&res.undo_messages, "%s; the journal keeps no record of this apply", why);
                free(undo_err);
        }
        /* the follow-ups that made the files take effect make the restored
         * ones take effect too (the one that failed included) */
        if (actions_ran > 0)
                ht_rollback_follow_ups(c, &tx, 1, &res.undo_messages);
        ht_audit_change("hosttune-apply", p->resolved->name, NULL, NULL, ht_tx_txid(tx), false);
        ht_tx_free(tx);
        *ret_error = TAKE_PTR(reason);
        strv_free(res.notes);
        *ret = (ht_apply_result){.undo_messages = res.undo_messages, .undo_incomplete = res.undo_incomplete,
                                 .host_changed = res.host_changed};
        return r;
}
