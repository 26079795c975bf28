/* libFuzzer target for tuned's ${f:...} functions: any value gives a
 * result or an error message, never a crash, a leak or undefined
 * behaviour; the Python regex translation likewise. The input is the
 * value, then optionally (after FUZZ_SEP) the facts' cpu.online, so the
 * CPU lists of the host are fuzzed too. */
#include "config.h"

#include <errno.h>
#include <regex.h>

#include "fuzz-common.h"
#include "regex-python.h"
#include "tuned-functions.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) { return 0; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *parts[2];
        size_t lens[2];
        size_t n = fuzz_split(data, size, parts, lens, 2);

        json_object *facts = json_object_new_object(), *cpu = json_object_new_object();
        json_object_object_add(cpu, "online", json_object_new_string(n > 1 ? parts[1] : "0-7"));
        json_object_object_add(cpu, "present", json_object_new_string("0-15"));
        json_object_object_add(cpu, "cpuinfo", json_object_new_string("processor\t: 0\nflags\t\t: fpu avx2 hypervisor"));
        json_object_object_add(facts, "cpu", cpu);
        json_object_object_add(facts, "hypervisor", json_object_new_string("kvm"));

        char *out = NULL, *error = NULL;
        int r = ht_tuned_expand_functions(parts[0], facts, &out, &error);
        if (r < 0)
                FUZZ_ASSERT((r == -EINVAL || r == -ENOTSUP || r == -ENOEXEC) && error && *error && !out);
        else
                FUZZ_ASSERT(r == 0 && out && !error && strlen(out) <= 1024 * 1024);
        free(out);
        free(error);
        json_object_put(facts);

        /* the same text as a pattern: a translation regcomp() takes */
        char *ere = NULL;
        r = ht_regex_from_python(parts[0], &ere, NULL);
        FUZZ_ASSERT(r == 0 || r == -EINVAL || r == -EOPNOTSUPP);
        FUZZ_ASSERT((r == 0) == (ere != NULL));
        if (ere) {
                regex_t re;
                if (regcomp(&re, ere, REG_EXTENDED | REG_NEWLINE | REG_NOSUB) == 0)
                        regfree(&re);
                free(ere);
        }
        fuzz_parts_free(parts, n);
        return 0;
}
