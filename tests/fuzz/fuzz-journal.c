/* libFuzzer target for the journal's manifest loader: the checks a
 * manifest passes before rollback or recovery trusts a word of it. Any
 * text is accepted or refused with a reason, never a crash. */
#include "config.h"

#include "fuzz-common.h"
#include "journal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *text = xmalloc(size + 1);
        memcpy(text, data, size);
        text[size] = 0;

        char *err = NULL;
        int r = ht_journal_manifest_check(text, size, NULL, &err);
        FUZZ_ASSERT(r == 0 ? !err : r == -EBADMSG && err);
        free(err);
        err = NULL;
        /* as tx_load_at checks it, inside the directory of a given txid */
        r = ht_journal_manifest_check(text, size, "20240101T000000Z-0123abcd", &err);
        FUZZ_ASSERT(r == 0 ? !err : r == -EBADMSG && err);
        free(err);
        free(text);
        return 0;
}
