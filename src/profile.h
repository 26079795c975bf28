/* Profiles: libconfig files resolved (inheritance, params, rules) into
 * one list of desired settings, each with where it came from. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>

#include "context.h"
#include "facts.h"

typedef enum {
        HT_BK_SYSCTL,
        HT_BK_SYSFS,
        HT_BK_LIMITS,
        HT_BK_SERVICE,
        HT_BK_CMDLINE,
        HT_BK_BOOTLOADER,  /* bootloader default entry (the Xen rule) */
        _HT_BK_MAX,
} ht_backend_id;

const char *ht_backend_id_to_string(ht_backend_id id);

/* One desired setting. Keys are canonical per backend:
 *   sysctl     "vm.nr_hugepages" (dotted, whatever the profile wrote)
 *   sysfs      "/sys/kernel/mm/transparent_hugepage/enabled"
 *   limits     "oracle soft memlock"   (domain, type, item set too)
 *   service    "mysqld.service LimitNOFILE" (unit, directive set too)
 *   cmdline    "transparent_hugepage"  (value "never"; "" for a bare flag;
 *                                       remove=true to take it away)
 *   bootloader "default"               (value: the entry title to boot) */
typedef struct {
        ht_backend_id backend;
        char *key;
        char *value;
        bool optional;
        bool remove;
        char *source;     /* "path/oracle.profile:42" or "rule NAME (path:line)" */
        char *domain, *type, *item;  /* limits */
        char *unit, *directive;      /* service */
        char *target;                /* cmdline: "linux" (default) or "xen" */
} ht_setting;

typedef struct {
        char *name;
        char *value;   /* text form */
        char *source;  /* "file:line" or "--set" */
} ht_param;

typedef struct {
        char *name;
        char *summary;
        char *file;            /* the profile's own file */
        char **chain;          /* resolved inheritance order, parents first */
        ht_param *params;
        size_t n_params;
        ht_setting *settings;
        size_t n_settings;
        char **warnings;       /* rule warnings, optional skips */
        bool reboot_required;  /* a rule asked for a bootloader change */
} ht_resolved;

/* Find, load and resolve profile name against facts. sets holds "K=V"
 * strings from --set. On error returns -errno and sets *ret_error to a
 * message naming the file and line. */
int ht_profile_resolve(const ht_context *c, const ht_facts *facts, const char *name,
                       char *const *sets, ht_resolved **ret, char **ret_error);
void ht_resolved_free(ht_resolved *r);
static inline void ht_resolved_freep(ht_resolved **r) { ht_resolved_free(*r); }

typedef struct {
        char *name, *summary, *file;
} ht_profile_info;

/* Profiles on the profile path, by name; a profile earlier on the path
 * shadows one of the same name later. */
int ht_profile_list(const ht_context *c, ht_profile_info **ret, size_t *ret_n, char **ret_error);
void ht_profile_info_free(ht_profile_info *l, size_t n);

json_object *ht_resolved_to_json(const ht_resolved *r);
