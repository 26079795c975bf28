/* The audit trail: an AUDIT_USYS_CONFIG record per applied change and per
 * rollback (libaudit), and a structured journald entry per transaction.
 * Both degrade quietly: no audit subsystem (containers, no privilege) or
 * no journald means nothing is sent, and the caller never fails. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* MESSAGE_ID of hosttune's transaction entries in the journal. */
#define HT_MESSAGE_ID_TRANSACTION "c00cb6c400df44cd816400f2002f77f8"

/* The audit message text: "op=OP key=K old=O new=N txid=T", every value
 * quoted or hex-encoded the way auditd tools expect (audit_encode_nv_string),
 * so a key or value cannot forge fields. NULL values are "(none)". op
 * must be a plain word like "hosttune-apply"; anything else is replaced by
 * "hosttune". */
char *ht_audit_format(const char *op, const char *key, const char *old_value,
                      const char *new_value, const char *txid);

/* NAME=VALUE encoded as audit_encode_nv_string does; used when libaudit
 * (dlopen()ed, src/core/dlib.c) cannot be loaded. */
char *ht_audit_encode_fallback(const char *name, const char *value);

/* Send one AUDIT_USYS_CONFIG record with result success/failure. Skipped
 * when the audit socket cannot be opened or HOSTTUNE_NO_AUDIT is set
 * (test suites that run as root on a real machine). */
void ht_audit_change(const char *op, const char *key, const char *old_value,
                     const char *new_value, const char *txid, bool success);

/* Whether journald listens on this machine. */
bool ht_journald_present(void);

/* One structured journal entry for a finished transaction: MESSAGE,
 * MESSAGE_ID, PRIORITY (info, or err for status "failed"), HOSTTUNE_TXID,
 * HOSTTUNE_PROFILE, HOSTTUNE_COMMAND, HOSTTUNE_STATUS, HOSTTUNE_CHANGES,
 * HOSTTUNE_REBOOT_REQUIRED. Returns whether it was logged; when not
 * (no journald), the CLI prints to stderr instead. */
bool ht_log_transaction(const char *command, const char *txid, const char *profile,
                        const char *status, size_t n_changes, bool reboot_required,
                        const char *message);
