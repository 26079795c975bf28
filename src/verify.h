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
        char *txid;
        char *profile;
        char *applied_at;
        bool rebooted;           /* boot id differs from the one at apply */
        ht_check *checks;        /* failures first */
        size_t n_checks;
        ht_check_status status;  /* worst of the checks */
        char **warnings;
} ht_verify_result;

/* -ENOENT (with *ret_error) when nothing has been applied. facts: the
 * host's facts when the caller has them (status), else NULL to collect. */
int ht_verify(const ht_context *c, const ht_facts *facts, ht_verify_result *ret, char **ret_error);
void ht_verify_result_done(ht_verify_result *r);

const char *ht_check_status_to_string(ht_check_status s);
json_object *ht_verify_to_json(const ht_verify_result *r);
