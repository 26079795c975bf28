/* tuned-expand FACTS_JSON: each stdin line through
 * ht_tuned_expand_functions, one answer a line: "OK RESULT" or
 * "ERR -ERRNO MESSAGE". Newlines in a line, a result or a message are
 * written as \x01, so one value stays one line. For
 * tests/integration/tuned-functions-python.sh, which asks tuned too. */
#include "config.h"

#include <stdio.h>

#include "tuned-functions.h"
#include "util.h"

static void put(const char *prefix, char *s) {
        for (char *p = s; *p; p++)
                if (*p == '\n')
                        *p = 1;
        printf("%s%s\n", prefix, s);
}

int main(int argc, char **argv) {
        if (argc != 2) {
                fprintf(stderr, "usage: tuned-expand FACTS_JSON <values\n");
                return 2;
        }
        json_object *facts = json_tokener_parse(argv[1]);
        if (!facts) {
                fprintf(stderr, "tuned-expand: the facts are no JSON\n");
                return 2;
        }
        char *line = NULL;
        size_t cap = 0;
        ssize_t len;
        while ((len = getline(&line, &cap, stdin)) >= 0) {
                if (len && line[len - 1] == '\n')
                        line[--len] = 0;
                for (char *p = line; *p; p++)
                        if (*p == 1)
                                *p = '\n';
                char *out = NULL, *error = NULL;
                int r = ht_tuned_expand_functions(line, facts, &out, &error);
                if (r < 0) {
                        char prefix[32];
                        snprintf(prefix, sizeof(prefix), "ERR %d ", r);
                        put(prefix, error);
                } else
                        put("OK ", out);
                free(out);
                free(error);
        }
        free(line);
        json_object_put(facts);
        return 0;
}
