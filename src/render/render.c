#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <string.h>
#include <unistd.h>

#include "render.h"
#include "util.h"

bool ht_use_color(const ht_context *c, int fd) {
        /* An explicit --color=always or never wins over the environment
         * (no-color.org lets a command-line option override NO_COLOR);
         * NO_COLOR and TERM=dumb only change what auto decides. */
        switch (c->color) {
        case HT_COLOR_ALWAYS:
                return true;
        case HT_COLOR_NEVER:
                return false;
        default:
                break;
        }
        /* NO_COLOR: any non-empty value, as the convention says */
        const char *nc = getenv("NO_COLOR");
        if (nc && *nc)
                return false;
        const char *term = getenv("TERM");
        if (term && streq(term, "dumb"))
                return false;
        bool tty = isatty(fd);
        /* stdio would find stdout's buffering on its first write with an
         * fstat and, on a character device, the same isatty again: given
         * a buffer now (before anything is written to it), it asks
         * neither. Line-buffered on a terminal, as stdio makes it. */
        static char out_buf[BUFSIZ];
        if (fd == STDOUT_FILENO && __fbufsize(stdout) == 0)
                setvbuf(stdout, out_buf, tty ? _IOLBF : _IOFBF, sizeof out_buf);
        return tty;
}

static bool json_document_printed;

/* s, with each byte that does not start a well-formed UTF-8 sequence
 * written as U+FFFD. json-c copies a string's bytes as they are, and a
 * value or file name read from the host (a sysctl.d line, a process name)
 * need not be UTF-8, which a JSON text must be (RFC 8259, section 8.1):
 * Python's json.load refuses it, jq and JavaScript mangle it. JSON's
 * syntax is ASCII, so only the contents of strings can change. */
static void put_utf8(FILE *out, const char *s) {
        /* nearly every document is ASCII: eight bytes at a time for a high
         * bit, then one write (a byte loop cost 7 instructions a byte, 4 %
         * of a plan --json) */
        size_t len = strlen(s), i = 0;
        for (uint64_t w; i + 8 <= len; i += 8) {
                memcpy(&w, s + i, 8);
                if (w & UINT64_C(0x8080808080808080))
                        break;
        }
        while (i < len && (unsigned char)s[i] < 0x80)
                i++;
        fwrite(s, 1, i, out);
        const unsigned char *p = (const unsigned char *)s + i, *run = p;
        while (*p) {
                size_t n = *p < 0x80 ? 1 : ht_utf8_len(p);
                if (n) {
                        p += n;
                        continue;
                }
                fwrite(run, 1, (size_t)(p - run), out);
                fputs("\xef\xbf\xbd", out);
                run = ++p;
        }
        fwrite(run, 1, (size_t)(p - run), out);
}

void ht_print_json(FILE *out, json_object *o) {
        /* Every command's document goes through here, so schema_version
         * is added in this one place, first, where `head` shows it. */
        json_object *doc = o;
        if (json_object_is_type(o, json_type_object)) {
                doc = json_object_new_object();
                json_object_object_add(doc, "schema_version", json_object_new_string(HT_JSON_SCHEMA_VERSION));
                json_object_object_foreach(o, k, v) {
                        if (!streq(k, "schema_version"))
                                json_object_object_add(doc, k, json_object_get(v));
                }
        }
        put_utf8(out, json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                                                                  JSON_C_TO_STRING_NOSLASHESCAPE));
        fputc('\n', out);
        if (doc != o)
                json_object_put(doc);
        json_document_printed = true;
}

bool ht_json_document_printed(void) {
        return json_document_printed;
}

typedef struct {
        char **keys;
        char **values;
        size_t width;
} flat_lines;

static char *scalar_text(json_object *v) {
        switch (json_object_get_type(v)) {
        case json_type_null:
                return xstrdup("unknown");
        case json_type_boolean:
                return xstrdup(json_object_get_boolean(v) ? "yes" : "no");
        case json_type_string:
                return xstrdup(json_object_get_string(v));
        default:
                return xstrdup(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
        }
}

static bool array_is_scalar(json_object *a) {
        size_t n = json_object_array_length(a);
        for (size_t i = 0; i < n; i++) {
                json_type t = json_object_get_type(json_object_array_get_idx(a, i));
                if (t == json_type_object || t == json_type_array)
                        return false;
        }
        return true;
}

static void flatten(flat_lines *fl, const char *prefix, json_object *o) {
        if (json_object_get_type(o) == json_type_object) {
                json_object_object_foreach(o, k, v) {
                        char *name = prefix ? xasprintf("%s.%s", prefix, k) : xstrdup(k);
                        flatten(fl, name, v);
                        free(name);
                }
                return;
        }
        if (json_object_get_type(o) == json_type_array && !array_is_scalar(o)) {
                size_t n = json_object_array_length(o);
                for (size_t i = 0; i < n; i++) {
                        char *name = xasprintf("%s[%zu]", prefix, i);
                        flatten(fl, name, json_object_array_get_idx(o, i));
                        free(name);
                }
                return;
        }
        char *value;
        if (json_object_get_type(o) == json_type_array) {
                size_t n = json_object_array_length(o);
                strbuf b = {0};
                for (size_t i = 0; i < n; i++) {
                        char *s = scalar_text(json_object_array_get_idx(o, i));
                        strbuf_appendf(&b, "%s%s", i ? ", " : "", s);
                        free(s);
                }
                value = n ? strbuf_steal(&b) : xstrdup("(none)");
        } else
                value = scalar_text(o);
        const char *nl = strchr(value, '\n');
        if (nl) {
                /* one line a fact (cpu.cpuinfo is hundreds): the first, and a count */
                size_t more = 0;
                for (const char *p = nl; *p; p++)
                        more += *p == '\n';
                char *shortened = xasprintf("%.*s ... (%zu more line%s in --json)", (int)(nl - value), value, more,
                                            more == 1 ? "" : "s");
                free(value);
                value = shortened;
        }
        strv_push(&fl->keys, prefix);
        strv_push_take(&fl->values, value);
        if (strlen(prefix) > fl->width)
                fl->width = strlen(prefix);
}

void ht_print_flat(FILE *out, json_object *o, const char *skip_key) {
        flat_lines fl = {0};
        json_object_object_foreach(o, k, v) {
                if (skip_key && streq(k, skip_key))
                        continue;
                flatten(&fl, k, v);
        }
        /* values come from files and processes other users control */
        for (size_t i = 0; fl.keys && fl.keys[i]; i++) {
                ht_text_sanitize(fl.keys[i], false);
                ht_text_sanitize(fl.values[i], false);
                fprintf(out, "%-*s  %s\n", (int)fl.width, fl.keys[i], fl.values[i]);
        }
        strv_free(fl.keys);
        strv_free(fl.values);
}
