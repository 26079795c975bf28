/* The cmdline backend: no bootloader (cmdline-common.h). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backend-common.h"
#include "cmdline-common.h"
#include "edit-bls.h"
#include "edit-grub-cfg.h"
#include "edit-grub-legacy.h"
#include "edit-grub.h"
#include "util.h"

/* ---- no bootloader ----------------------------------------------------- */

/* Who sets the kernel command line of a host that has no bootloader of
 * its own: a container runs on its node's kernel, a direct-kernel VM gets
 * its command line from the VMM on the VM's host. NULL when the facts do
 * not say (an unrecognised host, or a broken one): then hosttune cannot
 * tell that skipping is right. */
static char *cmdline_owner(const ht_facts *f, char **ret_why) {
        const char *sign = f->container_evidence ? f->container_evidence[0] :
                           f->direct_kernel_evidence ? f->direct_kernel_evidence[0] : NULL;
        char *who = NULL;
        if (f->container) {
                /* WSL's kernel takes its command line from Windows
                 * (learn.microsoft.com/windows/wsl/wsl-config, "kernelCommandLine") */
                who = streq(f->container, "kubernetes") ?
                        xstrdup("the Kubernetes node that runs this pod (its bootloader or machine image)") :
                      streq(f->container, "wsl") ?
                        xstrdup("Windows, in kernelCommandLine of the [wsl2] section of %UserProfile%\\.wslconfig "
                                "(then wsl --shutdown)") :
                        xstrdup("the host that runs this container (its bootloader)");
                *ret_why = xasprintf("this is a container (%s%s%s), which runs on its host's kernel", f->container,
                                     sign ? "; " : "", sign ? sign : "");
        } else if (f->direct_kernel) {
                who = xstrdup("the VM's host, in the VMM's boot arguments (Firecracker boot_args, "
                              "cloud-hypervisor --cmdline, qemu -append)");
                *ret_why = xstrdup("this is a virtual machine booted with a kernel its VMM gives directly "
                                   "(no bootloader in the guest; see bootloader.direct_kernel_detected_by in "
                                   "hosttune facts)");
        }
        return who;
}

/* A host without a bootloader hosttune edits whose kernels kernel-install
 * adds: its command line file, and unified kernel images (type #2 BLS
 * entries in EFI/Linux of the ESP or XBOOTLDR, which systemd-boot boots
 * and which embed the command line they were built with). What to say
 * instead of "a container?"; NULL: nothing of the kind. */
static char *kernel_install_hint(const ht_context *c) {
        static const char *const uki_dirs[] = {"/boot/efi/EFI/Linux", "/efi/EFI/Linux", "/boot/EFI/Linux"};
        const char *uki = NULL;
        for (size_t i = 0; i < ELEMENTSOF(uki_dirs) && !uki; i++) {
                _cleanup_strv_free_ char **names = NULL;
                if (ht_list_dir(c, uki_dirs[i], ".efi", &names) == 0 && names[0])
                        uki = uki_dirs[i];
        }
        const char *file = ht_exists(c, HT_KERNEL_CMDLINE)       ? HT_KERNEL_CMDLINE
                           : ht_exists(c, HT_KERNEL_CMDLINE_USR) ? HT_KERNEL_CMDLINE_USR
                                                                  : NULL;
        if (!uki && !file)
                return NULL;
        _cleanup_free_ char *where = uki ? xasprintf("the unified kernel images in %s embed the command line "
                                                     "they were built with; ", uki) : NULL;
        return xasprintf("%skernel-install builds the boot entry or unified kernel image of each kernel it adds "
                         "from %s, which hosttune does not edit alone (it would not reach the installed kernels): "
                         "set the words in /etc/kernel/cmdline and run kernel-install add for each installed kernel",
                         where ? where : "", file ? file : "/etc/kernel/cmdline");
}

void cmdline_plan_no_bootloader(const ht_context *c, const ht_facts *f, const op_list *linux_ops,
                                const op_list *xen_ops, bool optional_only, ht_plan *plan) {
        _cleanup_free_ char *why = NULL;
        _cleanup_free_ char *who = cmdline_owner(f, &why);
        _cleanup_free_ char *skipped_words = NULL;
        for (size_t i = 0; i < linux_ops->n + xen_ops->n; i++) {
                const ht_setting *s = i < linux_ops->n ? linux_ops->settings[i] : xen_ops->settings[i - linux_ops->n];
                _cleanup_free_ char *word = NULL, *what = NULL;
                ht_change *ch = cmdline_add_unplanned_word(plan, s, &word, &what);
                if (who && s->required) {
                        ch->outcome = HT_OUTCOME_FAILED;
                        ht_plan_error(plan, "%s: the kernel command line word %s is marked required, but %s: "
                                      "hosttune cannot set it here; set it on %s", s->source, word, why, who);
                } else if (who) {
                        ch->outcome = HT_OUTCOME_SKIPPED;
                        ch->note = ht_plan_printf(plan, "set by %s, not here", who);
                        ht_plan_skip_set_by(plan, what, s->source, who,
                                            "%s: the kernel command line is set by %s, not here", word, who);
                        if (!s->optional) {
                                char *l = xasprintf("%s%s%s", skipped_words ? skipped_words : "",
                                                    skipped_words ? " " : "", word);
                                free(skipped_words);
                                skipped_words = l;
                        }
                } else {
                        ch->outcome = s->optional ? HT_OUTCOME_SKIPPED : HT_OUTCOME_FAILED;
                        if (optional_only)
                                ht_plan_skip(plan, what, s->source, "%s: no bootloader configuration "
                                             "found (a container?)", word);
                }
        }
        /* One warning for what the profile wanted and did not get: the
         * words still matter, only somebody else must set them. */
        if (skipped_words)
                ht_plan_warn(plan, "kernel command line not planned (%s): %s; set it on %s. The rest of the "
                             "profile is planned; mark a word required = true to make this an error",
                             skipped_words, why, who);
        /* facts found /etc/grub.conf and did not take it (SUSE's
         * grub-install script): say so where the error is read */
        const char *script = ht_exists(c, "/etc/grub.conf") ? "; /etc/grub.conf is not a boot menu" : "";
        _cleanup_free_ char *install = kernel_install_hint(c);
        if (!who && !optional_only)
                ht_plan_error(plan, "no bootloader configuration found (no /etc/default/grub, BLS entries or grub.conf%s): "
                              "the kernel command line cannot be set here; %s", script,
                              install ? install : "in a container, set it on the host");
}

/* ---- bootloaders hosttune does not edit ------------------------------------ */

/* zipl writes the boot record from /etc/zipl.conf (and the BLS entries
 * on RHEL 8+) only when it runs; hosttune edits neither nor runs zipl,
 * so nothing it wrote would reach the next boot. Red Hat's procedure:
 * grubby --update-kernel=ALL --args=..., then zipl ("Configuring kernel
 * command-line parameters", RHEL 8/9, IBM Z). s390x has no other
 * bootloader, so as where another machine sets the command line
 * (cmdline_plan_no_bootloader) a word is skipped with one warning that
 * says how to set it, and the rest of the profile is planned; a word
 * the profile marks required is the error. (Refusing every word failed
 * every workload profile on s390x: rules/40-thp.rules' THP word alone
 * made plan oracle exit 1, its sysctl, limits and HugePages unplanned,
 * while the THP setting itself reaches each boot through tmpfiles.d.)
 * systemd-boot with its entries on the ESP (Debian's systemd-boot
 * package, kernel-install's $BOOT when there is no XBOOTLDR partition:
 * /boot/efi/loader/entries or /efi/loader/entries): hosttune's BLS
 * editor knows /boot/loader/entries only; kernel-install writes the
 * entries of new kernels from /etc/kernel/cmdline. */
void cmdline_plan_refused(const ht_facts *f, const op_list *linux_ops, const op_list *xen_ops,
                          const ht_setting *default_req, ht_plan *plan) {
        bool zipl = f->bootloader == HT_BOOT_ZIPL;
        const char *esp = f->esp_entries ? f->esp_entries : "the ESP";
        _cleanup_free_ char *zipl_words = NULL, *zipl_args = NULL, *zipl_remove = NULL;
        for (size_t i = 0; i < linux_ops->n + xen_ops->n; i++) {
                const ht_setting *s = i < linux_ops->n ? linux_ops->settings[i] : xen_ops->settings[i - linux_ops->n];
                _cleanup_free_ char *word = NULL, *what = NULL;
                ht_change *ch = cmdline_add_unplanned_word(plan, s, &word, &what);
                if (zipl && !s->optional && !s->required) {
                        ch->outcome = HT_OUTCOME_SKIPPED;
                        ch->note = ht_plan_printf(plan, "set with grubby and zipl, not by hosttune");
                        ht_plan_skip_set_by(plan, what, s->source, "grubby and zipl",
                                            "%s: this host boots with zipl (/etc/zipl.conf), which hosttune does "
                                            "not edit or run: set with grubby and zipl, not here", word);
                        char **list = s->remove ? &zipl_remove : &zipl_args;
                        char *l = xasprintf("%s%s%s%s%s", *list ? *list : "", *list ? " " : "", s->key,
                                            isempty(s->value) || s->remove ? "" : "=", s->remove ? "" : s->value);
                        free(*list);
                        *list = l;
                        l = xasprintf("%s%s%s", zipl_words ? zipl_words : "", zipl_words ? " " : "", word);
                        free(zipl_words);
                        zipl_words = l;
                        continue;
                }
                if (s->optional) {
                        ch->outcome = HT_OUTCOME_SKIPPED;
                        if (f->bootloader == HT_BOOT_GRUB2)
                                ht_plan_skip(plan, what, s->source, "%s: which grub.cfg on the EFI system "
                                             "partition boots is not known (%s)", word, f->grub_cfg_ambiguous);
                        else if (zipl)
                                ht_plan_skip(plan, what, s->source, "%s: this host boots with zipl "
                                             "(/etc/zipl.conf), which hosttune does not edit", word);
                        else
                                ht_plan_skip(plan, what, s->source, "%s: this host boots with systemd-boot, its "
                                             "entries in %s, which hosttune does not edit", word, esp);
                        continue;
                }
                ch->outcome = HT_OUTCOME_FAILED;
                if (f->bootloader == HT_BOOT_GRUB2)
                        ht_plan_error(plan, "%s: the kernel command line word %s cannot be set here: the EFI system "
                                      "partition holds several grub.cfg (%s), none in this OS's own directory, and "
                                      "hosttune cannot tell which one the firmware boots (grub2-mkconfig would write "
                                      "a wrong one); remove the stale directory, then plan again",
                                      s->source, word, f->grub_cfg_ambiguous);
                else if (zipl)
                        ht_plan_error(plan, "%s: the kernel command line word %s is marked required, but it cannot be "
                                      "set here: this host boots "
                                      "with zipl (s390x, /etc/zipl.conf), whose boot record only zipl writes, and "
                                      "hosttune does not edit its files or run it; set it with grubby "
                                      "--update-kernel=ALL %s%s%s%s (BLS entries, RHEL 8+) or in parameters= of "
                                      "/etc/zipl.conf, then run zipl",
                                      s->source, word, s->remove ? "--remove-args=" : "--args=", s->key,
                                      isempty(s->value) ? "" : "=", s->value ? s->value : "");
                else
                        ht_plan_error(plan, "%s: the kernel command line word %s cannot be set here: this host boots "
                                      "with systemd-boot, its entries in %s (the EFI system partition), which "
                                      "hosttune does not edit (it edits BLS entries in /boot/loader/entries only); "
                                      "set the word in each entry's options line there and in /etc/kernel/cmdline, "
                                      "from which kernel-install writes the entries of new kernels",
                                      s->source, word, esp);
        }
        if (zipl_words)
                ht_plan_warn(plan, "kernel command line not planned (%s): this host boots with zipl (s390x, "
                             "/etc/zipl.conf), whose boot record only zipl writes, and hosttune does not edit its "
                             "files or run it; set %s with grubby --update-kernel=ALL%s%s%s%s%s%s (BLS entries, "
                             "RHEL 8+) or in parameters= of /etc/zipl.conf, then run zipl. The rest of the profile "
                             "is planned; mark a word required = true to make this an error",
                             zipl_words, strchr(zipl_words, ' ') ? "them" : "it",
                             zipl_args ? " --args=\"" : "", zipl_args ? zipl_args : "", zipl_args ? "\"" : "",
                             zipl_remove ? " --remove-args=\"" : "", zipl_remove ? zipl_remove : "",
                             zipl_remove ? "\"" : "");
        if (default_req)
                ht_plan_error(plan, f->bootloader == HT_BOOT_GRUB2 ? "%s: changing the default boot entry needs "
                                    "the grub.cfg the firmware boots, which is not known"
                                  : zipl ? "%s: changing the default boot entry is not supported with zipl; set "
                                           "default= in /etc/zipl.conf (grubby --set-default) and run zipl"
                                         : "%s: changing the default boot entry is not supported with systemd-boot; "
                                           "use bootctl set-default",
                              default_req->source);
}
