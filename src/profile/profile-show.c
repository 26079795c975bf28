/* A resolved profile as `show` prints it: JSON and text. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "compose.h"
#include "resolver-internal.h"
#include "settings-json.h"
#include "util.h"

/* --- output --------------------------------------------------------- */

static void add_str(json_object *o, const char *k, const char *v) {
        if (v)
                json_object_object_add(o, k, json_object_new_string(v));
}

json_object *ht_resolved_to_json(const ht_resolved *r) {
        json_object *o = json_object_new_object();
        add_str(o, "profile", r->name);
        json_object_object_add(o, "summary", r->summary ? json_object_new_string(r->summary) : NULL);
        add_str(o, "file", r->file);
        json_object_object_add(o, "chain", ht_strv_to_json(r->chain));
        json_object *params = json_object_new_array();
        for (size_t i = 0; i < r->n_params; i++) {
                json_object *p = json_object_new_object();
                add_str(p, "name", r->params[i].name);
                add_str(p, "value", r->params[i].value);
                add_str(p, "source", r->params[i].source);
                json_object_object_add(p, "citation", r->params[i].citation
                                                              ? json_object_new_string(r->params[i].citation)
                                                              : NULL);
                json_object_array_add(params, p);
        }
        json_object_object_add(o, "params", params);
        json_object *settings = json_object_new_array();
        for (size_t i = 0; i < r->n_settings; i++)
                json_object_array_add(settings, ht_setting_to_json(&r->settings[i], true));
        json_object_object_add(o, "settings", settings);
        json_object_object_add(o, "skipped", ht_skips_to_json(&r->skipped));
        json_object_object_add(o, "warnings", ht_strv_to_json(r->warnings));
        json_object_object_add(o, "errors", ht_strv_to_json(r->errors));
        json_object_object_add(o, "reboot_required", json_object_new_boolean(r->reboot_required));
        /* only when there are some: most hosts have none */
        if (r->not_used && json_object_array_length(r->not_used))
                json_object_object_add(o, "not_used", json_object_get(r->not_used));
        if (r->composed)  /* issue 37: several workloads */
                json_object_object_add(o, "composed", json_object_get(r->composed));
        return o;
}

char *ht_not_used_format(json_object *e) {
        json_object *o;
        const char *name = json_object_object_get_ex(e, "name", &o) ? json_object_get_string(o) : NULL;
        int64_t pid = json_object_object_get_ex(e, "pid", &o) ? json_object_get_int64(o) : 0;
        const char *why = json_object_object_get_ex(e, "reason", &o) ? json_object_get_string(o) : NULL;
        const char *set = json_object_object_get_ex(e, "set", &o) ? json_object_get_string(o) : NULL;
        strbuf b = {0};
        strbuf_appendf(&b, "%s %" PRId64 ": %s", name ? name : "?", pid, why ? why : "not trusted");
        if (set) {
                strbuf_append(&b, "; --set ");
                ht_shell_word_append(&b, set);
                strbuf_append(&b, " would use it");
        }
        return strbuf_steal(&b);
}

static char *setting_text_line(const ht_setting *s) {
        const char *b = ht_backend_id_to_string(s->backend);
        const ht_backend *bk = ht_backend_get(s->backend);
        if (bk->show_line)
                return bk->show_line(s);
        return xasprintf("%-8s %s = %s", b, s->key, s->value ? s->value : "(unchanged)");
}

/* A citation under its value: indented, as "# ..." lines of at most
 * about 80 columns, broken at spaces. */
static void append_citation(strbuf *b, const char *text) {
        const size_t width = 74;
        const char *p = text;
        while (*p) {
                size_t n = strlen(p);
                if (n > width) {
                        size_t cut = width;
                        while (cut > 0 && p[cut] != ' ')
                                cut--;
                        if (cut == 0)  /* one long word (a URL): whole */
                                cut = strcspn(p, " ");
                        n = cut;
                }
                strbuf_appendf(b, "      # %.*s\n", (int)n, p);
                p += n;
                p += strspn(p, " ");
        }
}

char *ht_resolved_format_text(const ht_resolved *r) {
        strbuf b = {0};
        strbuf_appendf(&b, "profile %s (%s)\n", r->name, r->file);
        if (r->summary)
                strbuf_appendf(&b, "  %s\n", r->summary);
        _cleanup_free_ char *chain = strv_join(r->chain, " -> ");
        strbuf_appendf(&b, "inherits: %s\n", chain ? chain : "");

        size_t w = 0;
        _cleanup_strv_free_ char **plines = NULL, **slines = NULL;
        for (size_t i = 0; i < r->n_params; i++) {
                const char *v = r->params[i].value;
                strv_push_take(&plines, xasprintf("%s = %s", r->params[i].name,
                                                  isempty(v) ? "\"\"" : v));
        }
        for (size_t i = 0; i < r->n_settings; i++) {
                const ht_setting *s = &r->settings[i];
                _cleanup_free_ char *t = setting_text_line(s);
                strv_push_take(&slines, xasprintf("%s%s%s%s%s%s", t, s->optional ? " (optional)" : "",
                                                  s->required ? " (required)" : "",
                                                  s->boot_only ? " (after reboot)" : "",
                                                  s->at_least ? " (at least)" : "",
                                                  ht_bound_suffix(s->bound)));
        }
        for (size_t i = 0; plines && plines[i]; i++)
                w = strlen(plines[i]) > w ? strlen(plines[i]) : w;
        for (size_t i = 0; slines && slines[i]; i++)
                w = strlen(slines[i]) > w ? strlen(slines[i]) : w;
        if (w > 60)
                w = 60;

        strbuf_append(&b, "\nparams:\n");
        for (size_t i = 0; i < r->n_params; i++) {
                strbuf_appendf(&b, "  %-*s  %s\n", (int)w, plines[i], r->params[i].source);
                if (r->params[i].citation)
                        append_citation(&b, r->params[i].citation);
        }
        strbuf_append(&b, "\nsettings:\n");
        if (!r->n_settings)
                strbuf_append(&b, "  (none)\n");
        for (size_t i = 0; i < r->n_settings; i++) {
                strbuf_appendf(&b, "  %-*s  %s\n", (int)w, slines[i], r->settings[i].source);
                if (r->settings[i].citation)
                        append_citation(&b, r->settings[i].citation);
        }
        /* what the host cannot take, then what the profile leaves out
         * here by its own condition */
        for (int cond = 0; cond < 2; cond++) {
                bool any = false;
                for (size_t i = 0; i < r->skipped.n; i++) {
                        if ((r->skipped.items[i].condition != NULL) != (cond == 1))
                                continue;
                        if (!any)
                                strbuf_append(&b, cond ? "\nskipped (condition):\n" : "\nskipped (optional):\n");
                        any = true;
                        _cleanup_free_ char *t = ht_skip_format(&r->skipped.items[i]);
                        strbuf_appendf(&b, "  %s\n", t);
                }
        }
        size_t n_unused = r->not_used ? json_object_array_length(r->not_used) : 0;
        if (n_unused)
                strbuf_append(&b, "\nnot used (found, not trusted to size or grant anything):\n");
        for (size_t i = 0; i < n_unused; i++) {
                _cleanup_free_ char *t = ht_not_used_format(json_object_array_get_idx(r->not_used, i));
                strbuf_appendf(&b, "  %s\n", t);
        }
        if (r->composed) {  /* issue 37 */
                _cleanup_free_ char *t = ht_compose_format_text(r->composed);
                strbuf_append(&b, t);
        }
        if (r->warnings) {
                strbuf_append(&b, "\nwarnings:\n");
                for (size_t i = 0; r->warnings[i]; i++)
                        strbuf_appendf(&b, "  %s\n", r->warnings[i]);
        }
        if (r->errors) {
                strbuf_append(&b, "\nerrors:\n");
                for (size_t i = 0; r->errors[i]; i++)
                        strbuf_appendf(&b, "  %s\n", r->errors[i]);
        }
        if (r->reboot_required)
                strbuf_append(&b, "\nreboot required: a rule changes the boot entry\n");
        return strbuf_steal(&b);
}
