/* The formats' problems (format-problem.h). */
#include "config.h"

#include <stdlib.h>

#include "format-problem.h"
#include "util.h"

void ht_format_problem_add(ht_format_problem **l, size_t *n, int kind, unsigned line, char *message, char *text) {
        *l = xrealloc(*l, (*n + 1) * sizeof(**l));
        (*l)[(*n)++] = (ht_format_problem){.kind = kind, .line = line, .message = message, .text = text};
}

void ht_format_problems_free(ht_format_problem *l, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(l[i].message);
                free(l[i].text);
        }
        free(l);
}
