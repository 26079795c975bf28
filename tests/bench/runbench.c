/* runbench: run a command N times and print the median wall time, the
 * median CPU time (user + system, the child and everything it waited for)
 * and the peak RSS, all taken from wait4(2) so that nothing but the
 * command itself is measured (no shell in between).
 *
 *   runbench [-n RUNS] [-w WARMUP] [-p PRE] [-q POST] [-x] [-v] [-r] -- COMMAND ARGS...
 *
 * PRE and POST are shell commands run (untimed) before and after each run,
 * e.g. to give `apply` a fresh fixture and roll it back. -x accepts any
 * exit status (plan exits 2 when changes are pending); otherwise a run
 * that exits with a status other than 0 or 2 fails the benchmark.
 * stdout and stderr of the command go to /dev/null unless -v.
 *
 * Output, one line of KEY=VALUE for the shell scripts:
 *   runs=N wall_ms=MEDIAN wall_min_ms=MIN cpu_ms=MEDIAN maxrss_kb=MAX rc=LAST
 * or, with -r, one line per run, "WALL_MS CPU_MS MAXRSS_KB USER_MS SYS_MS"
 * (CPU_MS split into user space and the kernel), so that the
 * caller can interleave several commands in rounds (on a shared machine
 * the load drifts; interleaving spreads the drift over all of them) and
 * take the medians itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
        double x = *(const double *)a, y = *(const double *)b;
        return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
        qsort(v, (size_t)n, sizeof(*v), cmp_double);
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int run_shell(const char *cmd) {
        pid_t pid = fork();
        if (pid < 0)
                return -1;
        if (pid == 0) {
                execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
                _exit(127);
        }
        int st;
        if (waitpid(pid, &st, 0) < 0)
                return -1;
        return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* One timed run; returns the exit status (128+signal when killed). */
static int run_once(char **argv, int verbose, double *wall, double *cpu, double *user, double *sys,
                    long *maxrss) {
        double t0 = now_ms();
        pid_t pid = fork();
        if (pid < 0) {
                perror("runbench: fork");
                exit(1);
        }
        if (pid == 0) {
                if (!verbose) {
                        int fd = open("/dev/null", O_WRONLY);
                        if (fd >= 0) {
                                dup2(fd, 1);
                                dup2(fd, 2);
                        }
                }
                execvp(argv[0], argv);
                _exit(127);
        }
        int st;
        struct rusage ru;
        if (wait4(pid, &st, 0, &ru) < 0) {
                perror("runbench: wait4");
                exit(1);
        }
        *wall = now_ms() - t0;
        *user = (double)ru.ru_utime.tv_sec * 1e3 + (double)ru.ru_utime.tv_usec / 1e3;
        *sys = (double)ru.ru_stime.tv_sec * 1e3 + (double)ru.ru_stime.tv_usec / 1e3;
        *cpu = *user + *sys;
        *maxrss = ru.ru_maxrss;
        return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int main(int argc, char **argv) {
        int runs = 20, warmup = 2, any_status = 0, verbose = 0, raw = 0, opt;
        const char *pre = NULL, *post = NULL;

        while ((opt = getopt(argc, argv, "+n:w:p:q:xvr")) != -1) {
                switch (opt) {
                case 'n': runs = atoi(optarg); break;
                case 'w': warmup = atoi(optarg); break;
                case 'p': pre = optarg; break;
                case 'q': post = optarg; break;
                case 'x': any_status = 1; break;
                case 'v': verbose = 1; break;
                case 'r': raw = 1; break;
                default:
                        fprintf(stderr, "usage: runbench [-n RUNS] [-w WARMUP] [-p PRE] [-q POST] [-x] [-v] [-r] -- CMD...\n");
                        return 2;
                }
        }
        if (optind >= argc || runs < 1 || warmup < 0) {
                fprintf(stderr, "runbench: no command, or a bad -n/-w\n");
                return 2;
        }
        char **cmd = argv + optind;
        double *wall = calloc((size_t)runs, sizeof(double)), *cpu = calloc((size_t)runs, sizeof(double));
        if (!wall || !cpu)
                return 1;
        long maxrss = 0;
        int rc = 0;

        for (int i = -warmup; i < runs; i++) {
                if (pre && run_shell(pre) != 0) {
                        fprintf(stderr, "runbench: pre command failed: %s\n", pre);
                        return 1;
                }
                double w, c, u, k;
                long rss;
                rc = run_once(cmd, verbose, &w, &c, &u, &k, &rss);
                if (post && run_shell(post) != 0) {
                        fprintf(stderr, "runbench: post command failed: %s\n", post);
                        return 1;
                }
                if (!any_status && rc != 0 && rc != 2) {
                        fprintf(stderr, "runbench: %s exited with %d\n", cmd[0], rc);
                        return 1;
                }
                if (i < 0)
                        continue;
                if (raw)
                        printf("%.3f %.3f %ld %.3f %.3f\n", w, c, rss, u, k);
                wall[i] = w;
                cpu[i] = c;
                if (rss > maxrss)
                        maxrss = rss;
        }
        double wmin = wall[0];
        for (int i = 1; i < runs; i++)
                if (wall[i] < wmin)
                        wmin = wall[i];
        double wmed = median(wall, runs), cmed = median(cpu, runs);
        if (!raw)
                printf("runs=%d wall_ms=%.3f wall_min_ms=%.3f cpu_ms=%.3f maxrss_kb=%ld rc=%d\n", runs, wmed, wmin, cmed,
               maxrss, rc);
        free(wall);
        free(cpu);
        return 0;
}
