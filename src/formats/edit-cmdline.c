/* Kernel command line words and word-level edits. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "edit-cmdline.h"
#include "util.h"

static bool is_blank(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

char **ht_cmdline_split(const char *s) {
        char **l = xcalloc(1, sizeof(char *));
        size_t n = 0;
        while (*s) {
                while (is_blank(*s))
                        s++;
                if (!*s)
                        break;
                const char *start = s;
                bool in_quote = false;
                for (; *s; s++) {
                        if (is_blank(*s) && !in_quote)
                                break;
                        if (*s == '"')
                                in_quote = !in_quote;
                }
                l = xrealloc(l, (n + 2) * sizeof(char *));
                l[n++] = xstrndup(start, s - start);
                l[n] = NULL;
        }
        return l;
}

char *ht_cmdline_word_key(const char *word) {
        if (*word == '"')
                word++;
        size_t n = strcspn(word, "=");
        /* A quoted bare flag ("foo") ends with the closing quote. */
        if (word[n] == 0 && n > 0 && word[n - 1] == '"')
                n--;
        return xstrndup(word, n);
}

bool ht_cmdline_key_eq(const char *a, const char *b) {
        for (;; a++, b++) {
                char x = *a == '-' ? '_' : *a, y = *b == '-' ? '_' : *b;
                if (x != y)
                        return false;
                if (!x)
                        return true;
        }
}

bool ht_cmdline_word_matches(const char *word, const char *key, const char *value) {
        _cleanup_free_ char *k = ht_cmdline_word_key(word);
        if (!ht_cmdline_key_eq(k, key))
                return false;
        if (!value)
                return true;
        const char *eq = strchr(word, '=');
        if (!eq)
                return false;
        return streq(eq + 1, value);
}

int ht_cmdline_find(char *const *words, const char *key, const char **ret_value) {
        int found = -1;
        for (size_t i = 0; words && words[i]; i++)
                if (ht_cmdline_word_matches(words[i], key, NULL))
                        found = (int)i;
        if (found >= 0 && ret_value) {
                const char *eq = strchr(words[found], '=');
                *ret_value = eq ? eq + 1 : NULL;
        }
        return found;
}

/* Parameters taken at every occurrence, with where that is written:
 * - console: Documentation/admin-guide/serial-console.rst ("You can
 *   specify multiple console= options ... Output will appear on all of
 *   them"); earlycon and netconsole are single.
 * - memmap, hugepagesz, acpi_osi, video, initrd:
 *   Documentation/admin-guide/kernel-parameters.txt (memmap= regions,
 *   each acpi_osi= adds or removes one string), mm/hugetlbpage.rst (one
 *   hugepagesz= per size), fb/modedb.rst (video= per connector),
 *   efi-stub.rst (several initrd=).
 * - dracut.cmdline(7), "can be specified multiple times": rd.lvm.lv,
 *   rd.lvm.vg, rd.luks.uuid, rd.luks.name, rd.md.uuid, rd.dm.uuid, ip,
 *   nameserver, rd.route, bond, team, vlan, bridge, ifname, rd.driver.pre,
 *   rd.driver.post, rd.driver.blacklist, rd.zfcp, rd.dasd, rd.znet.
 * - systemd kernel-command-line(7): systemd.setenv, systemd.mask,
 *   systemd.wants, rd.systemd.mask, rd.systemd.wants; kmod reads every
 *   modprobe.blacklist. */
static const char *const repeatable_keys[] = {
        "console", "memmap", "hugepagesz", "acpi_osi", "video", "initrd",
        "rd.lvm.lv", "rd.lvm.vg", "rd.luks.uuid", "rd.luks.name", "rd.md.uuid", "rd.dm.uuid",
        "ip", "nameserver", "rd.route", "bond", "team", "vlan", "bridge", "ifname",
        "rd.driver.pre", "rd.driver.post", "rd.driver.blacklist", "rd.zfcp", "rd.dasd", "rd.znet",
        "systemd.setenv", "systemd.mask", "systemd.wants", "rd.systemd.mask", "rd.systemd.wants",
        "modprobe.blacklist",
};

bool ht_cmdline_repeatable(const char *key) {
        for (size_t i = 0; i < ELEMENTSOF(repeatable_keys); i++)
                if (ht_cmdline_key_eq(key, repeatable_keys[i]))
                        return true;
        return false;
}

ht_cmdline_op ht_cmdline_op_make(const char *key, const char *value, bool remove) {
        ht_cmdline_op_kind kind = remove ? HT_CMDLINE_REMOVE : ht_cmdline_repeatable(key) ? HT_CMDLINE_ADD : HT_CMDLINE_SET;
        return (ht_cmdline_op){.kind = kind, .key = key, .value = value};
}

static bool word_is(const char *word, const char *key, const char *value) {
        if (!ht_cmdline_word_matches(word, key, NULL))
                return false;
        const char *eq = strchr(word, '=');
        return value ? eq && streq(eq + 1, value) : !eq;
}

bool ht_cmdline_satisfied(char *const *words, const ht_cmdline_op *op) {
        switch (op->kind) {
        case HT_CMDLINE_SET: {
                int at = ht_cmdline_find(words, op->key, NULL);
                return at >= 0 && word_is(words[at], op->key, op->value);
        }
        case HT_CMDLINE_ADD:
                for (size_t i = 0; words && words[i]; i++)
                        if (word_is(words[i], op->key, op->value))
                                return true;
                return false;
        case HT_CMDLINE_REMOVE:
                for (size_t i = 0; words && words[i]; i++)
                        if (ht_cmdline_word_matches(words[i], op->key, op->value))
                                return false;
                return true;
        }
        return false;
}

char *ht_cmdline_op_word(const ht_cmdline_op *op) {
        return op->value ? xasprintf("%s=%s", op->key, op->value) : xstrdup(op->key);
}

/* What each format does with a word's bytes, beyond the kernel's own
 * parser (lib/cmdline.c next_arg(): blanks end a word, double quotes
 * group, nothing else is special), which every format ends in.
 *
 * GRUB 2's script lexer (grub-core/script/yylex.l) takes a word's
 * characters from CHAR = [^{}|&$;<> \t\n'"\\]: ';', '&' and '|' end the
 * linux command and start another (`foo=a;reboot` reboots at every boot
 * and passes grub-script-check), '<', '>', '{' and '}' are tokens its
 * parser refuses there, leaving a grub.cfg GRUB cannot read. Everything
 * else printable is a word character: '(' and ')' (device names such as
 * (hd0,1) are words), '#' after the first byte (a comment only starts a
 * word, and a parameter starts with its name), '[[' and keywords (only
 * whole words are tokens, and the parser takes them as arguments), and
 * '*', '?', '[' (wildcards expand only words starting with '/', '(' or
 * '*'). Which files are GRUB 2 script:
 * - grub.cfg's linux lines;
 * - /etc/default/grub and grub.d: grub-mkconfig's 10_linux copies
 *   GRUB_CMDLINE_LINUX unquoted onto every linux line;
 * - BLS options lines: GRUB's blscfg (grub-core/commands/blscfg.c,
 *   create_entry) expands $name from grubenv and pastes the line into
 *   the menu entry's script ("linux %s%s%s%s"), so grubenv's kernelopts
 *   is script too once an entry says $kernelopts;
 * - /etc/kernel/cmdline: kernel-install copies it into new entries'
 *   options lines.
 * GRUB legacy (0.97) hands the rest of a kernel line to the kernel as it
 * is: no script there. */
static const struct {
        const char *name;
        const char *via;        /* how the word reaches GRUB 2's script; NULL: it does not */
} formats[] = {
        [HT_CMDLINE_FMT_GRUB_LEGACY] = {"a legacy GRUB kernel line", NULL},
        [HT_CMDLINE_FMT_GRUB_CFG] = {"a grub.cfg linux line", "GRUB 2 runs grub.cfg as a script"},
        [HT_CMDLINE_FMT_GRUB_DEFAULTS] = {"the GRUB defaults",
                                          "grub-mkconfig copies GRUB_CMDLINE_LINUX unquoted onto grub.cfg's "
                                          "linux lines"},
        [HT_CMDLINE_FMT_BLS] = {"a BLS options line",
                                "GRUB's blscfg pastes the options line into a menu entry's script"},
        [HT_CMDLINE_FMT_GRUBENV] = {"grubenv's kernelopts",
                                    "GRUB's blscfg pastes $kernelopts into a menu entry's script"},
        [HT_CMDLINE_FMT_KERNEL_CMDLINE] = {"/etc/kernel/cmdline",
                                           "kernel-install copies it into BLS options lines, which GRUB's "
                                           "blscfg pastes into a menu entry's script"},
};

#define GRUB2_OPERATORS ";&|<>{}"

const char *ht_cmdline_format_name(ht_cmdline_format fmt) {
        return fmt < ELEMENTSOF(formats) && formats[fmt].name ? formats[fmt].name : "?";
}

int ht_cmdline_word_check(const ht_cmdline_op *op, ht_cmdline_format fmt, const char *where, char **ret_error) {
        int r = ht_cmdline_op_check(op, ret_error);
        if (r < 0)
                return r;
        if (fmt >= ELEMENTSOF(formats) || !formats[fmt].name) {
                *ret_error = xstrdup("internal error: unknown kernel command line format");
                return -EINVAL;
        }
        if (!formats[fmt].via || !op->value)
                return 0;       /* keys are [A-Za-z0-9_.-], nothing GRUB reads */
        const char *bad = strpbrk(op->value, GRUB2_OPERATORS);
        if (bad)
                return ht_error(ret_error, -EINVAL,
                                "kernel parameter %s=%s cannot be written to %s: '%c' is an operator of "
                                "GRUB 2's script (%s), where ';', '&' and '|' end the linux command and "
                                "start another and '<', '>', '{' and '}' make it unreadable to GRUB",
                                op->key, op->value, where ? where : formats[fmt].name, *bad,
                                formats[fmt].via);
        return 0;
}

int ht_cmdline_ops_check(const ht_cmdline_op *ops, size_t n_ops, ht_cmdline_format fmt, char **ret_error) {
        for (size_t i = 0; i < n_ops; i++) {
                int r = ht_cmdline_word_check(&ops[i], fmt, NULL, ret_error);
                if (r < 0)
                        return r;
        }
        return 0;
}

int ht_cmdline_op_check(const ht_cmdline_op *op, char **ret_error) {
        if (isempty(op->key)) {
                *ret_error = xstrdup("empty kernel parameter name");
                return -EINVAL;
        }
        for (const char *p = op->key; *p; p++)
                if (!isalnum((unsigned char)*p) && !strchr("_.-", *p))
                        return ht_error(ret_error, -EINVAL,
                                        "invalid character in kernel parameter name \"%s\"", op->key);
        if (op->value)
                for (const char *p = op->value; *p; p++) {
                        unsigned char c = *p;
                        if (c <= 0x20 || c >= 0x7f || strchr("\"'$`\\", c))
                                return ht_error(ret_error, -EINVAL,
                                                "kernel parameter %s: value may not contain blanks, "
                                                "quotes, '$', '`', '\\' or control characters", op->key);
                }
        return 0;
}

/* One word of the edited list: an original word (orig >= 0) or a new one. */
typedef struct {
        char *text;
        ssize_t orig;
        bool opaque, deleted, replaced;
} item_t;

typedef struct {
        item_t *items;
        size_t n;
} model_t;

static void model_append(model_t *m, const char *text) {
        m->items = xrealloc(m->items, (m->n + 1) * sizeof(item_t));
        m->items[m->n++] = (item_t){ .text = xstrdup(text), .orig = -1 };
}

static bool in_hidden(char *const *hidden, const char *key, const char *value) {
        for (size_t i = 0; hidden && hidden[i]; i++)
                if (ht_cmdline_word_matches(hidden[i], key, value))
                        return true;
        return false;
}

static int apply_op(model_t *m, char *const *hidden, const ht_cmdline_op *op, char **ret_error) {
        _cleanup_free_ char *word = ht_cmdline_op_word(op);
        bool found = false;

        ht_cmdline_op_kind kind = op->kind;
        if (kind == HT_CMDLINE_SET && ht_cmdline_repeatable(op->key))
                kind = HT_CMDLINE_ADD; /* replacing one would drop the others */
        /* hugepages= counts pages of the hugepagesz= before it
         * (Documentation/admin-guide/mm/hugetlbpage.rst: "hugepagesz=1G
         * hugepages=4 hugepagesz=2M hugepages=512"): replacing or removing
         * one word would move a count to another size. */
        if (ht_cmdline_key_eq(op->key, "hugepages") || (kind == HT_CMDLINE_REMOVE && ht_cmdline_key_eq(op->key, "hugepagesz"))) {
                bool sized = in_hidden(hidden, "hugepagesz", NULL);
                for (size_t i = 0; i < m->n && !sized; i++)
                        sized = !m->items[i].deleted && ht_cmdline_word_matches(m->items[i].text, "hugepagesz", NULL);
                if (sized)
                        return ht_error(ret_error, -EINVAL,
                                        "kernel parameter %s: the command line pairs hugepages= with hugepagesz= "
                                        "words by position; change them by hand", op->key);
        }
        switch (kind) {
        case HT_CMDLINE_SET: {
                /* A parameter that also comes through a reference can only be
                 * left to it when it already has the wanted value there. */
                bool hidden_has = in_hidden(hidden, op->key, NULL);
                for (size_t i = 0; hidden_has && hidden[i]; i++)
                        if (ht_cmdline_word_matches(hidden[i], op->key, NULL) && !streq(hidden[i], word))
                                goto hidden_error;
                for (size_t i = 0; i < m->n; i++) {
                        item_t *it = &m->items[i];
                        if (it->opaque || it->deleted || !ht_cmdline_word_matches(it->text, op->key, NULL))
                                continue;
                        if (found || hidden_has)
                                it->deleted = true;
                        else if (!streq(it->text, word)) {
                                free(it->text);
                                it->text = xstrdup(word);
                                it->replaced = true;
                        }
                        found = true;
                }
                if (!found && !hidden_has)
                        model_append(m, word);
                return 0;
        }

        case HT_CMDLINE_ADD:
                for (size_t i = 0; i < m->n; i++)
                        if (!m->items[i].opaque && !m->items[i].deleted && word_is(m->items[i].text, op->key, op->value))
                                return 0;
                for (size_t i = 0; hidden && hidden[i]; i++)
                        if (word_is(hidden[i], op->key, op->value))
                                return 0;
                model_append(m, word);
                return 0;

        case HT_CMDLINE_REMOVE:
                for (size_t i = 0; i < m->n; i++) {
                        item_t *it = &m->items[i];
                        if (!it->opaque && !it->deleted && ht_cmdline_word_matches(it->text, op->key, op->value))
                                it->deleted = true;
                }
                if (in_hidden(hidden, op->key, op->value))
                        goto hidden_error;
                return 0;
        }
        return -EINVAL;

hidden_error:
        return ht_error(ret_error, -EINVAL, "kernel parameter %s comes from a referenced variable, not from the words "
                        "edited here", op->key);
}

static void model_free(model_t *m) {
        for (size_t i = 0; i < m->n; i++)
                free(m->items[i].text);
        free(m->items);
}

char **ht_cmdline_apply(char *const *words, const ht_cmdline_op *ops, size_t n_ops) {
        model_t m = {};
        for (size_t i = 0; words && words[i]; i++)
                model_append(&m, words[i]);
        for (size_t i = 0; i < n_ops; i++) {
                _cleanup_free_ char *err = NULL;
                (void)apply_op(&m, NULL, &ops[i], &err);
        }
        char **l = xcalloc(m.n + 1, sizeof(char *));
        size_t k = 0;
        for (size_t i = 0; i < m.n; i++)
                if (!m.items[i].deleted)
                        l[k++] = xstrdup(m.items[i].text);
        model_free(&m);
        return l;
}

void ht_word_spans_free(ht_word_span *w, size_t n) {
        for (size_t i = 0; w && i < n; i++)
                free(w[i].text);
        free(w);
}

size_t ht_word_spans_simple(const char *body, size_t len, ht_word_span **ret) {
        ht_word_span *w = NULL;
        size_t n = 0, i = 0;
        while (i < len) {
                while (i < len && is_blank(body[i]))
                        i++;
                if (i >= len)
                        break;
                size_t start = i;
                bool in_quote = false;
                for (; i < len; i++) {
                        if (is_blank(body[i]) && !in_quote)
                                break;
                        if (body[i] == '"')
                                in_quote = !in_quote;
                }
                w = xrealloc(w, (n + 1) * sizeof(ht_word_span));
                w[n++] = (ht_word_span){ start, i, xstrndup(body + start, i - start), body[start] == '$' };
        }
        *ret = w;
        return n;
}

int ht_cmdline_edit_body(ht_cmdline_format fmt, const char *body, size_t len, const ht_word_span *words,
                         size_t n_words, char *const *hidden, const ht_cmdline_op *ops, size_t n_ops,
                         char **ret, size_t *ret_len, char **ret_error) {
        model_t m = {};
        int r = 0;

        r = ht_cmdline_ops_check(ops, n_ops, fmt, ret_error);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n_words; i++) {
                /* The kernel's quote runs to the end of the line: words
                 * appended after it would be part of that one argument. */
                size_t quotes = 0;
                for (const char *q = words[i].text; *q; q++)
                        quotes += *q == '"';
                if (quotes % 2)
                        return ht_error(ret_error, -EINVAL,
                                        "unterminated double quote in kernel argument %s: fix it by hand first",
                                        words[i].text);
        }
        for (size_t i = 0; i < n_words; i++) {
                model_append(&m, words[i].text);
                m.items[i].orig = (ssize_t)i;
                m.items[i].opaque = words[i].opaque;
        }
        for (size_t i = 0; i < n_ops; i++) {
                r = apply_op(&m, hidden, &ops[i], ret_error);
                if (r < 0)
                        goto finish;
        }

        /* Rebuild: the leading separator, each kept word preceded by the
         * separator that followed the previously kept word, new words one
         * space apart after the last one, then the trailing separator. */
        strbuf out = {};
        size_t lead_end = n_words ? words[0].start : len;
        size_t tail_start = n_words ? words[n_words - 1].end : len;
        strbuf_appendn(&out, body, lead_end);
        ssize_t prev = -1;      /* original index of the last kept word */
        bool any = false;
        for (size_t i = 0; i < m.n; i++) {
                item_t *it = &m.items[i];
                if (it->deleted)
                        continue;
                if (it->orig >= 0) {
                        if (any) {
                                size_t s = words[prev].end, e = words[prev + 1].start;
                                strbuf_appendn(&out, body + s, e - s);
                        }
                        if (it->replaced)
                                strbuf_append(&out, it->text);
                        else
                                strbuf_appendn(&out, body + words[it->orig].start,
                                               words[it->orig].end - words[it->orig].start);
                        prev = it->orig;
                } else {
                        if (any)
                                strbuf_append(&out, " ");
                        strbuf_append(&out, it->text);
                }
                any = true;
        }
        /* Every word removed: no separator is left either, so
         * "kernel /vmlinuz ro" becomes "kernel /vmlinuz", not
         * "kernel /vmlinuz " (what grubby writes: its test
         * updargs/g3.7). */
        if (!any && n_words > 0) {
                out.len = 0;
                if (out.data)
                        out.data[0] = 0;
        } else
                strbuf_appendn(&out, body + tail_start, len - tail_start);
        if (!out.data)
                strbuf_append(&out, "");
        *ret_len = out.len;
        *ret = strbuf_steal(&out);
finish:
        model_free(&m);
        return r;
}
