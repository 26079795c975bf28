/* The settings of the other tuners (tuners.h). */
#include "config.h"

#include <string.h>
#include <sys/stat.h>

#include "edit-sysctl.h"
#include "tuned.h"
#include "tuners.h"
#include "util.h"

/* kubelet: pkg/kubelet/cm/container_manager_linux.go setupKernelTunables()
 * writes these at its start unless --protect-kernel-defaults (then it only
 * refuses to start); values from k8s.io/component-helpers/node/util/sysctl
 * (VMOvercommitMemoryAlways, VMPanicOnOOMInvokeOOMKiller,
 * KernelPanicRebootTimeout, KernelPanicOnOopsAlways, RootMaxKeysSetting,
 * RootMaxBytesSetting). */
static const char *const kubelet_sysctls[][2] = {
        {"vm.overcommit_memory", "1"},
        {"vm.panic_on_oom", "0"},
        {"kernel.panic", "10"},
        {"kernel.panic_on_oops", "1"},
        {"kernel.keys.root_maxkeys", "1000000"},
        {"kernel.keys.root_maxbytes", "25000000"},
};

/* dockerd: libnetwork's bridge driver (setup_ip_forwarding.go) writes 1 to
 * net.ipv4.ip_forward at its start unless --ip-forward=false. */
static const char *const dockerd_sysctls[][2] = {
        {"net.ipv4.ip_forward", "1"},
};

/* bpftune: the sysctls its tuners own, from the bpftunable_desc tables of
 * oracle/bpftune src/tcp_buffer_tuner.c, net_buffer_tuner.c,
 * ip_frag_tuner.c, route_table_tuner.c and tcp_cong_tuner.c; it writes
 * them while it runs, as the load it watches demands. */
static const char *const bpftune_sysctls[] = {
        "net.ipv4.tcp_wmem", "net.ipv4.tcp_rmem", "net.ipv4.tcp_mem", "net.ipv4.tcp_max_orphans",
        "net.core.netdev_max_backlog", "net.core.flow_limit_cpu_bitmap", "net.ipv4.ipfrag_high_thresh",
        "net.ipv6.ip6frag_high_thresh", "net.ipv6.route.max_size", "net.ipv4.tcp_allowed_congestion_control",
};

static char *who(const ht_tuner *t) {
        strbuf b = {0};
        strbuf_appendf(&b, "%s (", t->name);
        if (t->running)
                strbuf_appendf(&b, "running, pid %u", t->pid);
        if (t->enabled_by)
                strbuf_appendf(&b, "%senabled: %s", t->running ? "; " : "", t->enabled_by);
        if (t->profile)
                strbuf_appendf(&b, "; profile %s", t->profile);
        strbuf_append(&b, ")");
        return strbuf_steal(&b);
}

static void add(ht_tuner_settings *ts, const ht_tuner *t, ht_backend_id b, const char *key, const char *value,
                const char *source, const char *when, const char *advice) {
        ts->s = xrealloc(ts->s, (ts->n + 1) * sizeof(*ts->s));
        ts->s[ts->n++] = (ht_tuner_setting){
                .tuner = xstrdup(t->name), .who = who(t), .backend = b, .key = xstrdup(key),
                .value = value ? xstrdup(value) : NULL, .source = xstrdup(source), .when = xstrdup(when),
                .advice = xstrdup(advice),
        };
}

static void add_tuned(const ht_context *c, const ht_facts *f, const ht_tuner *t, ht_tuner_settings *ts) {
        if (!t->profile) {
                strv_pushf(&ts->warnings, "tuned is %s but /etc/tuned/active_profile names no profile: "
                           "what it sets is not known", t->running ? "running" : "enabled");
                return;
        }
        _cleanup_free_ char *name = xasprintf("%s%s", HT_TUNED_PREFIX, t->profile);
        _cleanup_free_ char *err = NULL;
        _cleanup_(ht_resolved_freep) ht_resolved *r = NULL;
        if (ht_profile_resolve(c, f, name, NULL, &r, &err) < 0) {
                strv_pushf(&ts->warnings, "tuned's profile %s cannot be read, so what it sets is not checked: %s",
                           t->profile, err ? err : "unknown error");
                return;
        }
        _cleanup_free_ char *advice = xasprintf(
                "keep one tuner: switch tuned off (systemctl disable --now %s), or import its profile "
                "(hosttune import tuned %s) and apply that with hosttune's values", t->unit, t->profile);
        for (size_t i = 0; i < r->n_settings; i++) {
                const ht_setting *s = &r->settings[i];
                /* hosttune's own rules ride along in a resolved profile:
                 * only what tuned's files set is tuned's */
                if (!s->source || startswith(s->source, "rule ") || startswith(s->source, "<built-in>"))
                        continue;
                add(ts, t, s->backend, s->key, s->value, s->source,
                    "at tuned's start (after systemd-sysctl at boot) and on every tuned-adm profile", advice);
        }
}

static void add_unit_setting(ht_tuner_settings *ts, const char *unit, const char *link, ht_backend_id backend,
                             const char *key, const char *value, const char *source, const char *directive,
                             const char *what) {
        ts->s = xrealloc(ts->s, (ts->n + 1) * sizeof(*ts->s));
        ts->s[ts->n++] = (ht_tuner_setting){
                .tuner = xstrdup("unit"), .who = xasprintf("%s (enabled: %s)", unit, link), .backend = backend,
                .key = xstrdup(key), .value = xstrdup(value), .source = xstrdup(source),
                .when = xasprintf("at %s's start (%s=)", unit, directive),
                .advice = xasprintf("remove the %s from %s, or give the profile the same value", what, unit),
        };
}

static bool is_operator(const char *w) {
        return streq(w, ";") || streq(w, "&&") || streq(w, "||") || streq(w, "|") || w[0] == '>';
}

/* "echo VALUE > /proc/sys/PATH" or "> /sys/PATH" (">>", ">PATH" and
 * "| tee [-a] PATH" too) in an Exec line's words, as a unit's shell
 * writes THP's mode or a sysctl before a database starts: the sysctl
 * key or the sysfs path, with the echoed words as the value. */
static void scan_writes(char *const *words, const char *unit, const char *link, const char *shown, size_t line,
                        const char *directive, ht_tuner_settings *ts) {
        for (size_t w = 0; words && words[w]; w++) {
                const char *base = strrchr(words[w], '/') ? strrchr(words[w], '/') + 1 : words[w];
                if (!streq(base, "echo"))
                        continue;
                strbuf v = {0};
                size_t k = w + 1;
                for (; words[k] && !is_operator(words[k]); k++) {
                        if (k == w + 1 && words[k][0] == '-')
                                continue; /* echo -n */
                        strbuf_appendf(&v, "%s%s", v.len ? " " : "", words[k]);
                }
                const char *path = NULL;
                if (words[k] && words[k][0] == '>')
                        path = words[k][strspn(words[k], ">")] ? words[k] + strspn(words[k], ">") : words[k + 1];
                else if (words[k] && streq(words[k], "|") && words[k + 1] && endswith(words[k + 1], "tee")) {
                        size_t t = k + 2;
                        while (words[t] && words[t][0] == '-')
                                t++;
                        path = words[t];
                }
                _cleanup_free_ char *value = v.len ? strbuf_steal(&v) : (strbuf_done(&v), NULL);
                /* "...swappiness;" ends the shell command */
                _cleanup_free_ char *p = path ? xstrndup(path, strcspn(path, ";&|")) : NULL;
                path = p;
                if (!path || !value || ht_path_check(path) < 0)
                        continue;
                _cleanup_free_ char *source = xasprintf("%s:%zu", shown, line);
                if (startswith(path, "/proc/sys/") && path[10]) {
                        _cleanup_free_ char *key = xstrdup(path + 10), *err = NULL;
                        for (char *q = key; *q; q++)
                                if (*q == '/')
                                        *q = '.';
                        if (ht_sysctl_key_check(key, &err) == 0)
                                add_unit_setting(ts, unit, link, HT_BK_SYSCTL, key, value, source, directive, "write");
                } else if (startswith(path, "/sys/"))
                        add_unit_setting(ts, unit, link, HT_BK_SYSFS, path, value, source, directive, "write");
        }
}

/* The next line of the text at *p, stripped, in *buf (freed on the next
 * call); NULL at its end. Line numbers count blank lines too. */
static char *next_line(const char **p, char **buf) {
        if (!**p)
                return NULL;
        const char *nl = strchr(*p, '\n');
        size_t len = nl ? (size_t)(nl - *p) : strlen(*p);
        free(*buf);
        *buf = xstrndup(*p, len);
        *p = nl ? nl + 1 : *p + len;
        return strstrip(*buf);
}

/* A unit's own sysctl calls: "sysctl [-w|-q] KEY=VALUE..." in its
 * ExecStartPre=, ExecStart= or ExecStartPost= lines (also inside a
 * "sh -c '...'"), and its echo writes into /proc/sys and /sys
 * (scan_writes), done each time the unit starts. Only those forms are
 * read: a script the unit runs is not followed. */
static void scan_unit(const ht_context *c, const char *unit, const char *link, ht_tuner_settings *ts) {
        _cleanup_free_ char *target = NULL, *text = NULL;
        /* the wants link names the unit file (absolute, as systemctl
         * enable makes it); a plain file there is the unit itself */
        const char *file = link;
        if (ht_readlink(c, link, &target) == 0) {
                if (target[0] != '/' || streq(target, "/dev/null"))
                        return;
                file = target;
        }
        if (ht_read_file(c, file, 1u << 20, &text, NULL) < 0)
                return;
        _cleanup_free_ char *shown = ht_display_path(c, file);
        bool service = false;
        size_t i = 0;
        /* line by line, blank ones counted: the numbers are the file's */
        _cleanup_free_ char *buf = NULL;
        const char *p = text;
        for (char *l; (l = next_line(&p, &buf)); i++) {
                if (*l == '[') {
                        service = streq(l, "[Service]");
                        continue;
                }
                const char *directive = startswith(l, "ExecStartPre=") ? "ExecStartPre"
                                        : startswith(l, "ExecStartPost=") ? "ExecStartPost"
                                        : startswith(l, "ExecStart=") ? "ExecStart" : NULL;
                if (!service || !directive)
                        continue;
                _cleanup_strv_free_ char **words = strv_split(strchr(l, '=') + 1, " \t'\"");
                bool in_sysctl = false;
                for (size_t w = 0; words && words[w]; w++) {
                        const char *t = words[w];
                        /* "-" and "@" prefixes of Exec lines */
                        while (*t == '-' && t[1] == '/')
                                t++;
                        const char *base = strrchr(t, '/') ? strrchr(t, '/') + 1 : t;
                        if (streq(base, "sysctl")) {
                                in_sysctl = true;
                                continue;
                        }
                        if (!in_sysctl)
                                continue;
                        if (streq(t, ";") || streq(t, "&&") || streq(t, "||") || streq(t, "|")) {
                                in_sysctl = false;
                                continue;
                        }
                        const char *eq = strchr(t, '=');
                        if (t[0] == '-' || !eq || eq == t)
                                continue;
                        _cleanup_free_ char *key = xstrndup(t, (size_t)(eq - t)), *err = NULL;
                        if (ht_sysctl_key_check(key, &err) < 0)
                                continue;
                        _cleanup_free_ char *source = xasprintf("%s:%zu", shown, i + 1);
                        add_unit_setting(ts, unit, link, HT_BK_SYSCTL, key, eq + 1, source, directive, "sysctl call");
                }
                scan_writes(words, unit, link, shown, i + 1, directive, ts);
        }
}

/* The units enabled under /etc/systemd/system/TARGET.wants/ */
static void collect_units(const ht_context *c, ht_tuner_settings *ts) {
        _cleanup_strv_free_ char **dirs = NULL;
        if (ht_list_dir(c, "/etc/systemd/system", ".wants", &dirs) < 0)
                return;
        for (size_t d = 0; dirs && dirs[d]; d++) {
                _cleanup_free_ char *dir = xasprintf("/etc/systemd/system/%s", dirs[d]);
                _cleanup_strv_free_ char **units = NULL;
                if (ht_list_dir(c, dir, ".service", &units) < 0)
                        continue;
                for (size_t u = 0; units && units[u]; u++) {
                        _cleanup_free_ char *link = xasprintf("%s/%s", dir, units[u]);
                        scan_unit(c, units[u], link, ts);
                }
        }
}

/* ---- saptune (SUSE) ---- */

/* saptune 3 applies its notes itself at saptune.service's start (it
 * stopped using tuned in 3.0.0, saptune.changes 2021-09-13), in the
 * order /etc/sysconfig/saptune's NOTE_APPLY_ORDER names them
 * (SUSE/saptune app/app.go NoteApplyOrderKey). A note's settings are in
 * /usr/share/saptune/notes/NOTE, or /etc/saptune/extra/NOTE.conf for a
 * customer's note, and /etc/saptune/override/NOTE replaces its values,
 * an empty value leaving the key alone (saptune-note(5)). Only the
 * [sysctl] section's "KEY = VALUE" lines are taken: its "<" and ">"
 * bounds and the computed sections are not claimed. */
#define SAPTUNE_CONFIG "/etc/sysconfig/saptune"

typedef struct {
        char **keys, **values, **sources;  /* parallel, NULL-terminated; value "" = left alone */
} saptune_map;

static void saptune_set(saptune_map *m, const char *key, const char *value, const char *source) {
        for (size_t i = 0; m->keys && m->keys[i]; i++)
                if (streq(m->keys[i], key)) {
                        free(m->values[i]);
                        free(m->sources[i]);
                        m->values[i] = xstrdup(value);
                        m->sources[i] = xstrdup(source);
                        return;
                }
        strv_push(&m->keys, key);
        strv_push(&m->values, value);
        strv_push(&m->sources, source);
}

/* The [sysctl] lines of a note or override file into m. */
static bool saptune_read_note(const ht_context *c, const char *path, saptune_map *m) {
        _cleanup_free_ char *text = NULL;
        if (ht_read_file(c, path, 1u << 20, &text, NULL) < 0)
                return false;
        _cleanup_free_ char *shown = ht_display_path(c, path);
        bool in_sysctl = false;
        size_t n = 0;
        _cleanup_free_ char *buf = NULL;
        const char *p = text;
        for (char *l; (l = next_line(&p, &buf)); n++) {
                if (*l == '[') {
                        in_sysctl = streq(l, "[sysctl]");
                        continue;
                }
                char *eq = strchr(l, '=');
                if (!in_sysctl || *l == '#' || !eq || strpbrk(l, "<>"))
                        continue;
                *eq = 0;
                const char *key = strstrip(l), *value = strstrip(eq + 1);
                _cleanup_free_ char *err = NULL;
                if (ht_sysctl_key_check(key, &err) < 0)
                        continue;
                _cleanup_free_ char *source = xasprintf("%s:%zu", shown, n + 1);
                saptune_set(m, key, value, source);
        }
        return true;
}

static void add_saptune(const ht_context *c, const ht_tuner *t, ht_tuner_settings *ts) {
        _cleanup_free_ char *conf = NULL;
        if (ht_read_file(c, SAPTUNE_CONFIG, 1u << 20, &conf, NULL) < 0) {
                strv_pushf(&ts->warnings, "saptune is %s but %s cannot be read: what it sets is not known",
                           t->running ? "running" : "enabled", SAPTUNE_CONFIG);
                return;
        }
        _cleanup_free_ char *order = NULL;
        for (const char *p = conf; p && *p;) {
                const char *nl = strchr(p, '\n');
                _cleanup_free_ char *line = xstrndup(p, nl ? (size_t)(nl - p) : strlen(p));
                p = nl ? nl + 1 : NULL;
                const char *v = strstrip(line);
                if (startswith(v, "NOTE_APPLY_ORDER=")) {
                        v += strlen("NOTE_APPLY_ORDER=");
                        free(order);
                        order = xstrndup(v + (*v == '"'), strcspn(v + (*v == '"'), "\""));
                }
        }
        _cleanup_strv_free_ char **notes = order ? strv_split(order, " \t") : NULL;
        saptune_map m = {0};
        for (size_t i = 0; notes && notes[i]; i++) {
                /* note names are file names: nothing with a slash */
                if (strchr(notes[i], '/') || notes[i][0] == '.')
                        continue;
                _cleanup_free_ char *extra = xasprintf("/etc/saptune/extra/%s.conf", notes[i]),
                                   *shipped = xasprintf("/usr/share/saptune/notes/%s", notes[i]),
                                   *over = xasprintf("/etc/saptune/override/%s", notes[i]);
                if (!saptune_read_note(c, extra, &m) && !saptune_read_note(c, shipped, &m))
                        strv_pushf(&ts->warnings, "saptune applies note %s, but neither %s nor %s can be read: "
                                   "what it sets is not known", notes[i], shipped, extra);
                saptune_read_note(c, over, &m);
        }
        for (size_t i = 0; m.keys && m.keys[i]; i++)
                if (*m.values[i])
                        add(ts, t, HT_BK_SYSCTL, m.keys[i], m.values[i], m.sources[i],
                            "at saptune.service's start (saptune service apply, at boot)",
                            "keep one tuner: revert the note (saptune note revert NOTE) or disable saptune.service, "
                            "or give the profile saptune's value (or the same in /etc/saptune/override/NOTE)");
        strv_free(m.keys);
        strv_free(m.values);
        strv_free(m.sources);
}

/* power-profiles-daemon, 0.11 and later (Debian 12 ships 0.12): at its
 * start, on every cpufreq policy with an energy_performance_preference
 * (intel_pstate, amd-pstate-epp), it writes "powersave" to
 * scaling_governor (probe_epp in src/ppd-driver-intel-pstate.c and
 * ppd-driver-amd-pstate.c: "Force a scaling_governor where the
 * preference can be written"), then its profile's preference
 * (profile_to_epp_pref: power-saver "power", balanced
 * "balance_performance", performance "performance"): the profile saved
 * in /var/lib/power-profiles-daemon/state.ini ([State] Profile=),
 * balanced without one. At boot it starts after systemd-tmpfiles-setup
 * (sysinit.target), whose lines persist hosttune's cpu values: its own
 * stand. */
static void add_ppd(const ht_context *c, const ht_tuner *t, ht_tuner_settings *ts) {
        if (!ht_exists(c, "/sys/devices/system/cpu/cpufreq/policy0/energy_performance_preference"))
                return;  /* acpi-cpufreq, a VM: its placeholder driver writes nothing */
        static const char *const prefs[][2] = {
                {"power-saver", "power"}, {"balanced", "balance_performance"}, {"performance", "performance"},
        };
        const char *pref = "balance_performance";
        _cleanup_free_ char *text = NULL;
        if (ht_read_file(c, "/var/lib/power-profiles-daemon/state.ini", 64 * 1024, &text, NULL) == 0) {
                bool state = false;
                _cleanup_free_ char *buf = NULL;
                const char *p = text;
                for (char *l; (l = next_line(&p, &buf));) {
                        if (*l == '[')
                                state = streq(l, "[State]");
                        else if (state && startswith(l, "Profile="))
                                for (size_t i = 0; i < ELEMENTSOF(prefs); i++)
                                        if (streq(strstrip(l + 8), prefs[i][0]))
                                                pref = prefs[i][1];
                }
        }
        const char *advice = "keep one tuner: stop and mask power-profiles-daemon (systemctl mask --now "
                             "power-profiles-daemon.service), or give the profile its values";
        add(ts, t, HT_BK_CPU, "governor", "powersave",
            "power-profiles-daemon probe_epp (src/ppd-driver-intel-pstate.c, ppd-driver-amd-pstate.c)",
            "at power-profiles-daemon's start, on every policy with an energy_performance_preference", advice);
        add(ts, t, HT_BK_CPU, "energy_performance_preference", pref,
            "power-profiles-daemon profile_to_epp_pref, its profile in /var/lib/power-profiles-daemon/state.ini",
            "at power-profiles-daemon's start and at every profile change", advice);
}

void ht_tuner_settings_collect(const ht_context *c, const ht_facts *f, ht_tuner_settings *ret) {
        *ret = (ht_tuner_settings){0};
        collect_units(c, ret);
        for (size_t i = 0; i < f->n_tuners; i++) {
                const ht_tuner *t = &f->tuners[i];
                if (streq(t->name, "tuned"))
                        add_tuned(c, f, t, ret);
                else if (streq(t->name, "saptune"))
                        add_saptune(c, t, ret);
                else if (streq(t->name, "power-profiles-daemon"))
                        add_ppd(c, t, ret);
                else if (streq(t->name, "kubelet"))
                        for (size_t k = 0; k < ELEMENTSOF(kubelet_sysctls); k++)
                                add(ret, t, HT_BK_SYSCTL, kubelet_sysctls[k][0], kubelet_sysctls[k][1],
                                    "kubelet setupKernelTunables() (pkg/kubelet/cm/container_manager_linux.go)",
                                    "at kubelet's start",
                                    "set kubelet's value, or run kubelet with --protect-kernel-defaults "
                                    "(it then refuses to start instead of changing it)");
                else if (streq(t->name, "dockerd"))
                        for (size_t k = 0; k < ELEMENTSOF(dockerd_sysctls); k++)
                                add(ret, t, HT_BK_SYSCTL, dockerd_sysctls[k][0], dockerd_sysctls[k][1],
                                    "dockerd's bridge driver (libnetwork setup_ip_forwarding.go)",
                                    "at dockerd's start", "set Docker's value, or run dockerd with --ip-forward=false");
                else if (streq(t->name, "bpftune"))
                        for (size_t k = 0; k < ELEMENTSOF(bpftune_sysctls); k++)
                                add(ret, t, HT_BK_SYSCTL, bpftune_sysctls[k], NULL,
                                    "bpftune's tuners (oracle/bpftune src/*_tuner.c)",
                                    "while it runs, as the load demands",
                                    "leave the key to bpftune (drop it from the profile), or stop bpftune; "
                                    "bpftune's sysctl tuner also turns off the tuner of a key someone else writes");
        }
}

static void setting_done(ht_tuner_setting *s) {
        free(s->tuner);
        free(s->who);
        free(s->key);
        free(s->value);
        free(s->source);
        free(s->when);
        free(s->advice);
}

void ht_tuner_settings_keep(ht_tuner_settings *t, ht_backend_id b, const char *key) {
        size_t kept = 0;
        for (size_t i = 0; i < t->n; i++) {
                if (ht_tuner_setting_matches(&t->s[i], b, key))
                        t->s[kept++] = t->s[i];
                else
                        setting_done(&t->s[i]);
        }
        t->n = kept;
}

void ht_tuner_settings_keep_if(ht_tuner_settings *t, bool (*keep)(const ht_tuner_setting *s, const void *userdata),
                               const void *userdata) {
        size_t kept = 0;
        for (size_t i = 0; i < t->n; i++) {
                if (keep(&t->s[i], userdata))
                        t->s[kept++] = t->s[i];
                else
                        setting_done(&t->s[i]);
        }
        t->n = kept;
}

void ht_tuner_settings_done(ht_tuner_settings *t) {
        for (size_t i = 0; i < t->n; i++)
                setting_done(&t->s[i]);
        free(t->s);
        strv_free(t->warnings);
        *t = (ht_tuner_settings){0};
}

bool ht_tuner_setting_matches(const ht_tuner_setting *t, ht_backend_id b, const char *key) {
        if (t->backend != b || !key)
                return false;
        if (b != HT_BK_SYSCTL)
                return streq(t->key, key);
        _cleanup_free_ char *x = ht_sysctl_normalize(t->key), *y = ht_sysctl_normalize(key);
        return streq(x, y);
}

bool ht_tuner_setting_conflicts(const ht_tuner_setting *t, ht_bound b, const char *want) {
        if (!t->value)
                return true;
        if (t->backend == HT_BK_SYSCTL)
                return !ht_bound_satisfied(b, want, t->value);
        return !streq_ptr(t->value, want);
}

char *ht_tuner_setting_describe(const ht_tuner_setting *t) {
        if (!t->value)
                return xasprintf("%s owns %s and writes it %s (%s)", t->who, t->key, t->when, t->source);
        return xasprintf("%s sets %s = %s (%s) %s", t->who, t->key, t->value, t->source, t->when);
}
