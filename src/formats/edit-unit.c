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

/* Every value of key in section, in order; an empty assignment empties
 * the list when reset (most settings), or is kept as "" when not. */
static int scan(const char *text, size_t len, const char *section, const char *key, bool reset, char ***ret,
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
                                        if (*v || !reset)
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
        return scan(text, len, section, key, true, ret, &mentioned);
}

int ht_unit_value(const char *text, size_t len, const char *section, const char *key, char **ret) {
        _cleanup_strv_free_ char **v = NULL;
        bool mentioned;
        int n = scan(text, len, section, key, true, &v, &mentioned);
        *ret = n > 0 ? xstrdup(v[n - 1]) : NULL;
        return mentioned;
}

static bool is_byte_limit(const char *d) {
        static const char *const bytes[] = {"LimitAS", "LimitCORE", "LimitDATA", "LimitFSIZE", "LimitMEMLOCK",
                                            "LimitMSGQUEUE", "LimitRSS", "LimitSTACK", NULL};
        return strv_contains((char *const *)bytes, d);
}

/* systemd's parse_size(t, 1024) (src/basic/parse-util.c, 252): numbers
 * with an optional fraction, each followed by a suffix (E P T G M K B or
 * none, 1024-based), blanks allowed around them, summed in decreasing
 * order of suffix: "1.5G", "1G 512M", "100B" are sizes, "64m", "8MB",
 * "512M1G" and "0x100" are not. */
static int parse_size_1024(const char *t, uint64_t *ret) {
        static const struct {
                const char *suffix;
                uint64_t factor;
        } table[] = {
                {"E", UINT64_C(1) << 60}, {"P", UINT64_C(1) << 50}, {"T", UINT64_C(1) << 40},
                {"G", UINT64_C(1) << 30}, {"M", UINT64_C(1) << 20}, {"K", UINT64_C(1) << 10},
                {"B", 1},                 {"", 1},
        };
        const char *p = t;
        uint64_t total = 0;
        size_t start = 0;
        do {
                p += strspn(p, " \t\n\r");
                /* strtoull() there takes a sign; a '-' is refused */
                if ((*p == '-' || *p == '+') && isdigit((unsigned char)p[1]))
                        if (*p++ == '-')
                                return -ERANGE;
                if (!isdigit((unsigned char)*p))
                        return -EINVAL;
                uint64_t l = 0;
                for (; isdigit((unsigned char)*p); p++) {
                        if (l > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
                                return -ERANGE;
                        l = l * 10 + (uint64_t)(*p - '0');
                }
                double frac = 0;
                if (*p == '.') {
                        p++;
                        double scale = 1;
                        for (; isdigit((unsigned char)*p); p++) {
                                scale /= 10;
                                frac += (*p - '0') * scale;
                        }
                }
                p += strspn(p, " \t\n\r");
                size_t i = start;
                while (i < ELEMENTSOF(table) && !startswith(p, table[i].suffix))
                        i++;
                if (i == ELEMENTSOF(table))
                        return -EINVAL;
                uint64_t f = table[i].factor;
                if (l + (frac > 0) > UINT64_MAX / f)
                        return -ERANGE;
                uint64_t v = l * f + (uint64_t)(frac * (double)f);
                if (v > UINT64_MAX - total)
                        return -ERANGE;
                total += v;
                p += strlen(table[i].suffix);
                start = i + 1;
        } while (*p);
        *ret = total;
        return 0;
}

/* systemd's safe_atou64() (252): blanks before, an optional '+', the
 * base from the prefix as strtoull(..., 0) takes it (0x hex, 0 octal)
 * and 0b, 0o: LimitNOFILE=0x400 is 1024, LimitNPROC=010 is 8. */
static int parse_count(const char *t, uint64_t *ret) {
        t += strspn(t, " \t\n\r");
        const char *s = t;
        bool plus = *s == '+';
        s += plus;
        unsigned base = 0;
        if (!plus && s[0] == '0' && (s[1] == 'b' || s[1] == 'B' || s[1] == 'o' || s[1] == 'O')) {
                base = s[1] == 'b' || s[1] == 'B' ? 2 : 8;
                s += 2;
        }
        if (*s == '-')
                return -ERANGE;
        if (!isalnum((unsigned char)*s))
                return -EINVAL;
        errno = 0;
        char *end = NULL;
        unsigned long long v = strtoull(s, &end, (int)base);
        if (errno > 0)
                return -errno;
        if (!end || end == s || *end)
                return -EINVAL;
        *ret = v;
        return 0;
}

/* One side of a Limit*= value as systemd 252's rlimit_parse_one() takes
 * it (src/basic/rlimit-util.c): "infinity", a size for byte limits, a
 * count for the rest. */
static int parse_one(const char *d, const char *s, size_t n, uint64_t *ret) {
        if (n == 8 && strncmp(s, "infinity", 8) == 0) {
                *ret = HT_LIMIT_INFINITY;
                return 0;
        }
        if (n == 0 || n > 64)
                return -EINVAL;
        char buf[65];
        memcpy(buf, s, n);
        buf[n] = 0;
        uint64_t v = 0;
        int r = is_byte_limit(d) ? parse_size_1024(buf, &v) : parse_count(buf, &v);
        if (r < 0)
                return r;
        /* rlimit_parse_size, rlimit_parse_u64: RLIM_INFINITY is by name only */
        if (v >= HT_LIMIT_INFINITY)
                return -ERANGE;
        *ret = v;
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

/* Limits whose values are time spans or priorities (LimitCPU=1h,
 * LimitRTTIME=500ms, LimitNICE=+5), which ht_unit_parse_limit does not
 * read as systemd does. */
static bool limit_unparsed_here(const char *directive) {
        return streq(directive, "LimitCPU") || streq(directive, "LimitRTTIME") || streq(directive, "LimitNICE");
}

bool ht_unit_limit_accepted(const char *directive, const char *value) {
        uint64_t s, h;
        if (isempty(value))
                return false;
        return limit_unparsed_here(directive) || ht_unit_parse_limit(directive, value, &s, &h) == 0;
}

int ht_unit_limit_value(const char *text, size_t len, const char *section, const char *key, const char *directive,
                        char **ret) {
        _cleanup_strv_free_ char **v = NULL;
        bool mentioned;
        int n = scan(text, len, section, key, false, &v, &mentioned);
        for (int i = n - 1; i >= 0; i--)
                if (ht_unit_limit_accepted(directive, v[i])) {
                        *ret = xstrdup(v[i]);
                        return 1;
                }
        *ret = NULL;
        return 0;
}

static char *format_one(uint64_t v) {
        return v == HT_LIMIT_INFINITY ? xstrdup("infinity") : xasprintf("%" PRIu64, v);
}

char *ht_unit_format_limit(uint64_t soft, uint64_t hard) {
        _cleanup_free_ char *s = format_one(soft), *h = format_one(hard);
        return soft == hard ? xstrdup(s) : xasprintf("%s:%s", s, h);
}
