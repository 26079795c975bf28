/* Test driver: print the facts of a root as pretty JSON, so integration
 * tests can check the library without the CLI.
 *   facts-dump [--root DIR] */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "context.h"
#include "facts.h"
#include "util.h"

int main(int argc, char **argv) {
        const char *root = "/";
        for (int i = 1; i < argc; i++) {
                if (streq(argv[i], "--root") && i + 1 < argc)
                        root = argv[++i];
                else if (startswith(argv[i], "--root="))
                        root = argv[i] + 7;
                else {
                        fprintf(stderr, "usage: %s [--root DIR]\n", argv[0]);
                        return 1;
                }
        }
        ht_context *c;
        int r = ht_context_new(root, &c);
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", root, strerror(-r));
                return 1;
        }
        ht_facts *f;
        r = ht_facts_collect(c, HT_FACTS_WITH_WORKLOAD, &f);
        if (r < 0) {
                fprintf(stderr, "collecting facts: %s\n", strerror(-r));
                ht_context_free(c);
                return 1;
        }
        json_object *j = ht_facts_to_json(f);
        puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
                                                       JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(j);
        ht_facts_free(f);
        ht_context_free(c);
        return 0;
}
