/* sysctl.d: parse, order, resolve and write; see edit-sysctl.h for the
 * rules and where they come from. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <string.h>

#include "edit-sysctl.h"
#include "util.h"

const char *const ht_sysctl_dirs[] = {
        "/etc/sysctl.d",
        "/run/sysctl.d",
        "/usr/local/lib/sysctl.d",
        "/usr/lib/sysctl.d",
        "/lib/sysctl.d",
        NULL,
};

void ht_sysctl_file_free(ht_sysctl_file *f) {
        if (!f)
                return;
        /* keys and values point into text */
        free(f->text);
        free(f->entries);
        strv_free(f->warnings);
        free(f);
}

size_t ht_sysctl_normalize_into(const char *key, char *out) {
        /* One pass (plan normalizes some 130 keys): when the first
         * separator is a '.', every '.' and '/' swap (sysctl.d(5)), so
         * the key's separator is '.' and a '/' reads as '.'. Empty and
         * "." components fold away, as path_simplify() does. out may be
         * key itself: it is written no further than read, and each
         * component's first byte is kept before it is overwritten. */
        const char *first = strpbrk(key, "/.");
        bool swap = first && *first == '.';
        char sep = swap ? '.' : '/', dot = swap ? '/' : '.';
        char *s = out;
        for (const char *p = key; *p;) {
                while (*p == sep)
                        p++;
                if (!*p)
                        break;
                char *mark = out;
                if (out != s)
                        *out++ = '/';
                const char *start = p;
                char c0 = *p;
                for (; *p && *p != sep; p++)
                        *out++ = *p == dot ? '.' : *p;
                if (p - start == 1 && c0 == dot)
                        out = mark;   /* a "." component */
        }
        *out = 0;
        return (size_t)(out - s);
}

char *ht_sysctl_normalize(const char *key) {
        char *s = xmalloc(strlen(key) + 1);
        ht_sysctl_normalize_into(key, s);
        return s;
}

/* A key normalised on the caller's stack when it is short (every real
 * one: the longest under /proc/sys are under 100 bytes), else in the
 * heap; key_buf_done() frees only that. */
#define KEY_STACK 256
static char *key_normalized(const char *key, char *stack) {
        size_t n = strlen(key);
        char *k = n < KEY_STACK ? stack : xmalloc(n + 1);
        ht_sysctl_normalize_into(key, k);
        return k;
}

static void key_buf_done(char *k, const char *stack) {
        if (k != stack)
                free(k);
}

char *ht_sysctl_dotted(const char *key) {
        char *s = ht_sysctl_normalize(key);
        for (char *p = s; *p; p++)
                if (*p == '/')
                        *p = '.';
                else if (*p == '.')
                        *p = '/';
        return s;
}

static bool is_glob(const char *s) {
        return strpbrk(s, "*?[") != NULL;
}

/* The common key, "vm.swappiness" or "net/ipv4/tcp_rmem": name
 * characters in components split by single '.' or '/', neither first nor
 * last. Such a key passes every check below; a plan checks each key
 * several times, so it skips the copies. */
static bool ascii_word(unsigned char c) {
        /* not isalnum(): a locale may call 0xe9 a letter */
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static bool key_plain(const char *key) {
        if (!ascii_word((unsigned char)key[0]))
                return false;
        bool sep = false;
        for (const char *p = key; *p; p++) {
                unsigned char c = *p;
                if (c == '.' || c == '/') {
                        if (sep)
                                return false;
                        sep = true;
                } else if (ascii_word(c) || c == '-')
                        sep = false;
                else
                        return false;
        }
        return !sep;
}

int ht_sysctl_key_check(const char *key, char **ret_error) {
        if (key && key_plain(key))
                return 0;
        if (isempty(key)) {
                *ret_error = xstrdup("empty sysctl key");
                return -EINVAL;
        }
        /* sysctl.d reads a leading '-' as "ignore failures", not as part
         * of the name */
        if (key[0] == '-')
                return ht_error(ret_error, -EINVAL, "sysctl key \"%s\" starts with '-'", key);
        for (const char *p = key; *p; p++) {
                unsigned char c = *p;
                if (c <= 0x20 || c >= 0x7f || strchr("=*?[]\\#;\"'", c))
                        return ht_error(ret_error, -EINVAL,
                                        "sysctl key \"%s\" holds a character that is not allowed", key);
        }
        /* Check the components in the form the user wrote and normalised:
         * "vm/../../etc" and "vm....x" are both refused. */
        _cleanup_free_ char *norm = ht_sysctl_normalize(key);
        _cleanup_free_ char *slashed = xstrdup(key);
        char *first = strpbrk(slashed, "/.");
        if (first && *first == '.')
                for (char *p = first; p; p = strpbrk(p + 1, "/."))
                        *p = *p == '.' ? '/' : '.';
        if (slashed[0] == '/' || endswith(slashed, "/") || strstr(slashed, "//") ||
            streq(slashed, ".") || streq(slashed, "..") || startswith(slashed, "./") ||
            startswith(slashed, "../") || strstr(slashed, "/./") || strstr(slashed, "/../") ||
            endswith(slashed, "/.") || endswith(slashed, "/..") || isempty(norm)) {
                return ht_error(ret_error, -EINVAL, "sysctl key \"%s\" has an empty, \".\" or \"..\" component", key);
        }
        return 0;
}

int ht_sysctl_proc_path(const char *key, char **ret, char **ret_error) {
        int r = ht_sysctl_key_check(key, ret_error);
        if (r < 0)
                return r;
        /* "/proc/sys/" and the key normalised in place after it: one
         * string, not a copy of a copy */
        static const char prefix[] = "/proc/sys/";
        char *p = xmalloc(sizeof(prefix) + strlen(key));
        memcpy(p, prefix, sizeof(prefix) - 1);
        ht_sysctl_normalize_into(key, p + sizeof(prefix) - 1);
        *ret = p;
        return 0;
}

static int line_problem(ht_sysctl_file *f, unsigned flags, unsigned line, const char *msg, char **ret_error) {
        return ht_line_problem(&f->warnings, flags & HT_SYSCTL_LENIENT, line, msg, ret_error);
}

int ht_sysctl_parse(const char *content, size_t len, unsigned flags, ht_sysctl_file **ret,
                    char **ret_error) {
        ht_sysctl_file *f = xcalloc(1, sizeof(*f));
        size_t cap = 0;   /* of f->entries, grown by doubling */
        /* one copy of the file, cut into lines in place, not a copy per
         * line */
        char *copy = f->text = xmalloc(len + 1);
        if (len)
                memcpy(copy, content, len);
        copy[len] = 0;
        char *p = copy, *end = copy + len;
        unsigned line = 0;
        int r;

        while (p < end) {
                /* Lines end where systemd-sysctl's read_line() ends them
                 * (systemd 252 src/basic/fileio.c read_line_full()): at
                 * \n, \r or NUL, one end being a run of them that repeats
                 * none and holds a NUL only last ("\r\n", "\n\r", "\r\n\0").
                 * So a CR-only file has lines, and a NUL ends one. */
                char *buf = p;
                while (p < end && *p != '\n' && *p != '\r' && *p != '\0')
                        p++;
                size_t n = (size_t)(p - buf);
                for (unsigned seen = 0; p < end;) {
                        unsigned m = *p == '\n' ? 1u : *p == '\r' ? 2u : *p == '\0' ? 4u : 0u;
                        if (!m || (seen & 4u) || (seen & m))
                                break;
                        seen |= m;
                        p++;
                }
                buf[n] = 0;
                line++;

                char *l = strstrip(buf);
                if (!*l || *l == '#' || *l == ';')
                        continue;
                /* a control byte but tab: has_control_chars()'s set */
                if (has_control_chars(l)) {
                        r = line_problem(f, flags, line, "control character", ret_error);
                        if (r < 0)
                                goto fail;
                        continue;
                }

                ht_sysctl_entry e = { .line = line };
                char *eq = strchr(l, '=');
                if (eq) {
                        if (*l == '-') {
                                e.ignore_failure = true;
                                l++;
                        }
                        *eq = 0;
                        e.value = strstrip(eq + 1);
                } else if (*l == '-')
                        l++;    /* "-key": keeps globs off key */
                else {
                        r = line_problem(f, flags, line, "line is not an assignment", ret_error);
                        if (r < 0)
                                goto fail;
                        continue;
                }
                /* normalised where it stands: never longer */
                e.key = strstrip(l);
                ht_sysctl_normalize_into(e.key, e.key);
                if (!*e.key) {
                        r = line_problem(f, flags, line, "empty sysctl key", ret_error);
                        if (r < 0)
                                goto fail;
                        continue;
                }
                e.glob = is_glob(e.key);
                if (f->n_entries == cap) {
                        cap = cap ? 2 * cap : 16;
                        f->entries = xrealloc(f->entries, cap * sizeof(ht_sysctl_entry));
                }
                f->entries[f->n_entries++] = e;
        }
        *ret = f;
        return 0;
fail:
        ht_sysctl_file_free(f);
        return r;
}

static int cmp_basename(const void *a, const void *b) {
        const char *x = strrchr(*(char *const *)a, '/'), *y = strrchr(*(char *const *)b, '/');
        return strcmp(x + 1, y + 1);
}

char **ht_sysctl_order(char **const *names, bool procps) {
        char **files = NULL, **seen = NULL;
        for (size_t d = 0; ht_sysctl_dirs[d]; d++) {
                for (size_t i = 0; names && names[d] && names[d][i]; i++) {
                        const char *n = names[d][i];
                        /* systemd skips hidden files (conf_files_list());
                         * procps 4.0.2's PreloadSystem() takes every name
                         * ending in ".conf", ".x.conf" and ".conf" too */
                        if (!endswith(n, ".conf") || strchr(n, '/') || (n[0] == '.' && !procps) ||
                            strv_contains(seen, n))
                                continue;
                        /* An earlier directory masks the same name here. */
                        strv_push(&seen, n);
                        strv_pushf(&files, "%s/%s", ht_sysctl_dirs[d], n);
                }
        }
        if (files)
                qsort(files, strv_length(files), sizeof(char *), cmp_basename);
        if (procps)
                strv_push(&files, HT_SYSCTL_CONF);
        strv_free(seen);
        if (!files)
                files = xcalloc(1, sizeof(char *));
        return files;
}

static bool value_eq(const char *a, const char *b) {
        return a == b || (a && b && streq(a, b));
}

/* systemd's ordered hashmap of options, for one glob key at a time: an
 * assignment with the value already there is dropped (the entry keeps its
 * place and line), another value removes the entry and appends the new
 * one (sysctl.c parse_file(), "Overwriting earlier assignment"). globs
 * holds entry orders; returns the new count. */
static size_t glob_slots_add(size_t *globs, size_t n, const ht_sysctl_entry *const *entry, size_t o) {
        for (size_t g = 0; g < n; g++) {
                if (!streq(entry[globs[g]]->key, entry[o]->key))
                        continue;
                if (value_eq(entry[globs[g]]->value, entry[o]->value))
                        return n;
                memmove(&globs[g], &globs[g + 1], (n - g - 1) * sizeof(*globs));
                n--;
                break;
        }
        globs[n++] = o;
        return n;
}

int ht_sysctl_effective(const ht_sysctl_file *const *files, size_t n, const char *key, ht_sysctl_hit *ret) {
        char stack[KEY_STACK], *k = key_normalized(key, stack);
        const ht_sysctl_entry *exp = NULL;
        size_t exp_file = 0, total = 0;
        for (size_t i = 0; i < n; i++)
                total += files[i] ? files[i]->n_entries : 0;
        const ht_sysctl_entry **entry = xcalloc(total + 1, sizeof(*entry));
        size_t *file = xcalloc(total + 1, sizeof(*file)), *globs = xcalloc(total + 1, sizeof(*globs));
        size_t o = 0, ng = 0;

        for (size_t i = 0; i < n; i++)
                for (size_t j = 0; files[i] && j < files[i]->n_entries; j++, o++) {
                        const ht_sysctl_entry *e = &files[i]->entries[j];
                        entry[o] = e;
                        file[o] = i;
                        if (streq(e->key, k)) {
                                /* the same value again keeps the first line */
                                if (!exp || !value_eq(exp->value, e->value)) {
                                        exp = e;
                                        exp_file = i;
                                }
                        } else if (e->glob)
                                ng = glob_slots_add(globs, ng, entry, o);
                }
        int r = 0;
        if (exp) {
                /* an explicit entry (even "-key") keeps every glob off it
                 * (apply_glob_option: "explicit setting exists") */
                if (exp->value) {
                        *ret = (ht_sysctl_hit){ exp_file, exp->line, exp->value, false };
                        r = 1;
                }
        } else
                /* globs are written in the map's order: the last one to
                 * match writes last */
                for (size_t g = ng; g-- > 0;) {
                        const ht_sysctl_entry *e = entry[globs[g]];
                        if (e->value && fnmatch(e->key, k, FNM_PATHNAME | FNM_PERIOD) == 0) {
                                *ret = (ht_sysctl_hit){ file[globs[g]], e->line, e->value, true };
                                r = 1;
                                break;
                        }
                }
        free(entry);
        free(file);
        free(globs);
        key_buf_done(k, stack);
        return r;
}

typedef struct {
        const char *key;
        size_t pos;
} keyed;

static int keyed_cmp(const void *a, const void *b) {
        const keyed *x = a, *y = b;
        int c = strcmp(x->key, y->key);
        return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* repeat[i]: the normalised key of settings i was already set at a lower
 * index. Sorting makes it O(n log n); a search per key was O(n^2) for
 * large profiles (tests/bench scaling). */
static bool *find_repeats(char **norm, size_t n) {
        bool *repeat = xcalloc(n + 1, sizeof(bool));
        keyed *k = xcalloc(n + 1, sizeof(keyed));
        for (size_t i = 0; i < n; i++)
                k[i] = (keyed){norm[i], i};
        qsort(k, n, sizeof(*k), keyed_cmp);
        for (size_t i = 1; i < n; i++)
                if (streq(k[i].key, k[i - 1].key))
                        repeat[k[i].pos] = true;
        free(k);
        return repeat;
}

struct ht_sysctl_index {
        keyed *exact;                  /* every entry's key, sorted; pos = order */
        size_t n_exact;
        const ht_sysctl_entry **entry; /* by order (file by file, line by line) */
        size_t *file;
        size_t *globs;                 /* orders of the glob entries systemd keeps, in its map's order */
        size_t n_globs;
};

ht_sysctl_index *ht_sysctl_index_new(const ht_sysctl_file *const *files, size_t n) {
        ht_sysctl_index *x = xcalloc(1, sizeof(*x));
        size_t total = 0;
        for (size_t i = 0; i < n; i++)
                total += files[i] ? files[i]->n_entries : 0;
        x->exact = xcalloc(total + 1, sizeof(*x->exact));
        x->entry = xcalloc(total + 1, sizeof(*x->entry));
        x->file = xcalloc(total + 1, sizeof(*x->file));
        x->globs = xcalloc(total + 1, sizeof(*x->globs));
        size_t o = 0;
        for (size_t i = 0; i < n; i++)
                for (size_t j = 0; files[i] && j < files[i]->n_entries; j++, o++) {
                        const ht_sysctl_entry *e = &files[i]->entries[j];
                        x->entry[o] = e;
                        x->file[o] = i;
                        x->exact[o] = (keyed){e->key, o};
                        if (e->glob)
                                x->n_globs = glob_slots_add(x->globs, x->n_globs, x->entry, o);
                }
        x->n_exact = total;
        qsort(x->exact, total, sizeof(*x->exact), keyed_cmp);
        return x;
}

void ht_sysctl_index_free(ht_sysctl_index *x) {
        if (!x)
                return;
        free(x->exact);
        free(x->entry);
        free(x->file);
        free(x->globs);
        free(x);
}

int ht_sysctl_index_effective(const ht_sysctl_index *x, const char *key, ht_sysctl_hit *ret) {
        char stack[KEY_STACK], *k = key_normalized(key, stack);
        int r = ht_sysctl_index_lookup(x, k, ret);
        key_buf_done(k, stack);
        return r;
}

int ht_sysctl_index_lookup(const ht_sysctl_index *x, const char *k, ht_sysctl_hit *ret) {
        /* the last entry (in reading order) whose key is exactly k */
        size_t lo = 0, hi = x->n_exact;
        while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (strcmp(x->exact[mid].key, k) <= 0)
                        lo = mid + 1;
                else
                        hi = mid;
        }
        if (lo > 0 && streq(x->exact[lo - 1].key, k)) {
                /* the same value again keeps the first line of the run */
                size_t at = lo - 1;
                while (at > 0 && streq(x->exact[at - 1].key, k) &&
                       value_eq(x->entry[x->exact[at - 1].pos]->value, x->entry[x->exact[at].pos]->value))
                        at--;
                size_t o = x->exact[at].pos;
                const ht_sysctl_entry *e = x->entry[o];
                if (!e->value)
                        return 0;
                *ret = (ht_sysctl_hit){ x->file[o], e->line, e->value, false };
                return 1;
        }
        for (size_t g = x->n_globs; g-- > 0;) {
                size_t o = x->globs[g];
                const ht_sysctl_entry *e = x->entry[o];
                if (e->value && fnmatch(e->key, k, FNM_PATHNAME | FNM_PERIOD) == 0) {
                        *ret = (ht_sysctl_hit){ x->file[o], e->line, e->value, true };
                        return 1;
                }
        }
        return 0;
}

int ht_sysctl_render(const char *profile, const ht_sysctl_setting *settings, size_t n, char **ret,
                     char **ret_error) {
        if (isempty(profile) || has_control_chars(profile) || strchr(profile, '\t')) {
                *ret_error = xstrdup("invalid profile name for the sysctl drop-in header");
                return -EINVAL;
        }
        /* every key normalised into one block, each where its own
         * length puts it (the form is never longer) */
        size_t total = 0;
        for (size_t i = 0; i < n; i++)
                total += strlen(settings[i].key) + 1;
        char **keys = xmalloc((n + 1) * sizeof(char *) + total + 1);
        char *at = (char *)(keys + n + 1);
        for (size_t i = 0; i < n; i++) {
                keys[i] = at;
                at += strlen(settings[i].key) + 1;
                ht_sysctl_normalize_into(settings[i].key, keys[i]);
        }
        keys[n] = NULL;
        bool *repeat = find_repeats(keys, n);
        int r = 0;
        /* sized once: the header and a line a setting */
        strbuf out = {};
        size_t need = strlen(profile) + 96;
        for (size_t i = 0; i < n; i++)
                need += strlen(settings[i].key) + (settings[i].value ? strlen(settings[i].value) : 0) + 4;
        strbuf_grow(&out, need);
        strbuf_append(&out, "# Managed by hosttune (profile ");
        strbuf_append(&out, profile);
        strbuf_append(&out, "). Do not edit; changes are overwritten.\n");
        for (size_t i = 0; i < n; i++) {
                const char *v = settings[i].value;
                r = ht_sysctl_key_check(settings[i].key, ret_error);
                if (r < 0)
                        goto fail;
                if (repeat[i]) {
                        *ret_error = xasprintf("sysctl key %s is set twice", settings[i].key);
                        r = -EINVAL;
                        goto fail;
                }
                if (!v || !*v || has_control_chars(v) || strchr(v, '\t') || isspace((unsigned char)v[0]) ||
                    isspace((unsigned char)v[strlen(v) - 1])) {
                        *ret_error = xasprintf("sysctl %s: the value must be non-empty, on one line, without "
                                               "control characters or surrounding blanks", settings[i].key);
                        r = -EINVAL;
                        goto fail;
                }
                /* the dotted form (ht_sysctl_dotted) of the normalised key */
                size_t start = out.len, kn = strlen(keys[i]);
                strbuf_appendn(&out, keys[i], kn);
                for (char *p = out.data + start; *p; p++)
                        *p = *p == '/' ? '.' : *p == '.' ? '/' : *p;
                strbuf_append(&out, " = ");
                strbuf_append(&out, v);
                strbuf_append(&out, "\n");
        }
        free(keys);
        free(repeat);
        *ret = strbuf_steal(&out);
        return 0;
fail:
        free(keys);
        free(repeat);
        strbuf_done(&out);
        return r;
}

int ht_sysctl_conf_edit(const char *content, size_t len, const char *profile,
                        const ht_sysctl_setting *settings, size_t n, char **ret, size_t *ret_len,
                        char **ret_error) {
        /* the same checks as hosttune's own drop-in */
        _cleanup_free_ char *check = NULL;
        int r = ht_sysctl_render(profile, settings, n, &check, ret_error);
        if (r < 0)
                return r;
        if (memchr(content, 0, len)) {
                *ret_error = xstrdup("the file holds NUL bytes");
                return -EINVAL;
        }
        _cleanup_(ht_sysctl_file_freep) ht_sysctl_file *f = NULL;
        _cleanup_free_ char *perr = NULL;
        r = ht_sysctl_parse(content, len, HT_SYSCTL_LENIENT, &f, &perr);
        if (r < 0) {
                *ret_error = TAKE_PTR(perr);
                return r;
        }
        /* the line to edit for each setting: 0 to append, UINT_MAX when
         * the value is already right */
        unsigned *at = xcalloc(n + 1, sizeof(unsigned));
        for (size_t i = 0; i < n; i++) {
                char stack[KEY_STACK], *k = key_normalized(settings[i].key, stack);
                const ht_sysctl_entry *last = NULL;
                for (size_t j = 0; j < f->n_entries; j++)
                        if (!f->entries[j].glob && f->entries[j].value && streq(f->entries[j].key, k))
                                last = &f->entries[j];
                key_buf_done(k, stack);
                if (!last)
                        continue;
                at[i] = ht_ws_equal(last->value, settings[i].value) ? UINT_MAX : last->line;
        }

        strbuf out = {};
        const char *p = content, *end = content + len;
        unsigned line = 0;
        while (p < end) {
                const char *nl = memchr(p, '\n', end - p);
                size_t ln = nl ? (size_t)(nl - p) : (size_t)(end - p);
                line++;
                size_t which = n;
                for (size_t i = 0; i < n; i++)
                        if (at[i] == line)
                                which = i;
                const char *eq = which < n ? memchr(p, '=', ln) : NULL;
                if (eq) {
                        const char *v = eq + 1, *ve = p + ln;
                        while (v < ve && (*v == ' ' || *v == '\t'))
                                v++;
                        while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t' || ve[-1] == '\r'))
                                ve--;
                        strbuf_appendn(&out, p, (size_t)(v - p));
                        strbuf_append(&out, settings[which].value);
                        strbuf_appendn(&out, ve, (size_t)(p + ln - ve));
                } else
                        strbuf_appendn(&out, p, ln);
                if (nl)
                        strbuf_append(&out, "\n");
                p += ln + (nl ? 1 : 0);
        }
        bool header = false;
        for (size_t i = 0; i < n; i++) {
                if (at[i] != 0)
                        continue;
                if (!header) {
                        if (out.len && out.data[out.len - 1] != '\n')
                                strbuf_append(&out, "\n");
                        strbuf_appendf(&out, "# Set by hosttune (profile %s).\n", profile);
                        header = true;
                }
                _cleanup_free_ char *dotted = ht_sysctl_dotted(settings[i].key);
                strbuf_appendf(&out, "%s = %s\n", dotted, settings[i].value);
        }
        free(at);
        *ret_len = out.len;
        *ret = out.data ? strbuf_steal(&out) : xstrdup("");
        return 0;
}
