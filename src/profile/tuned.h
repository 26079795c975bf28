/* tuned profiles: `tuned:NAME` wherever a profile is named, and `hosttune
 * import tuned`. tuned's own loading (its search path, include chains,
 * merge, variables and functions) gives one merged profile, which is
 * converted into the text of one self-contained hosttune profile; the
 * resolver parses that text like any profile file, with every setting's
 * source mapped back to its tuned FILE:LINE. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>

#include "context.h"

/* What cannot be carried over, and why. */
typedef struct {
        char *file;     /* display path */
        unsigned line;
        char *section;  /* as written in the brackets */
        char *key;      /* NULL: the section as a whole */
        char *reason;
} ht_tuned_note;

typedef struct {
        char *name;           /* the profile names, space-separated, as tuned names them */
        char *summary;
        char **files;         /* the tuned files read, in load order (display paths) */
        char *text;           /* the hosttune profile (import's output) */
        /* For line L (1-based) of text: origin_file[L-1] is 1 + an index
         * into files, 0 where the line comes from no tuned line. */
        unsigned *origin_file;
        unsigned *origin_line;
        size_t n_lines;
        ht_tuned_note *notes;
        size_t n_notes;
        bool host_values;     /* a value was computed on this host (a ${f:} function, a glob) */
} ht_tuned_profile;

/* spec: a tuned profile name, several separated by blanks (merged in
 * order, as tuned merges them), "active" (the names in
 * /etc/tuned/active_profile) or, with a '/', a profile directory.
 * Search: c->tuned_path (real directories), then below the root
 * /etc/tuned/profiles, /etc/tuned, /usr/lib/tuned/profiles,
 * /usr/lib/tuned. facts: the facts JSON (functions and conditions).
 * Errors name the file and line: -ENOENT (no such profile), -EINVAL. */
int ht_tuned_load(const ht_context *c, json_object *facts, const char *spec, ht_tuned_profile **ret,
                  char **ret_error);
void ht_tuned_profile_free(ht_tuned_profile *t);
static inline void ht_tuned_profile_freep(ht_tuned_profile **t) { ht_tuned_profile_free(*t); }
/* "FILE:LINE: [SECTION] KEY: REASON" */
char *ht_tuned_note_format(const ht_tuned_note *n);
/* The prefix of a profile name that names a tuned profile. */
#define HT_TUNED_PREFIX "tuned:"
