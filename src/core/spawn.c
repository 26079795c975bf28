#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

int ht_spawn(const ht_context *c, char *const *argv, char **ret_output) {
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
                if (c->offline_root && (chroot(c->root) < 0 || chdir("/") < 0)) {
                        fprintf(stderr, "cannot chroot into %s: %s\n", c->root, strerror(errno));
                        _exit(127);
                }
                char *const envp[] = {
                        "PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL=C", NULL,
                };
                signal(SIGPIPE, SIG_DFL);
                execve(tool, argv, envp);
                fprintf(stderr, "cannot run %s: %s\n", tool, strerror(errno));
                _exit(127);
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
        if (r < 0) {
                *ret_error = xasprintf("cannot connect to the system bus: %s", ht_strerror(-r));
                return r;
        }
        r = sd->bus_call_method(bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                               "org.freedesktop.systemd1.Manager", "Reload", &error, NULL, "");
        if (r < 0)
                *ret_error = xasprintf("systemd daemon-reload failed: %s",
                                       error.message ? error.message : ht_strerror(-r));
        sd->bus_error_free(&error);
        sd->bus_unref(bus);
        return r < 0 ? r : 0;
}
