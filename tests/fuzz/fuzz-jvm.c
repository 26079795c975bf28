/* libFuzzer target for a JVM's /proc/PID/cmdline and environ: the first
 * half of the input as a command line, the rest as an environment whose
 * JAVA_TOOL_OPTIONS is parsed: no read past the buffers (ASan), the value
 * found lies inside the environment, flags stay -1, 0 or 1 and a
 * percentage at most 100. */
#include "config.h"

#include "format-jvm.h"
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        if (size > HT_JVM_MAX_ARGS)
                return 0;
        size_t half = size / 2;
        /* copies of exactly their length, so ASan sees any overread */
        char *cmd = malloc(half ? half : 1), *env = malloc(size - half ? size - half : 1);
        FUZZ_ASSERT(cmd && env);
        memcpy(cmd, data, half);
        memcpy(env, data + half, size - half);
        ht_jvm_options o;
        ht_jvm_options_init(&o);
        ht_jvm_parse_cmdline(&o, cmd, half);
        size_t n;
        const char *v = ht_jvm_environ_get(env, size - half, "JAVA_TOOL_OPTIONS", &n);
        if (v) {
                FUZZ_ASSERT(v >= env && v + n <= env + (size - half));
                ht_jvm_parse_env(&o, v, n);
        }
        FUZZ_ASSERT(o.use_large_pages >= -1 && o.use_large_pages <= 1);
        FUZZ_ASSERT(o.max_ram_percentage_milli == UINT64_MAX || o.max_ram_percentage_milli <= 100000);
        free(cmd);
        free(env);
        return 0;
}
