/* /etc/default/grub and /etc/default/grub.d/ *.cfg: edits of the words
 * of one variable in place, on the reader of format-grub-defaults.h. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "edit-cmdline.h"
#include "format-grub-defaults.h"

/* Edit the words of the last assignment of name in content by ops,
 * keeping its quoting and every other byte; append `name="..."` when the
 * file has no assignment of it. before: the variables left by the files
 * sourced earlier (NULL: none). -EINVAL with "LINE: message" when the
 * value cannot be edited safely (command substitution, mixed quoting,
 * escapes, a conditional assignment, a parameter that comes from a
 * referenced variable) or an op is invalid. */
int ht_grub_edit(const char *content, size_t len, const char *name, const ht_grub_env *before,
                 const ht_cmdline_op *ops, size_t n_ops,
                 char **ret, size_t *ret_len, char **ret_error);
/* ht_grub_edit with the parse of content at hand (ht_grub_parse_host's:
 * read, never changed; NULL: parse it), and giving the parse of the
 * result, which the edit checks itself by (ret_parsed NULL: not wanted;
 * drop it with ht_grub_file_free). */
int ht_grub_edit_parsed(const ht_grub_file *parsed, const char *content, size_t len, const char *name,
                        const ht_grub_env *before, const ht_cmdline_op *ops, size_t n_ops,
                        char **ret, size_t *ret_len, const ht_grub_file **ret_parsed, char **ret_error);
