/* systemd's configuration as the systemd, limits and service backends
 * read it (systemd-conf.c). */
#pragma once

#include "context.h"
#include "facts.h"

/* The conf.d directories, highest priority first, NULL-terminated. */
extern const char *const ht_sdconf_dirs[];

typedef struct {
        char *name;  /* the drop-in's file name */
        char *path;
        char *text;
        size_t len;
} ht_sdconf_found;

void ht_sdconf_found_free(ht_sdconf_found *l, size_t n);
/* Every drop-in systemd reads for DAEMON.conf, sorted by file name. */
int ht_sdconf_collect_dropins(const ht_context *c, const char *daemon, ht_sdconf_found **ret, size_t *ret_n);
/* The main file DAEMON.conf: 1 found, 0 none, or -errno. */
int ht_sdconf_read_main(const ht_context *c, const char *daemon, ht_sdconf_found *ret);
