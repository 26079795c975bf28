/* libFuzzer target for udev rules files: parsing never fails, and every
 * rule the writer takes comes back from the parser token for token. */
#include "config.h"

#include "edit-udev.h"
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        ht_udev_file *f = NULL;
        FUZZ_ASSERT(ht_udev_parse((const char *)data, size, &f) == 0);
        for (size_t i = 0; i < f->n_rules; i++) {
                const ht_udev_rule *r = &f->rules[i];
                FUZZ_ASSERT(r->n_tokens > 0 && r->line > 0);
                char *line = ht_udev_format_rule(r->tokens, r->n_tokens);
                if (!line)
                        continue;
                ht_udev_token *t = NULL;
                size_t n = 0;
                char *err = NULL;
                FUZZ_ASSERT(ht_udev_parse_rule(line, &t, &n, &err) == 0);
                FUZZ_ASSERT(n == r->n_tokens);
                for (size_t j = 0; j < n; j++) {
                        FUZZ_ASSERT(streq(t[j].key, r->tokens[j].key));
                        FUZZ_ASSERT(streq_ptr(t[j].attr, r->tokens[j].attr));
                        FUZZ_ASSERT(t[j].op == r->tokens[j].op);
                        FUZZ_ASSERT(streq(t[j].value, r->tokens[j].value));
                }
                ht_udev_tokens_free(t, n);
                free(line);
        }
        ht_udev_file_free(f);
        return 0;
}
