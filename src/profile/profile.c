/* Profile resolution: the inheritance chain, parameters and --set, the
 * evaluation of every setting with its provenance, conflicts between
 * parents, and the resolved profile as JSON and text. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "accounts.h"
#include "backend.h"
#include "profile-builtin.h"
#include "profile-internal.h"
#include "compose.h"
#include "tuned.h"
#include "util.h"

#ifndef HT_DATADIR
#define HT_DATADIR "/usr/share/hosttune"
#endif

/* The installation's data directory: HOSTTUNE_DATADIR (absolute) runs an
 * unpacked or relocated installation, and lets the tests give one that
 * is incomplete or missing; else where hosttune was installed. */
static const char *datadir(void) {
        const char *e = getenv("HOSTTUNE_DATADIR");
        return e && e[0] == '/' ? e : HT_DATADIR;
}

static char *join_root(const ht_context *c, const char *path) {
        const char *root = c && c->root ? c->root : "/";
        size_t n = strlen(root);
        while (n > 0 && root[n - 1] == '/')
                n--;
        return xasprintf("%.*s%s", (int)n, root, path);
}

int ht_profile_default_path(const ht_context *c, char ***ret) {
        char **l = NULL;
        strv_push_take(&l, join_root(c, "/etc/hosttune/profiles"));
        strv_push_take(&l, xasprintf("%s/profiles", datadir()));
        *ret = l;
        return 0;
}

int ht_rules_default_path(const ht_context *c, char ***ret) {
        char **l = NULL;
        strv_push_take(&l, join_root(c, "/etc/hosttune/rules"));
        strv_push_take(&l, xasprintf("%s/rules", datadir()));
        *ret = l;
        return 0;
}

static char **profile_dirs(const ht_context *c) {
        char **l = NULL;
        if (c->profile_path)
                for (size_t i = 0; c->profile_path[i]; i++)
                        strv_push(&l, c->profile_path[i]);
        else
                ht_profile_default_path(c, &l);
        return l;
}

/* The rules files to read, by name, with the built-in copy to use where
 * there is no file (entries of *ret_builtin are NULL for files). Rules
 * are not optional by accident:
 *  - a directory named with --rules-path must exist and hold *.rules;
 *  - every rules file hosttune ships (the built-in table knows them) must
 *    be on the path, under /etc/hosttune/rules or a --rules-path to
 *    replace it, or in the installation's directory. When that directory
 *    exists and lacks one, the installation is incomplete: an error
 *    naming the file. When it does not exist at all (hosttune run from
 *    its build tree, or installed without its data files), the built-in
 *    copies stand in, and *ret_warning says so. */
static int find_rules(const ht_context *c, char *const *dirs, char ***ret_paths,
                      const ht_builtin_file ***ret_builtin, char **ret_warning, char **ret_error) {
        for (size_t i = 0; c->rules_path && i < c->rules_path_given && c->rules_path[i]; i++) {
                const char *d = c->rules_path[i];
                struct stat st;
                if (stat(d, &st) < 0 || !S_ISDIR(st.st_mode)) {
                        int r = stat(d, &st) < 0 ? -errno : -ENOTDIR;
                        *ret_error = xasprintf("--rules-path %s: %s", d, ht_strerror(-r));
                        return r;
                }
                _cleanup_strv_free_ char **found = NULL;
                int r = ht_search_path_list((char *const[]){(char *)d, NULL}, ".rules", NULL, &found, ret_error);
                if (r < 0)
                        return r;
                if (!found) {
                        *ret_error = xasprintf("--rules-path %s: no rules files (NAME.rules) in this directory; "
                                               "name a directory that holds rules, or leave the option out "
                                               "to use the installed ones", d);
                        return -ENOENT;
                }
        }
        _cleanup_strv_free_ char **paths = NULL, **names = NULL;
        int r = ht_search_path_list(dirs, ".rules", &paths, &names, ret_error);
        if (r < 0)
                return r;
        size_t n = strv_length(names);
        const ht_builtin_file **builtin = xcalloc(n + ht_builtin_n_files + 1, sizeof(*builtin));

        _cleanup_free_ char *inst = xasprintf("%s/rules", datadir());
        struct stat st;
        bool inst_exists = stat(inst, &st) == 0;
        _cleanup_free_ char *used = NULL;
        for (size_t i = 0; i < ht_builtin_n_files; i++) {
                const ht_builtin_file *b = &ht_builtin_files[i];
                if (!endswith(b->name, ".rules"))
                        continue;
                _cleanup_free_ char *name = xstrndup(b->name, strlen(b->name) - strlen(".rules"));
                if (strv_contains(names, name))
                        continue;
                if (inst_exists) {
                        _cleanup_free_ char *searched = strv_join((char **)dirs, ":");
                        *ret_error = xasprintf("%s/%s: missing: hosttune ships this rules file, and it is on no "
                                               "directory of the rules path (%s); the installation is incomplete: "
                                               "reinstall hosttune, or put a file of that name in "
                                               "/etc/hosttune/rules to replace it",
                                               inst, b->name, searched);
                        free(builtin);
                        return -ENOENT;
                }
                strv_push(&names, name);
                strv_push_take(&paths, xasprintf(HT_BUILTIN_RULES_DIR "/%s", b->name));
                builtin[n++] = b;
                char *u = xasprintf("%s%s%s", used ? used : "", used ? ", " : "", b->name);
                free(used);
                used = u;
        }
        /* the rules run in file name order, whichever copy each comes from */
        for (size_t i = 1; i < n; i++)
                for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
                        char *t = names[j];
                        names[j] = names[j - 1];
                        names[j - 1] = t;
                        t = paths[j];
                        paths[j] = paths[j - 1];
                        paths[j - 1] = t;
                        const ht_builtin_file *bt = builtin[j];
                        builtin[j] = builtin[j - 1];
                        builtin[j - 1] = bt;
                }
        if (used)
                *ret_warning = xasprintf("%s does not exist (hosttune's data files are not installed), so the rules "
                                         "hosttune ships are taken from the copies built into hosttune %s: %s",
                                         inst, PACKAGE_VERSION, used);
        *ret_paths = TAKE_PTR(paths);
        *ret_builtin = builtin;
        return 0;
}

static char **rules_dirs(const ht_context *c) {
        char **l = NULL;
        if (c->rules_path)
                for (size_t i = 0; c->rules_path[i]; i++)
                        strv_push(&l, c->rules_path[i]);
        else
                ht_rules_default_path(c, &l);
        return l;
}

void ht_setting_done(ht_setting *s) {
        free(s->key);
        free(s->value);
        free(s->source);
        free(s->citation);
        free(s->domain);
        free(s->type);
        free(s->item);
        free(s->unit);
        free(s->directive);
        free(s->target);
        *s = (ht_setting){0};
}

/* "sysctl vm.swappiness", "limits oracle soft memlock", for messages. */
static char *setting_label(const ht_setting *s) {
        const ht_backend *bk = ht_backend_get(s->backend);
        if (bk && bk->label)
                return bk->label(s);
        return xasprintf("%s %s", ht_backend_id_to_string(s->backend), s->key);
}

static const char *value_or_removed(const ht_setting *s) {
        if (s->remove)
                return isempty(s->value) ? "(removed)" : "(this value removed)";
        return s->value ? s->value : "(unset)";
}

/* What show prints after a bounded value: which way the host may differ. */
static const char *bound_suffix(ht_bound b) {
        switch (b) {
        case HT_BOUND_AT_LEAST: return " (at least)";
        case HT_BOUND_AT_MOST: return " (at most)";
        case HT_BOUND_RANGE: return " (range)";
        default: return "";
        }
}

/* --- values --------------------------------------------------------- */

char *ht_value_format(const ht_value *v) {
        switch (v->type) {
        case HT_VAL_INT: {
                if (v->den == 1 || v->den == 0)
                        return xasprintf("%" PRId64, v->num);
                /* A fraction in a message: two decimals are enough to read. */
                __int128 n = v->num, d = v->den;
                bool neg = n < 0;
                if (neg)
                        n = -n;
                __int128 scaled = (n * 100 + d / 2) / d;
                long long ip = (long long)(scaled / 100);
                int fp = (int)(scaled % 100);
                if (fp % 10 == 0)
                        return xasprintf("%s%lld.%d", neg ? "-" : "", ip, fp / 10);
                return xasprintf("%s%lld.%02d", neg ? "-" : "", ip, fp);
        }
        case HT_VAL_BOOL:
                return xstrdup(v->num ? "true" : "false");
        case HT_VAL_STR:
                return xstrdup(v->str ? v->str : "");
        default:
                return xstrdup("unknown");
        }
}

/* --- the lookup behind every expression ----------------------------- */

static void fact_names(json_object *o, const char *prefix, char ***l) {
        json_object_object_foreach(o, k, v) {
                _cleanup_free_ char *n = prefix ? xasprintf("%s.%s", prefix, k) : xstrdup(k);
                if (v && json_object_is_type(v, json_type_object))
                        fact_names(v, n, l);
                else
                        strv_pushf(l, "facts.%s", n);
        }
}

static void set_lookup_error(ht_resolver *r, char *msg) {
        if (r->lookup_error)
                free(msg);
        else
                r->lookup_error = msg;
}

/* The names next to an unknown one, for the evaluator's "did you mean". */
static void set_candidates(ht_resolver *r, char **candidates) {
        strv_free(r->candidates);
        r->candidates = candidates;
}

static char **take_candidates(void *userdata) {
        ht_resolver *r = userdata;
        return TAKE_PTR(r->candidates);
}

/* The HugePages an existing set of SysV segments needs at the default
 * page size: the sum of ceil(size / Hugepagesize) over the segments, as
 * Oracle's hugepages_settings.sh computes it (MOS Doc ID 401749.1). */
static int derived_shm_pages(ht_resolver *r, ht_value *ret) {
        bool e1, e2;
        json_object *kb = ht_facts_lookup_field(r->facts, "hugepages.default_size_kb", &e1);
        json_object *sizes = ht_facts_lookup_field(r->facts, "shm.sizes_bytes", &e2);
        if (!kb || !json_object_is_type(kb, json_type_int) || json_object_get_int64(kb) <= 0 ||
            !sizes || !json_object_is_type(sizes, json_type_array)) {
                *ret = ht_value_null();
                return 0;
        }
        uint64_t page = (uint64_t)json_object_get_int64(kb) * 1024, total = 0;
        for (size_t i = 0; i < json_object_array_length(sizes); i++) {
                int64_t sz = json_object_get_int64(json_object_array_get_idx(sizes, i));
                if (sz < 0)
                        continue;
                total += ((uint64_t)sz + page - 1) / page;
        }
        *ret = ht_value_int((int64_t)total);
        return 0;
}

/* The part of the workload facts a dotted name needs:
 * workload.oracle.*, workload.warnings.oracle, ... read only that
 * workload's files; anything else ("workload", workload.processes) all. */
static unsigned workload_part(const char *dotted) {
        static const struct {
                const char *name;
                unsigned part;
        } parts[] = {
                {"oracle", HT_WORKLOAD_ORACLE},
                {"mysql", HT_WORKLOAD_MYSQL},
                {"jvm", HT_WORKLOAD_JVM},
        };
        const char *g = startswith(dotted, "workload.warnings.") ? dotted + 18
                        : startswith(dotted, "workload.")        ? dotted + 9
                                                                 : NULL;
        if (!g)
                return HT_WORKLOAD_ALL;
        size_t n = strcspn(g, ".");
        for (size_t i = 0; i < ELEMENTSOF(parts); i++)
                if (strlen(parts[i].name) == n && strncmp(g, parts[i].name, n) == 0)
                        return parts[i].part;
        return HT_WORKLOAD_ALL;
}

static ht_rparam *find_param(ht_resolver *r, const char *name);

/* The users and units the administrator names for the workloads: a
 * parameter given a plain value, on the command line (--set) or in a
 * profile; a default computed from the facts names nobody (it would
 * trust what it was read from). ht_workload_trust is indexed by
 * ht_process_kind. */
static void workload_trust(ht_resolver *r, ht_workload_trust *t) {
        static const struct {
                const char *param;
                ht_process_kind kind;
                bool unit;
        } named[] = {
                {"oracle_user", HT_PROC_ORACLE, false},
                {"mysql_user", HT_PROC_MYSQL, false}, {"mysql_unit", HT_PROC_MYSQL, true},
                {"jvm_user", HT_PROC_JAVA, false},    {"jvm_unit", HT_PROC_JAVA, true},
        };
        *t = (ht_workload_trust){0};
        for (size_t i = 0; i < ELEMENTSOF(named); i++) {
                const ht_rparam *p = find_param(r, named[i].param);
                if (!p || p->spec.kind != HT_SPEC_LIT || p->spec.lit.type != HT_VAL_STR ||
                    isempty(p->spec.lit.str))
                        continue;
                char **slot = named[i].unit ? &t->unit[named[i].kind] : &t->user[named[i].kind];
                *slot = p->spec.lit.str;
        }
}

/* The processes a workload's facts left out (facts.workload.GROUP.not_used),
 * for show and plan to list; each once. */
static void collect_not_used(ht_resolver *r, const char *group) {
        _cleanup_free_ char *name = xasprintf("workload.%s.not_used", group);
        json_object *l = ht_facts_lookup_field(r->facts, name, NULL);
        if (!l || !json_object_is_type(l, json_type_array) || !json_object_array_length(l))
                return;
        if (!r->not_used)
                r->not_used = json_object_new_array();
        for (size_t i = 0; i < json_object_array_length(l); i++) {
                json_object *e = json_object_array_get_idx(l, i);
                bool have = false;
                for (size_t k = 0; k < json_object_array_length(r->not_used) && !have; k++)
                        have = json_object_equal(json_object_array_get_idx(r->not_used, k), e);
                if (!have)
                        json_object_array_add(r->not_used, json_object_get(e));
        }
}

static void load_workload(ht_resolver *r, const char *dotted) {
        /* facts that came with their workload part (collected with it, or
         * a --facts file) are kept as they are */
        if (!r->workload_parts && json_object_object_get_ex(r->facts, "workload", NULL))
                r->workload_parts = HT_WORKLOAD_ALL;
        unsigned want = workload_part(dotted);
        if ((want & r->workload_parts) == want)
                return;
        ht_workload_trust trust;
        workload_trust(r, &trust);
        json_object *have = NULL;
        if (want == HT_WORKLOAD_ALL || !r->workload_parts ||
            !json_object_object_get_ex(r->facts, "workload", &have)) {
                /* all of it read anew: what was read before is replaced */
                if (r->workload_parts)
                        want = HT_WORKLOAD_ALL;
                json_object_object_add(r->facts, "workload", ht_facts_workload_json(r->c, want, &trust));
                r->workload_parts |= want;
                return;
        }
        json_object *fresh = ht_facts_workload_json(r->c, want, &trust);
        /* one more workload beside those read before: its group and its
         * warnings move into the tree the resolver has */
        static const char *const groups[] = {"oracle", "mysql", "jvm"};
        json_object *ws_have = NULL, *ws_fresh = NULL;
        json_object_object_get_ex(have, "warnings", &ws_have);
        json_object_object_get_ex(fresh, "warnings", &ws_fresh);
        for (size_t i = 0; i < ELEMENTSOF(groups); i++) {
                if (!(want & (1u << i)))
                        continue;
                json_object *o = NULL;
                if (json_object_object_get_ex(fresh, groups[i], &o))
                        json_object_object_add(have, groups[i], json_object_get(o));
                if (ws_have && ws_fresh && json_object_object_get_ex(ws_fresh, groups[i], &o))
                        json_object_object_add(ws_have, groups[i], json_object_get(o));
        }
        json_object_put(fresh);
        r->workload_parts |= want;
}

/* facts.block and facts.cpu.cpufreq of a running host, read on first
 * use; a --facts file's (an image) and collected ones stay. */
static void load_devices(ht_resolver *r) {
        r->devices_read = true;
        json_object *block = ht_facts_lookup_field(r->facts, "block.devices", NULL);
        json_object *offline = ht_facts_lookup_field(r->facts, "image.offline", NULL);
        json_object *cpu = NULL;
        if (block || (offline && json_object_get_boolean(offline)) ||
            !json_object_object_get_ex(r->facts, "cpu", &cpu) || !json_object_is_type(cpu, json_type_object))
                return;
        json_object *devs = ht_facts_devices_json(r->c, &r->warnings), *o = NULL;
        if (json_object_object_get_ex(devs, "block", &o))
                json_object_object_add(r->facts, "block", json_object_get(o));
        if (json_object_object_get_ex(devs, "cpufreq", &o))
                json_object_object_add(cpu, "cpufreq", json_object_get(o));
        json_object_put(devs);
}

static bool names_devices(const char *dotted) {
        return streq(dotted, "block") || startswith(dotted, "block.") || streq(dotted, "cpu") ||
               streq(dotted, "cpu.cpufreq") || startswith(dotted, "cpu.cpufreq.");
}

static int lookup_fact(ht_resolver *r, const char *dotted, ht_value *ret) {
        if (streq(dotted, "shm.hugepages_needed"))
                return derived_shm_pages(r, ret);
        if (!r->devices_read && r->c && r->facts && json_object_is_type(r->facts, json_type_object) &&
            names_devices(dotted))
                load_devices(r);
        /* Plans collect no workload facts up front (HT_FACTS_HOST): an
         * expression that names them has them read now. */
        if ((streq(dotted, "workload") || startswith(dotted, "workload.")) && r->c && r->facts &&
            json_object_is_type(r->facts, json_type_object))
                load_workload(r, dotted);
        /* What reading a workload's files found wrong (a database left
         * out, a file not read) is shown by the plans that use its facts:
         * workload.warnings.oracle for facts.workload.oracle.*, ... */
        json_object *ws = NULL;
        if (startswith(dotted, "workload.") && !startswith(dotted, "workload.warnings") && r->facts &&
            json_object_is_type(r->facts, json_type_object)) {
                _cleanup_free_ char *group = xstrndup(dotted + 9, strcspn(dotted + 9, "."));
                _cleanup_free_ char *wn = xasprintf("workload.warnings.%s", group);
                ws = ht_facts_lookup_field(r->facts, wn, NULL);
        }
        if (startswith(dotted, "workload.") && !startswith(dotted, "workload.warnings") && r->facts &&
            json_object_is_type(r->facts, json_type_object)) {
                _cleanup_free_ char *group = xstrndup(dotted + 9, strcspn(dotted + 9, "."));
                collect_not_used(r, group);
        }
        for (size_t i = 0; ws && json_object_is_type(ws, json_type_array) && i < json_object_array_length(ws); i++) {
                const char *m = json_object_get_string(json_object_array_get_idx(ws, i));
                if (m && !strv_contains(r->warnings, m))
                        strv_push(&r->warnings, m);
        }
        bool exists;
        json_object *o = ht_facts_lookup_field(r->facts, dotted, &exists);
        /* Provenance: a fact read from the host's files says which, in a
         * NAME_from string beside it ("sga_bytes_from"). */
        if (exists && o && !json_object_is_type(o, json_type_null)) {
                _cleanup_free_ char *fn = xasprintf("%s_from", dotted);
                bool fe;
                json_object *from = ht_facts_lookup_field(r->facts, fn, &fe);
                if (from && json_object_is_type(from, json_type_string) &&
                    !strv_contains(r->fact_from, json_object_get_string(from)))
                        strv_push(&r->fact_from, json_object_get_string(from));
        }
        if (!exists) {
                char **names = NULL;
                if (r->facts && json_object_is_type(r->facts, json_type_object))
                        fact_names(r->facts, NULL, &names);
                strv_push(&names, "facts.shm.hugepages_needed");
                set_candidates(r, names);
                return -ENOENT;
        }
        switch (o ? json_object_get_type(o) : json_type_null) {
        case json_type_null:
                *ret = ht_value_null();
                return 0;
        case json_type_boolean:
                *ret = ht_value_bool(json_object_get_boolean(o));
                return 0;
        case json_type_int:
                *ret = ht_value_int(json_object_get_int64(o));
                return 0;
        case json_type_double: {
                double d = json_object_get_double(o);
                if (d != (double)(int64_t)d) {
                        set_lookup_error(r, xasprintf("facts.%s is not a whole number", dotted));
                        return -EINVAL;
                }
                *ret = ht_value_int((int64_t)d);
                return 0;
        }
        case json_type_string:
                *ret = ht_value_str(json_object_get_string(o));
                return 0;
        case json_type_array: {
                /* A list fact (cpu.flags, hugepages.sizes_kb) reads as its
                 * words joined with spaces, for contains(). */
                strbuf b = {0};
                for (size_t i = 0; i < json_object_array_length(o); i++) {
                        json_object *e = json_object_array_get_idx(o, i);
                        if (i)
                                strbuf_append(&b, " ");
                        strbuf_append(&b, e ? json_object_get_string(e) : "null");
                }
                char *s = b.data ? strbuf_steal(&b) : xstrdup("");
                *ret = ht_value_str(s);
                free(s);
                return 0;
        }
        default:
                set_lookup_error(r, xasprintf("facts.%s is a group of facts, not a value", dotted));
                return -EINVAL;
        }
}

static int lookup_setting(ht_resolver *r, const char *rest, ht_value *ret) {
        const char *dot = strchr(rest, '.');
        _cleanup_free_ char *bname = dot ? xstrndup(rest, dot - rest) : xstrdup(rest);
        ht_backend_id b;
        if (!dot || ht_backend_from_string(bname, &b) < 0) {
                char **names = NULL;
                for (int i = 0; i < _HT_BK_MAX; i++)
                        strv_pushf(&names, "setting.%s%s", ht_backend_id_to_string(i),
                                   dot ? dot : "");
                set_candidates(r, names);
                return -ENOENT;
        }
        for (size_t i = 0; i < r->n_settings; i++) {
                const ht_setting *s = &r->settings[i].s;
                if (s->backend != b || s->remove || !s->value)
                        continue;
                /* most names are their keys: no copy */
                _cleanup_free_ char *n = ht_backends[b]->expr_name ? ht_backends[b]->expr_name(s) : NULL;
                if (streq(n ? n : s->key, dot + 1)) {
                        *ret = ht_value_parse_literal(s->value);
                        return 0;
                }
        }
        *ret = ht_value_null();
        return 0;
}

static ht_rparam *find_param(ht_resolver *r, const char *name) {
        /* a thousand look-ups a plan among ~70 names: the first byte
         * rules out most without a call */
        for (size_t i = 0; i < r->n_params; i++)
                if (r->params[i].name[0] == name[0] && streq(r->params[i].name, name))
                        return &r->params[i];
        return NULL;
}

static char **param_names(ht_resolver *r) {
        char **l = NULL;
        for (size_t i = 0; i < r->n_params; i++)
                strv_push(&l, r->params[i].name);
        return l;
}

static int eval_param(ht_resolver *r, ht_rparam *p, char **ret_error);

static int lookup_param(ht_resolver *r, const char *name, ht_value *ret) {
        ht_rparam *p = find_param(r, name);
        if (!p) {
                set_candidates(r, param_names(r));
                return -ENOENT;
        }
        char *e = NULL;
        int k = eval_param(r, p, &e);
        if (k < 0) {
                set_lookup_error(r, e);
                return k == -ENOENT ? -EINVAL : k;
        }
        if (p->from && !strv_contains(r->fact_from, p->from))
                strv_push(&r->fact_from, p->from);
        *ret = ht_value_copy(&p->value);
        return 0;
}

/* /etc/group of the host behind the context. */
static int lookup_gid(ht_resolver *r, const char *param, ht_value *ret) {
        ht_value name = {0};
        if (!find_param(r, param)) {
                char **names = NULL;
                for (size_t i = 0; i < r->n_params; i++)
                        strv_pushf(&names, "gid.%s", r->params[i].name);
                set_candidates(r, names);
                return -ENOENT;
        }
        int k = lookup_param(r, param, &name);
        if (k < 0)
                return k;
        if (name.type != HT_VAL_STR || isempty(name.str)) {
                ht_value_done(&name);
                *ret = ht_value_null();
                return 0;
        }
        if (!r->groups_read) {
                r->groups_read = true;
                /* unreadable: no group is known, as with an empty file */
                if (!r->c || ht_group_read(r->c, &r->groups) < 0)
                        r->groups = (ht_group){0};
        }
        const ht_group_entry *g = ht_group_by_name(&r->groups, name.str);
        *ret = g ? ht_value_int((int64_t)g->gid) : ht_value_null();
        ht_value_done(&name);
        return 0;
}

static int lookup(void *userdata, const char *name, ht_value *ret) {
        ht_resolver *r = userdata;
        if (startswith(name, "facts."))
                return lookup_fact(r, name + 6, ret);
        if (startswith(name, "setting."))
                return lookup_setting(r, name + 8, ret);
        if (startswith(name, "gid."))
                return lookup_gid(r, name + 4, ret);
        return lookup_param(r, name, ret);
}

/* --- evaluating specs ----------------------------------------------- */

/* For a fact a running kernel would know: on an offline image without
 * --facts, say where it can come from. "" otherwise. */
static const char *offline_hint(ht_resolver *r) {
        bool e1, e2;
        json_object *off = ht_facts_lookup_field(r->facts, "image.offline", &e1);
        json_object *file = ht_facts_lookup_field(r->facts, "image.facts_file", &e2);
        if (off && json_object_is_type(off, json_type_boolean) && json_object_get_boolean(off) && !file)
                return "\n  (this is an offline image: the facts only a running kernel knows come from "
                       "--facts FILE, what 'hosttune facts --json' prints on a machine of the target shape)";
        return "";
}

static int eval_expr(ht_resolver *r, const char *text, const char *file, unsigned line,
                     const char *what, ht_value *ret, char **ret_error) {
        free(r->lookup_error);
        r->lookup_error = NULL;
        set_candidates(r, NULL);
        _cleanup_free_ char *e = NULL;
        ht_value v = ht_value_null();
        ht_expr_env env = {.lookup = lookup, .userdata = r, .candidates = take_candidates};
        int k = ht_expr_eval_ex(text, &env, &v, &e);
        set_candidates(r, NULL);
        if (k < 0) {
                ht_value_done(&v);
                if (r->lookup_error)
                        *ret_error = line ? xasprintf("%s\n  (needed by %s:%u: %s)",
                                                      r->lookup_error, file, line, what)
                                          : xasprintf("%s\n  (needed by %s: %s)",
                                                      r->lookup_error, file, what);
                else if (line)
                        *ret_error = xasprintf("%s:%u: %s: %s%s", file, line, what,
                                               e ? e : ht_strerror(-k), k == -ENODATA ? offline_hint(r) : "");
                else
                        *ret_error = xasprintf("%s %s: %s%s", file, what, e ? e : ht_strerror(-k),
                                               k == -ENODATA ? offline_hint(r) : "");
                free(r->lookup_error);
                r->lookup_error = NULL;
                return k;
        }
        *ret = v;
        return 0;
}

/* "${EXPR}" replaced by the value of EXPR, "$${" by "${". With
 * null_text, an unknown value reads "unknown" (messages); otherwise the
 * whole template is null (settings: optional ones are then skipped). */
static int eval_template(ht_resolver *r, const char *text, const char *file, unsigned line,
                         const char *what, bool null_text, ht_value *ret, char **ret_error) {
        strbuf b = {0};
        bool is_null = false;
        const char *p = text;
        while (*p) {
                if (p[0] == '$' && p[1] == '$' && p[2] == '{') {
                        strbuf_append(&b, "${");
                        p += 3;
                        continue;
                }
                if (p[0] != '$' || p[1] != '{') {
                        strbuf_appendn(&b, p++, 1);
                        continue;
                }
                const char *s = p + 2;
                bool quoted = false;
                while (*s && (quoted || *s != '}')) {
                        if (*s == '"')
                                quoted = !quoted;
                        else if (quoted && *s == '\\' && s[1])
                                s++;
                        s++;
                }
                if (*s != '}') {
                        strbuf_done(&b);
                        *ret_error = xasprintf("%s:%u: %s: '${' without a closing '}'", file, line,
                                               what);
                        return -EINVAL;
                }
                _cleanup_free_ char *expr = xstrndup(p + 2, s - p - 2);
                ht_value v = {0};
                int k = eval_expr(r, expr, file, line, what, &v, ret_error);
                if (k < 0) {
                        strbuf_done(&b);
                        return k;
                }
                if (v.type == HT_VAL_NULL && !null_text)
                        is_null = true;
                _cleanup_free_ char *t = ht_value_format(&v);
                ht_value_done(&v);
                strbuf_append(&b, t);
                p = s + 1;
        }
        char *out = b.data ? strbuf_steal(&b) : xstrdup("");
        *ret = is_null ? ht_value_null() : ht_value_str(out);
        free(out);
        return 0;
}

static int spec_eval(ht_resolver *r, const ht_spec *sp, const char *file, unsigned line,
                     const char *what, bool null_text, ht_value *ret, char **ret_error) {
        switch (sp->kind) {
        case HT_SPEC_LIT:
                *ret = ht_value_copy(&sp->lit);
                return 0;
        case HT_SPEC_EXPR:
                return eval_expr(r, sp->text, file, line, what, ret, ret_error);
        case HT_SPEC_TEMPLATE:
                return eval_template(r, sp->text, file, line, what, null_text, ret, ret_error);
        default:
                *ret = ht_value_null();
                return 0;
        }
}

int ht_spec_eval(ht_resolver *r, const ht_spec *sp, const char *file, unsigned line,
                 const char *what, ht_value *ret, char **ret_error) {
        return spec_eval(r, sp, file, line, what, false, ret, ret_error);
}

int ht_spec_eval_message(ht_resolver *r, const ht_spec *sp, const char *file, unsigned line,
                         const char *what, char **ret, char **ret_error) {
        ht_value v = {0};
        int k = spec_eval(r, sp, file, line, what, true, &v, ret_error);
        if (k < 0)
                return k;
        *ret = ht_value_format(&v);
        ht_value_done(&v);
        return 0;
}

/* --- parameters ----------------------------------------------------- */

static void declare_param(ht_resolver *r, const ht_param_decl *d) {
        ht_rparam *p = find_param(r, d->name);
        if (!p) {
                r->params = xrealloc(r->params, (r->n_params + 1) * sizeof(*r->params));
                p = &r->params[r->n_params++];
                *p = (ht_rparam){.name = xstrdup(d->name)};
        } else {
                ht_spec_done(&p->spec);
                free(p->source);
        }
        ht_spec_copy(&p->spec, &d->spec);
        /* A string default reads like a --set value: "18G" is a size. */
        if (p->spec.kind == HT_SPEC_LIT && p->spec.lit.type == HT_VAL_STR) {
                ht_value v = ht_value_parse_literal(p->spec.lit.str);
                if (v.type == HT_VAL_STR)
                        ht_value_done(&v);
                else {
                        ht_value_done(&p->spec.lit);
                        p->spec.lit = v;
                }
        }
        p->source = xasprintf("%s:%u", d->file, d->line);
        p->citation = d->comment;
        p->file = d->file;
        p->line = d->line;
}

static int eval_param(ht_resolver *r, ht_rparam *p, char **ret_error) {
        if (p->state == 2)
                return 0;
        if (p->state == 1) {
                strbuf b = {0};
                bool on = false;
                for (size_t i = 0; r->param_stack && r->param_stack[i]; i++) {
                        if (streq(r->param_stack[i], p->name))
                                on = true;
                        if (on)
                                strbuf_appendf(&b, "%s -> ", r->param_stack[i]);
                }
                strbuf_append(&b, p->name);
                _cleanup_free_ char *chain = strbuf_steal(&b);
                *ret_error = xasprintf("%s:%u: params %s: the parameters refer to each other: %s",
                                       p->file, p->line, p->name, chain);
                return -ELOOP;
        }
        p->state = 1;
        strv_push(&r->param_stack, p->name);
        _cleanup_free_ char *what = p->line ? xasprintf("params %s", p->name) : xstrdup(p->name);
        /* Nested lookups reset the evaluator's side channel: keep ours. */
        char *saved_error = TAKE_PTR(r->lookup_error);
        char **saved_cands = TAKE_PTR(r->candidates);
        char **saved_from = TAKE_PTR(r->fact_from);
        ht_value v = {0};
        int k = ht_spec_eval(r, &p->spec, p->file, p->line, what, &v, ret_error);
        free(r->lookup_error);
        r->lookup_error = saved_error;
        set_candidates(r, saved_cands);
        /* A value of nothing (0, "", null) took nothing from those files. */
        _cleanup_strv_free_ char **from = TAKE_PTR(r->fact_from);
        r->fact_from = saved_from;
        bool something = k >= 0 && !(v.type == HT_VAL_NULL || (v.type == HT_VAL_INT && v.num == 0) ||
                                     (v.type == HT_VAL_STR && isempty(v.str)));
        free(p->from);
        p->from = something && from ? strv_join(from, ", ") : NULL;
        size_t n = strv_length(r->param_stack);
        free(r->param_stack[n - 1]);
        r->param_stack[n - 1] = NULL;
        if (k < 0) {
                p->state = 0;
                return k;
        }
        p->value = v;
        p->state = 2;
        return 0;
}

static bool parse_bool_word(const char *s, bool *ret) {
        if (streq(s, "true") || streq(s, "yes") || streq(s, "on") || streq(s, "1"))
                *ret = true;
        else if (streq(s, "false") || streq(s, "no") || streq(s, "off") || streq(s, "0"))
                *ret = false;
        else
                return false;
        return true;
}

static int apply_set(ht_resolver *r, const char *assignment, char **ret_error) {
        const char *eq = strchr(assignment, '=');
        if (!eq || eq == assignment) {
                *ret_error = xasprintf("--set %s: expected NAME=VALUE", assignment);
                return -EINVAL;
        }
        _cleanup_free_ char *name = xstrndup(assignment, eq - assignment);
        const char *text = eq + 1;
        ht_rparam *p = find_param(r, name);
        if (!p) {
                _cleanup_strv_free_ char **names = param_names(r);
                const char *close = closest_word(name, names);
                *ret_error = xasprintf("--set %s: unknown parameter '%s'%s%s%s", assignment, name,
                                       close ? " (did you mean '" : "", close ? close : "",
                                       close ? "'?)" : "");
                return -EINVAL;
        }
        if (has_control_chars(text)) {
                *ret_error = xasprintf("--set %s: control characters are not allowed", name);
                return -EINVAL;
        }
        ht_spec sp = {0};
        if (text[0] == '=') {
                _cleanup_free_ char *e = xstrdup(text + 1);
                if (isempty(strstrip(e))) {
                        *ret_error = xasprintf("--set %s: empty expression after '='", name);
                        return -EINVAL;
                }
                sp = (ht_spec){.kind = HT_SPEC_EXPR, .text = xstrdup(strstrip(e))};
        } else {
                ht_value v = ht_value_parse_literal(text);
                const ht_value *decl = p->spec.kind == HT_SPEC_LIT ? &p->spec.lit : NULL;
                bool b;
                /* A default given by an expression has no type to check
                 * against; a size that does not parse is an error all the
                 * same (sga_max_size defaults to a fact). */
                size_t digits = strspn(text, "0123456789");
                /* "50%": a share, which no size parameter takes */
                bool size_like = digits > 0 && (!text[digits] || streq(text + digits, "%") ||
                                                (isalpha((unsigned char)text[digits]) && !text[digits + 1]));
                if (((decl && decl->type == HT_VAL_INT) || (!decl && size_like)) && v.type != HT_VAL_INT) {
                        ht_value_done(&v);
                        bool numeric = isdigit((unsigned char)text[text[0] == '-']);
                        *ret_error = xasprintf("--set %s=%s: parameter %s takes an integer (sizes "
                                               "take K, M, G, T)%s, see %s", name, text, name,
                                               numeric ? "; this one is malformed or does not "
                                                         "fit in 64 bits" : "",
                                               p->source);
                        return -EINVAL;
                }
                if (decl && decl->type == HT_VAL_BOOL && v.type != HT_VAL_BOOL) {
                        ht_value_done(&v);
                        if (!parse_bool_word(text, &b)) {
                                *ret_error = xasprintf("--set %s=%s: parameter %s takes true or "
                                                       "false, see %s", name, text, name, p->source);
                                return -EINVAL;
                        }
                        v = ht_value_bool(b);
                }
                if (decl && decl->type == HT_VAL_STR) {
                        /* A string parameter keeps what was typed: "1000" is a name. */
                        ht_value_done(&v);
                        v = ht_value_str(text);
                }
                sp = (ht_spec){.kind = HT_SPEC_LIT, .lit = v};
        }
        ht_spec_done(&p->spec);
        p->spec = sp;
        free(p->source);
        p->source = xstrdup("--set");
        p->citation = NULL;
        p->file = "--set";
        p->line = 0;
        return 0;
}

/* --- settings ------------------------------------------------------- */

static ht_rsetting *append_setting(ht_resolver *r, ht_setting *s, int origin, const char *file,
                                   unsigned line);

#define SYSCTL_SET_PREFIX "sysctl."

/* --set sysctl.KEY=VALUE is the one setting the command line gives. */
static const ht_backend *sysctl_backend(void) {
        const ht_backend *b = ht_backend_by_name("sysctl");
        if (!b || !b->check_key)
                abort();  /* the registry lost it: a build mistake */
        return b;
}

/* --set sysctl.KEY=VALUE: checked like a profile's key and value. */
static int parse_sysctl_set(const char *assignment, char **ret_key, char **ret_value,
                            char **ret_error) {
        const char *k = assignment + strlen(SYSCTL_SET_PREFIX);
        const char *eq = strchr(k, '=');
        if (!eq) {
                *ret_error = xasprintf("--set %s: expected sysctl.KEY=VALUE", assignment);
                return -EINVAL;
        }
        _cleanup_free_ char *key = xstrndup(k, eq - k);
        if (sysctl_backend()->check_key(key) < 0) {
                *ret_error = xasprintf("--set %s: '%s' is not a sysctl name (levels of letters, "
                                       "digits, '_' and '-' joined by '.', as in sysctl.d(5); no "
                                       "empty, '.' or '..' levels)", assignment, key);
                return -EINVAL;
        }
        if (has_control_chars(eq + 1)) {
                *ret_error = xasprintf("--set sysctl.%s: control characters are not allowed", key);
                return -EINVAL;
        }
        _cleanup_free_ char *value = normalize_ws(eq + 1);
        if (isempty(value)) {
                *ret_error = xasprintf("--set sysctl.%s: needs a value (sysctl.%s=VALUE)", key, key);
                return -EINVAL;
        }
        if (value[0] == '=') {
                *ret_error = xasprintf("--set sysctl.%s=%s: a sysctl value is written as it is, "
                                       "not as an expression (expressions are for parameters)",
                                       key, eq + 1);
                return -EINVAL;
        }
        if (strlen(value) > 4096) {
                *ret_error = xasprintf("--set sysctl.%s: the value is too long", key);
                return -EINVAL;
        }
        *ret_key = TAKE_PTR(key);
        *ret_value = TAKE_PTR(value);
        return 0;
}

/* A --set sysctl value: exact, whatever bound the profile gave, and kept
 * over what the rules would set (they still see it, and still warn or
 * fail over it). */
static void pin_sysctl(ht_resolver *r, const char *key, const char *value) {
        ht_setting s = {.backend = sysctl_backend()->id, .key = xstrdup(key), .value = xstrdup(value),
                        .source = xstrdup("--set"), .bound = HT_BOUND_EXACT};
        ht_rsetting *old = ht_resolver_find(r, &s);
        if (!old) {
                append_setting(r, &s, -1, "--set", 0)->pinned = true;
                return;
        }
        if (!old->pinned && (!streq_ptr(old->s.value, value) || old->s.bound != HT_BOUND_EXACT))
                strv_pushf(&r->warnings, "sysctl %s: --set %s replaces %s%s from %s", key, value,
                           value_or_removed(&old->s), bound_suffix(old->s.bound), old->s.source);
        ht_setting_done(&old->s);
        old->s = s;
        old->pinned = true;
        old->origin = -1;
        old->file = "--set";
        old->line = 0;
}

/* Value text for a backend; NULL with *why when it cannot be one. */
static char *setting_text(const ht_value *v, ht_backend_id b, const char **why) {
        const ht_backend *bk = ht_backends[b];
        char *t;
        switch (v->type) {
        case HT_VAL_INT:
                if (v->den != 1) {
                        *why = "is a fraction: use ceil() or floor()";
                        return NULL;
                }
                t = xasprintf("%" PRId64, v->num);
                break;
        case HT_VAL_BOOL:
                t = xstrdup(v->num ? "1" : "0");
                break;
        case HT_VAL_STR:
                t = bk->collapse_ws ? normalize_ws(v->str) : xstrdup(v->str);
                break;
        default:
                *why = "is unknown";
                return NULL;
        }
        if (has_control_chars(t) || strlen(t) > 4096) {
                *why = "holds control characters or is too long";
                goto bad;
        }
        if (bk->check_value && (*why = bk->check_value(t)))
                goto bad;
        return t;
bad:
        free(t);
        return NULL;
}

/* A key field: a string (or a number) that must be known. */
int ht_entry_eval_string(ht_resolver *r, const ht_spec *sp, const ht_entry *e, const char *what,
                         const char *field, char **ret, char **ret_error) {
        /* most keys are literal strings: no copy, and the label for
         * messages only when there is one to give */
        if (sp->kind == HT_SPEC_LIT && sp->lit.type == HT_VAL_STR) {
                *ret = xstrdup(sp->lit.str ? sp->lit.str : "");
                return 0;
        }
        _cleanup_free_ char *w = xasprintf("%s: %s", what, field);
        ht_value v = {0};
        int k = ht_spec_eval(r, sp, e->file, e->line, w, &v, ret_error);
        if (k < 0)
                return k;
        if (v.type == HT_VAL_NULL || v.type == HT_VAL_BOOL || (v.type == HT_VAL_INT && v.den != 1)) {
                ht_value_done(&v);
                *ret_error = xasprintf("%s:%u: %s: must be a known name or number", e->file,
                                       e->line, w);
                return -EINVAL;
        }
        *ret = ht_value_format(&v);
        ht_value_done(&v);
        return 0;
}

/* What a setting cites: its comment in the file; for a value that is one
 * parameter ("= open_files_limit") without a comment of its own, that
 * parameter's; and a parameter given with --set says so, since the value
 * is then the user's, not the source's. */
static char *entry_citation(ht_resolver *r, const ht_entry *e) {
        const char *name = ht_entry_param_ref(e);
        const ht_rparam *p = name ? find_param(r, name) : NULL;
        if (p && streq(p->source, "--set"))
                return e->comment ? xasprintf("%s (value: --set %s)", e->comment, name)
                                  : xasprintf("--set %s", name);
        if (e->comment)
                return xstrdup(e->comment);
        if (p && p->citation)
                return xasprintf("%s: %s", name, p->citation);
        return NULL;
}

/* A setting's `when`: 1 true, 0 false, -ENODATA not known on this host
 * (a null result, or a fact it needs unknown), other -errno an error of
 * the profile (syntax, types, a condition that is no boolean). */
static int eval_when(ht_resolver *r, const ht_entry *e, const char *label, char **ret_error) {
        _cleanup_free_ char *what = xasprintf("%s: when", label);
        _cleanup_free_ char *err = NULL;
        ht_value v = ht_value_null();
        int k = eval_expr(r, e->when, e->file, e->line, what, &v, &err);
        if (k == -ENODATA)
                return k;
        if (k < 0) {
                *ret_error = TAKE_PTR(err);
                return k;
        }
        if (v.type == HT_VAL_NULL)
                return -ENODATA;
        if (v.type != HT_VAL_BOOL) {
                _cleanup_free_ char *t = ht_value_format(&v);
                *ret_error = xasprintf("%s:%u: %s: the condition must be true or false, not %s '%s'", e->file,
                                       e->line, what, v.type == HT_VAL_INT ? "the integer" : "the string", t);
                ht_value_done(&v);
                return -EINVAL;
        }
        return v.num ? 1 : 0;
}

int ht_entry_eval(ht_resolver *r, const ht_entry *e, const char *what, ht_setting *ret,
                  bool *ret_skipped, char **ret_error) {
        ht_setting s = {.backend = e->backend, .optional = e->optional, .required = e->required,
                        .remove = e->remove,
                        .boot_only = e->boot_only, .at_least = e->at_least, .bound = e->bound};
        _cleanup_free_ char *word_value = NULL;
        _cleanup_free_ char *label = NULL;
        int k = 0;
        *ret_skipped = false;

        const ht_backend *bk = ht_backend_get(e->backend);
        if (bk && bk->canon_key)
                k = bk->canon_key(r, e, what, &s, &word_value, ret_error);
        else {
                *ret_error = xasprintf("%s:%u: %s: unsupported backend", e->file, e->line, what);
                k = -EINVAL;
        }
        if (k < 0) {
                ht_setting_done(&s);
                return k;
        }
        label = setting_label(&s);

        if (e->when) {
                /* before the value, which may need what the condition
                 * guards (a fact of another architecture) */
                k = eval_when(r, e, label, ret_error);
                if (k < 0 && k != -ENODATA) {
                        ht_setting_done(&s);
                        return k;
                }
                if (k <= 0) {
                        _cleanup_free_ char *src = xasprintf("%s:%u", e->file, e->line);
                        _cleanup_free_ char *why = xasprintf("%s: its condition is %s: %s", label,
                                                             k == 0 ? "false" : "unknown on this host", e->when);
                        ht_skips_add_condition(&r->skipped, label, why, src, e->when);
                        ht_setting_done(&s);
                        *ret_skipped = true;
                        return 0;
                }
        }

        ht_value v = {0};
        if (word_value)
                v = ht_value_str(word_value);
        else if (e->value.kind != HT_SPEC_NONE) {
                k = ht_spec_eval(r, &e->value, e->file, e->line, label, &v, ret_error);
                if (k < 0) {
                        ht_setting_done(&s);
                        return k;
                }
        } else {
                /* A rule set with flags only: the caller finds the setting. */
                *ret = s;
                return 0;
        }
        if (v.type == HT_VAL_NULL) {
                if (s.optional) {
                        _cleanup_free_ char *src = xasprintf("%s:%u", e->file, e->line);
                        _cleanup_free_ char *why = xasprintf("%s: its value is unknown on this host", label);
                        ht_skips_add(&r->skipped, label, why, src);
                        ht_setting_done(&s);
                        *ret_skipped = true;
                        return 0;
                }
                *ret_error = xasprintf("%s:%u: %s: the value is unknown on this host (a fact "
                                       "that could not be read?); guard it with defined() or mark "
                                       "the setting optional%s", e->file, e->line, label, offline_hint(r));
                ht_setting_done(&s);
                return -EINVAL;
        }
        const char *why = NULL;
        s.value = setting_text(&v, e->backend, &why);
        if (!s.value) {
                _cleanup_free_ char *t = ht_value_format(&v);
                *ret_error = xasprintf("%s:%u: %s: value '%s' %s", e->file, e->line, label, t, why);
                ht_value_done(&v);
                ht_setting_done(&s);
                return -EINVAL;
        }
        ht_value_done(&v);
        if (s.bound != HT_BOUND_EXACT) {
                /* fields in decimal, so that plan, the drop-in and verify
                 * compare and write the same text */
                _cleanup_free_ char *norm = NULL, *bwhy = NULL;
                k = ht_bound_normalize(s.bound, s.value, &norm, &bwhy);
                if (k < 0) {
                        *ret_error = xasprintf("%s:%u: %s %s: '%s': %s", e->file, e->line, label,
                                               ht_bound_to_string(s.bound), s.value, bwhy);
                        ht_setting_done(&s);
                        return k;
                }
                free(s.value);
                s.value = TAKE_PTR(norm);
        }
        s.citation = entry_citation(r, e);
        *ret = s;
        return 0;
}

static bool same_setting(const ht_setting *a, const ht_setting *b) {
        return a->backend == b->backend && streq(a->key, b->key) && streq_ptr(a->target, b->target);
}

/* FNV-1a over the backend, the key and the target. */
static size_t setting_hash(const ht_setting *s) {
        uint64_t h = 14695981039346656037ULL;
        h = (h ^ (unsigned)s->backend) * 1099511628211ULL;
        for (const char *p = s->key; p && *p; p++)
                h = (h ^ (unsigned char)*p) * 1099511628211ULL;
        h = (h ^ 0xff) * 1099511628211ULL;
        for (const char *p = s->target; p && *p; p++)
                h = (h ^ (unsigned char)*p) * 1099511628211ULL;
        return (size_t)h;
}

static void index_insert(ht_resolver *r, size_t pos) {
        size_t mask = r->index_size - 1;
        size_t i = setting_hash(&r->settings[pos].s) & mask;
        while (r->index[i])
                i = (i + 1) & mask;
        r->index[i] = pos + 1;
}

/* (Re)build the index with room for twice the settings. */
static void index_rebuild(ht_resolver *r) {
        size_t size = 64;
        while (size < 2 * (r->n_settings + 1))
                size *= 2;
        free(r->index);
        r->index = xcalloc(size, sizeof(*r->index));
        r->index_size = size;
        for (size_t i = 0; i < r->n_settings; i++)
                index_insert(r, i);
}

/* Small profiles (all shipped ones) are searched in place. */
#define RESOLVER_INDEX_FROM 32

ht_rsetting *ht_resolver_find(ht_resolver *r, const ht_setting *like) {
        if (r->n_settings < RESOLVER_INDEX_FROM) {
                for (size_t i = 0; i < r->n_settings; i++)
                        if (same_setting(&r->settings[i].s, like))
                                return &r->settings[i];
                return NULL;
        }
        if (!r->index)
                index_rebuild(r);
        size_t mask = r->index_size - 1;
        for (size_t i = setting_hash(like) & mask; r->index[i]; i = (i + 1) & mask) {
                ht_rsetting *rs = &r->settings[r->index[i] - 1];
                if (same_setting(&rs->s, like))
                        return rs;
        }
        return NULL;
}

void ht_resolver_remove(ht_resolver *r, ht_rsetting *rs) {
        size_t i = rs - r->settings;
        ht_setting_done(&rs->s);
        memmove(rs, rs + 1, (r->n_settings - i - 1) * sizeof(*rs));
        r->n_settings--;
        /* positions after i moved: rebuilt on the next find */
        free(r->index);
        r->index = NULL;
        r->index_size = 0;
}

/* Numeric order of limit values, for at_least: unlimited is largest. */
static bool limit_value(const char *s, long double *ret) {
        if (streq(s, "unlimited") || streq(s, "infinity") || streq(s, "-1")) {
                *ret = 1e30L;
                return true;
        }
        uint64_t v;
        if (parse_size_bytes(s, &v) == 0) {
                *ret = (long double)v;
                return true;
        }
        return false;
}

static bool is_ancestor(ht_resolver *r, int of, int who) {
        return who >= 0 && of >= 0 && strv_contains(r->ancestors[of], r->chain[who]->name);
}

/* A new setting at the end; takes s. */
static ht_rsetting *append_setting(ht_resolver *r, ht_setting *s, int origin, const char *file,
                                   unsigned line) {
        if (r->n_settings == r->settings_cap) {
                r->settings_cap = r->settings_cap ? 2 * r->settings_cap : 16;
                r->settings = xrealloc(r->settings, r->settings_cap * sizeof(*r->settings));
        }
        r->settings[r->n_settings++] = (ht_rsetting){.s = *s, .origin = origin, .file = file,
                                                     .line = line};
        *s = (ht_setting){0};
        if (r->index) {
                if (2 * (r->n_settings + 1) > r->index_size)
                        index_rebuild(r);
                else
                        index_insert(r, r->n_settings - 1);
        }
        return &r->settings[r->n_settings - 1];
}

/* conditional: the profile entry has a `when` (and it held). */
static int resolver_add(ht_resolver *r, ht_setting *s, int origin, const char *rule, const char *file,
                        unsigned line, bool conditional, char **ret_error) {
        free(s->source);
        s->source = rule ? xasprintf("rule %s (%s:%u)", rule, file, line)
                         : xasprintf("%s:%u", file, line);
        ht_rsetting *old = ht_resolver_find(r, s);
        if (!old) {
                ht_rsetting *rs = append_setting(r, s, origin, file, line);
                rs->plain_line = rule || conditional ? 0 : line;
                return 0;
        }
        _cleanup_free_ char *label = setting_label(s);
        if (old->pinned) {
                /* the user named this value on the command line */
                if (!streq_ptr(old->s.value, s->value) || s->bound != HT_BOUND_EXACT)
                        strv_pushf(&r->warnings, "%s: rule %s would set %s%s; kept %s from --set",
                                   label, rule ? rule : file, value_or_removed(s),
                                   bound_suffix(s->bound), old->s.value);
                ht_setting_done(s);
                return 0;
        }
        bool same = streq_ptr(old->s.value, s->value) && old->s.remove == s->remove &&
                    old->s.bound == s->bound;
        unsigned plain_line = rule || conditional ? 0 : line;
        if (!rule && old->origin == origin) {
                /* one file: an entry with a `when` may override another
                 * (later wins); two without one are a mistake */
                if (!conditional && old->plain_line) {
                        *ret_error = xasprintf("%s:%u: %s is set twice in this file (also at line "
                                               "%u)", file, line, label, old->plain_line);
                        ht_setting_done(s);
                        return -EINVAL;
                }
                if (old->plain_line)
                        plain_line = old->plain_line;
        } else if (!rule) {
                /* A child overriding its own ancestor is what inheritance
                 * is for; two unrelated parents disagreeing is a conflict. */
                if (!same && !is_ancestor(r, origin, old->origin))
                        strv_pushf(&r->warnings, "conflict: %s is %s at %s but %s at %s; %s wins "
                                   "(later in the inherit list)", label, value_or_removed(&old->s),
                                   old->s.source, value_or_removed(s), s->source, s->source);
        } else {
                long double a, b;
                if (s->at_least && old->s.value && s->value && !old->s.remove &&
                    limit_value(old->s.value, &a) && limit_value(s->value, &b) && a >= b) {
                        /* Already large enough: keep the value as it is. */
                        ht_setting_done(s);
                        return 0;
                }
                if (!same)
                        strv_pushf(&r->warnings, "%s: rule %s sets %s, replacing %s from %s", label,
                                   rule, value_or_removed(s), value_or_removed(&old->s),
                                   old->s.source);
        }
        ht_setting_done(&old->s);
        old->s = *s;
        old->origin = origin;
        old->file = file;
        old->line = line;
        old->plain_line = plain_line;
        *s = (ht_setting){0};
        return 0;
}

int ht_resolver_add(ht_resolver *r, ht_setting *s, int origin, const char *rule, const char *file,
                    unsigned line, char **ret_error) {
        return resolver_add(r, s, origin, rule, file, line, false, ret_error);
}

/* --- the inheritance chain ------------------------------------------ */

typedef struct {
        char **dirs;
        char **stack;
        ht_pfile **files;
        size_t n_files;
        char ***ancestors;
        char **warnings;  /* a profile found past a directory we cannot read */
} chain_state;

static char *stack_chain(char **stack, const char *last) {
        strbuf b = {0};
        for (size_t i = 0; stack && stack[i]; i++)
                strbuf_appendf(&b, "%s -> ", stack[i]);
        strbuf_append(&b, last);
        return strbuf_steal(&b);
}

/* The first DIR/NAME.profile on the path. A directory we may not search
 * (EACCES) could hold the profile meant: it is not skipped silently but
 * named in *unreadable ("cannot read profile directory D: ..."). */
static int find_profile(char **dirs, const char *name, char **ret, char ***unreadable) {
        for (size_t i = 0; dirs && dirs[i]; i++) {
                char *p = xasprintf("%s/%s.profile", dirs[i], name);
                if (faccessat(AT_FDCWD, p, F_OK, AT_EACCESS) == 0) {
                        *ret = p;
                        return 0;
                }
                int e = errno;
                free(p);
                if (e != ENOENT && e != ENOTDIR)
                        strv_pushf(unreadable, "cannot read profile directory %s: %s", dirs[i], ht_strerror(e));
        }
        return -ENOENT;
}

static int visit(chain_state *st, const char *name, const char *from_file, unsigned from_line,
                 char **ret_error) {
        for (size_t i = 0; st->stack && st->stack[i]; i++)
                if (streq(st->stack[i], name)) {
                        _cleanup_free_ char *chain = stack_chain(st->stack, name);
                        *ret_error = xasprintf("%s:%u: inheritance cycle: %s", from_file,
                                               from_line, chain);
                        return -ELOOP;
                }
        for (size_t i = 0; i < st->n_files; i++)
                if (streq(st->files[i]->name, name))
                        return 0;
        if (strv_length(st->stack) > 32) {
                *ret_error = xasprintf("%s:%u: inheritance deeper than 32 levels", from_file,
                                       from_line);
                return -ELOOP;
        }
        _cleanup_free_ char *path = NULL;
        _cleanup_strv_free_ char **unreadable = NULL;
        /* issue 37: "oracle+jvm" on the command line is a profile of no
         * file inheriting each part, as a site profile with
         * inherit = [ "oracle", "jvm" ] would */
        bool virtual = !from_file && strchr(name, '+');
        if (virtual)
                path = xasprintf("(command line: %s)", name);
        if (!virtual && find_profile(st->dirs, name, &path, &unreadable) < 0) {
                _cleanup_strv_free_ char **names = NULL;
                ht_search_path_list(st->dirs, ".profile", NULL, &names, NULL);
                const char *close = closest_word(name, names);
                _cleanup_free_ char *chain = stack_chain(st->stack, name);
                _cleanup_free_ char *dirs = strv_join(st->dirs, ":");
                /* not found where we could look: say where we could not */
                _cleanup_free_ char *why = unreadable ? strv_join(unreadable, "; ") : NULL;
                _cleanup_free_ char *prefix = why ? xasprintf("%s; ", why) : xstrdup("");
                const char *where = why ? "in the readable directories of" : "on";
                if (from_file)
                        *ret_error = xasprintf("%s%s:%u: parent profile '%s' not found (%s) %s the "
                                               "profile path %s%s%s%s", prefix, from_file, from_line, name,
                                               chain, where, dirs, close ? "; did you mean '" : "",
                                               close ? close : "", close ? "'?" : "");
                else
                        *ret_error = xasprintf("%sprofile '%s' not found %s the profile path %s%s%s%s",
                                               prefix, name, where, dirs, close ? "; did you mean '" : "",
                                               close ? close : "", close ? "'?" : "");
                return -ENOENT;
        }
        for (size_t i = 0; unreadable && unreadable[i]; i++) {
                _cleanup_free_ char *w = xasprintf("%s; profile '%s' is read from %s, which a copy there "
                                                   "would have shadowed", unreadable[i], name, path);
                if (!strv_contains(st->warnings, w))
                        strv_push(&st->warnings, w);
        }
        ht_pfile *p = NULL;
        int k = 0;
        if (virtual) {
                p = xcalloc(1, sizeof(*p));
                p->name = xstrdup(name);
                p->path = xstrdup(path);
                p->parents = strv_split(name, "+");
        } else
                k = ht_pfile_load(path, name, &p, ret_error);
        if (k < 0)
                return k;
        strv_push(&st->stack, name);
        char **anc = NULL;
        for (size_t i = 0; k >= 0 && p->parents && p->parents[i]; i++) {
                /* a command-line composition's parts are named as on the command line */
                k = visit(st, p->parents[i], virtual ? NULL : p->path, p->inherit_line, ret_error);
                if (k < 0)
                        break;
                for (size_t j = 0; j < st->n_files; j++)
                        if (streq(st->files[j]->name, p->parents[i])) {
                                if (!strv_contains(anc, p->parents[i]))
                                        strv_push(&anc, p->parents[i]);
                                for (size_t a = 0; st->ancestors[j] && st->ancestors[j][a]; a++)
                                        if (!strv_contains(anc, st->ancestors[j][a]))
                                                strv_push(&anc, st->ancestors[j][a]);
                        }
        }
        size_t n = strv_length(st->stack);
        free(st->stack[n - 1]);
        st->stack[n - 1] = NULL;
        if (k < 0) {
                strv_free(anc);
                ht_pfile_free(p);
                return k;
        }
        st->files = xrealloc(st->files, (st->n_files + 1) * sizeof(*st->files));
        st->ancestors = xrealloc(st->ancestors, (st->n_files + 1) * sizeof(*st->ancestors));
        st->files[st->n_files] = p;
        st->ancestors[st->n_files] = anc;
        st->n_files++;
        return 0;
}

/* --- resolution ----------------------------------------------------- */

static void skips_add(ht_skips *l, const char *setting, const char *reason, const char *source,
                      const char *set_by, const char *condition) {
        for (size_t i = 0; i < l->n; i++)
                if (streq(l->items[i].setting, setting) && streq(l->items[i].reason, reason) &&
                    streq(l->items[i].source, source) && streq_ptr(l->items[i].set_by, set_by) &&
                    streq_ptr(l->items[i].condition, condition))
                        return;
        l->items = xrealloc(l->items, (l->n + 1) * sizeof(*l->items));
        l->items[l->n++] = (ht_skip){.setting = xstrdup(setting), .reason = xstrdup(reason),
                                     .source = xstrdup(source), .set_by = set_by ? xstrdup(set_by) : NULL,
                                     .condition = condition ? xstrdup(condition) : NULL};
}

void ht_skips_add_set_by(ht_skips *l, const char *setting, const char *reason, const char *source,
                         const char *set_by) {
        skips_add(l, setting, reason, source, set_by, NULL);
}

void ht_skips_add(ht_skips *l, const char *setting, const char *reason, const char *source) {
        skips_add(l, setting, reason, source, NULL, NULL);
}

void ht_skips_add_condition(ht_skips *l, const char *setting, const char *reason, const char *source,
                            const char *condition) {
        skips_add(l, setting, reason, source, NULL, condition);
}

void ht_skips_copy(ht_skips *dst, const ht_skips *src) {
        for (size_t i = 0; i < src->n; i++)
                skips_add(dst, src->items[i].setting, src->items[i].reason, src->items[i].source,
                          src->items[i].set_by, src->items[i].condition);
}

const char *ht_skip_kind(const ht_skip *s) {
        return s->set_by ? "set elsewhere" : s->condition ? "condition" : "optional";
}

void ht_skips_done(ht_skips *l) {
        for (size_t i = 0; i < l->n; i++) {
                free(l->items[i].setting);
                free(l->items[i].reason);
                free(l->items[i].source);
                free(l->items[i].set_by);
                free(l->items[i].condition);
        }
        free(l->items);
        *l = (ht_skips){0};
}

json_object *ht_skips_to_json(const ht_skips *l) {
        json_object *a = json_object_new_array();
        for (size_t i = 0; i < l->n; i++) {
                json_object *e = json_object_new_object();
                json_object_object_add(e, "setting", json_object_new_string(l->items[i].setting));
                json_object_object_add(e, "reason", json_object_new_string(l->items[i].reason));
                json_object_object_add(e, "source", json_object_new_string(l->items[i].source));
                if (l->items[i].set_by)
                        json_object_object_add(e, "set_by", json_object_new_string(l->items[i].set_by));
                if (l->items[i].condition)
                        json_object_object_add(e, "condition", json_object_new_string(l->items[i].condition));
                json_object_array_add(a, e);
        }
        return a;
}

char *ht_skip_format(const ht_skip *s) {
        return xasprintf("%s (%s)", s->reason, s->source);
}

static void resolver_done(ht_resolver *r) {
        for (size_t i = 0; i < r->n_chain; i++) {
                ht_pfile_free(r->chain[i]);
                strv_free(r->ancestors[i]);
        }
        free(r->chain);
        free(r->ancestors);
        for (size_t i = 0; i < r->n_rfiles; i++)
                ht_rfile_free(r->rfiles[i]);
        free(r->rfiles);
        for (size_t i = 0; i < r->n_params; i++) {
                free(r->params[i].name);
                ht_spec_done(&r->params[i].spec);
                free(r->params[i].source);
                free(r->params[i].from);
                ht_value_done(&r->params[i].value);
        }
        free(r->params);
        for (size_t i = 0; i < r->n_settings; i++)
                ht_setting_done(&r->settings[i].s);
        free(r->settings);
        free(r->index);
        strv_free(r->warnings);
        ht_skips_done(&r->skipped);
        strv_free(r->errors);
        free(r->lookup_error);
        strv_free(r->candidates);
        strv_free(r->param_stack);
        strv_free(r->fact_from);
        ht_group_done(&r->groups);
        json_object_put(r->not_used);
}

static int param_cmp(const void *a, const void *b) {
        return strcmp(((const ht_param *)a)->name, ((const ht_param *)b)->name);
}

static int build_resolved(ht_resolver *r, const char *name, ht_resolved **ret, char **ret_error) {
        ht_resolved *res = xcalloc(1, sizeof(*res));
        const ht_pfile *leaf = r->chain[r->n_chain - 1];
        res->name = xstrdup(name);
        res->file = xstrdup(leaf->path);
        for (size_t i = r->n_chain; i > 0; i--)
                if (r->chain[i - 1]->summary) {
                        res->summary = xstrdup(r->chain[i - 1]->summary);
                        break;
                }
        for (size_t i = 0; i < r->n_chain; i++)
                strv_push(&res->chain, r->chain[i]->name);

        res->params = xcalloc(r->n_params ? r->n_params : 1, sizeof(*res->params));
        for (size_t i = 0; i < r->n_params; i++) {
                ht_rparam *p = &r->params[i];
                int k = eval_param(r, p, ret_error);
                if (k < 0) {
                        ht_resolved_free(res);
                        return k;
                }
                res->params[res->n_params++] = (ht_param){
                        .name = xstrdup(p->name),
                        .value = ht_value_format(&p->value),
                        .source = p->from ? xasprintf("%s from %s", p->source, p->from) : xstrdup(p->source),
                        .citation = p->citation ? xstrdup(p->citation) : NULL,
                };
        }
        qsort(res->params, res->n_params, sizeof(*res->params), param_cmp);

        res->settings = xcalloc(r->n_settings ? r->n_settings : 1, sizeof(*res->settings));
        for (size_t i = 0; i < r->n_settings; i++) {
                res->settings[i] = r->settings[i].s;
                r->settings[i].s = (ht_setting){0};
        }
        res->n_settings = r->n_settings;
        res->warnings = TAKE_PTR(r->warnings);
        res->skipped = r->skipped;
        r->skipped = (ht_skips){0};
        res->errors = TAKE_PTR(r->errors);
        res->not_used = TAKE_PTR(r->not_used);
        res->reboot_required = r->reboot_required;
        *ret = res;
        return 0;
}

static int resolve_json(const ht_context *c, json_object *facts, const char *name, char *const *sets,
                        const char *only, char ***ret_workloads, ht_resolved **ret, char **ret_error);

/* issue 37: a profile name, or "oracle+jvm" (parts joined by +) */
static bool name_valid(const char *name) {
        if (ht_profile_name_valid(name))
                return true;
        if (!name || !strchr(name, '+'))
                return false;
        _cleanup_strv_free_ char **parts = strv_split(name, "+");
        size_t n = 0;
        for (; parts[n]; n++)
                if (!ht_profile_name_valid(parts[n]))
                        return false;
        return n >= 2 && name[0] != '+' && name[strlen(name) - 1] != '+' && !strstr(name, "++");
}

/* issue 37: compose.c labels settings as the rest of this file does */
static const ht_compose_ops compose_ops = {
        .label = setting_label,
        .backend_name = ht_backend_id_to_string,
};

/* issue 37: a profile of several workload profiles is resolved once as
 * a whole (its chain, parameters and order: show's params), then once
 * per workload on that workload's branch alone, and the branches are
 * composed by meaning (compose.c) into its settings. */
int ht_profile_resolve_json(const ht_context *c, json_object *facts, const char *name,
                            char *const *sets, ht_resolved **ret, char **ret_error) {
        _cleanup_strv_free_ char **workloads = NULL;
        ht_resolved *res = NULL;
        int k = resolve_json(c, facts, name, sets, NULL, &workloads, &res, ret_error);
        if (k < 0 || strv_length(workloads) < 2) {
                if (k >= 0)
                        *ret = res;
                return k;
        }
        size_t n = strv_length(workloads);
        ht_resolved **subs = xcalloc(n, sizeof(*subs));
        for (size_t i = 0; i < n && k >= 0; i++)
                k = resolve_json(c, facts, name, sets, workloads[i], NULL, &subs[i], ret_error);
        if (k >= 0)
                k = ht_compose(res, subs, workloads, n, facts, &compose_ops, ret_error);
        for (size_t i = 0; i < n; i++)
                ht_resolved_free(subs[i]);
        free(subs);
        if (k < 0) {
                ht_resolved_free(res);
                return k;
        }
        *ret = res;
        return 0;
}

/* only (issue 37; NULL: the whole chain): resolve that workload
 * profile's branch alone. ret_workloads (when not NULL): the workload
 * profiles of the chain. */
static int resolve_json(const ht_context *c, json_object *facts, const char *name, char *const *sets,
                        const char *only, char ***ret_workloads, ht_resolved **ret, char **ret_error) {
        bool tuned = name && startswith(name, HT_TUNED_PREFIX);
        if (!tuned && !name_valid(name)) {
                *ret_error = xasprintf("'%s' is not a valid profile name", name ? name : "");
                return -EINVAL;
        }
        ht_resolver r = {.c = c, .facts = facts};
        chain_state st = {.dirs = profile_dirs(c)};
        _cleanup_strv_free_ char **rdirs = rules_dirs(c);
        _cleanup_strv_free_ char **rpaths = NULL;
        _cleanup_strv_free_ char **pins = NULL;  /* --set sysctl.: key, value, ... */
        int k;
        if (tuned) {
                /* one converted file: tuned's include chain is merged already */
                ht_pfile *p = NULL;
                k = ht_pfile_from_tuned(c, facts, name + strlen(HT_TUNED_PREFIX), &p, &st.warnings, ret_error);
                if (k >= 0) {
                        st.files = xcalloc(1, sizeof(*st.files));
                        st.ancestors = xcalloc(1, sizeof(*st.ancestors));
                        st.files[0] = p;
                        st.n_files = 1;
                }
        } else
                k = visit(&st, name, NULL, 0, ret_error);
        r.chain = st.files;
        r.ancestors = st.ancestors;
        r.n_chain = st.n_files;
        for (size_t i = 0; st.warnings && st.warnings[i]; i++)
                strv_push(&r.warnings, st.warnings[i]);
        strv_free(st.warnings);
        strv_free(st.dirs);
        strv_free(st.stack);
        if (k < 0)
                goto out;

        /* an unreadable rules directory is an error, not a warning: its
         * rules may be the safety caps this plan must obey */
        const ht_builtin_file **rbuiltin = NULL;
        char *rwarning = NULL;
        k = find_rules(c, rdirs, &rpaths, &rbuiltin, &rwarning, ret_error);
        if (k < 0)
                goto out;
        if (rwarning)
                strv_push_take(&r.warnings, rwarning);
        for (size_t i = 0; rpaths && rpaths[i]; i++) {
                ht_rfile *f = NULL;
                k = rbuiltin[i] ? ht_rfile_load_builtin(rbuiltin[i], &f, ret_error) :
                                  ht_rfile_load(rpaths[i], &f, ret_error);
                if (k < 0) {
                        free(rbuiltin);
                        goto out;
                }
                r.rfiles = xrealloc(r.rfiles, (r.n_rfiles + 1) * sizeof(*r.rfiles));
                r.rfiles[r.n_rfiles++] = f;
        }
        free(rbuiltin);

        /* Defaults: the rules' own, then the chain's, later wins. */
        for (size_t i = 0; i < r.n_rfiles; i++)
                for (size_t j = 0; j < r.rfiles[i]->n_params; j++)
                        declare_param(&r, &r.rfiles[i]->params[j]);
        for (size_t i = 0; i < r.n_chain; i++)
                for (size_t j = 0; ht_compose_in_branch(&r, i, only) && j < r.chain[i]->n_params; j++)
                        declare_param(&r, &r.chain[i]->params[j]);
        for (size_t i = 0; sets && sets[i]; i++) {
                if (startswith(sets[i], SYSCTL_SET_PREFIX)) {
                        char *key, *value;
                        k = parse_sysctl_set(sets[i], &key, &value, ret_error);
                        if (k < 0)
                                goto out;
                        strv_push_take(&pins, key);
                        strv_push_take(&pins, value);
                        continue;
                }
                /* a branch lacks the other workloads' parameters */
                _cleanup_free_ char *pname = only && strchr(sets[i], '=') ?
                        xstrndup(sets[i], strchr(sets[i], '=') - sets[i]) : NULL;
                if (pname && !find_param(&r, pname))
                        continue;
                k = apply_set(&r, sets[i], ret_error);
                if (k < 0)
                        goto out;
        }

        for (size_t i = 0; i < r.n_chain; i++) {
                const ht_pfile *p = r.chain[i];
                for (size_t j = 0; ht_compose_in_branch(&r, i, only) && j < p->n_entries; j++) {
                        const ht_entry *e = &p->entries[j];
                        ht_setting s = {0};
                        bool skipped;
                        k = ht_entry_eval(&r, e, ht_backend_section_name(e->backend), &s, &skipped,
                                          ret_error);
                        if (k < 0)
                                goto out;
                        if (skipped)
                                continue;
                        k = resolver_add(&r, &s, (int)i, NULL, e->file, e->line, e->when != NULL, ret_error);
                        if (k < 0)
                                goto out;
                }
        }

        /* before the rules, which size other settings from it */
        for (size_t i = 0; pins && pins[i]; i += 2)
                pin_sysctl(&r, pins[i], pins[i + 1]);

        k = ht_rules_run(&r, ret_error);
        if (k < 0)
                goto out;
        if (ret_workloads && !tuned)
                *ret_workloads = ht_compose_workloads(&r);
        k = build_resolved(&r, name, ret, ret_error);
out:
        resolver_done(&r);
        return k;
}

int ht_profile_resolve(const ht_context *c, const ht_facts *facts, const char *name,
                       char *const *sets, ht_resolved **ret, char **ret_error) {
        json_object *j = facts ? ht_facts_to_json(facts) : json_object_new_object();
        int k = ht_profile_resolve_json(c, j, name, sets, ret, ret_error);
        json_object_put(j);
        return k;
}

void ht_resolved_free(ht_resolved *r) {
        if (!r)
                return;
        free(r->name);
        free(r->summary);
        free(r->file);
        strv_free(r->chain);
        for (size_t i = 0; i < r->n_params; i++) {
                free(r->params[i].name);
                free(r->params[i].value);
                free(r->params[i].source);
                free(r->params[i].citation);
        }
        free(r->params);
        for (size_t i = 0; i < r->n_settings; i++)
                ht_setting_done(&r->settings[i]);
        free(r->settings);
        strv_free(r->warnings);
        ht_skips_done(&r->skipped);
        strv_free(r->errors);
        json_object_put(r->not_used);
        json_object_put(r->composed);
        free(r);
}

/* --- list ----------------------------------------------------------- */

int ht_profile_list(const ht_context *c, ht_profile_info **ret, size_t *ret_n, char **ret_error) {
        _cleanup_strv_free_ char **dirs = profile_dirs(c);
        _cleanup_strv_free_ char **paths = NULL, **names = NULL;
        int k = ht_search_path_list(dirs, ".profile", &paths, &names, ret_error);
        if (k < 0)
                return k;
        size_t n = strv_length(names);
        ht_profile_info *l = xcalloc(n ? n : 1, sizeof(*l));
        for (size_t i = 0; i < n; i++) {
                ht_pfile *p = NULL;
                k = ht_pfile_load(paths[i], names[i], &p, ret_error);
                if (k < 0) {
                        ht_profile_info_free(l, i);
                        return k;
                }
                l[i] = (ht_profile_info){.name = xstrdup(names[i]),
                                         .summary = xstrdup(p->summary ? p->summary : ""),
                                         .file = xstrdup(paths[i])};
                ht_pfile_free(p);
        }
        *ret = l;
        *ret_n = n;
        return 0;
}

void ht_profile_info_free(ht_profile_info *l, size_t n) {
        for (size_t i = 0; l && i < n; i++) {
                free(l[i].name);
                free(l[i].summary);
                free(l[i].file);
        }
        free(l);
}

/* --- output --------------------------------------------------------- */

static void add_str(json_object *o, const char *k, const char *v) {
        if (v)
                json_object_object_add(o, k, json_object_new_string(v));
}

json_object *ht_resolved_to_json(const ht_resolved *r) {
        json_object *o = json_object_new_object();
        add_str(o, "profile", r->name);
        json_object_object_add(o, "summary", r->summary ? json_object_new_string(r->summary) : NULL);
        add_str(o, "file", r->file);
        json_object_object_add(o, "chain", ht_strv_to_json(r->chain));
        json_object *params = json_object_new_array();
        for (size_t i = 0; i < r->n_params; i++) {
                json_object *p = json_object_new_object();
                add_str(p, "name", r->params[i].name);
                add_str(p, "value", r->params[i].value);
                add_str(p, "source", r->params[i].source);
                json_object_object_add(p, "citation", r->params[i].citation
                                                              ? json_object_new_string(r->params[i].citation)
                                                              : NULL);
                json_object_array_add(params, p);
        }
        json_object_object_add(o, "params", params);
        json_object *settings = json_object_new_array();
        for (size_t i = 0; i < r->n_settings; i++) {
                const ht_setting *s = &r->settings[i];
                json_object *j = json_object_new_object();
                add_str(j, "backend", ht_backend_id_to_string(s->backend));
                add_str(j, "key", s->key);
                json_object_object_add(j, "value", s->value ? json_object_new_string(s->value) : NULL);
                add_str(j, "domain", s->domain);
                add_str(j, "type", s->type);
                add_str(j, "item", s->item);
                add_str(j, "unit", s->unit);
                add_str(j, "directive", s->directive);
                add_str(j, "target", s->target);
                json_object_object_add(j, "optional", json_object_new_boolean(s->optional));
                if (ht_backends[s->backend]->entry_flags & HT_ENTRY_REMOVE)
                        json_object_object_add(j, "remove", json_object_new_boolean(s->remove));
                if (s->required)
                        json_object_object_add(j, "required", json_object_new_boolean(true));
                if (s->boot_only)
                        json_object_object_add(j, "boot_only", json_object_new_boolean(true));
                if (s->at_least)
                        json_object_object_add(j, "at_least", json_object_new_boolean(true));
                add_str(j, "bound", ht_bound_to_string(s->bound));
                add_str(j, "source", s->source);
                json_object_object_add(j, "citation",
                                       s->citation ? json_object_new_string(s->citation) : NULL);
                json_object_array_add(settings, j);
        }
        json_object_object_add(o, "settings", settings);
        json_object_object_add(o, "skipped", ht_skips_to_json(&r->skipped));
        json_object_object_add(o, "warnings", ht_strv_to_json(r->warnings));
        json_object_object_add(o, "errors", ht_strv_to_json(r->errors));
        json_object_object_add(o, "reboot_required", json_object_new_boolean(r->reboot_required));
        /* only when there are some: most hosts have none */
        if (r->not_used && json_object_array_length(r->not_used))
                json_object_object_add(o, "not_used", json_object_get(r->not_used));
        if (r->composed)  /* issue 37: several workloads */
                json_object_object_add(o, "composed", json_object_get(r->composed));
        return o;
}

char *ht_not_used_format(json_object *e) {
        json_object *o;
        const char *name = json_object_object_get_ex(e, "name", &o) ? json_object_get_string(o) : NULL;
        int64_t pid = json_object_object_get_ex(e, "pid", &o) ? json_object_get_int64(o) : 0;
        const char *why = json_object_object_get_ex(e, "reason", &o) ? json_object_get_string(o) : NULL;
        const char *set = json_object_object_get_ex(e, "set", &o) ? json_object_get_string(o) : NULL;
        strbuf b = {0};
        strbuf_appendf(&b, "%s %" PRId64 ": %s", name ? name : "?", pid, why ? why : "not trusted");
        if (set) {
                strbuf_append(&b, "; --set ");
                ht_shell_word_append(&b, set);
                strbuf_append(&b, " would use it");
        }
        return strbuf_steal(&b);
}

static char *setting_text_line(const ht_setting *s) {
        const char *b = ht_backend_id_to_string(s->backend);
        const ht_backend *bk = ht_backends[s->backend];
        if (bk->show_line)
                return bk->show_line(s);
        return xasprintf("%-8s %s = %s", b, s->key, s->value ? s->value : "(unchanged)");
}

/* A citation under its value: indented, as "# ..." lines of at most
 * about 80 columns, broken at spaces. */
static void append_citation(strbuf *b, const char *text) {
        const size_t width = 74;
        const char *p = text;
        while (*p) {
                size_t n = strlen(p);
                if (n > width) {
                        size_t cut = width;
                        while (cut > 0 && p[cut] != ' ')
                                cut--;
                        if (cut == 0)  /* one long word (a URL): whole */
                                cut = strcspn(p, " ");
                        n = cut;
                }
                strbuf_appendf(b, "      # %.*s\n", (int)n, p);
                p += n;
                p += strspn(p, " ");
        }
}

char *ht_resolved_format_text(const ht_resolved *r) {
        strbuf b = {0};
        strbuf_appendf(&b, "profile %s (%s)\n", r->name, r->file);
        if (r->summary)
                strbuf_appendf(&b, "  %s\n", r->summary);
        _cleanup_free_ char *chain = strv_join(r->chain, " -> ");
        strbuf_appendf(&b, "inherits: %s\n", chain ? chain : "");

        size_t w = 0;
        _cleanup_strv_free_ char **plines = NULL, **slines = NULL;
        for (size_t i = 0; i < r->n_params; i++) {
                const char *v = r->params[i].value;
                strv_push_take(&plines, xasprintf("%s = %s", r->params[i].name,
                                                  isempty(v) ? "\"\"" : v));
        }
        for (size_t i = 0; i < r->n_settings; i++) {
                const ht_setting *s = &r->settings[i];
                _cleanup_free_ char *t = setting_text_line(s);
                strv_push_take(&slines, xasprintf("%s%s%s%s%s%s", t, s->optional ? " (optional)" : "",
                                                  s->required ? " (required)" : "",
                                                  s->boot_only ? " (after reboot)" : "",
                                                  s->at_least ? " (at least)" : "",
                                                  bound_suffix(s->bound)));
        }
        for (size_t i = 0; plines && plines[i]; i++)
                w = strlen(plines[i]) > w ? strlen(plines[i]) : w;
        for (size_t i = 0; slines && slines[i]; i++)
                w = strlen(slines[i]) > w ? strlen(slines[i]) : w;
        if (w > 60)
                w = 60;

        strbuf_append(&b, "\nparams:\n");
        for (size_t i = 0; i < r->n_params; i++) {
                strbuf_appendf(&b, "  %-*s  %s\n", (int)w, plines[i], r->params[i].source);
                if (r->params[i].citation)
                        append_citation(&b, r->params[i].citation);
        }
        strbuf_append(&b, "\nsettings:\n");
        if (!r->n_settings)
                strbuf_append(&b, "  (none)\n");
        for (size_t i = 0; i < r->n_settings; i++) {
                strbuf_appendf(&b, "  %-*s  %s\n", (int)w, slines[i], r->settings[i].source);
                if (r->settings[i].citation)
                        append_citation(&b, r->settings[i].citation);
        }
        /* what the host cannot take, then what the profile leaves out
         * here by its own condition */
        for (int cond = 0; cond < 2; cond++) {
                bool any = false;
                for (size_t i = 0; i < r->skipped.n; i++) {
                        if ((r->skipped.items[i].condition != NULL) != (cond == 1))
                                continue;
                        if (!any)
                                strbuf_append(&b, cond ? "\nskipped (condition):\n" : "\nskipped (optional):\n");
                        any = true;
                        _cleanup_free_ char *t = ht_skip_format(&r->skipped.items[i]);
                        strbuf_appendf(&b, "  %s\n", t);
                }
        }
        size_t n_unused = r->not_used ? json_object_array_length(r->not_used) : 0;
        if (n_unused)
                strbuf_append(&b, "\nnot used (found, not trusted to size or grant anything):\n");
        for (size_t i = 0; i < n_unused; i++) {
                _cleanup_free_ char *t = ht_not_used_format(json_object_array_get_idx(r->not_used, i));
                strbuf_appendf(&b, "  %s\n", t);
        }
        if (r->composed) {  /* issue 37 */
                _cleanup_free_ char *t = ht_compose_format_text(r->composed);
                strbuf_append(&b, t);
        }
        if (r->warnings) {
                strbuf_append(&b, "\nwarnings:\n");
                for (size_t i = 0; r->warnings[i]; i++)
                        strbuf_appendf(&b, "  %s\n", r->warnings[i]);
        }
        if (r->errors) {
                strbuf_append(&b, "\nerrors:\n");
                for (size_t i = 0; r->errors[i]; i++)
                        strbuf_appendf(&b, "  %s\n", r->errors[i]);
        }
        if (r->reboot_required)
                strbuf_append(&b, "\nreboot required: a rule changes the boot entry\n");
        return strbuf_steal(&b);
}
