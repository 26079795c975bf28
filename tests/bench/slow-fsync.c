/* LD_PRELOAD shim for tests/bench/durability.sh: every fsync and
 * fdatasync sleeps HT_FSYNC_DELAY_MS milliseconds (default 10) before it
 * runs, standing for a busy database host's disk, where one flush waits
 * behind the database's own I/O; HT_FSYNC_SKIP=1 makes them return at
 * once without flushing (the "fsync disabled" baseline). Each call
 * sleeps on its own thread and nothing here is shared but what the
 * constructor sets before main, so fsyncs issued at once (apply's group
 * commit) overlap as they would on a disk, not one after another. Built
 * by the bench script: cc -shared -fPIC -o slow-fsync.so slow-fsync.c -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

static int (*real_fsync)(int), (*real_fdatasync)(int);

__attribute__((constructor)) static void resolve(void) {
        real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
        real_fdatasync = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
}

static void delay(void) {
        const char *s = getenv("HT_FSYNC_DELAY_MS");
        long ms = s ? atol(s) : 10;
        struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
        while (ms > 0 && nanosleep(&ts, &ts) != 0)
                ;
}

static int skip(void) {
        const char *s = getenv("HT_FSYNC_SKIP");
        return s && s[0] == '1';
}

int fsync(int fd) {
        if (skip())
                return 0;
        delay();
        return real_fsync(fd);
}

int fdatasync(int fd) {
        if (skip())
                return 0;
        delay();
        return real_fdatasync(fd);
}
