/* Boot Loader Specification entries (/boot/loader/entries/ *.conf), the
 * GRUB environment block (grubenv, where RHEL 8 keeps kernelopts) and
 * /etc/kernel/cmdline (RHEL 9): in-place word edits, the way grubby
 * changes them, on the spans of the formats' one parser (format-bls.h).
 * Pure functions over buffers. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "edit-cmdline.h"
#include "format-bls.h"

#define HT_BLS_ENTRIES_DIR "/boot/loader/entries"
#define HT_KERNEL_CMDLINE "/etc/kernel/cmdline"
/* the distribution's, in /usr: kernel-install reads it when there is no
 * /etc/kernel/cmdline; hosttune never edits it, a copy in /etc wins */
#define HT_KERNEL_CMDLINE_USR "/usr/lib/kernel/cmdline"


/* Edit the words of the entry's options line in place (one is appended
 * when there is none). $name words are kept; they expand from env
 * (grubenv; NULL when it is unknown), and an op on a parameter found only
 * there fails: the caller edits grubenv's kernelopts instead. -EINVAL
 * also for several options lines or a bad op. */
int ht_bls_edit_options(const char *content, size_t len, const ht_grubenv *env,
                        const ht_cmdline_op *ops, size_t n_ops,
                        char **ret, size_t *ret_len, char **ret_error);

/* Edit the words of kernelopts in a grubenv block in place and pad it
 * back to its size with '#'. -ENOSPC when the result would not fit,
 * -EINVAL for a malformed block or a kernelopts holding escapes. */
int ht_grubenv_edit_kernelopts(const char *content, size_t len, const ht_cmdline_op *ops, size_t n_ops,
                               char **ret, size_t *ret_len, char **ret_error);

/* Edit /etc/kernel/cmdline: one line of words (the file may be empty or
 * missing: pass len 0). -EINVAL when it holds more than one line. */
int ht_kernel_cmdline_edit(const char *content, size_t len, const ht_cmdline_op *ops, size_t n_ops,
                           char **ret, size_t *ret_len, char **ret_error);
