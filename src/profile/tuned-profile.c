/* The merged tuned profile that tuned's loader (tuned-load.c) fills and
 * the converter (tuned-convert.c) reads, and what both use on it: its
 * notes (what cannot be carried over), its lifecycle, and tuned's
 * variable expansion. Below both, so neither calls the other. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "util.h"
#include "tuned-functions.h"
#include "tuned-internal.h"

void tn_note(tn_profile *p, unsigned file, unsigned line, const char *section, const char *key,
             const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        char *reason = xvasprintf(fmt, ap);
        va_end(ap);
        p->notes = xrealloc(p->notes, (p->n_notes + 1) * sizeof(*p->notes));
        p->notes[p->n_notes++] = (ht_tuned_note){
                .file = xstrdup(file < strv_length(p->files) ? p->files[file] : "?"),
                .line = line,
                .section = xstrdup(section),
                .key = key ? xstrdup(key) : NULL,
                .reason = reason,
        };
}

char *ht_tuned_note_format(const ht_tuned_note *n) {
        if (n->key)
                return xasprintf("%s:%u: [%s] %s: %s", n->file, n->line, n->section, n->key, n->reason);
        return xasprintf("%s:%u: [%s]: %s", n->file, n->line, n->section, n->reason);
}

void tn_unit_done(tn_unit *u) {
        free(u->name);
        free(u->type);
        free(u->devices);
        free(u->devices_udev_regex);
        free(u->cpuinfo_regex);
        free(u->uname_regex);
        free(u->script_pre);
        free(u->script_post);
        for (size_t i = 0; i < u->n_options; i++) {
                free(u->options[i].key);
                free(u->options[i].value);
                free(u->options[i].comment);
        }
        free(u->options);
}

void tn_profile_done(tn_profile *p) {
        strv_free(p->files);
        strv_free(p->dirs);
        for (size_t i = 0; i < p->n_units; i++)
                tn_unit_done(&p->units[i]);
        free(p->units);
        free(p->summary);
        for (size_t i = 0; i < p->n_notes; i++) {
                free(p->notes[i].file);
                free(p->notes[i].section);
                free(p->notes[i].key);
                free(p->notes[i].reason);
        }
        free(p->notes);
        *p = (tn_profile){0};
}

void ht_tuned_profile_free(ht_tuned_profile *t) {
        if (!t)
                return;
        free(t->name);
        free(t->summary);
        strv_free(t->files);
        free(t->text);
        free(t->origin_file);
        free(t->origin_line);
        for (size_t i = 0; i < t->n_notes; i++) {
                free(t->notes[i].file);
                free(t->notes[i].section);
                free(t->notes[i].key);
                free(t->notes[i].reason);
        }
        free(t->notes);
        free(t);
}

/* \w as tuned's variable pattern takes it (ASCII names) */
static bool word_char(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* tuned's variable expansion: every ${NAME} of a defined variable, not
 * after a backslash, in one pass; then \${NAME} unescaped; then the
 * functions. */
int tn_expand(char *const *vars, json_object *facts, const char *value, char **ret, char **ret_error) {
        strbuf b = {0};
        const char *s = value;
        while (*s) {
                if (s[0] == '$' && s[1] == '{' && !(s > value && s[-1] == '\\')) {
                        const char *e = s + 2;
                        while (word_char(*e))
                                e++;
                        if (*e == '}' && e > s + 2) {
                                bool found = false;
                                for (size_t i = 0; vars && vars[i]; i += 2)
                                        if (strlen(vars[i]) == (size_t)(e - s - 2) &&
                                            strncmp(vars[i], s + 2, (size_t)(e - s - 2)) == 0) {
                                                if (startswith(vars[i + 1], UNKNOWN_VAR)) {
                                                        strbuf_done(&b);
                                                        return ht_error(ret_error, -ENOTSUP, "variable %s: %s", vars[i],
                                                                        vars[i + 1] + strlen(UNKNOWN_VAR));
                                                }
                                                strbuf_append(&b, vars[i + 1]);
                                                found = true;
                                                break;
                                        }
                                if (found) {
                                        s = e + 1;
                                        continue;
                                }
                        }
                }
                strbuf_appendn(&b, s, 1);
                s++;
        }
        _cleanup_free_ char *stat = strbuf_steal(&b);
        /* \${NAME} -> ${NAME} */
        strbuf u = {0};
        for (const char *p = stat; *p; p++) {
                if (p[0] == '\\' && p[1] == '$' && p[2] == '{') {
                        const char *e = p + 3;
                        while (word_char(*e))
                                e++;
                        if (*e == '}' && e > p + 3)
                                continue;
                }
                strbuf_appendn(&u, p, 1);
        }
        _cleanup_free_ char *unesc = strbuf_steal(&u);
        return ht_tuned_expand_functions(unesc ? unesc : "", facts, ret, ret_error);
}
