/* Legacy GRUB menu files: the one parser (format-grub-legacy.h). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "format-grub-legacy.h"
#include "util.h"

static bool is_blank(char c) {
        return c == ' ' || c == '\t' || c == '\r';
}

static const char *basename_of(const char *path) {
        const char *base = strrchr(path, '/');
        return base ? base + 1 : path;
}

char *ht_kernel_image_version(const char *path) {
        const char *base = basename_of(path);
        static const char *const prefixes[] = {"vmlinuz-", "vmlinux-", "bzImage-", "kernel-"};
        for (size_t i = 0; i < ELEMENTSOF(prefixes); i++)
                if (startswith(base, prefixes[i]) && base[strlen(prefixes[i])])
                        return xstrdup(base + strlen(prefixes[i]));
        return NULL;
}

bool ht_is_xen_hypervisor_image(const char *path) {
        const char *base = basename_of(path);
        /* xen.gz (SUSE, RHEL 5's xen.gz-2.6.18-398.el5), xen-4.1-amd64.gz
         * (Debian's xen-hypervisor), an uncompressed xen or xen-4.4 */
        return streq(base, "xen") || startswith(base, "xen.") || startswith(base, "xen-");
}

/* Memtest86+ (memtest86+-1.65, elf-memtest86+-4.10 as the memtest86+
 * package installs it) takes no Linux arguments. GRUB tells a kernel by
 * its header, not its name: any other image is taken for Linux (Gentoo's
 * kernel-genkernel-..., a kernel someone built and named), and is edited. */
static bool is_linux_image(const char *path) {
        return !strstr(basename_of(path), "memtest");
}

static void add_problem(ht_grub_legacy_conf *c, ht_grub_legacy_problem_kind kind, unsigned line, char *message,
                        const char *text, size_t text_len) {
        ht_format_problem_add(&c->problems, &c->n_problems, kind, line, message, text ? xstrndup(text, text_len) : NULL);
}

void ht_grub_legacy_conf_free(ht_grub_legacy_conf *c) {
        if (!c)
                return;
        for (size_t i = 0; i < c->n_entries; i++) {
                free(c->entries[i].title);
                free(c->entries[i].kernel);
                free(c->entries[i].linux_kernel);
                free(c->entries[i].linux_args);
                free(c->entries[i].initrd);
                free(c->entries[i].root);
        }
        free(c->entries);
        ht_format_problems_free(c->problems, c->n_problems);
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

static char *args_text(const char *s, size_t start, size_t end) {
        while (start < end && is_blank(s[start]))
                start++;
        return xstrndup(s + start, end - start);
}

/* Whether s[start..end) is text: no control character but tab and CR,
 * valid UTF-8. *ret_why: what it is not. */
static bool line_is_text(const char *s, size_t start, size_t end, const char **ret_why) {
        for (size_t i = start; i < end; i++) {
                unsigned char ch = s[i];
                if ((ch < 0x20 && ch != '\t' && ch != '\r') || ch == 0x7f) {
                        *ret_why = ch ? "control character" : "NUL byte";
                        return false;
                }
        }
        _cleanup_free_ char *t = xstrndup(s + start, end - start);
        *ret_why = "text that is not UTF-8";
        return ht_valid_utf8(t);
}

ht_grub_legacy_conf *ht_grub_legacy_parse_menu(const char *content, size_t len) {
        ht_grub_legacy_conf *c = xcalloc(1, sizeof(*c));
        c->timeout = -1;
        size_t pos = 0;
        unsigned line = 0;
        ht_grub_legacy_entry *cur = NULL;
        unsigned modules = 0; /* module lines since the kernel line */

        while (pos < len) {
                const char *nl = memchr(content + pos, '\n', len - pos);
                size_t end = nl ? (size_t)(nl - content) : len;
                size_t next = nl ? end + 1 : len;
                line++;
                const char *why;
                if (!line_is_text(content, pos, end, &why)) {
                        add_problem(c, HT_GRUB_LEGACY_JUNK, line, xstrdup(why), NULL, 0);
                        pos = next;
                        continue;
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
                pos = next;

                if (streq(cmd, "title")) {
                        c->entries = xrealloc(c->entries, (c->n_entries + 1) * sizeof(ht_grub_legacy_entry));
                        cur = &c->entries[c->n_entries++];
                        *cur = (ht_grub_legacy_entry){
                                .title = xstrndup(content + as, end - as),
                                .title_line = line,
                        };
                        modules = 0;
                } else if (!cur) {
                        if (streq(cmd, "default")) {
                                int d;
                                if (end - as == 5 && memcmp(content + as, "saved", 5) == 0)
                                        d = -1;
                                else if (!parse_int(content + as, end - as, &d)) {
                                        add_problem(c, HT_GRUB_LEGACY_BAD_DEFAULT, line,
                                                    xstrdup("default is not a number"), content + as, end - as);
                                        continue;
                                }
                                c->default_entry = d;
                                c->default_line = line;
                                c->default_value_start = as;
                                c->default_value_end = end;
                        } else if (streq(cmd, "timeout")) {
                                if (!parse_int(content + as, end - as, &c->timeout))
                                        add_problem(c, HT_GRUB_LEGACY_BAD_TIMEOUT, line,
                                                    xstrdup("timeout is not a number"), NULL, 0);
                        } else if (streq(cmd, "kernel") || streq(cmd, "module"))
                                add_problem(c, HT_GRUB_LEGACY_OUTSIDE_ENTRY, line,
                                            xasprintf("%s outside a title block", cmd), NULL, 0);
                } else if (streq(cmd, "kernel") || streq(cmd, "module")) {
                        size_t after;
                        bool typed;
                        char *path = image_path(content, as, end, &after, &typed);
                        if (!path) {
                                add_problem(c, HT_GRUB_LEGACY_NO_IMAGE, line, xasprintf("%s without an image", cmd),
                                            NULL, 0);
                                continue;
                        }
                        if (streq(cmd, "kernel")) {
                                /* the last kernel line counts: it replaces
                                 * what an earlier one (and its modules) set */
                                bool hv = !typed && ht_is_xen_hypervisor_image(path);
                                free(cur->kernel);
                                free(cur->linux_kernel);
                                free(cur->linux_args);
                                free(cur->initrd);
                                cur->initrd = NULL;
                                cur->kernel = path;
                                cur->kernel_line = line;
                                cur->xen = hv;
                                if (hv) {
                                        cur->xen_args_start = after;
                                        cur->xen_args_end = end;
                                        cur->linux_kernel = cur->linux_args = NULL;
                                        cur->linux_image = false;
                                        cur->linux_line = 0;
                                        cur->linux_args_start = cur->linux_args_end = 0;
                                } else {
                                        cur->linux_kernel = xstrdup(path);
                                        cur->linux_line = line;
                                        cur->linux_args_start = after;
                                        cur->linux_args_end = end;
                                        cur->linux_args = args_text(content, after, end);
                                        cur->linux_image = !typed && is_linux_image(path);
                                        cur->xen_args_start = cur->xen_args_end = 0;
                                }
                                modules = 0;
                        } else if (cur->xen && modules++ == 0) {
                                /* The first module of a Xen entry is the Linux kernel. */
                                cur->linux_kernel = path;
                                cur->linux_line = line;
                                cur->linux_args_start = after;
                                cur->linux_args_end = end;
                                cur->linux_args = args_text(content, after, end);
                                cur->linux_image = is_linux_image(path);
                        } else if (cur->xen && modules == 2 && !cur->initrd) {
                                cur->initrd = path;
                        } else
                                free(path);
                } else if (streq(cmd, "initrd")) {
                        size_t after;
                        bool typed;
                        char *path = image_path(content, as, end, &after, &typed);
                        if (path) {
                                free(cur->initrd);
                                cur->initrd = path;
                        }
                } else if (streq(cmd, "root") || streq(cmd, "rootnoverify")) {
                        size_t we = as;
                        while (we < end && !is_blank(content[we]))
                                we++;
                        free(cur->root);
                        cur->root = xstrndup(content + as, we - as);
                } else if (streq(cmd, "chainloader"))
                        cur->chainloader = true;
        }
        return c;
}

int ht_grub_legacy_parse(const char *content, size_t len, ht_grub_legacy_conf **ret, char **ret_error) {
        ht_grub_legacy_conf *c = ht_grub_legacy_parse_menu(content, len);
        if (c->n_problems > 0) {
                *ret_error = xasprintf("%u: %s", c->problems[0].line, c->problems[0].message);
                ht_grub_legacy_conf_free(c);
                return -EINVAL;
        }
        *ret = c;
        return 0;
}

int ht_grub_legacy_saved_default(const char *content, size_t len, unsigned *ret, char **ret_word) {
        size_t n = 0;
        while (n < len && content[n] && content[n] != '\n')
                n++;
        _cleanup_free_ char *first = xstrndup(content, n);
        char *w = strstrip(first);
        *ret_word = xstrdup(w);
        int d;
        if (!parse_int(w, strlen(w), &d))
                return -EINVAL;
        *ret = (unsigned)d;
        return 0;
}
