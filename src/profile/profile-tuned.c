/* A tuned profile, in the one place that runs its steps in turn:
 * tuned's loading (tuned-load.c), then the conversion of the merged
 * profile into a profile text (tuned-convert.c) — which is `import
 * tuned`'s output — then, for the resolver, that text parsed as any
 * profile file (profile-load.c), each entry naming the tuned line it came
 * from, so show, plan and the journal cite tuned's files, not the
 * converted text. No step calls the next. */
#include "config.h"

#include <errno.h>

#include "profile-model.h"
#include "tuned-internal.h"
#include "util.h"

int ht_tuned_load(const ht_context *c, json_object *facts, const char *spec, ht_tuned_profile **ret,
                  char **ret_error) {
        tn_profile prof = {0};
        _cleanup_strv_free_ char **vars = NULL;
        _cleanup_free_ char *name = NULL;
        int r = tn_load(c, facts, spec, &prof, &vars, &name, ret_error);
        if (r < 0)
                return r;
        ht_tuned_profile *t = xcalloc(1, sizeof(*t));
        t->name = TAKE_PTR(name);
        r = tn_convert(c, facts, &prof, vars, t->name, t, ret_error);
        tn_profile_done(&prof);
        if (r < 0) {
                ht_tuned_profile_free(t);
                return r;
        }
        *ret = t;
        return 0;
}

int ht_pfile_from_tuned(const ht_context *c, json_object *facts, const char *spec, ht_pfile **ret,
                        char ***warnings, char **ret_error) {
        /* a name, as tuned takes it; a directory is import's (or --tuned-path's) */
        if (strchr(spec, '/'))
                return ht_error(ret_error, -EINVAL,
                                "'" HT_TUNED_PREFIX "%s': a tuned profile name has no '/' (tuned refuses it "
                                "too); for a directory use --tuned-path DIR or 'import tuned DIR'", spec);
        _cleanup_(ht_tuned_profile_freep) ht_tuned_profile *t = NULL;
        int r = ht_tuned_load(c, facts, spec, &t, ret_error);
        if (r < 0)
                return r;
        _cleanup_free_ char *path = xasprintf(HT_TUNED_PREFIX "%s (converted)", t->name);
        _cleanup_free_ char *name = xasprintf(HT_TUNED_PREFIX "%s", t->name);
        ht_pfile *p = NULL;
        r = ht_pfile_parse(path, name, t->text, &p, ret_error);
        if (r < 0)
                return r;
        for (size_t i = 0; t->files && t->files[i]; i++)
                strv_push(&p->origin_files, t->files[i]);
        for (size_t i = 0; i < p->n_entries; i++) {
                ht_entry *e = &p->entries[i];
                if (e->line == 0 || e->line > t->n_lines || t->origin_file[e->line - 1] == 0)
                        continue;
                unsigned l = e->line - 1;
                e->file = p->origin_files[t->origin_file[l] - 1];
                e->line = t->origin_line[l];
                /* the "tuned: FILE:LINE" comment is the source now, not a
                 * citation (comments are joined into one line) */
                if (e->comment) {
                        char *text = (char *)e->comment;  /* owned by p->comments */
                        _cleanup_free_ char *origin = xasprintf("tuned: %s:%u", e->file, e->line);
                        size_t n = strlen(text), o = strlen(origin);
                        if (n == o && streq(text, origin))
                                e->comment = NULL;
                        else if (n > o && endswith(text, origin) && text[n - o - 1] == ' ')
                                text[n - o - 1] = '\0';
                }
        }
        for (size_t i = 0; i < t->n_notes; i++) {
                const ht_tuned_note *n = &t->notes[i];
                if (n->key)
                        strv_pushf(warnings, "tuned %s:%u: [%s] %s: not carried over: %s", n->file, n->line,
                                   n->section, n->key, n->reason);
                else
                        strv_pushf(warnings, "tuned %s:%u: [%s]: not carried over: %s", n->file, n->line,
                                   n->section, n->reason);
        }
        *ret = p;
        return 0;
}
