/* Users and groups of the host behind the context, read from its
 * /etc/passwd and /etc/group (never NSS: under --root the running
 * system's users are not the image's). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "context.h"

/* uid and primary gid of a user. -ENOENT when there is no such user. */
int ht_account_user(const ht_context *c, const char *name, uint32_t *ret_uid, uint32_t *ret_gid);
/* gid of a group. -ENOENT when there is no such group. */
int ht_account_group(const ht_context *c, const char *name, uint32_t *ret_gid);
/* All groups of a user: the primary one (by gid) and those listing the
 * user as a member. Names and gids in matching order. */
int ht_account_groups_of(const ht_context *c, const char *user, uint32_t primary_gid, char ***ret_names,
                         uint32_t **ret_gids, size_t *ret_n);
