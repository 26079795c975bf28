/* Boot Loader Specification entries (/boot/loader/entries/ *.conf), the
 * GRUB environment block (grubenv, where RHEL 8 keeps kernelopts) and
 * /etc/kernel/cmdline (RHEL 9): parsing and in-place word edits, the
 * way grubby changes them. Pure functions over buffers. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "edit-cmdline.h"

#define HT_BLS_ENTRIES_DIR "/boot/loader/entries"
#define HT_KERNEL_CMDLINE "/etc/kernel/cmdline"
#define HT_GRUBENV_HEADER "# GRUB Environment Block\n"
#define HT_GRUBENV_SIZE 1024

typedef struct {
        char *key;
        char *value;                    /* blanks around it stripped */
        unsigned line;
        size_t value_start, value_end;  /* byte span of value in the file */
} ht_bls_line;

typedef struct {
        ht_bls_line *lines;
        size_t n_lines;
} ht_bls_entry;

/* Parse "key value" lines ('#' comments, blank lines). -EINVAL with
 * "LINE: message" on NUL bytes, control characters or a bad key. */
int ht_bls_parse(const char *content, size_t len, ht_bls_entry **ret, char **ret_error);
void ht_bls_entry_free(ht_bls_entry *e);
static inline void ht_bls_entry_freep(ht_bls_entry **e) { ht_bls_entry_free(*e); }
/* The value of the first line with key (NULL when none). */
const char *ht_bls_get(const ht_bls_entry *e, const char *key);
/* Whether options take words from grubenv's $kernelopts. */
bool ht_bls_uses_kernelopts(const char *options);

typedef struct {
        char **names;
        char **values;
        size_t n;
        size_t size;            /* block size of the file (1024) */
} ht_grubenv;

/* Parse a GRUB environment block. -EINVAL without the header. */
int ht_grubenv_parse(const char *content, size_t len, ht_grubenv **ret, char **ret_error);
void ht_grubenv_free(ht_grubenv *e);
static inline void ht_grubenv_freep(ht_grubenv **e) { ht_grubenv_free(*e); }
const char *ht_grubenv_get(const ht_grubenv *e, const char *name);

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
