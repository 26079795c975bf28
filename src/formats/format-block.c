/* Block device kinds and queue/scheduler's text (format-block.h). */
#include "config.h"

#include <string.h>

#include "format-block.h"
#include "util.h"

/* By prefix, as the kernel names them (drivers/block/loop.c "loop%d",
 * brd "ram%d", zram "zram%d", sr "sr%d", nbd "nbd%d", floppy "fd%d",
 * dm "dm-%d", md "md%d" and "md_d%d"); the same prefixes as the udev
 * glob HT_BLOCK_NEVER_TOUCHED_GLOB. */
static const struct {
        const char *prefix;
        ht_block_kind kind;
} prefixes[] = {
        {"dm-", HT_BLOCK_DM},     {"md", HT_BLOCK_MD},          {"loop", HT_BLOCK_LOOP},
        {"zram", HT_BLOCK_ZRAM},  {"ram", HT_BLOCK_RAM},        {"sr", HT_BLOCK_OPTICAL},
        {"nbd", HT_BLOCK_NBD},    {"fd", HT_BLOCK_FLOPPY},
};

ht_block_kind ht_block_kind_of(const char *name) {
        for (size_t i = 0; i < ELEMENTSOF(prefixes); i++)
                if (startswith(name, prefixes[i].prefix))
                        return prefixes[i].kind;
        return HT_BLOCK_DISK;
}

const char *ht_block_kind_to_string(ht_block_kind k) {
        switch (k) {
        case HT_BLOCK_DISK: return "disk";
        case HT_BLOCK_DM: return "dm";
        case HT_BLOCK_MD: return "md";
        case HT_BLOCK_LOOP: return "loop";
        case HT_BLOCK_RAM: return "ram";
        case HT_BLOCK_ZRAM: return "zram";
        case HT_BLOCK_OPTICAL: return "optical";
        case HT_BLOCK_NBD: return "nbd";
        case HT_BLOCK_FLOPPY: return "floppy";
        }
        return "disk";
}

bool ht_block_kind_never_touched(ht_block_kind k) {
        return k != HT_BLOCK_DISK && !ht_block_kind_stacked(k);
}

bool ht_block_kind_stacked(ht_block_kind k) {
        return k == HT_BLOCK_DM || k == HT_BLOCK_MD;
}

/* digits at *p, at least one: past them, else NULL */
static const char *skip_digits(const char *p) {
        size_t n = strspn(p, "0123456789");
        return n ? p + n : NULL;
}

bool ht_block_hidden_nvme_path(const char *name) {
        const char *p = startswith(name, "nvme") ? skip_digits(name + 4) : NULL;
        p = p && *p == 'c' ? skip_digits(p + 1) : NULL;
        p = p && *p == 'n' ? skip_digits(p + 1) : NULL;
        return p && *p == 0;
}

char **ht_block_scheduler_offered(const char *raw) {
        if (!strchr(raw, '['))
                return NULL;
        char **w = strv_split(raw, " \t\n");
        for (size_t i = 0; w && w[i]; i++) {
                size_t n = strlen(w[i]);
                if (w[i][0] == '[' && n >= 2 && w[i][n - 1] == ']') {
                        memmove(w[i], w[i] + 1, n - 2);
                        w[i][n - 2] = 0;
                }
        }
        return w;
}

char *ht_block_scheduler_selected(const char *raw) {
        const char *open = strchr(raw, '[');
        const char *close = open ? strchr(open, ']') : NULL;
        if (!close || close == open + 1)
                return NULL;
        return xstrndup(open + 1, (size_t)(close - open - 1));
}
