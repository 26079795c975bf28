#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "commands.h"
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
