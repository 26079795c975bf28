/* limits: pam_limits entries for login sessions in hosttune's own
 * limits.d file. The plan reads every file pam_limits reads, in its
 * order, and reports entries that would take precedence over hosttune's
 * (pam_limits lets a user entry beat a group entry beat "*", whatever
 * the file order). Services are not login sessions: the service backend
 * covers them. */
#include "config.h"

#include <stddef.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

#include "accounts.h"
#include "backend-common.h"
#include "backend.h"
#include "profile-section.h"
#include "edit-limits.h"
#include "edit-unit.h"
#include "bound.h"
#include "util.h"

/* The key fields beside key, as ht_setting.fields[] and ht_entry.fields[]
 * hold them (ht_backend.key_fields). */
enum { F_DOMAIN, F_TYPE, F_ITEM };
static const char *const limits_key_fields[] = {"domain", "type", "item", NULL};

/* Real limits files are a few KB; a million-line one would take seconds
 * and hundreds of MB to check. */
#define LIMITS_FILE_MAX (1u << 20)

typedef struct {
        char **paths;
        ht_limits_file **files;
        size_t n;
        bool borrowed;              /* files are another set's */
        ht_limits_file *ours;       /* hosttune's drop-in as planned, owned */
        bool conf_missing;          /* no /etc/security/limits.conf */
} limits_set;

static void limits_set_done(limits_set *s) {
        for (size_t i = 0; i < s->n && !s->borrowed; i++)
                ht_limits_file_free(s->files[i]);
        ht_limits_file_free(s->ours);
        free(s->files);
        strv_free(s->paths);
}

static void set_push(limits_set *s, const char *path, ht_limits_file *f) {
        s->files = xrealloc(s->files, (s->n + 1) * sizeof(*s->files));
        s->files[s->n++] = f;
        strv_push(&s->paths, path);
}

/* Every file other than hosttune's that pam_limits would read at the next
 * login. Unreadable or unparsable files are skipped leniently, as
 * pam_limits skips bad lines, and plan gets warnings about them. */
static void load_limits(const ht_context *c, limits_set *ret, ht_plan *plan) {
        _cleanup_strv_free_ char **names = NULL;
        ht_list_dir(c, HT_LIMITS_DIR, ".conf", &names);
        _cleanup_strv_free_ char **order = ht_limits_order(names);
        *ret = (limits_set){0};
        for (size_t i = 0; order[i]; i++) {
                _cleanup_free_ char *content = NULL, *err = NULL;
                size_t len = 0;
                if (streq(order[i], HT_LIMITS_DROPIN))
                        continue;
                int k = ht_read_file(c, order[i], LIMITS_FILE_MAX, &content, &len);
                if (k == -ENOENT) {
                        if (streq(order[i], HT_LIMITS_CONF))
                                ret->conf_missing = true;
                        continue;
                }
                if (k < 0) {
                        /* a huge or unreadable file is not read, but not
                         * silently: it may override ours */
                        _cleanup_free_ char *shown = ht_display_path(c, order[i]);
                        ht_plan_warn(plan, "%s: cannot read it (%s): entries there that take precedence "
                                     "over hosttune's are not checked", shown,
                                     k == -EFBIG ? "larger than 1 MiB" : ht_strerror(-k));
                }
                if (k < 0 || !content)
                        continue;
                ht_limits_file *f = NULL;
                if (ht_limits_parse(content, len, HT_LIMITS_LENIENT, &f, &err) < 0)
                        continue;
                /* say which lines were left out of the precedence check */
                if (f->warnings) {
                        _cleanup_free_ char *shown = ht_display_path(c, order[i]);
                        for (size_t w = 0; f->warnings[w]; w++)
                                ht_plan_warn(plan, "%s:%s; pam_limits skips that line too", shown, f->warnings[w]);
                }
                if (f->read_as) {
                        _cleanup_free_ char *shown = ht_display_path(c, order[i]);
                        for (size_t w = 0; f->read_as[w]; w++)
                                ht_plan_warn(plan, "%s:%s", shown, f->read_as[w]);
                }
                set_push(ret, order[i], f);
        }
}

/* others with hosttune's drop-in as planned (dropin) where pam_limits
 * reads it; the other files are borrowed, not read again. */
static void with_dropin(const limits_set *others, const char *dropin, limits_set *ret) {
        *ret = (limits_set){.borrowed = true};
        _cleanup_strv_free_ char **names = NULL;
        size_t dir_len = strlen(HT_LIMITS_DIR);
        for (size_t i = 0; i < others->n; i++)
                if (strncmp(others->paths[i], HT_LIMITS_DIR "/", dir_len + 1) == 0)
                        strv_push(&names, others->paths[i] + dir_len + 1);
        strv_push(&names, strrchr(HT_LIMITS_DROPIN, '/') + 1);
        qsort(names, strv_length(names), sizeof(char *), strv_sort_cmp);
        _cleanup_strv_free_ char **order = ht_limits_order(names);
        for (size_t i = 0; order[i]; i++) {
                if (streq(order[i], HT_LIMITS_DROPIN)) {
                        _cleanup_free_ char *err = NULL;
                        if (ht_limits_parse(dropin, strlen(dropin), HT_LIMITS_LENIENT, &ret->ours, &err) == 0)
                                set_push(ret, order[i], ret->ours);
                        continue;
                }
                for (size_t j = 0; j < others->n; j++)
                        if (streq(others->paths[j], order[i])) {
                                set_push(ret, order[i], others->files[j]);
                                break;
                        }
        }
}

/* Free n strings of l (some may be NULL) and l. */
static void strv_free_n(char **l, size_t n) {
        for (size_t i = 0; l && i < n; i++)
                free(l[i]);
        free(l);
}

/* A user domain's account, looked up once per plan: a profile gives the
 * database owner several limits, and each lookup reads /etc/passwd and
 * /etc/group. */
typedef struct {
        char *name;
        bool exists;
        uint32_t uid, gid;
        char **groups;
        uint32_t *gids;
        size_t n_gids;
} account;

typedef struct {
        account *list;
        size_t n;
} accounts;

static const account *account_of(const ht_context *c, accounts *cache, const char *user) {
        for (size_t i = 0; i < cache->n; i++)
                if (streq(cache->list[i].name, user))
                        return &cache->list[i];
        cache->list = xrealloc(cache->list, (cache->n + 1) * sizeof(account));
        account *a = &cache->list[cache->n++];
        *a = (account){.name = xstrdup(user)};
        a->exists = ht_account_user(c, user, &a->uid, &a->gid) >= 0;
        if (a->exists)
                ht_account_groups_of(c, user, a->gid, &a->groups, &a->gids, &a->n_gids);
        return a;
}

static void accounts_done(accounts *cache) {
        for (size_t i = 0; i < cache->n; i++) {
                free(cache->list[i].name);
                strv_free(cache->list[i].groups);
                free(cache->list[i].gids);
        }
        free(cache->list);
}

/* Debian and Ubuntu (and their derivatives, ID_LIKE=debian), whose
 * pam_limits starts every session from PID 1's limits. */
static bool debian_pam(const ht_facts *f) {
        if (!f)
                return false;
        if (f->os_id && (streq(f->os_id, "debian") || streq(f->os_id, "ubuntu")))
                return true;
        _cleanup_strv_free_ char **like = f->os_id_like ? strv_split(f->os_id_like, " \t") : NULL;
        return strv_contains(like, "debian") || strv_contains(like, "ubuntu");
}

/* pam_limits' flags for a user: Debian's root rule (only lines naming
 * root apply to root) where the root is Debian's; upstream's pam_limits,
 * RHEL's, applies "*" and @group lines to root too (its limits.conf(5)
 * has no such rule: RHEL's 20-nproc.conf gives root a line of its own). */
static unsigned subject_flags(const ht_facts *f, uint32_t uid) {
        return uid == 0 && debian_pam(f) ? HT_LIMITS_ROOT_EXPLICIT : 0;
}

/* Whether limits.conf value a is at least b: unlimited (infinity, -1)
 * is above every number; a value that is not a number meets nothing. */
static bool limit_at_least(const char *a, const char *b) {
        bool ua = streq(a, "unlimited") || streq(a, "infinity") || streq(a, "-1");
        bool ub = streq(b, "unlimited") || streq(b, "infinity") || streq(b, "-1");
        if (ua || ub)
                return ua;
        uint64_t x, y;
        return parse_u64(a, &x) >= 0 && parse_u64(b, &y) >= 0 && x >= y;
}

/* The bound of a limits setting: its bound = ..., or at-least for
 * at_least = true, else exact. */
static ht_bound limit_bound(const ht_setting *s) {
        if (s->bound != HT_BOUND_EXACT)
                return s->bound;
        return s->at_least ? HT_BOUND_AT_LEAST : HT_BOUND_EXACT;
}

/* Whether limits.conf value have meets s's bound (unlimited above every
 * number, so above any range: Oracle's hard stack "at most 32768 KB"). */
static bool limit_meets(const ht_setting *s, const char *have) {
        switch (limit_bound(s)) {
        case HT_BOUND_AT_LEAST:
                return limit_at_least(have, s->value);
        case HT_BOUND_AT_MOST:
                return limit_at_least(s->value, have);
        case HT_BOUND_RANGE: {
                _cleanup_free_ char *lo = NULL, *hi = NULL;
                return ht_bound_range_ends(s->value, &lo, &hi) == 0 && limit_at_least(have, lo) &&
                       limit_at_least(hi, have);
        }
        default:
                return streq(have, s->value);
        }
}

/* The value hosttune's file gives s where the host's files give have
 * (NULL: nothing) and that does not meet the bound: the bound's own
 * value, or for a range the end that have is beyond, the high end when
 * have is unknown (an unset hard stack limit is unlimited, above it). */
static char *limit_target(const ht_setting *s, const char *have) {
        _cleanup_free_ char *lo = NULL, *hi = NULL;
        if (limit_bound(s) != HT_BOUND_RANGE || ht_bound_range_ends(s->value, &lo, &hi) < 0)
                return xstrdup(s->value);
        if (have && !limit_at_least(have, lo))
                return TAKE_PTR(lo);
        return TAKE_PTR(hi);
}

/* Report entries of other files that win over hosttune's for a user
 * domain (the case that matters: the database owner). */
static void check_precedence(const ht_context *c, const ht_facts *f, const ht_setting *s, const char *target,
                             const limits_set *set, accounts *cache, ht_plan *plan) {
        if (s->fields[F_DOMAIN][0] == '@' || s->fields[F_DOMAIN][0] == '*' || s->fields[F_DOMAIN][0] == '%' || strchr(s->fields[F_DOMAIN], ':'))
                return;
        const account *a = account_of(c, cache, s->fields[F_DOMAIN]);
        if (!a->exists) {
                ht_plan_warn(plan, "user %s does not exist on this host (yet); its limits apply once it does",
                             s->fields[F_DOMAIN]);
                return;
        }
        ht_limits_subject who = {
                .user = s->fields[F_DOMAIN], .uid = a->uid, .gid = a->gid, .groups = a->groups, .gids = a->gids,
                .n_gids = a->n_gids,
        };
        ht_limits_result res;
        ht_limits_effective((const ht_limits_file *const *)set->files, set->n, &who, s->fields[F_ITEM],
                            subject_flags(f, a->uid), &res);
        const ht_limits_hit *hits[2] = {NULL, NULL};
        if (streq(s->fields[F_TYPE], "soft") || streq(s->fields[F_TYPE], "-"))
                hits[0] = &res.soft;
        if (streq(s->fields[F_TYPE], "hard") || streq(s->fields[F_TYPE], "-"))
                hits[1] = &res.hard;
        for (size_t i = 0; i < 2; i++) {
                const ht_limits_hit *h = hits[i];
                if (!h || !h->set || streq(set->paths[h->file], HT_LIMITS_DROPIN))
                        continue;
                if (streq(h->value, target) || (limit_bound(s) != HT_BOUND_EXACT && limit_meets(s, h->value)))
                        continue;
                _cleanup_free_ char *shown = ht_display_path(c, set->paths[h->file]);
                ht_plan_warn(plan, "%s:%u takes precedence over hosttune's entry: %s gets %s %s %s, not %s; "
                             "remove or change that line",
                             shown, h->line, s->fields[F_DOMAIN], i == 0 ? "soft" : "hard", s->fields[F_ITEM], h->value, target);
        }
        if (res.no_limits) {
                _cleanup_free_ char *shown = ht_display_path(c, set->paths[res.no_limits_file]);
                ht_plan_warn(plan, "%s:%u exempts %s from all limits: hosttune's entries for it have no effect",
                             shown, res.no_limits_line, s->fields[F_DOMAIN]);
        }
}

/* What the files other than hosttune's give user domain s for each type
 * s sets (soft, hard or both for "-"): *ret_meets whether every one
 * meets s's bound, *ret_hit the entry shown (the hard one for "-"; .set
 * false when none gives a value). A user that does not exist yet has
 * nothing, and neither has one exempt from all limits. */
static void host_gives(const ht_context *c, const ht_facts *f, const ht_setting *s, const limits_set *others,
                       accounts *cache, bool *ret_meets, ht_limits_hit *ret_hit) {
        *ret_meets = false;
        *ret_hit = (ht_limits_hit){0};
        const account *a = account_of(c, cache, s->fields[F_DOMAIN]);
        if (!a->exists)
                return;
        ht_limits_subject who = {
                .user = s->fields[F_DOMAIN], .uid = a->uid, .gid = a->gid, .groups = a->groups, .gids = a->gids,
                .n_gids = a->n_gids,
        };
        ht_limits_result res;
        ht_limits_effective((const ht_limits_file *const *)others->files, others->n, &who, s->fields[F_ITEM],
                            subject_flags(f, a->uid), &res);
        if (res.no_limits)
                return;
        bool soft = streq(s->fields[F_TYPE], "soft") || streq(s->fields[F_TYPE], "-");
        bool hard = streq(s->fields[F_TYPE], "hard") || streq(s->fields[F_TYPE], "-");
        *ret_meets = !((soft && !(res.soft.set && limit_meets(s, res.soft.value))) ||
                       (hard && !(res.hard.set && limit_meets(s, res.hard.value))));
        *ret_hit = hard ? res.hard : res.soft;
}

/* Debian's pam_limits: a session starts from PID 1's limits, not from
 * its caller's ("if the target account has no limit specified in
 * limits.conf we want to use the default, not the current value":
 * 027_pam_limits_better_init_allow_explicit_root reads /proc/1/limits
 * always, as upstream's set_all), the soft nofile held to FD_SETSIZE,
 * 1024 (pam-limits-nofile-fd-setsize-cap; Debian 12's pam 1.5.2-6,
 * seen with runuser: its session took PID 1's 65536 hard nofile and
 * unlimited memlock). 0, or -errno when PID 1's limits cannot be read
 * (an image: the estimate for services stands in). */
static int debian_login_start(const ht_context *c, const char *directive, uint64_t *ret_soft, uint64_t *ret_hard,
                              char **ret_from) {
        _cleanup_free_ char *lim = NULL;
        int r = ht_read_file(c, "/proc/1/limits", 1 << 16, &lim, NULL);
        if (r < 0)
                return r;
        r = ht_proc_limits_parse(lim, directive, ret_soft, ret_hard);
        if (r < 0)
                return r;
        bool capped = streq(directive, "LimitNOFILE") && *ret_soft > 1024;
        if (capped)
                *ret_soft = 1024;
        *ret_from = xstrdup(capped ? "Debian's pam_limits starts a login from PID 1's limits (/proc/1/limits), the "
                                     "soft one held to 1024"
                                   : "Debian's pam_limits starts a login from PID 1's limits (/proc/1/limits)");
        return 0;
}

/* What a login starts from when no limits file sets item for it:
 * pam_limits begins with the limits of the process that runs it (sshd,
 * login, su: its init_limits takes getrlimit() of every item), which
 * that service got from systemd like every service (ht_systemd_default_
 * limit: DefaultLimitX=, systemd's default, the kernel's for nproc);
 * Debian's from PID 1's (debian_login_start). The
 * value for s's type in limits.conf's units (memlock in KiB,
 * "unlimited"), the hard one for "-" as host_gives shows; *ret_meets
 * whether every type s sets meets its bound. NULL when the item is not
 * one of these or nothing is known. */
static char *login_default(const ht_context *c, const ht_facts *f, const ht_setting *s, bool *ret_meets,
                           char **ret_from) {
        static const struct {
                const char *item, *directive;
                uint64_t unit;
        } items[] = {
                {"nofile", "LimitNOFILE", 1}, {"nproc", "LimitNPROC", 1}, {"memlock", "LimitMEMLOCK", 1024},
        };
        *ret_meets = false;
        size_t i = 0;
        while (i < ELEMENTSOF(items) && !streq(items[i].item, s->fields[F_ITEM]))
                i++;
        if (i == ELEMENTSOF(items))
                return NULL;
        uint64_t v[2];
        _cleanup_free_ char *from = NULL;
        if ((!debian_pam(f) || debian_login_start(c, items[i].directive, &v[0], &v[1], &from) < 0) &&
            ht_systemd_default_limit(c, f, items[i].directive, &v[0], &v[1], &from) < 0)
                return NULL;
        char *text[2];
        for (int k = 0; k < 2; k++)
                text[k] = v[k] == HT_LIMIT_INFINITY ? xstrdup("unlimited") : xasprintf("%" PRIu64, v[k] / items[i].unit);
        bool soft = streq(s->fields[F_TYPE], "soft") || streq(s->fields[F_TYPE], "-");
        bool hard = streq(s->fields[F_TYPE], "hard") || streq(s->fields[F_TYPE], "-");
        *ret_meets = (!soft || limit_meets(s, text[0])) && (!hard || limit_meets(s, text[1]));
        *ret_from = xasprintf("no limits file sets it; a login inherits it: %s", from);
        char *out = hard ? text[1] : text[0];
        free(hard ? text[0] : text[1]);
        return out;
}

/* The value hosttune's current file gives domain/type/item, if any. */
static const char *current_value(const ht_limits_file *f, const ht_setting *s) {
        const char *v = NULL;
        for (size_t i = 0; f && i < f->n_entries; i++) {
                const ht_limits_entry *e = &f->entries[i];
                if (e->type && streq(e->domain, s->fields[F_DOMAIN]) && streq(e->type, s->fields[F_TYPE]) && streq(e->item, s->fields[F_ITEM]))
                        v = e->value;
        }
        return v;
}

static int limits_plan(const ht_context *c, const ht_facts *f, const ht_resolved *r, ht_plan *plan) {
        size_t n = ht_settings_count(r, HT_BK_LIMITS);
        _cleanup_free_ char *old = NULL;
        size_t old_len = 0;
        int k = ht_read_optional(c, HT_LIMITS_DROPIN, &old, &old_len);
        if (k < 0) {
                ht_plan_error(plan, "cannot read %s: %s", HT_LIMITS_DROPIN, ht_strerror(-k));
                return 0;
        }
        if (n == 0) {
                ht_plan_own_file(plan, HT_BK_LIMITS, HT_LIMITS_DROPIN, old, old_len, NULL);
                return 0;
        }

        /* What the other files give, for minimums (at_least): a value they
         * already give at or above the profile's is the host's and stays;
         * hosttune's file holds no line for it, which would lower it. */
        limits_set others;
        load_limits(c, &others, plan);
        /* Without limits.conf pam_limits before Linux-PAM 1.5.3 fails
         * the session ("cannot read settings from", PAM_SERVICE_ERR: seen
         * on Debian 12, where runuser says "cannot open session") and sets
         * no limit, limits.d's and hosttune's included; 1.5.3 reads
         * limits.d without it ("pam_limits: don't fail on missing config
         * files"). load_limits' read tells, with no call of its own (a link
         * to nothing fails pam's fopen too). */
        if (others.conf_missing)
                ht_plan_warn(plan, "%s does not exist: pam_limits before Linux-PAM 1.5.3 (Debian 12, RHEL 9) then "
                             "fails every session it is in and sets no limit, hosttune's included; create it (an "
                             "empty file will do)", HT_LIMITS_CONF);
        accounts cache = {0};
        bool *kept = xcalloc(n, sizeof(*kept));
        ht_limits_hit *kept_hit = xcalloc(n, sizeof(*kept_hit));
        char **target = xcalloc(n + 1, sizeof(*target));
        ht_limits_setting *want = xcalloc(n, sizeof(*want));
        char **inherit = xcalloc(n + 1, sizeof(*inherit)), **inherit_from = xcalloc(n + 1, sizeof(*inherit_from));
        size_t nw = 0, ni = 0;
        for (size_t i = 0; i < r->n_settings; i++) {
                const ht_setting *s = &r->settings[i];
                if (s->backend != HT_BK_LIMITS)
                        continue;
                size_t at = ni++;
                ht_limits_hit hit = {0};
                if (limit_bound(s) != HT_BOUND_RANGE && strstr(s->value, "..")) {
                        ht_plan_error(plan, "%s: limits %s: %s is a range's value: it needs bound = \"range\"",
                                      s->source, s->key, s->value);
                        target[at] = xstrdup(s->value);
                        kept[at] = true;
                        continue;
                }
                if (limit_bound(s) != HT_BOUND_EXACT && !strchr("@*%", s->fields[F_DOMAIN][0]) && !strchr(s->fields[F_DOMAIN], ':'))
                        host_gives(c, f, s, &others, &cache, &kept[at], &hit);
                /* no file gives it: what a login starts from is the host's
                 * value, and a minimum it already meets is kept (issue 39:
                 * nproc 15656 was cut to 4096) */
                if (!kept[at] && !hit.set && limit_bound(s) == HT_BOUND_AT_LEAST && account_of(c, &cache, s->fields[F_DOMAIN])->exists) {
                        bool meets = false;
                        inherit[at] = login_default(c, f, s, &meets, &inherit_from[at]);
                        if (inherit[at] && meets) {
                                kept[at] = true;
                                continue;
                        }
                }
                if (kept[at]) {
                        kept_hit[at] = hit;
                        continue;
                }
                target[at] = limit_target(s, hit.set ? hit.value : NULL);
                want[nw++] = (ht_limits_setting){
                        .domain = s->fields[F_DOMAIN], .type = s->fields[F_TYPE], .item = s->fields[F_ITEM], .value = target[at],
                };
        }
        _cleanup_free_ char *content = NULL, *err = NULL;
        k = ht_limits_render(plan->profile, want, nw, &content, &err);
        free(want);
        if (k < 0) {
                ht_plan_error(plan, "%s: %s", HT_LIMITS_DROPIN, err);
                free(kept);
                free(kept_hit);
                strv_free_n(target, n);
                strv_free_n(inherit, n);
                strv_free_n(inherit_from, n);
                accounts_done(&cache);
                limits_set_done(&others);
                return 0;
        }

        _cleanup_(ht_limits_file_freep) ht_limits_file *cur = NULL;
        if (old) {
                _cleanup_free_ char *perr = NULL;
                /* our own file, if someone broke it, is simply rewritten */
                ht_limits_parse(old, old_len, HT_LIMITS_LENIENT, &cur, &perr);
        }
        limits_set set;
        with_dropin(&others, content, &set);
        ni = 0;
        for (size_t i = 0; i < r->n_settings; i++) {
                const ht_setting *s = &r->settings[i];
                if (s->backend != HT_BK_LIMITS)
                        continue;
                size_t at = ni++;
                const char *now = current_value(cur, s);
                if (kept[at] && !kept_hit[at].set && inherit[at]) {
                        ht_change *ch = ht_plan_add_change(plan, HT_BK_LIMITS, s->key, inherit[at], inherit[at]);
                        ch->source = ht_plan_strdup(plan, s->source);
                        ch->outcome = HT_OUTCOME_KEPT;
                        ch->bound = limit_bound(s);
                        ch->bound_value = ht_plan_strdup(plan, s->value);
                        ch->current_from = ht_plan_strdup(plan, inherit_from[at]);
                        continue;
                }
                if (kept[at] && !kept_hit[at].set)
                        continue; /* refused above */
                if (kept[at]) {
                        const ht_limits_hit *h = &kept_hit[at];
                        ht_change *ch = ht_plan_add_change(plan, HT_BK_LIMITS, s->key, h->value, h->value);
                        ch->source = ht_plan_strdup(plan, s->source);
                        ch->outcome = HT_OUTCOME_KEPT;
                        ch->bound = limit_bound(s);
                        ch->bound_value = ht_plan_strdup(plan, s->value);
                        _cleanup_free_ char *shown = ht_display_path(c, others.paths[h->file]);
                        ch->note = ht_plan_printf(plan, "%s:%u gives %s", shown, h->line, h->value);
                        continue;
                }
                if (!streq_ptr(now, target[at])) {
                        ht_change *ch = ht_plan_add_change(plan, HT_BK_LIMITS, s->key, now ? now : inherit[at],
                                                           target[at]);
                        ch->source = ht_plan_strdup(plan, s->source);
                        if (!now && inherit[at])
                                ch->current_from = ht_plan_strdup(plan, inherit_from[at]);
                        if (limit_bound(s) != HT_BOUND_EXACT) {
                                ch->bound = limit_bound(s);
                                ch->bound_value = ht_plan_strdup(plan, s->value);
                        }
                }
                check_precedence(c, f, s, target[at], &set, &cache, plan);
        }
        free(kept);
        free(kept_hit);
        strv_free_n(target, n);
        strv_free_n(inherit, n);
        strv_free_n(inherit_from, n);
        accounts_done(&cache);
        limits_set_done(&set);
        limits_set_done(&others);
        ht_plan_own_file(plan, HT_BK_LIMITS, HT_LIMITS_DROPIN, old, old_len, content);
        return 0;
}

int ht_limits_explain_boot(const ht_context *c, const ht_facts *f, const char *user, const char *item,
                           ht_boot_explained *ret) {
        if (!ht_limits_item_known(item))
                return -EINVAL;
        accounts cache = {0};
        const account *a = account_of(c, &cache, user);
        if (!a->exists) {
                accounts_done(&cache);
                return -ENOENT;
        }
        /* the warnings about the files, through a plan of its own */
        ht_plan *scratch = ht_plan_new("explain");
        limits_set others, set;
        load_limits(c, &others, scratch);
        _cleanup_free_ char *own = NULL;
        size_t own_len = 0;
        if (ht_read_optional(c, HT_LIMITS_DROPIN, &own, &own_len) < 0 || !own)
                own = xstrdup("");
        with_dropin(&others, own, &set);

        ht_boot_explained e = {.consumer = "pam_limits", .limits = true, .soft_winner = -1, .hard_winner = -1,
                               .no_limits = -1};
        ht_limits_subject who = {
                .user = user, .uid = a->uid, .gid = a->gid, .groups = a->groups, .gids = a->gids, .n_gids = a->n_gids,
        };
        ht_limits_result res;
        ht_limits_effective((const ht_limits_file *const *)set.files, set.n, &who, item,
                            subject_flags(f, a->uid), &res);
        for (size_t i = 0; i < set.n; i++) {
                strv_push(&e.files, set.paths[i]);
                for (size_t j = 0; set.files[i] && j < set.files[i]->n_entries; j++) {
                        const ht_limits_entry *x = &set.files[i]->entries[j];
                        if (!x->no_limits && !streq_ptr(x->item, item))
                                continue;
                        bool soft = res.soft.set && res.soft.file == i && res.soft.line == x->line;
                        bool hard = res.hard.set && res.hard.file == i && res.hard.line == x->line;
                        bool none = res.no_limits && res.no_limits_file == i && res.no_limits_line == x->line;
                        /* a "DOMAIN -" line counts where it lifts this user's limits */
                        if (x->no_limits && !none)
                                continue;
                        if (soft)
                                e.soft_winner = (long)e.n;
                        if (hard)
                                e.hard_winner = (long)e.n;
                        if (none)
                                e.no_limits = (long)e.n;
                        e.a = xrealloc(e.a, (e.n + 1) * sizeof(*e.a));
                        e.a[e.n++] = (ht_boot_assignment){
                                .path = xstrdup(set.paths[i]), .line = x->line,
                                .key = x->no_limits ? xasprintf("%s -", x->domain)
                                                    : xasprintf("%s %s %s", x->domain, x->type, x->item),
                                .value = x->value ? xstrdup(x->value) : NULL, .winner = soft || hard || none,
                        };
                }
        }
        for (size_t i = 0; scratch->warnings && scratch->warnings[i]; i++)
                strv_push(&e.warnings, scratch->warnings[i]);
        ht_plan_free(scratch);
        limits_set_done(&set);
        limits_set_done(&others);
        accounts_done(&cache);
        *ret = e;
        return 0;
}

static int limits_parse_section(ht_pfile *p, const config_setting_t *s, char **ret_error) {
        static const char *const keys[] = {"domain", "type", "item", "value", "optional", "at_least", "bound", "when",
                                           NULL};
        int t = config_setting_type(s);
        if (t != CONFIG_TYPE_LIST)
                return ht_error(ret_error, -EINVAL, "%s:%u: limits: expected a list ( {...}, ... ), not %s",
                                p->path, ht_cfg_line(s), ht_cfg_type_name(t));
        for (int i = 0; i < config_setting_length(s); i++) {
                const config_setting_t *m = config_setting_get_elem(s, i);
                _cleanup_free_ char *what = xasprintf("limits entry %d", i + 1);
                int r = ht_cfg_want_group(m, keys, p->path, what, ret_error);
                if (r < 0)
                        return r;
                ht_entry *e = ht_entry_push(&p->entries, &p->n_entries, HT_BK_LIMITS, p->path,
                                         ht_cfg_line(m));
                r = ht_cfg_get_spec(m, "domain", true, p->path, what, &e->fields[F_DOMAIN], ret_error);
                if (r >= 0)
                        r = ht_cfg_get_spec(m, "type", true, p->path, what, &e->fields[F_TYPE], ret_error);
                if (r >= 0)
                        r = ht_cfg_get_spec(m, "item", true, p->path, what, &e->fields[F_ITEM], ret_error);
                if (r >= 0)
                        r = ht_cfg_get_spec(m, "value", true, p->path, what, &e->value, ret_error);
                if (r >= 0)
                        r = ht_cfg_get_bool(m, "optional", p->path, what, &e->optional, &e->has_optional,
                                     ret_error);
                if (r >= 0)
                        r = ht_cfg_get_bool(m, "at_least", p->path, what, &e->at_least, NULL, ret_error);
                if (r >= 0)
                        r = ht_cfg_get_bound(m, p->path, what, e, ret_error);
                if (r >= 0 && e->at_least && e->has_bound && e->bound != HT_BOUND_AT_LEAST) {
                        *ret_error = xasprintf("%s:%u: %s: at_least = true and bound = \"%s\" contradict each other",
                                               p->path, ht_cfg_line(m), what, ht_bound_to_string(e->bound));
                        r = -EINVAL;
                }
                if (r >= 0)
                        r = ht_cfg_get_when(m, p->path, what, &e->when, ret_error);
                if (r < 0)
                        return r;
        }
        return 0;
}

static const ht_backend_field limits_rule_fields[] = {
        {.name = "domain", .offset = offsetof(ht_entry, fields[F_DOMAIN])},
        {.name = "type", .offset = offsetof(ht_entry, fields[F_TYPE])},
        {.name = "item", .offset = offsetof(ht_entry, fields[F_ITEM])},
        {0},
};

static const char *const limit_items[] = {
        "core", "data", "fsize", "memlock", "nofile", "rss", "stack", "cpu", "nproc", "as",
        "maxlogins", "maxsyslogins", "nonewprivs", "priority", "locks", "sigpending", "msgqueue",
        "nice", "rtprio", NULL,
};

static int limits_canon_key(ht_resolver *r, const ht_entry *e, const char *what, ht_setting *s,
                            char **ret_value, char **ret_error) {
        int k = ht_entry_eval_field(r, &e->fields[F_DOMAIN], e, what, "domain", &s->fields[F_DOMAIN], ret_error);
        if (k >= 0)
                k = ht_entry_eval_field(r, &e->fields[F_TYPE], e, what, "type", &s->fields[F_TYPE], ret_error);
        if (k >= 0)
                k = ht_entry_eval_field(r, &e->fields[F_ITEM], e, what, "item", &s->fields[F_ITEM], ret_error);
        if (k < 0)
                return k;
        if (isempty(s->fields[F_DOMAIN]) || !ht_word_chars(s->fields[F_DOMAIN], "_.@%*:-"))
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: '%s' is not a limits.conf domain (a "
                                "user, @group, %%group or *)", e->file, e->line,
                                what, s->fields[F_DOMAIN]);
        if (!streq(s->fields[F_TYPE], "soft") && !streq(s->fields[F_TYPE], "hard") && !streq(s->fields[F_TYPE], "-"))
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: type '%s' must be soft, hard or -",
                                e->file, e->line, what, s->fields[F_TYPE]);
        if (!strv_contains((char *const *)limit_items, s->fields[F_ITEM])) {
                const char *close = closest_word(s->fields[F_ITEM], (char *const *)limit_items);
                return ht_error(ret_error, -EINVAL, "%s:%u: %s: unknown limits item '%s'%s%s%s", e->file,
                                e->line, what, s->fields[F_ITEM],
                                close ? " (did you mean '" : "", close ? close : "",
                                close ? "'?)" : "");
        }
        s->key = ht_resolver_printf(r, "%s %s %s", s->fields[F_DOMAIN], s->fields[F_TYPE], s->fields[F_ITEM]);
        return 0;
}

static const char *limits_check_value(const char *t) {
        int64_t v;
        _cleanup_free_ char *lo = NULL, *hi = NULL;
        /* LOW..HIGH: a range bound's value (bound = "range"; the plan
         * refuses it with any other bound) */
        if (ht_bound_range_ends(t, &lo, &hi) == 0 && parse_i64(lo, &v) >= 0 && parse_i64(hi, &v) >= 0)
                return NULL;
        if (parse_i64(t, &v) < 0 && !streq(t, "unlimited") && !streq(t, "infinity"))
                return "must be an integer, \"unlimited\" or \"infinity\"";
        return NULL;
}

/* setting.limits.DOMAIN.TYPE.ITEM */
static char *limits_expr_name(const ht_setting *s) {
        return xasprintf("%s.%s.%s", s->fields[F_DOMAIN], s->fields[F_TYPE], s->fields[F_ITEM]);
}

/* The files its plan writes (ht_backend.files). */
static const char *const limits_files[] = {HT_LIMITS_DROPIN, NULL};

const ht_backend ht_backend_limits = {
        .id = HT_BK_LIMITS,
        .name = "limits",
        .files = limits_files,
        .key_fields = limits_key_fields,
        .rule_fields = limits_rule_fields,
        .entry_flags = HT_ENTRY_BOUND,
        .parse_section = limits_parse_section,
        .canon_key = limits_canon_key,
        .check_value = limits_check_value,
        .expr_name = limits_expr_name,
        .plan = limits_plan,
};
