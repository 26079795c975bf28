/* The common interface of the backends (sysctl, sysfs, limits, service,
 * cmdline/bootloader). A new backend is one file plus one line in the
 * registry (backend.c). Backends never know the CLI, rendering or each
 * other. */
#pragma once

#include "context.h"
#include "facts.h"
#include "plan.h"
#include "profile.h"

typedef struct ht_backend {
        ht_backend_id id;
        const char *name;
        /* Compare the host with the settings of this backend and add to plan
         * the runtime changes, file edits, follow-up actions and warnings.
         * Problems with the host or its files (a required setting the host
         * cannot take, an unparsable file) are added to plan->errors; the
         * return value is -errno only for unexpected failures. */
        int (*plan)(const ht_context *c, const ht_facts *f, const ht_resolved *r, ht_plan *plan);
} ht_backend;

extern const ht_backend *const ht_backends[];
