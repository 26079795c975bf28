#include "config.h"

#include <errno.h>

#include "backend.h"
#include "settings-json.h"
#include "util.h"

static void add(json_object *o, const char *k, const char *v) {
        if (v)
                json_object_object_add(o, k, json_object_new_string(v));
}

json_object *ht_setting_to_json(const ht_setting *s, bool full) {
        json_object *o = json_object_new_object();
        add(o, "backend", ht_backend_id_to_string(s->backend));
        add(o, "key", s->key);
        if (full)
                json_object_object_add(o, "value", s->value ? json_object_new_string(s->value) : NULL);
        else
                add(o, "value", s->value);
        if (!full)
                add(o, "source", s->source);
        const ht_backend *bk = ht_backend_get(s->backend);
        for (size_t k = 0; bk->key_fields && bk->key_fields[k]; k++)
                add(o, bk->key_fields[k], s->fields[k]);
        if (full || s->optional)
                json_object_object_add(o, "optional", json_object_new_boolean(s->optional));
        if (full && (ht_backend_get(s->backend)->entry_flags & HT_ENTRY_REMOVE))
                json_object_object_add(o, "remove", json_object_new_boolean(s->remove));
        if (s->required)
                json_object_object_add(o, "required", json_object_new_boolean(true));
        if (!full && s->remove)
                json_object_object_add(o, "remove", json_object_new_boolean(true));
        if (s->boot_only)
                json_object_object_add(o, "boot_only", json_object_new_boolean(true));
        if (s->at_least)
                json_object_object_add(o, "at_least", json_object_new_boolean(true));
        /* exact is the default: journals from before bounds have none */
        if (full || s->bound != HT_BOUND_EXACT)
                add(o, "bound", ht_bound_to_string(s->bound));
        if (full) {
                add(o, "source", s->source);
                json_object_object_add(o, "citation", s->citation ? json_object_new_string(s->citation) : NULL);
        }
        return o;
}

json_object *ht_settings_to_json(const ht_resolved *r) {
        json_object *a = json_object_new_array();
        for (size_t i = 0; i < r->n_settings; i++)
                json_object_array_add(a, ht_setting_to_json(&r->settings[i], false));
        return a;
}

static const char *get(json_object *o, const char *k) {
        json_object *v;
        if (!json_object_object_get_ex(o, k, &v) || !json_object_is_type(v, json_type_string))
                return NULL;
        return json_object_get_string(v);
}

static bool flag(json_object *o, const char *k) {
        json_object *v;
        return json_object_object_get_ex(o, k, &v) && json_object_get_boolean(v);
}

int ht_settings_from_json(json_object *a, const char *profile, ht_resolved **ret) {
        if (!a || !json_object_is_type(a, json_type_array))
                return -EBADMSG;
        ht_resolved *r = xcalloc(1, sizeof(*r));
        r->name = xstrdup(profile ? profile : "unknown");
        size_t n = json_object_array_length(a);
        r->settings = xcalloc(n + 1, sizeof(ht_setting));
        /* the settings' strings in r's arena, as a resolved profile's */
        ht_arena *ar = &r->arena;
        for (size_t i = 0; i < n; i++) {
                json_object *o = json_object_array_get_idx(a, i);
                const char *backend = json_object_is_type(o, json_type_object) ? get(o, "backend") : NULL;
                int id = -1;
                for (int b = 0; backend && b < _HT_BK_MAX; b++)
                        if (streq(backend, ht_backend_id_to_string(b)))
                                id = b;
                const char *key = id >= 0 ? get(o, "key") : NULL;
                const char *bname = key ? get(o, "bound") : NULL;
                ht_bound bound = HT_BOUND_EXACT;
                if (bname && ht_bound_from_string(bname, &bound) < 0)
                        key = NULL;
                if (!key) {
                        ht_resolved_free(r);
                        return -EBADMSG;
                }
                const char *source = get(o, "source");
                r->settings[r->n_settings++] = (ht_setting){
                        .backend = (ht_backend_id)id,
                        .key = ht_arena_strdup(ar, key),
                        .value = ht_arena_strdup(ar, get(o, "value")),
                        .source = ht_arena_strdup(ar, source ? source : "journal"),
                        .optional = flag(o, "optional"),
                        .required = flag(o, "required"),
                        .remove = flag(o, "remove"),
                        .boot_only = flag(o, "boot_only"),
                        .at_least = flag(o, "at_least"),
                        .bound = bound,
                };
                const ht_backend *bk = ht_backend_get(id);
                for (size_t k = 0; bk->key_fields && bk->key_fields[k]; k++)
                        r->settings[r->n_settings - 1].fields[k] = ht_arena_strdup(ar, get(o, bk->key_fields[k]));
        }
        *ret = r;
        return 0;
}
