/* Oracle Database configuration facts: each database oratab lists, the
 * parameter file its instance starts from, the memory parameters in it,
 * the owner of its home and whether it runs; and what its SGA needs in
 * HugePages, summed over the databases that can use them. Read through
 * the root context; a file that cannot be read or parsed is a warning
 * and that database's size stays unknown, never a failure. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <sys/stat.h>

#include "accounts.h"
#include "facts-internal.h"
#include "facts.h"
#include "format-oracle.h"
#include "util.h"

/* A host with more databases than this in oratab is not read further. */
#define MAX_DATABASES 64

/* The user name of uid from the root's /etc/passwd (never NSS), or NULL. */
char *ht_facts_passwd_name(const ht_context *c, uint64_t uid) {
        return uid < UINT32_MAX ? ht_account_user_name(c, (uint32_t)uid) : NULL;
}

/* A path as Oracle writes it in IFILE= and SPFILE=: "?" is ORACLE_HOME. */
static char *ora_path(const char *home, const char *v) {
        if (v[0] == '?' && (v[1] == '/' || v[1] == 0))
                return xasprintf("%s%s", home, v + 1);
        return xstrdup(v);
}

typedef struct {
        const ht_context *c;
        ht_facts *f;
        const char *home;
        char **visited;
        ht_controllers init_ctl; /* who controls the last file read at depth 0 */
} reader;

/* Read one parameter file (text or spfile) into out, following IFILE=
 * (depth-limited, each file once). named_by: who controls the file that
 * named path (oratab, an including pfile). Returns 0 or -errno (warned). */
static int read_params(reader *rd, const char *path, const ht_controllers *named_by, unsigned depth,
                       ht_ora_pfile *out) {
        _cleanup_free_ char *d = ht_display_path(rd->c, path);
        if (strv_contains(rd->visited, path)) {
                ht_facts_warn(rd->f, "%s: included again (an IFILE loop): not read twice", d);
                return -ELOOP;
        }
        strv_push(&rd->visited, path);
        _cleanup_free_ char *buf = NULL;
        size_t len;
        /* $ORACLE_HOME/dbs and what IFILE= names are the software
         * owner's: a FIFO there must not hang root, nor a link or IFILE=
         * make root read what the owner could not */
        ht_controllers ctl = *named_by;
        int k = ht_facts_read_untrusted(rd->c, rd->f, path, HT_ORA_MAX_FILE, &ctl, true, &buf, &len);
        if (k < 0)
                return k;
        if (depth == 0)
                rd->init_ctl = ctl;
        _cleanup_free_ char *text = NULL;
        size_t tlen = len;
        if (ht_ora_is_spfile(buf, len)) {
                _cleanup_free_ char *e = NULL;
                k = ht_ora_spfile_text(buf, len, &text, &tlen, &e);
                if (k < 0) {
                        ht_facts_warn(rd->f, "%s: not a server parameter file Oracle writes (%s): "
                                      "its parameters are not read", d, e);
                        return k;
                }
        }
        ht_ora_pfile p = {0};
        ht_ora_parse_text(text ? text : buf, tlen, d, &p);
        for (size_t i = 0; p.warnings && p.warnings[i]; i++)
                ht_facts_warn(rd->f, "%s", p.warnings[i]);
        /* an IFILE's parameters count where its line stands (a later line
         * wins), so its parameters go in at that place */
        for (size_t i = 0; i < p.n_params; i++) {
                ht_ora_param *q = &p.params[i];
                if (!streq(q->name, "ifile")) {
                        out->params = xrealloc(out->params, (out->n_params + 1) * sizeof(*out->params));
                        out->params[out->n_params++] = *q;
                        *q = (ht_ora_param){0};
                        continue;
                }
                if (depth >= HT_ORA_MAX_IFILE_DEPTH) {
                        ht_facts_warn(rd->f, "%s:%u: IFILE nested deeper than %u levels (Oracle's "
                                      "limit): not read", d, q->line, HT_ORA_MAX_IFILE_DEPTH);
                        continue;
                }
                _cleanup_free_ char *inc = ora_path(rd->home, q->value);
                if (inc[0] != '/') {
                        ht_facts_warn(rd->f, "%s:%u: IFILE=%s is relative to the directory the "
                                      "instance was started from: not read", d, q->line, inc);
                        continue;
                }
                ht_ora_pfile sub = {0};
                if (read_params(rd, inc, &ctl, depth + 1, &sub) == 0) {
                        out->params = xrealloc(out->params, (out->n_params + sub.n_params + 1) *
                                                                    sizeof(*out->params));
                        memcpy(out->params + out->n_params, sub.params, sub.n_params * sizeof(*sub.params));
                        out->n_params += sub.n_params;
                        sub.n_params = 0;
                }
                ht_ora_pfile_done(&sub);
        }
        ht_ora_pfile_done(&p);
        return 0;
}

static uint64_t size_param(ht_facts *f, const ht_ora_pfile *p, const char *sid, const char *name,
                           const char *where) {
        const char *v = ht_ora_lookup(p, sid, name);
        uint64_t b;
        if (!v)
                return HT_U64_UNKNOWN;
        if (ht_ora_parse_size(v, &b) < 0) {
                ht_facts_warn(f, "%s: %s.%s = '%s' is not a size: taken as not set", where, sid, name, v);
                return HT_U64_UNKNOWN;
        }
        return b;
}

/* The dbs directory of a home: $ORACLE_HOME/dbs, or for a read-only
 * home (18c and later; the default in 21c) $ORACLE_BASE/dbs, its
 * ORACLE_BASE_CONFIG (Oracle Database Installation Guide, "About
 * Read-Only Oracle Homes"). $ORACLE_HOME/install/orabasetab says which:
 * "ORACLE_HOME:ORACLE_BASE:HOME_NAME:Y" (Y: read-only; what orabasehome
 * and orabaseconfig read). A file of the home's owner: read as
 * untrusted input. */
static char *dbs_dir(const ht_context *c, ht_facts *f, const ht_controllers *oratab_ctl, const char *home) {
        _cleanup_free_ char *tab = xasprintf("%s/install/orabasetab", home);
        char *buf = NULL;
        size_t len;
        ht_controllers ctl = oratab_ctl ? *oratab_ctl : (ht_controllers){0};
        char *base = NULL;
        if (ht_facts_read_untrusted(c, f, tab, HT_FACTS_MAX_FILE, &ctl, false, &buf, &len) == 0) {
                _cleanup_strv_free_ char **lines = strv_split(buf, "\n");
                free(buf);
                size_t hl = strlen(home);
                while (hl > 1 && home[hl - 1] == '/')
                        hl--;
                for (size_t i = 0; lines[i] && !base; i++) {
                        char *l = strstrip(lines[i]);
                        if (*l == '#' || !*l)
                                continue;
                        _cleanup_strv_free_ char **fld = strv_split(l, ":");
                        if (strv_length(fld) < 4 || !streq(fld[3], "Y") || fld[1][0] != '/')
                                continue;
                        size_t n = strlen(fld[0]);
                        while (n > 1 && fld[0][n - 1] == '/')
                                n--;
                        if (n == hl && strncmp(fld[0], home, n) == 0)
                                base = xstrdup(fld[1]);
                }
        }
        char *dbs = xasprintf("%s/dbs", base ? base : home);
        free(base);
        return dbs;
}

static void read_database(const ht_context *c, ht_facts *f, const ht_controllers *oratab_ctl,
                          ht_oracle_db *db) {
        /* The instance looks for spfileSID.ora, then spfile.ora, then
         * initSID.ora in the home's dbs directory (Oracle Database
         * Administrator's Guide, "Server Parameter File Default Names and
         * Locations"; dbs_dir). */
        _cleanup_free_ char *dbs = dbs_dir(c, f, oratab_ctl, db->home);
        _cleanup_strv_free_ char **cands = xcalloc(4, sizeof(char *));
        char *const init[3] = {
                xasprintf("%s/spfile%s.ora", dbs, db->sid),
                xasprintf("%s/spfile.ora", dbs),
                xasprintf("%s/init%s.ora", dbs, db->sid),
        };
        memcpy(cands, init, sizeof init);
        const char *file = NULL;
        for (size_t i = 0; cands[i] && !file; i++)
                if (ht_exists(c, cands[i]))
                        file = cands[i];
        if (!file) {
                ht_facts_warn(f, "oracle %s: no spfile%s.ora, spfile.ora or init%s.ora in %s: its "
                              "SGA is unknown (--set sga_max_size=SIZE)", db->sid, db->sid, db->sid, dbs);
                return;
        }
        reader rd = {.c = c, .f = f, .home = db->home};
        ht_ora_pfile p = {0};
        int k = read_params(&rd, file, oratab_ctl, 0, &p);
        /* an init.ora that only points at the spfile: SPFILE='...' */
        const char *sp = k == 0 ? ht_ora_lookup(&p, db->sid, "spfile") : NULL;
        _cleanup_free_ char *spath = sp ? ora_path(db->home, sp) : NULL;
        if (spath && spath[0] == '/') {
                ht_ora_pfile q = {0};
                /* SPFILE= is named by the pfile that says it */
                if (read_params(&rd, spath, &rd.init_ctl, 0, &q) == 0) {
                        ht_ora_pfile_done(&p);
                        p = q;
                        file = spath;
                } else
                        ht_ora_pfile_done(&q);
        } else if (spath) {
                _cleanup_free_ char *d = ht_display_path(c, file);
                ht_facts_warn(f, "%s: SPFILE='%s' is in ASM, which hosttune cannot read: the SGA of "
                              "%s is unknown (--set sga_max_size=SIZE)", d, spath, db->sid);
                k = -ENOENT;
        }
        strv_free(rd.visited);
        if (k < 0) {
                ht_ora_pfile_done(&p);
                return;
        }
        db->parameter_file = xstrdup(file);
        _cleanup_free_ char *w = ht_display_path(c, file);
        db->sga_max_size = size_param(f, &p, db->sid, "sga_max_size", w);
        db->sga_target = size_param(f, &p, db->sid, "sga_target", w);
        db->memory_target = size_param(f, &p, db->sid, "memory_target", w);
        db->memory_max_target = size_param(f, &p, db->sid, "memory_max_target", w);
        db->pga_aggregate_target = size_param(f, &p, db->sid, "pga_aggregate_target", w);
        const char *v = ht_ora_lookup(&p, db->sid, "processes");
        uint64_t n;
        if (v && parse_u64(v, &n) == 0)
                db->processes = n;
        v = ht_ora_lookup(&p, db->sid, "use_large_pages");
        if (v) {
                db->use_large_pages = xstrdup(v);
                for (char *q = db->use_large_pages; *q; q++)
                        *q = (char)toupper((unsigned char)*q);
        }
        v = ht_ora_lookup(&p, db->sid, "lock_sga");
        if (v)
                db->lock_sga = ht_is_true(v) ? HT_YES : HT_NO;
        ht_ora_pfile_done(&p);

        /* What the SGA takes in HugePages: SGA_MAX_SIZE, which defaults to
         * SGA_TARGET (Oracle Database Reference, SGA_MAX_SIZE: "the initial
         * size of SGA at startup" when not set), and the larger of the two
         * when both are set: an SGA_MAX_SIZE below what the components
         * need at startup is not taken (Oracle Database Administrator's
         * Guide, "Setting Maximum SGA Size": "If you do specify
         * SGA_MAX_SIZE, and at the time the database is initialized the
         * value is less than the sum of the memory allocated for all
         * components, either explicitly in the parameter file or by
         * default, then the database ignores the setting for SGA_MAX_SIZE
         * and chooses a correct value for this parameter"), so an spfile
         * whose SGA_TARGET was raised above its SGA_MAX_SIZE (ALTER SYSTEM
         * ... SCOPE=SPFILE) starts with an SGA of SGA_TARGET. AMM
         * (MEMORY_TARGET or MEMORY_MAX_TARGET) "is not compatible with
         * Linux HugePages"
         * (Database Administrator's Guide, "About Automatic Memory
         * Management"); USE_LARGE_PAGES=FALSE asks for none. */
        bool amm = (db->memory_target != HT_U64_UNKNOWN && db->memory_target > 0) ||
                   (db->memory_max_target != HT_U64_UNKNOWN && db->memory_max_target > 0);
        uint64_t sga = 0;
        if (db->sga_max_size != HT_U64_UNKNOWN)
                sga = db->sga_max_size;
        if (db->sga_target != HT_U64_UNKNOWN && db->sga_target > sga)
                sga = db->sga_target;
        if (amm) {
                db->excluded = xstrdup("automatic memory management (memory_target/memory_max_target), "
                                       "which cannot use HugePages");
                ht_facts_warn(f, "oracle %s: %s sets automatic memory management "
                              "(memory_target/memory_max_target), which cannot use HugePages: left out "
                              "of the HugePages sum; switch it to sga_target and pga_aggregate_target to "
                              "use them", db->sid, w);
        } else if (db->use_large_pages && streq(db->use_large_pages, "FALSE"))
                db->excluded = xstrdup("use_large_pages=FALSE");
        else if (sga == 0)
                ht_facts_warn(f, "oracle %s: %s sets neither sga_max_size nor sga_target: its SGA is "
                              "unknown (--set sga_max_size=SIZE)", db->sid, w);
        else
                db->hugepages_bytes = sga;
}

/* A group name as shadow-utils' groupadd takes one on every
 * distribution's defaults: letters, digits, '_', '.', '-' (not first),
 * an optional trailing '$'; at most 32 bytes. */
static bool group_name_valid(const char *s) {
        size_t n = strlen(s);
        if (n == 0 || n > 32 || s[0] == '-')
                return false;
        for (size_t i = 0; i < n; i++)
                if (!isalnum((unsigned char)s[i]) && !strchr("_.-", s[i]) && !(s[i] == '$' && i == n - 1))
                        return false;
        return true;
}

/* The Oracle Inventory (OINSTALL) group, as the installer recorded it in
 * /etc/oraInst.loc ("inventory_loc=DIR" and "inst_group=GROUP"; Oracle
 * Database Installation Guide, "Determining If an Oracle Inventory and
 * Oracle Inventory Group Exist": OUI creates the file at the first
 * installation, and it "identifies the name of the Oracle Inventory group
 * (by default, oinstall)"). Oracle's "Configuring HugePages on Linux"
 * sets vm.hugetlb_shm_group to the gid of the oracle user, whose primary
 * group is that group ("An Oracle installation owner should always have
 * the group you want to have designated as the OINSTALL group (oinstall)
 * as its primary group"; without an oraInst.loc the installer takes the
 * installing user's primary group for it). So a host installed with
 * another name for it (a single dba group) is told by this file, not by
 * the name oinstall. The software owner writes it: read as untrusted,
 * a name groupadd would not take is refused. */
static void collect_inventory_group(const ht_context *c, ht_facts *f) {
        static const char path[] = "/etc/oraInst.loc";
        _cleanup_free_ char *buf = NULL;
        size_t len;
        if (ht_facts_read_untrusted(c, f, path, HT_FACTS_MAX_FILE, NULL, false, &buf, &len) < 0)
                return;
        _cleanup_free_ char *d = ht_display_path(c, path);
        ht_facts_check_nul(f, buf, len, d);
        _cleanup_strv_free_ char **lines = strv_split(buf, "\n");
        _cleanup_free_ char *group = NULL;
        for (size_t i = 0; lines[i]; i++) {
                char *l = strstrip(lines[i]);
                if (!startswith(l, "inst_group="))
                        continue;
                const char *v = strstrip(l + strlen("inst_group="));
                if (!group_name_valid(v)) {
                        ht_facts_warn(f, "%s: inst_group=%.64s is not a group name: not taken for the Oracle "
                                      "Inventory group", d, v);
                        return;
                }
                if (group && !streq(group, v)) {
                        ht_facts_warn(f, "%s: inst_group names two groups (%s, %s): neither is taken for the "
                                      "Oracle Inventory group", d, group, v);
                        return;
                }
                free(group);
                group = xstrdup(v);
        }
        if (!group)
                return;
        f->oracle_inventory_group = TAKE_PTR(group);
        f->oracle_inventory_group_from = xstrdup(path);
}

/* At most this many running databases oratab does not list are named. */
#define MAX_UNLISTED 8

/* A database that runs (its ora_pmon_SID) but that oratab does not list:
 * a RAC instance (oratab names the database, ORCL; the instance is
 * ORCL1), a standby or clone made with RMAN, a database started by hand.
 * oratab's own header says who writes it: "It is created by root.sh and
 * updated by either Database Configuration Assistant while creating a
 * database or ASM Configuration Assistant while creating ASM instance".
 * Such a database's parameter files are not found through oratab, so its
 * SGA is not in sga_bytes and the HugePages planned leave it out: said,
 * not silent. Named only for a process that would be trusted (ht_trust)
 * or that runs as the owner of a home oratab lists (who can start a
 * database anyway): anyone else could fill the warnings with a process
 * of that name. A host without oratab is not looked at: its processes
 * are not listed for the Oracle facts (plan-reads-once.sh counts them on
 * every host), and root.sh writes oratab wherever an Oracle home is. */
static void warn_unlisted_running(const ht_context *c, ht_facts *f) {
        _cleanup_free_ char *d = ht_display_path(c, f->oratab);
        size_t n = 0;
        for (size_t j = 0; j < f->n_processes; j++) {
                const ht_process *pr = &f->processes[j];
                if (pr->kind != HT_PROC_ORACLE || !startswith(pr->name, "ora_pmon_") ||
                    !pr->name[strlen("ora_pmon_")])
                        continue;
                const char *sid = pr->name + strlen("ora_pmon_");
                bool listed = false, owner = false;
                for (size_t i = 0; i < f->n_oracle_dbs; i++) {
                        const ht_oracle_db *db = &f->oracle_dbs[i];
                        listed = listed || streq(db->sid, sid);
                        owner = owner || (db->owner_uid > 0 && pr->uid == db->owner_uid && !pr->uids_differ);
                }
                if (listed || (pr->trust == HT_TRUST_NONE && !owner))
                        continue;
                if (n++ == MAX_UNLISTED) {
                        ht_facts_warn(f, "more than %d running Oracle databases are not in oratab: the rest are "
                                      "not named", MAX_UNLISTED);
                        break;
                }
                ht_facts_warn(f, "oracle %s runs (%s, pid %u) but %s does not list it (a RAC instance, or a "
                              "database created or started without an oratab entry): its SGA is not in the "
                              "HugePages sum; --set sga_max_size=SIZE for all the SGAs, or --set "
                              "hugepages_from=shm to size from the shared memory of the databases running now",
                              sid, pr->name, pr->pid, d);
        }
}

void ht_facts_collect_oracle(const ht_context *c, ht_facts *f) {
        if (!f->oratab)
                return;
        /* a host with an Oracle home has both: root.sh writes oratab at
         * the installation of the software, before any database, and
         * orainstRoot.sh oraInst.loc; a host without oratab is spared
         * the look-up (plan-reads-once.sh counts it) */
        collect_inventory_group(c, f);
        _cleanup_free_ char *buf = NULL;
        size_t len;
        ht_controllers ctl = {0};
        if (ht_facts_read_untrusted(c, f, f->oratab, HT_FACTS_MAX_FILE, &ctl, true, &buf, &len) < 0)
                return;
        f->oracle_dbs_known = true;
        _cleanup_strv_free_ char **lines = strv_split(buf, "\n");
        _cleanup_free_ char *d = ht_display_path(c, f->oratab);
        for (size_t i = 0; lines[i]; i++) {
                char *l = strstrip(lines[i]);
                if (!*l || *l == '#' || *l == '*')
                        continue;
                _cleanup_strv_free_ char **fld = strv_split(l, ":");
                if (strv_length(fld) < 2 || !*fld[0] || fld[1][0] != '/') {
                        ht_facts_warn(f, "%s:%zu: not SID:ORACLE_HOME:Y|N: skipped", d, i + 1);
                        continue;
                }
                if (f->n_oracle_dbs >= MAX_DATABASES) {
                        ht_facts_warn(f, "%s: more than %d databases: the rest are not read", d, MAX_DATABASES);
                        break;
                }
                bool dup = false;
                for (size_t j = 0; j < f->n_oracle_dbs && !dup; j++)
                        dup = streq(f->oracle_dbs[j].sid, fld[0]);
                if (dup || strchr(fld[0], '/') || strstr(fld[1], "/../") || endswith(fld[1], "/.."))
                        continue;
                f->oracle_dbs = xrealloc(f->oracle_dbs, (f->n_oracle_dbs + 1) * sizeof(*f->oracle_dbs));
                ht_oracle_db *db = &f->oracle_dbs[f->n_oracle_dbs++];
                size_t hl = strlen(fld[1]);
                while (hl > 1 && fld[1][hl - 1] == '/')
                        hl--;
                *db = (ht_oracle_db){
                        .sid = xstrdup(fld[0]),
                        .home = xstrndup(fld[1], hl),
                        .start = strv_length(fld) >= 3 && (streq(fld[2], "Y") || streq(fld[2], "y")),
                        .owner_uid = -1,
                        .sga_max_size = HT_U64_UNKNOWN,
                        .sga_target = HT_U64_UNKNOWN,
                        .memory_target = HT_U64_UNKNOWN,
                        .memory_max_target = HT_U64_UNKNOWN,
                        .pga_aggregate_target = HT_U64_UNKNOWN,
                        .processes = HT_U64_UNKNOWN,
                        .lock_sga = HT_UNKNOWN,
                };
                /* +ASM, +APX, -MGMTDB: ASM and the Grid management
                 * database, whose SGAs hosttune does not size */
                db->asm_instance = db->sid[0] == '+' || db->sid[0] == '-';
                struct stat st;
                if (ht_stat(c, db->home, &st) == 0) {
                        db->owner_uid = st.st_uid;
                        db->owner = ht_facts_passwd_name(c, st.st_uid);
                }
                _cleanup_free_ char *pmon = xasprintf("ora_pmon_%s", db->sid);
                for (size_t j = 0; j < f->n_processes; j++) {
                        ht_process *pr = &f->processes[j];
                        /* ora_NAME_SID: a background process of this
                         * database. Oracle runs as its home's owner, who
                         * can start the database anyway; anyone else's
                         * may be a script of that name (ht_trust). */
                        const char *u = pr->kind == HT_PROC_ORACLE ? strchr(pr->name + 4, '_') : NULL;
                        if (!u || !streq(u + 1, db->sid))
                                continue;
                        if (pr->trust == HT_TRUST_NONE && db->owner_uid >= 0 && pr->uid == db->owner_uid &&
                            !pr->uids_differ)
                                pr->trust = HT_TRUST_OWNER;
                        db->running = db->running || (streq(pr->name, pmon) && pr->trust != HT_TRUST_NONE);
                }
                if (!db->asm_instance)
                        read_database(c, f, &ctl, db);
        }
        warn_unlisted_running(c, f);
        for (size_t i = 0; i < f->n_oracle_dbs; i++) {
                const ht_oracle_db *db = &f->oracle_dbs[i];
                if (db->hugepages_bytes == 0)
                        continue;
                f->oracle_sga_bytes += db->hugepages_bytes;
                strv_push(&f->oracle_sga_from, db->parameter_file);
        }
        /* The systemd unit the databases run in, when systemd starts them
         * (a dbora.service running dbstart): the cgroup of their ora_pmon.
         * pam_limits never applies to a service, so the limits.conf lines
         * for the oracle user do not reach such a database: the profile
         * gives the unit its limits too (oracle_unit). One unit for all
         * the databases in one, else none. */
        const ht_process *in_unit = NULL;
        bool units_differ = false;
        for (size_t i = 0; i < f->n_oracle_dbs; i++) {
                const ht_oracle_db *db = &f->oracle_dbs[i];
                if (db->asm_instance || !db->running)
                        continue;
                _cleanup_free_ char *pmon = xasprintf("ora_pmon_%s", db->sid);
                for (size_t j = 0; j < f->n_processes; j++) {
                        const ht_process *pr = &f->processes[j];
                        if (pr->kind != HT_PROC_ORACLE || pr->trust == HT_TRUST_NONE || !pr->unit ||
                            !streq(pr->name, pmon))
                                continue;
                        if (in_unit && !streq(in_unit->unit, pr->unit))
                                units_differ = true;
                        else if (!in_unit)
                                in_unit = pr;
                }
        }
        if (units_differ)
                ht_facts_warn(f, "the Oracle databases run in several systemd units (%s and others): none is taken "
                              "for oracle_unit", in_unit->unit);
        else if (in_unit) {
                f->oracle_unit = xstrdup(in_unit->unit);
                f->oracle_unit_from = xasprintf("/proc/%u/cgroup", in_unit->pid);
        }
        /* The software owner for oracle_user: the owner of the databases'
         * homes (ASM's Grid home has its own, grid), when they share one
         * and it looks like an installation owner: not root, and in
         * oinstall, the Oracle Inventory group an installation owner has
         * as its primary one, or in dba, the OSDBA group (Oracle Database
         * Installation Guide 19c for Linux, its chapter on configuring
         * users and groups; the preinstallation RPM makes oracle so, as
         * quoted in profiles/oracle.profile). So a home owned
         * by whoever copied the files (a checkout, an image build) is not
         * taken for the oracle user. */
        const ht_oracle_db *own = NULL;
        bool several = false;
        for (size_t i = 0; i < f->n_oracle_dbs; i++) {
                const ht_oracle_db *db = &f->oracle_dbs[i];
                if (db->asm_instance || !db->owner || db->owner_uid == 0)
                        continue;
                if (own && !streq(own->owner, db->owner))
                        several = true;
                else if (!own)
                        own = db;
        }
        if (own && !several) {
                uint32_t uid, gid, oinstall = UINT32_MAX;
                _cleanup_strv_free_ char **groups = NULL;
                _cleanup_free_ uint32_t *gids = NULL;
                size_t n = 0;
                bool member = false;
                (void)ht_account_group(c, "oinstall", &oinstall);
                if (ht_account_user(c, own->owner, &uid, &gid) == 0 &&
                    ht_account_groups_of(c, own->owner, gid, &groups, &gids, &n) >= 0)
                        member = gid == oinstall || strv_contains(groups, "oinstall") ||
                                 strv_contains(groups, "dba");
                if (member) {
                        f->oracle_owner = xstrdup(own->owner);
                        f->oracle_owner_from = xstrdup(own->home);
                }
        } else if (several)
                ht_facts_warn(f, "the Oracle homes in oratab have several owners (%s and others): none is taken "
                              "for oracle_user", own->owner);
}

void ht_facts_oracle_free(ht_facts *f) {
        for (size_t i = 0; i < f->n_oracle_dbs; i++) {
                ht_oracle_db *db = &f->oracle_dbs[i];
                free(db->sid);
                free(db->home);
                free(db->owner);
                free(db->parameter_file);
                free(db->use_large_pages);
                free(db->excluded);
        }
        free(f->oracle_dbs);
        strv_free(f->oracle_sga_from);
        free(f->oracle_owner);
        free(f->oracle_owner_from);
        free(f->oracle_unit);
        free(f->oracle_unit_from);
        free(f->oracle_inventory_group);
        free(f->oracle_inventory_group_from);
}

/* Oracle Database Reference 19c, USE_LARGE_PAGES
 * (https://docs.oracle.com/en/database/oracle/oracle-database/19/refrn/USE_LARGE_PAGES.html):
 * the default is TRUE "for all other systems" than Exadata's, and with
 * TRUE, from 11.2.0.3 on, "Oracle allocates as much of the SGA as it can
 * in large pages, and if it runs out, it will allocate the rest of the
 * SGA using regular sized pages"; ONLY makes the instance fail to start
 * when large pages cannot back the whole SGA. An ASM instance and one
 * left out of the HugePages sum (AMM, FALSE) are not counted. */
char *ht_oracle_use_large_pages_true(const ht_facts *f) {
        strbuf b = {0};
        for (size_t i = 0; f && i < f->n_oracle_dbs; i++) {
                const ht_oracle_db *db = &f->oracle_dbs[i];
                if (db->asm_instance || db->excluded || db->hugepages_bytes == 0 ||
                    (db->use_large_pages && !streq(db->use_large_pages, "TRUE")))
                        continue;
                strbuf_appendf(&b, "%s%s", b.len ? ", " : "", db->sid);
        }
        char *s = strbuf_steal(&b);
        if (s && !*s) {
                free(s);
                return NULL;
        }
        return s;
}
