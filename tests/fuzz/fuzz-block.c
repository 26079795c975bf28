/* libFuzzer target for format-block: any queue/scheduler text gives an
 * offered list exactly when it has a bracket, and a selected word only
 * then, never empty; any name gets a kind, and the kinds the block backend never
 * touches are never stacked. */
#include "config.h"

#include "format-block.h"
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = xmalloc(size + 1);
        memcpy(text, data, size);
        text[size] = 0;

        char **offered = ht_block_scheduler_offered(text);
        char *selected = ht_block_scheduler_selected(text);
        FUZZ_ASSERT(!offered == !strchr(text, '['));
        if (selected) {
                FUZZ_ASSERT(offered && *selected && !strchr(selected, ']'));
        }
        ht_block_kind k = ht_block_kind_of(text);
        FUZZ_ASSERT(!(ht_block_kind_never_touched(k) && ht_block_kind_stacked(k)));
        FUZZ_ASSERT(ht_block_kind_to_string(k)[0]);
        strv_free(offered);
        free(selected);
        free(text);
        return 0;
}
