/* shm-workload: an Oracle SGA in miniature. P processes attach one SysV
 * shared memory segment of S MB and touch every page (one byte per 4 KB
 * page, so huge pages are touched as often as small ones); when all of
 * them have, the parent reads PageTables from /proc/meminfo and prints how
 * much it grew, the sum of the processes' own page tables (VmPTE in
 * /proc/PID/status: the global figure also moves with everything else on a
 * shared machine), and how long the touching took (from the fork of the
 * first process to the last one done).
 *
 *   shm-workload -p PROCS -s MB [-H]     -H: SHM_HUGETLB (HugePages)
 *
 * Output, one line: procs=P size_mb=S hugetlb=0|1 wall_ms=T vmpte_kb=V
 * base_kb=B pagetables_kb=K (V: the sum of VmPTE; B: P times this
 * process's VmPTE before the segment, what P processes of this program
 * have without it; K: PageTables while all are attached, minus before). Exit 3 when the
 * segment cannot be created (e.g. -H without enough free HugePages). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SHM_HUGETLB
#define SHM_HUGETLB 04000
#endif

static long meminfo_kb(const char *key) {
        FILE *f = fopen("/proc/meminfo", "re");
        char line[256];
        long v = -1;
        size_t n = strlen(key);
        if (!f)
                return -1;
        while (fgets(line, sizeof(line), f))
                if (strncmp(line, key, n) == 0 && line[n] == ':') {
                        v = strtol(line + n + 1, NULL, 10);
                        break;
                }
        fclose(f);
        return v;
}

static long vmpte_kb(pid_t pid) {
        char path[64], line[256];
        long v = -1;
        snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
        FILE *f = fopen(path, "re");
        if (!f)
                return -1;
        while (fgets(line, sizeof(line), f))
                if (strncmp(line, "VmPTE:", 6) == 0) {
                        v = strtol(line + 6, NULL, 10);
                        break;
                }
        fclose(f);
        return v;
}

static double now_ms(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv) {
        int procs = 1, huge = 0, opt;
        long size_mb = 64;
        while ((opt = getopt(argc, argv, "p:s:H")) != -1) {
                switch (opt) {
                case 'p': procs = atoi(optarg); break;
                case 's': size_mb = atol(optarg); break;
                case 'H': huge = 1; break;
                default:
                        fprintf(stderr, "usage: shm-workload -p PROCS -s MB [-H]\n");
                        return 2;
                }
        }
        if (procs < 1 || size_mb < 1) {
                fprintf(stderr, "shm-workload: bad -p or -s\n");
                return 2;
        }
        size_t size = (size_t)size_mb << 20;
        int id = shmget(IPC_PRIVATE, size, IPC_CREAT | 0600 | (huge ? SHM_HUGETLB : 0));
        if (id < 0) {
                fprintf(stderr, "shm-workload: shmget %ld MB%s: %s\n", size_mb, huge ? " SHM_HUGETLB" : "",
                        strerror(errno));
                return 3;
        }
        /* removed now: it goes away when the last process detaches, even
         * if this one is killed */
        long before = meminfo_kb("PageTables"), base = vmpte_kb(getpid());
        int ready[2], go[2];
        if (pipe(ready) < 0 || pipe(go) < 0) {
                shmctl(id, IPC_RMID, NULL);
                return 1;
        }
        pid_t *pids = calloc((size_t)procs, sizeof(pid_t));
        if (!pids)
                return 1;
        double t0 = now_ms();
        for (int i = 0; i < procs; i++) {
                pid_t pid = pids[i] = fork();
                if (pid < 0) {
                        perror("shm-workload: fork");
                        break;
                }
                if (pid == 0) {
                        close(ready[0]);
                        close(go[1]);
                        volatile char *p = shmat(id, NULL, 0);
                        if (p == (void *)-1)
                                _exit(1);
                        for (size_t off = 0; off < size; off += 4096)
                                p[off] = (char)i;
                        char c = 1;
                        if (write(ready[1], &c, 1) != 1)
                                _exit(1);
                        /* stay attached until the parent has measured */
                        if (read(go[0], &c, 1) < 0)
                                _exit(1);
                        shmdt((const void *)p);
                        _exit(0);
                }
        }
        close(ready[1]);
        close(go[0]);
        int done = 0;
        char c;
        while (done < procs && read(ready[0], &c, 1) == 1)
                done++;
        double wall = now_ms() - t0;
        long during = meminfo_kb("PageTables"), vmpte = 0;
        for (int i = 0; i < procs; i++)
                if (pids[i] > 0)
                        vmpte += vmpte_kb(pids[i]);
        close(go[1]); /* EOF: children detach and exit */
        shmctl(id, IPC_RMID, NULL);
        int failed = 0, st;
        while (wait(&st) > 0)
                if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
                        failed++;
        if (done < procs || failed) {
                fprintf(stderr, "shm-workload: %d of %d processes failed\n", procs - done + failed, procs);
                return 1;
        }
        printf("procs=%d size_mb=%ld hugetlb=%d wall_ms=%.1f vmpte_kb=%ld base_kb=%ld pagetables_kb=%ld\n", procs,
               size_mb, huge, wall, vmpte, base * procs, during - before);
        free(pids);
        return 0;
}
