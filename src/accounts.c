#include "config.h"

#include <errno.h>
#include <string.h>

#include "accounts.h"
#include "util.h"

#define MAX_ACCOUNT_FILE (16u << 20)

/* Call fn for each well-formed colon-separated line of a host file, with
 * its fields; stop when fn returns non-zero and return that. */
static int each_entry(const ht_context *c, const char *path,
                      int (*fn)(char **fields, size_t n, void *userdata), void *userdata) {
        _cleanup_free_ char *content = NULL;
        int r = ht_read_file(c, path, MAX_ACCOUNT_FILE, &content, NULL);
        if (r < 0)
                return r;
        char *save = NULL;
        for (char *line = strtok_r(content, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                if (line[0] == '#' || line[0] == '+' || line[0] == '-')
                        continue; /* comments and NIS compat entries */
                char *fields[8];
                size_t n = 0;
                char *p = line;
                while (n < ELEMENTSOF(fields)) {
                        fields[n++] = p;
                        char *colon = strchr(p, ':');
                        if (!colon)
                                break;
                        *colon = 0;
                        p = colon + 1;
                }
                int k = fn(fields, n, userdata);
                if (k)
                        return k;
        }
        return 0;
}

static int parse_id(const char *s, uint32_t *ret) {
        uint64_t v;
        if (parse_u64(s, &v) < 0 || v > UINT32_MAX)
                return -EINVAL;
        *ret = (uint32_t)v;
        return 0;
}

typedef struct {
        const char *name;
        uint32_t id, gid;
} id_query;

static int find_user(char **f, size_t n, void *userdata) {
        id_query *q = userdata;
        if (n < 4 || !streq(f[0], q->name))
                return 0;
        return parse_id(f[2], &q->id) < 0 || parse_id(f[3], &q->gid) < 0 ? 0 : 1;
}

static int find_group(char **f, size_t n, void *userdata) {
        id_query *q = userdata;
        if (n < 3 || !streq(f[0], q->name))
                return 0;
        return parse_id(f[2], &q->id) < 0 ? 0 : 1;
}

int ht_account_user(const ht_context *c, const char *name, uint32_t *ret_uid, uint32_t *ret_gid) {
        id_query q = {.name = name};
        int r = each_entry(c, "/etc/passwd", find_user, &q);
        if (r < 0)
                return r;
        if (r == 0)
                return -ENOENT;
        *ret_uid = q.id;
        *ret_gid = q.gid;
        return 0;
}

int ht_account_group(const ht_context *c, const char *name, uint32_t *ret_gid) {
        id_query q = {.name = name};
        int r = each_entry(c, "/etc/group", find_group, &q);
        if (r < 0)
                return r;
        if (r == 0)
                return -ENOENT;
        *ret_gid = q.id;
        return 0;
}

typedef struct {
        const char *user;
        uint32_t primary;
        char **names;
        uint32_t *gids;
        size_t n;
} groups_query;

static int collect_group(char **f, size_t n, void *userdata) {
        groups_query *q = userdata;
        uint32_t gid;
        if (n < 3 || parse_id(f[2], &gid) < 0)
                return 0;
        bool member = gid == q->primary;
        if (!member && n >= 4) {
                _cleanup_strv_free_ char **members = strv_split(f[3], ",");
                member = strv_contains(members, q->user);
        }
        if (member && !strv_contains(q->names, f[0])) {
                strv_push(&q->names, f[0]);
                q->gids = xrealloc(q->gids, (q->n + 1) * sizeof(uint32_t));
                q->gids[q->n++] = gid;
        }
        return 0;
}

int ht_account_groups_of(const ht_context *c, const char *user, uint32_t primary_gid, char ***ret_names,
                         uint32_t **ret_gids, size_t *ret_n) {
        groups_query q = {.user = user, .primary = primary_gid};
        int r = each_entry(c, "/etc/group", collect_group, &q);
        if (r < 0 && r != -ENOENT) {
                strv_free(q.names);
                free(q.gids);
                return r;
        }
        *ret_names = q.names ? q.names : xcalloc(1, sizeof(char *));
        *ret_gids = q.gids;
        *ret_n = q.n;
        return 0;
}
