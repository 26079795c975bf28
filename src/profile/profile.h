/* Profiles: libconfig files resolved (inheritance, params, rules) into
 * one list of desired settings, each with where it came from. */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>

#include "arena.h"
#include "bound.h"
#include "context.h"
#include "facts.h"

/* A backend is an index into the registry (backend.h, backends.def). */
typedef enum {
#define HT_BACKEND(id, name) HT_BK_##id,
#include "backends.def"
#undef HT_BACKEND
        _HT_BK_MAX,
} ht_backend_id;

/* The backend's name (backend-lookup.c, from backends.def): "sysctl",
 * "service", ...; NULL: no such id. */
const char *ht_backend_id_to_string(ht_backend_id id);

/* The most key fields a backend has beside its key (limits: domain, type,
 * item). */
#define HT_KEY_FIELDS_MAX 3

/* One desired setting. Keys are canonical per backend (its canon_key,
 * backend.h), for instance:
 *   sysctl     "vm.nr_hugepages" (dotted, whatever the profile wrote)
 *   sysfs      "/sys/kernel/mm/transparent_hugepage/enabled"
 *   block      "rotational queue/scheduler" (SELECTOR ATTR)
 *   cpu        "governor"
 *   limits     "oracle soft memlock"   (domain, type, item set too)
 *   service    "mysqld.service LimitNOFILE" (unit, directive set too)
 *   systemd    "logind.RemoveIPC"      (DAEMON.KEY)
 *   cmdline    "transparent_hugepage"  (value "never"; "" for a bare flag;
 *                                       remove=true to take it away: value ""
 *                                       removes every word with that key, a
 *                                       value only that exact word)
 *   bootloader "default"               (value: the entry title to boot)
 * Values are single-line text: integers in decimal, booleans as 1/0,
 * sysctl strings with whitespace collapsed to single spaces.
 * Its strings are never its own: they live in an arena, the resolver's
 * while it resolves, then the ht_resolved's (ht_resolved.arena), freed
 * with it; ht_setting_done only forgets them. Set one with
 * ht_resolver_strdup/ht_resolver_printf (resolver.h) or ht_arena_*. */
typedef struct {
        ht_backend_id backend;
        char *key;
        char *value;
        bool optional;
        bool required;    /* cmdline: a host whose command line is not its own (a
                           * container, a direct-kernel VM) cannot skip it: error */
        bool remove;
        char *source;     /* "path/oracle.profile:42", "rule NAME (path:line)" or
                           * "--set" (--set sysctl.KEY=VALUE) */
        char *citation;   /* what the file's comment says about the value (its
                           * source: document, section, URL); NULL: none */
        /* The backend's key fields beyond key, as its descriptor names
         * them (ht_backend.key_fields): limits' domain, type and item,
         * service's unit and directive, cmdline's target ("linux", the
         * default, or "xen"), block's target (the devices). NULL: unused. */
        char *fields[HT_KEY_FIELDS_MAX];
        bool boot_only;   /* the running kernel cannot take it (Xen kernel switch):
                           * persist it, do not write it at runtime */
        bool at_least;    /* limits/service: a larger (or unlimited) value on the
                           * host already satisfies it */
        ht_bound bound;   /* sysctl: value is a minimum, maximum or range, not a
                           * target (bound.h); exact by default */
} ht_setting;

/* A key field of setting s by the name its backend gives it ("directive"),
 * or NULL: the backend has no such field, or s leaves it unset. */
const char *ht_setting_field(const ht_setting *s, const char *name);

typedef struct {
        char *name;
        char *value;   /* text form */
        char *source;  /* "file:line" or "--set" */
        char *citation;  /* the comment of the declaration that won; NULL: none */
} ht_param;

/* Optional settings left out because the host lacks what they need (a
 * kernel without the knob, no such unit, no bootloader): not warnings,
 * but listed by show, plan and --json with the reason, so that a host
 * without hugetext is not warned about it on every plan. */
typedef struct {
        char *setting;  /* "sysfs /sys/kernel/mm/...", several joined by ", " */
        char *reason;   /* a sentence that stands alone */
        char *source;   /* where the setting or the rule that dropped it is */
        char *set_by;   /* NULL: optional, the host cannot take it; else a setting the
                         * profile needs that another machine sets (a container's
                         * node, a direct-kernel VM's host): who */
        char *condition; /* the setting's `when`, false or unknown on this host; NULL: none */
} ht_skip;

typedef struct {
        ht_skip *items;
        size_t n;
} ht_skips;

/* Append one entry (copies the strings); an entry equal to one already
 * listed is not added twice. */
void ht_skips_add(ht_skips *l, const char *setting, const char *reason, const char *source);
/* The same for a setting another machine sets (ht_skip.set_by). */
void ht_skips_add_set_by(ht_skips *l, const char *setting, const char *reason, const char *source,
                         const char *set_by);
/* The same for a setting whose `when` does not hold here (ht_skip.condition). */
void ht_skips_add_condition(ht_skips *l, const char *setting, const char *reason, const char *source,
                            const char *condition);
void ht_skips_copy(ht_skips *dst, const ht_skips *src);
/* "optional", "condition" or "set elsewhere": how show and plan label it. */
const char *ht_skip_kind(const ht_skip *s);
void ht_skips_done(ht_skips *l);
/* [{ "setting", "reason", "source" [, "set_by"] [, "condition"] }, ...] */
json_object *ht_skips_to_json(const ht_skips *l);
/* "REASON (SOURCE)", as show and plan print an entry. */
char *ht_skip_format(const ht_skip *s);

typedef struct {
        char *name;
        char *summary;
        char *file;            /* the profile's own file */
        char **chain;          /* resolved inheritance order, parents first */
        ht_param *params;      /* the arrays are malloc'd; their strings in arena */
        size_t n_params;
        ht_setting *settings;
        size_t n_settings;
        char **warnings;       /* rule warnings, conflicts */
        ht_skips skipped;      /* optional settings the host cannot take */
        char **errors;         /* the host cannot take this profile (rule errors):
                                * show prints them and fails, plan copies them
                                * into plan->errors; the rest is still resolved */
        bool reboot_required;  /* a rule asked for a bootloader change */
        /* workload processes found but not used (facts.workload.GROUP.not_used
         * of the workloads the profile's expressions read): a JSON array
         * of {pid, name, user, uid, cgroup, reason, set}; NULL: none */
        json_object *not_used;
        /* issue 37: several workload profiles composed by meaning
         * (compose.h): {"workloads": [...], "settings": [{setting, value,
         * how, why, contributors: [...]}], "hugepages": [...]}; NULL: one
         * workload, nothing composed */
        json_object *composed;
        /* owns the strings of params and settings (built once, freed with
         * the profile by ht_resolved_free): replace one with
         * ht_arena_strdup(), never free it */
        ht_arena arena;
} ht_resolved;

/* Find, load and resolve profile name against facts. sets holds "K=V"
 * strings from --set: a parameter, or "sysctl.KEY=VALUE", which makes
 * that sysctl setting exactly VALUE (source "--set") whatever the profile
 * and the rules say. On error returns -errno and sets *ret_error to a
 * message naming the file and line. Errors of the files themselves
 * (syntax, types, unknown names, cycles, overflow...) fail the call; what
 * the rules find wrong with the host goes to r->errors. The profile and
 * rule directories are c->profile_path and c->rules_path, or the default
 * paths when those are NULL. */
int ht_profile_resolve(const ht_context *c, const ht_facts *facts, const char *name,
                       char *const *sets, ht_resolved **ret, char **ret_error);
/* The same against a facts JSON tree (as ht_facts_to_json makes it). */
int ht_profile_resolve_json(const ht_context *c, json_object *facts, const char *name,
                            char *const *sets, ht_resolved **ret, char **ret_error);

/* Default search paths: /etc/hosttune/{profiles,rules} under the context's
 * root, then HT_DATADIR/{profiles,rules} (the shipped files; the
 * directory HOSTTUNE_DATADIR names, when set to an absolute path). */
int ht_profile_default_path(const ht_context *c, char ***ret);
int ht_rules_default_path(const ht_context *c, char ***ret);

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
/* One entry of ht_resolved.not_used as show and plan print it: the
 * process, why it is not used, the --set that would use it (quoted). */
char *ht_not_used_format(json_object *e);
/* The resolved profile as text for `hosttune show`: params and settings,
 * one a line with their source, then warnings and errors. */
char *ht_resolved_format_text(const ht_resolved *r);
