/* Host facts: the object, warnings, reading sources through the context,
 * and the order in which the collectors run. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "facts-internal.h"
#include "facts.h"
#include "util.h"

ht_facts *ht_facts_new(void) {
        ht_facts *f = xcalloc(1, sizeof(*f));
        f->mem_total_kb = f->mem_free_kb = f->mem_available_kb = HT_U64_UNKNOWN;
        f->page_tables_kb = f->swap_total_kb = HT_U64_UNKNOWN;
        f->hugepages_supported = HT_UNKNOWN;
        f->hugepages_total = f->hugepages_free = HT_U64_UNKNOWN;
        f->hugepages_rsvd = f->hugepages_surp = HT_U64_UNKNOWN;
        f->hugepage_default_kb = HT_U64_UNKNOWN;
        f->thp_supported = HT_UNKNOWN;
        f->hugetext_supported = HT_UNKNOWN;
        f->hugetext_enabled = -1;
        f->hugetext_pad_threshold = -1;
        f->grub_legacy_default = -1;
        f->default_entry = -1;
        f->switch_thp = HT_UNKNOWN;
        f->sys_readonly = f->proc_sys_readonly = HT_UNKNOWN;
        f->oracle_uid = -1;
        f->warnings = xcalloc(1, sizeof(char *));
        return f;
}

void ht_facts_warn(ht_facts *f, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        char *s = xvasprintf(fmt, ap);
        va_end(ap);
        /* Sources are untrusted: never let a byte of junk reach a terminal. */
        for (char *p = s; *p; p++)
                if ((unsigned char)*p < 0x20 || *p == 0x7f)
                        *p = '?';
        strv_push_take(&f->warnings, s);
}

void ht_boot_entry_done(ht_boot_entry *e) {
        free(e->title);
        free(e->kernel);
        free(e->version);
        free(e->id);
        free(e->options);
        *e = (ht_boot_entry){0};
}

void ht_facts_free(ht_facts *f) {
        if (!f)
                return;
        free(f->kernel_release);
        free(f->kernel_cmdline);
        free(f->boot_id);
        free(f->xen_type);
        free(f->xen_guest_type);
        free(f->hypervisor);
        free(f->container);
        strv_free(f->container_evidence);
        strv_free(f->direct_kernel_evidence);
        free(f->root_fstype);
        free(f->os_id);
        free(f->os_version_id);
        free(f->os_id_like);
        free(f->os_name);
        free(f->os_pretty_name);
        free(f->hugepage_sizes_kb);
        free(f->thp_enabled);
        free(f->thp_defrag);
        free(f->thp_sysfs_dir);
        free(f->thp_cmdline);
        strv_free(f->cpu_flags);
        free(f->grub_cfg);
        free(f->grub_legacy_conf);
        free(f->grub_default);
        free(f->grubenv_kernelopts);
        free(f->grubenv_saved_entry);
        strv_free(f->grubenv);
        for (size_t i = 0; i < f->n_boot_entries; i++)
                ht_boot_entry_done(&f->boot_entries[i]);
        free(f->boot_entries);
        for (size_t i = 0; i < f->n_hugetlbfs; i++) {
                free(f->hugetlbfs[i].fstype);
                free(f->hugetlbfs[i].target);
        }
        free(f->hugetlbfs);
        free(f->shm);
        ht_facts_workload_free(f);
        free(f->facts_file);
        free(f->facts_file_ignored);
        free(f->image_why);
        free(f->image_warning);
        strv_free(f->warnings);
        free(f);
}

const char *ht_bootloader_kind_to_string(ht_bootloader_kind k) {
        switch (k) {
        case HT_BOOT_NONE: return "none";
        case HT_BOOT_GRUB2: return "grub2";
        case HT_BOOT_BLS: return "bls";
        case HT_BOOT_GRUB_LEGACY: return "grub-legacy";
        }
        return "none";
}

void ht_facts_warn_read_error(const ht_context *c, ht_facts *f, const char *path, int r) {
        _cleanup_free_ char *d = ht_display_path(c, path);
        if (r == -EXDEV)
                ht_facts_warn(f, "%s: a symlink leads out of the root, not followed", d);
        else if (r == -EFBIG)
                ht_facts_warn(f, "%s: too large for a fact source, ignored", d);
        else if (r == -ENOENT)
                ht_facts_warn(f, "%s: missing", d);
        else
                ht_facts_warn(f, "%s: cannot read: %s", d, ht_strerror(-r));
}

int ht_facts_read(const ht_context *c, ht_facts *f, const char *path, bool required,
                  char **ret, size_t *ret_len) {
        size_t len = 0;
        char *s;
        int r = ht_read_file(c, path, HT_FACTS_MAX_FILE, &s, &len);
        if (r < 0) {
                if (required || (r != -ENOENT && r != -ENOTDIR))
                        ht_facts_warn_read_error(c, f, path, r);
                return r;
        }
        if (ret_len)
                *ret_len = len;
        *ret = s;
        return 0;
}

int ht_facts_read_line(const ht_context *c, ht_facts *f, const char *path, bool required,
                       char **ret) {
        char *s;
        size_t len;
        int r = ht_facts_read(c, f, path, required, &s, &len);
        if (r < 0)
                return r;
        _cleanup_free_ char *d = ht_display_path(c, path);
        ht_facts_check_nul(f, s, len, d);
        len = strlen(s);
        while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r'))
                s[--len] = 0;
        if (has_control_chars(s) || strchr(s, '\n')) {
                ht_facts_warn(f, "%s: not a one-line value, ignored", d);
                free(s);
                return -EINVAL;
        }
        *ret = s;
        return 0;
}

bool ht_facts_check_nul(ht_facts *f, const char *buf, size_t len, const char *where) {
        if (strlen(buf) == len)
                return false;
        ht_facts_warn(f, "%s: holds binary data (NUL byte at offset %zu), read up to it", where,
                      strlen(buf));
        return true;
}

char *ht_cmdline_value(const char *cmdline, const char *key) {
        if (!cmdline)
                return NULL;
        size_t kl = strlen(key);
        char *found = NULL;
        const char *p = cmdline;
        while (*p) {
                while (isspace((unsigned char)*p))
                        p++;
                const char *start = p;
                /* quoted words ("a b") are one word to the kernel */
                bool quoted = false;
                while (*p && (quoted || !isspace((unsigned char)*p))) {
                        if (*p == '"')
                                quoted = !quoted;
                        p++;
                }
                size_t n = (size_t)(p - start);
                if (n > kl && strncmp(start, key, kl) == 0 && start[kl] == '=') {
                        free(found);
                        found = xstrndup(start + kl + 1, n - kl - 1);
                }
        }
        return found;
}

/* systemd, the way sd_booted() decides it, but under the root; audit from
 * a probe that needs no privilege. */
static void collect_services(const ht_context *c, ht_facts *f) {
        struct stat st;
        f->systemd_running = ht_lstat(c, "/run/systemd/system", &st) == 0 && S_ISDIR(st.st_mode);

        /* /proc/self/loginuid exists only when the kernel has the audit
         * subsystem (CONFIG_AUDIT); audit=0 on the command line turns it
         * off; and the kernel refuses audit records from containers (other
         * pid/user namespaces), so there it is not available either.
         * Reading the file needs no privilege and changes nothing. */
        _cleanup_free_ char *audit = ht_cmdline_value(f->kernel_cmdline, "audit");
        f->audit_available = ht_exists(c, "/proc/self/loginuid") && !streq_ptr(audit, "0") &&
                             !f->container;
}

bool ht_facts_root_live(const ht_context *c) {
        return ht_context_root_live(c);
}

int ht_facts_collect(const ht_context *c, ht_facts_scope scope, ht_facts **ret) {
        ht_facts *f = ht_facts_new();
        f->offline = !ht_facts_root_live(c);
        if (ht_context_image_why(c)) {
                /* the chroot recipe: said once, whatever else is said */
                f->image_why = xstrdup(ht_context_image_why(c));
                f->image_warning = xasprintf("%s is treated as an offline image: %s; nothing of the running "
                                             "kernel is read or changed", c->root, f->image_why);
                strv_push(&f->warnings, f->image_warning);
        }
        if (c->facts_file && !f->offline) {
                /* Mixing another machine's kernel with this one's would
                 * plan runtime changes against the wrong values. */
                _cleanup_free_ char *d = ht_display_path(c, "/proc/sys");
                f->facts_file_ignored = xasprintf("--facts %s is ignored: %s is there, so this root has a "
                                                  "running kernel whose facts are read instead",
                                                  c->facts_file, d);
                strv_push(&f->warnings, f->facts_file_ignored);
        }
        /* Order matters: the kernel command line feeds THP and audit, the
         * CPU flags feed hypervisor and gigantic pages, the OS id picks the
         * EFI vendor directory, Hugepagesize is the default page size of
         * hugetlbfs mounts, the mounts tell a container without markers, the
 * container and the bootloader tell a direct-kernel VM, the container
 * tells audit. */
        if (!f->offline) {
                ht_facts_collect_kernel(c, f);
                ht_facts_collect_os(c, f);
                ht_facts_collect_cpu(c, f);
                ht_facts_collect_virt(c, f);
                ht_facts_collect_memory(c, f);
                ht_facts_collect_thp(c, f);
                ht_facts_collect_shm(c, f);
                ht_facts_collect_boot(c, f);
                ht_facts_collect_switch(c, f);
                ht_facts_collect_mounts(c, f);
                ht_facts_collect_container(c, f);
                ht_facts_collect_direct_kernel(c, f);
                collect_services(c, f);
        } else {
                /* An image: no kernel, no processes, no mounts to read.
                 * The kernel facts come from --facts when given; the
                 * image's own files give the rest. */
                ht_facts_collect_os(c, f);
                if (c->facts_file) {
                        _cleanup_free_ char *err = NULL;
                        int r = ht_facts_load_kernel(f, c->facts_file, &err);
                        if (r < 0) {
                                ht_facts_free(f);
                                return r;
                        }
                } else {
                        ht_facts_warn(f, "%s is an offline image (%s): the facts only a running "
                                      "kernel knows (memory, HugePages, CPU, THP, hugetext, kernel release and "
                                      "command line) are unknown; pass --facts FILE from a machine of the target shape",
                                      c->root, f->image_why ? "its /proc and /sys are not its own" : "no /proc/sys or /sys");
                }
                ht_facts_collect_boot(c, f);
        }
        if (scope == HT_FACTS_WITH_WORKLOAD)
                ht_facts_collect_workload(c, f);
        *ret = f;
        return 0;
}
