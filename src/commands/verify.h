/* verify: compare the host with the last committed apply — runtime
 * values, managed files (content hash), the value each sysctl gets at
 * boot, limits and unit drop-ins, kernel command line words, HugePages —
 * knowing whether the host has rebooted since (boot id). */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>

#include "context.h"
#include "facts.h"

typedef enum {
        HT_CHECK_OK,
        HT_CHECK_DRIFT,
        HT_CHECK_PENDING,  /* needs the reboot that has not happened yet */
} ht_check_status;

typedef struct {
        char *backend;
        char *key;
        char *expected;
        char *actual;
        ht_check_status status;
        char *hint;
} ht_check;

typedef struct {
        /* false: the journal holds no apply in effect (the last one was
         * rolled back, or every apply failed and was undone): nothing to
         * check, status ok, no checks, and why in message */
        bool applied;
        char *message;
        char *rolled_back_txid;  /* the apply a rollback undid last, or NULL */
        char *rolled_back_profile;
        char *rolled_back_by;    /* the rollback's txid */
        char *rolled_back_at;
        bool rollback_reboot_pending;  /* the rollback waits for a reboot */
        char *txid;              /* the apply checked (NULL when !applied) */
        char *profile;
        char *applied_at;
        bool rebooted;           /* boot id differs from the one at apply */
        ht_check *checks;        /* failures first */
        size_t n_checks;
        ht_check_status status;  /* worst of the checks */
        char **warnings;
} ht_verify_result;

/* -ENOENT (with *ret_error) when the state directory has no journal:
 * nothing was ever applied there. A journal without an apply in effect
 * is a result (applied false). facts: the host's facts when the caller
 * has them (status), else NULL to collect. */
int ht_verify(const ht_context *c, const ht_facts *facts, ht_verify_result *ret, char **ret_error);
/* The same with a settle window (verify --settle, --boot): a workload
 * process that started less than settle seconds ago and has not taken
 * its HugePages yet is waited for, /proc/meminfo re-read every half
 * second, until it has them or is settle seconds old. 0: no wait. */
int ht_verify_settle(const ht_context *c, const ht_facts *facts, unsigned settle, ht_verify_result *ret,
                     char **ret_error);
void ht_verify_result_done(ht_verify_result *r);

const char *ht_check_status_to_string(ht_check_status s);
json_object *ht_verify_to_json(const ht_verify_result *r);
