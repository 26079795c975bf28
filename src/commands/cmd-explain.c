/* explain KEY [PROFILE]: why a setting has the value it has — the runtime
 * value, every file that sets it at boot in the order the consumer reads
 * them with the one that wins, hosttune's own value and its source line,
 * and what verify sees (issue 38). sysctl keys so far. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backend-common.h"
#include "commands.h"
#include "edit-sysctl.h"
#include "facts.h"
#include "profile.h"
#include "render.h"
#include "tuners.h"
#include "util.h"
#include "verify.h"

typedef struct {
        char *key;                 /* dotted */
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
} explained;

static bool same_key(const char *a, const char *b) {
        _cleanup_free_ char *x = ht_sysctl_normalize(a), *y = ht_sysctl_normalize(b);
        return streq(x, y);
}

static void explained_done(explained *e) {
        free(e->key);
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
}

static void add_hosttune(const ht_cmd_opts *o, explained *e, const char *profile) {
        _cleanup_free_ char *error = NULL;
        int r = ht_profile_resolve(o->ctx, e->facts, profile, NULL, &e->res, &error);
        if (r < 0) {
                strv_pushf(&e->warnings, "profile %s: %s", profile, error ? error : ht_strerror(-r));
                return;
        }
        e->profile = xstrdup(profile);
        for (size_t i = 0; i < e->res->n_settings; i++)
                if (e->res->settings[i].backend == HT_BK_SYSCTL && same_key(e->res->settings[i].key, e->key))
                        e->setting = &e->res->settings[i];
}

static json_object *jstr(const char *s) {
        return s ? json_object_new_string(s) : NULL;
}

static json_object *to_json(const explained *e) {
        json_object *j = json_object_new_object();
        json_object_object_add(j, "kind", json_object_new_string("sysctl"));
        json_object_object_add(j, "key", json_object_new_string(e->key));
        json_object *rt = NULL;
        if (e->runtime) {
                rt = json_object_new_object();
                json_object_object_add(rt, "path", json_object_new_string(e->runtime_path));
                json_object_object_add(rt, "value", json_object_new_string(e->runtime));
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
                json_object_array_add(as, x);
                if (a->winner)
                        win = json_object_get(x);
        }
        json_object_object_add(boot, "files", files);
        json_object_object_add(boot, "masked", masked);
        json_object_object_add(boot, "assignments", as);
        json_object_object_add(boot, "winner", win);
        json_object_object_add(j, "boot", boot);

        json_object *ht = NULL;
        if (e->profile) {
                ht = json_object_new_object();
                json_object_object_add(ht, "profile", json_object_new_string(e->profile));
                json_object_object_add(ht, "applied", json_object_new_boolean(e->profile_applied));
                json_object_object_add(ht, "value", jstr(e->setting ? e->setting->value : NULL));
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
        strbuf_appendf(&out, "sysctl %s\n", e->key);
        strbuf_appendf(&out, "  now:       %s\n", e->runtime ? e->runtime : "(not readable here)");
        strbuf_appendf(&out, "  at boot:   read by %s, in this order:\n", e->boot.consumer);
        const ht_boot_assignment *win = NULL;
        for (size_t i = 0; i < e->boot.n; i++) {
                const ht_boot_assignment *a = &e->boot.a[i];
                strbuf_appendf(&out, "    %s:%u  %s%s%s%s%s\n", a->path, a->line, a->value ? "" : "-", a->key,
                               a->value ? " = " : " (keeps globs off it)", a->value ? a->value : "",
                               a->winner ? "   <- wins" : "");
                if (a->winner)
                        win = a;
        }
        if (!e->boot.n)
                strbuf_append(&out, "    (no file sets it: the kernel's default stays)\n");
        for (size_t i = 0; e->boot.masked && e->boot.masked[i]; i++)
                strbuf_appendf(&out, "    %s is masked (a link to /dev/null)\n", e->boot.masked[i]);
        if (win)
                strbuf_appendf(&out, "  boot value: %s (%s:%u)\n", win->value, win->path, win->line);
        if (e->profile && e->setting)
                strbuf_appendf(&out, "  hosttune:  %s (%s) from %s, profile %s%s\n", e->setting->value,
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

int ht_cmd_explain(const ht_cmd_opts *o) {
        const char *key = o->args[0];
        /* "sysctl.vm.swappiness" as --set names it, or the bare key */
        if (startswith(key, "sysctl."))
                key += strlen("sysctl.");
        _cleanup_free_ char *err = NULL;
        if (ht_sysctl_key_check(key, &err) < 0) {
                ht_record_error(true, err);
                ht_report_error("explain: %s (explain knows sysctl keys: vm.swappiness or sysctl.vm.swappiness)", err);
                return HT_EXIT_ERROR;
        }
        explained e = {.key = ht_sysctl_dotted(key)};
        int r = ht_sysctl_explain_boot(o->ctx, key, &e.boot);
        if (r < 0) {
                ht_report_error("explain %s: %s", key, ht_strerror(-r));
                explained_done(&e);
                return HT_EXIT_ERROR;
        }
        if (ht_sysctl_proc_path(key, &e.runtime_path, &err) == 0 && ht_root_is_live(o->ctx))
                (void)ht_read_line(o->ctx, e.runtime_path, &e.runtime);

        /* facts: the tuners (and the profile's expressions) need them */
        r = ht_facts_collect(o->ctx, HT_FACTS_HOST, &e.facts);
        if (r < 0) {
                ht_report_error("cannot collect facts: %s", ht_strerror(-r));
                explained_done(&e);
                return HT_EXIT_ERROR;
        }
        ht_tuner_settings_collect(o->ctx, e.facts, &e.tuners);
        ht_tuner_settings_keep(&e.tuners, HT_BK_SYSCTL, key);
        for (size_t i = 0; e.tuners.warnings && e.tuners.warnings[i]; i++)
                strv_push(&e.warnings, e.tuners.warnings[i]);

        _cleanup_free_ char *verr = NULL;
        e.have_vr = ht_verify(o->ctx, NULL, &e.vr, &verr) >= 0;
        if (e.have_vr)
                for (size_t i = 0; i < e.vr.n_checks; i++)
                        if (streq(e.vr.checks[i].backend, "sysctl") && same_key(e.vr.checks[i].key, key))
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
