/* Shared by the edit tests: temp files and running a real tool (diff,
 * patch, sh) as an oracle through fork+execvp, never a shell string. */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

/* Write data to a new file under dir; returns its path (owned). */
static inline char *th_write_file(const char *dir, const char *name, const char *data, size_t len) {
        char *path = xasprintf("%s/%s", dir, name);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
                abort();
        size_t off = 0;
        while (off < len) {
                ssize_t k = write(fd, data + off, len - off);
                if (k <= 0)
                        abort();
                off += k;
        }
        close(fd);
        return path;
}

static inline char *th_read_file(const char *path, size_t *ret_len) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return NULL;
        strbuf b = {};
        char buf[4096];
        ssize_t k;
        while ((k = read(fd, buf, sizeof buf)) > 0)
                strbuf_appendn(&b, buf, k);
        close(fd);
        if (ret_len)
                *ret_len = b.len;
        if (!b.data)
                return xstrdup("");
        return strbuf_steal(&b);
}

static inline char *th_mkdtemp(void) {
        char *d = xstrdup("/tmp/ht-test-XXXXXX");
        if (!mkdtemp(d))
                abort();
        return d;
}

/* Remove a flat temp directory made by th_mkdtemp. */
static inline void th_rmdir(const char *dir) {
        pid_t pid = fork();
        if (pid == 0) {
                execlp("rm", "rm", "-rf", "--", dir, (char *)NULL);
                _exit(127);
        }
        int st;
        waitpid(pid, &st, 0);
}

/* Run argv (PATH lookup), stdin from /dev/null, capture stdout. Returns
 * the exit status (or -1), stdout in *ret_out when given. */
static inline int th_run(char *const argv[], char **ret_out) {
        int p[2];
        if (pipe2(p, O_CLOEXEC) < 0)
                abort();
        pid_t pid = fork();
        if (pid < 0)
                abort();
        if (pid == 0) {
                int null = open("/dev/null", O_RDWR);
                dup2(null, 0);
                dup2(p[1], 1);
                dup2(null, 2);
                execvp(argv[0], argv);
                _exit(127);
        }
        close(p[1]);
        strbuf b = {};
        char buf[4096];
        ssize_t k;
        while ((k = read(p[0], buf, sizeof buf)) > 0)
                strbuf_appendn(&b, buf, k);
        close(p[0]);
        int st;
        if (waitpid(pid, &st, 0) < 0)
                abort();
        if (ret_out)
                *ret_out = b.data ? strbuf_steal(&b) : xstrdup("");
        else
                strbuf_done(&b);
        return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static inline bool th_have(const char *prog) {
        char *argv[] = { (char *)prog, (char *)"--version", NULL };
        return th_run(argv, NULL) == 0;
}
