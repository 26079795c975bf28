#include "config.h"

#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "edit-unit.h"
#include "util.h"

bool ht_unit_name_valid(const char *u) {
        if (isempty(u) || strlen(u) > 255 || u[0] == '.' || u[0] == '-')
                return false;
        for (const char *p = u; *p; p++)
                if (!isalnum((unsigned char)*p) && !strchr(":-_.\\@", *p))
                        return false;
        return strchr(u, '.') != NULL;
}

/* One logical line: continuation lines joined as systemd joins them
 * (the backslash and newline become a space; comment lines inside a
 * continuation are skipped); blank lines and comments are passed over.
 * Built in b, which the caller keeps for
 * every line of a file (one buffer, not one a line); NULL at the end. */
static char *next_logical_line(const char **pos, const char *end, strbuf *b) {
        bool cont = false;
        b->len = 0;
        while (*pos < end) {
                const char *p = *pos;
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                const char *le = nl ? nl : end;
                *pos = nl ? nl + 1 : end;
                const char *s = p;
                while (s < le && isspace((unsigned char)*s))
                        s++;
                if (cont && s < le && (*s == '#' || *s == ';'))
                        continue;
                size_t n = (size_t)(le - p);
                while (n > 0 && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
                        n--;
                bool backslash = n > 0 && p[n - 1] == '\\';
                /* a blank line, or a comment that continues nothing and
                 * is continued by nothing: nothing the scan would take
                 * (most lines of a shipped system.conf), not copied */
                if (!cont && !backslash && (s == le || *s == '#' || *s == ';'))
                        continue;
                if (backslash) {
                        strbuf_appendn(b, p, n - 1);
                        strbuf_append(b, " ");
                        cont = true;
                        continue;
                }
                strbuf_appendn(b, p, n);
                return b->data;
        }
        return cont ? b->data : NULL;
}

static int scan(const char *text, size_t len, const char *section, const char *key, char ***ret,
                bool *ret_mentioned) {
        char **values = NULL;
        bool mentioned = false;
        bool in_section = false;
        const char *pos = text, *end = text + len;
        char *line;
        /* one buffer for every line, grown when a longer one needs it */
        strbuf lb = {0};
        strbuf_grow(&lb, len < 256 ? len : 256);
        while ((line = next_logical_line(&pos, end, &lb))) {
                char *s = strstrip(line);
                if (*s == '[') {
                        char *close = strchr(s, ']');
                        in_section = close && (size_t)(close - s - 1) == strlen(section) &&
                                     strncmp(s + 1, section, strlen(section)) == 0;
                } else if (in_section && *s && *s != '#' && *s != ';') {
                        char *eq = strchr(s, '=');
                        if (eq) {
                                *eq = 0;
                                char *k = strstrip(s), *v = strstrip(eq + 1);
                                if (streq(k, key)) {
                                        mentioned = true;
                                        if (*v)
                                                strv_push(&values, v);
                                        else {
                                                strv_free(values);
                                                values = NULL;
                                        }
                                }
                        }
                }
        }
        strbuf_done(&lb);
        *ret = values;
        *ret_mentioned = mentioned;
        return (int)strv_length(values);
}

int ht_unit_values(const char *text, size_t len, const char *section, const char *key, char ***ret) {
        bool mentioned;
        return scan(text, len, section, key, ret, &mentioned);
}

int ht_unit_value(const char *text, size_t len, const char *section, const char *key, char **ret) {
        _cleanup_strv_free_ char **v = NULL;
        bool mentioned;
        int n = scan(text, len, section, key, &v, &mentioned);
        *ret = n > 0 ? xstrdup(v[n - 1]) : NULL;
        return mentioned;
}

static bool is_byte_limit(const char *d) {
        static const char *const bytes[] = {"LimitAS", "LimitCORE", "LimitDATA", "LimitFSIZE", "LimitMEMLOCK",
                                            "LimitMSGQUEUE", "LimitRSS", "LimitSTACK", NULL};
        return strv_contains((char *const *)bytes, d);
}

static int parse_one(const char *d, const char *s, size_t n, uint64_t *ret) {
        if (n == 8 && strncmp(s, "infinity", 8) == 0) {
                *ret = HT_LIMIT_INFINITY;
                return 0;
        }
        if (n == 0 || n > 30 || !isdigit((unsigned char)s[0]))
                return -EINVAL;
        char buf[32];
        memcpy(buf, s, n);
        buf[n] = 0;
        uint64_t mult = 1;
        const char *suffixes = "KMGTPE";
        const char *sfx = strchr(suffixes, buf[n - 1]);
        if (sfx && buf[n - 1] && is_byte_limit(d)) {
                for (const char *q = suffixes; q <= sfx; q++)
                        mult *= 1024;
                buf[n - 1] = 0;
        }
        uint64_t v;
        int r = parse_u64(buf, &v);
        if (r < 0)
                return r;
        if (v > (HT_LIMIT_INFINITY - 1) / mult)
                return -ERANGE;
        *ret = v * mult;
        return 0;
}

int ht_unit_parse_limit(const char *directive, const char *value, uint64_t *ret_soft, uint64_t *ret_hard) {
        if (isempty(value))
                return -EINVAL;
        const char *colon = strchr(value, ':');
        uint64_t soft, hard;
        int r = parse_one(directive, value, colon ? (size_t)(colon - value) : strlen(value), &soft);
        if (r < 0)
                return r;
        if (colon) {
                r = parse_one(directive, colon + 1, strlen(colon + 1), &hard);
                if (r < 0)
                        return r;
                /* systemd refuses a soft limit above the hard one */
                if (soft > hard)
                        return -EINVAL;
        } else
                hard = soft;
        *ret_soft = soft;
        *ret_hard = hard;
        return 0;
}

static char *format_one(uint64_t v) {
        return v == HT_LIMIT_INFINITY ? xstrdup("infinity") : xasprintf("%" PRIu64, v);
}

char *ht_unit_format_limit(uint64_t soft, uint64_t hard) {
        _cleanup_free_ char *s = format_one(soft), *h = format_one(hard);
        return soft == hard ? xstrdup(s) : xasprintf("%s:%s", s, h);
}
