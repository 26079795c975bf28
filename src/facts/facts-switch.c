/* Which boot entry a kernel switch makes the default. The old Xen kernels
 * (RHEL/OL 5 kernel-xen, SLES 11 kernel-xen) have no HugePages; a host
 * that needs them boots the distribution's non-Xen kernel instead. Only
 * an entry that boots Linux qualifies: grub.conf files also carry DOS or
 * Windows (chainloader +1), Memtest86+ (kernel --type=netbsd
 * /elf-memtest86+-4.10 or kernel /memtest86+-1.65) and the Xen entries
 * themselves, and a database server must never come up in any of them. */
#include "config.h"

#include <string.h>

#include "facts-internal.h"
#include "facts.h"
#include "util.h"

static bool qualifies(const ht_boot_entry *e) {
        return e->kernel && e->linux_image && !e->xen && !e->chainloader;
}

/* The running Xen kernel's release without Xen: RHEL/OL 5 build both from
 * one source package, "2.6.18-92.el5xen" and "2.6.18-92.el5" (kernel.spec's
 * xen variant only appends "xen"); SUSE names the flavour after a dash,
 * "2.6.16.60-0.21-xen" next to "-default", "-smp", "-pae", so the prefix
 * "2.6.16.60-0.21-" is returned and *ret_prefix set. NULL: not a Xen
 * release. */
static char *non_xen_release(const char *release, bool *ret_prefix) {
        if (!release || !endswith(release, "xen"))
                return NULL;
        size_t n = strlen(release) - 3;
        *ret_prefix = n > 0 && release[n - 1] == '-';
        return n > 0 ? xstrndup(release, n) : NULL;
}

/* Debug builds (kernel-debug: "2.6.18-398.el5debug") are for debugging,
 * not for the database: any other build of the same age wins. */
static bool is_debug(const char *version) {
        return version && endswith(version, "debug");
}

static bool newer(const ht_boot_entry *e, const ht_boot_entry *best) {
        if (!best)
                return true;
        if (!e->version || !best->version)
                return e->version && !best->version;
        if (is_debug(e->version) != is_debug(best->version))
                return !is_debug(e->version);
        return ht_version_compare(e->version, best->version) > 0;
}

int ht_boot_switch_entry(const ht_facts *f) {
        /* a default that boots Linux without Xen already is left alone */
        if (f->default_entry >= 0 && (size_t)f->default_entry < f->n_boot_entries &&
            qualifies(&f->boot_entries[f->default_entry]))
                return f->default_entry;
        bool prefix = false;
        _cleanup_free_ char *same = non_xen_release(f->kernel_release, &prefix);
        int same_at = -1, newest_at = -1;
        for (size_t i = 0; i < f->n_boot_entries; i++) {
                const ht_boot_entry *e = &f->boot_entries[i];
                if (!qualifies(e))
                        continue;
                if (same && e->version && same_at < 0 &&
                    (prefix ? startswith(e->version, same) && !is_debug(e->version) : streq(e->version, same)))
                        same_at = (int)i;
                if (newest_at < 0 || newer(e, &f->boot_entries[newest_at]))
                        newest_at = (int)i;
        }
        return same_at >= 0 ? same_at : newest_at;
}

/* The kernel packages of RHEL, Oracle Linux and SUSE install the build's
 * configuration as /boot/config-VERSION. A kernel built with
 * CONFIG_TRANSPARENT_HUGEPAGE=y has THP (mm/Kconfig, Linux 2.6.38; RHEL
 * 6's 2.6.32 as a backport); RHEL 5's configs have no such line. */
void ht_facts_collect_switch(const ht_context *c, ht_facts *f) {
        if (!f->kernel_xen)
                return;
        int i = ht_boot_switch_entry(f);
        if (i < 0 || !f->boot_entries[i].version)
                return;
        _cleanup_free_ char *path = xasprintf("/boot/config-%s", f->boot_entries[i].version);
        char *buf;
        size_t len;
        if (ht_path_check(path) < 0 || ht_facts_read(c, f, path, false, &buf, &len) < 0)
                return;
        f->switch_thp = HT_NO;
        _cleanup_strv_free_ char **lines = strv_split(buf, "\n");
        free(buf);
        for (size_t k = 0; lines[k]; k++)
                if (streq(strstrip(lines[k]), "CONFIG_TRANSPARENT_HUGEPAGE=y"))
                        f->switch_thp = HT_YES;
}
