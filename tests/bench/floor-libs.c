/* floor-libs: the least a `hosttune plan` could cost with the libraries
 * DESIGN.md chose. Like floor.c it reads the files plan reads and lists
 * the directories it lists, but it also links libconfig, libmount and
 * json-c, parses every profile and rules file with libconfig, parses the
 * mount table with libmount and puts one number into a json-c object.
 * It does nothing with the results: no facts, no rules, no plan. Like
 * hosttune it drops indentation and whole-line comments before libconfig
 * scans a file (newlines stay): libconfig's scanner is slow on them.
 *
 * floor.c measures the work hosttune must do at all; this measures what
 * the chosen libraries cost for that work. hosttune / floor-libs is the
 * price of hosttune's own code.
 *
 *   floor-libs LIST   LIST: lines "F /abs/path" (read) or "D /abs/dir" (list)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <json-c/json.h>
#include <libconfig.h>
#include <libmount.h>
#include <unistd.h>

#include "floor-list.h"

/* The text without indentation and whole-line # and // comments. */
static size_t strip(const char *in, size_t n, char *out) {
        size_t o = 0, i = 0;
        while (i < n) {
                while (i < n && (in[i] == ' ' || in[i] == '\t'))
                        i++;
                int comment = i < n && (in[i] == '#' || (in[i] == '/' && i + 1 < n && in[i + 1] == '/'));
                while (i < n && in[i] != '\n') {
                        if (!comment)
                                out[o++] = in[i];
                        i++;
                }
                if (i < n)
                        out[o++] = in[i++];
        }
        out[o] = 0;
        return o;
}

static int ends_with(const char *s, const char *suffix) {
        size_t n = strlen(s), m = strlen(suffix);
        return n >= m && strcmp(s + n - m, suffix) == 0;
}

static unsigned long bytes, files, settings, mounts;

static void parse_config(const char *path) {
        static char buf[65536], text[65536];
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return;
        files++;
        size_t len = 0;
        ssize_t n;
        while (len < sizeof(buf) && (n = read(fd, buf + len, sizeof(buf) - len)) > 0)
                len += (size_t)n;
        close(fd);
        bytes += strip(buf, len, text);
        config_t cfg;
        config_init(&cfg);
        if (config_read_string(&cfg, text) == CONFIG_TRUE)
                settings += (unsigned long)config_setting_length(config_root_setting(&cfg));
        else
                fprintf(stderr, "%s:%d: %s\n", path, config_error_line(&cfg), config_error_text(&cfg));
        config_destroy(&cfg);
}

static void read_file(const char *path) {
        static char buf[65536];
        if (ends_with(path, ".profile") || ends_with(path, ".rules")) {
                parse_config(path);
                return;
        }
        if (ends_with(path, "/mountinfo") || ends_with(path, "/proc/mounts")) {
                struct libmnt_table *tb = mnt_new_table();
                if (tb && mnt_table_parse_file(tb, path) == 0) {
                        mounts += (unsigned long)mnt_table_get_nents(tb);
                        files++;
                }
                mnt_unref_table(tb);
                return;
        }
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return;
        files++;
        ssize_t n;
        while ((n = read(fd, buf, sizeof(buf))) > 0)
                bytes += (unsigned long)n;
        close(fd);
}

int main(int argc, char **argv) {
        if (argc != 2) {
                fprintf(stderr, "usage: floor-libs LIST\n");
                return 2;
        }
        if (floor_walk(argv[1], read_file))
                return 1;
        json_object *o = json_object_new_object();
        json_object_object_add(o, "bytes", json_object_new_int64((int64_t)bytes));
        printf("%lu files, %lu directory entries, %s bytes, %lu top-level settings, %lu mounts\n", files,
               floor_entries, json_object_get_string(json_object_object_get(o, "bytes")), settings, mounts);
        json_object_put(o);
        return 0;
}
