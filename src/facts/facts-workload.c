/* Workload facts: what the host runs or has installed — an Oracle
 * Database (its owner, oratab, ora_* processes), MySQL/MariaDB (units,
 * binaries, a running server), JVMs (java processes and their heaps).
 * recommend picks a profile from them and status finds the processes
 * whose text hugetext should map. Everything is read through the
 * context, so fixtures can hold a /proc/PID/ or two. */
#include "config.h"

#include <ctype.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <errno.h>
#include <stdio.h>

#include "accounts.h"
#include "edit-unit.h"
#include "facts-internal.h"
#include "facts.h"
#include "util.h"

/* A JVM's command line can be long (class paths): read this much. */
#define MAX_CMDLINE (256u << 10)

const char *ht_trust_to_string(ht_trust t) {
        switch (t) {
        case HT_TRUST_NONE: return NULL;
        case HT_TRUST_ROOT: return "root";
        case HT_TRUST_SERVICE: return "service";
        case HT_TRUST_UNIT: return "unit";
        case HT_TRUST_USER: return "user";
        case HT_TRUST_OWNER: return "owner";
        }
        return NULL;
}

const char *ht_process_kind_to_string(ht_process_kind k) {
        switch (k) {
        case HT_PROC_ORACLE: return "oracle";
        case HT_PROC_MYSQL: return "mysql";
        case HT_PROC_JAVA: return "java";
        }
        return "unknown";
}

/* A process name fit for messages: printable ASCII, at most 64 bytes. */
static char *clean_name(const char *s, size_t n) {
        if (n > 64)
                n = 64;
        char *r = xstrndup(s, n);
        for (char *p = r; *p; p++)
                if ((unsigned char)*p < 0x21 || (unsigned char)*p >= 0x7f)
                        *p = '?';
        return r;
}

int ht_java_max_heap(const char *cmdline, size_t len, uint64_t *ret) {
        /* the launcher's options only, the last -Xmx winning (format-jvm.c);
         * JAVA_TOOL_OPTIONS and the rest are read by facts-jvm.c */
        ht_jvm_options o;
        ht_jvm_options_init(&o);
        ht_jvm_parse_cmdline(&o, cmdline, len);
        if (o.max_heap == UINT64_MAX)
                return -ENOENT;
        *ret = o.max_heap;
        return 0;
}

static bool classify(const char *name, ht_process_kind *ret) {
        if (startswith(name, "ora_")) {
                *ret = HT_PROC_ORACLE;
                return true;
        }
        if (streq(name, "mysqld") || streq(name, "mariadbd")) {
                *ret = HT_PROC_MYSQL;
                return true;
        }
        if (streq(name, "java")) {
                *ret = HT_PROC_JAVA;
                return true;
        }
        return false;
}

/* One cgroup path component as systemd names it: cg_escape() puts a
 * '_' before a unit name that starts with '_' or '.' or could be taken
 * for a cgroup file (src/basic/cgroup-util.c), cg_unescape() drops it. */
static const char *cg_unescape(const char *p) {
        return p[0] == '_' ? p + 1 : p;
}

ht_cgroup_kind ht_cgroup_parse(const char *buf, char **ret_path, char **ret_unit, char **ret_bad_unit) {
        *ret_path = *ret_unit = *ret_bad_unit = NULL;
        _cleanup_strv_free_ char **lines = strv_split(buf, "\n");
        const char *v2 = NULL, *v1 = NULL;
        for (size_t i = 0; lines[i]; i++) {
                const char *l = lines[i];
                if (startswith(l, "0::"))
                        v2 = l + 3;
                else {
                        const char *c = strchr(l, ':');
                        if (c && startswith(c + 1, "name=systemd:"))
                                v1 = c + 1 + strlen("name=systemd:");
                }
        }
        /* systemd keeps its tree in name=systemd on cgroup v1 (RHEL 7,
         * legacy and hybrid mode, where a "0::" line may still say "/")
         * and in the unified hierarchy on v2 */
        const char *path = v1 ? v1 : v2;
        if (!path || path[0] != '/')
                return HT_CG_UNKNOWN;
        /* for messages: printable, bounded (a user names its own
         * sub-cgroups) */
        *ret_path = xstrndup(path, 512);
        for (char *p = *ret_path; *p; p++)
                if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
                        *p = '?';
        _cleanup_strv_free_ char **parts = strv_split(path, "/");
        ht_cgroup_kind kind = HT_CG_OTHER;
        bool top = true;
        for (size_t k = 0; parts[k]; k++) {
                if (!*parts[k])
                        continue;
                const char *name = cg_unescape(parts[k]);
                /* slices nest by name (user-1000.slice is in user.slice):
                 * the first one says whose the tree is */
                if (endswith(name, ".slice")) {
                        if (top && (streq(name, "user.slice") || startswith(name, "user-")))
                                return HT_CG_USER;
                        if (top && (streq(name, "machine.slice") || startswith(name, "machine-")))
                                return HT_CG_MACHINE;
                        top = false;
                        continue;
                }
                /* the first unit below the slices is the process's: what
                 * is below it are sub-cgroups a unit with Delegate=yes
                 * lets its user make and name (a "mariadb.service" there
                 * is no unit), so the unit is trusted and named, never
                 * what it delegates */
                if (startswith(name, "user@"))
                        return HT_CG_USER;
                if (!ht_unit_name_valid(name)) {
                        *ret_bad_unit = xstrndup(parts[k], 256);
                        for (char *p = *ret_bad_unit; *p; p++)
                                if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
                                        *p = '?';
                        return HT_CG_OTHER;
                }
                *ret_unit = xstrdup(name);
                if (endswith(name, ".service"))
                        kind = HT_CG_SERVICE;
                break;
        }
        return kind;
}

/* Uid: real, effective, saved and filesystem uid (proc(5)). */
static int status_uids(const char *buf, uint64_t uids[3]) {
        const char *p = strstr(buf, "\nUid:");
        if (!p && startswith(buf, "Uid:"))
                p = buf - 1;
        if (!p)
                return -ENODATA;
        p += 5;
        for (size_t i = 0; i < 3; i++) {
                while (*p == '\t' || *p == ' ')
                        p++;
                size_t n = strspn(p, "0123456789");
                _cleanup_free_ char *num = xstrndup(p, n);
                if (n == 0 || parse_u64(num, &uids[i]) < 0 || uids[i] >= UINT32_MAX)
                        return -EBADMSG;
                p += n;
        }
        return 0;
}

/* Whether root's plan may take facts from pr: whose it is and where it
 * runs, from its status and cgroup files. */
static void judge_process(const ht_context *c, ht_facts *f, ht_process *pr) {
        _cleanup_free_ char *p_status = xasprintf("/proc/%u/status", pr->pid);
        _cleanup_free_ char *p_cgroup = xasprintf("/proc/%u/cgroup", pr->pid);
        _cleanup_free_ char *status = NULL, *cg = NULL;
        uint64_t uids[3];
        bool root = false;
        if (ht_read_file(c, p_status, 1 << 16, &status, NULL) == 0 && status_uids(status, uids) == 0) {
                pr->uid = (int64_t)uids[0];
                pr->uids_differ = uids[1] != uids[0] || uids[2] != uids[0];
                root = uids[0] == 0 && !pr->uids_differ;
                pr->user = ht_facts_passwd_name(c, uids[0]);
        }
        if (ht_read_file(c, p_cgroup, 1 << 16, &cg, NULL) == 0) {
                _cleanup_free_ char *bad = NULL;
                pr->cgroup_kind = ht_cgroup_parse(cg, &pr->cgroup, &pr->unit, &bad);
                if (bad && root)
                        /* only a process that would be trusted says so:
                         * others cannot fill the warnings */
                        ht_facts_warn(f, "%s %u: its cgroup %s names '%s', which is not a valid unit name: "
                                      "not taken for a unit", pr->name, pr->pid, pr->cgroup, bad);
        }
        const char *uu = f->trust.unit[pr->kind];
        _cleanup_free_ char *named_unit = uu && !strchr(uu, '.') ? xasprintf("%s.service", uu)
                                                                  : uu ? xstrdup(uu) : NULL;
        const char *nu = f->trust.user[pr->kind];
        if (root)
                pr->trust = HT_TRUST_ROOT;
        else if (pr->cgroup_kind == HT_CG_SERVICE)
                pr->trust = HT_TRUST_SERVICE;
        else if (named_unit && pr->unit && streq(pr->unit, named_unit))
                pr->trust = HT_TRUST_UNIT;
        else if (nu && pr->user && !pr->uids_differ && streq(pr->user, nu))
                pr->trust = HT_TRUST_USER;
}

/* The parameter naming a workload's user, by ht_process_kind. */
static const char *const user_params[] = {"oracle_user", "mysql_user", "jvm_user"};

char *ht_process_not_used_reason(const ht_process *p) {
        strbuf b = {0};
        if (p->uid < 0)
                strbuf_append(&b, "its owner is not known");
        else if (p->user)
                strbuf_appendf(&b, "owned by %s (uid %" PRId64 "%s)", p->user, p->uid,
                               p->uids_differ ? "; its effective or saved uid differs" : "");
        else
                strbuf_appendf(&b, "owned by uid %" PRId64 " (not in /etc/passwd%s)", p->uid,
                               p->uids_differ ? "; its effective or saved uid differs" : "");
        static const char *const where[] = {
                [HT_CG_UNKNOWN] = "in no cgroup systemd made",
                [HT_CG_SERVICE] = "in a system service",
                [HT_CG_USER] = "in a user's session or user manager",
                [HT_CG_MACHINE] = "in a container or virtual machine",
                [HT_CG_OTHER] = "in no system service",
        };
        strbuf_appendf(&b, ", %s", where[p->cgroup_kind]);
        if (p->cgroup)
                strbuf_appendf(&b, " (%s)", p->cgroup);
        strbuf_appendf(&b, "; not root's, not a system service's, not %s's%s", user_params[p->kind],
                       p->kind == HT_PROC_ORACLE ? ", not the owner's of an Oracle home in oratab" : "");
        return strbuf_steal(&b);
}

char *ht_process_use_set(const ht_process *p) {
        /* a name only the root's /etc/passwd gives, and one uid */
        if (!p->user || p->uids_differ)
                return NULL;
        return xasprintf("%s=%s", user_params[p->kind], p->user);
}

static int cmp_process(const void *a, const void *b) {
        const ht_process *x = a, *y = b;
        return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static void collect_processes(const ht_context *c, ht_facts *f) {
        const ht_proc_comm *procs;
        size_t n;
        if (!ht_facts_proc_comms(c, f, &procs, &n) || n == 0)
                return;
        f->processes_known = true;
        for (size_t i = 0; i < n; i++) {
                unsigned pid = procs[i].pid;
                const char *comm = procs[i].comm;
                /* most processes are none of ours: skip their command
                 * lines, which can be long */
                ht_process_kind k;
                if (comm && !classify(comm, &k))
                        continue;
                _cleanup_free_ char *p_cmd = xasprintf("/proc/%u/cmdline", pid);
                _cleanup_free_ char *cmd = NULL;
                size_t cmd_len = 0;
                /* argv[0] first: Oracle renames its processes there in full
                 * (comm keeps only 15 bytes), and it is a path for java */
                _cleanup_free_ char *name = NULL;
                ht_process_kind kind;
                bool have_cmd = ht_read_file(c, p_cmd, MAX_CMDLINE, &cmd, &cmd_len) == 0 && cmd_len > 0;
                if (have_cmd) {
                        /* Oracle writes "ora_pmon_ORCL" over argv with spaces after it */
                        _cleanup_free_ char *argv0 = xstrndup(cmd, strcspn(cmd, " "));
                        const char *base = strrchr(argv0, '/') ? strrchr(argv0, '/') + 1 : argv0;
                        if (classify(base, &kind))
                                name = clean_name(base, strlen(base));
                }
                if (!name && comm && classify(comm, &kind))
                        name = clean_name(comm, strlen(comm));
                if (!name)
                        continue;
                f->processes = xrealloc(f->processes, (f->n_processes + 1) * sizeof(*f->processes));
                ht_process *pr = &f->processes[f->n_processes++];
                *pr = (ht_process){.pid = pid, .name = TAKE_PTR(name), .kind = kind,
                                   .max_heap_bytes = HT_U64_UNKNOWN, .uid = -1};
                judge_process(c, f, pr);
                uint64_t heap;
                if (kind == HT_PROC_JAVA && have_cmd && ht_java_max_heap(cmd, cmd_len, &heap) == 0)
                        pr->max_heap_bytes = heap;
        }
        if (f->n_processes > 1)
                qsort(f->processes, f->n_processes, sizeof(*f->processes), cmp_process);
}

void ht_facts_parse_oratab(ht_facts *f, const char *buf, size_t len, const char *where) {
        ht_facts_check_nul(f, buf, len, where);
        _cleanup_strv_free_ char **lines = strv_split(buf, "\n");
        for (size_t i = 0; lines[i]; i++) {
                char *l = strstrip(lines[i]);
                if (!*l || *l == '#')
                        continue;
                /* SID:ORACLE_HOME:Y|N; "*" entries name a home, not a database */
                size_t n = strcspn(l, ":");
                if (l[n] != ':' || n == 0 || l[0] == '*')
                        continue;
                _cleanup_free_ char *sid = xstrndup(l, n);
                bool ok = true;
                for (char *p = sid; *p && ok; p++)
                        ok = isalnum((unsigned char)*p) || *p == '_' || *p == '+' || *p == '-' || *p == '$';
                if (ok && !strv_contains(f->oratab_sids, sid))
                        strv_push(&f->oratab_sids, sid);
        }
}

/* The "oracle" user: uid from the root's /etc/passwd (never NSS). */
static void collect_oracle_user(const ht_context *c, ht_facts *f) {
        const ht_passwd *p;
        int r = ht_passwd_read(c, &p);
        if (r < 0) {
                if (r != -ENOENT && r != -ENOTDIR)
                        ht_facts_warn_read_error(c, f, "/etc/passwd", r);
                return;
        }
        const ht_passwd_entry *e = ht_passwd_by_name(p, "oracle");
        if (e) {
                f->oracle_user = xstrdup(e->name);
                f->oracle_uid = (int64_t)e->uid;
        }
        ht_passwd_unref(p);
}

void ht_facts_collect_workload(const ht_context *c, ht_facts *f) {
        ht_facts_collect_workload_parts(c, f, HT_WORKLOAD_ALL);
}

void ht_facts_collect_workload_parts(const ht_context *c, ht_facts *f, unsigned parts) {
        f->workload_collected = true;
        if (parts & HT_WORKLOAD_ORACLE) {
                collect_oracle_user(c, f);
                static const char *const oratabs[] = {"/etc/oratab", "/var/opt/oracle/oratab"};
                for (size_t i = 0; i < ELEMENTSOF(oratabs) && !f->oratab; i++) {
                        char *buf;
                        size_t len;
                        /* oratab belongs to the Oracle software owner
                         * (root.sh makes it oracle:oinstall 0664), and
                         * /var/opt/oracle may be theirs too */
                        if (ht_facts_read_untrusted(c, f, oratabs[i], HT_FACTS_MAX_FILE, NULL, false, &buf,
                                                    &len) < 0)
                                continue;
                        f->oratab = xstrdup(oratabs[i]);
                        _cleanup_free_ char *d = ht_display_path(c, oratabs[i]);
                        ht_facts_parse_oratab(f, buf, len, d);
                        free(buf);
                }
                /* whether a database runs: its ora_pmon_SID process */
                if (f->oratab)
                        parts |= HT_WORKLOAD_PROCESSES;
        }

        if (parts & HT_WORKLOAD_MYSQL) {
                static const char *const unit_dirs[] = {"/etc/systemd/system", "/usr/lib/systemd/system",
                                                        "/lib/systemd/system"};
                static const char *const units[] = {"mysqld.service", "mariadb.service", "mysql.service"};
                for (size_t d = 0; d < ELEMENTSOF(unit_dirs); d++)
                        for (size_t u = 0; u < ELEMENTSOF(units); u++) {
                                _cleanup_free_ char *p = xasprintf("%s/%s", unit_dirs[d], units[u]);
                                if (ht_exists(c, p))
                                        strv_push(&f->mysql_units, p);
                        }
                /* Which unit each path is: a link to another name is an
                 * alias of that unit (Debian's mysql.service and
                 * mysqld.service link to mariadb.service), and merged
                 * /usr shows every file again under /lib. Same file
                 * (device and inode) = same unit, named by the path that
                 * is no link itself. */
                size_t n_units = strv_length(f->mysql_units);
                struct stat *st = xcalloc(n_units + 1, sizeof(*st));
                bool *link = xcalloc(n_units + 1, sizeof(*link));
                bool *seen = xcalloc(n_units + 1, sizeof(*seen));
                for (size_t i = 0; i < n_units; i++) {
                        struct stat l;
                        seen[i] = ht_stat(c, f->mysql_units[i], &st[i]) >= 0;
                        link[i] = ht_lstat(c, f->mysql_units[i], &l) >= 0 && S_ISLNK(l.st_mode);
                }
                for (size_t i = 0; i < n_units; i++) {
                        const char *real = strrchr(f->mysql_units[i], '/') + 1;
                        for (size_t j = 0; seen[i] && j < n_units; j++)
                                if (seen[j] && !link[j] && st[j].st_dev == st[i].st_dev &&
                                    st[j].st_ino == st[i].st_ino) {
                                        real = strrchr(f->mysql_units[j], '/') + 1;
                                        break;
                                }
                        strv_push(&f->mysql_unit_real, real);
                }
                free(st);
                free(link);
                free(seen);
                static const char *const bins[] = {"/usr/sbin/mysqld", "/usr/sbin/mariadbd", "/usr/libexec/mysqld",
                                                   "/usr/libexec/mariadbd"};
                for (size_t i = 0; i < ELEMENTSOF(bins); i++)
                        if (ht_exists(c, bins[i]))
                                strv_push(&f->mysql_binaries, bins[i]);
        }

        if (parts & (HT_WORKLOAD_MYSQL | HT_WORKLOAD_JVM))
                parts |= HT_WORKLOAD_PROCESSES;
        if (parts & HT_WORKLOAD_PROCESSES)
                collect_processes(c, f);
        size_t n0 = strv_length(f->warnings);
        if (parts & HT_WORKLOAD_ORACLE)
                ht_facts_collect_oracle(c, f);
        size_t n1 = strv_length(f->warnings);
        if (parts & HT_WORKLOAD_MYSQL)
                ht_facts_collect_mysql_config(c, f);
        size_t n2 = strv_length(f->warnings);
        if (parts & HT_WORKLOAD_JVM)
                ht_facts_collect_jvm(c, f);
        size_t n3 = strv_length(f->warnings);
        for (size_t i = n0; i < n3; i++)
                strv_push(i < n1 ? &f->oracle_warnings : i < n2 ? &f->mysql_warnings : &f->jvm_warnings,
                          f->warnings[i]);
}

void ht_facts_workload_free(ht_facts *f) {
        for (size_t i = 0; i < f->n_processes; i++) {
                free(f->processes[i].name);
                free(f->processes[i].user);
                free(f->processes[i].cgroup);
                free(f->processes[i].unit);
        }
        free(f->processes);
        for (size_t i = 0; i < ELEMENTSOF(f->trust.user); i++) {
                free(f->trust.user[i]);
                free(f->trust.unit[i]);
        }
        free(f->oracle_user);
        free(f->oratab);
        strv_free(f->oratab_sids);
        strv_free(f->mysql_units);
        strv_free(f->mysql_unit_real);
        strv_free(f->mysql_binaries);
        ht_facts_oracle_free(f);
        ht_facts_mysql_config_free(f);
        ht_facts_jvm_free(f);
        strv_free(f->oracle_warnings);
        strv_free(f->mysql_warnings);
}

/* Sum each of n "Name:   123 kB" fields over the lines of path (smaps has
 * one block per mapping, smaps_rollup and status one line each). A field
 * no line has stays HT_U64_UNKNOWN; -ENODATA when none was there. */
static int sum_kb_fields(const ht_context *c, const char *path, const char *const *names, size_t n,
                         uint64_t *out) {
        for (size_t i = 0; i < n; i++)
                out[i] = HT_U64_UNKNOWN;
        FILE *f = NULL;
        int r = ht_fopen_read(c, path, &f);
        if (r < 0)
                return r;
        bool seen = false;
        char *line = NULL;
        size_t cap = 0;
        errno = 0;
        while (getline(&line, &cap, f) > 0) {
                for (size_t i = 0; i < n; i++) {
                        size_t len = strlen(names[i]);
                        if (strncmp(line, names[i], len) != 0 || line[len] != ':')
                                continue;
                        char *p = line + len + 1, *end;
                        errno = 0;
                        unsigned long long v = strtoull(p, &end, 10);
                        /* a negative or garbled number tells nothing */
                        if (errno || end == p || strchr(p, '-') || v > UINT64_MAX / 2)
                                break;
                        out[i] = (out[i] == HT_U64_UNKNOWN ? 0 : out[i]) + v;
                        seen = true;
                        break;
                }
        }
        /* reading smaps of another user's process is EACCES at read time */
        if (ferror(f))
                r = errno ? -errno : -EIO;
        free(line);
        fclose(f);
        if (r < 0)
                return r;
        return seen ? 0 : -ENODATA;
}

/* Field k (1-based, as proc(5) numbers them) of /proc/PID/stat: the
 * fields after the command, which is in parentheses and may hold spaces
 * or parentheses itself, so counting starts after its last ')'. */
static int stat_fields(const ht_context *c, unsigned pid, const unsigned *ks, size_t n, uint64_t *out) {
        _cleanup_free_ char *path = xasprintf("/proc/%u/stat", pid);
        _cleanup_free_ char *buf = NULL;
        int r = ht_read_file(c, path, 4096, &buf, NULL);
        if (r < 0)
                return r;
        const char *p = strrchr(buf, ')');
        if (!p)
                return -EBADMSG;
        _cleanup_strv_free_ char **words = strv_split(p + 1, " \n");
        for (size_t i = 0; i < n; i++) {
                out[i] = HT_U64_UNKNOWN;
                /* words[0] is field 3 (state) */
                size_t at = ks[i] - 3;
                if (ks[i] >= 3 && at < strv_length(words)) {
                        uint64_t v;
                        if (parse_u64(words[at], &v) == 0)
                                out[i] = v;
                }
        }
        return 0;
}

/* The size of the process's HugeTLB mappings in smaps: reserved and
 * faulted alike (Private/Shared_Hugetlb count only pages faulted in; a
 * JVM's heap mapped with MAP_HUGETLB is mostly reserved until touched).
 * A HugeTLB mapping's KernelPageSize is its huge page size (proc.rst);
 * the base page size is the smallest one the process has (every process
 * has ordinary mappings: stack, text), so no architecture's base page
 * size is assumed. */
static int hugetlb_mapped_kb(const ht_context *c, unsigned pid, uint64_t *ret) {
        _cleanup_free_ char *path = xasprintf("/proc/%u/smaps", pid);
        FILE *f = NULL;
        int r = ht_fopen_read(c, path, &f);
        if (r < 0)
                return r;
        /* Size summed by KernelPageSize, for the few page sizes there are */
        struct page_sum {
                uint64_t page_kb, size_kb;
        } by[8];
        size_t n_by = 0;
        uint64_t size = HT_U64_UNKNOWN;
        char *line = NULL;
        size_t cap = 0;
        errno = 0;
        while (getline(&line, &cap, f) > 0) {
                uint64_t v;
                char num[32];
                if (sscanf(line, "Size: %31s", num) == 1)
                        size = parse_u64(num, &v) == 0 ? v : HT_U64_UNKNOWN;
                else if (sscanf(line, "KernelPageSize: %31s", num) == 1 && parse_u64(num, &v) == 0 && v > 0 &&
                         size != HT_U64_UNKNOWN) {
                        size_t k = 0;
                        while (k < n_by && by[k].page_kb != v)
                                k++;
                        if (k == n_by && n_by < ELEMENTSOF(by))
                                by[n_by++] = (struct page_sum){v, 0};
                        if (k < n_by && by[k].size_kb <= UINT64_MAX / 2 - size)
                                by[k].size_kb += size;
                        size = HT_U64_UNKNOWN;
                }
        }
        if (ferror(f))
                r = errno ? -errno : -EIO;
        free(line);
        fclose(f);
        if (r < 0)
                return r;
        if (n_by == 0)
                return -ENODATA;
        uint64_t base = by[0].page_kb, sum = 0;
        for (size_t k = 1; k < n_by; k++)
                if (by[k].page_kb < base)
                        base = by[k].page_kb;
        for (size_t k = 0; k < n_by; k++)
                if (by[k].page_kb > base)
                        sum += by[k].size_kb;
        *ret = sum;
        return 0;
}

int ht_proc_majflt_read(const ht_context *c, unsigned pid, uint64_t *ret) {
        static const unsigned k[] = {12};
        uint64_t v;
        int r = stat_fields(c, pid, k, 1, &v);
        if (r < 0)
                return r;
        if (v == HT_U64_UNKNOWN)
                return -ENODATA;
        *ret = v;
        return 0;
}

int ht_proc_memory_read(const ht_context *c, unsigned pid, ht_proc_memory *ret) {
        ht_proc_memory m = {.vm_pte_kb = HT_U64_UNKNOWN, .hugetlb_kb = HT_U64_UNKNOWN,
                            .private_hugetlb_kb = HT_U64_UNKNOWN, .shared_hugetlb_kb = HT_U64_UNKNOWN,
                            .file_pmd_mapped_kb = HT_U64_UNKNOWN, .majflt = HT_U64_UNKNOWN,
                            .hugetlb_mapped_kb = HT_U64_UNKNOWN,
                            .start_ticks = HT_U64_UNKNOWN};
        _cleanup_free_ char *dir = xasprintf("/proc/%u", pid);
        if (!ht_exists(c, dir))
                return -ENOENT;

        static const char *const st_names[] = {"VmPTE", "HugetlbPages"};
        uint64_t st[2];
        _cleanup_free_ char *p_status = xasprintf("/proc/%u/status", pid);
        if (sum_kb_fields(c, p_status, st_names, 2, st) == 0)
                m.vm_pte_kb = st[0];

        /* smaps_rollup (4.14+) sums the mappings; smaps before it */
        static const char *const sm_names[] = {"Private_Hugetlb", "Shared_Hugetlb", "FilePmdMapped"};
        static const char *const files[] = {"smaps_rollup", "smaps"};
        uint64_t sm[3] = {HT_U64_UNKNOWN, HT_U64_UNKNOWN, HT_U64_UNKNOWN};
        for (size_t i = 0; i < ELEMENTSOF(files); i++) {
                _cleanup_free_ char *p = xasprintf("/proc/%u/%s", pid, files[i]);
                int r = sum_kb_fields(c, p, sm_names, 3, sm);
                if (r == -ENOENT)
                        continue;
                if (r == -EACCES || r == -EPERM)
                        m.smaps_unreadable = true;
                break;
        }
        uint64_t mapped = HT_U64_UNKNOWN;
        if (hugetlb_mapped_kb(c, pid, &mapped) == 0)
                m.hugetlb_mapped_kb = mapped;
        m.private_hugetlb_kb = sm[0];
        m.shared_hugetlb_kb = sm[1];
        m.file_pmd_mapped_kb = sm[2];
        if (sm[0] != HT_U64_UNKNOWN || sm[1] != HT_U64_UNKNOWN)
                m.hugetlb_kb = (sm[0] == HT_U64_UNKNOWN ? 0 : sm[0]) + (sm[1] == HT_U64_UNKNOWN ? 0 : sm[1]);
        else
                m.hugetlb_kb = st[1];

        static const unsigned ks[] = {12, 22};
        uint64_t sv[2];
        if (stat_fields(c, pid, ks, 2, sv) == 0) {
                m.majflt = sv[0];
                m.start_ticks = sv[1];
        }
        *ret = m;
        return 0;
}
