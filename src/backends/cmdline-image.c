/* The cmdline backend: an image without a bootloader configuration yet (cmdline-common.h). */
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

/* ---- an image without a bootloader configuration yet ------------------ */

static const char grub_d_header[] =
        "# Written by hosttune: the kernel command line words of its profile, for\n"
        "# grub-mkconfig (update-grub), which reads this file after /etc/default/grub.\n"
        "# 'hosttune rollback' removes it.\n";

/* The variables grub-mkconfig would see: unset ones are empty, then the
 * image's grub.d files in its order (there is no /etc/default/grub),
 * hosttune's as content says (NULL: absent). */
static ht_grub_env *grub_d_env(const ht_context *c, const char *content, size_t len, ht_plan *plan) {
        ht_grub_env *env = ht_grub_env_new();
        static const char unset[] = "GRUB_CMDLINE_LINUX=\nGRUB_CMDLINE_LINUX_DEFAULT=\nGRUB_CMDLINE_XEN=\n"
                                    "GRUB_CMDLINE_XEN_DEFAULT=\n";
        _cleanup_free_ char *err = NULL;
        (void)ht_grub_eval_file(env, 0, unset, sizeof unset - 1, &err);
        _cleanup_strv_free_ char **names = NULL;
        ht_list_dir(c, HT_GRUB_DEFAULTS_DIR, ".cfg", &names);
        const char *mine = strrchr(HT_GRUB_D_HOSTTUNE, '/') + 1;
        if (!strv_contains(names, mine)) {
                strv_push(&names, mine);
                qsort(names, strv_length(names), sizeof(char *), strv_sort_cmp);
        }
        _cleanup_strv_free_ char **order = ht_grub_defaults_files(names);
        for (size_t i = 0; order[i]; i++) {
                if (streq(order[i], HT_GRUB_DEFAULTS))
                        continue;
                bool ours = streq(order[i], HT_GRUB_D_HOSTTUNE);
                _cleanup_free_ char *other = NULL, *e = NULL;
                size_t olen = 0;
                int k = ours ? 0 : ht_read_file(c, order[i], HT_GRUB_DEFAULTS_MAX, &other, &olen);
                if (k == -EFBIG) {
                        cmdline_file_error(c, plan, order[i], ": cannot read: ", "larger than 1 MiB, more than a GRUB "
                                           "defaults file holds");
                        ht_grub_env_free(env);
                        return NULL;
                }
                if (!ours && (k < 0 || !other))
                        continue;
                if (ours && !content)
                        continue;
                if (ht_grub_eval_file(env, i + 1, ours ? content : other, ours ? len : olen, &e) < 0) {
                        cmdline_file_error(c, plan, order[i], ":", e);
                        ht_grub_env_free(env);
                        return NULL;
                }
        }
        return env;
}

static char **grub_d_words(const ht_grub_env *env, const char *name) {
        _cleanup_free_ char *dflt = xasprintf("%s_DEFAULT", name);
        const ht_grub_var *vl = ht_grub_env_get(env, name), *vd = ht_grub_env_get(env, dflt);
        _cleanup_free_ char *line = xasprintf("%s %s", vl && vl->value ? vl->value : "",
                                              vd && vd->value ? vd->value : "");
        return ht_cmdline_split(line);
}

/* The line the grub.d files give name's entries; a value of the pair
 * that only shell code gives (another grub.d file's) meets nothing. */
static void grub_d_targets(const ht_grub_env *env, const char *name, boot_targets *t) {
        _cleanup_free_ char *dflt = xasprintf("%s_DEFAULT", name);
        const ht_grub_var *v[2] = {ht_grub_env_get(env, name), ht_grub_env_get(env, dflt)};
        for (size_t k = 0; k < 2; k++)
                if (v[k] && !v[k]->value) {
                        cmdline_targets_unknown(t, xasprintf("%s in %s is not known without running the shell "
                                                             "(line %s)", k ? dflt : name, HT_GRUB_DEFAULTS_DIR,
                                                             v[k]->why ? v[k]->why : "?"));
                        return;
                }
        cmdline_targets_add(t, grub_d_words(env, name));
}

/* Debian or Ubuntu before grub-pc: /etc/default/grub.d/hosttune.cfg
 * with NAME="$NAME words" for the image's later update-grub. */
static void cmdline_plan_image_grub_d(const ht_context *c, const op_list *linux_ops, const op_list *xen_ops,
                                      pending_set *edits, ht_plan *plan, boot_targets *lt, boot_targets *xt) {
        pending_file *p = cmdline_pending_get(c, edits, HT_GRUB_D_HOSTTUNE, plan);
        if (!p)
                return;
        if (p->old && !p->cur) {
                cmdline_file_error(c, plan, HT_GRUB_D_HOSTTUNE, ": ", "holds NUL bytes, not a GRUB defaults file");
                return;
        }
        _cleanup_(ht_grub_env_freep) ht_grub_env *before = grub_d_env(c, NULL, 0, plan);
        if (!before)
                return;
        char *cur = p->cur ? xstrndup(p->cur, p->cur_len) : xstrdup(grub_d_header);
        size_t cur_len = strlen(cur);
        const struct {
                const char *name;
                const op_list *ops;
        } vars[] = {{"GRUB_CMDLINE_LINUX", linux_ops}, {"GRUB_CMDLINE_XEN", xen_ops}};
        for (size_t i = 0; i < ELEMENTSOF(vars); i++) {
                if (vars[i].ops->n == 0)
                        continue;
                _cleanup_(ht_grub_file_freep) ht_grub_file *g = NULL;
                _cleanup_free_ char *err = NULL;
                if (ht_grub_parse(cur, cur_len, &g, &err) < 0) {
                        cmdline_file_error(c, plan, HT_GRUB_D_HOSTTUNE, ":", err);
                        free(cur);
                        return;
                }
                bool assigned = false;
                for (size_t k = 0; k < g->n_assignments; k++)
                        assigned = assigned || streq(g->assignments[k].name, vars[i].name);
                if (!assigned) {
                        /* build on what the files before left: never replace it */
                        char *more = xasprintf("%s%s=\"$%s\"\n", cur, vars[i].name, vars[i].name);
                        free(cur);
                        cur = more;
                        cur_len = strlen(cur);
                }
                char *out = NULL;
                size_t out_len = 0;
                free(err);
                err = NULL;
                if (ht_grub_edit(cur, cur_len, vars[i].name, before, vars[i].ops->ops, vars[i].ops->n, &out, &out_len,
                                 &err) < 0) {
                        cmdline_file_error(c, plan, HT_GRUB_D_HOSTTUNE, ":", err);
                        free(cur);
                        return;
                }
                free(cur);
                cur = out;
                cur_len = out_len;
        }
        _cleanup_(ht_grub_env_freep) ht_grub_env *after = grub_d_env(c, cur, cur_len, plan);
        if (!after) {
                free(cur);
                return;
        }
        /* no file for nothing: removals of words nobody set yet */
        bool adds = false;
        for (size_t i = 0; i < ELEMENTSOF(vars); i++) {
                _cleanup_strv_free_ char **w0 = grub_d_words(before, vars[i].name);
                _cleanup_strv_free_ char **w1 = grub_d_words(after, vars[i].name);
                _cleanup_free_ char *j0 = strv_join(w0, " "), *j1 = strv_join(w1, " ");
                adds = adds || !streq(j0, j1);
        }
        if (!p->old && !adds) {
                free(cur);
                cur = NULL;
                cur_len = 0;
        }
        cmdline_pending_replace(p, cur, cur_len);
        if (linux_ops->n)
                grub_d_targets(after, "GRUB_CMDLINE_LINUX", lt);
        if (xen_ops->n)
                grub_d_targets(after, "GRUB_CMDLINE_XEN", xt);
        ht_plan_warn(plan, "this image has no GRUB configuration yet (no /etc/default/grub, no grub.cfg): the kernel "
                     "command line words go to %s, which Debian's grub-mkconfig reads after /etc/default/grub; "
                     "update-grub, which the GRUB package (grub-pc, grub-efi) runs when it is installed in the "
                     "image, puts them on every kernel line of grub.cfg, and they take effect when the image boots",
                     HT_GRUB_D_HOSTTUNE);
}

/* kernel-install (systemd-boot, BLS entries it writes) takes the whole
 * command line of a new kernel from /etc/kernel/cmdline, else
 * /usr/lib/kernel/cmdline, else /proc/cmdline, which in an image build
 * is the build machine's (90-loaderentry.install). A complete line the
 * image already has is edited in place (the one in /usr copied to /etc
 * with the edit); hosttune never makes one up. */
static void cmdline_plan_image_kernel_cmdline(const ht_context *c, const op_list *linux_ops, const op_list *xen_ops,
                                              pending_set *edits, ht_plan *plan, boot_targets *lt, boot_targets *xt) {
        if (xen_ops->n)
                cmdline_targets_none(xt, xasprintf("%s carries no Xen hypervisor command line", HT_KERNEL_CMDLINE));
        if (linux_ops->n == 0)
                return;
        /* /usr/lib/kernel/cmdline (the distribution's) is copied to /etc */
        _cleanup_free_ char *line = cmdline_plan_kernel_cmdline(c, linux_ops, edits, plan);
        if (line)
                cmdline_targets_add(lt, ht_cmdline_split(line));
}

/* The words of an image whose layout hosttune does not know: skipped
 * (the rest of the profile is planned), an error only for a required
 * word, and one warning saying where they must go. */
void cmdline_plan_image_unknown(const ht_context *c, const op_list *linux_ops, const op_list *xen_ops,
                                ht_plan *plan) {
        _cleanup_free_ char *skipped_words = NULL;
        bool kernel_install = ht_exists(c, "/usr/bin/kernel-install") || ht_exists(c, "/usr/lib/kernel/install.d");
        const char *where = kernel_install ?
                "this image has kernel-install, which takes the whole command line of a new kernel from "
                "/etc/kernel/cmdline, else /usr/lib/kernel/cmdline, else /proc/cmdline (in an image build the build "
                "machine's): write the image's complete line (root= and the rest) with these words to "
                "/etc/kernel/cmdline, then apply again" :
                "put them where the image's bootloader will read its command line: GRUB_CMDLINE_LINUX in "
                "/etc/default/grub once the GRUB package has created it (then apply again), /etc/kernel/cmdline for "
                "kernel-install (the whole line), or the boot entries the image build writes";
        for (size_t i = 0; i < linux_ops->n + xen_ops->n; i++) {
                const ht_setting *s = i < linux_ops->n ? linux_ops->settings[i] : xen_ops->settings[i - linux_ops->n];
                _cleanup_free_ char *word = NULL, *what = NULL;
                ht_change *ch = cmdline_add_unplanned_word(plan, s, &word, &what);
                if (s->required) {
                        ch->outcome = HT_OUTCOME_FAILED;
                        ht_plan_error(plan, "%s: the kernel command line word %s is marked required, but this image "
                                      "has no bootloader configuration yet (no /etc/default/grub, grub.cfg, BLS "
                                      "entries or grub.conf) that hosttune can edit; %s", s->source, word, where);
                        continue;
                }
                ch->outcome = HT_OUTCOME_SKIPPED;
                ch->note = ht_plan_strdup(plan, "no bootloader configuration in the image yet");
                ht_plan_skip(plan, what, s->source, "%s: this image has no bootloader configuration yet", word);
                if (!s->optional) {
                        char *l = xasprintf("%s%s%s", skipped_words ? skipped_words : "", skipped_words ? " " : "",
                                            word);
                        free(skipped_words);
                        skipped_words = l;
                }
        }
        if (skipped_words)
                ht_plan_warn(plan, "kernel command line not planned (%s): this image has no bootloader configuration "
                             "yet (no /etc/default/grub, grub.cfg, BLS entries or grub.conf); %s. The rest of the "
                             "profile is planned; mark a word required = true to make this an error",
                             skipped_words, where);
}

void cmdline_kind_image_grub_d(cmdline_job *j) {
        cmdline_plan_image_grub_d(j->c, j->linux_ops, j->xen_ops, j->edits, j->plan, j->lt, j->xt);
}

void cmdline_kind_image_kernel_cmdline(cmdline_job *j) {
        cmdline_plan_image_kernel_cmdline(j->c, j->linux_ops, j->xen_ops, j->edits, j->plan, j->lt, j->xt);
}
