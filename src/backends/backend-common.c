#include "config.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "backend-common.h"
#include "backend.h"
#include "util.h"

#define HT_MAX_MANAGED_FILE (16u << 20)

char *ht_managed_header(const char *profile, const char *comment_prefix) {
        return xasprintf("%s Managed by hosttune (profile %s). Changes here are overwritten\n"
                         "%s by the next 'hosttune apply'; put local settings in another file.\n",
                         comment_prefix, profile, comment_prefix);
}

int ht_read_optional(const ht_context *c, const char *path, char **ret, size_t *ret_len) {
        char *s = NULL;
        size_t n = 0;
        int r = ht_read_file(c, path, HT_MAX_MANAGED_FILE, &s, &n);
        if (r == -ENOENT) {
                *ret = NULL;
                if (ret_len)
                        *ret_len = 0;
                return 0;
        }
        if (r < 0)
                return r;
        *ret = s;
        if (ret_len)
                *ret_len = n;
        return 0;
}

bool ht_root_is_live(const ht_context *c) {
        /* one definition: the facts say "offline" by the same test */
        return ht_facts_root_live(c);
}

size_t ht_settings_count(const ht_resolved *r, ht_backend_id id) {
        size_t n = 0;
        for (size_t i = 0; i < r->n_settings; i++)
                if (r->settings[i].backend == id)
                        n++;
        return n;
}

/* "/a/b/../c/./d" -> "/a/c/d"; NULL when ".." climbs above "/". */
static char *host_path_simplify(const char *path) {
        _cleanup_strv_free_ char **parts = strv_split(path, "/");
        char **keep = NULL;
        size_t n = 0;
        for (size_t i = 0; parts && parts[i]; i++) {
                if (!*parts[i] || streq(parts[i], "."))
                        continue;
                if (streq(parts[i], "..")) {
                        if (n == 0) {
                                strv_free(keep);
                                return NULL;
                        }
                        free(keep[--n]);
                        keep[n] = NULL;
                        continue;
                }
                strv_push(&keep, parts[i]);
                n++;
        }
        _cleanup_free_ char *joined = keep ? strv_join(keep, "/") : xstrdup("");
        strv_free(keep);
        return xasprintf("/%s", joined);
}

int ht_host_link_target(const char *cur, const char *target, char **ret_next) {
        _cleanup_free_ char *dir = xstrndup(cur, (size_t)(strrchr(cur, '/') - cur));
        _cleanup_free_ char *joined = target[0] == '/' ? xstrdup(target) : xasprintf("%s/%s", dir, target);
        char *next = host_path_simplify(joined);
        if (!next || ht_path_check(next) < 0) {
                free(next);
                return -EXDEV;
        }
        *ret_next = next;
        return 0;
}

/* One step along the links from cur: 1 and *ret_next where cur is a
 * link, 0 where it is none, -errno (-ENOENT: missing). ht_readlink
 * answers both in one open. */
static int link_step(const ht_context *c, const char *cur, char **ret_next) {
        _cleanup_free_ char *target = NULL;
        int r = ht_readlink(c, cur, &target);
        if (r == -EINVAL)
                return 0;
        if (r < 0)
                return r;
        r = ht_host_link_target(cur, target, ret_next);
        return r < 0 ? r : 1;
}

int ht_resolve_host_link(const ht_context *c, const char *path, char **ret) {
        _cleanup_free_ char *cur = xstrdup(path);
        for (int depth = 0; depth < 8; depth++) {
                char *next;
                int r = link_step(c, cur, &next);
                if (r < 0)
                        return r;
                if (r == 0) {
                        *ret = TAKE_PTR(cur);
                        return 0;
                }
                free(cur);
                cur = next;
                /* a masked unit links to /dev/null: say so, do not look */
                if (streq(cur, "/dev/null")) {
                        *ret = TAKE_PTR(cur);
                        return 0;
                }
        }
        return -ELOOP;
}

char *ht_follow_host_link(const ht_context *c, const char *path) {
        char *cur = xstrdup(path);
        for (int depth = 0; depth < 8; depth++) {
                char *next;
                int r = link_step(c, cur, &next);
                /* cur is missing or no link: where the links lead; a
                 * link out of the root: the path itself */
                if (r == -EXDEV)
                        break;
                if (r <= 0)
                        return cur;
                free(cur);
                cur = next;
        }
        free(cur);
        return xstrdup(path);
}

/* Whether host path p lies in hosttune's own files: the state directory
 * (the journal and its backups) or a file named after hosttune (its
 * drop-ins). A distribution's link never leads there; one that does was
 * made to have hosttune overwrite its own journal or drop-ins. */
static bool is_own_file(const ht_context *c, const char *p) {
        _cleanup_strv_free_ char **parts = strv_split(p, "/");
        for (size_t i = 0; parts && parts[i]; i++)
                if (strstr(parts[i], "hosttune"))
                        return true;
        _cleanup_free_ char *root = realpath(c->root, NULL);
        if (!root || !c->state_dir)
                return false;
        _cleanup_free_ char *real = xasprintf("%s%s", streq(root, "/") ? "" : root, p);
        size_t n = strlen(c->state_dir);
        return strncmp(real, c->state_dir, n) == 0 && (real[n] == '/' || real[n] == 0);
}

int ht_edit_target(const ht_context *c, const char *path, char **ret, char **ret_error) {
        struct stat st;
        if (ht_lstat(c, path, &st) < 0 || !S_ISLNK(st.st_mode)) {
                *ret = xstrdup(path);
                return 0;
        }
        _cleanup_free_ char *shown = ht_display_path(c, path), *target = NULL;
        int r = ht_resolve_host_link(c, path, &target);
        if (r == -ENOENT)
                return ht_error(ret_error, r, "%s is a symlink to a file that does not exist", shown);
        if (r == -EXDEV || (r >= 0 && streq(target, "/dev/null")))
                return ht_error(ret_error, -EXDEV,
                                "%s is a symlink that leads out of the root: hosttune never writes through it", shown);
        if (r < 0)
                return ht_error(ret_error, r,
                                "%s is a symlink that cannot be followed safely (%s): hosttune never writes through it",
                                shown, ht_strerror(-r));
        if (is_own_file(c, target)) {
                _cleanup_free_ char *t = ht_display_path(c, target);
                return ht_error(ret_error, -EPERM,
                                "%s is a symlink to %s, one of hosttune's own files: refused", shown, t);
        }
        if (ht_lstat(c, target, &st) < 0 || !S_ISREG(st.st_mode)) {
                _cleanup_free_ char *t = ht_display_path(c, target);
                return ht_error(ret_error, -EINVAL, "%s is a symlink to %s, which is not a regular file", shown, t);
        }
        *ret = TAKE_PTR(target);
        return 0;
}

void ht_plan_own_file(ht_plan *plan, ht_backend_id b, const char *path, const char *old, size_t old_len,
                      const char *content) {
        static const char mark[] = "Managed by hosttune";
        if (content)
                ht_plan_add_file(plan, b, path, old, old_len, content, strlen(content), 0644);
        /* only a file hosttune wrote is removed: what reads without the
         * header is not its, above all a link to /dev/null that masks the
         * name (sysctl.d(5), tmpfiles.d(5), udev(7); pam_limits reads it
         * empty), which the administrator put there and apply would
         * refuse to remove anyway (never through a link) */
        else if (old && memmem(old, old_len, mark, sizeof(mark) - 1))
                ht_plan_add_file(plan, b, path, old, old_len, NULL, 0, 0644);
}

bool ht_kernel_switch_pending(const ht_facts *f, const ht_resolved *r) {
        if (!f->kernel_xen)
                return false;
        const ht_backend *bl = ht_backend_by_name("bootloader");
        for (size_t i = 0; i < r->n_settings; i++)
                if (r->settings[i].backend == bl->id && streq(r->settings[i].key, "default"))
                        return true;
        return false;
}

/* systemd-logind re-reads logind.conf on SIGHUP (systemd 230 NEWS); see
 * backend-systemd.c for why not reload or restart */
static const char *const reload_logind_argv[] = {"systemctl", "kill", "--signal=SIGHUP", "systemd-logind.service",
                                                 NULL};

static const ht_follow_up_def follow_ups[] = {
        {"daemon-reload", NULL},
        {"reload-logind", reload_logind_argv},
};

const ht_follow_up_def *ht_follow_up_get(const char *action) {
        for (size_t i = 0; action && i < ELEMENTSOF(follow_ups); i++)
                if (streq(follow_ups[i].action, action))
                        return &follow_ups[i];
        return NULL;
}
