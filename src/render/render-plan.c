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
        /* both labels in one buffer: "a" + path, NUL, "b" + path */
        size_t n = strlen(f->path);
        char stack[512], *a = 2 * n + 4 <= sizeof(stack) ? stack : xmalloc(2 * n + 4), *b = a + n + 2;
        a[0] = 'a';
        b[0] = 'b';
        memcpy(a + 1, f->path, n + 1);
        memcpy(b + 1, f->path, n + 1);
        char *d = ht_unified_diff(f->old_content ? a : "/dev/null", f->old_content ? f->old_content : "",
                                  f->old_len, f->new_content ? b : "/dev/null",
                                  f->new_content ? f->new_content : "", f->new_len, 3);
        if (a != stack)
                free(a);
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

static void print_diff(FILE *out, char *d, bool color) {
        /* the old file's lines are the host's: made safe here (in place:
         * the diff is the caller's to spend), where the colours (escape
         * sequences themselves) are not yet added */
        ht_text_sanitize(d, true);
        if (!color) {
                /* no colour to put around a line: the lines as they are,
                 * in one write */
                size_t n = strlen(d);
                fwrite_unlocked(d, 1, n, out);
                if (n && d[n - 1] != '\n')
                        putc_unlocked('\n', out);
                return;
        }
        const char *line = d;
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
        const char *bk = ht_backend_id_to_string(c->backend);
        size_t n = strlen(bk);
        for (size_t i = 0; i < p->skipped.n; i++) {
                const char *name = p->skipped.items[i].setting;
                if (strncmp(name, bk, n) == 0 && name[n] == ' ' && streq(name + n + 1, c->key))
                        return true;
        }
        return false;
}

/* Host text (a value, a note naming a file, a warning) on the terminal:
 * ht_text_write_safe, which copies only text that is not printable
 * ASCII; NULL writes fallback. */
static void put_safe(FILE *out, const char *s, const char *fallback) {
        ht_text_write_safe(out, s ? s : fallback, false);
}

/* normalize_ws(s) written safe, the copy on the stack when it fits. */
static void put_ws_safe(FILE *out, const char *s) {
        size_t n = strlen(s);
        char stack[512], *t = n < sizeof(stack) ? stack : xmalloc(n + 1);
        ht_normalize_ws_into(s, t);
        ht_text_write_safe(out, t, false);
        if (t != stack)
                free(t);
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
                        put_line(out, "pending reboot: ", ht_backend_id_to_string(c->backend), " ", NULL);
                        put_safe(out, c->key, "");
                        fputs_unlocked(" \u2192 ", out);
                        put_safe(out, c->desired, "(removed)");
                        fputs_unlocked(" (", out);
                        put_safe(out, c->note, "after the next boot");
                        fputs_unlocked(")\n", out);
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
                                put_line(out, "\n", b, ht_backend_id_to_string(bk), r, "\n", NULL);
                                header = true;
                        }
                        /* the bound in full where desired is not the bound's own
                         * value (kernel.sem raised field by field), else its name */
                        _cleanup_free_ char *described = NULL;
                        const char *bound = NULL;
                        if (c->bound_value) {
                                if (kept || !ht_bound_satisfied(HT_BOUND_EXACT, c->bound_value, c->desired))
                                        bound = described = ht_bound_describe(c->bound, c->bound_value);
                                else
                                        bound = c->bound == HT_BOUND_RANGE ? "within range"
                                                : c->bound == HT_BOUND_AT_MOST ? "at most" : "at least";
                        }
                        put_line(out, "  ", NULL);
                        put_safe(out, c->key, "");
                        fputs_unlocked(": ", out);
                        /* kernel.sem and friends print tabs: one blank reads better */
                        if (c->current) {
                                put_ws_safe(out, c->current);
                                /* a value no file of the key's own sets: where it
                                 * comes from, so "(unset)" never hides a default */
                                if (c->current_from) {
                                        fputs_unlocked(" [", out);
                                        put_safe(out, c->current_from, "");
                                        fputs_unlocked("]", out);
                                }
                        } else
                                fputs_unlocked("(unset)", out);
                        if (kept) {
                                fputs_unlocked(" kept (", out);
                                put_safe(out, bound, "(null)");
                                fputs_unlocked(")\n", out);
                                continue;
                        }
                        fputs_unlocked(" \u2192 ", out);
                        put_safe(out, c->desired, "(removed)");
                        /* one parenthesis: the bound, that only the file changes,
                         * and a value the user named (--set sysctl.KEY=VALUE) */
                        const char *sep = " (";
                        if (bound && *bound) {
                                fputs_unlocked(sep, out);
                                put_safe(out, bound, "");
                                sep = "; ";
                        }
                        if (!c->runtime) {
                                put_line(out, sep, "persisted", NULL);
                                sep = "; ";
                        }
                        if (streq_ptr(c->source, "--set")) {
                                put_line(out, sep, "--set", NULL);
                                sep = "; ";
                        }
                        put_line(out, sep[0] == ';' ? ")" : "", c->reboot_required ? " [reboot]" : "", "\n", NULL);
                        if (c->note) {
                                fputs_unlocked("    note: ", out);
                                put_safe(out, c->note, "");
                                fputs_unlocked("\n", out);
                        }
                }
                for (size_t i = 0; i < p->n_files; i++) {
                        const ht_file_edit *f = &p->files[i];
                        if ((int)f->backend != bk)
                                continue;
                        if (!header) {
                                put_line(out, "\n", b, ht_backend_id_to_string(bk), r, "\n", NULL);
                                header = true;
                        }
                        char *d = file_diff(f);
                        print_diff(out, d, color);
                        free(d);
                }
        }
        if (p->n_actions) {
                put_line(out, "\n", b, "after the files are written", r, "\n", NULL);
                for (size_t i = 0; i < p->n_actions; i++) {
                        fputs_unlocked("  ", out);
                        put_safe(out, p->actions[i].description ? p->actions[i].description : p->actions[i].action,
                                 "");
                        if (p->actions[i].argv) {
                                char *cmd = ht_shell_join(p->actions[i].argv);
                                put_line(out, ": ", cmd, NULL);
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
                put_line(out, color ? C_YELLOW : "", "warning:", r, " ", NULL);
                put_safe(out, p->warnings[i], "");
                fputs_unlocked("\n", out);
        }
        for (size_t i = 0; p->errors && p->errors[i]; i++) {
                put_line(out, color ? C_RED : "", "error:", r, " ", NULL);
                put_safe(out, p->errors[i], "");
                fputs_unlocked("\n", out);
        }
}
