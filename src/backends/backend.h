/* The backend descriptor: everything about one backend (one a line of
 * backends.def) that the generic code needs, so that a new backend is its
 * own file plus one line in the registry (HACKING.md, "Adding a
 * backend"). Apply, journal and verify stay generic; nothing outside a
 * backend's own file names a particular backend (rules.c looks the
 * bootloader up by name). Backends never know the CLI, rendering or each
 * other: what several share is in backend-common.c and systemd-conf.c.
 * The rooms below the commands reach the descriptors through the lookups
 * here (backend-lookup.c), never through a backend's file. */
#pragma once

#include "context.h"
#include "facts.h"
#include "profile.h"

/* Not plan.h: the profile room includes this header (profile-section.h),
 * and plan.h is above it. */
struct ht_plan;
struct config_setting_t;
struct ht_pfile;
struct ht_resolver;
struct ht_entry;

/* What an entry of a backend may say beyond value and optional. */
enum {
        HT_ENTRY_BOUND = 1 << 0,     /* bound = "at-least", ... (bound.h) */
        HT_ENTRY_REQUIRED = 1 << 1,  /* required = true: no host may skip it */
        HT_ENTRY_REMOVE = 1 << 2,    /* remove = true: take it away */
};

/* A key field of a rule's set or skip (in the spirit of systemd's
 * ConfigTableItem): its name there and where it goes in the entry. */
typedef struct {
        const char *name;   /* "key", "domain", "unit", ... */
        const char *alias;  /* also accepted when name is absent; NULL: none */
        size_t offset;      /* offsetof(ht_entry, key or fields[i]), an ht_spec */
        bool optional;      /* else missing is an error */
} ht_backend_field;

typedef struct ht_backend {
        ht_backend_id id;  /* its index in ht_backends[] */
        const char *name;  /* in settings, plans, journals, rules' backend = "..." */
        /* Its profile section ("services"); NULL: the same as name. */
        const char *section;
        /* Not named by profiles or rules' set/skip: only generic code
         * creates its settings (the bootloader default of a rule). */
        bool internal;
        unsigned entry_flags;  /* HT_ENTRY_* */
        /* Its key fields beside key, NULL-terminated, at most
         * HT_KEY_FIELDS_MAX: the names of ht_entry.fields[] and
         * ht_setting.fields[] in that order, which settings' JSON (show,
         * plans, journals) uses. NULL: none. */
        const char *const *key_fields;
        /* The key fields of a rule's set/skip, in the order they are read;
         * terminated by a NULL name. */
        const ht_backend_field *rule_fields;
        /* Parse the backend's profile section s into p's entries
         * (profile-section.h); -EINVAL with *ret_error naming file and
         * line. NULL: profiles have no such section. */
        int (*parse_section)(struct ht_pfile *p, const struct config_setting_t *s, char **ret_error);
        /* Evaluate the key fields of entry e (ht_entry_eval_string) into
         * s: its key, canonical (ht_setting), and the fields it is made
         * of; check them. *ret_value: a value the key carried (cmdline's
         * KEY=VALUE words), else left NULL. -EINVAL with *ret_error "FILE:
         * LINE: WHAT: ...". NULL: no entry of a file names this backend. */
        int (*canon_key)(struct ht_resolver *r, const struct ht_entry *e, const char *what,
                         ht_setting *s, char **ret_value, char **ret_error);
        /* A key as a user writes it outside files (--set sysctl.KEY=...):
         * 0 when it is one. NULL: none is. */
        int (*check_key)(const char *key);
        bool collapse_ws;  /* string values: runs of whitespace become one space */
        /* Why text (a value as single-line text) cannot be a value of this
         * backend, or NULL when it can. NULL: any text can. */
        const char *(*check_value)(const char *text);
        /* "cmdline (xen) KEY" for messages; NULL: "NAME KEY". */
        char *(*label)(const ht_setting *s);
        /* The name after setting.NAME. in expressions; NULL: the key. */
        char *(*expr_name)(const ht_setting *s);
        /* The line profile show prints; NULL: "NAME     KEY = VALUE". */
        char *(*show_line)(const ht_setting *s);
        /* Settings are command-line words, KEY or KEY=VALUE: verify shows
         * them as such. */
        bool words;
        /* Its file edits take effect at the next boot (the kernel command
         * line): a rollback of them on a live host asks for a reboot. */
        bool boot_effect;
        /* key is the setting that asks the kernel for huge pages
         * (vm.nr_hugepages): apply checks HugePages_Total after writing it
         * and verify judges it by the HugePages check, not the value read
         * back. NULL: none is. */
        bool (*hugepages_key)(const char *key);
        /* Compare the host with the settings of this backend and add to plan
         * the runtime changes, file edits, follow-up actions and warnings.
         * Problems with the host or its files (a required setting the host
         * cannot take, an unparsable file) are added to plan->errors; the
         * return value is -errno only for unexpected failures. NULL: another
         * backend plans these settings (cmdline plans the bootloader's). */
        int (*plan)(const ht_context *c, const ht_facts *f, const ht_resolved *r, struct ht_plan *plan);
        /* The host files its plan may write, as fnmatch(3) patterns
         * (FNM_PATHNAME: a * stays within one directory), NULL-terminated;
         * NULL: it writes none. The journal restores no other file for it
         * (ht_backend_manages_file), and records none either, so a path
         * missing here fails the first apply that writes it, not a
         * rollback years later. */
        const char *const *files;
} ht_backend;

/* The registry, indexed by ht_backend_id, NULL-terminated (backend.c):
 * for the commands only, which walk it and hand it down once, before
 * anything loads a profile or plans, with ht_backend_registry_use. */
extern const ht_backend *const ht_backends[];
/* The registry the lookups below (backend-lookup.c) use: the rooms below
 * the commands reach the descriptors through it and call no backend's
 * file (docs/DESIGN.md, "Rooms"). */
void ht_backend_registry_use(const ht_backend *const *registry);

/* By name ("sysctl"): for the few generic places that need one backend
 * (rules.c's bootloader default, --set sysctl.KEY); NULL: none. */
const ht_backend *ht_backend_by_name(const char *name);
/* Whether setting key of backend b asks for huge pages (hugepages_key). */
bool ht_backend_sets_hugepages(ht_backend_id b, const char *key);
/* Whether path is a file backend (its name) writes: one of its files
 * patterns, or the file a link at such a path (no wildcard) leads to
 * inside the root (ht_edit_target: a sysctl.conf or grub.conf kept
 * elsewhere). What the journal trusts a manifest's file item with
 * (ht_journal_confine); c may be NULL (no link is followed then). */
bool ht_backend_manages_file(const ht_context *c, const char *backend, const char *path);

/* A command a plan runs once its files are in place and that a rollback
 * runs again for the files it restores (ht_plan_add_action's action). The
 * journal keeps the action's name only: what runs is taken from here,
 * never from a manifest. argv NULL: built in (daemon-reload, over D-Bus). */
typedef struct {
        const char *action;
        const char *const *argv;
} ht_follow_up_def;
/* NULL: no such follow-up (a rollback runs nothing for it). */
const ht_follow_up_def *ht_follow_up_get(const char *action);

/* NULL for an id out of range. */
const ht_backend *ht_backend_get(ht_backend_id id);
/* The profile section of a backend: "services" for service. */
const char *ht_backend_section_name(ht_backend_id id);
/* The backends whose entries take flag (HT_ENTRY_*), for the loader's
 * messages: "sysctl, block and limits"; *ret_n (may be NULL) their number. */
char *ht_backends_with_flag(unsigned flag, size_t *ret_n);
/* By name or section name; -EINVAL: none. */
int ht_backend_from_string(const char *s, ht_backend_id *ret);
