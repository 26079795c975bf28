/* limits.conf and limits.d as pam_limits reads them: the parser, which
 * entry takes effect for a user, and the writer of hosttune's own file.
 * Pure functions over buffers.
 *
 * Rules implemented (Linux-PAM modules/pam_limits/pam_limits.c,
 * limits.conf(5), pam_limits(8)):
 * - "#" starts a comment anywhere; fields are split on blanks:
 *   <domain> <type> <item> <value>; type, item and value are
 *   case-insensitive; "<domain> -" alone means "no limits" for the
 *   matching user and stops pam_limits there (nothing is set at all);
 * - files: /etc/security/limits.conf, then /etc/security/limits.d/ *.conf
 *   sorted by name (strcmp); newer PAM also reads a vendor limits.d whose
 *   names /etc masks;
 * - a domain matches as: the user name or a uid range (user class),
 *   @group or @gid range on the primary gid (group class), * (default
 *   class); %group and % only count for maxlogins. An entry only replaces
 *   a limit set by the same or a weaker class: user beats group beats *,
 *   whatever the order; within a class the later entry wins;
 * - for type "-" pam_limits sets soft then hard and stops early when the
 *   soft limit is held by a stronger class (it then leaves hard alone);
 *   this quirk is reproduced;
 * - Debian and Ubuntu patch pam_limits so that group and * entries do not
 *   apply to root (HT_LIMITS_ROOT_EXPLICIT; limits.conf(5) there: "group
 *   and wildcard limits are not applied to the root user"): uid ranges
 *   still do, and a gid range "@0:10" is taken for a uid range (the patch,
 *   027_pam_limits_better_init_allow_explicit_root, skips the '@' branch
 *   for root and the range falls through to the uid one; seen with
 *   runuser on Debian 12). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* hosttune's file: after the usual package files with numeric prefixes,
 * before an administrator's 99-* overrides; same-class entries in files
 * sorting later (including names that start with a letter, such as
 * oracle-database-preinstall-19c.conf) win and are reported by plan. */
#define HT_LIMITS_DROPIN "/etc/security/limits.d/90-hosttune.conf"
#define HT_LIMITS_CONF "/etc/security/limits.conf"
#define HT_LIMITS_DIR "/etc/security/limits.d"

typedef enum {
        HT_LIMITS_DOMAIN_USER,          /* oracle */
        HT_LIMITS_DOMAIN_UID_RANGE,     /* 1000:2000, 1000:, :1000 */
        HT_LIMITS_DOMAIN_GROUP,         /* @dba */
        HT_LIMITS_DOMAIN_GID_RANGE,     /* @1000:2000, @:54321 */
        HT_LIMITS_DOMAIN_MAXLOGINS_GROUP,  /* %group, %:gid */
        HT_LIMITS_DOMAIN_MAXLOGINS_ALL,    /* % */
        HT_LIMITS_DOMAIN_DEFAULT,       /* * */
} ht_limits_domain_kind;

/* pam_limits' precedence classes, strongest first. */
typedef enum {
        HT_LIMITS_CLASS_USER = 0,
        HT_LIMITS_CLASS_GROUP = 1,
        HT_LIMITS_CLASS_ALLGROUP = 2,
        HT_LIMITS_CLASS_ALL = 3,
        HT_LIMITS_CLASS_DEFAULT = 4,
        HT_LIMITS_CLASS_NONE = 5,
} ht_limits_class;

/* The strings point into the file's text (ht_limits_file). */
typedef struct {
        unsigned line;
        char *domain;           /* as written */
        ht_limits_domain_kind kind;
        bool has_min, has_max;  /* ranges */
        uint32_t min, max;
        char *type;             /* "soft", "hard", "-" (lower case); NULL for a no-limits line */
        char *item;             /* lower case */
        char *value;            /* lower case */
        bool no_limits;         /* "<domain> -" */
} ht_limits_entry;

typedef struct {
        ht_limits_entry *entries;
        size_t n_entries;
        char **warnings;        /* lenient mode: "LINE: message" for skipped lines */
        /* lenient mode: "LINE: message" for lines kept with the value
         * pam_limits reads, not the one written ("1g" is 1) */
        char **read_as;
        char *text;             /* the file's copy, cut into the entries' fields
                                 * (one allocation, not four a line) */
} ht_limits_file;

#define HT_LIMITS_LENIENT 1u

/* Parse one file. Lines pam_limits would skip (wrong field count, bad
 * range, unknown type or item, bad value) are -EINVAL with "LINE:
 * message", or warnings and skipped in lenient mode. */
int ht_limits_parse(const char *content, size_t len, unsigned flags, ht_limits_file **ret,
                    char **ret_error);
void ht_limits_file_free(ht_limits_file *f);
static inline void ht_limits_file_freep(ht_limits_file **f) { ht_limits_file_free(*f); }

/* The files pam_limits reads, in order, given the names in limits.d. */
char **ht_limits_order(char *const *limitsd_names);

/* Whom the limits are for. */
typedef struct {
        const char *user;
        uint32_t uid;
        uint32_t gid;                   /* primary group, for @gid ranges */
        char *const *groups;            /* names of all groups of the user */
        const uint32_t *gids;           /* their gids, n_gids of them */
        size_t n_gids;
} ht_limits_subject;

/* Apply Debian's rule that only entries naming root apply to root. */
#define HT_LIMITS_ROOT_EXPLICIT 1u

typedef struct {
        bool set;
        size_t file;            /* index into the files given */
        unsigned line;
        const char *value;      /* points into that file's entry */
        ht_limits_class cls;
} ht_limits_hit;

typedef struct {
        ht_limits_hit soft, hard;
        /* A "<domain> -" line matched: pam_limits sets no limit at all. */
        bool no_limits;
        size_t no_limits_file;
        unsigned no_limits_line;
} ht_limits_result;

/* What pam_limits would set for item for this subject after files[0..n)
 * (in reading order). */
void ht_limits_effective(const ht_limits_file *const *files, size_t n, const ht_limits_subject *who,
                         const char *item, unsigned flags, ht_limits_result *ret);

/* Whether item is one pam_limits knows. */
bool ht_limits_item_known(const char *item);

typedef struct {
        const char *domain;     /* user, @group or * */
        const char *type;       /* soft, hard or - */
        const char *item;
        const char *value;      /* number, or unlimited; memlock etc. in KB */
} ht_limits_setting;

/* hosttune's file: managed header naming the profile, then aligned
 * columns. -EINVAL for a bad domain, type, item or value (blanks,
 * newlines, '#', non-numbers other than unlimited/infinity/-1). */
int ht_limits_render(const char *profile, const ht_limits_setting *settings, size_t n, char **ret,
                     char **ret_error);
