/* floor: the least a `hosttune plan` could cost — a libc-only process that
 * reads the same files and lists the same directories as plan does (the
 * list comes from strace, see files-read.sh) and prints a byte count.
 * hosttune / floor is the price of everything hosttune does on top:
 * libraries, parsing, rules, the plan and its rendering.
 *
 *   floor LIST       LIST: lines "F /abs/path" (read) or "D /abs/dir" (list)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>

#include "floor-list.h"

static unsigned long bytes, files;

static void read_file(const char *path) {
        static char buf[65536];
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return;
        ssize_t n;
        while ((n = read(fd, buf, sizeof(buf))) > 0)
                bytes += (unsigned long)n;
        close(fd);
        files++;
}

int main(int argc, char **argv) {
        if (argc != 2) {
                fprintf(stderr, "usage: floor LIST\n");
                return 2;
        }
        if (floor_walk(argv[1], read_file))
                return 1;
        printf("%lu files, %lu directory entries, %lu bytes\n", files, floor_entries, bytes);
        return 0;
}
