#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "commands.h"
#include "openmetrics.h"
#include "util.h"

void ht_report_error(const char *fmt, ...) {
        va_list ap;
        /* what went to stdout first (the plan an apply refuses) comes
         * first when both go to one file or pipe, not cut by this line */
        fflush(stdout);
        va_start(ap, fmt);
        fputs("hosttune: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
}

void ht_report_warnings(const ht_context *c, char *const *warnings) {
        if (c->quiet)
                return;
        for (size_t i = 0; warnings && warnings[i]; i++)
                fprintf(stderr, "hosttune: warning: %s\n", warnings[i]);
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
