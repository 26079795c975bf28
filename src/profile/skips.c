/* The settings a resolution or a plan leaves out, with why. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "util.h"

static void skips_add(ht_skips *l, const char *setting, const char *reason, const char *source,
                      const char *set_by, const char *condition) {
        for (size_t i = 0; i < l->n; i++)
                if (streq(l->items[i].setting, setting) && streq(l->items[i].reason, reason) &&
                    streq(l->items[i].source, source) && streq_ptr(l->items[i].set_by, set_by) &&
                    streq_ptr(l->items[i].condition, condition))
                        return;
        l->items = xrealloc(l->items, (l->n + 1) * sizeof(*l->items));
        l->items[l->n++] = (ht_skip){.setting = xstrdup(setting), .reason = xstrdup(reason),
                                     .source = xstrdup(source), .set_by = set_by ? xstrdup(set_by) : NULL,
                                     .condition = condition ? xstrdup(condition) : NULL};
}

void ht_skips_add_set_by(ht_skips *l, const char *setting, const char *reason, const char *source,
                         const char *set_by) {
        skips_add(l, setting, reason, source, set_by, NULL);
}

void ht_skips_add(ht_skips *l, const char *setting, const char *reason, const char *source) {
        skips_add(l, setting, reason, source, NULL, NULL);
}

void ht_skips_add_condition(ht_skips *l, const char *setting, const char *reason, const char *source,
                            const char *condition) {
        skips_add(l, setting, reason, source, NULL, condition);
}

void ht_skips_copy(ht_skips *dst, const ht_skips *src) {
        for (size_t i = 0; i < src->n; i++)
                skips_add(dst, src->items[i].setting, src->items[i].reason, src->items[i].source,
                          src->items[i].set_by, src->items[i].condition);
}

const char *ht_skip_kind(const ht_skip *s) {
        return s->set_by ? "set elsewhere" : s->condition ? "condition" : "optional";
}

void ht_skips_done(ht_skips *l) {
        for (size_t i = 0; i < l->n; i++) {
                free(l->items[i].setting);
                free(l->items[i].reason);
                free(l->items[i].source);
                free(l->items[i].set_by);
                free(l->items[i].condition);
        }
        free(l->items);
        *l = (ht_skips){0};
}

json_object *ht_skips_to_json(const ht_skips *l) {
        json_object *a = json_object_new_array();
        for (size_t i = 0; i < l->n; i++) {
                json_object *e = json_object_new_object();
                json_object_object_add(e, "setting", json_object_new_string(l->items[i].setting));
                json_object_object_add(e, "reason", json_object_new_string(l->items[i].reason));
                json_object_object_add(e, "source", json_object_new_string(l->items[i].source));
                if (l->items[i].set_by)
                        json_object_object_add(e, "set_by", json_object_new_string(l->items[i].set_by));
                if (l->items[i].condition)
                        json_object_object_add(e, "condition", json_object_new_string(l->items[i].condition));
                json_object_array_add(a, e);
        }
        return a;
}

char *ht_skip_format(const ht_skip *s) {
        return xasprintf("%s (%s)", s->reason, s->source);
}
