/* systemd: settings of systemd-logind ([Login], logind.conf(5)) and of
 * the system manager ([Manager], systemd-system.conf(5)), each in a
 * drop-in of hosttune's own, /etc/systemd/logind.conf.d/90-hosttune.conf
 * and /etc/systemd/system.conf.d/90-hosttune.conf. The current value is
 * the one systemd ends up with: the main file, then every drop-in of the
 * conf.d directories sorted by file name (a later one wins; a file of the
 * same name in an earlier directory hides the later one). A drop-in
 * sorted after hosttune's that sets the same key is warned about, like a
 * later sysctl.d file. Limits (DefaultLimitNOFILE=, ...) are minimums:
 * never lowered. */
#include "config.h"

#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend-common.h"
#include "backend.h"
#include "edit-systemd-conf.h"
#include "edit-unit.h"
#include "profile-section.h"
#include "util.h"

/* systemd sorts drop-ins by file name over all directories and the last
 * assignment wins: "90-" sorts after the "NN-" names vendors and admins
 * are told to use (logind.conf(5): "prefix all filenames ... with a
 * two-digit number and a dash"), as sysctl's 90-hosttune.conf does, and
 * leaves 91..99 to an admin who must win over hosttune (warned about). */
#define DROPIN_NAME "90-hosttune.conf"

/* The conf.d directories of systemd 252 (CONF_PATHS: /etc, /run,
 * /usr/local/lib, /usr/lib; /lib on split-usr builds, Debian's man page
 * lists it), highest priority first. */
static const char *const conf_dirs[] = {
        "/etc/systemd", "/run/systemd", "/usr/local/lib/systemd", "/usr/lib/systemd", "/lib/systemd", NULL,
};

/* The key of a setting: "logind.RemoveIPC" -> its daemon and key. */
static const ht_sdconf_key *setting_key(const char *key, const ht_sdconf_daemon **ret_daemon) {
        const char *dot = key ? strchr(key, '.') : NULL;
        if (!dot)
                return NULL;
        _cleanup_free_ char *d = xstrndup(key, (size_t)(dot - key));
        const ht_sdconf_daemon *daemon = ht_sdconf_daemon_find(d);
        if (!daemon)
                return NULL;
        if (ret_daemon)
                *ret_daemon = daemon;
        return ht_sdconf_key_find(daemon->name, dot + 1);
}

typedef struct {
        char *name;  /* the drop-in's file name */
        char *path;
        char *text;
        size_t len;
} conf_file;

static int conf_file_cmp(const void *a, const void *b) {
        return strcmp(((const conf_file *)a)->name, ((const conf_file *)b)->name);
}

static void conf_files_free(conf_file *l, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(l[i].name);
                free(l[i].path);
                free(l[i].text);
        }
        free(l);
}

/* Every drop-in systemd reads for NAME.conf, sorted by file name; one
 * masked by a link to /dev/null, or hidden by a file of the same name in
 * an earlier directory, is left out. */
static int collect_dropins(const ht_context *c, const char *daemon, conf_file **ret, size_t *ret_n) {
        conf_file *l = NULL;
        size_t n = 0;
        _cleanup_strv_free_ char **seen = NULL;
        for (size_t d = 0; conf_dirs[d]; d++) {
                _cleanup_free_ char *dir = xasprintf("%s/%s.conf.d", conf_dirs[d], daemon);
                _cleanup_strv_free_ char **names = NULL;
                ht_list_dir(c, dir, ".conf", &names);
                for (size_t i = 0; names && names[i]; i++) {
                        if (strv_contains(seen, names[i]))
                                continue;
                        strv_push(&seen, names[i]);
                        _cleanup_free_ char *path = xasprintf("%s/%s", dir, names[i]);
                        _cleanup_free_ char *target = NULL;
                        struct stat st;
                        if (ht_lstat(c, path, &st) == 0 && S_ISLNK(st.st_mode) &&
                            ht_resolve_host_link(c, path, &target) == 0 && streq(target, "/dev/null"))
                                continue;
                        char *text = NULL;
                        size_t len = 0;
                        int r = ht_read_optional(c, path, &text, &len);
                        if (r < 0) {
                                conf_files_free(l, n);
                                return r;
                        }
                        if (!text)
                                continue;
                        l = xrealloc(l, (n + 1) * sizeof(*l));
                        l[n++] = (conf_file){.name = xstrdup(names[i]), .path = TAKE_PTR(path), .text = text, .len = len};
                }
        }
        if (n)
                qsort(l, n, sizeof(*l), conf_file_cmp);
        *ret = l;
        *ret_n = n;
        return 0;
}

/* The main file: systemd 252 reads /etc/systemd/NAME.conf; newer ones the
 * first of it, /run, /usr/local/lib and /usr/lib (where distributions
 * that keep /etc empty ship it). A 252 host has nothing but /etc's. */
static int read_main(const ht_context *c, const char *daemon, conf_file *ret) {
        for (size_t d = 0; conf_dirs[d]; d++) {
                _cleanup_free_ char *path = xasprintf("%s/%s.conf", conf_dirs[d], daemon);
                char *text = NULL;
                size_t len = 0;
                int r = ht_read_optional(c, path, &text, &len);
                if (r < 0)
                        return r;
                if (text) {
                        *ret = (conf_file){.name = xasprintf("%s.conf", daemon), .path = TAKE_PTR(path),
                                           .text = text, .len = len};
                        return 1;
                }
        }
        return 0;
}

/* One key of one daemon, from every setting that names it. */
typedef struct {
        const ht_sdconf_key *key;
        char *want;        /* canonical; the largest of several minimums */
        size_t *settings;  /* indexes into r->settings */
        size_t n_settings;
} wanted;

static bool is_ours(const conf_file *f) {
        return f->text && strstr(f->text, "Managed by hosttune");
}

/* What the follow-up is and when the change takes effect. */
static const char *takes_effect(const ht_sdconf_daemon *d, bool live) {
        if (streq(d->name, "logind"))
                return live ? "takes effect when systemd-logind re-reads its configuration (SIGHUP, below)"
                            : "takes effect when systemd-logind starts (at boot)";
        return live ? "takes effect at daemon-reload, for services started after it"
                    : "takes effect when systemd starts (at boot)";
}

/* Whether the host has the daemon at all: systemd runs there, or its
 * binary, main file or a conf.d directory is in the tree (an image). A
 * RHEL 5 host or a container image without systemd has none, and a
 * drop-in there would be read by nothing. */
static bool daemon_present(const ht_context *c, const ht_facts *f, const ht_sdconf_daemon *d) {
        if (f->systemd_running)
                return true;
        const char *binary = streq(d->name, "logind") ? "systemd-logind" : "systemd";
        for (size_t i = 0; conf_dirs[i]; i++) {
                if (startswith(conf_dirs[i], "/usr/lib") || startswith(conf_dirs[i], "/lib")) {
                        _cleanup_free_ char *bin = xasprintf("%s/%s", conf_dirs[i], binary);
                        if (ht_exists(c, bin))
                                return true;
                }
                _cleanup_free_ char *main = xasprintf("%s/%s.conf", conf_dirs[i], d->name);
                _cleanup_free_ char *dir = xasprintf("%s/%s.conf.d", conf_dirs[i], d->name);
                if (ht_exists(c, main) || ht_exists(c, dir))
                        return true;
        }
        return false;
}

/* Settings of a daemon the host does not have: skipped when optional,
 * else errors. */
static void plan_absent(const ht_sdconf_daemon *d, const ht_resolved *r, const wanted *w, size_t nw, ht_plan *plan) {
        const char *who = streq(d->name, "logind") ? "systemd-logind" : "systemd";
        for (size_t j = 0; j < nw; j++)
                for (size_t t = 0; t < w[j].n_settings; t++) {
                        const ht_setting *s = &r->settings[w[j].settings[t]];
                        ht_change *ch = ht_plan_add_change(plan, HT_BK_SYSTEMD, s->key, NULL, w[j].want);
                        ch->source = xstrdup(s->source);
                        if (s->optional) {
                                ch->outcome = HT_OUTCOME_SKIPPED;
                                _cleanup_free_ char *what = xasprintf("systemd %s", s->key);
                                ht_plan_skip(plan, what, s->source, "this host has no %s (no %s.conf, no %s.conf.d, "
                                             "systemd not running)", who, d->name, d->name);
                        } else {
                                ch->outcome = HT_OUTCOME_FAILED;
                                ht_plan_error(plan, "%s: systemd %s=%s: this host has no %s (no %s.conf, no %s.conf.d, "
                                              "systemd not running); mark the setting optional or install systemd",
                                              s->source, s->key, w[j].want, who, d->name, d->name);
                        }
                }
}

static void plan_daemon(const ht_context *c, const ht_facts *f, const ht_resolved *r, const ht_sdconf_daemon *d,
                        ht_plan *plan) {
        _cleanup_free_ char *own = xasprintf("/etc/systemd/%s.conf.d/" DROPIN_NAME, d->name);
        bool live = f->systemd_running && !c->offline_root;
        char *b = NULL;  /* the drop-in's lines (no cleanup attribute: the gotos jump past it) */

        wanted *w = NULL;
        size_t nw = 0;
        bool bad = false;
        for (size_t i = 0; i < r->n_settings; i++) {
                const ht_setting *s = &r->settings[i];
                const ht_sdconf_daemon *sd = NULL;
                if (s->backend != HT_BK_SYSTEMD)
                        continue;
                const ht_sdconf_key *k = setting_key(s->key, &sd);
                if (!k || sd != d)
                        continue;
                _cleanup_free_ char *v = NULL;
                const char *why = NULL;
                if (ht_sdconf_canon_value(k, s->value, &v, &why) < 0) {
                        ht_plan_error(plan, "%s: invalid value '%s' for systemd %s: %s", s->source,
                                      s->value ? s->value : "", s->key, why);
                        bad = true;
                        continue;
                }
                size_t j = 0;
                while (j < nw && w[j].key != k)
                        j++;
                if (j == nw) {
                        w = xrealloc(w, (nw + 1) * sizeof(*w));
                        w[nw++] = (wanted){.key = k, .want = TAKE_PTR(v)};
                } else if (k->type == HT_SDCONF_LIMIT) {
                        /* two minimums: the larger one meets both */
                        if (!ht_sdconf_meets(k, w[j].want, v)) {
                                free(w[j].want);
                                w[j].want = TAKE_PTR(v);
                        }
                } else if (!ht_sdconf_meets(k, w[j].want, v)) {
                        ht_plan_error(plan, "%s: systemd %s=%s, but another setting wants %s", s->source, s->key, v,
                                      w[j].want);
                        bad = true;
                }
                w[j].settings = xrealloc(w[j].settings, (w[j].n_settings + 1) * sizeof(size_t));
                w[j].settings[w[j].n_settings++] = i;
        }

        conf_file main_file = {0};
        conf_file *drop = NULL;
        size_t nd = 0;
        _cleanup_free_ char *old = NULL;
        size_t old_len = 0;
        int k = ht_read_optional(c, own, &old, &old_len);
        if (k >= 0)
                k = read_main(c, d->name, &main_file);
        if (k >= 0)
                k = collect_dropins(c, d->name, &drop, &nd);
        if (k < 0) {
                ht_plan_error(plan, "cannot read the configuration of %s (%s.conf and its drop-ins): %s",
                              streq(d->name, "logind") ? "systemd-logind" : "systemd", d->name, ht_strerror(-k));
                goto done;
        }
        if (bad)
                goto done;
        if (nw > 0 && !daemon_present(c, f, d)) {
                plan_absent(d, r, w, nw, plan);
                goto done;
        }
        size_t files_before = plan->n_files;
        if (nw == 0) {
                /* nothing to set: a drop-in from an earlier profile goes,
                 * which the daemon must hear of too */
                if (old && strstr(old, "Managed by hosttune"))
                        ht_plan_add_file(plan, HT_BK_SYSTEMD, own, old, old_len, NULL, 0, 0644);
                goto follow_up;
        }

        /* The files in systemd's order, split around hosttune's drop-in:
         * before it (the main file first), then ours, then the drop-ins
         * after it. A 90-hosttune.conf of another directory is hidden by
         * the one the plan writes in /etc and counts for neither side;
         * /etc's counts as ours only when it is hosttune's (its header). */
        size_t n_all = nd + 1;
        ht_sdconf_file *all = xcalloc(n_all, sizeof(*all));
        all[0] = (ht_sdconf_file){.path = main_file.path, .text = main_file.text, .len = main_file.len};
        size_t n_before = 1;
        for (size_t i = 0; i < nd; i++) {
                all[i + 1] = (ht_sdconf_file){.path = drop[i].path, .text = drop[i].text, .len = drop[i].len};
                if (strcmp(drop[i].name, DROPIN_NAME) < 0)
                        n_before = i + 2;
        }
        bool same_name = n_before - 1 < nd && streq(drop[n_before - 1].name, DROPIN_NAME);
        size_t own_at = same_name && streq(drop[n_before - 1].path, own) && is_ours(&drop[n_before - 1])
                                ? n_before
                                : SIZE_MAX;
        size_t after_from = n_before + (same_name ? 1 : 0);

        strbuf body = {0};
        for (size_t j = 0; j < nw; j++) {
                const ht_sdconf_key *key = w[j].key;
                _cleanup_free_ char *before = NULL, *ours = NULL, *after = NULL, *now = NULL, *dflt = NULL;
                /* unset, or reset by "Key=": the compiled-in default, as the
                 * main file shows it, else as the man page says */
                if (!main_file.text ||
                    ht_sdconf_shipped_default(main_file.text, main_file.len, d->section, key->name, &dflt) <= 0)
                        dflt = key->dflt ? xstrdup(key->dflt) : NULL;
                ht_sdconf_effective(all, n_before, d->section, key->name, &before);
                if (!before && dflt)
                        before = xstrdup(dflt);
                if (own_at != SIZE_MAX)
                        ht_sdconf_effective(&all[own_at], 1, d->section, key->name, &ours);
                int after_at = ht_sdconf_effective(all + after_from, n_all - after_from, d->section, key->name, &after);
                ht_sdconf_effective(all, n_all, d->section, key->name, &now);
                if (!now && dflt)
                        now = xstrdup(dflt);

                /* the value the plan shows: canonical */
                _cleanup_free_ char *now_shown = NULL;
                const char *why;
                if (now && ht_sdconf_canon_value(key, now, &now_shown, &why) < 0)
                        now_shown = xstrdup(now);

                /* the line hosttune's file holds: none when the files
                 * before it already meet the profile (nothing to change on
                 * a host at the value already), its own value while that
                 * still meets a minimum, else the profile's raised to what
                 * the host has */
                _cleanup_free_ char *line = NULL;
                bool before_meets = ht_sdconf_meets(key, before, w[j].want);
                if (key->type == HT_SDCONF_LIMIT) {
                        if (!before_meets)
                                line = ours && ht_sdconf_meets(key, ours, w[j].want)
                                               ? xstrdup(ours)
                                               : ht_sdconf_raise(key, before, w[j].want);
                } else if (!before_meets)
                        line = xstrdup(w[j].want);
                if (line)
                        strbuf_appendf(&body, "%s=%s\n", key->name, line);

                bool after_set = after_at >= 0;
                if (after_set && !after && dflt)
                        after = xstrdup(dflt);
                bool overridden = after_set && !ht_sdconf_meets(key, after, w[j].want);
                _cleanup_free_ char *then = NULL;
                if (after_set)
                        then = after ? xstrdup(after) : NULL;
                else if (line)
                        then = xstrdup(line);
                else
                        then = before ? xstrdup(before) : NULL;
                if (then) {
                        char *cv = NULL;
                        if (ht_sdconf_canon_value(key, then, &cv, &why) == 0) {
                                free(then);
                                then = cv;
                        }
                }
                const char *after_path = after_set ? all[after_from + (size_t)after_at].path : NULL;
                for (size_t t = 0; t < w[j].n_settings; t++) {
                        const ht_setting *s = &r->settings[w[j].settings[t]];
                        ht_change *ch = ht_plan_add_change(plan, HT_BK_SYSTEMD, s->key,
                                                           overridden ? then : now_shown,
                                                           overridden ? w[j].want : then);
                        ch->source = xstrdup(s->source);
                        if (key->type == HT_SDCONF_LIMIT) {
                                ch->bound = HT_BOUND_AT_LEAST;
                                ch->bound_value = xstrdup(w[j].want);
                        }
                        if (overridden) {
                                _cleanup_free_ char *shown = ht_display_path(c, after_path);
                                ch->outcome = HT_OUTCOME_OVERRIDDEN;
                                ch->note = xasprintf("%s sets %s=%s, after hosttune's drop-in", shown, key->name,
                                                     after ? after : "(reset)");
                                if (t == 0)
                                        ht_plan_warn(plan, "%s sets %s=%s and is read after %s: systemd keeps %s, "
                                                     "not %s; remove the line there or override the profile value",
                                                     shown, key->name, after ? after : "(its default)", own,
                                                     after ? after : "its default", w[j].want);
                                continue;
                        }
                        if (ht_sdconf_meets(key, now_shown, then) && ht_sdconf_meets(key, then, now_shown)) {
                                ch->outcome = HT_OUTCOME_KEPT;
                                continue;
                        }
                        ch->note = xstrdup(takes_effect(d, live));
                }
        }
        free(all);

        b = strbuf_steal(&body);
        if (isempty(b)) {
                /* the host meets every value without it */
                if (old && strstr(old, "Managed by hosttune"))
                        ht_plan_add_file(plan, HT_BK_SYSTEMD, own, old, old_len, NULL, 0, 0644);
        } else {
                _cleanup_free_ char *header = ht_managed_header(plan->profile, "#");
                _cleanup_free_ char *content = xasprintf("%s[%s]\n%s", header, d->section, b);
                ht_plan_add_file(plan, HT_BK_SYSTEMD, own, old, old_len, content, strlen(content), 0644);
        }
follow_up:
        if (plan->n_files == files_before || !live)
                goto done;
        /* An image or a copied tree: the drop-in is the change, read at
         * its boot. The running host: what systemd documents. */
        if (streq(d->name, "logind")) {
                /* logind re-reads logind.conf on SIGHUP (systemd 230 NEWS);
                 * its unit has no ExecReload= in 252, so 'systemctl reload'
                 * refuses, and a restart drops the graphical sessions whose
                 * display server does not survive it (NEWS of 234) */
                if (ht_exists(c, "/run/systemd/seats")) {
                        /* the command a rollback runs again comes from the same table */
                        const ht_follow_up_def *fu = ht_follow_up_get("reload-logind");
                        ht_plan_add_action(plan, HT_BK_SYSTEMD, "reload-logind", (char *const *)fu->argv,
                                           "make systemd-logind re-read logind.conf and its drop-ins (SIGHUP)", NULL);
                }
        } else
                /* "The systemd daemon will now reload its main
                 * configuration on daemon-reload" (systemd 223 NEWS): no
                 * daemon-reexec, no reboot */
                ht_plan_add_action(plan, HT_BK_SYSTEMD, "daemon-reload", NULL,
                                   "reload systemd so the manager drop-in takes effect for services started after it",
                                   NULL);
done:
        free(b);
        for (size_t j = 0; j < nw; j++) {
                free(w[j].want);
                free(w[j].settings);
        }
        free(w);
        free(main_file.name);
        free(main_file.path);
        free(main_file.text);
        conf_files_free(drop, nd);
}

static int systemd_plan(const ht_context *c, const ht_facts *f, const ht_resolved *r, ht_plan *plan) {
        static const char *const order[] = {"logind", "system"};
        for (size_t i = 0; i < ELEMENTSOF(order); i++)
                plan_daemon(c, f, r, ht_sdconf_daemon_find(order[i]), plan);
        return 0;
}

/* systemd { logind { RemoveIPC = false; }; system { ... }; }, or a list
 * of { key = "logind.RemoveIPC"; value = ...; optional = ...; }. */
static int systemd_parse_section(ht_pfile *p, const config_setting_t *s, char **ret_error) {
        static const char *const list_keys[] = {"key", "value", "optional", "when", NULL};
        return ht_cfg_keyed_section(p, s, HT_BK_SYSTEMD, '.', NULL, list_keys, ret_error);
}

static const ht_backend_field systemd_rule_fields[] = {
        {.name = "key", .offset = offsetof(ht_entry, key)},
        {0},
};

static int systemd_canon_key(ht_resolver *r, const ht_entry *e, const char *what, ht_setting *s,
                             char **ret_value, char **ret_error) {
        int k = ht_entry_eval_string(r, &e->key, e, what, "key", &s->key, ret_error);
        if (k < 0)
                return k;
        const char *dot = strchr(s->key, '.');
        _cleanup_free_ char *dn = dot ? xstrndup(s->key, (size_t)(dot - s->key)) : xstrdup(s->key);
        const ht_sdconf_daemon *d = ht_sdconf_daemon_find(dn);
        if (!d || !dot)
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: '%s' is not a systemd setting: write logind.KEY "
                                "([Login] of logind.conf) or system.KEY ([Manager] of system.conf)",
                                e->file, e->line, what, s->key);
        if (ht_sdconf_key_is_list(d->name, dot + 1))
                return ht_error(ret_error, -EINVAL,
                                "%s:%u: %s: '%s' is a list in [%s] of %s.conf (every file's assignments "
                                "add up, an empty one clears them), which hosttune does not set: a "
                                "drop-in of your own holds it",
                                e->file, e->line, what, dot + 1, d->section, d->name);
        if (!ht_sdconf_key_find(d->name, dot + 1)) {
                const char *hint = ht_sdconf_key_closest(d->name, dot + 1);
                return ht_error(ret_error, -EINVAL,
                                "%s:%u: %s: '%s' is not a key of [%s] in %s.conf hosttune knows%s%s%s",
                                e->file, e->line, what, dot + 1, d->section, d->name,
                                hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
        }
        return 0;
}

static const char *systemd_check_value(const char *t) {
        if (isempty(t))
                return "is empty";
        /* a second line would be a second assignment in the drop-in */
        return strchr(t, '\n') ? "holds a newline" : NULL;
}

/* The files its plan writes (ht_backend.files). */
static const char *const systemd_files[] = {"/etc/systemd/*.conf.d/" DROPIN_NAME, NULL};

const ht_backend ht_backend_systemd = {
        .id = HT_BK_SYSTEMD,
        .name = "systemd",
        .files = systemd_files,
        .rule_fields = systemd_rule_fields,
        .parse_section = systemd_parse_section,
        .canon_key = systemd_canon_key,
        .check_value = systemd_check_value,
        .plan = systemd_plan,
};

/* --- what a service gets when its unit sets no Limit*= ------------------ */

/* The version of the systemd the root has, from the name of its shared
 * library (libsystemd-shared-252.so; Debian, Ubuntu: /usr/lib/<triplet>/
 * systemd or /lib/systemd; Fedora, RHEL, SUSE: /usr/lib/systemd or
 * /usr/lib64/systemd); 0 unknown. */
static unsigned systemd_version(const ht_context *c) {
        static const char *const dirs[] = {
                "/usr/lib/systemd", "/lib/systemd", "/usr/lib64/systemd", "/usr/lib/x86_64-linux-gnu/systemd",
                "/usr/lib/aarch64-linux-gnu/systemd", "/usr/lib/powerpc64le-linux-gnu/systemd",
                "/usr/lib/s390x-linux-gnu/systemd", NULL,
        };
        for (size_t d = 0; dirs[d]; d++) {
                _cleanup_strv_free_ char **names = NULL;
                ht_list_dir(c, dirs[d], ".so", &names);
                for (size_t i = 0; names && names[i]; i++) {
                        if (!startswith(names[i], "libsystemd-shared-"))
                                continue;
                        const char *p = names[i] + strlen("libsystemd-shared-");
                        /* "252.so", Fedora's "256.11-1.fc41.so" */
                        size_t digits = strspn(p, "0123456789");
                        if (digits == 0 || digits > 4)
                                continue;
                        _cleanup_free_ char *num = xstrndup(p, digits);
                        uint64_t v;
                        if (parse_u64(num, &v) == 0 && v > 0)
                                return (unsigned)v;
                }
        }
        return 0;
}

/* The row of /proc/PID/limits for directive, and its multiplier. */
static const char *limits_row(const char *directive) {
        static const struct {
                const char *directive, *row;
        } rows[] = {
                {"LimitCPU", "Max cpu time"},          {"LimitFSIZE", "Max file size"},
                {"LimitDATA", "Max data size"},        {"LimitSTACK", "Max stack size"},
                {"LimitCORE", "Max core file size"},   {"LimitRSS", "Max resident set"},
                {"LimitNPROC", "Max processes"},       {"LimitNOFILE", "Max open files"},
                {"LimitMEMLOCK", "Max locked memory"}, {"LimitAS", "Max address space"},
                {"LimitLOCKS", "Max file locks"},      {"LimitSIGPENDING", "Max pending signals"},
                {"LimitMSGQUEUE", "Max msgqueue size"}, {"LimitNICE", "Max nice priority"},
                {"LimitRTPRIO", "Max realtime priority"}, {"LimitRTTIME", "Max realtime timeout"},
        };
        for (size_t i = 0; i < ELEMENTSOF(rows); i++)
                if (streq(rows[i].directive, directive))
                        return rows[i].row;
        return NULL;
}

int ht_proc_limits_parse(const char *text, const char *directive, uint64_t *ret_soft, uint64_t *ret_hard) {
        const char *row = limits_row(directive);
        if (!row || !text)
                return -EINVAL;
        for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
                if (!startswith(l, row) || (l[strlen(row)] != ' ' && l[strlen(row)] != '\t'))
                        continue;
                const char *p = l + strlen(row);
                uint64_t v[2];
                for (int k = 0; k < 2; k++) {
                        while (*p == ' ' || *p == '\t')
                                p++;
                        size_t n = strcspn(p, " \t\n");
                        _cleanup_free_ char *w = xstrndup(p, n);
                        if (streq(w, "unlimited"))
                                v[k] = HT_LIMIT_INFINITY;
                        else if (parse_u64(w, &v[k]) < 0)
                                return -EBADMSG;
                        p += n;
                }
                *ret_soft = v[0];
                *ret_hard = v[1];
                return 0;
        }
        return -ENODATA;
}

/* The running kernel's release is at least major.minor. */
static bool kernel_at_least(const ht_facts *f, unsigned major, unsigned minor) {
        unsigned a = 0, b = 0;
        if (!f || !f->kernel_release || sscanf(f->kernel_release, "%u.%u", &a, &b) != 2)
                return false;
        return a > major || (a == major && b >= minor);
}

int ht_systemd_default_limit(const ht_context *c, const ht_facts *f, const char *directive, uint64_t *ret_soft,
                             uint64_t *ret_hard, char **ret_from) {
        if (!limits_row(directive))
                return -EINVAL;
        /* DefaultLimitX= of system.conf and its drop-ins, in systemd's
         * order (systemd-system.conf(5): "DefaultLimitCPU=, ... These
         * settings control various default resource limits for units") */
        _cleanup_free_ char *key = xasprintf("Default%s", directive);
        conf_file main_file = {0};
        conf_file *drop = NULL;
        size_t nd = 0;
        int r = read_main(c, "system", &main_file);
        if (r >= 0)
                r = collect_dropins(c, "system", &drop, &nd);
        if (r < 0) {
                conf_files_free(drop, nd);
                free(main_file.name);
                free(main_file.path);
                free(main_file.text);
                return r;
        }
        size_t n_all = nd + 1;
        ht_sdconf_file *all = xcalloc(n_all, sizeof(*all));
        size_t k = 0;
        if (main_file.text)
                all[k++] = (ht_sdconf_file){.path = main_file.path, .text = main_file.text, .len = main_file.len};
        for (size_t i = 0; i < nd; i++)
                all[k++] = (ht_sdconf_file){.path = drop[i].path, .text = drop[i].text, .len = drop[i].len};
        _cleanup_free_ char *v = NULL;
        int at = ht_sdconf_effective(all, k, "Manager", key, &v);
        int found = 0;
        if (at >= 0 && v && ht_unit_parse_limit(directive, v, ret_soft, ret_hard) == 0) {
                _cleanup_free_ char *shown = ht_display_path(c, all[at].path);
                *ret_from = xasprintf("%s=%s in %s", key, v, shown);
                found = 1;
        }
        free(all);
        conf_files_free(drop, nd);
        free(main_file.name);
        free(main_file.path);
        free(main_file.text);
        if (found)
                return 0;

        unsigned ver = systemd_version(c);
        if (streq(directive, "LimitNOFILE")) {
                /* systemd 240 and later give services 1024 soft, 512K hard
                 * (NEWS for 240: the hard limit "is now bumped to 512K",
                 * the soft one stays 1024 for select(); systemd-system.conf
                 * (5): "DefaultLimitNOFILE= defaults to 1024:524288");
                 * before, the kernel's 1024:4096 (INR_OPEN_CUR, INR_OPEN_MAX
                 * in include/uapi/linux/fs.h) passed on. Unknown: 240 or
                 * later, every supported distribution's. */
                bool new = ver == 0 || ver >= 240;
                *ret_soft = 1024;
                *ret_hard = new ? 524288 : 4096;
                *ret_from = ver ? xasprintf("systemd %u's default for services (%s)", ver,
                                            new ? "DefaultLimitNOFILE=1024:524288 since 240" : "the kernel's 1024:4096")
                                : xstrdup("systemd's default for services (DefaultLimitNOFILE=1024:524288 since 240)");
                return 0;
        }
        if (streq(directive, "LimitMEMLOCK")) {
                /* 8M: the kernel's default since 5.16 (MLOCK_LIMIT,
                 * include/uapi/linux/resource.h), which systemd also gives
                 * services on older kernels in its later versions
                 * (src/basic/def.h, DEFAULT_RLIMIT_MEMLOCK: "Since kernel
                 * 5.16 the kernel default limit was raised to 8M. Let's
                 * adjust things on old kernels too"); before 5.16 the
                 * kernel's 64K, the smaller one taken when both may be */
                bool big = kernel_at_least(f, 5, 16);
                *ret_soft = *ret_hard = big ? UINT64_C(8) << 20 : UINT64_C(64) << 10;
                *ret_from = xstrdup(big ? "the kernel's default since 5.16, 8M" : "the kernel's default before 5.16, 64K");
                return 0;
        }
        /* The rest, LimitNPROC among them, systemd leaves as the kernel
         * started PID 1 and passes on (for NPROC the kernel's default,
         * threads-max / 2: kernel/fork.c, set_max_threads and
         * fork_init); PID 1 raises only its own NOFILE and MEMLOCK, which
         * are above. */
        _cleanup_free_ char *lim = NULL;
        r = ht_read_file(c, "/proc/1/limits", 1 << 16, &lim, NULL);
        if (r < 0)
                return r;
        r = ht_proc_limits_parse(lim, directive, ret_soft, ret_hard);
        if (r < 0)
                return r;
        *ret_from = xstrdup(streq(directive, "LimitNPROC") ? "the kernel's default, as PID 1 has it (/proc/1/limits)"
                                                            : "as PID 1 has it (/proc/1/limits)");
        return 0;
}
