/* libFuzzer target for the tmpfiles.d "w" lines hosttune writes and reads
 * back (edit-tmpfiles.h): any input gives, for a path, nothing or one
 * line's argument with its blanks folded; and a value the writer accepts
 * comes back unchanged after the input's own lines. Input: a file; its
 * first line is also tried as a value. */
#include "config.h"

#include "edit-tmpfiles.h"
#include "fuzz-common.h"

static const char *const paths[] = {
        "/sys/devices/system/cpu/cpufreq/policy*/scaling_governor",
        "/sys/devices/system/cpu/cpu[0-9]*/power/energy_perf_bias",
        "/sys/kernel/mm/transparent_hugepage/enabled",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *parts[1];
        size_t lens[1];
        fuzz_split(data, size, parts, lens, 1);
        const char *content = parts[0];

        for (size_t i = 0; i < ELEMENTSOF(paths); i++) {
                char *v = ht_tmpfiles_w_argument(content, paths[i]);
                if (v)
                        FUZZ_ASSERT(*v && !strchr(v, '\n') && !strstr(v, "  ") && !strchr(v, '\t') &&
                                    v[0] != ' ' && v[strlen(v) - 1] != ' ');
                free(v);
        }

        char *value = xstrndup(content, strcspn(content, "\n"));
        if (ht_tmpfiles_value_ok(value) && !strstr(value, "  ")) {
                strbuf b = {0};
                strbuf_append(&b, content);
                strbuf_append(&b, "\n");
                ht_tmpfiles_append_w(&b, paths[0], value);
                char *all = strbuf_steal(&b);
                char *back = ht_tmpfiles_w_argument(all, paths[0]);
                FUZZ_ASSERT(back && streq(back, value));
                free(back);
                free(all);
        }
        free(value);
        fuzz_parts_free(parts, 1);
        return 0;
}
