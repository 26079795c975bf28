/* systemd units: limits for services, which limits.conf never reaches
 * (pam_limits applies to login sessions only). A unit name of the profile
 * is resolved to the unit the host really has (aliases: symlinks in the
 * unit load path and [Install] Alias=), and each real unit gets one
 * drop-in /etc/systemd/system/REAL.d/hosttune.conf with a [Service]
 * section: systemd reads the drop-in directories of every name of a unit
 * and keeps only one file of each name, so a second hosttune.conf under an
 * alias would silently lose. Limit*= values are minimums: one the unit
 * already has at or above the profile's is kept.
 *
 * StartGate (issue 37) is hosttune's own, not systemd's: its value, warn
 * or refuse, becomes the drop-in's ExecStartPre= line that runs
 * `hosttune gate UNIT` before the unit starts (HT_GATE_DIRECTIVE). */
#include "config.h"

#include <stddef.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "backend-common.h"
#include "backend.h"
#include "profile-section.h"
#include "edit-unit.h"
#include "util.h"

/* The key fields beside key, as ht_setting.fields[] and ht_entry.fields[]
 * hold them (ht_backend.key_fields). */
enum { F_UNIT, F_DIRECTIVE };
static const char *const service_key_fields[] = {"unit", "directive", NULL};

#define UNIT_DIR "/etc/systemd/system"
#define DROPIN_NAME "hosttune.conf"

/* systemd resource-limit directives (systemd.exec(5), "Process
 * Properties"), plus the few service settings profiles use. */
static const char *const directives[] = {
        "LimitCPU", "LimitFSIZE", "LimitDATA", "LimitSTACK", "LimitCORE", "LimitRSS",
        "LimitNOFILE", "LimitAS", "LimitNPROC", "LimitMEMLOCK", "LimitLOCKS", "LimitSIGPENDING",
        "LimitMSGQUEUE", "LimitNICE", "LimitRTPRIO", "LimitRTTIME", "TasksMax", HT_GATE_DIRECTIVE, NULL,
};

static bool value_valid(const char *v) {
        if (isempty(v) || strlen(v) > 64)
                return false;
        for (const char *p = v; *p; p++)
                if (!isalnum((unsigned char)*p) && !strchr(":.", *p))
                        return false;
        return true;
}


/* systemd's unit load path in system mode, highest priority first
 * (systemd.unit(5), "Unit File Load Path"; /lib for split-usr trees). */
static const char *const unit_path[] = {
        "/etc/systemd/system.control", "/run/systemd/system.control", "/run/systemd/transient",
        "/run/systemd/generator.early", "/etc/systemd/system", "/etc/systemd/system.attached",
        "/run/systemd/system", "/run/systemd/system.attached", "/run/systemd/generator",
        "/usr/local/lib/systemd/system", "/usr/lib/systemd/system", "/lib/systemd/system",
        "/run/systemd/generator.late", NULL,
};

static char *unit_with_suffix(const char *u) {
        return strchr(u, '.') ? xstrdup(u) : xasprintf("%s.service", u);
}

/* Which of names a service setting's unit is; n when none. */
static size_t name_index(char *const *names, size_t n, const ht_setting *s) {
        _cleanup_free_ char *unit = unit_with_suffix(s->fields[F_UNIT]);
        size_t k = 0;
        while (k < n && !streq(names[k], unit))
                k++;
        return k;
}

static const char *base_name(const char *path) {
        const char *s = strrchr(path, '/');
        return s ? s + 1 : path;
}

/* One real unit and what systemd reads for it. */
typedef struct {
        char *name;          /* the real name: the unit file's own */
        char *fragment;      /* host path of the unit file */
        char *text;          /* its contents */
        size_t len;
        char **names;        /* every name: the real one first, then aliases */
} unit_info;

static void unit_info_done(unit_info *u) {
        free(u->name);
        free(u->fragment);
        free(u->text);
        strv_free(u->names);
}

/* The first file or link named name on the load path, followed inside the
 * root: 0 with the real name and the unit file, -ENOENT when no directory
 * has it, -ESHUTDOWN when it is masked, other -errno (a link out of the
 * root: -EXDEV). */
static int find_fragment(const ht_context *c, const char *name, char **ret_real, char **ret_file) {
        _cleanup_free_ char *cur = xstrdup(name);
        for (int depth = 0; depth < 8; depth++) {
                const char *hit = NULL;
                _cleanup_free_ char *path = NULL;
                for (size_t d = 0; unit_path[d] && !hit; d++) {
                        struct stat st;
                        free(path);
                        path = xasprintf("%s/%s", unit_path[d], cur);
                        int r = ht_lstat(c, path, &st);
                        if (r == -ENOENT || r == -ENOTDIR)
                                continue;
                        if (r < 0)
                                return r;
                        hit = path;
                }
                if (!hit) {
                        /* an instance (foo@bar.service) without a file of its
                         * own is its template's (foo@.service): systemd
                         * loads that, and reads the instance's drop-ins */
                        const char *at = strchr(cur, '@'), *dot = strrchr(cur, '.');
                        if (depth > 0 || !at || !dot || at + 1 >= dot)
                                return -ENOENT;
                        _cleanup_free_ char *tmpl = xasprintf("%.*s%s", (int)(at - cur + 1), cur, dot);
                        _cleanup_free_ char *tmpl_real = NULL;
                        int r = find_fragment(c, tmpl, &tmpl_real, ret_file);
                        if (r < 0)
                                return r;
                        *ret_real = TAKE_PTR(cur);
                        return 0;
                }
                _cleanup_free_ char *final = NULL;
                int r = ht_resolve_host_link(c, hit, &final);
                if (r < 0)
                        return r;
                if (streq(final, "/dev/null"))
                        return -ESHUTDOWN;
                /* a link to a file of the same name only places the unit;
                 * one to another name makes cur an alias of that unit,
                 * which is then looked up under its own name */
                if (streq(base_name(final), cur)) {
                        *ret_real = TAKE_PTR(cur);
                        *ret_file = TAKE_PTR(final);
                        return 0;
                }
                free(cur);
                cur = xstrdup(base_name(final));
        }
        return -ELOOP;
}

/* Names in the Alias= lines of [Install] (space-separated lists). */
static char **install_aliases(const char *text, size_t len) {
        _cleanup_strv_free_ char **lines = NULL;
        char **out = NULL;
        ht_unit_values(text, len, "Install", "Alias", &lines);
        for (size_t i = 0; lines && lines[i]; i++) {
                _cleanup_strv_free_ char **words = strv_split(lines[i], " \t");
                for (size_t w = 0; words && words[w]; w++)
                        if (*words[w] && ht_unit_name_valid(words[w]) && !strv_contains(out, words[w]))
                                strv_push(&out, words[w]);
        }
        return out;
}

static int load_unit(const ht_context *c, const char *real, const char *file, unit_info *ret) {
        unit_info u = {.name = xstrdup(real), .fragment = xstrdup(file)};
        int r = ht_read_file(c, file, 1 << 20, &u.text, &u.len);
        if (r < 0) {
                unit_info_done(&u);
                return r;
        }
        strv_push(&u.names, real);
        _cleanup_strv_free_ char **aliases = install_aliases(u.text, u.len);
        for (size_t i = 0; aliases && aliases[i]; i++)
                if (!strv_contains(u.names, aliases[i]))
                        strv_push(&u.names, aliases[i]);
        /* alias links the vendor or 'systemctl enable' made (only links:
         * a unit directory holds hundreds of plain unit files) */
        for (size_t d = 0; unit_path[d]; d++) {
                _cleanup_strv_free_ char **ents = NULL;
                ht_list_links(c, unit_path[d], &ents);
                for (size_t i = 0; ents && ents[i]; i++) {
                        struct stat st;
                        _cleanup_free_ char *p = xasprintf("%s/%s", unit_path[d], ents[i]), *t = NULL;
                        if (strv_contains(u.names, ents[i]) || !ht_unit_name_valid(ents[i]) ||
                            ht_lstat(c, p, &st) < 0 || !S_ISLNK(st.st_mode) || ht_resolve_host_link(c, p, &t) < 0)
                                continue;
                        if (streq(base_name(t), real))
                                strv_push(&u.names, ents[i]);
                }
        }
        *ret = u;
        return 0;
}

/* A unit by the name an administrator gives ("mysqld" or
 * "mysqld.service"): its fragment and what it is known as. */
static int load_unit_named(const ht_context *c, const char *unit, unit_info *ret) {
        _cleanup_free_ char *name = unit_with_suffix(unit), *real = NULL, *file = NULL;
        if (!ht_unit_name_valid(name))
                return -EINVAL;
        int r = find_fragment(c, name, &real, &file);
        if (r < 0)
                return r;
        return load_unit(c, real, file, ret);
}

/* A drop-in systemd reads: its name decides the order, the first
 * directory on the load path decides which file of that name is used. */
typedef struct {
        char *name, *path, *text;
        size_t len;
} dropin;

static int dropin_cmp(const void *a, const void *b) {
        return strcmp(((const dropin *)a)->name, ((const dropin *)b)->name);
}

static void dropins_free(dropin *l, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(l[i].name);
                free(l[i].path);
                free(l[i].text);
        }
        free(l);
}

/* The drop-in directories of one name of a unit (systemd.unit(5),
 * "Description"; src/shared/dropin.c, unit_file_find_dirs): NAME.d, the
 * template's (foo@.service.d for foo@bar.service), then the name cut
 * after each dash from the right (foo-bar-.service.d, foo-.service.d). */
static char **dirs_of_name(const char *name) {
        char **dirs = NULL;
        const char *dot = strrchr(name, '.');
        if (!dot)
                return NULL;
        strv_pushf(&dirs, "%s.d", name);
        const char *at = strchr(name, '@');
        if (at && at + 1 < dot)
                strv_pushf(&dirs, "%.*s%s.d", (int)(at - name + 1), name, dot);
        const char *stem_end = at ? at : dot;
        for (const char *p = stem_end; p > name; p--)
                if (p[-1] == '-' && p - 1 > name)
                        strv_pushf(&dirs, "%.*s%s.d", (int)(p - name), name, dot);
        return dirs;
}

/* Add the .conf files of one drop-in directory. systemd lists them with
 * conf_files_list_strv(): a hidden file (".x.conf") is not one, and of
 * two files of one name the one in the directory met first is read
 * ("Skipping overridden file"). */
static int add_dropins(const ht_context *c, const char *dir, dropin **list, size_t *n, char ***skipped) {
        _cleanup_strv_free_ char **files = NULL;
        ht_list_dir(c, dir, ".conf", &files);
        for (size_t i = 0; files && files[i]; i++) {
                if (files[i][0] == '.')
                        continue;
                _cleanup_free_ char *path = xasprintf("%s/%s", dir, files[i]);
                bool seen = false;
                for (size_t j = 0; j < *n && !seen; j++)
                        seen = streq((*list)[j].name, files[i]);
                if (seen) {
                        strv_push(skipped, path);
                        continue;
                }
                char *text = NULL;
                size_t len = 0;
                /* a link to /dev/null masks the name in the directories
                 * after it (systemd.unit(5)); not read: a tree (--root) may
                 * have no /dev */
                _cleanup_free_ char *target = NULL;
                struct stat st;
                if (ht_lstat(c, path, &st) == 0 && S_ISLNK(st.st_mode) && ht_resolve_host_link(c, path, &target) == 0 &&
                    streq(target, "/dev/null"))
                        text = xstrdup("");
                int r = text ? 0 : ht_read_optional(c, path, &text, &len);
                if (r < 0)
                        return r;
                if (!text)
                        continue;
                *list = xrealloc(*list, (*n + 1) * sizeof(**list));
                (*list)[(*n)++] = (dropin){.name = xstrdup(files[i]), .path = TAKE_PTR(path), .text = text, .len = len};
        }
        return 0;
}

/* Every drop-in systemd 252 reads for the unit, sorted by file name, in
 * the order it meets the directories (unit_file_find_dropin_paths): the
 * unit's own name across the whole load path, then each alias, then the
 * type's directory (service.d, "the most generic") — so a drop-in of a
 * name under /usr/lib/.../UNIT.d/ hides one of that name in
 * /etc/systemd/system/service.d/, as systemd --test shows. */
static int collect_dropins(const ht_context *c, const unit_info *u, dropin **ret, size_t *ret_n, char ***skipped) {
        dropin *list = NULL;
        size_t n = 0;
        int r = 0;
        for (size_t k = 0; u->names[k] && r >= 0; k++) {
                _cleanup_strv_free_ char **dirs = dirs_of_name(u->names[k]);
                for (size_t d = 0; unit_path[d] && r >= 0; d++)
                        for (size_t j = 0; dirs && dirs[j] && r >= 0; j++) {
                                _cleanup_free_ char *dir = xasprintf("%s/%s", unit_path[d], dirs[j]);
                                r = add_dropins(c, dir, &list, &n, skipped);
                        }
        }
        const char *dot = u->names[0] ? strrchr(u->names[0], '.') : NULL;
        for (size_t d = 0; dot && unit_path[d] && r >= 0; d++) {
                _cleanup_free_ char *dir = xasprintf("%s/%s.d", unit_path[d], dot + 1);
                r = add_dropins(c, dir, &list, &n, skipped);
        }
        if (r < 0) {
                dropins_free(list, n);
                return r;
        }
        if (n)
                qsort(list, n, sizeof(*list), dropin_cmp);
        *ret = list;
        *ret_n = n;
        return 0;
}

/* The limits compared as minimums: counts and byte sizes. LimitCPU and
 * LimitRTTIME take time spans ("1h", "500ms") and LimitNICE a priority
 * ("+5" or 0..40), which "at least" does not order the same way: those
 * stay exact, written as given, as before. */
static bool is_limit(const char *directive) {
        return startswith(directive, "Limit") && !streq(directive, "LimitCPU") &&
               !streq(directive, "LimitRTTIME") && !streq(directive, "LimitNICE");
}

/* Whether value (a unit's) meets the minimum want, field by field. */
static bool limit_meets(const char *directive, const char *value, const char *want) {
        uint64_t vs, vh, ws, wh;
        return value && ht_unit_parse_limit(directive, value, &vs, &vh) == 0 &&
               ht_unit_parse_limit(directive, want, &ws, &wh) == 0 && vs >= ws && vh >= wh;
}

/* What a unit has for one directive: the value systemd uses now, the one
 * the files before hosttune's give, and the last file after it that sets
 * it. hosttune's own drop-ins under other names are left out of before and
 * after: the plan removes them. */
typedef struct {
        char *now;          /* NULL: unset */
        char *before;
        char *ours;         /* in REAL.d/hosttune.conf today */
        bool after_set;
        char *after;
        char *after_path;
} unit_value;

static void unit_value_done(unit_value *v) {
        free(v->now);
        free(v->before);
        free(v->ours);
        free(v->after);
        free(v->after_path);
}

/* The value of directive that systemd keeps from one file: for Limit*=
 * the last one its parser accepts (a refused or empty line is ignored,
 * the one before stays: ht_unit_limit_value), else the last one (an
 * empty one resets: 1 with *ret NULL). */
static int directive_value(const char *text, size_t len, const char *directive, char **ret) {
        if (startswith(directive, "Limit"))
                return ht_unit_limit_value(text, len, "Service", directive, directive, ret);
        return ht_unit_value(text, len, "Service", directive, ret);
}

static void read_value(const unit_info *u, const dropin *d, size_t n, const char *own, const char *directive,
                       unit_value *ret) {
        unit_value v = {0};
        char *x = NULL;
        if (directive_value(u->text, u->len, directive, &x) > 0) {
                v.now = x;
                v.before = x ? xstrdup(x) : NULL;
        }
        int cmp_own;
        for (size_t i = 0; i < n; i++) {
                x = NULL;
                if (directive_value(d[i].text, d[i].len, directive, &x) <= 0)
                        continue;
                free(v.now);
                v.now = x ? xstrdup(x) : NULL;
                bool ours = strstr(d[i].text, "Managed by hosttune") != NULL;
                cmp_own = strcmp(d[i].name, DROPIN_NAME);
                if (streq(d[i].path, own)) {
                        free(v.ours);
                        v.ours = x;
                } else if (ours && cmp_own == 0) {
                        free(x);
                } else if (cmp_own < 0) {
                        free(v.before);
                        v.before = x;
                } else {
                        free(v.after);
                        free(v.after_path);
                        v.after = x;
                        v.after_path = xstrdup(d[i].path);
                        v.after_set = true;
                }
        }
        *ret = v;
}

/* The value hosttune's drop-in holds: none when the files before it
 * already meet a minimum, its own while that still does, else the
 * profile's, raised field by field to what the host has (never lower). */
static char *line_value(const char *directive, const char *want, const unit_value *v) {
        if (!is_limit(directive))
                return xstrdup(want);
        if (limit_meets(directive, v->before, want))
                return NULL;
        if (limit_meets(directive, v->ours, want))
                return xstrdup(v->ours);
        uint64_t bs, bh, ws, wh;
        if (!v->before || ht_unit_parse_limit(directive, v->before, &bs, &bh) < 0 ||
            ht_unit_parse_limit(directive, want, &ws, &wh) < 0 || (bs <= ws && bh <= wh))
                return xstrdup(want);
        return ht_unit_format_limit(bs > ws ? bs : ws, bh > wh ? bh : wh);
}

/* A limit the unit's files leave unset is not "unset" for the service:
 * it gets what systemd gives every service (DefaultLimitX= of
 * system.conf and its drop-ins, else systemd's compiled default, else
 * the kernel's; ht_systemd_default_limit), and a running service may have
 * more (its /proc/PID/limits: a manager started with other defaults, a
 * systemctl daemon-reexec since). The larger of the two, field by field,
 * is what the unit has today, the floor a minimum never goes below
 * (issue 39: "(unset) -> 65535 (at least)" lowered a JVM's 524288 open
 * files and 15656 processes). *ret_from says where it comes from. */
static char *effective_default(const ht_context *c, const ht_facts *f, const unit_info *ui, const char *directive,
                               char **ret_from) {
        uint64_t s, h;
        _cleanup_free_ char *from = NULL;
        if (ht_systemd_default_limit(c, f, directive, &s, &h, &from) < 0)
                return NULL;
        /* the unit's processes: its cgroup's (v2, then v1's name=systemd
         * hierarchy), below system.slice where services run */
        static const char *const roots[] = {"/sys/fs/cgroup/system.slice", "/sys/fs/cgroup/systemd/system.slice",
                                            NULL};
        for (size_t i = 0; roots[i]; i++) {
                _cleanup_free_ char *procs_path = xasprintf("%s/%s/cgroup.procs", roots[i], ui->name);
                _cleanup_free_ char *procs = NULL;
                if (ht_read_file(c, procs_path, 1 << 16, &procs, NULL) < 0)
                        continue;
                uint64_t pid;
                _cleanup_free_ char *first = xstrndup(procs, strcspn(procs, "\n"));
                if (parse_u64(first, &pid) < 0 || pid == 0 || pid > INT32_MAX)
                        break;
                _cleanup_free_ char *lpath = xasprintf("/proc/%u/limits", (unsigned)pid), *lim = NULL;
                uint64_t rs, rh;
                if (ht_read_file(c, lpath, 1 << 16, &lim, NULL) < 0 ||
                    ht_proc_limits_parse(lim, directive, &rs, &rh) < 0)
                        break;
                if (rs > s || rh > h) {
                        _cleanup_free_ char *has = ht_unit_format_limit(rs, rh);
                        char *more = xasprintf("%s; the running pid %u has %s (%s)", from, (unsigned)pid, has, lpath);
                        free(from);
                        from = more;
                        s = rs > s ? rs : s;
                        h = rh > h ? rh : h;
                }
                break;
        }
        *ret_from = TAKE_PTR(from);
        return ht_unit_format_limit(s, h);
}

#ifndef HT_SBINDIR
#define HT_SBINDIR "/usr/sbin"
#endif

char *ht_gate_command(const char *mode, const char *unit, const char *bin) {
        bool refuse = streq(mode, "refuse");
        strbuf b = {0};
        strbuf_appendf(&b, "%s+%s gate %s", refuse ? "" : "-", bin ? bin : HT_SBINDIR "/hosttune",
                       refuse ? "--refuse " : "");
        /* systemd unescapes a command line's C escapes: a unit's \x2d
         * stays itself with its backslash doubled */
        for (const char *p = unit; *p; p++)
                if (*p == '\\')
                        strbuf_append(&b, "\\\\");
                else
                        strbuf_appendn(&b, p, 1);
        return strbuf_steal(&b);
}

/* The hosttune the drop-in runs: the first of configure's sbindir,
 * /usr/sbin and /usr/local/sbin where the root has it as a regular file
 * that root owns and only root may write (systemd runs it as root, "+",
 * at every start of the unit); else configure's (a fixture, or an image
 * whose package comes later). A build installed elsewhere than the
 * packages' /usr/sbin still names the binary the host has. */
static char *gate_binary(const ht_context *c) {
        static const char *const dirs[] = {HT_SBINDIR, "/usr/sbin", "/usr/local/sbin"};
        for (size_t i = 0; i < ELEMENTSOF(dirs); i++) {
                _cleanup_free_ char *p = xasprintf("%s/hosttune", dirs[i]);
                struct stat st;
                if (ht_stat(c, p, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == 0 &&
                    !(st.st_mode & (S_IWGRP | S_IWOTH)) && (st.st_mode & S_IXUSR))
                        return TAKE_PTR(p);
        }
        return xstrdup(HT_SBINDIR "/hosttune");
}

/* The gate mode hosttune's own drop-in text runs for unit now: "warn",
 * "refuse", or NULL (no gate line, or one for another binary). */
static char *gate_mode_in(const char *text, size_t len, const char *unit, const char *bin) {
        _cleanup_strv_free_ char **lines = NULL;
        if (!text)
                return NULL;
        ht_unit_values(text, len, "Service", "ExecStartPre", &lines);
        static const char *const modes[] = {"warn", "refuse"};
        for (size_t m = 0; m < ELEMENTSOF(modes); m++) {
                _cleanup_free_ char *cmd = ht_gate_command(modes[m], unit, bin);
                if (strv_contains(lines, cmd))
                        return xstrdup(modes[m]);
        }
        return NULL;
}

/* One directive of one real unit, from every setting that names it under
 * any of the unit's names. */
typedef struct {
        char *directive;
        char *want;         /* the largest minimum, or the exact value */
        size_t *settings;   /* indexes into r->settings */
        size_t n_settings;
} wanted;

/* A template (foo@.service) runs as its instances: the plan names them
 * ("foo@*.service", as systemctl takes it), not the template itself,
 * which cannot be restarted. */
static char *runs_as(const char *unit) {
        const char *at = strchr(unit, '@');
        if (!at || at[1] != '.')
                return xstrdup(unit);
        return xasprintf("%.*s*%s", (int)(at - unit + 1), unit, at + 1);
}

/* The start gate's line in the drop-in and its change, with what it
 * means in words: warn never keeps the unit from starting; refuse does,
 * which the plan also warns about (issue 37). */
static void plan_gate(const ht_context *c, ht_plan *plan, const ht_resolved *r, const unit_info *ui,
                      const wanted *w, const char *old, size_t old_len, strbuf *body) {
        _cleanup_free_ char *bin = gate_binary(c);
        /* a template's drop-in (foo@.service.d) runs for each instance:
         * systemd expands "%n" in the command line to the instance's full
         * unit name (systemd.unit(5), "Specifiers"), which the gate sizes
         * on its own (cmd-gate.c) */
        const char *at = strchr(ui->name, '@');
        const char *arg = at && at[1] == '.' ? "%n" : ui->name;
        _cleanup_free_ char *cmd = ht_gate_command(w->want, arg, bin);
        _cleanup_free_ char *now = gate_mode_in(old, old_len, arg, bin);
        _cleanup_free_ char *runs = runs_as(ui->name);
        bool refuse = streq(w->want, "refuse");
        strbuf_appendf(body, "ExecStartPre=%s\n", cmd);
        for (size_t t = 0; t < w->n_settings; t++) {
                const ht_setting *s = &r->settings[w->settings[t]];
                ht_change *ch = ht_plan_add_change(plan, HT_BK_SERVICE, s->key, now, w->want);
                ch->source = ht_plan_strdup(plan, s->source);
                if (streq_ptr(now, w->want))
                        ch->outcome = HT_OUTCOME_KEPT;
                ch->note = refuse
                        ? ht_plan_printf(plan, "refuse: %s does not start while 'hosttune gate' finds its "
                                         "HugePages or LimitMEMLOCK short", runs)
                        : ht_plan_printf(plan, "warn: 'hosttune gate' logs to the journal what %s lacks before "
                                         "it starts, and never keeps it from starting (ExecStartPre=-)", runs);
        }
        if (refuse)
                ht_plan_warn(plan, "start_gate=refuse: %s will not start while fewer HugePages are free than "
                             "it needs or its LimitMEMLOCK is short ('hosttune gate --refuse %s' fails its "
                             "ExecStartPre=), so it never runs on 4 KB pages; start_gate=warn only logs the "
                             "shortfall", runs, arg);
}

static int service_plan(const ht_context *c, const ht_facts *f, const ht_resolved *r, ht_plan *plan) {
        _cleanup_strv_free_ char **names = NULL, **restart = NULL;
        bool any_change = false;

        for (size_t i = 0; i < r->n_settings; i++) {
                const ht_setting *s = &r->settings[i];
                if (s->backend != HT_BK_SERVICE || !s->fields[F_UNIT])
                        continue;
                _cleanup_free_ char *unit = unit_with_suffix(s->fields[F_UNIT]);
                if (!ht_unit_name_valid(unit)) {
                        ht_plan_error(plan, "%s: '%s' is not a valid systemd unit name", s->source, s->fields[F_UNIT]);
                        continue;
                }
                if (!strv_contains(names, unit))
                        strv_push(&names, unit);
        }

        /* Resolve each name; a name no file has may still be an Alias= of
         * a unit another name found (not enabled: no link yet). */
        size_t n_names = strv_length(names);
        unit_info *units = xcalloc(n_names + 1, sizeof(*units));
        size_t n_units = 0;
        char **real_of = xcalloc(n_names + 1, sizeof(char *));
        int *err_of = xcalloc(n_names + 1, sizeof(int));
        for (size_t k = 0; k < n_names; k++) {
                _cleanup_free_ char *real = NULL, *file = NULL;
                err_of[k] = find_fragment(c, names[k], &real, &file);
                if (err_of[k] < 0)
                        continue;
                real_of[k] = xstrdup(real);
                bool have = false;
                for (size_t i = 0; i < n_units && !have; i++)
                        have = streq(units[i].name, real);
                if (have)
                        continue;
                int e = load_unit(c, real, file, &units[n_units]);
                if (e < 0) {
                        err_of[k] = e;
                        free(real_of[k]);
                        real_of[k] = NULL;
                        continue;
                }
                n_units++;
        }
        for (size_t k = 0; k < n_names; k++) {
                if (err_of[k] != -ENOENT)
                        continue;
                for (size_t i = 0; i < n_units && !real_of[k]; i++)
                        if (strv_contains(units[i].names, names[k])) {
                                real_of[k] = xstrdup(units[i].name);
                                err_of[k] = 0;
                        }
        }

        /* Names that resolve to nothing: no drop-in. */
        for (size_t i = 0; i < r->n_settings; i++) {
                const ht_setting *s = &r->settings[i];
                if (s->backend != HT_BK_SERVICE || !s->fields[F_UNIT])
                        continue;
                size_t k = name_index(names, n_names, s);
                if (k == n_names || real_of[k])
                        continue;
                const char *why = err_of[k] == -ENOENT ? "no such unit on this host"
                                  : err_of[k] == -ESHUTDOWN ? "the unit is masked"
                                  : err_of[k] == -EXDEV ? "its unit file is a link out of the root (refused)"
                                  : ht_strerror(-err_of[k]);
                ht_change *ch = ht_plan_add_change(plan, HT_BK_SERVICE, s->key, NULL, s->value);
                ch->source = ht_plan_strdup(plan, s->source);
                if (s->optional) {
                        ch->outcome = HT_OUTCOME_SKIPPED;
                        _cleanup_free_ char *what = xasprintf("service %s", s->key);
                        ht_plan_skip(plan, what, s->source, "%s=%s for %s: %s", s->fields[F_DIRECTIVE],
                                     s->value ? s->value : "", names[k], why);
                } else {
                        ch->outcome = HT_OUTCOME_FAILED;
                        ht_plan_error(plan, "%s: %s=%s for %s: %s; install the service first, name the "
                                      "unit the host has, or mark the setting optional",
                                      s->source, s->fields[F_DIRECTIVE], s->value ? s->value : "", names[k], why);
                }
        }

        for (size_t u = 0; u < n_units; u++) {
                const unit_info *ui = &units[u];
                _cleanup_free_ char *path = xasprintf(UNIT_DIR "/%s.d/" DROPIN_NAME, ui->name);
                _cleanup_free_ char *old = NULL;
                size_t old_len = 0;
                int k = ht_read_optional(c, path, &old, &old_len);
                dropin *dl = NULL;
                size_t dn = 0;
                _cleanup_strv_free_ char **skipped = NULL;
                if (k >= 0)
                        k = collect_dropins(c, ui, &dl, &dn, &skipped);
                if (k < 0) {
                        ht_plan_error(plan, "cannot read the drop-ins of %s: %s", ui->name, ht_strerror(-k));
                        continue;
                }

                /* settings of this unit, merged by directive */
                wanted *w = NULL;
                size_t nw = 0;
                bool bad = false;
                for (size_t i = 0; i < r->n_settings; i++) {
                        const ht_setting *s = &r->settings[i];
                        if (s->backend != HT_BK_SERVICE || !s->fields[F_UNIT])
                                continue;
                        size_t nk = name_index(names, n_names, s);
                        if (nk == n_names || !streq_ptr(real_of[nk], ui->name))
                                continue;
                        if (!s->fields[F_DIRECTIVE] || !strv_contains((char **)directives, s->fields[F_DIRECTIVE])) {
                                const char *hint = s->fields[F_DIRECTIVE] ? closest_word(s->fields[F_DIRECTIVE], (char **)directives) : NULL;
                                ht_plan_error(plan, "%s: unknown service directive '%s'%s%s%s", s->source,
                                              s->fields[F_DIRECTIVE] ? s->fields[F_DIRECTIVE] : "", hint ? " (did you mean '" : "",
                                              hint ? hint : "", hint ? "'?)" : "");
                                bad = true;
                                continue;
                        }
                        if (streq(s->fields[F_DIRECTIVE], HT_GATE_DIRECTIVE) && !streq_ptr(s->value, "warn") &&
                            !streq_ptr(s->value, "refuse")) {
                                ht_plan_error(plan, "%s: %s=%s for %s: the start gate is warn or refuse "
                                              "(start_gate=off makes none)", s->source, s->fields[F_DIRECTIVE],
                                              s->value ? s->value : "", ui->name);
                                bad = true;
                                continue;
                        }
                        uint64_t a, b;
                        if (!value_valid(s->value) ||
                            (is_limit(s->fields[F_DIRECTIVE]) && ht_unit_parse_limit(s->fields[F_DIRECTIVE], s->value, &a, &b) < 0)) {
                                ht_plan_error(plan, "%s: invalid value '%s' for %s", s->source,
                                              s->value ? s->value : "", s->fields[F_DIRECTIVE]);
                                bad = true;
                                continue;
                        }
                        size_t j = 0;
                        while (j < nw && !streq(w[j].directive, s->fields[F_DIRECTIVE]))
                                j++;
                        if (j == nw) {
                                w = xrealloc(w, (nw + 1) * sizeof(*w));
                                w[nw++] = (wanted){.directive = xstrdup(s->fields[F_DIRECTIVE]), .want = xstrdup(s->value)};
                        } else if (is_limit(s->fields[F_DIRECTIVE])) {
                                /* two minimums: the larger one meets both */
                                if (!limit_meets(s->fields[F_DIRECTIVE], w[j].want, s->value)) {
                                        free(w[j].want);
                                        w[j].want = xstrdup(s->value);
                                }
                        } else if (!streq(w[j].want, s->value)) {
                                ht_plan_error(plan, "%s: %s=%s for %s, but another setting for the same unit "
                                              "wants %s", s->source, s->fields[F_DIRECTIVE], s->value, ui->name, w[j].want);
                                bad = true;
                        }
                        w[j].settings = xrealloc(w[j].settings, (w[j].n_settings + 1) * sizeof(size_t));
                        w[j].settings[w[j].n_settings++] = i;
                }

                strbuf body = {0};
                for (size_t j = 0; j < nw && !bad; j++) {
                        if (streq(w[j].directive, HT_GATE_DIRECTIVE)) {
                                plan_gate(c, plan, r, ui, &w[j], old, old_len, &body);
                                continue;
                        }
                        unit_value v;
                        read_value(ui, dl, dn, path, w[j].directive, &v);
                        _cleanup_free_ char *now_from = NULL;
                        if (is_limit(w[j].directive) && !v.before) {
                                v.before = effective_default(c, f, ui, w[j].directive, &now_from);
                                if (!v.now && v.before)
                                        v.now = xstrdup(v.before);
                                else if (v.now) {
                                        free(now_from);
                                        now_from = NULL;
                                }
                        }
                        _cleanup_free_ char *line = line_value(w[j].directive, w[j].want, &v);
                        if (line)
                                strbuf_appendf(&body, "%s=%s\n", w[j].directive, line);
                        bool minimum = is_limit(w[j].directive);
                        const char *after = v.after_set ? v.after : NULL;
                        bool overridden = v.after_set &&
                                          (minimum ? !limit_meets(w[j].directive, after, w[j].want)
                                                   : !streq_ptr(after, w[j].want));
                        const char *then = v.after_set ? after : line ? line : v.before;
                        for (size_t t = 0; t < w[j].n_settings; t++) {
                                const ht_setting *s = &r->settings[w[j].settings[t]];
                                _cleanup_free_ char *su = unit_with_suffix(s->fields[F_UNIT]);
                                ht_change *ch = ht_plan_add_change(plan, HT_BK_SERVICE, s->key,
                                                                   overridden ? after : v.now,
                                                                   overridden ? w[j].want : then);
                                ch->source = ht_plan_strdup(plan, s->source);
                                if (now_from && !overridden)
                                        ch->current_from = ht_plan_strdup(plan, now_from);
                                if (minimum) {
                                        ch->bound = HT_BOUND_AT_LEAST;
                                        ch->bound_value = ht_plan_strdup(plan, w[j].want);
                                }
                                if (overridden) {
                                        _cleanup_free_ char *shown = ht_display_path(c, v.after_path);
                                        ch->outcome = HT_OUTCOME_OVERRIDDEN;
                                        ch->note = ht_plan_printf(plan, "%s sets %s=%s, after hosttune's drop-in", shown,
                                                             w[j].directive, after ? after : "(reset)");
                                        if (t == 0)
                                                ht_plan_warn(plan, "%s sets %s=%s and is read after %s: %s starts "
                                                             "with %s, not %s; remove the line there or "
                                                             "override the profile value", shown, w[j].directive,
                                                             after ? after : "(its default)", path, ui->name,
                                                             after ? after : "its default", w[j].want);
                                        continue;
                                }
                                if (streq_ptr(then, v.now)) {
                                        ch->outcome = HT_OUTCOME_KEPT;
                                        continue;
                                }
                                _cleanup_free_ char *runs = runs_as(ui->name);
                                ch->note = streq(su, ui->name)
                                        ? ht_plan_printf(plan, "takes effect when %s is restarted", runs)
                                        : ht_plan_printf(plan, "%s is an alias of %s; takes effect when it is "
                                                         "restarted", su, ui->name);
                        }
                        unit_value_done(&v);
                }
                for (size_t j = 0; j < nw; j++) {
                        free(w[j].directive);
                        free(w[j].want);
                        free(w[j].settings);
                }
                free(w);
                dropins_free(dl, dn);
                if (bad) {
                        strbuf_done(&body);
                        continue;
                }
                _cleanup_free_ char *b = strbuf_steal(&body);
                size_t before = plan->n_files;
                if (isempty(b)) {
                        /* every limit is met without it: no file, or the
                         * old one goes */
                        if (old && strstr(old, "Managed by hosttune"))
                                ht_plan_own_file(plan, HT_BK_SERVICE, path, old, old_len, NULL);
                } else {
                        _cleanup_free_ char *header = ht_managed_header(plan->profile, "#");
                        _cleanup_free_ char *content = xasprintf("%s[Service]\n%s", header, b);
                        ht_plan_own_file(plan, HT_BK_SERVICE, path, old, old_len, content);
                }
                if (plan->n_files > before) {
                        any_change = true;
                        strv_push_take(&restart, runs_as(ui->name));
                }
        }

        /* hosttune's drop-ins for units this plan does not write: an
         * earlier profile's, or one under an alias name */
        _cleanup_strv_free_ char **dirs = NULL;
        ht_list_dir(c, UNIT_DIR, ".d", &dirs);
        for (size_t i = 0; dirs && dirs[i]; i++) {
                _cleanup_free_ char *unit = xstrndup(dirs[i], strlen(dirs[i]) - 2);
                bool mine = false;
                for (size_t u = 0; u < n_units && !mine; u++)
                        mine = streq(units[u].name, unit);
                if (mine)
                        continue;
                _cleanup_free_ char *path = xasprintf(UNIT_DIR "/%s/" DROPIN_NAME, dirs[i]);
                _cleanup_free_ char *old = NULL;
                size_t old_len = 0;
                if (ht_read_optional(c, path, &old, &old_len) < 0 || !old || !strstr(old, "Managed by hosttune"))
                        continue;
                ht_plan_own_file(plan, HT_BK_SERVICE, path, old, old_len, NULL);
                any_change = true;
                strv_push(&restart, unit);
        }

        for (size_t i = 0; i < n_units; i++)
                unit_info_done(&units[i]);
        free(units);
        for (size_t k = 0; k < n_names; k++)
                free(real_of[k]);
        free(real_of);
        free(err_of);

        if (any_change && f->systemd_running && !c->offline_root) {
                /* the units by name: a rollback runs this again and says
                 * it, long after the plan's notes were read (issue 39) */
                _cleanup_free_ char *list = strv_join(restart, ", ");
                _cleanup_free_ char *what = xasprintf("reload systemd so the unit drop-ins take effect (then restart %s)",
                                                      list);
                ht_plan_add_action(plan, HT_BK_SERVICE, "daemon-reload", NULL, what, NULL);
        }
        return 0;
}

/* systemd resource-limit directives a unit drop-in may set. */
static bool service_directive_known(const char *d);

/* Every "directive=" line of [Service] in text, with its line, for
 * explain (ht_unit_value gives the last value, not where it is). */
static void push_assignments(ht_boot_explained *e, const char *path, const char *text, size_t len,
                             const char *directive) {
        const char *p = text, *end = text + len;
        bool service = false;
        unsigned line = 0;
        size_t dl = strlen(directive);
        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
                _cleanup_free_ char *buf = xstrndup(p, n);
                p += n + (nl ? 1 : 0);
                line++;
                char *l = strstrip(buf);
                if (*l == '[') {
                        service = streq(l, "[Service]");
                        continue;
                }
                if (!service || strncmp(l, directive, dl) != 0)
                        continue;
                char *q = l + dl;
                q += strspn(q, " \t");
                if (*q != '=')
                        continue;
                const char *value = strstrip(q + 1);
                e->a = xrealloc(e->a, (e->n + 1) * sizeof(*e->a));
                e->a[e->n++] = (ht_boot_assignment){
                        .path = xstrdup(path), .line = line, .key = xstrdup(directive), .value = xstrdup(value),
                        /* systemd: "Failed to parse resource value, ignoring" */
                        .note = startswith(directive, "Limit") && !ht_unit_limit_accepted(directive, value)
                                        ? xstrdup("systemd ignores it: not a value it reads; the one before stays")
                                        : NULL,
                };
        }
}

int ht_unit_explain_boot(const ht_context *c, const char *unit, const char *directive, ht_boot_explained *ret) {
        if (!service_directive_known(directive))
                return -EINVAL;
        unit_info u;
        int r = load_unit_named(c, unit, &u);
        if (r < 0)
                return r;
        dropin *list = NULL;
        size_t n = 0;
        char **skipped = NULL;
        r = collect_dropins(c, &u, &list, &n, &skipped);
        if (r < 0) {
                unit_info_done(&u);
                return r;
        }
        ht_boot_explained e = {.consumer = "systemd", .soft_winner = -1, .hard_winner = -1, .no_limits = -1};
        strv_push(&e.files, u.fragment);
        push_assignments(&e, u.fragment, u.text, u.len, directive);
        for (size_t i = 0; i < n; i++) {
                strv_push(&e.files, list[i].path);
                push_assignments(&e, list[i].path, list[i].text, list[i].len, directive);
        }
        /* the last assignment systemd keeps wins ("Directive=" alone
         * resets most settings; for Limit*= it is refused like any value
         * systemd cannot read) */
        for (size_t i = e.n; i > 0; i--)
                if (!e.a[i - 1].note) {
                        e.a[i - 1].winner = true;
                        break;
                }
        e.masked = skipped;
        for (size_t i = 0; u.names[i]; i++)
                strv_push(&e.names, u.names[i]);
        dropins_free(list, n);
        unit_info_done(&u);
        *ret = e;
        return 0;
}

int ht_unit_names(const ht_context *c, const char *name, char ***ret_names) {
        unit_info u;
        int r = load_unit_named(c, name, &u);
        if (r < 0)
                return r;
        *ret_names = TAKE_PTR(u.names);
        unit_info_done(&u);
        return 0;
}

int ht_unit_effective_limit(const ht_context *c, const ht_facts *f, const char *unit, const char *directive,
                            char **ret_value, char **ret_from) {
        if (!is_limit(directive) || !service_directive_known(directive))
                return -EINVAL;
        unit_info u;
        int r = load_unit_named(c, unit, &u);
        if (r < 0)
                return r;
        dropin *list = NULL;
        size_t n = 0;
        _cleanup_strv_free_ char **skipped = NULL;
        r = collect_dropins(c, &u, &list, &n, &skipped);
        if (r < 0) {
                unit_info_done(&u);
                return r;
        }
        /* the last assignment of the unit file and its drop-ins wins */
        char *value = NULL, *from = NULL, *x = NULL;
        if (directive_value(u.text, u.len, directive, &x) > 0) {
                value = x;
                from = ht_display_path(c, u.fragment);
        }
        for (size_t i = 0; i < n; i++) {
                x = NULL;
                if (directive_value(list[i].text, list[i].len, directive, &x) <= 0)
                        continue;
                free(value);
                free(from);
                value = x;
                from = ht_display_path(c, list[i].path);
        }
        if (!value) {
                free(from);
                from = NULL;
                value = effective_default(c, f, &u, directive, &from);
        }
        dropins_free(list, n);
        unit_info_done(&u);
        if (!value) {
                free(from);
                return -ENODATA;
        }
        *ret_value = value;
        *ret_from = from;
        return 0;
}

static const char *const service_directives[] = {
        "LimitCPU", "LimitFSIZE", "LimitDATA", "LimitSTACK", "LimitCORE", "LimitRSS",
        "LimitNOFILE", "LimitAS", "LimitNPROC", "LimitMEMLOCK", "LimitLOCKS",
        "LimitSIGPENDING", "LimitMSGQUEUE", "LimitNICE", "LimitRTPRIO", "LimitRTTIME",
        "TasksMax", HT_GATE_DIRECTIVE, NULL,
};

static bool service_directive_known(const char *d) {
        return strv_contains((char *const *)service_directives, d);
}

static int parse_unit_directives(ht_pfile *p, const config_setting_t *g, const ht_spec *unit,
                                 const char *unit_label, char **ret_error) {
        for (int i = 0; i < config_setting_length(g); i++) {
                const config_setting_t *m = config_setting_get_elem(g, i);
                const char *d = config_setting_name(m);
                if (streq(d, "unit"))
                        continue;
                _cleanup_free_ char *what = xasprintf("services %s", unit_label);
                if (!service_directive_known(d)) {
                        const char *close = closest_word(d, (char *const *)service_directives);
                        return ht_error(ret_error, -EINVAL, "%s:%u: %s: unknown directive '%s'%s%s%s", p->path,
                                        ht_cfg_line(m), what, d,
                                        close ? " (did you mean '" : "",
                                        close ? close : "", close ? "'?)" : "");
                }
                free(what);
                what = xasprintf("services %s %s", unit_label, d);
                ht_entry *e = ht_entry_push(&p->entries, &p->n_entries, HT_BK_SERVICE, p->path,
                                         ht_cfg_line(m));
                ht_spec_copy(&e->fields[F_UNIT], unit);
                e->fields[F_DIRECTIVE] = (ht_spec){.kind = HT_SPEC_LIT, .lit = ht_value_str(d)};
                int r = ht_cfg_leaf_value(m, p->path, what, e, ret_error);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int service_parse_section(ht_pfile *p, const config_setting_t *s, char **ret_error) {
        int t = config_setting_type(s);
        if (t == CONFIG_TYPE_GROUP) {
                /* unit names cannot hold a dot here: NAME means NAME.service */
                for (int i = 0; i < config_setting_length(s); i++) {
                        const config_setting_t *m = config_setting_get_elem(s, i);
                        _cleanup_free_ char *unit = xasprintf("%s.service", config_setting_name(m));
                        int r = ht_cfg_want_type(m, CONFIG_TYPE_GROUP, p->path, unit, ret_error);
                        if (r < 0)
                                return r;
                        ht_spec u = {.kind = HT_SPEC_LIT, .lit = ht_value_str(unit)};
                        r = parse_unit_directives(p, m, &u, unit, ret_error);
                        ht_spec_done(&u);
                        if (r < 0)
                                return r;
                }
                return 0;
        }
        if (t == CONFIG_TYPE_LIST) {
                for (int i = 0; i < config_setting_length(s); i++) {
                        const config_setting_t *m = config_setting_get_elem(s, i);
                        _cleanup_free_ char *what = xasprintf("services entry %d", i + 1);
                        int r = ht_cfg_want_type(m, CONFIG_TYPE_GROUP, p->path, what, ret_error);
                        if (r < 0)
                                return r;
                        ht_spec u = {0};
                        r = ht_cfg_get_spec(m, "unit", true, p->path, what, &u, ret_error);
                        if (r >= 0)
                                r = parse_unit_directives(p, m, &u,
                                                          u.kind == HT_SPEC_LIT ? u.lit.str : u.text,
                                                          ret_error);
                        ht_spec_done(&u);
                        if (r < 0)
                                return r;
                }
                return 0;
        }
        return ht_error(ret_error, -EINVAL, "%s:%u: services: expected a group { } or a list ( ), not %s",
                        p->path, ht_cfg_line(s), ht_cfg_type_name(t));
}

static const ht_backend_field service_rule_fields[] = {
        {.name = "unit", .offset = offsetof(ht_entry, fields[F_UNIT])},
        {.name = "directive", .offset = offsetof(ht_entry, fields[F_DIRECTIVE])},
        {0},
};

static int service_canon_key(ht_resolver *r, const ht_entry *e, const char *what, ht_setting *s,
                             char **ret_value, char **ret_error) {
        int k = ht_entry_eval_field(r, &e->fields[F_UNIT], e, what, "unit", &s->fields[F_UNIT], ret_error);
        if (k >= 0)
                k = ht_entry_eval_field(r, &e->fields[F_DIRECTIVE], e, what, "directive", &s->fields[F_DIRECTIVE],
                                         ret_error);
        if (k < 0)
                return k;
        if (!strchr(s->fields[F_UNIT], '.'))
                s->fields[F_UNIT] = ht_resolver_printf(r, "%s.service", s->fields[F_UNIT]);
        if (!ht_word_chars(s->fields[F_UNIT], ":_.@\\-") || s->fields[F_UNIT][0] == '.' || strlen(s->fields[F_UNIT]) > 255)
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: '%s' is not a unit name", e->file, e->line,
                                what, s->fields[F_UNIT]);
        if (!service_directive_known(s->fields[F_DIRECTIVE]))
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: '%s' is not a resource limit directive "
                                "(LimitNOFILE, LimitMEMLOCK, ...)", e->file, e->line, what,
                                s->fields[F_DIRECTIVE]);
        s->key = ht_resolver_printf(r, "%s %s", s->fields[F_UNIT], s->fields[F_DIRECTIVE]);
        return 0;
}

static const char *service_check_value(const char *t) {
        if (isempty(t) || !ht_word_chars(t, ":._-"))
                return "must be a number (K, M, G suffixes allowed), \"infinity\" or SOFT:HARD";
        return NULL;
}

/* setting.service.UNIT.DIRECTIVE */
static char *service_expr_name(const ht_setting *s) {
        return xasprintf("%s.%s", s->fields[F_UNIT], s->fields[F_DIRECTIVE]);
}

/* The files its plan writes (ht_backend.files). */
static const char *const service_files[] = {UNIT_DIR "/*.d/" DROPIN_NAME, NULL};

const ht_backend ht_backend_service = {
        .id = HT_BK_SERVICE,
        .name = "service",
        .files = service_files,
        .key_fields = service_key_fields,
        .rule_fields = service_rule_fields,
        .parse_section = service_parse_section,
        .canon_key = service_canon_key,
        .check_value = service_check_value,
        .expr_name = service_expr_name,
        .section = "services",
        .plan = service_plan,
};
