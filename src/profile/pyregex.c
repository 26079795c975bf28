/* Python-style regexes (tuned's uname_regex, cpuinfo_regex) translated
 * to POSIX extended ones for glibc's regcomp; see pyregex.h for what is
 * translated, what passes through and what is refused. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>

#include "pyregex.h"
#include "util.h"

typedef struct {
        const char *src;
        size_t pos;
        strbuf out;
        char *error;
} translator;

_printf_(3, 4)
static int refuse(translator *t, size_t pos, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        _cleanup_free_ char *what = xvasprintf(fmt, ap);
        va_end(ap);
        t->error = xasprintf("column %zu: %s", pos + 1, what);
        return -EINVAL;
}

/* The character a Python escape of a control character stands for, or 0. */
static char control_escape(char c) {
        switch (c) {
        case 't': return '\t';
        case 'n': return '\n';
        case 'r': return '\r';
        case 'f': return '\f';
        case 'v': return '\v';
        }
        return 0;
}

/* ERE's special characters outside brackets: escaped when meant literally. */
static bool ere_special(char c) {
        return c && strchr(".[]()*+?{}|^$\\", c);
}

static void put_literal(translator *t, char c) {
        if (ere_special(c))
                strbuf_appendn(&t->out, "\\", 1);
        strbuf_appendn(&t->out, &c, 1);
}

/* One bracket expression, t->pos on the '['. Python's members (escapes
 * included) are collected, then written in the order POSIX needs: ']'
 * first, '[' and '^' late, '-' last, since POSIX has no escapes there. */
static int translate_bracket(translator *t) {
        size_t start = t->pos;
        const char *s = t->src;
        size_t i = t->pos + 1;
        bool negated = s[i] == '^';
        if (negated)
                i++;
        strbuf body = {0};
        strbuf_append(&body, "");
        bool close = false, open = false, caret = false, dash = false;
        bool first = true;
        int r = 0;
        while (!(s[i] == ']' && !first)) {
                if (!s[i]) {
                        r = refuse(t, start, "'[' without a closing ']'");
                        goto out;
                }
                first = false;
                /* one member: a literal character or a class */
                char c = s[i];
                const char *cls = NULL;
                size_t at = i;
                if (c == '\\') {
                        char e = s[i + 1];
                        i += 2;
                        if (!e) {
                                r = refuse(t, at, "the pattern ends with a backslash");
                                goto out;
                        }
                        if (e == 'd')
                                cls = "0-9";
                        else if (e == 's')
                                cls = "[:space:]";
                        else if (e == 'w')
                                cls = "[:alnum:]_";
                        else if (e == 'D' || e == 'S' || e == 'W') {
                                r = refuse(t, at, "'\\%c' inside [...] has no POSIX form", e);
                                goto out;
                        } else if (control_escape(e))
                                c = control_escape(e);
                        else if (isalnum((unsigned char)e)) {
                                r = refuse(t, at, "'\\%c' is not supported", e);
                                goto out;
                        } else
                                c = e;
                } else
                        i++;
                if (cls) {
                        strbuf_append(&body, cls);
                        continue;
                }
                /* a range c-x (a '-' before the closing ']' is literal) */
                if (s[i] == '-' && s[i + 1] && s[i + 1] != ']') {
                        char hi = s[i + 1];
                        size_t hat = i + 1;
                        i += 2;
                        if (hi == '\\') {
                                char e = s[i];
                                i++;
                                if (control_escape(e))
                                        hi = control_escape(e);
                                else if (e && !isalnum((unsigned char)e))
                                        hi = e;
                                else {
                                        r = refuse(t, hat, "'\\%c' cannot end a range", e ? e : ' ');
                                        goto out;
                                }
                        }
                        if ((unsigned char)hi < (unsigned char)c) {
                                r = refuse(t, at, "bad range '%c-%c'", c, hi);
                                goto out;
                        }
                        if (c == ']' || c == '[' || hi == ']' || hi == '[' || c == '^' || c == '-' || hi == '-') {
                                r = refuse(t, at, "a range starting or ending with '%c' is not supported",
                                           strchr("[]^-", c) ? c : hi);
                                goto out;
                        }
                        strbuf_appendf(&body, "%c-%c", c, hi);
                        continue;
                }
                if (c == ']')
                        close = true;
                else if (c == '[')
                        open = true;
                else if (c == '^')
                        caret = true;
                else if (c == '-')
                        dash = true;
                else
                        strbuf_appendn(&body, &c, 1);
        }
        t->pos = i + 1;
        if (!negated && caret && !close && !*body.data && !open && !dash) {
                /* [\^] alone: POSIX would read "[^]" as a negation */
                strbuf_append(&t->out, "\\^");
                goto out;
        }
        strbuf_append(&t->out, negated ? "[^" : "[");
        if (close)
                strbuf_append(&t->out, "]");
        else if (!negated && caret && !*body.data && !open && dash) {
                /* [-^]: the dash may lead, the caret must not */
                strbuf_append(&t->out, "-^]");
                goto out;
        }
        strbuf_append(&t->out, body.data);
        if (open)
                strbuf_append(&t->out, "[");
        if (caret)
                strbuf_append(&t->out, "^");
        if (dash)
                strbuf_append(&t->out, "-");
        strbuf_append(&t->out, "]");
out:
        strbuf_done(&body);
        return r;
}

/* A '{' at t->pos: a quantifier {m}, {m,}, {,n}, {m,n} is copied ({,n}
 * as {0,n}) and true returned; anything else is Python's literal '{'. */
static bool copy_quantifier(translator *t) {
        const char *p = t->src + t->pos + 1;
        size_t m = strspn(p, "0123456789");
        size_t n = 0;
        bool comma = p[m] == ',';
        if (comma)
                n = strspn(p + m + 1, "0123456789");
        size_t len = m + comma + n;
        if (p[len] != '}' || (m == 0 && n == 0))
                return false;
        strbuf_append(&t->out, "{");
        if (m == 0)
                strbuf_append(&t->out, "0");
        strbuf_appendn(&t->out, p, len);
        strbuf_append(&t->out, "}");
        t->pos += len + 2;
        return true;
}

int ht_pyregex_translate(const char *pattern, char **ret, char **ret_error) {
        translator t = {.src = pattern ? pattern : ""};
        strbuf_append(&t.out, "");
        int r = 0;
        bool after_quantifier = false;
        while (t.src[t.pos]) {
                char c = t.src[t.pos];
                bool quantifier = false;
                if (c == '\\') {
                        char e = t.src[t.pos + 1];
                        if (!e) {
                                r = refuse(&t, t.pos, "the pattern ends with a backslash");
                                break;
                        }
                        if (e == 'd')
                                strbuf_append(&t.out, "[0-9]");
                        else if (e == 'D')
                                strbuf_append(&t.out, "[^0-9]");
                        else if (strchr("sSwWbB123456789", e))
                                strbuf_appendf(&t.out, "\\%c", e);
                        else if (e == 'A')
                                strbuf_append(&t.out, "\\`");
                        else if (e == 'Z')
                                strbuf_append(&t.out, "\\'");
                        else if (control_escape(e))
                                put_literal(&t, control_escape(e));
                        else if (isalnum((unsigned char)e)) {
                                r = refuse(&t, t.pos, "'\\%c' is not supported", e);
                                break;
                        } else
                                put_literal(&t, e);
                        t.pos += 2;
                } else if (c == '[') {
                        r = translate_bracket(&t);
                        if (r < 0)
                                break;
                } else if (c == '(' && t.src[t.pos + 1] == '?') {
                        const char *g = t.src + t.pos + 2;
                        if (*g == ':')
                                t.pos += 3;
                        else if (g[0] == 'P' && g[1] == '<' && strchr(g + 2, '>')) {
                                const char *end = strchr(g + 2, '>');
                                t.pos = (size_t)(end + 1 - t.src);
                        } else {
                                r = refuse(&t, t.pos, "'(?%.1s' groups are not supported (only '(?:' and "
                                           "'(?P<name>')", g);
                                break;
                        }
                        strbuf_append(&t.out, "(");
                } else if (c == '?' && after_quantifier) {
                        /* lazy: the same match or none, for a search */
                        t.pos++;
                } else if (c == '{') {
                        quantifier = copy_quantifier(&t);
                        if (!quantifier) {
                                strbuf_append(&t.out, "\\{");
                                t.pos++;
                        }
                } else if (c == '}') {
                        strbuf_append(&t.out, "\\}");
                        t.pos++;
                } else {
                        quantifier = c == '*' || c == '+' || c == '?';
                        strbuf_appendn(&t.out, &c, 1);
                        t.pos++;
                }
                after_quantifier = quantifier;
        }
        if (r < 0) {
                strbuf_done(&t.out);
                *ret_error = t.error;
                return r;
        }
        *ret = strbuf_steal(&t.out);
        return 0;
}

int ht_pyregex_compile(const char *pattern, regex_t *ret, char **ret_error) {
        _cleanup_free_ char *posix = NULL;
        int r = ht_pyregex_translate(pattern, &posix, ret_error);
        if (r < 0)
                return r;
        int k = regcomp(ret, posix, REG_EXTENDED | REG_NEWLINE | REG_NOSUB);
        if (k != 0) {
                char msg[128];
                regerror(k, ret, msg, sizeof msg);
                *ret_error = xasprintf("%s", msg);
                return -EINVAL;
        }
        return 0;
}

bool ht_pyregex_search(const regex_t *re, const char *text) {
        return regexec(re, text ? text : "", 0, NULL, 0) == 0;
}
