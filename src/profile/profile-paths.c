/* Where profiles and rules are found: the default search paths below the
 * root, the rules files to read (with the built-in copies standing in
 * for a missing installation), and the list of profiles. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "profile-builtin.h"
#include "resolver-internal.h"
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

char **ht_profile_dirs(const ht_context *c) {
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
int ht_rules_find(const ht_context *c, char *const *dirs, char ***ret_paths,
                      const ht_builtin_file ***ret_builtin, char **ret_warning, char **ret_error) {
        size_t given = 0;
        while (c->rules_path && given < c->rules_path_given && c->rules_path[given])
                given++;
        _cleanup_strv_free_ char **paths = NULL, **names = NULL;
        _cleanup_free_ size_t *found = NULL;
        _cleanup_free_ char *list_error = NULL;
        int r = ht_search_path_list_counted(dirs, ".rules", &paths, &names, &found, &list_error);
        /* each directory named with --rules-path must be one, before any
         * other complaint: one the listing opened as a directory is;
         * the others (and all after a listing error) are stat'ed */
        size_t n_dirs = strv_length((char **)dirs);
        for (size_t i = 0; i < given; i++) {
                const char *d = c->rules_path[i];
                if (r >= 0 && i < n_dirs && streq(dirs[i], d) && found[i] < HT_SEARCH_DIR_NOT_DIR)
                        continue;
                struct stat st;
                if (stat(d, &st) < 0 || !S_ISDIR(st.st_mode)) {
                        int e = stat(d, &st) < 0 ? -errno : -ENOTDIR;
                        return ht_error(ret_error, e, "--rules-path %s: %s", d, ht_strerror(-e));
                }
        }
        if (r < 0) {
                if (ret_error)
                        *ret_error = TAKE_PTR(list_error);
                return r;
        }
        /* each directory named with --rules-path holds rules of its own,
         * shadowed or not (dirs begins with them, as ht_rules_dirs gives) */
        for (size_t i = 0; i < given; i++) {
                const char *d = c->rules_path[i];
                size_t n_here = 0;
                if (i < n_dirs && streq(dirs[i], d))
                        n_here = found[i] >= HT_SEARCH_DIR_NOT_DIR ? 0 : found[i];
                else {
                        _cleanup_strv_free_ char **own = NULL;
                        r = ht_search_path_list((char *const[]){(char *)d, NULL}, ".rules", NULL, &own, ret_error);
                        if (r < 0)
                                return r;
                        n_here = strv_length(own);
                }
                if (n_here == 0)
                        return ht_error(ret_error, -ENOENT,
                                        "--rules-path %s: no rules files (NAME.rules) in this directory; "
                                        "name a directory that holds rules, or leave the option out "
                                        "to use the installed ones", d);
        }
        size_t n = strv_length(names);
        const ht_builtin_file **builtin = xcalloc(n + ht_builtin_n_files + 1, sizeof(*builtin));

        _cleanup_free_ char *inst = xasprintf("%s/rules", datadir());
        /* the listing just looked for it when it is on the path */
        bool inst_exists = true, inst_known = false;
        for (size_t i = 0; dirs && dirs[i]; i++)
                if (streq(dirs[i], inst) && found[i] == HT_SEARCH_DIR_MISSING) {
                        inst_exists = false;
                        inst_known = true;
                        break;
                }
        struct stat st;
        if (!inst_known)
                inst_exists = stat(inst, &st) == 0;
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
        strv_sort_parallel(names, n, (void *const[]){paths, builtin, NULL},
                           (const size_t[]){sizeof(*paths), sizeof(*builtin)});
        if (used)
                *ret_warning = xasprintf("%s does not exist (hosttune's data files are not installed), so the rules "
                                         "hosttune ships are taken from the copies built into hosttune %s: %s",
                                         inst, PACKAGE_VERSION, used);
        *ret_paths = TAKE_PTR(paths);
        *ret_builtin = builtin;
        return 0;
}

char **ht_rules_dirs(const ht_context *c) {
        char **l = NULL;
        if (c->rules_path)
                for (size_t i = 0; c->rules_path[i]; i++)
                        strv_push(&l, c->rules_path[i]);
        else
                ht_rules_default_path(c, &l);
        return l;
}

/* --- list ----------------------------------------------------------- */

int ht_profile_list(const ht_context *c, ht_profile_info **ret, size_t *ret_n, char **ret_error) {
        _cleanup_strv_free_ char **dirs = ht_profile_dirs(c);
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
