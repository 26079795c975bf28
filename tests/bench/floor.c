/* floor: the least a `hosttune plan` could cost — a libc-only process that
 * reads the same files and lists the same directories as plan does (the
 * list comes from strace, see files-read.sh) and prints a byte count.
 * hosttune / floor is the price of everything hosttune does on top:
 * libraries, parsing, rules, the plan and its rendering.
 *
 *   floor LIST       LIST: lines "F /abs/path" (read) or "D /abs/dir" (list)
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
        static char buf[65536];
        char line[4096];
        unsigned long bytes = 0, files = 0, entries = 0;

        if (argc != 2) {
                fprintf(stderr, "usage: floor LIST\n");
                return 2;
        }
        FILE *list = fopen(argv[1], "re");
        if (!list) {
                perror(argv[1]);
                return 1;
        }
        while (fgets(line, sizeof(line), list)) {
                line[strcspn(line, "\n")] = 0;
                if (strlen(line) < 3)
                        continue;
                const char *path = line + 2;
                if (line[0] == 'D') {
                        DIR *d = opendir(path);
                        if (!d)
                                continue;
                        while (readdir(d))
                                entries++;
                        closedir(d);
                        continue;
                }
                int fd = open(path, O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                        continue;
                ssize_t n;
                while ((n = read(fd, buf, sizeof(buf))) > 0)
                        bytes += (unsigned long)n;
                close(fd);
                files++;
        }
        fclose(list);
        printf("%lu files, %lu directory entries, %lu bytes\n", files, entries, bytes);
        return 0;
}
