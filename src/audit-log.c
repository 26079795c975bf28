#include "config.h"

#include <errno.h>
#include <libaudit.h>
#include <syslog.h>
#include <unistd.h>
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

#include "audit-log.h"
#include "util.h"

static char *encode(const char *name, const char *value) {
        if (!value)
                value = "(none)";
        char *s = audit_encode_nv_string(name, value, (unsigned)strlen(value));
        return s ? s : xasprintf("%s=?", name);
}

static bool plain_word(const char *s) {
        return !isempty(s) && strspn(s, "abcdefghijklmnopqrstuvwxyz-") == strlen(s);
}

char *ht_audit_format(const char *op, const char *key, const char *old_value,
                      const char *new_value, const char *txid) {
        _cleanup_free_ char *k = encode("key", key);
        _cleanup_free_ char *o = encode("old", old_value);
        _cleanup_free_ char *n = encode("new", new_value);
        _cleanup_free_ char *t = encode("txid", txid);
        return xasprintf("op=%s %s %s %s %s", plain_word(op) ? op : "hosttune", k, o, n, t);
}

void ht_audit_change(const char *op, const char *key, const char *old_value,
                     const char *new_value, const char *txid, bool success) {
        if (getenv("HOSTTUNE_NO_AUDIT"))
                return;
        int saved = errno;
        int fd = audit_open();
        if (fd < 0) {
                /* no audit in this kernel or container: that is normal */
                errno = saved;
                return;
        }
        _cleanup_free_ char *msg = ht_audit_format(op, key, old_value, new_value, txid);
        /* failure to log (no CAP_AUDIT_WRITE) is not the caller's problem */
        (void)audit_log_user_message(fd, AUDIT_USYS_CONFIG, msg, NULL, NULL, NULL, success ? 1 : 0);
        audit_close(fd);
        errno = saved;
}

bool ht_journald_present(void) {
        return access("/run/systemd/journal/socket", F_OK) == 0;
}

bool ht_log_transaction(const char *command, const char *txid, const char *profile,
                        const char *status, size_t n_changes, bool reboot_required,
                        const char *message) {
        if (!ht_journald_present())
                return false;
        int prio = streq_ptr(status, "failed") ? LOG_ERR : LOG_INFO;
        _cleanup_free_ char *text = message ? xstrdup(message)
                : xasprintf("hosttune %s %s: %s", command ? command : "?", txid ? txid : "?",
                            status ? status : "?");
        int r = sd_journal_send("MESSAGE=%s", text,
                                "MESSAGE_ID=" HT_MESSAGE_ID_TRANSACTION,
                                "PRIORITY=%i", prio,
                                "HOSTTUNE_COMMAND=%s", command ? command : "",
                                "HOSTTUNE_TXID=%s", txid ? txid : "",
                                "HOSTTUNE_PROFILE=%s", profile ? profile : "",
                                "HOSTTUNE_STATUS=%s", status ? status : "",
                                "HOSTTUNE_CHANGES=%zu", n_changes,
                                "HOSTTUNE_REBOOT_REQUIRED=%s", reboot_required ? "yes" : "no",
                                NULL);
        return r >= 0;
}
