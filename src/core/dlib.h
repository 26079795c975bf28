/* libaudit and libsystemd, loaded when first needed. Only apply and
 * rollback use them (an audit record per change, a journal entry per
 * transaction, daemon-reload over D-Bus); linking them made every command,
 * even `hosttune --version`, pay at start-up for them and what they pull in
 * (libgcrypt, liblzma, libzstd, liblz4, libcap, libcap-ng): about 0.8 ms
 * and 1.2 MB of RSS of a 4 ms `plan` (tests/bench, BENCHMARKS.md). systemd
 * loads its optional libraries the same way. */
#pragma once

#include <libaudit.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-journal.h>

typedef struct {
        __typeof__(audit_open) *open;
        __typeof__(audit_close) *close;
        __typeof__(audit_log_user_message) *log_user_message;
        __typeof__(audit_encode_nv_string) *encode_nv_string;
} ht_audit_fns;

typedef struct {
        __typeof__(sd_journal_send) *journal_send;
        __typeof__(sd_bus_open_system) *bus_open_system;
        __typeof__(sd_bus_call_method) *bus_call_method;
        __typeof__(sd_bus_error_free) *bus_error_free;
        __typeof__(sd_bus_unref) *bus_unref;
} ht_systemd_fns;

/* The functions of libaudit.so.1, or NULL when it cannot be loaded (the
 * callers degrade as they do without an audit subsystem). Loaded once. */
const ht_audit_fns *ht_audit_lib(void);

/* The functions of libsystemd.so.0, or NULL when it cannot be loaded. */
const ht_systemd_fns *ht_systemd_lib(void);
