/* The change model every backend fills in: runtime changes, file edits,
 * follow-up actions, warnings. plan is exactly the first half of apply. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <sys/types.h>

#include "profile.h"

typedef enum {
        HT_OUTCOME_KEPT,     /* already as desired */
        HT_OUTCOME_CHANGE,   /* will change (plan) / changed (apply) */
        HT_OUTCOME_SKIPPED,  /* optional and the host cannot take it */
        HT_OUTCOME_FAILED,
        HT_OUTCOME_OVERRIDDEN, /* set as desired, but a file read later at boot sets
                                * another value (current: that value) */
} ht_outcome;

/* A runtime change (a kernel value) or the summary of a persisted one. */
typedef struct {
        ht_backend_id backend;
        char *key;
        char *path;            /* host path written at runtime, NULL when none */
        char *current;         /* NULL: absent / unknown */
        char *current_from;    /* where current comes from when no file of the
                                * key's own sets it (a limit's default:
                                * "systemd 252's default for services"); NULL */
        char *desired;
        bool runtime;          /* written to the running kernel by apply */
        bool reboot_required;  /* only takes effect after a reboot */
        ht_outcome outcome;
        char *source;
        char *note;            /* e.g. "restart mysqld.service to take effect" */
        char *setting;         /* the key of the setting this change is one device's
                                * part of (block: "sda queue/scheduler" for
                                * "rotational queue/scheduler"), which verify
                                * judges it by; NULL: key itself */
        char *resets_path;     /* a value the kernel resets when this one is
                                * written (a scheduler switch resets
                                * queue/nr_requests): apply journals it
                                * first, so a rollback puts it back after */
        char *resets_key;
        ht_bound bound;        /* how desired relates to the setting (bound.h) */
        char *bound_value;     /* the setting's own value when bound is not exact:
                                * desired is then current moved just into it */
} ht_change;

/* A whole-file edit. old_content NULL: the file does not exist yet;
 * new_content NULL: the file is removed. */
typedef struct {
        char *path;
        char *old_content;
        size_t old_len;
        char *new_content;
        size_t new_len;
        mode_t mode;           /* for new files */
        ht_backend_id backend;
} ht_file_edit;

/* A command apply runs after the files are in place (grub regeneration,
 * daemon-reload). argv only: never a shell. */
typedef struct {
        char **argv;           /* NULL for a built-in action */
        char *action;          /* "daemon-reload", "regenerate-grub", ... */
        char *description;
        int backend;           /* the backend that asked for it */
        char *generates;       /* a file the command writes (grub.cfg), journaled */
} ht_post_action;

typedef struct ht_plan {
        char *profile;
        ht_change *changes;
        size_t n_changes, changes_cap;   /* grown by doubling (plan.c) */
        ht_file_edit *files;
        size_t n_files;
        ht_post_action *actions;
        size_t n_actions;
        char **warnings;
        ht_skips skipped;      /* optional settings the host cannot take (profile.h) */
        char **errors;
        bool reboot_required;
        bool offline;          /* no running kernel behind the root */
        json_object *not_used; /* the resolved profile's (ht_resolved.not_used), NULL: none */
        /* owns profile and every string of changes, files and actions
         * (not the argv lists, nor the arrays): a plan is built once and
         * freed at once. Set one with ht_plan_strdup()/ht_plan_printf(),
         * never free() one. */
        ht_arena arena;
} ht_plan;

ht_plan *ht_plan_new(const char *profile);
void ht_plan_free(ht_plan *p);
static inline void ht_plan_freep(ht_plan **p) { ht_plan_free(*p); }

/* A copy of s (NULL: NULL), or of a format, that lives as long as the
 * plan: what a change's string fields are set to. */
char *ht_plan_strdup(ht_plan *p, const char *s);
char *ht_plan_printf(ht_plan *p, const char *fmt, ...) _printf_(2, 3);

/* Builders: copy every string argument. */
ht_change *ht_plan_add_change(ht_plan *p, ht_backend_id backend, const char *key,
                              const char *current, const char *desired);
/* Record a file edit; nothing is added when old and new are identical. */
void ht_plan_add_file(ht_plan *p, ht_backend_id backend, const char *path,
                      const char *old_content, size_t old_len,
                      const char *new_content, size_t new_len, mode_t mode);
/* Adds action once, whoever asks; generates (may be NULL) is the file the
 * command writes, which apply journals around it. */
void ht_plan_add_action(ht_plan *p, int backend, const char *action, char *const *argv,
                        const char *description, const char *generates);
void ht_plan_warn(ht_plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An optional setting the host cannot take: listed in p->skipped with the
 * reason (printf-style), not warned about. */
void ht_plan_skip(ht_plan *p, const char *setting, const char *source, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));
/* A setting the profile needs that this host cannot hold because another
 * machine sets it (set_by: a container's node, a VM's host). */
void ht_plan_skip_set_by(ht_plan *p, const char *setting, const char *source, const char *set_by,
                         const char *fmt, ...) __attribute__((format(printf, 5, 6)));
void ht_plan_error(ht_plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A runtime change a container must not make: KEY is the host's value
 * (SHARED names what the container shares with it, e.g. "kernel value"),
 * which a privileged container could write under every other container.
 * The change stays planned for its persisted form (PERSISTED: "drop-in",
 * "udev rule", ...), not made at runtime, with a warning naming KEY. */
void ht_plan_skip_host_value(ht_plan *p, ht_change *ch, const char *key, const char *container,
                             const char *shared, const char *persisted);

/* True when something would change: a runtime change, a file edit or an
 * action. */
bool ht_plan_changed(const ht_plan *p);
