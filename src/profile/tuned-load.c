/* tuned's profile loading, as tuned 2.x does it (profiles/locator.py,
 * loader.py, merger.py, unit.py, variables.py): find each name on the
 * search path, load its include= names first, merge in load order, then
 * the variables. profile-tuned.c hands the merged profile to
 * tuned-convert.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileio.h"
#include "format-tuned.h"
#include "profile-model.h"
#include "tuned-functions.h"
#include "tuned-internal.h"
#include "util.h"

#define MAX_INCLUDE_DEPTH 32

typedef struct {
        char *dir;   /* a host path (host) or a real directory */
        bool host;
} search_dir;

typedef struct {
        char *key, *value;
        unsigned file, line;
        char *comment;
} raw_option;

/* One tuned file's sections before the merge. */
typedef struct {
        char *name;
        unsigned file, line;
        raw_option *options;
        size_t n;
} raw_section;

typedef struct {
        const ht_context *c;
        json_object *facts;
        search_dir *dirs;
        size_t n_dirs;
        char **processed;     /* the real files loaded, for tuned's skip_files */
        raw_section **profiles;  /* per loaded profile: its sections ([main] too) */
        size_t *n_sections;
        size_t n_profiles;
        tn_profile *out;
        unsigned depth;
} loader;

static void raw_sections_free(raw_section *s, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(s[i].name);
                for (size_t j = 0; j < s[i].n; j++) {
                        free(s[i].options[j].key);
                        free(s[i].options[j].value);
                        free(s[i].options[j].comment);
                }
                free(s[i].options);
        }
        free(s);
}

static char *join_path(const char *dir, const char *name) {
        size_t n = strlen(dir);
        while (n > 1 && dir[n - 1] == '/')
                n--;
        return xasprintf("%.*s/%s", (int)n, dir, name);
}

static const char *base_name(const char *s) {
        const char *b = strrchr(s, '/');
        return b ? b + 1 : s;
}

/* Open a tuned file: a host path through the root context, a real one
 * directly. -ENOENT when there is none. */
static int open_file(const loader *l, const char *path, bool host) {
        /* O_NONBLOCK: a FIFO must not hang the run (read_trusted refuses it) */
        int fd = host ? ht_open(l->c, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0)
                      : open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (fd < 0)
                return host ? fd : -errno;
        return fd;
}

static char *display(const loader *l, const char *path, bool host) {
        return host ? ht_display_path(l->c, path) : xstrdup(path);
}

/* Read a whole file that may be trusted (root's own, as profiles). */
static int read_trusted(const loader *l, const char *path, bool host, unsigned names, char **ret,
                        size_t *ret_len, char **ret_error) {
        _cleanup_free_ char *shown = display(l, path, host);
        _cleanup_close_ int fd = open_file(l, path, host);
        if (fd < 0)
                return ht_error(ret_error, fd, "%s: %s", shown, ht_strerror(-fd));
        return ht_read_trusted(fd, shown, HT_PROFILE_MAX_SIZE, names, ret, ret_len, ret_error);
}

static bool is_file(const loader *l, const char *path, bool host) {
        struct stat st;
        if (host)
                return ht_stat(l->c, path, &st) >= 0 && S_ISREG(st.st_mode);
        return stat(path, &st) >= 0 && S_ISREG(st.st_mode);
}

/* tuned's Locator.get_config: the first DIR/NAME/tuned.conf, except that a
 * file already loaded is passed over (so /etc/tuned/X may include the X
 * of /usr/lib/tuned), and a name starting with '-' may be missing.
 * 1 found (*ret_path, *ret_host), 0 nothing to load, -ENOENT missing. */
static int locate(const loader *l, const char *name, char **ret_path, bool *ret_host) {
        bool conditional = name[0] == '-';
        const char *base = base_name(conditional ? name + 1 : name);
        bool skipped = false;
        for (size_t i = 0; i < l->n_dirs; i++) {
                _cleanup_free_ char *dir = join_path(l->dirs[i].dir, base);
                _cleanup_free_ char *file = join_path(dir, "tuned.conf");
                _cleanup_free_ char *shown = display(l, file, l->dirs[i].host);
                if (strv_contains(l->processed, shown)) {
                        skipped = true;
                        continue;
                }
                if (*base && is_file(l, file, l->dirs[i].host)) {
                        *ret_path = TAKE_PTR(file);
                        *ret_host = l->dirs[i].host;
                        return 1;
                }
        }
        return skipped || conditional ? 0 : -ENOENT;
}

/* ${i:PROFILE_DIR} and ${i:PROFILE_NAME} (not after a backslash), as
 * tuned's loader expands them when it reads a file. */
static char *expand_internal(const char *s, const char *dir, const char *name) {
        strbuf b = {0};
        while (*s) {
                const char *with = NULL;
                size_t n = 0;
                if (startswith(s, "${i:PROFILE_DIR}"))
                        with = dir, n = strlen("${i:PROFILE_DIR}");
                else if (startswith(s, "${i:PROFILE_NAME}"))
                        with = name, n = strlen("${i:PROFILE_NAME}");
                if (with && !(b.len > 0 && b.data[b.len - 1] == '\\')) {
                        strbuf_append(&b, with);
                        s += n;
                        continue;
                }
                strbuf_appendn(&b, s, 1);
                s++;
        }
        return strbuf_steal(&b);
}

static int load_profile_names(loader *l, const char *names, unsigned from_file, unsigned from_line,
                              char **ret_error);

static unsigned add_file(tn_profile *p, const char *shown, const char *dir) {
        /* a variables file is read for include= and again after the merge */
        for (unsigned k = 0; p->files && p->files[k]; k++)
                if (streq(p->files[k], shown))
                        return k;
        unsigned i = (unsigned)strv_length(p->files);
        strv_push(&p->files, shown);
        strv_push(&p->dirs, dir);
        return i;
}

/* The variables a [variables] section defines (tuned's
 * Variables.add_from_cfg): include= reads a variables file; other names
 * are expanded with the ones before them. vars grows as name, value. */
static int add_variables(loader *l, const raw_option *opts, size_t n, char ***vars, char **ret_error);

static int load_one(loader *l, const char *name, const char *path, bool host, char **ret_error) {
        _cleanup_free_ char *buf = NULL;
        size_t len;
        /* NAME/tuned.conf: NAME was found in the directory searched */
        int r = read_trusted(l, path, host, 2, &buf, &len, ret_error);
        if (r < 0)
                return r;
        _cleanup_free_ char *shown = display(l, path, host);
        _cleanup_(ht_tuned_conf_freep) ht_tuned_conf *conf = NULL;
        r = ht_tuned_conf_parse(buf, len, shown, false, &conf, ret_error);
        if (r < 0)
                return r;
        strv_push(&l->processed, shown);
        /* tuned's PROFILE_DIR is the directory as tuned sees it: the host's
         * path, not the --root one */
        _cleanup_free_ char *dir = xstrdup(path);
        *strrchr(dir, '/') = '\0';
        unsigned fi = add_file(l->out, shown, dir);

        raw_section *secs = xcalloc(conf->n_sections ? conf->n_sections : 1, sizeof(*secs));
        for (size_t i = 0; i < conf->n_sections; i++) {
                const ht_tuned_section *s = &conf->sections[i];
                secs[i].name = xstrdup(s->name);
                secs[i].file = fi;
                secs[i].line = s->line;
                secs[i].n = s->n_options;
                secs[i].options = xcalloc(s->n_options ? s->n_options : 1, sizeof(*secs[i].options));
                for (size_t j = 0; j < s->n_options; j++) {
                        const ht_tuned_option *o = &s->options[j];
                        secs[i].options[j] = (raw_option){
                                .key = xstrdup(o->key),
                                .value = expand_internal(o->value, dir, name),
                                .file = fi,
                                .line = o->line,
                                .comment = o->comment ? xstrdup(o->comment) : NULL,
                        };
                }
        }
        size_t nsecs = conf->n_sections;

        /* include= first (tuned's _load_profile): the included profiles
         * come before this one */
        const ht_tuned_section *main_s = ht_tuned_conf_section(conf, "main");
        const ht_tuned_option *inc = main_s ? ht_tuned_section_option(main_s, "include") : NULL;
        if (inc) {
                /* tuned expands include= with the variables known then; this
                 * file's own [variables] count, so a profile may compute it */
                _cleanup_strv_free_ char **vars = NULL;
                for (size_t i = 0; i < nsecs; i++)
                        if (streq(secs[i].name, "variables")) {
                                r = add_variables(l, secs[i].options, secs[i].n, &vars, ret_error);
                                if (r < 0)
                                        goto fail;
                        }
                _cleanup_free_ char *names = NULL;
                _cleanup_free_ char *raw = expand_internal(inc->value, dir, name);
                _cleanup_free_ char *err = NULL;
                r = tn_expand(vars, l->facts, raw, &names, &err);
                if (r < 0) {
                        *ret_error = xasprintf("%s:%u: include=%s: %s", shown, inc->line, inc->value, err);
                        goto fail;
                }
                if (l->depth >= MAX_INCLUDE_DEPTH) {
                        *ret_error = xasprintf("%s:%u: includes nested deeper than %d levels", shown,
                                               inc->line, MAX_INCLUDE_DEPTH);
                        r = -ELOOP;
                        goto fail;
                }
                l->depth++;
                r = load_profile_names(l, names, fi, inc->line, ret_error);
                l->depth--;
                if (r < 0)
                        goto fail;
        }
        l->profiles = xrealloc(l->profiles, (l->n_profiles + 1) * sizeof(*l->profiles));
        l->n_sections = xrealloc(l->n_sections, (l->n_profiles + 1) * sizeof(*l->n_sections));
        l->profiles[l->n_profiles] = secs;
        l->n_sections[l->n_profiles++] = nsecs;
        return 0;
fail:
        raw_sections_free(secs, nsecs);
        return r;
}

/* Names split as tuned splits include= (on ',' or ';' with blanks around),
 * or, for the command line and active_profile, on blanks. */
static char **split_names(const char *s, bool blanks) {
        char **l = NULL;
        const char *p = s;
        while (*p) {
                while (*p == ' ' || *p == '\t' || *p == '\n' || (!blanks && (*p == ',' || *p == ';')))
                        p++;
                if (!*p)
                        break;
                const char *e = p;
                while (*e && !(blanks ? (*e == ' ' || *e == '\t' || *e == '\n') : (*e == ',' || *e == ';')))
                        e++;
                _cleanup_free_ char *w = xstrndup(p, (size_t)(e - p));
                strstrip(w);
                if (*w)
                        strv_push(&l, w);
                else if (!blanks)
                        strv_push(&l, "");
                p = e;
        }
        return l;
}

static int load_profile_names(loader *l, const char *names, unsigned from_file, unsigned from_line,
                              char **ret_error) {
        _cleanup_strv_free_ char **list = split_names(names, from_file == (unsigned)-1);
        for (size_t i = 0; list && list[i]; i++) {
                _cleanup_free_ char *path = NULL;
                bool host = false;
                int r = *list[i] ? locate(l, list[i], &path, &host) : -ENOENT;
                if (r == 0)
                        continue;
                if (r < 0) {
                        _cleanup_strv_free_ char **where = NULL;
                        for (size_t d = 0; d < l->n_dirs; d++)
                                strv_push_take(&where, display(l, l->dirs[d].dir, l->dirs[d].host));
                        _cleanup_free_ char *w = strv_join(where, ", ");
                        if (from_file == (unsigned)-1)
                                *ret_error = xasprintf("tuned profile '%s' not found in %s", list[i], w);
                        else
                                *ret_error = xasprintf("%s:%u: included tuned profile '%s' not found in %s",
                                                       l->out->files[from_file], from_line, list[i], w);
                        return -ENOENT;
                }
                const char *name = base_name(list[i][0] == '-' ? list[i] + 1 : list[i]);
                r = load_one(l, name, path, host, ret_error);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* --- variables ------------------------------------------------------- */

static bool word_name(const char *s) {
        return *s && ht_word_chars(s, "_");
}

static void set_var(char ***vars, const char *name, const char *value) {
        for (size_t i = 0; *vars && (*vars)[i]; i += 2)
                if (streq((*vars)[i], name)) {
                        free((*vars)[i + 1]);
                        (*vars)[i + 1] = xstrdup(value);
                        return;
                }
        strv_push(vars, name);
        strv_push(vars, value);
}

static int add_variable(loader *l, const char *name, const char *value, unsigned file, unsigned line,
                        char ***vars, char **ret_error) {
        if (!word_name(name)) {
                /* tuned logs the error and goes on */
                tn_note(l->out, file, line, "variables", name,
                        "a variable name takes letters, digits and '_' only; tuned ignores it");
                return 0;
        }
        _cleanup_free_ char *v = NULL, *err = NULL;
        int r = tn_expand(*vars, l->facts, value, &v, &err);
        if (r == -ENOTSUP || r == -ENOEXEC) {
                /* unknown here: what uses it is not carried over, with this reason */
                _cleanup_free_ char *marked = xasprintf("%s%s", UNKNOWN_VAR, err);
                set_var(vars, name, marked);
                return 0;
        }
        if (r < 0)
                return ht_error(ret_error, r, "%s:%u: variable %s: %s", l->out->files[file], line, name, err);
        set_var(vars, name, v);
        return 0;
}

static int add_variables_file(loader *l, const char *path, unsigned file, unsigned line, char ***vars,
                              char **ret_error) {
        /* a file under a --tuned-path profile's directory is read there,
         * any other through the root context, as tuned reads it on the host */
        bool host = true;
        for (size_t i = 0; i < l->n_dirs; i++)
                if (!l->dirs[i].host && startswith(path, l->dirs[i].dir))
                        host = false;
        _cleanup_free_ char *shown = display(l, path, host);
        if (!is_file(l, path, host)) {
                /* tuned: "unable to find variables_file", and goes on */
                tn_note(l->out, file, line, "variables", "include",
                        "the variables file %s does not exist; tuned goes on without it", shown);
                return 0;
        }
        _cleanup_free_ char *buf = NULL;
        size_t len;
        int r = read_trusted(l, path, host, 1, &buf, &len, ret_error);
        if (r < 0)
                return r;
        _cleanup_(ht_tuned_conf_freep) ht_tuned_conf *conf = NULL;
        r = ht_tuned_conf_parse(buf, len, shown, true, &conf, ret_error);
        if (r < 0)
                return r;
        unsigned fi = add_file(l->out, shown, "");
        for (size_t i = 0; i < conf->n_sections; i++)
                for (size_t j = 0; j < conf->sections[i].n_options; j++) {
                        const ht_tuned_option *o = &conf->sections[i].options[j];
                        r = add_variable(l, o->key, o->value, fi, o->line, vars, ret_error);
                        if (r < 0)
                                return r;
                }
        return 0;
}

static int add_variables(loader *l, const raw_option *opts, size_t n, char ***vars, char **ret_error) {
        for (size_t i = 0; i < n; i++) {
                int r;
                if (streq(opts[i].key, "include")) {
                        _cleanup_free_ char *path = NULL, *err = NULL;
                        r = tn_expand(*vars, l->facts, opts[i].value, &path, &err);
                        if (r < 0)
                                return ht_error(ret_error, r, "%s:%u: include=%s: %s", l->out->files[opts[i].file],
                                                opts[i].line, opts[i].value, err);
                        r = add_variables_file(l, path, opts[i].file, opts[i].line, vars, ret_error);
                } else
                        r = add_variable(l, opts[i].key, opts[i].value, opts[i].file, opts[i].line, vars,
                                         ret_error);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* --- merge ------------------------------------------------------------- */

static bool truth(const char *v) {
        return v && (streq(v, "True") || streq(v, "true") || streq(v, "1"));
}

static void set_str(char **dst, const char *v) {
        free(*dst);
        *dst = v ? xstrdup(v) : NULL;
}

static tn_unit *find_unit(tn_profile *p, const char *name) {
        for (size_t i = 0; i < p->n_units; i++)
                if (streq(p->units[i].name, name))
                        return &p->units[i];
        return NULL;
}

static void unit_set_option(tn_unit *u, const raw_option *o) {
        for (size_t i = 0; i < u->n_options; i++)
                if (streq(u->options[i].key, o->key)) {
                        /* an OrderedDict update keeps the key's place */
                        set_str(&u->options[i].value, o->value);
                        set_str(&u->options[i].comment, o->comment);
                        u->options[i].file = o->file;
                        u->options[i].line = o->line;
                        return;
                }
        u->options = xrealloc(u->options, (u->n_options + 1) * sizeof(*u->options));
        u->options[u->n_options++] = (tn_option){
                .key = xstrdup(o->key),
                .value = xstrdup(o->value),
                .file = o->file,
                .line = o->line,
                .comment = o->comment ? xstrdup(o->comment) : NULL,
        };
}

static void unit_drop_option(tn_unit *u, const char *key) {
        for (size_t i = 0; i < u->n_options; i++)
                if (streq(u->options[i].key, key)) {
                        free(u->options[i].key);
                        free(u->options[i].value);
                        free(u->options[i].comment);
                        memmove(&u->options[i], &u->options[i + 1], (u->n_options - i - 1) * sizeof(*u->options));
                        u->n_options--;
                        return;
                }
}

static const raw_option *raw_get(const raw_section *s, const char *key) {
        const raw_option *last = NULL;
        for (size_t i = 0; i < s->n; i++)
                if (streq(s->options[i].key, key))
                        last = &s->options[i];
        return last;
}

static bool unit_meta(const char *key) {
        /* and priority, every plugin's instance order (base.py), which
         * hosttune's fixed backend order replaces */
        static const char *const meta[] = {"type", "enabled", "replace", "drop", "devices",
                                           "devices_udev_regex", "cpuinfo_regex", "uname_regex",
                                           "script_pre", "script_post", "priority"};
        for (size_t i = 0; i < ELEMENTSOF(meta); i++)
                if (streq(key, meta[i]))
                        return true;
        return false;
}

/* tuned's Merger._merge_two, one later section onto the profile so far. */
static void merge_section(tn_profile *p, const raw_section *s) {
        const raw_option *o;
        const char *type = (o = raw_get(s, "type")) ? o->value : s->name;
        bool enabled = (o = raw_get(s, "enabled")) ? truth(o->value) : true;
        bool replace = (o = raw_get(s, "replace")) ? truth(o->value) : false;
        const char *devices = (o = raw_get(s, "devices")) ? o->value : "*";
        tn_unit *u = find_unit(p, s->name);
        if (u && replace) {
                tn_unit_done(u);
                memset(u, 0, sizeof(*u));
                u->name = xstrdup(s->name);
        }
        if (!u) {
                p->units = xrealloc(p->units, (p->n_units + 1) * sizeof(*p->units));
                u = &p->units[p->n_units++];
                *u = (tn_unit){.name = xstrdup(s->name)};
        }
        set_str(&u->type, type);
        u->enabled = enabled;
        u->replace = replace;
        set_str(&u->devices, devices);
        u->file = s->file;
        u->line = s->line;
        static const struct {
                const char *key;
                size_t off;
        } kept[] = {
                {"devices_udev_regex", offsetof(tn_unit, devices_udev_regex)},
                {"cpuinfo_regex", offsetof(tn_unit, cpuinfo_regex)},
                {"uname_regex", offsetof(tn_unit, uname_regex)},
                {"script_pre", offsetof(tn_unit, script_pre)},
                {"script_post", offsetof(tn_unit, script_post)},
        };
        for (size_t i = 0; i < ELEMENTSOF(kept); i++)
                if ((o = raw_get(s, kept[i].key)))
                        set_str((char **)((char *)u + kept[i].off), o->value);
        if ((o = raw_get(s, "drop"))) {
                _cleanup_strv_free_ char **names = split_names(o->value, false);
                for (size_t i = 0; names && names[i]; i++)
                        unit_drop_option(u, names[i]);
        }
        for (size_t i = 0; i < s->n; i++)
                if (!unit_meta(s->options[i].key))
                        unit_set_option(u, &s->options[i]);
}

static void merge(loader *l) {
        tn_profile *p = l->out;
        for (size_t i = 0; i < l->n_profiles; i++)
                for (size_t j = 0; j < l->n_sections[i]; j++) {
                        const raw_section *s = &l->profiles[i][j];
                        if (streq(s->name, "main")) {
                                /* profile options: a later summary wins */
                                const raw_option *o = raw_get(s, "summary");
                                if (o) {
                                        set_str(&p->summary, o->value);
                                        p->summary_file = o->file;
                                        p->summary_line = o->line;
                                }
                                continue;
                        }
                        merge_section(p, s);
                }
}

/* --- entry point --------------------------------------------------------- */

static void loader_done(loader *l) {
        for (size_t i = 0; i < l->n_dirs; i++)
                free(l->dirs[i].dir);
        free(l->dirs);
        strv_free(l->processed);
        for (size_t i = 0; i < l->n_profiles; i++)
                raw_sections_free(l->profiles[i], l->n_sections[i]);
        free(l->profiles);
        free(l->n_sections);
}

static void add_dir(loader *l, const char *dir, bool host) {
        l->dirs = xrealloc(l->dirs, (l->n_dirs + 1) * sizeof(*l->dirs));
        l->dirs[l->n_dirs++] = (search_dir){.dir = xstrdup(dir), .host = host};
}

int tn_load(const ht_context *c, json_object *facts, const char *spec, tn_profile *ret, char ***ret_vars,
            char **ret_name, char **ret_error) {
        tn_profile prof = {0};
        loader l = {.c = c, .facts = facts, .out = &prof};
        _cleanup_free_ char *names = NULL;
        _cleanup_strv_free_ char **list = NULL, **vars = NULL;
        int r;
        if (strchr(spec, '/')) {
                /* a profile directory: its parent is searched first, so that
                 * its includes find its siblings, as tuned's own directory */
                _cleanup_free_ char *dir = xstrdup(spec);
                size_t n = strlen(dir);
                while (n > 1 && dir[n - 1] == '/')
                        dir[--n] = '\0';
                char *slash = strrchr(dir, '/');
                names = xstrdup(slash + 1);
                if (slash == dir)
                        slash[1] = '\0';
                else
                        *slash = '\0';
                add_dir(&l, dir, false);
        } else
                names = xstrdup(spec);
        for (size_t i = 0; c->tuned_path && c->tuned_path[i]; i++)
                add_dir(&l, c->tuned_path[i], false);
        add_dir(&l, "/etc/tuned/profiles", true);
        add_dir(&l, "/etc/tuned", true);
        add_dir(&l, "/usr/lib/tuned/profiles", true);
        add_dir(&l, "/usr/lib/tuned", true);

        if (streq(names, "active")) {
                _cleanup_free_ char *shown = ht_display_path(c, "/etc/tuned/active_profile");
                _cleanup_free_ char *text = NULL;
                size_t len;
                r = ht_read_file(c, "/etc/tuned/active_profile", 64 * 1024, &text, &len);
                if (r < 0) {
                        *ret_error = xasprintf("tuned:active: %s: %s", shown, ht_strerror(-r));
                        goto out;
                }
                _cleanup_free_ char *t = xstrdup(strstrip(text));
                if (!*t) {
                        *ret_error = xasprintf("tuned:active: %s names no profile (tuned runs none)", shown);
                        r = -ENOENT;
                        goto out;
                }
                free(names);
                names = normalize_ws(t);
        }
        /* tuned's Loader.load: names of letters, digits, '_', '.', '-' */
        list = split_names(names, true);
        if (!list) {
                *ret_error = xstrdup("no tuned profile named");
                r = -EINVAL;
                goto out;
        }
        for (size_t i = 0; list[i]; i++)
                if (!ht_word_chars(list[i], "_.-") || list[i][0] == '-') {
                        *ret_error = xasprintf("'%s' is not a valid tuned profile name", list[i]);
                        r = -EINVAL;
                        goto out;
                }
        r = load_profile_names(&l, names, (unsigned)-1, 0, ret_error);
        if (r < 0)
                goto out;
        merge(&l);

        /* the merged [variables], in order, then every value expanded */
        tn_unit *v = find_unit(&prof, "variables");
        if (v) {
                raw_option *opts = xcalloc(v->n_options ? v->n_options : 1, sizeof(*opts));
                for (size_t i = 0; i < v->n_options; i++)
                        opts[i] = (raw_option){.key = v->options[i].key, .value = v->options[i].value,
                                               .file = v->options[i].file, .line = v->options[i].line};
                r = add_variables(&l, opts, v->n_options, &vars, ret_error);
                free(opts);
                if (r < 0)
                        goto out;
        }
        *ret_name = strv_join(list, " ");
        *ret_vars = TAKE_PTR(vars);
        *ret = prof;
        prof = (tn_profile){0};
out:
        loader_done(&l);
        tn_profile_done(&prof);
        return r;
}
