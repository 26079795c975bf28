/* The cmdline backend: GRUB 2 (cmdline-common.h). */
#include "config.h"

#include <ctype.h>
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

static int grub_defaults_load(const ht_context *c, const ht_facts *f, grub_defaults *d, ht_plan *plan) {
        _cleanup_strv_free_ char **names = NULL;
        /* only where this grub-mkconfig sources them (not RHEL's) */
        if (f->grub_reads_grub_d)
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
                        cmdline_file_error(c, plan, order[i], ": cannot read: ",
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

/* The parse of path's text as planned (p: its edit, or NULL): the one
 * the editor gave with the edit, or the host's bytes' the context keeps. */
static int grub_parse_planned(const ht_context *c, const char *path, const pending_file *p, const char *content,
                              size_t len, const ht_grub_file **ret, char **ret_error) {
        if (p && p->cur_parsed && p->cur_parsed_kind == &ht_grub_parsed_kind && content == p->cur) {
                *ret = ht_grub_file_ref(p->cur_parsed);
                return 0;
        }
        return ht_grub_parse_host(c, path, content, len, ret, ret_error);
}

/* The variables after the files before index upto (all files: upto = n). */
static ht_grub_env *grub_env_upto(const ht_context *c, const grub_defaults *d, size_t upto, pending_set *edits,
                                  ht_plan *plan) {
        ht_grub_env *env = ht_grub_env_new();
        for (size_t i = 0; i < upto; i++) {
                const char *content = d->contents[i];
                size_t len = d->lens[i];
                const pending_file *p = NULL;
                for (size_t k = 0; edits && k < edits->n; k++)
                        if (streq(edits->files[k].path, d->paths[i]) && edits->files[k].cur) {
                                p = &edits->files[k];
                                content = p->cur;
                                len = p->cur_len;
                        }
                _cleanup_free_ char *err = NULL;
                _cleanup_(ht_grub_file_unrefp) const ht_grub_file *f = NULL;
                if (grub_parse_planned(c, d->paths[i], p, content, len, &f, &err) < 0) {
                        cmdline_file_error(c, plan, d->paths[i], ":", err);
                        ht_grub_env_free(env);
                        return NULL;
                }
                ht_grub_eval_parsed(env, i, content, f);
        }
        return env;
}

/* Whether the last assignment of name in content (parsed) refers to
 * name's earlier value ($NAME or ${NAME}): `V="$V word"`, the form of the
 * grub.d files packages add (kdump-tools' crashkernel=). */
static bool refers_to_itself(const ht_grub_file *parsed, const char *content, const char *name) {
        const ht_grub_assignment *a = NULL;
        for (size_t i = 0; parsed && i < parsed->n_assignments; i++)
                if (streq(parsed->assignments[i].name, name))
                        a = &parsed->assignments[i];
        if (!a || a->unset)
                return false;
        size_t n = strlen(name);
        for (size_t i = a->value_start; i + n < a->value_end; i++) {
                if (content[i] != '$')
                        continue;
                size_t k = i + 1 + (content[i + 1] == '{');
                if (k + n > a->value_end || memcmp(content + k, name, n) != 0)
                        continue;
                char next = k + n < a->value_end ? content[k + n] : 0;
                if (content[i + 1] == '{' ? next == '}' : !(isalnum((unsigned char)next) || next == '_'))
                        return true;
        }
        return false;
}

static void grub_edit_var_upto(const ht_context *c, const grub_defaults *d, size_t upto, const char *name,
                               const op_list *ops, pending_set *edits, ht_plan *plan);

/* v: name's value after a conditional assignment in file v->file that
 * appends to the value an earlier file gives. The ops on parameters of
 * that earlier value are made there; *ret_rest gets the others whose
 * parameter the conditional's own words hold (which hosttune cannot
 * edit). False when the assignment is not of that form (or an edit
 * failed): nothing done. */
static bool grub_edit_under_conditional(const ht_context *c, const grub_defaults *d, const char *name,
                                        const ht_grub_var *v, const op_list *ops, pending_set *edits, ht_plan *plan,
                                        op_list *ret_rest) {
        if (!v->if_run || v->file == 0)
                return false;
        size_t idx = v->file, len = 0;
        const char *content = cmdline_pending_content(edits, d->paths[idx], &len);
        if (!content) {
                content = d->contents[idx];
                len = d->lens[idx];
        }
        _cleanup_(ht_grub_file_unrefp) const ht_grub_file *parsed = NULL;
        _cleanup_free_ char *err = NULL;
        if (ht_grub_parse_host(c, d->paths[idx], content, len, &parsed, &err) < 0 ||
            !refers_to_itself(parsed, content, name))
                return false;
        _cleanup_strv_free_ char **earlier = ht_cmdline_split(v->if_not), **run = ht_cmdline_split(v->if_run);
        /* the conditional's own words: those the run adds to the earlier value */
        char **own = NULL;
        for (size_t i = 0, k = 0; run[i]; i++) {
                if (earlier[k] && streq(run[i], earlier[k]))
                        k++;
                else
                        strv_push(&own, run[i]);
        }
        op_list there = {0};
        for (size_t i = 0; i < ops->n; i++) {
                if (ops->ops[i].kind != HT_CMDLINE_ADD && cmdline_word_present(earlier, ops->ops[i].key))
                        cmdline_op_list_add(&there, ops->ops[i], ops->settings[i]);
                if (ops->ops[i].kind == HT_CMDLINE_ADD || cmdline_word_present(own, ops->ops[i].key))
                        cmdline_op_list_add(ret_rest, ops->ops[i], ops->settings[i]);
        }
        strv_free(own);
        size_t errors = strv_length(plan->errors);
        grub_edit_var_upto(c, d, idx, name, &there, edits, plan);
        cmdline_op_list_done(&there);
        return strv_length(plan->errors) == errors;
}

/* Edit variable name where its effective value is set (the last file
 * among the first upto assigning it), or append it to
 * /etc/default/grub. A parameter the last assignment takes from the
 * variable's value in an earlier file (`V="$V word"` in grub.d) is
 * changed there first. */
static void grub_edit_var_upto(const ht_context *c, const grub_defaults *d, size_t upto, const char *name,
                               const op_list *ops, pending_set *edits, ht_plan *plan) {
        if (ops->n == 0)
                return;
        _cleanup_(ht_grub_env_freep) ht_grub_env *all = grub_env_upto(c, d, upto, edits, plan);
        if (!all)
                return;
        const ht_grub_var *v = ht_grub_env_get(all, name);
        size_t idx = v ? v->file : 0;
        const char *path = d->n ? d->paths[idx] : HT_GRUB_DEFAULTS;
        if (v && !v->value) {
                /* `if ...; then V="$V word"; fi` over a value an earlier file
                 * sets: what that value holds is changed there, and only a
                 * parameter of the conditional's own words is left */
                op_list rest = {0};
                if (grub_edit_under_conditional(c, d, name, v, ops, edits, plan, &rest) && rest.n == 0) {
                        cmdline_op_list_done(&rest);
                        return;
                }
                cmdline_op_list_done(&rest);
                _cleanup_free_ char *msg = xasprintf("%s: hosttune does not run shell code, so it cannot edit %s there; set the parameters by hand",
                                                     v->why ? v->why : "", name);
                cmdline_file_error(c, plan, d->paths[v->file], ":", msg);
                return;
        }
        _cleanup_(ht_grub_env_freep) ht_grub_env *before = grub_env_upto(c, d, idx, edits, plan);
        if (!before)
                return;
        pending_file *p = cmdline_pending_get(c, edits, path, plan);
        if (!p)
                return;
        char *out = NULL, *err = NULL;
        size_t out_len = 0;
        const char *cur = p->cur ? p->cur : "";
        size_t cur_len = p->cur ? p->cur_len : 0;
        /* the parse grub_env_upto used; one that fails, the editor words */
        _cleanup_(ht_grub_file_unrefp) const ht_grub_file *parsed = NULL;
        _cleanup_free_ char *parse_err = NULL;
        (void)grub_parse_planned(c, path, p, cur, cur_len, &parsed, &parse_err);
        const ht_grub_var *vb = ht_grub_env_get(before, name);
        if (idx > 0 && vb && vb->value && refers_to_itself(parsed, cur, name)) {
                /* a removal or a new value of a parameter the earlier files
                 * give: made there, so the reference carries it */
                _cleanup_strv_free_ char **earlier = ht_cmdline_split(vb->value);
                op_list there = {0};
                for (size_t i = 0; i < ops->n; i++)
                        if (ops->ops[i].kind != HT_CMDLINE_ADD && cmdline_word_present(earlier, ops->ops[i].key))
                                cmdline_op_list_add(&there, ops->ops[i], ops->settings[i]);
                size_t errors = strv_length(plan->errors);
                grub_edit_var_upto(c, d, idx, name, &there, edits, plan);
                cmdline_op_list_done(&there);
                if (strv_length(plan->errors) > errors)
                        return;
                ht_grub_env_free(before);
                before = grub_env_upto(c, d, idx, edits, plan);
                /* the set of edits grew: its entry for this file moved
                 * (its text did not) */
                p = cmdline_pending_get(c, edits, path, plan);
                if (!before || !p)
                        return;
        }
        const ht_grub_file *out_parsed = NULL;
        int r = ht_grub_edit_parsed(parsed, cur, cur_len, name, before, ops->ops, ops->n, &out, &out_len,
                                    &out_parsed, &err);
        if (r < 0) {
                cmdline_file_error(c, plan, path, ":", err);
                free(err);
                return;
        }
        cmdline_pending_replace_parsed(p, out, out_len, (void *)out_parsed, &ht_grub_parsed_kind);
}

static void grub_edit_var(const ht_context *c, const grub_defaults *d, const char *name, const op_list *ops,
                          pending_set *edits, ht_plan *plan) {
        grub_edit_var_upto(c, d, d->n, name, ops, edits, plan);
}

/* Split ops between NAME and NAME_DEFAULT: the kernel takes the last of
 * repeated words and grub.cfg puts _DEFAULT after the plain variable, so
 * a parameter already in _DEFAULT is set there; removals go to both. */
static void grub_plan_pair(const ht_context *c, const grub_defaults *d, const char *name, const char *dflt,
                           const op_list *ops, pending_set *edits, ht_plan *plan) {
        if (ops->n == 0) /* GRUB_CMDLINE_XEN on most hosts: nothing to read */
                return;
        _cleanup_(ht_grub_env_freep) ht_grub_env *env = grub_env_upto(c, d, d->n, edits, plan);
        if (!env)
                return;
        const ht_grub_var *vl = ht_grub_env_get(env, name), *vd = ht_grub_env_get(env, dflt);
        _cleanup_strv_free_ char **wl = vl && vl->value ? ht_cmdline_split(vl->value) : NULL;
        _cleanup_strv_free_ char **wd = vd && vd->value ? ht_cmdline_split(vd->value) : NULL;
        /* _DEFAULT only shell code gives (a conditional): its words in
         * either outcome, every word when they are not known, so that a
         * parameter it may hold is edited there, which says why it cannot */
        bool dflt_unknown = vd && !vd->value;
        if (dflt_unknown && vd->if_run) {
                _cleanup_free_ char *both = xasprintf("%s %s", vd->if_run, vd->if_not);
                wd = ht_cmdline_split(both);
        }
        op_list to_plain = {0}, to_default = {0};
        for (size_t i = 0; i < ops->n; i++) {
                ht_cmdline_op op = ops->ops[i];
                if (op.kind == HT_CMDLINE_ADD) {
                        /* a repeatable word: another with its key stays */
                        if (!ht_cmdline_satisfied(wl, &op) && !ht_cmdline_satisfied(wd, &op))
                                cmdline_op_list_add(&to_plain, op, ops->settings[i]);
                        continue;
                }
                bool in_dflt = cmdline_word_present(wd, op.key) || (dflt_unknown && !vd->if_run);
                if (op.kind == HT_CMDLINE_REMOVE) {
                        if (cmdline_word_present(wl, op.key))
                                cmdline_op_list_add(&to_plain, op, ops->settings[i]);
                        if (in_dflt)
                                cmdline_op_list_add(&to_default, op, ops->settings[i]);
                        continue;
                }
                if (in_dflt) {
                        cmdline_op_list_add(&to_default, op, ops->settings[i]);
                        if (cmdline_word_present(wl, op.key))
                                cmdline_op_list_add(&to_plain,
                                                    (ht_cmdline_op){.kind = HT_CMDLINE_REMOVE, .key = op.key},
                                                    ops->settings[i]);
                } else
                        cmdline_op_list_add(&to_plain, op, ops->settings[i]);
        }
        grub_edit_var(c, d, name, &to_plain, edits, plan);
        grub_edit_var(c, d, dflt, &to_default, edits, plan);
        cmdline_op_list_done(&to_plain);
        cmdline_op_list_done(&to_default);
}

/* Whether grub-mkconfig makes Xen entries: Debian's 20_linux_xen (and
 * RHEL 7's) takes every /boot/xen* that is a hypervisor, not xen-syms-*,
 * xenpolicy-* or a *.config (file_is_not_xen_garbage), nor a package
 * manager's leftover (grub_file_is_not_garbage). */
static bool boot_has_xen(const ht_context *c) {
        _cleanup_strv_free_ char **names = NULL;
        if (ht_list_dir(c, "/boot", NULL, &names) < 0)
                return false;
        for (size_t i = 0; names[i]; i++) {
                const char *n = names[i];
                if (!startswith(n, "xen") || startswith(n, "xen-syms-") || startswith(n, "xenpolicy-") ||
                    endswith(n, ".config") || strstr(n, ".dpkg-") || endswith(n, ".rpmsave") ||
                    endswith(n, ".rpmnew") || endswith(n, "~"))
                        continue;
                return true;
        }
        return false;
}

/* The variables the Linux line of the Xen entries is built from:
 * 20_linux_xen replaces GRUB_CMDLINE_LINUX with
 * GRUB_CMDLINE_LINUX_XEN_REPLACE and _DEFAULT with
 * GRUB_CMDLINE_LINUX_XEN_REPLACE_DEFAULT when they are not empty (Debian
 * ships them commented out in /etc/default/grub.d/xen.cfg). True when
 * there are Xen entries and one of the two is replaced: the same words
 * are then planned on that pair too. A value only shell code gives
 * counts as set (its edit reports why it cannot be done). */
static bool grub_xen_linux_pair(const ht_context *c, const grub_defaults *d, pending_set *edits, ht_plan *plan,
                                const char **ret_name, const char **ret_dflt) {
        _cleanup_(ht_grub_env_freep) ht_grub_env *env = grub_env_upto(c, d, d->n, edits, plan);
        *ret_name = *ret_dflt = NULL;
        if (!env)
                return false;
        const ht_grub_var *r = ht_grub_env_get(env, "GRUB_CMDLINE_LINUX_XEN_REPLACE");
        const ht_grub_var *rd = ht_grub_env_get(env, "GRUB_CMDLINE_LINUX_XEN_REPLACE_DEFAULT");
        bool replaced = r && (!r->value || *r->value), replaced_d = rd && (!rd->value || *rd->value);
        /* /boot listed only where a replacement is set (most hosts: none) */
        if ((!replaced && !replaced_d) || !boot_has_xen(c))
                return false;
        *ret_name = replaced ? "GRUB_CMDLINE_LINUX_XEN_REPLACE" : "GRUB_CMDLINE_LINUX";
        *ret_dflt = replaced_d ? "GRUB_CMDLINE_LINUX_XEN_REPLACE_DEFAULT" : "GRUB_CMDLINE_LINUX_DEFAULT";
        return true;
}

char **cmdline_grub_mkconfig_argv(const ht_context *c, const ht_facts *f) {
        const char *cfg = f->grub_cfg ? f->grub_cfg : ht_exists(c, "/boot/grub2") ? "/boot/grub2/grub.cfg" : "/boot/grub/grub.cfg";
        char **argv = NULL;
        for (size_t i = 0; ht_grub_mkconfig_paths[i]; i++)
                if (ht_exists(c, ht_grub_mkconfig_paths[i])) {
                        strv_push(&argv, ht_grub_mkconfig_paths[i]);
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
static void grub_defaults_targets(const ht_context *c, const grub_defaults *d, const char *name, const char *dflt,
                                  pending_set *edits, ht_plan *plan, boot_targets *t) {
        _cleanup_(ht_grub_env_freep) ht_grub_env *env = grub_env_upto(c, d, d->n, edits, plan);
        if (!env)
                return;
        const ht_grub_var *v[2] = {ht_grub_env_get(env, name), ht_grub_env_get(env, dflt)};
        /* each variable's possible values: its value, or both outcomes of
         * a conditional assignment; unknown, nothing is met */
        const char *alt[2][2];
        size_t n_alt[2];
        for (size_t k = 0; k < 2; k++) {
                n_alt[k] = 1;
                alt[k][0] = v[k] && v[k]->value ? v[k]->value : "";
                if (!v[k] || v[k]->value)
                        continue;
                if (!v[k]->if_run) {
                        _cleanup_free_ char *shown = ht_display_path(c, d->paths[v[k]->file]);
                        cmdline_targets_unknown(t, xasprintf("%s:%s: the value of %s is not known without running "
                                                             "the shell, so neither is the kernel line grub-mkconfig "
                                                             "writes", shown, v[k]->why ? v[k]->why : "",
                                                             k ? dflt : name));
                        return;
                }
                alt[k][0] = v[k]->if_run;
                alt[k][1] = v[k]->if_not;
                n_alt[k] = 2;
        }
        for (size_t i = 0; i < n_alt[0]; i++)
                for (size_t k = 0; k < n_alt[1]; k++) {
                        _cleanup_free_ char *line = xasprintf("%s %s", alt[0][i], alt[1][k]);
                        cmdline_targets_add(t, ht_cmdline_split(line));
                }
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
        pending_file *p = cmdline_pending_get(c, edits, path, plan);
        if (!p)
                return NULL;
        if (!p->cur) {
                cmdline_file_error(c, plan, path, ": ",
                                   p->old ? "holds NUL bytes, not a GRUB configuration file" : "missing");
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
                        cmdline_file_error(c, plan, path, ":", err);
                        free(err);
                        return NULL;
                }
                cmdline_pending_replace(p, out, out_len);
                if (n_lines == 0)
                        cmdline_targets_none(passes[i].t, xasprintf("%s has %s", shown, passes[i].what));
        }
        _cleanup_(ht_grub_cfg_freep) ht_grub_cfg *g = NULL;
        _cleanup_free_ char *err = NULL;
        if (ht_grub_cfg_parse(p->cur, p->cur_len, &g, &err) < 0)
                return NULL;
        const char *first = NULL;
        for (size_t i = 0; i < g->n_kernels; i++) {
                const ht_grub_cfg_kernel *k = &g->kernels[i];
                if (k->kind == HT_GRUB_CFG_LINUX && linux_ops->n)
                        cmdline_targets_add(lt, ht_cmdline_split(k->args));
                else if (k->kind == HT_GRUB_CFG_XEN && xen_ops->n)
                        cmdline_targets_add(xt, ht_cmdline_split(k->args));
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
void cmdline_plan_grub2(const ht_context *c, const ht_facts *f, const op_list *linux_ops, const op_list *xen_ops,
                        pending_set *edits, ht_plan *plan, boot_targets *lt, boot_targets *xt, bool *regenerate) {
        grub_defaults d;
        if (grub_defaults_load(c, f, &d, plan) < 0)
                return;
        if (d.n == 0 && regenerate) {
                grub_defaults_done(&d);
                plan_grub_cfg_only(c, f, linux_ops, xen_ops, edits, plan, lt, xt);
                return;
        }
        size_t errors = strv_length(plan->errors);
        grub_plan_pair(c, &d, "GRUB_CMDLINE_LINUX", "GRUB_CMDLINE_LINUX_DEFAULT", linux_ops, edits, plan);
        /* the Linux of the Xen entries, where its words are replaced */
        const char *xl = NULL, *xld = NULL;
        if (linux_ops->n && grub_xen_linux_pair(c, &d, edits, plan, &xl, &xld))
                grub_plan_pair(c, &d, xl, xld, linux_ops, edits, plan);
        grub_plan_pair(c, &d, "GRUB_CMDLINE_XEN", "GRUB_CMDLINE_XEN_DEFAULT", xen_ops, edits, plan);
        if (strv_length(plan->errors) == errors) {
                if (lt && linux_ops->n)
                        grub_defaults_targets(c, &d, "GRUB_CMDLINE_LINUX", "GRUB_CMDLINE_LINUX_DEFAULT", edits, plan, lt);
                if (lt && xl)
                        grub_defaults_targets(c, &d, xl, xld, edits, plan, lt);
                if (xt && xen_ops->n)
                        grub_defaults_targets(c, &d, "GRUB_CMDLINE_XEN", "GRUB_CMDLINE_XEN_DEFAULT", edits, plan, xt);
        }
        if (regenerate && plan->offline)
                plan_image_grub_cfg(c, f, linux_ops, xen_ops, edits, plan, lt, xt);
        else if (regenerate)
                *regenerate = true;
        grub_defaults_done(&d);
}

void cmdline_kind_grub2(cmdline_job *j) {
        cmdline_plan_grub2(j->c, j->f, j->linux_ops, j->xen_ops, j->edits, j->plan, j->lt, j->xt, &j->regenerate);
}
