/* tmpfiles.d(5) "w" lines of hosttune's own files (edit-tmpfiles.h). */
#include "config.h"

#include <string.h>

#include "edit-tmpfiles.h"

bool ht_tmpfiles_value_ok(const char *v) {
        size_t n = strlen(v);
        return n > 0 && !has_control_chars(v) && !strpbrk(v, "%\\\"'\t") && v[0] != ' ' && v[n - 1] != ' ';
}

void ht_tmpfiles_append_w(strbuf *b, const char *path, const char *value) {
        strbuf_appendf(b, "w %s - - - - %s\n", path, value);
}

/* The next blank-separated word of *p, or NULL at the end of the line. */
static char *next_word(const char **p) {
        const char *s = *p + strspn(*p, " \t");
        size_t n = strcspn(s, " \t");
        *p = s + n;
        return n ? xstrndup(s, n) : NULL;
}

char *ht_tmpfiles_w_argument(const char *content, const char *path) {
        char *found = NULL;
        _cleanup_strv_free_ char **lines = strv_split(content, "\n");
        for (size_t i = 0; lines && lines[i]; i++) {
                const char *p = lines[i];
                _cleanup_free_ char *type = next_word(&p);
                /* tmpfiles.d(5): "Empty lines and lines beginning with the
                 * "#" character are ignored" */
                if (!type || type[0] == '#' || (!streq(type, "w") && !streq(type, "w+")))
                        continue;
                _cleanup_free_ char *file = next_word(&p);
                if (!file || !streq(file, path))
                        continue;
                /* mode, user, group, age; then the argument, the rest */
                bool complete = true;
                for (int f = 0; f < 4 && complete; f++) {
                        _cleanup_free_ char *w = next_word(&p);
                        complete = w != NULL;
                }
                if (!complete)
                        continue;
                _cleanup_strv_free_ char **words = strv_split(p, " \t");
                if (strv_length(words) == 0)
                        continue;
                free(found);
                found = strv_join(words, " ");
        }
        return found;
}

const char *const ht_tmpfiles_dirs[] = {
        "/etc/tmpfiles.d",
        "/run/tmpfiles.d",
        "/usr/local/lib/tmpfiles.d",
        "/usr/lib/tmpfiles.d",
        NULL,
};

static int cmp_base(const void *a, const void *b) {
        const char *x = strrchr(*(char *const *)a, '/'), *y = strrchr(*(char *const *)b, '/');
        return strcmp(x + 1, y + 1);
}

char **ht_tmpfiles_order(char **const *names) {
        char **files = NULL, **seen = NULL;
        for (size_t d = 0; ht_tmpfiles_dirs[d]; d++)
                for (size_t i = 0; names && names[d] && names[d][i]; i++) {
                        const char *n = names[d][i];
                        if (!endswith(n, ".conf") || strchr(n, '/') || n[0] == '.' || strv_contains(seen, n))
                                continue;
                        strv_push(&seen, n);
                        strv_pushf(&files, "%s/%s", ht_tmpfiles_dirs[d], n);
                }
        if (files)
                qsort(files, strv_length(files), sizeof(char *), cmp_base);
        strv_free(seen);
        return files ? files : xcalloc(1, sizeof(char *));
}

size_t ht_tmpfiles_w_lines(const char *content, const char *path, ht_tmpfiles_w **ret) {
        ht_tmpfiles_w *out = NULL;
        size_t n = 0;
        unsigned line = 0;
        for (const char *p = content; p && *p;) {
                const char *nl = strchr(p, '\n');
                size_t len = nl ? (size_t)(nl - p) : strlen(p);
                _cleanup_free_ char *buf = xstrndup(p, len);
                p = nl ? nl + 1 : p + len;
                line++;
                const char *q = buf;
                _cleanup_free_ char *type = next_word(&q);
                if (!type || type[0] == '#' || (!streq(type, "w") && !streq(type, "w+")))
                        continue;
                _cleanup_free_ char *file = next_word(&q);
                if (!file || !streq(file, path))
                        continue;
                bool complete = true;
                for (int f = 0; f < 4 && complete; f++) {
                        _cleanup_free_ char *w = next_word(&q);
                        complete = w != NULL;
                }
                _cleanup_strv_free_ char **words = complete ? strv_split(q, " \t") : NULL;
                if (strv_length(words) == 0)
                        continue;
                out = xrealloc(out, (n + 1) * sizeof(*out));
                out[n++] = (ht_tmpfiles_w){.line = line, .argument = strv_join(words, " "), .append = streq(type, "w+")};
        }
        *ret = out;
        return n;
}

void ht_tmpfiles_w_free(ht_tmpfiles_w *l, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(l[i].argument);
        free(l);
}
