#include "config.h"

#include <errno.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>
#include <unistd.h>
#define SD_JOURNAL_SUPPRESS_LOCATION

#include "audit-log.h"
#include "dlib.h"
#include "util.h"

/* audit_encode_nv_string's rule, for when libaudit cannot be loaded:
 * a value with a quote, a blank, a control or a non-ASCII byte becomes
 * upper-case hex, anything else is quoted. */
char *ht_audit_encode_fallback(const char *name, const char *value) {
        bool hex = false;
        for (const unsigned char *p = (const unsigned char *)value; *p; p++)
                if (*p == '"' || *p < 0x21 || *p > 0x7e)
                        hex = true;
        if (!hex)
                return xasprintf("%s=\"%s\"", name, value);
        strbuf b = {0};
        strbuf_appendf(&b, "%s=", name);
        for (const unsigned char *p = (const unsigned char *)value; *p; p++)
                strbuf_appendf(&b, "%02X", *p);
        return strbuf_steal(&b);
}

static char *encode(const char *name, const char *value) {
        if (!value)
                value = "(none)";
        const ht_audit_fns *a = ht_audit_lib();
        if (!a)
                return ht_audit_encode_fallback(name, value);
        char *s = a->encode_nv_string(name, value, (unsigned)strlen(value));
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
        if (ht_env_true("HOSTTUNE_NO_AUDIT"))
                return;
        int saved = errno;
        const ht_audit_fns *a = ht_audit_lib();
        int fd = a ? a->open() : -1;
        if (fd < 0) {
                /* no audit in this kernel or container: that is normal */
                errno = saved;
                return;
        }
        _cleanup_free_ char *msg = ht_audit_format(op, key, old_value, new_value, txid);
        /* failure to log (no CAP_AUDIT_WRITE) is not the caller's problem */
        (void)a->log_user_message(fd, AUDIT_USYS_CONFIG, msg, NULL, NULL, NULL, success ? 1 : 0);
        a->close(fd);
        errno = saved;
}

/* The socket file outlives journald (a container's /run kept from an image,
 * a journald started by hand and gone): only a connect tells it is there. */
bool ht_journald_present(void) {
        struct sockaddr_un sa = {.sun_family = AF_UNIX, .sun_path = "/run/systemd/journal/socket"};
        _cleanup_close_ int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        return fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
}

bool ht_log_transaction(const char *command, const char *txid, const char *profile,
                        const char *status, size_t n_changes, bool reboot_required,
                        const char *message) {
        const ht_systemd_fns *sd = ht_journald_present() ? ht_systemd_lib() : NULL;
        if (!sd)
                return false;
        int prio = streq_ptr(status, "failed") ? LOG_ERR : LOG_INFO;
        _cleanup_free_ char *text = message ? xstrdup(message)
                : xasprintf("hosttune %s %s: %s", command ? command : "?", txid ? txid : "?",
                            status ? status : "?");
        int r = sd->journal_send("MESSAGE=%s", text,
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
