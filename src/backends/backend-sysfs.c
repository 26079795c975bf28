/* sysfs: runtime values under /sys (for bracketed choices such as THP's
 * "always [madvise] never", the bracketed word), persisted as tmpfiles.d
 * "w" lines in hosttune's own file, which systemd-tmpfiles-setup writes
 * at every boot. */
#include "config.h"

#include <stddef.h>
#include <errno.h>
#include <string.h>

#include "backend-common.h"
#include "edit-tmpfiles.h"
#include "backend.h"
#include "profile-section.h"
#include "fileio.h"
#include "util.h"

#define SYSFS_TMPFILES "/etc/tmpfiles.d/hosttune.conf"

/* RHEL 6 kernels have THP under redhat_transparent_hugepage. */
static char *sysfs_host_path(const ht_context *c, const ht_facts *f, const char *key) {
        const char *std = "/sys/kernel/mm/transparent_hugepage/";
        if (startswith(key, std) && f->thp_sysfs_dir && !streq(f->thp_sysfs_dir, "/sys/kernel/mm/transparent_hugepage") &&
            !ht_exists(c, key))
                return xasprintf("%s/%s", f->thp_sysfs_dir, key + strlen(std));
        return xstrdup(key);
}

/* The tmpfiles.d files systemd-tmpfiles-setup reads at boot, in its
 * order, with hosttune's file as own gives it (NULL: as on the host). */
typedef struct {
        char **paths;
        char **texts;            /* NULL: absent, unreadable or masked */
        size_t n;
        char **masked;           /* names masked by a link to /dev/null */
        char **warnings;
} tmpfiles_set;

static void tmpfiles_done(tmpfiles_set *t) {
        for (size_t i = 0; i < t->n; i++)
                free(t->texts[i]);
        free(t->texts);
        strv_free(t->paths);
        strv_free(t->masked);
        strv_free(t->warnings);
}

static void tmpfiles_load(const ht_context *c, const char *own, bool own_given, tmpfiles_set *ret) {
        size_t nd = 0;
        while (ht_tmpfiles_dirs[nd])
                nd++;
        char ***names = xcalloc(nd + 1, sizeof(char **));
        for (size_t d = 0; d < nd; d++)
                ht_list_dir(c, ht_tmpfiles_dirs[d], ".conf", &names[d]);
        const char *own_name = strrchr(SYSFS_TMPFILES, '/') + 1;
        if (own_given && own && !strv_contains(names[0], own_name))
                strv_push(&names[0], own_name);
        tmpfiles_set t = {.paths = ht_tmpfiles_order(names)};
        t.n = strv_length(t.paths);
        t.texts = xcalloc(t.n + 1, sizeof(char *));
        for (size_t i = 0; i < t.n; i++) {
                if (own_given && streq(t.paths[i], SYSFS_TMPFILES)) {
                        t.texts[i] = own ? xstrdup(own) : NULL;
                        continue;
                }
                _cleanup_free_ char *target = NULL;
                if (ht_resolve_host_link(c, t.paths[i], &target) == 0 && streq(target, "/dev/null")) {
                        strv_push(&t.masked, t.paths[i]);
                        continue;
                }
                int k = ht_read_file(c, t.paths[i], 1u << 20, &t.texts[i], NULL);
                if (k < 0 && k != -ENOENT) {
                        _cleanup_free_ char *shown = ht_display_path(c, t.paths[i]);
                        strv_pushf(&t.warnings, "%s: cannot read it (%s): lines there that win over hosttune's "
                                   "at boot are not checked", shown, ht_strerror(-k));
                }
        }
        for (size_t d = 0; d < nd; d++)
                strv_free(names[d]);
        free(names);
        *ret = t;
}

/* Warn about every setting whose path a file systemd-tmpfiles reads
 * before hosttune's writes first with another value: tmpfiles ignores
 * hosttune's line then (issue 38). */
static void predict_boot(const ht_context *c, const ht_facts *f, const ht_resolved *r, const char *content,
                         ht_plan *plan) {
        tmpfiles_set t;
        tmpfiles_load(c, content, true, &t);
        for (size_t i = 0; t.warnings && t.warnings[i]; i++)
                ht_plan_warn(plan, "%s", t.warnings[i]);
        for (size_t i = 0; i < r->n_settings; i++) {
                const ht_setting *s = &r->settings[i];
                if (s->backend != HT_BK_SYSFS || !s->value)
                        continue;
                _cleanup_free_ char *path = sysfs_host_path(c, f, s->key);
                for (size_t j = 0; j < t.n; j++) {
                        ht_tmpfiles_w *w = NULL;
                        size_t nw = t.texts[j] ? ht_tmpfiles_w_lines(t.texts[j], path, &w) : 0;
                        if (!nw)
                                continue;
                        if (!streq(t.paths[j], SYSFS_TMPFILES) && !streq(w[0].argument, s->value)) {
                                _cleanup_free_ char *shown = ht_display_path(c, t.paths[j]);
                                ht_change *ch = ht_plan_add_change(plan, HT_BK_SYSFS, s->key, w[0].argument, s->value);
                                ch->outcome = HT_OUTCOME_OVERRIDDEN;
                                ch->source = ht_plan_strdup(plan, s->source);
                                ch->note = ht_plan_printf(plan, "%s:%u writes it first at boot; systemd-tmpfiles ignores hosttune's line",
                                                     shown, w[0].line);
                                ht_plan_warn(plan, "%s:%u writes %s = %s and is read before %s: systemd-tmpfiles ignores "
                                             "the later line for the same path, so at boot %s will be %s, not %s; "
                                             "remove the line there or mask that file",
                                             shown, w[0].line, path, w[0].argument, SYSFS_TMPFILES, path, w[0].argument,
                                             s->value);
                        }
                        ht_tmpfiles_w_free(w, nw);
                        break;
                }
        }
        tmpfiles_done(&t);
}

int ht_sysfs_explain_boot(const ht_context *c, const char *path, ht_boot_explained *ret) {
        if (!startswith(path, "/sys/") || ht_path_check(path) < 0 || strpbrk(path, " %*?[\\\"'"))
                return -EINVAL;
        tmpfiles_set t;
        tmpfiles_load(c, NULL, false, &t);
        ht_boot_explained e = {.consumer = "systemd-tmpfiles", .soft_winner = -1, .hard_winner = -1, .no_limits = -1};
        for (size_t j = 0; j < t.n; j++) {
                if (!t.texts[j])
                        continue;
                strv_push(&e.files, t.paths[j]);
                ht_tmpfiles_w *w = NULL;
                size_t nw = ht_tmpfiles_w_lines(t.texts[j], path, &w);
                for (size_t k = 0; k < nw; k++) {
                        e.a = xrealloc(e.a, (e.n + 1) * sizeof(*e.a));
                        /* the first line for the path wins */
                        e.a[e.n] = (ht_boot_assignment){
                                .path = xstrdup(t.paths[j]), .line = w[k].line, .key = xstrdup(w[k].append ? "w+" : "w"),
                                .value = xstrdup(w[k].argument), .winner = e.n == 0,
                        };
                        e.n++;
                }
                ht_tmpfiles_w_free(w, nw);
        }
        e.masked = TAKE_PTR(t.masked);
        e.warnings = TAKE_PTR(t.warnings);
        tmpfiles_done(&t);
        *ret = e;
        return 0;
}

/* An image has no running kernel: the change is the value its first
 * boot writes now (hosttune's tmpfiles.d file, as an earlier apply left
 * it) against the one planned. The file is hosttune's own, so its w
 * lines are "w PATH - - - - VALUE". */
static void add_offline(ht_plan *plan, const ht_setting *s, const char *path, const char *old) {
        _cleanup_free_ char *cur = old ? ht_tmpfiles_w_argument(old, path) : NULL;
        if (cur && streq(cur, s->value))
                return;
        ht_change *ch = ht_plan_add_change(plan, HT_BK_SYSFS, s->key, cur, s->value);
        ch->path = ht_plan_strdup(plan, path);
        ch->source = ht_plan_strdup(plan, s->source);
}

static int sysfs_plan(const ht_context *c, const ht_facts *f, const ht_resolved *r, ht_plan *plan) {
        bool live = ht_root_is_live(c);
        strbuf persisted = {0};
        size_t n = 0;
        /* read once: the offline changes compare with it, the plan edits it;
         * a read error is said below, where the file is planned */
        _cleanup_free_ char *old = NULL;
        size_t old_len = 0;
        int old_r = ht_read_optional(c, SYSFS_TMPFILES, &old, &old_len);

        for (size_t i = 0; i < r->n_settings; i++) {
                const ht_setting *s = &r->settings[i];
                if (s->backend != HT_BK_SYSFS)
                        continue;
                /* w lines glob their paths and unescape them: plain paths only */
                if (!startswith(s->key, "/sys/") || ht_path_check(s->key) < 0 || strpbrk(s->key, " %*?[\\\"'")) {
                        ht_plan_error(plan, "%s: sysfs key '%s' is not a plain path under /sys", s->source, s->key);
                        continue;
                }
                if (!s->value || !ht_tmpfiles_value_ok(s->value)) {
                        ht_plan_error(plan, "%s: value for %s holds characters that cannot be persisted safely",
                                      s->source, s->key);
                        continue;
                }
                _cleanup_free_ char *path = sysfs_host_path(c, f, s->key);
                _cleanup_free_ char *raw = NULL;
                int k = live ? ht_read_line(c, path, &raw) : -ENOENT;
                if (live && k < 0) {
                        ht_change *ch = ht_plan_add_change(plan, HT_BK_SYSFS, s->key, NULL, s->value);
                        ch->source = ht_plan_strdup(plan, s->source);
                        if (s->optional) {
                                ch->outcome = HT_OUTCOME_SKIPPED;
                                _cleanup_free_ char *what = xasprintf("sysfs %s", s->key);
                                ht_plan_skip(plan, what, s->source, "%s is not available on this kernel (%s)",
                                             s->key, ht_strerror(-k));
                        } else {
                                ch->outcome = HT_OUTCOME_FAILED;
                                ht_plan_error(plan, "%s: %s is not available on this kernel (%s); mark the setting optional or use a kernel that has it",
                                              s->source, s->key, ht_strerror(-k));
                        }
                        continue;
                }
                ht_tmpfiles_append_w(&persisted, path, s->value);
                n++;
                if (!live) {
                        add_offline(plan, s, path, old_r < 0 ? NULL : old);
                        continue;
                }
                _cleanup_free_ char *cur = ht_kernel_value_effective(raw);
                if (ht_kernel_values_equal(cur, s->value))
                        continue;
                ht_change *ch = ht_plan_add_change(plan, HT_BK_SYSFS, s->key, cur, s->value);
                ch->path = ht_plan_strdup(plan, path);
                ch->source = ht_plan_strdup(plan, s->source);
                ch->runtime = true;
                if (f->sys_readonly == HT_YES) {
                        ch->runtime = false;
                        ch->outcome = HT_OUTCOME_SKIPPED;
                        ht_plan_warn(plan, "%s: /sys is read-only here (a container?): the runtime change is skipped; the tmpfiles.d entry still applies at the next boot of the host",
                                     s->key);
                } else if (f->container && !startswith(s->key, "/sys/class/net/") &&
                    !startswith(s->key, "/sys/devices/virtual/net/")) {
                        /* /sys is the host's, but for the network devices of
                         * the container's own namespace: a privileged
                         * container may write it, retuning the host */
                        ht_plan_skip_host_value(plan, ch, s->key, f->container, "kernel value", "tmpfiles.d entry");
                }
        }

        if (old_r < 0) {
                ht_plan_error(plan, "cannot read %s: %s", SYSFS_TMPFILES, ht_strerror(-old_r));
                strbuf_done(&persisted);
                return 0;
        }
        if (n == 0) {
                /* nothing to persist: a file from an earlier profile goes */
                ht_plan_own_file(plan, HT_BK_SYSFS, SYSFS_TMPFILES, old, old_len, NULL);
                strbuf_done(&persisted);
                return 0;
        }
        _cleanup_free_ char *header = ht_managed_header(plan->profile, "#");
        _cleanup_free_ char *body = strbuf_steal(&persisted);
        _cleanup_free_ char *content = xasprintf("%s# Applied at boot by systemd-tmpfiles (tmpfiles.d(5) \"w\" lines).\n%s",
                                                 header, body);
        ht_plan_own_file(plan, HT_BK_SYSFS, SYSFS_TMPFILES, old, old_len, content);
        predict_boot(c, f, r, content, plan);
        return 0;
}

/* sysfs { kernel { mm { ... } } } below /sys, or a list of
 * { path = "/sys/..."; value = ...; optional = ...; }. */
static int sysfs_parse_section(ht_pfile *p, const config_setting_t *s, char **ret_error) {
        static const char *const list_keys[] = {"path", "value", "optional", "when", NULL};
        return ht_cfg_keyed_section(p, s, HT_BK_SYSFS, '/', "/sys", list_keys, ret_error);
}

static const ht_backend_field sysfs_rule_fields[] = {
        {.name = "path", .alias = "key", .offset = offsetof(ht_entry, key)},
        {0},
};

static int sysfs_check_key(const char *k) {
        if (!startswith(k, "/sys/") || ht_path_check(k) < 0 || !ht_word_chars(k, "/._-:@+,") ||
            endswith(k, "/") || strstr(k, "//"))
                return -EINVAL;
        /* No "." or ".." components: the path must stay below /sys. */
        for (const char *p = k; (p = strchr(p, '/')); p++)
                if (p[1] == '.' && (p[2] == '/' || p[2] == 0 || (p[2] == '.' && (p[3] == '/' || p[3] == 0))))
                        return -EINVAL;
        return 0;
}

static int sysfs_canon_key(ht_resolver *r, const ht_entry *e, const char *what, ht_setting *s,
                           char **ret_value, char **ret_error) {
        int k = ht_entry_eval_field(r, &e->key, e, what, "path", &s->key, ret_error);
        if (k >= 0 && sysfs_check_key(s->key) < 0) {
                *ret_error = xasprintf("%s:%u: %s: '%s' is not a path below /sys (no '.' "
                                       "or '..' components, no odd characters)",
                                       e->file, e->line, what, s->key);
                k = -EINVAL;
        }
        return k;
}

static const char *sysfs_check_value(const char *t) {
        return isempty(t) || strchr(t, '\n') ? "is empty" : NULL;
}

/* setting.sysfs.NAME: the path below /sys with '/' as '.' */
static char *sysfs_expr_name(const ht_setting *s) {
        char *n = xstrdup(startswith(s->key, "/sys/") ? s->key + 5 : s->key);
        for (char *p = n; *p; p++)
                if (*p == '/')
                        *p = '.';
        return n;
}

/* The files its plan writes (ht_backend.files). */
static const char *const sysfs_files[] = {SYSFS_TMPFILES, NULL};

const ht_backend ht_backend_sysfs = {
        .id = HT_BK_SYSFS,
        .name = "sysfs",
        .files = sysfs_files,
        .rule_fields = sysfs_rule_fields,
        .parse_section = sysfs_parse_section,
        .canon_key = sysfs_canon_key,
        .check_key = sysfs_check_key,
        .check_value = sysfs_check_value,
        .expr_name = sysfs_expr_name,
        .plan = sysfs_plan,
};
