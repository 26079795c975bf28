/* libFuzzer target for the other fact sources hosttune reads as text:
 * os-release, /etc/redhat-release and kin, /proc/cpuinfo,
 * /proc/self/mountinfo and /proc/cmdline; and the kernel version compare
 * the boot facts sort entries with. Every parser sees the same input. */
#include "config.h"

#include "facts-internal.h"
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = xmalloc(size + 1);
        memcpy(text, data, size);
        text[size] = 0;

        ht_facts *f = ht_facts_new();
        ht_facts_parse_os_release(f, text, size, "os-release");
        ht_facts_parse_cpuinfo(f, text, size, "cpuinfo");
        ht_facts_parse_mountinfo(f, text, size, "mountinfo");
        for (size_t i = 0; i < f->n_hugetlbfs; i++)
                FUZZ_ASSERT(f->hugetlbfs[i].target);
        json_object *j = ht_facts_to_json(f);
        FUZZ_ASSERT(j);
        json_object_put(j);
        ht_facts_free(f);

        char *id = NULL, *version = NULL, *pretty = NULL;
        if (ht_parse_release_file("redhat-release", text, &id, &version, &pretty) == 0)
                FUZZ_ASSERT(id);
        free(id);
        free(version);
        free(pretty);

        free(ht_cmdline_value(text, "transparent_hugepage"));
        char *u = ht_shell_unquote(text);
        free(u);
        (void)ht_valid_utf8(text);

        size_t half = strlen(text) / 2;
        char *b = xstrdup(text + half);
        text[half] = 0;
        int c1 = ht_version_compare(text, b), c2 = ht_version_compare(b, text);
        FUZZ_ASSERT((c1 > 0) == (c2 < 0) && (c1 == 0) == (c2 == 0));
        FUZZ_ASSERT(ht_version_compare(b, b) == 0);
        free(b);
        free(text);
        return 0;
}
