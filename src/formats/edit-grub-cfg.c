/* grub.cfg kernel lines: finding them and editing their arguments. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "edit-grub-cfg.h"
#include "util.h"

static bool is_sep(char c) {
        return c == ' ' || c == '\t';
}

static const char *basename_of(const char *path) {
        const char *b = strrchr(path, '/');
        return b ? b + 1 : path;
}

/* What a command line loads. GRUB's linux, linux16 (RHEL 7 BIOS) and
 * linuxefi (RHEL 7 EFI, shim) load a Linux kernel, unless the image is
 * memtest86+ (Debian's 20_memtest86+ loads it with linux16 or linux):
 * grubby adds the arguments there too, hosttune leaves them alone. Xen
 * entries (20_linux_xen) load the hypervisor with multiboot or
 * multiboot2 and Linux as a module / module2 (GRUB manual, "multiboot",
 * "module"); initrd modules are neither. */
static bool kernel_kind(const char *cmd, const char *image, ht_grub_cfg_kind *ret) {
        const char *base = basename_of(image);
        if (streq(cmd, "linux") || streq(cmd, "linux16") || streq(cmd, "linuxefi")) {
                *ret = startswith(base, "memtest") ? HT_GRUB_CFG_OTHER : HT_GRUB_CFG_LINUX;
                return true;
        }
        if ((streq(cmd, "module") || streq(cmd, "module2")) && startswith(base, "vmlinu")) {
                *ret = HT_GRUB_CFG_LINUX;
                return true;
        }
        if ((streq(cmd, "multiboot") || streq(cmd, "multiboot2")) && startswith(base, "xen")) {
                *ret = HT_GRUB_CFG_XEN;
                return true;
        }
        return false;
}

void ht_grub_cfg_free(ht_grub_cfg *g) {
        if (!g)
                return;
        for (size_t i = 0; i < g->n_kernels; i++) {
                free(g->kernels[i].command);
                free(g->kernels[i].image);
                free(g->kernels[i].args);
        }
        free(g->kernels);
        free(g);
}

int ht_grub_cfg_parse(const char *content, size_t len, ht_grub_cfg **ret, char **ret_error) {
        if (memchr(content, 0, len)) {
                size_t at = (const char *)memchr(content, 0, len) - content;
                unsigned line = 1;
                for (size_t i = 0; i < at; i++)
                        line += content[i] == '\n';
                return ht_error(ret_error, -EINVAL, "%u: NUL byte in a GRUB configuration file", line);
        }
        ht_grub_cfg *g = xcalloc(1, sizeof(*g));
        unsigned line = 0;
        for (size_t ls = 0; ls < len;) {
                const char *nl = memchr(content + ls, '\n', len - ls);
                size_t le = nl ? (size_t)(nl - content) : len;
                size_t next = nl ? le + 1 : len;
                line++;
                /* a CRLF file: the '\r' stays after the last word */
                size_t ce = le > ls && content[le - 1] == '\r' ? le - 1 : le;
                size_t p = ls;
                while (p < ce && is_sep(content[p]))
                        p++;
                size_t cs = p;
                while (p < ce && !is_sep(content[p]))
                        p++;
                _cleanup_free_ char *cmd = xstrndup(content + cs, p - cs);
                while (p < ce && is_sep(content[p]))
                        p++;
                size_t is = p;
                while (p < ce && !is_sep(content[p]))
                        p++;
                ht_grub_cfg_kind kind;
                if (p > is) {
                        _cleanup_free_ char *image = xstrndup(content + is, p - is);
                        if (kernel_kind(cmd, image, &kind)) {
                                g->kernels = xrealloc(g->kernels, (g->n_kernels + 1) * sizeof(*g->kernels));
                                g->kernels[g->n_kernels++] = (ht_grub_cfg_kernel){
                                        .kind = kind,
                                        .line = line,
                                        .command = TAKE_PTR(cmd),
                                        .image = TAKE_PTR(image),
                                        .args_start = p,
                                        .args_end = ce,
                                        .args = xstrndup(content + p, ce - p),
                                };
                        }
                }
                ls = next;
        }
        *ret = g;
        return 0;
}

int ht_grub_cfg_edit(const char *content, size_t len, ht_grub_cfg_kind kind, const ht_cmdline_op *ops,
                     size_t n_ops, char **ret, size_t *ret_len, size_t *ret_n_lines, char **ret_error) {
        _cleanup_(ht_grub_cfg_freep) ht_grub_cfg *g = NULL;
        /* checked before any line, so a file without kernel lines refuses them too */
        int r = ht_cmdline_ops_check(ops, n_ops, HT_CMDLINE_FMT_GRUB_CFG, ret_error);
        if (r < 0)
                return r;
        r = ht_grub_cfg_parse(content, len, &g, ret_error);
        if (r < 0)
                return r;
        strbuf out = {0};
        size_t copied = 0, n_lines = 0;
        for (size_t i = 0; i < g->n_kernels; i++) {
                const ht_grub_cfg_kernel *k = &g->kernels[i];
                if (k->kind != kind)
                        continue;
                n_lines++;
                /* GRUB's script lexer removes single quotes and
                 * backslashes and joins a line ending in one with the next
                 * (GRUB manual, "Shell-like scripting"): the words the
                 * kernel gets are not the words written; leave such a line
                 * to a person. */
                if (strpbrk(k->args, "'\\`")) {
                        *ret_error = xasprintf("%u: the arguments of this %s line use GRUB quoting (', \\ or `) "
                                               "that hosttune does not rewrite; edit the line by hand",
                                               k->line, k->command);
                        r = -EINVAL;
                        goto fail;
                }
                ht_word_span *words = NULL;
                size_t n_words = ht_word_spans_simple(k->args, strlen(k->args), &words);
                char *body = NULL, *err = NULL;
                size_t body_len = 0;
                r = ht_cmdline_edit_body(HT_CMDLINE_FMT_GRUB_CFG, k->args, strlen(k->args), words, n_words, NULL, ops, n_ops, &body,
                                         &body_len, &err);
                ht_word_spans_free(words, n_words);
                if (r < 0) {
                        *ret_error = xasprintf("%u: %s", k->line, err ? err : "cannot edit the kernel arguments");
                        free(err);
                        goto fail;
                }
                strbuf_appendn(&out, content + copied, k->args_start - copied);
                /* "linux /vmlinuz" with no arguments: the first word needs
                 * a blank after the image */
                if (n_words == 0 && k->args_start == k->args_end && body_len > 0)
                        strbuf_append(&out, " ");
                strbuf_appendn(&out, body, body_len);
                free(body);
                copied = k->args_end;
        }
        strbuf_appendn(&out, content + copied, len - copied);
        if (!out.data)
                strbuf_append(&out, "");
        *ret_len = out.len;
        *ret = strbuf_steal(&out);
        *ret_n_lines = n_lines;
        return 0;
fail:
        free(strbuf_steal(&out));
        return r;
}
