/* systemd units: limits for services, which limits.conf never reaches
 * (pam_limits applies to login sessions only). Each unit gets a drop-in
 * /etc/systemd/system/UNIT.d/hosttune.conf with a [Service] section. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "backend-common.h"
#include "backend.h"
#include "util.h"

#define UNIT_DIR "/etc/systemd/system"
#define DROPIN_NAME "hosttune.conf"

static bool unit_name_valid(const char *u) {
        if (isempty(u) || strlen(u) > 255 || u[0] == '.' || u[0] == '-')
                return false;
        for (const char *p = u; *p; p++)
                if (!isalnum((unsigned char)*p) && !strchr(":-_.\\@", *p))
                        return false;
        return strchr(u, '.') != NULL;
}

/* systemd resource-limit directives (systemd.exec(5), "Process
 * Properties"), plus the few service settings profiles use. */
static const char *const directives[] = {
        "LimitCPU", "LimitFSIZE", "LimitDATA", "LimitSTACK", "LimitCORE", "LimitRSS",
        "LimitNOFILE", "LimitAS", "LimitNPROC", "LimitMEMLOCK", "LimitLOCKS", "LimitSIGPENDING",
        "LimitMSGQUEUE", "LimitNICE", "LimitRTPRIO", "LimitRTTIME", "TasksMax", NULL,
};

static bool value_valid(const char *v) {
        if (isempty(v) || strlen(v) > 64)
                return false;
        for (const char *p = v; *p; p++)
                if (!isalnum((unsigned char)*p) && !strchr(":.", *p))
                        return false;
        return true;
}

/* The value of Key= in a drop-in's text, last one winning; NULL if unset. */
static char *dropin_value(const char *text, const char *key) {
        char *found = NULL;
        size_t kl = strlen(key);
        const char *line = text;
        while (line && *line) {
                const char *end = strchr(line, '\n');
                size_t n = end ? (size_t)(end - line) : strlen(line);
                if (n > kl && strncmp(line, key, kl) == 0 && line[kl] == '=') {
                        free(found);
                        found = xstrndup(line + kl + 1, n - kl - 1);
                }
                line = end ? end + 1 : NULL;
        }
        return found;
}

static char *unit_with_suffix(const char *u) {
        return strchr(u, '.') ? xstrdup(u) : xasprintf("%s.service", u);
}

static int service_plan(const ht_context *c, const ht_facts *f, const ht_resolved *r, ht_plan *plan) {
        _cleanup_strv_free_ char **units = NULL;
        bool any_change = false;

        for (size_t i = 0; i < r->n_settings; i++) {
                const ht_setting *s = &r->settings[i];
                if (s->backend != HT_BK_SERVICE || !s->unit)
                        continue;
                _cleanup_free_ char *unit = unit_with_suffix(s->unit);
                if (!unit_name_valid(unit)) {
                        ht_plan_error(plan, "%s: '%s' is not a valid systemd unit name", s->source, s->unit);
                        continue;
                }
                if (!strv_contains(units, unit))
                        strv_push(&units, unit);
        }

        for (size_t u = 0; units && units[u]; u++) {
                const char *unit = units[u];
                strbuf body = {0};
                _cleanup_free_ char *path = xasprintf(UNIT_DIR "/%s.d/" DROPIN_NAME, unit);
                _cleanup_free_ char *old = NULL;
                size_t old_len = 0;
                int k = ht_read_optional(c, path, &old, &old_len);
                if (k < 0) {
                        ht_plan_error(plan, "cannot read %s: %s", path, ht_strerror(-k));
                        continue;
                }
                bool bad = false;
                for (size_t i = 0; i < r->n_settings; i++) {
                        const ht_setting *s = &r->settings[i];
                        if (s->backend != HT_BK_SERVICE || !s->unit)
                                continue;
                        _cleanup_free_ char *su = unit_with_suffix(s->unit);
                        if (!streq(su, unit))
                                continue;
                        if (!s->directive || !strv_contains((char **)directives, s->directive)) {
                                const char *hint = s->directive ? closest_word(s->directive, (char **)directives) : NULL;
                                ht_plan_error(plan, "%s: unknown service directive '%s'%s%s%s", s->source,
                                              s->directive ? s->directive : "", hint ? " (did you mean '" : "",
                                              hint ? hint : "", hint ? "'?)" : "");
                                bad = true;
                                continue;
                        }
                        if (!value_valid(s->value)) {
                                ht_plan_error(plan, "%s: invalid value '%s' for %s", s->source,
                                              s->value ? s->value : "", s->directive);
                                bad = true;
                                continue;
                        }
                        strbuf_appendf(&body, "%s=%s\n", s->directive, s->value);
                        _cleanup_free_ char *cur = old ? dropin_value(old, s->directive) : NULL;
                        if (streq_ptr(cur, s->value))
                                continue;
                        ht_change *ch = ht_plan_add_change(plan, HT_BK_SERVICE, s->key, cur, s->value);
                        ch->source = xstrdup(s->source);
                        ch->note = xasprintf("takes effect when %s is restarted", unit);
                }
                if (bad) {
                        strbuf_done(&body);
                        continue;
                }
                _cleanup_free_ char *header = ht_managed_header(plan->profile, "#");
                _cleanup_free_ char *b = strbuf_steal(&body);
                _cleanup_free_ char *content = xasprintf("%s[Service]\n%s", header, b);
                size_t before = plan->n_files;
                ht_plan_add_file(plan, HT_BK_SERVICE, path, old, old_len, content, strlen(content), 0644);
                if (plan->n_files > before)
                        any_change = true;
        }

        /* Drop-ins of an earlier profile for units this one does not name. */
        _cleanup_strv_free_ char **dirs = NULL;
        ht_list_dir(c, UNIT_DIR, ".d", &dirs);
        for (size_t i = 0; dirs && dirs[i]; i++) {
                _cleanup_free_ char *unit = xstrndup(dirs[i], strlen(dirs[i]) - 2);
                if (strv_contains(units, unit))
                        continue;
                _cleanup_free_ char *path = xasprintf(UNIT_DIR "/%s/" DROPIN_NAME, dirs[i]);
                _cleanup_free_ char *old = NULL;
                size_t old_len = 0;
                if (ht_read_optional(c, path, &old, &old_len) < 0 || !old || !strstr(old, "Managed by hosttune"))
                        continue;
                ht_plan_add_file(plan, HT_BK_SERVICE, path, old, old_len, NULL, 0, 0644);
                any_change = true;
        }

        if (any_change && f->systemd_running && !c->offline_root)
                ht_plan_add_action(plan, "daemon-reload", NULL,
                                   "reload systemd so the unit drop-ins take effect (then restart the services named above)");
        return 0;
}

const ht_backend ht_backend_service = {
        .id = HT_BK_SERVICE,
        .name = "service",
        .plan = service_plan,
};
