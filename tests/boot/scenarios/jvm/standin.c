/* A JVM stand-in for the boot scenario "jvm" (issue 39): the guest image
 * has no JDK and 1 GB of memory, so this program, installed as
 * /usr/local/bin/java (its comm is what hosttune's facts classify), takes
 * a JVM's command line (-Xmx, -XX:+UseLargePages) and behaves as HotSpot
 * does with it where it matters here: it maps its heap with
 * mmap(MAP_HUGETLB), some time after it starts (-Dht.delay=SECONDS; a
 * JVM reserves its heap 1-2 s after exec), and says so on its output as
 * HotSpot would ("Failed to reserve and commit memory" when the pool is
 * short). Built statically by the scenario's build hook. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static unsigned long long size_of(const char *v) {
        char *end;
        unsigned long long n = strtoull(v, &end, 10);
        switch (*end) {
        case 'k': case 'K': return n << 10;
        case 'm': case 'M': return n << 20;
        case 'g': case 'G': return n << 30;
        default: return n;
        }
}

int main(int argc, char **argv) {
        unsigned long long heap = 64ULL << 20;
        unsigned delay = 0;
        int large = 0;
        for (int i = 1; i < argc; i++) {
                if (!strncmp(argv[i], "-Xmx", 4))
                        heap = size_of(argv[i] + 4);
                else if (!strcmp(argv[i], "-XX:+UseLargePages"))
                        large = 1;
                else if (!strcmp(argv[i], "-XX:-UseLargePages"))
                        large = 0;
                else if (!strncmp(argv[i], "-Dht.delay=", 11))
                        delay = (unsigned)atoi(argv[i] + 11);
        }
        sleep(delay);
        void *p = mmap(NULL, heap, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | (large ? MAP_HUGETLB : 0), -1, 0);
        if (p == MAP_FAILED) {
                printf("Failed to reserve and commit memory: %llu bytes (errno = 12)\n", heap);
                fflush(stdout);
                if (!large)
                        return 1;
        } else {
                /* when, on the clock systemd's *TimestampMonotonic use */
                struct timespec ts;
                clock_gettime(CLOCK_MONOTONIC, &ts);
                printf("heap of %llu bytes mapped%s at monotonic %lld us\n", heap, large ? " in HugePages" : "",
                       (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
        }
        fflush(stdout);
        for (;;)
                pause();
}
