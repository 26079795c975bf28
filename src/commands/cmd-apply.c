/* apply, rollback, history: the commands that change the host, and the
 * one that lists what they did. Each takes the run lock and first finishes
 * whatever a crashed run left behind. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "apply.h"
#include "audit-log.h"
#include "backend-common.h"
#include "backend.h"
#include "commands.h"
#include "interrupt.h"
#include "journal.h"
#include "lock.h"
#include "render.h"
#include "util.h"

/* Lock, then recover crashed transactions. NULL on failure (reported).
 *
 * The report comes after the transaction, and its reader may have left
 * (`hosttune apply oracle | head -1`, a pipeline's reader that died):
 * killed by SIGPIPE at that write, the run ended with status 141 instead
 * of the one hosttune(8) documents, and without the journald record of
 * the transaction and the standard error lines that say an undo stopped
 * part-way, which come after the report. With SIGPIPE ignored the write
 * fails (EPIPE) and main()'s check of standard output says so (exit 1).
 * The programs run get the default back (ht_spawn). */
static ht_lock *begin_exclusive(const ht_cmd_opts *o) {
        signal(SIGPIPE, SIG_IGN);
        ht_interrupt_defer();
        ht_lock *lock = NULL;
        _cleanup_free_ char *err = NULL;
        int r = o->ctx->lock_in_state_dir ? ht_state_dir_create(o->ctx, &err) : 0;
        if (r >= 0)
                r = ht_lock_acquire_ctx(o->ctx, &lock, &err);
        if (r < 0) {
                /* an administrator who left out sudo: say what is missing,
                 * not only which file said no */
                bool needs_root = (r == -EACCES || r == -EPERM) && geteuid() != 0;
                ht_report_error("%s%s", err ? err : ht_strerror(-r),
                                needs_root ? "; changing the host takes root: run it as root (sudo)" : "");
                return NULL;
        }
        if (ht_recover_locked(o->ctx) < 0) {
                ht_lock_release(lock);
                return NULL;
        }
        return lock;
}

int ht_cmd_apply(const ht_cmd_opts *o) {
        if (o->dry_run)
                return ht_cmd_plan(o);
        _cleanup_(ht_lock_releasep) ht_lock *lock = begin_exclusive(o);
        if (!lock)
                return HT_EXIT_ERROR;

        _cleanup_free_ char *error = NULL;
        ht_planning p;
        int r = ht_make_plan(o->ctx, o->args[0], o->sets, &p, &error);
        if (r < 0) {
                ht_report_error("%s", error);
                return HT_EXIT_ERROR;
        }
        bool color = ht_use_color(o->ctx, STDOUT_FILENO);
        if (!o->ctx->json)
                ht_report_facts_notices(o->ctx, p.facts, NULL);
        if (p.plan->errors) {
                if (o->ctx->json) {
                        json_object *j = ht_plan_to_json(p.plan), *w = NULL;
                        json_object_object_get_ex(j, "warnings", &w);
                        ht_report_facts_notices(o->ctx, p.facts, w);
                        json_object_object_add(j, "txid", NULL);
                        /* refused: nothing was changed, whatever the plan would change,
                         * so nothing waits for a reboot either (the plan's own flag
                         * stays on its changes[]): a provisioning script that reboots
                         * on reboot_required must not reboot a host left as it was */
                        json_object_object_add(j, "changed", json_object_new_boolean(false));
                        json_object_object_add(j, "reboot_required", json_object_new_boolean(false));
                        ht_print_json(stdout, j);
                        json_object_put(j);
                } else
                        ht_print_plan(stdout, p.plan, color, o->ctx->quiet);
                ht_report_error("the plan has errors; nothing was changed");
                ht_planning_done(&p);
                return HT_EXIT_ERROR;
        }

        ht_apply_result res = {0};
        r = ht_apply(o->ctx, &p, &res, &error);
        int code = HT_EXIT_OK;
        if (o->ctx->json) {
                json_object *j = ht_plan_to_json(p.plan);
                json_object_object_add(j, "txid", res.txid ? json_object_new_string(res.txid) : NULL);
                json_object_object_add(j, "changed", json_object_new_boolean(r >= 0 && res.changed));
                json_object_object_add(j, "reboot_required", json_object_new_boolean(res.reboot_required));
                json_object *w;
                if (json_object_object_get_ex(j, "warnings", &w))
                        for (size_t i = 0; res.notes && res.notes[i]; i++)
                                json_object_array_add(w, json_object_new_string(res.notes[i]));
                ht_report_facts_notices(o->ctx, p.facts, json_object_object_get_ex(j, "warnings", &w) ? w : NULL);
                if (r < 0) {
                        json_object *e;
                        if (json_object_object_get_ex(j, "errors", &e))
                                json_object_array_add(e, json_object_new_string(error));
                        json_object_object_add(j, "rollback", ht_strv_to_json(res.undo_messages));
                        json_object_object_add(j, "rollback_complete", json_object_new_boolean(!res.undo_incomplete));
                }
                ht_print_json(stdout, j);
                json_object_put(j);
        } else if (r >= 0) {
                if (!o->ctx->quiet || res.changed)
                        ht_print_plan(stdout, p.plan, color, o->ctx->quiet);
                for (size_t i = 0; res.notes && res.notes[i]; i++) {
                        _cleanup_free_ char *note = ht_text_safe(res.notes[i]);
                        printf("note: %s\n", note);
                }
                if (res.changed)
                        printf("\nApplied as transaction %s.%s\n", res.txid,
                               res.reboot_required ? " Reboot to complete it; then run 'hosttune verify'." : "");
        }
        if (r < 0) {
                ht_report_error("apply failed: %s", error);
                for (size_t i = 0; res.undo_messages && res.undo_messages[i]; i++)
                        fprintf(stderr, "hosttune: rollback: %s\n", res.undo_messages[i]);
                if (res.undo_incomplete) {
                        fprintf(stderr, "hosttune: the host is NOT as it was before this apply: the items named "
                                        "above as not as before keep the values shown, the rest is restored; "
                                        "the transaction stays in the journal and the next hosttune run (any "
                                        "command) retries the undo%s\n",
                                r == -ENOSPC || r == -EDQUOT ? ", once the file system named above has room" : "");
                        code = HT_EXIT_INCOMPLETE;
                } else {
                        /* what the host is, from the journal's check of it
                         * (ht_apply), whatever the journal could record */
                        fprintf(stderr, "hosttune: %s\n",
                                res.host_changed ? "the host is as it was before this apply: its changes were undone"
                                                 : "nothing was changed: the host is as it was before this apply");
                        code = HT_EXIT_ERROR;
                }
        }
        if (r >= 0 && res.changed) {
                _cleanup_free_ char *msg = xasprintf("hosttune applied profile %s (transaction %s)%s", p.plan->profile,
                                                     res.txid, res.reboot_required ? "; reboot required" : "");
                ht_log_transaction("apply", res.txid, p.plan->profile, "committed", p.plan->n_changes + p.plan->n_files,
                                   res.reboot_required, msg);
        }
        ht_apply_result_done(&res);
        ht_planning_done(&p);
        return code;
}

/* Whether a transaction's items touched what takes effect at boot (the
 * kernel command line). */
static bool touched_boot(ht_tx *tx) {
        for (size_t i = 0; i < ht_tx_n_items(tx); i++) {
                ht_tx_item it;
                ht_tx_get_item(tx, i, &it);
                ht_backend_id b;
                if (it.backend && ht_backend_from_string(it.backend, &b) == 0 && ht_backends[b]->boot_effect)
                        return true;
        }
        return false;
}

/* What a rollback cannot take back from running processes (issue 39):
 * HugePages a workload maps stay its own until it exits, and a service
 * keeps the limits it started with until it restarts. One message per
 * process that maps HugePages (its name, pid and kB, /proc/PID/smaps) and
 * per unit whose drop-in the rollback restored with a process running in
 * it (the first of its cgroup); nothing on an image. */
static void rollback_running(const ht_context *c, ht_tx *const *txs, size_t n, char ***msgs) {
        if (!ht_root_is_live(c))
                return;
        ht_facts *f = NULL;
        if (ht_facts_collect(c, HT_FACTS_WITH_WORKLOAD, &f) == 0) {
                for (size_t i = 0; i < f->n_processes; i++) {
                        ht_proc_memory m;
                        if (ht_proc_memory_read(c, f->processes[i].pid, &m) < 0)
                                continue;
                        uint64_t kb = m.hugetlb_mapped_kb != HT_U64_UNKNOWN ? m.hugetlb_mapped_kb : 0;
                        if (m.hugetlb_kb != HT_U64_UNKNOWN && m.hugetlb_kb > kb)
                                kb = m.hugetlb_kb;
                        if (kb > 0)
                                strv_pushf(msgs, "%s (pid %u) keeps the %" PRIu64 " kB of HugePages it maps until it "
                                           "restarts", f->processes[i].name, f->processes[i].pid, kb);
                }
                ht_facts_free(f);
        }
        _cleanup_strv_free_ char **units = NULL;
        for (size_t t = 0; t < n; t++)
                for (size_t i = 0; i < ht_tx_n_items(txs[t]); i++) {
                        ht_tx_item it;
                        ht_tx_get_item(txs[t], i, &it);
                        const char *p = it.path ? startswith(it.path, "/etc/systemd/system/") ? it.path + 20 : NULL : NULL;
                        const char *d = p ? strstr(p, ".d/hosttune.conf") : NULL;
                        if (!d || !streq(d, ".d/hosttune.conf"))
                                continue;
                        _cleanup_free_ char *unit = xstrndup(p, (size_t)(d - p));
                        if (!strv_contains(units, unit))
                                strv_push(&units, unit);
                }
        for (size_t u = 0; units && units[u]; u++) {
                _cleanup_free_ char *path = xasprintf("/sys/fs/cgroup/system.slice/%s/cgroup.procs", units[u]);
                _cleanup_free_ char *procs = NULL;
                uint64_t pid;
                if (ht_read_file(c, path, 1 << 16, &procs, NULL) < 0)
                        continue;
                _cleanup_free_ char *first = xstrndup(procs, strcspn(procs, "\n"));
                if (parse_u64(first, &pid) == 0 && pid > 0)
                        strv_pushf(msgs, "%s (pid %" PRIu64 ") keeps the limits it started with until it restarts: "
                                   "systemctl restart %s", units[u], pid, units[u]);
        }
}

/* A rollback whose commit record could not be written (a full state
 * directory) is not committed: the next run's recovery would undo its
 * restores behind the user's back. They are undone now instead, so that
 * exit 1 says what is true (the host as before this rollback), each
 * check made on the host, not on what the journal could record (as
 * apply's own undo). HT_EXIT_ERROR, or HT_EXIT_INCOMPLETE when an item
 * is not back as it was. */
static int undo_uncommitted(const ht_context *c, ht_tx *record, ht_tx *const *targets, size_t n, const char *why,
                            char ***msgs) {
        _cleanup_free_ char *aerr = NULL;
        int r = ht_tx_abort(record, why, msgs, &aerr);
        /* the apply's files take effect again as the rollback's did */
        ht_rollback_follow_ups(c, targets, n, msgs);
        if (r >= 0) {
                strv_pushf(msgs, "the rollback's restores were undone: the host is as it was before this rollback");
                return HT_EXIT_ERROR;
        }
        _cleanup_strv_free_ char **left = NULL;
        if (ht_tx_not_as_before(record, &left) == 0) {
                strv_pushf(msgs, "the rollback's restores were undone: the host is as it was before this rollback; "
                           "the journal could not record it (%s): transaction %s stays pending, and the first "
                           "hosttune run with room in %s closes it, with nothing to undo",
                           aerr ? aerr : "unknown error", ht_tx_txid(record), c->state_dir);
                return HT_EXIT_ERROR;
        }
        _cleanup_free_ char *names = strv_join(left, ", ");
        strv_pushf(msgs, "the undo of the uncommitted rollback did not finish: %s; not as before: %s; the next "
                   "hosttune run (any command) retries it", aerr ? aerr : "unknown error", names);
        return HT_EXIT_INCOMPLETE;
}

int ht_cmd_rollback(const ht_cmd_opts *o) {
        _cleanup_(ht_lock_releasep) ht_lock *lock = begin_exclusive(o);
        if (!lock)
                return HT_EXIT_ERROR;
        const char *txid = o->args[0];
        ht_tx **targets = NULL;
        size_t n = 0;
        _cleanup_free_ char *err = NULL;
        int r;
        if (txid)
                r = ht_journal_committed_since(o->ctx, txid, &targets, &n, &err);
        else {
                ht_tx *last = NULL;
                r = ht_journal_last_committed(o->ctx, "apply", &last, &err);
                if (r == -ENOENT) {
                        if (o->ctx->json) {
                                json_object *j = json_object_new_object();
                                json_object_object_add(j, "changed", json_object_new_boolean(false));
                                json_object_object_add(j, "txids", json_object_new_array());
                                ht_print_json(stdout, j);
                                json_object_put(j);
                        } else
                                printf("Nothing to roll back: no committed apply in the journal.\n");
                        return HT_EXIT_OK;
                }
                if (r >= 0) {
                        targets = xcalloc(1, sizeof(*targets));
                        targets[0] = last;
                        n = 1;
                }
        }
        if (r < 0) {
                ht_report_error("%s", err ? err : ht_strerror(-r));
                return HT_EXIT_ERROR;
        }

        ht_tx *record = NULL;
        r = ht_tx_begin(o->ctx, "rollback", ht_tx_profile(targets[0]), NULL, NULL, &record, &err);
        if (r < 0) {
                ht_report_error("%s", err);
                ht_tx_list_free(targets, n);
                return HT_EXIT_ERROR;
        }
        _cleanup_strv_free_ char **msgs = NULL;
        json_object *undone = json_object_new_array();
        bool reboot = false, uncommitted = false;
        int code = HT_EXIT_OK;
        for (size_t i = 0; i < n; i++) {
                free(err);
                err = NULL;
                r = ht_tx_rollback(targets[i], record, 0, &msgs, &err);
                if (r < 0) {
                        /* -EIO: items were undone before one failed; an
                         * earlier transaction may be rolled back already */
                        code = r == -EIO || i > 0 ? HT_EXIT_INCOMPLETE : HT_EXIT_ERROR;
                        break;
                }
                json_object_array_add(undone, json_object_new_string(ht_tx_txid(targets[i])));
                /* an image that has never booted boots with the rollback */
                reboot = reboot || (touched_boot(targets[i]) && ht_root_is_live(o->ctx));
                ht_audit_change("hosttune-rollback", ht_tx_txid(targets[i]), NULL, NULL, ht_tx_txid(record), true);
        }
        /* what was restored takes effect the way the apply's files did
         * (daemon-reload, logind's SIGHUP), a part-way rollback included */
        size_t restored = json_object_array_length(undone) + (code == HT_EXIT_INCOMPLETE ? 1 : 0);
        ht_rollback_follow_ups(o->ctx, targets, restored < n ? restored : n, &msgs);
        if (restored > 0)
                rollback_running(o->ctx, targets, restored < n ? restored : n, &msgs);
        if (code == HT_EXIT_OK) {
                ht_tx_set_reboot_required(record, reboot);
                r = ht_tx_commit(record, &err);
                if (r < 0) {
                        code = undo_uncommitted(o->ctx, record, targets, n, err, &msgs);  /* reported below */
                        uncommitted = true;
                        json_object_put(undone);
                        undone = json_object_new_array();
                }
        } else if (code == HT_EXIT_INCOMPLETE) {
                /* What was restored stays restored (undoing the record would
                 * re-apply it behind the user's back); the target keeps its
                 * status, so 'rollback' again finishes it. */
                _cleanup_free_ char *cerr = NULL;
                _cleanup_free_ char *why = xasprintf("rollback incomplete: %s", err ? err : "failed");
                if (ht_tx_close_failed(record, why, &cerr) < 0)
                        ht_report_error("%s", cerr);
        } else {
                /* nothing was changed: the record goes as failed */
                _cleanup_strv_free_ char **undo_msgs = NULL;
                _cleanup_free_ char *aerr = NULL;
                ht_tx_abort(record, err ? err : "rollback failed", &undo_msgs, &aerr);
        }
        if (o->ctx->json) {
                json_object *j = json_object_new_object();
                json_object_object_add(j, "changed", json_object_new_boolean(json_object_array_length(undone) > 0 ||
                                                                             code == HT_EXIT_INCOMPLETE));
                json_object_object_add(j, "txids", undone);
                json_object_object_add(j, "rollback_txid",
                                       code == HT_EXIT_OK ? json_object_new_string(ht_tx_txid(record)) : NULL);
                json_object_object_add(j, "reboot_required", json_object_new_boolean(reboot));
                json_object_object_add(j, "messages", ht_strv_to_json(msgs));
                if (code != HT_EXIT_OK) {
                        json_object *e = json_object_new_array();
                        json_object_array_add(e, json_object_new_string(err ? err : "rollback failed"));
                        json_object_object_add(j, "errors", e);
                        json_object_object_add(j, "complete", json_object_new_boolean(false));
                }
                ht_print_json(stdout, j);
                json_object_put(j);
        } else {
                /* what was restored is said even with -q when the rest failed */
                for (size_t i = 0; msgs && msgs[i]; i++)
                        if (!o->ctx->quiet || code != HT_EXIT_OK)
                                printf("  %s\n", msgs[i]);
                if (code == HT_EXIT_OK) {
                        _cleanup_free_ char *what = n == 1 ? xstrdup(ht_tx_txid(targets[0])) :
                                                             xasprintf("%zu transactions", n);
                        printf("Rolled back %s (recorded as %s).%s\n", what, ht_tx_txid(record),
                               reboot ? " The kernel command line changed: reboot to complete it." : "");
                }
                json_object_put(undone);
        }
        if (code != HT_EXIT_OK) {
                fflush(stdout);
                ht_report_error("%s", err ? err : "rollback failed");
        }
        if (code == HT_EXIT_INCOMPLETE && uncommitted)
                fprintf(stderr, "hosttune: the host is NOT as it was before this rollback: the items named above "
                                "as not as before keep the rollback's values; the next hosttune run retries\n");
        else if (code == HT_EXIT_INCOMPLETE)
                fprintf(stderr, "hosttune: the rollback is incomplete: what is listed as restored stays restored "
                                "(nothing was re-applied); the items not restored keep the values shown; run "
                                "'hosttune rollback' again once the cause is fixed\n");
        if (code == HT_EXIT_OK) {
                _cleanup_free_ char *msg = xasprintf("hosttune rolled back %zu transaction%s", n, n == 1 ? "" : "s");
                ht_log_transaction("rollback", ht_tx_txid(record), ht_tx_profile(record), "committed", n, reboot, msg);
        }
        ht_tx_free(record);
        ht_tx_list_free(targets, n);
        return code;
}

static const char *jstr(json_object *o, const char *k) {
        json_object *v;
        if (!json_object_object_get_ex(o, k, &v) || !v)
                return NULL;
        return json_object_get_string(v);
}

int ht_cmd_history(const ht_cmd_opts *o) {
        json_object *list = NULL;
        _cleanup_free_ char *err = NULL;
        int r = ht_journal_list(o->ctx, &list, &err);
        if (r < 0) {
                ht_report_error("%s", err ? err : ht_strerror(-r));
                return HT_EXIT_ERROR;
        }
        if (o->ctx->json) {
                json_object *j = json_object_new_object();
                json_object_object_add(j, "transactions", list);
                ht_print_json(stdout, j);
                json_object_put(j);
                return HT_EXIT_OK;
        }
        size_t n = json_object_array_length(list);
        /* the profile column fits the longest name (tuned:throughput-performance) */
        int pw = 10;
        for (size_t i = 0; i < n; i++) {
                const char *p = jstr(json_object_array_get_idx(list, i), "profile");
                if (p && (int)strlen(p) > pw && strlen(p) <= 64)
                        pw = (int)strlen(p);
        }
        if (n == 0)
                printf("No transactions in the journal (%s).\n", o->ctx->state_dir);
        else
                printf("%-26s  %-20s  %-8s  %-*s  %-11s  %7s  %s\n", "TXID", "TIME", "COMMAND", pw, "PROFILE", "STATUS",
                       "CHANGES", "REBOOT");
        for (size_t i = 0; i < n; i++) {
                json_object *t = json_object_array_get_idx(list, i);
                json_object *ch, *rb;
                json_object_object_get_ex(t, "changes", &ch);
                json_object_object_get_ex(t, "reboot_required", &rb);
                const char *created = jstr(t, "created");
                printf("%-26s  %-20.20s  %-8s  %-*s  %-11s  %7" PRId64 "  %s\n", jstr(t, "txid"),
                       created ? created : "-", jstr(t, "command") ? jstr(t, "command") : "-",
                       pw, jstr(t, "profile") ? jstr(t, "profile") : "-", jstr(t, "status"),
                       ch ? json_object_get_int64(ch) : 0, rb && json_object_get_boolean(rb) ? "yes" : "no");
                const char *e = jstr(t, "error");
                if (e)
                        printf("    %s\n", e);
        }
        json_object_put(list);
        return HT_EXIT_OK;
}
