/* systemd's own configuration files: logind.conf ([Login]) and the
 * manager's system.conf ([Manager]), each a main file plus drop-ins (logind.conf(5), systemd-system.conf(5)). The lines are read
 * by edit-unit's parser, as systemd's config_parse() reads units and
 * these files alike; this module adds what is theirs: the merge of main
 * file and drop-ins in systemd's order, and the known keys with their
 * value types. Pure text functions, no host access. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* One configuration file systemd reads, by its profile name ("logind",
 * "system"): /etc/systemd/NAME.conf and NAME.conf.d, section. The user
 * managers' user.conf is not one: its settings reach only services of
 * user sessions, which no profile tunes. */
typedef struct {
        const char *name;
        const char *section;  /* "Login", "Manager" */
} ht_sdconf_daemon;

/* By profile name; NULL: none. */
const ht_sdconf_daemon *ht_sdconf_daemon_find(const char *name);

typedef enum {
        HT_SDCONF_BOOL,      /* canonical "yes"/"no" */
        HT_SDCONF_UINT,      /* a decimal count */
        HT_SDCONF_TIMESPAN,  /* "90s", "1min 30s", "infinity"; a bare number is seconds */
        HT_SDCONF_LIMIT,     /* an rlimit, "N", "SOFT:HARD" or "infinity": a minimum */
        HT_SDCONF_WORD,      /* one word: of choices when the key lists them */
        HT_SDCONF_SIZE,      /* bytes with K, M, G, T, P, E (base 1024), or N% */
        HT_SDCONF_TASKS,     /* a count, N% or "infinity" */
} ht_sdconf_type;

typedef struct {
        const char *daemon;   /* ht_sdconf_daemon.name */
        const char *name;     /* "RemoveIPC" */
        ht_sdconf_type type;
        const char *const *choices;  /* WORD: the accepted words; NULL: any word */
        /* The value systemd uses when no file sets the key, as its man
         * page documents it; NULL: none documented (or the kernel's). */
        const char *dflt;
} ht_sdconf_key;

/* The key of daemon named name (case as systemd: exact); NULL: unknown. */
const ht_sdconf_key *ht_sdconf_key_find(const char *daemon, const char *name);
/* The known key nearest to name, for "did you mean"; NULL: none close. */
const char *ht_sdconf_key_closest(const char *daemon, const char *name);
/* Whether name is one of the daemon's list-valued keys (KillOnlyUsers=,
 * DefaultEnvironment=, ...), which collect their assignments over the
 * files, an empty one clearing the list: not settable as one value. */
bool ht_sdconf_key_is_list(const char *daemon, const char *name);

/* value in the form hosttune writes and compares: booleans as yes/no
 * (systemd's parse_boolean words), runs of blanks as one space, the rest
 * as written. 0 with *ret, or -EINVAL with *ret_why (static text: "must
 * be a boolean (yes or no)", ...). */
int ht_sdconf_canon_value(const ht_sdconf_key *k, const char *value, char **ret, const char **ret_why);

/* Whether the host's value (canonical or as a file has it; NULL: unknown,
 * which meets nothing) satisfies want: a LIMIT field by field at
 * least (a larger or infinite value already does), a TIMESPAN the same
 * length of time, others the same canonical text. */
bool ht_sdconf_meets(const ht_sdconf_key *k, const char *value, const char *want);

/* For a LIMIT: want raised field by field to what have (NULL: none)
 * already allows, so a minimum never lowers the host. Other types: want. */
char *ht_sdconf_raise(const ht_sdconf_key *k, const char *have, const char *want);

/* One file of a configuration, in the order systemd reads them: the main
 * file first, then the drop-ins sorted by file name. */
typedef struct {
        const char *path;
        const char *text;
        size_t len;
} ht_sdconf_file;

/* The last assignment of key in [section] over files[0..n), the one
 * systemd keeps: the index of the file that made it, or -1 when none does
 * (the default holds). *ret gets the value, NULL for an empty assignment
 * ("Key=", which resets the key to its default). */
int ht_sdconf_effective(const ht_sdconf_file *files, size_t n, const char *section, const char *key,
                        char **ret);

/* The compiled-in default a main file shows: systemd ships NAME.conf with
 * every key commented out at its default ("Entries in this file show the
 * compile time defaults", "#RemoveIPC=yes"), and a distribution that
 * changes a default changes the line (RHEL 8 and 9: "#RemoveIPC=no"). 1
 * with the last "#Key=value" of [section] in *ret, 0 when there is none. */
int ht_sdconf_shipped_default(const char *text, size_t len, const char *section, const char *key, char **ret);
