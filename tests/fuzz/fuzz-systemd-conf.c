/* libFuzzer target for systemd's logind.conf and system.conf
 * (src/formats/edit-systemd-conf.c over edit-unit's parser): a main file and
 * drop-ins (parts separated by FUZZ_SEP) merged in systemd's order, the
 * shipped defaults of the main file, and every value found checked
 * against the key table: canonical values are fixed points, a value
 * meets itself, a raised limit meets both sides. */
#include "config.h"

#include "edit-systemd-conf.h"
#include "fuzz-common.h"

static const struct {
        const char *daemon, *section, *key;
} keys[] = {
        {"logind", "Login", "RemoveIPC"},
        {"logind", "Login", "NAutoVTs"},
        {"logind", "Login", "HandleLidSwitch"},
        {"logind", "Login", "IdleActionSec"},
        {"logind", "Login", "RuntimeDirectorySize"},
        {"system", "Manager", "DefaultLimitNOFILE"},
        {"system", "Manager", "DefaultLimitMEMLOCK"},
        {"system", "Manager", "DefaultTimeoutStopSec"},
        {"system", "Manager", "DefaultTasksMax"},
        {"system", "Manager", "DefaultLimitCPU"},
};

static void check_value(const ht_sdconf_key *k, const char *v, const char *other) {
        char *c = NULL, *c2 = NULL;
        const char *why = NULL;
        if (ht_sdconf_canon_value(k, v, &c, &why) < 0) {
                FUZZ_ASSERT(!c && why);
                FUZZ_ASSERT(!ht_sdconf_meets(k, v, v));
                return;
        }
        FUZZ_ASSERT(c && !strchr(c, '\n'));
        FUZZ_ASSERT(ht_sdconf_canon_value(k, c, &c2, &why) == 0 && streq(c, c2));
        FUZZ_ASSERT(ht_sdconf_meets(k, v, c) && ht_sdconf_meets(k, c, v));
        if (other) {
                char *raised = ht_sdconf_raise(k, other, c);
                /* the line hosttune writes meets the profile's value */
                FUZZ_ASSERT(ht_sdconf_meets(k, raised, c));
                if (k->type == HT_SDCONF_LIMIT && ht_sdconf_meets(k, other, other))
                        FUZZ_ASSERT(ht_sdconf_meets(k, raised, other));
                free(raised);
        }
        free(c);
        free(c2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *parts[4];
        size_t lens[4];
        size_t n = fuzz_split(data, size, parts, lens, 4);
        ht_sdconf_file files[4];
        for (size_t i = 0; i < n; i++)
                files[i] = (ht_sdconf_file){.path = "f", .text = parts[i], .len = lens[i]};
        for (size_t k = 0; k < ELEMENTSOF(keys); k++) {
                const ht_sdconf_key *key = ht_sdconf_key_find(keys[k].daemon, keys[k].key);
                FUZZ_ASSERT(key && ht_sdconf_daemon_find(keys[k].daemon));
                char *all = NULL, *tail = NULL, *dflt = NULL;
                int at = ht_sdconf_effective(files, n, keys[k].section, keys[k].key, &all);
                FUZZ_ASSERT(at >= -1 && at < (int)n);
                FUZZ_ASSERT(at >= 0 || !all);
                if (at >= 0) {
                        /* the file that sets it last decides, whatever came before */
                        int t = ht_sdconf_effective(files + at, n - (size_t)at, keys[k].section, keys[k].key, &tail);
                        FUZZ_ASSERT(t == 0 && streq_ptr(all, tail));
                }
                if (n > 0 && ht_sdconf_shipped_default(parts[0], lens[0], keys[k].section, keys[k].key, &dflt) > 0)
                        FUZZ_ASSERT(dflt && *dflt && !strchr(dflt, '\n'));
                if (all)
                        check_value(key, all, dflt);
                if (dflt)
                        check_value(key, dflt, all);
                free(all);
                free(tail);
                free(dflt);
        }
        /* the whole first part as a value of each type */
        if (n > 0)
                for (size_t k = 0; k < ELEMENTSOF(keys); k++)
                        check_value(ht_sdconf_key_find(keys[k].daemon, keys[k].key), parts[0], NULL);
        for (size_t i = 0; i < n; i++)
                free(parts[i]);
        return 0;
}
