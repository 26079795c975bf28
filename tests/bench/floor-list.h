/* What floor.c and floor-libs.c share: the walk over the list of what
 * `plan` reads, lines "F /abs/path" (a file) or "D /abs/dir" (a directory
 * it lists). Directories are listed here; each file goes to on_file. */
#pragma once

#include <dirent.h>
#include <stdio.h>
#include <string.h>

static unsigned long floor_entries;

static int floor_walk(const char *list_path, void (*on_file)(const char *path)) {
        char line[4096];
        FILE *list = fopen(list_path, "re");
        if (!list) {
                perror(list_path);
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
                                floor_entries++;
                        closedir(d);
                        continue;
                }
                on_file(path);
        }
        fclose(list);
        return 0;
}
