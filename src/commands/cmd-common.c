#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "commands.h"
#include "openmetrics.h"
#include "render.h"
#include "util.h"

/* The first error this run reported, for --json's error object: the
 * first is the cause, what follows is about its consequences. */
static char *first_error;
static bool first_error_usage;
static bool json_errors;

void ht_record_error(bool usage, const char *message) {
        if (first_error)
                return;
        first_error = xstrdup(message);
        first_error_usage = usage;
}

void ht_report_error(const char *fmt, ...) {
        va_list ap;
        /* what went to stdout first (the plan an apply refuses) comes
         * first when both go to one file or pipe, not cut by this line */
        fflush(stdout);
        va_start(ap, fmt);
        _cleanup_free_ char *message = xvasprintf(fmt, ap);
        va_end(ap);
        /* messages name values from the host (a pfile's, a process's) */
        _cleanup_free_ char *shown = ht_text_safe(message);
        fprintf(stderr, "hosttune: %s\n", shown);
        ht_record_error(false, message);
}

void ht_report_json_errors(bool on) {
        json_errors = on;
}

int ht_report_json_error(int exit_code) {
        /* 2 and 3 are results (changes pending, drift, a reboot pending),
         * each with its command's document */
        bool failed = exit_code != HT_EXIT_OK && exit_code != HT_EXIT_PENDING && exit_code != HT_EXIT_REBOOT;
        if (json_errors && failed && !ht_json_document_printed()) {
                json_object *j = json_object_new_object();
                json_object_object_add(j, "error",
                                       json_object_new_string(first_error ? first_error : "hosttune failed"));
                json_object_object_add(j, "exit_code", json_object_new_int(exit_code));
                json_object_object_add(j, "usage", json_object_new_boolean(first_error_usage));
                ht_print_json(stdout, j);
                json_object_put(j);
        }
        free(first_error);
        first_error = NULL;
        return exit_code;
}

void ht_report_warnings(const ht_context *c, char *const *warnings) {
        if (c->quiet || !warnings || !warnings[0])
                return;
        /* as for an error: what went to stdout first comes first where
         * both go to one file (cloud-init's output log, `>log 2>&1`), not
         * cut mid-line at the buffer's edge by this line (show's notices
         * after the profile) */
        fflush(stdout);
        for (size_t i = 0; warnings[i]; i++) {
                _cleanup_free_ char *w = ht_text_safe(warnings[i]);
                fprintf(stderr, "hosttune: warning: %s\n", w);
        }
}

/* The facts' warnings a plan must show too (the others are for `facts`):
 * an ignored --facts, an image recognised by its mounted /proc. */
void ht_report_facts_notices(const ht_context *c, const ht_facts *f, json_object *json_warnings) {
        if (!f)
                return;
        char *const notices[] = {f->image_warning, f->facts_file_ignored};
        for (size_t i = 0; i < ELEMENTSOF(notices); i++) {
                if (!notices[i])
                        continue;
                char *const one[] = {notices[i], NULL};
                ht_report_warnings(c, one);
                if (json_warnings && json_object_is_type(json_warnings, json_type_array))
                        json_object_array_add(json_warnings, json_object_new_string(notices[i]));
        }
}

int ht_cmd_emit_metrics(const ht_cmd_opts *o, void (*render)(struct ht_om *m, const void *data), const void *data) {
        if (o->format == HT_FORMAT_OPENMETRICS) {
                ht_om m;
                ht_om_init(&m, HT_OM_OPENMETRICS);
                render(&m, data);
                _cleanup_free_ char *s = ht_om_finish(&m);
                fputs(s, stdout);
                fflush(stdout);
        }
        if (!o->textfile || !*o->textfile)
                return 0;
        /* node_exporter's textfile collector reads the 0.0.4 text format
         * (collector/textfile.go: expfmt.TextParser) */
        ht_om m;
        ht_om_init(&m, HT_OM_PROMETHEUS);
        render(&m, data);
        _cleanup_free_ char *s = ht_om_finish(&m);
        int r = ht_om_write_textfile(o->ctx, o->textfile, s);
        if (r == -ENOENT) {
                _cleanup_free_ char *d = ht_display_path(o->ctx, o->textfile);
                if (!o->ctx->quiet)
                        fprintf(stderr, "hosttune: note: not writing %s: its directory does not exist "
                                "(node_exporter's textfile collector is not installed?)\n", d);
                return 0;
        }
        if (r < 0) {
                _cleanup_free_ char *d = ht_display_path(o->ctx, o->textfile);
                ht_report_error("--textfile %s: %s", d,
                                r == -ELOOP ? "a symbolic link on its path (not followed: write to the real directory)"
                                            : ht_strerror(-r));
                return HT_EXIT_ERROR;
        }
        return 0;
}
