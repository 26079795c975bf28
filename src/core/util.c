#include "config.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <malloc.h>
#include <stdio.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

void *xmalloc(size_t n) {
        void *p = malloc(n ? n : 1);
        if (!p)
                abort();
        return p;
}

void *xcalloc(size_t n, size_t m) {
        void *p = calloc(n ? n : 1, m ? m : 1);
        if (!p)
                abort();
        return p;
}

void *xrealloc(void *p, size_t n) {
        p = realloc(p, n ? n : 1);
        if (!p)
                abort();
        return p;
}

char *xstrdup(const char *s) {
        char *p = strdup(s);
        if (!p)
                abort();
        return p;
}

char *xstrndup(const char *s, size_t n) {
        char *p = strndup(s, n);
        if (!p)
                abort();
        return p;
}

/* The length modifiers join_format() takes before d and u: none, l,
 * ll and z (PRId64 and PRIu64 are l on this ABI). */
static size_t int_modifier(const char *p, int *size) {
        if (p[0] == 'l' && p[1] == 'l') {
                *size = 2;
                return 2;
        }
        if (p[0] == 'l' || p[0] == 'z') {
                *size = p[0] == 'z' ? 3 : 1;
                return 1;
        }
        *size = 0;
        return 0;
}

/* join_format()'s output: a buffer on the caller's stack; a string that
 * does not fit sets over, and vasprintf() formats it instead. */
typedef struct {
        char *buf;
        size_t len, cap;
        bool over;
} join_sink;

static void sink_put(join_sink *s, const char *p, size_t n) {
        if (s->over || n >= s->cap - s->len) {
                s->over = true;
                return;
        }
        memcpy(s->buf + s->len, p, n);
        s->len += n;
}

static void append_unsigned(join_sink *s, unsigned long long v, bool negative) {
        char digits[24];
        size_t i = sizeof digits;
        do
                digits[--i] = (char)('0' + v % 10);
        while ((v /= 10) > 0);
        if (negative)
                digits[--i] = '-';
        sink_put(s, digits + i, sizeof digits - i);
}

static void sink_pad(join_sink *s, size_t n) {
        if (s->over || n >= s->cap - s->len) {
                s->over = true;
                return;
        }
        memset(s->buf + s->len, ' ', n);
        s->len += n;
}

/* vfprintf() costs ~800 instructions a call and plan builds ~600 such
 * strings; joining them directly into a buffer on the stack is a fraction
 * of that. It takes %s, %c, %d, %u and %% (d and u with l, ll or z), %*s
 * and %-*s (the columns of limits.conf) and %.*s, the conversions of the
 * labels, keys and lines built on every run. False when the result does
 * not fit the buffer or fmt has another conversion: it stops there,
 * before taking that argument (ap is the caller's copy), and the caller
 * has vasprintf() format it all. */
static bool join_format(join_sink *b, const char *fmt, va_list ap) {
        for (const char *p = fmt; !b->over;) {
                /* the literal text up to the next conversion, copied as it
                 * is scanned: a format's pieces are a few bytes (": ",
                 * "/proc/sys/"), where a strchrnul() and a memcpy() call
                 * each cost more than the bytes */
                const char *pct = p;
                char *d = b->buf + b->len, *lim = b->buf + b->cap - 1;
                while (*pct && *pct != '%' && d < lim)
                        *d++ = *pct++;
                b->len = (size_t)(d - b->buf);
                if (*pct && *pct != '%') {
                        b->over = true;   /* the buffer is full */
                        break;
                }
                if (!*pct)
                        break;
                int size;
                size_t m = int_modifier(pct + 1, &size);
                if (m) {
                        if (pct[1 + m] != 'd' && pct[1 + m] != 'u')
                                return false;
                        bool is_signed = pct[1 + m] == 'd';
                        long long sv = 0;
                        unsigned long long uv = 0;
                        switch (size) {
                        case 1:
                                if (is_signed)
                                        sv = va_arg(ap, long);
                                else
                                        uv = va_arg(ap, unsigned long);
                                break;
                        case 2:
                                if (is_signed)
                                        sv = va_arg(ap, long long);
                                else
                                        uv = va_arg(ap, unsigned long long);
                                break;
                        default:
                                if (is_signed)
                                        sv = va_arg(ap, ssize_t);
                                else
                                        uv = va_arg(ap, size_t);
                        }
                        if (is_signed)
                                append_unsigned(b, sv < 0 ? -(unsigned long long)sv : (unsigned long long)sv,
                                                sv < 0);
                        else
                                append_unsigned(b, uv, false);
                        p = pct + 2 + m;
                        continue;
                }
                if (pct[1] == '.' && pct[2] == '*' && pct[3] == 's') {
                        /* at most a precision's bytes (a root's prefix);
                         * a negative one is none; NULL is vasprintf()'s */
                        int prec = va_arg(ap, int);
                        const char *a = va_arg(ap, const char *);
                        if (!a)
                                return false;
                        sink_put(b, a, prec < 0 ? strlen(a) : strnlen(a, (size_t)prec));
                        p = pct + 4;
                        continue;
                }
                if ((pct[1] == '*' && pct[2] == 's') || (pct[1] == '-' && pct[2] == '*' && pct[3] == 's')) {
                        /* a width from the arguments: a negative one
                         * left-justifies, as the '-' flag does */
                        bool left = pct[1] == '-';
                        long long w = va_arg(ap, int);
                        const char *a = va_arg(ap, const char *);
                        if (!a)
                                a = "(null)";
                        if (w < 0) {
                                left = true;
                                w = -w;
                        }
                        size_t n = strlen(a), pad = (size_t)w > n ? (size_t)w - n : 0;
                        if (!left)
                                sink_pad(b, pad);
                        sink_put(b, a, n);
                        if (left)
                                sink_pad(b, pad);
                        p = pct + (pct[1] == '-' ? 4 : 3);
                        continue;
                }
                switch (pct[1]) {
                case 's': {
                        const char *a = va_arg(ap, const char *);
                        if (!a)
                                a = "(null)";
                        sink_put(b, a, strlen(a));
                        break;
                }
                case 'c': {
                        char c = (char)va_arg(ap, int);
                        sink_put(b, &c, 1);
                        break;
                }
                case 'd': {
                        int v = va_arg(ap, int);
                        append_unsigned(b, v < 0 ? -(unsigned long long)v : (unsigned long long)v, v < 0);
                        break;
                }
                case 'u':
                        append_unsigned(b, va_arg(ap, unsigned), false);
                        break;
                case '%':
                        sink_put(b, "%", 1);
                        break;
                default:   /* another conversion, or a lone '%' at the end */
                        return false;
                }
                p = pct + 2;
        }
        return !b->over;
}

#define JOIN_STACK 512

/* join_format() into buf (JOIN_STACK bytes) from a copy of ap, which the
 * caller keeps for vasprintf(): the length, or -1 when it cannot. */
static ssize_t join_to_stack(char *buf, const char *fmt, va_list ap) {
        return ht_format_join(buf, JOIN_STACK, fmt, ap);
}

ssize_t ht_format_join(char *buf, size_t size, const char *fmt, va_list ap) {
        if (size == 0)
                return -1;   /* not even the NUL's room */
        join_sink b = {buf, 0, size, false};
        va_list aq;
        va_copy(aq, ap);
        bool ok = join_format(&b, fmt, aq);
        va_end(aq);
        return ok ? (ssize_t)b.len : -1;
}

char *xvasprintf(const char *fmt, va_list ap) {
        char stack[JOIN_STACK];
        ssize_t n = join_to_stack(stack, fmt, ap);
        if (n >= 0) {
                char *r = xmalloc((size_t)n + 1);
                memcpy(r, stack, (size_t)n);
                r[n] = 0;
                return r;
        }
        char *p;
        if (vasprintf(&p, fmt, ap) < 0)
                abort();
        return p;
}

char *xasprintf(const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        char *p = xvasprintf(fmt, ap);
        va_end(ap);
        return p;
}

void ht_set_error(char **ret_error, const char *fmt, ...) {
        if (ret_error) {
                va_list ap;
                va_start(ap, fmt);
                *ret_error = xvasprintf(fmt, ap);
                va_end(ap);
        }
}

/* The root context reports a path whose symlinks lead out of --root as
 * EXDEV; "Invalid cross-device link" would tell the user nothing. */
const char *ht_strerror(int err) {
        if (err == EXDEV)
                return "a symlink leads out of the root";
        return strerror(err);
}

int ht_read_fd_eof(int fd, size_t max, size_t size_hint, ht_eof_rule rule, char **ret, size_t *ret_len) {
        /* Every read(2) is a system call, and they cost more than the
         * copying here: one page first (most files read here are a value
         * or a few lines; /proc and /sys files report no size), or the
         * size the caller got from fstat with room for the EOF read, then
         * four times as much each time. A read shorter than asked ends the
         * file where the rule says so; else a read of 0 bytes does. */
        strbuf b = {0};
        if (!size_hint || size_hint >= max) {
                /* most files fit a page: read into the stack, then give
                 * the caller exactly that (a page's malloc and the realloc
                 * back were more instructions than the read) */
                char page[4096];
                size_t have = 0;
                for (;;) {
                        size_t ask = sizeof(page) - 1 - have;
                        if (ask == 0)
                                break;
                        ssize_t n = read(fd, page + have, ask);
                        if (n < 0 && errno == EINTR)
                                continue;
                        if (n < 0)
                                return -errno;
                        if (have + (size_t)n > max)
                                return -EFBIG;
                        have += (size_t)n;
                        if (n == 0 || ((size_t)n < ask && (rule == HT_EOF_SHORT || rule == HT_EOF_SHORT_PAGE))) {
                                char *s = xmalloc(have + 1);
                                memcpy(s, page, have);
                                s[have] = 0;
                                *ret = s;
                                if (ret_len)
                                        *ret_len = have;
                                return 0;
                        }
                }
                /* a page full: on in the heap */
                strbuf_grow(&b, 4 * sizeof(page));
                memcpy(b.data, page, have);
                b.len = have;
        } else
                strbuf_grow(&b, size_hint + 1024);
        for (;;) {
                if (b.cap - b.len - 1 < 1024)
                        strbuf_grow(&b, 3 * b.cap);
                size_t ask = b.cap - b.len - 1;
                ssize_t n = read(fd, b.data + b.len, ask);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n < 0) {
                        int r = -errno;
                        strbuf_done(&b);
                        return r;
                }
                if (n == 0)
                        break;
                if (b.len + (size_t)n > max) {
                        strbuf_done(&b);
                        return -EFBIG;
                }
                b.len += (size_t)n;
                if ((size_t)n < ask &&
                    (rule == HT_EOF_SHORT || (rule == HT_EOF_SHORT_PAGE && ask <= 4096) ||
                     (size_hint && b.len >= size_hint)))
                        break;
        }
        b.data[b.len] = 0;
        if (ret_len)
                *ret_len = b.len;
        /* give back what the file did not fill (in place for malloc) */
        *ret = b.cap - b.len > 1024 ? xrealloc(b.data, b.len + 1) : b.data;
        return 0;
}

int ht_read_fd_hint(int fd, size_t max, size_t size_hint, char **ret, size_t *ret_len) {
        return ht_read_fd_eof(fd, max, size_hint, HT_EOF_READ0, ret, ret_len);
}

int ht_read_fd(int fd, size_t max, char **ret, size_t *ret_len) {
        return ht_read_fd_eof(fd, max, 0, HT_EOF_READ0, ret, ret_len);
}

json_object *ht_strv_to_json(char *const *l) {
        json_object *a = json_object_new_array();
        for (size_t i = 0; l && l[i]; i++)
                json_object_array_add(a, json_object_new_string(l[i]));
        return a;
}

int ht_line_problem(char ***warnings, bool lenient, unsigned line, const char *msg, char **ret_error) {
        if (lenient) {
                strv_pushf(warnings, "%u: %s", line, msg);
                return 0;
        }
        return ht_error(ret_error, -EINVAL, "%u: %s", line, msg);
}

bool startswith(const char *s, const char *prefix) {
        /* byte by byte: most calls differ at the first byte, where
         * strlen() and strncmp() would be two calls for nothing */
        for (; *prefix; s++, prefix++)
                if (*s != *prefix)
                        return false;
        return true;
}

bool endswith(const char *s, const char *suffix) {
        size_t ls = strlen(s), lx = strlen(suffix);
        return ls >= lx && memcmp(s + ls - lx, suffix, lx) == 0;
}

char *strstrip(char *s) {
        while (isspace((unsigned char)*s))
                s++;
        size_t n = strlen(s);
        while (n > 0 && isspace((unsigned char)s[n - 1]))
                s[--n] = 0;
        return s;
}

size_t ht_normalize_ws_into(const char *s, char *out) {
        char *o = out;
        bool space = false;
        while (isspace((unsigned char)*s))
                s++;
        for (; *s; s++) {
                if (isspace((unsigned char)*s)) {
                        space = true;
                        continue;
                }
                if (space && o != out)
                        *o++ = ' ';
                space = false;
                *o++ = *s;
        }
        *o = 0;
        return (size_t)(o - out);
}

char *normalize_ws(const char *s) {
        char *out = xmalloc(strlen(s) + 1);
        ht_normalize_ws_into(s, out);
        return out;
}

static const char *skip_ws(const char *s) {
        while (isspace((unsigned char)*s))
                s++;
        return s;
}

bool ht_ws_equal(const char *a, const char *b) {
        a = skip_ws(a);
        b = skip_ws(b);
        for (;;) {
                bool sa = isspace((unsigned char)*a), sb = isspace((unsigned char)*b);
                if (sa || sb) {
                        /* a run of blanks is one space between words and
                         * nothing at the end */
                        const char *na = skip_ws(a), *nb = skip_ws(b);
                        if (!*na && !*nb)
                                return true;
                        if (!sa || !sb)
                                return false;
                        a = na;
                        b = nb;
                        continue;
                }
                if (*a != *b)
                        return false;
                if (!*a)
                        return true;
                a++, b++;
        }
}

bool has_control_chars(const char *s) {
        /* Every key, value and path passes here: one table load and one
         * test a byte, the NUL at the end stopping the scan as a control
         * byte would. */
        static const bool stop[256] = {
                [0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1, [0x05] = 1, [0x06] = 1, [0x07] = 1,
                [0x08] = 1, [0x0a] = 1, [0x0b] = 1, [0x0c] = 1, [0x0d] = 1, [0x0e] = 1, [0x0f] = 1,
                [0x10] = 1, [0x11] = 1, [0x12] = 1, [0x13] = 1, [0x14] = 1, [0x15] = 1, [0x16] = 1,
                [0x17] = 1, [0x18] = 1, [0x19] = 1, [0x1a] = 1, [0x1b] = 1, [0x1c] = 1, [0x1d] = 1,
                [0x1e] = 1, [0x1f] = 1, [0x7f] = 1,
        };
        const unsigned char *p = (const unsigned char *)s;
        /* four at a time; && reads no byte past the one that stops */
        while (!stop[p[0]] && !stop[p[1]] && !stop[p[2]] && !stop[p[3]])
                p += 4;
        while (!stop[*p])
                p++;
        return *p != 0;
}

size_t strv_length(char *const *l) {
        size_t n = 0;
        while (l && l[n])
                n++;
        return n;
}

void strv_free(char **l) {
        if (!l)
                return;
        for (char **i = l; *i; i++)
                free(*i);
        free(l);
}

void strv_push_take(char ***l, char *s) {
        size_t n = strv_length(*l);
        /* the list's room is what malloc gave it: doubled when full, so
         * n pushes are log n reallocs, not n (each one was a call into
         * malloc's slow path, most lists here are a few dozen names) */
        if (!*l || (n + 2) * sizeof(char *) > malloc_usable_size(*l))
                *l = xrealloc(*l, (n < 2 ? 4 : 2 * (n + 2)) * sizeof(char *));
        (*l)[n] = s;
        (*l)[n + 1] = NULL;
}

void strv_push_counted(char ***l, size_t *n, size_t *cap, const char *s) {
        if (*n + 1 >= *cap) {
                *cap = *cap ? 2 * *cap : 16;
                *l = xrealloc(*l, *cap * sizeof(char *));
        }
        (*l)[(*n)++] = xstrdup(s);
        (*l)[*n] = NULL;
}

void strv_push(char ***l, const char *s) {
        strv_push_take(l, xstrdup(s));
}

void strv_pushf(char ***l, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        strv_push_take(l, xvasprintf(fmt, ap));
        va_end(ap);
}

bool strv_contains(char *const *l, const char *s) {
        for (size_t i = 0; l && l[i]; i++)
                if (streq(l[i], s))
                        return true;
        return false;
}

/* Two passes, so the list is allocated once (files split into lines
 * can have many). */
char **strv_split(const char *s, const char *sep) {
        size_t words = 0;
        for (const char *p = s + strspn(s, sep); *p; p += strspn(p, sep)) {
                words++;
                p += strcspn(p, sep);
        }
        char **l = xcalloc(words + 1, sizeof(char *));
        size_t i = 0;
        for (const char *p = s + strspn(s, sep); *p; p += strspn(p, sep)) {
                size_t n = strcspn(p, sep);
                l[i++] = xstrndup(p, n);
                p += n;
        }
        return l;
}

char *strv_join(char *const *l, const char *sep) {
        strbuf b = {0};
        for (size_t i = 0; l && l[i]; i++) {
                if (i)
                        strbuf_append(&b, sep);
                strbuf_append(&b, l[i]);
        }
        return strbuf_steal(&b);
}

int strv_sort_cmp(const void *a, const void *b) {
        return strcmp(*(char *const *)a, *(char *const *)b);
}

void strv_sort_parallel(char **keys, size_t n, void *const *arrays, const size_t *sizes) {
        for (size_t i = 1; i < n; i++)
                for (size_t j = i; j > 0 && strcmp(keys[j - 1], keys[j]) > 0; j--) {
                        char *t = keys[j];
                        keys[j] = keys[j - 1];
                        keys[j - 1] = t;
                        for (size_t a = 0; arrays && arrays[a]; a++) {
                                unsigned char tmp[64], *e = (unsigned char *)arrays[a] + j * sizes[a];
                                assert(sizes[a] <= sizeof(tmp));
                                memcpy(tmp, e, sizes[a]);
                                memcpy(e, e - sizes[a], sizes[a]);
                                memcpy(e - sizes[a], tmp, sizes[a]);
                        }
                }
}

/* The run of ASCII digits at s when it has 1 to 19 of them (so that it
 * cannot overflow): its value and *end past it. False otherwise, and
 * strtoull() decides (a sign, 20 digits or more). A plan parses some 200
 * numbers, and strtoull() costs ten times this. */
static bool short_digits(const char *s, uint64_t *ret, const char **end) {
        uint64_t v = 0;
        size_t n = 0;
        for (; s[n] >= '0' && s[n] <= '9'; n++) {
                if (n == 19)
                        return false;
                v = v * 10 + (uint64_t)(s[n] - '0');
        }
        if (n == 0)
                return false;
        *ret = v;
        *end = s + n;
        return true;
}

int parse_u64(const char *s, uint64_t *ret) {
        if (!s || !*s || *s == '-' || isspace((unsigned char)*s))
                return -EINVAL;
        uint64_t fast;
        const char *fend;
        if (short_digits(s, &fast, &fend)) {
                if (*fend)
                        return -EINVAL;
                *ret = fast;
                return 0;
        }
        errno = 0;
        char *end;
        unsigned long long v = strtoull(s, &end, 10);
        if (errno == ERANGE)
                return -ERANGE;
        if (errno || end == s || *end)
                return -EINVAL;
        *ret = v;
        return 0;
}

int parse_i64(const char *s, int64_t *ret) {
        if (!s || !*s || isspace((unsigned char)*s))
                return -EINVAL;
        errno = 0;
        char *end;
        long long v = strtoll(s, &end, 10);
        if (errno == ERANGE)
                return -ERANGE;
        if (errno || end == s || *end)
                return -EINVAL;
        *ret = v;
        return 0;
}

bool ht_is_true(const char *s) {
        return s && (streq(s, "1") || strcasecmp(s, "yes") == 0 || strcasecmp(s, "true") == 0);
}

/* Each variable read once while the environment stays as it was: a
 * plan asks about thirty times (a trust check per profile and rules
 * file), and getenv compares every entry each time. What setenv,
 * unsetenv and putenv do shows in environ's array of pointers in O(1):
 * a variable added lengthens it (the slot after the last is no longer
 * NULL) or moves it, one removed shifts the rest down (the last slot
 * changes), one replaced gets a new pointer in its slot (checked for
 * the variables kept). The unit tests change variables between calls. */
extern char **environ;

#define ENV_MEMO_MAX 8
static struct {
        char name[ENV_MEMO_MAX][48];    /* a copy: a caller's may not last */
        size_t slot[ENV_MEMO_MAX];      /* its index in environ, SIZE_MAX: not set */
        char *entry[ENV_MEMO_MAX];      /* what that slot held */
        bool value[ENV_MEMO_MAX];       /* ht_is_true of its value */
        size_t n;
        char **env;                     /* environ when read */
        size_t count;                   /* its entries then */
        char *last;                     /* its last entry then */
} env_memo;

static bool environ_unchanged(void) {
        char **e = environ;
        if (e != env_memo.env)
                return false;
        return !e || (e[env_memo.count] == NULL && (env_memo.count == 0 || e[env_memo.count - 1] == env_memo.last));
}

/* name's slot in environ (SIZE_MAX: not set), as getenv finds it */
static size_t environ_slot(const char *name) {
        size_t n = strlen(name);
        for (size_t i = 0; environ && environ[i]; i++)
                if (strncmp(environ[i], name, n) == 0 && environ[i][n] == '=')
                        return i;
        return SIZE_MAX;
}

bool ht_env_true(const char *name) {
        if (!environ_unchanged()) {
                env_memo.n = 0; /* changed: read afresh */
                env_memo.env = environ;
                env_memo.count = 0;
                while (environ && environ[env_memo.count])
                        env_memo.count++;
                env_memo.last = env_memo.count ? environ[env_memo.count - 1] : NULL;
        }
        size_t i;
        for (i = 0; i < env_memo.n; i++)
                if (streq(env_memo.name[i], name))
                        break;
        if (i == env_memo.n || (env_memo.slot[i] != SIZE_MAX && environ[env_memo.slot[i]] != env_memo.entry[i])) {
                size_t slot = environ_slot(name);
                if (i == env_memo.n) {
                        /* more names than kept, or a long one: asked each time */
                        if (i == ENV_MEMO_MAX || strlen(name) >= sizeof env_memo.name[0])
                                return slot != SIZE_MAX && ht_is_true(environ[slot] + strlen(name) + 1);
                        strcpy(env_memo.name[env_memo.n++], name);
                }
                env_memo.slot[i] = slot;
                env_memo.entry[i] = slot == SIZE_MAX ? NULL : environ[slot];
                env_memo.value[i] = slot != SIZE_MAX && ht_is_true(environ[slot] + strlen(name) + 1);
        }
        return env_memo.value[i];
}

int parse_size_bytes(const char *s, uint64_t *ret) {
        if (!s)
                return -EINVAL;
        while (isspace((unsigned char)*s))
                s++;
        if (!isdigit((unsigned char)*s))
                return -EINVAL;
        uint64_t v;
        const char *end;
        if (!short_digits(s, &v, &end)) {
                char *e;
                errno = 0;
                v = strtoull(s, &e, 10);
                if (errno == ERANGE)
                        return -ERANGE;
                end = e;
        }
        while (isspace((unsigned char)*end))
                end++;
        uint64_t mult = 1;
        switch (toupper((unsigned char)*end)) {
        case 0: break;
        case 'K': mult = UINT64_C(1) << 10; break;
        case 'M': mult = UINT64_C(1) << 20; break;
        case 'G': mult = UINT64_C(1) << 30; break;
        case 'T': mult = UINT64_C(1) << 40; break;
        case 'B': mult = 1; break;
        default: return -EINVAL;
        }
        if (*end) {
                const char *suffix = end + 1;
                /* accept "kB", "KiB", "KB" after the letter */
                if (toupper((unsigned char)*end) != 'B') {
                        if (*suffix == 'i')
                                suffix++;
                        if (*suffix == 'B' || *suffix == 'b')
                                suffix++;
                }
                while (isspace((unsigned char)*suffix))
                        suffix++;
                if (*suffix)
                        return -EINVAL;
        }
        if (v > UINT64_MAX / mult)
                return -ERANGE;
        *ret = v * mult;
        return 0;
}

int ht_version_compare(const char *a, const char *b) {
        for (;;) {
                while (*a && !isalnum((unsigned char)*a))
                        a++;
                while (*b && !isalnum((unsigned char)*b))
                        b++;
                if (!*a || !*b)
                        return (*a != 0) - (*b != 0);

                bool da = isdigit((unsigned char)*a), db = isdigit((unsigned char)*b);
                if (da != db)
                        return da ? 1 : -1;

                const char *ea = a, *eb = b;
                if (da) {
                        /* Compare digit runs as numbers of any length. */
                        while (*a == '0')
                                a++;
                        while (*b == '0')
                                b++;
                        for (ea = a; isdigit((unsigned char)*ea); ea++)
                                ;
                        for (eb = b; isdigit((unsigned char)*eb); eb++)
                                ;
                        if (ea - a != eb - b)
                                return ea - a > eb - b ? 1 : -1;
                } else {
                        for (; isalpha((unsigned char)*ea); ea++)
                                ;
                        for (; isalpha((unsigned char)*eb); eb++)
                                ;
                }
                size_t la = (size_t)(ea - a), lb = (size_t)(eb - b);
                int c = memcmp(a, b, la < lb ? la : lb);
                if (c != 0)
                        return c > 0 ? 1 : -1;
                if (la != lb)
                        return la > lb ? 1 : -1;
                a = ea;
                b = eb;
        }
}

size_t edit_distance(const char *a, const char *b) {
        size_t la = strlen(a), lb = strlen(b);
        size_t *row = xcalloc(lb + 1, sizeof(size_t));
        for (size_t j = 0; j <= lb; j++)
                row[j] = j;
        for (size_t i = 1; i <= la; i++) {
                size_t diag = row[0];
                row[0] = i;
                for (size_t j = 1; j <= lb; j++) {
                        size_t up = row[j];
                        size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
                        size_t best = diag + cost;
                        if (row[j] + 1 < best)
                                best = row[j] + 1;
                        if (row[j - 1] + 1 < best)
                                best = row[j - 1] + 1;
                        row[j] = best;
                        diag = up;
                }
        }
        size_t d = row[lb];
        free(row);
        return d;
}

const char *closest_word(const char *word, char *const *candidates) {
        const char *best = NULL;
        size_t best_d = SIZE_MAX;
        for (size_t i = 0; candidates && candidates[i]; i++) {
                size_t d = edit_distance(word, candidates[i]);
                if (d < best_d) {
                        best_d = d;
                        best = candidates[i];
                }
        }
        /* Only suggest when the typo is small relative to the word. */
        size_t limit = strlen(word) / 3 + 1;
        return best_d <= limit ? best : NULL;
}

void strbuf_grow(strbuf *b, size_t extra) {
        if (b->len + extra + 1 <= b->cap)
                return;
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + extra + 1)
                cap *= 2;
        b->data = xrealloc(b->data, cap);
        b->cap = cap;
}

void strbuf_appendn(strbuf *b, const char *s, size_t n) {
        strbuf_grow(b, n);
        memcpy(b->data + b->len, s, n);
        b->len += n;
        b->data[b->len] = 0;
}

void strbuf_append(strbuf *b, const char *s) {
        strbuf_appendn(b, s, strlen(s));
}

void ht_shell_word_append(strbuf *b, const char *word) {
        static const char plain[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=.,:/@%";
        size_t n = strlen(word);
        /* an empty word is '' (n == 0 falls through to the quotes) */
        if (n && strspn(word, plain) == n) {
                strbuf_append(b, word);
                return;
        }
        bool ctl = false;
        for (const char *p = word; *p && !ctl; p++)
                ctl = (unsigned char)*p < 0x20 || *p == 0x7f;
        if (!ctl) {
                strbuf_append(b, "'");
                for (const char *p = word; *p; p++) {
                        if (*p == '\'')
                                strbuf_append(b, "'\\''");
                        else
                                strbuf_appendn(b, p, 1);
                }
                strbuf_append(b, "'");
                return;
        }
        /* $'...' (bash, zsh, ksh, and POSIX.1-2024's dollar-single-quotes) */
        strbuf_append(b, "$'");
        for (const char *p = word; *p; p++) {
                unsigned char u = (unsigned char)*p;
                if (u < 0x20 || u == 0x7f)
                        strbuf_appendf(b, "\\x%02x", u);
                else if (u == '\'' || u == '\\')
                        strbuf_appendf(b, "\\%c", u);
                else
                        strbuf_appendn(b, p, 1);
        }
        strbuf_append(b, "'");
}

char *ht_shell_join(char *const *argv) {
        strbuf b = {0};
        for (size_t i = 0; argv && argv[i]; i++) {
                if (i)
                        strbuf_append(&b, " ");
                ht_shell_word_append(&b, argv[i]);
        }
        return b.data ? strbuf_steal(&b) : xstrdup("");
}

void strbuf_appendf(strbuf *b, const char *fmt, ...) {
        /* joined on the stack and copied in: no string of its own */
        char stack[JOIN_STACK];
        va_list ap;
        va_start(ap, fmt);
        ssize_t n = join_to_stack(stack, fmt, ap);
        if (n >= 0)
                strbuf_appendn(b, stack, (size_t)n);
        else {
                char *s = xvasprintf(fmt, ap);
                strbuf_append(b, s);
                free(s);
        }
        va_end(ap);
}

char *strbuf_steal(strbuf *b) {
        char *s = b->data ? b->data : xstrdup("");
        *b = (strbuf){0};
        return s;
}

void strbuf_done(strbuf *b) {
        free(b->data);
        *b = (strbuf){0};
}

bool ht_word_chars(const char *s, const char *extra) {
        for (const char *p = s; *p; p++)
                if (!isalnum((unsigned char)*p) && !strchr(extra, *p))
                        return false;
        return true;
}

size_t ht_utf8_len(const unsigned char *p) {
        size_t n;
        if (*p < 0x80)
                return 1;
        if ((*p & 0xe0) == 0xc0 && *p >= 0xc2)
                n = 1;
        else if ((*p & 0xf0) == 0xe0)
                n = 2;
        else if ((*p & 0xf8) == 0xf0 && *p <= 0xf4)
                n = 3;
        else
                return 0;
        for (size_t i = 1; i <= n; i++)
                if ((p[i] & 0xc0) != 0x80)
                        return 0;
        /* overlong three- and four-byte forms, UTF-16 surrogates and code
         * points past U+10FFFF, which strict decoders (Python's, Go's)
         * refuse (RFC 3629, section 4) */
        if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) || (p[0] == 0xf0 && p[1] < 0x90) ||
            (p[0] == 0xf4 && p[1] >= 0x90))
                return 0;
        return n + 1;
}

/* Well-formed UTF-8 (ht_utf8_len): text a terminal shows as it is and
 * a JSON decoder takes. */
bool ht_valid_utf8(const char *s) {
        const unsigned char *p = (const unsigned char *)s;
        while (*p) {
                size_t n = ht_utf8_len(p);
                if (!n)
                        return false;
                p += n;
        }
        return true;
}

void ht_text_sanitize(char *s, bool multiline) {
        unsigned char *in = (unsigned char *)s, *out = in;
        for (;;) {
                /* printable ASCII, nearly all of a plan's text: skipped
                 * with one compare a byte and nothing written while
                 * nothing was replaced (then moved down) */
                if (out == in) {
                        while ((unsigned char)(*in - 0x20) < 0x5f)
                                in++;
                        out = in;
                } else
                        while ((unsigned char)(*in - 0x20) < 0x5f)
                                *out++ = *in++;
                if (!*in)
                        break;
                /* a newline where lines are wanted (every line of a diff),
                 * then back to the run above */
                if (*in == '\n' && multiline) {
                        *out++ = *in++;
                        continue;
                }
                size_t n = ht_utf8_len(in);
                /* C0 controls but tab (and newline where lines are
                 * wanted), DEL, and C1 controls, U+0080..U+009F, which
                 * a terminal may take for ESC-sequences (0xc2 0x9b is
                 * CSI); a byte that is no UTF-8 (a lone 0x9b is CSI to a
                 * terminal in an 8-bit locale) */
                bool bad = n == 0 || (n == 1 && ((*in < 0x20 && *in != '\t') || *in == 0x7f)) ||
                           (n == 2 && in[0] == 0xc2 && in[1] < 0xa0);
                if (bad) {
                        *out++ = '?';
                        in += n ? n : 1;
                        continue;
                }
                memmove(out, in, n);
                out += n;
                in += n;
        }
        *out = 0;
}

char *ht_text_safe(const char *s) {
        char *r = xstrdup(s ? s : "");
        ht_text_sanitize(r, false);
        return r;
}

void ht_text_write_safe(FILE *out, const char *s, bool multiline) {
        if (!s)
                return;
        /* ht_text_sanitize() leaves printable ASCII as it is and looks at
         * no byte before the one it replaces: the run up to the first
         * other byte goes out as it is */
        const char *p = s;
        while ((unsigned char)(*p - 0x20) < 0x5f)
                p++;
        fwrite_unlocked(s, 1, (size_t)(p - s), out);
        if (!*p)
                return;
        char stack[512];
        size_t n = strlen(p);
        char *t = n < sizeof(stack) ? stack : xmalloc(n + 1);
        memcpy(t, p, n + 1);
        ht_text_sanitize(t, multiline);
        fputs_unlocked(t, out);
        if (t != stack)
                free(t);
}

int64_t ht_parse_iso_time(const char *s) {
        struct tm tm = {0};
        const char *end = s ? strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm) : NULL;
        if (!end || *end)
                return -1;
        time_t t = timegm(&tm);
        return t == (time_t)-1 ? -1 : (int64_t)t;
}
