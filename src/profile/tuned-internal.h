/* Between tuned's loader (tuned-load.c), the converter (tuned-convert.c),
 * what they share (tuned-profile.c) and the one place that runs them in
 * turn (profile-tuned.c). Not for other rooms. */
#pragma once

#include "tuned.h"

typedef struct {
        char *key;
        char *value;
        unsigned file;  /* index into the profile's files */
        unsigned line;
        char *comment;  /* the comment lines above it; NULL: none */
} tn_option;

/* A tuned unit (a section but [main]) after the merge, as tuned's
 * profiles/unit.py holds it: the options tuned's Unit takes out of the
 * section, then the plugin's own. */
typedef struct {
        char *name;
        char *type;
        bool enabled, replace;
        char *devices;            /* "*" when not given */
        char *devices_udev_regex, *cpuinfo_regex, *uname_regex;
        char *script_pre, *script_post;
        unsigned file, line;      /* where the section (its last merged part) is */
        tn_option *options;
        size_t n_options;
} tn_unit;

typedef struct {
        char **files;             /* display paths */
        char **dirs;              /* each file's ${i:PROFILE_DIR} */
        tn_unit *units;
        size_t n_units;
        char *summary;
        unsigned summary_file, summary_line;
        ht_tuned_note *notes;
        size_t n_notes;
        bool host_values;
} tn_profile;

/* tuned-profile.c */
/* The value of a variable whose definition cannot be evaluated here
 * (a function that runs a program): the reason follows. */
#define UNKNOWN_VAR "\001"
void tn_note(tn_profile *p, unsigned file, unsigned line, const char *section, const char *key,
             const char *fmt, ...) _printf_(6, 7);
void tn_unit_done(tn_unit *u);
void tn_profile_done(tn_profile *p);
/* Expand tuned's ${VAR}s (vars: name, value, name, value, ... NULL) then
 * its ${f:} functions, as tuned's Variables.expand does. */
int tn_expand(char *const *vars, json_object *facts, const char *value, char **ret, char **ret_error);

/* tuned-load.c: tuned's loading of spec (as ht_tuned_load takes it):
 * the merged profile (*ret, for tn_profile_done), its variables
 * (name, value, ...) and the names it was loaded by, space-separated. */
int tn_load(const ht_context *c, json_object *facts, const char *spec, tn_profile *ret, char ***ret_vars,
            char **ret_name, char **ret_error);

/* tuned-convert.c: the merged profile as hosttune profile text. */
int tn_convert(const ht_context *c, json_object *facts, tn_profile *p, char *const *vars,
               const char *name, ht_tuned_profile *out, char **ret_error);
