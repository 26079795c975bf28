#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <linux/securebits.h>

#include "dlib.h"
#include "spawn.h"
#include "util.h"

#define MAX_OUTPUT (64u * 1024)

static const char *const search_path[] = {"/usr/sbin", "/usr/bin", "/sbin", "/bin", NULL};

/* The tool's path inside the root, or NULL. */
static char *find_tool(const ht_context *c, const char *name) {
        if (strchr(name, '/'))
                return ht_exists(c, name) ? xstrdup(name) : NULL;
        for (size_t i = 0; search_path[i]; i++) {
                char *p = xasprintf("%s/%s", search_path[i], name);
                if (ht_exists(c, p))
                        return p;
                free(p);
        }
        return NULL;
}

bool ht_spawn_available(const ht_context *c, char *const *argv) {
        _cleanup_free_ char *p = argv && argv[0] ? find_tool(c, argv[0]) : NULL;
        return p != NULL;
}

/* The tool of a --root tree given with --live-root (its grub-mkconfig)
 * is the tree's, not ours: whoever wrote the tree chose what it does. It
 * runs as uid 0, since it writes root's files in the tree (grub.cfg in
 * /boot/grub) and reads root's devices as their owner, but with nothing
 * else of root's (issue 32, DESIGN.md "Running a tree's tools"):
 *   - a mount namespace of its own whose root is the tree (pivot_root, the
 *     old root detached: no path leads out, unlike a chroot's);
 *   - a PID namespace of its own, with a procfs of its own (read-only)
 *     on the tree's /proc, so it sees and signals no other
 *     process and finds no /proc/PID/root of ours; a sysfs of its own,
 *     read-only, without the cgroup and other mounts below /sys;
 *   - no capabilities at all (bounding, ambient, inheritable too), uid 0
 *     gaining none at exec (SECBIT_NOROOT, locked), and no_new_privs, so
 *     no setuid file in the tree gives any back.
 * In the child, before execve; -errno and *ret_what on failure. */
static int confine(const char *root, const char **ret_what) {
        struct statfs sfs;
#define STEP(what, call)                   \
        do {                               \
                if ((call) < 0) {          \
                        *ret_what = what;  \
                        return -errno;     \
                }                          \
        } while (0)
        STEP("make the mounts private", mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
        STEP("bind-mount the tree", mount(root, root, NULL, MS_BIND | MS_REC, NULL));
        STEP("enter the tree", chdir(root));
        STEP("pivot_root into the tree", (int)syscall(SYS_pivot_root, ".", "."));
        STEP("detach the old root", umount2(".", MNT_DETACH));
        STEP("enter the tree", chdir("/"));
        /* whatever the tree's /proc was (the kernel's, or plain files) */
        struct stat st;
        if (stat("/proc", &st) == 0 && S_ISDIR(st.st_mode))
                STEP("mount a procfs of its own",
                     mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY, NULL));
        /* a sysfs of its own, read-only, over the tree's: the one mounted
         * there may carry writable ones (cgroupfs: cgroup.kill reaches
         * any process) */
        if (statfs("/sys", &sfs) == 0 && sfs.f_type == SYSFS_MAGIC)
                STEP("mount a read-only sysfs",
                     mount("sysfs", "/sys", "sysfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL));
        unsigned long bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
                             SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED;
#ifdef SECBIT_NO_CAP_AMBIENT_RAISE
        bits |= SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;
#endif
        STEP("lock the securebits", prctl(PR_SET_SECUREBITS, bits, 0, 0, 0));
        /* every capability the kernel knows: past the last, EINVAL */
        for (unsigned long cap = 0; cap < 64; cap++)
                if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno != EINVAL)
                        STEP("drop the capability bounding set", -1);
        /* ambient capabilities came with Linux 4.3: none to clear before */
        if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
                STEP("clear the ambient capabilities", -1);
        struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
        struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {{0}};
        STEP("drop every capability", (int)syscall(SYS_capset, &hdr, data));
        STEP("set no_new_privs", prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
#undef STEP
        return 0;
}

/* The child's end: a clean environment, no shell. */
_Noreturn static void exec_tool(const char *tool, char *const *argv) {
        char *const envp[] = {
                "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", NULL,
        };
        signal(SIGPIPE, SIG_DFL);
        execve(tool, argv, envp);
        fprintf(stderr, "cannot run %s: %s\n", tool, strerror(errno));
        _exit(127);
}

/* In the child: the tool confined in the tree, as PID 1 of a new PID
 * namespace (a grandchild: unshare(CLONE_NEWPID) moves only the children
 * made after it), its exit status passed on. */
_Noreturn static void run_confined(const char *root, const char *tool, char *const *argv) {
        if (unshare(CLONE_NEWNS | CLONE_NEWPID) < 0) {
                fprintf(stderr, "cannot confine %s in new mount and PID namespaces: %s\n", tool, strerror(errno));
                _exit(127);
        }
        pid_t pid = fork();
        if (pid < 0) {
                fprintf(stderr, "cannot fork %s: %s\n", tool, strerror(errno));
                _exit(127);
        }
        if (pid == 0) {
                const char *what = NULL;
                int r = confine(root, &what);
                if (r < 0) {
                        fprintf(stderr, "cannot confine %s: cannot %s: %s\n", tool, what, strerror(-r));
                        _exit(127);
                }
                exec_tool(tool, argv);
        }
        int status;
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR)
                        _exit(127);
        _exit(WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status));
}

int ht_spawn(const ht_context *c, char *const *argv, char **ret_output) {
        /* No program of a tree that is not "/" runs unless the
         * administrator said the tree is the running system (issue 32):
         * an image's tools are whoever built it's. */
        if (c->offline_root && !c->live_root_forced)
                return -EPERM;
        _cleanup_free_ char *tool = find_tool(c, argv[0]);
        if (!tool)
                return -ENOENT;
        int pipefd[2];
        if (pipe2(pipefd, O_CLOEXEC) < 0)
                return -errno;
        pid_t pid = fork();
        if (pid < 0) {
                int r = -errno;
                close(pipefd[0]);
                close(pipefd[1]);
                return r;
        }
        if (pid == 0) {
                /* child: output into the pipe, a clean environment, no shell */
                dup2(pipefd[1], STDOUT_FILENO);
                dup2(pipefd[1], STDERR_FILENO);
                int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
                if (devnull >= 0)
                        dup2(devnull, STDIN_FILENO);
                if (c->offline_root)
                        run_confined(c->root, tool, argv);
                exec_tool(tool, argv);
        }
        close(pipefd[1]);
        strbuf out = {0};
        char buf[4096];
        for (;;) {
                ssize_t n = read(pipefd[0], buf, sizeof buf);
                if (n < 0 && errno == EINTR)
                        continue;
                if (n <= 0)
                        break;
                if (out.len < MAX_OUTPUT)
                        strbuf_appendn(&out, buf, (size_t)n);
        }
        close(pipefd[0]);
        int status;
        while (waitpid(pid, &status, 0) < 0)
                if (errno != EINTR) {
                        strbuf_done(&out);
                        return -errno;
                }
        /* the program may have changed files the context keeps */
        ht_context_cache_drop(c);
        if (ret_output)
                *ret_output = strbuf_steal(&out);
        else
                strbuf_done(&out);
        if (WIFSIGNALED(status))
                return 128 + WTERMSIG(status);
        return WEXITSTATUS(status);
}

int ht_daemon_reload(char **ret_error) {
        const ht_systemd_fns *sd = ht_systemd_lib();
        if (!sd) {
                *ret_error = xstrdup("cannot load libsystemd.so.0 to reload systemd");
                return -ENOSYS;
        }
        sd_bus *bus = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int r = sd->bus_open_system(&bus);
        if (r < 0)
                return ht_error(ret_error, r, "cannot connect to the system bus: %s", ht_strerror(-r));
        r = sd->bus_call_method(bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                               "org.freedesktop.systemd1.Manager", "Reload", &error, NULL, "");
        if (r < 0)
                *ret_error = xasprintf("systemd daemon-reload failed: %s",
                                       error.message ? error.message : ht_strerror(-r));
        sd->bus_error_free(&error);
        sd->bus_unref(bus);
        return r < 0 ? r : 0;
}
