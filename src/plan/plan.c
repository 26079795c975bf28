#include "config.h"

#include <stdarg.h>

#include "plan.h"
#include "util.h"

ht_plan *ht_plan_new(const char *profile) {
        ht_plan *p = xcalloc(1, sizeof(*p));
        p->profile = ht_arena_strdup(&p->arena, profile);
        return p;
}

void ht_plan_free(ht_plan *p) {
        if (!p)
                return;
        /* the items' strings are in p->arena */
        free(p->changes);
        free(p->files);
        for (size_t i = 0; i < p->n_actions; i++)
                strv_free(p->actions[i].argv);
        free(p->actions);
        strv_free(p->warnings);
        ht_skips_done(&p->skipped);
        strv_free(p->errors);
        json_object_put(p->not_used);
        ht_arena_done(&p->arena);
        free(p);
}

char *ht_plan_strdup(ht_plan *p, const char *s) {
        return ht_arena_strdup(&p->arena, s);
}

char *ht_plan_printf(ht_plan *p, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        char *s = ht_arena_vprintf(&p->arena, fmt, ap);
        va_end(ap);
        return s;
}

ht_change *ht_plan_add_change(ht_plan *p, ht_backend_id backend, const char *key,
                              const char *current, const char *desired) {
        if (p->n_changes == p->changes_cap) {
                p->changes_cap = p->changes_cap ? 2 * p->changes_cap : 16;
                p->changes = xrealloc(p->changes, p->changes_cap * sizeof(ht_change));
        }
        ht_change *c = &p->changes[p->n_changes++];
        *c = (ht_change){
                .backend = backend,
                .key = ht_plan_strdup(p, key),
                .current = ht_plan_strdup(p, current),
                .desired = ht_plan_strdup(p, desired),
                .outcome = HT_OUTCOME_CHANGE,
        };
        return c;
}

/* n bytes (a file's content may hold a NUL), NUL-terminated */
static char *dup_buf(ht_plan *p, const char *s, size_t n) {
        if (!s)
                return NULL;
        char *d = ht_arena_alloc(&p->arena, n + 1);
        memcpy(d, s, n);
        return d;
}

void ht_plan_add_file(ht_plan *p, ht_backend_id backend, const char *path,
                      const char *old_content, size_t old_len,
                      const char *new_content, size_t new_len, mode_t mode) {
        if (old_content && new_content && old_len == new_len && memcmp(old_content, new_content, old_len) == 0)
                return;
        if (!old_content && !new_content)
                return;
        p->files = xrealloc(p->files, (p->n_files + 1) * sizeof(ht_file_edit));
        p->files[p->n_files++] = (ht_file_edit){
                .path = ht_plan_strdup(p, path),
                .old_content = dup_buf(p, old_content, old_len),
                .old_len = old_content ? old_len : 0,
                .new_content = dup_buf(p, new_content, new_len),
                .new_len = new_content ? new_len : 0,
                .mode = mode,
                .backend = backend,
        };
}

void ht_plan_add_action(ht_plan *p, int backend, const char *action, char *const *argv,
                        const char *description, const char *generates) {
        for (size_t i = 0; i < p->n_actions; i++)
                if (streq(p->actions[i].action, action))
                        return; /* one daemon-reload is enough, whoever asks */
        p->actions = xrealloc(p->actions, (p->n_actions + 1) * sizeof(ht_post_action));
        char **copy = NULL;
        for (size_t i = 0; argv && argv[i]; i++)
                strv_push(&copy, argv[i]);
        p->actions[p->n_actions++] = (ht_post_action){
                .argv = copy,
                .action = ht_plan_strdup(p, action),
                .description = ht_plan_strdup(p, description),
                .backend = backend,
                .generates = ht_plan_strdup(p, generates),
        };
}

/* Several settings may hit the same problem; say it once. */
static void push_unique(char ***l, char *msg) {
        if (strv_contains(*l, msg))
                free(msg);
        else
                strv_push_take(l, msg);
}

void ht_plan_warn(ht_plan *p, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        push_unique(&p->warnings, xvasprintf(fmt, ap));
        va_end(ap);
}

void ht_plan_skip_host_value(ht_plan *p, ht_change *ch, const char *key, const char *container,
                             const char *shared, const char *persisted) {
        ch->runtime = false;
        ch->outcome = HT_OUTCOME_SKIPPED;
        ht_plan_warn(p, "%s: not namespaced: this %s container shares the host's %s, and writing it would change "
                     "it for the host and every container on it; the runtime change is skipped (set it on the host; "
                     "the %s applies only where this tree boots as a host)",
                     key, container, shared, persisted);
}

void ht_plan_skip(ht_plan *p, const char *setting, const char *source, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        _cleanup_free_ char *why = xvasprintf(fmt, ap);
        va_end(ap);
        ht_skips_add(&p->skipped, setting, why, source ? source : "");
}

void ht_plan_skip_set_by(ht_plan *p, const char *setting, const char *source, const char *set_by,
                         const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        _cleanup_free_ char *why = xvasprintf(fmt, ap);
        va_end(ap);
        ht_skips_add_set_by(&p->skipped, setting, why, source ? source : "", set_by);
}

void ht_plan_error(ht_plan *p, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        push_unique(&p->errors, xvasprintf(fmt, ap));
        va_end(ap);
}

bool ht_plan_changed(const ht_plan *p) {
        for (size_t i = 0; i < p->n_changes; i++)
                if (p->changes[i].outcome == HT_OUTCOME_CHANGE)
                        return true;
        return p->n_files > 0 || p->n_actions > 0;
}
