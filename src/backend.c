/* The registry: every backend, in the order plans list them. */
#include "config.h"

#include "backend.h"

extern const ht_backend ht_backend_sysctl, ht_backend_sysfs, ht_backend_limits, ht_backend_service,
        ht_backend_cmdline;

const ht_backend *const ht_backends[] = {
        &ht_backend_sysctl,
        &ht_backend_sysfs,
        &ht_backend_limits,
        &ht_backend_service,
        &ht_backend_cmdline,
        NULL,
};
