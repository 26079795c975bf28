/* block: I/O scheduler and queue settings of block devices, per device
 * class (rotational, non-rotational), per kernel name or per udev match.
 * Runtime values are written to each matching device's queue/ files in
 * /sys (read back like every runtime change); they are persisted as a
 * udev rules file of hosttune's own, which udevd applies when a device
 * appears (at boot and on hot-plug). The plan warns when a rules file
 * udev reads later sets the same attribute.
 *
 * Devices are /sys/block's entries (symlinks into /sys/devices); loop,
 * ram, zram, optical (sr), nbd and floppy devices are never touched.
 * Stacked devices (dm-*, md*) are bio-based or have no scheduler of
 * their own on blk-mq ("none", unbracketed): they take read-ahead only,
 * which is theirs (the file system above reads through their queue); the
 * scheduler and the request queue belong to the devices below them
 * (slaves/), which are disks of their own class here. A device a
 * kernel: or udev: selector names that is stacked passes its scheduler
 * settings to its slaves (Documentation/admin-guide/device-mapper),
 * but for request-based dm (multipath), which has a queue and a
 * scheduler of its own and bypasses its paths' (blk_insert_cloned_request):
 * it takes them itself. Other bio-based disks (an NVMe multipath head,
 * drbd, bcache) take read-ahead only under a class, as stacked ones. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stddef.h>
#include <string.h>

#include "backend-common.h"
#include "backend.h"
#include "bound.h"
#include "edit-udev.h"
#include "format-block.h"
#include "fileio.h"
#include "profile-section.h"
#include "util.h"

/* The key field beside key, as ht_entry.fields[] holds it
 * (ht_backend.key_fields): the devices a rule's set names. */
enum { F_DEVICES };
static const char *const block_key_fields[] = {"devices", NULL};

/* udev rules files are small; a huge one is not worth a plan's time */
#define UDEV_FILE_MAX (1u << 20)

static const char *const block_attrs[] = {
        /* in the order they are written: a scheduler switch resets
         * nr_requests (blk_mq_init_sched), so the scheduler goes first */
        "queue/scheduler", "queue/nr_requests", "queue/read_ahead_kb", "queue/rq_affinity", NULL,
};

/* The classification is format-block.c's, shared with the facts. */
static bool is_stacked(const char *name) {
        return ht_block_kind_stacked(ht_block_kind_of(name));
}

/* A udev glob with '|' alternatives, as udev matches KERNEL== and ATTR==. */
static bool udev_glob_match(const char *pattern, const char *s) {
        _cleanup_strv_free_ char **alts = strv_split(pattern, "|");
        for (size_t i = 0; alts && alts[i]; i++)
                if (fnmatch(alts[i], s, 0) == 0)
                        return true;
        /* an empty pattern matches the empty string */
        return !alts || !alts[0] ? isempty(s) : false;
}

/* ---- keys: "SELECTOR ATTR" ---- */

typedef enum { SEL_ROTATIONAL, SEL_NON_ROTATIONAL, SEL_KERNEL, SEL_UDEV } sel_kind;

typedef struct {
        sel_kind kind;
        char *pattern;          /* SEL_KERNEL */
        ht_udev_token *tokens;  /* SEL_UDEV: the matches */
        size_t n_tokens;
} selector;

static void selector_done(selector *s) {
        free(s->pattern);
        ht_udev_tokens_free(s->tokens, s->n_tokens);
        *s = (selector){0};
}

static bool kernel_pattern_valid(const char *p) {
        return !isempty(p) && strlen(p) <= 128 && ht_word_chars(p, "*?[]!|-_.:") && !strstr(p, "||") &&
               p[0] != '|' && !endswith(p, "|");
}

/* "rotational", "non-rotational", "kernel:PATTERN" or "udev:MATCHES";
 * -EINVAL with *ret_why. */
static int selector_parse(const char *text, selector *ret, char **ret_why) {
        selector s = {0};
        if (streq(text, "rotational"))
                s.kind = SEL_ROTATIONAL;
        else if (streq(text, "non-rotational"))
                s.kind = SEL_NON_ROTATIONAL;
        else if (startswith(text, "kernel:")) {
                s.kind = SEL_KERNEL;
                if (!kernel_pattern_valid(text + 7)) {
                        *ret_why = xasprintf("'%s' is not a kernel name pattern (letters, digits, "
                                             "udev's * ? [ ] and | alternatives)", text + 7);
                        return -EINVAL;
                }
                s.pattern = xstrdup(text + 7);
        } else if (startswith(text, "udev:")) {
                s.kind = SEL_UDEV;
                _cleanup_free_ char *why = NULL;
                if (ht_udev_parse_rule(text + 5, &s.tokens, &s.n_tokens, &why) < 0) {
                        *ret_why = xasprintf("'%s' is not a udev match: %s", text + 5, why);
                        return -EINVAL;
                }
                for (size_t i = 0; i < s.n_tokens; i++) {
                        const ht_udev_token *t = &s.tokens[i];
                        bool key_ok = (streq(t->key, "KERNEL") && !t->attr) ||
                                      ((streq(t->key, "ATTR") || streq(t->key, "ATTRS")) && !isempty(t->attr) &&
                                       ht_word_chars(t->attr, "/_-.") && !strstr(t->attr, "..") &&
                                       t->attr[0] != '/');
                        if (!key_ok || ht_udev_op_assigns(t->op) || t->op == HT_UDEV_REMOVE ||
                            !ht_udev_value_safe(t->value)) {
                                *ret_why = xasprintf("'%s' is not a udev match hosttune takes: only "
                                                     "KERNEL, ATTR{...} and ATTRS{...} with == or != "
                                                     "and values without quotes or backslashes",
                                                     text + 5);
                                selector_done(&s);
                                return -EINVAL;
                        }
                }
        } else {
                *ret_why = xasprintf("'%s' is not a device selector (rotational, non-rotational, "
                                     "kernel:PATTERN or udev:MATCH)", text);
                return -EINVAL;
        }
        *ret = s;
        return 0;
}

/* The canonical text of a selector (the udev matches formatted). */
static char *selector_format(const selector *s) {
        switch (s->kind) {
        case SEL_ROTATIONAL: return xstrdup("rotational");
        case SEL_NON_ROTATIONAL: return xstrdup("non-rotational");
        case SEL_KERNEL: return xasprintf("kernel:%s", s->pattern);
        case SEL_UDEV: {
                _cleanup_free_ char *m = ht_udev_format_rule(s->tokens, s->n_tokens);
                return xasprintf("udev:%s", m ? m : "");
        }
        }
        return NULL;
}

/* A setting's key, split: the attribute is the last word. */
static int key_split(const char *key, selector *ret_sel, const char **ret_attr, char **ret_why) {
        const char *sp = strrchr(key, ' ');
        if (!sp || !strv_contains((char *const *)block_attrs, sp + 1)) {
                *ret_why = xasprintf("'%s' is not DEVICES ATTRIBUTE", key);
                return -EINVAL;
        }
        _cleanup_free_ char *sel = xstrndup(key, (size_t)(sp - key));
        int k = selector_parse(sel, ret_sel, ret_why);
        if (k < 0)
                return k;
        *ret_attr = sp + 1;
        return 0;
}

/* ---- devices ---- */

#define N_BLOCK_ATTRS (ELEMENTSOF(block_attrs) - 1)

typedef struct {
        char *name;         /* "sda" */
        char *dir;          /* its directory, the /sys/block link followed */
        int rotational;     /* 1, 0; -1: unknown (no queue: no device to tune) */
        char **slaves;      /* names below a stacked device */
        /* its queue offers a choice of I/O scheduler (a bracketed word):
         * a request (blk-mq or legacy) queue. Bio-based devices have none:
         * their queue/scheduler reads "none" (elv_iosched_show: "if
         * (!queue_is_mq(q)) return sprintf(name, "none\n")") or, since
         * blk-sysfs.c hides the request-queue attributes of bio-based
         * queues (blk_mq_queue_attr_visible), is absent with nr_requests
         * and rq_affinity; the kernel refuses nr_requests there (EINVAL).
         * Besides dm and md: NVMe multipath heads, drbd, bcache, pmem. */
        bool own_sched;
        char *sched_after;  /* the scheduler the plan leaves it with, NULL: unchanged */
        /* per attribute of block_attrs: 1 + the planning order of the
         * setting the device ends with (the last, as in udev); 0: none */
        size_t claim_by[N_BLOCK_ATTRS];
} device;

typedef struct {
        device *d;
        size_t n;
} device_list;

static void devices_done(device_list *l) {
        for (size_t i = 0; i < l->n; i++) {
                free(l->d[i].name);
                free(l->d[i].dir);
                strv_free(l->d[i].slaves);
                free(l->d[i].sched_after);
        }
        free(l->d);
}

/* The directory the /sys/block entry at link leads to (*ret_dir) and an
 * O_PATH fd of it (-errno when it cannot be opened: its files are then
 * read by path). In sysfs one link leads to the device's directory: read
 * and opened in four system calls; anything else (links to links, old
 * kernels' directories) takes the general walk. */
static int device_dir(const ht_context *c, const char *link, char **ret_dir) {
        _cleanup_free_ char *target = NULL, *dir = NULL;
        if (ht_readlink(c, link, &target) == 0 && ht_host_link_target(link, target, &dir) == 0) {
                int fd = ht_open(c, dir, O_PATH | O_DIRECTORY | O_NOFOLLOW, 0);
                if (fd >= 0) {
                        *ret_dir = TAKE_PTR(dir);
                        return fd;
                }
                free(dir);
                dir = NULL;
        }
        int r = ht_resolve_host_link(c, link, &dir);
        if (r < 0)
                return r;
        *ret_dir = TAKE_PTR(dir);
        return ht_open_dir(c, *ret_dir);
}

static void devices_load(const ht_context *c, device_list *l) {
        ht_sys_block *b = NULL;
        size_t n = 0;
        *l = (device_list){0};
        if (ht_sys_block_list(c, &b, &n) < 0)
                return;
        for (size_t i = 0; i < n; i++) {
                if (ht_block_kind_never_touched(b[i].kind))
                        continue;
                _cleanup_free_ char *dir = NULL;
                /* the files below it are read relative to the
                 * directory: the path is walked once */
                _cleanup_close_ int dfd = device_dir(c, b[i].path, &dir);
                /* old kernels (SYSFS_DEPRECATED) have directories here */
                if (!dir || !startswith(dir, "/sys/"))
                        continue;
                _cleanup_free_ char *rot = NULL;
                int rotational = -1;
                if (ht_read_line_below(c, dfd, dir, "queue/rotational", &rot) >= 0)
                        rotational = streq(strstrip(rot), "1") ? 1 : streq(rot, "0") ? 0 : -1;
                if (rotational < 0)
                        continue;
                _cleanup_free_ char *sched = NULL;
                bool own_sched = ht_read_line_below(c, dfd, dir, "queue/scheduler", &sched) >= 0 && strchr(sched, '[');
                char **slaves = ht_block_kind_stacked(b[i].kind) ? ht_sys_block_slaves(c, dir) : NULL;
                l->d = xrealloc(l->d, (l->n + 1) * sizeof(*l->d));
                l->d[l->n++] = (device){.name = xstrdup(b[i].name), .dir = TAKE_PTR(dir),
                                        .rotational = rotational, .slaves = slaves, .own_sched = own_sched};
        }
        ht_sys_block_list_free(b, n);
}

static int device_name_cmp(const void *key, const void *d) {
        return strcmp(key, ((const device *)d)->name);
}

/* l->d is in ht_list_dir's order, sorted by name: a search, so that
 * thousands of disks stay linear (BENCHMARKS.md, scaling). */
static device *devices_find(const device_list *l, const char *name) {
        return l->n ? bsearch(name, l->d, l->n, sizeof(*l->d), device_name_cmp) : NULL;
}

/* ATTRS{x}: the device's directory, then each parent up to /sys/devices */
static bool attrs_match(const ht_context *c, const device *d, const ht_udev_token *t) {
        _cleanup_free_ char *dir = xstrdup(d->dir);
        while (startswith(dir, "/sys/devices/")) {
                _cleanup_free_ char *p = xasprintf("%s/%s", dir, t->attr), *v = NULL;
                if (ht_read_line(c, p, &v) >= 0 && udev_glob_match(t->value, strstrip(v)))
                        return true;
                char *slash = strrchr(dir, '/');
                *slash = 0;
        }
        return false;
}

static bool token_match(const ht_context *c, const device *d, const ht_udev_token *t) {
        bool m;
        if (streq(t->key, "KERNEL"))
                m = udev_glob_match(t->value, d->name);
        else if (streq(t->key, "ATTR")) {
                _cleanup_free_ char *p = xasprintf("%s/%s", d->dir, t->attr), *v = NULL;
                /* udev strips trailing blanks of an attribute before matching */
                m = ht_read_line(c, p, &v) >= 0 && udev_glob_match(t->value, strstrip(v));
        } else
                m = attrs_match(c, d, t);
        return t->op == HT_UDEV_NOMATCH ? !m : m;
}

static bool selector_matches(const ht_context *c, const selector *s, const device *d) {
        switch (s->kind) {
        case SEL_ROTATIONAL: return d->rotational == 1;
        case SEL_NON_ROTATIONAL: return d->rotational == 0;
        case SEL_KERNEL: return udev_glob_match(s->pattern, d->name);
        case SEL_UDEV:
                for (size_t i = 0; i < s->n_tokens; i++)
                        if (!token_match(c, d, &s->tokens[i]))
                                return false;
                return true;
        }
        return false;
}

/* The devices a setting of attr reaches through selector s: stacked
 * devices keep read-ahead; their scheduler and queue settings go to the
 * disks below them when a kernel:/udev: selector names them (a class
 * reaches those disks as what they are). */
static char **targets_for(const ht_context *c, const device_list *l, const selector *s, const char *attr) {
        char **out = NULL;
        size_t n_out = 0, cap_out = 0;
        bool ra = streq(attr, "queue/read_ahead_kb");
        _cleanup_free_ bool *in_out = l->n ? xcalloc(l->n, sizeof(bool)) : NULL;
        for (size_t i = 0; i < l->n; i++) {
                const device *d = &l->d[i];
                if (!selector_matches(c, s, d))
                        continue;
                bool class = s->kind == SEL_ROTATIONAL || s->kind == SEL_NON_ROTATIONAL;
                /* a class means the disks with a request queue: a bio-based
                 * one (an NVMe multipath head) has no scheduler or depth to
                 * set, as a stacked one; a name reaches it, and is told */
                if (class && !ra && !is_stacked(d->name) && !d->own_sched)
                        continue;
                /* a disk itself; or request-based dm (multipath), named:
                 * it has a scheduler of its own, and the one of the paths
                 * below it is bypassed (blk_insert_cloned_request,
                 * block/blk-mq.c: "Since we have a scheduler attached on
                 * the top device, bypass a potential scheduler on the
                 * bottom device for insert") */
                if (!is_stacked(d->name) || ra || (!class && d->own_sched)) {
                        if (!in_out[i])
                                strv_push_counted(&out, &n_out, &cap_out, d->name);
                        in_out[i] = true;
                        continue;
                }
                if (class)
                        continue;
                /* dm on dm (LVM on multipath): down to the disks */
                _cleanup_strv_free_ char **todo = NULL;
                for (size_t j = 0; d->slaves && d->slaves[j]; j++)
                        strv_push(&todo, d->slaves[j]);
                for (size_t j = 0; todo && todo[j] && j < 256; j++) {
                        const device *sd = devices_find(l, todo[j]);
                        /* LVM on a partition: slaves/sda3, a partition of sda */
                        for (size_t k = 0; !sd && k < l->n; k++) {
                                _cleanup_free_ char *part = xasprintf("%s/%s/partition", l->d[k].dir, todo[j]);
                                if (ht_exists(c, part))
                                        sd = &l->d[k];
                        }
                        if (!sd)
                                continue;
                        if (is_stacked(sd->name) && !sd->own_sched) {
                                for (size_t k = 0; sd->slaves && sd->slaves[k]; k++)
                                        if (!strv_contains(todo, sd->slaves[k]))
                                                strv_push(&todo, sd->slaves[k]);
                        } else if (!in_out[sd - l->d]) {
                                strv_push_counted(&out, &n_out, &cap_out, sd->name);
                                in_out[sd - l->d] = true;
                        }
                }
        }
        return out;
}

/* ---- values ---- */

static bool is_uint(const char *v) {
        uint64_t x;
        return !isempty(v) && v[0] != '+' && v[0] != '-' && parse_u64(v, &x) >= 0 && x <= UINT32_MAX;
}

/* Why value cannot be one for attr, or NULL. */
static const char *value_problem(const char *attr, const char *value) {
        if (!ht_udev_value_safe(value) || isempty(value))
                return "holds characters a udev rule cannot carry";
        if (streq(attr, "queue/scheduler"))
                return ht_word_chars(value, "-_") ? NULL : "is not a scheduler name";
        if (streq(attr, "queue/rq_affinity"))
                return streq(value, "0") || streq(value, "1") || streq(value, "2") ? NULL : "must be 0, 1 or 2";
        if (!is_uint(value))
                return "must be a non-negative integer";
        /* queue_requests_store (block/blk-sysfs.c): "if (nr <
         * BLKDEV_MIN_RQ) nr = BLKDEV_MIN_RQ;", 4: a smaller depth would
         * read back as 4 and never verify */
        uint64_t n;
        if (streq(attr, "queue/nr_requests") && parse_u64(value, &n) >= 0 && n < 4)
                return "is below 4, the smallest queue depth the kernel takes (BLKDEV_MIN_RQ: it raises a "
                       "smaller one to 4)";
        return NULL;
}

/* The old and new names of a scheduler: single-queue kernels offer
 * deadline and noop, blk-mq ones mq-deadline and none (tuned profiles
 * and Oracle's guide for Linux 7 say "deadline"). */
static const char *scheduler_alias(const char *name) {
        if (streq(name, "deadline"))
                return "mq-deadline";
        if (streq(name, "mq-deadline"))
                return "deadline";
        if (streq(name, "noop"))
                return "none";
        if (streq(name, "none"))
                return "noop";
        return NULL;
}

/* The word to write for want on a device offering offered, or NULL. */
static const char *scheduler_pick(char *const *offered, const char *want) {
        if (strv_contains(offered, want))
                return want;
        const char *alias = scheduler_alias(want);
        return alias && strv_contains(offered, alias) ? alias : NULL;
}

/* ---- the rules file ---- */

/* The matches every line of hosttune's file starts with: added or
 * changed whole disks, never the devices hosttune leaves alone. */
static void push_common(ht_udev_token **t, size_t *n) {
        static const struct { const char *key, *attr; ht_udev_op op; const char *value; } common[] = {
                {"ACTION", NULL, HT_UDEV_MATCH, "add|change"},
                {"SUBSYSTEM", NULL, HT_UDEV_MATCH, "block"},
                {"ENV", "DEVTYPE", HT_UDEV_MATCH, "disk"},
                {"KERNEL", NULL, HT_UDEV_NOMATCH, HT_BLOCK_NEVER_TOUCHED_GLOB},
        };
        for (size_t i = 0; i < ELEMENTSOF(common); i++) {
                *t = xrealloc(*t, (*n + 1) * sizeof(**t));
                (*t)[(*n)++] = (ht_udev_token){.key = xstrdup(common[i].key),
                                               .attr = common[i].attr ? xstrdup(common[i].attr) : NULL,
                                               .op = common[i].op, .value = xstrdup(common[i].value)};
        }
}

static void push_token(ht_udev_token **t, size_t *n, const char *key, const char *attr, ht_udev_op op,
                       const char *value) {
        *t = xrealloc(*t, (*n + 1) * sizeof(**t));
        (*t)[(*n)++] = (ht_udev_token){.key = xstrdup(key), .attr = attr ? xstrdup(attr) : NULL, .op = op,
                                       .value = xstrdup(value)};
}

/* The matches of a line for selector s and attr: stacked devices are
 * left out of all but read-ahead, but for the line of the request-based
 * ones a name reaches (stacked_own). */
static char *rule_matches(const selector *s, const char *attr, bool stacked_own) {
        ht_udev_token *t = NULL;
        size_t n = 0;
        push_common(&t, &n);
        if (!streq(attr, "queue/read_ahead_kb") && !stacked_own)
                push_token(&t, &n, "KERNEL", NULL, HT_UDEV_NOMATCH, "dm-*|md*");
        switch (s->kind) {
        case SEL_ROTATIONAL: push_token(&t, &n, "ATTR", "queue/rotational", HT_UDEV_MATCH, "1"); break;
        case SEL_NON_ROTATIONAL: push_token(&t, &n, "ATTR", "queue/rotational", HT_UDEV_MATCH, "0"); break;
        case SEL_KERNEL: push_token(&t, &n, "KERNEL", NULL, HT_UDEV_MATCH, s->pattern); break;
        case SEL_UDEV:
                for (size_t i = 0; i < s->n_tokens; i++)
                        push_token(&t, &n, s->tokens[i].key, s->tokens[i].attr, s->tokens[i].op,
                                   s->tokens[i].value);
                break;
        }
        char *m = ht_udev_format_rule(t, n);
        ht_udev_tokens_free(t, n);
        return m;
}

/* The value hosttune's file as it is gives attr for the line matches,
 * or NULL (an image's change compares with it). */
static const char *old_value(const ht_udev_file *old, const char *matches, const char *attr) {
        const char *v = NULL;
        for (size_t i = 0; old && i < old->n_rules; i++) {
                const ht_udev_rule *r = &old->rules[i];
                size_t nm = 0;
                while (nm < r->n_tokens && !ht_udev_op_assigns(r->tokens[nm].op))
                        nm++;
                _cleanup_free_ char *m = ht_udev_format_rule(r->tokens, nm);
                if (!m || !streq(m, matches))
                        continue;
                for (size_t j = nm; j < r->n_tokens; j++)
                        if (streq(r->tokens[j].key, "ATTR") && streq_ptr(r->tokens[j].attr, attr))
                                v = r->tokens[j].value;
        }
        return v;
}

/* The queue attribute another rules file's ATTR{a} writes: bdi/read_ahead_kb
 * (the disk's backing device, /sys/block/X/bdi/read_ahead_kb) holds the
 * same value as queue/read_ahead_kb (bdi->ra_pages: mm/backing-dev.c
 * read_ahead_kb_store, block/blk-sysfs.c queue_ra_store), and rules
 * written for tuning use either. */
static const char *attr_canon(const char *a) {
        return streq_ptr(a, "bdi/read_ahead_kb") ? "queue/read_ahead_kb" : a;
}

/* Warn about every rules file udev reads after hosttune's that sets one
 * of the attributes hosttune's file sets: its value wins at boot. And
 * about a file read before it that sets queue/nr_requests when
 * hosttune's switches the scheduler (and leaves the depth alone): the
 * switch resets the depth that file set. */
static void warn_later_rules(const ht_context *c, char *const *attrs, ht_plan *plan) {
        size_t nd = 0;
        while (ht_udev_dirs[nd])
                nd++;
        char ***names = xcalloc(nd + 1, sizeof(char **));
        for (size_t d = 0; d < nd; d++)
                ht_list_dir(c, ht_udev_dirs[d], ".rules", &names[d]);
        const char *own = strrchr(HT_UDEV_RULES, '/') + 1;
        if (!strv_contains(names[0], own))
                strv_push(&names[0], own);
        _cleanup_strv_free_ char **order = ht_udev_order(ht_udev_dirs, (char *const *const *)names);
        for (size_t d = 0; d < nd; d++)
                strv_free(names[d]);
        free(names);
        bool after = false;
        bool resets_depth = strv_contains(attrs, "queue/scheduler") && !strv_contains(attrs, "queue/nr_requests");
        for (size_t i = 0; order && order[i]; i++) {
                if (streq(order[i], HT_UDEV_RULES)) {
                        after = true;
                        continue;
                }
                if (!after && !resets_depth)
                        continue;
                _cleanup_free_ char *text = NULL, *shown = ht_display_path(c, order[i]);
                size_t len = 0;
                /* every rules file on the host, read for this alone */
                int k = ht_read_file_nokeep(c, order[i], UDEV_FILE_MAX, &text, &len);
                if (k == -ENOENT)
                        continue;
                if (k < 0) {
                        ht_plan_warn(plan, "%s: cannot read it (%s): an attribute it sets after hosttune's "
                                     "udev rules is not checked", shown,
                                     k == -EFBIG ? "larger than 1 MiB" : ht_strerror(-k));
                        continue;
                }
                _cleanup_(ht_udev_file_freep) ht_udev_file *f = NULL;
                ht_udev_parse(text, len, &f);
                for (size_t r = 0; r < f->n_rules; r++)
                        for (size_t t = 0; t < f->rules[r].n_tokens; t++) {
                                const ht_udev_token *tk = &f->rules[r].tokens[t];
                                if (!streq(tk->key, "ATTR") || !ht_udev_op_assigns(tk->op))
                                        continue;
                                if (!after) {
                                        if (streq(tk->attr, "queue/nr_requests"))
                                                ht_plan_warn(plan, "%s:%u sets ATTR{queue/nr_requests}=\"%s\" and udev "
                                                             "reads it before %s, whose scheduler switch resets the "
                                                             "queue depth (blk_mq_init_sched): on the devices both "
                                                             "match it is the new scheduler's default; set "
                                                             "queue/nr_requests in the profile too, or move the "
                                                             "assignment to a file sorted after it",
                                                             shown, f->rules[r].line, tk->value, HT_UDEV_RULES);
                                        continue;
                                }
                                if (!strv_contains(attrs, attr_canon(tk->attr)))
                                        continue;
                                ht_plan_warn(plan, "%s:%u sets ATTR{%s}=\"%s\" and udev reads it after %s: "
                                             "on the devices it matches that value wins when they appear; "
                                             "remove the assignment there or rename the file",
                                             shown, f->rules[r].line, tk->attr, tk->value, HT_UDEV_RULES);
                        }
        }
}

/* One line of the rules file, in profile order. */
typedef struct {
        char *matches;
        char *attr;
        char *value;
        char *source;
} rule_line;

static void add_line(rule_line **l, size_t *n, const char *matches, const char *attr, const char *value,
                     const char *source) {
        *l = xrealloc(*l, (*n + 1) * sizeof(**l));
        (*l)[(*n)++] = (rule_line){.matches = xstrdup(matches), .attr = xstrdup(attr), .value = xstrdup(value),
                                   .source = xstrdup(source)};
}

static void lines_clear(rule_line *l, size_t n) {
        for (size_t i = 0; i < n; i++) {
                free(l[i].matches);
                free(l[i].attr);
                free(l[i].value);
                free(l[i].source);
        }
}

static void lines_free(rule_line *l, size_t n) {
        lines_clear(l, n);
        free(l);
}

/* ---- the plan ---- */

typedef struct {
        const ht_context *c;
        const ht_facts *f;
        ht_plan *plan;
        bool live;
        device_list devs;
        rule_line *lines;
        size_t n_lines;
        const ht_udev_file *old;
        size_t order;  /* the setting being planned */
        char **hidden;  /* NVMe multipath paths a setting reached */
} block_run;

static ssize_t attr_index(const char *attr) {
        for (size_t a = 0; block_attrs[a]; a++)
                if (streq(block_attrs[a], attr))
                        return (ssize_t)a;
        return -1;
}

/* The setting being planned reaches dev's attr: a later one that reaches
 * it too will take it over (devices' claim_by). */
static void claim(block_run *b, const char *dev, const char *attr) {
        device *d = devices_find(&b->devs, dev);
        ssize_t a = attr_index(attr);
        if (d && a >= 0)
                d->claim_by[a] = b->order + 1;
}

static bool claimed_by_later(const block_run *b, const char *dev, const char *attr) {
        const device *d = devices_find(&b->devs, dev);
        ssize_t a = attr_index(attr);
        return d && a >= 0 && d->claim_by[a] && d->claim_by[a] != b->order + 1;
}

static void skip_or_fail(block_run *b, const ht_setting *s, const char *dev, const char *attr, const char *why) {
        _cleanup_free_ char *key = xasprintf("%s %s", dev, attr);
        ht_change *ch = ht_plan_add_change(b->plan, HT_BK_BLOCK, key, NULL, s->value);
        ch->source = ht_plan_strdup(b->plan, s->source);
        ch->setting = ht_plan_strdup(b->plan, s->key);
        if (s->optional) {
                ch->outcome = HT_OUTCOME_SKIPPED;
                _cleanup_free_ char *what = xasprintf("block %s", key);
                ht_plan_skip(b->plan, what, s->source, "%s", why);
        } else {
                ch->outcome = HT_OUTCOME_FAILED;
                ht_plan_error(b->plan, "%s: %s; mark the setting optional or choose another value", s->source, why);
        }
}

/* Why the kernel would refuse queue depth want on d (whose depth is cur
 * now), or NULL. queue_requests_store (block/blk-sysfs.c) raises a depth
 * below BLKDEV_MIN_RQ (4) to it, which the value check refuses; then
 * blk_mq_update_nr_requests, or in 6.18 queue_requests_store itself,
 * answers EINVAL above MAX_SCHED_RQ (16 * 128 = 2048, block/blk-mq.h)
 * with an I/O scheduler and above the hardware's tag depth without one.
 * A queue switched to none has nr_requests at that depth
 * (elevator_disable: "q->nr_requests = q->tag_set->queue_depth"), unless
 * an administrator lowered it since: above it, a warning (*ret_warn). */
static char *depth_problem(const block_run *b, const device *d, const char *want, const char *cur,
                           char **ret_warn) {
        uint64_t w, now;
        if (parse_u64(want, &w) < 0)
                return NULL;
        _cleanup_free_ char *p = xasprintf("%s/queue/scheduler", d->dir), *raw = NULL, *sel = NULL;
        if (ht_read_line(b->c, p, &raw) < 0)
                return NULL;
        /* a single-queue kernel's (RHEL 7: "noop deadline [cfq]", no
         * "none") takes any depth: blk_queue_resize_tags aside, no bound */
        _cleanup_strv_free_ char **offered = ht_block_scheduler_offered(raw);
        if (!strv_contains(offered, "none"))
                return NULL;
        sel = ht_block_scheduler_selected(raw);
        const char *sched = d->sched_after ? d->sched_after : sel;
        if (!sched)
                return NULL;
        bool none = streq(sched, "none") || streq(sched, "noop");
        if (!none && w > 2048)
                return xasprintf("%s: the kernel refuses a queue depth above 2048 with an I/O scheduler (%s; "
                                 "MAX_SCHED_RQ, block/blk-mq.c): queue/nr_requests %s would fail (EINVAL)",
                                 d->name, sched, want);
        /* under none all along: cur is the hardware's depth */
        if (none && !d->sched_after && parse_u64(cur, &now) >= 0 && w > now)
                *ret_warn = xasprintf("%s: with no I/O scheduler the kernel refuses a queue depth above the device's "
                                      "tag depth (EINVAL, block/blk-mq.c), which queue/nr_requests shows under none "
                                      "(%s now) unless it was lowered since: %s may fail; choose a scheduler in the "
                                      "profile to go deeper", d->name, cur, want);
        return NULL;
}

/* One device's runtime change for setting s; *ret_persist: the value its
 * line in the rules file needs when it differs from the setting's (a
 * bound the device exceeds, a scheduler's other name), else NULL. */
static bool plan_device(block_run *b, const ht_setting *s, const char *attr, device *d, char **ret_persist) {
        _cleanup_free_ char *path = xasprintf("%s/%s", d->dir, attr), *raw = NULL;
        *ret_persist = NULL;
        if (!d->own_sched && !streq(attr, "queue/read_ahead_kb")) {
                /* old kernels show these files on a bio-based queue, take
                 * a scheduler silently and refuse a depth (EINVAL) */
                _cleanup_free_ char *why = xasprintf("%s has no request queue of its own (a bio-based device: no I/O "
                                                     "scheduler to choose), so no %s to set", d->name, attr);
                skip_or_fail(b, s, d->name, attr, why);
                return false;
        }
        int k = ht_read_line(b->c, path, &raw);
        if (k < 0) {
                _cleanup_free_ char *why = xasprintf("%s has no %s (%s)", d->name, attr, ht_strerror(-k));
                skip_or_fail(b, s, d->name, attr, why);
                return false;
        }
        const char *want = s->value;
        _cleanup_free_ char *cur = NULL, *merged = NULL;
        if (streq(attr, "queue/scheduler")) {
                _cleanup_strv_free_ char **offered = ht_block_scheduler_offered(raw);
                want = offered ? scheduler_pick(offered, s->value) : NULL;
                if (!want) {
                        _cleanup_free_ char *list = offered ? strv_join(offered, ", ") : NULL;
                        _cleanup_free_ char *why = offered
                                ? xasprintf("%s does not offer the I/O scheduler %s (it offers %s)", d->name, s->value, list)
                                : xasprintf("%s has no I/O scheduler to choose (%s reads \"%s\")", d->name, attr,
                                            strstrip(raw));
                        skip_or_fail(b, s, d->name, attr, why);
                        return false;
                }
                cur = ht_kernel_value_effective(raw);
                if (!streq(want, s->value))
                        *ret_persist = xstrdup(want);
                if (!streq(cur, want)) {
                        free(d->sched_after);
                        d->sched_after = xstrdup(want);
                }
        } else {
                cur = normalize_ws(raw);
        }
        _cleanup_free_ char *key = xasprintf("%s %s", d->name, attr);
        if (s->bound != HT_BOUND_EXACT) {
                if (ht_bound_satisfied(s->bound, s->value, cur)) {
                        /* the host's value stands, here and at boot */
                        if (!streq(cur, s->value)) {
                                *ret_persist = xstrdup(cur);
                                ht_change *ch = ht_plan_add_change(b->plan, HT_BK_BLOCK, key, cur, cur);
                                ch->source = ht_plan_strdup(b->plan, s->source);
                                ch->setting = ht_plan_strdup(b->plan, s->key);
                                ch->bound = s->bound;
                                ch->bound_value = ht_plan_strdup(b->plan, s->value);
                                ch->outcome = HT_OUTCOME_KEPT;
                        }
                        return true;
                }
                merged = ht_bound_merge(s->bound, s->value, cur);
                want = merged;
        }
        if (streq(attr, "queue/nr_requests") && !streq(cur, want)) {
                _cleanup_free_ char *warn = NULL;
                _cleanup_free_ char *why = depth_problem(b, d, want, cur, &warn);
                if (warn)
                        ht_plan_warn(b->plan, "%s: %s", s->source, warn);
                if (why) {
                        skip_or_fail(b, s, d->name, attr, why);
                        return false;
                }
        }
        if (streq(cur, want))
                return true;
        ht_change *ch = ht_plan_add_change(b->plan, HT_BK_BLOCK, key, cur, want);
        ch->path = ht_plan_strdup(b->plan, path);
        ch->source = ht_plan_strdup(b->plan, s->source);
        ch->setting = ht_plan_strdup(b->plan, s->key);
        ch->runtime = true;
        if (streq(attr, "queue/scheduler")) {
                /* the switch resets the queue depth (blk_mq_init_sched,
                 * elevator_switch): an admin's nr_requests goes too, and
                 * must come back with a rollback */
                _cleanup_free_ char *nr_path = xasprintf("%s/queue/nr_requests", d->dir), *nr = NULL;
                if (ht_read_line(b->c, nr_path, &nr) >= 0) {
                        ch->resets_path = ht_plan_strdup(b->plan, nr_path);
                        ch->resets_key = ht_plan_printf(b->plan, "%s queue/nr_requests", d->name);
                        ch->note = ht_plan_printf(b->plan, "the switch resets queue/nr_requests (now %s) to the new scheduler's "
                                             "default", strstrip(nr));
                }
        }
        if (s->bound != HT_BOUND_EXACT) {
                ch->bound = s->bound;
                ch->bound_value = ht_plan_strdup(b->plan, s->value);
        }
        if (b->f->sys_readonly == HT_YES) {
                ch->runtime = false;
                ch->outcome = HT_OUTCOME_SKIPPED;
                ht_plan_warn(b->plan, "%s: /sys is read-only here (a container?): the runtime change is skipped; "
                             "the udev rule still applies when the device appears", key);
        } else if (b->f->container) {
                /* a privileged container may write the host's disks' queues */
                ht_plan_skip_host_value(b->plan, ch, key, b->f->container, "block devices", "udev rule");
        }
        return true;
}

/* The matches of a line for one device d that still hold when it comes
 * up under another name at the next boot (sdb as sdc: the kernel names
 * disks in the order it finds them): the identity the kernel shows for
 * it, which udev's 60-persistent-storage rules build /dev/disk/by-id
 * from: dm/uuid (dm), md/uuid (md), wwid (NVMe namespaces), device/wwid
 * (SCSI, from VPD page 0x83), serial (virtio). Its kernel name when it
 * shows none that a udev match can carry (glob characters: udev would
 * take them for patterns); *ret_attr names the attribute, NULL then. */
static char *device_matches(const block_run *b, const device *d, const char *attr, const char **ret_attr) {
        static const char *const ids[] = {"dm/uuid", "md/uuid", "wwid", "device/wwid", "serial"};
        bool stacked_own = !streq(attr, "queue/read_ahead_kb") && is_stacked(d->name);
        *ret_attr = NULL;
        for (size_t i = 0; i < ELEMENTSOF(ids); i++) {
                _cleanup_free_ char *p = xasprintf("%s/%s", d->dir, ids[i]), *v = NULL;
                if (ht_read_line(b->c, p, &v) < 0)
                        continue;
                strstrip(v);
                if (isempty(v) || strlen(v) > 256 || !ht_udev_value_safe(v) || strpbrk(v, "*?[]|"))
                        continue;
                ht_udev_token t = {.key = (char *)"ATTR", .attr = (char *)ids[i], .op = HT_UDEV_MATCH, .value = v};
                selector one = {.kind = SEL_UDEV, .tokens = &t, .n_tokens = 1};
                *ret_attr = ids[i];
                return rule_matches(&one, attr, stacked_own);
        }
        selector one = {.kind = SEL_KERNEL, .pattern = d->name};
        return rule_matches(&one, attr, stacked_own);
}

/* First pass: which setting each device's attribute ends with. */
static void claim_setting(block_run *b, const ht_setting *s) {
        selector sel = {0};
        const char *attr = NULL;
        _cleanup_free_ char *why = NULL;
        if (key_split(s->key, &sel, &attr, &why) < 0)
                return;
        _cleanup_strv_free_ char **targets = targets_for(b->c, &b->devs, &sel, attr);
        for (size_t i = 0; targets && targets[i]; i++)
                claim(b, targets[i], attr);
        selector_done(&sel);
}

static void plan_setting(block_run *b, const ht_setting *s) {
        selector sel = {0};
        const char *attr = NULL;
        _cleanup_free_ char *why = NULL;
        if (key_split(s->key, &sel, &attr, &why) < 0) {
                ht_plan_error(b->plan, "%s: block %s", s->source, why);
                return;
        }
        const char *bad = s->value ? value_problem(attr, s->value) : "is missing";
        if (bad) {
                ht_plan_error(b->plan, "%s: block %s: the value '%s' %s", s->source, s->key,
                              s->value ? s->value : "", bad);
                selector_done(&sel);
                return;
        }
        _cleanup_free_ char *matches = rule_matches(&sel, attr, false);
        if (!matches) {
                ht_plan_error(b->plan, "%s: block %s cannot be written as a udev rule", s->source, s->key);
                selector_done(&sel);
                return;
        }
        if (!b->live) {
                /* an image: the rule is the change */
                const char *now = old_value(b->old, matches, attr);
                if (!now || !streq(now, s->value)) {
                        ht_change *ch = ht_plan_add_change(b->plan, HT_BK_BLOCK, s->key, now, s->value);
                        ch->source = ht_plan_strdup(b->plan, s->source);
                }
                add_line(&b->lines, &b->n_lines, matches, attr, s->value, s->source);
                selector_done(&sel);
                return;
        }
        _cleanup_strv_free_ char **targets = targets_for(b->c, &b->devs, &sel, attr);
        if (!targets) {
                /* no such device here: nothing planned for it */
                selector_done(&sel);
                return;
        }
        /* the selector's line first (unless it only reached disks below
         * stacked devices); devices that need another value (a bound they
         * exceed, another name of the scheduler) get their own line after
         * it, which udev applies later */
        bool named = sel.kind == SEL_KERNEL || sel.kind == SEL_UDEV;
        bool ra = streq(attr, "queue/read_ahead_kb");
        bool direct = false, direct_stacked = false;
        for (size_t i = 0; targets[i]; i++) {
                const device *d = devices_find(&b->devs, targets[i]);
                if (named && !selector_matches(b->c, &sel, d))
                        continue;
                if (!ra && is_stacked(d->name))
                        direct_stacked = true;
                else
                        direct = true;
        }
        size_t first_line = b->n_lines;
        bool taken = false, tried = false;
        if (direct)
                add_line(&b->lines, &b->n_lines, matches, attr, s->value, s->source);
        if (direct_stacked) {
                /* a request-based dm device (multipath) named: its line must
                 * not leave dm devices out */
                _cleanup_free_ char *m = rule_matches(&sel, attr, true);
                if (m)
                        add_line(&b->lines, &b->n_lines, m, attr, s->value, s->source);
        }
        _cleanup_strv_free_ char **below = NULL;  /* disks a stacked device passed it to */
        for (size_t i = 0; targets[i]; i++) {
                device *d = devices_find(&b->devs, targets[i]);
                bool reached = named && !selector_matches(b->c, &sel, d);
                if (reached)
                        strv_push(&below, d->name);
                /* a later setting for the same device and attribute wins */
                if (claimed_by_later(b, d->name, attr))
                        continue;
                _cleanup_free_ char *persist = NULL;
                tried = true;
                if (plan_device(b, s, attr, d, &persist)) {
                        taken = true;
                        if (ht_block_hidden_nvme_path(d->name) && !strv_contains(b->hidden, d->name))
                                strv_push(&b->hidden, d->name);
                }
                if (!persist || reached)
                        continue;
                const char *id = NULL;
                _cleanup_free_ char *m = device_matches(b, d, attr, &id);
                if (m)
                        add_line(&b->lines, &b->n_lines, m, attr, persist, s->source);
        }
        if (tried && !taken) {
                /* no device here takes it (skipped or failed): no line that
                 * udev would fail to apply at every boot */
                lines_clear(b->lines + first_line, b->n_lines - first_line);
                b->n_lines = first_line;
                selector_done(&sel);
                return;
        }
        if (below) {
                /* the disks under a named stacked device: each by the
                 * identity it shows, the rest by their names now in one line
                 * (a multipath device under LVM among them) */
                bool mpath = false, any_stacked = false;
                _cleanup_strv_free_ char **by_name = NULL, **by_id = NULL;
                for (size_t i = 0; below[i]; i++) {
                        any_stacked = any_stacked || is_stacked(below[i]);
                        const device *d = devices_find(&b->devs, below[i]);
                        const char *id = NULL;
                        _cleanup_free_ char *m = device_matches(b, d, attr, &id);
                        if (!id) {
                                strv_push(&by_name, below[i]);
                                mpath = mpath || is_stacked(below[i]);
                                continue;
                        }
                        strv_pushf(&by_id, "%s (%s)", below[i], id);
                        if (m)
                                add_line(&b->lines, &b->n_lines, m, attr, s->value, s->source);
                }
                _cleanup_free_ char *pat = strv_join(below, "|");
                if (by_name) {
                        _cleanup_free_ char *names = strv_join(by_name, "|");
                        selector one = {.kind = SEL_KERNEL, .pattern = names};
                        _cleanup_free_ char *m = rule_matches(&one, attr, mpath);
                        if (m)
                                add_line(&b->lines, &b->n_lines, m, attr, s->value, s->source);
                }
                _cleanup_free_ char *ids = by_id ? strv_join(by_id, ", ") : NULL;
                _cleanup_free_ char *how = !by_id ? xstrdup("names them as the kernel calls them now")
                        : !by_name ? xasprintf("matches them by the identity each shows: %s", ids)
                                   : xasprintf("matches %s by the identity each shows, the others as the kernel "
                                               "calls them now", ids);
                if (any_stacked)
                        ht_plan_warn(b->plan, "%s: %s is set on %s, the devices below the stacked devices it "
                                     "names that have an I/O scheduler (LVM and md have none, a request-based "
                                     "multipath device has its own and its paths' is bypassed); the udev rule "
                                     "%s", s->source, s->key, pat, how);
                else
                        ht_plan_warn(b->plan, "%s: %s is set on %s, the disks below the stacked devices it names "
                                     "(a dm or md device has no I/O scheduler of its own); the udev rule %s",
                                     s->source, s->key, pat, how);
        }
        selector_done(&sel);
}

static char *render_rules(const block_run *b, const char *profile) {
        strbuf body = {0};
        _cleanup_free_ char *header = ht_managed_header(profile, "#");
        strbuf_append(&body, header);
        strbuf_append(&body, "# Applied by udevd when a block device appears or changes (udev(7)); a later\n"
                             "# line for the same device and attribute wins.\n");
        for (size_t i = 0; i < b->n_lines; i++) {
                /* the source is a path: one comment line whatever it holds */
                _cleanup_free_ char *src = xstrdup(b->lines[i].source);
                for (char *p = src; *p; p++)
                        if ((unsigned char)*p < 0x20 || *p == 0x7f)
                                *p = '?';
                strbuf_appendf(&body, "# %s\n%s, ATTR{%s}=\"%s\"\n", src, b->lines[i].matches, b->lines[i].attr,
                               b->lines[i].value);
        }
        return strbuf_steal(&body);
}

static int block_plan(const ht_context *c, const ht_facts *f, const ht_resolved *r, ht_plan *plan) {
        _cleanup_free_ char *old = NULL;
        size_t old_len = 0;
        int k = ht_read_optional(c, HT_UDEV_RULES, &old, &old_len);
        if (k < 0) {
                ht_plan_error(plan, "cannot read %s: %s", HT_UDEV_RULES, ht_strerror(-k));
                return 0;
        }
        if (ht_settings_count(r, HT_BK_BLOCK) == 0) {
                /* a file from an earlier profile goes */
                ht_plan_own_file(plan, HT_BK_BLOCK, HT_UDEV_RULES, old, old_len, NULL);
                return 0;
        }
        _cleanup_(ht_udev_file_freep) ht_udev_file *oldf = NULL;
        if (old)
                ht_udev_parse(old, old_len, &oldf);
        block_run b = {.c = c, .f = f, .plan = plan, .live = ht_root_is_live(c), .old = oldf};
        if (b.live)
                devices_load(c, &b.devs);
        size_t errors = strv_length(plan->errors);
        /* attribute order within the profile's order of selectors; the
         * first pass finds which setting a device ends with */
        for (int pass = 0; pass < 2; pass++) {
                b.order = 0;
                for (size_t a = 0; block_attrs[a]; a++)
                        for (size_t i = 0; i < r->n_settings; i++) {
                                const ht_setting *s = &r->settings[i];
                                const char *sp = s->backend == HT_BK_BLOCK ? strrchr(s->key, ' ') : NULL;
                                if (!sp || !streq(sp + 1, block_attrs[a]))
                                        continue;
                                if (pass == 0 && b.live)
                                        claim_setting(&b, s);
                                else if (pass == 1)
                                        plan_setting(&b, s);
                                b.order++;
                        }
        }
        for (size_t i = 0; i < r->n_settings; i++) {
                const ht_setting *s = &r->settings[i];
                const char *sp = s->backend == HT_BK_BLOCK ? strrchr(s->key, ' ') : NULL;
                if (s->backend == HT_BK_BLOCK && (!sp || !strv_contains((char *const *)block_attrs, sp + 1)))
                        plan_setting(&b, s);
        }
        if (strv_length(plan->errors) > errors) {
                /* nothing is written when a setting is wrong */
        } else if (b.n_lines == 0) {
                ht_plan_own_file(plan, HT_BK_BLOCK, HT_UDEV_RULES, old, old_len, NULL);
        } else {
                _cleanup_free_ char *content = render_rules(&b, plan->profile);
                ht_plan_own_file(plan, HT_BK_BLOCK, HT_UDEV_RULES, old, old_len, content);
                _cleanup_strv_free_ char **attrs = NULL;
                for (size_t i = 0; i < b.n_lines; i++)
                        if (!strv_contains(attrs, b.lines[i].attr))
                                strv_push(&attrs, b.lines[i].attr);
                warn_later_rules(c, attrs, plan);
        }
        if (b.hidden) {
                _cleanup_free_ char *list = strv_join(b.hidden, ", ");
                ht_plan_warn(plan, "block: %s: paths of a multipath NVMe namespace, hidden disks the kernel sends "
                             "udev no event for (block/genhd.c since Linux 5.15: \"for hidden disks uevents "
                             "remain suppressed forever\"): udev never applies %s to them, so what is set on "
                             "them now goes back to the kernel's default at the next boot; run hosttune apply "
                             "after each boot to set it again",
                             list, HT_UDEV_RULES);
                strv_free(b.hidden);
        }
        lines_free(b.lines, b.n_lines);
        devices_done(&b.devs);
        return 0;
}

/* ---- the profile section ---- */

static const char *const queue_members[] = {"scheduler", "read_ahead_kb", "nr_requests", "rq_affinity", NULL};

/* queue { scheduler = ...; read_ahead_kb = { value = ...; bound = ...; }; }
 * for the devices selector text devices (canonical). */
static int parse_queue(ht_pfile *p, const config_setting_t *q, const char *devices, const char *what,
                       char **ret_error) {
        _cleanup_free_ char *qwhat = xasprintf("%s queue", what);
        int r = ht_cfg_want_group(q, queue_members, p->path, qwhat, ret_error);
        if (r < 0)
                return r;
        for (int i = 0; i < config_setting_length(q); i++) {
                const config_setting_t *m = config_setting_get_elem(q, i);
                _cleanup_free_ char *attr = xasprintf("queue/%s", config_setting_name(m));
                _cleanup_free_ char *w = xasprintf("block %s %s", devices, attr);
                if (config_setting_type(m) != CONFIG_TYPE_GROUP && !ht_cfg_is_scalar(m))
                        return ht_error(ret_error, -EINVAL, "%s:%u: %s: expected a value or a group, not %s", p->path,
                                        ht_cfg_line(m), w, ht_cfg_type_name(config_setting_type(m)));
                ht_entry *e = ht_entry_push(&p->entries, &p->n_entries, HT_BK_BLOCK, p->path, ht_cfg_line(m));
                e->fields[F_DEVICES] = (ht_spec){.kind = HT_SPEC_LIT, .lit = ht_value_str(devices)};
                e->key = (ht_spec){.kind = HT_SPEC_LIT, .lit = ht_value_str(attr)};
                r = ht_cfg_leaf_value(m, p->path, w, e, ret_error);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int get_queue(ht_pfile *p, const config_setting_t *g, const char *devices, const char *what,
                     char **ret_error) {
        const config_setting_t *q = config_setting_get_member(g, "queue");
        if (!q)
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: 'queue' is missing", p->path, ht_cfg_line(g), what);
        return parse_queue(p, q, devices, what, ret_error);
}

/* block { rotational { queue { scheduler = ...; }; }; non-rotational {
 * ... }; match = ( { kernel = "sdb"; queue { ... }; },
 * { udev = "ATTRS{model}==\"X\""; queue { ... }; } ); } */
static int block_parse_section(ht_pfile *p, const config_setting_t *s, char **ret_error) {
        static const char *const members[] = {"rotational", "non-rotational", "match", NULL};
        static const char *const match_keys[] = {"kernel", "udev", "queue", NULL};
        int r = ht_cfg_want_group(s, members, p->path, "block", ret_error);
        if (r < 0)
                return r;
        for (int i = 0; i < config_setting_length(s); i++) {
                const config_setting_t *m = config_setting_get_elem(s, i);
                const char *name = config_setting_name(m);
                if (!streq(name, "match")) {
                        static const char *const class_members[] = {"queue", NULL};
                        _cleanup_free_ char *what = xasprintf("block %s", name);
                        r = ht_cfg_want_group(m, class_members, p->path, what, ret_error);
                        if (r >= 0)
                                r = get_queue(p, m, name, what, ret_error);
                        if (r < 0)
                                return r;
                        continue;
                }
                r = ht_cfg_want_type(m, CONFIG_TYPE_LIST, p->path, "block match", ret_error);
                if (r < 0)
                        return r;
                for (int j = 0; j < config_setting_length(m); j++) {
                        const config_setting_t *g = config_setting_get_elem(m, j);
                        _cleanup_free_ char *what = xasprintf("block match %d", j + 1);
                        r = ht_cfg_want_group(g, match_keys, p->path, what, ret_error);
                        if (r < 0)
                                return r;
                        const config_setting_t *kn = config_setting_get_member(g, "kernel");
                        const config_setting_t *ud = config_setting_get_member(g, "udev");
                        if (!kn == !ud)
                                return ht_error(ret_error, -EINVAL, "%s:%u: %s: give exactly one of 'kernel' (a name "
                                                "pattern) and 'udev' (a udev match)",
                                                p->path, ht_cfg_line(g), what);
                        const config_setting_t *sel = kn ? kn : ud;
                        _cleanup_free_ char *sw = xasprintf("%s: %s", what, kn ? "kernel" : "udev");
                        r = ht_cfg_want_type(sel, CONFIG_TYPE_STRING, p->path, sw, ret_error);
                        if (r < 0)
                                return r;
                        _cleanup_free_ char *text = xasprintf("%s:%s", kn ? "kernel" : "udev",
                                                              config_setting_get_string(sel));
                        selector check = {0};
                        _cleanup_free_ char *why = NULL;
                        if (selector_parse(text, &check, &why) < 0)
                                return ht_error(ret_error, -EINVAL,
                                                "%s:%u: %s: %s", p->path, ht_cfg_line(sel), sw, why);
                        _cleanup_free_ char *canon = selector_format(&check);
                        selector_done(&check);
                        r = get_queue(p, g, canon, what, ret_error);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

/* A rule's set: devices = "rotational" (the entry's target field, which
 * says which devices as cmdline's says which kernel); key = "queue/...". */
static const ht_backend_field block_rule_fields[] = {
        {.name = "devices", .offset = offsetof(ht_entry, fields[F_DEVICES])},
        {.name = "key", .offset = offsetof(ht_entry, key)},
        {0},
};

static int block_canon_key(ht_resolver *r, const ht_entry *e, const char *what, ht_setting *s,
                           char **ret_value, char **ret_error) {
        _cleanup_free_ char *devs = NULL, *attr = NULL, *why = NULL;
        int k = ht_entry_eval_string(r, &e->fields[F_DEVICES], e, what, "devices", &devs, ret_error);
        if (k >= 0)
                k = ht_entry_eval_string(r, &e->key, e, what, "key", &attr, ret_error);
        if (k < 0)
                return k;
        selector sel = {0};
        if (selector_parse(devs, &sel, &why) < 0)
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: %s", e->file, e->line, what, why);
        _cleanup_free_ char *canon = selector_format(&sel);
        selector_done(&sel);
        if (!strv_contains((char *const *)block_attrs, attr)) {
                const char *close = closest_word(attr, (char *const *)block_attrs);
                return ht_error(ret_error, -EINVAL,
                                "%s:%u: %s: '%s' is not a block attribute hosttune sets (%s, %s, %s, "
                                "%s)%s%s%s", e->file, e->line, what, attr, block_attrs[0], block_attrs[1],
                                block_attrs[2], block_attrs[3], close ? "; did you mean '" : "",
                                close ? close : "", close ? "'?" : "");
        }
        bool numeric = streq(attr, "queue/read_ahead_kb") || streq(attr, "queue/nr_requests");
        if (e->bound != HT_BOUND_EXACT && (!numeric || e->bound == HT_BOUND_RANGE))
                return ht_error(ret_error, -EINVAL,
                                "%s:%u: block %s %s: only queue/read_ahead_kb and queue/nr_requests take a "
                                "bound, at-least or at-most", e->file, e->line, canon, attr);
        s->key = ht_resolver_printf(r, "%s %s", canon, attr);
        return 0;
}

static const char *block_check_value(const char *t) {
        return isempty(t) || strchr(t, '\n') ? "is empty" : NULL;
}

/* setting.block.NAME: the key with '/' and ' ' as '.' */
static char *block_expr_name(const ht_setting *s) {
        char *n = xstrdup(s->key);
        for (char *p = n; *p; p++)
                if (*p == '/' || *p == ' ')
                        *p = '.';
        return n;
}

/* The files its plan writes (ht_backend.files). */
static const char *const block_files[] = {HT_UDEV_RULES, NULL};

const ht_backend ht_backend_block = {
        .id = HT_BK_BLOCK,
        .name = "block",
        .files = block_files,
        .entry_flags = HT_ENTRY_BOUND,
        .key_fields = block_key_fields,
        .rule_fields = block_rule_fields,
        .parse_section = block_parse_section,
        .canon_key = block_canon_key,
        .check_value = block_check_value,
        .expr_name = block_expr_name,
        .plan = block_plan,
};

/* ---- explain block.DEVICE.ATTR (issue 38) ---- */

/* Whether a rule's match token holds for device name (d: its sysfs
 * entry, NULL in an image) in the coldplug "add" event udevd runs at
 * boot: 1, 0, or -1 when hosttune cannot tell (ENV{ID_*} that other
 * rules import, PROGRAM, DRIVERS, ...: *ret_why names the key). */
static int explain_token(const ht_context *c, const char *name, const device *d, const ht_udev_token *t,
                         char **ret_why) {
        bool m;
        if (streq(t->key, "ACTION"))
                m = udev_glob_match(t->value, "add");
        else if (streq(t->key, "SUBSYSTEM") || streq(t->key, "SUBSYSTEMS"))
                m = udev_glob_match(t->value, "block");
        else if (streq(t->key, "ENV") && streq_ptr(t->attr, "DEVTYPE"))
                /* /sys/block holds whole disks */
                m = udev_glob_match(t->value, "disk");
        else if (streq(t->key, "KERNEL"))
                m = udev_glob_match(t->value, name);
        else if (d && (streq(t->key, "ATTR") || streq(t->key, "ATTRS")) && t->attr)
                /* token_match applies != itself */
                return token_match(c, d, t) ? 1 : 0;
        else {
                *ret_why = t->attr ? xasprintf("%s{%s}", t->key, t->attr) : xstrdup(t->key);
                return -1;
        }
        return t->op == HT_UDEV_NOMATCH ? !m : m;
}

int ht_block_explain_boot(const ht_context *c, const char *name, const char *attr, ht_boot_explained *ret) {
        if (isempty(name) || !ht_word_chars(name, "-_.:") || name[0] == '.' ||
            !strv_contains((char *const *)block_attrs, attr))
                return -EINVAL;
        device_list l;
        devices_load(c, &l);
        const device *d = devices_find(&l, name);
        ht_boot_explained e = {.consumer = "systemd-udevd", .soft_winner = -1, .hard_winner = -1, .no_limits = -1};
        if (!d && ht_root_is_live(c))
                strv_pushf(&e.warnings, "/sys/block/%s: no such disk here (or one hosttune never tunes): "
                           "ATTR and ATTRS matches are not evaluated", name);
        size_t nd = 0;
        while (ht_udev_dirs[nd])
                nd++;
        char ***names = xcalloc(nd + 1, sizeof(char **));
        for (size_t k = 0; k < nd; k++)
                ht_list_dir(c, ht_udev_dirs[k], ".rules", &names[k]);
        _cleanup_strv_free_ char **order = ht_udev_order(ht_udev_dirs, (char *const *const *)names);
        for (size_t k = 0; k < nd; k++)
                strv_free(names[k]);
        free(names);
        _cleanup_free_ char *want = xasprintf("ATTR{%s}", attr);
        ssize_t win = -1;
        for (size_t i = 0; order && order[i]; i++) {
                _cleanup_free_ char *target = NULL;
                if (ht_readlink(c, order[i], &target) == 0 && streq(target, "/dev/null")) {
                        strv_push(&e.masked, order[i]);
                        continue;
                }
                _cleanup_free_ char *text = NULL;
                size_t len = 0;
                int k = ht_read_file_nokeep(c, order[i], UDEV_FILE_MAX, &text, &len);
                if (k == -ENOENT)
                        continue;
                if (k < 0) {
                        strv_pushf(&e.warnings, "%s: cannot read it (%s)", order[i], ht_strerror(-k));
                        continue;
                }
                strv_push(&e.files, order[i]);
                _cleanup_(ht_udev_file_freep) ht_udev_file *f = NULL;
                ht_udev_parse(text, len, &f);
                bool gotos = false;
                for (size_t r = 0; r < f->n_rules; r++) {
                        const ht_udev_rule *rule = &f->rules[r];
                        /* the matches: all must hold */
                        int m = 1;
                        _cleanup_free_ char *why = NULL;
                        for (size_t t = 0; t < rule->n_tokens && m != 0; t++) {
                                const ht_udev_token *tk = &rule->tokens[t];
                                if (streq(tk->key, "GOTO"))
                                        gotos = true;
                                if (ht_udev_op_assigns(tk->op) || tk->op == HT_UDEV_REMOVE)
                                        continue;
                                _cleanup_free_ char *w = NULL;
                                int x = explain_token(c, name, d, tk, &w);
                                if (x == 0)
                                        m = 0;
                                else if (x < 0 && !why) {
                                        why = TAKE_PTR(w);
                                        m = -1;
                                }
                        }
                        for (size_t t = 0; t < rule->n_tokens; t++) {
                                const ht_udev_token *tk = &rule->tokens[t];
                                if (!streq(tk->key, "ATTR") || !streq_ptr(attr_canon(tk->attr), attr) ||
                                    !ht_udev_op_assigns(tk->op))
                                        continue;
                                e.a = xrealloc(e.a, (e.n + 1) * sizeof(*e.a));
                                /* ATTR{} is written when its rule is processed
                                 * (udev-rules.c, TK_A_ATTR): the last matching one stays */
                                e.a[e.n] = (ht_boot_assignment){
                                        .path = xstrdup(order[i]), .line = rule->line,
                                        .key = xasprintf("ATTR{%s}", tk->attr),
                                        .value = xstrdup(tk->value),
                                        .note = m > 0 ? xasprintf("matches %s", name)
                                              : m == 0 ? xasprintf("does not match %s", name)
                                                       : xasprintf("may match %s: depends on %s", name, why),
                                };
                                if (m > 0)
                                        win = (ssize_t)e.n;
                                e.n++;
                        }
                }
                if (gotos)
                        strv_pushf(&e.warnings, "%s has GOTO jumps: a rule listed from it may be skipped for %s",
                                   order[i], name);
        }
        if (win >= 0) {
                e.a[win].winner = true;
                for (size_t i = (size_t)win + 1; i < e.n; i++)
                        if (startswith(e.a[i].note, "may match"))
                                strv_pushf(&e.warnings, "%s:%u may set %s later (%s)", e.a[i].path, e.a[i].line,
                                           want, e.a[i].note);
        }
        devices_done(&l);
        *ret = e;
        return 0;
}

bool ht_block_key_reaches(const ht_context *c, const char *key, const char *name, const char *attr) {
        selector s;
        const char *a = NULL;
        _cleanup_free_ char *why = NULL;
        if (key_split(key, &s, &a, &why) < 0)
                return false;
        bool r = false;
        if (streq(a, attr)) {
                device_list l;
                devices_load(c, &l);
                _cleanup_strv_free_ char **t = targets_for(c, &l, &s, attr);
                r = strv_contains(t, name);
                devices_done(&l);
        }
        selector_done(&s);
        return r;
}
