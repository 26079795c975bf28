/* Legacy GRUB (0.97) menu files, /boot/grub/grub.conf and menu.lst: the
 * one parser for the bootloader facts (facts-boot.c: entries, default,
 * Xen) and for the editor and the cmdline backend (edit-grub-legacy.c,
 * backend-cmdline.c: the byte spans of the arguments they edit). Pure:
 * text in, entries with line numbers and spans out.
 *
 * As GRUB 0.97 reads a menu (stage2/stage2.c cmain, stage2/cmdline.c
 * find_command, stage2/builtins.c):
 *  - leading and trailing blanks are skipped, '#' lines and blank lines
 *    ignored; a command and its argument are separated by blanks or '='
 *    (find_command stops at either, skip_to skips both), in the global
 *    part and in entries alike;
 *  - "title" starts an entry; commands before the first one are the
 *    global ones (default, timeout, ...);
 *  - the last kernel line of an entry counts; options before the image
 *    ("--type=netbsd", "--no-mem-option") are skipped; --type= other than
 *    linux or biglinux loads no Linux kernel (kernel_func);
 *  - a kernel line that loads the Xen hypervisor (xen.gz, xen-4.4.gz,
 *    xen.gz-2.6.18-398.el5) makes the first module line the Linux kernel
 *    with its arguments, the second module its initrd;
 *  - "default" is an entry number or "saved" (the number is then in
 *    /boot/grub/default).
 * Lines GRUB would refuse, or that are not text, are problems: the line is
 * skipped and listed. The facts warn and use the rest; editors refuse the
 * file (ht_grub_legacy_parse). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "format-problem.h"

typedef enum {
        HT_GRUB_LEGACY_JUNK,            /* control characters, NUL or not UTF-8: line skipped */
        HT_GRUB_LEGACY_BAD_DEFAULT,     /* default is neither a number nor "saved" */
        HT_GRUB_LEGACY_BAD_TIMEOUT,
        HT_GRUB_LEGACY_OUTSIDE_ENTRY,   /* kernel or module before the first title */
        HT_GRUB_LEGACY_NO_IMAGE,        /* kernel or module without an image path */
} ht_grub_legacy_problem_kind;

typedef struct {
        char *title;
        unsigned title_line;
        char *kernel;           /* path on the kernel line (NULL: none, e.g. chainloader) */
        unsigned kernel_line;
        /* Xen: the kernel line loads the hypervisor; Linux and its
         * arguments are on the first module line. */
        bool xen;
        char *linux_kernel;     /* the Linux image: kernel path, or the first module's; NULL for a
                                 * Xen entry without one */
        /* the image takes Linux arguments: false for Memtest86+ (kernel
         * --type=netbsd /elf-memtest86+-4.10, kernel /memtest86+-1.65)
         * and other --type= images that are not linux or biglinux */
        bool linux_image;
        unsigned linux_line;    /* line holding the Linux arguments */
        /* Byte spans of the argument text after the image path, up to the
         * end of the line: Linux's, and the hypervisor's (Xen only). */
        size_t linux_args_start, linux_args_end;
        size_t xen_args_start, xen_args_end;
        char *linux_args;       /* the Linux argument text, blanks around it stripped */
        char *initrd;           /* initrd line's image, or a Xen entry's second module */
        char *root;             /* root (or rootnoverify) device: "(hd0,0)" */
        bool chainloader;       /* chainloader +1: another system's boot sector */
} ht_grub_legacy_entry;

typedef struct {
        ht_grub_legacy_entry *entries;
        size_t n_entries;
        int default_entry;      /* the "default" value; 0 when absent; -1 when "saved" */
        unsigned default_line;  /* 0: no default line */
        size_t default_value_start, default_value_end;
        int timeout;            /* -1 when absent */
        /* in file order; kind: ht_grub_legacy_problem_kind, message
         * "default is not a number", text BAD_DEFAULT's value */
        ht_format_problem *problems;
        size_t n_problems;
} ht_grub_legacy_conf;

/* Parse a menu file (len bytes; a NUL is junk on its line). Never fails:
 * what GRUB would not take is in problems. */
ht_grub_legacy_conf *ht_grub_legacy_parse_menu(const char *content, size_t len);
/* For editors: the same, but -EINVAL with "LINE: message" of the first
 * problem; *ret untouched then. */
int ht_grub_legacy_parse(const char *content, size_t len, ht_grub_legacy_conf **ret, char **ret_error);
void ht_grub_legacy_conf_free(ht_grub_legacy_conf *c);
static inline void ht_grub_legacy_conf_freep(ht_grub_legacy_conf **c) { ht_grub_legacy_conf_free(*c); }

/* The kernel version in an image's name, as the kernel packages install
 * it: "vmlinuz-2.6.18-398.el5xen" → "2.6.18-398.el5xen" (also vmlinux-,
 * bzImage-, kernel-; a GRUB device prefix "(hd0,0)/..." is fine). NULL
 * when the name carries none. BLS entries without a version line too. */
char *ht_kernel_image_version(const char *path);
/* The Xen hypervisor by its name: xen, xen.gz, xen-4.4.gz, xen.gz-VERSION. */
bool ht_is_xen_hypervisor_image(const char *path);

/* /boot/grub/default, which default=saved refers to (grub-set-default,
 * savedefault): the entry number on its first line. -EINVAL when that is
 * no number; *ret_word (always set) is the first line, blanks stripped. */
int ht_grub_legacy_saved_default(const char *content, size_t len, unsigned *ret, char **ret_word);
