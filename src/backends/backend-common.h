/* Small pieces every backend uses. */
#pragma once

#include "context.h"
#include "plan.h"
#include "profile.h"

/* The comment at the top of every file hosttune owns. */
char *ht_managed_header(const char *profile, const char *comment_prefix);

/* Read a host file for planning: 0 with *ret NULL when it does not exist,
 * 0 with contents, or -errno. Files over 16 MiB are refused (-EFBIG). */
int ht_read_optional(const ht_context *c, const char *path, char **ret, size_t *ret_len);

/* Whether the context's root has a running kernel behind it (procfs and
 * sysfs present); an image tree does not. */
bool ht_root_is_live(const ht_context *c);

/* The lifecycle of a file a backend owns whole (its drop-in: sysctl.d's
 * 90-hosttune.conf, a tmpfiles.d or udev rules file, a unit's drop-in):
 * old is what the host has (NULL: none), content what the backend's
 * settings make of it. The file is planned with content; content NULL
 * (no setting of the backend left for it) removes a file an earlier
 * profile left (one with hosttune's header: not a link to /dev/null that
 * masks the name). Nothing is planned when old already holds content. */
void ht_plan_own_file(ht_plan *plan, ht_backend_id b, const char *path, const char *old, size_t old_len,
                      const char *content);

/* Settings of one backend, in profile order. */
size_t ht_settings_count(const ht_resolved *r, ht_backend_id id);

/* The host path a symlink at path leads to, followed inside the root
 * (RHEL 8 on EFI: /boot/grub2/grubenv -> ../efi/EFI/redhat/grubenv, the
 * file grub2-editenv really writes). hosttune never writes through a
 * link, so plans edit the target. path itself when it is no symlink or
 * the link cannot be followed safely (apply then refuses it). */
char *ht_follow_host_link(const ht_context *c, const char *path);
/* The same, strictly: the final host path in *ret, "/dev/null" for a link
 * there (a masked unit); -ENOENT, -ELOOP, -EXDEV (a link out of the root
 * or one that cannot be followed safely) otherwise. */
int ht_resolve_host_link(const ht_context *c, const char *path, char **ret);
/* Where a link at host path cur whose target reads target leads,
 * simplified ("/sys/block/../devices/x" is "/sys/devices/x"); -EXDEV for
 * a target that leaves the root. */
int ht_host_link_target(const char *cur, const char *target, char **ret_next);

/* The file to edit for a host file the distribution may ship as a
 * symlink (RHEL: /etc/grub.conf -> ../boot/grub/grub.conf, on UEFI
 * -> ../boot/efi/EFI/redhat/grub.conf; menu.lst -> ./grub.conf;
 * /etc/sysctl.d/99-sysctl.conf -> ../sysctl.conf): path itself when it is
 * no link (or absent), else the regular file the link leads to inside
 * the root, which the plan edits and the journal backs up, so the link
 * stays a link. A link out of the root (-EXDEV), to nothing (-ENOENT), to
 * something that is no regular file (-EINVAL) or into hosttune's state
 * directory or own files (-EPERM) is an error naming the link. */
int ht_edit_target(const ht_context *c, const char *path, char **ret, char **ret_error);

/* Whether the host boots another kernel next: it runs a Xen kernel and a
 * rule made a non-Xen entry the default (30-xen.rules). Settings the
 * running kernel lacks are then for that kernel: persisted, and pending
 * the reboot, not errors. */
bool ht_kernel_switch_pending(const ht_facts *f, const ht_resolved *r);

/* explain: every assignment of one key in the files the host reads at
 * boot, in the consumer's reading order, the one that wins marked. */
typedef struct {
        char *path;        /* host path */
        unsigned line;
        char *key;         /* as the file names it (dotted; a glob stays one) */
        char *value;       /* NULL: a "-key" line keeping globs off it */
        bool glob;
        bool winner;
        char *note;        /* why it does not win, or what it is (NULL: none) */
} ht_boot_assignment;

typedef struct {
        const char *consumer;        /* the program that reads them at boot */
        char **files;                /* every file read, in order */
        char **masked;               /* names masked by a link to /dev/null */
        ht_boot_assignment *a;
        size_t n;
        char **warnings;             /* files that could not be read, lines skipped */
        /* limits: the soft and the hard limit each have a winner (an
         * index into a, -1 for none), and a "-" line may lift them all */
        bool limits;
        long soft_winner, hard_winner;
        long no_limits;              /* the "DOMAIN -" line that wins, -1 none */
        char **names;                /* units: every name of the unit, the real one first */
} ht_boot_explained;

/* sysctl: -EINVAL for a key that is no sysctl name. */
int ht_sysctl_explain_boot(const ht_context *c, const char *key, ht_boot_explained *ret);
void ht_boot_explained_done(ht_boot_explained *e);
/* limits: pam_limits' files for user's item; -ENOENT when the user does
 * not exist, -EINVAL for an item pam_limits does not know. */
int ht_limits_explain_boot(const ht_context *c, const ht_facts *f, const char *user, const char *item,
                           ht_boot_explained *ret);
/* A unit's directive: the unit file and its drop-ins (under every name of
 * the unit) in systemd's order; masked lists the drop-ins a same-named
 * one earlier on the load path hides. -EINVAL for a bad unit name or a
 * directive hosttune does not manage, -ENOENT no such unit, -ESHUTDOWN
 * masked. */
int ht_unit_explain_boot(const ht_context *c, const char *unit, const char *directive, ht_boot_explained *ret);
/* The start gate (issue 37): a service setting of this directive (value
 * warn or refuse) becomes the unit's drop-in line ExecStartPre=COMMAND
 * with ht_gate_command's COMMAND: the prefixes, bin (the hosttune the
 * root has; NULL: configure's sbindir's) and `gate [--refuse] UNIT`.
 * backend-service.c. */
#define HT_GATE_DIRECTIVE "StartGate"
char *ht_gate_command(const char *mode, const char *unit, const char *bin);
/* Every name of the unit name stands for, the real one first, then its
 * aliases (links in the load path, [Install] Alias=), as the service
 * backend resolves them for its drop-ins. 0, -ENOENT no such unit,
 * -ESHUTDOWN masked, -EINVAL not a unit name. */
int ht_unit_names(const ht_context *c, const char *name, char ***ret_names);
/* The value of a Limit* directive systemd gives unit from its files: the
 * last one of the unit file and its drop-ins, else what every service
 * gets (ht_systemd_default_limit), as SOFT:HARD or one value; *ret_from
 * names the file or the default. 0 or -errno. backend-service.c. */
int ht_unit_effective_limit(const ht_context *c, const ht_facts *f, const char *unit, const char *directive,
                            char **ret_value, char **ret_from);
/* A sysfs attribute: the tmpfiles.d "w" lines for path in
 * systemd-tmpfiles' order, the first one winning. -EINVAL for a path
 * that is not a plain one under /sys. */
int ht_sysfs_explain_boot(const ht_context *c, const char *path, ht_boot_explained *ret);
/* (systemd-conf.c) The soft and hard value of a resource limit in a
 * /proc/PID/limits text, for a systemd directive ("LimitNOFILE": the "Max open files"
 * row); HT_LIMIT_INFINITY for "unlimited". 0, -EINVAL (no such row),
 * -ENODATA (row absent), -EBADMSG. */
int ht_proc_limits_parse(const char *text, const char *directive, uint64_t *ret_soft, uint64_t *ret_hard);

/* What systemd gives a service whose unit sets no value for directive
 * ("LimitNOFILE"): DefaultLimitX= of system.conf and its drop-ins, else
 * systemd's compiled default for the version the root has, else the
 * kernel's as PID 1 has it. *ret_from says which, for the plan. 0 or
 * -errno (-EINVAL: not a limit). backend-systemd.c. */
int ht_systemd_default_limit(const ht_context *c, const ht_facts *f, const char *directive, uint64_t *ret_soft,
                             uint64_t *ret_hard, char **ret_from);
/* A kernel command-line parameter (cmdline-explain.c): the words for key
 * in every file the host's bootloader builds the next boot's command line
 * from, in the order it builds it (GRUB 2: /etc/default/grub and grub.d,
 * then grub.cfg; BLS: the default entry's options and grubenv's
 * kernelopts; legacy GRUB: the default entry's kernel line), the last
 * word of the line GRUB boots winning. -EINVAL for a key that is no
 * parameter name. */
/* A block device's queue attribute (backend-block.c): every ATTR{attr}
 * assignment of the udev rules files in udevd's order, each noted as
 * matching the device, not, or maybe (a key hosttune cannot evaluate);
 * the last matching one wins. -EINVAL for a bad name or an attribute
 * hosttune does not manage. */
int ht_block_explain_boot(const ht_context *c, const char *name, const char *attr, ht_boot_explained *ret);
/* Whether the block setting key ("SELECTOR ATTR") reaches name's attr. */
bool ht_block_key_reaches(const ht_context *c, const char *key, const char *name, const char *attr);
struct ht_facts;
int ht_cmdline_explain_boot(const ht_context *c, const struct ht_facts *f, const char *key, ht_boot_explained *ret);
