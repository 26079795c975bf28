/* Metrics for Prometheus: the OpenMetrics 1.0 text exposition
 * (`--format=openmetrics`) and the Prometheus text format 0.0.4 that
 * node_exporter's textfile collector parses (`--textfile`). The two differ
 * only in how a counter's and an info metric's family is named and typed
 * (OpenMetrics: family "x", sample "x_total"; 0.0.4: family and sample
 * "x_total", and info is a gauge "x_info") and in the "# UNIT" and
 * "# EOF" lines, which 0.0.4 does not have. promtool 2.42's "check
 * metrics" (the 0.0.4 parser) finds the OpenMetrics counter without HELP,
 * and the OpenMetrics parser calls the 0.0.4 one a clashing name, so each
 * reader gets its own. */
#pragma once

#include <stdint.h>

#include "context.h"
#include "util.h"
#include "verify.h"

typedef enum {
        HT_OM_OPENMETRICS,   /* application/openmetrics-text; version=1.0.0 */
        HT_OM_PROMETHEUS,    /* text/plain; version=0.0.4 */
} ht_om_dialect;

typedef enum {
        HT_OM_GAUGE,
        HT_OM_COUNTER,
        HT_OM_INFO,
} ht_om_type;

typedef struct ht_om {
        strbuf out;
        ht_om_dialect dialect;
        ht_om_type type;     /* of the family being written */
        char *sample_name;   /* its samples' name */
} ht_om;

void ht_om_init(ht_om *m, ht_om_dialect d);
/* Start a family: name without "_total" or "_info" (added as the dialect
 * wants), a unit (the name ends in "_UNIT") or NULL, the help text. */
void ht_om_family(ht_om *m, const char *name, ht_om_type type, const char *unit, const char *help);
/* One sample of the current family: label name/value pairs ending with
 * NULL. Label values are escaped here. */
void ht_om_sample(ht_om *m, int64_t value, ...) __attribute__((sentinel));
/* The exposition (with "# EOF" for OpenMetrics); m is reset. */
char *ht_om_finish(ht_om *m);
void ht_om_done(ht_om *m);

/* A label value (and OpenMetrics help text) as the exposition wants it:
 * backslash, double quote and newline escaped (\\ \" \n), bytes that are
 * not UTF-8 replaced by U+FFFD (OpenMetrics label values are UTF-8). With
 * quote false the double quote stays as it is (0.0.4 help text). */
char *ht_om_escape(const char *s, bool quote);

/* The metrics of a verify result: status (one gauge per state), checks
 * by backend and status, drift, reboot pending, seconds since the apply,
 * the applied profile and transaction. reboot_pending: 1, 0 or -1
 * (unknown: no sample); now: the time the age is taken at. r NULL: verify
 * could not judge (the families without samples). */
void ht_om_verify(ht_om *m, const ht_verify_result *r, int reboot_pending, int64_t now);

/* Write data to host path (under the root) for node_exporter's textfile
 * collector: atomically (temp file beside it, fsync, rename, fsync of the
 * directory), mode 0644 (node_exporter runs as its own user). No symlink
 * on the way is followed (-ELOOP); the directories may belong to another
 * user. When the directory does not exist (node_exporter is not
 * installed) nothing is written and the return is -ENOENT; the caller
 * notes it. */
int ht_om_write_textfile(const ht_context *c, const char *path, const char *data);
