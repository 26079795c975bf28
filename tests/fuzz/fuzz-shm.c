/* libFuzzer target for /proc/sysvipc/shm: any text gives segments and
 * warnings, never a crash, and the total is the sum of the sizes. */
#include "config.h"

#include "facts-internal.h"
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = xmalloc(size + 1);
        memcpy(text, data, size);
        text[size] = 0;

        ht_facts *f = ht_facts_new();
        ht_facts_parse_shm(f, text, size, "shm");
        if (f->shm_known) {
                uint64_t sum = 0;
                bool overflow = false;
                for (size_t i = 0; i < f->n_shm; i++)
                        overflow = overflow || __builtin_add_overflow(sum, f->shm[i].size_bytes, &sum);
                if (!overflow)
                        FUZZ_ASSERT(sum == f->shm_total_bytes);
        }
        ht_facts_free(f);
        free(text);
        return 0;
}
