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
 * only when every boot entry really has it. */
#include "config.h"

#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backend-common.h"
#include "backend.h"
#include "profile-section.h"
#include "edit-bls.h"
#include "edit-cmdline.h"
#include "edit-grub-cfg.h"
#include "edit-grub-legacy.h"
#include "edit-grub.h"
#include "util.h"

enum { F_TARGET }; /* the key field beside key: fields[] (ht_backend.key_fields) */
static const char *const cmdline_key_fields[] = {"target", NULL};

typedef struct {
        ht_cmdline_op *ops;
        const ht_setting **settings;
        size_t n;
} op_list;

static void op_list_add(op_list *l, ht_cmdline_op op, const ht_setting *s) {
        l->ops = xrealloc(l->ops, (l->n + 1) * sizeof(*l->ops));
        l->settings = xrealloc(l->settings, (l->n + 1) * sizeof(*l->settings));
        l->ops[l->n] = op;
        l->settings[l->n++] = s;
}

static void op_list_done(op_list *l) {
        free(l->ops);
        free(l->settings);
        *l = (op_list){0};
}

/* Errors about a file name it as the user can open it (under --root). */
static void file_error(const ht_context *c, ht_plan *plan, const char *path, const char *sep, const char *msg) {
        _cleanup_free_ char *shown = ht_display_path(c, path);
        ht_plan_error(plan, "%s%s%s", shown, sep, msg ? msg : "");
}

/* A file edit in progress: the backend may edit the same file twice
 * (GRUB_CMDLINE_LINUX and _DEFAULT in one file). */
typedef struct {
        char *path;
        char *old;
        size_t old_len;
        char *cur;
        size_t cur_len;
} pending_file;

typedef struct {
        pending_file *files;
        size_t n;
} pending_set;

static pending_file *pending_get(const ht_context *c, pending_set *set, const char *path, ht_plan *plan) {
        for (size_t i = 0; i < set->n; i++)
                if (streq(set->files[i].path, path))
                        return &set->files[i];
        char *content = NULL;
        size_t len = 0;
        int r = ht_read_optional(c, path, &content, &len);
        if (r < 0) {
                file_error(c, plan, path, ": cannot read: ", ht_strerror(-r));
                return NULL;
        }
        set->files = xrealloc(set->files, (set->n + 1) * sizeof(*set->files));
        pending_file *p = &set->files[set->n++];
        *p = (pending_file){.path = xstrdup(path), .old = content, .old_len = len};
        p->cur = content ? xstrndup(content, len) : NULL;
        p->cur_len = len;
        if (content && memchr(content, 0, len)) {
                free(p->cur);
                p->cur = NULL;
        }
        return p;
}

static void pending_replace(pending_file *p, char *content, size_t len) {
        free(p->cur);
        p->cur = content;
        p->cur_len = len;
}

/* Hand the edits to the plan; returns how many files change. */
static size_t pending_flush(pending_set *set, ht_plan *plan) {
        size_t before = plan->n_files;
        for (size_t i = 0; i < set->n; i++) {
                pending_file *p = &set->files[i];
                if (p->cur)
                        ht_plan_add_file(plan, HT_BK_CMDLINE, p->path, p->old, p->old_len, p->cur, p->cur_len, 0644);
                free(p->path);
                free(p->old);
                free(p->cur);
        }
        free(set->files);
        *set = (pending_set){0};
        return plan->n_files - before;
}

static bool word_present(char *const *words, const char *key) {
        return ht_cmdline_find(words, key, NULL) >= 0;
}

/* The command lines the next boot gets, read back from the edited files:
 * one word list per boot entry (GRUB 2 defaults: the one line
 * grub-mkconfig builds). An op is met only when every list satisfies it;
 * none at all (a menu without entries) meets nothing, and why_none says
 * why. */
typedef struct {
        char ***lists;
        size_t n;
        char *why_none;
        bool known;     /* false: not computed (an edit failed) */
} boot_targets;

static void targets_add(boot_targets *t, char **words) {
        t->lists = xrealloc(t->lists, (t->n + 1) * sizeof(*t->lists));
        t->lists[t->n++] = words;
        t->known = true;
}

static void targets_none(boot_targets *t, char *why) {
        free(t->why_none);
        t->why_none = why;
        t->known = true;
}

static void targets_done(boot_targets *t) {
        for (size_t i = 0; i < t->n; i++)
                strv_free(t->lists[i]);
        free(t->lists);
        free(t->why_none);
        *t = (boot_targets){0};
}

static bool targets_met(const boot_targets *t, const ht_cmdline_op *op) {
        if (t->n == 0)
                return false;
        for (size_t i = 0; i < t->n; i++)
                if (!ht_cmdline_satisfied(t->lists[i], op))
                        return false;
        return true;
}

static const char *pending_content(const pending_set *set, const char *path, size_t *ret_len) {
        for (size_t i = 0; i < set->n; i++)
                if (streq(set->files[i].path, path)) {
                        *ret_len = set->files[i].cur_len;
                        return set->files[i].cur;
                }
        return NULL;
}

/* ---- GRUB 2 ------------------------------------------------------------ */

typedef struct {
        char **paths;        /* /etc/default/grub, then grub.d/ *.cfg */
        char **contents;
        size_t *lens;
        size_t n;
} grub_defaults;

static void grub_defaults_done(grub_defaults *d) {
        for (size_t i = 0; i < d->n; i++)
                free(d->contents[i]);
        free(d->contents);
        free(d->lens);
        strv_free(d->paths);
}

static int grub_defaults_load(const ht_context *c, grub_defaults *d, ht_plan *plan) {
        _cleanup_strv_free_ char **names = NULL;
        ht_list_dir(c, HT_GRUB_DEFAULTS_DIR, ".cfg", &names);
        _cleanup_strv_free_ char **order = ht_grub_defaults_files(names);
        *d = (grub_defaults){0};
        for (size_t i = 0; order[i]; i++) {
                char *content = NULL;
                size_t len = 0;
                int r = ht_read_file(c, order[i], HT_GRUB_DEFAULTS_MAX, &content, &len);
                if (r == -ENOENT)
                        continue;
                if (r < 0) {
                        file_error(c, plan, order[i], ": cannot read: ",
                                   r == -EFBIG ? "larger than 1 MiB, more than a GRUB defaults file holds; "
                                                 "hosttune does not edit it" : ht_strerror(-r));
                        grub_defaults_done(d);
                        *d = (grub_defaults){0};
                        return r;
                }
                d->contents = xrealloc(d->contents, (d->n + 1) * sizeof(char *));
                d->lens = xrealloc(d->lens, (d->n + 1) * sizeof(size_t));
                d->contents[d->n] = content;
                d->lens[d->n++] = len;
                strv_push(&d->paths, order[i]);
        }
        return 0;
}

/* The variables after the files before index upto (all files: upto = n). */
static ht_grub_env *grub_env_upto(const ht_context *c, const grub_defaults *d, size_t upto, pending_set *edits,
                                  ht_plan *plan) {
        ht_grub_env *env = ht_grub_env_new();
        for (size_t i = 0; i < upto; i++) {
                const char *content = d->contents[i];
                size_t len = d->lens[i];
                for (size_t k = 0; edits && k < edits->n; k++)
                        if (streq(edits->files[k].path, d->paths[i]) && edits->files[k].cur) {
                                content = edits->files[k].cur;
                                len = edits->files[k].cur_len;
                        }
                _cleanup_free_ char *err = NULL;
                if (ht_grub_eval_file(env, i, content, len, &err) < 0) {
                        file_error(c, plan, d->paths[i], ":", err);
                        ht_grub_env_free(env);
                        return NULL;
                }
        }
        return env;
}

/* Edit variable name where its effective value is set (the last file
 * assigning it), or append it to /etc/default/grub. */
static void grub_edit_var(const ht_context *c, const grub_defaults *d, const char *name, const op_list *ops,
                          pending_set *edits, ht_plan *plan) {
        if (ops->n == 0)
                return;
        _cleanup_(ht_grub_env_freep) ht_grub_env *all = grub_env_upto(c, d, d->n, edits, plan);
        if (!all)
                return;
        const ht_grub_var *v = ht_grub_env_get(all, name);
        size_t idx = v ? v->file : 0;
        const char *path = d->n ? d->paths[idx] : HT_GRUB_DEFAULTS;
        if (v && !v->value) {
                _cleanup_free_ char *msg = xasprintf("%s: hosttune does not run shell code, so it cannot edit %s there; set the parameters by hand",
                                                     v->why ? v->why : "", name);
                file_error(c, plan, d->paths[v->file], ":", msg);
                return;
        }
        _cleanup_(ht_grub_env_freep) ht_grub_env *before = grub_env_upto(c, d, idx, edits, plan);
        if (!before)
                return;
        pending_file *p = pending_get(c, edits, path, plan);
        if (!p)
                return;
        char *out = NULL, *err = NULL;
        size_t out_len = 0;
        int r = ht_grub_edit(p->cur ? p->cur : "", p->cur ? p->cur_len : 0, name, before, ops->ops, ops->n, &out,
                             &out_len, &err);
        if (r < 0) {
                file_error(c, plan, path, ":", err);
                free(err);
                return;
        }
        pending_replace(p, out, out_len);
}

/* Split ops between NAME and NAME_DEFAULT: the kernel takes the last of
 * repeated words and grub.cfg puts _DEFAULT after the plain variable, so
 * a parameter already in _DEFAULT is set there; removals go to both. */
static void grub_plan_pair(const ht_context *c, const grub_defaults *d, const char *name, const op_list *ops,
                           pending_set *edits, ht_plan *plan) {
        if (ops->n == 0) /* GRUB_CMDLINE_XEN on most hosts: nothing to read */
                return;
        _cleanup_free_ char *dflt = xasprintf("%s_DEFAULT", name);
        _cleanup_(ht_grub_env_freep) ht_grub_env *env = grub_env_upto(c, d, d->n, edits, plan);
        if (!env)
                return;
        const ht_grub_var *vl = ht_grub_env_get(env, name), *vd = ht_grub_env_get(env, dflt);
        _cleanup_strv_free_ char **wl = vl && vl->value ? ht_cmdline_split(vl->value) : NULL;
        _cleanup_strv_free_ char **wd = vd && vd->value ? ht_cmdline_split(vd->value) : NULL;
        op_list to_plain = {0}, to_default = {0};
        for (size_t i = 0; i < ops->n; i++) {
                ht_cmdline_op op = ops->ops[i];
                if (op.kind == HT_CMDLINE_ADD) {
                        /* a repeatable word: another with its key stays */
                        if (!ht_cmdline_satisfied(wl, &op) && !ht_cmdline_satisfied(wd, &op))
                                op_list_add(&to_plain, op, ops->settings[i]);
                        continue;
                }
                if (op.kind == HT_CMDLINE_REMOVE) {
                        if (word_present(wl, op.key))
                                op_list_add(&to_plain, op, ops->settings[i]);
                        if (word_present(wd, op.key))
                                op_list_add(&to_default, op, ops->settings[i]);
                        continue;
                }
                if (word_present(wd, op.key)) {
                        op_list_add(&to_default, op, ops->settings[i]);
                        if (word_present(wl, op.key))
                                op_list_add(&to_plain, (ht_cmdline_op){.kind = HT_CMDLINE_REMOVE, .key = op.key},
                                            ops->settings[i]);
                } else
                        op_list_add(&to_plain, op, ops->settings[i]);
        }
        grub_edit_var(c, d, name, &to_plain, edits, plan);
        grub_edit_var(c, d, dflt, &to_default, edits, plan);
        op_list_done(&to_plain);
        op_list_done(&to_default);
}

static char **grub_mkconfig_argv(const ht_context *c, const ht_facts *f) {
        const char *cfg = f->grub_cfg ? f->grub_cfg : ht_exists(c, "/boot/grub2") ? "/boot/grub2/grub.cfg" : "/boot/grub/grub.cfg";
        static const char *const tools[] = {
                "/usr/sbin/grub2-mkconfig", "/sbin/grub2-mkconfig", "/usr/sbin/grub-mkconfig", "/sbin/grub-mkconfig",
        };
        char **argv = NULL;
        for (size_t i = 0; i < ELEMENTSOF(tools); i++)
                if (ht_exists(c, tools[i])) {
                        strv_push(&argv, tools[i]);
                        break;
                }
        if (!argv)
                strv_push(&argv, "grub-mkconfig");
        strv_push(&argv, "-o");
        strv_push(&argv, cfg);
        return argv;
}

/* The words grub-mkconfig's 10_linux puts on the default entry's kernel
 * line after root= and ro: NAME, then NAME_DEFAULT, as the edited
 * defaults files leave them. */
static void grub_defaults_targets(const ht_context *c, const grub_defaults *d, const char *name, pending_set *edits,
                                  ht_plan *plan, boot_targets *t) {
        _cleanup_(ht_grub_env_freep) ht_grub_env *env = grub_env_upto(c, d, d->n, edits, plan);
        if (!env)
                return;
        _cleanup_free_ char *dflt = xasprintf("%s_DEFAULT", name);
        const ht_grub_var *vl = ht_grub_env_get(env, name), *vd = ht_grub_env_get(env, dflt);
        _cleanup_free_ char *line = xasprintf("%s %s", vl && vl->value ? vl->value : "",
                                              vd && vd->value ? vd->value : "");
        targets_add(t, ht_cmdline_split(line));
}

/* The host's own words on a kernel line, as GRUB_CMDLINE_LINUX would
 * need them: without what 10_linux adds itself (root=, ro) and GRUB
 * variables. */
static char *own_words(const char *args) {
        _cleanup_strv_free_ char **w = ht_cmdline_split(args);
        strbuf b = {0};
        strbuf_append(&b, "");
        for (size_t i = 0; w[i]; i++) {
                if (w[i][0] == '$' || startswith(w[i], "root=") || streq(w[i], "ro") || streq(w[i], "rw"))
                        continue;
                if (b.len)
                        strbuf_append(&b, " ");
                strbuf_append(&b, w[i]);
        }
        return strbuf_steal(&b);
}

/* Edit the kernel lines of grub.cfg in place, as grubby
 * --grub2 --update-kernel=ALL does, and take its entries as the boot
 * targets. Returns the host's own words of the first Linux entry (for
 * advice about /etc/default/grub), NULL when the file could not be
 * edited (the error is in the plan). */
static char *grub_cfg_edit_in_place(const ht_context *c, const ht_facts *f, const op_list *linux_ops,
                                    const op_list *xen_ops, pending_set *edits, ht_plan *plan, boot_targets *lt,
                                    boot_targets *xt) {
        _cleanup_free_ char *path = ht_follow_host_link(c, f->grub_cfg);
        _cleanup_free_ char *shown = ht_display_path(c, path);
        pending_file *p = pending_get(c, edits, path, plan);
        if (!p)
                return NULL;
        if (!p->cur) {
                file_error(c, plan, path, ": ", p->old ? "holds NUL bytes, not a GRUB configuration file" : "missing");
                return NULL;
        }
        const struct {
                const op_list *ops;
                ht_grub_cfg_kind kind;
                boot_targets *t;
                const char *what;
        } passes[] = {
                {linux_ops, HT_GRUB_CFG_LINUX, lt, "no linux, linux16 or linuxefi line"},
                {xen_ops, HT_GRUB_CFG_XEN, xt, "no Xen entry (multiboot line loading xen)"},
        };
        for (size_t i = 0; i < ELEMENTSOF(passes); i++) {
                if (passes[i].ops->n == 0)
                        continue;
                char *out = NULL, *err = NULL;
                size_t out_len = 0, n_lines = 0;
                if (ht_grub_cfg_edit(p->cur, p->cur_len, passes[i].kind, passes[i].ops->ops, passes[i].ops->n, &out,
                                     &out_len, &n_lines, &err) < 0) {
                        file_error(c, plan, path, ":", err);
                        free(err);
                        return NULL;
                }
                pending_replace(p, out, out_len);
                if (n_lines == 0)
                        targets_none(passes[i].t, xasprintf("%s has %s", shown, passes[i].what));
        }
        _cleanup_(ht_grub_cfg_freep) ht_grub_cfg *g = NULL;
        _cleanup_free_ char *err = NULL;
        if (ht_grub_cfg_parse(p->cur, p->cur_len, &g, &err) < 0)
                return NULL;
        const char *first = NULL;
        for (size_t i = 0; i < g->n_kernels; i++) {
                const ht_grub_cfg_kernel *k = &g->kernels[i];
                if (k->kind == HT_GRUB_CFG_LINUX && linux_ops->n)
                        targets_add(lt, ht_cmdline_split(k->args));
                else if (k->kind == HT_GRUB_CFG_XEN && xen_ops->n)
                        targets_add(xt, ht_cmdline_split(k->args));
                if (k->kind == HT_GRUB_CFG_LINUX && !first)
                        first = k->args;
        }
        return own_words(first ? first : "");
}

/* No defaults file at all: grub.cfg is all there is (image pipelines
 * that write it themselves). Regenerating it would build every entry
 * from an empty GRUB_CMDLINE_LINUX and drop crashkernel=, rd.lvm.lv=,
 * console= and the rest, so the kernel lines are edited in place and
 * nothing is regenerated. */
static void plan_grub_cfg_only(const ht_context *c, const ht_facts *f, const op_list *linux_ops,
                               const op_list *xen_ops, pending_set *edits, ht_plan *plan, boot_targets *lt,
                               boot_targets *xt) {
        if (!f->grub_cfg) {
                ht_plan_error(plan, "no /etc/default/grub and no grub.cfg: the kernel command line cannot be set");
                return;
        }
        _cleanup_free_ char *keep = grub_cfg_edit_in_place(c, f, linux_ops, xen_ops, edits, plan, lt, xt);
        if (!keep)
                return;
        _cleanup_free_ char *path = ht_follow_host_link(c, f->grub_cfg);
        _cleanup_free_ char *shown = ht_display_path(c, path);
        ht_plan_warn(plan, "%s: there is no /etc/default/grub, so hosttune edits the kernel lines of grub.cfg in place "
                     "(as grubby does) and does not regenerate it; grub-mkconfig (by hand or from a kernel update) "
                     "builds grub.cfg from /etc/default/grub and would drop these words and the host's own: before "
                     "it runs, create /etc/default/grub with GRUB_CMDLINE_LINUX=\"%s\"", shown, keep);
}

/* An image that has never booted: grub-mkconfig is never run for it,
 * not even chrooted, because grub-probe would find the build machine's
 * disks (or none, without /dev) and write them into root= of every
 * entry. The defaults files carry the words for the image's own later
 * grub-mkconfig; a grub.cfg the image already has gets them on its
 * kernel lines, so the image boots with them. */
static void plan_image_grub_cfg(const ht_context *c, const ht_facts *f, const op_list *linux_ops,
                                const op_list *xen_ops, pending_set *edits, ht_plan *plan, boot_targets *lt,
                                boot_targets *xt) {
        if (linux_ops->n == 0 && xen_ops->n == 0)
                return;
        if (f->grub_cfg) {
                free(grub_cfg_edit_in_place(c, f, linux_ops, xen_ops, edits, plan, lt, xt));
                return;
        }
        ht_plan_warn(plan, "this image has no grub.cfg yet: hosttune does not run grub-mkconfig for an image (it "
                     "would probe the build machine's disks), so the words are in the defaults files only; the "
                     "image's own GRUB setup (update-grub or grub-mkconfig when the GRUB package is installed, or "
                     "at its first boot) generates grub.cfg with them");
}

/* regenerate: set when grub.cfg must be rebuilt from the edited
 * defaults (NULL: the caller does not regenerate, as for BLS). */
static void plan_grub2(const ht_context *c, const ht_facts *f, const op_list *linux_ops, const op_list *xen_ops,
                       pending_set *edits, ht_plan *plan, boot_targets *lt, boot_targets *xt, bool *regenerate) {
        grub_defaults d;
        if (grub_defaults_load(c, &d, plan) < 0)
                return;
        if (d.n == 0 && regenerate) {
                grub_defaults_done(&d);
                plan_grub_cfg_only(c, f, linux_ops, xen_ops, edits, plan, lt, xt);
                return;
        }
        size_t errors = strv_length(plan->errors);
        grub_plan_pair(c, &d, "GRUB_CMDLINE_LINUX", linux_ops, edits, plan);
        grub_plan_pair(c, &d, "GRUB_CMDLINE_XEN", xen_ops, edits, plan);
        if (strv_length(plan->errors) == errors) {
                if (lt && linux_ops->n)
                        grub_defaults_targets(c, &d, "GRUB_CMDLINE_LINUX", edits, plan, lt);
                if (xt && xen_ops->n)
                        grub_defaults_targets(c, &d, "GRUB_CMDLINE_XEN", edits, plan, xt);
        }
        if (regenerate && plan->offline)
                plan_image_grub_cfg(c, f, linux_ops, xen_ops, edits, plan, lt, xt);
        else if (regenerate)
                *regenerate = true;
        grub_defaults_done(&d);
}

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

static void plan_bls(const ht_context *c, const ht_facts *f, const op_list *ops, pending_set *edits, ht_plan *plan,
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
                pending_file *p = pending_get(c, edits, envpath, plan);
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
                                file_error(c, plan, envpath, ": ", eerr);
                        else
                                pending_replace(p, out, out_len);
                }
        }

        _cleanup_strv_free_ char **entries = NULL;
        ht_list_dir(c, HT_BLS_ENTRIES_DIR, ".conf", &entries);
        for (size_t i = 0; entries && entries[i]; i++) {
                _cleanup_free_ char *path = xasprintf(HT_BLS_ENTRIES_DIR "/%s", entries[i]);
                pending_file *p = pending_get(c, edits, path, plan);
                if (!p)
                        continue;
                if (!p->cur) {
                        /* GRUB would still list it: never skip it silently */
                        file_error(c, plan, path, ": ", "holds NUL bytes, not a boot entry; repair or remove it");
                        continue;
                }
                _cleanup_(ht_bls_entry_freep) ht_bls_entry *e = NULL;
                _cleanup_free_ char *err = NULL;
                if (ht_bls_parse(p->cur, p->cur_len, &e, &err) < 0) {
                        file_error(c, plan, path, ":", err);
                        continue;
                }
                const char *options = ht_bls_get(e, "options");
                /* Entries taking words from $kernelopts got them above; only
                 * words written in the entry itself are edited here. */
                op_list mine = {0};
                _cleanup_strv_free_ char **words = options ? ht_cmdline_split(options) : NULL;
                bool via_env = options && ht_bls_uses_kernelopts(options);
                if (via_env && env_problem) {
                        /* the words would never reach this entry's command line */
                        ht_plan_error(plan, "%s; the boot entries take the kernel command line from its kernelopts "
                                      "($kernelopts in %s), so hosttune cannot set it; repair it with grub2-editenv or grubby",
                                      env_problem, HT_BLS_ENTRIES_DIR);
                        continue;
                }
                for (size_t k = 0; k < ops->n; k++)
                        if (!via_env || word_present(words, ops->ops[k].key))
                                op_list_add(&mine, ops->ops[k], ops->settings[k]);
                if (mine.n) {
                        char *out = NULL;
                        size_t out_len = 0;
                        _cleanup_free_ char *eerr = NULL;
                        if (ht_bls_edit_options(p->cur, p->cur_len, env, mine.ops, mine.n, &out, &out_len, &eerr) < 0)
                                file_error(c, plan, path, ":", eerr);
                        else
                                pending_replace(p, out, out_len);
                }
                op_list_done(&mine);
        }

        /* RHEL 9: kernel-install takes new kernels' command line from here */
        if (ht_exists(c, HT_KERNEL_CMDLINE)) {
                pending_file *p = pending_get(c, edits, HT_KERNEL_CMDLINE, plan);
                if (p && p->cur) {
                        char *out = NULL;
                        size_t out_len = 0;
                        _cleanup_free_ char *err = NULL;
                        if (ht_kernel_cmdline_edit(p->cur, p->cur_len, ops->ops, ops->n, &out, &out_len, &err) < 0)
                                file_error(c, plan, HT_KERNEL_CMDLINE, ": ", err);
                        else
                                pending_replace(p, out, out_len);
                }
        }
        /* grub2-mkconfig rebuilds kernelopts from /etc/default/grub */
        if (ht_exists(c, HT_GRUB_DEFAULTS)) {
                op_list none = {0};
                plan_grub2(c, f, ops, &none, edits, plan, NULL, NULL, NULL);
        }

        /* What the entries give the kernel after the edits */
        _cleanup_(ht_grubenv_freep) ht_grubenv *after = NULL;
        size_t env_len = 0;
        const char *env_now = envpath ? pending_content(edits, envpath, &env_len) : NULL;
        _cleanup_free_ char *eerr = NULL;
        if (env_now)
                (void)ht_grubenv_parse(env_now, env_len, &after, &eerr);
        for (size_t i = 0; entries && entries[i]; i++) {
                _cleanup_free_ char *path = xasprintf(HT_BLS_ENTRIES_DIR "/%s", entries[i]);
                size_t len = 0;
                const char *now = pending_content(edits, path, &len);
                _cleanup_(ht_bls_entry_freep) ht_bls_entry *e = NULL;
                _cleanup_free_ char *err = NULL;
                if (!now || ht_bls_parse(now, len, &e, &err) < 0)
                        continue;
                targets_add(lt, bls_entry_words(e, after));
        }
        if (lt->n == 0)
                targets_none(lt, xasprintf("%s has no boot entries", HT_BLS_ENTRIES_DIR));
}

/* ---- legacy GRUB -------------------------------------------------------- */

static void plan_legacy(const ht_context *c, const ht_facts *f, const op_list *linux_ops, const op_list *xen_ops,
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
        pending_file *p = pending_get(c, edits, path, plan);
        if (!p || !p->cur)
                return;
        _cleanup_(ht_grub_legacy_conf_freep) ht_grub_legacy_conf *conf = NULL;
        _cleanup_free_ char *err = NULL;
        if (ht_grub_legacy_parse(p->cur, p->cur_len, &conf, &err) < 0) {
                file_error(c, plan, path, ":", err);
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
                        file_error(c, plan, path, ":", eerr);
                else
                        pending_replace(p, out, out_len);
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
                        file_error(c, plan, path, ":", eerr);
                else {
                        pending_replace(p, out, out_len);
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
                        ch->source = xstrdup(default_req->source);
                        ch->note = xasprintf("boot '%s' by default", default_req->value);
                }
                return;
        }
        ht_plan_error(plan, "%s: no boot entry titled '%s' in %s", default_req->source, default_req->value, path);
}

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
                who = streq(f->container, "kubernetes") ?
                        xstrdup("the Kubernetes node that runs this pod (its bootloader or machine image)") :
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

/* A word that no bootloader file of the host will carry: its change
 * (the caller sets the outcome), the word as shown and the skip's name. */
static ht_change *add_unplanned_word(ht_plan *plan, const ht_setting *s, char **ret_word, char **ret_what) {
        *ret_word = xasprintf("%s%s%s%s", s->remove ? "(remove) " : "", s->key, isempty(s->value) ? "" : "=",
                              s->value ? s->value : "");
        *ret_what = xasprintf("cmdline %s", s->key);
        ht_change *ch = ht_plan_add_change(plan, HT_BK_CMDLINE, s->key, NULL, s->value);
        ch->source = xstrdup(s->source);
        return ch;
}

static void plan_no_bootloader(const ht_context *c, const ht_facts *f, const op_list *linux_ops,
                               const op_list *xen_ops, bool optional_only, ht_plan *plan) {
        _cleanup_free_ char *why = NULL;
        _cleanup_free_ char *who = cmdline_owner(f, &why);
        _cleanup_free_ char *skipped_words = NULL;
        for (size_t i = 0; i < linux_ops->n + xen_ops->n; i++) {
                const ht_setting *s = i < linux_ops->n ? linux_ops->settings[i] : xen_ops->settings[i - linux_ops->n];
                _cleanup_free_ char *word = NULL, *what = NULL;
                ht_change *ch = add_unplanned_word(plan, s, &word, &what);
                if (who && s->required) {
                        ch->outcome = HT_OUTCOME_FAILED;
                        ht_plan_error(plan, "%s: the kernel command line word %s is marked required, but %s: "
                                      "hosttune cannot set it here; set it on %s", s->source, word, why, who);
                } else if (who) {
                        ch->outcome = HT_OUTCOME_SKIPPED;
                        ch->note = xasprintf("set by %s, not here", who);
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
        if (!who && !optional_only)
                ht_plan_error(plan, "no bootloader configuration found (no /etc/default/grub, BLS entries or grub.conf%s): "
                              "the kernel command line cannot be set here; in a container, set it on the host", script);
}

/* ---- an image without a bootloader configuration yet ------------------ */

/* hosttune's own defaults file: Debian's grub-mkconfig sources
 * /etc/default/grub.d/ *.cfg after /etc/default/grub (the file the GRUB
 * package's postinst creates from its template, then runs update-grub),
 * so words appended here to the variable's earlier value reach every
 * kernel line it generates. */
#define HT_GRUB_D_HOSTTUNE HT_GRUB_DEFAULTS_DIR "/hosttune.cfg"

static const char grub_d_header[] =
        "# Written by hosttune: the kernel command line words of its profile, for\n"
        "# grub-mkconfig (update-grub), which reads this file after /etc/default/grub.\n"
        "# 'hosttune rollback' removes it.\n";

static bool os_is_debian_like(const ht_facts *f) {
        _cleanup_free_ char *ids = xasprintf("%s %s", f->os_id ? f->os_id : "", f->os_id_like ? f->os_id_like : "");
        _cleanup_strv_free_ char **w = ht_cmdline_split(ids);
        return strv_contains(w, "debian") || strv_contains(w, "ubuntu");
}

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
                        file_error(c, plan, order[i], ": cannot read: ", "larger than 1 MiB, more than a GRUB "
                                   "defaults file holds");
                        ht_grub_env_free(env);
                        return NULL;
                }
                if (!ours && (k < 0 || !other))
                        continue;
                if (ours && !content)
                        continue;
                if (ht_grub_eval_file(env, i + 1, ours ? content : other, ours ? len : olen, &e) < 0) {
                        file_error(c, plan, order[i], ":", e);
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

/* Debian or Ubuntu before grub-pc: /etc/default/grub.d/hosttune.cfg
 * with NAME="$NAME words" for the image's later update-grub. */
static void plan_image_grub_d(const ht_context *c, const op_list *linux_ops, const op_list *xen_ops,
                              pending_set *edits, ht_plan *plan, boot_targets *lt, boot_targets *xt) {
        pending_file *p = pending_get(c, edits, HT_GRUB_D_HOSTTUNE, plan);
        if (!p)
                return;
        if (p->old && !p->cur) {
                file_error(c, plan, HT_GRUB_D_HOSTTUNE, ": ", "holds NUL bytes, not a GRUB defaults file");
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
                        file_error(c, plan, HT_GRUB_D_HOSTTUNE, ":", err);
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
                        file_error(c, plan, HT_GRUB_D_HOSTTUNE, ":", err);
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
        pending_replace(p, cur, cur_len);
        if (linux_ops->n)
                targets_add(lt, grub_d_words(after, "GRUB_CMDLINE_LINUX"));
        if (xen_ops->n)
                targets_add(xt, grub_d_words(after, "GRUB_CMDLINE_XEN"));
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
 * image already has is edited in place; hosttune never makes one up. */
static void plan_image_kernel_cmdline(const ht_context *c, const op_list *linux_ops, const op_list *xen_ops,
                                      pending_set *edits, ht_plan *plan, boot_targets *lt, boot_targets *xt) {
        if (xen_ops->n)
                targets_none(xt, xasprintf("%s carries no Xen hypervisor command line", HT_KERNEL_CMDLINE));
        if (linux_ops->n == 0)
                return;
        pending_file *p = pending_get(c, edits, HT_KERNEL_CMDLINE, plan);
        if (!p)
                return;
        if (!p->cur) {
                file_error(c, plan, HT_KERNEL_CMDLINE, ": ", "holds NUL bytes, not a kernel command line");
                return;
        }
        char *out = NULL;
        size_t out_len = 0;
        _cleanup_free_ char *err = NULL;
        if (ht_kernel_cmdline_edit(p->cur, p->cur_len, linux_ops->ops, linux_ops->n, &out, &out_len, &err) < 0) {
                file_error(c, plan, HT_KERNEL_CMDLINE, ": ", err);
                return;
        }
        pending_replace(p, out, out_len);
        _cleanup_free_ char *line = xstrndup(out, out_len);
        targets_add(lt, ht_cmdline_split(line));
}

/* The words of an image whose layout hosttune does not know: skipped
 * (the rest of the profile is planned), an error only for a required
 * word, and one warning saying where they must go. */
static void plan_image_unknown(const ht_context *c, const op_list *linux_ops, const op_list *xen_ops,
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
                ht_change *ch = add_unplanned_word(plan, s, &word, &what);
                if (s->required) {
                        ch->outcome = HT_OUTCOME_FAILED;
                        ht_plan_error(plan, "%s: the kernel command line word %s is marked required, but this image "
                                      "has no bootloader configuration yet (no /etc/default/grub, grub.cfg, BLS "
                                      "entries or grub.conf) that hosttune can edit; %s", s->source, word, where);
                        continue;
                }
                ch->outcome = HT_OUTCOME_SKIPPED;
                ch->note = xstrdup("no bootloader configuration in the image yet");
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

/* The Linux and Xen argument words of every entry of the edited menu. */
static void legacy_targets(const ht_context *c, const ht_facts *f, const pending_set *edits, boot_targets *lt,
                           boot_targets *xt) {
        /* the file plan_legacy edited: the target of a distribution's link */
        _cleanup_free_ char *path = NULL, *lerr = NULL;
        if (!f->grub_legacy_conf || ht_edit_target(c, f->grub_legacy_conf, &path, &lerr) < 0)
                return; /* the error is reported already */
        size_t len = 0;
        const char *now = path ? pending_content(edits, path, &len) : NULL;
        _cleanup_(ht_grub_legacy_conf_freep) ht_grub_legacy_conf *conf = NULL;
        _cleanup_free_ char *err = NULL, *shown = path ? ht_display_path(c, path) : NULL;
        if (!now || ht_grub_legacy_parse(now, len, &conf, &err) < 0)
                return; /* the error is reported already */
        for (size_t i = 0; i < conf->n_entries; i++) {
                const ht_grub_legacy_entry *e = &conf->entries[i];
                if (!e->linux_kernel || !e->linux_image)
                        continue; /* chainloader: another system's; Memtest86+ takes no Linux words */
                _cleanup_free_ char *la = xstrndup(now + e->linux_args_start, e->linux_args_end - e->linux_args_start);
                targets_add(lt, ht_cmdline_split(la));
                if (e->xen) {
                        _cleanup_free_ char *xa = xstrndup(now + e->xen_args_start, e->xen_args_end - e->xen_args_start);
                        targets_add(xt, ht_cmdline_split(xa));
                }
        }
        if (lt->n == 0)
                targets_none(lt, xasprintf("%s has no boot entry (title) with a kernel line", shown));
        if (xt->n == 0)
                targets_none(xt, xasprintf("%s has no Xen boot entry", shown));
}

/* An op the edited files do not give to every boot entry: an error, or
 * for an optional setting a skip; never "kept" or "pending reboot". */
static void report_unmet(ht_plan *plan, const ht_setting *s, const ht_cmdline_op *op, const boot_targets *t) {
        _cleanup_free_ char *word = ht_cmdline_op_word(op);
        _cleanup_free_ char *why = t->n == 0 ? xstrdup(t->why_none ? t->why_none : "no boot entry found")
                                             : xstrdup("after the edit, not every boot entry's command line has it");
        const char *verb = op->kind == HT_CMDLINE_REMOVE ? "removing" : "setting";
        if (s->optional) {
                _cleanup_free_ char *what = xasprintf("cmdline %s", s->key);
                ht_plan_skip(plan, what, s->source, "%s kernel parameter %s: %s", verb, word, why);
        } else
                ht_plan_error(plan, "%s: %s kernel parameter %s cannot be done: %s", s->source, verb, word, why);
}

static void legacy_check(const ht_context *c, const ht_facts *f, ht_plan *plan) {
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
                op_list_add(s->fields[F_TARGET] && streq(s->fields[F_TARGET], "xen") ? &xen_ops : &linux_ops, op, s);
        }
        if (linux_ops.n == 0 && xen_ops.n == 0 && !default_req) {
                /* a Xen host whose menu file offers no entry to switch to:
                 * when it is also broken, the line is the reason (a plan
                 * that needs the switch fails in 30-xen.rules) */
                if (f->bootloader == HT_BOOT_GRUB_LEGACY && f->kernel_xen && ht_boot_switch_entry(f) < 0)
                        legacy_check(c, f, plan);
                return 0;
        }

        /* an image: the layout its bootloader will have decides */
        bool image_grub_d = false, image_kernel_cmdline = false;
        if (f->bootloader == HT_BOOT_NONE && plan->offline) {
                image_grub_d = os_is_debian_like(f);
                image_kernel_cmdline = !image_grub_d && ht_exists(c, HT_KERNEL_CMDLINE);
                if (!image_grub_d && !image_kernel_cmdline) {
                        plan_image_unknown(c, &linux_ops, &xen_ops, plan);
                        if (default_req)
                                ht_plan_error(plan, "%s: changing the default boot entry is supported for legacy "
                                              "GRUB only", default_req->source);
                        op_list_done(&linux_ops);
                        op_list_done(&xen_ops);
                        return 0;
                }
        } else if (f->bootloader == HT_BOOT_NONE) {
                plan_no_bootloader(c, f, &linux_ops, &xen_ops, optional_only, plan);
                op_list_done(&linux_ops);
                op_list_done(&xen_ops);
                return 0;
        }

        ht_cmdline_format fmt = HT_CMDLINE_FMT_GRUB_CFG;
        const char *target = words_target(f, image_grub_d, image_kernel_cmdline, c, &fmt);
        size_t errors_before = strv_length(plan->errors);
        words_check_target(c, target, fmt, &linux_ops, plan);
        words_check_target(c, target, fmt, &xen_ops, plan);
        if (strv_length(plan->errors) > errors_before) {
                /* nothing of the bootloader is planned with a word refused */
                op_list_done(&linux_ops);
                op_list_done(&xen_ops);
                return 0;
        }
        pending_set edits = {0};
        boot_targets lt = {0}, xt = {0};
        bool regenerate = false;
        switch (f->bootloader) {
        case HT_BOOT_GRUB2:
                plan_grub2(c, f, &linux_ops, &xen_ops, &edits, plan, &lt, &xt, &regenerate);
                break;
        case HT_BOOT_BLS:
                plan_bls(c, f, &linux_ops, &edits, plan, &lt);
                targets_none(&xt, xasprintf("the BLS entries in %s carry no Xen hypervisor command line",
                                            HT_BLS_ENTRIES_DIR));
                break;
        case HT_BOOT_GRUB_LEGACY:
                plan_legacy(c, f, &linux_ops, &xen_ops, default_req, &edits, plan);
                legacy_targets(c, f, &edits, &lt, &xt);
                break;
        case HT_BOOT_NONE:
                if (image_grub_d)
                        plan_image_grub_d(c, &linux_ops, &xen_ops, &edits, plan, &lt, &xt);
                else if (image_kernel_cmdline)
                        plan_image_kernel_cmdline(c, &linux_ops, &xen_ops, &edits, plan, &lt, &xt);
                break;
        }
        if (default_req && f->bootloader != HT_BOOT_GRUB_LEGACY)
                ht_plan_error(plan, "%s: changing the default boot entry is supported for legacy GRUB only; "
                              "use grub2-set-default or grubby --set-default", default_req->source);
        size_t changed_files = pending_flush(&edits, plan);
        /* A file that could not be edited: nothing is persisted, so no
         * word may be reported as waiting for the reboot. */
        bool failed = strv_length(plan->errors) > errors_before;

        if (changed_files && regenerate) {
                _cleanup_strv_free_ char **argv = grub_mkconfig_argv(c, f);
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
                bool persisted = !failed && lt.known && targets_met(&lt, op);
                if (!failed && !persisted)
                        report_unmet(plan, s, op, &lt);
                if (running_ok && persisted && !changed_files)
                        continue;
                ht_change *ch = ht_plan_add_change(plan, HT_BK_CMDLINE, op->key, cur, want);
                ch->source = xstrdup(s->source);
                ch->reboot_required = live && !running_ok;
                if (!persisted) {
                        ch->outcome = failed || !s->optional ? HT_OUTCOME_FAILED : HT_OUTCOME_SKIPPED;
                        ch->reboot_required = false;
                } else if (!changed_files && plan->offline) {
                        /* persisted already (an earlier apply) in an image */
                        ch->outcome = HT_OUTCOME_KEPT;
                        ch->note = xstrdup("in the image's bootloader configuration; takes effect when the image boots");
                } else if (!changed_files) {
                        /* persisted already (an earlier apply): only the reboot is missing */
                        ch->outcome = HT_OUTCOME_KEPT;
                        ch->note = xstrdup("in the bootloader configuration; takes effect at the next boot");
                        plan->reboot_required = true;
                } else if (plan->offline)
                        ch->note = xstrdup("takes effect when the image boots");
        }
        for (size_t i = 0; i < xen_ops.n; i++) {
                const ht_cmdline_op *op = &xen_ops.ops[i];
                bool persisted = !failed && xt.known && targets_met(&xt, op);
                if (!failed && !persisted)
                        report_unmet(plan, xen_ops.settings[i], op, &xt);
                if (persisted && !changed_files)
                        continue;
                _cleanup_free_ char *want = op->kind == HT_CMDLINE_REMOVE ? NULL : ht_cmdline_op_word(op);
                ht_change *ch = ht_plan_add_change(plan, HT_BK_CMDLINE, op->key, NULL, want);
                ch->source = xstrdup(xen_ops.settings[i]->source);
                ch->reboot_required = persisted && !plan->offline;
                ch->note = xstrdup(plan->offline ? "Xen hypervisor command line; takes effect when the image boots"
                                                 : "Xen hypervisor command line");
                if (!persisted)
                        ch->outcome = failed || !xen_ops.settings[i]->optional ? HT_OUTCOME_FAILED : HT_OUTCOME_SKIPPED;
        }
        targets_done(&lt);
        targets_done(&xt);
        op_list_done(&linux_ops);
        op_list_done(&xen_ops);
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
        if (t != CONFIG_TYPE_STRING && t != CONFIG_TYPE_ARRAY && t != CONFIG_TYPE_LIST) {
                *ret_error = xasprintf("%s:%u: %s: expected a string or an array of strings, not %s",
                                       p->path, ht_cfg_line(l), what, ht_cfg_type_name(t));
                return -EINVAL;
        }
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
        if (optional && required) {
                *ret_error = xasprintf("%s:%u: cmdline: 'optional' and 'required' contradict each other; "
                                       "give one", p->path, ht_cfg_line(g));
                return -EINVAL;
        }
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
        *ret_error = xasprintf("%s:%u: cmdline: expected a group { add = [...]; remove = [...]; } "
                               "or a list of them, not %s", p->path, ht_cfg_line(s), ht_cfg_type_name(t));
        return -EINVAL;
}

static const ht_backend_field cmdline_rule_fields[] = {
        {.name = "key", .offset = offsetof(ht_entry, key)},
        {.name = "target", .offset = offsetof(ht_entry, fields[F_TARGET]), .optional = true},
        {0},
};

static int cmdline_canon_key(ht_resolver *r, const ht_entry *e, const char *what, ht_setting *s,
                             char **ret_value, char **ret_error) {
        int k = ht_entry_eval_string(r, &e->key, e, what, "key", &s->key, ret_error);
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
                k = ht_entry_eval_string(r, &e->fields[F_TARGET], e, what, "target", &s->fields[F_TARGET], ret_error);
        else
                s->fields[F_TARGET] = xstrdup("linux");
        if (k < 0)
                return k;
        if (isempty(s->key) || !ht_word_chars(s->key, "_.-")) {
                *ret_error = xasprintf("%s:%u: %s: '%s' is not a kernel parameter name", e->file,
                                       e->line, what, s->key);
                return -EINVAL;
        }
        if (!streq(s->fields[F_TARGET], "linux") && !streq(s->fields[F_TARGET], "xen")) {
                *ret_error = xasprintf("%s:%u: %s: target '%s' must be linux or xen", e->file,
                                       e->line, what, s->fields[F_TARGET]);
                return -EINVAL;
        }
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
