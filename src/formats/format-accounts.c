#include "config.h"

#include <ctype.h>
#include <string.h>

#include "format-accounts.h"
#include "util.h"

/* Calls fn with each line nss_files reads (blanks before it skipped, not
 * a comment, not empty) and its 1-based number. */
static void each_line(const char *text, size_t len, void (*fn)(char *line, unsigned no, void *userdata),
                      void *userdata) {
        unsigned no = 0;
        /* one copy of the file, cut into lines in place: not a copy per
         * line (a line still ends at a NUL, as its own copy did) */
        _cleanup_free_ char *copy = len ? xmalloc(len + 1) : NULL;
        if (copy) {
                memcpy(copy, text, len);
                copy[len] = 0;
        }
        for (size_t pos = 0; pos < len;) {
                char *line = copy + pos;
                char *nl = memchr(line, '\n', len - pos);
                size_t n = nl ? (size_t)(nl - line) : len - pos;
                no++;
                line[n] = 0;
                pos += n + (nl ? 1 : 0);
                char *p = line;
                while (isspace((unsigned char)*p))
                        p++;
                if (*p == 0 || *p == '#')
                        continue;
                fn(p, no, userdata);
        }
}

/* The next field: up to ':' or the end of the line, which is cut there;
 * *line moves past the colon. NULL at the end of the line. */
static char *next_field(char **line) {
        if (!*line)
                return NULL;
        char *f = *line, *colon = strchr(f, ':');
        if (colon) {
                *colon = 0;
                *line = colon + 1;
        } else
                *line = NULL;
        return f;
}

/* A numeric field as INT_FIELD takes it: strtoul's blanks and '+' before
 * the digits, nothing after them. */
static bool parse_id(const char *s, uint32_t *ret) {
        uint64_t v;
        if (!s)
                return false;
        while (isspace((unsigned char)*s))
                s++;
        if (*s == '+')
                s++;
        if (!isdigit((unsigned char)*s) || parse_u64(s, &v) < 0 || v >= UINT32_MAX)
                return false;
        *ret = (uint32_t)v;
        return true;
}

/* Whether an array of n entries is full: its room doubles at every
 * power of two, not one realloc() a line. */
static bool grows(size_t n) {
        return (n & (n - 1)) == 0;
}

static bool nis_compat(const char *name) {
        return name[0] == '+' || name[0] == '-';
}

static void passwd_line(char *line, unsigned no, void *userdata) {
        ht_passwd *p = userdata;
        char *name = next_field(&line);
        next_field(&line); /* password */
        uint32_t uid, gid;
        if (isempty(name) || nis_compat(name) || !parse_id(next_field(&line), &uid) ||
            !parse_id(next_field(&line), &gid))
                return;
        if (grows(p->n_users))
                p->users = xrealloc(p->users, (p->n_users ? 2 * p->n_users : 1) * sizeof(*p->users));
        p->users[p->n_users++] = (ht_passwd_entry){.name = ht_arena_strdup(&p->arena, name), .uid = uid, .gid = gid, .line = no};
}

static unsigned long parse_count;

unsigned long ht_accounts_parse_count(void) {
        return parse_count;
}

void ht_passwd_parse(const char *text, size_t len, ht_passwd *ret) {
        parse_count++;
        *ret = (ht_passwd){0};
        each_line(text, len, passwd_line, ret);
}

static void group_line(char *line, unsigned no, void *userdata) {
        ht_group *g = userdata;
        char *name = next_field(&line);
        next_field(&line); /* password */
        uint32_t gid;
        if (isempty(name) || nis_compat(name) || !parse_id(next_field(&line), &gid))
                return;
        /* the rest of the line, colons included, is the member list:
         * counted, then copied into the arena with its names */
        size_t n_members = 0;
        for (char *m = line; m && *m;) {
                m += strspn(m, " \t\n\v\f\r");
                size_t n = strcspn(m, ",");
                n_members += n > 0;
                m += n + (m[n] == ',');
        }
        char **members = ht_arena_calloc(&g->arena, n_members + 1, sizeof(char *));
        n_members = 0;
        for (char *m = line; m && *m;) {
                m += strspn(m, " \t\n\v\f\r");
                size_t n = strcspn(m, ",");
                if (n > 0)
                        members[n_members++] = ht_arena_strndup(&g->arena, m, n);
                m += n + (m[n] == ',');
        }
        if (grows(g->n_groups))
                g->groups = xrealloc(g->groups, (g->n_groups ? 2 * g->n_groups : 1) * sizeof(*g->groups));
        g->groups[g->n_groups++] = (ht_group_entry){.name = ht_arena_strdup(&g->arena, name), .gid = gid, .members = members, .line = no};
}

void ht_group_parse(const char *text, size_t len, ht_group *ret) {
        parse_count++;
        *ret = (ht_group){0};
        each_line(text, len, group_line, ret);
}

void ht_passwd_done(ht_passwd *p) {
        free(p->users);
        ht_arena_done(&p->arena);
        *p = (ht_passwd){0};
}

void ht_group_done(ht_group *g) {
        free(g->groups);
        ht_arena_done(&g->arena);
        *g = (ht_group){0};
}

const ht_passwd_entry *ht_passwd_by_name(const ht_passwd *p, const char *name) {
        for (size_t i = 0; name && i < p->n_users; i++)
                if (streq(p->users[i].name, name))
                        return &p->users[i];
        return NULL;
}

const ht_passwd_entry *ht_passwd_by_uid(const ht_passwd *p, uint32_t uid) {
        for (size_t i = 0; i < p->n_users; i++)
                if (p->users[i].uid == uid)
                        return &p->users[i];
        return NULL;
}

const ht_group_entry *ht_group_by_name(const ht_group *g, const char *name) {
        for (size_t i = 0; name && i < g->n_groups; i++)
                if (streq(g->groups[i].name, name))
                        return &g->groups[i];
        return NULL;
}

const ht_group_entry *ht_group_by_gid(const ht_group *g, uint32_t gid) {
        for (size_t i = 0; i < g->n_groups; i++)
                if (g->groups[i].gid == gid)
                        return &g->groups[i];
        return NULL;
}
