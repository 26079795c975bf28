#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "commands.h"
#include "util.h"

void ht_report_error(const char *fmt, ...) {
        va_list ap;
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
