/* Legacy GRUB (0.97) menu files: /boot/grub/grub.conf, menu.lst.
 * In-place edits of kernel arguments and of the default entry, on the
 * spans the one parser of the format gives (format-grub-legacy.h). Pure
 * functions over buffers. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "edit-cmdline.h"
#include "format-grub-legacy.h"

#define HT_GRUB_LEGACY_ALL (-1)

typedef enum {
        HT_GRUB_LEGACY_LINUX,           /* the Linux kernel's arguments (dom0 on Xen) */
        HT_GRUB_LEGACY_HYPERVISOR,      /* the Xen hypervisor's arguments */
} ht_grub_legacy_target;

/* Apply ops to the arguments of entry (an index, or HT_GRUB_LEGACY_ALL
 * for every entry that has such arguments: Linux kernels only, for the
 * Linux target), keeping all other bytes.
 * -EINVAL for an index out of range, an entry without a kernel, or
 * hypervisor arguments asked of a non-Xen entry (explicit index only). */
int ht_grub_legacy_edit(const char *content, size_t len, int entry, ht_grub_legacy_target target,
                        const ht_cmdline_op *ops, size_t n_ops,
                        char **ret, size_t *ret_len, char **ret_error);

/* Make entry index the default: the value of the default line is
 * replaced (its "default=N" or "default N" form kept), or "default=N" is
 * inserted before the first command when there is none. */
int ht_grub_legacy_set_default(const char *content, size_t len, unsigned index,
                               char **ret, size_t *ret_len, char **ret_error);
