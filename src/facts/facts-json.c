/* The facts as JSON (the `facts --json` contract of DESIGN.md) and dotted
 * look-ups in it for expressions ("facts.memory.total_kb"). Keys come in a
 * fixed order so output is stable for scripts and golden files. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>

#include "facts-internal.h"
#include "facts.h"
#include "util.h"

static json_object *j_str(const char *s) {
        return s ? json_object_new_string(s) : NULL;
}

json_object *ht_json_u64(uint64_t v) {
        if (v == HT_U64_UNKNOWN)
                return NULL;
        if (v <= INT64_MAX)
                return json_object_new_int64((int64_t)v);
#if JSON_C_VERSION_NUM >= (14 << 8)
        /* a my.cnf's 15E (17293822569102704640) as the file says it, not
         * null as if unknown */
        return json_object_new_uint64(v);
#else
        return NULL;
#endif
}

int ht_json_get_u64(json_object *o, uint64_t *ret) {
        if (!o || !json_object_is_type(o, json_type_int))
                return -EINVAL;
        int64_t i = json_object_get_int64(o);
        if (i < 0)
                return -ERANGE;
#if JSON_C_VERSION_NUM >= (14 << 8)
        /* get_int64 stops at INT64_MAX; the number itself may be above */
        if (i == INT64_MAX) {
                *ret = json_object_get_uint64(o);
                return 0;
        }
#endif
        *ret = (uint64_t)i;
        return 0;
}

static json_object *j_u64(uint64_t v) {
        return ht_json_u64(v);
}

static json_object *j_i64(int64_t v) {
        return v < 0 ? NULL : json_object_new_int64(v);
}

static json_object *j_tri(ht_tristate t) {
        return t == HT_UNKNOWN ? NULL : json_object_new_boolean(t == HT_YES);
}

static json_object *j_bool(bool b) {
        return json_object_new_boolean(b);
}

static json_object *j_strv(char *const *l) {
        return l ? ht_strv_to_json(l) : NULL;
}

/* Every key here is a string literal (or ht_mysql_size_name()'s static
 * names): json-c need not copy it and free the copy. */
static void add(json_object *o, const char *key, json_object *v) {
        json_object_object_add_ex(o, key, v, JSON_C_OBJECT_ADD_CONSTANT_KEY);
}

static json_object *kernel_json(const ht_facts *f) {
        json_object *o = json_object_new_object();
        add(o, "release", j_str(f->kernel_release));
        add(o, "uname", j_str(f->kernel_uname));
        add(o, "machine", j_str(f->kernel_machine));
        add(o, "cmdline", j_str(f->kernel_cmdline));
        add(o, "xen", f->kernel_release || f->xen_type ? j_bool(f->kernel_xen) : NULL);
        return o;
}

static json_object *os_json(const ht_facts *f) {
        json_object *o = json_object_new_object();
        add(o, "id", j_str(f->os_id));
        add(o, "version_id", j_str(f->os_version_id));
        add(o, "name", j_str(f->os_name));
        add(o, "pretty_name", j_str(f->os_pretty_name));
        return o;
}

static json_object *xen_json(const ht_facts *f) {
        json_object *o = json_object_new_object();
        add(o, "type", j_str(f->xen_type));
        add(o, "guest_type", j_str(f->xen_guest_type));
        add(o, "dom0", j_bool(f->xen_dom0));
        return o;
}

static json_object *cpufreq_json(const ht_facts *f) {
        if (!f->cpufreq_known)
                return NULL;
        json_object *o = json_object_new_object();
        add(o, "driver", j_str(f->cpufreq_driver));
        json_object *pstate = NULL;
        if (f->intel_pstate_status) {
                pstate = json_object_new_object();
                add(pstate, "status", j_str(f->intel_pstate_status));
                add(pstate, "min_perf_pct", j_i64(f->intel_pstate_min_perf_pct));
                add(pstate, "max_perf_pct", j_i64(f->intel_pstate_max_perf_pct));
        }
        add(o, "intel_pstate", pstate);
        json_object *policies = json_object_new_array_ext((int)f->n_cpufreq_policies);
        for (size_t i = 0; i < f->n_cpufreq_policies; i++) {
                const ht_cpufreq_policy *q = &f->cpufreq_policies[i];
                json_object *e = json_object_new_object();
                add(e, "name", j_str(q->name));
                add(e, "cpus", j_str(q->cpus));
                add(e, "governor", j_str(q->governor));
                add(e, "governors", j_strv(q->governors));
                add(e, "energy_performance_preference", j_str(q->epp));
                add(e, "preferences", j_strv(q->epps));
                json_object_array_add(policies, e);
        }
        add(o, "policies", policies);
        json_object *epb = json_object_new_array_ext((int)f->n_epb);
        for (size_t i = 0; i < f->n_epb; i++) {
                json_object *e = json_object_new_object();
                add(e, "value", j_str(f->epb[i].value));
                add(e, "cpus", json_object_new_int64(f->epb[i].cpus));
                json_object_array_add(epb, e);
        }
        add(o, "energy_perf_bias", epb);
        return o;
}

static json_object *cpu_json(const ht_facts *f) {
        json_object *o = json_object_new_object();
        add(o, "count", f->cpu_count ? json_object_new_int64(f->cpu_count) : NULL);
        add(o, "flags", j_strv(f->cpu_flags));
        add(o, "online", j_str(f->cpu_online));
        add(o, "present", j_str(f->cpu_present));
        _cleanup_free_ char *distinct = !f->cpu_cpuinfo && f->cpu_cpuinfo_text
                                                ? ht_cpuinfo_distinct_lines(f->cpu_cpuinfo_text) : NULL;
        add(o, "cpuinfo", j_str(f->cpu_cpuinfo ? f->cpu_cpuinfo : distinct));
        add(o, "cpufreq", cpufreq_json(f));
        return o;
}

static json_object *block_json(const ht_facts *f) {
        json_object *o = json_object_new_object();
        json_object *devices = f->block_known ? json_object_new_array_ext((int)f->n_block_devices) : NULL;
        for (size_t i = 0; i < f->n_block_devices; i++) {
                const ht_block_device *d = &f->block_devices[i];
                json_object *e = json_object_new_object();
                add(e, "name", j_str(d->name));
                add(e, "kind", j_str(d->kind));
                add(e, "rotational", j_tri(d->rotational));
                add(e, "removable", j_tri(d->removable));
                add(e, "scheduler", j_str(d->scheduler));
                add(e, "schedulers", j_strv(d->schedulers));
                add(e, "read_ahead_kb", j_u64(d->read_ahead_kb));
                add(e, "nr_requests", j_u64(d->nr_requests));
                add(e, "rq_affinity", j_u64(d->rq_affinity));
                add(e, "slaves", j_strv(d->slaves));
                json_object_array_add(devices, e);
        }
        add(o, "devices", devices);
        return o;
}

static json_object *memory_json(const ht_facts *f) {
        json_object *o = json_object_new_object();
        add(o, "total_kb", j_u64(f->mem_total_kb));
        add(o, "free_kb", j_u64(f->mem_free_kb));
        add(o, "available_kb", j_u64(f->mem_available_kb));
        add(o, "page_tables_kb", j_u64(f->page_tables_kb));
        add(o, "swap_total_kb", j_u64(f->swap_total_kb));
        return o;
}

static json_object *hugepages_json(const ht_facts *f) {
        json_object *o = json_object_new_object();
        add(o, "supported", j_tri(f->hugepages_supported));
        add(o, "default_size_kb", j_u64(f->hugepage_default_kb));
        json_object *sizes = NULL;
        if (f->hugepages_supported != HT_UNKNOWN || f->n_hugepage_sizes > 0) {
                sizes = json_object_new_array();
                for (size_t i = 0; i < f->n_hugepage_sizes; i++)
                        json_object_array_add(sizes, j_u64(f->hugepage_sizes_kb[i]));
        }
        add(o, "sizes_kb", sizes);
        add(o, "total", j_u64(f->hugepages_total));
        add(o, "free", j_u64(f->hugepages_free));
        add(o, "rsvd", j_u64(f->hugepages_rsvd));
        add(o, "surp", j_u64(f->hugepages_surp));
        add(o, "gigantic_possible", f->cpu_flags || f->n_hugepage_sizes
                                            ? j_bool(f->gigantic_pages_possible) : NULL);
        return o;
}

static json_object *thp_json(const ht_facts *f) {
        json_object *o = json_object_new_object();
        add(o, "supported", j_tri(f->thp_supported));
        add(o, "enabled", j_str(f->thp_enabled));
        add(o, "defrag", j_str(f->thp_defrag));
        add(o, "cmdline", j_str(f->thp_cmdline));
        add(o, "sysfs_dir", j_str(f->thp_sysfs_dir));
        return o;
}

static json_object *hugetext_json(const ht_facts *f) {
        json_object *o = json_object_new_object();
        add(o, "supported", j_tri(f->hugetext_supported));
        add(o, "enabled", j_i64(f->hugetext_enabled));
        add(o, "pad_threshold", j_i64(f->hugetext_pad_threshold));
        return o;
}

static json_object *bootloader_json(const ht_facts *f) {
        json_object *o = json_object_new_object();
        add(o, "kind", json_object_new_string(ht_bootloader_kind_to_string(f->bootloader)));
        add(o, "efi", j_bool(f->efi));
        add(o, "grub_cfg", j_str(f->grub_cfg));
        add(o, "grub_default", j_str(f->grub_default));
        add(o, "grub_cmdline_linux", j_str(f->grub_cmdline_linux));
        add(o, "grub_cmdline_linux_default", j_str(f->grub_cmdline_linux_default));
        add(o, "legacy_conf", j_str(f->grub_legacy_conf));
        add(o, "kernelopts", j_str(f->grubenv_kernelopts));
        add(o, "saved_entry", j_str(f->grubenv_saved_entry));
        add(o, "direct_kernel", j_bool(f->direct_kernel));
        add(o, "direct_kernel_detected_by", f->direct_kernel ? j_strv(f->direct_kernel_evidence) : NULL);
        bool have_default = f->default_entry >= 0 && (size_t)f->default_entry < f->n_boot_entries;
        add(o, "default", have_default ? json_object_new_int(f->default_entry) : NULL);
        add(o, "default_is_xen",
            have_default ? j_bool(f->boot_entries[f->default_entry].xen) : NULL);
        int sw = ht_boot_switch_entry(f);
        add(o, "non_xen_entry", sw >= 0 ? j_str(f->boot_entries[sw].title) : NULL);
        add(o, "non_xen_index", sw >= 0 ? json_object_new_int(sw) : NULL);
        add(o, "non_xen_thp", j_tri(f->switch_thp));
        json_object *entries = json_object_new_array();
        for (size_t i = 0; i < f->n_boot_entries; i++) {
                const ht_boot_entry *e = &f->boot_entries[i];
                json_object *j = json_object_new_object();
                add(j, "title", j_str(e->title));
                add(j, "id", j_str(e->id));
                add(j, "kernel", j_str(e->kernel));
                add(j, "version", j_str(e->version));
                add(j, "xen", j_bool(e->xen));
                add(j, "linux", j_bool(e->linux_image));
                add(j, "options", j_str(e->options));
                json_object_array_add(entries, j);
        }
        add(o, "entries", entries);
        return o;
}

static json_object *mounts_json(const ht_facts *f) {
        json_object *o = json_object_new_object();
        json_object *h = json_object_new_array();
        for (size_t i = 0; i < f->n_hugetlbfs; i++) {
                json_object *m = json_object_new_object();
                add(m, "target", j_str(f->hugetlbfs[i].target));
                add(m, "pagesize_kb", j_u64(f->hugetlbfs[i].pagesize_kb));
                json_object_array_add(h, m);
        }
        add(o, "hugetlbfs", h);
        add(o, "sys_readonly", j_tri(f->sys_readonly));
        add(o, "proc_sys_readonly", j_tri(f->proc_sys_readonly));
        add(o, "boot_separate", j_bool(f->boot_separate));
        add(o, "root_fstype", j_str(f->root_fstype));
        return o;
}

static json_object *shm_json(const ht_facts *f) {
        json_object *o = json_object_new_object();
        if (!f->shm_known) {
                add(o, "segments", NULL);
                add(o, "total_bytes", NULL);
                add(o, "sizes_bytes", NULL);
                add(o, "list", NULL);
                return o;
        }
        add(o, "segments", json_object_new_int64((int64_t)f->n_shm));
        add(o, "total_bytes", j_u64(f->shm_total_bytes));
        json_object *sizes = json_object_new_array(), *list = json_object_new_array();
        for (size_t i = 0; i < f->n_shm; i++) {
                const ht_shm_segment *s = &f->shm[i];
                json_object_array_add(sizes, j_u64(s->size_bytes));
                json_object *j = json_object_new_object();
                char key[16];
                snprintf(key, sizeof(key), "0x%08x", (unsigned)s->key);
                add(j, "key", json_object_new_string(key));
                add(j, "shmid", j_u64(s->shmid));
                add(j, "size_bytes", j_u64(s->size_bytes));
                add(j, "uid", json_object_new_int64(s->uid));
                add(j, "nattch", j_u64(s->nattch));
                json_object_array_add(list, j);
        }
        add(o, "sizes_bytes", sizes);
        add(o, "list", list);
        return o;
}

static json_object *workload_json(const ht_facts *f) {
        json_object *o = json_object_new_object();
        json_object *procs = NULL;
        if (f->processes_known) {
                procs = json_object_new_array();
                for (size_t i = 0; i < f->n_processes; i++) {
                        const ht_process *p = &f->processes[i];
                        json_object *j = json_object_new_object();
                        add(j, "pid", json_object_new_int64(p->pid));
                        add(j, "name", j_str(p->name));
                        add(j, "kind", json_object_new_string(ht_process_kind_to_string(p->kind)));
                        if (p->kind == HT_PROC_JAVA)
                                add(j, "max_heap_bytes", j_u64(p->max_heap_bytes));
                        add(j, "uid", j_i64(p->uid));
                        add(j, "user", j_str(p->user));
                        add(j, "cgroup", j_str(p->cgroup));
                        add(j, "unit", j_str(p->unit));
                        add(j, "trust", j_str(ht_trust_to_string(p->trust)));
                        json_object_array_add(procs, j);
                }
        }
        add(o, "processes", procs);
        json_object *not_used[3];
        for (size_t k = 0; k < ELEMENTSOF(not_used); k++)
                not_used[k] = json_object_new_array();
        for (size_t i = 0; i < f->n_processes; i++) {
                const ht_process *p = &f->processes[i];
                if (p->trust != HT_TRUST_NONE || (size_t)p->kind >= ELEMENTSOF(not_used))
                        continue;
                json_object *j = json_object_new_object();
                add(j, "pid", json_object_new_int64(p->pid));
                add(j, "name", j_str(p->name));
                add(j, "user", j_str(p->user));
                add(j, "uid", j_i64(p->uid));
                add(j, "cgroup", j_str(p->cgroup));
                _cleanup_free_ char *why = ht_process_not_used_reason(p);
                _cleanup_free_ char *set = ht_process_use_set(p);
                add(j, "reason", j_str(why));
                add(j, "set", j_str(set));
                json_object_array_add(not_used[p->kind], j);
        }
        json_object *oracle = json_object_new_object();
        add(oracle, "user", j_str(f->oracle_user));
        add(oracle, "uid", j_i64(f->oracle_uid));
        add(oracle, "oratab", j_str(f->oratab));
        add(oracle, "sids", f->oratab ? j_strv(f->oratab_sids ? f->oratab_sids : (char *[]){NULL}) : NULL);
        json_object *dbs = f->oracle_dbs_known ? json_object_new_array() : NULL;
        for (size_t i = 0; i < f->n_oracle_dbs; i++) {
                const ht_oracle_db *db = &f->oracle_dbs[i];
                json_object *j = json_object_new_object();
                add(j, "sid", j_str(db->sid));
                add(j, "home", j_str(db->home));
                add(j, "start", j_bool(db->start));
                add(j, "asm", j_bool(db->asm_instance));
                add(j, "owner", j_str(db->owner));
                add(j, "owner_uid", j_i64(db->owner_uid));
                add(j, "running", j_bool(db->running));
                add(j, "parameter_file", j_str(db->parameter_file));
                add(j, "sga_max_size", j_u64(db->sga_max_size));
                add(j, "sga_target", j_u64(db->sga_target));
                add(j, "memory_target", j_u64(db->memory_target));
                add(j, "memory_max_target", j_u64(db->memory_max_target));
                add(j, "pga_aggregate_target", j_u64(db->pga_aggregate_target));
                add(j, "processes", j_u64(db->processes));
                add(j, "use_large_pages", j_str(db->use_large_pages));
                add(j, "lock_sga", db->lock_sga == HT_UNKNOWN ? NULL : j_bool(db->lock_sga == HT_YES));
                add(j, "hugepages_bytes", j_u64(db->hugepages_bytes));
                add(j, "excluded", j_str(db->excluded));
                json_object_array_add(dbs, j);
        }
        add(oracle, "databases", dbs);
        /* 0 when no database found needs HugePages: a profile default */
        add(oracle, "sga_bytes", j_u64(f->oracle_sga_bytes));
        _cleanup_free_ char *from = f->oracle_sga_from ? strv_join(f->oracle_sga_from, ", ") : NULL;
        add(oracle, "sga_bytes_from", j_str(from));
        _cleanup_free_ char *ulp = ht_oracle_use_large_pages_true(f);
        add(oracle, "use_large_pages_true", j_str(ulp));
        add(oracle, "owner", j_str(f->oracle_owner));
        add(oracle, "owner_from", j_str(f->oracle_owner_from));
        add(oracle, "unit", j_str(f->oracle_unit));
        add(oracle, "unit_from", j_str(f->oracle_unit_from));
        add(oracle, "inventory_group", j_str(f->oracle_inventory_group));
        add(oracle, "inventory_group_from", j_str(f->oracle_inventory_group_from));
        add(oracle, "not_used", not_used[HT_PROC_ORACLE]);
        add(o, "oracle", oracle);
        json_object *mysql = json_object_new_object();
        add(mysql, "units", j_strv(f->mysql_units ? f->mysql_units : (char *[]){NULL}));
        add(mysql, "binaries", j_strv(f->mysql_binaries ? f->mysql_binaries : (char *[]){NULL}));
        const ht_mysql_config *mc = &f->mysql_config;
        json_object *cfg = json_object_new_object();
        add(cfg, "files", j_strv(mc->files ? mc->files : (char *[]){NULL}));
        for (size_t i = 0; i < HT_MYSQL_N_SIZES; i++)
                add(cfg, ht_mysql_size_name(i), j_u64(mc->sizes[i]));
        add(cfg, "large_pages", mc->large_pages == HT_UNKNOWN ? NULL : j_bool(mc->large_pages == HT_YES));
        add(cfg, "user", j_str(mc->user));
        add(mysql, "config", cfg);
        add(mysql, "mariadb", j_bool(mc->mariadb));
        add(mysql, "unit", j_str(mc->unit));
        add(mysql, "unit_from", j_str(mc->unit_from));
        add(mysql, "large_pages_bytes", j_u64(mc->large_pages_bytes));
        _cleanup_free_ char *lfrom = mc->large_pages_bytes_from ? strv_join(mc->large_pages_bytes_from, ", ") : NULL;
        add(mysql, "large_pages_bytes_from", j_str(lfrom));
        /* each server where mariadb@/mysqld@ instances are (issue 37) */
        json_object *servers = json_object_new_array();
        for (size_t i = 0; i < f->n_mysql_servers; i++) {
                const ht_mysql_server *sv = &f->mysql_servers[i];
                json_object *e = json_object_new_object();
                add(e, "unit", j_str(sv->unit));
                add(e, "instance", j_str(sv->instance));
                add(e, "enabled", j_bool(sv->enabled));
                add(e, "running", j_bool(sv->running));
                add(e, "group_suffix", j_str(sv->group_suffix));
                add(e, "defaults_file", j_str(sv->defaults_file));
                add(e, "options_from", j_str(sv->from));
                add(e, "files", j_strv(sv->config.files ? sv->config.files : (char *[]){NULL}));
                for (size_t k = 0; k < HT_MYSQL_N_SIZES; k++)
                        add(e, ht_mysql_size_name(k), j_u64(sv->config.sizes[k]));
                add(e, "large_pages", sv->config.large_pages == HT_UNKNOWN ? NULL
                                                                           : j_bool(sv->config.large_pages == HT_YES));
                add(e, "large_pages_bytes", j_u64(sv->config.large_pages_bytes));
                _cleanup_free_ char *sfrom = sv->config.large_pages_bytes_from
                                                     ? strv_join(sv->config.large_pages_bytes_from, ", ") : NULL;
                add(e, "large_pages_bytes_from", j_str(sfrom));
                json_object_array_add(servers, e);
        }
        add(mysql, "servers", servers);
        add(mysql, "template", j_str(f->mysql_template));
        add(mysql, "instance_large_pages_max", f->mysql_template ? j_u64(f->mysql_instance_max_bytes) : NULL);
        add(mysql, "not_used", not_used[HT_PROC_MYSQL]);
        add(o, "mysql", mysql);
        json_object *jvm = json_object_new_object();
        json_object *jl = json_object_new_array();
        for (size_t i = 0; i < f->n_jvms; i++) {
                const ht_jvm *v = &f->jvms[i];
                json_object *j = json_object_new_object();
                add(j, "pid", json_object_new_int64(v->pid));
                add(j, "user", j_str(v->user));
                add(j, "uid", j_i64(v->uid));
                add(j, "unit", j_str(v->unit));
                add(j, "trusted", j_bool(v->trusted));
                add(j, "max_heap_size", j_u64(v->opt.max_heap));
                add(j, "initial_heap_size", j_u64(v->opt.initial_heap));
                add(j, "heap_bytes", j_u64(v->heap_bytes));
                add(j, "heap_default", j_bool(v->heap_default));
                add(j, "cgroup_memory_limit", j_u64(v->memory_limit));
                add(j, "use_large_pages", v->opt.use_large_pages < 0 ? NULL : j_bool(v->opt.use_large_pages));
                add(j, "use_transparent_huge_pages", v->opt.use_thp < 0 ? NULL : j_bool(v->opt.use_thp));
                static const char *const lp_kinds[] = {[HT_JVM_LP_NONE] = NULL, [HT_JVM_LP_HUGETLBFS] = "hugetlbfs",
                                                       [HT_JVM_LP_SHM] = "shm", [HT_JVM_LP_THP] = "thp"};
                add(j, "large_pages_kind", j_str(lp_kinds[v->large_pages]));
                add(j, "large_page_size_in_bytes", j_u64(v->opt.large_page_size));
                add(j, "large_page_size", v->page_size ? j_u64(v->page_size) : NULL);
                add(j, "reserved_code_cache_size", j_u64(v->opt.code_cache));
                add(j, "code_cache_in_large_pages", j_bool(v->code_cache_large));
                add(j, "gc", json_object_new_string(ht_jvm_gc_name(v->gc)));
                add(j, "gc_large_pages_bytes", j_u64(v->gc_large_bytes));
                add(j, "jdk_feature_release", v->jdk_feature ? json_object_new_int64(v->jdk_feature) : NULL);
                add(j, "large_pages_bytes", j_u64(v->large_pages_bytes));
                _cleanup_free_ char *of = v->options_from ? strv_join(v->options_from, ", ") : NULL;
                add(j, "options_from", j_str(of));
                json_object_array_add(jl, j);
        }
        add(jvm, "processes", jl);
        add(jvm, "large_pages_bytes", j_u64(f->jvm_large_pages_bytes));
        add(jvm, "large_pages_shm", j_bool(f->jvm_large_pages_shm));
        _cleanup_free_ char *jfrom = f->jvm_large_pages_from ? strv_join(f->jvm_large_pages_from, ", ") : NULL;
        add(jvm, "large_pages_bytes_from", j_str(jfrom));
        add(jvm, "user", j_str(f->jvm_user));
        add(jvm, "user_from", j_str(f->jvm_user_from));
        add(jvm, "group", j_str(f->jvm_group));
        add(jvm, "group_from", j_str(f->jvm_group ? f->jvm_user_from : NULL));
        add(jvm, "unit", j_str(f->jvm_unit));
        add(jvm, "unit_from", j_str(f->jvm_unit_from));
        add(jvm, "not_used", not_used[HT_PROC_JAVA]);
        add(o, "jvm", jvm);
        return o;
}

/* ---- the text view: counts where the JSON has one entry a device ---- */

typedef struct {
        char **words;
        size_t *counts;
        size_t n;
} tally;

/* few distinct words (kinds, schedulers, governors): a linear look */
static void tally_add(tally *t, const char *word, size_t count) {
        size_t k = 0;
        while (k < t->n && !streq(t->words[k], word))
                k++;
        if (k == t->n) {
                t->words = xrealloc(t->words, (t->n + 2) * sizeof(char *));
                t->counts = xrealloc(t->counts, (t->n + 1) * sizeof(size_t));
                t->words[t->n] = xstrdup(word);
                t->words[t->n + 1] = NULL;
                t->counts[t->n++] = 0;
        }
        t->counts[k] += count;
}

/* "disk (2), dm (1)", "6 (8 CPUs)" with unit; "(none)" when empty; frees t */
static json_object *tally_json(tally *t, const char *unit) {
        strbuf b = {0};
        for (size_t i = 0; i < t->n; i++)
                strbuf_appendf(&b, "%s%s (%zu%s%s)", i ? ", " : "", t->words[i], t->counts[i], unit ? " " : "",
                               unit ? unit : "");
        _cleanup_free_ char *text = t->n ? strbuf_steal(&b) : xstrdup("(none)");
        json_object *o = json_object_new_string(text);
        strv_free(t->words);
        free(t->counts);
        *t = (tally){0};
        return o;
}

static const char *field_str(json_object *e, const char *key) {
        json_object *v = NULL;
        return json_object_object_get_ex(e, key, &v) && json_object_is_type(v, json_type_string)
                       ? json_object_get_string(v)
                       : NULL;
}

void ht_facts_json_summarize(json_object *facts_json) {
        json_object *block = NULL, *devices = NULL, *cpu = NULL, *cpufreq = NULL, *policies = NULL;
        if (json_object_object_get_ex(facts_json, "block", &block) &&
            json_object_object_get_ex(block, "devices", &devices) &&
            json_object_is_type(devices, json_type_array)) {
                tally kinds = {0}, scheds = {0};
                size_t n = json_object_array_length(devices);
                for (size_t i = 0; i < n; i++) {
                        json_object *e = json_object_array_get_idx(devices, i);
                        const char *kind = field_str(e, "kind"), *sched = field_str(e, "scheduler");
                        tally_add(&kinds, kind ? kind : "?", 1);
                        tally_add(&scheds, sched ? sched : "no choice", 1);
                }
                json_object_object_del(block, "devices");
                add(block, "devices", json_object_new_int64((int64_t)n));
                add(block, "kinds", tally_json(&kinds, NULL));
                add(block, "schedulers", tally_json(&scheds, NULL));
        }
        if (json_object_object_get_ex(facts_json, "cpu", &cpu) &&
            json_object_object_get_ex(cpu, "cpufreq", &cpufreq) &&
            json_object_object_get_ex(cpufreq, "policies", &policies) &&
            json_object_is_type(policies, json_type_array)) {
                tally govs = {0}, epps = {0}, epb = {0};
                size_t n = json_object_array_length(policies);
                for (size_t i = 0; i < n; i++) {
                        json_object *e = json_object_array_get_idx(policies, i);
                        const char *g = field_str(e, "governor"), *p = field_str(e, "energy_performance_preference");
                        tally_add(&govs, g ? g : "?", 1);
                        if (p)
                                tally_add(&epps, p, 1);
                }
                json_object *bias = NULL;
                if (json_object_object_get_ex(cpufreq, "energy_perf_bias", &bias) &&
                    json_object_is_type(bias, json_type_array))
                        for (size_t i = 0; i < json_object_array_length(bias); i++) {
                                json_object *e = json_object_array_get_idx(bias, i), *cpus = NULL;
                                const char *v = field_str(e, "value");
                                if (v && json_object_object_get_ex(e, "cpus", &cpus))
                                        tally_add(&epb, v, (size_t)json_object_get_int64(cpus));
                        }
                json_object_object_del(cpufreq, "policies");
                json_object_object_del(cpufreq, "energy_perf_bias");
                add(cpufreq, "policies", json_object_new_int64((int64_t)n));
                add(cpufreq, "governors", tally_json(&govs, NULL));
                add(cpufreq, "energy_performance_preferences", tally_json(&epps, NULL));
                add(cpufreq, "energy_perf_bias", tally_json(&epb, "CPUs"));
        }
}

static json_object *boot_id_json(const ht_facts *f) {
        return j_str(f->boot_id);
}

static json_object *hypervisor_json(const ht_facts *f) {
        return j_str(f->hypervisor);
}

static json_object *container_json(const ht_facts *f) {
        return j_str(f->container);
}

static json_object *container_by_json(const ht_facts *f) {
        return f->container ? j_strv(f->container_evidence) : NULL;
}

static json_object *ns_owner(ht_tristate host) {
        return host == HT_UNKNOWN ? NULL : json_object_new_string(host == HT_YES ? "host" : "own");
}

static json_object *container_ns_json(const ht_facts *f) {
        if (!f->container)
                return NULL;
        json_object *o = json_object_new_object();
        add(o, "ipc", ns_owner(f->container_ipc_host));
        add(o, "net", ns_owner(f->container_net_host));
        return o;
}

static json_object *numa_json(const ht_facts *f) {
        json_object *numa = json_object_new_object();
        add(numa, "nodes", f->numa_nodes ? json_object_new_int64(f->numa_nodes) : NULL);
        return numa;
}

static json_object *cgroup_json(const ht_facts *f) {
        json_object *cgroup = json_object_new_object();
        add(cgroup, "version", f->cgroup_version ? json_object_new_int64(f->cgroup_version) : NULL);
        return cgroup;
}

static json_object *systemd_json(const ht_facts *f) {
        json_object *systemd = json_object_new_object();
        add(systemd, "running", j_bool(f->systemd_running));
        return systemd;
}

static json_object *audit_json(const ht_facts *f) {
        json_object *audit = json_object_new_object();
        add(audit, "available", j_bool(f->audit_available));
        return audit;
}

static json_object *tuners_json(const ht_facts *f) {
        json_object *tuners = json_object_new_array();
        for (size_t i = 0; i < f->n_tuners; i++) {
                const ht_tuner *t = &f->tuners[i];
                json_object *x = json_object_new_object();
                add(x, "name", j_str(t->name));
                add(x, "unit", j_str(t->unit));
                add(x, "running", j_bool(t->running));
                add(x, "pid", t->running ? json_object_new_int64(t->pid) : NULL);
                add(x, "enabled_by", j_str(t->enabled_by));
                add(x, "profile", j_str(t->profile));
                json_object_array_add(tuners, x);
        }
        return tuners;
}

static json_object *image_json(const ht_facts *f) {
        json_object *image = json_object_new_object();
        add(image, "offline", j_bool(f->offline));
        add(image, "facts_file", j_str(f->facts_file));
        add(image, "detected_by", j_str(f->image_why));
        return image;
}

static json_object *warnings_json(const ht_facts *f) {
        return j_strv(f->warnings);
}

/* The top-level names of the facts in the order `facts --json` prints
 * them, each with what builds its value: one list for the whole tree and
 * the lazy one, so the two cannot differ. */
static const struct {
        const char *name;
        json_object *(*build)(const ht_facts *f);
} sections[] = {
        {"kernel", kernel_json},
        {"boot_id", boot_id_json},
        {"os", os_json},
        {"hypervisor", hypervisor_json},
        {"xen", xen_json},
        {"container", container_json},
        {"container_detected_by", container_by_json},
        {"container_namespaces", container_ns_json},
        {"cpu", cpu_json},
        {"numa", numa_json},
        {"block", block_json},
        {"memory", memory_json},
        {"hugepages", hugepages_json},
        {"thp", thp_json},
        {"hugetext", hugetext_json},
        {"bootloader", bootloader_json},
        {"mounts", mounts_json},
        {"cgroup", cgroup_json},
        {"shm", shm_json},
        {"systemd", systemd_json},
        {"audit", audit_json},
        {"tuners", tuners_json},
        {"workload", workload_json}, /* only when collected */
        {"image", image_json},
        {"warnings", warnings_json},
};

static bool section_present(const ht_facts *f, size_t i) {
        return f->workload_collected || !streq(sections[i].name, "workload");
}

json_object *ht_facts_to_json(const ht_facts *f) {
        json_object *o = json_object_new_object();
        for (size_t i = 0; i < ELEMENTSOF(sections); i++)
                if (section_present(f, i))
                        add(o, sections[i].name, sections[i].build(f));
        return o;
}

/* ---- the lazy tree: a plan builds only the groups it looks up ---- */

/* Hung on the tree's root as json-c userdata: which groups are still
 * null placeholders, and the facts to build them from. */
typedef struct {
        const ht_facts *f;
        uint32_t pending; /* bit i: sections[i] not built yet */
} lazy_facts;

_Static_assert(ELEMENTSOF(sections) <= 32, "one bit a section");

static void lazy_free(json_object *o, void *userdata) {
        free(userdata);
}

json_object *ht_facts_to_json_lazy(const ht_facts *f) {
        json_object *o = json_object_new_object();
        lazy_facts *l = xcalloc(1, sizeof(*l));
        l->f = f;
        /* every name in its place now, so the order is the whole tree's
         * whatever order the groups are built in: json-c replaces a
         * value in place */
        for (size_t i = 0; i < ELEMENTSOF(sections); i++)
                if (section_present(f, i)) {
                        add(o, sections[i].name, NULL);
                        l->pending |= 1u << i;
                }
        json_object_set_userdata(o, l, lazy_free);
        return o;
}

static lazy_facts *lazy_of(json_object *facts) {
        /* json-c hangs userdata of its own only on doubles */
        lazy_facts *l = facts && json_object_is_type(facts, json_type_object) ? json_object_get_userdata(facts)
                                                                              : NULL;
        return l && l->pending ? l : NULL;
}

/* true when the group name (n bytes) was a placeholder, built now */
static bool fill_section(json_object *facts, const char *name, size_t n) {
        lazy_facts *l = lazy_of(facts);
        for (size_t i = 0; l && i < ELEMENTSOF(sections); i++)
                if ((l->pending & (1u << i)) && sections[i].name[0] == name[0] &&
                    strncmp(sections[i].name, name, n) == 0 && !sections[i].name[n]) {
                        l->pending &= ~(1u << i);
                        add(facts, sections[i].name, sections[i].build(l->f));
                        return true;
                }
        return false;
}

void ht_facts_json_fill(json_object *facts, const char *dotted) {
        if (dotted)
                fill_section(facts, dotted, strcspn(dotted, "."));
}

void ht_facts_json_fill_all(json_object *facts) {
        lazy_facts *l = lazy_of(facts);
        for (size_t i = 0; l && i < ELEMENTSOF(sections); i++)
                if (l->pending & (1u << i))
                        fill_section(facts, sections[i].name, strlen(sections[i].name));
}

json_object *ht_facts_workload_json(const ht_context *c, unsigned parts, const ht_workload_trust *trust) {
        _cleanup_(ht_facts_freep) ht_facts *f = ht_facts_new();
        for (size_t i = 0; trust && i < ELEMENTSOF(trust->user); i++) {
                f->trust.user[i] = trust->user[i] ? xstrdup(trust->user[i]) : NULL;
                f->trust.unit[i] = trust->unit[i] ? xstrdup(trust->unit[i]) : NULL;
        }
        ht_facts_collect_workload_parts(c, f, parts);
        json_object *o = workload_json(f);
        /* for the resolver, which shows them with the plan and drops them */
        json_object *w = json_object_new_object();
        add(w, "oracle", j_strv(f->oracle_warnings ? f->oracle_warnings : (char *[]){NULL}));
        add(w, "mysql", j_strv(f->mysql_warnings ? f->mysql_warnings : (char *[]){NULL}));
        add(w, "jvm", j_strv(f->jvm_warnings ? f->jvm_warnings : (char *[]){NULL}));
        add(o, "warnings", w);
        return o;
}

json_object *ht_facts_devices_json(const ht_context *c, char ***warnings) {
        _cleanup_(ht_facts_freep) ht_facts *f = ht_facts_new();
        ht_facts_collect_cpufreq(c, f);
        ht_facts_collect_block(c, f);
        json_object *o = json_object_new_object();
        add(o, "block", block_json(f));
        add(o, "cpufreq", cpufreq_json(f));
        for (size_t i = 0; f->warnings && f->warnings[i]; i++)
                if (!strv_contains(*warnings, f->warnings[i]))
                        strv_push(warnings, f->warnings[i]);
        return o;
}

/* One walker for both lookups: a segment at a time, copied for the
 * lookup (to the stack when short), no list of parts allocated. */
static json_object *walk_dotted(json_object *root, const char *dotted, bool array_indexes, bool *ret_exists) {
        if (ret_exists)
                *ret_exists = false;
        if (!root || isempty(dotted))
                return NULL;
        json_object *cur = root;
        for (const char *p = dotted;;) {
                size_t n = strcspn(p, ".");
                if (n == 0)
                        return NULL; /* "a..b", ".a" or "a." name nothing */
                if (!cur)
                        return NULL; /* a null in the middle of the path */
                char small[64];
                _cleanup_free_ char *big = n < sizeof small ? NULL : xstrndup(p, n);
                const char *seg = big;
                if (!big) {
                        memcpy(small, p, n);
                        small[n] = 0;
                        seg = small;
                }
                json_object *next = NULL;
                if (json_object_is_type(cur, json_type_object)) {
                        if (!json_object_object_get_ex(cur, seg, &next))
                                return NULL;
                        /* a null at the top may be a lazy tree's group
                         * not built yet: built now */
                        if (!next && cur == root && fill_section(root, seg, n))
                                json_object_object_get_ex(cur, seg, &next);
                } else if (array_indexes && json_object_is_type(cur, json_type_array)) {
                        uint64_t idx;
                        if (!isdigit((unsigned char)seg[0]) || parse_u64(seg, &idx) < 0 ||
                            idx >= json_object_array_length(cur))
                                return NULL;
                        next = json_object_array_get_idx(cur, (size_t)idx);
                } else
                        return NULL;
                cur = next;
                if (!p[n])
                        break;
                p += n + 1;
        }
        if (ret_exists)
                *ret_exists = true;
        return cur;
}

json_object *ht_facts_lookup(json_object *facts_json, const char *dotted, bool *ret_exists) {
        return walk_dotted(facts_json, dotted, true, ret_exists);
}

json_object *ht_facts_lookup_field(json_object *facts_json, const char *dotted, bool *ret_exists) {
        return walk_dotted(facts_json, dotted, false, ret_exists);
}
