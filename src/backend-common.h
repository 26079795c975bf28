/* Small pieces every backend uses. */
#pragma once

#include "context.h"
#include "plan.h"
#include "profile.h"

/* The comment at the top of every file hosttune owns. */
char *ht_managed_header(const char *profile, const char *comment_prefix);

/* Read a host file for planning: 0 with *ret NULL when it does not exist,
 * 0 with contents, or -errno. Files over 16 MiB are refused (-EFBIG). */
int ht_read_optional(const ht_context *c, const char *path, char **ret, size_t *ret_len);

/* Whether the context's root has a running kernel behind it (procfs and
 * sysfs present); an image tree does not. */
bool ht_root_is_live(const ht_context *c);

/* Settings of one backend, in profile order. */
size_t ht_settings_count(const ht_resolved *r, ht_backend_id id);

/* The host path a symlink at path leads to, followed inside the root
 * (RHEL 8 on EFI: /boot/grub2/grubenv -> ../efi/EFI/redhat/grubenv, the
 * file grub2-editenv really writes). hosttune never writes through a
 * link, so plans edit the target. path itself when it is no symlink or
 * the link cannot be followed safely (apply then refuses it). */
char *ht_follow_host_link(const ht_context *c, const char *path);
/* The same, strictly: the final host path in *ret, "/dev/null" for a link
 * there (a masked unit); -ENOENT, -ELOOP, -EXDEV (a link out of the root
 * or one that cannot be followed safely) otherwise. */
int ht_resolve_host_link(const ht_context *c, const char *path, char **ret);
