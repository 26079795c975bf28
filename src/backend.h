/* The backend descriptor: everything about one backend (sysctl, sysfs,
 * limits, service, cmdline, bootloader) that the generic code needs, so
 * that a new backend is its own file plus one line in the registry
 * (backends.def). Apply, journal and verify stay generic; nothing outside
 * a backend's own file names a particular backend (rules.c looks the
 * bootloader up by name). Backends never know the CLI, rendering or
 * each other. */
#pragma once

#include "context.h"
#include "facts.h"
#include "plan.h"
#include "profile.h"

typedef struct ht_backend {
        ht_backend_id id;  /* its index in ht_backends[] */
        const char *name;  /* in settings, plans, journals, rules' backend = "..." */
        /* Its profile section ("services"); NULL: the same as name. */
        const char *section;
        /* Not named by profiles or rules' set/skip: only generic code
         * creates its settings (the bootloader default of a rule). */
        bool internal;
        /* Compare the host with the settings of this backend and add to plan
         * the runtime changes, file edits, follow-up actions and warnings.
         * Problems with the host or its files (a required setting the host
         * cannot take, an unparsable file) are added to plan->errors; the
         * return value is -errno only for unexpected failures. NULL: another
         * backend plans these settings (cmdline plans the bootloader's). */
        int (*plan)(const ht_context *c, const ht_facts *f, const ht_resolved *r, ht_plan *plan);
} ht_backend;

/* The registry, indexed by ht_backend_id, NULL-terminated. */
extern const ht_backend *const ht_backends[];

/* NULL for an id out of range. */
const ht_backend *ht_backend_get(ht_backend_id id);
/* The profile section of a backend: "services" for service. */
const char *ht_backend_section_name(ht_backend_id id);
/* By name or section name; -EINVAL: none. */
int ht_backend_from_string(const char *s, ht_backend_id *ret);
