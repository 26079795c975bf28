/* The model's lifecycle: settings and resolved profiles freed, and the
 * words messages use for a setting. */
#include "config.h"

#include <stdlib.h>

#include "backend.h"
#include "profile-internal.h"
#include "util.h"

void ht_setting_done(ht_setting *s) {
        free(s->key);
        free(s->value);
        free(s->source);
        free(s->citation);
        free(s->domain);
        free(s->type);
        free(s->item);
        free(s->unit);
        free(s->directive);
        free(s->target);
        *s = (ht_setting){0};
}

/* "sysctl vm.swappiness", "limits oracle soft memlock", for messages. */
char *setting_label(const ht_setting *s) {
        const ht_backend *bk = ht_backend_get(s->backend);
        if (bk && bk->label)
                return bk->label(s);
        return xasprintf("%s %s", ht_backend_id_to_string(s->backend), s->key);
}

const char *value_or_removed(const ht_setting *s) {
        if (s->remove)
                return isempty(s->value) ? "(removed)" : "(this value removed)";
        return s->value ? s->value : "(unset)";
}

/* What show prints after a bounded value: which way the host may differ. */
const char *bound_suffix(ht_bound b) {
        switch (b) {
        case HT_BOUND_AT_LEAST: return " (at least)";
        case HT_BOUND_AT_MOST: return " (at most)";
        case HT_BOUND_RANGE: return " (range)";
        default: return "";
        }
}

void ht_resolved_free(ht_resolved *r) {
        if (!r)
                return;
        free(r->name);
        free(r->summary);
        free(r->file);
        strv_free(r->chain);
        for (size_t i = 0; i < r->n_params; i++) {
                free(r->params[i].name);
                free(r->params[i].value);
                free(r->params[i].source);
                free(r->params[i].citation);
        }
        free(r->params);
        for (size_t i = 0; i < r->n_settings; i++)
                ht_setting_done(&r->settings[i]);
        free(r->settings);
        strv_free(r->warnings);
        ht_skips_done(&r->skipped);
        strv_free(r->errors);
        json_object_put(r->not_used);
        free(r);
}
