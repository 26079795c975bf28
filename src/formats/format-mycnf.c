/* MySQL/MariaDB option files (format-mycnf.h). The syntax, from the MySQL
 * Reference Manual, "Using Option Files", and MariaDB's "Configuring
 * MariaDB with Option Files": "#" or ";" start a comment line, and "#"
 * a comment after a value; "[group]"; "opt_name" or "opt_name=value",
 * spaces around "=" allowed; a value may be quoted with ' or "; "\b",
 * "\t", "\n", "\r", "\\\\", "\s" escapes; "-" and "_" are the same in
 * option names; "loose-" makes an unknown option a warning for the
 * server, so it is the same option here; "!include" and "!includedir"
 * (every file ending in .cnf on Unix). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "format-mycnf.h"
#include "util.h"

static void warn(ht_mycnf *m, const char *where, unsigned line, const char *msg) {
        strv_pushf(&m->warnings, "%s:%u: %s", where, line, msg);
}

static void add(ht_mycnf *m, ht_mycnf_kind kind, const char *group, char *name, char *value,
                unsigned line) {
        m->entries = xrealloc(m->entries, (m->n + 1) * sizeof(*m->entries));
        m->entries[m->n++] = (ht_mycnf_entry){
                .kind = kind, .group = group ? xstrdup(group) : NULL, .name = name, .value = value, .line = line,
        };
}

/* The value after "=": quotes and escapes as mysys does. NULL: broken. */
static char *read_value(const char *v) {
        while (*v == ' ' || *v == '\t')
                v++;
        strbuf b = {0};
        char quote = 0;
        if (*v == '\'' || *v == '"')
                quote = *v++;
        for (; *v; v++) {
                if (quote && *v == quote) {
                        v++;
                        /* only a comment or blanks may follow */
                        while (*v == ' ' || *v == '\t')
                                v++;
                        if (*v && *v != '#') {
                                strbuf_done(&b);
                                return NULL;
                        }
                        return b.data ? strbuf_steal(&b) : xstrdup("");
                }
                if (!quote && *v == '#')
                        break;
                if (*v == '\\' && v[1]) {
                        const char *esc = strchr("btnrs\\", v[1]);
                        if (esc) {
                                static const char out[] = "\b\t\n\r \\";
                                strbuf_appendn(&b, &out[esc - "btnrs\\"], 1);
                                v++;
                                continue;
                        }
                }
                strbuf_appendn(&b, v, 1);
        }
        if (quote) {
                strbuf_done(&b);
                return NULL;
        }
        char *s = b.data ? strbuf_steal(&b) : xstrdup("");
        size_t n = strlen(s);
        while (n > 0 && isspace((unsigned char)s[n - 1]))
                s[--n] = 0;
        return s;
}

void ht_mycnf_parse(const char *buf, size_t len, const char *where, ht_mycnf *ret) {
        ht_mycnf m = {0};
        _cleanup_free_ char *group = NULL;
        size_t nul = strnlen(buf, len);
        if (nul < len)
                warn(&m, where, 1, "a NUL byte: the file is read up to it");
        _cleanup_free_ char *text = xstrndup(buf, nul);
        _cleanup_strv_free_ char **lines = strv_split(text, "\n");
        for (size_t i = 0; lines[i]; i++) {
                unsigned line = (unsigned)i + 1;
                char *l = strstrip(lines[i]);
                if (!*l || *l == '#' || *l == ';')
                        continue;
                if (*l == '!') {
                        size_t k = strcspn(l, " \t");
                        char *arg = strstrip(l + k);
                        l[k] = 0;
                        ht_mycnf_kind kind;
                        if (streq(l, "!include"))
                                kind = HT_MYCNF_INCLUDE;
                        else if (streq(l, "!includedir"))
                                kind = HT_MYCNF_INCLUDEDIR;
                        else {
                                warn(&m, where, line, "an unknown directive: skipped");
                                continue;
                        }
                        if (!*arg) {
                                warn(&m, where, line, "a directive without a path: skipped");
                                continue;
                        }
                        add(&m, kind, group, NULL, xstrdup(arg), line);
                        continue;
                }
                if (*l == '[') {
                        char *end = strchr(l, ']');
                        if (!end || end == l + 1) {
                                warn(&m, where, line, "not a [group] line: skipped");
                                continue;
                        }
                        free(group);
                        *end = 0;
                        /* mysys trims the blanks before "]" only
                         * (search_default_file_with_ext(): "Remove end
                         * space"): "[ mysqld ]" is the group " mysqld",
                         * which no program reads (my_print_defaults
                         * --mysqld prints none of its options) */
                        size_t n = strlen(l + 1);
                        while (n > 0 && isspace((unsigned char)l[n]))
                                l[n--] = 0;
                        group = xstrdup(l + 1);
                        if (isspace((unsigned char)*group))
                                warn(&m, where, line, "a group name that starts with a blank, which the server "
                                                      "takes as part of the name: no server reads its options");
                        for (char *q = group; *q; q++)
                                *q = (char)tolower((unsigned char)*q);
                        continue;
                }
                size_t k = strcspn(l, "=");
                char *value = NULL;
                if (l[k] == '=') {
                        value = read_value(l + k + 1);
                        if (!value) {
                                warn(&m, where, line, "a quoted value does not end where it should: skipped");
                                continue;
                        }
                        l[k] = 0;
                } else {
                        /* a bare option may carry a trailing comment */
                        l[strcspn(l, "#")] = 0;
                }
                char *name = xstrdup(strstrip(l));
                bool ok = *name;
                for (char *q = name; *q && ok; q++) {
                        *q = *q == '-' ? '_' : (char)tolower((unsigned char)*q);
                        ok = isalnum((unsigned char)*q) || *q == '_' || *q == '.';
                }
                if (!ok) {
                        warn(&m, where, line, "not an option name: skipped");
                        free(name);
                        free(value);
                        continue;
                }
                if (!group) {
                        warn(&m, where, line, "an option before any [group]: skipped");
                        free(name);
                        free(value);
                        continue;
                }
                if (startswith(name, "loose_"))
                        memmove(name, name + 6, strlen(name + 6) + 1);
                if (!*name) {
                        /* "loose-" alone names nothing (a fuzz finding) */
                        warn(&m, where, line, "not an option name: skipped");
                        free(name);
                        free(value);
                        continue;
                }
                add(&m, HT_MYCNF_OPTION, group, name, value, line);
        }
        *ret = m;
}

void ht_mycnf_done(ht_mycnf *m) {
        for (size_t i = 0; i < m->n; i++) {
                free(m->entries[i].group);
                free(m->entries[i].name);
                free(m->entries[i].value);
        }
        free(m->entries);
        strv_free(m->warnings);
        *m = (ht_mycnf){0};
}

int ht_mycnf_parse_size(const char *s, uint64_t *ret) {
        /* As my_getopt reads a number (mysys/my_getopt.c,
         * eval_num_suffix_ull() and eval_num_suffix(), MariaDB 10.11; MySQL
         * 8.0's is the same test): the digits, then only the one character
         * after them is looked at, so "8GB" and "512MiB" are 8G and 512M
         * to the server (mariadbd 10.11.19 --help --verbose shows
         * innodb-buffer-pool-size 8589934592 for "8GB"), while "8 G" and
         * "1.5G" are an "Unknown suffix" the server refuses to start
         * with. */
        size_t d = strspn(s, "0123456789");
        if (d == 0 || d > 20 || (s[d] && !strchr("kKmMgGtTpPeE", s[d])))
                return -EINVAL;
        _cleanup_free_ char *digits = xstrndup(s, d);
        uint64_t v;
        int r = parse_u64(digits, &v);
        if (r < 0)
                return r == -ERANGE ? -ERANGE : -EINVAL;
        unsigned shift = 0;
        switch (toupper((unsigned char)s[d])) {
        case 'K': shift = 10; break;
        case 'M': shift = 20; break;
        case 'G': shift = 30; break;
        case 'T': shift = 40; break;
        case 'P': shift = 50; break;
        case 'E': shift = 60; break;
        }
        if (shift && v > (UINT64_MAX >> shift))
                return -ERANGE;
        *ret = v << shift;
        return 0;
}

int ht_mycnf_parse_bool(const char *s, bool *ret) {
        if (!s) {
                *ret = true;
                return 0;
        }
        /* my_getopt's get_bool_argument() (mysys/my_getopt.c, MariaDB
         * 10.11; MySQL's get_bool_argument() likewise): "true", "on", "1"
         * and "false", "off", "0", nothing else. "yes" is not one:
         * mariadbd 10.11.19 says "option 'large_pages': boolean value
         * 'yes' wasn't recognized. Set to OFF." and runs without large
         * pages. */
        static const char *const yes[] = {"on", "true", "1"}, *const no[] = {"off", "false", "0"};
        for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
                if (strcasecmp(s, yes[i]) == 0) {
                        *ret = true;
                        return 0;
                }
                if (strcasecmp(s, no[i]) == 0) {
                        *ret = false;
                        return 0;
                }
        }
        *ret = false;
        return -EINVAL;
}
