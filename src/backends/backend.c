/* The registry: every backend's descriptor, indexed by its id, in the
 * order plans list them (backends.def). Only the commands use it: they
 * walk it and hand it down to the rooms below (ht_backend_registry_use,
 * backend-lookup.c), which call no backend's file. */
#include "config.h"

#include <fnmatch.h>

#include "backend-common.h"
#include "backend.h"
#include "util.h"

#define HT_BACKEND(id, name) extern const ht_backend ht_backend_##name;
#include "backends.def"
#undef HT_BACKEND

const ht_backend *const ht_backends[_HT_BK_MAX + 1] = {
#define HT_BACKEND(id, name) [HT_BK_##id] = &ht_backend_##name,
#include "backends.def"
#undef HT_BACKEND
        NULL,
};

bool ht_backend_manages_file(const ht_context *c, const char *backend, const char *path) {
        const ht_backend *b = backend ? ht_backend_by_name(backend) : NULL;
        if (!b || !b->files || !path || ht_path_check(path) < 0)
                return false;
        for (const char *const *f = b->files; *f; f++) {
                if (fnmatch(*f, path, FNM_PATHNAME | FNM_PERIOD) == 0)
                        return true;
                /* a file kept elsewhere and linked (RHEL's /etc/grub.conf):
                 * the backend edits the link's target (ht_edit_target
                 * refuses links into hosttune's own files and out of the
                 * root) */
                _cleanup_free_ char *target = NULL, *err = NULL;
                if (c && !strpbrk(*f, "*?[") && ht_edit_target(c, *f, &target, &err) == 0 && streq(target, path))
                        return true;
        }
        return false;
}
