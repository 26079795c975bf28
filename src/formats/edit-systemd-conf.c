#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "edit-systemd-conf.h"
#include "edit-unit.h"
#include "util.h"

static const ht_sdconf_daemon daemons[] = {
        {"logind", "Login"},    /* logind.conf(5) */
        {"system", "Manager"},  /* systemd-system.conf(5) */
};

/* The list-valued keys of logind.conf(5) and systemd-system.conf(5)
 * (systemd 252): "may be specified more than once", an empty assignment
 * resetting the list. */
static const char *const list_keys[][2] = {
        {"logind", "KillOnlyUsers"},        {"logind", "KillExcludeUsers"},
        {"system", "CPUAffinity"},          {"system", "NUMAMask"},
        {"system", "DefaultEnvironment"},   {"system", "ManagerEnvironment"},
};

bool ht_sdconf_key_is_list(const char *daemon, const char *name) {
        for (size_t i = 0; daemon && name && i < ELEMENTSOF(list_keys); i++)
                if (streq(list_keys[i][0], daemon) && streq(list_keys[i][1], name))
                        return true;
        return false;
}

const ht_sdconf_daemon *ht_sdconf_daemon_find(const char *name) {
        for (size_t i = 0; name && i < ELEMENTSOF(daemons); i++)
                if (streq(daemons[i].name, name))
                        return &daemons[i];
        return NULL;
}

/* logind.conf(5): HandlePowerKey= and the other actions */
static const char *const logind_actions[] = {
        "ignore", "poweroff", "reboot", "halt", "kexec", "suspend", "hibernate", "hybrid-sleep",
        "suspend-then-hibernate", "lock", "factory-reset", NULL,
};
static const char *const log_levels[] = {
        "emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
        "0", "1", "2", "3", "4", "5", "6", "7", NULL,
};
static const char *const log_targets[] = {
        "console", "console-prefixed", "journal", "kmsg", "journal-or-kmsg", "syslog",
        "syslog-or-kmsg", "auto", "null", NULL,
};
static const char *const std_outputs[] = {
        "inherit", "null", "tty", "journal", "kmsg", "journal+console", "kmsg+console", NULL,
};
static const char *const show_status[] = {"yes", "no", "auto", "error", NULL};
static const char *const ctrl_alt_del[] = {
        "none", "reboot-force", "poweroff-force", "reboot-immediate", "poweroff-immediate", NULL,
};
static const char *const numa_policies[] = {"default", "preferred", "bind", "interleave", "local", NULL};
static const char *const oom_policies[] = {"continue", "stop", "kill", NULL};
static const char *const status_formats[] = {"name", "description", "combined", NULL};

#define L(n, t) {"logind", n, t, NULL, NULL}
#define LA(n) {"logind", n, HT_SDCONF_WORD, logind_actions, NULL}
#define M(n, t) {"system", n, t, NULL, NULL}
#define MC(n, c) {"system", n, HT_SDCONF_WORD, c, NULL}

/* The single-valued keys of systemd 252's logind.conf(5) and
 * systemd-system.conf(5). List-valued keys (KillOnlyUsers=,
 * DefaultEnvironment=, CPUAffinity=, ...) collect entries over the files
 * instead of taking the last one and are left out (list_keys names
 * them, for the error). */
static const ht_sdconf_key keys[] = {
        L("NAutoVTs", HT_SDCONF_UINT),
        L("ReserveVT", HT_SDCONF_UINT),
        L("KillUserProcesses", HT_SDCONF_BOOL),
        LA("IdleAction"),
        L("IdleActionSec", HT_SDCONF_TIMESPAN),
        L("InhibitDelayMaxSec", HT_SDCONF_TIMESPAN),
        L("UserStopDelaySec", HT_SDCONF_TIMESPAN),
        LA("HandlePowerKey"),
        LA("HandlePowerKeyLongPress"),
        LA("HandleRebootKey"),
        LA("HandleRebootKeyLongPress"),
        LA("HandleSuspendKey"),
        LA("HandleSuspendKeyLongPress"),
        LA("HandleHibernateKey"),
        LA("HandleHibernateKeyLongPress"),
        LA("HandleLidSwitch"),
        LA("HandleLidSwitchExternalPower"),
        LA("HandleLidSwitchDocked"),
        L("PowerKeyIgnoreInhibited", HT_SDCONF_BOOL),
        L("SuspendKeyIgnoreInhibited", HT_SDCONF_BOOL),
        L("HibernateKeyIgnoreInhibited", HT_SDCONF_BOOL),
        L("LidSwitchIgnoreInhibited", HT_SDCONF_BOOL),
        L("RebootKeyIgnoreInhibited", HT_SDCONF_BOOL),
        L("HoldoffTimeoutSec", HT_SDCONF_TIMESPAN),
        L("RuntimeDirectorySize", HT_SDCONF_SIZE),
        L("RuntimeDirectoryInodesMax", HT_SDCONF_SIZE),
        L("InhibitorsMax", HT_SDCONF_UINT),
        L("SessionsMax", HT_SDCONF_UINT),
        /* "Defaults to "yes"." */
        {"logind", "RemoveIPC", HT_SDCONF_BOOL, NULL, "yes"},
        L("StopIdleSessionSec", HT_SDCONF_TIMESPAN),

        MC("LogLevel", log_levels),
        MC("LogTarget", log_targets),
        M("LogColor", HT_SDCONF_BOOL),
        M("LogLocation", HT_SDCONF_BOOL),
        M("LogTime", HT_SDCONF_BOOL),
        M("DumpCore", HT_SDCONF_BOOL),
        M("CrashShell", HT_SDCONF_BOOL),
        M("CrashReboot", HT_SDCONF_BOOL),
        MC("ShowStatus", show_status),
        MC("DefaultStandardOutput", std_outputs),
        MC("DefaultStandardError", std_outputs),
        MC("CtrlAltDelBurstAction", ctrl_alt_del),
        MC("NUMAPolicy", numa_policies),
        M("RuntimeWatchdogSec", HT_SDCONF_TIMESPAN),
        M("RebootWatchdogSec", HT_SDCONF_TIMESPAN),
        M("KExecWatchdogSec", HT_SDCONF_TIMESPAN),
        M("RuntimeWatchdogPreSec", HT_SDCONF_TIMESPAN),
        M("NoNewPrivileges", HT_SDCONF_BOOL),
        MC("StatusUnitFormat", status_formats),
        M("DefaultTimerAccuracySec", HT_SDCONF_TIMESPAN),
        M("DefaultTimeoutStartSec", HT_SDCONF_TIMESPAN),
        M("DefaultTimeoutStopSec", HT_SDCONF_TIMESPAN),
        M("DefaultTimeoutAbortSec", HT_SDCONF_TIMESPAN),
        M("DefaultRestartSec", HT_SDCONF_TIMESPAN),
        M("DefaultDeviceTimeoutSec", HT_SDCONF_TIMESPAN),
        M("DefaultStartLimitIntervalSec", HT_SDCONF_TIMESPAN),
        M("DefaultStartLimitBurst", HT_SDCONF_UINT),
        M("DefaultCPUAccounting", HT_SDCONF_BOOL),
        M("DefaultMemoryAccounting", HT_SDCONF_BOOL),
        M("DefaultTasksAccounting", HT_SDCONF_BOOL),
        M("DefaultIOAccounting", HT_SDCONF_BOOL),
        M("DefaultIPAccounting", HT_SDCONF_BOOL),
        M("DefaultBlockIOAccounting", HT_SDCONF_BOOL),
        M("DefaultTasksMax", HT_SDCONF_TASKS),
        /* DefaultLimitCPU= and DefaultLimitRTTIME= take time spans and
         * DefaultLimitNICE= a priority, which "at least" does not order
         * as counts: exact words, as the service backend keeps them */
        M("DefaultLimitCPU", HT_SDCONF_WORD),
        M("DefaultLimitFSIZE", HT_SDCONF_LIMIT),
        M("DefaultLimitDATA", HT_SDCONF_LIMIT),
        M("DefaultLimitSTACK", HT_SDCONF_LIMIT),
        M("DefaultLimitCORE", HT_SDCONF_LIMIT),
        M("DefaultLimitRSS", HT_SDCONF_LIMIT),
        /* "DefaultLimitNOFILE= defaults to 1024:524288." */
        {"system", "DefaultLimitNOFILE", HT_SDCONF_LIMIT, NULL, "1024:524288"},
        M("DefaultLimitAS", HT_SDCONF_LIMIT),
        M("DefaultLimitNPROC", HT_SDCONF_LIMIT),
        /* "DefaultLimitMEMLOCK= defaults to 8M." */
        {"system", "DefaultLimitMEMLOCK", HT_SDCONF_LIMIT, NULL, "8M"},
        M("DefaultLimitLOCKS", HT_SDCONF_LIMIT),
        M("DefaultLimitSIGPENDING", HT_SDCONF_LIMIT),
        M("DefaultLimitMSGQUEUE", HT_SDCONF_LIMIT),
        M("DefaultLimitNICE", HT_SDCONF_WORD),
        M("DefaultLimitRTPRIO", HT_SDCONF_LIMIT),
        M("DefaultLimitRTTIME", HT_SDCONF_WORD),
        MC("DefaultOOMPolicy", oom_policies),
        M("DefaultOOMScoreAdjust", HT_SDCONF_WORD),
};

const ht_sdconf_key *ht_sdconf_key_find(const char *daemon, const char *name) {
        for (size_t i = 0; daemon && name && i < ELEMENTSOF(keys); i++)
                if (streq(keys[i].daemon, daemon) && streq(keys[i].name, name))
                        return &keys[i];
        return NULL;
}

const char *ht_sdconf_key_closest(const char *daemon, const char *name) {
        const char *names[ELEMENTSOF(keys) + 1];
        size_t n = 0;
        for (size_t i = 0; daemon && i < ELEMENTSOF(keys); i++)
                if (streq(keys[i].daemon, daemon))
                        names[n++] = keys[i].name;
        names[n] = NULL;
        return name && n ? closest_word(name, (char *const *)names) : NULL;
}

/* systemd's parse_boolean(): 1 true, 0 false, -1 neither. */
static int boolean_of(const char *v) {
        static const char *const yes[] = {"1", "yes", "y", "true", "t", "on", NULL};
        static const char *const no[] = {"0", "no", "n", "false", "f", "off", NULL};
        for (size_t i = 0; yes[i]; i++) {
                if (strcasecmp(v, yes[i]) == 0)
                        return 1;
                if (strcasecmp(v, no[i]) == 0)
                        return 0;
        }
        return -1;
}

/* systemd's parse_sec(): "1min 30s", "1.5h", "infinity"; a number
 * without a unit is seconds. In microseconds, UINT64_MAX for infinity. */
static int timespan_usec(const char *v, uint64_t *ret) {
        static const struct {
                const char *suffix;
                uint64_t usec;
        } units[] = {
                /* longest first, so "ms" is not read as "m" then "s" */
                {"seconds", 1000000ULL}, {"second", 1000000ULL}, {"minutes", 60000000ULL},
                {"minute", 60000000ULL}, {"months", 2629800000000ULL}, {"month", 2629800000000ULL},
                {"hours", 3600000000ULL}, {"hour", 3600000000ULL}, {"weeks", 604800000000ULL},
                {"week", 604800000000ULL}, {"years", 31557600000000ULL}, {"year", 31557600000000ULL},
                {"days", 86400000000ULL}, {"day", 86400000000ULL}, {"usec", 1ULL}, {"msec", 1000ULL},
                {"sec", 1000000ULL}, {"min", 60000000ULL}, {"hr", 3600000000ULL}, {"us", 1ULL},
                {"\xc2\xb5s", 1ULL}, {"ms", 1000ULL}, {"s", 1000000ULL}, {"m", 60000000ULL},
                {"h", 3600000000ULL}, {"d", 86400000000ULL}, {"w", 604800000000ULL},
                {"M", 2629800000000ULL}, {"y", 31557600000000ULL},
        };
        while (*v == ' ' || *v == '\t')
                v++;
        if (streq(v, "infinity")) {
                *ret = UINT64_MAX;
                return 0;
        }
        uint64_t total = 0;
        bool any = false;
        const char *p = v;
        while (*p) {
                while (*p == ' ' || *p == '\t')
                        p++;
                if (!*p)
                        break;
                if (!isdigit((unsigned char)*p))
                        return -EINVAL;
                uint64_t whole = 0, frac = 0, scale = 1;
                for (; isdigit((unsigned char)*p); p++) {
                        if (whole > (UINT64_MAX - 9) / 10)
                                return -ERANGE;
                        whole = whole * 10 + (uint64_t)(*p - '0');
                }
                if (*p == '.') {
                        p++;
                        if (!isdigit((unsigned char)*p))
                                return -EINVAL;
                        for (; isdigit((unsigned char)*p); p++)
                                if (scale < 1000000000ULL) {
                                        frac = frac * 10 + (uint64_t)(*p - '0');
                                        scale *= 10;
                                }
                }
                while (*p == ' ' || *p == '\t')
                        p++;
                uint64_t mult = 1000000ULL;
                for (size_t u = 0; u < ELEMENTSOF(units); u++)
                        if (startswith(p, units[u].suffix)) {
                                mult = units[u].usec;
                                p += strlen(units[u].suffix);
                                break;
                        }
                if (*p && *p != ' ' && *p != '\t' && !isdigit((unsigned char)*p))
                        return -EINVAL;
                /* the fraction adds less than one more mult */
                if (whole >= (UINT64_MAX - 1) / mult)
                        return -ERANGE;
                uint64_t part = whole * mult + frac * (mult / scale ? mult / scale : 0);
                if (part > UINT64_MAX - 1 - total)
                        return -ERANGE;
                total += part;
                any = true;
        }
        if (!any)
                return -EINVAL;
        *ret = total;
        return 0;
}

/* "N" with K..E (base 1024), or "N%" when percent is allowed. */
static bool size_valid(const char *v, bool percent) {
        size_t n = strlen(v);
        if (n == 0 || n > 30 || !isdigit((unsigned char)v[0]))
                return false;
        if (percent && v[n - 1] == '%') {
                uint64_t x;
                _cleanup_free_ char *num = xstrndup(v, n - 1);
                return parse_u64(num, &x) == 0 && x <= 100;
        }
        _cleanup_free_ char *num = xstrdup(v);
        if (strchr("KMGTPE", num[n - 1]))
                num[n - 1] = 0;
        uint64_t x;
        return parse_u64(num, &x) == 0;
}

/* The Limit*= directive a DefaultLimit*= key takes the syntax of
 * (edit-unit's byte suffixes go by that name). */
static const char *limit_directive(const ht_sdconf_key *k) {
        return startswith(k->name, "Default") ? k->name + strlen("Default") : k->name;
}

int ht_sdconf_canon_value(const ht_sdconf_key *k, const char *value, char **ret, const char **ret_why) {
        _cleanup_free_ char *v = value ? normalize_ws(value) : NULL;
        uint64_t a, b;
        const char *why = NULL;
        if (isempty(v))
                why = "is empty";
        else if (has_control_chars(v) || strchr(v, '\\'))
                why = "holds characters systemd reads differently (control characters or a backslash)";
        else
                switch (k->type) {
                case HT_SDCONF_BOOL: {
                        int x = boolean_of(v);
                        if (x < 0)
                                why = "must be a boolean (yes or no)";
                        else {
                                free(v);
                                v = xstrdup(x ? "yes" : "no");
                        }
                        break;
                }
                case HT_SDCONF_UINT:
                        if (!isdigit((unsigned char)v[0]) || parse_u64(v, &a) < 0)
                                why = "must be a whole number";
                        break;
                case HT_SDCONF_TIMESPAN:
                        if (timespan_usec(v, &a) < 0)
                                why = "must be a time span (\"90s\", \"5min\", \"infinity\")";
                        break;
                case HT_SDCONF_LIMIT:
                        if (ht_unit_parse_limit(limit_directive(k), v, &a, &b) < 0)
                                why = "must be a limit: a number, \"infinity\" or SOFT:HARD";
                        break;
                case HT_SDCONF_SIZE:
                        if (!size_valid(v, true))
                                why = "must be a size (a number with K, M, G, T suffixes) or a percentage";
                        break;
                case HT_SDCONF_TASKS:
                        if (!streq(v, "infinity") && !size_valid(v, true))
                                why = "must be a number, a percentage or \"infinity\"";
                        else if (!streq(v, "infinity") && strpbrk(v, "KMGTPE"))
                                why = "must be a number, a percentage or \"infinity\"";
                        break;
                case HT_SDCONF_WORD:
                        if (!ht_word_chars(v, "_.:+-"))
                                why = "must be one word";
                        else if (k->choices && !strv_contains((char *const *)k->choices, v))
                                why = "is not one of the values systemd takes for it";
                        break;
                }
        if (why) {
                *ret_why = why;
                return -EINVAL;
        }
        *ret = TAKE_PTR(v);
        return 0;
}

bool ht_sdconf_meets(const ht_sdconf_key *k, const char *value, const char *want) {
        if (!value || !want)
                return false;
        _cleanup_free_ char *cv = NULL, *cw = NULL;
        const char *why;
        if (ht_sdconf_canon_value(k, value, &cv, &why) < 0 || ht_sdconf_canon_value(k, want, &cw, &why) < 0)
                return false;
        uint64_t vs, vh, ws, wh;
        switch (k->type) {
        case HT_SDCONF_LIMIT:
                return ht_unit_parse_limit(limit_directive(k), cv, &vs, &vh) == 0 &&
                       ht_unit_parse_limit(limit_directive(k), cw, &ws, &wh) == 0 && vs >= ws && vh >= wh;
        case HT_SDCONF_TIMESPAN:
                return timespan_usec(cv, &vs) == 0 && timespan_usec(cw, &ws) == 0 && vs == ws;
        default:
                return streq(cv, cw);
        }
}

char *ht_sdconf_raise(const ht_sdconf_key *k, const char *have, const char *want) {
        _cleanup_free_ char *h = NULL, *w = NULL;
        const char *why;
        uint64_t hs, hh, ws, wh;
        if (k->type != HT_SDCONF_LIMIT || !have || ht_sdconf_canon_value(k, have, &h, &why) < 0 ||
            ht_sdconf_canon_value(k, want, &w, &why) < 0 ||
            ht_unit_parse_limit(limit_directive(k), h, &hs, &hh) < 0 ||
            ht_unit_parse_limit(limit_directive(k), w, &ws, &wh) < 0 || (hs <= ws && hh <= wh))
                return xstrdup(want);
        return ht_unit_format_limit(hs > ws ? hs : ws, hh > wh ? hh : wh);
}

int ht_sdconf_effective(const ht_sdconf_file *files, size_t n, const char *section, const char *key,
                        char **ret) {
        int at = -1;
        char *value = NULL;
        for (size_t i = 0; i < n; i++) {
                char *x = NULL;
                if (!files[i].text || ht_unit_value(files[i].text, files[i].len, section, key, &x) <= 0)
                        continue;
                free(value);
                value = x;
                at = (int)i;
        }
        *ret = value;
        return at;
}

int ht_sdconf_shipped_default(const char *text, size_t len, const char *section, const char *key, char **ret) {
        char *found = NULL;
        bool in_section = false;
        size_t klen = strlen(key), slen = strlen(section);
        const char *p = text, *end = text + len;
        while (p < end) {
                const char *nl = memchr(p, '\n', (size_t)(end - p));
                const char *le = nl ? nl : end;
                size_t n = (size_t)(le - p);
                if (n > 0 && p[0] == '[')
                        in_section = n >= slen + 2 && memcmp(p + 1, section, slen) == 0 && p[slen + 1] == ']';
                else if (in_section && n > klen + 2 && p[0] == '#' && memcmp(p + 1, key, klen) == 0 &&
                         p[klen + 1] == '=') {
                        _cleanup_free_ char *v = xstrndup(p + klen + 2, n - klen - 2);
                        char *s = strstrip(v);
                        if (*s && !has_control_chars(s)) {
                                free(found);
                                found = xstrdup(s);
                        }
                }
                p = nl ? nl + 1 : end;
        }
        *ret = found;
        return found ? 1 : 0;
}
