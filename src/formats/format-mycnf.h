/* MySQL/MariaDB option files (my.cnf), as a pure parser: groups, options
 * and the !include / !includedir directives in file order, for the
 * workload facts and their fuzz target. The caller reads the included
 * files through the root context. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Include depth: mysys/my_default.c stops at a recursion level of 10
 * ("if (recursion_level >= 10) return 0"). */
#define HT_MYCNF_MAX_DEPTH 10
#define HT_MYCNF_MAX_FILE (1u << 20)

typedef enum {
        HT_MYCNF_OPTION,
        HT_MYCNF_INCLUDE,      /* !include FILE */
        HT_MYCNF_INCLUDEDIR,   /* !includedir DIR: its *.cnf files */
} ht_mycnf_kind;

typedef struct {
        ht_mycnf_kind kind;
        char *group;    /* lower case, NULL before the first [group] */
        char *name;     /* option: lower case, '-' as '_', "loose_" taken off */
        char *value;    /* option: unquoted, escapes read; NULL for a bare name;
                         * directives: the path */
        unsigned line;
} ht_mycnf_entry;

typedef struct {
        ht_mycnf_entry *entries;
        size_t n;
        char **warnings;  /* "WHERE:LINE: ..." */
} ht_mycnf;

/* Parse one option file; lines that cannot be parsed are warned about
 * and skipped. Never fails. */
void ht_mycnf_parse(const char *buf, size_t len, const char *where, ht_mycnf *ret);
void ht_mycnf_done(ht_mycnf *m);

/* A size as the server takes it: digits with an optional K, M, G, T, P or
 * E (either case), anything after that one letter ignored ("8GB" is 8G).
 * 0 or -EINVAL (-ERANGE beyond 64 bits). */
int ht_mycnf_parse_size(const char *s, uint64_t *ret);
/* A boolean option's value (NULL for a bare name: on). -EINVAL when it
 * is neither ON/OFF, TRUE/FALSE nor 1/0 (case-insensitive), which the
 * server takes for OFF with a warning: *ret is then false. */
int ht_mycnf_parse_bool(const char *s, bool *ret);
