/* What the other tuners of the host set (issue 38): for each tuner the
 * facts found running or enabled (facts-tuners.c), the settings it
 * applies after hosttune's, each with its source — tuned's from its
 * profile (FILE:LINE), the others' from their own code, cited where the
 * table is. Unknown tuners, and tuners whose settings hosttune cannot
 * read, are not guessed: they set nothing here. */
#pragma once

#include "context.h"
#include "facts.h"
#include "profile.h"

typedef struct {
        char *tuner;           /* facts' name: tuned, bpftune, kubelet, dockerd; or "unit":
                                * an enabled unit's own sysctl calls */
        char *who;             /* "tuned (running, enabled; profile virtual-guest)" */
        ht_backend_id backend;
        char *key;
        char *value;           /* NULL: written at runtime as load demands */
        char *source;          /* tuned: FILE:LINE; others: their code */
        char *when;            /* when it writes it */
        char *advice;          /* what to do */
} ht_tuner_setting;

typedef struct {
        ht_tuner_setting *s;
        size_t n;
        char **warnings;       /* a tuner whose settings could not be read */
} ht_tuner_settings;

void ht_tuner_settings_collect(const ht_context *c, const ht_facts *f, ht_tuner_settings *ret);
void ht_tuner_settings_done(ht_tuner_settings *t);
/* Keep only the settings of one key (explain). */
void ht_tuner_settings_keep(ht_tuner_settings *t, ht_backend_id b, const char *key);
/* Keep only the settings keep says yes to (explain's block and cmdline
 * keys, which do not compare as strings). */
void ht_tuner_settings_keep_if(ht_tuner_settings *t, bool (*keep)(const ht_tuner_setting *s, const void *userdata),
                               const void *userdata);
/* Whether a tuner setting and a hosttune setting name the same thing. */
bool ht_tuner_setting_matches(const ht_tuner_setting *t, ht_backend_id b, const char *key);
/* Whether the tuner's value undoes want (bound b): always when it writes
 * as load demands (value NULL). */
bool ht_tuner_setting_conflicts(const ht_tuner_setting *t, ht_bound b, const char *want);
/* "tuned (running ...) sets vm.swappiness = 30 (FILE:LINE) at its start,
 * ..." for a warning; advice appended. */
char *ht_tuner_setting_describe(const ht_tuner_setting *t);
