/* The facts object: a new one with every figure unknown, and freeing
 * it, each collector's part by that collector's own function. Above the
 * collectors, below facts-json.c, facts-load.c and facts.c. */
#include "config.h"

#include "facts-internal.h"
#include "facts.h"
#include "util.h"

ht_facts *ht_facts_new(void) {
        ht_facts *f = xcalloc(1, sizeof(*f));
        f->mem_total_kb = f->mem_free_kb = f->mem_available_kb = HT_U64_UNKNOWN;
        f->page_tables_kb = f->swap_total_kb = HT_U64_UNKNOWN;
        f->hugepages_supported = HT_UNKNOWN;
        f->hugepages_total = f->hugepages_free = HT_U64_UNKNOWN;
        f->hugepages_rsvd = f->hugepages_surp = HT_U64_UNKNOWN;
        f->hugepage_default_kb = HT_U64_UNKNOWN;
        f->thp_supported = HT_UNKNOWN;
        f->hugetext_supported = HT_UNKNOWN;
        f->hugetext_enabled = -1;
        f->intel_pstate_min_perf_pct = f->intel_pstate_max_perf_pct = -1;
        f->hugetext_pad_threshold = -1;
        f->grub_legacy_default = -1;
        f->default_entry = -1;
        f->switch_thp = HT_UNKNOWN;
        f->sys_readonly = f->proc_sys_readonly = f->proc_sys_net_readonly = HT_UNKNOWN;
        f->container_ipc_host = f->container_net_host = HT_UNKNOWN;
        f->oracle_uid = -1;
        f->warnings = xcalloc(1, sizeof(char *));
        return f;
}

void ht_facts_free(ht_facts *f) {
        if (!f)
                return;
        for (size_t i = 0; i < f->n_tuners; i++) {
                free(f->tuners[i].name);
                free(f->tuners[i].unit);
                free(f->tuners[i].enabled_by);
                free(f->tuners[i].profile);
        }
        free(f->tuners);
        for (size_t i = 0; i < f->n_proc_comms; i++)
                free(f->proc_comms[i].comm);
        free(f->proc_comms);
        free(f->kernel_release);
        free(f->kernel_uname);
        free(f->kernel_machine);
        free(f->cpu_online);
        free(f->cpu_present);
        free(f->cpu_cpuinfo);
        free(f->cpu_cpuinfo_text);
        free(f->kernel_cmdline);
        free(f->boot_id);
        free(f->xen_type);
        free(f->xen_guest_type);
        free(f->hypervisor);
        free(f->container);
        strv_free(f->container_evidence);
        strv_free(f->direct_kernel_evidence);
        free(f->root_fstype);
        free(f->os_id);
        free(f->os_version_id);
        free(f->os_id_like);
        free(f->os_name);
        free(f->os_pretty_name);
        free(f->hugepage_sizes_kb);
        ht_facts_devices_free(f);
        free(f->thp_enabled);
        free(f->thp_defrag);
        free(f->thp_sysfs_dir);
        free(f->thp_cmdline);
        strv_free(f->cpu_flags);
        free(f->grub_cfg);
        free(f->grub_legacy_conf);
        free(f->esp_entries);
        free(f->grub_cfg_ambiguous);
        free(f->grub_default);
        free(f->grub_cmdline_linux);
        free(f->grub_cmdline_linux_default);
        free(f->grubenv_kernelopts);
        free(f->grubenv_saved_entry);
        strv_free(f->grubenv);
        for (size_t i = 0; i < f->n_boot_entries; i++)
                ht_boot_entry_done(&f->boot_entries[i]);
        free(f->boot_entries);
        for (size_t i = 0; i < f->n_hugetlbfs; i++) {
                free(f->hugetlbfs[i].fstype);
                free(f->hugetlbfs[i].target);
        }
        free(f->hugetlbfs);
        free(f->shm);
        ht_facts_workload_free(f);
        free(f->facts_file);
        free(f->facts_file_ignored);
        free(f->image_why);
        free(f->image_warning);
        strv_free(f->warnings);
        strv_free(f->unread_warnings);
        free(f);
}
