#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "accounts.h"
#include "util.h"

/* A parse with its reference count: the context's cache holds one
 * while it keeps it, each reader one. passwd and group share the
 * wrapper: a reader gets the member of the union, which sits at the
 * same offset for both. */
typedef struct {
        unsigned refs;
        bool is_group;
        union {
                ht_passwd p;
                ht_group g;
        } u;
} shared_accounts;

static void shared_unref(const void *member) {
        if (!member)
                return;
        shared_accounts *k = (shared_accounts *)((char *)member - offsetof(shared_accounts, u));
        if (--k->refs > 0)
                return;
        if (k->is_group)
                ht_group_done(&k->u.g);
        else
                ht_passwd_done(&k->u.p);
        free(k);
}

void ht_passwd_unref(const ht_passwd *p) {
        shared_unref(p);
}

void ht_group_unref(const ht_group *g) {
        shared_unref(g);
}

static void kept_unref(void *k) {
        shared_unref(&((shared_accounts *)k)->u);
}

static const ht_parsed_kind passwd_kind = {"passwd", kept_unref};
static const ht_parsed_kind group_kind = {"group", kept_unref};

/* The kept parse of path, or a new one (kept when a plan's cache runs). */
static int shared_read(const ht_context *c, const char *path, bool is_group, shared_accounts **ret) {
        const ht_parsed_kind *kind = is_group ? &group_kind : &passwd_kind;
        shared_accounts *k = ht_context_parsed(c, path, kind, NULL, 0);
        if (k) {
                k->refs++;
                *ret = k;
                return 0;
        }
        _cleanup_free_ char *content = NULL;
        size_t len = 0;
        int r = ht_read_file(c, path, HT_ACCOUNT_FILE_MAX, &content, &len);
        if (r < 0)
                return r;
        k = xcalloc(1, sizeof(*k));
        k->is_group = is_group;
        if (is_group)
                ht_group_parse(content, len, &k->u.g);
        else
                ht_passwd_parse(content, len, &k->u.p);
        k->refs = 2; /* ours and the cache's (dropped at once if it keeps none) */
        ht_context_keep_parsed(c, path, kind, k, NULL, 0);
        *ret = k;
        return 0;
}

int ht_passwd_read(const ht_context *c, const ht_passwd **ret) {
        shared_accounts *k;
        int r = shared_read(c, "/etc/passwd", false, &k);
        if (r >= 0)
                *ret = &k->u.p;
        return r;
}

int ht_group_read(const ht_context *c, const ht_group **ret) {
        shared_accounts *k;
        int r = shared_read(c, "/etc/group", true, &k);
        if (r >= 0)
                *ret = &k->u.g;
        return r;
}

int ht_account_user(const ht_context *c, const char *name, uint32_t *ret_uid, uint32_t *ret_gid) {
        const ht_passwd *p;
        int r = ht_passwd_read(c, &p);
        if (r < 0)
                return r;
        const ht_passwd_entry *e = ht_passwd_by_name(p, name);
        if (e) {
                *ret_uid = e->uid;
                *ret_gid = e->gid;
        }
        ht_passwd_unref(p);
        return e ? 0 : -ENOENT;
}

int ht_account_group(const ht_context *c, const char *name, uint32_t *ret_gid) {
        const ht_group *g;
        int r = ht_group_read(c, &g);
        if (r < 0)
                return r;
        const ht_group_entry *e = ht_group_by_name(g, name);
        if (e)
                *ret_gid = e->gid;
        ht_group_unref(g);
        return e ? 0 : -ENOENT;
}

char *ht_account_user_name(const ht_context *c, uint32_t uid) {
        const ht_passwd *p;
        if (ht_passwd_read(c, &p) < 0)
                return NULL;
        const ht_passwd_entry *e = ht_passwd_by_uid(p, uid);
        char *name = e ? xstrdup(e->name) : NULL;
        ht_passwd_unref(p);
        return name;
}

char *ht_account_group_name(const ht_context *c, uint32_t gid) {
        const ht_group *g;
        if (ht_group_read(c, &g) < 0)
                return NULL;
        const ht_group_entry *e = ht_group_by_gid(g, gid);
        char *name = e ? xstrdup(e->name) : NULL;
        ht_group_unref(g);
        return name;
}

int ht_account_groups_of(const ht_context *c, const char *user, uint32_t primary_gid, char ***ret_names,
                         uint32_t **ret_gids, size_t *ret_n) {
        static const ht_group none;
        const ht_group *kept = NULL;
        int r = ht_group_read(c, &kept);
        if (r < 0 && r != -ENOENT)
                return r;
        const ht_group *g = kept ? kept : &none;
        char **names = xcalloc(1, sizeof(char *));
        uint32_t *gids = NULL;
        size_t n = 0;
        for (size_t i = 0; i < g->n_groups; i++) {
                const ht_group_entry *e = &g->groups[i];
                if ((e->gid != primary_gid && !strv_contains(e->members, user)) || strv_contains(names, e->name))
                        continue;
                strv_push(&names, e->name);
                gids = xrealloc(gids, (n + 1) * sizeof(uint32_t));
                gids[n++] = e->gid;
        }
        ht_group_unref(kept);
        *ret_names = names;
        *ret_gids = gids;
        *ret_n = n;
        return 0;
}
