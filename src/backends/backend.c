/* The registry: every backend's descriptor, indexed by its id, in the
 * order plans list them (backends.def). */
#include "config.h"

#include <errno.h>
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

const ht_backend *ht_backend_get(ht_backend_id id) {
        return id >= 0 && id < _HT_BK_MAX ? ht_backends[id] : NULL;
}

const ht_backend *ht_backend_by_name(const char *name) {
        for (size_t i = 0; ht_backends[i]; i++)
                if (streq(ht_backends[i]->name, name))
                        return ht_backends[i];
        return NULL;
}

const char *ht_backend_id_to_string(ht_backend_id id) {
        const ht_backend *b = ht_backend_get(id);
        return b ? b->name : NULL;
}

const char *ht_backend_section_name(ht_backend_id id) {
        const ht_backend *b = ht_backend_get(id);
        return b && b->section ? b->section : ht_backend_id_to_string(id);
}

int ht_backend_from_string(const char *s, ht_backend_id *ret) {
        for (int i = 0; i < _HT_BK_MAX; i++)
                if (streq(s, ht_backends[i]->name) || streq(s, ht_backend_section_name(i))) {
                        *ret = i;
                        return 0;
                }
        return -EINVAL;
}

bool ht_backend_sets_hugepages(ht_backend_id id, const char *key) {
        const ht_backend *b = ht_backend_get(id);
        return b && b->hugepages_key && b->hugepages_key(key);
}

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

/* systemd-logind re-reads logind.conf on SIGHUP (systemd 230 NEWS); see
 * backend-systemd.c for why not reload or restart */
static const char *const reload_logind_argv[] = {"systemctl", "kill", "--signal=SIGHUP", "systemd-logind.service",
                                                 NULL};

static const ht_follow_up_def follow_ups[] = {
        {"daemon-reload", NULL},
        {"reload-logind", reload_logind_argv},
};

const ht_follow_up_def *ht_follow_up_get(const char *action) {
        for (size_t i = 0; action && i < ELEMENTSOF(follow_ups); i++)
                if (streq(follow_ups[i].action, action))
                        return &follow_ups[i];
        return NULL;
}
