/* tuned's merged profile as one hosttune profile (text). Each plugin's
 * options map onto a backend where the effect is the same (tuned's own
 * plugin code is the reference: /usr/lib/python3/dist-packages/tuned/
 * plugins/plugin_*.py); everything else becomes a note naming the file,
 * line and why. tuned never fails a profile for a value the host cannot
 * take (it logs and goes on), so what it may skip is optional here. */
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>

#include "config.h"
#include "profile-model.h"
#include "tuned-internal.h"
#include "util.h"

typedef struct {
        char *lines;       /* comment lines, each ending in '\n'; NULL: none */
        char *body;        /* the element, one line */
        unsigned file, line;
} item;

typedef struct {
        item *items;
        size_t n;
} bucket;

typedef struct {
        const ht_context *c;
        json_object *facts;
        tn_profile *p;
        char *const *vars;
        bucket sysctl, sysfs, block, cpu, cmdline;
        strbuf cmdline_words;   /* tuned's accumulated cmdline */
        unsigned cmdline_file, cmdline_line;
        char *cmdline_when;
        bool cmdline_seen;
} conv;

/* A libconfig string literal. */
static char *cfg_quote(const char *s) {
        strbuf b = {0};
        strbuf_append(&b, "\"");
        for (; *s; s++) {
                if (*s == '"' || *s == '\\')
                        strbuf_append(&b, "\\");
                strbuf_appendn(&b, s, 1);
        }
        strbuf_append(&b, "\"");
        return strbuf_steal(&b);
}

/* An expression's string literal (expr.c takes \" and \\ only). */
static char *expr_quote(const char *s) {
        return cfg_quote(s);
}

/* A value as hosttune reads it literally: one starting with '=' or
 * holding "${" would be an expression or a template, so it is written as
 * an expression of one string. */
static char *literal_value(const char *v) {
        if (v[0] != '=' && !strstr(v, "${"))
                return cfg_quote(v);
        _cleanup_free_ char *e = expr_quote(v);
        _cleanup_free_ char *x = xasprintf("= %s", e);
        return cfg_quote(x);
}

static void push(bucket *b, const tn_option *o, const char *body, const char *extra_comment) {
        strbuf l = {0};
        if (o && o->comment) {
                _cleanup_strv_free_ char **cl = strv_split(o->comment, "\n");
                for (size_t i = 0; cl && cl[i]; i++)
                        strbuf_appendf(&l, "# %s\n", cl[i]);
        }
        if (extra_comment)
                strbuf_appendf(&l, "# %s\n", extra_comment);
        b->items = xrealloc(b->items, (b->n + 1) * sizeof(*b->items));
        b->items[b->n++] = (item){.lines = strbuf_steal(&l), .body = xstrdup(body),
                                  .file = o ? o->file : 0, .line = o ? o->line : 0};
}

static void note(conv *v, const tn_unit *u, const tn_option *o, const char *fmt, ...) _printf_(4, 5);
static void note(conv *v, const tn_unit *u, const tn_option *o, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        _cleanup_free_ char *reason = xvasprintf(fmt, ap);
        va_end(ap);
        tn_note(v->p, o ? o->file : u->file, o ? o->line : u->line, u->name, o ? o->key : NULL, "%s",
                reason);
}

/* The option's value with variables and functions expanded, in *ret: 1;
 * 0 after a note (a function that cannot run here, a multi-line value);
 * <0 with *ret_error naming the line for what tuned refuses too. */
static int expand_option(conv *v, const tn_unit *u, const tn_option *o, char **ret, char **ret_error) {
        _cleanup_free_ char *out = NULL, *err = NULL;
        int r = tn_expand(v->vars, v->facts, o->value, &out, &err);
        if (r == -ENOTSUP || r == -ENOEXEC) {
                note(v, u, o, "%s", err);
                return 0;
        }
        if (r < 0)
                return ht_error(ret_error, r, "%s:%u: [%s] %s: %s", v->p->files[o->file], o->line, u->name, o->key,
                                err);
        if (strchr(out, '\n') || has_control_chars(out)) {
                note(v, u, o, "a multi-line value; hosttune values are one line");
                return 0;
        }
        if (strstr(o->value, "${f:"))
                v->p->host_values = true;
        *ret = TAKE_PTR(out);
        return 1;
}

/* The conditions of a conditional unit as a `when` member ("" for none). */
static char *when_member(const tn_unit *u) {
        strbuf e = {0};
        if (u->cpuinfo_regex) {
                _cleanup_free_ char *q = expr_quote(u->cpuinfo_regex);
                strbuf_appendf(&e, "matches(facts.cpu.cpuinfo, %s)", q);
        }
        if (u->uname_regex) {
                _cleanup_free_ char *q = expr_quote(u->uname_regex);
                strbuf_appendf(&e, "%smatches(facts.kernel.uname, %s)", e.len ? " && " : "", q);
        }
        if (!e.len)
                return xstrdup("");
        _cleanup_free_ char *x = strbuf_steal(&e);
        _cleanup_free_ char *q = cfg_quote(x);
        return xasprintf(" when = %s;", q);
}

static bool valid_int(const char *s) {
        if (*s == '-')
                s++;
        return *s && strspn(s, "0123456789") == strlen(s);
}

/* tuned's unquote(): one pair of double quotes around the whole value. */
static char *unquote(const char *s) {
        size_t n = strlen(s);
        if (n >= 2 && s[0] == '"' && s[n - 1] == '"')
                return xstrndup(s + 1, n - 2);
        return xstrdup(s);
}

/* tuned's _process_assignment_modifiers: ">N" sets N only above the
 * host's value, "<N" only below: at-least and at-most bounds. */
static const char *bound_of(char **value) {
        char *s = *value;
        if (strlen(s) <= 1 || (s[0] != '>' && s[0] != '<'))
                return NULL;
        const char *b = s[0] == '>' ? "at-least" : "at-most";
        char *rest = xstrdup(s + 1);
        free(*value);
        *value = rest;
        return b;
}

/* Why a plugin option is not carried over: keys (a trailing '*' a prefix)
 * and the reason; the table ends with {NULL}. */
typedef struct {
        const char *keys[5];
        const char *why;
} reason_row;

static const reason_row cpu_reasons[] = {
        {{"force_latency"}, "a PM QoS latency lasts only while a process holds /dev/cpu_dma_latency open "
                            "(tuned's daemon does); hosttune runs no daemon"},
        {{"load_threshold", "latency_low", "latency_high"},
         "dynamic tuning by tuned's daemon (it follows the CPU load)"},
        {{"max_perf_pct", "no_turbo", "sampling_down_factor", "pm_qos_resume_latency_us"},
         "hosttune's cpu backend does not set it (governor, energy_performance_preference, "
         "energy_perf_bias, min_perf_pct)"},
        {{NULL}, NULL},
};

static const reason_row disk_reasons[] = {
        {{"apm", "spindown"}, "disk power management through hdparm (and tuned's dynamic tuning); "
                              "hosttune does not run hdparm"},
        {{"dynamic"}, "dynamic tuning by tuned's daemon"},
        {{"readahead_multiply"}, "a factor of the read-ahead each disk had when tuned started; hosttune "
                                 "sets values, not factors"},
        {{"scheduler_quantum"}, "CFQ's quantum: single-queue CFQ is gone from blk-mq kernels"},
        {{NULL}, NULL},
};

static const reason_row bootloader_reasons[] = {
        {{"initrd_*"}, "tuned builds an extra initrd image for the boot entries; hosttune does not manage "
                       "initrds"},
        {{"skip_grub_config"}, "tuned's switch to leave grub.cfg alone; hosttune edits the bootloader it "
                               "detects (hosttune(8), BOOTLOADER LAYOUTS)"},
        {{"grub2_cfg_file"}, "hosttune finds grub.cfg itself (facts.bootloader.grub_cfg)"},
        {{NULL}, NULL},
};

static void note_unsupported(conv *v, const tn_unit *u, const tn_option *o, const reason_row *rows,
                             const char *otherwise) {
        for (; rows->why; rows++)
                for (size_t i = 0; i < ELEMENTSOF(rows->keys) && rows->keys[i]; i++) {
                        const char *k = rows->keys[i];
                        size_t n = strlen(k);
                        if (k[n - 1] == '*' ? strncmp(o->key, k, n - 1) == 0 : streq(o->key, k)) {
                                note(v, u, o, "%s", rows->why);
                                return;
                        }
                }
        note(v, u, o, "%s", otherwise);
}

static int conv_sysctl(conv *v, const tn_unit *u, const char *when, char **ret_error) {
        for (size_t i = 0; i < u->n_options; i++) {
                const tn_option *o = &u->options[i];
                _cleanup_free_ char *x = NULL;
                int got = expand_option(v, u, o, &x, ret_error);
                if (got < 0)
                        return got;
                if (got == 0)
                        continue;
                _cleanup_free_ char *val = unquote(x);
                const char *bound = bound_of(&val);
                if (bound && !valid_int(val)) {
                        note(v, u, o, "tuned compares '%c' values as one integer; '%s' is not one",
                             bound[3] == 'l' ? '>' : '<', val);
                        continue;
                }
                const char *leaf = strrchr(o->key, '.') ? strrchr(o->key, '.') + 1 : o->key;
                if (streq(leaf, "base_reachable_time") || streq(leaf, "retrans_time")) {
                        note(v, u, o, "tuned refuses this deprecated sysctl (use the _ms one)");
                        continue;
                }
                /* tuned writes /proc/sys/KEY with every '.' a '/' */
                _cleanup_free_ char *key = xstrdup(o->key);
                for (char *c = key; *c; c++)
                        if (*c == '/')
                                *c = '.';
                _cleanup_free_ char *qk = cfg_quote(key), *qv = literal_value(val);
                /* tuned skips a key the kernel does not have (and logs it) */
                _cleanup_free_ char *body = bound ? xasprintf("{ key = %s; value = %s; bound = \"%s\"; optional = true;%s },",
                                                              qk, qv, bound, when)
                                                  : xasprintf("{ key = %s; value = %s; optional = true;%s },", qk, qv, when);
                push(&v->sysctl, o, body, NULL);
        }
        return 0;
}

/* A sysfs glob expanded on the host, component by component, through
 * the root context. */
static void glob_host(const ht_context *c, const char *dir, char *const *parts, char ***out) {
        if (!parts[0]) {
                strv_push(out, dir);
                return;
        }
        if (!strpbrk(parts[0], "*?[")) {
                _cleanup_free_ char *next = xasprintf("%s/%s", dir, parts[0]);
                if (parts[1] || ht_exists(c, next))
                        glob_host(c, next, parts + 1, out);
                return;
        }
        _cleanup_strv_free_ char **names = NULL;
        if (ht_list_dir(c, *dir ? dir : "/", NULL, &names) < 0)
                return;
        for (size_t i = 0; names && names[i]; i++) {
                if (names[i][0] == '.' && parts[0][0] != '.')
                        continue;
                if (fnmatch(parts[0], names[i], FNM_PERIOD) == 0) {
                        _cleanup_free_ char *next = xasprintf("%s/%s", dir, names[i]);
                        glob_host(c, next, parts + 1, out);
                }
        }
}

static int conv_sysfs(conv *v, const tn_unit *u, const char *when, char **ret_error) {
        for (size_t i = 0; i < u->n_options; i++) {
                const tn_option *o = &u->options[i];
                _cleanup_free_ char *x = NULL;
                int got = expand_option(v, u, o, &x, ret_error);
                if (got < 0)
                        return got;
                if (got == 0)
                        continue;
                if (!startswith(o->key, "/sys/")) {
                        note(v, u, o, "tuned writes only below /sys (it rejects this path)");
                        continue;
                }
                _cleanup_strv_free_ char **paths = NULL;
                const char *extra = NULL;
                _cleanup_free_ char *extra_buf = NULL;
                if (strpbrk(o->key, "*?[")) {
                        _cleanup_strv_free_ char **parts = strv_split(o->key + 1, "/");
                        glob_host(v->c, "", parts, &paths);
                        v->p->host_values = true;
                        extra = extra_buf = xasprintf("tuned's glob %s: %zu paths on this host", o->key,
                                                      strv_length(paths));
                        if (!paths) {
                                note(v, u, o, "the glob matches nothing on this host");
                                continue;
                        }
                } else
                        strv_push(&paths, o->key);
                for (size_t k = 0; paths[k]; k++) {
                        _cleanup_free_ char *qp = cfg_quote(paths[k]), *qv = literal_value(x);
                        _cleanup_free_ char *body =
                                xasprintf("{ path = %s; value = %s; optional = true;%s },", qp, qv, when);
                        push(&v->sysfs, o, body, k == 0 ? extra : NULL);
                }
        }
        return 0;
}

static int conv_vm(conv *v, const tn_unit *u, const char *when, char **ret_error) {
        for (size_t i = 0; i < u->n_options; i++) {
                const tn_option *o = &u->options[i];
                const char *file;
                if (streq(o->key, "transparent_hugepages") || streq(o->key, "transparent_hugepage"))
                        file = "enabled";
                else if (streq(o->key, "transparent_hugepage.defrag"))
                        file = "defrag";
                else {
                        note(v, u, o, "tuned's vm plugin has no such option (tuned 2.20: "
                                      "transparent_hugepages, transparent_hugepage.defrag)");
                        continue;
                }
                _cleanup_free_ char *x = NULL;
                int got = expand_option(v, u, o, &x, ret_error);
                if (got < 0)
                        return got;
                if (got == 0)
                        continue;
                if (streq(file, "enabled") && !streq(x, "always") && !streq(x, "never") && !streq(x, "madvise")) {
                        note(v, u, o, "tuned refuses '%s' (always, never or madvise)", x);
                        continue;
                }
                /* tuned leaves THP alone when the command line sets it */
                _cleanup_free_ char *cond = NULL;
                if (streq(file, "enabled")) {
                        _cleanup_free_ char *inner = NULL;
                        if (*when) {
                                /* when = "EXPR"; -> EXPR && ... */
                                const char *a = strchr(when, '"') + 1;
                                inner = xstrndup(a, (size_t)(strrchr(when, '"') - a));
                        }
                        _cleanup_free_ char *e = xasprintf("%s%s!defined(facts.thp.cmdline)", inner ? inner : "",
                                                           inner ? " && " : "");
                        cond = xasprintf(" when = \"%s\";", e);
                } else
                        cond = xstrdup(when);
                _cleanup_free_ char *qv = literal_value(x);
                _cleanup_free_ char *body = xasprintf(
                        "{ path = \"${facts.thp.sysfs_dir}/%s\"; value = %s; optional = true;%s },", file, qv, cond);
                push(&v->sysfs, o, body, NULL);
        }
        return 0;
}

/* The first word of tuned's a|b|c list that the host's first cpufreq
 * policy offers (tuned tries them in order); the first word where the
 * host says nothing. */
static char *first_offered(conv *v, const char *list, const char *offers_file, char **ret_comment) {
        _cleanup_strv_free_ char **words = strv_split(list, "|");
        for (size_t i = 0; words && words[i]; i++)
                strstrip(words[i]);
        if (!words || !words[0])
                return NULL;
        if (!words[1])
                return xstrdup(strstrip(words[0]));
        _cleanup_free_ char *offers = NULL;
        size_t len;
        v->p->host_values = true;
        if (offers_file && ht_read_file(v->c, offers_file, 4096, &offers, &len) >= 0) {
                _cleanup_strv_free_ char **have = strv_split(offers, " \t\n");
                for (size_t i = 0; words[i]; i++)
                        if (strv_contains(have, words[i])) {
                                *ret_comment = xasprintf("tuned's list %s: %s is the first this host offers", list,
                                                         words[i]);
                                return xstrdup(words[i]);
                        }
        }
        /* energy_perf_bias has no list of offers to read: tuned writes
         * each word until the kernel takes one (plugin_cpu.py
         * _set_energy_perf_bias) */
        *ret_comment = offers_file ? xasprintf("tuned's list %s: this host offers none of them; the first is planned", list)
                                   : xasprintf("tuned's list %s: tuned writes each in turn until one is taken; the first "
                                               "is planned", list);
        return xstrdup(words[0]);
}

static int conv_cpu(conv *v, const tn_unit *u, const char *when, char **ret_error) {
        for (size_t i = 0; i < u->n_options; i++) {
                const tn_option *o = &u->options[i];
                const char *k = o->key;
                const char *offers = NULL;
                if (streq(k, "governor"))
                        offers = "/sys/devices/system/cpu/cpufreq/policy0/scaling_available_governors";
                else if (streq(k, "energy_performance_preference"))
                        offers = "/sys/devices/system/cpu/cpufreq/policy0/energy_performance_available_preferences";
                else if (streq(k, "energy_perf_bias") || streq(k, "min_perf_pct"))
                        ;
                else {
                        note_unsupported(v, u, o, cpu_reasons, "tuned's cpu plugin has no such option");
                        continue;
                }
                _cleanup_free_ char *x = NULL;
                int got = expand_option(v, u, o, &x, ret_error);
                if (got < 0)
                        return got;
                if (got == 0)
                        continue;
                _cleanup_free_ char *comment = NULL;
                _cleanup_free_ char *val = streq(k, "min_perf_pct") ? xstrdup(x) : first_offered(v, x, offers, &comment);
                if (!val || !*val) {
                        note(v, u, o, "an empty value");
                        continue;
                }
                /* x86_energy_perf_policy's old name tuned passes on */
                if (streq(k, "energy_perf_bias") && streq(val, "powersave")) {
                        free(val);
                        val = xstrdup("power");
                }
                /* hosttune's cpu group holds a key once: a conditional
                 * section setting it again cannot be written */
                bool twice = false;
                for (size_t j = 0; j < v->cpu.n; j++)
                        if (startswith(v->cpu.items[j].body, k) && v->cpu.items[j].body[strlen(k)] == ' ')
                                twice = true;
                if (twice) {
                        note(v, u, o, "a second %s (another [cpu] section): hosttune's cpu group takes a key once", k);
                        continue;
                }
                _cleanup_free_ char *qv = literal_value(val);
                _cleanup_free_ char *body = xasprintf("%s = { value = %s; optional = true;%s };", k, qv, when);
                push(&v->cpu, o, body, comment);
        }
        return 0;
}

/* tuned's device list (hardware/device_matcher.py): positive and '!'
 * patterns; the disks tuned's disk plugin takes are whole disks, not
 * removable, below scsi, virtio, xen or nvme, or below no device at all
 * (plugin_disk.py _device_is_supported, tuned 2.20: "device.parent is
 * None"): the virtual dm-N and mdN, so an LVM or RAID volume's read-ahead
 * is raised too. loop, zram, nbd and ram are virtual as well, but
 * hosttune's block backend never touches them. */
static char *disk_match(const char *devices) {
        _cleanup_strv_free_ char **rules = strv_split(devices, " \t,");
        _cleanup_strv_free_ char **pos = NULL, **neg = NULL;
        for (size_t i = 0; rules && rules[i]; i++) {
                if (!*rules[i])
                        continue;
                if (rules[i][0] == '!')
                        strv_push(&neg, rules[i] + 1);
                else
                        strv_push(&pos, rules[i]);
        }
        _cleanup_free_ char *p = pos && !(strv_length(pos) == 1 && streq(pos[0], "*")) ? strv_join(pos, "|") : NULL;
        _cleanup_free_ char *n = neg ? strv_join(neg, "|") : NULL;
        strbuf b = {0};
        strbuf_append(&b, "KERNEL==\"sd*|vd*|xvd*|nvme*|dm-*|md*\", ATTR{removable}==\"0\"");
        if (p)
                strbuf_appendf(&b, ", KERNEL==\"%s\"", p);
        if (n)
                strbuf_appendf(&b, ", KERNEL!=\"%s\"", n);
        return strbuf_steal(&b);
}

static int conv_disk(conv *v, const tn_unit *u, const char *when, char **ret_error) {
        for (size_t i = 0; i < u->n_options; i++) {
                const tn_option *o = &u->options[i];
                const char *k = o->key;
                if (u->devices_udev_regex) {
                        note(v, u, o, "the section's devices_udev_regex selects disks by their udev "
                                      "properties, which hosttune's block matches do not take");
                        continue;
                }
                const char *attr;
                if (streq(k, "elevator"))
                        attr = "scheduler";
                else if (streq(k, "readahead"))
                        attr = "read_ahead_kb";
                else {
                        note_unsupported(v, u, o, disk_reasons, "tuned's disk plugin has no such option");
                        continue;
                }
                _cleanup_free_ char *x = NULL;
                int got = expand_option(v, u, o, &x, ret_error);
                if (got < 0)
                        return got;
                if (got == 0)
                        continue;
                _cleanup_free_ char *val = xstrdup(x);
                const char *bound = NULL;
                const char *extra = NULL;
                if (streq(attr, "read_ahead_kb")) {
                        bound = bound_of(&val);
                        char *sp = strpbrk(val, " \t");
                        bool sectors = false;
                        if (sp) {
                                char *suffix = sp;
                                while (*suffix == ' ' || *suffix == '\t')
                                        suffix++;
                                sectors = *suffix == 's';
                                *sp = '\0';
                        }
                        if (!valid_int(val)) {
                                note(v, u, o, "tuned takes a number of KiB, or of sectors with ' s'");
                                continue;
                        }
                        if (sectors) {
                                char *kib = xasprintf("%lld", strtoll(val, NULL, 10) / 2);
                                free(val);
                                val = kib;
                                extra = bound ? "512-byte sectors, halved to KiB (tuned 2.20 itself rejects "
                                                "'>' or '<' with the 's' suffix)"
                                              : "512-byte sectors, halved to KiB";
                        }
                }
                _cleanup_free_ char *m = disk_match(u->devices ? u->devices : "*");
                _cleanup_free_ char *qm = cfg_quote(m), *qv = literal_value(val);
                _cleanup_free_ char *leaf = bound ? xasprintf("{ value = %s; bound = \"%s\"; optional = true;%s }", qv,
                                                              bound, when)
                                                  : xasprintf("{ value = %s; optional = true;%s }", qv, when);
                _cleanup_free_ char *body = xasprintf("{ udev = %s; queue = { %s = %s; }; },", qm, attr, leaf);
                push(&v->block, o, body, extra);
        }
        return 0;
}

typedef struct {
        char *word;
        const tn_option *from;
} cmd_word;

static int conv_bootloader(conv *v, const tn_unit *u, const char *when, char **ret_error) {
        cmd_word *words = NULL;
        size_t n = 0;
        int r = 0;
        for (size_t i = 0; i < u->n_options; i++) {
                const tn_option *o = &u->options[i];
                const char *k = o->key;
                if (!startswith(k, "cmdline")) {
                        note_unsupported(v, u, o, bootloader_reasons, "tuned's bootloader plugin has no such option");
                        continue;
                }
                _cleanup_free_ char *x = NULL;
                int got = expand_option(v, u, o, &x, ret_error);
                if (got < 0) {
                        r = got;
                        goto out;
                }
                if (got == 0 || !*x)
                        continue;
                /* tuned's _get_effective_options: '+' (or none) appends the
                 * words, '-' takes them out of what earlier cmdline options
                 * gave (not out of the host's command line), '\' escapes */
                char op = x[0];
                const char *rest = x + 1;
                bool remove = op == '-';
                const char *add = op == '+' || (op == '\\' && (x[1] == '\\' || x[1] == '+' || x[1] == '-')) ? rest
                                  : remove                                                                 ? NULL
                                                                                                           : x;
                _cleanup_strv_free_ char **ws = strv_split(remove ? rest : add, " \t");
                for (size_t w = 0; ws && ws[w]; w++) {
                        if (!*ws[w])
                                continue;
                        if (remove) {
                                for (size_t j = 0; j < n; j++)
                                        if (words[j].word && streq(words[j].word, ws[w])) {
                                                free(words[j].word);
                                                words[j].word = NULL;
                                        }
                        } else {
                                words = xrealloc(words, (n + 1) * sizeof(*words));
                                words[n++] = (cmd_word){.word = xstrdup(ws[w]), .from = o};
                        }
                }
        }
        /* one group per option, with the words of it that last */
        for (size_t i = 0; i < u->n_options; i++) {
                const tn_option *o = &u->options[i];
                strbuf list = {0};
                for (size_t j = 0; j < n; j++)
                        if (words[j].word && words[j].from == o) {
                                _cleanup_free_ char *q = cfg_quote(words[j].word);
                                strbuf_appendf(&list, "%s%s", list.len ? ", " : "", q);
                        }
                if (!list.len)
                        continue;
                _cleanup_free_ char *l = strbuf_steal(&list);
                _cleanup_free_ char *body = xasprintf("{ add = [ %s ]; optional = true;%s },", l, when);
                push(&v->cmdline, o, body, NULL);
        }
out:
        for (size_t j = 0; j < n; j++)
                free(words[j].word);
        free(words);
        return r;
}

/* Plugins with no hosttune backend: why, in one phrase. */
static const struct {
        const char *type;
        const char *why;
} unsupported[] = {
        {"selinux", "SELinux's AVC cache threshold (selinuxfs); hosttune has no selinux backend"},
        {"modules", "loads kernel modules with options (modprobe); hosttune has no modules backend"},
        {"net", "network interface settings through ethtool; hosttune has no net backend"},
        {"scheduler", "process and IRQ affinity and scheduler policies that tuned's daemon applies and "
                      "keeps applying to new processes; hosttune runs no daemon"},
        {"irqbalance", "edits irqbalance's banned CPUs and restarts it; hosttune has no irqbalance backend"},
        {"script", "runs the profile's script; hosttune runs no scripts from profiles"},
        {"audio", "sound card power saving (module parameters); hosttune has no audio backend"},
        {"video", "GPU power profiles (radeon); hosttune has no video backend"},
        {"usb", "USB autosuspend; hosttune has no usb backend"},
        {"scsi_host", "SATA link power management (ALPM); hosttune has no scsi_host backend"},
        {"rtentsk", "holds a timestamping socket open so the kernel keeps its static key on; "
                    "only a daemon can"},
        {"eeepc_she", "Asus Eee PC super hybrid engine, dynamic by tuned's daemon"},
        {"mounts", "remounts file systems (barriers); hosttune has no mounts backend"},
        {"uncore", "Intel uncore frequency limits; hosttune has no uncore backend"},
        {"service", "starts, stops, enables or disables units; hosttune's services section sets "
                    "unit directives (drop-ins), not the unit's state"},
        {"systemd", "CPUAffinity of systemd's manager: a list-valued key hosttune's systemd backend "
                    "does not take"},
};

static void conv_unsupported(conv *v, const tn_unit *u, const char *why) {
        if (u->n_options == 0)
                note(v, u, NULL, "%s", why);
        for (size_t i = 0; i < u->n_options; i++)
                note(v, u, &u->options[i], "%s", why);
}

/* --- text ------------------------------------------------------------ */

typedef struct {
        strbuf b;
        unsigned *of, *ol;
        size_t n;
} emitter;

static void emit(emitter *e, unsigned file1, unsigned line, const char *s) {
        /* s may hold several lines; each gets the origin */
        const char *p = s;
        if (!*s)
                p = "\n";
        while (*p) {
                const char *nl = strchr(p, '\n');
                size_t len = nl ? (size_t)(nl - p) : strlen(p);
                strbuf_appendn(&e->b, p, len);
                strbuf_append(&e->b, "\n");
                e->of = xrealloc(e->of, (e->n + 1) * sizeof(*e->of));
                e->ol = xrealloc(e->ol, (e->n + 1) * sizeof(*e->ol));
                e->of[e->n] = file1;
                e->ol[e->n] = line;
                e->n++;
                p += len + (nl ? 1 : 0);
        }
}

static void emitf(emitter *e, const char *fmt, ...) _printf_(2, 3);
static void emitf(emitter *e, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        _cleanup_free_ char *s = xvasprintf(fmt, ap);
        va_end(ap);
        emit(e, 0, 0, s);
}

static void emit_bucket(emitter *e, const tn_profile *p, const char *section, const bucket *b) {
        if (!b->n)
                return;
        bool group = streq(section, "cpu");
        emitf(e, "%s = %s", section, group ? "{" : "(");
        for (size_t i = 0; i < b->n; i++) {
                const item *it = &b->items[i];
                if (it->lines && *it->lines) {
                        strbuf ind = {0};
                        _cleanup_strv_free_ char **ls = strv_split(it->lines, "\n");
                        for (size_t k = 0; ls && ls[k]; k++)
                                if (*ls[k])
                                        strbuf_appendf(&ind, "        %s\n", ls[k]);
                        _cleanup_free_ char *s = strbuf_steal(&ind);
                        if (s)
                                emit(e, 0, 0, s);
                }
                emitf(e, "        # tuned: %s:%u", p->files[it->file], it->line);
                /* the last element takes no comma */
                _cleanup_free_ char *body = xstrdup(it->body);
                size_t bl = strlen(body);
                if (i + 1 == b->n && bl && body[bl - 1] == ',')
                        body[bl - 1] = '\0';
                _cleanup_free_ char *line = xasprintf("        %s", body);
                emit(e, it->file + 1, it->line, line);
        }
        emitf(e, "%s", group ? "};" : ");");
}

static void bucket_done(bucket *b) {
        for (size_t i = 0; i < b->n; i++) {
                free(b->items[i].lines);
                free(b->items[i].body);
        }
        free(b->items);
}

static void emit_profile(conv *v, const char *name, ht_tuned_profile *out);

int tn_convert(const ht_context *c, json_object *facts, tn_profile *p, char *const *vars, const char *name,
               ht_tuned_profile *out, char **ret_error) {
        conv v = {.c = c, .facts = facts, .p = p, .vars = vars};
        int r = 0;
        for (size_t i = 0; r >= 0 && i < p->n_units; i++) {
                tn_unit *u = &p->units[i];
                if (streq(u->name, "variables") || !u->enabled)
                        continue;
                /* tuned's loader expands variables in these after the merge */
                char **fields[] = {&u->devices, &u->cpuinfo_regex, &u->uname_regex};
                for (size_t k = 0; k < ELEMENTSOF(fields); k++) {
                        if (!*fields[k])
                                continue;
                        _cleanup_free_ char *x = NULL, *err = NULL;
                        r = tn_expand(vars, facts, *fields[k], &x, &err);
                        if (r < 0) {
                                *ret_error = xasprintf("%s:%u: [%s]: %s", p->files[u->file], u->line, u->name, err);
                                break;
                        }
                        free(*fields[k]);
                        *fields[k] = TAKE_PTR(x);
                }
                if (r < 0)
                        break;
                if (u->script_pre || u->script_post)
                        note(&v, u, NULL, "script_pre/script_post run scripts around the section; "
                                          "hosttune runs no scripts from profiles");
                _cleanup_free_ char *when = when_member(u);
                const char *t = u->type;
                if (streq(t, "sysctl"))
                        r = conv_sysctl(&v, u, when, ret_error);
                else if (streq(t, "sysfs"))
                        r = conv_sysfs(&v, u, when, ret_error);
                else if (streq(t, "vm"))
                        r = conv_vm(&v, u, when, ret_error);
                else if (streq(t, "cpu"))
                        r = conv_cpu(&v, u, when, ret_error);
                else if (streq(t, "disk"))
                        r = conv_disk(&v, u, when, ret_error);
                else if (streq(t, "bootloader"))
                        r = conv_bootloader(&v, u, when, ret_error);
                else {
                        const char *why = NULL;
                        for (size_t k = 0; k < ELEMENTSOF(unsupported); k++)
                                if (streq(t, unsupported[k].type))
                                        why = unsupported[k].why;
                        _cleanup_free_ char *unknown = why ? NULL : xasprintf("tuned has no plugin '%s'", t);
                        conv_unsupported(&v, u, why ? why : unknown);
                }
        }
        if (r >= 0)
                emit_profile(&v, name, out);
        bucket_done(&v.sysctl);
        bucket_done(&v.sysfs);
        bucket_done(&v.block);
        bucket_done(&v.cpu);
        bucket_done(&v.cmdline);
        return r;
}

static void emit_profile(conv *v, const char *name, ht_tuned_profile *out) {
        tn_profile *p = v->p;
        emitter e = {0};
        emitf(&e, "# Imported from tuned profile %s by hosttune %s.", name, PACKAGE_VERSION);
        _cleanup_free_ char *files = strv_join(p->files, ", ");
        emitf(&e, "# tuned files: %s", files);
        if (p->host_values)
                emitf(&e, "# Some values were computed on this host (tuned's ${f:} functions, globs, "
                          "a|b lists): import again for another host.");
        emitf(&e, "#");
        emitf(&e, "# Not carried over (%zu):", p->n_notes);
        for (size_t i = 0; i < p->n_notes; i++) {
                _cleanup_free_ char *s = ht_tuned_note_format(&p->notes[i]);
                emitf(&e, "#   %s", s);
        }
        emitf(&e, "%s", "");
        if (p->summary) {
                _cleanup_free_ char *q = cfg_quote(p->summary);
                _cleanup_free_ char *line = xasprintf("summary = %s;", q);
                emit(&e, p->summary_file + 1, p->summary_line, line);
        }
        emit_bucket(&e, p, "sysctl", &v->sysctl);
        emit_bucket(&e, p, "sysfs", &v->sysfs);
        if (v->block.n) {
                /* block = { match = ( ... ); }; */
                emitf(&e, "block = {");
                emitter sub = {0};
                emit_bucket(&sub, p, "match", &v->block);
                _cleanup_free_ char *s = strbuf_steal(&sub.b);
                _cleanup_strv_free_ char **ls = strv_split(s, "\n");
                for (size_t k = 0; k < sub.n; k++) {
                        _cleanup_free_ char *l = xasprintf("        %s", ls[k]);
                        emit(&e, sub.of[k], sub.ol[k], l);
                }
                free(sub.of);
                free(sub.ol);
                emitf(&e, "};");
        }
        emit_bucket(&e, p, "cpu", &v->cpu);
        emit_bucket(&e, p, "cmdline", &v->cmdline);

        out->text = strbuf_steal(&e.b);
        out->origin_file = e.of;
        out->origin_line = e.ol;
        out->n_lines = e.n;
        out->summary = p->summary ? xstrdup(p->summary) : NULL;
        out->files = p->files;
        p->files = NULL;
        out->notes = p->notes;
        out->n_notes = p->n_notes;
        p->notes = NULL;
        p->n_notes = 0;
        out->host_values = p->host_values;
}
