/* Crash recovery for every command: a transaction a crash left pending
 * means the host is half-changed, so the next hosttune run of any kind
 * rolls it back (issue 5) — apply and rollback under the lock they hold
 * throughout, the others (plan, show, history, facts, ...) here, before
 * they look at the host, so what they print is a state somebody chose. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "commands.h"
#include "journal.h"
#include "lock.h"
#include "util.h"

void ht_commands_init(void) {
        /* the rooms below know the backends through the registry only */
        ht_backend_registry_use(ht_backends);
        /* the journal knows no backend: the files it may restore are theirs */
        ht_journal_confine(ht_backend_manages_file);
}

int ht_recover_locked(const ht_context *c) {
        _cleanup_strv_free_ char **msgs = NULL;
        _cleanup_free_ char *err = NULL;
        int r = ht_journal_recover(c, &msgs, &err);
        ht_report_warnings(c, msgs);
        if (r == -EBADMSG) {
                /* a corrupt old manifest must not block tuning; the
                 * messages above name it */
                if (!c->quiet && !msgs)
                        fprintf(stderr, "hosttune: warning: %s\n", err ? err : "a journal manifest is corrupt");
                return 0;
        }
        if (r < 0) {
                ht_report_error("cannot recover an unfinished transaction: %s", err ? err : ht_strerror(-r));
                return r;
        }
        if (r > 0 && !c->quiet)
                fprintf(stderr, "hosttune: recovered %d unfinished transaction%s (rolled back)\n", r,
                        r == 1 ? "" : "s");
        return r;
}

/* How long a reading command waits for another hosttune's transaction:
 * the verify unit's TimeoutStartSec=5min holds udevadm settle's 120 s,
 * this and the verify itself. */
#define HT_TRANSACTION_WAIT_MS (120u * 1000)

void ht_recover_pending(const ht_context *c, bool wait_for_transaction) {
        _cleanup_strv_free_ char **pending = NULL;
        _cleanup_free_ char *err = NULL;
        /* a journal we may not read (not root) cannot be ours to recover */
        if (ht_journal_pending(c, &pending, &err) <= 0)
                return;
        ht_lock *lock = NULL;
        _cleanup_free_ char *lerr = NULL;
        int r = ht_lock_acquire_ctx(c, &lock, &lerr);
        if (r == -EBUSY && !wait_for_transaction)
                /* another hosttune runs: the transaction is most likely its
                 * own, still in progress; never touch it */
                return;
        if (r == -EBUSY) {
                /* The same, but what verify and status read meanwhile is
                 * the host half-changed: their verdict (the metrics timer,
                 * every 15 minutes, meeting an Ansible run's apply) would
                 * be a drift that is none, and HosttuneDrift fires at
                 * once. So they wait for it to finish, as long as a
                 * transaction with grub-mkconfig and os-prober may take. */
                if (!c->quiet)
                        fprintf(stderr, "hosttune: %s, with a transaction in progress; waiting up to %u seconds "
                                        "for it to finish\n", lerr, HT_TRANSACTION_WAIT_MS / 1000);
                free(lerr);
                lerr = NULL;
                r = ht_lock_acquire_ctx_wait(c, HT_TRANSACTION_WAIT_MS, &lock, &lerr);
                if (r == -EBUSY) {
                        if (!c->quiet)
                                fprintf(stderr, "hosttune: warning: %s: what follows may show the host "
                                                "half-changed by its transaction\n", lerr);
                        return;
                }
        }
        if (r < 0) {
                if (!c->quiet)
                        for (char **t = pending; *t; t++)
                                fprintf(stderr,
                                        "hosttune: warning: journal %s: an unfinished transaction (an interrupted "
                                        "apply or rollback) leaves the host half-changed, and this run cannot roll "
                                        "it back (%s); run any hosttune command as root to do so\n",
                                        *t, lerr ? lerr : ht_strerror(-r));
                return;
        }
        /* the command goes on either way: history must still show the
         * journal, plan the host, even when the recovery failed (said) */
        (void)ht_recover_locked(c);
        ht_lock_release(lock);
}
