/* The cmdline backend's shared pieces (cmdline-common.h). */
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

void cmdline_op_list_add(op_list *l, ht_cmdline_op op, const ht_setting *s) {
        l->ops = xrealloc(l->ops, (l->n + 1) * sizeof(*l->ops));
        l->settings = xrealloc(l->settings, (l->n + 1) * sizeof(*l->settings));
        l->ops[l->n] = op;
        l->settings[l->n++] = s;
}

void cmdline_op_list_done(op_list *l) {
        free(l->ops);
        free(l->settings);
        *l = (op_list){0};
}

/* Errors about a file name it as the user can open it (under --root). */
void cmdline_file_error(const ht_context *c, ht_plan *plan, const char *path, const char *sep, const char *msg) {
        _cleanup_free_ char *shown = ht_display_path(c, path);
        ht_plan_error(plan, "%s%s%s", shown, sep, msg ? msg : "");
}

pending_file *cmdline_pending_get(const ht_context *c, pending_set *set, const char *path, ht_plan *plan) {
        for (size_t i = 0; i < set->n; i++)
                if (streq(set->files[i].path, path))
                        return &set->files[i];
        char *content = NULL;
        size_t len = 0;
        int r = ht_read_optional(c, path, &content, &len);
        if (r < 0) {
                cmdline_file_error(c, plan, path, ": cannot read: ", ht_strerror(-r));
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

static void pending_drop_parsed(pending_file *p) {
        if (p->cur_parsed)
                p->cur_parsed_kind->unref(p->cur_parsed);
        p->cur_parsed = NULL;
        p->cur_parsed_kind = NULL;
}

void cmdline_pending_replace_parsed(pending_file *p, char *content, size_t len, void *parsed,
                                    const ht_parsed_kind *kind) {
        pending_drop_parsed(p);
        free(p->cur);
        p->cur = content;
        p->cur_len = len;
        p->cur_parsed = parsed;
        p->cur_parsed_kind = parsed ? kind : NULL;
}

void cmdline_pending_replace(pending_file *p, char *content, size_t len) {
        cmdline_pending_replace_parsed(p, content, len, NULL, NULL);
}

/* Hand the edits to the plan; returns how many files change. */
size_t cmdline_pending_flush(pending_set *set, ht_plan *plan) {
        size_t before = plan->n_files;
        for (size_t i = 0; i < set->n; i++) {
                pending_file *p = &set->files[i];
                if (p->cur)
                        ht_plan_add_file(plan, HT_BK_CMDLINE, p->path, p->old, p->old_len, p->cur, p->cur_len, 0644);
                pending_drop_parsed(p);
                free(p->path);
                free(p->old);
                free(p->cur);
        }
        free(set->files);
        *set = (pending_set){0};
        return plan->n_files - before;
}

bool cmdline_word_present(char *const *words, const char *key) {
        return ht_cmdline_find(words, key, NULL) >= 0;
}

void cmdline_targets_add(boot_targets *t, char **words) {
        t->lists = xrealloc(t->lists, (t->n + 1) * sizeof(*t->lists));
        t->lists[t->n++] = words;
        t->known = true;
}

void cmdline_targets_none(boot_targets *t, char *why) {
        free(t->why_none);
        t->why_none = why;
        t->known = true;
}

void cmdline_targets_done(boot_targets *t) {
        for (size_t i = 0; i < t->n; i++)
                strv_free(t->lists[i]);
        free(t->lists);
        free(t->why_none);
        *t = (boot_targets){0};
}

void cmdline_targets_unknown(boot_targets *t, char *why) {
        if (!t->unknown)
                cmdline_targets_none(t, why);
        else
                free(why);
        t->unknown = true;
}

bool cmdline_targets_met(const boot_targets *t, const ht_cmdline_op *op) {
        if (t->n == 0 || t->unknown)
                return false;
        for (size_t i = 0; i < t->n; i++)
                if (!ht_cmdline_satisfied(t->lists[i], op))
                        return false;
        return true;
}

const char *cmdline_pending_content(const pending_set *set, const char *path, size_t *ret_len) {
        for (size_t i = 0; i < set->n; i++)
                if (streq(set->files[i].path, path)) {
                        *ret_len = set->files[i].cur_len;
                        return set->files[i].cur;
                }
        return NULL;
}

/* A word that no bootloader file of the host will carry: its change
 * (the caller sets the outcome), the word as shown and the skip's name. */
ht_change *cmdline_add_unplanned_word(ht_plan *plan, const ht_setting *s, char **ret_word, char **ret_what) {
        *ret_word = xasprintf("%s%s%s%s", s->remove ? "(remove) " : "", s->key, isempty(s->value) ? "" : "=",
                              s->value ? s->value : "");
        *ret_what = xasprintf("cmdline %s", s->key);
        ht_change *ch = ht_plan_add_change(plan, HT_BK_CMDLINE, s->key, NULL, s->value);
        ch->source = ht_plan_strdup(plan, s->source);
        return ch;
}

char *cmdline_plan_kernel_cmdline(const ht_context *c, const op_list *ops, pending_set *edits, ht_plan *plan) {
        bool from_usr = !ht_exists(c, HT_KERNEL_CMDLINE);
        if (from_usr && !ht_exists(c, HT_KERNEL_CMDLINE_USR))
                return NULL;
        const char *src = from_usr ? HT_KERNEL_CMDLINE_USR : HT_KERNEL_CMDLINE;
        pending_file *p = cmdline_pending_get(c, edits, HT_KERNEL_CMDLINE, plan);
        if (!p)
                return NULL;
        _cleanup_free_ char *usr = NULL;
        const char *cur = p->cur;
        size_t cur_len = p->cur_len;
        if (from_usr && !p->old) {
                int r = ht_read_file(c, src, 64 * 1024, &usr, &cur_len);
                if (r < 0) {
                        cmdline_file_error(c, plan, src, ": cannot read: ", ht_strerror(-r));
                        return NULL;
                }
                cur = memchr(usr, 0, cur_len) ? NULL : usr;
        } else {
                from_usr = false;
                src = HT_KERNEL_CMDLINE;
        }
        if (!cur) {
                cmdline_file_error(c, plan, src, ": ", "holds NUL bytes, not a kernel command line");
                return NULL;
        }
        char *out = NULL;
        size_t out_len = 0;
        _cleanup_free_ char *err = NULL;
        if (ht_kernel_cmdline_edit(cur, cur_len, ops->ops, ops->n, &out, &out_len, &err) < 0) {
                cmdline_file_error(c, plan, src, ": ", err);
                return NULL;
        }
        if (from_usr && out_len == cur_len && memcmp(out, cur, cur_len) == 0) {
                /* the distribution's line has the words: no copy needed */
                free(out);
                return xstrndup(cur, cur_len);
        }
        cmdline_pending_replace(p, out, out_len);
        return xstrndup(out, out_len);
}
