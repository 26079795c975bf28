/* libFuzzer target for /etc/passwd and /etc/group (format-accounts): any
 * text parses; every entry is one glibc's files backend would return (a
 * name, not nss_compat's, an id below 4294967295), in file order, and a
 * lookup finds the first of its name. */
#include "config.h"

#include "format-accounts.h"
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        const char *text = (const char *)data;
        ht_passwd p;
        ht_passwd_parse(text, size, &p);
        unsigned last = 0;
        for (size_t i = 0; i < p.n_users; i++) {
                const ht_passwd_entry *e = &p.users[i];
                FUZZ_ASSERT(*e->name && e->name[0] != '+' && e->name[0] != '-' && !strchr(e->name, ':'));
                FUZZ_ASSERT(!strchr(e->name, '\n'));
                FUZZ_ASSERT(e->uid != UINT32_MAX && e->gid != UINT32_MAX);
                FUZZ_ASSERT(e->line > last);
                last = e->line;
                const ht_passwd_entry *first = ht_passwd_by_name(&p, e->name);
                FUZZ_ASSERT(first && first <= e);
                FUZZ_ASSERT(ht_passwd_by_uid(&p, e->uid) <= e);
        }
        ht_passwd_done(&p);

        ht_group g;
        ht_group_parse(text, size, &g);
        last = 0;
        for (size_t i = 0; i < g.n_groups; i++) {
                const ht_group_entry *e = &g.groups[i];
                FUZZ_ASSERT(*e->name && e->name[0] != '+' && e->name[0] != '-' && !strchr(e->name, ':'));
                FUZZ_ASSERT(e->gid != UINT32_MAX && e->members);
                for (size_t k = 0; e->members[k]; k++)
                        FUZZ_ASSERT(*e->members[k] && !strchr(e->members[k], ',') && !strchr(e->members[k], '\n'));
                FUZZ_ASSERT(e->line > last);
                last = e->line;
                FUZZ_ASSERT(ht_group_by_name(&g, e->name) <= e);
        }
        ht_group_done(&g);
        return 0;
}
