/* grub.cfg as grub-mkconfig writes it, for hosts that have no
 * /etc/default/grub to regenerate it from (image pipelines that ship
 * grub.cfg only). hosttune then edits the arguments of the kernel lines
 * in place, the way grubby --grub2 --update-kernel=ALL --args does
 * (grubby.c, updateActualImage): every linux, linux16 and linuxefi line
 * of every menuentry, submenus included. Pure functions over buffers. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "edit-cmdline.h"

typedef enum {
        HT_GRUB_CFG_LINUX,      /* a Linux kernel: linux, linux16, linuxefi, or
                                 * Xen's first module / module2 */
        HT_GRUB_CFG_XEN,        /* the Xen hypervisor: multiboot, multiboot2 */
        HT_GRUB_CFG_OTHER,      /* memtest86+ and other non-Linux images */
} ht_grub_cfg_kind;

typedef struct {
        ht_grub_cfg_kind kind;
        unsigned line;
        char *command;          /* "linux", "linuxefi", "module2", ... */
        char *image;
        size_t args_start, args_end;    /* after the image, to the line's end ('\r' excluded) */
        char *args;
} ht_grub_cfg_kernel;

typedef struct {
        ht_grub_cfg_kernel *kernels;
        size_t n_kernels;
} ht_grub_cfg;

/* Find the kernel lines. -EINVAL with "LINE: message" on NUL bytes. */
int ht_grub_cfg_parse(const char *content, size_t len, ht_grub_cfg **ret, char **ret_error);
void ht_grub_cfg_free(ht_grub_cfg *g);
static inline void ht_grub_cfg_freep(ht_grub_cfg **g) { ht_grub_cfg_free(*g); }

/* Apply ops to the arguments of every kernel line of that kind (LINUX or
 * XEN), keeping every other byte. *ret_n_lines: how many lines such
 * arguments were found on. -EINVAL with "LINE: message" for a line whose
 * GRUB quoting hosttune does not rewrite (single quotes, backslashes, a
 * continued line) or an invalid op. */
int ht_grub_cfg_edit(const char *content, size_t len, ht_grub_cfg_kind kind, const ht_cmdline_op *ops,
                     size_t n_ops, char **ret, size_t *ret_len, size_t *ret_n_lines, char **ret_error);
