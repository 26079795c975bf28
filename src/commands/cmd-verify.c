#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "audit-log.h"
#include "backend-common.h"
#include "commands.h"
#include "openmetrics.h"
#include "render.h"
#include "util.h"
#include "verify.h"

static const char *label(ht_check_status s) {
        return s == HT_CHECK_DRIFT ? "DRIFT" : s == HT_CHECK_PENDING ? "PENDING" : "ok";
}

/* verify --boot: what the boot-time unit leaves in the journal and the
 * audit log, so a fleet can find hosts whose tuning did not survive. */
static void log_boot_result(const ht_verify_result *r) {
        if (!r->applied) {
                /* nothing in effect to audit; the journal says why */
                _cleanup_free_ char *text = xasprintf("hosttune verify: %s", r->message);
                ht_text_sanitize(text, false);
                if (!ht_log_transaction("verify", r->rolled_back_by, r->rolled_back_profile, "nothing-applied", 0,
                                        r->rollback_reboot_pending, text))
                        fprintf(stderr, "%s\n", text);
                return;
        }
        strbuf msg = {0};
        size_t drift = 0, pending = 0;
        for (size_t i = 0; i < r->n_checks; i++) {
                const ht_check *c = &r->checks[i];
                if (c->status == HT_CHECK_OK)
                        continue;
                c->status == HT_CHECK_DRIFT ? drift++ : pending++;
                strbuf_appendf(&msg, "%s%s %s: expected %s, actual %s", msg.len ? "; " : "", label(c->status), c->key,
                               c->expected ? c->expected : "(none)", c->actual ? c->actual : "(none)");
        }
        _cleanup_free_ char *details = strbuf_steal(&msg);
        _cleanup_free_ char *text = xasprintf("hosttune verify: %s for profile %s (transaction %s)%s%s",
                                              ht_check_status_to_string(r->status), r->profile ? r->profile : "?",
                                              r->txid, *details ? ": " : "", details);
        /* actual values are the host's, and this may go to a terminal */
        ht_text_sanitize(text, false);
        if (!ht_log_transaction("verify", r->txid, r->profile, ht_check_status_to_string(r->status), drift + pending,
                                r->status == HT_CHECK_PENDING, text))
                fprintf(stderr, "%s\n", text);
        ht_audit_change("hosttune-verify", r->profile ? r->profile : "profile", NULL,
                        ht_check_status_to_string(r->status), r->txid, r->status != HT_CHECK_DRIFT);
}

static void render_verify(ht_om *m, const void *data) {
        const ht_verify_result *r = data;
        int reboot = r->applied ? r->status == HT_CHECK_PENDING : r->rollback_reboot_pending;
        ht_om_verify(m, r, reboot, (int64_t)time(NULL));
}

/* verify could not judge: the families without samples, as status
 * writes them then */
static void render_unknown(ht_om *m, const void *data) {
        (void)data;
        ht_om_verify(m, NULL, -1, 0);
}

int ht_cmd_verify(const ht_cmd_opts *o) {
        ht_verify_result r;
        _cleanup_free_ char *err = NULL;
        /* the settle window: 120 s at boot (the unit's TimeoutStartSec is
         * 5 min, udevadm settle before it takes up to 120 s), none for a
         * verify run by hand unless asked (hosttune(8), --settle) */
        unsigned settle = o->settle >= 0 ? (unsigned)o->settle : o->boot ? 120 : 0;
        int k = ht_verify_settle(o->ctx, NULL, settle, &r, &err);
        if (k < 0) {
                ht_report_error("%s", err ? err : ht_strerror(-k));
                /* a textfile left as the last verify wrote it would go on
                 * saying "ok" to Prometheus while verify fails; without
                 * samples, absent() and the scrape see that it cannot
                 * judge. stdout gets a complete (empty) exposition. */
                (void)ht_cmd_emit_metrics(o, render_unknown, NULL);
                return HT_EXIT_ERROR;
        }
        if (o->format == HT_FORMAT_OPENMETRICS) {
                /* stdout is the exposition; warnings go to stderr */
                ht_report_warnings(o->ctx, r.warnings);
        } else if (o->ctx->json) {
                json_object *j = ht_verify_to_json(&r);
                ht_print_json(stdout, j);
                json_object_put(j);
        } else if (!r.applied) {
                _cleanup_free_ char *msg = ht_text_safe(r.message);
                printf("Verify: %s\n", msg);
                printf("Status: ok (nothing applied)\n");
                ht_report_warnings(o->ctx, r.warnings);
        } else {
                bool color = ht_use_color(o->ctx, STDOUT_FILENO);
                /* an image has never booted: no boot to compare or wait for */
                bool image = !ht_root_is_live(o->ctx);
                printf("Verify: profile %s, transaction %s%s%s; %s\n", r.profile ? r.profile : "?", r.txid,
                       r.applied_at ? " applied " : "", r.applied_at ? r.applied_at : "",
                       image ? "an offline image" : r.rebooted ? "rebooted since" : "same boot as the apply");
                size_t counts[3] = {0};
                for (size_t i = 0; i < r.n_checks; i++) {
                        const ht_check *c = &r.checks[i];
                        counts[c->status]++;
                        if (c->status == HT_CHECK_OK && o->ctx->quiet)
                                continue;
                        const char *col = !color ? "" : c->status == HT_CHECK_DRIFT ? "\033[31m" :
                                          c->status == HT_CHECK_PENDING ? "\033[33m" : "\033[32m";
                        /* actual values are read from the host */
                        _cleanup_free_ char *line = xasprintf("%s %s: expected %s, actual %s%s%s", c->backend, c->key,
                                                              c->expected ? c->expected : "(none)",
                                                              c->actual ? c->actual : "(none)",
                                                              c->hint ? " \u2014 " : "", c->hint ? c->hint : "");
                        ht_text_sanitize(line, false);
                        printf("%s%-7s%s  %s\n", col, label(c->status), color ? "\033[0m" : "", line);
                }
                if (image && !counts[HT_CHECK_PENDING])
                        printf("Status: %s (%zu ok, %zu drift)\n", ht_check_status_to_string(r.status),
                               counts[HT_CHECK_OK], counts[HT_CHECK_DRIFT]);
                else
                        printf("Status: %s (%zu ok, %zu drift, %zu pending a reboot)\n",
                               ht_check_status_to_string(r.status), counts[HT_CHECK_OK], counts[HT_CHECK_DRIFT],
                               counts[HT_CHECK_PENDING]);
                ht_report_warnings(o->ctx, r.warnings);
        }
        int metrics = ht_cmd_emit_metrics(o, render_verify, &r);
        if (o->boot)
                log_boot_result(&r);
        int code = r.status == HT_CHECK_DRIFT ? HT_EXIT_PENDING : r.status == HT_CHECK_PENDING ? HT_EXIT_REBOOT : HT_EXIT_OK;
        /* a textfile that could not be written is an error, unless drift
         * (2) or a pending reboot (3) says more */
        if (metrics && code == HT_EXIT_OK)
                code = metrics;
        ht_verify_result_done(&r);
        return code;
}
