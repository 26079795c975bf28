#include "config.h"

#include <errno.h>
#include <string.h>

#include "accounts.h"
#include "util.h"

int ht_passwd_read(const ht_context *c, ht_passwd *ret) {
        _cleanup_free_ char *content = NULL;
        size_t len = 0;
        int r = ht_read_file(c, "/etc/passwd", HT_ACCOUNT_FILE_MAX, &content, &len);
        if (r < 0)
                return r;
        ht_passwd_parse(content, len, ret);
        return 0;
}

int ht_group_read(const ht_context *c, ht_group *ret) {
        _cleanup_free_ char *content = NULL;
        size_t len = 0;
        int r = ht_read_file(c, "/etc/group", HT_ACCOUNT_FILE_MAX, &content, &len);
        if (r < 0)
                return r;
        ht_group_parse(content, len, ret);
        return 0;
}

int ht_account_user(const ht_context *c, const char *name, uint32_t *ret_uid, uint32_t *ret_gid) {
        ht_passwd p;
        int r = ht_passwd_read(c, &p);
        if (r < 0)
                return r;
        const ht_passwd_entry *e = ht_passwd_by_name(&p, name);
        if (e) {
                *ret_uid = e->uid;
                *ret_gid = e->gid;
        }
        ht_passwd_done(&p);
        return e ? 0 : -ENOENT;
}

int ht_account_group(const ht_context *c, const char *name, uint32_t *ret_gid) {
        ht_group g;
        int r = ht_group_read(c, &g);
        if (r < 0)
                return r;
        const ht_group_entry *e = ht_group_by_name(&g, name);
        if (e)
                *ret_gid = e->gid;
        ht_group_done(&g);
        return e ? 0 : -ENOENT;
}

char *ht_account_user_name(const ht_context *c, uint32_t uid) {
        ht_passwd p;
        if (ht_passwd_read(c, &p) < 0)
                return NULL;
        const ht_passwd_entry *e = ht_passwd_by_uid(&p, uid);
        char *name = e ? xstrdup(e->name) : NULL;
        ht_passwd_done(&p);
        return name;
}

char *ht_account_group_name(const ht_context *c, uint32_t gid) {
        ht_group g;
        if (ht_group_read(c, &g) < 0)
                return NULL;
        const ht_group_entry *e = ht_group_by_gid(&g, gid);
        char *name = e ? xstrdup(e->name) : NULL;
        ht_group_done(&g);
        return name;
}

int ht_account_groups_of(const ht_context *c, const char *user, uint32_t primary_gid, char ***ret_names,
                         uint32_t **ret_gids, size_t *ret_n) {
        ht_group g;
        int r = ht_group_read(c, &g);
        if (r < 0 && r != -ENOENT)
                return r;
        if (r < 0)
                g = (ht_group){0};
        char **names = xcalloc(1, sizeof(char *));
        uint32_t *gids = NULL;
        size_t n = 0;
        for (size_t i = 0; i < g.n_groups; i++) {
                const ht_group_entry *e = &g.groups[i];
                if ((e->gid != primary_gid && !strv_contains(e->members, user)) || strv_contains(names, e->name))
                        continue;
                strv_push(&names, e->name);
                gids = xrealloc(gids, (n + 1) * sizeof(uint32_t));
                gids[n++] = e->gid;
        }
        ht_group_done(&g);
        *ret_names = names;
        *ret_gids = gids;
        *ret_n = n;
        return 0;
}
