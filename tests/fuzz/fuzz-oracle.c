/* libFuzzer target for Oracle parameter files: the input is read as an
 * spfile when it looks like one (else its blocks are still tried), and
 * as pfile text; every parameter found must have a name and a value,
 * the instance lookup must not crash, and sizes parse or are refused. */
#include "config.h"

#include "format-oracle.h"
#include "fuzz-common.h"

static void check_text(const char *text, size_t len) {
        ht_ora_pfile p = {0};
        ht_ora_parse_text(text, len, "fuzz", &p);
        for (size_t i = 0; i < p.n_params; i++) {
                FUZZ_ASSERT(p.params[i].name && *p.params[i].name && p.params[i].sid && p.params[i].value);
                FUZZ_ASSERT(p.params[i].line >= 1);
                uint64_t b;
                (void)ht_ora_parse_size(p.params[i].value, &b);
        }
        static const char *const names[] = {"sga_max_size", "sga_target", "memory_target", "ifile"};
        for (size_t i = 0; i < ELEMENTSOF(names); i++) {
                (void)ht_ora_lookup(&p, "ORCL", names[i]);
                (void)ht_ora_lookup(&p, NULL, names[i]);
        }
        ht_ora_pfile_done(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size > HT_ORA_MAX_FILE)
                return 0;
        const char *buf = (const char *)data;
        char *text = NULL, *err = NULL;
        size_t tlen = 0;
        bool looks = ht_ora_is_spfile(buf, size);
        int r = ht_ora_spfile_text(buf, size, &text, &tlen, &err);
        if (r == 0) {
                FUZZ_ASSERT(looks && !err && strlen(text) == tlen);
                check_text(text, tlen);
        } else
                FUZZ_ASSERT(err && !text);
        free(text);
        free(err);
        check_text(buf, size);
        return 0;
}
