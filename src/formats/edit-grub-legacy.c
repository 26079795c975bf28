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
static int edit_args(const char *content, size_t len, size_t start, size_t end, const ht_cmdline_op *ops, size_t n_ops,
                     replacement *ret, char **ret_error) {
        ht_word_span *w;
        size_t nw = ht_word_spans_simple(content + start, end - start, &w);
        char *body = NULL;
        size_t body_len;
        int r = ht_cmdline_edit_body(HT_CMDLINE_FMT_GRUB_LEGACY, content + start, end - start, w, nw, NULL, ops, n_ops, &body, &body_len, ret_error);
        ht_word_spans_free(w, nw);
        if (r < 0)
                return r;
        /* Every argument removed: the blanks after the last one go too,
         * "kernel /vmlinuz" as grubby leaves it (its updargs/g3.7). */
        if (body_len == 0 && nw > 0)
                while (end < len && (content[end] == ' ' || content[end] == '\t'))
                        end++;
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
        int r = ht_cmdline_ops_check(ops, n_ops, HT_CMDLINE_FMT_GRUB_LEGACY, ret_error);
        if (r < 0)
                return r;
        r = ht_grub_legacy_parse(content, len, &c, ret_error);
        if (r < 0)
                return r;
        if (entry != HT_GRUB_LEGACY_ALL && (entry < 0 || (size_t)entry >= c->n_entries))
                return ht_error(ret_error, -EINVAL,
                                "boot entry %d does not exist (the file has %zu)", entry, c->n_entries);
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
                if (target == HT_GRUB_LEGACY_LINUX && !e->linux_kernel) {
                        /* a hypervisor without its dom0 kernel (module line) */
                        if (!explicit)
                                continue;
                        *ret_error = xasprintf("%u: entry \"%s\" loads Xen but no Linux kernel (module line)",
                                               e->title_line, e->title);
                        r = -EINVAL;
                        goto finish;
                }
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
                r = edit_args(content, len, s, t, ops, n_ops, &repl[n_repl], &err);
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
        if (index >= c->n_entries)
                return ht_error(ret_error, -EINVAL,
                                "boot entry %u does not exist (the file has %zu)", index, c->n_entries);
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
