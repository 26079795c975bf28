#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "backend.h"
#include "diff.h"
#include "render.h"
#include "util.h"

#define C_RESET "\033[0m"
#define C_RED "\033[31m"
#define C_GREEN "\033[32m"
#define C_CYAN "\033[36m"
#define C_BOLD "\033[1m"
#define C_YELLOW "\033[33m"

static json_object *jstr(const char *s) {
        return s ? json_object_new_string(s) : NULL;
}

static const char *outcome_name(ht_outcome o) {
        switch (o) {
        case HT_OUTCOME_KEPT: return "kept";
        case HT_OUTCOME_CHANGE: return "change";
        case HT_OUTCOME_SKIPPED: return "skipped";
        case HT_OUTCOME_FAILED: return "failed";
        case HT_OUTCOME_OVERRIDDEN: return "overridden";
        }
        return "unknown";
}

/* A file edit's diff, labelled with the host path as diff -u would be
 * for a tree rooted at "/": "a/etc/..." and "b/etc/...". */
static char *file_diff(const ht_file_edit *f) {
        char *a = xasprintf("a%s", f->path), *b = xasprintf("b%s", f->path);
        char *d = ht_unified_diff(f->old_content ? a : "/dev/null", f->old_content ? f->old_content : "",
                                  f->old_len, f->new_content ? b : "/dev/null",
                                  f->new_content ? f->new_content : "", f->new_len, 3);
        free(a);
        free(b);
        return d ? d : xstrdup("");
}

/* The keys are string literals: json-c need not copy them. */
static void add(json_object *o, const char *key, json_object *v) {
        json_object_object_add_ex(o, key, v, JSON_C_OBJECT_ADD_CONSTANT_KEY);
}

json_object *ht_plan_to_json(const ht_plan *p) {
        json_object *o = json_object_new_object();
        add(o, "profile", jstr(p->profile));
        add(o, "changed", json_object_new_boolean(ht_plan_changed(p)));
        add(o, "reboot_required", json_object_new_boolean(p->reboot_required));
        add(o, "offline", json_object_new_boolean(p->offline));

        json_object *changes = json_object_new_array();
        for (size_t i = 0; i < p->n_changes; i++) {
                const ht_change *c = &p->changes[i];
                json_object *e = json_object_new_object();
                add(e, "backend", json_object_new_string(ht_backend_id_to_string(c->backend)));
                add(e, "key", jstr(c->key));
                add(e, "current", jstr(c->current));
                add(e, "desired", jstr(c->desired));
                add(e, "runtime", json_object_new_boolean(c->runtime));
                add(e, "reboot_required", json_object_new_boolean(c->reboot_required));
                add(e, "outcome", json_object_new_string(outcome_name(c->outcome)));
                if (c->path)
                        add(e, "path", jstr(c->path));
                if (c->source)
                        add(e, "source", jstr(c->source));
                if (c->note)
                        add(e, "note", jstr(c->note));
                if (c->current_from)
                        add(e, "current_from", jstr(c->current_from));
                if (c->setting)
                        add(e, "setting", jstr(c->setting));
                add(e, "bound", json_object_new_string(ht_bound_to_string(c->bound)));
                if (c->bound_value)
                        add(e, "bound_value", jstr(c->bound_value));
                json_object_array_add(changes, e);
        }
        add(o, "changes", changes);

        json_object *files = json_object_new_array();
        for (size_t i = 0; i < p->n_files; i++) {
                const ht_file_edit *f = &p->files[i];
                json_object *e = json_object_new_object();
                add(e, "path", jstr(f->path));
                add(e, "backend", json_object_new_string(ht_backend_id_to_string(f->backend)));
                add(e, "action", json_object_new_string(!f->old_content ? "create" :
                                                                           !f->new_content ? "remove" : "modify"));
                char *d = file_diff(f);
                add(e, "diff", json_object_new_string(d));
                free(d);
                /* Ansible's diff mode wants before/after texts. */
                add(e, "before", json_object_new_string_len(f->old_content ? f->old_content : "", (int)f->old_len));
                add(e, "after", json_object_new_string_len(f->new_content ? f->new_content : "", (int)f->new_len));
                json_object_array_add(files, e);
        }
        add(o, "files", files);

        json_object *actions = json_object_new_array();
        for (size_t i = 0; i < p->n_actions; i++) {
                json_object *e = json_object_new_object();
                add(e, "action", jstr(p->actions[i].action));
                if (p->actions[i].argv)
                        add(e, "argv", ht_strv_to_json(p->actions[i].argv));
                add(e, "description", jstr(p->actions[i].description));
                json_object_array_add(actions, e);
        }
        add(o, "actions", actions);
        add(o, "skipped", ht_skips_to_json(&p->skipped));
        add(o, "warnings", ht_strv_to_json(p->warnings));
        add(o, "errors", ht_strv_to_json(p->errors));
        /* only when there are some: most hosts have none */
        if (p->not_used && json_object_array_length(p->not_used))
                add(o, "not_used", json_object_get(p->not_used));
        return o;
}

/* The strings up to NULL, one after the other: a plan's lines are such
 * joins, and fprintf() would parse a format for each (~1500
 * instructions a line). */
__attribute__((sentinel)) static void put_line(FILE *out, ...) {
        va_list ap;
        va_start(ap, out);
        /* unlocked: hosttune has one thread, and the lock was a third of
         * each call (a plan prints some 300 pieces) */
        for (const char *s; (s = va_arg(ap, const char *));)
                if (*s)
                        fputs_unlocked(s, out);
        va_end(ap);
}

static void print_diff(FILE *out, const char *d, bool color) {
        /* the old file's lines are the host's: made safe here, where the
         * colours (escape sequences themselves) are not yet added */
        _cleanup_free_ char *safe = xstrdup(d);
        ht_text_sanitize(safe, true);
        const char *line = safe;
        while (*line) {
                size_t n = strcspn(line, "\n");
                const char *col = NULL;
                if (color) {
                        if (startswith(line, "+++") || startswith(line, "---"))
                                col = C_BOLD;
                        else if (line[0] == '+')
                                col = C_GREEN;
                        else if (line[0] == '-')
                                col = C_RED;
                        else if (startswith(line, "@@"))
                                col = C_CYAN;
                }
                if (col)
                        fprintf(out, "%s%.*s%s\n", col, (int)n, line, C_RESET);
                else {
                        /* most lines, and all without colour: no format to parse */
                        fwrite_unlocked(line, 1, n, out);
                        putc_unlocked('\n', out);
                }
                line += n;
                if (*line == '\n')
                        line++;
        }
}

/* Whether a skipped change is one of the plan's skipped optional
 * settings ("BACKEND KEY"). */
static bool listed_skipped(const ht_plan *p, const ht_change *c) {
        _cleanup_free_ char *name = xasprintf("%s %s", ht_backend_id_to_string(c->backend), c->key);
        for (size_t i = 0; i < p->skipped.n; i++)
                if (streq(p->skipped.items[i].setting, name))
                        return true;
        return false;
}

/* The plan's strings are made safe for a terminal one by one: values
 * read from the host (current values, notes naming files, warnings) may
 * hold control characters, and colour codes must survive. */
void ht_print_plan(FILE *out, const ht_plan *p, bool color, bool quiet) {
        size_t runtime = 0, skipped = 0;
        for (size_t i = 0; i < p->n_changes; i++) {
                const ht_change *c = &p->changes[i];
                if (c->outcome == HT_OUTCOME_CHANGE && c->runtime)
                        runtime++;
                /* skipped for a reason the warnings give (a read-only
                 * /proc/sys); the optional ones are listed at the end */
                if (c->outcome == HT_OUTCOME_SKIPPED && !listed_skipped(p, c))
                        skipped++;
        }
        const char *b = color ? C_BOLD : "", *r = color ? C_RESET : "";
        size_t nerr = strv_length(p->errors);
        /* With errors apply refuses the whole plan: say so before the
         * changes a reviewer might otherwise take for what will happen. */
        if (nerr)
                fprintf(out, "%sProfile %s: %zu error%s (listed at the end): apply would change nothing.%s\n", b,
                        p->profile, nerr, nerr == 1 ? "" : "s", r);
        if (!ht_plan_changed(p)) {
                if (!nerr)
                        fprintf(out, "%sProfile %s: no changes%s; the host is already in the profile's state.\n", b,
                                p->profile, r);
        } else
                fprintf(out, "%s%s%s: %zu runtime change%s, %zu file%s to write%s%s%s\n", b,
                        nerr ? "Without the errors" : "Profile ", nerr ? "" : p->profile,
                        runtime, runtime == 1 ? "" : "s", p->n_files, p->n_files == 1 ? "" : "s",
                        p->reboot_required ? ", reboot required" : "", p->offline ? " (offline image)" : "", r);
        if (skipped)
                fprintf(out, "%zu setting%s skipped (see warnings).\n", skipped, skipped == 1 ? "" : "s");
        /* persisted by an earlier apply, waiting for the next boot */
        for (size_t i = 0; i < p->n_changes; i++) {
                const ht_change *c = &p->changes[i];
                if (c->outcome == HT_OUTCOME_KEPT && c->reboot_required) {
                        _cleanup_free_ char *key = ht_text_safe(c->key);
                        _cleanup_free_ char *desired = ht_text_safe(c->desired ? c->desired : "(removed)");
                        _cleanup_free_ char *note = ht_text_safe(c->note ? c->note : "after the next boot");
                        fprintf(out, "pending reboot: %s %s \u2192 %s (%s)\n", ht_backend_id_to_string(c->backend),
                                key, desired, note);
                }
        }

        for (int bk = 0; bk < _HT_BK_MAX; bk++) {
                bool header = false;
                for (size_t i = 0; i < p->n_changes; i++) {
                        const ht_change *c = &p->changes[i];
                        /* a value kept because it meets its bound is shown with
                         * the bound, so a reviewer sees why nothing moves */
                        bool kept = c->outcome == HT_OUTCOME_KEPT && c->bound_value && !c->reboot_required;
                        if ((int)c->backend != bk || (c->outcome != HT_OUTCOME_CHANGE && !kept))
                                continue;
                        if (!header) {
                                fprintf(out, "\n%s%s%s\n", b, ht_backend_id_to_string(bk), r);
                                header = true;
                        }
                        /* kernel.sem and friends print tabs: one blank reads better */
                        _cleanup_free_ char *cur = c->current ? normalize_ws(c->current) : NULL;
                        _cleanup_free_ char *key = ht_text_safe(c->key);
                        _cleanup_free_ char *desired = ht_text_safe(c->desired ? c->desired : "(removed)");
                        if (cur)
                                ht_text_sanitize(cur, false);
                        /* a value no file of the key's own sets: where it
                         * comes from, so "(unset)" never hides a default */
                        if (cur && c->current_from) {
                                _cleanup_free_ char *from = ht_text_safe(c->current_from);
                                char *both = xasprintf("%s [%s]", cur, from);
                                free(cur);
                                cur = both;
                        }
                        /* the bound in full where desired is not the bound's own
                         * value (kernel.sem raised field by field), else its name */
                        _cleanup_free_ char *bound = !c->bound_value ? NULL
                                : kept || !ht_bound_satisfied(HT_BOUND_EXACT, c->bound_value, c->desired)
                                        ? ht_bound_describe(c->bound, c->bound_value)
                                        : xstrdup(c->bound == HT_BOUND_RANGE ? "within range"
                                                  : c->bound == HT_BOUND_AT_MOST ? "at most" : "at least");
                        if (kept) {
                                ht_text_sanitize(bound, false);
                                put_line(out, "  ", key, ": ", cur ? cur : "(unset)", " kept (",
                                         bound ? bound : "(null)", ")\n", NULL);
                                continue;
                        }
                        /* one parenthesis: the bound, that only the file changes,
                         * and a value the user named (--set sysctl.KEY=VALUE) */
                        strbuf why = {0};
                        if (bound) {
                                ht_text_sanitize(bound, false);
                                strbuf_append(&why, bound);
                        }
                        if (!c->runtime)
                                strbuf_appendf(&why, "%spersisted", why.len ? "; " : "");
                        if (streq_ptr(c->source, "--set"))
                                strbuf_appendf(&why, "%s--set", why.len ? "; " : "");
                        put_line(out, "  ", key, ": ", cur ? cur : "(unset)", " \u2192 ", desired,
                                 why.len ? " (" : "", why.len ? why.data : "", why.len ? ")" : "",
                                 c->reboot_required ? " [reboot]" : "", "\n", NULL);
                        strbuf_done(&why);
                        if (c->note) {
                                _cleanup_free_ char *note = ht_text_safe(c->note);
                                put_line(out, "    note: ", note, "\n", NULL);
                        }
                }
                for (size_t i = 0; i < p->n_files; i++) {
                        const ht_file_edit *f = &p->files[i];
                        if ((int)f->backend != bk)
                                continue;
                        if (!header) {
                                fprintf(out, "\n%s%s%s\n", b, ht_backend_id_to_string(bk), r);
                                header = true;
                        }
                        char *d = file_diff(f);
                        print_diff(out, d, color);
                        free(d);
                }
        }
        if (p->n_actions) {
                fprintf(out, "\n%safter the files are written%s\n", b, r);
                for (size_t i = 0; i < p->n_actions; i++) {
                        _cleanup_free_ char *what = ht_text_safe(p->actions[i].description ? p->actions[i].description
                                                                                           : p->actions[i].action);
                        fprintf(out, "  %s", what);
                        if (p->actions[i].argv) {
                                char *cmd = ht_shell_join(p->actions[i].argv);
                                fprintf(out, ": %s", cmd);
                                free(cmd);
                        }
                        fputc('\n', out);
                }
        }
        /* what the host cannot take and the profile can do without: one
         * quiet line each, no warning (and nothing under --quiet) */
        for (size_t i = 0; !quiet && i < p->skipped.n; i++) {
                _cleanup_free_ char *t = ht_skip_format(&p->skipped.items[i]);
                ht_text_sanitize(t, false);
                put_line(out, "skipped (", ht_skip_kind(&p->skipped.items[i]), "): ", t, "\n", NULL);
        }
        for (size_t i = 0; p->not_used && i < json_object_array_length(p->not_used); i++) {
                _cleanup_free_ char *t = ht_not_used_format(json_object_array_get_idx(p->not_used, i));
                ht_text_sanitize(t, false);
                put_line(out, "not used: ", t, "\n", NULL);
        }
        for (size_t i = 0; p->warnings && p->warnings[i]; i++) {
                _cleanup_free_ char *w = ht_text_safe(p->warnings[i]);
                put_line(out, color ? C_YELLOW : "", "warning:", r, " ", w, "\n", NULL);
        }
        for (size_t i = 0; p->errors && p->errors[i]; i++) {
                _cleanup_free_ char *e = ht_text_safe(p->errors[i]);
                put_line(out, color ? C_RED : "", "error:", r, " ", e, "\n", NULL);
        }
}
