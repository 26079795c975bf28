/* The kernel command line and the bootloader. There is no drop-in here:
 * hosttune edits, in place and word by word, the file where the
 * bootloader's command line is really set —
 *   GRUB 2: the last assignment of GRUB_CMDLINE_LINUX (or _DEFAULT, or
 *           the XEN ones) across /etc/default/grub and grub.d/ *.cfg, then
 *           grub-mkconfig regenerates grub.cfg; without any defaults file
 *           (images that ship grub.cfg only) the kernel lines of grub.cfg
 *           in place, as grubby does, and never a regeneration, which
 *           would build every entry from an empty GRUB_CMDLINE_LINUX;
 *   BLS:    every entry's options line, grubenv's kernelopts (RHEL 8),
 *           /etc/kernel/cmdline (RHEL 9) and /etc/default/grub, the way
 *           grubby does, so new kernels and a later grub2-mkconfig keep
 *           the words;
 *   legacy: the kernel (or, for Xen entries, first module) lines of
 *           grub.conf, and default= when a rule asks for another kernel;
 *   images: (offline, never booted) the same files, but grub-mkconfig is
 *           never run: grub.cfg's kernel lines are edited in place too;
 *           without any bootloader configuration yet, Debian's grub.d
 *           (hosttune.cfg) or a complete /etc/kernel/cmdline, else the
 *           words are skipped with where they must go.
 * /proc/cmdline says whether the running kernel already has a word; the
 * edited files, read back as the bootloader reads them, say whether the
 * next boot will (boot_targets): a word is "kept" or "pending reboot"
 * only when every boot entry really has it.
 * This file is the backend (descriptor, parsing, the plan that picks the
 * kind); each kind is its own file, cmdline-grub2.c, cmdline-bls.c,
 * cmdline-legacy.c, cmdline-none.c, cmdline-image.c, on cmdline-common.c
 * (cmdline-common.h). */
#include "config.h"

#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backend-common.h"
#include "backend.h"
#include "cmdline-common.h"
#include "profile-section.h"
#include "edit-bls.h"
#include "edit-cmdline.h"
#include "edit-grub-cfg.h"
#include "edit-grub-legacy.h"
#include "edit-grub.h"
#include "util.h"

enum { F_TARGET }; /* the key field beside key: fields[] (ht_backend.key_fields) */
static const char *const cmdline_key_fields[] = {"target", NULL};

/* An op the edited files do not give to every boot entry: an error, or
 * for an optional setting a skip; never "kept" or "pending reboot". */
static void report_unmet(ht_plan *plan, const ht_setting *s, const ht_cmdline_op *op, const boot_targets *t) {
        _cleanup_free_ char *word = ht_cmdline_op_word(op);
        _cleanup_free_ char *why = t->n == 0 || t->unknown ? xstrdup(t->why_none ? t->why_none : "no boot entry found")
                                             : xstrdup("after the edit, not every boot entry's command line has it");
        const char *verb = op->kind == HT_CMDLINE_REMOVE ? "removing" : "setting";
        if (s->optional) {
                _cleanup_free_ char *what = xasprintf("cmdline %s", s->key);
                ht_plan_skip(plan, what, s->source, "%s kernel parameter %s: %s", verb, word, why);
        } else
                ht_plan_error(plan, "%s: %s kernel parameter %s cannot be done: %s", s->source, verb, word, why);
}

/* ---- the backend ---------------------------------------------------------- */

/* The first file this host's words are written to and its format; every
 * GRUB 2 file refuses the same bytes (ht_cmdline_word_check), so the one
 * named is where the words go first. NULL: no file (a container). */
static const char *words_target(const ht_facts *f, bool image_grub_d, bool image_kernel_cmdline,
                                const ht_context *c, ht_cmdline_format *ret_fmt) {
        switch (f->bootloader) {
        case HT_BOOT_GRUB2:
                *ret_fmt = ht_exists(c, HT_GRUB_DEFAULTS) || !f->grub_cfg ? HT_CMDLINE_FMT_GRUB_DEFAULTS
                                                                           : HT_CMDLINE_FMT_GRUB_CFG;
                return *ret_fmt == HT_CMDLINE_FMT_GRUB_CFG ? f->grub_cfg : HT_GRUB_DEFAULTS;
        case HT_BOOT_BLS:
                *ret_fmt = HT_CMDLINE_FMT_BLS;
                return HT_BLS_ENTRIES_DIR "/*.conf";
        case HT_BOOT_GRUB_LEGACY:
                *ret_fmt = HT_CMDLINE_FMT_GRUB_LEGACY;
                return f->grub_legacy_conf;
        case HT_BOOT_ZIPL: /* refused before (cmdline_plan_refused) */
        case HT_BOOT_ESP_BLS:
        case HT_BOOT_NONE:
                break;
        }
        if (image_grub_d) {
                *ret_fmt = HT_CMDLINE_FMT_GRUB_DEFAULTS;
                return HT_GRUB_D_HOSTTUNE;
        }
        if (image_kernel_cmdline) {
                *ret_fmt = HT_CMDLINE_FMT_KERNEL_CMDLINE;
                return HT_KERNEL_CMDLINE;
        }
        return NULL;
}

/* Refuse, before any file is read for editing, the words the host's
 * bootloader files cannot carry, naming the word, the file and where the
 * word came from; such ops are dropped from the list (the plan then has
 * an error, so nothing is applied). */
static void words_check_target(const ht_context *c, const char *path, ht_cmdline_format fmt, op_list *l,
                               ht_plan *plan) {
        size_t k = 0;
        for (size_t i = 0; i < l->n; i++) {
                _cleanup_free_ char *err = NULL, *shown = path ? ht_display_path(c, path) : NULL;
                if (path && ht_cmdline_word_check(&l->ops[i], fmt, shown, &err) < 0) {
                        ht_plan_error(plan, "%s: %s", l->settings[i]->source, err);
                        continue;
                }
                l->ops[k] = l->ops[i];
                l->settings[k++] = l->settings[i];
        }
        l->n = k;
}

/* The bootloader kinds, one file each (cmdline-common.h): a host's
 * bootloader, and the two layouts an image without one gets. */
typedef enum {
        CMDLINE_GRUB2,
        CMDLINE_BLS,
        CMDLINE_GRUB_LEGACY,
        CMDLINE_IMAGE_GRUB_D,
        CMDLINE_IMAGE_KERNEL_CMDLINE,
        _CMDLINE_KIND_MAX,
} cmdline_kind;

static const cmdline_kind_plan kinds[_CMDLINE_KIND_MAX] = {
        [CMDLINE_GRUB2] = cmdline_kind_grub2,
        [CMDLINE_BLS] = cmdline_kind_bls,
        [CMDLINE_GRUB_LEGACY] = cmdline_kind_legacy,
        [CMDLINE_IMAGE_GRUB_D] = cmdline_kind_image_grub_d,
        [CMDLINE_IMAGE_KERNEL_CMDLINE] = cmdline_kind_image_kernel_cmdline,
};

static cmdline_kind kind_of(const ht_facts *f, bool image_grub_d) {
        switch (f->bootloader) {
        case HT_BOOT_GRUB2:
                return CMDLINE_GRUB2;
        case HT_BOOT_BLS:
                return CMDLINE_BLS;
        case HT_BOOT_GRUB_LEGACY:
                return CMDLINE_GRUB_LEGACY;
        case HT_BOOT_ZIPL:
        case HT_BOOT_ESP_BLS:
        case HT_BOOT_NONE:
                break;
        }
        /* no bootloader here and planned: an image of one of two layouts */
        return image_grub_d ? CMDLINE_IMAGE_GRUB_D : CMDLINE_IMAGE_KERNEL_CMDLINE;
}

static int cmdline_plan(const ht_context *c, const ht_facts *f, const ht_resolved *r, ht_plan *plan) {
        op_list linux_ops = {0}, xen_ops = {0};
        const ht_setting *default_req = NULL;
        bool optional_only = true;

        for (size_t i = 0; i < r->n_settings; i++) {
                const ht_setting *s = &r->settings[i];
                if (s->backend == HT_BK_BOOTLOADER && streq(s->key, "default")) {
                        default_req = s;
                        optional_only = false;
                        continue;
                }
                if (s->backend != HT_BK_CMDLINE)
                        continue;
                ht_cmdline_op op = ht_cmdline_op_make(s->key, isempty(s->value) ? NULL : s->value, s->remove);
                _cleanup_free_ char *err = NULL;
                if (ht_cmdline_op_check(&op, &err) < 0) {
                        ht_plan_error(plan, "%s: %s", s->source, err);
                        continue;
                }
                if (!s->optional)
                        optional_only = false;
                cmdline_op_list_add(s->fields[F_TARGET] && streq(s->fields[F_TARGET], "xen") ? &xen_ops : &linux_ops, op, s);
        }
        if (linux_ops.n == 0 && xen_ops.n == 0 && !default_req) {
                /* a Xen host whose menu file offers no entry to switch to:
                 * when it is also broken, the line is the reason (a plan
                 * that needs the switch fails in 30-xen.rules) */
                if (f->bootloader == HT_BOOT_GRUB_LEGACY && f->kernel_xen && ht_boot_switch_entry(f) < 0)
                        cmdline_legacy_check(c, f, plan);
                return 0;
        }

        /* an image: the layout its bootloader will have decides */
        bool image_grub_d = false, image_kernel_cmdline = false;
        if (f->bootloader == HT_BOOT_NONE && plan->offline) {
                image_grub_d = ht_facts_os_debian_like(f);
                image_kernel_cmdline = !image_grub_d && (ht_exists(c, HT_KERNEL_CMDLINE) ||
                                                         ht_exists(c, HT_KERNEL_CMDLINE_USR));
                if (!image_grub_d && !image_kernel_cmdline) {
                        cmdline_plan_image_unknown(c, &linux_ops, &xen_ops, plan);
                        if (default_req)
                                ht_plan_error(plan, "%s: changing the default boot entry is supported for legacy "
                                              "GRUB only", default_req->source);
                        cmdline_op_list_done(&linux_ops);
                        cmdline_op_list_done(&xen_ops);
                        return 0;
                }
        } else if (f->bootloader == HT_BOOT_ZIPL || f->bootloader == HT_BOOT_ESP_BLS ||
                   (f->bootloader == HT_BOOT_GRUB2 && f->grub_cfg_ambiguous)) {
                cmdline_plan_refused(f, &linux_ops, &xen_ops, default_req, plan);
                cmdline_op_list_done(&linux_ops);
                cmdline_op_list_done(&xen_ops);
                return 0;
        } else if (f->bootloader == HT_BOOT_NONE) {
                cmdline_plan_no_bootloader(c, f, &linux_ops, &xen_ops, optional_only, plan);
                cmdline_op_list_done(&linux_ops);
                cmdline_op_list_done(&xen_ops);
                return 0;
        }

        ht_cmdline_format fmt = HT_CMDLINE_FMT_GRUB_CFG;
        const char *target = words_target(f, image_grub_d, image_kernel_cmdline, c, &fmt);
        size_t errors_before = strv_length(plan->errors);
        words_check_target(c, target, fmt, &linux_ops, plan);
        words_check_target(c, target, fmt, &xen_ops, plan);
        if (strv_length(plan->errors) > errors_before) {
                /* nothing of the bootloader is planned with a word refused */
                cmdline_op_list_done(&linux_ops);
                cmdline_op_list_done(&xen_ops);
                return 0;
        }
        pending_set edits = {0};
        boot_targets lt = {0}, xt = {0};
        cmdline_job job = {.c = c, .f = f, .linux_ops = &linux_ops, .xen_ops = &xen_ops, .default_req = default_req,
                           .edits = &edits, .plan = plan, .lt = &lt, .xt = &xt};
        kinds[kind_of(f, image_grub_d)](&job);
        bool regenerate = job.regenerate;
        if (default_req && f->bootloader != HT_BOOT_GRUB_LEGACY)
                ht_plan_error(plan, "%s: changing the default boot entry is supported for legacy GRUB only; "
                              "use grub2-set-default or grubby --set-default", default_req->source);
        size_t changed_files = cmdline_pending_flush(&edits, plan);
        /* A file that could not be edited: nothing is persisted, so no
         * word may be reported as waiting for the reboot. */
        bool failed = strv_length(plan->errors) > errors_before;

        if (changed_files && regenerate) {
                _cleanup_strv_free_ char **argv = cmdline_grub_mkconfig_argv(c, f);
                /* grub_mkconfig_argv ends with "-o" and the grub.cfg it writes */
                ht_plan_add_action(plan, HT_BK_CMDLINE, "regenerate-grub", argv,
                                   "regenerate grub.cfg from /etc/default/grub", argv[strv_length(argv) - 1]);
        }

        /* What the running kernel was booted with decides the reboot; what
         * the edited files give every boot entry decides whether the word
         * is persisted at all. */
        _cleanup_free_ char *running = NULL;
        /* an image has never booted: no running kernel to compare with
         * (a /proc in its tree is the build machine's), no reboot */
        bool live = !plan->offline && ht_read_line(c, "/proc/cmdline", &running) == 0;
        _cleanup_strv_free_ char **words = running ? ht_cmdline_split(running) : NULL;
        for (size_t i = 0; i < linux_ops.n; i++) {
                const ht_cmdline_op *op = &linux_ops.ops[i];
                const ht_setting *s = linux_ops.settings[i];
                int at = -1;
                if (live && op->kind == HT_CMDLINE_ADD) {
                        for (size_t k = 0; words && words[k]; k++)
                                if (ht_cmdline_satisfied((char *[]){words[k], NULL}, op))
                                        at = (int)k;
                } else if (live)
                        at = ht_cmdline_find(words, op->key, NULL);
                _cleanup_free_ char *cur = at >= 0 ? xstrdup(words[at]) : NULL;
                _cleanup_free_ char *want = op->kind == HT_CMDLINE_REMOVE ? NULL : ht_cmdline_op_word(op);
                bool running_ok = live && ht_cmdline_satisfied(words, op);
                bool persisted = !failed && lt.known && cmdline_targets_met(&lt, op);
                if (!failed && !persisted)
                        report_unmet(plan, s, op, &lt);
                if (running_ok && persisted && !changed_files)
                        continue;
                ht_change *ch = ht_plan_add_change(plan, HT_BK_CMDLINE, op->key, cur, want);
                ch->source = ht_plan_strdup(plan, s->source);
                ch->reboot_required = live && !running_ok;
                if (!persisted) {
                        ch->outcome = failed || !s->optional ? HT_OUTCOME_FAILED : HT_OUTCOME_SKIPPED;
                        ch->reboot_required = false;
                } else if (!changed_files && plan->offline) {
                        /* persisted already (an earlier apply) in an image */
                        ch->outcome = HT_OUTCOME_KEPT;
                        ch->note = ht_plan_strdup(plan, "in the image's bootloader configuration; takes effect when the image boots");
                } else if (!changed_files) {
                        /* persisted already (an earlier apply): only the reboot is missing */
                        ch->outcome = HT_OUTCOME_KEPT;
                        ch->note = ht_plan_strdup(plan, "in the bootloader configuration; takes effect at the next boot");
                        plan->reboot_required = true;
                } else if (plan->offline)
                        ch->note = ht_plan_strdup(plan, "takes effect when the image boots");
        }
        for (size_t i = 0; i < xen_ops.n; i++) {
                const ht_cmdline_op *op = &xen_ops.ops[i];
                bool persisted = !failed && xt.known && cmdline_targets_met(&xt, op);
                if (!failed && !persisted)
                        report_unmet(plan, xen_ops.settings[i], op, &xt);
                if (persisted && !changed_files)
                        continue;
                _cleanup_free_ char *want = op->kind == HT_CMDLINE_REMOVE ? NULL : ht_cmdline_op_word(op);
                ht_change *ch = ht_plan_add_change(plan, HT_BK_CMDLINE, op->key, NULL, want);
                ch->source = ht_plan_strdup(plan, xen_ops.settings[i]->source);
                ch->reboot_required = persisted && !plan->offline;
                ch->note = ht_plan_strdup(plan, plan->offline ? "Xen hypervisor command line; takes effect when the image boots"
                                                 : "Xen hypervisor command line");
                if (!persisted)
                        ch->outcome = failed || !xen_ops.settings[i]->optional ? HT_OUTCOME_FAILED : HT_OUTCOME_SKIPPED;
        }
        cmdline_targets_done(&lt);
        cmdline_targets_done(&xt);
        cmdline_op_list_done(&linux_ops);
        cmdline_op_list_done(&xen_ops);
        return 0;
}

static int parse_cmdline_words(ht_pfile *p, const config_setting_t *g, const char *name,
                               bool remove, bool optional, bool required, const ht_spec *target,
                               const char *when, char **ret_error) {
        const config_setting_t *l = config_setting_get_member(g, name);
        if (!l)
                return 0;
        _cleanup_free_ char *what = xasprintf("cmdline %s", name);
        int t = config_setting_type(l);
        int n = t == CONFIG_TYPE_STRING ? 1 : config_setting_length(l);
        if (t != CONFIG_TYPE_STRING && t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST)
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: expected a string or an array of strings, not %s",
                                p->path, ht_cfg_line(l), what, ht_cfg_type_name(t));
        for (int i = 0; i < n; i++) {
                const config_setting_t *w = t == CONFIG_TYPE_STRING ? l : config_setting_get_elem(l, i);
                int r = ht_cfg_want_type(w, CONFIG_TYPE_STRING, p->path, what, ret_error);
                if (r < 0)
                        return r;
                ht_entry *e = ht_entry_push(&p->entries, &p->n_entries, HT_BK_CMDLINE, p->path,
                                         ht_cfg_line(w) ?: ht_cfg_line(l));
                e->remove = remove;
                e->optional = optional;
                e->has_optional = true;
                e->required = required;
                ht_spec_copy(&e->fields[F_TARGET], target);
                e->when = when ? xstrdup(when) : NULL;
                r = ht_cfg_spec(w, p->path, what, &e->key, ret_error);
                if (r < 0)
                        return r;
                if (e->key.kind != HT_SPEC_LIT) {
                        e->cmdline_word = true;
                        continue;
                }
                /* Split a literal word now so the key is known early. */
                const char *word = e->key.lit.str;
                const char *eq = strchr(word, '=');
                if (eq) {
                        e->value = (ht_spec){.kind = HT_SPEC_LIT, .lit = ht_value_str(eq + 1)};
                        char *k = xstrndup(word, eq - word);
                        ht_value_done(&e->key.lit);
                        e->key.lit = ht_value_str(k);
                        free(k);
                } else
                        e->value = (ht_spec){.kind = HT_SPEC_LIT, .lit = ht_value_str("")};
        }
        return 0;
}

static int parse_cmdline_group(ht_pfile *p, const config_setting_t *g, char **ret_error) {
        static const char *const keys[] = {"add", "remove", "optional", "required", "target", "when", NULL};
        int r = ht_cfg_check_members(g, keys, p->path, "cmdline", ret_error);
        if (r < 0)
                return r;
        bool optional = false, required = false;
        r = ht_cfg_get_bool(g, "optional", p->path, "cmdline", &optional, NULL, ret_error);
        if (r >= 0)
                r = ht_cfg_get_bool(g, "required", p->path, "cmdline", &required, NULL, ret_error);
        if (r < 0)
                return r;
        if (optional && required)
                return ht_error(ret_error, -EINVAL, "%s:%u: cmdline: 'optional' and 'required' contradict each other; "
                                "give one", p->path, ht_cfg_line(g));
        ht_spec target = {0};
        _cleanup_free_ char *when = NULL;
        r = ht_cfg_get_spec(g, "target", false, p->path, "cmdline", &target, ret_error);
        if (r >= 0)
                r = ht_cfg_get_when(g, p->path, "cmdline", &when, ret_error);
        if (r >= 0)
                r = parse_cmdline_words(p, g, "add", false, optional, required, &target, when, ret_error);
        if (r >= 0)
                r = parse_cmdline_words(p, g, "remove", true, optional, required, &target, when, ret_error);
        ht_spec_done(&target);
        return r;
}

static int cmdline_parse_section(ht_pfile *p, const config_setting_t *s, char **ret_error) {
        int t = config_setting_type(s);
        if (t == CONFIG_TYPE_GROUP)
                return parse_cmdline_group(p, s, ret_error);
        if (t == CONFIG_TYPE_LIST) {
                for (int i = 0; i < config_setting_length(s); i++) {
                        const config_setting_t *m = config_setting_get_elem(s, i);
                        int r = ht_cfg_want_type(m, CONFIG_TYPE_GROUP, p->path, "cmdline", ret_error);
                        if (r >= 0)
                                r = parse_cmdline_group(p, m, ret_error);
                        if (r < 0)
                                return r;
                }
                return 0;
        }
        return ht_error(ret_error, -EINVAL, "%s:%u: cmdline: expected a group { add = [...]; remove = [...]; } "
                        "or a list of them, not %s", p->path, ht_cfg_line(s), ht_cfg_type_name(t));
}

static const ht_backend_field cmdline_rule_fields[] = {
        {.name = "key", .offset = offsetof(ht_entry, key)},
        {.name = "target", .offset = offsetof(ht_entry, fields[F_TARGET]), .optional = true},
        {0},
};

static int cmdline_canon_key(ht_resolver *r, const ht_entry *e, const char *what, ht_setting *s,
                             char **ret_value, char **ret_error) {
        int k = ht_entry_eval_field(r, &e->key, e, what, "key", &s->key, ret_error);
        if (k < 0)
                return k;
        if (e->cmdline_word) {
                char *eq = strchr(s->key, '=');
                if (eq) {
                        *ret_value = xstrdup(eq + 1);
                        *eq = 0;
                } else
                        *ret_value = xstrdup("");
        }
        if (e->fields[F_TARGET].kind != HT_SPEC_NONE)
                k = ht_entry_eval_field(r, &e->fields[F_TARGET], e, what, "target", &s->fields[F_TARGET], ret_error);
        else
                s->fields[F_TARGET] = ht_resolver_strdup(r, "linux");
        if (k < 0)
                return k;
        if (isempty(s->key) || !ht_word_chars(s->key, "_.-"))
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: '%s' is not a kernel parameter name", e->file,
                                e->line, what, s->key);
        if (!streq(s->fields[F_TARGET], "linux") && !streq(s->fields[F_TARGET], "xen"))
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: target '%s' must be linux or xen", e->file,
                                e->line, what, s->fields[F_TARGET]);
        return 0;
}

static const char *cmdline_check_value(const char *t) {
        return strpbrk(t, " \t\"'\\") ? "must not hold spaces, quotes or backslashes" : NULL;
}

static char *cmdline_label(const ht_setting *s) {
        if (s->fields[F_TARGET] && !streq(s->fields[F_TARGET], "linux"))
                return xasprintf("cmdline (%s) %s", s->fields[F_TARGET], s->key);
        return xasprintf("cmdline %s", s->key);
}

/* "cmdline  KEY=VALUE", "cmdline  remove KEY", "... (xen)" */
static char *cmdline_show_line(const ht_setting *s) {
        const char *b = "cmdline";
        const char *t = s->fields[F_TARGET] && !streq(s->fields[F_TARGET], "linux") ? " (xen)" : "";
        if (s->remove)
                return xasprintf("%-8s remove %s%s%s%s", b, s->key, isempty(s->value) ? "" : "=",
                                 s->value ? s->value : "", t);
        return xasprintf("%-8s %s%s%s%s", b, s->key, isempty(s->value) ? "" : "=",
                         s->value ? s->value : "", t);
}

/* The files its plan writes (ht_backend.files). */
static const char *const cmdline_files[] = {
        /* the defaults grub-mkconfig reads, hosttune's own among them */
        HT_GRUB_DEFAULTS, HT_GRUB_DEFAULTS_DIR "/*.cfg",
        /* kernel-install's command line, BLS entries, grubenv (RHEL 8) */
        HT_KERNEL_CMDLINE, HT_BLS_ENTRIES_DIR "/*.conf", "/boot/grub/grubenv", "/boot/grub2/grubenv",
        /* grub.cfg, regenerated or edited in place (find_grub_cfg's places) */
        "/boot/grub/grub.cfg", "/boot/grub2/grub.cfg", "/boot/efi/EFI/*/grub.cfg",
        /* legacy GRUB (facts-boot.c's places; RHEL 6 on UEFI links
         * /etc/grub.conf to /boot/efi/EFI/redhat/grub.conf) */
        "/boot/grub/grub.conf", "/boot/grub/menu.lst", "/etc/grub.conf", "/boot/efi/EFI/*/grub.conf",
        NULL,
};

const ht_backend ht_backend_cmdline = {
        .id = HT_BK_CMDLINE,
        .name = "cmdline",
        .files = cmdline_files,
        .entry_flags = HT_ENTRY_REQUIRED | HT_ENTRY_REMOVE,
        .key_fields = cmdline_key_fields,
        .rule_fields = cmdline_rule_fields,
        .parse_section = cmdline_parse_section,
        .canon_key = cmdline_canon_key,
        .check_value = cmdline_check_value,
        .label = cmdline_label,
        .show_line = cmdline_show_line,
        .words = true,
        .boot_effect = true,
        .plan = cmdline_plan,
};

/* The entry the bootloader boots by default (a rule's bootloader_default,
 * the Xen rule): cmdline_plan plans it with the kernel command line. */
const ht_backend ht_backend_bootloader = {
        .id = HT_BK_BOOTLOADER,
        .name = "bootloader",
        .internal = true,
};
