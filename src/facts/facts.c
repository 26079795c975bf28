/* Host facts: the order in which the collectors run, the top of the
 * facts room (docs/DESIGN.md, "Rooms": facts-util.c below every
 * collector, facts-object.c, facts-json.c and facts-load.c above them). */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>

#include "facts-internal.h"
#include "facts.h"
#include "util.h"

/* systemd, the way sd_booted() decides it, but under the root; audit from
 * a probe that needs no privilege. */
static void collect_services(const ht_context *c, ht_facts *f) {
        f->systemd_running = ht_context_systemd_booted(c);

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
                /* every policy and disk: read by plans only when an
                 * expression names them (ht_facts_devices_json) */
                if (scope == HT_FACTS_WITH_WORKLOAD) {
                        ht_facts_collect_cpufreq(c, f);
                        ht_facts_collect_block(c, f);
                }
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
                ht_facts_collect_tuners(c, f);
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
                /* an image's enabled units start when it boots */
                ht_facts_collect_tuners(c, f);
        }
        if (scope == HT_FACTS_WITH_WORKLOAD)
                ht_facts_collect_workload(c, f);
        *ret = f;
        return 0;
}
