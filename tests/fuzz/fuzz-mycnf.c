/* libFuzzer target for MySQL/MariaDB option files: every entry has a
 * kind, options a group and a well-formed name (lower case, no '-'), directives a path; sizes and booleans of every value
 * parse or are refused. (One "loose_" is taken off, as the server does:
 * "loose-loose-x" stays "loose_x".) */
#include "config.h"

#include "format-mycnf.h"
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size > HT_MYCNF_MAX_FILE)
                return 0;
        ht_mycnf m = {0};
        ht_mycnf_parse((const char *)data, size, "fuzz", &m);
        for (size_t i = 0; i < m.n; i++) {
                const ht_mycnf_entry *e = &m.entries[i];
                FUZZ_ASSERT(e->line >= 1);
                if (e->kind == HT_MYCNF_OPTION) {
                        FUZZ_ASSERT(e->group && e->name && *e->name && !strchr(e->name, '-'));
                        for (const char *q = e->name; *q; q++)
                                FUZZ_ASSERT(!(*q >= 'A' && *q <= 'Z'));
                } else
                        FUZZ_ASSERT(e->value && *e->value && !e->name);
                if (e->value) {
                        uint64_t b;
                        bool v;
                        (void)ht_mycnf_parse_size(e->value, &b);
                        (void)ht_mycnf_parse_bool(e->value, &v);
                }
        }
        ht_mycnf_done(&m);
        return 0;
}
