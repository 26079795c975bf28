/* recommend: which shipped profile fits the host, from facts only. Each
 * workload found (Oracle Database, MySQL/MariaDB, JVM) scores points for
 * its evidence — running processes weigh most, then shared memory,
 * installed units and binaries, then users and config files; the highest
 * score wins, ties go to the database profiles; nothing found is base. */
#pragma once

#include <json-c/json.h>

#include "facts.h"

typedef struct {
        unsigned points;
        char *what;       /* "ora_pmon_ORCL is running" */
        char *source;     /* the file that shows it: "/etc/oratab", "/proc/1234/cmdline" */
        unsigned pid;     /* 0: not about a process */
} ht_evidence;

typedef struct {
        const char *profile;  /* "oracle", "mysql", "jvm" */
        unsigned score;
        ht_evidence *evidence;
        size_t n_evidence;
} ht_candidate;

enum { HT_REC_ORACLE, HT_REC_MYSQL, HT_REC_JVM, _HT_REC_MAX };

typedef struct {
        const char *profile;              /* the recommendation: oracle, mysql, jvm or base */
        unsigned score;
        ht_candidate candidates[_HT_REC_MAX];
        char *why;                        /* why this one, ties and no match explained */
        char **sets;                      /* suggested --set NAME=VALUE for the plan */
} ht_recommendation;

/* Score the workloads the facts show. Never fails. */
void ht_recommend(const ht_facts *f, ht_recommendation *ret);
void ht_recommendation_done(ht_recommendation *r);
json_object *ht_recommendation_to_json(const ht_recommendation *r);
/* "hosttune plan PROFILE --set ..." for the text output */
char *ht_recommendation_command(const ht_recommendation *r);
