/* The backends as the rooms below the commands see them: their names,
 * generated from backends.def, and their descriptors through the
 * registry the commands hand down once (ht_backend_registry_use). The
 * profile room parses and evaluates every backend's settings through
 * their descriptors, yet calls no backend's file: the backends call into
 * the profile room, never the other way (docs/DESIGN.md, "Rooms"). */
#include "config.h"

#include <assert.h>
#include <errno.h>

#include "backend.h"
#include "util.h"

static const char *const names[_HT_BK_MAX] = {
#define HT_BACKEND(id, name) [HT_BK_##id] = #name,
#include "backends.def"
#undef HT_BACKEND
};

static const ht_backend *const *registry;

void ht_backend_registry_use(const ht_backend *const *r) {
        /* each descriptor at its backends.def line, under its name there */
        for (int i = 0; i < _HT_BK_MAX; i++) {
                assert(r[i] && r[i]->id == (ht_backend_id)i && streq(r[i]->name, names[i]));
                assert(!r[i]->key_fields || strv_length((char **)r[i]->key_fields) <= HT_KEY_FIELDS_MAX);
        }
        assert(!r[_HT_BK_MAX]);
        registry = r;
}

const ht_backend *ht_backend_get(ht_backend_id id) {
        if (id < 0 || id >= _HT_BK_MAX)
                return NULL;
        /* a program that loads profiles hands the registry down first */
        assert(registry);
        return registry[id];
}

const ht_backend *ht_backend_by_name(const char *name) {
        for (int i = 0; name && i < _HT_BK_MAX; i++)
                if (streq(names[i], name))
                        return ht_backend_get(i);
        return NULL;
}

const char *ht_backend_id_to_string(ht_backend_id id) {
        return id >= 0 && id < _HT_BK_MAX ? names[id] : NULL;
}

const char *ht_backend_section_name(ht_backend_id id) {
        const ht_backend *b = ht_backend_get(id);
        return b && b->section ? b->section : ht_backend_id_to_string(id);
}

int ht_backend_from_string(const char *s, ht_backend_id *ret) {
        for (int i = 0; i < _HT_BK_MAX; i++)
                if (streq(s, names[i]) || streq(s, ht_backend_section_name(i))) {
                        *ret = i;
                        return 0;
                }
        return -EINVAL;
}

bool ht_backend_sets_hugepages(ht_backend_id id, const char *key) {
        const ht_backend *b = ht_backend_get(id);
        return b && b->hugepages_key && b->hugepages_key(key);
}

char *ht_backends_with_flag(unsigned flag, size_t *ret_n) {
        strbuf b = {0};
        size_t n = 0, total = 0;
        for (int i = 0; i < _HT_BK_MAX; i++)
                total += !!(ht_backend_get(i)->entry_flags & flag);
        for (int i = 0; i < _HT_BK_MAX; i++) {
                if (!(ht_backend_get(i)->entry_flags & flag))
                        continue;
                n++;
                strbuf_appendf(&b, "%s%s", n == 1 ? "" : n == total ? " and " : ", ", names[i]);
        }
        if (ret_n)
                *ret_n = n;
        return strbuf_steal(&b);
}

const char *ht_setting_field(const ht_setting *s, const char *name) {
        const ht_backend *b = ht_backend_get(s->backend);
        for (size_t i = 0; b && b->key_fields && b->key_fields[i]; i++)
                if (streq(b->key_fields[i], name))
                        return s->fields[i];
        return NULL;
}
