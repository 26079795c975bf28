/* Oracle parameter files (format-oracle.h).
 *
 * pfile syntax, Oracle Database Reference, "Initialization Parameter
 * Files" and "Rules Governing Initialization Parameter Files": one
 * "name = value" a line, "#" starts a comment, strings in single or
 * double quotes, several values as "(a, b)" or "a, b", a line may go on
 * after a trailing backslash (and a list inside parentheses across
 * lines), names are not case sensitive, "SID.name" and "*.name" scope a
 * value to one instance or all (an SID-specific value overrides "*."
 * whatever the order: "Oracle Real Application Clusters Administration",
 * "Setting Server Parameter File Parameter Values").
 *
 * spfile layout. Oracle documents none; this is read from a real 12.1
 * spfile (the sample in RedHatInsights/insights-core,
 * insights/parsers/tests/test_oracle.py, whose text parameters are cut by
 * block headers, e.g. "*.dispatchers='(PROTOCOL=TCP) (SE" + header +
 * "RVICE=perftestXDB)'") and Oracle's generic block format (kcbh):
 *   512-byte blocks; block 0 is the file header, no parameters;
 *   each block: byte 0 block type, byte 1 0x22 (the format of a 512-byte
 *   block), bytes 4-7 the block number (little endian on x86), byte 14 a
 *   sequence, byte 15 flags, bytes 16-17 a checksum, 18-19 spare: the
 *   text starts at byte 20;
 *   the last 4 bytes are the block tail: sequence, type, and the low 16
 *   bits of an SCN (0), so the tail's second byte repeats byte 0;
 *   the parameter text runs on from block to block (a line may span a
 *   boundary) and ends with NUL padding; later blocks are empty.
 * The parser checks the format byte, the block numbers and the tail's
 * type, so a file laid out otherwise is refused with a reason rather
 * than read as garbage; it does not check the checksum. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "format-oracle.h"
#include "util.h"

#define SPF_HEADER 20u
#define SPF_TAIL 4u
#define SPF_FORMAT 0x22
/* One logical line (with its continuations) longer than this is junk. */
#define MAX_LOGICAL (64u << 10)

static uint32_t le32(const unsigned char *p) {
        return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int check_block(const unsigned char *b, size_t idx, char **ret_error) {
        if (b[1] != SPF_FORMAT)
                return ht_error(ret_error, -EINVAL, "block %zu: format byte 0x%02x, not 0x22 (a 512-byte spfile block)",
                                idx, b[1]);
        if (le32(b + 4) != idx)
                return ht_error(ret_error, -EINVAL, "block %zu: it says it is block %u", idx, (unsigned)le32(b + 4));
        if (b[HT_ORA_SPFILE_BLOCK - 3] != b[0])
                return ht_error(ret_error, -EINVAL, "block %zu: the tail (type 0x%02x) does not match the header "
                                "(type 0x%02x): a torn or foreign block", idx,
                                b[HT_ORA_SPFILE_BLOCK - 3], b[0]);
        return 0;
}

bool ht_ora_is_spfile(const char *buf, size_t len) {
        const unsigned char *b = (const unsigned char *)buf;
        return len >= 2 * HT_ORA_SPFILE_BLOCK && b[1] == SPF_FORMAT && le32(b + 4) == 0 &&
               b[HT_ORA_SPFILE_BLOCK - 3] == b[0];
}

int ht_ora_spfile_text(const char *buf, size_t len, char **ret_text, size_t *ret_len, char **ret_error) {
        if (len < 2 * HT_ORA_SPFILE_BLOCK || len % HT_ORA_SPFILE_BLOCK != 0)
                return ht_error(ret_error, -EINVAL,
                                "%zu bytes: not a whole number of 512-byte blocks, at least two", len);
        if (len > HT_ORA_MAX_FILE)
                return ht_error(ret_error, -EFBIG, "%zu bytes: too big for a parameter file", len);
        const unsigned char *b = (const unsigned char *)buf;
        char *e = NULL;
        if (check_block(b, 0, &e) < 0) {
                *ret_error = e;
                return -EINVAL;
        }
        strbuf text = {0};
        bool ended = false;
        for (size_t i = 1; i < len / HT_ORA_SPFILE_BLOCK && !ended; i++) {
                const unsigned char *blk = b + i * HT_ORA_SPFILE_BLOCK;
                if (check_block(blk, i, &e) < 0) {
                        strbuf_done(&text);
                        *ret_error = e;
                        return -EINVAL;
                }
                const char *area = (const char *)blk + SPF_HEADER;
                size_t n = HT_ORA_SPFILE_BLOCK - SPF_HEADER - SPF_TAIL;
                size_t used = strnlen(area, n);
                strbuf_appendn(&text, area, used);
                ended = used < n;
        }
        *ret_len = text.len;
        *ret_text = text.data ? strbuf_steal(&text) : xstrdup("");
        return 0;
}

int ht_ora_parse_size(const char *s, uint64_t *ret) {
        /* digits and at most one of K, M, G (T since 12c's larger SGAs);
         * no spaces, no "KB" */
        size_t d = strspn(s, "0123456789");
        if (d == 0 || d > 19)
                return -EINVAL;
        if (s[d] && (!strchr("kKmMgGtT", s[d]) || s[d + 1]))
                return -EINVAL;
        uint64_t v;
        if (parse_size_bytes(s, &v) < 0)
                return -EINVAL;
        *ret = v;
        return 0;
}

static void warn(ht_ora_pfile *p, const char *where, unsigned line, const char *msg) {
        strv_pushf(&p->warnings, "%s:%u: %s", where, line, msg);
}

static bool name_char(char ch) {
        return isalnum((unsigned char)ch) || ch == '_' || ch == '$' || ch == '#' || ch == '+' || ch == '-';
}

/* One logical line: "[scope.]name = value[, value]...". */
static void parse_logical(ht_ora_pfile *p, char *l, unsigned line, const char *where) {
        char *s = l;
        while (isspace((unsigned char)*s))
                s++;
        if (!*s)
                return;
        char *eq = strchr(s, '=');
        if (!eq) {
                warn(p, where, line, "not \"name = value\": skipped");
                return;
        }
        char *key_end = eq;
        while (key_end > s && isspace((unsigned char)key_end[-1]))
                key_end--;
        _cleanup_free_ char *key = xstrndup(s, key_end - s);
        char *dot = strchr(key, '.');
        const char *sid = "*", *name = key;
        if (dot) {
                *dot = 0;
                sid = key;
                name = dot + 1;
        }
        bool ok = *name && *sid;
        for (const char *q = name; *q && ok; q++)
                ok = name_char(*q);
        for (const char *q = sid; *q && ok && !streq(sid, "*"); q++)
                ok = name_char(*q);
        if (!ok) {
                warn(p, where, line, "not a parameter name: skipped");
                return;
        }
        /* the value: quoted strings, bare words, "(", ")" and "," */
        strbuf v = {0};
        bool bad = false;
        for (char *q = eq + 1; *q && !bad;) {
                if (isspace((unsigned char)*q) || *q == '(' || *q == ')') {
                        q++;
                        continue;
                }
                if (*q == ',') {
                        strbuf_append(&v, ",");
                        q++;
                        continue;
                }
                if (*q == '\'' || *q == '"') {
                        char quote = *q++;
                        char *end = strchr(q, quote);
                        if (!end) {
                                bad = true;
                                break;
                        }
                        strbuf_appendn(&v, q, end - q);
                        q = end + 1;
                        continue;
                }
                size_t n = strcspn(q, " \t\r\n,()'\"");
                strbuf_appendn(&v, q, n);
                q += n;
        }
        if (bad) {
                strbuf_done(&v);
                warn(p, where, line, "a quoted value does not end: skipped");
                return;
        }
        for (char *q = (char *)name; *q; q++)
                *q = (char)tolower((unsigned char)*q);
        if (streq(name, "ifile") && v.data && strchr(v.data, ',')) {
                /* one file an IFILE line; a list is not Oracle's syntax */
                strbuf_done(&v);
                warn(p, where, line, "IFILE names several files: skipped");
                return;
        }
        p->params = xrealloc(p->params, (p->n_params + 1) * sizeof(*p->params));
        p->params[p->n_params++] = (ht_ora_param){
                .sid = xstrdup(sid),
                .name = xstrdup(name),
                .value = v.data ? strbuf_steal(&v) : xstrdup(""),
                .line = line,
        };
}

void ht_ora_parse_text(const char *buf, size_t len, const char *where, ht_ora_pfile *ret) {
        ht_ora_pfile p = {0};
        strbuf cur = {0};
        unsigned line = 1, start = 1;
        int depth = 0;
        char quote = 0;
        bool junk = false;
        for (size_t i = 0; i <= len; i++) {
                char ch = i < len ? buf[i] : '\n';
                if (ch == 0) {
                        if (!junk)
                                warn(&p, where, line, "a NUL byte: the rest of the line is skipped");
                        junk = true;
                        continue;
                }
                if (ch != '\n') {
                        if (junk)
                                continue;
                        if (quote) {
                                if (ch == quote)
                                        quote = 0;
                        } else if (ch == '\'' || ch == '"')
                                quote = ch;
                        else if (ch == '#') {
                                /* a comment runs to the end of the line */
                                while (i + 1 < len && buf[i + 1] != '\n')
                                        i++;
                                continue;
                        } else if (ch == '(')
                                depth++;
                        else if (ch == ')' && depth > 0)
                                depth--;
                        if (cur.len < MAX_LOGICAL)
                                strbuf_appendn(&cur, &ch, 1);
                        else if (!junk) {
                                warn(&p, where, start, "a line longer than 64 KB: skipped");
                                junk = true;
                        }
                        continue;
                }
                /* end of a physical line: a trailing backslash or an open
                 * parenthesis carries the parameter on to the next */
                size_t n = cur.len;
                while (n > 0 && isspace((unsigned char)cur.data[n - 1]))
                        n--;
                bool cont = false;
                if (!junk && !quote && i < len) {
                        if (n > 0 && cur.data[n - 1] == '\\') {
                                cur.data[n - 1] = ' ';
                                cont = true;
                        } else if (depth > 0)
                                cont = true;
                }
                line++;
                if (cont) {
                        strbuf_append(&cur, " ");
                        continue;
                }
                if (!junk && cur.data)
                        parse_logical(&p, cur.data, start, where);
                strbuf_done(&cur);
                cur = (strbuf){0};
                junk = false;
                quote = 0;
                depth = 0;
                start = line;
        }
        strbuf_done(&cur);
        *ret = p;
}

void ht_ora_pfile_done(ht_ora_pfile *p) {
        for (size_t i = 0; i < p->n_params; i++) {
                free(p->params[i].sid);
                free(p->params[i].name);
                free(p->params[i].value);
        }
        free(p->params);
        strv_free(p->warnings);
        *p = (ht_ora_pfile){0};
}

const char *ht_ora_lookup(const ht_ora_pfile *p, const char *sid, const char *name) {
        const char *all = NULL, *mine = NULL;
        for (size_t i = 0; i < p->n_params; i++) {
                const ht_ora_param *q = &p->params[i];
                if (!streq(q->name, name))
                        continue;
                if (streq(q->sid, "*"))
                        all = q->value;
                else if (sid && strcasecmp(q->sid, sid) == 0)
                        mine = q->value;
        }
        return mine ? mine : all;
}
