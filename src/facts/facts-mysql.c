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
        ht_mysql_config *m;     /* what this server reads */
        const char *suffix;     /* its --defaults-group-suffix, NULL none */
        bool quiet;             /* the default files again: warned once already */
        const char *named;      /* a file the server's command line names: missing is a warning */
        char **visited;
} reader;

/* The server groups, and with --defaults-group-suffix=S also each of
 * them with S ("In addition to the default option groups, also read
 * option groups with the given suffix": MariaDB, "mariadbd Options",
 * --defaults-group-suffix; mariadb@.service's [mariadbd.NAME]). */
static bool is_server_group(const char *g, const char *suffix) {
        for (size_t i = 0; i < ELEMENTSOF(server_groups); i++) {
                size_t n = strlen(server_groups[i]);
                if (streq(g, server_groups[i]) ||
                    (suffix && strncmp(g, server_groups[i], n) == 0 && streq(g + n, suffix)))
                        return true;
        }
        return false;
}

#define rwarn(rd, ...) do { if (!(rd)->quiet) ht_facts_warn((rd)->f, __VA_ARGS__); } while (0)

static bool is_versioned_group(const char *g) {
        for (size_t i = 0; i < ELEMENTSOF(versioned_prefixes); i++)
                if (startswith(g, versioned_prefixes[i]) && g[strlen(versioned_prefixes[i])])
                        return true;
        return false;
}

/* my_getopt takes an unambiguous prefix of an option's name for the
 * option, in option files and on the command line alike
 * (mysys/my_getopt.c findopt(): a prefix matching one option only), so "key_buffer = 16M", the name the my.cnf of Debian's MySQL
 * 5.x packages shipped and upgraded hosts still carry, sets
 * key_buffer_size (mariadbd 10.11.19: key-buffer-size 16777216; MySQL
 * warns "Using unique option prefix 'key_buffer' is error-prone" and
 * takes it too). Below each name, the shortest prefix that no other
 * option of mariadbd 10.11.19 starts with (its --help --verbose list of
 * 706 names); innodb_buffer_pool_size has none (innodb_buffer_pool_size_max
 * and _auto_min begin with it). A shorter one is ambiguous to the server
 * and refused at its start, so it is no option here either. */
static const struct {
        const char *name, *shortest;
} unique_prefixes[] = {
        {"key_buffer_size", "key_b"},
        {"aria_pagecache_buffer_size", "aria_pagecache_b"},
        {"innodb_log_buffer_size", "innodb_log_b"},
        {"large_pages", "large_p"},
};

static const char *full_option_name(const char *n) {
        for (size_t i = 0; i < ELEMENTSOF(unique_prefixes); i++)
                if (startswith(n, unique_prefixes[i].shortest) && startswith(unique_prefixes[i].name, n))
                        return unique_prefixes[i].name;
        return n;
}

static void set_option(reader *rd, const ht_mycnf_entry *e, const char *path, const char *d) {
        ht_mysql_config *m = rd->m;
        const char *n = full_option_name(e->name);
        for (size_t i = 0; i < ELEMENTSOF(sizes); i++) {
                if (!streq(n, sizes[i]))
                        continue;
                uint64_t b;
                if (!e->value || ht_mycnf_parse_size(e->value, &b) < 0) {
                        rwarn(rd, "%s:%u: %s = %s is not a size: ignored", d, e->line, n,
                                      e->value ? e->value : "(no value)");
                        return;
                }
                /* 18446744073709551615 is the server's own maximum (my_getopt
                 * takes any value up to it), not "not set" (HT_U64_UNKNOWN,
                 * the same bits): it was counted as the 128M default. That
                 * one value is held at INT64_MAX, which no host has, so the
                 * plan's fit check refuses it; other values above INT64_MAX
                 * stay exact in the facts and are unknown to expressions */
                m->sizes[i] = b == HT_U64_UNKNOWN ? (uint64_t)INT64_MAX : b;
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
        n = full_option_name(n);
        if (streq(n, "large_pages")) {
                bool b = true;
                /* a value the server does not take as a boolean ("yes",
                 * "2") is OFF to it, with a warning (ht_mycnf_parse_bool) */
                if (!neg && !pos && ht_mycnf_parse_bool(e->value, &b) < 0)
                        rwarn(rd, "%s:%u: large_pages = %s is not ON/OFF, TRUE/FALSE or 1/0, which the server "
                                  "takes for OFF (\"boolean value '%s' wasn't recognized. Set to OFF.\")",
                              d, e->line, e->value, e->value);
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
                rwarn(rd, "%s:%u: !includedir %s cannot be read", d, line, dir);
                return;
        }
        /* A directory that is not there is no empty one to the server:
         * my_dir() fails, search_default_file_with_ext() returns an
         * error, and mariadbd 10.11.19 stops with "Fatal error in
         * defaults handling. Program aborted" (mysys/my_default.c). The
         * listing gives none for a missing directory, so only an empty
         * one is looked at again. */
        struct stat st;
        if (!names[0] && (ht_stat(rd->c, dir, &st) < 0 || !S_ISDIR(st.st_mode))) {
                rwarn(rd, "%s:%u: !includedir %s is not a directory: the server does not start with it "
                          "(\"Fatal error in defaults handling. Program aborted\")", d, line, dir);
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
        bool have_st = ht_stat(rd->c, path, &st) == 0;
        _cleanup_free_ char *id = have_st ? xasprintf("%ju:%ju", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino)
                                          : xstrdup(path);
        if (strv_contains(rd->visited, id)) {
                rwarn(rd, "%s: included again (an include loop): not read twice", d);
                return;
        }
        /* The server skips a world-writable option file, any user could have
         * written it: "Warning: World-writable config file '%s' is ignored"
         * (mysys/my_default.cc, search_default_file_with_ext(), MySQL and
         * MariaDB alike; MariaDB still reads one it cannot write, on a
         * read-only file system). Its sizes would be no server's. */
        if (have_st && S_ISREG(st.st_mode) && (st.st_mode & S_IWOTH)) {
                rwarn(rd, "%s is world-writable, which the server ignores (\"World-writable config file "
                          "... is ignored\"): not read", d);
                return;
        }
        strv_push(&rd->visited, id);
        _cleanup_free_ char *buf = NULL;
        size_t len;
        /* an !include or !includedir may lead to a directory another
         * user owns (a datadir's own file): no FIFO may hang root, no
         * link make it read what that user could not */
        ht_controllers ctl = named_by ? *named_by : (ht_controllers){0};
        if (ht_facts_read_untrusted(rd->c, rd->f, path, HT_MYCNF_MAX_FILE, &ctl,
                                    depth > 0 || streq_ptr(path, rd->named), &buf, &len) < 0)
                return;
        strv_push(&rd->m->files, path);
        ht_mycnf m = {0};
        ht_mycnf_parse(buf, len, d, &m);
        for (size_t i = 0; m.warnings && m.warnings[i]; i++)
                rwarn(rd, "%s", m.warnings[i]);
        for (size_t i = 0; i < m.n; i++) {
                const ht_mycnf_entry *e = &m.entries[i];
                if (e->kind != HT_MYCNF_OPTION) {
                        if (depth + 1 >= HT_MYCNF_MAX_DEPTH) {
                                rwarn(rd, "%s:%u: includes nested deeper than %u: not read", d,
                                              e->line, HT_MYCNF_MAX_DEPTH);
                                continue;
                        }
                        if (e->value[0] != '/') {
                                rwarn(rd, "%s:%u: %s is not an absolute path: not read", d,
                                              e->line, e->value);
                                continue;
                        }
                        if (e->kind == HT_MYCNF_INCLUDE)
                                read_file(rd, e->value, &ctl, depth + 1);
                        else
                                read_dir(rd, e->value, &ctl, depth, d, e->line);
                        continue;
                }
                if (is_server_group(e->group, rd->suffix))
                        set_option(rd, e, path, d);
                else if (is_versioned_group(e->group)) {
                        bool relevant = streq(e->name, "large_pages");
                        for (size_t j = 0; j < ELEMENTSOF(sizes); j++)
                                relevant = relevant || streq(e->name, sizes[j]);
                        if (relevant)
                                rwarn(rd, "%s:%u: [%s] sets %s, for one server version only, "
                                              "which hosttune does not know: not used", d, e->line,
                                              e->group, e->name);
                }
        }
        ht_mycnf_done(&m);
}

static void config_init(ht_mysql_config *m) {
        m->large_pages = HT_UNKNOWN;
        for (size_t i = 0; i < ELEMENTSOF(m->sizes); i++)
                m->sizes[i] = HT_U64_UNKNOWN;
}

static void config_done(ht_mysql_config *m) {
        strv_free(m->files);
        for (size_t i = 0; i < ELEMENTSOF(m->sizes_from); i++)
                free(m->sizes_from[i]);
        free(m->large_pages_from);
        free(m->user);
        free(m->unit);
        free(m->unit_from);
        strv_free(m->large_pages_bytes_from);
}

/* MariaDB maps its buffer pool with large pages in whole extents of
 * 8 MiB (storage/innobase/include/buf0buf.h,
 * innodb_buffer_pool_extent_size, 64-bit; buf_pool_t::create() maps
 * innodb_buffer_pool_size_max, which large_pages=ON sets to the pool
 * "ut_calc_align(innodb_buffer_pool_size, innodb_buffer_pool_extent_size)",
 * innodb_init_params()), after my_getopt has rounded the pool down to
 * whole MiB (its block size, 1U << 20). mariadbd 10.11.19 with
 * innodb_buffer_pool_size=1001M maps 1008M of HugePages. */
static uint64_t mariadb_pool_bytes(uint64_t pool) {
        const uint64_t mib = UINT64_C(1) << 20, extent = UINT64_C(8) << 20;
        /* no host has that much: kept as it is, for the plan's fit check
         * to refuse (set_option holds 2^64-1 at INT64_MAX) */
        if (pool > (uint64_t)INT64_MAX - extent)
                return pool;
        pool -= pool % mib;
        return (pool + extent - 1) / extent * extent;
}

static void size_large_pages(ht_mysql_config *m, bool mariadb) {
        /* HugePages for what the server puts in large pages, only with
         * large_pages on (without it the server takes none):
         * - the InnoDB buffer pool ("In MySQL, large pages can be used by
         *   InnoDB, to allocate memory for its buffer pool", MySQL
         *   Reference Manual, "Enabling Large Page Support"), its default
         *   128M when not set (innodb_buffer_pool_size, "Default Value:
         *   134217728"); on MariaDB in whole 8 MiB extents
         *   (mariadb_pool_bytes);
         * - on MariaDB also the MyISAM key cache and the Aria page cache:
         *   their block buffers come from my_large_malloc()
         *   (mysys/mf_keycache.c init_simple_key_cache: keycache->block_mem;
         *   storage/maria/ma_pagecache.c init_pagecache:
         *   pagecache->block_mem), which tries large pages first; the
         *   server sets these caches up before InnoDB's pool, so on
         *   MariaDB 10.11 they took the HugePages first (issue 20).
         *   Their defaults are 128M each (MariaDB server system variables
         *   key_buffer_size and aria_pagecache_buffer_size, 134217728).
         * - on MariaDB also InnoDB's two redo log buffers,
         *   innodb_log_buffer_size each (16M by default): log_t::attach()
         *   allocates buf and flush_buf with ut_malloc_dontdump(), which is
         *   my_large_malloc() (storage/innobase/log/log0log.cc,
         *   include/ut0new.h, MariaDB 10.11.18). mariadbd 10.11.19 with
         *   large_pages=1 maps two 16M HugePages mappings beside its pool;
         *   they come after the pool, so sized for the pool alone the
         *   host's last 16 pages were missing.
         *   MySQL documents only InnoDB's pool, so for MySQL the others are
         *   left out.
         * query_cache_size is reported but not counted: no my_large_malloc()
         * caller for it was found. */
        if (m->large_pages == HT_YES) {
                static const struct {
                        size_t i;        /* in sizes[] */
                        unsigned times;  /* allocations of that size */
                } counted[] = {{0, 1}, {1, 1}, {2, 1}, {3, 2}}; /* pool, key cache, Aria, log buffers */
                static const uint64_t defaults[] = {UINT64_C(134217728), UINT64_C(134217728),
                                                    UINT64_C(134217728), UINT64_C(16777216)};
                size_t n = mariadb ? ELEMENTSOF(counted) : 1;
                uint64_t sum = 0;
                bool over = false;
                for (size_t k = 0; k < n && !over; k++) {
                        size_t i = counted[k].i;
                        bool set = m->sizes[i] != HT_U64_UNKNOWN;
                        uint64_t v = set ? m->sizes[i] : defaults[k];
                        if (i == 0 && mariadb)
                                v = mariadb_pool_bytes(v);
                        for (unsigned t = 0; t < counted[k].times; t++) {
                                if (sum > UINT64_MAX / 2 - v) {
                                        over = true;
                                        break;
                                }
                                sum += v;
                        }
                        if (set && !strv_contains(m->large_pages_bytes_from, m->sizes_from[i]))
                                strv_push(&m->large_pages_bytes_from, m->sizes_from[i]);
                }
                if (!strv_contains(m->large_pages_bytes_from, m->large_pages_from))
                        strv_push(&m->large_pages_bytes_from, m->large_pages_from);
                m->large_pages_bytes = sum;
        }
}

/* The multi-instance templates the packages ship, with the option group
 * suffix each gives an instance unless told otherwise:
 * - MariaDB's mariadb@.service (support-files/mariadb@.service.in, since
 *   10.4 (MDEV-11670): MYSQLD_MULTI_INSTANCE defaults to
 *   "--defaults-group-suffix=.%I", so instance NAME reads [mariadbd.NAME]
 *   and the other server groups with ".NAME" beside the plain ones;
 *   Debian's mariadb-server ships it in /lib/systemd/system);
 * - MySQL's mysqld@.service ("--defaults-group-suffix=@%I": MySQL
 *   Reference Manual, "Configuring Multiple MySQL Instances Using
 *   systemd", groups [mysqld@NAME]). */
static const struct {
        const char *prefix, *suffix;
} templates[] = {{"mariadb@", "."}, {"mysqld@", "@"}};
static const char *const unit_dirs[] = {"/etc/systemd/system", "/usr/lib/systemd/system", "/lib/systemd/system"};
static const char *const plain_units[] = {"mariadb.service", "mysqld.service", "mysql.service"};

/* "mariadb@a.service" -> its template index, *ret_name "a"; -1 none */
static int instance_of(const char *unit, const char **ret_name, size_t *ret_len) {
        for (size_t t = 0; t < ELEMENTSOF(templates); t++) {
                if (!startswith(unit, templates[t].prefix) || !endswith(unit, ".service"))
                        continue;
                const char *n = unit + strlen(templates[t].prefix);
                size_t len = strlen(n) - strlen(".service");
                if (len == 0 || strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:-_.\\") < len)
                        return -1;
                *ret_name = n;
                *ret_len = len;
                return (int)t;
        }
        return -1;
}

static ht_mysql_server *server_for(ht_facts *f, const char *unit, const char *instance, size_t len) {
        for (size_t i = 0; i < f->n_mysql_servers; i++)
                if (streq(f->mysql_servers[i].unit, unit))
                        return &f->mysql_servers[i];
        f->mysql_servers = xrealloc(f->mysql_servers, (f->n_mysql_servers + 1) * sizeof(*f->mysql_servers));
        ht_mysql_server *sv = &f->mysql_servers[f->n_mysql_servers++];
        *sv = (ht_mysql_server){.unit = xstrdup(unit), .instance = instance ? xstrndup(instance, len) : NULL};
        config_init(&sv->config);
        return sv;
}

/* The value of option opt ("--defaults-file=") on a line, %I and %i the
 * instance name (its escaping is not undone: names with "-" in them are
 * read as written). */
static char *option_value(const char *line, const char *opt, const char *instance) {
        const char *p = strstr(line, opt);
        if (!p)
                return NULL;
        p += strlen(opt);
        size_t n = strcspn(p, " \t\"'\\\n");
        strbuf b = {0};
        for (size_t i = 0; i < n; i++) {
                if (p[i] == '%' && i + 1 < n && (p[i + 1] == 'I' || p[i + 1] == 'i')) {
                        strbuf_append(&b, instance);
                        i++;
                } else
                        strbuf_appendf(&b, "%c", p[i]);
        }
        return strbuf_steal(&b);
}

/* Where the instance's options come from: the template unit file, then
 * its drop-ins and the instance's (systemd.unit(5): drop-ins are read
 * after the unit file, the later wins). A line that sets
 * MYSQLD_MULTI_INSTANCE replaces what an earlier one said. */
static void instance_options(const ht_context *c, ht_mysql_server *sv, const char *template_path, size_t t) {
        char **files = NULL;
        strv_push(&files, template_path);
        _cleanup_free_ char *tdir = xasprintf("/etc/systemd/system/%s.service.d", templates[t].prefix);
        _cleanup_free_ char *idir = xasprintf("/etc/systemd/system/%s.d", sv->unit);
        const char *dirs[] = {tdir, idir};
        for (size_t d = 0; d < ELEMENTSOF(dirs); d++) {
                _cleanup_strv_free_ char **names = NULL;
                if (ht_list_dir(c, dirs[d], ".conf", &names) < 0)
                        continue;
                for (size_t i = 0; names && names[i]; i++)
                        strv_push_take(&files, xasprintf("%s/%s", dirs[d], names[i]));
        }
        sv->group_suffix = xasprintf("%s%s", templates[t].suffix, sv->instance);
        sv->from = ht_display_path(c, template_path);
        for (size_t i = 0; files[i]; i++) {
                _cleanup_free_ char *text = NULL;
                if (ht_read_file(c, files[i], 1 << 16, &text, NULL) < 0)
                        continue;
                _cleanup_strv_free_ char **lines = strv_split(text, "\n");
                for (size_t l = 0; lines[l]; l++) {
                        const char *s = lines[l] + strspn(lines[l], " \t");
                        if (*s == '#' || *s == ';')
                                continue;
                        char *gs = option_value(s, "--defaults-group-suffix=", sv->instance);
                        char *df = option_value(s, "--defaults-file=", sv->instance);
                        if (!gs && !df && !strstr(s, "MYSQLD_MULTI_INSTANCE="))
                                continue;
                        free(sv->group_suffix);
                        free(sv->defaults_file);
                        free(sv->from);
                        sv->group_suffix = gs;
                        sv->defaults_file = df;
                        sv->from = ht_display_path(c, files[i]);
                }
        }
        strv_free(files);
}

/* Read and size one instance. */
static void read_instance(const ht_context *c, ht_facts *f, ht_mysql_server *sv, const char *template_path, size_t t,
                          bool mariadb) {
        instance_options(c, sv, template_path, t);
        /* --defaults-file: only that file (and what it includes); else the
         * default files again, warned about once */
        reader rd = {.c = c, .f = f, .m = &sv->config, .suffix = sv->group_suffix, .quiet = !sv->defaults_file};
        if (sv->defaults_file)
                read_file(&rd, sv->defaults_file, NULL, 0);
        else
                for (size_t k = 0; k < ELEMENTSOF(option_files); k++)
                        read_file(&rd, option_files[k], NULL, 0);
        strv_free(rd.visited);
        sv->config.mariadb = mariadb;
        size_large_pages(&sv->config, mariadb);
}

/* Each server where mariadb@/mysqld@ instances are enabled or run: the
 * instances, each sized from its own option groups, and the default
 * unit's server when it is enabled or runs beside them. The shared
 * large_pages_bytes becomes their sum, so the plan (mysql.profile's
 * innodb_buffer_pool_size) and the budget's consumers agree. */
static void collect_servers(const ht_context *c, ht_facts *f, bool mariadb) {
        char *tpath[ELEMENTSOF(templates)] = {0};
        bool any_template = false;
        for (size_t t = 0; t < ELEMENTSOF(templates); t++)
                for (size_t d = 0; d < ELEMENTSOF(unit_dirs) && !tpath[t]; d++) {
                        char *p = xasprintf("%s/%s.service", unit_dirs[d], templates[t].prefix);
                        if (ht_exists(c, p))
                                tpath[t] = p, any_template = true;
                        else
                                free(p);
                }
        if (!any_template)
                return;
        bool plain_enabled = false, plain_running = false;
        const char *plain_unit = NULL;
        /* enabled: a link in a .wants directory (systemctl enable) */
        _cleanup_strv_free_ char **wants = NULL;
        ht_list_dir(c, "/etc/systemd/system", ".wants", &wants);
        for (size_t w = 0; wants && wants[w]; w++) {
                _cleanup_free_ char *dir = xasprintf("/etc/systemd/system/%s", wants[w]);
                _cleanup_strv_free_ char **units = NULL;
                if (ht_list_dir(c, dir, ".service", &units) < 0)
                        continue;
                for (size_t u = 0; units && units[u]; u++) {
                        const char *name;
                        size_t len;
                        int t = instance_of(units[u], &name, &len);
                        if (t >= 0 && tpath[t])
                                server_for(f, units[u], name, len)->enabled = true;
                        for (size_t k = 0; k < ELEMENTSOF(plain_units); k++)
                                if (streq(units[u], plain_units[k])) {
                                        plain_enabled = true;
                                        plain_unit = plain_unit ? plain_unit : plain_units[k];
                                }
                }
        }
        /* running: a trusted server in the unit (facts-workload.c) */
        for (size_t i = 0; i < f->n_processes; i++) {
                const ht_process *pr = &f->processes[i];
                if (pr->kind != HT_PROC_MYSQL || pr->trust == HT_TRUST_NONE || !pr->unit)
                        continue;
                const char *name;
                size_t len;
                int t = instance_of(pr->unit, &name, &len);
                if (t >= 0 && tpath[t])
                        server_for(f, pr->unit, name, len)->running = true;
                else if (t < 0 && endswith(pr->unit, ".service")) {
                        plain_running = true;
                        plain_unit = pr->unit;
                }
        }
        size_t n_instances = f->n_mysql_servers;
        for (size_t i = 0; i < n_instances; i++) {
                ht_mysql_server *sv = &f->mysql_servers[i];
                const char *name;
                size_t len;
                int t = instance_of(sv->unit, &name, &len);
                read_instance(c, f, sv, tpath[t], (size_t)t, mariadb);
        }
        for (size_t t = 0; t < ELEMENTSOF(templates); t++)
                free(tpath[t]);
        if (n_instances == 0)
                return;
        ht_mysql_config *m = &f->mysql_config;
        if (plain_enabled || plain_running) {
                /* the default server reads what the shared read found */
                ht_mysql_server *sv = server_for(f, plain_unit, NULL, 0);
                sv->enabled = plain_enabled;
                sv->running = plain_running;
                sv->config.large_pages = m->large_pages;
                sv->config.large_pages_bytes = m->large_pages_bytes;
                sv->config.mariadb = mariadb;
                for (size_t k = 0; k < ELEMENTSOF(m->sizes); k++)
                        sv->config.sizes[k] = m->sizes[k];
                for (size_t k = 0; m->files && m->files[k]; k++)
                        strv_push(&sv->config.files, m->files[k]);
                for (size_t k = 0; m->large_pages_bytes_from && m->large_pages_bytes_from[k]; k++)
                        strv_push(&sv->config.large_pages_bytes_from, m->large_pages_bytes_from[k]);
        } else {
                m->large_pages_bytes = 0;
                strv_free(m->large_pages_bytes_from);
                m->large_pages_bytes_from = NULL;
        }
        /* Several instances of one template: no one unit runs them all,
         * but the template's drop-in reaches every instance (systemd.unit(5):
         * "For templates, dropins for the template ... are read"), so the
         * profile names the template (mysql.profile's mysql_unit). Its
         * LimitMEMLOCK is per process (setrlimit(2): each instance maps
         * its own pages), so the largest instance's need meets them all. */
        int common = -1;
        bool one_template = n_instances >= 2;
        for (size_t i = 0; i < n_instances && one_template; i++) {
                const char *name;
                size_t len;
                int t = instance_of(f->mysql_servers[i].unit, &name, &len);
                one_template = common < 0 || t == common;
                common = t;
                if (f->mysql_servers[i].config.large_pages_bytes > f->mysql_instance_max_bytes)
                        f->mysql_instance_max_bytes = f->mysql_servers[i].config.large_pages_bytes;
        }
        if (one_template && common >= 0)
                f->mysql_template = xasprintf("%s.service", templates[common].prefix);
        else
                f->mysql_instance_max_bytes = 0;
        for (size_t i = 0; i < n_instances; i++) {
                const ht_mysql_config *ic = &f->mysql_servers[i].config;
                if (m->large_pages_bytes > UINT64_MAX / 2 - ic->large_pages_bytes)
                        break;
                m->large_pages_bytes += ic->large_pages_bytes;
                for (size_t k = 0; ic->large_pages_bytes_from && ic->large_pages_bytes_from[k]; k++)
                        if (!strv_contains(m->large_pages_bytes_from, ic->large_pages_bytes_from[k]))
                                strv_push(&m->large_pages_bytes_from, ic->large_pages_bytes_from[k]);
        }
}

int ht_facts_mysql_instance_large_pages(const ht_context *c, ht_facts *f, const char *unit, uint64_t *ret_bytes,
                                        char **ret_from) {
        const char *name;
        size_t len;
        int t = instance_of(unit, &name, &len);
        if (t < 0)
                return -EINVAL;
        _cleanup_free_ char *tpath = NULL;
        for (size_t d = 0; d < ELEMENTSOF(unit_dirs) && !tpath; d++) {
                char *p = xasprintf("%s/%s.service", unit_dirs[d], templates[t].prefix);
                if (ht_exists(c, p))
                        tpath = p;
                else
                        free(p);
        }
        if (!tpath)
                return -ENOENT;
        /* MariaDB counts two more caches: its binary, or its option files */
        static const char *const bins[] = {"/usr/sbin/mariadbd", "/usr/libexec/mariadbd"};
        bool mariadb = streq(templates[t].prefix, "mariadb@");
        for (size_t i = 0; i < ELEMENTSOF(bins); i++)
                mariadb = mariadb || ht_exists(c, bins[i]);
        ht_mysql_server *sv = server_for(f, unit, name, len);
        read_instance(c, f, sv, tpath, (size_t)t, mariadb);
        *ret_bytes = sv->config.large_pages_bytes;
        if (ret_from)
                *ret_from = sv->config.large_pages_bytes_from ? strv_join(sv->config.large_pages_bytes_from, ", ")
                                                              : NULL;
        return 0;
}

/* The running server's command line (/proc/PID/cmdline, NUL-separated
 * arguments): the one trusted mysqld or mariadbd, its argument vector in
 * *ret_args and where it is in *ret_where. None, or several servers with
 * different command lines: -ENOENT. An untrusted process's arguments
 * are never read (any user can run a copy of mysqld). */
static int server_cmdline(const ht_context *c, ht_facts *f, char ***ret_args, char **ret_where, unsigned *ret_pid) {
        _cleanup_strv_free_ char **args = NULL;
        _cleanup_free_ char *where = NULL;
        unsigned pid = 0;
        for (size_t i = 0; i < f->n_processes; i++) {
                const ht_process *pr = &f->processes[i];
                if (pr->kind != HT_PROC_MYSQL || pr->trust == HT_TRUST_NONE)
                        continue;
                _cleanup_free_ char *p = xasprintf("/proc/%u/cmdline", pr->pid);
                _cleanup_free_ char *buf = NULL;
                size_t len = 0;
                if (ht_read_file(c, p, 256u << 10, &buf, &len) < 0 || len == 0)
                        continue;
                char **a = NULL;
                for (size_t off = 0; off < len;) {
                        size_t n = strnlen(buf + off, len - off);
                        strv_push_take(&a, xstrndup(buf + off, n));
                        off += n + 1;
                }
                if (!a)
                        continue;
                bool same = args != NULL;
                for (size_t k = 0; same && (args[k] || a[k]); k++)
                        same = args[k] && a[k] && streq(args[k], a[k]);
                if (args && !same) {
                        ht_facts_warn(f, "MySQL/MariaDB servers run with different command lines (%s and %s): "
                                      "the options of neither are read", where, p);
                        strv_free(a);
                        return -ENOENT;
                }
                if (!args) {
                        args = a;
                        where = TAKE_PTR(p);
                        pid = pr->pid;
                } else
                        strv_free(a);
        }
        if (!args)
                return -ENOENT;
        *ret_args = TAKE_PTR(args);
        *ret_where = TAKE_PTR(where);
        *ret_pid = pid;
        return 0;
}

/* What of the running server's environment (/proc/PID/environ) decides
 * the files and groups it reads (mysys/my_default.c, MariaDB 10.11):
 * $MARIADB_HOME, else $MYSQL_HOME: DIR/my.cnf after the global files
 * (init_default_directories()); $HOME: ~/.my.cnf last (systemd sets it
 * from the unit's User=, systemd.exec(5): mysql's home is /nonexistent
 * on Debian, /var/lib/mysql on RHEL and Fedora, where a .my.cnf there is
 * the server's too); $MARIADB_GROUP_SUFFIX, else $MYSQL_GROUP_SUFFIX,
 * without --defaults-group-suffix (get_defaults_options()). mariadbd
 * 10.11.19 run with HOME, MYSQL_HOME and MYSQL_GROUP_SUFFIX set reads
 * all three. */
typedef struct {
        char *home, *mysql_home, *group_suffix;
} server_env;

static void server_environ(const ht_context *c, unsigned pid, server_env *ret) {
        _cleanup_free_ char *p = xasprintf("/proc/%u/environ", pid);
        _cleanup_free_ char *buf = NULL;
        size_t len = 0;
        if (ht_read_file(c, p, 256u << 10, &buf, &len) < 0)
                return;
        static const char *const keys[] = {"HOME=", "MARIADB_HOME=", "MYSQL_HOME=", "MARIADB_GROUP_SUFFIX=",
                                           "MYSQL_GROUP_SUFFIX="};
        const char *found[ELEMENTSOF(keys)] = {0};
        for (size_t off = 0; off < len;) {
                const char *v = buf + off;
                size_t n = strnlen(v, len - off);
                if (off + n < len)
                        for (size_t k = 0; k < ELEMENTSOF(keys); k++)
                                if (!found[k] && startswith(v, keys[k]))
                                        found[k] = v + strlen(keys[k]);
                off += n + 1;
        }
        /* the mariadb names first, an empty value as none (getenv() gives
         * "" and the server reads "/my.cnf": no such file here either) */
        const char *home = found[0], *mhome = found[1] ? found[1] : found[2],
                   *suffix = found[3] ? found[3] : found[4];
        ret->home = home && *home ? xstrdup(home) : NULL;
        ret->mysql_home = mhome && *mhome ? xstrdup(mhome) : NULL;
        ret->group_suffix = suffix ? xstrdup(suffix) : NULL;
}

/* The leading --no-defaults, --defaults-file=, --defaults-extra-file=
 * and --defaults-group-suffix=, as mysys reads them
 * (mysys/my_default.c get_defaults_options(), MariaDB 10.11):
 * --no-defaults only as the very first argument, and then none of the
 * others; else the others in any order, the first of each kept ("if
 * (!my_defaults_file && is_prefix(*argv, ...))"). Returns the index of
 * the first other argument. */
static size_t defaults_options(char **args, bool *no_defaults, const char **file, const char **extra,
                               const char **suffix) {
        size_t i = 1;
        if (args[i] && streq(args[i], "--no-defaults")) {
                *no_defaults = true;
                return i + 1;
        }
        for (; args[i]; i++) {
                const char *a = args[i];
                if (!*file && startswith(a, "--defaults-file="))
                        *file = a + strlen("--defaults-file=");
                else if (!*extra && startswith(a, "--defaults-extra-file="))
                        *extra = a + strlen("--defaults-extra-file=");
                else if (!*suffix && startswith(a, "--defaults-group-suffix="))
                        *suffix = a + strlen("--defaults-group-suffix=");
                else
                        break;
        }
        return i;
}

/* The options after them: the server reads its command line after its
 * option files, so a size or large-pages there wins (my_getopt
 * handle_options: the last value of an option is the one kept; "-" and
 * "_" alike, "--loose-" a prefix; a size may also be the next argument,
 * "--innodb-buffer-pool-size 8G"). */
static void cmdline_options(reader *rd, char **args, size_t first, const char *path, const char *where) {
        for (size_t i = first; args[i]; i++) {
                const char *a = args[i];
                if (!startswith(a, "--") || !a[2])
                        continue;
                const char *eq = strchr(a, '=');
                _cleanup_free_ char *name = eq ? xstrndup(a + 2, (size_t)(eq - a - 2)) : xstrdup(a + 2);
                for (char *p = name; *p; p++)
                        if (*p == '-')
                                *p = '_';
                if (startswith(name, "loose_"))
                        memmove(name, name + 6, strlen(name + 6) + 1);
                _cleanup_free_ char *value = eq ? xstrdup(eq + 1) : NULL;
                bool size = false;
                for (size_t k = 0; k < ELEMENTSOF(sizes); k++)
                        size = size || streq(full_option_name(name), sizes[k]);
                if (size && !value && args[i + 1] && !startswith(args[i + 1], "-"))
                        value = xstrdup(args[++i]);
                ht_mycnf_entry e = {.kind = HT_MYCNF_OPTION, .name = name, .value = value, .line = (unsigned)i};
                set_option(rd, &e, path, where);
        }
}

void ht_facts_collect_mysql_config(const ht_context *c, ht_facts *f) {
        ht_mysql_config *m = &f->mysql_config;
        config_init(m);
        reader rd = {.c = c, .f = f, .m = m};
        _cleanup_strv_free_ char **args = NULL;
        _cleanup_free_ char *args_from = NULL;
        bool no_defaults = false;
        const char *defaults_file = NULL, *extra_file = NULL;
        size_t first = 0;
        unsigned pid = 0;
        server_env env = {0};
        if (server_cmdline(c, f, &args, &args_from, &pid) == 0) {
                first = defaults_options(args, &no_defaults, &defaults_file, &extra_file, &rd.suffix);
                server_environ(c, pid, &env);
                if (!rd.suffix)
                        rd.suffix = env.group_suffix;
                /* relative to the server's working directory, which is
                 * not known here */
                const char **named[] = {&defaults_file, &extra_file};
                for (size_t i = 0; i < ELEMENTSOF(named); i++)
                        if (*named[i] && (*named[i])[0] != '/') {
                                ht_facts_warn(f, "%s: %s is not an absolute path: not read", args_from,
                                              *named[i]);
                                *named[i] = NULL;
                        }
        }
        /* the files the server reads: --no-defaults none, --defaults-file
         * that one only, else the default files and then
         * --defaults-extra-file (MariaDB, "Configuring MariaDB with Option
         * Files": the extra file after the global ones) */
        if (defaults_file && !no_defaults) {
                rd.named = defaults_file;
                read_file(&rd, defaults_file, NULL, 0);
        } else if (!no_defaults) {
                for (size_t i = 0; i < ELEMENTSOF(option_files); i++)
                        read_file(&rd, option_files[i], NULL, 0);
                /* the environment's files, in the server's order around
                 * the extra file (server_environ); a relative directory
                 * is the server's working directory's, not known here */
                if (env.mysql_home && env.mysql_home[0] == '/') {
                        _cleanup_free_ char *p = xasprintf("%s/my.cnf", env.mysql_home);
                        read_file(&rd, p, NULL, 0);
                }
                rd.named = extra_file;
                if (extra_file)
                        read_file(&rd, extra_file, NULL, 0);
                rd.named = NULL;
                if (env.home && env.home[0] == '/') {
                        _cleanup_free_ char *p = xasprintf("%s/.my.cnf", env.home);
                        read_file(&rd, p, NULL, 0);
                }
        }
        if (args) {
                _cleanup_free_ char *d = ht_display_path(c, args_from);
                cmdline_options(&rd, args, first, args_from, d);
        }
        strv_free(rd.visited);
        free(env.home);
        free(env.mysql_home);
        free(env.group_suffix);
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
        size_large_pages(m, mariadb);
        collect_servers(c, f, mariadb);
}

void ht_facts_mysql_config_free(ht_facts *f) {
        config_done(&f->mysql_config);
        for (size_t i = 0; i < f->n_mysql_servers; i++) {
                ht_mysql_server *sv = &f->mysql_servers[i];
                free(sv->unit);
                free(sv->instance);
                free(sv->group_suffix);
                free(sv->defaults_file);
                free(sv->from);
                config_done(&sv->config);
        }
        free(f->mysql_servers);
        free(f->mysql_template);
}

const char *ht_mysql_size_name(size_t i) {
        return i < ELEMENTSOF(sizes) ? sizes[i] : NULL;
}
