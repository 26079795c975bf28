/* explain KEY [PROFILE]: why a setting has the value it has — the runtime
 * value, every file that sets it at boot in the order the consumer reads
 * them with the one that wins, hosttune's own value and its source line,
 * and what verify sees (issue 38). sysctl keys, pam_limits' limits of a
 * user (limits.USER.ITEM), a service's limits (unit.UNIT.DIRECTIVE),
 * sysfs attributes (/sys/...), kernel command-line parameters
 * (cmdline.KEY) and block device attributes (block.DEVICE.ATTR). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backend-common.h"
#include "backend.h"
#include "commands.h"
#include "edit-cmdline.h"
#include "edit-sysctl.h"
#include "fileio.h"
#include "facts.h"
#include "profile.h"
#include "render.h"
#include "tuners.h"
#include "util.h"
#include "verify.h"

typedef struct {
        ht_backend_id kind;        /* HT_BK_SYSCTL or HT_BK_LIMITS */
        char *user, *item;         /* limits; service: the unit and the directive */
        char *hosttune_value;      /* limits: "soft 3000; hard 4000" */
        char *key;                 /* dotted; limits: USER.ITEM */
        char *runtime_path;
        char *runtime;             /* NULL: not readable (or an image) */
        ht_boot_explained boot;
        char *profile;             /* the profile explained: given, or last applied */
        bool profile_applied;      /* it is the one the journal has in effect */
        const ht_setting *setting; /* its setting for key, in res */
        ht_resolved *res;
        const ht_check *check;     /* verify's, in vr */
        ht_verify_result vr;
        bool have_vr;
        ht_facts *facts;
        ht_tuner_settings tuners;  /* those that set key kept, the rest dropped */
        char **warnings;
        /* a service's limit no line sets (or only lines systemd refuses):
         * what systemd gives it, and from where (DefaultLimitX=, its
         * built-in default, the running service's own) */
        char *unit_default, *unit_default_from;
} explained;

static bool same_key(const char *a, const char *b) {
        _cleanup_free_ char *x = ht_sysctl_normalize(a), *y = ht_sysctl_normalize(b);
        return streq(x, y);
}

/* Whether unit (as a profile names it: "mysqld" is mysqld.service) is
 * one of the names of the unit explained. */
static bool is_name_of(const explained *e, const char *unit) {
        if (!unit)
                return false;
        _cleanup_free_ char *u = strchr(unit, '.') ? xstrdup(unit) : xasprintf("%s.service", unit);
        return strv_contains(e->boot.names, u);
}

static void explained_done(explained *e) {
        free(e->key);
        free(e->user);
        free(e->item);
        free(e->hosttune_value);
        free(e->runtime_path);
        free(e->runtime);
        ht_boot_explained_done(&e->boot);
        free(e->profile);
        ht_resolved_free(e->res);
        if (e->have_vr)
                ht_verify_result_done(&e->vr);
        ht_tuner_settings_done(&e->tuners);
        ht_facts_free(e->facts);
        strv_free(e->warnings);
        free(e->unit_default);
        free(e->unit_default_from);
}

static void add_hosttune(const ht_cmd_opts *o, explained *e, const char *profile) {
        _cleanup_free_ char *error = NULL;
        int r = ht_profile_resolve(o->ctx, e->facts, profile, NULL, &e->res, &error);
        if (r < 0) {
                strv_pushf(&e->warnings, "profile %s: %s", profile, error ? error : ht_strerror(-r));
                return;
        }
        e->profile = xstrdup(profile);
        strbuf v = {0};
        for (size_t i = 0; i < e->res->n_settings; i++) {
                const ht_setting *s = &e->res->settings[i];
                if (e->kind == HT_BK_SYSCTL && s->backend == HT_BK_SYSCTL && same_key(s->key, e->key))
                        e->setting = s;
                if (e->kind == HT_BK_SYSFS && s->backend == HT_BK_SYSFS && streq(s->key, e->key))
                        e->setting = s;
                if (e->kind == HT_BK_CMDLINE && s->backend == HT_BK_CMDLINE && ht_cmdline_key_eq(s->key, e->key))
                        e->setting = s;
                /* the last setting that reaches the device, as in hosttune's rules file */
                if (e->kind == HT_BK_BLOCK && s->backend == HT_BK_BLOCK &&
                    ht_block_key_reaches(o->ctx, s->key, e->user, e->item))
                        e->setting = s;
                if (e->kind == HT_BK_SERVICE && s->backend == HT_BK_SERVICE && streq_ptr(ht_setting_field(s, "directive"), e->item) &&
                    is_name_of(e, ht_setting_field(s, "unit")))
                        e->setting = s;
                if (e->kind == HT_BK_LIMITS && s->backend == HT_BK_LIMITS && streq_ptr(ht_setting_field(s, "domain"), e->user) &&
                    streq_ptr(ht_setting_field(s, "item"), e->item)) {
                        if (!e->setting)
                                e->setting = s;
                        strbuf_appendf(&v, "%s%s %s", v.len ? "; " : "", ht_setting_field(s, "type"), s->value);
                }
        }
        e->hosttune_value = v.len ? strbuf_steal(&v) : (strbuf_done(&v), NULL);
}

static json_object *jstr(const char *s) {
        return s ? json_object_new_string(s) : NULL;
}

static json_object *to_json(const explained *e) {
        json_object *j = json_object_new_object();
        json_object_object_add(j, "kind", json_object_new_string(ht_backend_id_to_string(e->kind)));
        json_object_object_add(j, "key", json_object_new_string(e->key));
        json_object *rt = NULL;
        /* cmdline: the booted line read, a null value when it has no such word */
        if (e->runtime || (e->kind == HT_BK_CMDLINE && e->runtime_path)) {
                rt = json_object_new_object();
                json_object_object_add(rt, "path", json_object_new_string(e->runtime_path));
                json_object_object_add(rt, "value", jstr(e->runtime));
        }
        json_object_object_add(j, "runtime", rt);

        json_object *boot = json_object_new_object(), *files = json_object_new_array(),
                    *masked = json_object_new_array(), *as = json_object_new_array(), *win = NULL;
        json_object_object_add(boot, "consumer", json_object_new_string(e->boot.consumer));
        for (size_t i = 0; e->boot.files && e->boot.files[i]; i++)
                json_object_array_add(files, json_object_new_string(e->boot.files[i]));
        for (size_t i = 0; e->boot.masked && e->boot.masked[i]; i++)
                json_object_array_add(masked, json_object_new_string(e->boot.masked[i]));
        for (size_t i = 0; i < e->boot.n; i++) {
                const ht_boot_assignment *a = &e->boot.a[i];
                json_object *x = json_object_new_object();
                json_object_object_add(x, "file", json_object_new_string(a->path));
                json_object_object_add(x, "line", json_object_new_int64(a->line));
                json_object_object_add(x, "key", json_object_new_string(a->key));
                json_object_object_add(x, "value", jstr(a->value));
                json_object_object_add(x, "glob", json_object_new_boolean(a->glob));
                json_object_object_add(x, "winner", json_object_new_boolean(a->winner));
                if (a->note)
                        json_object_object_add(x, "note", json_object_new_string(a->note));
                json_object_array_add(as, x);
                /* limits have two winners: see winners below */
                if (a->winner && !e->boot.limits) {
                        json_object_put(win);
                        win = json_object_get(x);
                }
        }
        json_object_object_add(boot, "files", files);
        json_object_object_add(boot, "masked", masked);
        if (e->boot.names) {
                json_object *nm = json_object_new_array();
                for (size_t i = 0; e->boot.names[i]; i++)
                        json_object_array_add(nm, json_object_new_string(e->boot.names[i]));
                json_object_object_add(boot, "names", nm);
        }
        json_object_object_add(boot, "assignments", as);
        if (e->boot.limits) {
                /* the soft and the hard limit have a winner each */
                json_object *ws = json_object_new_object();
                long idx[3] = {e->boot.soft_winner, e->boot.hard_winner, e->boot.no_limits};
                const char *names[3] = {"soft", "hard", "no_limits"};
                for (size_t k = 0; k < 3; k++)
                        json_object_object_add(ws, names[k], idx[k] < 0 ? NULL
                                               : json_object_get(json_object_array_get_idx(as, (size_t)idx[k])));
                json_object_object_add(boot, "winners", ws);
        }
        json_object_object_add(boot, "winner", win);
        if (e->unit_default) {
                json_object *d = json_object_new_object();
                json_object_object_add(d, "value", json_object_new_string(e->unit_default));
                json_object_object_add(d, "from", json_object_new_string(e->unit_default_from));
                json_object_object_add(boot, "default", d);
        }
        json_object_object_add(j, "boot", boot);

        json_object *ht = NULL;
        if (e->profile) {
                ht = json_object_new_object();
                json_object_object_add(ht, "profile", json_object_new_string(e->profile));
                json_object_object_add(ht, "applied", json_object_new_boolean(e->profile_applied));
                json_object_object_add(ht, "value", jstr(e->hosttune_value ? e->hosttune_value
                                                                    : e->setting ? e->setting->value : NULL));
                if (e->setting && e->setting->backend == HT_BK_CMDLINE)
                        json_object_object_add(ht, "remove", json_object_new_boolean(e->setting->remove));
                json_object_object_add(ht, "bound", jstr(e->setting ? ht_bound_to_string(e->setting->bound) : NULL));
                json_object_object_add(ht, "source", jstr(e->setting ? e->setting->source : NULL));
        }
        json_object_object_add(j, "hosttune", ht);
        json_object *v = NULL;
        if (e->check) {
                v = json_object_new_object();
                json_object_object_add(v, "status", json_object_new_string(ht_check_status_to_string(e->check->status)));
                json_object_object_add(v, "expected", jstr(e->check->expected));
                json_object_object_add(v, "actual", jstr(e->check->actual));
                json_object_object_add(v, "hint", jstr(e->check->hint));
        }
        json_object_object_add(j, "verify", v);
        json_object *tu = json_object_new_array();
        for (size_t i = 0; i < e->tuners.n; i++) {
                const ht_tuner_setting *t = &e->tuners.s[i];
                json_object *x = json_object_new_object();
                json_object_object_add(x, "tuner", json_object_new_string(t->tuner));
                json_object_object_add(x, "who", json_object_new_string(t->who));
                json_object_object_add(x, "value", jstr(t->value));
                json_object_object_add(x, "source", json_object_new_string(t->source));
                json_object_object_add(x, "when", json_object_new_string(t->when));
                json_object_object_add(x, "advice", json_object_new_string(t->advice));
                json_object_array_add(tu, x);
        }
        json_object_object_add(j, "tuners", tu);
        json_object *w = json_object_new_array();
        for (size_t i = 0; e->warnings && e->warnings[i]; i++)
                json_object_array_add(w, json_object_new_string(e->warnings[i]));
        for (size_t i = 0; e->boot.warnings && e->boot.warnings[i]; i++)
                json_object_array_add(w, json_object_new_string(e->boot.warnings[i]));
        json_object_object_add(j, "warnings", w);
        return j;
}

static void print_text(const explained *e) {
        strbuf out = {0};
        strbuf_appendf(&out, "%s %s\n", ht_backend_id_to_string(e->kind), e->key);
        if (e->kind == HT_BK_SYSCTL || e->kind == HT_BK_SYSFS || e->kind == HT_BK_BLOCK)
                strbuf_appendf(&out, "  now:       %s\n", e->runtime ? e->runtime : "(not readable here)");
        if (e->kind == HT_BK_CMDLINE)
                strbuf_appendf(&out, "  booted:    %s%s\n", e->runtime ? e->runtime : e->runtime_path ? "(no such word)"
                               : "(not readable here)", e->runtime_path ? " (/proc/cmdline)" : "");
        strbuf_appendf(&out, "  %s read by %s, in this order:\n",
                       e->boot.limits ? "at login: " : e->kind == HT_BK_SERVICE ? "at start: " : "at boot:  ",
                       e->boot.consumer);
        const ht_boot_assignment *win = NULL;
        for (size_t i = 0; i < e->boot.n; i++) {
                const ht_boot_assignment *a = &e->boot.a[i];
                if (e->boot.limits) {
                        long at = (long)i;
                        strbuf_appendf(&out, "    %s:%u  %s%s%s%s\n", a->path, a->line, a->key, a->value ? " " : "",
                                       a->value ? a->value : "",
                                       at == e->boot.no_limits ? "   <- wins: no limits at all"
                                       : at == e->boot.soft_winner && at == e->boot.hard_winner ? "   <- wins (soft, hard)"
                                       : at == e->boot.soft_winner ? "   <- wins (soft)"
                                       : at == e->boot.hard_winner ? "   <- wins (hard)" : "");
                        continue;
                }
                if (e->kind == HT_BK_CMDLINE || e->kind == HT_BK_BLOCK) {
                        /* where: the variable, line kind or rule; the word or value */
                        strbuf_appendf(&out, "    %s:%u  %s: %s%s%s%s%s\n", a->path, a->line, a->key,
                                       a->value ? a->value : "", a->winner ? "   <- wins" : "",
                                       a->note ? " (" : "", a->note ? a->note : "", a->note ? ")" : "");
                        if (a->winner)
                                win = a;
                        continue;
                }
                strbuf_appendf(&out, "    %s:%u  %s%s%s%s%s%s%s%s\n", a->path, a->line, a->value ? "" : "-", a->key,
                               a->value ? " = " : " (keeps globs off it)", a->value ? a->value : "",
                               a->winner ? "   <- wins" : "", a->note ? "   (" : "", a->note ? a->note : "",
                               a->note ? ")" : "");
                if (a->winner)
                        win = a;
        }
        if (!e->boot.n)
                strbuf_append(&out, e->boot.limits ? "    (no line sets it: the limit the session inherits stays)\n"
                                    : e->kind == HT_BK_CMDLINE ? "    (no word for it: the kernel's default stays)\n"
                                    : e->kind == HT_BK_BLOCK ? "    (no rule sets it: the kernel's default stays)\n"
                                    : e->kind == HT_BK_SERVICE ? "    (no file sets it: systemd's default for services)\n"
                                                   : "    (no file sets it: the kernel's default stays)\n");
        if (e->boot.n && !win && e->kind == HT_BK_CMDLINE)
                strbuf_append(&out, "    (none of them reaches the line the next boot takes: the kernel's default)\n");
        for (size_t i = 0; e->boot.masked && e->boot.masked[i]; i++)
                strbuf_appendf(&out, e->kind == HT_BK_SERVICE ? "    %s is hidden by a drop-in of that name read instead\n"
                                                              : "    %s is masked (a link to /dev/null)\n",
                               e->boot.masked[i]);
        if (e->kind == HT_BK_SERVICE)
                for (size_t i = 1; e->boot.names && e->boot.names[i]; i++)
                        strbuf_appendf(&out, "    also named %s: its drop-ins count\n", e->boot.names[i]);
        if (win)
                strbuf_appendf(&out, "  %s %s (%s:%u)\n", e->kind == HT_BK_SERVICE ? "in effect: " : "boot value:",
                               win->value, win->path, win->line);
        else if (e->unit_default)
                strbuf_appendf(&out, "  in effect:  %s (%s)\n", e->unit_default, e->unit_default_from);
        if (e->profile && e->setting && e->setting->backend == HT_BK_CMDLINE)
                strbuf_appendf(&out, "  hosttune:  %s%s%s%s from %s, profile %s%s\n", e->setting->remove ? "remove " : "",
                               e->setting->key, e->setting->value ? "=" : "", e->setting->value ? e->setting->value : "",
                               e->setting->source, e->profile, e->profile_applied ? " (applied)" : "");
        else if (e->profile && e->setting)
                strbuf_appendf(&out, "  hosttune:  %s (%s) from %s, profile %s%s\n",
                               e->hosttune_value ? e->hosttune_value : e->setting->value,
                               ht_bound_to_string(e->setting->bound), e->setting->source, e->profile,
                               e->profile_applied ? " (applied)" : "");
        else if (e->profile)
                strbuf_appendf(&out, "  hosttune:  profile %s does not set it\n", e->profile);
        else
                strbuf_append(&out, "  hosttune:  nothing applied (name a profile to compare)\n");
        for (size_t i = 0; i < e->tuners.n; i++) {
                _cleanup_free_ char *d = ht_tuner_setting_describe(&e->tuners.s[i]);
                strbuf_appendf(&out, "  tuner:     %s\n", d);
        }
        if (e->check)
                strbuf_appendf(&out, "  verify:    %s: expected %s, actual %s%s%s\n",
                               ht_check_status_to_string(e->check->status),
                               e->check->expected ? e->check->expected : "(none)",
                               e->check->actual ? e->check->actual : "(none)", e->check->hint ? " \u2014 " : "",
                               e->check->hint ? e->check->hint : "");
        _cleanup_free_ char *text = strbuf_steal(&out);
        /* values and paths are the host's */
        ht_text_sanitize(text, true);
        fputs(text, stdout);
}

/* /sys/...: a sysfs attribute and the tmpfiles.d lines that write it */
static int explain_sysfs(const ht_cmd_opts *o, const char *path, explained *e) {
        e->kind = HT_BK_SYSFS;
        e->key = xstrdup(path);
        int r = ht_sysfs_explain_boot(o->ctx, path, &e->boot);
        if (r == -EINVAL) {
                ht_record_error(true, "explain: not a plain path under /sys");
                ht_report_error("explain %s: not a plain path under /sys", path);
                return r;
        }
        if (r < 0) {
                ht_report_error("explain %s: %s", path, ht_strerror(-r));
                return r;
        }
        _cleanup_free_ char *raw = NULL;
        if (ht_root_is_live(o->ctx) && ht_read_line(o->ctx, path, &raw) >= 0) {
                /* "always [madvise] never": the bracketed word */
                e->runtime = ht_kernel_value_effective(raw);
                e->runtime_path = xstrdup(path);
        }
        return 0;
}

/* unit.UNIT.DIRECTIVE: a service's limit, from its unit file and drop-ins */
static int explain_unit(const ht_cmd_opts *o, const char *spec, explained *e) {
        const char *dot = strrchr(spec, '.');
        if (!dot || dot == spec || !dot[1]) {
                ht_record_error(true, "explain: unit settings are named unit.UNIT.DIRECTIVE");
                ht_report_error("explain: unit settings are named unit.UNIT.DIRECTIVE (unit.mysqld.service.LimitNOFILE), "
                                "not unit.%s", spec);
                return -EINVAL;
        }
        e->kind = HT_BK_SERVICE;
        e->user = xstrndup(spec, (size_t)(dot - spec));
        e->item = xstrdup(dot + 1);
        e->key = xasprintf("%s %s", e->user, e->item);
        int r = ht_unit_explain_boot(o->ctx, e->user, e->item, &e->boot);
        if (r == -ENOENT)
                ht_report_error("explain unit.%s: no unit %s on this host", spec, e->user);
        else if (r == -ESHUTDOWN)
                ht_report_error("explain unit.%s: %s is masked", spec, e->user);
        else if (r == -EINVAL)
                ht_report_error("explain unit.%s: not a unit name and a directive hosttune manages (Limit*=, TasksMax=)",
                                spec);
        else if (r < 0)
                ht_report_error("explain unit.%s: %s", spec, ht_strerror(-r));
        if (r >= 0 && e->boot.names && e->boot.names[0]) {
                /* named by the unit's real name */
                free(e->key);
                e->key = xasprintf("%s %s", e->boot.names[0], e->item);
        }
        bool won = false;
        for (size_t i = 0; r >= 0 && i < e->boot.n; i++)
                won = won || e->boot.a[i].winner;
        /* no line: not the kernel's default but what systemd gives every
         * service (a limit it does not know stays unexplained) */
        if (r >= 0 && !won)
                (void)ht_unit_effective_limit(o->ctx, e->facts, e->user, e->item, &e->unit_default,
                                              &e->unit_default_from);
        return r;
}

/* limits.USER.ITEM: pam_limits' limit ITEM for USER's login sessions */
static int explain_limits(const ht_cmd_opts *o, const char *spec, explained *e) {
        const char *dot = strrchr(spec, '.');
        if (!dot || dot == spec || !dot[1]) {
                ht_record_error(true, "explain: limits are named limits.USER.ITEM");
                ht_report_error("explain: limits are named limits.USER.ITEM (limits.oracle.memlock), not limits.%s", spec);
                return -EINVAL;
        }
        e->kind = HT_BK_LIMITS;
        e->user = xstrndup(spec, (size_t)(dot - spec));
        e->item = xstrdup(dot + 1);
        e->key = xasprintf("%s.%s", e->user, e->item);
        int r = ht_limits_explain_boot(o->ctx, e->facts, e->user, e->item, &e->boot);
        if (r == -ENOENT)
                ht_report_error("explain limits.%s: user %s does not exist on this host", spec, e->user);
        else if (r == -EINVAL)
                ht_report_error("explain limits.%s: pam_limits knows no item %s", spec, e->item);
        else if (r < 0)
                ht_report_error("explain limits.%s: %s", spec, ht_strerror(-r));
        return r;
}

static int explain_sysctl(const ht_cmd_opts *o, const char *key, explained *e) {
        _cleanup_free_ char *err = NULL;
        if (ht_sysctl_key_check(key, &err) < 0) {
                ht_record_error(true, err);
                ht_report_error("explain: %s (explain knows sysctl keys, as vm.swappiness or sysctl.vm.swappiness, "
                                "limits.USER.ITEM, unit.UNIT.DIRECTIVE, /sys/PATH, cmdline.KEY and block.DEVICE.ATTR)", err);
                return -EINVAL;
        }
        e->kind = HT_BK_SYSCTL;
        e->key = ht_sysctl_dotted(key);
        int r = ht_sysctl_explain_boot(o->ctx, key, &e->boot);
        if (r < 0) {
                ht_report_error("explain %s: %s", key, ht_strerror(-r));
                return r;
        }
        if (ht_sysctl_proc_path(key, &e->runtime_path, &err) == 0 && ht_root_is_live(o->ctx))
                (void)ht_read_line(o->ctx, e->runtime_path, &e->runtime);
        return 0;
}

/* cmdline.KEY: a kernel command-line parameter, booted and next boot */
static int explain_cmdline(const ht_cmd_opts *o, const char *key, explained *e) {
        e->kind = HT_BK_CMDLINE;
        e->key = xstrdup(key);
        int r = ht_cmdline_explain_boot(o->ctx, e->facts, key, &e->boot);
        if (r == -EINVAL) {
                ht_record_error(true, "explain: not a kernel parameter name");
                ht_report_error("explain cmdline.%s: not a kernel parameter name ([A-Za-z0-9_.-], no '=')", key);
                return r;
        }
        if (r < 0) {
                ht_report_error("explain cmdline.%s: %s", key, ht_strerror(-r));
                return r;
        }
        /* the booted line: the last word for the key is the one the kernel took */
        if (ht_root_is_live(o->ctx) && e->facts->kernel_cmdline) {
                _cleanup_strv_free_ char **w = ht_cmdline_split(e->facts->kernel_cmdline);
                e->runtime_path = xstrdup("/proc/cmdline");
                for (size_t i = 0; w && w[i]; i++)
                        if (ht_cmdline_word_matches(w[i], key, NULL)) {
                                free(e->runtime);
                                e->runtime = xstrdup(w[i]);
                        }
        }
        return 0;
}

/* block.DEVICE.ATTR: a queue attribute of one disk, and the udev rules
 * that write it when the disk appears */
static int explain_block(const ht_cmd_opts *o, const char *spec, explained *e) {
        const char *dot = strchr(spec, '.');
        if (!dot || dot == spec || !dot[1]) {
                ht_record_error(true, "explain: block attributes are named block.DEVICE.ATTR");
                ht_report_error("explain: block attributes are named block.DEVICE.ATTR (block.sda.scheduler), "
                                "not block.%s", spec);
                return -EINVAL;
        }
        e->kind = HT_BK_BLOCK;
        e->user = xstrndup(spec, (size_t)(dot - spec));
        /* scheduler, queue.scheduler or queue/scheduler */
        const char *a = dot + 1;
        e->item = startswith(a, "queue/") ? xstrdup(a) : xasprintf("queue/%s", startswith(a, "queue.") ? a + 6 : a);
        e->key = xasprintf("%s %s", e->user, e->item);
        int r = ht_block_explain_boot(o->ctx, e->user, e->item, &e->boot);
        if (r == -EINVAL) {
                ht_record_error(true, "explain: not a disk name and an attribute hosttune manages");
                ht_report_error("explain block.%s: not a disk name and an attribute hosttune manages "
                                "(scheduler, nr_requests, read_ahead_kb, rq_affinity)", spec);
                return r;
        }
        if (r < 0) {
                ht_report_error("explain block.%s: %s", spec, ht_strerror(-r));
                return r;
        }
        _cleanup_free_ char *path = xasprintf("/sys/block/%s/%s", e->user, e->item), *raw = NULL;
        if (ht_root_is_live(o->ctx) && ht_read_line(o->ctx, path, &raw) >= 0) {
                /* "mq-deadline [none]": the bracketed word */
                e->runtime = ht_kernel_value_effective(raw);
                e->runtime_path = TAKE_PTR(path);
        }
        return 0;
}

/* verify's check for the key explained */
static bool is_check_for(const ht_context *ctx, const explained *e, const ht_check *c) {
        if (e->kind == HT_BK_BLOCK)
                return streq(c->backend, "block") && ht_block_key_reaches(ctx, c->key, e->user, e->item);
        if (e->kind == HT_BK_SYSCTL)
                return streq(c->backend, "sysctl") && same_key(c->key, e->key);
        if (e->kind == HT_BK_SYSFS)
                return streq(c->backend, "sysfs") && streq(c->key, e->key);
        if (e->kind == HT_BK_CMDLINE) {
                _cleanup_free_ char *k = ht_cmdline_word_key(c->key);
                return streq(c->backend, "cmdline") && ht_cmdline_key_eq(k, e->key);
        }
        if (e->kind == HT_BK_SERVICE) {
                /* "UNIT DIRECTIVE", under any of the unit's names */
                const char *sp = strchr(c->key, ' ');
                if (!streq(c->backend, "service") || !sp || !streq(sp + 1, e->item))
                        return false;
                _cleanup_free_ char *u = xstrndup(c->key, (size_t)(sp - c->key));
                return is_name_of(e, u);
        }
        /* limits checks are "USER TYPE ITEM" */
        size_t ul = strlen(e->user);
        return streq(c->backend, "limits") && strncmp(c->key, e->user, ul) == 0 && c->key[ul] == ' ' &&
               endswith(c->key, e->item) && c->key[strlen(c->key) - strlen(e->item) - 1] == ' ';
}

typedef struct {
        const ht_context *ctx;
        const explained *e;
} tuner_filter;

/* A tuner's setting of the key explained: tuned's [disk] elevator and
 * readahead are block settings with udev matches, its [bootloader]
 * cmdline words cmdline ones. */
static bool tuner_sets_key(const ht_tuner_setting *t, const void *userdata) {
        const tuner_filter *tf = userdata;
        const explained *e = tf->e;
        if (t->backend != e->kind)
                return false;
        if (e->kind == HT_BK_BLOCK)
                return ht_block_key_reaches(tf->ctx, t->key, e->user, e->item);
        if (e->kind == HT_BK_CMDLINE)
                return ht_cmdline_key_eq(t->key, e->key);
        return ht_tuner_setting_matches(t, e->kind, e->key);
}

int ht_cmd_explain(const ht_cmd_opts *o) {
        const char *key = o->args[0];
        explained e = {0};
        /* facts: the bootloader for cmdline, the tuners, the profile's
         * expressions */
        int r = ht_facts_collect(o->ctx, HT_FACTS_HOST, &e.facts);
        if (r < 0) {
                ht_report_error("cannot collect facts: %s", ht_strerror(-r));
                explained_done(&e);
                return HT_EXIT_ERROR;
        }
        if (startswith(key, "cmdline."))
                r = explain_cmdline(o, key + strlen("cmdline."), &e);
        else if (startswith(key, "block."))
                r = explain_block(o, key + strlen("block."), &e);
        else if (startswith(key, "limits."))
                r = explain_limits(o, key + strlen("limits."), &e);
        else if (startswith(key, "unit."))
                r = explain_unit(o, key + strlen("unit."), &e);
        else if (startswith(key, "/sys/"))
                r = explain_sysfs(o, key, &e);
        else
                /* "sysctl.vm.swappiness" as --set names it, or the bare key */
                r = explain_sysctl(o, startswith(key, "sysctl.") ? key + strlen("sysctl.") : key, &e);
        if (r < 0) {
                explained_done(&e);
                return HT_EXIT_ERROR;
        }

        ht_tuner_settings_collect(o->ctx, e.facts, &e.tuners);
        /* limits and services: no tuner of the table sets them */
        if (e.kind == HT_BK_LIMITS || e.kind == HT_BK_SERVICE)
                ht_tuner_settings_keep(&e.tuners, e.kind, NULL);
        else
                ht_tuner_settings_keep_if(&e.tuners, tuner_sets_key, &(tuner_filter){.ctx = o->ctx, .e = &e});
        for (size_t i = 0; e.tuners.warnings && e.tuners.warnings[i]; i++)
                strv_push(&e.warnings, e.tuners.warnings[i]);

        _cleanup_free_ char *verr = NULL;
        e.have_vr = ht_verify(o->ctx, NULL, &e.vr, &verr) >= 0;
        if (e.have_vr)
                for (size_t i = 0; i < e.vr.n_checks; i++)
                        if (is_check_for(o->ctx, &e, &e.vr.checks[i]))
                                e.check = &e.vr.checks[i];
        const char *profile = o->args[1] ? o->args[1] : e.have_vr && e.vr.applied ? e.vr.profile : NULL;
        if (profile) {
                e.profile_applied = e.have_vr && e.vr.applied && e.vr.profile && streq(profile, e.vr.profile);
                add_hosttune(o, &e, profile);
        }

        if (o->ctx->json) {
                json_object *j = to_json(&e);
                ht_print_json(stdout, j);
                json_object_put(j);
        } else {
                print_text(&e);
                ht_report_warnings(o->ctx, e.warnings);
                ht_report_warnings(o->ctx, e.boot.warnings);
        }
        explained_done(&e);
        return HT_EXIT_OK;
}
