/* What a backend's profile-section parser (ht_backend.parse_section)
 * builds on: the entries of profile-model.h and the libconfig helpers
 * of the profile loader (profile-load.c); canon_key sees the resolver
 * only as resolver.h declares it, opaque. Every helper reports a problem
 * as -EINVAL with *ret_error "FILE:LINE: WHAT: ...". */
#pragma once

#include <libconfig.h>

#include "backend.h"
#include "profile-model.h"
#include "resolver.h"

unsigned ht_cfg_line(const config_setting_t *s);
/* "a group { }", "a string", ... for messages. */
const char *ht_cfg_type_name(int type);
bool ht_cfg_is_scalar(const config_setting_t *s);
/* A value as written: integers and booleans are literals, a string
 * starting with '=' an expression, a string with ${ a template. */
int ht_cfg_spec(const config_setting_t *s, const char *file, const char *what, ht_spec *ret,
                char **ret_error);
int ht_cfg_want_type(const config_setting_t *s, int type, const char *file, const char *what,
                     char **ret_error);
/* Every member of group g must be one of allowed. */
int ht_cfg_check_members(const config_setting_t *g, const char *const *allowed, const char *file,
                         const char *what, char **ret_error);
/* A group whose members are all in allowed: ht_cfg_want_type for
 * CONFIG_TYPE_GROUP, then ht_cfg_check_members. */
int ht_cfg_want_group(const config_setting_t *g, const char *const *allowed, const char *file, const char *what,
                      char **ret_error);
/* Member name of g; absent: *ret untouched, *ret_present (if given) false. */
int ht_cfg_get_bool(const config_setting_t *g, const char *name, const char *file, const char *what,
                    bool *ret, bool *ret_present, char **ret_error);
int ht_cfg_get_spec(const config_setting_t *g, const char *name, bool required, const char *file,
                    const char *what, ht_spec *ret, char **ret_error);
/* Append an entry of backend b at file:line to *l. */
ht_entry *ht_entry_push(ht_entry **l, size_t *n, ht_backend_id b, const char *file, unsigned line);
/* when = "EXPR" in group g: the setting applies where EXPR is true. The
 * text is kept (*ret, replacing what it held); absent: *ret untouched. */
int ht_cfg_get_when(const config_setting_t *g, const char *file, const char *what, char **ret,
                    char **ret_error);
/* bound = "exact" | "at-least" | "at-most" | "range" in group g, for a
 * backend whose entries take one (HT_ENTRY_BOUND); call after the value
 * is read: a literal is checked against the bound here. */
int ht_cfg_get_bound(const config_setting_t *g, const char *file, const char *what, ht_entry *e,
                     char **ret_error);
/* A leaf value: a scalar, or { value = ...; optional = true; bound = ...; when = ...; }. */
int ht_cfg_leaf_value(const config_setting_t *m, const char *file, const char *what, ht_entry *e,
                      char **ret_error);
/* A section of keyed values (sysctl, sysfs): nested groups whose names
 * are joined with sep below root (NULL: none), or a list of groups whose
 * members are list_keys, the first being the key. */
int ht_cfg_keyed_section(ht_pfile *p, const config_setting_t *s, ht_backend_id b, char sep,
                         const char *root, const char *const *list_keys, char **ret_error);
