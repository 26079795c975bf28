/* Python re syntax to POSIX ERE (regex-python.h). A small recursive-free
 * scanner: outside sets it copies or rewrites one token at a time,
 * inside a set it collects the members and writes them back in the
 * order POSIX bracket expressions need (] first, - last). */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "regex-python.h"
#include "util.h"

#define ERE_SPECIAL ".[]()*+?{}|^$\\"

static int hex_value(char c) {
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

/* The byte a character escape stands for (\n, \xHH, \. ...), with *len
 * the escape's length from the backslash; -1 for a class or a letter
 * escape this does not know, -2 for the trailing backslash. */
static int escaped_byte(const char *p, size_t *len) {
        *len = 2;
        switch (p[1]) {
        case 0:
                return -2;
        case 'n': return '\n';
        case 't': return '\t';
        case 'r': return '\r';
        case 'f': return '\f';
        case 'v': return '\v';
        case 'a': return '\a';
        case 'x': {
                int h = hex_value(p[2]), l = h < 0 ? -1 : hex_value(p[3]);
                if (h < 0 || l < 0 || (h == 0 && l == 0))
                        return -1; /* a NUL cannot be in a C pattern */
                *len = 4;
                return h * 16 + l;
        }
        }
        unsigned char c = (unsigned char)p[1];
        if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
                return -1;
        return c;
}

static const char *class_of(char c) {
        switch (c) {
        case 'd': return "[:digit:]";
        case 'w': return "[:alnum:]_";
        case 's': return "[:space:]";
        }
        return NULL;
}

static void append_literal(strbuf *b, int c) {
        char s[3] = {0};
        if (strchr(ERE_SPECIAL, c)) {
                s[0] = '\\';
                s[1] = (char)c;
        } else
                s[0] = (char)c;
        strbuf_append(b, s);
}

/* A set [...] starting at *pp (the '['); *pp moves past its ']'. */
static int translate_set(const char **pp, strbuf *out) {
        const char *p = *pp + 1;
        bool negate = false;
        if (*p == '^') {
                negate = true;
                p++;
        }
        bool member[256] = {false};
        strbuf classes = {0};
        bool first = true;
        int r = 0;
        for (;;) {
                if (*p == 0) {
                        r = -EINVAL; /* unterminated character set */
                        goto done;
                }
                if (*p == ']' && !first)
                        break;
                first = false;
                int lo;
                size_t len = 1;
                if (*p == '\\') {
                        const char *cls = class_of(p[1]);
                        if (cls) {
                                strbuf_append(&classes, cls);
                                p += 2;
                                continue;
                        }
                        lo = escaped_byte(p, &len);
                        if (lo == -2) {
                                r = -EINVAL;
                                goto done;
                        }
                        if (lo < 0) {
                                r = -EOPNOTSUPP; /* \D \W \S, \b, \N{...}, octal */
                                goto done;
                        }
                } else if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
                        r = -EOPNOTSUPP; /* a literal to Python, a class to POSIX */
                        goto done;
                } else
                        lo = (unsigned char)*p;
                p += len;
                int hi = lo;
                if (*p == '-' && p[1] != ']' && p[1] != 0) {
                        const char *q = p + 1;
                        if (*q == '\\') {
                                if (class_of(q[1])) {
                                        r = -EINVAL; /* bad character range */
                                        goto done;
                                }
                                hi = escaped_byte(q, &len);
                                if (hi == -2) {
                                        r = -EINVAL;
                                        goto done;
                                }
                                if (hi < 0) {
                                        r = -EOPNOTSUPP;
                                        goto done;
                                }
                        } else {
                                hi = (unsigned char)*q;
                                len = 1;
                        }
                        if (hi < lo) {
                                r = -EINVAL;
                                goto done;
                        }
                        p = q + len;
                }
                for (int c = lo; c <= hi; c++)
                        member[c] = true;
        }
        p++; /* the ']' */

        /* Members one byte at a time, in runs: ] first, then ranges and
         * bytes that are plain in a bracket, then [ ^ and - last. */
        bool any = classes.len > 0;
        for (int c = 1; c < 256; c++)
                any = any || member[c];
        if (!any) {
                /* only possible as an empty range list: Python rejects [] */
                r = -EINVAL;
                goto done;
        }
        bool only_caret = !classes.len && member['^'];
        for (int c = 1; c < 256 && only_caret; c++)
                if (c != '^' && member[c])
                        only_caret = false;
        if (only_caret && !negate) {
                strbuf_append(out, "\\^");
                goto done;
        }
        strbuf_append(out, negate ? "[^" : "[");
        if (member[']'])
                strbuf_append(out, "]");
        for (int c = 1; c < 256; c++) {
                if (!member[c] || c == ']' || c == '[' || c == '^' || c == '-')
                        continue;
                int e = c;
                while (e + 1 < 256 && member[e + 1] && e + 1 != ']' && e + 1 != '[' && e + 1 != '^' && e + 1 != '-')
                        e++;
                char s[4] = {(char)c, 0, 0, 0};
                strbuf_append(out, s);
                if (e > c + 1) {
                        s[0] = '-';
                        s[1] = (char)e;
                        strbuf_append(out, s);
                } else if (e == c + 1) {
                        s[0] = (char)e;
                        strbuf_append(out, s);
                }
                c = e;
        }
        if (classes.len)
                strbuf_append(out, classes.data);
        if (member['['])
                strbuf_append(out, "[");
        bool caret_first = out->data[out->len - 1] == '[' && !member['['];
        if (member['^'] && caret_first && member['-']) /* [-^], not the negation [^-] */
                strbuf_append(out, "-^");
        else {
                if (member['^'])
                        strbuf_append(out, "^");
                if (member['-'])
                        strbuf_append(out, "-");
        }
        strbuf_append(out, "]");
done:
        strbuf_done(&classes);
        *pp = p;
        return r;
}

/* A Python brace quantifier at p ({m} {m,} {,n} {m,n}, digits only):
 * its length, else 0 (then the brace is a literal). */
static size_t quantifier_len(const char *p) {
        size_t i = 1, m = 0, n = 0;
        while (p[i] >= '0' && p[i] <= '9')
                i++, m++;
        if (p[i] == '}')
                return m ? i + 1 : 0;
        if (p[i] != ',')
                return 0;
        i++;
        while (p[i] >= '0' && p[i] <= '9')
                i++, n++;
        return p[i] == '}' ? i + 1 : 0;
}

int ht_regex_from_python(const char *py, char **ret) {
        strbuf out = {0};
        const char *p = py;
        bool after_repeat = false; /* the last token was a quantifier */
        bool lazy = false;         /* ... and made lazy already */
        int r = 0;
        strbuf_append(&out, "");
        while (*p) {
                bool repeat = false;
                if (*p == '\\') {
                        const char *cls = class_of((char)(p[1] | 0x20));
                        if (cls && (p[1] == 'd' || p[1] == 'w' || p[1] == 's')) {
                                strbuf_appendf(&out, "[%s]", cls);
                                p += 2;
                        } else if (cls) {
                                strbuf_appendf(&out, "[^%s]", class_of((char)(p[1] | 0x20)));
                                p += 2;
                        } else if (p[1] == 'b' || p[1] == 'B') {
                                strbuf_appendn(&out, p, 2);
                                p += 2;
                        } else {
                                size_t len;
                                int c = escaped_byte(p, &len);
                                if (c == -2) {
                                        r = -EINVAL;
                                        goto fail;
                                }
                                if (c < 0) {
                                        r = -EOPNOTSUPP; /* backreference, \A \Z, ... */
                                        goto fail;
                                }
                                append_literal(&out, c);
                                p += len;
                        }
                } else if (*p == '[') {
                        r = translate_set(&p, &out);
                        if (r < 0)
                                goto fail;
                } else if (*p == '(' && p[1] == '?') {
                        if (p[2] == ':') {
                                strbuf_append(&out, "(");
                                p += 3;
                        } else if (p[2] == 'P' && p[3] == '<') {
                                const char *e = strchr(p + 4, '>');
                                if (!e) {
                                        r = -EINVAL;
                                        goto fail;
                                }
                                strbuf_append(&out, "(");
                                p = e + 1;
                        } else if (p[2] == '#') {
                                const char *e = strchr(p + 3, ')');
                                if (!e) {
                                        r = -EINVAL;
                                        goto fail;
                                }
                                p = e + 1;
                        } else {
                                r = -EOPNOTSUPP; /* lookaround, flags, (?P=name), atomic */
                                goto fail;
                        }
                } else if (*p == '*' || *p == '+' || *p == '?') {
                        if (after_repeat) {
                                if (*p == '?' && !lazy) {
                                        p++; /* lazy: the same yes or no */
                                        lazy = true;
                                        continue;
                                }
                                r = *p == '+' ? -EOPNOTSUPP : -EINVAL; /* possessive; multiple repeat */
                                goto fail;
                        }
                        strbuf_appendn(&out, p, 1);
                        p++;
                        repeat = true;
                } else if (*p == '{') {
                        size_t len = quantifier_len(p);
                        if (!len) {
                                strbuf_append(&out, "\\{");
                                p++;
                        } else {
                                if (after_repeat) {
                                        r = -EINVAL;
                                        goto fail;
                                }
                                if (p[1] == ',')
                                        strbuf_append(&out, "{0");
                                else
                                        strbuf_append(&out, "{");
                                strbuf_appendn(&out, p + 1, len - 1);
                                p += len;
                                repeat = true;
                        }
                } else if (*p == '}') {
                        strbuf_append(&out, "\\}");
                        p++;
                } else {
                        strbuf_appendn(&out, p, 1);
                        p++;
                }
                after_repeat = repeat;
                lazy = false;
        }
        *ret = strbuf_steal(&out);
        return 0;
fail:
        strbuf_done(&out);
        return r;
}
