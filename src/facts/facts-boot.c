/* Bootloader facts: which of GRUB 2 (/etc/default/grub + grub.cfg), BLS
 * entries (/boot/loader/entries), legacy GRUB (grub.conf/menu.lst) or none
 * boots this host, its entries, which one is the default, which are Xen. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>

#include "facts-internal.h"
#include "facts.h"
#include "format-bls.h"
#include "format-grub-legacy.h"
#include "format-grub-defaults.h"
#include "util.h"

#define MAX_WARNINGS_PER_FILE 3

static bool version_is_xen(const char *v) {
        return v && (endswith(v, "xen") || strstr(v, "-xen"));
}

static ht_boot_entry *add_entry(ht_facts *f) {
        f->boot_entries = xrealloc(f->boot_entries, (f->n_boot_entries + 1) * sizeof(ht_boot_entry));
        ht_boot_entry *e = &f->boot_entries[f->n_boot_entries++];
        *e = (ht_boot_entry){0};
        return e;
}

/* The menu as the editor sees it (format-grub-legacy.h), in facts'
 * words: what GRUB would not take is warned about, the rest is used. */
void ht_facts_parse_grub_legacy(ht_facts *f, const char *buf, size_t len, const char *where) {
        _cleanup_(ht_grub_legacy_conf_freep) ht_grub_legacy_conf *c = ht_grub_legacy_parse_menu(buf, len);
        unsigned bad = 0;
        const ht_format_problem *bad_default = NULL;
        for (size_t i = 0; i < c->n_problems; i++) {
                const ht_format_problem *p = &c->problems[i];
                if (p->kind == HT_GRUB_LEGACY_BAD_DEFAULT) {
                        bad_default = p;
                        continue;
                }
                if (++bad > MAX_WARNINGS_PER_FILE)
                        continue;
                if (p->kind == HT_GRUB_LEGACY_JUNK)
                        ht_facts_warn(f, "%s:%u: binary junk, ignored", where, p->line);
                else
                        ht_facts_warn(f, "%s:%u: %s, ignored", where, p->line, p->message);
        }
        if (bad > MAX_WARNINGS_PER_FILE)
                ht_facts_warn(f, "%s: %u more bad lines", where, bad - MAX_WARNINGS_PER_FILE);
        for (size_t i = 0; i < c->n_entries; i++) {
                const ht_grub_legacy_entry *g = &c->entries[i];
                ht_boot_entry *e = add_entry(f);
                e->title = xstrdup(g->title);
                e->kernel = g->linux_kernel ? xstrdup(g->linux_kernel) : NULL;
                e->version = g->linux_kernel ? ht_kernel_image_version(g->linux_kernel) : NULL;
                e->options = g->linux_args ? xstrdup(g->linux_args) : NULL;
                e->chainloader = g->chainloader;
                e->xen = g->xen || version_is_xen(e->version);
                e->linux_image = g->linux_kernel && g->linux_image && !g->chainloader;
                if (!g->kernel && !g->chainloader)
                        ht_facts_warn(f, "%s: entry \"%s\" has no kernel line", where, g->title);
                else if (g->kernel && !g->linux_kernel)
                        ht_facts_warn(f, "%s: entry \"%s\" loads Xen but no Linux kernel (module line)", where,
                                      g->title);
        }
        if (f->n_boot_entries == 0) {
                ht_facts_warn(f, "%s: no title entries", where);
                return;
        }

        /* Without default= legacy GRUB boots the first entry; a bad last
         * default line leaves it unknown (GRUB refuses that line). */
        if (bad_default && bad_default->line > c->default_line) {
                ht_facts_warn(f, "%s:%u: default=%.20s is not an entry number, default entry unknown", where,
                              bad_default->line, bad_default->text);
                return;
        }
        if (c->default_entry < 0) {
                /* the number is in /boot/grub/default: see
                 * ht_facts_parse_grub_default() */
                f->grub_legacy_saved = true;
                return;
        }
        if ((size_t)c->default_entry >= f->n_boot_entries) {
                ht_facts_warn(f, "%s:%u: default=%d is out of range (%zu entries), default entry unknown", where,
                              c->default_line, c->default_entry, f->n_boot_entries);
                return;
        }
        f->grub_legacy_default = c->default_entry;
        f->default_entry = c->default_entry;
}

void ht_facts_parse_grub_default(ht_facts *f, const char *buf, size_t len, const char *where) {
        unsigned d;
        _cleanup_free_ char *w = NULL;
        if (ht_grub_legacy_saved_default(buf, len, &d, &w) < 0) {
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
        _cleanup_(ht_grubenv_freep) ht_grubenv *env = ht_grubenv_parse_block(buf, len);
        for (size_t i = 0; i < env->n_problems; i++) {
                const ht_format_problem *p = &env->problems[i];
                switch (p->kind) {
                case HT_GRUBENV_NO_HEADER:
                        ht_facts_warn(f, "%s: no \"# GRUB Environment Block\" header, ignored", where);
                        return;
                case HT_GRUBENV_NUL:
                        ht_facts_check_nul(f, buf, len, where);
                        break;
                case HT_GRUBENV_BAD_LINE:
                        ht_facts_warn(f, "%s:%u: not a name=value line, ignored", where, p->line);
                        break;
                case HT_GRUBENV_TRUNCATED:
                        ht_facts_warn(f, "%s:%u: no newline after the last variable, ignored (GRUB stops there)",
                                      where, p->line);
                        break;
                }
        }
        /* grub-editenv refuses a block of any other size */
        if (len != HT_GRUBENV_SIZE)
                ht_facts_warn(f, "%s: %zu bytes, GRUB wants exactly %d", where, len, HT_GRUBENV_SIZE);
        for (size_t i = 0; i < env->n; i++) {
                const ht_grubenv_var *v = &env->vars[i];
                if (has_control_chars(v->value)) {
                        /* an escaped newline: GRUB takes it, a fact cannot show it */
                        ht_facts_warn(f, "%s:%u: %s holds control characters, ignored", where, v->line, v->name);
                        continue;
                }
                strv_pushf(&f->grubenv, "%s=%s", v->name, v->value);
                if (streq(v->name, "kernelopts")) {
                        free(f->grubenv_kernelopts);
                        f->grubenv_kernelopts = xstrdup(v->value);
                } else if (streq(v->name, "saved_entry")) {
                        free(f->grubenv_saved_entry);
                        f->grubenv_saved_entry = xstrdup(v->value);
                }
        }
}

/* grubenv's value of name as GRUB's load_env leaves it: the last line. */
static const char *facts_grubenv_lookup(const void *userdata, const char *name) {
        const ht_facts *f = userdata;
        size_t n = strlen(name);
        const char *found = NULL;
        for (size_t i = 0; f->grubenv && f->grubenv[i]; i++)
                if (strncmp(f->grubenv[i], name, n) == 0 && f->grubenv[i][n] == '=')
                        found = f->grubenv[i] + n + 1;
        return found;
}

void ht_parse_bls_entry(ht_facts *f, const char *buf, size_t len, const char *where,
                        ht_boot_entry *e) {
        _cleanup_(ht_bls_entry_freep) ht_bls_entry *b = ht_bls_parse_entry(buf, len);
        for (size_t i = 0; i < b->n_problems && i < MAX_WARNINGS_PER_FILE; i++)
                ht_facts_warn(f, "%s:%u: %s, ignored", where, b->problems[i].line,
                              startswith(b->problems[i].message, "invalid") ? b->problems[i].message
                                                                             : "binary junk");
        if (b->n_problems > MAX_WARNINGS_PER_FILE)
                ht_facts_warn(f, "%s: %zu more bad lines", where, b->n_problems - MAX_WARNINGS_PER_FILE);
        const char *title = ht_bls_get(b, "title"), *image = ht_bls_get(b, "linux"),
                   *version = ht_bls_get(b, "version");
        if (title) {
                free(e->title);
                e->title = xstrdup(title);
        }
        if (image) {
                free(e->kernel);
                e->kernel = xstrdup(image);
        }
        if (version) {
                free(e->version);
                e->version = xstrdup(version);
        }
        if (!e->kernel)
                ht_facts_warn(f, "%s: no linux line", where);
        if (!e->version && e->kernel)
                e->version = ht_kernel_image_version(e->kernel);
        if (!e->title)
                e->title = xstrdup(e->version ? e->version : e->id ? e->id : "");
        e->xen = (e->kernel && ht_is_xen_hypervisor_image(e->kernel)) || version_is_xen(e->version);
        e->linux_image = e->kernel && !ht_is_xen_hypervisor_image(e->kernel);
        _cleanup_free_ char *options = ht_bls_options(b);
        if (options) {
                free(e->options);
                e->options = ht_bls_expand(options, facts_grubenv_lookup, f);
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

/* Whether the host's grub-mkconfig sources /etc/default/grub.d/ *.cfg
 * after /etc/default/grub. Debian's does (a Debian patch: its
 * grub-mkconfig has `for x in ${sysconfdir}/default/grub.d/ *.cfg`, and
 * Ubuntu's cloud images set GRUB_CMDLINE_LINUX_DEFAULT in
 * 50-cloudimg-settings.cfg there); upstream's, RHEL's and Fedora's
 * (rhboot/grub2, util/grub-mkconfig.in) and SUSE's read
 * /etc/default/grub only, so there a grub.d file sets nothing and
 * editing it would change no boot entry. The script itself says; without
 * one (an image before its GRUB package), the distribution does. */
static bool grub_reads_grub_d(const ht_context *c, ht_facts *f) {
        /* nothing to read: no question to ask (and no look for scripts) */
        _cleanup_strv_free_ char **names = NULL;
        (void)ht_list_dir(c, HT_GRUB_DEFAULTS_DIR, ".cfg", &names);
        _cleanup_strv_free_ char **files = ht_grub_defaults_files(names);
        if (strv_length(files) <= 1)
                return false;
        /* Arch Linux's grub-mkconfig reads no grub.d, and its wiki (and
         * tools) append to /etc/default/grub a loop that sources
         * /etc/default/grub.d/ *.cfg: then it is read, at the end */
        char *dflt;
        size_t dlen;
        if (ht_facts_read(c, f, HT_GRUB_DEFAULTS, false, &dflt, &dlen) == 0) {
                bool sources = false;
                for (const char *l = dflt; l && l < dflt + dlen && !sources;) {
                        const char *nl = memchr(l, '\n', (size_t)(dflt + dlen - l));
                        size_t n = nl ? (size_t)(nl - l) : (size_t)(dflt + dlen - l);
                        size_t b = strspn(l, " \t");
                        sources = b < n && l[b] != '#' && memmem(l, n, "/default/grub.d/", 16);
                        l = nl ? nl + 1 : NULL;
                }
                free(dflt);
                if (sources)
                        return true;
        }
        for (size_t i = 0; ht_grub_mkconfig_paths[i]; i++) {
                char *buf;
                size_t len;
                if (ht_facts_read(c, f, ht_grub_mkconfig_paths[i], false, &buf, &len) < 0)
                        continue;
                bool reads = memmem(buf, len, "/default/grub.d/", strlen("/default/grub.d/")) != NULL;
                free(buf);
                return reads;
        }
        return ht_facts_os_debian_like(f);
}

bool ht_facts_os_debian_like(const ht_facts *f) {
        _cleanup_free_ char *ids = xasprintf("%s %s", f->os_id ? f->os_id : "", f->os_id_like ? f->os_id_like : "");
        _cleanup_strv_free_ char **w = strv_split(ids, " ");
        return strv_contains(w, "debian") || strv_contains(w, "ubuntu");
}

/* The GRUB defaults as grub-mkconfig leaves them after sourcing
 * /etc/default/grub and then /etc/default/grub.d/ *.cfg in order (the
 * files and the one reader the cmdline backend edits with,
 * format-grub-defaults.h):
 * GRUB_DEFAULT, GRUB_ENABLE_BLSCFG and the command line words. A value
 * that needs shell code to compute is unknown, and said so. */
static void collect_grub_defaults(const ht_context *c, ht_facts *f, bool *ret_blscfg) {
        _cleanup_strv_free_ char **names = NULL;
        if (f->grub_reads_grub_d)
                (void)ht_list_dir(c, HT_GRUB_DEFAULTS_DIR, ".cfg", &names);
        _cleanup_strv_free_ char **order = ht_grub_defaults_files(names);
        _cleanup_(ht_grub_env_freep) ht_grub_env *env = ht_grub_env_new();
        for (size_t i = 0; order[i]; i++) {
                char *buf;
                size_t len;
                if (ht_facts_read(c, f, order[i], false, &buf, &len) < 0)
                        continue;
                _cleanup_free_ char *d = ht_display_path(c, order[i]), *err = NULL;
                if (len > HT_GRUB_DEFAULTS_MAX) {
                        /* what the cmdline backend refuses to edit */
                        ht_facts_warn(f, "%s: larger than 1 MiB, not read", d);
                        free(buf);
                        continue;
                }
                if (ht_grub_eval_host(c, order[i], env, i, buf, len, &err) < 0)
                        /* the shell would stop there too */
                        ht_facts_warn(f, "%s:%s, not read", d, err);
                free(buf);
        }
        static const struct {
                const char *name;
                size_t off;
        } vars[] = {
                {"GRUB_DEFAULT", offsetof(ht_facts, grub_default)},
                {"GRUB_CMDLINE_LINUX", offsetof(ht_facts, grub_cmdline_linux)},
                {"GRUB_CMDLINE_LINUX_DEFAULT", offsetof(ht_facts, grub_cmdline_linux_default)},
                {"GRUB_ENABLE_BLSCFG", 0},
        };
        for (size_t i = 0; i < ELEMENTSOF(vars); i++) {
                const ht_grub_var *v = ht_grub_env_get(env, vars[i].name);
                if (!v)
                        continue;
                if (!v->value || has_control_chars(v->value) || !ht_valid_utf8(v->value)) {
                        _cleanup_free_ char *d = ht_display_path(c, order[v->file]);
                        ht_facts_warn(f, "%s:%s: %s unknown", d, v->why ? v->why : "control characters",
                                      vars[i].name);
                        continue;
                }
                if (!vars[i].off) {
                        *ret_blscfg = streq(v->value, "true");
                        continue;
                }
                char **dst = (char **)((char *)f + vars[i].off);
                free(*dst);
                *dst = xstrdup(v->value);
        }
}

/* A grub.cfg that only hands over to another one (Debian's and RHEL 9's
 * EFI stubs: "search ...; configfile $prefix/grub.cfg"). */
static bool is_stub_cfg(const char *buf) {
        return strstr(buf, "configfile") && !strstr(buf, "menuentry") && !strstr(buf, "blscfg");
}

/* The directory of the ESP the distribution's GRUB is installed in:
 * os-release's ID, but Red Hat's and Oracle's packages use "redhat"
 * (grub2.spec: efi_vendor is ID with "rhel" made "redhat"; Oracle Linux
 * 7 and 8 document /boot/efi/EFI/redhat/grub.cfg). */
static const char *efi_vendor(const char *os_id) {
        if (streq_ptr(os_id, "rhel") || streq_ptr(os_id, "ol"))
                return "redhat";
        return os_id;
}

/* Whether path is a grub.cfg that is not a stub; *ret_has_blscfg set
 * when it is. */
static bool real_grub_cfg(const ht_context *c, ht_facts *f, const char *path, bool *ret_has_blscfg) {
        char *buf;
        size_t len;
        if (ht_facts_read(c, f, path, false, &buf, &len) < 0)
                return false;
        bool hands_over = is_stub_cfg(buf);
        bool blscfg = strstr(buf, "blscfg") != NULL;
        free(buf);
        if (!hands_over)
                *ret_has_blscfg = blscfg;
        return !hands_over;
}

static char *find_grub_cfg(const ht_context *c, ht_facts *f, bool *ret_has_blscfg) {
        if (f->efi) {
                _cleanup_strv_free_ char **vendors = NULL;
                if (ht_list_dir(c, "/boot/efi/EFI", NULL, &vendors) == 0) {
                        const char *own = efi_vendor(f->os_id);
                        /* the OS's own vendor directory first */
                        if (own && strv_contains(vendors, own)) {
                                char *p = xasprintf("/boot/efi/EFI/%s/grub.cfg", own);
                                if (real_grub_cfg(c, f, p, ret_has_blscfg))
                                        return p;
                                free(p);
                        }
                        /* another's only when it is the only one: a
                         * directory left by another distribution (a
                         * CentOS converted to RHEL or Oracle Linux keeps
                         * EFI/centos) must not be the one edited */
                        _cleanup_strv_free_ char **others = NULL;
                        bool blscfg = false;
                        for (size_t i = 0; vendors[i]; i++) {
                                if (own && streq(vendors[i], own))
                                        continue;
                                _cleanup_free_ char *p = xasprintf("/boot/efi/EFI/%s/grub.cfg", vendors[i]);
                                if (real_grub_cfg(c, f, p, &blscfg))
                                        strv_push(&others, p);
                        }
                        if (others && !others[1]) {
                                *ret_has_blscfg = blscfg;
                                return xstrdup(others[0]);
                        }
                        if (others) {
                                free(f->grub_cfg_ambiguous);
                                f->grub_cfg_ambiguous = strv_join(others, ", ");
                                ht_facts_warn(f, "several grub.cfg on the EFI system partition (%s), none in the "
                                              "directory of this OS (%s): none is taken", f->grub_cfg_ambiguous,
                                              own ? own : "its ID is unknown");
                                return NULL;
                        }
                }
        }
        static const char *const bios[] = {"/boot/grub2/grub.cfg", "/boot/grub/grub.cfg"};
        for (size_t i = 0; i < ELEMENTSOF(bios); i++)
                if (real_grub_cfg(c, f, bios[i], ret_has_blscfg))
                        return xstrdup(bios[i]);
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

/* SUSE's /etc/sysconfig/bootloader LOADER_TYPE (the last assignment),
 * NULL none: perl-Bootloader and sdbootutil act on it; "systemd-boot" and
 * "grub2-bls" keep the entries on the ESP, even where /etc/default/grub
 * and a grub.cfg are still installed. */
static char *suse_loader_type(const ht_context *c, ht_facts *f) {
        char *buf;
        size_t len;
        /* SUSE's file only: no read on other hosts' plans (os-release ID
         * "sles", "sle-micro", "opensuse-*", ID_LIKE "suse") */
        bool suse = (f->os_id && (startswith(f->os_id, "sle") || strstr(f->os_id, "suse"))) ||
                    (f->os_id_like && strstr(f->os_id_like, "suse"));
        if (!suse)
                return NULL;
        if (ht_facts_read(c, f, "/etc/sysconfig/bootloader", false, &buf, &len) < 0)
                return NULL;
        char *type = NULL;
        _cleanup_strv_free_ char **lines = strv_split(buf, "\n");
        free(buf);
        for (size_t i = 0; lines[i]; i++) {
                const char *l = strstrip(lines[i]);
                if (!startswith(l, "LOADER_TYPE="))
                        continue;
                char *v = ht_shell_unquote(l + strlen("LOADER_TYPE="));
                if (v) {
                        free(type);
                        type = v;
                }
        }
        return type;
}

/* The first ESP directory with BLS entries, NULL none. */
static const char *esp_entries_dir(const ht_context *c) {
        static const char *const esp_dirs[] = {"/boot/efi/loader/entries", "/efi/loader/entries"};
        for (size_t i = 0; i < ELEMENTSOF(esp_dirs); i++) {
                _cleanup_strv_free_ char **names = NULL;
                if (ht_list_dir(c, esp_dirs[i], ".conf", &names) == 0 && names[0])
                        return esp_dirs[i];
        }
        return NULL;
}

void ht_facts_collect_boot(const ht_context *c, ht_facts *f) {
        /* An image has no /sys to ask: its ESP's contents tell. */
        f->efi = ht_exists(c, "/sys/firmware/efi") || (f->offline && ht_exists(c, "/boot/efi/EFI"));

        bool blscfg = false, cfg_blscfg = false;
        char *buf;
        size_t len;
        bool have_default_grub = ht_facts_read(c, f, "/etc/default/grub", false, &buf, &len) == 0;
        f->grub_reads_grub_d = grub_reads_grub_d(c, f);
        if (have_default_grub) {
                free(buf);
                collect_grub_defaults(c, f, &blscfg);
        }
        f->grub_cfg = find_grub_cfg(c, f, &cfg_blscfg);

        /* s390x boots with zipl: its boot record is written only when
         * zipl runs, from /etc/zipl.conf and, on RHEL 8+, the BLS
         * entries; the default is zipl.conf's default= (a BLS version),
         * not grubenv's saved_entry (grubby-bls, rhboot/grubby:
         * bootloader="zipl" on s390x, get_default_index). Editing the
         * entries alone changes nothing at the next boot, and GRUB's
         * default would name a wrong entry: a kind of its own, which the
         * cmdline backend refuses. */
        if (!have_default_grub && !f->grub_cfg &&
            (ht_exists(c, "/etc/zipl.conf") || ht_exists(c, "/run/zipl/zipl.conf"))) {
                f->bootloader = HT_BOOT_ZIPL;
                return;
        }

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
        /* systemd-boot with its entries on the ESP (kernel-install's
         * $BOOT without an XBOOTLDR partition; Debian's systemd-boot
         * package mounts the ESP on /boot/efi): not the entries hosttune
         * edits, a kind of its own that the cmdline backend refuses,
         * instead of "no bootloader" or, in an image, GRUB's grub.d */
        _cleanup_free_ char *loader_type = suse_loader_type(c, f);
        bool suse_esp = streq_ptr(loader_type, "systemd-boot") || streq_ptr(loader_type, "grub2-bls");
        if (suse_esp || (!bls[0] && !have_default_grub && !f->grub_cfg)) {
                const char *esp = esp_entries_dir(c);
                if (esp || suse_esp) {
                        f->bootloader = HT_BOOT_ESP_BLS;
                        f->esp_entries = esp ? xstrdup(esp) : NULL;
                        return;
                }
        }
        if (have_default_grub || f->grub_cfg) {
                f->bootloader = HT_BOOT_GRUB2;
                if (!f->grub_cfg && !f->grub_cfg_ambiguous) {
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
