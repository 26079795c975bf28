/* Kernel command line words: splitting as the kernel does, parameter
 * lookup, and the word-level edits (set, add, remove a parameter) shared
 * by the GRUB defaults, BLS and legacy GRUB editors. Pure functions. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

typedef enum {
        /* key=value (bare key when value is NULL): the first word with that
         * key is replaced, further ones dropped; appended when absent. */
        HT_CMDLINE_SET,
        /* Append the exact word unless present, never removing another
         * word with the same key (for repeatable parameters such as
         * console=; ht_cmdline_repeatable). A SET of a repeatable key
         * behaves as ADD. */
        HT_CMDLINE_ADD,
        /* Drop every word with this key (only those with this value when
         * value is set). */
        HT_CMDLINE_REMOVE,
} ht_cmdline_op_kind;

typedef struct {
        ht_cmdline_op_kind kind;
        const char *key;
        const char *value;      /* NULL: a bare flag ("quiet") */
} ht_cmdline_op;

/* Split like the kernel's next_arg(): blanks separate words except inside
 * double quotes; quotes stay in the words as written. */
char **ht_cmdline_split(const char *s);
/* The parameter name of a word: up to the first '=', a leading '"'
 * dropped. */
char *ht_cmdline_word_key(const char *word);
/* Compare parameter names as the kernel's parameq() does: '-' and '_'
 * are the same character. */
bool ht_cmdline_key_eq(const char *a, const char *b);
/* Whether word's key is key (and, if value is non-NULL, its value is
 * value; a bare flag only matches value NULL). */
bool ht_cmdline_word_matches(const char *word, const char *key, const char *value);
/* Index of the last word with this key (the kernel takes the last), or -1;
 * its value (after '=', NULL for a flag) in *ret_value when given. */
int ht_cmdline_find(char *const *words, const char *key, const char **ret_value);
/* Whether the kernel (or the initramfs, or systemd) takes every
 * occurrence of the parameter rather than the last: console=, dracut's
 * rd.lvm.lv=, ... Such words are added next to the others, never
 * replaced. */
bool ht_cmdline_repeatable(const char *key);
/* The op for "key=value" (value NULL: a flag, or remove every such key):
 * SET, ADD for a repeatable key, or REMOVE. */
ht_cmdline_op ht_cmdline_op_make(const char *key, const char *value, bool remove);
/* Whether words (a command line, in order) already have what op asks:
 * SET: the last word with key is the op's word (the kernel takes the
 * last); ADD: the exact word is there; REMOVE: no word matches. */
bool ht_cmdline_satisfied(char *const *words, const ht_cmdline_op *op);
/* The word an op adds: "key=value" or "key". */
char *ht_cmdline_op_word(const ht_cmdline_op *op);
/* Refuse keys and values that could break out of the word or the quoting
 * of any file we write them to: whitespace, quotes, '$', backquote,
 * backslash, control characters; keys are [A-Za-z0-9_.-]. -EINVAL. */
int ht_cmdline_op_check(const ht_cmdline_op *op, char **ret_error);
/* The files kernel words are written to, by what each can carry
 * (ht_cmdline_word_check). */
typedef enum {
        HT_CMDLINE_FMT_GRUB_LEGACY,     /* grub.conf / menu.lst kernel and module lines */
        HT_CMDLINE_FMT_GRUB_CFG,        /* GRUB 2 grub.cfg linux lines */
        HT_CMDLINE_FMT_GRUB_DEFAULTS,   /* /etc/default/grub, grub.d/ *.cfg */
        HT_CMDLINE_FMT_BLS,             /* BLS entries' options lines */
        HT_CMDLINE_FMT_GRUBENV,         /* grubenv's kernelopts */
        HT_CMDLINE_FMT_KERNEL_CMDLINE,  /* /etc/kernel/cmdline */
} ht_cmdline_format;

/* "a grub.cfg linux line", ... for messages. */
const char *ht_cmdline_format_name(ht_cmdline_format fmt);
/* ht_cmdline_op_check, then what fmt cannot carry: every format that
 * ends up in GRUB 2's script (all but legacy GRUB) refuses the script's
 * operators ; & | < > { } in a value. -EINVAL with the word, where
 * (the file as shown; NULL: the format's name) and the reason in
 * *ret_error. */
int ht_cmdline_word_check(const ht_cmdline_op *op, ht_cmdline_format fmt, const char *where, char **ret_error);
/* ht_cmdline_word_check for each op. */
int ht_cmdline_ops_check(const ht_cmdline_op *ops, size_t n_ops, ht_cmdline_format fmt, char **ret_error);
/* Apply ops to a plain word list; returns a new list. */
char **ht_cmdline_apply(char *const *words, const ht_cmdline_op *ops, size_t n_ops);

/* A word of a text body, by byte span. Opaque words (references such as
 * $kernelopts or $GRUB_CMDLINE_LINUX) are kept and never matched. */
typedef struct {
        size_t start, end;
        char *text;             /* the word's value (continuations removed) */
        bool opaque;
} ht_word_span;

void ht_word_spans_free(ht_word_span *w, size_t n);
/* Words of a body separated by blanks, kernel double quotes respected;
 * words starting with '$' are opaque. */
size_t ht_word_spans_simple(const char *body, size_t len, ht_word_span **ret);

/* Edit body (whose words are given) by ops: replaced words change in
 * place, dropped words take one neighbouring separator with them, new
 * words go after the last word, one space apart; all other bytes stay.
 * hidden lists the words that reach the command line through the opaque
 * ones; an op on a parameter found only there cannot be done by editing
 * body: -EINVAL with a message. Every op is checked for fmt first
 * (ht_cmdline_word_check). *ret is NUL-terminated. */
int ht_cmdline_edit_body(ht_cmdline_format fmt, const char *body, size_t len, const ht_word_span *words,
                         size_t n_words, char *const *hidden, const ht_cmdline_op *ops, size_t n_ops,
                         char **ret, size_t *ret_len, char **ret_error);
