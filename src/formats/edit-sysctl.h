/* sysctl.d files as systemd-sysctl reads them: the parser, the order of
 * the files, the value that wins at boot for a key, and the writer of
 * hosttune's own drop-in. Pure functions over buffers.
 *
 * Rules implemented (systemd src/sysctl/sysctl.c, src/shared/sysctl-util.c
 * and sysctl.d(5), systemd >= 250):
 * - lines end at \n, \r or NUL (read_line(): "\r\n" and "\n\r" are one
 *   end, "\r\r" two); lines are stripped; empty lines and lines starting with '#' or ';'
 *   are comments; "key = value" with blanks around '=' allowed, the value
 *   keeps inner blanks; "-key = value" ignores write failures; "-key"
 *   alone excludes key from glob assignments; other lines are ignored
 *   with a warning;
 * - keys: if the first separator is '.', dots and slashes swap
 *   (net.ipv4.conf.eth0/100.rp_filter); if it is '/', both stay
 *   (net/ipv4/conf/eth0.100/rp_filter). Normalised keys here are the
 *   slash form, as the path under /proc/sys;
 * - files: *.conf in /etc/sysctl.d, /run/sysctl.d, /usr/local/lib/sysctl.d,
 *   /usr/lib/sysctl.d (and /lib/sysctl.d on split-usr systems); a name in
 *   an earlier directory masks the same name in later ones; all are read
 *   sorted by file name regardless of directory; for a key the last
 *   assignment wins; the same value assigned again keeps the first line
 *   (an ordered map: parse_file() drops an equal value, removes and
 *   appends another). systemd does not read /etc/sysctl.conf itself
 *   (since 207): Debian, Ubuntu, RHEL and their kin ship
 *   /etc/sysctl.d/99-sysctl.conf as a link to it, read at that name's
 *   place. procps `sysctl --system` (non-systemd hosts) uses the same
 *   order and then reads /etc/sysctl.conf last;
 * - explicit assignments beat glob assignments (net.ipv4.conf.*.x = 1)
 *   whatever their order (apply_glob_option(): "explicit setting
 *   exists"); globs are written in the map's order, the last writes last.
 * Checked against systemd 252's systemd-sysctl in a private mount
 * namespace by tests/integration/sysctl-order-real.sh. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* hosttune's drop-in: "90-" sorts after distribution and package defaults
 * (10-*, 50-*, 60-*), so hosttune wins over them, and before the
 * administrator's 99-* files (including 99-sysctl.conf -> sysctl.conf),
 * which keep the last word; plan warns when one of them overrides a
 * value hosttune sets. */
#define HT_SYSCTL_DROPIN "/etc/sysctl.d/90-hosttune.conf"
#define HT_SYSCTL_CONF "/etc/sysctl.conf"

/* The sysctl.d directories in precedence order, NULL-terminated. */
extern const char *const ht_sysctl_dirs[];

typedef struct {
        char *key;              /* normalised: "vm/nr_hugepages"; in the file's text */
        char *value;            /* NULL for a "-key" glob exclusion; in the file's text */
        unsigned line;
        bool ignore_failure;    /* "-" prefix */
        bool glob;              /* key holds * ? [ */
} ht_sysctl_entry;

typedef struct {
        ht_sysctl_entry *entries;
        size_t n_entries;
        char **warnings;        /* "LINE: message", lenient mode only */
        char *text;             /* the file's copy, cut into the entries' keys
                                 * and values (one allocation, not two a line) */
} ht_sysctl_file;

/* Skip the lines systemd-sysctl would skip, noting them in warnings,
 * instead of failing on the first one. */
#define HT_SYSCTL_LENIENT 1u

/* Parse one file. -EINVAL with "LINE: message" on a line that is not an
 * assignment, an empty key or control characters (unless lenient); LINE
 * counts lines as systemd-sysctl's messages do. */
int ht_sysctl_parse(const char *content, size_t len, unsigned flags, ht_sysctl_file **ret,
                    char **ret_error);
void ht_sysctl_file_free(ht_sysctl_file *f);
static inline void ht_sysctl_file_freep(ht_sysctl_file **f) { ht_sysctl_file_free(*f); }

/* systemd's normalisation (see above) to the slash form, without a
 * leading slash and with repeated slashes folded. */
char *ht_sysctl_normalize(const char *key);
/* The same into out, which has room for strlen(key) + 1 bytes (the form
 * is never longer) and may be key itself; the length. */
size_t ht_sysctl_normalize_into(const char *key, char *out);
/* The dotted form sysctl(8) prints and files usually use, from any form:
 * "net/ipv4/conf/eth0.100/rp_filter" -> "net.ipv4.conf.eth0/100.rp_filter". */
char *ht_sysctl_dotted(const char *key);
/* Whether key (either form) is one hosttune may read or write: no "." or
 * ".." components, no empty ones, no globs, blanks, '=' or control
 * characters. -EINVAL with a message. */
int ht_sysctl_key_check(const char *key, char **ret_error);
/* "/proc/sys/" + the normalised key, after ht_sysctl_key_check. */
int ht_sysctl_proc_path(const char *key, char **ret, char **ret_error);

/* The files systemd-sysctl reads, in reading order. names[i] lists the
 * entries of ht_sysctl_dirs[i] (NULL or empty when the directory is
 * missing; only "*.conf" names count; any order). With procps set,
 * hidden names count too and /etc/sysctl.conf is appended (sysctl
 * --system). */
char **ht_sysctl_order(char **const *names, bool procps);

typedef struct {
        size_t file;            /* index into the files given */
        unsigned line;
        const char *value;      /* points into the file's entry */
        bool glob;              /* set by a glob entry */
} ht_sysctl_hit;

/* Which entry sets key at boot after files[0..n) (in reading order).
 * Returns 1 and fills *ret, or 0 when nothing sets it (or a "-key"
 * exclusion keeps globs off it). */
int ht_sysctl_effective(const ht_sysctl_file *const *files, size_t n, const char *key, ht_sysctl_hit *ret);

/* The same answers as ht_sysctl_effective for many keys: built once over
 * the files (which must outlive it), O(log n) a lookup instead of a scan of
 * every entry. */
typedef struct ht_sysctl_index ht_sysctl_index;
ht_sysctl_index *ht_sysctl_index_new(const ht_sysctl_file *const *files, size_t n);
void ht_sysctl_index_free(ht_sysctl_index *x);
int ht_sysctl_index_effective(const ht_sysctl_index *x, const char *key, ht_sysctl_hit *ret);
/* The same for a key already normalised (ht_sysctl_normalize): a caller
 * that looks one key up in several indexes normalises it once. */
int ht_sysctl_index_lookup(const ht_sysctl_index *x, const char *norm_key, ht_sysctl_hit *ret);

typedef struct {
        const char *key;
        const char *value;
} ht_sysctl_setting;

/* hosttune's drop-in: the managed header naming the profile, then one
 * "key = value" line a setting, keys in dotted form. -EINVAL for a bad
 * key, a duplicate key, or a value that is empty, has control characters
 * (newlines included) or leading/trailing blanks. */
int ht_sysctl_render(const char *profile, const ht_sysctl_setting *settings, size_t n, char **ret,
                     char **ret_error);

/* /etc/sysctl.conf edited in place, for hosts whose boot reads no other
 * file (RHEL 5's rc.sysinit runs only `sysctl -e -p /etc/sysctl.conf`, so
 * a drop-in would never be applied there): the value of each key's last
 * explicit assignment is replaced, keeping every other byte of the file;
 * keys not assigned yet are appended after a comment naming the profile.
 * Settings are checked as ht_sysctl_render checks them (-EINVAL). */
int ht_sysctl_conf_edit(const char *content, size_t len, const char *profile,
                        const ht_sysctl_setting *settings, size_t n, char **ret, size_t *ret_len,
                        char **ret_error);
