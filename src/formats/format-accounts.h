/* /etc/passwd and /etc/group, the one parser of each for every reader:
 * the facts (the oracle user, the owners of databases and JVMs and their
 * groups), the profile resolver (gid.NAME) and the limits backend (a
 * user's groups). Pure: text in, entries out; accounts.h reads the files
 * through the root context (never NSS: under --root the running system's
 * users are not the image's).
 *
 * The lines glibc's files backend (nss_files) gives getpwnam(3) and
 * getgrnam(3), and only those:
 *  - leading blanks are skipped; empty lines and lines starting with '#'
 *    are ignored (nss_readline);
 *  - fields are split at ':'; text fields may be empty or missing at the
 *    end of the line (STRING_FIELD), a numeric field must be a decimal
 *    number ending at ':' or at the end of the line (INT_FIELD): a line
 *    whose uid or gid is not one is ignored, as glibc ignores it. A
 *    passwd line needs name, password, uid and gid; a group line name,
 *    password and gid. glibc clamps an id above 32 bits to 4294967295,
 *    which is no id: such a line is ignored too;
 *  - names starting with '+' or '-' are nss_compat's NIS entries, which
 *    the files backend's lookups never match (files-pwd.c, files-grp.c):
 *    ignored;
 *  - a group's members are split at ',', leading blanks of each skipped,
 *    empty ones dropped (parse_list).
 * The first entry of a name or an id wins, as with the files backend. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "arena.h"

typedef struct {
        char *name;
        uint32_t uid, gid;
        unsigned line;  /* 1-based */
} ht_passwd_entry;

typedef struct {
        char *name;
        uint32_t gid;
        char **members; /* NULL-terminated, never NULL; in ht_group.arena */
        unsigned line;
} ht_group_entry;

typedef struct {
        ht_passwd_entry *users;
        size_t n_users;
        ht_arena arena;     /* owns the names (one file, freed at once) */
} ht_passwd;

typedef struct {
        ht_group_entry *groups;
        size_t n_groups;
        ht_arena arena;     /* owns the names and the member lists: a
                             * member list is not a strv to strv_free */
} ht_group;

/* Parse the file's text (len bytes; a NUL ends a line's text). Lines
 * glibc would not return are skipped; never fails. */
void ht_passwd_parse(const char *text, size_t len, ht_passwd *ret);
void ht_group_parse(const char *text, size_t len, ht_group *ret);
void ht_passwd_done(ht_passwd *p);
void ht_group_done(ht_group *g);
/* How many files the two parsers parsed in this process (for the tests
 * of the parse accounts.h keeps). */
unsigned long ht_accounts_parse_count(void);

/* The entry getpwnam/getpwuid/getgrnam/getgrgid would return, or NULL. */
const ht_passwd_entry *ht_passwd_by_name(const ht_passwd *p, const char *name);
const ht_passwd_entry *ht_passwd_by_uid(const ht_passwd *p, uint32_t uid);
const ht_group_entry *ht_group_by_name(const ht_group *g, const char *name);
const ht_group_entry *ht_group_by_gid(const ht_group *g, uint32_t gid);
