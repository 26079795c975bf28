/* libFuzzer target for /proc/meminfo and the sysfs choice files
 * ("always [madvise] never"): any text gives facts and warnings, never a
 * crash; figures read are either known or HT_U64_UNKNOWN. */
#include "config.h"

#include "facts-internal.h"
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = xmalloc(size + 1);
        memcpy(text, data, size);
        text[size] = 0;

        ht_facts *f = ht_facts_new();
        (void)ht_facts_check_nul(f, text, size, "meminfo");
        ht_facts_parse_meminfo(f, text, size, "meminfo");
        if (f->memory_known)
                FUZZ_ASSERT(f->mem_total_kb != HT_U64_UNKNOWN);
        ht_facts_free(f);

        char *word = NULL;
        if (ht_parse_bracketed(text, &word) == 0) {
                FUZZ_ASSERT(word && !strchr(word, '[') && !strchr(word, ']'));
                free(word);
        }
        free(text);
        return 0;
}
