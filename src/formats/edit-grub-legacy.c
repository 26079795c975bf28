/* Legacy GRUB menu files. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "edit-grub-legacy.h"
#include "util.h"

static bool is_blank(char c) {
        return c == ' ' || c == '\t' || c == '\r';
}

void ht_grub_legacy_conf_free(ht_grub_legacy_conf *c) {
        if (!c)
                return;
        for (size_t i = 0; i < c->n_entries; i++) {
                free(c->entries[i].title);
                free(c->entries[i].kernel);
                free(c->entries[i].linux_kernel);
        }
        free(c->entries);
        free(c);
}

static bool parse_int(const char *s, size_t n, int *ret) {
        int v = 0;
        if (n == 0 || n > 6)
                return false;
        for (size_t i = 0; i < n; i++) {
                if (!isdigit((unsigned char)s[i]))
                        return false;
                v = v * 10 + (s[i] - '0');
        }
        *ret = v;
        return true;
}

/* The image path on a kernel or module line: the first word not starting
 * with "--" (options such as --type=netbsd); *after points past it. */
static char *image_path(const char *s, size_t start, size_t end, size_t *after, bool *ret_typed) {
        size_t p = start;
        *ret_typed = false;
        for (;;) {
                while (p < end && is_blank(s[p]))
                        p++;
                size_t ws = p;
                while (p < end && !is_blank(s[p]))
                        p++;
                if (ws == p) {
                        *after = p;
                        return NULL;
                }
                if (p - ws >= 2 && s[ws] == '-' && s[ws + 1] == '-') {
                        /* --type=netbsd, freebsd, openbsd, multiboot:
                         * not Linux; linux and biglinux are (GRUB 0.97
                         * stage2/builtins.c, kernel_func) */
                        if (p - ws > 7 && memcmp(s + ws, "--type=", 7) == 0 &&
                            !(p - ws == 12 && memcmp(s + ws + 7, "linux", 5) == 0) &&
                            !(p - ws == 15 && memcmp(s + ws + 7, "biglinux", 8) == 0))
                                *ret_typed = true;
                        continue;
                }
                *after = p;
                return xstrndup(s + ws, p - ws);
        }
}

/* Memtest86+ (memtest86+-1.65, elf-memtest86+-4.10 as the memtest86+
 * package installs it) takes no Linux arguments. Any other image is taken
 * for Linux: a kernel someone built and named is still edited. */
static bool is_linux_image(const char *path) {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        return !strstr(base, "memtest");
}

static bool is_xen_image(const char *path) {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        return startswith(base, "xen");
}

int ht_grub_legacy_parse(const char *content, size_t len, ht_grub_legacy_conf **ret, char **ret_error) {
        ht_grub_legacy_conf *c = xcalloc(1, sizeof(*c));
        c->timeout = -1;
        size_t pos = 0;
        unsigned line = 0;
        ht_grub_legacy_entry *cur = NULL;
        bool module_seen = false;

        while (pos < len) {
                const char *nl = memchr(content + pos, '\n', len - pos);
                size_t end = nl ? (size_t)(nl - content) : len;
                size_t next = nl ? end + 1 : len;
                line++;
                for (size_t i = pos; i < end; i++) {
                        unsigned char ch = content[i];
                        if ((ch < 0x20 && ch != '\t' && ch != '\r') || ch == 0x7f) {
                                *ret_error = xasprintf("%u: %s", line, ch ? "control character" : "NUL byte");
                                goto fail;
                        }
                }
                while (end > pos && is_blank(content[end - 1]))
                        end--;
                size_t p = pos;
                while (p < end && is_blank(content[p]))
                        p++;
                if (p >= end || content[p] == '#') {
                        pos = next;
                        continue;
                }
                size_t cs = p;
                while (p < end && !is_blank(content[p]) && content[p] != '=')
                        p++;
                _cleanup_free_ char *cmd = xstrndup(content + cs, p - cs);
                /* GRUB legacy takes blanks or '=' between command and argument. */
                while (p < end && is_blank(content[p]))
                        p++;
                if (p < end && content[p] == '=')
                        p++;
                while (p < end && is_blank(content[p]))
                        p++;
                size_t as = p;

                if (streq(cmd, "default")) {
                        c->default_line = line;
                        c->default_value_start = as;
                        c->default_value_end = end;
                        if (end - as == 5 && memcmp(content + as, "saved", 5) == 0)
                                c->default_entry = -1;
                        else if (!parse_int(content + as, end - as, &c->default_entry)) {
                                *ret_error = xasprintf("%u: default is not a number", line);
                                goto fail;
                        }
                } else if (streq(cmd, "timeout")) {
                        if (!parse_int(content + as, end - as, &c->timeout)) {
                                *ret_error = xasprintf("%u: timeout is not a number", line);
                                goto fail;
                        }
                } else if (streq(cmd, "title")) {
                        c->entries = xrealloc(c->entries, (c->n_entries + 1) * sizeof(ht_grub_legacy_entry));
                        cur = &c->entries[c->n_entries++];
                        *cur = (ht_grub_legacy_entry){
                                .title = xstrndup(content + as, end - as),
                                .title_line = line,
                        };
                        module_seen = false;
                } else if (streq(cmd, "kernel") || streq(cmd, "module")) {
                        if (!cur) {
                                *ret_error = xasprintf("%u: %s outside a title block", line, cmd);
                                goto fail;
                        }
                        size_t after;
                        bool typed;
                        char *path = image_path(content, as, end, &after, &typed);
                        if (!path) {
                                *ret_error = xasprintf("%u: %s without an image", line, cmd);
                                goto fail;
                        }
                        if (streq(cmd, "kernel")) {
                                free(cur->kernel);
                                free(cur->linux_kernel);
                                cur->kernel = path;
                                cur->kernel_line = line;
                                cur->linux_kernel = xstrdup(path);
                                cur->linux_line = line;
                                cur->linux_args_start = after;
                                cur->linux_args_end = end;
                                cur->xen = false;
                                cur->linux_image = !typed && is_linux_image(path);
                                module_seen = false;
                        } else if (!module_seen && cur->kernel && is_xen_image(cur->kernel)) {
                                /* The first module of a Xen entry is the Linux kernel. */
                                cur->xen = true;
                                cur->xen_args_start = cur->linux_args_start;
                                cur->xen_args_end = cur->linux_args_end;
                                free(cur->linux_kernel);
                                cur->linux_kernel = path;
                                cur->linux_line = line;
                                cur->linux_args_start = after;
                                cur->linux_args_end = end;
                                cur->linux_image = is_linux_image(path);
                                module_seen = true;
                        } else {
                                free(path);
                                module_seen = true;
                        }
                }
                pos = next;
        }
        *ret = c;
        return 0;
fail:
        ht_grub_legacy_conf_free(c);
        return -EINVAL;
}

typedef struct {
        size_t start, end;
        char *text;
        size_t text_len;
} replacement;

static int cmp_repl(const void *a, const void *b) {
        const replacement *x = a, *y = b;
        return x->start < y->start ? -1 : x->start > y->start;
}

/* Edit the argument text content[start..end) (which starts right after
 * the image path). */
static int edit_args(const char *content, size_t start, size_t end, const ht_cmdline_op *ops, size_t n_ops,
                     replacement *ret, char **ret_error) {
        ht_word_span *w;
        size_t nw = ht_word_spans_simple(content + start, end - start, &w);
        char *body = NULL;
        size_t body_len;
        int r = ht_cmdline_edit_body(content + start, end - start, w, nw, NULL, ops, n_ops, &body, &body_len, ret_error);
        ht_word_spans_free(w, nw);
        if (r < 0)
                return r;
        /* Arguments need a blank after the path. */
        if (body_len > 0 && !is_blank(body[0])) {
                char *b = xasprintf(" %s", body);
                free(body);
                body = b;
                body_len++;
        }
        *ret = (replacement){ start, end, body, body_len };
        return 0;
}

static char *apply_replacements(const char *content, size_t len, replacement *r, size_t n, size_t *ret_len) {
        qsort(r, n, sizeof(replacement), cmp_repl);
        strbuf out = {};
        size_t pos = 0;
        for (size_t i = 0; i < n; i++) {
                strbuf_appendn(&out, content + pos, r[i].start - pos);
                strbuf_appendn(&out, r[i].text, r[i].text_len);
                pos = r[i].end;
        }
        strbuf_appendn(&out, content + pos, len - pos);
        if (!out.data)
                strbuf_append(&out, "");
        *ret_len = out.len;
        return strbuf_steal(&out);
}

int ht_grub_legacy_edit(const char *content, size_t len, int entry, ht_grub_legacy_target target,
                        const ht_cmdline_op *ops, size_t n_ops,
                        char **ret, size_t *ret_len, char **ret_error) {
        _cleanup_(ht_grub_legacy_conf_freep) ht_grub_legacy_conf *c = NULL;
        int r = ht_grub_legacy_parse(content, len, &c, ret_error);
        if (r < 0)
                return r;
        if (entry != HT_GRUB_LEGACY_ALL && (entry < 0 || (size_t)entry >= c->n_entries)) {
                *ret_error = xasprintf("boot entry %d does not exist (the file has %zu)", entry, c->n_entries);
                return -EINVAL;
        }
        replacement *repl = xcalloc(c->n_entries + 1, sizeof(replacement));
        size_t n_repl = 0;
        for (size_t i = 0; i < c->n_entries; i++) {
                const ht_grub_legacy_entry *e = &c->entries[i];
                if (entry != HT_GRUB_LEGACY_ALL && (size_t)entry != i)
                        continue;
                bool explicit = entry != HT_GRUB_LEGACY_ALL;
                if (!e->kernel) {
                        if (!explicit)
                                continue;
                        *ret_error = xasprintf("%u: entry \"%s\" has no kernel line", e->title_line, e->title);
                        r = -EINVAL;
                        goto finish;
                }
                /* Memtest86+ takes no Linux arguments (grubby adds them
                 * anyway: tests/corpus/grub-legacy/README) */
                if (!explicit && target == HT_GRUB_LEGACY_LINUX && !e->linux_image)
                        continue;
                if (target == HT_GRUB_LEGACY_HYPERVISOR && !e->xen) {
                        if (!explicit)
                                continue;
                        *ret_error = xasprintf("%u: entry \"%s\" is not a Xen entry", e->title_line, e->title);
                        r = -EINVAL;
                        goto finish;
                }
                size_t s = target == HT_GRUB_LEGACY_LINUX ? e->linux_args_start : e->xen_args_start;
                size_t t = target == HT_GRUB_LEGACY_LINUX ? e->linux_args_end : e->xen_args_end;
                _cleanup_free_ char *err = NULL;
                r = edit_args(content, s, t, ops, n_ops, &repl[n_repl], &err);
                if (r < 0) {
                        *ret_error = xasprintf("%u: %s",
                                               target == HT_GRUB_LEGACY_LINUX ? e->linux_line : e->kernel_line, err);
                        goto finish;
                }
                n_repl++;
        }
        *ret = apply_replacements(content, len, repl, n_repl, ret_len);
        r = 0;
finish:
        for (size_t i = 0; i < n_repl; i++)
                free(repl[i].text);
        free(repl);
        return r;
}

int ht_grub_legacy_set_default(const char *content, size_t len, unsigned index,
                               char **ret, size_t *ret_len, char **ret_error) {
        _cleanup_(ht_grub_legacy_conf_freep) ht_grub_legacy_conf *c = NULL;
        int r = ht_grub_legacy_parse(content, len, &c, ret_error);
        if (r < 0)
                return r;
        if (index >= c->n_entries) {
                *ret_error = xasprintf("boot entry %u does not exist (the file has %zu)", index, c->n_entries);
                return -EINVAL;
        }
        _cleanup_free_ char *num = xasprintf("%u", index);
        replacement rp;
        if (c->default_line) {
                rp = (replacement){ c->default_value_start, c->default_value_end, num, strlen(num) };
        } else {
                /* Before the first line that is not a comment or blank. */
                size_t pos = 0;
                while (pos < len) {
                        size_t p = pos;
                        while (p < len && is_blank(content[p]))
                                p++;
                        if (p < len && content[p] != '#' && content[p] != '\n')
                                break;
                        const char *nl = memchr(content + pos, '\n', len - pos);
                        pos = nl ? (size_t)(nl - content) + 1 : len;
                }
                char *line = xasprintf("%sdefault=%u\n", pos == len && len > 0 && content[len - 1] != '\n' ? "\n" : "",
                                       index);
                free(num);
                num = line;
                rp = (replacement){ pos, pos, num, strlen(num) };
        }
        *ret = apply_replacements(content, len, &rp, 1, ret_len);
        return 0;
}
