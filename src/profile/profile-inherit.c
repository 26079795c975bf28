/* The inheritance chain: a profile and its parents, found on the profile
 * path, loaded in order (parents first), each with its ancestors' names
 * for the conflicts between unrelated parents. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "fileio.h"
#include "resolver-internal.h"
#include "util.h"

static char *stack_chain(char **stack, const char *last) {
        strbuf b = {0};
        for (size_t i = 0; stack && stack[i]; i++)
                strbuf_appendf(&b, "%s -> ", stack[i]);
        strbuf_append(&b, last);
        return strbuf_steal(&b);
}

/* The first DIR/NAME.profile on the path. A directory we may not search
 * (EACCES) could hold the profile meant: it is not skipped silently but
 * named in *unreadable ("cannot read profile directory D: ..."). In a
 * directory a profile was read from already (kept checked by
 * ht_read_trusted_path) the profile is loaded at once, the open its
 * test (*ret_p, *ret_k and *ret_error: the load's); elsewhere *ret_p
 * stays NULL for the caller to load the path found. */
static int find_profile(char **dirs, const char *name, char **ret, char ***unreadable, ht_pfile **ret_p,
                        int *ret_k, char **ret_error) {
        for (size_t i = 0; dirs && dirs[i]; i++) {
                char *p = xasprintf("%s/%s.profile", dirs[i], name);
                if (ht_trusted_dir_kept(dirs[i])) {
                        char *err = NULL;
                        int k = ht_pfile_load(p, name, ret_p, &err);
                        if (k == -ENOENT) { /* not in this directory (or a link to nothing) */
                                free(err);
                                free(p);
                                continue;
                        }
                        *ret = p;
                        *ret_k = k;
                        if (k < 0)
                                *ret_error = err;
                        else
                                free(err);
                        return 0;
                }
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

int visit(chain_state *st, const char *name, const char *from_file, unsigned from_line,
                 char **ret_error) {
        for (size_t i = 0; st->stack && st->stack[i]; i++)
                if (streq(st->stack[i], name)) {
                        _cleanup_free_ char *chain = stack_chain(st->stack, name);
                        return ht_error(ret_error, -ELOOP, "%s:%u: inheritance cycle: %s", from_file,
                                        from_line, chain);
                }
        for (size_t i = 0; i < st->n_files; i++)
                if (streq(st->files[i]->name, name))
                        return 0;
        if (strv_length(st->stack) > 32)
                return ht_error(ret_error, -ELOOP, "%s:%u: inheritance deeper than 32 levels", from_file,
                                from_line);
        _cleanup_free_ char *path = NULL;
        _cleanup_strv_free_ char **unreadable = NULL;
        /* issue 37: "oracle+jvm" on the command line is a profile of no
         * file inheriting each part, as a site profile with
         * inherit = [ "oracle", "jvm" ] would */
        bool virtual = !from_file && strchr(name, '+');
        if (virtual)
                path = xasprintf("(command line: %s)", name);
        ht_pfile *p = NULL;
        int k = 0;
        _cleanup_free_ char *load_error = NULL;
        if (!virtual && find_profile(st->dirs, name, &path, &unreadable, &p, &k, &load_error) < 0) {
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
        if (virtual) {
                p = xcalloc(1, sizeof(*p));
                p->name = xstrdup(name);
                p->path = xstrdup(path);
                p->parents = strv_split(name, "+");
        } else if (!p && k == 0)
                k = ht_pfile_load(path, name, &p, ret_error);
        if (k < 0) {
                if (load_error)
                        *ret_error = TAKE_PTR(load_error);
                return k;
        }
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
