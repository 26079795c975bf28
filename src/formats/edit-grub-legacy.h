/* Legacy GRUB (0.97) menu files: /boot/grub/grub.conf, menu.lst. Parsing
 * of default/timeout and the title blocks, in-place edits of kernel
 * arguments and of the default entry. Pure functions over buffers. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "edit-cmdline.h"

typedef struct {
        char *title;
        unsigned title_line;
        char *kernel;           /* path on the kernel line (NULL: none, e.g. chainloader) */
        unsigned kernel_line;
        /* Xen: the kernel line loads the hypervisor; Linux and its
         * arguments are on the first module line. */
        bool xen;
        char *linux_kernel;     /* the Linux image: kernel path, or the first module's */
        /* the image takes Linux arguments: false for Memtest86+ (kernel
         * --type=netbsd /elf-memtest86+-4.10, kernel /memtest86+-1.65)
         * and other --type= images that are not linux or biglinux */
        bool linux_image;
        unsigned linux_line;    /* line holding the Linux arguments */
        /* Byte spans of the argument text after the image path, up to the
         * end of the line: Linux's, and the hypervisor's (Xen only). */
        size_t linux_args_start, linux_args_end;
        size_t xen_args_start, xen_args_end;
} ht_grub_legacy_entry;

typedef struct {
        ht_grub_legacy_entry *entries;
        size_t n_entries;
        int default_entry;      /* the "default" value; 0 when absent; -1 when "saved" */
        unsigned default_line;  /* 0: no default line */
        size_t default_value_start, default_value_end;
        int timeout;            /* -1 when absent */
} ht_grub_legacy_conf;

/* Parse a menu file. -EINVAL with "LINE: message" on NUL bytes, control
 * characters, a non-numeric default/timeout (other than "saved"), or
 * kernel/module lines outside a title block. */
int ht_grub_legacy_parse(const char *content, size_t len, ht_grub_legacy_conf **ret, char **ret_error);
void ht_grub_legacy_conf_free(ht_grub_legacy_conf *c);
static inline void ht_grub_legacy_conf_freep(ht_grub_legacy_conf **c) { ht_grub_legacy_conf_free(*c); }

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
