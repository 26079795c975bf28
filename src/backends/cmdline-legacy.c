/* The cmdline backend: legacy GRUB (cmdline-common.h). */
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

/* ---- legacy GRUB -------------------------------------------------------- */

static void cmdline_plan_legacy(const ht_context *c, const ht_facts *f, const op_list *linux_ops, const op_list *xen_ops,
                                const ht_setting *default_req, pending_set *edits, ht_plan *plan) {
        if (!f->grub_legacy_conf)
                return;
        /* RHEL links /etc/grub.conf and menu.lst to grub.conf, which on
         * UEFI (RHEL 6) is /boot/efi/EFI/redhat/grub.conf: the file itself
         * is edited (apply never writes through a link), the links stay. */
        _cleanup_free_ char *path = NULL, *lerr = NULL;
        if (ht_edit_target(c, f->grub_legacy_conf, &path, &lerr) < 0) {
                ht_plan_error(plan, "%s", lerr);
                return;
        }
        pending_file *p = cmdline_pending_get(c, edits, path, plan);
        if (!p || !p->cur)
                return;
        _cleanup_(ht_grub_legacy_conf_freep) ht_grub_legacy_conf *conf = NULL;
        _cleanup_free_ char *err = NULL;
        if (ht_grub_legacy_parse(p->cur, p->cur_len, &conf, &err) < 0) {
                cmdline_file_error(c, plan, path, ":", err);
                return;
        }
        const struct {
                const op_list *ops;
                ht_grub_legacy_target target;
        } passes[] = {{linux_ops, HT_GRUB_LEGACY_LINUX}, {xen_ops, HT_GRUB_LEGACY_HYPERVISOR}};
        for (size_t i = 0; i < ELEMENTSOF(passes); i++) {
                if (passes[i].ops->n == 0)
                        continue;
                char *out = NULL;
                size_t out_len = 0;
                _cleanup_free_ char *eerr = NULL;
                if (ht_grub_legacy_edit(p->cur, p->cur_len, HT_GRUB_LEGACY_ALL, passes[i].target, passes[i].ops->ops,
                                        passes[i].ops->n, &out, &out_len, &eerr) < 0)
                        cmdline_file_error(c, plan, path, ":", eerr);
                else
                        cmdline_pending_replace(p, out, out_len);
        }
        if (!default_req)
                return;
        /* Titles repeat in the field (two kernels of one version, a copy
         * made by hand): the entry the facts chose wins over the first of
         * that title. */
        int chosen = ht_boot_switch_entry(f);
        for (size_t k = 0; k <= conf->n_entries; k++) {
                size_t i = k == 0 ? (size_t)chosen : k - 1;
                if (i >= conf->n_entries || !streq_ptr(conf->entries[i].title, default_req->value))
                        continue;
                /* default=saved: /boot/grub/default holds the number */
                int current = conf->default_entry >= 0 ? conf->default_entry : f->default_entry;
                if ((int)i == current)
                        return;
                char *out = NULL;
                size_t out_len = 0;
                _cleanup_free_ char *eerr = NULL;
                if (ht_grub_legacy_set_default(p->cur, p->cur_len, (unsigned)i, &out, &out_len, &eerr) < 0)
                        cmdline_file_error(c, plan, path, ":", eerr);
                else {
                        cmdline_pending_replace(p, out, out_len);
                        char cur[32], want[32];
                        if (conf->default_entry >= 0)
                                snprintf(cur, sizeof cur, "%d", conf->default_entry);
                        else if (current >= 0)
                                snprintf(cur, sizeof cur, "saved (%d)", current);
                        else
                                snprintf(cur, sizeof cur, "saved");
                        snprintf(want, sizeof want, "%zu", i);
                        ht_change *ch = ht_plan_add_change(plan, HT_BK_BOOTLOADER, "default", cur, want);
                        ch->reboot_required = true;
                        ch->source = ht_plan_strdup(plan, default_req->source);
                        ch->note = ht_plan_printf(plan, "boot '%s' by default", default_req->value);
                }
                return;
        }
        ht_plan_error(plan, "%s: no boot entry titled '%s' in %s", default_req->source, default_req->value, path);
}

/* The Linux and Xen argument words of every entry of the edited menu. */
static void cmdline_legacy_targets(const ht_context *c, const ht_facts *f, const pending_set *edits, boot_targets *lt,
                                   boot_targets *xt) {
        /* the file plan_legacy edited: the target of a distribution's link */
        _cleanup_free_ char *path = NULL, *lerr = NULL;
        if (!f->grub_legacy_conf || ht_edit_target(c, f->grub_legacy_conf, &path, &lerr) < 0)
                return; /* the error is reported already */
        size_t len = 0;
        const char *now = path ? cmdline_pending_content(edits, path, &len) : NULL;
        _cleanup_(ht_grub_legacy_conf_freep) ht_grub_legacy_conf *conf = NULL;
        _cleanup_free_ char *err = NULL, *shown = path ? ht_display_path(c, path) : NULL;
        if (!now || ht_grub_legacy_parse(now, len, &conf, &err) < 0)
                return; /* the error is reported already */
        for (size_t i = 0; i < conf->n_entries; i++) {
                const ht_grub_legacy_entry *e = &conf->entries[i];
                if (!e->linux_kernel || !e->linux_image)
                        continue; /* chainloader: another system's; Memtest86+ takes no Linux words */
                _cleanup_free_ char *la = xstrndup(now + e->linux_args_start, e->linux_args_end - e->linux_args_start);
                cmdline_targets_add(lt, ht_cmdline_split(la));
                if (e->xen) {
                        _cleanup_free_ char *xa = xstrndup(now + e->xen_args_start, e->xen_args_end - e->xen_args_start);
                        cmdline_targets_add(xt, ht_cmdline_split(xa));
                }
        }
        if (lt->n == 0)
                cmdline_targets_none(lt, xasprintf("%s has no boot entry (title) with a kernel line", shown));
        if (xt->n == 0)
                cmdline_targets_none(xt, xasprintf("%s has no Xen boot entry", shown));
}

void cmdline_legacy_check(const ht_context *c, const ht_facts *f, ht_plan *plan) {
        _cleanup_free_ char *path = NULL, *err = NULL, *content = NULL;
        size_t len = 0;
        if (!f->grub_legacy_conf || ht_edit_target(c, f->grub_legacy_conf, &path, &err) < 0) {
                if (err)
                        ht_plan_warn(plan, "%s", err);
                return;
        }
        if (ht_read_optional(c, path, &content, &len) < 0 || !content)
                return;
        _cleanup_(ht_grub_legacy_conf_freep) ht_grub_legacy_conf *conf = NULL;
        if (ht_grub_legacy_parse(content, len, &conf, &err) < 0) {
                _cleanup_free_ char *shown = ht_display_path(c, path);
                ht_plan_warn(plan, "%s:%s", shown, err);
        }
}

void cmdline_kind_legacy(cmdline_job *j) {
        cmdline_plan_legacy(j->c, j->f, j->linux_ops, j->xen_ops, j->default_req, j->edits, j->plan);
        cmdline_legacy_targets(j->c, j->f, j->edits, j->lt, j->xt);
}
