/* What the bootloader kinds of the cmdline backend share (op lists, the
 * file edits in progress, the command lines each boot entry gets) and
 * each kind's planner: one file a kind (cmdline-grub2.c, cmdline-bls.c,
 * cmdline-legacy.c, cmdline-none.c, cmdline-image.c), each on
 * cmdline-common.c only; backend-cmdline.c, the backend itself, picks the
 * kind. Not for other rooms. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "backend.h"
#include "edit-cmdline.h"
#include "facts.h"
#include "plan.h"

typedef struct {
        ht_cmdline_op *ops;
        const ht_setting **settings;
        size_t n;
} op_list;

/* A file edit in progress: the backend may edit the same file twice
 * (GRUB_CMDLINE_LINUX and _DEFAULT in one file). */
typedef struct {
        char *path;
        char *old;
        size_t old_len;
        char *cur;
        size_t cur_len;
        /* what cur parses to, as the editor that wrote it gave it (one
         * reference, dropped by cur_parsed_kind), so that reading the
         * edit back does not parse it again; NULL: not kept (the host's
         * own bytes: the context keeps their parse) */
        void *cur_parsed;
        const ht_parsed_kind *cur_parsed_kind;
} pending_file;

typedef struct {
        pending_file *files;
        size_t n;
} pending_set;

/* The command lines the next boot gets, read back from the edited files:
 * one word list per boot entry (GRUB 2 defaults: the one line
 * grub-mkconfig builds). An op is met only when every list satisfies it;
 * none at all (a menu without entries) meets nothing, and why_none says
 * why. */
typedef struct {
        char ***lists;
        size_t n;
        char *why_none;
        bool known;     /* false: not computed (an edit failed) */
        /* an entry's line is not known (shell code): nothing is met,
         * why_none says why, whatever the lists */
        bool unknown;
} boot_targets;

void cmdline_op_list_add(op_list *l, ht_cmdline_op op, const ht_setting *s);
void cmdline_op_list_done(op_list *l);
void cmdline_file_error(const ht_context *c, ht_plan *plan, const char *path, const char *sep, const char *msg);
pending_file *cmdline_pending_get(const ht_context *c, pending_set *set, const char *path, ht_plan *plan);
void cmdline_pending_replace(pending_file *p, char *content, size_t len);
/* cmdline_pending_replace with the parse of content (one reference,
 * taken over; NULL: none). */
void cmdline_pending_replace_parsed(pending_file *p, char *content, size_t len, void *parsed,
                                    const ht_parsed_kind *kind);
size_t cmdline_pending_flush(pending_set *set, ht_plan *plan);
bool cmdline_word_present(char *const *words, const char *key);
void cmdline_targets_add(boot_targets *t, char **words);
void cmdline_targets_none(boot_targets *t, char *why);
/* One entry whose line only shell code would give: nothing is met. */
void cmdline_targets_unknown(boot_targets *t, char *why);
void cmdline_targets_done(boot_targets *t);
bool cmdline_targets_met(const boot_targets *t, const ht_cmdline_op *op);
const char *cmdline_pending_content(const pending_set *set, const char *path, size_t *ret_len);
ht_change *cmdline_add_unplanned_word(ht_plan *plan, const ht_setting *s, char **ret_word, char **ret_what);

/* kernel-install's command line for the kernels installed later
 * (systemd's 90-loaderentry.install, RHEL 9's 20-grub.install):
 * /etc/kernel/cmdline, else /usr/lib/kernel/cmdline, else the running
 * kernel's /proc/cmdline. The first of the two files that exists, edited
 * with ops into /etc/kernel/cmdline (the one in /usr is the
 * distribution's: a copy in /etc takes over from it). Returns the line
 * it gives, NULL when neither file exists or on an error (in the plan). */
char *cmdline_plan_kernel_cmdline(const ht_context *c, const op_list *ops, pending_set *edits, ht_plan *plan);

/* One planning of the words for the host's bootloader kind: what each
 * kind's planner (cmdline_kind_*) reads and fills. */
typedef struct {
        const ht_context *c;
        const ht_facts *f;
        const op_list *linux_ops, *xen_ops;
        const ht_setting *default_req;  /* bootloader default, or NULL */
        pending_set *edits;             /* the files edited so far */
        ht_plan *plan;
        boot_targets *lt, *xt;          /* what the edited files give each boot entry: Linux, Xen */
        bool regenerate;                /* set: grub.cfg is to be made again from the edited files */
} cmdline_job;

/* The planner of one bootloader kind; backend-cmdline.c's table of kinds
 * picks the host's. */
typedef void (*cmdline_kind_plan)(cmdline_job *j);

/* hosttune's own defaults file: Debian's grub-mkconfig sources
 * /etc/default/grub.d/ *.cfg after /etc/default/grub (the file the GRUB
 * package's postinst creates from its template, then runs update-grub),
 * so words appended here to the variable's earlier value reach every
 * kernel line it generates. */
#define HT_GRUB_D_HOSTTUNE HT_GRUB_DEFAULTS_DIR "/hosttune.cfg"

/* GRUB 2 (cmdline-grub2.c) */
char **cmdline_grub_mkconfig_argv(const ht_context *c, const ht_facts *f);
void cmdline_plan_grub2(const ht_context *c, const ht_facts *f, const op_list *linux_ops, const op_list *xen_ops,
                        pending_set *edits, ht_plan *plan, boot_targets *lt, boot_targets *xt, bool *regenerate);
void cmdline_kind_grub2(cmdline_job *j);

/* BLS (cmdline-bls.c) */
void cmdline_kind_bls(cmdline_job *j);

/* legacy GRUB (cmdline-legacy.c) */
void cmdline_kind_legacy(cmdline_job *j);
void cmdline_legacy_check(const ht_context *c, const ht_facts *f, ht_plan *plan);

/* no bootloader (cmdline-none.c) */
/* A bootloader hosttune does not edit (zipl, systemd-boot's entries on
 * the ESP, GRUB 2 whose grub.cfg on the ESP is not known): every word refused, an optional one skipped, naming what
 * sets it there (cmdline-none.c). */
void cmdline_plan_refused(const ht_facts *f, const op_list *linux_ops, const op_list *xen_ops,
                          const ht_setting *default_req, ht_plan *plan);
void cmdline_plan_no_bootloader(const ht_context *c, const ht_facts *f, const op_list *linux_ops,
                                const op_list *xen_ops, bool optional_only, ht_plan *plan);

/* an image without a bootloader configuration yet (cmdline-image.c) */
void cmdline_kind_image_grub_d(cmdline_job *j);
void cmdline_kind_image_kernel_cmdline(cmdline_job *j);
void cmdline_plan_image_unknown(const ht_context *c, const op_list *linux_ops, const op_list *xen_ops,
                                ht_plan *plan);
