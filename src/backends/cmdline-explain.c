/* explain cmdline.KEY (issue 38): where the next boot's command line gets
 * a parameter from, in the order the bootloader builds the line.
 *
 * - GRUB 2: grub-mkconfig sources /etc/default/grub, then grub.d's *.cfg
 *   sorted (format-grub-defaults.h), and 10_linux writes the default
 *   entry's linux line as "root=... ro GRUB_CMDLINE_LINUX
 *   GRUB_CMDLINE_LINUX_DEFAULT" with the values the last assignments
 *   leave. GRUB itself reads only grub.cfg: its first Linux line (the
 *   first menu entry, GRUB_DEFAULT=0's) is what boots, so it wins; the
 *   defaults win only after grub-mkconfig runs again.
 * - BLS (GRUB's blscfg): the default entry's options lines in order,
 *   $kernelopts and other $names expanded from grubenv where they stand.
 * - legacy GRUB: the default entry's kernel line (a Xen entry's Linux
 *   module line).
 * The kernel takes the last word of a parameter (parse_args calls the
 * setup function for each, the last call stays), except the repeatable
 * ones (console=) which take every word: ht_cmdline_repeatable. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "backend-common.h"
#include "edit-cmdline.h"
#include "edit-grub-cfg.h"
#include "facts.h"
#include "fileio.h"
#include "format-bls.h"
#include "format-grub-defaults.h"
#include "format-grub-legacy.h"
#include "util.h"

/* bootloader files are small; GRUB's own grub.cfg rarely passes 100 KB */
#define BOOT_FILE_MAX (4u << 20)

static void add(ht_boot_explained *e, const char *path, unsigned line, const char *what, const char *word) {
        e->a = xrealloc(e->a, (e->n + 1) * sizeof(*e->a));
        e->a[e->n++] = (ht_boot_assignment){.path = xstrdup(path), .line = line, .key = xstrdup(what),
                                            .value = xstrdup(word)};
}

/* Every word of text for key, recorded as path:line (what). */
static size_t add_words(ht_boot_explained *e, const char *path, unsigned line, const char *what, const char *text,
                        const char *key) {
        _cleanup_strv_free_ char **w = ht_cmdline_split(text ? text : "");
        size_t n = 0;
        for (size_t i = 0; w && w[i]; i++)
                if (ht_cmdline_word_matches(w[i], key, NULL)) {
                        add(e, path, line, what, w[i]);
                        n++;
                }
        return n;
}

static char *read_text(const ht_context *c, ht_boot_explained *e, const char *path, size_t *ret_len) {
        char *text = NULL;
        int r = ht_read_file(c, path, BOOT_FILE_MAX, &text, ret_len);
        if (r == -ENOENT)
                return NULL;
        if (r < 0) {
                strv_pushf(&e->warnings, "%s: cannot read it (%s)", path, ht_strerror(-r));
                return NULL;
        }
        strv_push(&e->files, path);
        return text;
}

/* The words for key from index from on are the booted line's: the last
 * wins, or every one of a repeatable parameter (console=). */
static void mark_last(ht_boot_explained *e, size_t from, const char *key) {
        if (e->n <= from)
                return;
        for (size_t i = ht_cmdline_repeatable(key) ? from : e->n - 1; i < e->n; i++)
                e->a[i].winner = true;
}

/* GRUB 2's defaults: every assignment of GRUB_CMDLINE_LINUX and
 * _DEFAULT whose value holds the parameter, in sourcing order; the last
 * word of the final values is what grub-mkconfig writes. Returns that
 * word (NULL: none) for the comparison with grub.cfg. */
static char *grub_defaults(const ht_context *c, const ht_facts *f, ht_boot_explained *e, const char *key) {
        _cleanup_strv_free_ char **names = NULL;
        if (f->grub_reads_grub_d)
                ht_list_dir(c, HT_GRUB_DEFAULTS_DIR, ".cfg", &names);
        _cleanup_strv_free_ char **order = ht_grub_defaults_files(names);
        _cleanup_(ht_grub_env_freep) ht_grub_env *env = ht_grub_env_new();
        /* the index in e->a of the words of each variable's last assignment */
        static const char *const vars[2] = {"GRUB_CMDLINE_LINUX", "GRUB_CMDLINE_LINUX_DEFAULT"};
        size_t from[2] = {0, 0}, to[2] = {0, 0};
        for (size_t i = 0; order[i]; i++) {
                size_t len = 0;
                _cleanup_free_ char *text = read_text(c, e, order[i], &len), *err = NULL;
                if (!text)
                        continue;
                _cleanup_(ht_grub_file_freep) ht_grub_file *g = NULL;
                if (ht_grub_parse(text, len, &g, &err) < 0) {
                        strv_pushf(&e->warnings, "%s:%s (grub-mkconfig would fail on it too)", order[i], err);
                        continue;
                }
                for (size_t k = 0; k < g->n_assignments; k++) {
                        const ht_grub_assignment *a = &g->assignments[k];
                        ht_grub_eval_assignment(env, i, text, a);
                        for (size_t v = 0; v < 2; v++) {
                                if (!streq(a->name, vars[v]))
                                        continue;
                                const ht_grub_var *gv = ht_grub_env_get(env, vars[v]);
                                if (gv && !gv->value)
                                        strv_pushf(&e->warnings, "%s:%u: %s is not known without running the "
                                                   "shell (%s)", order[i], a->line, vars[v], gv->why ? gv->why : "");
                                /* an earlier assignment's words are replaced by this one */
                                for (size_t x = from[v]; x < to[v]; x++)
                                        if (!e->a[x].note)
                                                e->a[x].note = xasprintf("replaced by %s:%u", order[i], a->line);
                                from[v] = e->n;
                                add_words(e, order[i], a->line, vars[v], gv ? gv->value : NULL, key);
                                to[v] = e->n;
                        }
                }
        }
        /* grub-mkconfig's line: LINUX's words, then _DEFAULT's */
        ssize_t last = to[1] > from[1] ? (ssize_t)to[1] - 1 : to[0] > from[0] ? (ssize_t)to[0] - 1 : -1;
        if (to[1] > from[1] && to[0] > from[0] && !e->a[to[0] - 1].note)
                e->a[to[0] - 1].note = xstrdup("GRUB_CMDLINE_LINUX_DEFAULT's word comes after it on the line");
        if (last < 0)
                return NULL;
        free(e->a[last].note);
        e->a[last].note = xstrdup("what grub-mkconfig writes into grub.cfg");
        return xstrdup(e->a[last].value);
}


/* ---- grub.cfg's default entry ---- */

typedef struct {
        char *title, *id;
        long parent;            /* index of its submenu, -1 top level */
        bool submenu;
        unsigned linux_line;    /* its first Linux kernel line, 0 none */
} cfg_entry;

/* The quoted word after pos: 'x' or "x" (grub-mkconfig quotes titles and
 * ids with single quotes). */
static char *quoted_after(const char *pos) {
        pos += strspn(pos, " \t");
        if (*pos != '\'' && *pos != '"')
                return NULL;
        const char *end = strchr(pos + 1, *pos);
        return end ? xstrndup(pos + 1, (size_t)(end - pos - 1)) : NULL;
}

/* The menu entries of grub.cfg as GRUB numbers them: menuentry and submenu
 * blocks (braces of other blocks, functions and ifs, counted too). */
static cfg_entry *cfg_entries(const char *text, const ht_grub_cfg *g, size_t *ret_n) {
        cfg_entry *en = NULL;
        size_t n = 0;
        long stack[64];         /* entry index per open brace, -1: another block */
        size_t depth = 0;
        unsigned line = 0;
        for (const char *p = text; p && *p; ) {
                const char *nl = strchr(p, '\n');
                _cleanup_free_ char *buf = xstrndup(p, nl ? (size_t)(nl - p) : strlen(p));
                p = nl ? nl + 1 : NULL;
                line++;
                char *l = strstrip(buf);
                bool sub = startswith(l, "submenu "), ent = startswith(l, "menuentry ");
                if ((sub || ent) && endswith(l, "{") && depth < ELEMENTSOF(stack)) {
                        long parent = -1;
                        for (size_t d = depth; d-- > 0;)
                                if (stack[d] >= 0) {
                                        parent = stack[d];
                                        break;
                                }
                        const char *idp = strstr(l, "$menuentry_id_option");
                        if (!idp)
                                idp = strstr(l, "--id");
                        en = xrealloc(en, (n + 1) * sizeof(*en));
                        en[n] = (cfg_entry){.title = quoted_after(l + (sub ? 8 : 10)),
                                            .id = idp ? quoted_after(idp + strcspn(idp, " \t")) : NULL,
                                            .parent = parent, .submenu = sub};
                        stack[depth++] = (long)n++;
                        continue;
                }
                if (endswith(l, "{") && depth < ELEMENTSOF(stack))
                        stack[depth++] = -1;
                else if (streq(l, "}") && depth > 0)
                        depth--;
                for (size_t k = 0; k < g->n_kernels; k++)
                        if (g->kernels[k].line == line && g->kernels[k].kind == HT_GRUB_CFG_LINUX)
                                for (size_t d = depth; d-- > 0;)
                                        if (stack[d] >= 0) {
                                                if (!en[stack[d]].linux_line)
                                                        en[stack[d]].linux_line = line;
                                                break;
                                        }
        }
        *ret_n = n;
        return en;
}

/* GRUB's default: the last plain `set default="X"` of grub.cfg (not the
 * one-time next_entry of grub-reboot), "${saved_entry}" from grubenv. */
static char *cfg_default(const char *text, const char *saved_entry) {
        char *dflt = NULL;
        for (const char *p = strstr(text, "set default="); p; p = strstr(p + 1, "set default=")) {
                _cleanup_free_ char *v = quoted_after(p + strlen("set default="));
                if (!v || strstr(v, "next_entry"))
                        continue;
                free(dflt);
                dflt = TAKE_PTR(v);
        }
        if (dflt && strstr(dflt, "saved_entry")) {
                free(dflt);
                /* unset: GRUB's "0" */
                dflt = xstrdup(saved_entry ? saved_entry : "0");
        }
        return dflt;
}

/* The entry X names ("N", a title or an id, "A>B" into a submenu), -1. */
static long cfg_resolve(const cfg_entry *en, size_t n, const char *x) {
        _cleanup_strv_free_ char **parts = strv_split(x, ">");
        long parent = -1, found = -1;
        for (size_t i = 0; parts && parts[i]; i++) {
                found = -1;
                long idx = 0;
                char *end = NULL;
                long num = strtol(parts[i], &end, 10);
                bool numeric = *parts[i] && end && !*end;
                for (size_t k = 0; k < n && found < 0; k++) {
                        if (en[k].parent != parent)
                                continue;
                        if (numeric ? idx == num : streq_ptr(en[k].title, parts[i]) || streq_ptr(en[k].id, parts[i]))
                                found = (long)k;
                        idx++;
                }
                if (found < 0)
                        return -1;
                parent = found;
        }
        return found;
}

static void grub2(const ht_context *c, const ht_facts *f, ht_boot_explained *e, const char *key) {
        _cleanup_free_ char *mk = grub_defaults(c, f, e, key);
        if (!f->grub_cfg) {
                /* no grub.cfg: the next grub-mkconfig's line is all there is */
                for (size_t i = e->n; i-- > 0;)
                        if (e->a[i].note && startswith(e->a[i].note, "what grub-mkconfig")) {
                                e->a[i].winner = true;
                                break;
                        }
                return;
        }
        size_t len = 0;
        _cleanup_free_ char *text = read_text(c, e, f->grub_cfg, &len), *err = NULL;
        if (!text)
                return;
        _cleanup_(ht_grub_cfg_freep) ht_grub_cfg *g = NULL;
        if (ht_grub_cfg_parse(text, len, &g, &err) < 0) {
                strv_pushf(&e->warnings, "%s:%s", f->grub_cfg, err);
                return;
        }
        /* the default entry's Linux line; the first one when it is not found */
        size_t n_en = 0;
        cfg_entry *en = cfg_entries(text, g, &n_en);
        /* GRUB_DEFAULT=saved: grubenv beside grub.cfg holds saved_entry */
        _cleanup_free_ char *dir = xstrndup(f->grub_cfg, (size_t)(strrchr(f->grub_cfg, '/') - f->grub_cfg)),
                            *envpath = xasprintf("%s/grubenv", dir), *envtext = NULL;
        size_t envlen = 0;
        _cleanup_(ht_grubenv_freep) ht_grubenv *env = NULL;
        if (ht_read_file(c, envpath, BOOT_FILE_MAX, &envtext, &envlen) >= 0)
                env = ht_grubenv_parse_block(envtext, envlen);
        _cleanup_free_ char *dflt = cfg_default(text, env ? ht_grubenv_get(env, "saved_entry") : NULL);
        long at = dflt ? cfg_resolve(en, n_en, dflt) : -1;
        unsigned want = at >= 0 && !en[at].submenu ? en[at].linux_line : 0;
        if (dflt && !want)
                strv_pushf(&e->warnings, "%s: GRUB's default entry \"%s\" is not found as a Linux entry: the first "
                           "one is shown", f->grub_cfg, dflt);
        for (size_t i = 0; i < n_en; i++) {
                free(en[i].title);
                free(en[i].id);
        }
        free(en);
        for (size_t i = 0; i < g->n_kernels; i++) {
                const ht_grub_cfg_kernel *k = &g->kernels[i];
                if (k->kind != HT_GRUB_CFG_LINUX || (want && k->line != want))
                        continue;
                size_t from = e->n;
                _cleanup_free_ char *what = dflt && want ? xasprintf("%s (default entry %s)", k->command, dflt)
                                                         : xasprintf("%s (first menu entry)", k->command);
                add_words(e, f->grub_cfg, k->line, what, k->args, key);
                mark_last(e, from, key);
                const char *booted = e->n > from ? e->a[e->n - 1].value : NULL;
                /* grub-mkconfig's first entry has both variables' words; the
                 * others (recovery: LINUX's and "single") are not compared */
                bool first = true;
                for (size_t j = 0; j < i; j++)
                        first = first && g->kernels[j].kind != HT_GRUB_CFG_LINUX;
                if (first && !streq_ptr(booted, mk))
                        strv_pushf(&e->warnings, "%s:%u gives %s, the GRUB defaults %s: grub.cfg was not "
                                   "regenerated since they changed (grub-mkconfig -o %s)", f->grub_cfg, k->line,
                                   booted ? booted : "no such word", mk ? mk : "none", f->grub_cfg);
                break;
        }
}

static void bls(const ht_context *c, const ht_facts *f, ht_boot_explained *e, const char *key) {
        if (f->default_entry < 0 || (size_t)f->default_entry >= f->n_boot_entries) {
                strv_push(&e->warnings, "the default boot entry is not known: no entry's options are shown");
                return;
        }
        const ht_boot_entry *be = &f->boot_entries[f->default_entry];
        _cleanup_free_ char *path = xasprintf("/boot/loader/entries/%s.conf", be->id);
        const char *envpath = ht_exists(c, "/boot/grub2/grubenv") ? "/boot/grub2/grubenv"
                            : ht_exists(c, "/boot/grub/grubenv") ? "/boot/grub/grubenv" : NULL;
        _cleanup_(ht_grubenv_freep) ht_grubenv *env = NULL;
        if (envpath) {
                size_t len = 0;
                _cleanup_free_ char *t = read_text(c, e, envpath, &len);
                if (t)
                        env = ht_grubenv_parse_block(t, len);
        }
        size_t len = 0;
        _cleanup_free_ char *text = read_text(c, e, path, &len);
        if (!text)
                return;
        _cleanup_(ht_bls_entry_freep) ht_bls_entry *b = ht_bls_parse_entry(text, len);
        size_t from = e->n;
        for (size_t i = 0; i < b->n_lines; i++) {
                const ht_bls_line *l = &b->lines[i];
                if (!streq(l->key, "options"))
                        continue;
                /* a $name word brings grubenv's line for name in its place */
                _cleanup_strv_free_ char **w = ht_cmdline_split(l->value);
                for (size_t k = 0; w && w[k]; k++) {
                        if (w[k][0] != '$') {
                                add_words(e, path, l->line, "options", w[k], key);
                                continue;
                        }
                        _cleanup_free_ char *name = xstrdup(w[k] + 1 + (w[k][1] == '{'));
                        name[strcspn(name, "}")] = 0;
                        ssize_t at = env ? ht_grubenv_find(env, name) : -1;
                        if (at < 0)
                                continue;
                        _cleanup_free_ char *what = xasprintf("%s (through %s:%u)", name, path, l->line);
                        add_words(e, envpath, env->vars[at].line, what, env->vars[at].value, key);
                }
        }
        mark_last(e, from, key);
}

static void legacy(const ht_context *c, const ht_facts *f, ht_boot_explained *e, const char *key) {
        if (!f->grub_legacy_conf)
                return;
        size_t len = 0;
        _cleanup_free_ char *text = read_text(c, e, f->grub_legacy_conf, &len);
        if (!text)
                return;
        _cleanup_(ht_grub_legacy_conf_freep) ht_grub_legacy_conf *g = ht_grub_legacy_parse_menu(text, len);
        int d = f->default_entry;
        if (d < 0 || (size_t)d >= g->n_entries) {
                strv_push(&e->warnings, "the default boot entry is not known: no entry's kernel line is shown");
                return;
        }
        const ht_grub_legacy_entry *en = &g->entries[d];
        size_t from = e->n;
        _cleanup_free_ char *what = xasprintf("%s (entry %d, \"%s\")", en->xen ? "module" : "kernel", d,
                                              en->title ? en->title : "");
        add_words(e, f->grub_legacy_conf, en->linux_line, what, en->linux_args, key);
        mark_last(e, from, key);
}

int ht_cmdline_explain_boot(const ht_context *c, const ht_facts *f, const char *key, ht_boot_explained *ret) {
        ht_cmdline_op op = ht_cmdline_op_make(key, NULL, false);
        _cleanup_free_ char *err = NULL;
        if (!*key || strchr(key, '=') || ht_cmdline_op_check(&op, &err) < 0)
                return -EINVAL;
        ht_boot_explained e = {.soft_winner = -1, .hard_winner = -1, .no_limits = -1};
        switch (f->bootloader) {
        case HT_BOOT_GRUB2:
                e.consumer = "grub-mkconfig and GRUB 2";
                grub2(c, f, &e, key);
                break;
        case HT_BOOT_BLS:
                e.consumer = "GRUB's blscfg (BLS entries)";
                bls(c, f, &e, key);
                break;
        case HT_BOOT_GRUB_LEGACY:
                e.consumer = "GRUB 0.97";
                legacy(c, f, &e, key);
                break;
        case HT_BOOT_ZIPL:
                e.consumer = "zipl (s390x), which hosttune does not read";
                break;
        case HT_BOOT_ESP_BLS:
                e.consumer = "systemd-boot's entries on the ESP, which hosttune does not read";
                break;
        case HT_BOOT_NONE:
                e.consumer = "no bootloader of this host's own";
                break;
        }
        if (ht_cmdline_repeatable(key) && e.n)
                strv_pushf(&e.warnings, "the kernel takes every %s= word, not the last: all of them count", key);
        *ret = e;
        return 0;
}
