/* The commands behind the CLI. Each takes the parsed options, prints its
 * result (text or JSON) and returns the process exit code. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>

#include "context.h"
#include "facts.h"

enum {
        HT_EXIT_OK = 0,
        HT_EXIT_ERROR = 1,
        HT_EXIT_PENDING = 2,  /* plan: changes pending; verify: drift */
        HT_EXIT_REBOOT = 3,   /* verify: applied changes wait for a reboot */
        /* apply, rollback: an undo stopped part-way; the messages say which
         * items are back and which not; the journal keeps the rest */
        HT_EXIT_INCOMPLETE = 4,
};

/* --format: text (the default), json (also --json) or openmetrics
 * (verify and status only). */
typedef enum {
        HT_FORMAT_TEXT,
        HT_FORMAT_JSON,
        HT_FORMAT_OPENMETRICS,
} ht_format;

typedef struct {
        ht_context *ctx;
        ht_format format;   /* json also sets ctx->json */
        char **args;        /* positional arguments after the command */
        char **sets;        /* --set K=V, in order */
        bool dry_run;       /* apply --dry-run */
        bool boot;          /* verify --boot */
        int settle;         /* verify --settle SECONDS, -1 not given */
        const char *facts_file;  /* --facts FILE (offline images) */
        unsigned interval;  /* status --interval SECONDS (0: none) */
        const char *output; /* import --output FILE (NULL: stdout) */
        /* verify, status --textfile PATH: also write the metrics there for
         * node_exporter (NULL or "": not) */
        const char *textfile;
        bool refuse;        /* gate --refuse */
        char **what_if;     /* budget --what-if WORKLOAD[:K=V[,K=V]...], in order */
} ht_cmd_opts;

int ht_cmd_facts(const ht_cmd_opts *o);
int ht_cmd_list(const ht_cmd_opts *o);
int ht_cmd_show(const ht_cmd_opts *o);
int ht_cmd_plan(const ht_cmd_opts *o);
int ht_cmd_apply(const ht_cmd_opts *o);
int ht_cmd_verify(const ht_cmd_opts *o);
int ht_cmd_rollback(const ht_cmd_opts *o);
int ht_cmd_history(const ht_cmd_opts *o);
int ht_cmd_recommend(const ht_cmd_opts *o);
int ht_cmd_status(const ht_cmd_opts *o);
int ht_cmd_import(const ht_cmd_opts *o);
int ht_cmd_explain(const ht_cmd_opts *o);
int ht_cmd_gate(const ht_cmd_opts *o);
int ht_cmd_budget(const ht_cmd_opts *o);

/* verify and status: print the metrics (--format=openmetrics) and write
 * the --textfile, from what render(m, data) adds to each. A textfile that
 * cannot be written is an error (1) unless its directory is missing
 * (node_exporter not installed: a note). Returns 0 or HT_EXIT_ERROR. */
struct ht_om;
int ht_cmd_emit_metrics(const ht_cmd_opts *o, void (*render)(struct ht_om *m, const void *data), const void *data);

/* Report an error the way every command does: "hosttune: MESSAGE" on
 * stderr (also under --json, where stdout stays machine-readable). */
void ht_report_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Keep MESSAGE (the first one only) for --json's error object; usage:
 * an error in the command line. ht_report_error calls it. */
void ht_record_error(bool usage, const char *message);
/* Under --json (on), a run that fails before printing its document
 * prints the error object instead: schema_version, error (the first
 * message), exit_code, usage (schemas/error.schema.json). */
void ht_report_json_errors(bool on);
/* At exit: print that object when due; returns exit_code. */
int ht_report_json_error(int exit_code);
void ht_report_warnings(const ht_context *c, char *const *warnings);
/* The commands that take facts but not their warnings (plan, apply, show)
 * still say that --facts was ignored: on stderr like 'facts' does, and
 * in json_warnings (a JSON array, or NULL) for --json. */
void ht_report_facts_notices(const ht_context *c, const ht_facts *f, json_object *json_warnings);

/* Once, before any command reads the journal: tell it which files a
 * transaction may touch (the backends' files tables, ht_journal_confine). */
void ht_commands_init(void);

/* With the run lock held: roll back what a crashed run left pending and
 * report it on stderr. Returns how many were recovered, or -errno
 * (reported) when a recovery failed; a corrupt manifest is only warned
 * about. */
int ht_recover_locked(const ht_context *c);
/* For the commands that do not take the lock themselves: when the
 * journal holds a pending transaction and no other hosttune runs, take
 * the lock and recover; when this run may not (not root), warn. When
 * another runs, leave its transaction alone; wait_for_transaction: wait
 * for it to end first (verify, status: no verdict on a host half-changed). */
void ht_recover_pending(const ht_context *c, bool wait_for_transaction);
