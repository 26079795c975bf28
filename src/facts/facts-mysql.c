/* MySQL/MariaDB configuration facts: the option files the server reads,
 * in its order, and the sizes in them that decide its large pages. Read
 * through the root context; a file that cannot be read or parsed is a
 * warning, never a failure. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>

#include "facts-internal.h"
#include "facts.h"
#include "format-mycnf.h"
#include "util.h"

/* The files a Linux server reads, in order (MariaDB, "Configuring MariaDB
 * with Option Files", "Default Option File Locations": /etc/my.cnf,
 * /etc/mysql/my.cnf, then $MARIADB_HOME/my.cnf, the --defaults-extra-file
 * and ~/.my.cnf, which depend on the server's environment and are not
 * read here). */
static const char *const option_files[] = {"/etc/my.cnf", "/etc/mysql/my.cnf"};

/* The groups the server reads, version-independent ("Option Groups":
 * [client-server], [server], [mysqld], [mysqld-X.Y], [mariadb],
 * [mariadb-X.Y], [mariadbd], [mariadbd-X.Y], [galera]). */
static const char *const server_groups[] = {"client-server", "server", "mysqld", "mariadb", "mariadbd",
                                            "galera"};
static const char *const versioned_prefixes[] = {"mysqld-", "mariadb-", "mariadbd-"};

static const char *const sizes[] = {"innodb_buffer_pool_size", "key_buffer_size",
                                    "aria_pagecache_buffer_size", "innodb_log_buffer_size",
                                    "query_cache_size"};

typedef struct {
        const ht_context *c;
        ht_facts *f;
        char **visited;
} reader;

static bool is_server_group(const char *g) {
        for (size_t i = 0; i < ELEMENTSOF(server_groups); i++)
                if (streq(g, server_groups[i]))
                        return true;
        return false;
}

static bool is_versioned_group(const char *g) {
        for (size_t i = 0; i < ELEMENTSOF(versioned_prefixes); i++)
                if (startswith(g, versioned_prefixes[i]) && g[strlen(versioned_prefixes[i])])
                        return true;
        return false;
}

static void set_option(reader *rd, const ht_mycnf_entry *e, const char *path, const char *d) {
        ht_mysql_config *m = &rd->f->mysql_config;
        const char *n = e->name;
        for (size_t i = 0; i < ELEMENTSOF(sizes); i++) {
                if (!streq(n, sizes[i]))
                        continue;
                uint64_t b;
                if (!e->value || ht_mycnf_parse_size(e->value, &b) < 0) {
                        ht_facts_warn(rd->f, "%s:%u: %s = %s is not a size: ignored", d, e->line, n,
                                      e->value ? e->value : "(no value)");
                        return;
                }
                m->sizes[i] = b;
                free(m->sizes_from[i]);
                m->sizes_from[i] = xstrdup(path);
                return;
        }
        /* large_pages, large-pages, skip-/disable-/enable-large-pages */
        bool neg = false, pos = false;
        if (startswith(n, "skip_") || startswith(n, "disable_")) {
                neg = true;
                n = strchr(n, '_') + 1;
        } else if (startswith(n, "enable_")) {
                pos = true;
                n += strlen("enable_");
        }
        if (streq(n, "large_pages")) {
                bool b = true;
                if (!neg && !pos && ht_mycnf_parse_bool(e->value, &b) < 0) {
                        ht_facts_warn(rd->f, "%s:%u: large_pages = %s is not a boolean: ignored", d, e->line,
                                      e->value);
                        return;
                }
                m->large_pages = neg ? HT_NO : b ? HT_YES : HT_NO;
                free(m->large_pages_from);
                m->large_pages_from = xstrdup(path);
        } else if (streq(n, "user") && e->value && *e->value && !neg && !pos) {
                free(m->user);
                m->user = xstrdup(e->value);
        }
}

static void read_file(reader *rd, const char *path, const ht_controllers *named_by, unsigned depth);

static void read_dir(reader *rd, const char *dir, const ht_controllers *named_by, unsigned depth, const char *d,
                     unsigned line) {
        _cleanup_strv_free_ char **names = NULL;
        if (ht_list_dir(rd->c, dir, ".cnf", &names) < 0) {
                ht_facts_warn(rd->f, "%s:%u: !includedir %s cannot be read", d, line, dir);
                return;
        }
        for (size_t i = 0; names && names[i]; i++) {
                size_t n = strlen(dir);
                while (n > 1 && dir[n - 1] == '/')
                        n--;
                _cleanup_free_ char *p = xasprintf("%.*s/%s", (int)n, dir, names[i]);
                read_file(rd, p, named_by, depth + 1);
        }
}

/* named_by: who controls the file that named path (nobody else for the
 * default option files). */
static void read_file(reader *rd, const char *path, const ht_controllers *named_by, unsigned depth) {
        _cleanup_free_ char *d = ht_display_path(rd->c, path);
        /* a file is the same file through any link (Debian's my.cnf is
         * mariadb.cnf by way of /etc/alternatives) */
        struct stat st;
        _cleanup_free_ char *id = ht_stat(rd->c, path, &st) == 0
                                          ? xasprintf("%ju:%ju", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino)
                                          : xstrdup(path);
        if (strv_contains(rd->visited, id)) {
                ht_facts_warn(rd->f, "%s: included again (an include loop): not read twice", d);
                return;
        }
        strv_push(&rd->visited, id);
        _cleanup_free_ char *buf = NULL;
        size_t len;
        /* an !include or !includedir may lead to a directory another
         * user owns (a datadir's own file): no FIFO may hang root, no
         * link make it read what that user could not */
        ht_controllers ctl = named_by ? *named_by : (ht_controllers){0};
        if (ht_facts_read_untrusted(rd->c, rd->f, path, HT_MYCNF_MAX_FILE, &ctl, depth > 0, &buf, &len) < 0)
                return;
        strv_push(&rd->f->mysql_config.files, path);
        ht_mycnf m = {0};
        ht_mycnf_parse(buf, len, d, &m);
        for (size_t i = 0; m.warnings && m.warnings[i]; i++)
                ht_facts_warn(rd->f, "%s", m.warnings[i]);
        for (size_t i = 0; i < m.n; i++) {
                const ht_mycnf_entry *e = &m.entries[i];
                if (e->kind != HT_MYCNF_OPTION) {
                        if (depth + 1 >= HT_MYCNF_MAX_DEPTH) {
                                ht_facts_warn(rd->f, "%s:%u: includes nested deeper than %u: not read", d,
                                              e->line, HT_MYCNF_MAX_DEPTH);
                                continue;
                        }
                        if (e->value[0] != '/') {
                                ht_facts_warn(rd->f, "%s:%u: %s is not an absolute path: not read", d,
                                              e->line, e->value);
                                continue;
                        }
                        if (e->kind == HT_MYCNF_INCLUDE)
                                read_file(rd, e->value, &ctl, depth + 1);
                        else
                                read_dir(rd, e->value, &ctl, depth, d, e->line);
                        continue;
                }
                if (is_server_group(e->group))
                        set_option(rd, e, path, d);
                else if (is_versioned_group(e->group)) {
                        bool relevant = streq(e->name, "large_pages");
                        for (size_t j = 0; j < ELEMENTSOF(sizes); j++)
                                relevant = relevant || streq(e->name, sizes[j]);
                        if (relevant)
                                ht_facts_warn(rd->f, "%s:%u: [%s] sets %s, for one server version only, "
                                              "which hosttune does not know: not used", d, e->line,
                                              e->group, e->name);
                }
        }
        ht_mycnf_done(&m);
}

void ht_facts_collect_mysql_config(const ht_context *c, ht_facts *f) {
        ht_mysql_config *m = &f->mysql_config;
        m->large_pages = HT_UNKNOWN;
        for (size_t i = 0; i < ELEMENTSOF(m->sizes); i++)
                m->sizes[i] = HT_U64_UNKNOWN;
        reader rd = {.c = c, .f = f};
        for (size_t i = 0; i < ELEMENTSOF(option_files); i++)
                read_file(&rd, option_files[i], NULL, 0);
        strv_free(rd.visited);
        /* HugePages for what the server puts in large pages, only with
         * large_pages on (without it the server takes none):
         * - the InnoDB buffer pool ("In MySQL, large pages can be used by
         *   InnoDB, to allocate memory for its buffer pool", MySQL
         *   Reference Manual, "Enabling Large Page Support"), its default
         *   128M when not set (innodb_buffer_pool_size, "Default Value:
         *   134217728");
         * - on MariaDB also the MyISAM key cache and the Aria page cache:
         *   their block buffers come from my_large_malloc()
         *   (mysys/mf_keycache.c init_simple_key_cache: keycache->block_mem;
         *   storage/maria/ma_pagecache.c init_pagecache:
         *   pagecache->block_mem), which tries large pages first; the
         *   server sets these caches up before InnoDB's pool, so on
         *   MariaDB 10.11 they took the HugePages first (issue 20).
         *   Their defaults are 128M each (MariaDB server system variables
         *   key_buffer_size and aria_pagecache_buffer_size, 134217728).
         *   MySQL documents only InnoDB, so for MySQL they are left out.
         * innodb_log_buffer_size and query_cache_size are reported but not
         * counted: no my_large_malloc() caller for them was confirmed. */
        bool mariadb = false;
        for (size_t i = 0; f->mysql_binaries && f->mysql_binaries[i]; i++)
                mariadb = mariadb || endswith(f->mysql_binaries[i], "/mariadbd");
        /* a trusted process only (ht_trust): any user can run a copy of
         * mariadbd, and MariaDB counts two more caches */
        for (size_t i = 0; i < f->n_processes; i++)
                mariadb = mariadb || (f->processes[i].kind == HT_PROC_MYSQL &&
                                      f->processes[i].trust != HT_TRUST_NONE &&
                                      streq(f->processes[i].name, "mariadbd"));
        /* MariaDB's own option files (Debian's mariadb.cnf,
         * mariadb.conf.d/, RHEL's my.cnf.d/mariadb-server.cnf) */
        for (size_t i = 0; m->files && m->files[i]; i++)
                mariadb = mariadb || strstr(m->files[i], "mariadb");
        m->mariadb = mariadb;
        /* The unit the running server is in (/proc/PID/cgroup): the one
         * whose drop-in reaches it, whatever the unit files are called;
         * a trusted server's system service only (facts-workload.c). */
        for (size_t i = 0; i < f->n_processes; i++) {
                const ht_process *pr = &f->processes[i];
                if (pr->kind != HT_PROC_MYSQL || pr->trust == HT_TRUST_NONE || !pr->unit ||
                    !endswith(pr->unit, ".service"))
                        continue;
                _cleanup_free_ char *p = xasprintf("/proc/%u/cgroup", pr->pid);
                const char *u = pr->unit;
                if (m->unit && !streq(m->unit, u)) {
                        ht_facts_warn(f, "MySQL/MariaDB servers run in several units (%s and %s): none is taken "
                                      "for mysql_unit", m->unit, u);
                        m->unit_conflict = true;
                } else if (!m->unit) {
                        m->unit = xstrdup(u);
                        m->unit_from = xstrdup(p);
                }
        }
        if (m->unit_conflict) {
                free(m->unit);
                free(m->unit_from);
                m->unit = m->unit_from = NULL;
        }
        if (m->large_pages == HT_YES) {
                static const size_t counted[] = {0, 1, 2}; /* pool, key cache, Aria */
                size_t n = mariadb ? 3 : 1;
                uint64_t sum = 0;
                for (size_t k = 0; k < n; k++) {
                        size_t i = counted[k];
                        bool set = m->sizes[i] != HT_U64_UNKNOWN;
                        uint64_t v = set ? m->sizes[i] : UINT64_C(134217728);
                        if (sum > UINT64_MAX / 2 - v)
                                break;
                        sum += v;
                        if (set && !strv_contains(m->large_pages_bytes_from, m->sizes_from[i]))
                                strv_push(&m->large_pages_bytes_from, m->sizes_from[i]);
                }
                if (!strv_contains(m->large_pages_bytes_from, m->large_pages_from))
                        strv_push(&m->large_pages_bytes_from, m->large_pages_from);
                m->large_pages_bytes = sum;
        }
}

void ht_facts_mysql_config_free(ht_facts *f) {
        ht_mysql_config *m = &f->mysql_config;
        strv_free(m->files);
        for (size_t i = 0; i < ELEMENTSOF(m->sizes_from); i++)
                free(m->sizes_from[i]);
        free(m->large_pages_from);
        free(m->user);
        free(m->unit);
        free(m->unit_from);
        strv_free(m->large_pages_bytes_from);
}

const char *ht_mysql_size_name(size_t i) {
        return i < ELEMENTSOF(sizes) ? sizes[i] : NULL;
}
