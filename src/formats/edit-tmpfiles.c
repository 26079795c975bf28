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
