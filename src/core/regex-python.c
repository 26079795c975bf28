/* Python re syntax to POSIX ERE (regex-python.h). A recursion-free
 * scanner: outside sets it copies or rewrites one token at a time and
 * tracks what the last token was (Python refuses to repeat nothing or a
 * repeat); inside a set it collects the members and writes them back in
 * the order POSIX bracket expressions need (] first, - last). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#include "regex-python.h"
#include "util.h"

#define ERE_SPECIAL ".[]()*+?{}|^$\\"
#define POSIX_DUP_MAX 32767 /* glibc's RE_DUP_MAX */
/* glibc's regcomp() copies a counted repeat's atom once per count and
 * its DFA grows about with the square: a{1,3000} takes 73 MB, a{1,30003}
 * more than 2 GB (the fuzzer's find). POSIX promises counts up to 255
 * (_POSIX_RE_DUP_MAX); the product of a pattern's counts, as if they were
 * all nested, is held to 10,000: (a{100}){100} takes 13 MB. */
#define REPEAT_COUNT_MAX 255
#define REPEAT_PRODUCT_MAX 10000

/* what the last token leaves for a quantifier */
typedef enum { NOTHING, ATOM, REPEAT } last_token;

typedef struct {
        const char *src;
        strbuf out;
        char *error;
        unsigned long repeat_product; /* of the counts so far, 0: none yet */
} translator;

_printf_(4, 5)
static int refuse(translator *t, int r, const char *at, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        _cleanup_free_ char *what = xvasprintf(fmt, ap);
        va_end(ap);
        free(t->error);
        t->error = xasprintf("column %zu: %s", (size_t)(at - t->src) + 1, what);
        return r;
}

static int hex_value(char c) {
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

static bool ascii_alnum(char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The byte a character escape at p (the backslash) stands for: \n \xHH
 * \. ... (in_set: also \b, a backspace there), *len its length; else a
 * negative errno with the reason said. Classes are the caller's. */
static int escaped_byte(translator *t, const char *p, bool in_set, size_t *len) {
        *len = 2;
        switch (p[1]) {
        case 0:
                return refuse(t, -EINVAL, p, "the pattern ends with a backslash");
        case 'n': return '\n';
        case 't': return '\t';
        case 'r': return '\r';
        case 'f': return '\f';
        case 'v': return '\v';
        case 'a': return '\a';
        case 'b':
                if (in_set)
                        return '\b';
                break;
        case 'x': {
                int h = hex_value(p[2]), l = h < 0 ? -1 : hex_value(p[3]);
                if (h < 0 || l < 0)
                        return refuse(t, -EINVAL, p, "incomplete escape '\\x'");
                if (h == 0 && l == 0) /* a NUL cannot be in a C pattern */
                        return refuse(t, -EOPNOTSUPP, p, "'\\x00' is not supported");
                if (h >= 8) /* a character Python's text holds as two UTF-8 bytes */
                        return refuse(t, -EOPNOTSUPP, p, "'\\x%c%c' (not ASCII) is not supported", p[2], p[3]);
                *len = 4;
                return h * 16 + l;
        }
        case 'u': case 'U': case 'N':
                return refuse(t, -EOPNOTSUPP, p, "'\\%c' is not supported", p[1]);
        }
        if (p[1] >= '0' && p[1] <= '9')
                return refuse(t, -EOPNOTSUPP, p, "'\\%c' is not supported (backreferences and octal escapes "
                              "have no POSIX form here)", p[1]);
        if (ascii_alnum(p[1]))
                return refuse(t, -EINVAL, p, "'\\%c' is not supported (Python's re rejects it too)", p[1]);
        return (unsigned char)p[1];
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

/* A set member's class escape (\d \s \w) into member/classes: true if
 * it was one. */
static bool set_class(char e, bool member[256], strbuf *classes) {
        switch (e) {
        case 'd':
                for (int c = '0'; c <= '9'; c++)
                        member[c] = true;
                return true;
        case 's':
                strbuf_append(classes, "[:space:]");
                return true;
        case 'w':
                strbuf_append(classes, "[:alnum:]_");
                return true;
        }
        return false;
}

/* One end of a range or a lone member at p: its byte, *len its length. */
static int set_byte(translator *t, const char *p, size_t *len) {
        if (*p == '\\') {
                if (p[1] == 'D' || p[1] == 'S' || p[1] == 'W')
                        return refuse(t, -EOPNOTSUPP, p, "'\\%c' inside [...] has no POSIX form", p[1]);
                if (p[1] == 'A' || p[1] == 'Z' || p[1] == 'B')
                        return refuse(t, -EINVAL, p, "'\\%c' is not supported (Python's re rejects it in [...])",
                                      p[1]);
                return escaped_byte(t, p, true, len);
        }
        *len = 1;
        if ((unsigned char)*p >= 0x80)
                return refuse(t, -EOPNOTSUPP, p, "a non-ASCII character inside [...] is not supported");
        return (unsigned char)*p;
}

/* A set [...] starting at *pp (the '['); *pp moves past its ']'. */
static int translate_set(translator *t, const char **pp) {
        const char *start = *pp, *p = *pp + 1;
        strbuf *out = &t->out;
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
                        r = refuse(t, -EINVAL, start, "'[' without a closing ']'");
                        goto done;
                }
                if (*p == ']' && !first)
                        break;
                first = false;
                if (*p == '\\' && set_class(p[1], member, &classes)) {
                        if (p[2] == '-' && p[3] != ']' && p[3] != 0) {
                                r = refuse(t, -EINVAL, p, "bad character range '\\%c-'", p[1]);
                                goto done;
                        }
                        p += 2;
                        continue;
                }
                if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
                        r = refuse(t, -EOPNOTSUPP, p, "'[%c' inside [...] is a literal to Python, a class to POSIX",
                                   p[1]);
                        goto done;
                }
                size_t len;
                int lo = set_byte(t, p, &len);
                if (lo < 0) {
                        r = lo;
                        goto done;
                }
                const char *at = p;
                p += len;
                int hi = lo;
                if (*p == '-' && p[1] != ']' && p[1] != 0) {
                        const char *q = p + 1;
                        if (*q == '\\' && (q[1] == 'd' || q[1] == 's' || q[1] == 'w')) {
                                r = refuse(t, -EINVAL, at, "bad character range ending in '\\%c'", q[1]);
                                goto done;
                        }
                        hi = set_byte(t, q, &len);
                        if (hi < 0) {
                                r = hi;
                                goto done;
                        }
                        if (hi < lo) {
                                r = refuse(t, -EINVAL, at, "bad range '%c-%c'", lo, hi);
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
                r = refuse(t, -EINVAL, start, "an empty set");
                goto done;
        }
        bool only_caret = !classes.len && member['^'];
        for (int c = 1; c < 256 && only_caret; c++)
                if (c != '^' && member[c])
                        only_caret = false;
        if (only_caret && !negate) {
                strbuf_append(out, "\\^"); /* "[^]" would be a negation */
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

/* A run of digits at *pp as a count (capped past POSIX_DUP_MAX), -1 if none. */
static long parse_count(const char **pp) {
        const char *p = *pp;
        long n = -1;
        for (; *p >= '0' && *p <= '9'; p++)
                n = n < 0 ? *p - '0' : n > POSIX_DUP_MAX ? n : n * 10 + (*p - '0');
        *pp = p;
        return n;
}

/* A quantifier may follow the last token: Python refuses to repeat
 * nothing (start, '(', '|', an anchor) or a repeat. */
static int check_repeatable(translator *t, const char *at, last_token last) {
        if (last == NOTHING)
                return refuse(t, -EINVAL, at, "nothing to repeat");
        if (last == REPEAT)
                return refuse(t, -EINVAL, at, "multiple repeat");
        return 0;
}

/* After a quantifier: a lazy '?' is dropped (whether a search matches is
 * the same), a possessive '+' refused. *pp moves past it. */
static int quantifier_suffix(translator *t, const char **pp) {
        if (**pp == '?')
                (*pp)++;
        else if (**pp == '+')
                return refuse(t, -EOPNOTSUPP, *pp, "possessive quantifiers are not supported");
        return 0;
}

/* A '{' at *pp: a quantifier {m} {m,} {,n} {m,n} {,} is written ({,n} as
 * {0,n}) and 1 returned, *pp past it; 0 if it is Python's literal '{'. */
static int brace_quantifier(translator *t, const char **pp, last_token last) {
        const char *at = *pp, *p = *pp + 1;
        if (*p == '}')
                return 0; /* "{}" */
        long lo = parse_count(&p), hi = lo;
        bool comma = *p == ',';
        if (comma) {
                p++;
                hi = parse_count(&p);
        }
        if (*p != '}')
                return 0;
        p++;
        int r = check_repeatable(t, at, last);
        if (r < 0)
                return r;
        if (lo > POSIX_DUP_MAX || hi > POSIX_DUP_MAX)
                return refuse(t, -EOPNOTSUPP, at, "repeat counts above %d are not supported", POSIX_DUP_MAX);
        if (lo > REPEAT_COUNT_MAX || hi > REPEAT_COUNT_MAX)
                return refuse(t, -EOPNOTSUPP, at, "repeat counts above %d are not supported (regcomp's memory)",
                              REPEAT_COUNT_MAX);
        unsigned long most = (unsigned long)(hi > lo ? hi : lo > 1 ? lo : 1);
        t->repeat_product = (t->repeat_product ? t->repeat_product : 1) * (most ? most : 1);
        if (t->repeat_product > REPEAT_PRODUCT_MAX)
                return refuse(t, -EOPNOTSUPP, at,
                              "counted repeats multiplying past %d are not supported (regcomp's memory)",
                              REPEAT_PRODUCT_MAX);
        if (hi >= 0 && lo > hi)
                return refuse(t, -EINVAL, at, "min repeat greater than max repeat");
        strbuf_appendf(&t->out, "{%ld", lo < 0 ? 0 : lo);
        if (comma)
                strbuf_append(&t->out, ",");
        if (comma && hi >= 0)
                strbuf_appendf(&t->out, "%ld", hi);
        strbuf_append(&t->out, "}");
        *pp = p;
        return 1;
}

/* A '(' followed by '?' at *pp. */
static int extension_group(translator *t, const char **pp) {
        const char *at = *pp, *g = *pp + 2;
        if (*g == ':') {
                *pp = g + 1;
                return 0;
        }
        if (g[0] == 'P' && g[1] == '<') {
                const char *name = g + 2, *e = name;
                while (*e && *e != '>')
                        e++;
                if (!*e)
                        return refuse(t, -EINVAL, at, "missing '>' after the group name");
                if (e == name)
                        return refuse(t, -EINVAL, at, "missing group name");
                for (const char *c = name; c < e; c++)
                        if (!((unsigned char)*c >= 0x80 || *c == '_' || (ascii_alnum(*c) && !(c == name && *c <= '9'))))
                                return refuse(t, -EINVAL, at, "bad character in group name");
                *pp = e + 1;
                return 0;
        }
        return refuse(t, -EOPNOTSUPP, at,
                      "'(?%.1s' groups are not supported (only '(?:', '(?P<name>' and '(?#')", g);
}

int ht_regex_from_python(const char *py, char **ret, char **ret_error) {
        translator t = {.src = py ? py : ""};
        const char *p = t.src;
        last_token last = NOTHING;
        unsigned depth = 0;
        int r = 0;
        strbuf_append(&t.out, "");
        while (*p) {
                last_token now = ATOM;
                if (*p == '\\') {
                        char e = p[1];
                        if (e == 'd' || e == 'D') {
                                strbuf_append(&t.out, e == 'd' ? "[0-9]" : "[^0-9]");
                                p += 2;
                        } else if (e == 's' || e == 'S' || e == 'w' || e == 'W') {
                                strbuf_appendn(&t.out, p, 2);
                                p += 2;
                        } else if (e == 'b' || e == 'B' || e == 'A' || e == 'Z') {
                                strbuf_append(&t.out, e == 'A' ? "\\`" : e == 'Z' ? "\\'" : e == 'b' ? "\\b" : "\\B");
                                p += 2;
                                now = NOTHING;
                        } else {
                                size_t len;
                                int c = escaped_byte(&t, p, false, &len);
                                if (c < 0) {
                                        r = c;
                                        goto fail;
                                }
                                append_literal(&t.out, c);
                                p += len;
                        }
                } else if (*p == '[') {
                        r = translate_set(&t, &p);
                        if (r < 0)
                                goto fail;
                } else if (*p == '(' && p[1] == '?' && p[2] == '#') {
                        const char *e = strchr(p + 3, ')');
                        if (!e) {
                                r = refuse(&t, -EINVAL, p, "missing ')', unterminated comment");
                                goto fail;
                        }
                        p = e + 1;
                        continue; /* a comment is no token: last stays */
                } else if (*p == '(') {
                        if (p[1] == '?') {
                                r = extension_group(&t, &p);
                                if (r < 0)
                                        goto fail;
                        } else
                                p++;
                        strbuf_append(&t.out, "(");
                        depth++;
                        now = NOTHING;
                } else if (*p == ')') {
                        if (!depth) {
                                r = refuse(&t, -EINVAL, p, "unbalanced parenthesis");
                                goto fail;
                        }
                        depth--;
                        strbuf_append(&t.out, ")");
                        p++;
                } else if (*p == '*' || *p == '+' || *p == '?') {
                        r = check_repeatable(&t, p, last);
                        if (r < 0)
                                goto fail;
                        strbuf_appendn(&t.out, p, 1);
                        p++;
                        r = quantifier_suffix(&t, &p);
                        if (r < 0)
                                goto fail;
                        now = REPEAT;
                } else if (*p == '{') {
                        r = brace_quantifier(&t, &p, last);
                        if (r < 0)
                                goto fail;
                        if (r > 0) {
                                r = quantifier_suffix(&t, &p);
                                if (r < 0)
                                        goto fail;
                                now = REPEAT;
                        } else {
                                strbuf_append(&t.out, "\\{");
                                p++;
                        }
                } else if (*p == '}') {
                        strbuf_append(&t.out, "\\}");
                        p++;
                } else {
                        if (*p == '|' || *p == '^' || *p == '$')
                                now = NOTHING;
                        strbuf_appendn(&t.out, p, 1);
                        p++;
                }
                last = now;
        }
        *ret = strbuf_steal(&t.out);
        return 0;
fail:
        strbuf_done(&t.out);
        if (ret_error)
                *ret_error = t.error;
        else
                free(t.error);
        return r;
}

int ht_regex_compile_python(const char *py, regex_t *ret, char **ret_error) {
        _cleanup_free_ char *posix = NULL;
        int r = ht_regex_from_python(py, &posix, ret_error);
        if (r < 0)
                return r;
        int k = regcomp(ret, posix, REG_EXTENDED | REG_NEWLINE | REG_NOSUB);
        if (k != 0) {
                char msg[128];
                regerror(k, ret, msg, sizeof msg);
                if (ret_error)
                        *ret_error = xstrdup(msg);
                return -EINVAL;
        }
        return 0;
}

bool ht_regex_search(const regex_t *re, const char *text) {
        return regexec(re, text ? text : "", 0, NULL, 0) == 0;
}
