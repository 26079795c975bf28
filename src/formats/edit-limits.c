/* limits.conf / limits.d: parse, resolve as pam_limits does, write; see
 * edit-limits.h for the rules and where they come from. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "edit-limits.h"
#include "util.h"

static const char *const items[] = {
        "core", "data", "fsize", "memlock", "nofile", "rss", "stack", "cpu", "nproc", "as",
        "maxlogins", "maxsyslogins", "nonewprivs", "priority", "locks", "sigpending",
        "msgqueue", "nice", "rtprio", NULL,
};

bool ht_limits_item_known(const char *item) {
        return item && strv_contains((char *const *)items, item);
}

void ht_limits_file_free(ht_limits_file *f) {
        if (!f)
                return;
        /* the entries' strings point into text */
        free(f->text);
        free(f->entries);
        strv_free(f->warnings);
        strv_free(f->read_as);
        free(f);
}

static const char *strempty(const char *s) {
        return s ? s : "";
}

static void lowercase(char *s) {
        for (; s && *s; s++)
                *s = tolower((unsigned char)*s);
}

static bool parse_u32(const char *s, size_t n, uint32_t *ret) {
        uint64_t v = 0;
        if (n == 0)
                return false;
        for (size_t i = 0; i < n; i++) {
                if (!isdigit((unsigned char)s[i]))
                        return false;
                v = v * 10 + (s[i] - '0');
                if (v > UINT32_MAX)
                        return false;
        }
        *ret = (uint32_t)v;
        return true;
}

/* pam_limits' parse_uid_range(): "min:max", "min:", ":max", with an
 * optional '@' or '%' in front. Returns 0 when domain is no range, 1 when
 * it is one, -1 when it is a broken one. */
static int parse_range(const char *domain, ht_limits_entry *e) {
        const char *colon = strchr(domain, ':');
        if (!colon)
                return 0;
        const char *r = domain;
        if (*r == '@' || *r == '%')
                r++;
        if (r < colon) {
                if (!parse_u32(r, colon - r, &e->min))
                        return -1;
                e->has_min = true;
        }
        if (colon[1]) {
                if (!parse_u32(colon + 1, strlen(colon + 1), &e->max))
                        return -1;
                e->has_max = true;
        } else if (!e->has_min)
                return -1;
        return 1;
}

static bool is_number(const char *s, bool allow_negative) {
        if (allow_negative && *s == '-')
                s++;
        if (!*s)
                return false;
        for (; *s; s++)
                if (!isdigit((unsigned char)*s))
                        return false;
        return true;
}

/* The values pam_limits' process_limit() accepts for item. */
static bool value_ok(const char *item, const char *value) {
        if (streq(item, "nonewprivs"))
                return streq(value, "0") || streq(value, "1");
        bool signed_item = streq(item, "priority") || streq(item, "nice") ||
                           streq(item, "maxlogins") || streq(item, "maxsyslogins");
        if (!streq(item, "priority") && !streq(item, "nice") &&
            (streq(value, "-1") || streq(value, "-") || streq(value, "unlimited") || streq(value, "infinity")))
                return true;
        return is_number(value, signed_item);
}

/* pam_limits' process_limit() reads a number with strtoul() (strtol()
 * for priority, nice and the login counts) and refuses the value only
 * when no digit was read ("rlimit_value == 0 && value_orig == endptr",
 * Linux-PAM 0.80 to 1.7): "1g" is 1 (KB for memlock), "8192k" 8192,
 * "0x2000" 0, "1 2" 1 (the value is the rest of the line since 1.6, its
 * fourth word before). The length of the number it reads from a value
 * value_ok() refuses, 0 when pam_limits refuses it too (no leading digit). */
static size_t pam_number_prefix(const char *item, const char *value) {
        if (streq(item, "nonewprivs"))
                return 0;
        bool signed_item = streq(item, "priority") || streq(item, "nice") ||
                           streq(item, "maxlogins") || streq(item, "maxsyslogins");
        size_t n = signed_item && value[0] == '-';
        size_t digits = strspn(value + n, "0123456789");
        return digits ? n + digits : 0;
}

static int problem(ht_limits_file *f, unsigned flags, unsigned line, char **ret_error, const char *fmt, ...)
        _printf_(5, 6);

static int problem(ht_limits_file *f, unsigned flags, unsigned line, char **ret_error, const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        _cleanup_free_ char *msg = xvasprintf(fmt, ap);
        va_end(ap);
        return ht_line_problem(&f->warnings, flags & HT_LIMITS_LENIENT, line, msg, ret_error);
}

int ht_limits_parse(const char *content, size_t len, unsigned flags, ht_limits_file **ret,
                    char **ret_error) {
        ht_limits_file *f = xcalloc(1, sizeof(*f));
        size_t cap = 0;   /* of f->entries, grown by doubling */
        /* one copy of the file, cut into lines in place, not a copy per
         * line; a NUL byte inside a line still shows as a short line */
        char *copy = f->text = xmalloc(len + 1);
        if (len)
                memcpy(copy, content, len);
        copy[len] = 0;
        char *p = copy, *end = copy + len;
        unsigned line = 0;
        int r = 0;

        while (p < end) {
                char *nl = memchr(p, '\n', end - p);
                size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
                char *buf = p;
                buf[n] = 0;
                p += n + (nl ? 1 : 0);
                line++;

                if (strlen(buf) != n) {
                        if ((r = problem(f, flags, line, ret_error, "NUL byte")) < 0)
                                goto fail;
                        continue;
                }
                char *hash = strchr(buf, '#');
                if (hash)
                        *hash = 0;
                bool ctl = false;
                for (char *c = buf; *c; c++)
                        ctl = ctl || ((unsigned char)*c < 0x20 && *c != '\t' && *c != '\r') || *c == 0x7f;
                if (ctl) {
                        if ((r = problem(f, flags, line, ret_error, "control character")) < 0)
                                goto fail;
                        continue;
                }
                /* Three blank-separated fields, then the rest of the line,
                 * trimmed, as pam_limits' split() does. */
                char *fields[4] = {};
                size_t nf = 0;
                char *save = NULL;
                for (char *tok; nf < 3 && (tok = strtok_r(nf == 0 ? buf : NULL, " \t\r", &save));)
                        fields[nf++] = tok;
                if (nf == 0)
                        continue;
                if (nf == 3 && save) {
                        char *rest = save + strspn(save, " \t\r");
                        size_t rl = strlen(rest);
                        while (rl > 0 && strchr(" \t\r", rest[rl - 1]))
                                rest[--rl] = 0;
                        if (*rest)
                                fields[nf++] = rest;
                }

                ht_limits_entry e = { .line = line };
                int range = parse_range(fields[0], &e);
                if (range < 0) {
                        if ((r = problem(f, flags, line, ret_error, "invalid uid/gid range \"%s\"", fields[0])) < 0)
                                goto fail;
                        continue;
                }
                if (nf == 2 && fields[1][0] == '-') {
                        e.no_limits = true;
                } else if (nf == 4) {
                        lowercase(fields[1]);
                        lowercase(fields[2]);
                        lowercase(fields[3]);
                        bool login = streq(fields[2], "maxlogins") || streq(fields[2], "maxsyslogins") ||
                                     streq(fields[2], "nonewprivs");
                        /* Debian's "chroot" item (008_modules_pam_limits_chroot:
                         * "ftp - chroot /ftp"): no resource limit, nothing
                         * to compare, and no line pam_limits skips there */
                        if ((flags & HT_LIMITS_LENIENT) && streq(fields[2], "chroot"))
                                continue;
                        if (!ht_limits_item_known(fields[2])) {
                                if ((r = problem(f, flags, line, ret_error, "unknown item \"%s\"", fields[2])) < 0)
                                        goto fail;
                                continue;
                        }
                        if (!login && !streq(fields[1], "soft") && !streq(fields[1], "hard") && !streq(fields[1], "-")) {
                                if ((r = problem(f, flags, line, ret_error, "unknown type \"%s\"", fields[1])) < 0)
                                        goto fail;
                                continue;
                        }
                        if (!value_ok(fields[2], fields[3])) {
                                /* another's file: what pam_limits makes of it,
                                 * which may take precedence over hosttune's */
                                size_t keep = flags & HT_LIMITS_LENIENT ? pam_number_prefix(fields[2], fields[3]) : 0;
                                /* "unlimited extra": Linux-PAM before 1.6 takes
                                 * the fourth word (sscanf "%s%s%s%s": Debian 12's
                                 * 1.5.2, RHEL 9's 1.5.1, Ubuntu 24.04's 1.5.3),
                                 * 1.6 and later the rest of the line, which they
                                 * refuse; read as the older ones and most
                                 * database hosts do, with a warning */
                                size_t word = strcspn(fields[3], " \t\r");
                                if (!keep && (flags & HT_LIMITS_LENIENT) && fields[3][word]) {
                                        char saved = fields[3][word];
                                        fields[3][word] = 0;
                                        bool first_ok = value_ok(fields[2], fields[3]);
                                        fields[3][word] = saved;
                                        if (first_ok) {
                                                strv_pushf(&f->read_as, "%u: %s \"%s\" is read as %.*s, its first word, "
                                                           "by Linux-PAM before 1.6 (Debian 12, RHEL 9, Ubuntu 24.04); "
                                                           "1.6 and later skip the line; write the value alone",
                                                           line, fields[2], fields[3], (int)word, fields[3]);
                                                fields[3][word] = 0;
                                                goto take;
                                        }
                                }
                                if (!keep) {
                                        if ((r = problem(f, flags, line, ret_error, "invalid value \"%s\" for %s",
                                                         fields[3], fields[2])) < 0)
                                                goto fail;
                                        continue;
                                }
                                strv_pushf(&f->read_as, "%u: %s \"%s\" is read by pam_limits as %.*s, the number it "
                                           "starts with; write the number alone", line, fields[2], fields[3],
                                           (int)keep, fields[3]);
                                /* the field is the parse's own copy of the line */
                                fields[3][keep] = 0;
                        }
                take:
                        e.type = fields[1];
                        e.item = fields[2];
                        e.value = fields[3];
                } else {
                        if ((r = problem(f, flags, line, ret_error, "expected <domain> <type> <item> <value>")) < 0)
                                goto fail;
                        continue;
                }

                const char *d = fields[0];
                if (d[0] == '@')
                        e.kind = range ? HT_LIMITS_DOMAIN_GID_RANGE : HT_LIMITS_DOMAIN_GROUP;
                else if (d[0] == '%') {
                        if (range && e.has_min) {
                                if ((r = problem(f, flags, line, ret_error, "ranges are not supported for %%group")) < 0)
                                        goto fail;
                                continue;
                        }
                        e.kind = streq(d, "%") ? HT_LIMITS_DOMAIN_MAXLOGINS_ALL : HT_LIMITS_DOMAIN_MAXLOGINS_GROUP;
                } else if (range)
                        e.kind = HT_LIMITS_DOMAIN_UID_RANGE;
                else
                        e.kind = streq(d, "*") ? HT_LIMITS_DOMAIN_DEFAULT : HT_LIMITS_DOMAIN_USER;
                e.domain = fields[0];
                if (f->n_entries == cap) {
                        cap = cap ? 2 * cap : 16;
                        f->entries = xrealloc(f->entries, cap * sizeof(ht_limits_entry));
                }
                f->entries[f->n_entries++] = e;
        }
        *ret = f;
        return 0;
fail:
        ht_limits_file_free(f);
        return r;
}

char **ht_limits_order(char *const *limitsd_names) {
        char **names = NULL, **files = NULL;
        /* the glob of limits.d for "*.conf", as pam_limits reads them
         * (Linux-PAM 1.5.2's pam_sm_open_session; read_limits_dir since
         * 1.5.3): a "*" never matches a leading dot, so a ".old.conf" set
         * aside is not read */
        for (size_t i = 0; limitsd_names && limitsd_names[i]; i++)
                if (endswith(limitsd_names[i], ".conf") && limitsd_names[i][0] != '.' &&
                    !strchr(limitsd_names[i], '/'))
                        strv_push(&names, limitsd_names[i]);
        if (names)
                qsort(names, strv_length(names), sizeof(char *), strv_sort_cmp);
        strv_push(&files, HT_LIMITS_CONF);
        for (size_t i = 0; names && names[i]; i++)
                strv_pushf(&files, "%s/%s", HT_LIMITS_DIR, names[i]);
        strv_free(names);
        return files;
}

static bool in_range(const ht_limits_entry *e, uint32_t v) {
        if (!e->has_min)        /* ":max" means exactly max */
                return v == e->max;
        return v >= e->min && (!e->has_max || v <= e->max);
}

static bool has_gid(const ht_limits_subject *who, uint32_t gid) {
        for (size_t i = 0; i < who->n_gids; i++)
                if (who->gids[i] == gid)
                        return true;
        return who->gid == gid;
}

/* The class an entry applies with for who, or HT_LIMITS_CLASS_NONE. */
static ht_limits_class entry_class(const ht_limits_entry *e, const ht_limits_subject *who, unsigned flags) {
        bool root_explicit = (flags & HT_LIMITS_ROOT_EXPLICIT) && who->uid == 0;
        switch (e->kind) {
        case HT_LIMITS_DOMAIN_USER:
                return streq(e->domain, who->user) ? HT_LIMITS_CLASS_USER : HT_LIMITS_CLASS_NONE;
        case HT_LIMITS_DOMAIN_UID_RANGE:
                /* Debian's patch leaves uid ranges to root ("0:") */
                return in_range(e, who->uid) ? HT_LIMITS_CLASS_USER : HT_LIMITS_CLASS_NONE;
        case HT_LIMITS_DOMAIN_GROUP:
                return !root_explicit && strv_contains(who->groups, e->domain + 1) ? HT_LIMITS_CLASS_GROUP
                                                                                    : HT_LIMITS_CLASS_NONE;
        case HT_LIMITS_DOMAIN_GID_RANGE:
                /* Debian's patch skips the '@' branch for root, and the
                 * range falls through to the uid branch after it
                 * (027_pam_limits_better_init_allow_explicit_root): for
                 * root "@0:10" is a uid range, a user entry */
                if (root_explicit)
                        return in_range(e, who->uid) ? HT_LIMITS_CLASS_USER : HT_LIMITS_CLASS_NONE;
                if (!e->has_min)
                        return has_gid(who, e->max) ? HT_LIMITS_CLASS_GROUP : HT_LIMITS_CLASS_NONE;
                return in_range(e, who->gid) ? HT_LIMITS_CLASS_GROUP : HT_LIMITS_CLASS_NONE;
        case HT_LIMITS_DOMAIN_MAXLOGINS_GROUP:
                if (root_explicit)
                        return HT_LIMITS_CLASS_NONE;
                if (e->has_max)
                        return has_gid(who, e->max) ? HT_LIMITS_CLASS_ALLGROUP : HT_LIMITS_CLASS_NONE;
                return strv_contains(who->groups, e->domain + 1) ? HT_LIMITS_CLASS_ALLGROUP : HT_LIMITS_CLASS_NONE;
        case HT_LIMITS_DOMAIN_MAXLOGINS_ALL:
                return root_explicit ? HT_LIMITS_CLASS_NONE : HT_LIMITS_CLASS_ALL;
        case HT_LIMITS_DOMAIN_DEFAULT:
                return root_explicit ? HT_LIMITS_CLASS_NONE : HT_LIMITS_CLASS_DEFAULT;
        }
        return HT_LIMITS_CLASS_NONE;
}

/* pam_limits' "<domain> -" matching: user name, @group and ranges only. */
static bool no_limits_matches(const ht_limits_entry *e, const ht_limits_subject *who) {
        switch (e->kind) {
        case HT_LIMITS_DOMAIN_USER:
                return streq(e->domain, who->user);
        case HT_LIMITS_DOMAIN_UID_RANGE:
                return in_range(e, who->uid);
        case HT_LIMITS_DOMAIN_GROUP:
                return strv_contains(who->groups, e->domain + 1);
        case HT_LIMITS_DOMAIN_GID_RANGE:
                return e->has_min ? in_range(e, who->gid) : has_gid(who, e->max);
        default:
                return false;
        }
}

void ht_limits_effective(const ht_limits_file *const *files, size_t n, const ht_limits_subject *who,
                         const char *item, unsigned flags, ht_limits_result *ret) {
        ht_limits_result res = {
                .soft = { .cls = HT_LIMITS_CLASS_NONE },
                .hard = { .cls = HT_LIMITS_CLASS_NONE },
        };
        for (size_t i = 0; i < n; i++)
                for (size_t j = 0; files[i] && j < files[i]->n_entries; j++) {
                        const ht_limits_entry *e = &files[i]->entries[j];
                        if (e->no_limits) {
                                if (no_limits_matches(e, who)) {
                                        res.no_limits = true;
                                        res.no_limits_file = i;
                                        res.no_limits_line = e->line;
                                        *ret = res;
                                        return;
                                }
                                continue;
                        }
                        if (!streq(e->item, item))
                                continue;
                        ht_limits_class cls = entry_class(e, who, flags);
                        if (cls == HT_LIMITS_CLASS_NONE)
                                continue;
                        /* '%' domains only count for maxlogins. */
                        if ((cls == HT_LIMITS_CLASS_ALL || cls == HT_LIMITS_CLASS_ALLGROUP) &&
                            !streq(item, "maxlogins"))
                                continue;
                        ht_limits_hit hit = { true, i, e->line, e->value, cls };
                        bool soft = streq(e->type, "soft") || streq(e->type, "-");
                        bool hard = streq(e->type, "hard") || streq(e->type, "-");
                        if (soft) {
                                if (res.soft.cls < cls)
                                        continue;       /* and, like pam_limits, skip hard too */
                                res.soft = hit;
                        }
                        if (hard && res.hard.cls >= cls)
                                res.hard = hit;
                }
        *ret = res;
}

static bool domain_ok(const char *d) {
        if (streq(d, "*"))
                return true;
        if (*d == '@')
                d++;
        if (!*d || *d == '-')
                return false;
        for (; *d; d++)
                if (!isalnum((unsigned char)*d) && !strchr("_.-", *d))
                        return false;
        return true;
}

int ht_limits_render(const char *profile, const ht_limits_setting *settings, size_t n, char **ret,
                     char **ret_error) {
        if (isempty(profile) || has_control_chars(profile) || strchr(profile, '\t')) {
                *ret_error = xstrdup("invalid profile name for the limits file header");
                return -EINVAL;
        }
        size_t wd = strlen("#<domain>"), wt = strlen("<type>"), wi = strlen("<item>");
        for (size_t i = 0; i < n; i++) {
                const ht_limits_setting *s = &settings[i];
                if (!s->domain || !domain_ok(s->domain))
                        return ht_error(ret_error, -EINVAL, "invalid limits domain \"%s\"", strempty(s->domain));
                if (!s->type || (!streq(s->type, "soft") && !streq(s->type, "hard") && !streq(s->type, "-")))
                        return ht_error(ret_error, -EINVAL,
                                        "invalid limits type \"%s\" (soft, hard or -)", strempty(s->type));
                if (!ht_limits_item_known(s->item))
                        return ht_error(ret_error, -EINVAL, "unknown limits item \"%s\"", strempty(s->item));
                if (!s->value || !value_ok(s->item, s->value) || streq(s->value, "-"))
                        return ht_error(ret_error, -EINVAL,
                                        "invalid value \"%s\" for limits item %s", strempty(s->value), s->item);
                for (size_t j = 0; j < i; j++) {
                        const ht_limits_setting *o = &settings[j];
                        if (streq(o->domain, s->domain) && streq(o->item, s->item) &&
                            (streq(o->type, s->type) || streq(o->type, "-") || streq(s->type, "-"))) {
                                return ht_error(ret_error, -EINVAL,
                                                "limits %s %s is set twice for %s", s->type, s->item, s->domain);
                        }
                }
                wd = strlen(s->domain) > wd ? strlen(s->domain) : wd;
                wt = strlen(s->type) > wt ? strlen(s->type) : wt;
                wi = strlen(s->item) > wi ? strlen(s->item) : wi;
        }
        strbuf out = {};
        strbuf_appendf(&out, "# Managed by hosttune (profile %s). Do not edit; changes are overwritten.\n", profile);
        strbuf_appendf(&out, "%-*s  %-*s  %-*s  %s\n", (int)wd, "#<domain>", (int)wt, "<type>", (int)wi, "<item>",
                       "<value>");
        for (size_t i = 0; i < n; i++)
                strbuf_appendf(&out, "%-*s  %-*s  %-*s  %s\n", (int)wd, settings[i].domain, (int)wt,
                               settings[i].type, (int)wi, settings[i].item, settings[i].value);
        *ret = strbuf_steal(&out);
        return 0;
}
