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
#include "systemd-conf.h"
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


/* One key of one daemon, from every setting that names it. */
typedef struct {
        const ht_sdconf_key *key;
        char *want;        /* canonical; the largest of several minimums */
        size_t *settings;  /* indexes into r->settings */
        size_t n_settings;
} wanted;

static bool is_ours(const ht_sdconf_found *f) {
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
        for (size_t i = 0; ht_sdconf_dirs[i]; i++) {
                if (startswith(ht_sdconf_dirs[i], "/usr/lib") || startswith(ht_sdconf_dirs[i], "/lib")) {
                        _cleanup_free_ char *bin = xasprintf("%s/%s", ht_sdconf_dirs[i], binary);
                        if (ht_exists(c, bin))
                                return true;
                }
                _cleanup_free_ char *main = xasprintf("%s/%s.conf", ht_sdconf_dirs[i], d->name);
                _cleanup_free_ char *dir = xasprintf("%s/%s.conf.d", ht_sdconf_dirs[i], d->name);
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
                        ch->source = ht_plan_strdup(plan, s->source);
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

        ht_sdconf_found main_file = {0};
        ht_sdconf_found *drop = NULL;
        size_t nd = 0;
        _cleanup_free_ char *old = NULL;
        size_t old_len = 0;
        int k = ht_read_optional(c, own, &old, &old_len);
        if (k >= 0)
                k = ht_sdconf_read_main(c, d->name, &main_file);
        if (k >= 0)
                k = ht_sdconf_collect_dropins(c, d->name, &drop, &nd);
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
                        ht_plan_own_file(plan, HT_BK_SYSTEMD, own, old, old_len, NULL);
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
                        ch->source = ht_plan_strdup(plan, s->source);
                        if (key->type == HT_SDCONF_LIMIT) {
                                ch->bound = HT_BOUND_AT_LEAST;
                                ch->bound_value = ht_plan_strdup(plan, w[j].want);
                        }
                        if (overridden) {
                                _cleanup_free_ char *shown = ht_display_path(c, after_path);
                                ch->outcome = HT_OUTCOME_OVERRIDDEN;
                                ch->note = ht_plan_printf(plan, "%s sets %s=%s, after hosttune's drop-in", shown, key->name,
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
                        ch->note = ht_plan_strdup(plan, takes_effect(d, live));
                }
        }
        free(all);

        b = strbuf_steal(&body);
        if (isempty(b)) {
                /* the host meets every value without it */
                if (old && strstr(old, "Managed by hosttune"))
                        ht_plan_own_file(plan, HT_BK_SYSTEMD, own, old, old_len, NULL);
        } else {
                _cleanup_free_ char *header = ht_managed_header(plan->profile, "#");
                _cleanup_free_ char *content = xasprintf("%s[%s]\n%s", header, d->section, b);
                ht_plan_own_file(plan, HT_BK_SYSTEMD, own, old, old_len, content);
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
        ht_sdconf_found_free(drop, nd);
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
        int k = ht_entry_eval_field(r, &e->key, e, what, "key", &s->key, ret_error);
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
