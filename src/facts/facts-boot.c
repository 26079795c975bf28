/* Bootloader facts: which of GRUB 2 (/etc/default/grub + grub.cfg), BLS
 * entries (/boot/loader/entries), legacy GRUB (grub.conf/menu.lst) or none
 * boots this host, its entries, which one is the default, which are Xen. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>

#include "facts-internal.h"
#include "facts.h"
#include "util.h"

#define MAX_WARNINGS_PER_FILE 3
#define GRUBENV_SIZE 1024

/* "vmlinuz-2.6.18-398.el5xen" → "2.6.18-398.el5xen"; paths may carry a
 * GRUB device prefix ("(hd0,0)/vmlinuz-..."). */
static char *version_from_image(const char *path) {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        static const char *const prefixes[] = {"vmlinuz-", "vmlinux-", "bzImage-", "kernel-"};
        for (size_t i = 0; i < ELEMENTSOF(prefixes); i++)
                if (startswith(base, prefixes[i]) && base[strlen(prefixes[i])])
                        return xstrdup(base + strlen(prefixes[i]));
        return NULL;
}

static bool is_xen_hypervisor_image(const char *path) {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        /* xen.gz, xen-4.4.gz, xen.gz-2.6.18-398.el5 */
        return startswith(base, "xen.gz") || (startswith(base, "xen-") && strstr(base, ".gz"));
}

/* A Linux kernel image by its name: vmlinuz-VERSION as the kernel
 * packages install it (also vmlinux, bzImage, SUSE's /boot/vmlinuz link);
 * memtest86+-1.65, elf-memtest86+-4.10, xen.gz are not. */
static bool is_linux_image(const char *path) {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        static const char *const names[] = {"vmlinuz", "vmlinux", "bzImage"};
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                size_t n = strlen(names[i]);
                if (strncmp(base, names[i], n) == 0 && (base[n] == 0 || base[n] == '-'))
                        return true;
        }
        return false;
}

static bool version_is_xen(const char *v) {
        return v && (endswith(v, "xen") || strstr(v, "-xen"));
}

/* Split "word rest" (or "word=rest" for legacy directives). */
static void split_directive(char *line, bool allow_eq, char **ret_key, char **ret_rest) {
        size_t n = strcspn(line, allow_eq ? " \t=" : " \t");
        char *rest = line + n;
        if (*rest) {
                *rest++ = 0;
                rest += strspn(rest, allow_eq ? " \t=" : " \t");
        }
        *ret_key = line;
        *ret_rest = strstrip(rest);
}

static ht_boot_entry *add_entry(ht_facts *f) {
        f->boot_entries = xrealloc(f->boot_entries, (f->n_boot_entries + 1) * sizeof(ht_boot_entry));
        ht_boot_entry *e = &f->boot_entries[f->n_boot_entries++];
        *e = (ht_boot_entry){0};
        return e;
}

void ht_facts_parse_grub_legacy(ht_facts *f, const char *buf, size_t len, const char *where) {
        ht_facts_check_nul(f, buf, len, where);
        _cleanup_strv_free_ char **lines = strv_split(buf, "\n");
        _cleanup_free_ char *default_word = NULL;
        size_t default_line = 0;
        ht_boot_entry *e = NULL;
        bool awaiting_module = false;
        unsigned bad = 0;

        for (size_t i = 0; lines[i]; i++) {
                char *line = strstrip(lines[i]);
                if (!*line || *line == '#')
                        continue;
                if (has_control_chars(line) || !ht_valid_utf8(line)) {
                        if (++bad <= MAX_WARNINGS_PER_FILE)
                                ht_facts_warn(f, "%s:%zu: binary junk, ignored", where, i + 1);
                        continue;
                }
                char *key, *rest;
                split_directive(line, !e, &key, &rest);
                if (streq(key, "title")) {
                        e = add_entry(f);
                        e->title = xstrdup(rest);
                        awaiting_module = false;
                        continue;
                }
                if (!e) {
                        if (streq(key, "default")) {
                                free(default_word);
                                default_word = xstrdup(rest);
                                default_line = i + 1;
                        }
                        continue;
                }
                if (streq(key, "kernel") && *rest) {
                        /* "kernel --type=netbsd /elf-memtest86+-4.10": options
                         * come before the image (GRUB 0.97 stage2/builtins.c,
                         * kernel_func) */
                        bool typed = false;
                        while (startswith(rest, "--")) {
                                /* --type=linux and biglinux are Linux */
                                size_t n = strcspn(rest, " \t");
                                typed = typed || (startswith(rest, "--type=") &&
                                                  !(n == 12 && startswith(rest, "--type=linux")) &&
                                                  !(n == 15 && startswith(rest, "--type=biglinux")));
                                rest += strcspn(rest, " \t");
                                rest += strspn(rest, " \t");
                        }
                        if (!*rest)
                                continue;
                        _cleanup_free_ char *image = xstrndup(rest, strcspn(rest, " \t"));
                        const char *args = strstrip(rest + strlen(image));
                        if (is_xen_hypervisor_image(image)) {
                                /* the Linux kernel is the first module */
                                e->xen = true;
                                e->linux_image = false;
                                awaiting_module = true;
                        } else {
                                free(e->kernel);
                                free(e->version);
                                free(e->options);
                                e->kernel = TAKE_PTR(image);
                                e->version = version_from_image(e->kernel);
                                e->options = xstrdup(args);
                                e->xen = version_is_xen(e->version);
                                e->linux_image = !typed && is_linux_image(e->kernel);
                        }
                } else if (streq(key, "chainloader")) {
                        /* another OS's boot sector (DOS, Windows) */
                        e->chainloader = true;
                        e->linux_image = false;
                } else if (streq(key, "module") && awaiting_module && *rest) {
                        awaiting_module = false;
                        size_t n = strcspn(rest, " \t");
                        /* a kernel line before the hypervisor's set these */
                        free(e->kernel);
                        free(e->version);
                        free(e->options);
                        e->kernel = xstrndup(rest, n);
                        e->version = version_from_image(e->kernel);
                        e->options = xstrdup(strstrip(rest + n));
                        e->linux_image = is_linux_image(e->kernel);
                }
        }
        if (bad > MAX_WARNINGS_PER_FILE)
                ht_facts_warn(f, "%s: %u more bad lines", where, bad - MAX_WARNINGS_PER_FILE);
        for (size_t i = 0; i < f->n_boot_entries; i++)
                if (!f->boot_entries[i].kernel && !f->boot_entries[i].chainloader)
                        ht_facts_warn(f, "%s: entry \"%s\" has no kernel line", where,
                                      f->boot_entries[i].title);
        if (f->n_boot_entries == 0) {
                ht_facts_warn(f, "%s: no title entries", where);
                return;
        }

        /* Without default= legacy GRUB boots the first entry. */
        uint64_t d = 0;
        if (default_word) {
                if (streq(default_word, "saved")) {
                        /* the number is in /boot/grub/default: see
                         * ht_facts_parse_grub_default() */
                        f->grub_legacy_saved = true;
                        return;
                }
                if (!isdigit((unsigned char)*default_word) || parse_u64(default_word, &d) < 0) {
                        ht_facts_warn(f, "%s:%zu: default=%.20s is not an entry number, default entry unknown",
                                      where, default_line, default_word);
                        return;
                }
                if (d >= f->n_boot_entries) {
                        ht_facts_warn(f, "%s:%zu: default=%.20s is out of range (%zu entries), default entry unknown",
                                      where, default_line, default_word, f->n_boot_entries);
                        return;
                }
        }
        f->grub_legacy_default = (int)d;
        f->default_entry = (int)d;
}

void ht_facts_parse_grub_default(ht_facts *f, const char *buf, size_t len, const char *where) {
        /* GRUB 0.97's grub-set-default (util/grub-set-default.in) and
         * savedefault write the entry number as the file's first line,
         * followed by comment lines that keep the file's size. */
        size_t n = strcspn(buf, "\n");
        _cleanup_free_ char *first = xstrndup(buf, n < len ? n : len);
        const char *w = strstrip(first);
        uint64_t d;
        if (!isdigit((unsigned char)*w) || parse_u64(w, &d) < 0) {
                ht_facts_warn(f, "%s:1: %.20s is not an entry number, default entry unknown", where, w);
                return;
        }
        if (d >= f->n_boot_entries) {
                ht_facts_warn(f, "%s:1: entry %.20s is out of range (%zu entries), default entry unknown", where, w,
                              f->n_boot_entries);
                return;
        }
        f->grub_legacy_default = (int)d;
        f->default_entry = (int)d;
}

void ht_facts_parse_grubenv(ht_facts *f, const char *buf, size_t len, const char *where) {
        ht_facts_check_nul(f, buf, len, where);
        if (!startswith(buf, "# GRUB Environment Block\n")) {
                ht_facts_warn(f, "%s: no \"# GRUB Environment Block\" header, ignored", where);
                return;
        }
        /* grub-editenv refuses a block of any other size */
        if (len != GRUBENV_SIZE)
                ht_facts_warn(f, "%s: %zu bytes, GRUB wants exactly %d", where, len, GRUBENV_SIZE);
        _cleanup_strv_free_ char **lines = strv_split(buf, "\n");
        for (size_t i = 1; lines[i]; i++) {
                const char *line = lines[i];
                if (*line == '#')
                        continue;
                const char *eq = strchr(line, '=');
                if (!eq || eq == line || has_control_chars(line)) {
                        ht_facts_warn(f, "%s:%zu: not a name=value line, ignored", where, i + 1);
                        continue;
                }
                strv_push(&f->grubenv, line);
                if (startswith(line, "kernelopts=")) {
                        free(f->grubenv_kernelopts);
                        f->grubenv_kernelopts = xstrdup(eq + 1);
                } else if (startswith(line, "saved_entry=")) {
                        free(f->grubenv_saved_entry);
                        f->grubenv_saved_entry = xstrdup(eq + 1);
                }
        }
}

static const char *grubenv_get(const ht_facts *f, const char *name, size_t n) {
        for (size_t i = 0; f->grubenv && f->grubenv[i]; i++)
                if (strncmp(f->grubenv[i], name, n) == 0 && f->grubenv[i][n] == '=')
                        return f->grubenv[i] + n + 1;
        return NULL;
}

/* GRUB's blscfg expands $name and ${name} from its environment (grubenv);
 * an unset variable becomes empty, as in GRUB. */
static char *expand_options(const ht_facts *f, const char *s) {
        strbuf b = {0};
        strbuf_append(&b, "");
        while (*s) {
                if (*s != '$') {
                        strbuf_appendn(&b, s, 1);
                        s++;
                        continue;
                }
                s++;
                bool brace = *s == '{';
                if (brace)
                        s++;
                size_t n = 0;
                while (isalnum((unsigned char)s[n]) || s[n] == '_')
                        n++;
                const char *v = grubenv_get(f, s, n);
                if (v)
                        strbuf_append(&b, v);
                s += n;
                if (brace && *s == '}')
                        s++;
        }
        _cleanup_free_ char *raw = strbuf_steal(&b);
        return normalize_ws(raw);
}

void ht_parse_bls_entry(ht_facts *f, const char *buf, size_t len, const char *where,
                        ht_boot_entry *e) {
        ht_facts_check_nul(f, buf, len, where);
        _cleanup_strv_free_ char **lines = strv_split(buf, "\n");
        _cleanup_strv_free_ char **options = NULL;
        unsigned bad = 0;
        for (size_t i = 0; lines[i]; i++) {
                char *line = strstrip(lines[i]);
                if (!*line || *line == '#')
                        continue;
                if (has_control_chars(line) || !ht_valid_utf8(line)) {
                        if (++bad <= MAX_WARNINGS_PER_FILE)
                                ht_facts_warn(f, "%s:%zu: binary junk, ignored", where, i + 1);
                        continue;
                }
                char *key, *rest;
                split_directive(line, false, &key, &rest);
                if (streq(key, "title")) {
                        free(e->title);
                        e->title = xstrdup(rest);
                } else if (streq(key, "linux")) {
                        free(e->kernel);
                        e->kernel = xstrdup(rest);
                } else if (streq(key, "version")) {
                        free(e->version);
                        e->version = xstrdup(rest);
                } else if (streq(key, "options")) {
                        /* several options lines are concatenated (BLS spec) */
                        strv_push(&options, rest);
                }
        }
        if (!e->kernel)
                ht_facts_warn(f, "%s: no linux line", where);
        if (!e->version && e->kernel)
                e->version = version_from_image(e->kernel);
        if (!e->title)
                e->title = xstrdup(e->version ? e->version : e->id ? e->id : "");
        e->xen = (e->kernel && is_xen_hypervisor_image(e->kernel)) || version_is_xen(e->version);
        e->linux_image = e->kernel && !is_xen_hypervisor_image(e->kernel);
        if (options) {
                _cleanup_free_ char *joined = strv_join(options, " ");
                free(e->options);
                e->options = expand_options(f, joined);
        }
}

static int cmp_entry_desc(const void *a, const void *b) {
        const ht_boot_entry *x = a, *y = b;
        /* GRUB's blscfg lists newest first, comparing the ids rpm-style */
        return -ht_version_compare(x->id, y->id);
}

static void collect_bls(const ht_context *c, ht_facts *f, char **names) {
        static const char *const envs[] = {"/boot/grub2/grubenv", "/boot/grub/grubenv"};
        for (size_t i = 0; i < ELEMENTSOF(envs); i++) {
                char *buf;
                size_t len;
                if (ht_facts_read(c, f, envs[i], false, &buf, &len) < 0)
                        continue;
                _cleanup_free_ char *d = ht_display_path(c, envs[i]);
                ht_facts_parse_grubenv(f, buf, len, d);
                free(buf);
                break;
        }
        for (size_t i = 0; names[i]; i++) {
                _cleanup_free_ char *path = xasprintf("/boot/loader/entries/%s", names[i]);
                char *buf;
                size_t len;
                if (ht_facts_read(c, f, path, true, &buf, &len) < 0)
                        continue;
                _cleanup_free_ char *d = ht_display_path(c, path);
                ht_boot_entry *e = add_entry(f);
                e->id = xstrndup(names[i], strlen(names[i]) - strlen(".conf"));
                ht_parse_bls_entry(f, buf, len, d, e);
                free(buf);
        }
        if (f->n_boot_entries > 1)
                qsort(f->boot_entries, f->n_boot_entries, sizeof(ht_boot_entry), cmp_entry_desc);
        if (f->n_boot_entries == 0)
                return;
        if (isempty(f->grubenv_saved_entry)) {
                f->default_entry = 0;
                return;
        }
        for (size_t i = 0; i < f->n_boot_entries; i++)
                if (streq(f->boot_entries[i].id, f->grubenv_saved_entry) ||
                    streq_ptr(f->boot_entries[i].title, f->grubenv_saved_entry))
                        f->default_entry = (int)i;
        if (f->default_entry < 0) {
                _cleanup_free_ char *d = ht_display_path(c, "/boot/loader/entries");
                ht_facts_warn(f, "grubenv: saved_entry=%s names no entry in %s, default entry unknown",
                              f->grubenv_saved_entry, d);
        }
}

/* GRUB_DEFAULT and GRUB_ENABLE_BLSCFG from /etc/default/grub. */
static void parse_default_grub(ht_facts *f, const char *buf, size_t len, const char *where,
                               bool *ret_blscfg) {
        ht_facts_check_nul(f, buf, len, where);
        _cleanup_strv_free_ char **lines = strv_split(buf, "\n");
        for (size_t i = 0; lines[i]; i++) {
                char *line = strstrip(lines[i]);
                if (startswith(line, "export "))
                        line = strstrip(line + 7);
                bool is_default = startswith(line, "GRUB_DEFAULT=");
                bool is_bls = startswith(line, "GRUB_ENABLE_BLSCFG=");
                if (!is_default && !is_bls)
                        continue;
                char *v = ht_shell_unquote(strchr(line, '=') + 1);
                if (!v || has_control_chars(v)) {
                        ht_facts_warn(f, "%s:%zu: broken quoting, ignored", where, i + 1);
                        free(v);
                        continue;
                }
                if (is_default) {
                        free(f->grub_default);
                        f->grub_default = v;
                } else {
                        *ret_blscfg = streq(v, "true");
                        free(v);
                }
        }
}

/* A grub.cfg that only hands over to another one (Debian's and RHEL 9's
 * EFI stubs: "search ...; configfile $prefix/grub.cfg"). */
static bool is_stub_cfg(const char *buf) {
        return strstr(buf, "configfile") && !strstr(buf, "menuentry") && !strstr(buf, "blscfg");
}

static char *find_grub_cfg(const ht_context *c, ht_facts *f, bool *ret_has_blscfg) {
        _cleanup_strv_free_ char **candidates = NULL;
        if (f->efi) {
                _cleanup_strv_free_ char **vendors = NULL;
                if (ht_list_dir(c, "/boot/efi/EFI", NULL, &vendors) == 0) {
                        /* the OS's own vendor directory first */
                        for (int pass = 0; pass < 2; pass++)
                                for (size_t i = 0; vendors[i]; i++)
                                        if ((pass == 0) == streq_ptr(vendors[i], f->os_id))
                                                strv_pushf(&candidates, "/boot/efi/EFI/%s/grub.cfg",
                                                           vendors[i]);
                }
        }
        strv_push(&candidates, "/boot/grub2/grub.cfg");
        strv_push(&candidates, "/boot/grub/grub.cfg");
        for (size_t i = 0; candidates[i]; i++) {
                char *buf;
                size_t len;
                if (ht_facts_read(c, f, candidates[i], false, &buf, &len) < 0)
                        continue;
                bool hands_over = is_stub_cfg(buf);
                *ret_has_blscfg = strstr(buf, "blscfg") != NULL;
                free(buf);
                if (!hands_over)
                        return xstrdup(candidates[i]);
        }
        return NULL;
}

/* SUSE's /etc/grub.conf (SLES 10/11) is no menu: it is the batch of GRUB
 * shell commands grub-install runs ("setup --stage2=... (hd0,1)",
 * "quit"); the menu is /boot/grub/menu.lst. */
static bool is_grub_shell_script(const char *buf) {
        _cleanup_strv_free_ char **lines = strv_split(buf, "\n");
        bool commands = false;
        for (size_t i = 0; lines[i]; i++) {
                const char *l = lines[i] + strspn(lines[i], " \t");
                if (startswith(l, "title"))
                        return false;
                if (startswith(l, "setup") || startswith(l, "install") || startswith(l, "quit"))
                        commands = true;
        }
        return commands;
}

void ht_facts_collect_boot(const ht_context *c, ht_facts *f) {
        /* An image has no /sys to ask: its ESP's contents tell. */
        f->efi = ht_exists(c, "/sys/firmware/efi") || (f->offline && ht_exists(c, "/boot/efi/EFI"));

        bool blscfg = false, cfg_blscfg = false;
        char *buf;
        size_t len;
        bool have_default_grub = ht_facts_read(c, f, "/etc/default/grub", false, &buf, &len) == 0;
        if (have_default_grub) {
                _cleanup_free_ char *d = ht_display_path(c, "/etc/default/grub");
                parse_default_grub(f, buf, len, d, &blscfg);
                free(buf);
        }
        f->grub_cfg = find_grub_cfg(c, f, &cfg_blscfg);

        _cleanup_strv_free_ char **bls = NULL;
        if (ht_list_dir(c, "/boot/loader/entries", ".conf", &bls) < 0)
                bls = xcalloc(1, sizeof(char *));

        /* BLS when GRUB is told to read the entries (RHEL 8+), or when there
         * is no GRUB 2 at all (systemd-boot). */
        if (bls[0] && (blscfg || cfg_blscfg || (!have_default_grub && !f->grub_cfg))) {
                f->bootloader = HT_BOOT_BLS;
                collect_bls(c, f, bls);
                return;
        }
        if (have_default_grub || f->grub_cfg) {
                f->bootloader = HT_BOOT_GRUB2;
                if (!f->grub_cfg) {
                        _cleanup_free_ char *d = ht_display_path(c, "/etc/default/grub");
                        ht_facts_warn(f, "%s exists but no grub.cfg was found (not generated yet?)", d);
                }
                return;
        }

        /* RHEL ships grub.conf with menu.lst and /etc/grub.conf as links to
         * it; SUSE and Debian used menu.lst. */
        static const char *const legacy[] = {
                "/boot/grub/grub.conf", "/boot/grub/menu.lst", "/etc/grub.conf",
        };
        const char *broken = NULL;
        for (size_t i = 0; i < ELEMENTSOF(legacy); i++) {
                struct stat st;
                if (ht_facts_read(c, f, legacy[i], false, &buf, &len) < 0) {
                        /* a link the distribution made that leads nowhere
                         * usable: still the bootloader's file, so that plan
                         * names the link instead of finding no bootloader */
                        if (!broken && ht_lstat(c, legacy[i], &st) == 0 && S_ISLNK(st.st_mode))
                                broken = legacy[i];
                        continue;
                }
                if (is_grub_shell_script(buf)) {
                        _cleanup_free_ char *d = ht_display_path(c, legacy[i]);
                        ht_facts_warn(f, "%s is a GRUB shell script for grub-install (SUSE), not a boot menu: "
                                      "no kernel command line is set there", d);
                        free(buf);
                        continue;
                }
                f->bootloader = HT_BOOT_GRUB_LEGACY;
                f->grub_legacy_conf = xstrdup(legacy[i]);
                _cleanup_free_ char *d = ht_display_path(c, legacy[i]);
                ht_facts_parse_grub_legacy(f, buf, len, d);
                free(buf);
                if (f->grub_legacy_saved) {
                        _cleanup_free_ char *dd = ht_display_path(c, HT_GRUB_LEGACY_DEFAULT_FILE);
                        if (ht_facts_read(c, f, HT_GRUB_LEGACY_DEFAULT_FILE, false, &buf, &len) < 0)
                                ht_facts_warn(f, "%s: default=saved but %s cannot be read, default entry unknown", d,
                                              dd);
                        else {
                                ht_facts_parse_grub_default(f, buf, len, dd);
                                free(buf);
                        }
                }
                return;
        }
        if (broken) {
                f->bootloader = HT_BOOT_GRUB_LEGACY;
                f->grub_legacy_conf = xstrdup(broken);
                return;
        }
        f->bootloader = HT_BOOT_NONE;
}
