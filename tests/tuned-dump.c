/* Test driver: parse tuned profile files with format-tuned and print one
 * line a (section, key, value), tabs between and \\, \t, \n, \r escaped,
 * as tests/tools/tuned-configparser.py prints Python's reading, so
 * tests/integration/tuned-format.sh can diff the two.
 *   tuned-dump [--headerless] [--lines] FILE...
 * --lines adds each option's line and its comment. An error prints the
 * parser's message and "error" and exits 1 after the remaining files. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "format-tuned.h"
#include "util.h"

static void put_escaped(const char *s) {
        for (; *s; s++)
                switch (*s) {
                case '\\': fputs("\\\\", stdout); break;
                case '\t': fputs("\\t", stdout); break;
                case '\n': fputs("\\n", stdout); break;
                case '\r': fputs("\\r", stdout); break;
                default: putchar(*s);
                }
}

int main(int argc, char **argv) {
        bool headerless = false, lines = false;
        int i = 1, ret = 0;
        for (; i < argc && startswith(argv[i], "--"); i++)
                if (streq(argv[i], "--headerless"))
                        headerless = true;
                else if (streq(argv[i], "--lines"))
                        lines = true;
                else {
                        fprintf(stderr, "usage: %s [--headerless] [--lines] FILE...\n", argv[0]);
                        return 2;
                }
        for (; i < argc; i++) {
                /* a test tool: the file named, not a host path */
                int fd = open(argv[i], O_RDONLY | O_CLOEXEC);
                _cleanup_free_ char *text = NULL;
                size_t len;
                int r = fd < 0 ? -errno : ht_read_fd(fd, 16u << 20, &text, &len);
                if (fd >= 0)
                        close(fd);
                if (r < 0) {
                        fprintf(stderr, "%s: %s\n", argv[i], strerror(-r));
                        return 2;
                }
                _cleanup_(ht_tuned_conf_freep) ht_tuned_conf *c = NULL;
                _cleanup_free_ char *error = NULL;
                r = ht_tuned_conf_parse(text, len, argv[i], headerless, &c, &error);
                if (r < 0) {
                        fprintf(stderr, "%s\n", error);
                        puts("error");
                        ret = 1;
                        continue;
                }
                for (size_t s = 0; s < c->n_sections; s++)
                        for (size_t o = 0; o < c->sections[s].n_options; o++) {
                                const ht_tuned_option *opt = &c->sections[s].options[o];
                                put_escaped(c->sections[s].name);
                                putchar('\t');
                                put_escaped(opt->key);
                                putchar('\t');
                                put_escaped(opt->value);
                                if (lines) {
                                        printf("\t%u\t", opt->line);
                                        if (opt->comment)
                                                put_escaped(opt->comment);
                                        else
                                                fputs("(none)", stdout);
                                }
                                putchar('\n');
                        }
        }
        return ret;
}
