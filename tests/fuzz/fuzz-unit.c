/* libFuzzer target for systemd unit files and drop-ins (src/formats/edit-unit.c):
 * the values of keys in sections, and every Limit*= value read, written
 * back and read again unchanged. Input: one unit file. */
#include "config.h"

#include "edit-unit.h"
#include "fuzz-common.h"

static const char *const sections[] = {"Service", "Install", "Unit"};
static const char *const keys[] = {"LimitNOFILE", "LimitMEMLOCK", "LimitNPROC", "LimitCPU", "Alias", "ExecStart"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        const char *text = (const char *)data;
        for (size_t s = 0; s < ELEMENTSOF(sections); s++)
                for (size_t k = 0; k < ELEMENTSOF(keys); k++) {
                        char **values = NULL;
                        int n = ht_unit_values(text, size, sections[s], keys[k], &values);
                        FUZZ_ASSERT(n >= 0 && (size_t)n == strv_length(values));
                        char *last = NULL;
                        int mentioned = ht_unit_value(text, size, sections[s], keys[k], &last);
                        /* the single value systemd keeps is the list's last */
                        FUZZ_ASSERT(n == 0 ? !last : (mentioned == 1 && streq(last, values[n - 1])));
                        for (int i = 0; i < n; i++) {
                                FUZZ_ASSERT(!strchr(values[i], '\n'));
                                uint64_t soft, hard, soft2, hard2;
                                if (ht_unit_parse_limit(keys[k], values[i], &soft, &hard) < 0)
                                        continue;
                                FUZZ_ASSERT(soft <= hard);
                                char *back = ht_unit_format_limit(soft, hard);
                                FUZZ_ASSERT(ht_unit_parse_limit(keys[k], back, &soft2, &hard2) == 0);
                                FUZZ_ASSERT(soft2 == soft && hard2 == hard);
                                free(back);
                        }
                        free(last);
                        strv_free(values);
                }
        return 0;
}
