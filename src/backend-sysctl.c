/* sysctl: runtime values in /proc/sys, persisted in hosttune's own
 * sysctl.d drop-in. The plan also predicts the value each key gets at the
 * next boot by reading every sysctl.d file in systemd-sysctl's order, and
 * warns when a later file would override hosttune's. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "backend-common.h"
#include "backend.h"
#include "edit-sysctl.h"
#include "util.h"

/* Real sysctl.d files are a few KB; a million-line one would take
 * seconds and hundreds of MB to check. */
#define SYSCTL_FILE_MAX (1u << 20)

/* Hosts without systemd-sysctl apply sysctl.d through procps'
 * `sysctl --system`, which also reads /etc/sysctl.conf last. */
static bool uses_procps_order(const ht_context *c) {
        return !ht_exists(c, "/usr/lib/systemd/systemd-sysctl") && !ht_exists(c, "/lib/systemd/systemd-sysctl");
}

/* Hosts whose boot reads /etc/sysctl.conf only: no systemd-sysctl and no
 * /etc/sysctl.d at all (RHEL 5: rc.sysinit runs `sysctl -e -p
 * /etc/sysctl.conf`; sysctl.d came with RHEL 6). A drop-in would never be
 * applied there, so the values go into sysctl.conf itself. */
static bool sysctl_conf_only(const ht_context *c) {
        return uses_procps_order(c) && !ht_exists(c, "/etc/sysctl.d");
}

static void plan_sysctl_conf(const ht_context *c, const ht_sysctl_setting *persist, size_t np, ht_plan *plan) {
        _cleanup_free_ char *old = NULL, *content = NULL, *err = NULL;
        size_t old_len = 0, len = 0;
        int k = ht_read_optional(c, HT_SYSCTL_CONF, &old, &old_len);
        if (k < 0) {
                ht_plan_error(plan, "cannot read %s: %s", HT_SYSCTL_CONF, ht_strerror(-k));
                return;
        }
        if (ht_sysctl_conf_edit(old ? old : "", old_len, plan->profile, persist, np, &content, &len, &err) < 0) {
                _cleanup_free_ char *shown = ht_display_path(c, HT_SYSCTL_CONF);
                ht_plan_error(plan, "%s: %s", shown, err);
                return;
        }
        size_t before = plan->n_files;
        ht_plan_add_file(plan, HT_BK_SYSCTL, HT_SYSCTL_CONF, old, old_len, content, len, 0644);
        if (plan->n_files > before)
                ht_plan_warn(plan, "this host applies only %s at boot (no /etc/sysctl.d, no systemd-sysctl): "
                             "the values are set there, in place", HT_SYSCTL_CONF);
}

/* Warn about every key whose boot-time value would come from a file read
 * after hosttune's drop-in. dropin holds the drop-in as planned. */
static void predict_boot(const ht_context *c, const ht_resolved *r, const char *dropin, ht_plan *plan) {
        size_t ndirs = 0;
        while (ht_sysctl_dirs[ndirs])
                ndirs++;
        char ***names = xcalloc(ndirs + 1, sizeof(char **));
        for (size_t d = 0; d < ndirs; d++)
                ht_list_dir(c, ht_sysctl_dirs[d], ".conf", &names[d]);
        /* hosttune's own file counts whether or not it exists yet */
        const char *own = strrchr(HT_SYSCTL_DROPIN, '/') + 1;
        if (!strv_contains(names[0], own))
                strv_push(&names[0], own);

        _cleanup_strv_free_ char **order = ht_sysctl_order(names, uses_procps_order(c));
        size_t n = strv_length(order);
        ht_sysctl_file **files = xcalloc(n + 1, sizeof(*files));
        for (size_t i = 0; i < n; i++) {
                _cleanup_free_ char *content = NULL, *err = NULL;
                size_t len = 0;
                bool ours = streq(order[i], HT_SYSCTL_DROPIN);
                if (!ours) {
                        int k = ht_read_file(c, order[i], SYSCTL_FILE_MAX, &content, &len);
                        if (k == -ENOENT)
                                continue;
                        if (k < 0) {
                                /* not read, but not silently: it may override ours */
                                _cleanup_free_ char *shown = ht_display_path(c, order[i]);
                                ht_plan_warn(plan, "%s: cannot read it (%s): values there that override "
                                             "hosttune's at boot are not checked", shown,
                                             k == -EFBIG ? "larger than 1 MiB" : ht_strerror(-k));
                        }
                        if (k < 0 || !content)
                                continue;
                }
                if (ht_sysctl_parse(ours ? dropin : content, ours ? strlen(dropin) : len, HT_SYSCTL_LENIENT,
                                    &files[i], &err) < 0)
                        files[i] = NULL;
                if (!ours && files[i] && files[i]->warnings) {
                        _cleanup_free_ char *shown = ht_display_path(c, order[i]);
                        for (size_t w = 0; files[i]->warnings[w]; w++)
                                ht_plan_warn(plan, "%s:%s; systemd-sysctl ignores that line too", shown,
                                             files[i]->warnings[w]);
                }
        }
        /* ht_sysctl_effective skips no holes: compact the parsed ones */
        size_t m = 0;
        char **paths = NULL;
        for (size_t i = 0; i < n; i++)
                if (files[i]) {
                        files[m++] = files[i];
                        strv_push(&paths, order[i]);
                }

        ht_sysctl_index *idx = ht_sysctl_index_new((const ht_sysctl_file *const *)files, m);
        for (size_t i = 0; i < r->n_settings; i++) {
                const ht_setting *s = &r->settings[i];
                if (s->backend != HT_BK_SYSCTL)
                        continue;
                ht_sysctl_hit hit;
                if (ht_sysctl_index_effective(idx, s->key, &hit) <= 0)
                        continue;
                if (streq(paths[hit.file], HT_SYSCTL_DROPIN))
                        continue;
                if (ht_kernel_values_equal(hit.value, s->value))
                        continue;
                _cleanup_free_ char *shown = ht_display_path(c, paths[hit.file]);
                ht_change *ch = ht_plan_add_change(plan, HT_BK_SYSCTL, s->key, hit.value, s->value);
                ch->outcome = HT_OUTCOME_OVERRIDDEN;
                ch->source = xstrdup(s->source);
                ch->note = xasprintf("%s:%u sets it at boot, after hosttune's file", shown, hit.line);
                ht_plan_warn(plan, "%s:%u sets %s = %s and is read after %s: at boot %s will be %s, not %s; "
                             "remove the line there or override the profile value",
                             shown, hit.line, s->key, hit.value, HT_SYSCTL_DROPIN, s->key, hit.value, s->value);
        }
        ht_sysctl_index_free(idx);
        for (size_t i = 0; i < m; i++)
                ht_sysctl_file_free(files[i]);
        free(files);
        strv_free(paths);
        for (size_t d = 0; d < ndirs; d++)
                strv_free(names[d]);
        free(names);
}

/* A setting for the kernel the host boots next (a kernel switch is
 * pending): persisted now, in effect after that reboot. */
static void add_after_kernel_switch(ht_plan *plan, const ht_setting *s, const char *cur) {
        ht_change *ch = ht_plan_add_change(plan, HT_BK_SYSCTL, s->key, cur, s->value);
        ch->source = xstrdup(s->source);
        ch->outcome = HT_OUTCOME_KEPT;
        ch->reboot_required = true;
        ch->note = xstrdup("takes effect after the reboot into the new kernel");
        plan->reboot_required = true;
}

static int sysctl_plan(const ht_context *c, const ht_facts *f, const ht_resolved *r, ht_plan *plan) {
        bool live = ht_root_is_live(c);
        size_t n = ht_settings_count(r, HT_BK_SYSCTL);
        ht_sysctl_setting *persist = xcalloc(n + 1, sizeof(*persist));
        size_t np = 0;
        bool bad = false;

        for (size_t i = 0; i < r->n_settings; i++) {
                const ht_setting *s = &r->settings[i];
                if (s->backend != HT_BK_SYSCTL)
                        continue;
                _cleanup_free_ char *path = NULL, *err = NULL;
                if (ht_sysctl_proc_path(s->key, &path, &err) < 0) {
                        ht_plan_error(plan, "%s: %s", s->source, err);
                        bad = true;
                        continue;
                }
                if (!s->value || has_control_chars(s->value)) {
                        ht_plan_error(plan, "%s: the value for %s holds control characters", s->source, s->key);
                        bad = true;
                        continue;
                }
                /* sysctl.d has no quoting: quotes would reach the kernel as
                 * part of the value */
                if (strpbrk(s->value, "\"'")) {
                        ht_plan_error(plan, "%s: the value for %s holds quotes, which sysctl.d files do not strip; "
                                      "write the value without them", s->source, s->key);
                        bad = true;
                        continue;
                }
                _cleanup_free_ char *cur = NULL;
                int k = live ? ht_read_line(c, path, &cur) : 0;
                if (live && k < 0 && s->boot_only) {
                        /* the running kernel lacks the key (a switch to
                         * another kernel is pending): persisted, and shown
                         * as waiting for that reboot */
                        persist[np++] = (ht_sysctl_setting){.key = s->key, .value = s->value};
                        add_after_kernel_switch(plan, s, NULL);
                        continue;
                }
                if (live && k < 0) {
                        ht_change *ch = ht_plan_add_change(plan, HT_BK_SYSCTL, s->key, NULL, s->value);
                        ch->source = xstrdup(s->source);
                        if (s->optional) {
                                ch->outcome = HT_OUTCOME_SKIPPED;
                                ht_plan_warn(plan, "%s: skipped (optional): this kernel has no %s (%s)", s->source,
                                             s->key, ht_strerror(-k));
                        } else {
                                ch->outcome = HT_OUTCOME_FAILED;
                                ht_plan_error(plan, "%s: this kernel has no %s (%s); mark the setting optional or remove it",
                                              s->source, s->key, ht_strerror(-k));
                                bad = true;
                        }
                        continue;
                }
                persist[np++] = (ht_sysctl_setting){.key = s->key, .value = s->value};
                if (!live || ht_kernel_values_equal(cur, s->value))
                        continue;
                if (s->boot_only) {
                        /* the running kernel cannot take it (a kernel switch is
                         * pending): persisted, checked after the reboot */
                        add_after_kernel_switch(plan, s, cur);
                        continue;
                }
                ht_change *ch = ht_plan_add_change(plan, HT_BK_SYSCTL, s->key, cur, s->value);
                ch->path = xstrdup(path);
                ch->source = xstrdup(s->source);
                ch->runtime = true;
                if (f->proc_sys_readonly == HT_YES) {
                        ch->runtime = false;
                        ch->outcome = HT_OUTCOME_SKIPPED;
                        ht_plan_warn(plan, "%s: /proc/sys is read-only here (a container?): the runtime change is skipped; the drop-in still applies when the host boots",
                                     s->key);
                }
        }

        _cleanup_free_ char *old = NULL;
        size_t old_len = 0;
        int k = ht_read_optional(c, HT_SYSCTL_DROPIN, &old, &old_len);
        if (k < 0) {
                ht_plan_error(plan, "cannot read %s: %s", HT_SYSCTL_DROPIN, ht_strerror(-k));
                free(persist);
                return 0;
        }
        if (bad) {
                free(persist);
                return 0;
        }
        if (sysctl_conf_only(c)) {
                if (np > 0)
                        plan_sysctl_conf(c, persist, np, plan);
                free(persist);
                return 0;
        }
        if (np == 0) {
                if (old)
                        ht_plan_add_file(plan, HT_BK_SYSCTL, HT_SYSCTL_DROPIN, old, old_len, NULL, 0, 0644);
                free(persist);
                return 0;
        }
        _cleanup_free_ char *content = NULL, *err = NULL;
        if (ht_sysctl_render(plan->profile, persist, np, &content, &err) < 0) {
                ht_plan_error(plan, "cannot write %s: %s", HT_SYSCTL_DROPIN, err);
                free(persist);
                return 0;
        }
        free(persist);
        ht_plan_add_file(plan, HT_BK_SYSCTL, HT_SYSCTL_DROPIN, old, old_len, content, strlen(content), 0644);
        predict_boot(c, r, content, plan);
        return 0;
}

const ht_backend ht_backend_sysctl = {
        .id = HT_BK_SYSCTL,
        .name = "sysctl",
        .plan = sysctl_plan,
};
