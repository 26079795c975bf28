/* hugehog: another program that takes the HugePages first (scenario
 * mariadb, the start gate of issue 37): maps N pages of the default
 * HugePage size (or "all": HugePages_Free minus HugePages_Rsvd of
 * /proc/meminfo) with mmap(MAP_HUGETLB), touches each so they are taken,
 * not only reserved, says how many on its output, and holds them until
 * it is killed. Built statically by the scenario's build hook (the guest
 * has no compiler). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static long meminfo(const char *key) {
        FILE *f = fopen("/proc/meminfo", "r");
        char line[256];
        long v = -1;
        size_t n = strlen(key);
        if (!f)
                return -1;
        while (fgets(line, sizeof(line), f))
                if (!strncmp(line, key, n) && line[n] == ':') {
                        v = strtol(line + n + 1, NULL, 10);
                        break;
                }
        fclose(f);
        return v;
}

int main(int argc, char **argv) {
        long size_kb = meminfo("Hugepagesize"), pages;
        if (argc != 2 || size_kb <= 0) {
                fprintf(stderr, "usage: hugehog N|all\n");
                return 2;
        }
        pages = strcmp(argv[1], "all") ? strtol(argv[1], NULL, 10)
                                       : meminfo("HugePages_Free") - meminfo("HugePages_Rsvd");
        if (pages <= 0) {
                fprintf(stderr, "hugehog: no HugePages to take (%ld)\n", pages);
                return 1;
        }
        size_t len = (size_t)pages * (size_t)size_kb * 1024;
        char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
        if (p == MAP_FAILED) {
                perror("hugehog: mmap(MAP_HUGETLB)");
                return 1;
        }
        for (size_t off = 0; off < len; off += (size_t)size_kb * 1024)
                p[off] = 1;
        printf("hugehog: holding %ld HugePages\n", pages);
        fflush(stdout);
        for (;;)
                pause();
}
