/* systemd unit files and drop-ins (systemd.syntax(7), systemd.unit(5)):
 * the values of a key in a section, and resource-limit values as
 * systemd.exec(5) reads them. Pure text functions, no host access. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A unit name hosttune takes, from a profile or from a process's cgroup:
 * systemd's alphabet (letters, digits, ":-_.\\@"; systemd.unit(5)),
 * at most 255 bytes, a '.' before the type, not starting with '.' or
 * '-'. So it can name no path and holds nothing a shell or a unit file
 * would read specially but the backslash of systemd's \xHH escapes. */
bool ht_unit_name_valid(const char *u);

/* Every assignment of key in [section] of a unit file's text, in order.
 * Lines continue after a trailing backslash; '#' and ';' start comments;
 * an empty assignment ("Key=") resets the list, as systemd does.
 * *ret is NULL when the key is not set. Returns the number of values. */
int ht_unit_values(const char *text, size_t len, const char *section, const char *key, char ***ret);

/* The last assignment of key, the one systemd keeps for single-valued
 * settings: 1 when the text assigns key (*ret NULL for an empty
 * assignment, which resets it to the default), 0 when it does not. */
int ht_unit_value(const char *text, size_t len, const char *section, const char *key, char **ret);

#define HT_LIMIT_INFINITY UINT64_MAX

/* A Limit*= value as systemd 252's rlimit_parse() takes it
 * (src/basic/rlimit-util.c): "infinity", "N" or "SOFT:HARD". Byte limits
 * (LimitAS, LimitCORE, LimitDATA, LimitFSIZE, LimitMEMLOCK,
 * LimitMSGQUEUE, LimitRSS, LimitSTACK) are sizes as parse_size(, 1024)
 * reads them ("64M", "1.5G", "1G 512M", "100B"; E P T G M K, 1024-based);
 * the others counts in any base ("0x400"). Time and nice limits are read
 * as plain counts only. 0 or -EINVAL, -ERANGE. */
int ht_unit_parse_limit(const char *directive, const char *value, uint64_t *ret_soft, uint64_t *ret_hard);

/* Whether systemd keeps value for directive: a Limit*= line it cannot
 * parse, or an empty one, it ignores ("Failed to parse resource value,
 * ignoring", config_parse_rlimit in src/core/load-fragment.c) and the
 * value before stays (an empty one does not reset: systemd 252, seen with
 * its own unit loader). LimitCPU, LimitRTTIME and LimitNICE: any
 * non-empty value. */
bool ht_unit_limit_accepted(const char *directive, const char *value);

/* The value of key in section that systemd keeps from text, key a
 * directive's limit (LimitNOFILE= of [Service], DefaultLimitNOFILE= of
 * [Manager] for "LimitNOFILE"): the last one it accepts
 * (ht_unit_limit_accepted). 1 and *ret, or 0 and NULL. */
int ht_unit_limit_value(const char *text, size_t len, const char *section, const char *key, const char *directive,
                        char **ret);

/* The text of a soft:hard pair: "N" when both are equal, infinity by name. */
char *ht_unit_format_limit(uint64_t soft, uint64_t hard);
