/* sysctl: runtime values in /proc/sys, persisted in hosttune's own
 * sysctl.d drop-in. The plan also predicts the value each key gets at the
 * next boot by reading every sysctl.d file in systemd-sysctl's order, and
 * warns when a later file would override hosttune's. */
#include "config.h"

#include <stddef.h>
#include <errno.h>
#include <fnmatch.h>
#include <string.h>
#include <sys/stat.h>

#include "backend-common.h"
#include "backend.h"
#include "profile-section.h"
#include "fileio.h"
#include "bound.h"
#include "edit-sysctl.h"
#include "util.h"

/* Real sysctl.d files are a few KB; a million-line one would take
 * seconds and hundreds of MB to check. */
#define SYSCTL_FILE_MAX (1u << 20)

/* Hosts without systemd-sysctl apply sysctl.d through procps'
 * `sysctl --system`, which also reads /etc/sysctl.conf last. A host booted
 * by systemd (/run/systemd/system, sd_booted(3)) or shipping its sysctl
 * unit runs systemd-sysctl at boot, which never reads /etc/sysctl.conf
 * itself (systemd NEWS 207: distributions link it as
 * /etc/sysctl.d/99-sysctl.conf, where it is read at its place by name);
 * appending it there named it the winner over a later 99-zz-*.conf
 * (issue 38). */
static bool uses_procps_order(const ht_context *c) {
        ht_context *memo = (ht_context *)c; /* its memo field only */
        if (!memo->memo_systemd_sysctl) {
                bool installed = ht_exists(c, "/usr/lib/systemd/systemd-sysctl") ||
                                 ht_exists(c, "/lib/systemd/systemd-sysctl") ||
                                 ht_exists(c, "/usr/lib/systemd/system/systemd-sysctl.service") ||
                                 ht_exists(c, "/lib/systemd/system/systemd-sysctl.service");
                /* A running host not booted by systemd that has procps'
                 * init script (Debian or Devuan with sysvinit: the
                 * script runs `sysctl -q --system`) boots through procps,
                 * even with the systemd package installed beside it. */
                bool sd = ht_context_systemd_booted(c) ||
                          (installed && !(ht_root_is_live(c) && ht_exists(c, "/etc/init.d/procps")));
                memo->memo_systemd_sysctl = sd ? 1 : -1;
        }
        return memo->memo_systemd_sysctl < 0;
}

/* Hosts whose boot reads /etc/sysctl.conf only: no systemd-sysctl and no
 * /etc/sysctl.d at all (RHEL 5: rc.sysinit runs `sysctl -e -p
 * /etc/sysctl.conf`; sysctl.d came with RHEL 6). A drop-in would never be
 * applied there, so the values go into sysctl.conf itself. */
static bool sysctl_conf_only(const ht_context *c) {
        return uses_procps_order(c) && !ht_exists(c, "/etc/sysctl.d");
}

static void plan_sysctl_conf(const ht_context *c, const ht_sysctl_setting *persist, size_t np, ht_plan *plan) {
        _cleanup_free_ char *old = NULL, *content = NULL, *err = NULL, *path = NULL;
        size_t old_len = 0, len = 0;
        /* a sysctl.conf kept elsewhere and linked: the file is edited,
         * the link stays */
        if (ht_edit_target(c, HT_SYSCTL_CONF, &path, &err) < 0) {
                ht_plan_error(plan, "%s", err);
                return;
        }
        int k = ht_read_optional(c, path, &old, &old_len);
        if (k < 0) {
                ht_plan_error(plan, "cannot read %s: %s", path, ht_strerror(-k));
                return;
        }
        if (ht_sysctl_conf_edit(old ? old : "", old_len, plan->profile, persist, np, &content, &len, &err) < 0) {
                _cleanup_free_ char *shown = ht_display_path(c, path);
                ht_plan_error(plan, "%s: %s", shown, err);
                return;
        }
        size_t before = plan->n_files;
        ht_plan_add_file(plan, HT_BK_SYSCTL, path, old, old_len, content, len, 0644);
        if (plan->n_files > before)
                ht_plan_warn(plan, "this host applies only %s at boot (no /etc/sysctl.d, no systemd-sysctl): "
                             "the values are set there, in place", HT_SYSCTL_CONF);
}

/* The files the host reads at boot (sysctl.d in systemd-sysctl's order,
 * sysctl.conf last on procps hosts), parsed once: the bounds need the
 * value the other files give, the warnings the value with hosttune's
 * drop-in as planned. */
typedef struct {
        char **paths;             /* reading order, hosttune's drop-in included */
        ht_sysctl_file **files;   /* NULL: absent, unreadable, or ours (not planned yet) */
        size_t n;
        size_t own;               /* position of hosttune's drop-in */
        char **warnings;          /* about the files themselves, for the plan */
} boot_files;

static void boot_files_load(const ht_context *c, boot_files *bf) {
        size_t ndirs = 0;
        while (ht_sysctl_dirs[ndirs])
                ndirs++;
        char ***names = xcalloc(ndirs + 1, sizeof(char **));
        for (size_t d = 0; d < ndirs; d++)
                ht_list_dir(c, ht_sysctl_dirs[d], ".conf", &names[d]);
        /* hosttune's own file counts whether or not it exists yet */
        const char *own = strrchr(HT_SYSCTL_DROPIN, '/') + 1;
        if (!strv_contains(names[0], own))
                strv_push(&names[0], own);

        *bf = (boot_files){.paths = ht_sysctl_order(names, uses_procps_order(c))};
        bf->n = strv_length(bf->paths);
        bf->files = xcalloc(bf->n + 1, sizeof(*bf->files));
        for (size_t i = 0; i < bf->n; i++) {
                _cleanup_free_ char *content = NULL, *err = NULL;
                size_t len = 0;
                if (streq(bf->paths[i], HT_SYSCTL_DROPIN)) {
                        bf->own = i;
                        continue;
                }
                /* a link to /dev/null masks the name (sysctl.d(5)); not
                 * read: a device is no file to warn about */
                _cleanup_free_ char *target = NULL;
                if (ht_resolve_host_link(c, bf->paths[i], &target) == 0 && streq(target, "/dev/null"))
                        continue;
                int k = ht_read_file(c, bf->paths[i], SYSCTL_FILE_MAX, &content, &len);
                if (k == -ENOENT)
                        continue;
                if (k < 0) {
                        /* not read, but not silently: it may override ours */
                        _cleanup_free_ char *shown = ht_display_path(c, bf->paths[i]);
                        strv_pushf(&bf->warnings, "%s: cannot read it (%s): values there that override "
                                   "hosttune's at boot are not checked", shown,
                                   k == -EFBIG ? "larger than 1 MiB" : ht_strerror(-k));
                }
                if (k < 0 || !content)
                        continue;
                if (ht_sysctl_parse(content, len, HT_SYSCTL_LENIENT, &bf->files[i], &err) < 0)
                        bf->files[i] = NULL;
                if (bf->files[i] && bf->files[i]->warnings) {
                        _cleanup_free_ char *shown = ht_display_path(c, bf->paths[i]);
                        for (size_t w = 0; bf->files[i]->warnings[w]; w++)
                                strv_pushf(&bf->warnings, "%s:%s; systemd-sysctl ignores that line too", shown,
                                           bf->files[i]->warnings[w]);
                }
        }
        for (size_t d = 0; d < ndirs; d++)
                strv_free(names[d]);
        free(names);
}

static void boot_files_done(boot_files *bf) {
        for (size_t i = 0; i < bf->n; i++)
                ht_sysctl_file_free(bf->files[i]);
        free(bf->files);
        strv_free(bf->paths);
        strv_free(bf->warnings);
}

/* An index over the parsed files (without hosttune's when skip_own);
 * ret_pos maps its file numbers to positions in bf. */
static ht_sysctl_index *boot_index(const boot_files *bf, bool skip_own, const ht_sysctl_file ***ret_files,
                                   size_t **ret_pos) {
        const ht_sysctl_file **files = xcalloc(bf->n + 1, sizeof(*files));
        size_t *pos = xcalloc(bf->n + 1, sizeof(*pos));
        size_t m = 0;
        /* ht_sysctl_effective skips no holes: compact the parsed ones */
        for (size_t i = 0; i < bf->n; i++)
                if (bf->files[i] && !(skip_own && i == bf->own)) {
                        pos[m] = i;
                        files[m++] = bf->files[i];
                }
        *ret_files = files;
        *ret_pos = pos;
        return ht_sysctl_index_new(files, m);
}

/* "/proc/sys/" before each key's normalised form in the plan's paths */
#define PROC_SYS_LEN (sizeof("/proc/sys/") - 1)

/* Warn about every key whose boot-time value would come from a file read
 * after hosttune's drop-in and miss the setting: another value for an
 * exact one, a value outside the bound for a bounded one. dropin holds
 * the drop-in as planned; paths[i] is setting i's /proc/sys path, the
 * key normalised once after its prefix. */
static void predict_boot(const ht_context *c, const ht_resolved *r, boot_files *bf, const char *dropin,
                         char *const *paths, ht_plan *plan) {
        _cleanup_free_ char *err = NULL;
        if (ht_sysctl_parse(dropin, strlen(dropin), HT_SYSCTL_LENIENT, &bf->files[bf->own], &err) < 0)
                bf->files[bf->own] = NULL;
        const ht_sysctl_file **files;
        size_t *pos;
        ht_sysctl_index *idx = boot_index(bf, false, &files, &pos);
        for (size_t i = 0; i < r->n_settings; i++) {
                const ht_setting *s = &r->settings[i];
                if (s->backend != HT_BK_SYSCTL)
                        continue;
                ht_sysctl_hit hit;
                if (!paths[i] || ht_sysctl_index_lookup(idx, paths[i] + PROC_SYS_LEN, &hit) <= 0)
                        continue;
                const char *path = bf->paths[pos[hit.file]];
                if (streq(path, HT_SYSCTL_DROPIN))
                        continue;
                if (ht_bound_satisfied(s->bound, s->value, hit.value))
                        continue;
                _cleanup_free_ char *shown = ht_display_path(c, path);
                _cleanup_free_ char *want = ht_bound_describe(s->bound, s->value);
                ht_change *ch = ht_plan_add_change(plan, HT_BK_SYSCTL, s->key, hit.value, s->value);
                ch->outcome = HT_OUTCOME_OVERRIDDEN;
                ch->source = ht_plan_strdup(plan, s->source);
                ch->bound = s->bound;
                if (s->bound != HT_BOUND_EXACT)
                        ch->bound_value = ht_plan_strdup(plan, s->value);
                ch->note = ht_plan_printf(plan, "%s:%u sets it at boot, after hosttune's file", shown, hit.line);
                ht_plan_warn(plan, "%s:%u sets %s = %s and is read after %s: at boot %s will be %s, not %s; "
                             "remove the line there or override the profile value",
                             shown, hit.line, s->key, hit.value, HT_SYSCTL_DROPIN, s->key, hit.value, want);
        }
        ht_sysctl_index_free(idx);
        free(files);
        free(pos);
}

/* A setting for the kernel the host boots next (a kernel switch is
 * pending): persisted now, in effect after that reboot. */
static void add_after_kernel_switch(ht_plan *plan, const ht_setting *s, const char *cur) {
        ht_change *ch = ht_plan_add_change(plan, HT_BK_SYSCTL, s->key, cur, s->value);
        ch->source = ht_plan_strdup(plan, s->source);
        ch->outcome = HT_OUTCOME_KEPT;
        ch->reboot_required = true;
        ch->note = ht_plan_strdup(plan, "takes effect after the reboot into the new kernel");
        plan->reboot_required = true;
}

/* What the boot-time files already give for bounded keys: the other
 * files the host reads, and hosttune's drop-in as it is now. */
typedef struct {
        boot_files files;
        bool loaded;
        const ht_sysctl_file **others_files;
        size_t *others_pos;
        ht_sysctl_index *others;  /* every file but hosttune's */
        ht_sysctl_file *own_old;  /* hosttune's drop-in as it is */
        ht_sysctl_index *own;
} boot_view;

static void boot_view_load(const ht_context *c, const char *old, size_t old_len, boot_view *v) {
        _cleanup_free_ char *err = NULL;
        boot_files_load(c, &v->files);
        v->loaded = true;
        v->others = boot_index(&v->files, true, &v->others_files, &v->others_pos);
        if (old && ht_sysctl_parse(old, old_len, HT_SYSCTL_LENIENT, &v->own_old, &err) < 0)
                v->own_old = NULL;
        v->own = ht_sysctl_index_new((const ht_sysctl_file *const *)&v->own_old, v->own_old ? 1 : 0);
}

static void boot_view_done(boot_view *v) {
        if (!v->loaded)
                return;
        /* NULL-safe: predict_boot may have loaded the files alone */
        ht_sysctl_index_free(v->others);
        ht_sysctl_index_free(v->own);
        ht_sysctl_file_free(v->own_old);
        free(v->others_files);
        free(v->others_pos);
        boot_files_done(&v->files);
}

/* The value hosttune's drop-in must hold for a bounded key so that the
 * value at boot meets the bound, or NULL when it needs no line:
 * - none when a file the host reads anyway gives a value that meets it
 *   (on sysctl.conf-only hosts: the line there);
 * - the line the drop-in has now when that meets it, so that a value
 *   someone raised later is not rewritten (and verify sees no drift);
 * - else want, the value the host has once the plan runs: the minimum
 *   where it was below, its own value where it was above (a kernel
 *   default, or a runtime write nobody persisted), so that a reboot
 *   never lowers it. */
static const char *bounded_persist(const ht_setting *s, const char *k, const char *want, const boot_view *v) {
        ht_sysctl_hit hit;
        if (ht_sysctl_index_lookup(v->others, k, &hit) > 0 && ht_bound_satisfied(s->bound, s->value, hit.value))
                return NULL;
        if (ht_sysctl_index_lookup(v->own, k, &hit) > 0 && !hit.glob &&
            ht_bound_satisfied(s->bound, s->value, hit.value))
                return hit.value;
        return want;
}

/* The compiled-in defaults of the kernel an image boots, for the keys
 * whose default is above the minimums profiles give: without them an
 * image's first boot would lower them to the minimum (kernel.sem from
 * 32000 1024000000 500 32000 to Oracle's 250 32000 100 128). 64-bit
 * values; the live kernel reads the same (cat /proc/sys/kernel/...). */
static const struct {
        const char *key;
        unsigned major, minor; /* the first release with this default */
        const char *value;
} kernel_defaults[] = {
        /* include/uapi/linux/shm.h: SHMMAX and SHMALL are
         * ULONG_MAX - (1UL << 24) since Linux 3.16 ("ipc,shm: increase
         * the defaults for SHMALL, SHMMAX") */
        {"kernel/shmmax", 3, 16, "18446744073692774399"},
        {"kernel/shmall", 3, 16, "18446744073692774399"},
        /* include/uapi/linux/sem.h: SEMMSL 32000, SEMMNS SEMMNI*SEMMSL,
         * SEMOPM 500, SEMMNI 32000 since Linux 3.19 ("ipc/sem.c:
         * increase SEMMSL, SEMMNI, SEMOPM") */
        {"kernel/sem", 3, 19, "32000 1024000000 500 32000"},
        /* net/ipv4/af_inet.c inet_init_net(), Documentation/networking/
         * ip-sysctl.rst: "The default values are 32768 and 60999" since
         * Linux 4.6 ("tcp/dccp: try to not exhaust ip_local_port_range
         * in connect()"); 32768 61000 before (2.6's tcp_init() gave small
         * memory machines less, no database host) */
        {"net/ipv4/ip_local_port_range", 4, 6, "32768 60999"},
        {"net/ipv4/ip_local_port_range", 2, 6, "32768 61000"},
};

/* The value a bounded key has when an image first boots without
 * hosttune's line: what its other files give, else its kernel's
 * compiled-in default where that is known. An image without a kernel
 * release counts as running a recent kernel (hosttune(8), OFFLINE
 * IMAGES); a 32-bit one has other shm defaults. NULL: unknown. */
static const char *offline_base(const ht_facts *f, const char *k, const boot_view *v) {
        ht_sysctl_hit hit;
        if (ht_sysctl_index_lookup(v->others, k, &hit) > 0)
                return hit.value;
        unsigned a = 0, b = 0;
        bool release = f && f->kernel_release && sscanf(f->kernel_release, "%u.%u", &a, &b) == 2;
        if (f && f->kernel_machine && !streq(f->kernel_machine, "x86_64") && !streq(f->kernel_machine, "aarch64") &&
            !streq(f->kernel_machine, "ppc64le") && !streq(f->kernel_machine, "s390x"))
                return NULL;
        for (size_t i = 0; i < ELEMENTSOF(kernel_defaults); i++)
                if (streq(kernel_defaults[i].key, k) &&
                    (!release || a > kernel_defaults[i].major ||
                     (a == kernel_defaults[i].major && b >= kernel_defaults[i].minor)))
                        return kernel_defaults[i].value;
        return NULL;
}

static ht_change *add_bounded(ht_plan *plan, const ht_setting *s, const char *cur, const char *desired) {
        ht_change *ch = ht_plan_add_change(plan, HT_BK_SYSCTL, s->key, cur, desired);
        ch->source = ht_plan_strdup(plan, s->source);
        ch->bound = s->bound;
        ch->bound_value = ht_plan_strdup(plan, s->value);
        return ch;
}

/* A setting the kernel cannot take (a read-only key, a key it lacks):
 * skipped when optional (skip says why), else an error (error: what to
 * do about it). False for an error. */
static bool add_unsettable(ht_plan *plan, const ht_setting *s, const char *cur, const char *skip,
                           const char *error) {
        ht_change *ch = ht_plan_add_change(plan, HT_BK_SYSCTL, s->key, cur, s->value);
        ch->source = ht_plan_strdup(plan, s->source);
        ch->bound = s->bound;
        if (s->bound != HT_BOUND_EXACT)
                ch->bound_value = ht_plan_strdup(plan, s->value);
        if (s->optional) {
                ch->outcome = HT_OUTCOME_SKIPPED;
                _cleanup_free_ char *what = xasprintf("sysctl %s", s->key);
                ht_plan_skip(plan, what, s->source, "%s", skip);
                return true;
        }
        ch->outcome = HT_OUTCOME_FAILED;
        ht_plan_error(plan, "%s: %s", s->source, error);
        return false;
}

/* An image has no running kernel: its change is the value its boot-time
 * files give now (hosttune's drop-in first, then the others) against
 * the value hosttune persists. Nothing to do when they agree. */
static void add_offline(const ht_context *c, ht_plan *plan, const ht_setting *s, const char *k,
                        const char *persisted, const char *old, size_t old_len, boot_view *view) {
        if (!view->loaded)
                boot_view_load(c, sysctl_conf_only(c) ? NULL : old, old_len, view);
        ht_sysctl_hit hit;
        const char *now = ht_sysctl_index_lookup(view->own, k, &hit) > 0 ? hit.value
                          : ht_sysctl_index_lookup(view->others, k, &hit) > 0 ? hit.value : NULL;
        if (now && ht_kernel_values_equal(now, persisted))
                return;
        ht_change *ch = s->bound != HT_BOUND_EXACT ? add_bounded(plan, s, now, persisted)
                                                  : ht_plan_add_change(plan, HT_BK_SYSCTL, s->key, now, persisted);
        if (!ch->source)
                ch->source = ht_plan_strdup(plan, s->source);
}

/* Whether KEY (slashes, as below /proc/sys) has a value of a container's
 * own: the network namespace's net.*, the IPC namespace's System V IPC
 * and POSIX queue limits, the UTS names, the user namespace's counts.
 * The list is the one container managers let a container set (podman
 * docs/source/markdown/options/sysctl.md, "Configure namespaced kernel
 * parameters"; runc's validator has the same). Every other key (vm.*,
 * fs.file-max, kernel.panic, ...) is the host's one kernel value: a
 * container that may write /proc/sys changes it under every other
 * container and the host itself. */
typedef enum { NS_NONE, NS_NET, NS_IPC, NS_OTHER } sysctl_ns;

static sysctl_ns sysctl_namespace(const char *key) {
        static const char *const ipc[] = {"kernel/msgmax", "kernel/msgmnb", "kernel/msgmni", "kernel/sem",
                                          "kernel/shmall", "kernel/shmmax", "kernel/shmmni",
                                          "kernel/shm_rmid_forced"};
        if (startswith(key, "net/"))
                return NS_NET;
        if (startswith(key, "fs/mqueue/"))
                return NS_IPC;
        for (size_t i = 0; i < ELEMENTSOF(ipc); i++)
                if (streq(key, ipc[i]))
                        return NS_IPC;
        if (startswith(key, "user/") || streq(key, "kernel/hostname") || streq(key, "kernel/domainname"))
                return NS_OTHER;
        return NS_NONE;
}

/* A namespaced key whose namespace this container shares with the host
 * (facts-virt.c, ns_is_host: its inode is the host's initial one): the
 * value is the host's, as a key that is not namespaced is. Podman
 * refuses those keys then ("if you use the --ipc=host option, the above
 * sysctls are not allowed", the same for --network=host: podman
 * docs/source/markdown/options/sysctl.md); CRI-O setting them for a
 * hostIPC or hostNetwork pod set the host's (GHSA-w2j5-3rcx-vx7x). */
static const char *host_namespace(const ht_facts *f, sysctl_ns ns) {
        if (ns == NS_IPC && f->container_ipc_host == HT_YES)
                return "IPC namespace (--ipc=host)";
        if (ns == NS_NET && f->container_net_host == HT_YES)
                return "network namespace (--network=host)";
        return NULL;
}

/* The interface a per-interface key names (net.ipv4.conf.eth1.rp_filter:
 * "eth1") when the interface is not there now but its protocol's tree
 * is; NULL otherwise. systemd sets such keys when the interface appears:
 * udev's 99-systemd.rules runs "systemd-sysctl --prefix=/net/ipv4/conf/
 * $name --prefix=/net/ipv4/neigh/$name --prefix=/net/ipv6/conf/$name
 * --prefix=/net/ipv6/neigh/$name" on the "add" of every net device but
 * lo (systemd 252, sysctl.d(5)). */
static char *absent_interface(const ht_context *c, const char *norm) {
        static const char *const trees[] = {"net/ipv4/conf/", "net/ipv4/neigh/", "net/ipv6/conf/", "net/ipv6/neigh/"};
        for (size_t i = 0; i < ELEMENTSOF(trees); i++) {
                if (!startswith(norm, trees[i]))
                        continue;
                const char *name = norm + strlen(trees[i]), *slash = strchr(name, '/');
                if (!slash)
                        return NULL;
                _cleanup_free_ char *ifname = xstrndup(name, (size_t)(slash - name));
                _cleanup_free_ char *tree = xasprintf("/proc/sys/%.*s", (int)strlen(trees[i]) - 1, trees[i]);
                _cleanup_free_ char *dir = xasprintf("/proc/sys/%s%s", trees[i], ifname);
                if (streq(ifname, "all") || streq(ifname, "default") || streq(ifname, "lo") ||
                    !ht_exists(c, tree) || ht_exists(c, dir))
                        return NULL;
                return TAKE_PTR(ifname);
        }
        return NULL;
}

/* Whether the kernel made the key read-only (kernel.osrelease, fs.file-nr:
 * no write bit in /proc/sys). Not even root writes it, and systemd-sysctl
 * skips it at boot with a debug message only (EACCES is a privilege error
 * to sysctl_write_or_warn()). The mode, not a trial open, so that a plan
 * run without privilege tells the same. */
static bool sysctl_read_only(const ht_context *c, const char *path) {
        struct stat st;
        if (ht_stat(c, path, &st) < 0 || !S_ISREG(st.st_mode) || (st.st_mode & 0222))
                return false;
        if (ht_context_kernel_is_ours(c))
                return true;
        /* A tree whose /proc is no procfs (a fixture): the mode says so
         * only where the directory is writable; a read-only copy of the
         * tree (make distcheck, read-only media) clears every write bit,
         * where /proc/sys's own directories are never writable. */
        _cleanup_free_ char *dir = xstrdup(path);
        *strrchr(dir, '/') = '\0';
        struct stat dst;
        return ht_stat(c, dir, &dst) == 0 && (dst.st_mode & 0200);
}

static int sysctl_plan(const ht_context *c, const ht_facts *f, const ht_resolved *r, ht_plan *plan) {
        bool live = ht_root_is_live(c);
        bool switch_pending = ht_kernel_switch_pending(f, r);
        size_t n = ht_settings_count(r, HT_BK_SYSCTL);
        ht_sysctl_setting *persist = xcalloc(n + 1, sizeof(*persist));
        /* values made here (bounded keys) that persist points to */
        char **owned = NULL;
        /* each setting's /proc/sys path, its key normalised once there
         * for every look-up (NULL: a bad key) */
        char **paths = xcalloc(r->n_settings + 1, sizeof(char *));
        size_t np = 0;
        bool bad = false;
        boot_view view = {0};
        /* before the first goto: cleanup must never see them uninitialised */
        _cleanup_free_ char *content = NULL, *rerr = NULL;

        _cleanup_free_ char *old = NULL;
        size_t old_len = 0;
        int k = ht_read_optional(c, HT_SYSCTL_DROPIN, &old, &old_len);
        /* a link in its place (to /dev/null: the administrator masked it,
         * as sysctl.d(5) masks a file): apply never writes through a link,
         * so the plan says so rather than show a file it cannot write */
        struct stat lst;
        _cleanup_free_ char *link = NULL;
        if (ht_lstat(c, HT_SYSCTL_DROPIN, &lst) == 0 && S_ISLNK(lst.st_mode)) {
                (void) ht_readlink(c, HT_SYSCTL_DROPIN, &link);
                ht_plan_error(plan, "%s is a symbolic link (to %s)%s: hosttune never writes through a symlink; "
                              "remove it to let hosttune write its file", HT_SYSCTL_DROPIN, link ? link : "?",
                              link && streq(link, "/dev/null") ? ", which masks hosttune's sysctl settings at boot" : "");
                free(persist);
                free(paths);
                return 0;
        }
        if (k < 0) {
                ht_plan_error(plan, "cannot read %s: %s", HT_SYSCTL_DROPIN, ht_strerror(-k));
                free(persist);
                free(paths);
                return 0;
        }

        for (size_t i = 0; i < r->n_settings; i++) {
                const ht_setting *s = &r->settings[i];
                if (s->backend != HT_BK_SYSCTL)
                        continue;
                _cleanup_free_ char *err = NULL;
                if (ht_sysctl_proc_path(s->key, &paths[i], &err) < 0) {
                        ht_plan_error(plan, "%s: %s", s->source, err);
                        bad = true;
                        continue;
                }
                const char *path = paths[i], *norm = path + PROC_SYS_LEN;
                if (!s->value || has_control_chars(s->value)) {
                        ht_plan_error(plan, "%s: the value for %s holds control characters", s->source, s->key);
                        bad = true;
                        continue;
                }
                /* sysctl.d has no quoting: quotes would reach the kernel as
                 * part of the value */
                if (strpbrk(s->value, "\"'")) {
                        ht_plan_error(plan, "%s: the value for %s holds quotes, which sysctl.d files do not strip; "
                                      "write the value without them", s->source, s->key);
                        bad = true;
                        continue;
                }
                _cleanup_free_ char *cur = NULL;
                k = live ? ht_read_line(c, path, &cur) : 0;
                if (live && k < 0 && (s->boot_only || (switch_pending && k == -ENOENT))) {
                        /* the running kernel lacks the key (a switch to
                         * another kernel is pending: the Xen kernel has no
                         * vm.nr_hugepages, vm.hugetlb_shm_group, ...):
                         * persisted, and shown as waiting for that reboot */
                        persist[np++] = (ht_sysctl_setting){.key = s->key, .value = s->value};
                        add_after_kernel_switch(plan, s, NULL);
                        continue;
                }
                _cleanup_free_ char *ifname = live && k == -ENOENT && !uses_procps_order(c)
                                                      ? absent_interface(c, norm) : NULL;
                if (ifname) {
                        /* persisted; systemd-sysctl sets it when the
                         * interface appears (a VLAN, a bond, a hotplugged
                         * NIC), as it would for the administrator's own
                         * line */
                        persist[np++] = (ht_sysctl_setting){.key = s->key, .value = s->value};
                        if (!view.loaded)
                                boot_view_load(c, old, old_len, &view);
                        /* a change until hosttune's file holds the line */
                        ht_sysctl_hit hit;
                        bool held = ht_sysctl_index_lookup(view.own, norm, &hit) > 0 &&
                                    ht_kernel_values_equal(hit.value, s->value);
                        ht_change *ch = ht_plan_add_change(plan, HT_BK_SYSCTL, s->key, NULL, s->value);
                        ch->source = ht_plan_strdup(plan, s->source);
                        ch->outcome = held ? HT_OUTCOME_KEPT : HT_OUTCOME_CHANGE;
                        ch->note = ht_plan_printf(plan, "%s is not there now: systemd-sysctl sets it when the "
                                                  "interface appears (udev's 99-systemd.rules)", ifname);
                        continue;
                }
                /* the mode only where a write is due: no stat a key */
                bool read_only = live && k >= 0 && !s->boot_only &&
                                 !(s->bound == HT_BOUND_EXACT ? ht_kernel_values_equal(cur, s->value)
                                                              : ht_bound_satisfied(s->bound, s->value, cur)) &&
                                 sysctl_read_only(c, path);
                if (read_only) {
                        _cleanup_free_ char *skip = xasprintf("%s is read-only on this kernel", s->key);
                        _cleanup_free_ char *error = xasprintf("%s is read-only on this kernel (no write bit in "
                                                               "/proc/sys): neither hosttune nor systemd-sysctl "
                                                               "can set it; remove the setting", s->key);
                        if (!add_unsettable(plan, s, cur, skip, error))
                                bad = true;
                        continue;
                }
                if (live && k < 0) {
                        _cleanup_free_ char *skip = xasprintf("this kernel has no %s (%s)", s->key, ht_strerror(-k));
                        _cleanup_free_ char *error = xasprintf("this kernel has no %s (%s); mark the setting optional "
                                                               "or remove it", s->key, ht_strerror(-k));
                        if (!add_unsettable(plan, s, NULL, skip, error))
                                bad = true;
                        continue;
                }
                /* A bounded key: the host keeps any value that meets the
                 * bound (DESIGN.md, "Do no harm"); only the fields that
                 * fall short move, and only as far as the bound. */
                _cleanup_free_ char *want = NULL;
                if (s->bound != HT_BOUND_EXACT && !s->boot_only) {
                        if (!view.loaded)
                                boot_view_load(c, sysctl_conf_only(c) ? NULL : old, old_len, &view);
                        /* an image: the value its first boot gives
                         * without hosttune, so that no field of it is
                         * lowered either */
                        const char *base = live ? cur : offline_base(f, norm, &view);
                        bool met = base && ht_bound_satisfied(s->bound, s->value, base);
                        want = met ? normalize_ws(base) : ht_bound_merge(s->bound, s->value, base);
                        const char *keep = bounded_persist(s, norm, want, &view);
                        if (keep) {
                                char *v = xstrdup(keep);
                                strv_push_take(&owned, v);
                                persist[np++] = (ht_sysctl_setting){.key = s->key, .value = v};
                        }
                        if (!live) {
                                /* no keep: a file the image reads anyway meets it */
                                if (keep)
                                        add_offline(c, plan, s, norm, keep, old, old_len, &view);
                                continue;
                        }
                        if (met) {
                                if (!ht_kernel_values_equal(cur, s->value)) {
                                        ht_change *ch = add_bounded(plan, s, cur, want);
                                        ch->outcome = HT_OUTCOME_KEPT;
                                }
                                continue;
                        }
                } else {
                        persist[np++] = (ht_sysctl_setting){.key = s->key, .value = s->value};
                        if (!live)
                                add_offline(c, plan, s, norm, s->value, old, old_len, &view);
                        if (!live || ht_kernel_values_equal(cur, s->value))
                                continue;
                }
                if (s->boot_only) {
                        /* the running kernel cannot take it (a kernel switch is
                         * pending): persisted, checked after the reboot */
                        add_after_kernel_switch(plan, s, cur);
                        continue;
                }
                ht_change *ch = want ? add_bounded(plan, s, cur, want)
                                     : ht_plan_add_change(plan, HT_BK_SYSCTL, s->key, cur, s->value);
                ch->path = ht_plan_strdup(plan, path);
                if (!want)
                        ch->source = ht_plan_strdup(plan, s->source);
                ch->runtime = true;
                /* net.* may sit on a mount of its own (LXC's proc:mixed) */
                ht_tristate ro = startswith(norm, "net/") && f->proc_sys_net_readonly != HT_UNKNOWN
                                         ? f->proc_sys_net_readonly
                                         : f->proc_sys_readonly;
                if (ro == HT_YES) {
                        ch->runtime = false;
                        ch->outcome = HT_OUTCOME_SKIPPED;
                        ht_plan_warn(plan, "%s: /proc/sys is read-only here (a container?): the runtime change is skipped; the drop-in still applies when the host boots",
                                     s->key);
                } else if (f->container) {
                        sysctl_ns ns = sysctl_namespace(norm);
                        const char *shared = host_namespace(f, ns);
                        if (ns == NS_NONE)
                                /* a privileged container may write it: that
                                 * would retune the host under every other
                                 * container */
                                ht_plan_skip_host_value(plan, ch, s->key, f->container, "kernel value", "drop-in");
                        else if (shared) {
                                ch->runtime = false;
                                ch->outcome = HT_OUTCOME_SKIPPED;
                                ht_plan_warn(plan, "%s: this %s container shares the host's %s, so the value is the "
                                             "host's, and writing it would change it for the host and every "
                                             "process in that namespace; the runtime change is skipped (set it on "
                                             "the host; the drop-in applies only where this tree boots as a host)",
                                             s->key, f->container, shared);
                        } else if (f->container_net_unseen && ns == NS_NET)
                                ht_plan_warn(plan, "net.*: whether this %s container has a network namespace of its "
                                             "own or the host's (--network=host) cannot be seen from inside before "
                                             "Linux 6.18; the runtime changes of net.* are made in whichever it has",
                                             f->container);
                }
        }

        if (bad || sysctl_conf_only(c)) {
                if (!bad && np > 0)
                        plan_sysctl_conf(c, persist, np, plan);
                goto done;
        }
        if (np == 0) {
                ht_plan_own_file(plan, HT_BK_SYSCTL, HT_SYSCTL_DROPIN, old, old_len, NULL);
                /* the bounds were checked against these files: say what
                 * could not be read */
                for (size_t i = 0; view.loaded && view.files.warnings && view.files.warnings[i]; i++)
                        ht_plan_warn(plan, "%s", view.files.warnings[i]);
                goto done;
        }
        if (ht_sysctl_render(plan->profile, persist, np, &content, &rerr) < 0) {
                ht_plan_error(plan, "cannot write %s: %s", HT_SYSCTL_DROPIN, rerr);
                goto done;
        }
        ht_plan_own_file(plan, HT_BK_SYSCTL, HT_SYSCTL_DROPIN, old, old_len, content);
        if (!view.loaded) {
                boot_files_load(c, &view.files);
                view.loaded = true;
        }
        for (size_t i = 0; view.files.warnings && view.files.warnings[i]; i++)
                ht_plan_warn(plan, "%s", view.files.warnings[i]);
        predict_boot(c, r, &view.files, content, paths, plan);
done:
        boot_view_done(&view);
        strv_free(owned);
        for (size_t i = 0; i < r->n_settings; i++)
                free(paths[i]);
        free(paths);
        free(persist);
        return 0;
}

void ht_boot_explained_done(ht_boot_explained *e) {
        for (size_t i = 0; i < e->n; i++) {
                free(e->a[i].path);
                free(e->a[i].key);
                free(e->a[i].value);
                free(e->a[i].note);
        }
        free(e->a);
        strv_free(e->files);
        strv_free(e->masked);
        strv_free(e->names);
        strv_free(e->warnings);
        *e = (ht_boot_explained){0};
}

int ht_sysctl_explain_boot(const ht_context *c, const char *key, ht_boot_explained *ret) {
        _cleanup_free_ char *err = NULL;
        if (ht_sysctl_key_check(key, &err) < 0)
                return -EINVAL;
        boot_files bf;
        boot_files_load(c, &bf);
        ht_boot_explained e = {.consumer = uses_procps_order(c) ? "sysctl --system" : "systemd-sysctl"};
        /* hosttune's drop-in as it is on the host, at its place */
        _cleanup_free_ char *own = NULL;
        size_t own_len = 0;
        if (ht_read_optional(c, HT_SYSCTL_DROPIN, &own, &own_len) == 0 && own &&
            ht_sysctl_parse(own, own_len, HT_SYSCTL_LENIENT, &bf.files[bf.own], &err) < 0)
                bf.files[bf.own] = NULL;
        _cleanup_free_ char *k = ht_sysctl_normalize(key);
        for (size_t i = 0; i < bf.n; i++) {
                _cleanup_free_ char *target = NULL;
                if (ht_resolve_host_link(c, bf.paths[i], &target) == 0 && streq(target, "/dev/null"))
                        strv_push(&e.masked, bf.paths[i]);
                if (!bf.files[i])
                        continue;
                strv_push(&e.files, bf.paths[i]);
                for (size_t j = 0; j < bf.files[i]->n_entries; j++) {
                        const ht_sysctl_entry *x = &bf.files[i]->entries[j];
                        if (!streq(x->key, k) && !(x->glob && fnmatch(x->key, k, FNM_PATHNAME | FNM_PERIOD) == 0))
                                continue;
                        e.a = xrealloc(e.a, (e.n + 1) * sizeof(*e.a));
                        e.a[e.n++] = (ht_boot_assignment){
                                .path = xstrdup(bf.paths[i]), .line = x->line, .key = ht_sysctl_dotted(x->key),
                                .value = x->value ? xstrdup(x->value) : NULL, .glob = x->glob,
                        };
                }
        }
        const ht_sysctl_file **files;
        size_t *pos;
        ht_sysctl_index *idx = boot_index(&bf, false, &files, &pos);
        ht_sysctl_hit hit;
        if (ht_sysctl_index_effective(idx, key, &hit) > 0)
                for (size_t i = 0; i < e.n; i++)
                        if (streq(e.a[i].path, bf.paths[pos[hit.file]]) && e.a[i].line == hit.line)
                                e.a[i].winner = true;
        ht_sysctl_index_free(idx);
        free(files);
        free(pos);
        e.warnings = TAKE_PTR(bf.warnings);
        boot_files_done(&bf);
        *ret = e;
        return 0;
}

/* sysctl { vm { swappiness = 10; }; "kernel.sem" = "..."; } or a list of
 * { key = "..."; value = ...; optional = ...; bound = ...; }. */
static int sysctl_parse_section(ht_pfile *p, const config_setting_t *s, char **ret_error) {
        static const char *const list_keys[] = {"key", "value", "optional", "bound", "when", NULL};
        return ht_cfg_keyed_section(p, s, HT_BK_SYSCTL, '.', NULL, list_keys, ret_error);
}

static const ht_backend_field sysctl_rule_fields[] = {
        {.name = "key", .offset = offsetof(ht_entry, key)},
        {0},
};

static int sysctl_check_key(const char *k) {
        /* Dots separate levels; a '/' stands for a dot inside one level
         * (net.ipv4.conf.eth0/100.rp_filter), as in sysctl.d(5). */
        if (isempty(k) || strlen(k) > 256 || !ht_word_chars(k, "._-/") || k[0] == '.' ||
            k[0] == '/' || endswith(k, ".") || endswith(k, "/") || strstr(k, "..") ||
            strstr(k, "./") || strstr(k, "/.") || strstr(k, "//"))
                return -EINVAL;
        return 0;
}

static int sysctl_canon_key(ht_resolver *r, const ht_entry *e, const char *what, ht_setting *s,
                            char **ret_value, char **ret_error) {
        int k = ht_entry_eval_field(r, &e->key, e, what, "key", &s->key, ret_error);
        if (k >= 0 && sysctl_check_key(s->key) < 0) {
                *ret_error = xasprintf("%s:%u: %s: '%s' is not a sysctl name", e->file, e->line,
                                       what, s->key);
                k = -EINVAL;
        }
        return k;
}

/* '/' for '.' as sysctl.d(5) allows */
static bool sysctl_hugepages_key(const char *key) {
        return streq(key, "vm.nr_hugepages") || streq(key, "vm/nr_hugepages");
}

static const char *sysctl_check_value(const char *t) {
        return isempty(t) || strchr(t, '\n') ? "is empty" : NULL;
}

/* The files its plan writes (ht_backend.files). */
static const char *const sysctl_files[] = {HT_SYSCTL_DROPIN, HT_SYSCTL_CONF, NULL};

const ht_backend ht_backend_sysctl = {
        .id = HT_BK_SYSCTL,
        .name = "sysctl",
        .files = sysctl_files,
        .entry_flags = HT_ENTRY_BOUND,
        .rule_fields = sysctl_rule_fields,
        .parse_section = sysctl_parse_section,
        .canon_key = sysctl_canon_key,
        .check_key = sysctl_check_key,
        .collapse_ws = true,
        .check_value = sysctl_check_value,
        .hugepages_key = sysctl_hugepages_key,
        .plan = sysctl_plan,
};
