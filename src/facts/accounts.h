/* Users and groups of the host behind the context, read from its
 * /etc/passwd and /etc/group (never NSS: under --root the running
 * system's users are not the image's) with the one parser of each
 * (format-accounts.h), for facts and editors alike. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "context.h"
#include "format-accounts.h"

/* The largest passwd or group file read (a directory of 100,000 users
 * is about 10 MB). */
#define HT_ACCOUNT_FILE_MAX (16u << 20)

/* The host's /etc/passwd, /etc/group parsed. -errno when it cannot be
 * read (-ENOENT: none). While a plan is made the parse is kept beside
 * the file's bytes (ht_context_keep_parsed), so the facts, the profile
 * (gid.NAME) and the limits backend parse each file once: *ret is shared
 * and read-only; drop it with ht_passwd_unref, ht_group_unref. */
int ht_passwd_read(const ht_context *c, const ht_passwd **ret);
int ht_group_read(const ht_context *c, const ht_group **ret);
void ht_passwd_unref(const ht_passwd *p);
void ht_group_unref(const ht_group *g);
static inline void ht_passwd_unrefp(const ht_passwd **p) { ht_passwd_unref(*p); }
static inline void ht_group_unrefp(const ht_group **g) { ht_group_unref(*g); }

/* uid and primary gid of a user. -ENOENT when there is no such user. */
int ht_account_user(const ht_context *c, const char *name, uint32_t *ret_uid, uint32_t *ret_gid);
/* gid of a group. -ENOENT when there is no such group. */
int ht_account_group(const ht_context *c, const char *name, uint32_t *ret_gid);
/* The name of a uid, of a gid; NULL when unknown or unreadable. */
char *ht_account_user_name(const ht_context *c, uint32_t uid);
char *ht_account_group_name(const ht_context *c, uint32_t gid);
/* All groups of a user: the primary one (by gid) and those listing the
 * user as a member. Names and gids in matching order. */
int ht_account_groups_of(const ht_context *c, const char *user, uint32_t primary_gid, char ***ret_names,
                         uint32_t **ret_gids, size_t *ret_n);
