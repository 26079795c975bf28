/* The cmdline backend: BLS (cmdline-common.h). */
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

/* ---- BLS ---------------------------------------------------------------- */

/* The grubenv file itself: on EFI hosts /boot/grub2/grubenv is a link
 * into the ESP, which grub2-editenv writes through and hosttune edits. */
static char *grubenv_path(const ht_context *c) {
        const char *p = ht_exists(c, "/boot/grub2/grubenv") ? "/boot/grub2/grubenv" :
                        ht_exists(c, "/boot/grub/grubenv") ? "/boot/grub/grubenv" : NULL;
        return p ? ht_follow_host_link(c, p) : NULL;
}

/* An entry's command line as GRUB's blscfg builds it, as the facts see
 * it too: every options line, $name and ${name} expanded from the GRUB
 * environment (format-bls.h). */
static char **bls_entry_words(const ht_bls_entry *e, const ht_grubenv *env) {
        _cleanup_free_ char *options = ht_bls_options(e);
        _cleanup_free_ char *line = ht_bls_expand_env(options, env);
        return ht_cmdline_split(line);
}

/* Whether the running kernel's command line already satisfies every op
 * (what kernel-install copies when there is no /etc/kernel/cmdline);
 * false for an image, whose /proc is the build machine's. */
static bool running_has(const ht_context *c, const op_list *ops, ht_plan *plan) {
        _cleanup_free_ char *running = NULL;
        if (plan->offline || ht_read_line(c, "/proc/cmdline", &running) < 0)
                return false;
        _cleanup_strv_free_ char **words = ht_cmdline_split(running);
        for (size_t i = 0; i < ops->n; i++)
                if (!ht_cmdline_satisfied(words, &ops->ops[i]))
                        return false;
        return true;
}

static void cmdline_plan_bls(const ht_context *c, const ht_facts *f, const op_list *ops, pending_set *edits, ht_plan *plan,
                             boot_targets *lt) {
        if (ops->n == 0)
                return;
        /* grubenv's kernelopts (RHEL 8): entries use it through $kernelopts */
        _cleanup_(ht_grubenv_freep) ht_grubenv *env = NULL;
        _cleanup_free_ char *envpath = grubenv_path(c);
        /* why $kernelopts cannot be edited; reported if an entry uses it */
        _cleanup_free_ char *env_problem = NULL;
        if (!envpath)
                env_problem = xstrdup("/boot/grub2/grubenv: no GRUB environment block");
        if (envpath) {
                pending_file *p = cmdline_pending_get(c, edits, envpath, plan);
                _cleanup_free_ char *err = NULL, *shown = ht_display_path(c, envpath);
                if (!p)
                        ; /* the read error is reported already */
                else if (!p->cur)
                        env_problem = xasprintf("%s: %s", shown, p->old ? "holds NUL bytes, not a GRUB environment block" : "missing");
                else if (ht_grubenv_parse(p->cur, p->cur_len, &env, &err) < 0)
                        env_problem = xasprintf("%s: %s", shown, err);
                else if (!ht_grubenv_get(env, "kernelopts"))
                        env_problem = xasprintf("%s: no kernelopts variable", shown);
                if (p && p->cur && env && ht_grubenv_get(env, "kernelopts")) {
                        char *out = NULL;
                        size_t out_len = 0;
                        _cleanup_free_ char *eerr = NULL;
                        if (ht_grubenv_edit_kernelopts(p->cur, p->cur_len, ops->ops, ops->n, &out, &out_len, &eerr) < 0)
                                cmdline_file_error(c, plan, envpath, ": ", eerr);
                        else
                                cmdline_pending_replace(p, out, out_len);
                }
        }

        _cleanup_strv_free_ char **entries = NULL;
        ht_list_dir(c, HT_BLS_ENTRIES_DIR, ".conf", &entries);
        bool via_kernelopts = false;    /* an entry takes $kernelopts (RHEL 8) */
        for (size_t i = 0; entries && entries[i]; i++) {
                _cleanup_free_ char *path = xasprintf(HT_BLS_ENTRIES_DIR "/%s", entries[i]);
                pending_file *p = cmdline_pending_get(c, edits, path, plan);
                if (!p)
                        continue;
                if (!p->cur) {
                        /* GRUB would still list it: never skip it silently */
                        cmdline_file_error(c, plan, path, ": ",
                                           "holds NUL bytes, not a boot entry; repair or remove it");
                        continue;
                }
                _cleanup_(ht_bls_entry_freep) ht_bls_entry *e = NULL;
                _cleanup_free_ char *err = NULL;
                if (ht_bls_parse(p->cur, p->cur_len, &e, &err) < 0) {
                        cmdline_file_error(c, plan, path, ":", err);
                        continue;
                }
                const char *options = ht_bls_get(e, "options");
                /* Entries taking words from $kernelopts got them above; only
                 * words written in the entry itself are edited here. */
                op_list mine = {0};
                _cleanup_strv_free_ char **words = options ? ht_cmdline_split(options) : NULL;
                bool via_env = options && ht_bls_uses_kernelopts(options);
                via_kernelopts = via_kernelopts || via_env;
                if (via_env && env_problem) {
                        /* the words would never reach this entry's command line */
                        ht_plan_error(plan, "%s; the boot entries take the kernel command line from its kernelopts "
                                      "($kernelopts in %s), so hosttune cannot set it; repair it with grub2-editenv or grubby",
                                      env_problem, HT_BLS_ENTRIES_DIR);
                        continue;
                }
                for (size_t k = 0; k < ops->n; k++)
                        if (!via_env || cmdline_word_present(words, ops->ops[k].key))
                                cmdline_op_list_add(&mine, ops->ops[k], ops->settings[k]);
                if (mine.n) {
                        char *out = NULL;
                        size_t out_len = 0;
                        _cleanup_free_ char *eerr = NULL;
                        if (ht_bls_edit_options(p->cur, p->cur_len, env, mine.ops, mine.n, &out, &out_len, &eerr) < 0)
                                cmdline_file_error(c, plan, path, ":", eerr);
                        else
                                cmdline_pending_replace(p, out, out_len);
                }
                cmdline_op_list_done(&mine);
        }

        /* RHEL 9, systemd-boot: kernel-install takes new kernels' command
         * line from here */
        _cleanup_free_ char *installed = cmdline_plan_kernel_cmdline(c, ops, edits, plan);
        if (!installed && !ht_exists(c, HT_KERNEL_CMDLINE) && !ht_exists(c, HT_KERNEL_CMDLINE_USR) && !via_kernelopts &&
            !running_has(c, ops, plan))
                /* the entries hold their words (no $kernelopts): the next
                 * kernel's entry is written from the running kernel's */
                ht_plan_warn(plan, "there is no /etc/kernel/cmdline (nor /usr/lib/kernel/cmdline), so kernel-install "
                             "writes the boot entry of a kernel installed later with the running kernel's "
                             "/proc/cmdline: one installed before the reboot will not have these words; write the "
                             "complete line (root= and the rest) to /etc/kernel/cmdline to make them stick");
        /* grub2-mkconfig rebuilds kernelopts from /etc/default/grub */
        if (ht_exists(c, HT_GRUB_DEFAULTS)) {
                op_list none = {0};
                cmdline_plan_grub2(c, f, ops, &none, edits, plan, NULL, NULL, NULL);
        }

        /* What the entries give the kernel after the edits */
        _cleanup_(ht_grubenv_freep) ht_grubenv *after = NULL;
        size_t env_len = 0;
        const char *env_now = envpath ? cmdline_pending_content(edits, envpath, &env_len) : NULL;
        _cleanup_free_ char *eerr = NULL;
        if (env_now)
                (void)ht_grubenv_parse(env_now, env_len, &after, &eerr);
        for (size_t i = 0; entries && entries[i]; i++) {
                _cleanup_free_ char *path = xasprintf(HT_BLS_ENTRIES_DIR "/%s", entries[i]);
                size_t len = 0;
                const char *now = cmdline_pending_content(edits, path, &len);
                _cleanup_(ht_bls_entry_freep) ht_bls_entry *e = NULL;
                _cleanup_free_ char *err = NULL;
                if (!now || ht_bls_parse(now, len, &e, &err) < 0)
                        continue;
                cmdline_targets_add(lt, bls_entry_words(e, after));
        }
        if (lt->n == 0)
                cmdline_targets_none(lt, xasprintf("%s has no boot entries", HT_BLS_ENTRIES_DIR));
}

void cmdline_kind_bls(cmdline_job *j) {
        cmdline_plan_bls(j->c, j->f, j->linux_ops, j->edits, j->plan, j->lt);
        cmdline_targets_none(j->xt, xasprintf("the BLS entries in %s carry no Xen hypervisor command line",
                                              HT_BLS_ENTRIES_DIR));
}
