/* A line a format's reader would not take. The formats never fail
 * (HACKING.md, "Formats"): each lists what it skipped, in this one shape,
 * and the facts word a warning for it while an editor refuses the file. */
#pragma once

#include <stddef.h>

typedef struct {
        int kind;       /* the format's own kinds (HT_GRUBENV_*, ...); 0 where it has one */
        unsigned line;  /* 1-based */
        char *message;  /* "invalid key"; NULL where the kind says it */
        char *text;     /* what it is about: a value, a key, the cut line; NULL: none */
} ht_format_problem;

/* Append a problem to *l (*n of them); message and text are taken. */
void ht_format_problem_add(ht_format_problem **l, size_t *n, int kind, unsigned line, char *message, char *text);
void ht_format_problems_free(ht_format_problem *l, size_t n);
