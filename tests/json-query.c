/* json-query FILE PATH: print the value at PATH in the JSON document FILE,
 * for the shell integration tests (which must not depend on jq).
 *
 * PATH is dot-separated: object keys or array indexes ("changes.0.key");
 * "." is the document; a trailing "#" component prints an array's length
 * (or an object's key count). Strings print raw, everything else as JSON
 * ("null", "true", 42). A "*" component walks every element of an array,
 * printing one line each ("transactions.*.status"). A missing component
 * prints nothing, exit 1. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_value(json_object *o) {
        if (json_object_is_type(o, json_type_string))
                printf("%s\n", json_object_get_string(o));
        else
                printf("%s\n", o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN) : "null");
}

/* Print what parts[0..] selects below o; 1 when something is missing. */
static int query(json_object *o, char **parts) {
        char *part = parts[0];
        if (!part) {
                print_value(o);
                return 0;
        }
        if (strcmp(part, "#") == 0) {
                size_t n = json_object_is_type(o, json_type_array) ? json_object_array_length(o)
                         : json_object_is_type(o, json_type_object) ? (size_t)json_object_object_length(o)
                         : 0;
                printf("%zu\n", n);
                return 0;
        }
        if (strcmp(part, "*") == 0) {
                if (!json_object_is_type(o, json_type_array))
                        return 1;
                int rc = 0;
                for (size_t i = 0; i < json_object_array_length(o); i++)
                        rc |= query(json_object_array_get_idx(o, i), parts + 1);
                return rc;
        }
        json_object *next = NULL;
        if (json_object_is_type(o, json_type_array)) {
                char *end;
                long i = strtol(part, &end, 10);
                if (*end || i < 0 || (size_t)i >= json_object_array_length(o))
                        return 1;
                next = json_object_array_get_idx(o, (size_t)i);
        } else if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, part, &next))
                return 1;
        return query(next, parts + 1);
}

int main(int argc, char **argv) {
        if (argc != 3) {
                fprintf(stderr, "usage: json-query FILE PATH\n");
                return 2;
        }
        json_object *doc = json_object_from_file(argv[1]);
        if (!doc) {
                fprintf(stderr, "json-query: %s: not valid JSON\n", argv[1]);
                return 2;
        }
        char *path = strdup(argv[2]);
        char *parts[256];
        size_t n = 0;
        for (char *save = NULL, *p = strtok_r(path, ".", &save); p && n < 255; p = strtok_r(NULL, ".", &save))
                parts[n++] = p;
        parts[n] = NULL;
        int rc = query(doc, parts);
        free(path);
        json_object_put(doc);
        return rc;
}
