/* Containers and direct-kernel VMs: hosts whose kernel command line is
 * not theirs to set. A container shares its node's kernel; a microVM
 * (Firecracker, cloud-hypervisor, qemu -kernel) is booted by its VMM with
 * a kernel and command line the VM's host gives. Neither has a bootloader
 * for hosttune to edit, and the facts say how that was seen.
 *
 * Containers are found in the order systemd-detect-virt uses
 * (src/basic/virt.c, detect_container): OpenVZ and WSL by their kernel's
 * own signs, then the manager's own word
 * (/run/host/container-manager, /run/systemd/container, container= in
 * PID 1's environment), then the files Podman and Docker leave, then the
 * cgroup namespace. A Kubernetes pod under containerd or CRI-O has none
 * of the markers, so hosttune goes on where systemd stops: a read-only
 * /proc/sys mount (runc's default readonlyPaths; no host mounts it so) is
 * a container too. An overlay root alone is not (live images boot on
 * one), but it is listed as a sign beside the others. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "facts-internal.h"
#include "facts.h"
#include "util.h"

char *ht_environ_container(const char *buf, size_t len, bool *ret_kubernetes) {
        char *found = NULL;
        bool k8s = false;
        for (const char *p = buf, *end = buf + len; p < end;) {
                const char *z = memchr(p, 0, (size_t)(end - p));
                size_t n = z ? (size_t)(z - p) : (size_t)(end - p);
                if (n >= 10 && strncmp(p, "container=", 10) == 0) {
                        free(found);
                        found = xstrndup(p + 10, n - 10);
                } else if (n > 24 && strncmp(p, "KUBERNETES_SERVICE_HOST=", 24) == 0)
                        k8s = true;
                p += n + 1;
        }
        if (found && (has_control_chars(found) || !ht_valid_utf8(found) || strlen(found) > 64)) {
                free(found);
                found = xstrdup("container-other");
        }
        if (ret_kubernetes)
                *ret_kubernetes = k8s;
        return found;
}

static char *read_word(const ht_context *c, const char *path) {
        char *s = NULL;
        if (ht_read_line(c, path, &s) < 0)
                return NULL;
        strstrip(s);
        if (!*s || has_control_chars(s) || !ht_valid_utf8(s) || strlen(s) > 64) {
                free(s);
                return NULL;
        }
        return s;
}

/* systemd's running_in_cgroupns() for cgroup2: cgroup.events exists in
 * every cgroup but the root, cgroup.type in every one but the root; a
 * kernel without /sys/kernel/cgroup/features (before 4.15) has no
 * cgroup.type at all, and there cgroup.events alone tells. */
static bool in_cgroup_namespace(const ht_context *c) {
        if (!ht_exists(c, "/sys/fs/cgroup/cgroup.events"))
                return false;
        return ht_exists(c, "/sys/fs/cgroup/cgroup.type") || !ht_exists(c, "/sys/kernel/cgroup/features");
}

/* PID 1's cgroup as /proc/1/cgroup gives it for the unified hierarchy
 * ("0::/PATH"), NULL when unknown. */
static char *pid1_cgroup(const ht_context *c) {
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        if (ht_read_file(c, "/proc/1/cgroup", HT_FACTS_MAX_FILE, &buf, &len) < 0 || memchr(buf, 0, len))
                return NULL;
        for (char *line = buf, *next; line && *line; line = next) {
                next = strchr(line, '\n');
                if (next)
                        *next++ = 0;
                if (startswith(line, "0::") && !has_control_chars(line))
                        return xstrdup(line + 3);
        }
        return NULL;
}

/* Whether PID 1 is in a cgroup of kubelet's: its pods' cgroups are below
 * "kubepods" (the cgroupfs driver's /kubepods/burstable/pod<uid>/...) or
 * "kubepods.slice" (the systemd driver's). Seen only without a cgroup
 * namespace (cgroup v1 nodes): within one, /proc/1/cgroup says "/". */
static bool pid1_in_kubepods(const ht_context *c) {
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        if (ht_read_file(c, "/proc/1/cgroup", HT_FACTS_MAX_FILE, &buf, &len) < 0 || memchr(buf, 0, len))
                return false;
        return strstr(buf, ":/kubepods/") || strstr(buf, ":/kubepods.slice/");
}

/* The initial namespaces' inode numbers, which the kernel fixes
 * (include/uapi/linux/nsfs.h, enum init_ns_ino; systemd's
 * src/basic/namespace-util.h has the same): the IPC namespace's since
 * Linux 3.8 (0xEFFFFFFF), the network namespace's since 6.18
 * (0xEFFFFFF9). Before 6.18 init_net was numbered like any other
 * namespace, from 0xF0000000 up, so a number tells nothing there:
 * whether a container has a network namespace of its own cannot be seen
 * from inside (the host's /proc/1/ns/net is not in view). */
#define IPC_NS_INIT_INO 0xEFFFFFFFul
#define NET_NS_INIT_INO 0xEFFFFFF9ul

/* Whether hosttune's own namespace TYPE (/proc/self/ns/TYPE, whose
 * sysctls it writes) is the host's initial one: YES, NO when the kernel
 * numbers that one fixed (fixed), UNKNOWN otherwise or unreadable.
 * *ret_link: the link as read, for the evidence. */
static ht_tristate ns_is_host(const ht_context *c, const char *type, unsigned long init, bool fixed, char **ret_link) {
        _cleanup_free_ char *path = xasprintf("/proc/self/ns/%s", type), *link = NULL;
        unsigned long ino;
        int end = 0;
        if (ht_readlink(c, path, &link) < 0 || !startswith(link, type) ||
            sscanf(link + strlen(type), ":[%lu]%n", &ino, &end) != 1 || link[strlen(type) + (size_t)end] != 0)
                return HT_UNKNOWN;
        *ret_link = TAKE_PTR(link);
        return ino == init ? HT_YES : fixed ? HT_NO : HT_UNKNOWN;
}

void ht_facts_collect_container(const ht_context *c, ht_facts *f) {
        char **ev = NULL;
        char *kind = NULL;
        bool k8s = false, decided = false;

        /* OpenVZ: /proc/vz inside and outside, /proc/bc only outside */
        if (ht_exists(c, "/proc/vz") && !ht_exists(c, "/proc/bc")) {
                kind = xstrdup("openvz");
                strv_push(&ev, "/proc/vz without /proc/bc (OpenVZ)");
                decided = true;
        }
        /* WSL, as systemd-detect-virt sees it: the kernel release says
         * so ("4.4.0-19041-Microsoft" in WSL 1, "5.15.167.4-microsoft-
         * standard-WSL2"); every distribution runs as a container on the
         * one kernel of WSL's utility VM, whose command line Windows sets */
        const char *osrelease = f->kernel_release; /* read by ht_facts_collect_kernel */
        if (!decided && osrelease && (strstr(osrelease, "Microsoft") || strstr(osrelease, "WSL")) &&
            !has_control_chars(osrelease) && ht_valid_utf8(osrelease) && strlen(osrelease) <= 128) {
                kind = xstrdup("wsl");
                strv_push_take(&ev, xasprintf("/proc/sys/kernel/osrelease says %s (Windows Subsystem for Linux)",
                                              osrelease));
                decided = true;
        }
        static const char *const manager_files[] = {"/run/host/container-manager", "/run/systemd/container"};
        for (size_t i = 0; !decided && i < ELEMENTSOF(manager_files); i++)
                if ((kind = read_word(c, manager_files[i]))) {
                        strv_push_take(&ev, xasprintf("%s says %s", manager_files[i], kind));
                        decided = true;
                }

        /* PID 1 that is not systemd (a shell, tini, an nspawn --as-pid2
         * stub) writes nothing to /run: its environment tells. Reading it
         * needs root (ptrace access), which hosttune has. */
        _cleanup_free_ char *env = NULL;
        size_t env_len = 0;
        if (ht_read_file(c, "/proc/1/environ", HT_FACTS_MAX_FILE, &env, &env_len) == 0) {
                char *v = ht_environ_container(env, env_len, &k8s);
                if (!decided && v && *v) {
                        kind = v;
                        strv_push_take(&ev, xasprintf("container=%s in the environment of PID 1 (/proc/1/environ)", v));
                        decided = true;
                } else if (!decided && v) {
                        /* container= set empty: the manager says "no container" */
                        free(v);
                        decided = true;
                } else
                        free(v);
        }

        static const struct {
                const char *path, *kind;
        } marker_files[] = {
                {"/run/.containerenv", "podman"},
                {"/.dockerenv", "docker"},
        };
        for (size_t i = 0; !decided && i < ELEMENTSOF(marker_files); i++)
                if (ht_exists(c, marker_files[i].path)) {
                        kind = xstrdup(marker_files[i].kind);
                        strv_push_take(&ev, xasprintf("%s exists", marker_files[i].path));
                        decided = true;
                }

        /* No marker: the signs a containerd or CRI-O pod shows. */
        bool cgns = in_cgroup_namespace(c);
        _cleanup_free_ char *cg = cgns ? pid1_cgroup(c) : NULL;
        bool overlay = streq_ptr(f->root_fstype, "overlay");
        bool proc_ro = f->proc_sys_readonly == HT_YES;
        bool kubepods = false;
        if (!decided && (cgns || proc_ro)) {
                /* PID 1 of a pod may lack the service variables (the pause
                 * process of a pod that shares its PID namespace) */
                kubepods = !k8s && pid1_in_kubepods(c);
                kind = xstrdup(k8s || kubepods ? "kubernetes" : "container-other");
                decided = true;
        }
        if (kind) {
                if (cgns)
                        strv_push_take(&ev, xasprintf("PID 1 is in cgroup %s of a cgroup namespace (/proc/1/cgroup; "
                                                      "/sys/fs/cgroup is not the host's root cgroup)",
                                                      cg ? cg : "(unknown)"));
                if (proc_ro)
                        strv_push(&ev, "/proc/sys is mounted read-only (/proc/self/mountinfo)");
                if (overlay)
                        strv_push(&ev, "/ is an overlay mount (/proc/self/mountinfo)");
                if (k8s)
                        strv_push(&ev, "KUBERNETES_SERVICE_HOST in the environment of PID 1 (a Kubernetes pod)");
                if (kubepods)
                        strv_push(&ev, "PID 1 is in a kubepods cgroup (/proc/1/cgroup; a Kubernetes pod)");
        }
        f->container_ipc_host = f->container_net_host = HT_UNKNOWN;
        if (kind) {
                /* docker run --ipc=host, --network=host (podman's too, a
                 * Kubernetes pod's hostIPC, hostNetwork): the namespaced
                 * sysctls are then the host's */
                _cleanup_free_ char *ipc = NULL, *net = NULL;
                f->container_ipc_host = ns_is_host(c, "ipc", IPC_NS_INIT_INO, true, &ipc);
                f->container_net_host = ns_is_host(c, "net", NET_NS_INIT_INO,
                                                     f->kernel_release && ht_version_compare(f->kernel_release, "6.18") >= 0, &net);
                f->container_net_unseen = net && f->container_net_host == HT_UNKNOWN;
                if (f->container_ipc_host == HT_YES)
                        strv_push_take(&ev, xasprintf("/proc/self/ns/ipc is %s, the host's IPC namespace (--ipc=host)",
                                                      ipc));
                if (f->container_net_host == HT_YES)
                        strv_push_take(&ev, xasprintf("/proc/self/ns/net is %s, the host's network namespace "
                                                      "(--network=host)", net));
        }
        f->container = kind;
        f->container_evidence = ev;
}

static bool has_kernel_image(const ht_context *c) {
        _cleanup_strv_free_ char **names = NULL;
        if (ht_list_dir(c, "/boot", NULL, &names) < 0)
                return false;
        for (size_t i = 0; names && names[i]; i++)
                if (startswith(names[i], "vmlinuz") || startswith(names[i], "vmlinux") ||
                    startswith(names[i], "bzImage") || startswith(names[i], "Image"))
                        return true;
        return false;
}

void ht_facts_collect_direct_kernel(const ht_context *c, ht_facts *f) {
        /* Evidence lines hold no commas: `hosttune facts` joins a list with
         * ", ". Only a guest without a bootloader of its own and without a
         * word a bootloader adds: GRUB passes BOOT_IMAGE=, systemd-boot
         * and EFI stubs leave EFI variables. */
        if (f->container || f->bootloader != HT_BOOT_NONE || f->efi || !f->kernel_cmdline)
                return;
        if (!f->hypervisor || streq(f->hypervisor, "none"))
                return;
        _cleanup_free_ char *image = ht_cmdline_value(f->kernel_cmdline, "BOOT_IMAGE");
        if (image)
                return;
        char **ev = NULL;
        bool flag = strv_contains(f->cpu_flags, "hypervisor");
        if (streq(f->hypervisor, "other"))
                strv_push(&ev, "a virtual machine (the hypervisor flag in /proc/cpuinfo; no DMI names the hypervisor)");
        else
                strv_push_take(&ev, xasprintf("a virtual machine (%s%s)", f->hypervisor,
                                              flag ? "; the hypervisor flag in /proc/cpuinfo" : ""));
        strv_push(&ev, "no bootloader configuration (no /etc/default/grub or BLS entries or grub.conf)");
        strv_push(&ev, "/proc/cmdline has no BOOT_IMAGE= (no bootloader passed the kernel)");
        strv_push(&ev, "no EFI (/sys/firmware/efi)");
        struct stat st;
        if (ht_lstat(c, "/boot", &st) < 0)
                strv_push(&ev, "no /boot");
        else if (!has_kernel_image(c))
                strv_push(&ev, "no kernel image in /boot");
        /* Firecracker's documented boot arguments (docs/api_requests,
         * "boot_args": "console=ttyS0 reboot=k panic=1 pci=off") */
        _cleanup_free_ char *reboot = ht_cmdline_value(f->kernel_cmdline, "reboot");
        _cleanup_free_ char *pci = ht_cmdline_value(f->kernel_cmdline, "pci");
        if (streq_ptr(reboot, "k") && streq_ptr(pci, "off"))
                strv_push(&ev, "reboot=k pci=off on /proc/cmdline (the boot arguments of a microVM such as Firecracker)");
        f->direct_kernel = true;
        f->direct_kernel_evidence = ev;
}
