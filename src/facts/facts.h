/* Host facts: what the host is and what its kernel and hardware can do.
 * Every fact is read from its real source through the root context. A
 * missing or garbled source leaves the fact unknown (tri-state or NULL)
 * and adds a warning; collecting facts never fails for that reason. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <json-c/json.h>

#include "context.h"
#include "format-jvm.h"
#include "util.h"

/* A numeric fact that could not be read (memory figures, hugetext knobs
 * use -1 instead since they are signed). */
#define HT_U64_UNKNOWN UINT64_MAX

/* Tri-state for facts that may be unknown. */
typedef enum {
        HT_UNKNOWN = -1,
        HT_NO = 0,
        HT_YES = 1,
} ht_tristate;

typedef enum {
        HT_BOOT_NONE,
        HT_BOOT_GRUB2,
        HT_BOOT_BLS,
        HT_BOOT_GRUB_LEGACY,
        HT_BOOT_ZIPL,    /* s390x: /etc/zipl.conf, no GRUB (facts-boot.c) */
        HT_BOOT_ESP_BLS, /* systemd-boot, its entries on the ESP (facts-boot.c) */
} ht_bootloader_kind;

/* One boot entry of a legacy grub.conf/menu.lst or a BLS entry. */
typedef struct {
        char *title;
        char *kernel;    /* kernel image path (vmlinuz-...), for Xen the Linux module */
        char *version;   /* kernel version derived from the image name, if any */
        bool xen;        /* boots the Xen hypervisor (kernel /xen.gz) or a -xen kernel */
        char *id;        /* BLS: file name without .conf */
        char *options;   /* kernel command line of the entry ($kernelopts expanded) */
        /* boots a Linux image (vmlinuz-..., or a Xen entry's Linux module);
         * false for chainloader, Memtest (--type=netbsd or memtest86+) and
         * other multiboot images */
        bool linux_image;
        bool chainloader; /* legacy: chainloader +1 (DOS, Windows) */
} ht_boot_entry;

typedef struct {
        char *fstype;    /* "hugetlbfs" */
        char *target;
        uint64_t pagesize_kb; /* from the pagesize= option, else the default size */
} ht_hugetlbfs_mount;

typedef struct {
        uint64_t key, shmid, size_bytes;
        unsigned uid;
        uint64_t nattch;
} ht_shm_segment;

/* Another tuner of the host (facts-tuners.c), running and/or enabled. */
typedef struct {
        char *name;        /* tuned, bpftune, sapconf, saptune, kubelet, dockerd, irqbalance */
        char *unit;        /* its systemd unit */
        bool running;      /* a root-owned process of that name */
        unsigned pid;      /* the lowest such pid, when running */
        char *enabled_by;  /* the wants link that starts it at boot, NULL: none */
        char *profile;     /* tuned: /etc/tuned/active_profile's names */
} ht_tuner;

/* What a running process is to tuning (facts-workload.c). */
typedef enum {
        HT_PROC_ORACLE,  /* an Oracle background process (ora_*) */
        HT_PROC_MYSQL,   /* mysqld or mariadbd */
        HT_PROC_JAVA,    /* a JVM */
} ht_process_kind;

/* Where a process sits in systemd's cgroup tree (/proc/PID/cgroup). */
typedef enum {
        HT_CG_UNKNOWN,  /* no cgroup file, or no systemd hierarchy in it */
        HT_CG_SERVICE,  /* a system service (its unit in ht_process.unit) */
        HT_CG_USER,     /* under user.slice: a login session, a user's manager
                         * (user@UID.service) and whatever it delegates */
        HT_CG_MACHINE,  /* under machine.slice: a container or VM */
        HT_CG_OTHER,    /* the root cgroup, a scope, a name no unit has */
} ht_cgroup_kind;

/* Why a workload process may size or grant anything. A process any
 * local user can start (a script named java, a copy of mysqld) must not
 * steer root's plan: only root's processes, a system service's, and
 * those of the user or unit the administrator names are used; the
 * others are listed as found but not used (facts-workload.c). */
typedef enum {
        HT_TRUST_NONE,     /* found but not used */
        HT_TRUST_ROOT,     /* real, effective and saved uid 0 */
        HT_TRUST_SERVICE,  /* in a system service unit */
        HT_TRUST_UNIT,     /* in the unit the administrator names (jvm_unit=, mysql_unit=) */
        HT_TRUST_USER,     /* the user the administrator names (jvm_user=, mysql_user=, oracle_user=) */
        HT_TRUST_OWNER,    /* ora_*: the owner of an ORACLE_HOME that oratab lists */
} ht_trust;

typedef struct {
        unsigned pid;
        char *name;               /* ora_pmon_ORCL, mysqld, java (argv[0] or comm) */
        ht_process_kind kind;
        uint64_t max_heap_bytes;  /* java: -Xmx / -XX:MaxHeapSize, HT_U64_UNKNOWN when not given */
        ht_trust trust;           /* HT_TRUST_NONE: not used */
        int64_t uid;              /* real uid (/proc/PID/status), -1 unknown */
        bool uids_differ;         /* real, effective and saved uid are not all one */
        char *user;               /* uid's name in the root's /etc/passwd, NULL unknown */
        ht_cgroup_kind cgroup_kind;
        char *cgroup;             /* its systemd cgroup path (printable), NULL unknown */
        char *unit;               /* the system unit it is in (a valid name), NULL none */
} ht_process;

/* The users and units the administrator names, by ht_process_kind: the
 * parameters jvm_user, jvm_unit, mysql_user, mysql_unit and oracle_user
 * when --set or a profile gives them as a plain value. Their processes
 * are trusted beside root's and system services'. NULL: none. */
typedef struct {
        char *user[3];
        char *unit[3];
} ht_workload_trust;

/* A running JVM (facts-jvm.c). */
typedef struct {
        unsigned pid;
        ht_jvm_options opt;        /* what its options say (format-jvm.h) */
        char *user;                /* its owner (real uid) in /etc/passwd, NULL unknown */
        int64_t uid;               /* -1 unknown */
        char *unit;                /* its systemd service from /proc/PID/cgroup, NULL none */
        bool trusted;              /* its process may size and grant (ht_trust) */
        uint64_t heap_bytes;       /* -Xmx, or HotSpot's default (heap_default); UINT64_MAX unknown */
        bool heap_default;
        uint64_t code_cache_bytes; /* with large pages: the code cache's size */
        bool code_cache_large;     /* it is in large pages */
        int gc;                    /* the collector in use, HT_JVM_GC_* (its default resolved) */
        uint64_t gc_large_bytes;   /* the collector's own structures on large pages */
        unsigned jdk_feature;      /* the JDK's feature release (17, 21), 0 unknown */
        ht_jvm_large_pages large_pages; /* how its options map large pages (ht_jvm_large_pages_kind) */
        /* the memory limit of its cgroup HotSpot takes for the memory
         * (facts-jvm.c, cgroup_memory_limit), UINT64_MAX none */
        uint64_t memory_limit;
        char *memory_limit_from;
        uint64_t page_size;        /* the large page size it maps with, 0 none */
        uint64_t large_pages_bytes;/* what it needs in HugePages; 0: none */
        char **options_from;       /* where its options were read */
} ht_jvm;

/* One database of oratab and what its parameter file says
 * (facts-oracle.c). Sizes in bytes, HT_U64_UNKNOWN when not set. */
typedef struct {
        char *sid, *home;
        bool start;                /* oratab's third field is Y */
        bool asm_instance;         /* +ASM, -MGMTDB: not sized */
        char *owner;               /* the owner of ORACLE_HOME (/etc/passwd), NULL unknown */
        int64_t owner_uid;         /* -1 unknown */
        bool running;              /* ora_pmon_SID runs */
        char *parameter_file;      /* the file the parameters were read from (as shown) */
        uint64_t sga_max_size, sga_target, memory_target, memory_max_target;
        uint64_t pga_aggregate_target, processes;
        char *use_large_pages;     /* TRUE, FALSE, ONLY, AUTO, AUTO_ONLY as written; NULL not set */
        ht_tristate lock_sga;
        uint64_t hugepages_bytes;  /* what its SGA needs in HugePages; 0: none or unknown */
        char *excluded;            /* why it is left out of the HugePages sum, NULL: not */
} ht_oracle_db;

/* What the MySQL/MariaDB option files say (facts-mysql.c). */
#define HT_MYSQL_N_SIZES 5
typedef struct {
        char **files;                  /* the option files read, in order */
        /* innodb_buffer_pool_size, key_buffer_size, aria_pagecache_buffer_size,
         * innodb_log_buffer_size, query_cache_size (ht_mysql_size_name());
         * bytes, HT_U64_UNKNOWN when not set */
        uint64_t sizes[HT_MYSQL_N_SIZES];
        char *sizes_from[HT_MYSQL_N_SIZES];
        ht_tristate large_pages;
        char *large_pages_from;
        char *user;                    /* user= in a server group */
        bool mariadb;                  /* the server is MariaDB (binary, process or files) */
        char *unit, *unit_from;        /* the running server's unit (/proc/PID/cgroup), NULL none */
        bool unit_conflict;            /* servers in several units */
        uint64_t large_pages_bytes;    /* what the server puts in large pages; 0: none */
        char **large_pages_bytes_from;
} ht_mysql_config;

/* One server where several run (issue 37): a mariadb@NAME/mysqld@NAME
 * instance, or the default unit's server beside them (facts-mysql.c). */
typedef struct {
        char *unit;                /* mariadb@a.service, or mariadb.service */
        char *instance;            /* "a"; NULL for the default server */
        char *group_suffix;        /* its --defaults-group-suffix (".a"), NULL none */
        char *defaults_file;       /* its --defaults-file, NULL the default option files */
        char *from;                /* the unit file or drop-in that said so */
        bool enabled, running;     /* a .wants link to it; a trusted server runs in it */
        ht_mysql_config config;    /* what it reads and puts in large pages */
} ht_mysql_server;

/* A /sys/block entry (facts-devices.c); figures HT_U64_UNKNOWN when the
 * queue does not give them. */
typedef struct {
        char *name;                /* "sda" */
        const char *kind;          /* ht_block_kind_to_string (format-block.h) */
        ht_tristate rotational, removable;
        char *scheduler;           /* the bracketed word; NULL: no choice or unknown */
        char **schedulers;         /* what queue/scheduler offers; empty: no choice */
        uint64_t read_ahead_kb, nr_requests, rq_affinity;
        char **slaves;             /* dm, md: the devices below; NULL for the others */
} ht_block_device;

/* A cpufreq policy (facts-devices.c). */
typedef struct {
        char *name;                /* "policy3" */
        char *cpus;                /* affected_cpus: "0 1"; "" when inactive */
        char *governor;            /* scaling_governor, NULL: unknown */
        char **governors;          /* scaling_available_governors */
        char *epp;                 /* energy_performance_preference, NULL: none */
        char **epps;               /* energy_performance_available_preferences */
} ht_cpufreq_policy;

/* One value of energy_perf_bias and how many CPUs have it. */
typedef struct {
        char *value;
        unsigned cpus;
} ht_epb_count;

typedef struct ht_facts {
        /* kernel */
        char *kernel_release;      /* /proc/sys/kernel/osrelease */
        /* Python's " ".join(os.uname()) as tuned's uname_regex reads it:
         * "SYSNAME NODENAME RELEASE VERSION MACHINE"; NULL when a part is
         * unknown (facts-kernel.c) */
        char *kernel_uname;
        char *kernel_machine;      /* uname -m: "x86_64", "aarch64"; NULL unknown */
        char *kernel_cmdline;      /* /proc/cmdline */
        char *boot_id;             /* /proc/sys/kernel/random/boot_id */
        bool kernel_xen;           /* a Xen (dom0/domU PV) kernel */
        char *xen_type;            /* /sys/hypervisor/type == "xen" → guest_type, "dom0" ... */
        char *xen_guest_type;      /* /sys/hypervisor/guest_type as read ("PV", "HVM", "PVH") */
        bool xen_dom0;
        char *hypervisor;          /* "xen", "kvm", "vmware", "hyperv", ..., "none", NULL unknown */
        char *container;           /* "docker", "podman", "kubernetes", "container-other", the
                                    * manager's own name...; NULL: none seen (facts-virt.c) */
        char **container_evidence; /* what showed it, one sign a line, the decisive one first */
        /* In a container, whether hosttune's own IPC and network
         * namespaces are the host's initial ones (docker run --ipc=host,
         * --network=host): their sysctls are then the host's
         * (facts-virt.c, ns_is_host) */
        ht_tristate container_ipc_host, container_net_host;
        bool container_net_unseen;  /* its link read, on a kernel before 6.18: no telling */

        /* OS */
        char *os_id, *os_version_id, *os_name, *os_pretty_name;
        char *os_id_like;          /* ID_LIKE: "debian", "rhel fedora"; NULL: none */

        /* memory (/proc/meminfo, KB); each figure HT_U64_UNKNOWN when absent
         * or garbled, memory_known tells whether MemTotal was read */
        bool memory_known;
        uint64_t mem_total_kb, mem_free_kb, mem_available_kb, page_tables_kb;
        uint64_t swap_total_kb;

        /* HugePages */
        ht_tristate hugepages_supported;
        uint64_t hugepages_total, hugepages_free, hugepages_rsvd, hugepages_surp;
        uint64_t hugepage_default_kb;  /* Hugepagesize (HT_U64_UNKNOWN when unknown) */
        uint64_t *hugepage_sizes_kb;   /* from /sys/kernel/mm/hugepages */
        size_t n_hugepage_sizes;
        bool gigantic_pages_possible;  /* CPU has pdpe1gb */

        /* THP */
        ht_tristate thp_supported;
        char *thp_enabled, *thp_defrag;  /* bracketed word */
        char *thp_sysfs_dir;             /* /sys/kernel/mm/transparent_hugepage or the redhat_ one */
        char *thp_cmdline;               /* transparent_hugepage= on the running cmdline */

        /* hugetext (Alibaba Cloud Linux) */
        ht_tristate hugetext_supported;
        int64_t hugetext_enabled;        /* -1 unknown */
        int64_t hugetext_pad_threshold;  /* -1 unknown */

        /* CPU and NUMA */
        unsigned cpu_count;              /* 0: unknown */
        /* /sys/devices/system/cpu/online and present as the kernel prints
         * them ("0-3,8"); NULL: absent */
        char *cpu_online, *cpu_present;
        /* /proc/cpuinfo as tuned's cpuinfo_regex searches it, each distinct
         * line once in order of first appearance, "\n"-joined (a 128-CPU
         * host's 200 KB become a few KB); NULL: not read, or not made yet
         * from cpu_cpuinfo_text */
        char *cpu_cpuinfo;
        /* /proc/cpuinfo as read (the text before a NUL): cpu.cpuinfo is
         * made from it when the JSON is built, since plans rarely ask */
        char *cpu_cpuinfo_text;
        char **cpu_flags;                /* flags of interest present: pdpe1gb, pse, hypervisor, ... */
        bool cpu_flags_x86;              /* cpu_flags are x86's "flags" line, which has "hypervisor" */
        unsigned numa_nodes;             /* 0: unknown */
        /* cpufreq (facts-devices.c): cpufreq_known when the running
         * kernel's /sys/devices/system/cpu was read (not in an image) */
        bool cpufreq_known;
        char *cpufreq_driver;            /* policy0's scaling_driver, NULL: no cpufreq */
        char *intel_pstate_status;       /* intel_pstate/status; NULL: no intel_pstate */
        int64_t intel_pstate_min_perf_pct, intel_pstate_max_perf_pct; /* -1 unknown */
        ht_cpufreq_policy *cpufreq_policies; /* in number order */
        size_t n_cpufreq_policies;
        ht_epb_count *epb;               /* distinct energy_perf_bias values, in order of the CPUs */
        size_t n_epb;

        /* block devices (facts-devices.c): every /sys/block entry, by
         * name; block_known when /sys/block was read */
        bool block_known;
        ht_block_device *block_devices;
        size_t n_block_devices;

        /* bootloader */
        ht_bootloader_kind bootloader;
        char *grub_cfg;                  /* the grub.cfg path the distro uses, if found */
        bool efi;
        char *esp_entries;               /* HT_BOOT_ESP_BLS: the entries directory */
        char *grub_cfg_ambiguous;        /* several vendors' grub.cfg on the ESP, none the OS's: their list */
        char *grub_legacy_conf;          /* /boot/grub/grub.conf or menu.lst */
        int grub_legacy_default;         /* -1 unknown */
        /* whether grub-mkconfig sources /etc/default/grub.d/ *.cfg after
         * /etc/default/grub (Debian's does, RHEL's, Fedora's, SUSE's and
         * upstream's do not): facts-boot.c, grub_reads_grub_d */
        bool grub_reads_grub_d;
        /* /etc/default/grub, then (grub_reads_grub_d) grub.d/ *.cfg, as
         * grub-mkconfig sources them: the values they leave (NULL: unset
         * or unknown) */
        char *grub_default;              /* GRUB_DEFAULT */
        char *grub_cmdline_linux;        /* GRUB_CMDLINE_LINUX */
        char *grub_cmdline_linux_default; /* GRUB_CMDLINE_LINUX_DEFAULT */
        char *grubenv_kernelopts;        /* kernelopts= in grubenv (RHEL 8 BLS) */
        char *grubenv_saved_entry;       /* saved_entry= in grubenv */
        char **grubenv;                  /* every "name=value" of grubenv, for $name in BLS options */
        /* a VM its VMM booted with a kernel it gives directly (qemu -kernel,
         * Firecracker, cloud-hypervisor): no bootloader in the guest, the
         * command line comes from the VM's host (facts-virt.c) */
        bool direct_kernel;
        char **direct_kernel_evidence;
        ht_boot_entry *boot_entries;     /* BLS in boot menu order, legacy in file order */
        size_t n_boot_entries;
        int default_entry;               /* index into boot_entries, -1 unknown */
        /* default=saved: GRUB takes the entry number from /boot/grub/default */
        bool grub_legacy_saved;
        /* whether the kernel of the entry a switch from Xen boots has
         * transparent HugePages (its /boot/config-VERSION) */
        ht_tristate switch_thp;

        /* mounts */
        ht_hugetlbfs_mount *hugetlbfs;
        size_t n_hugetlbfs;
        ht_tristate sys_readonly, proc_sys_readonly;
        /* the mount under /proc/sys/net: LXC's proc:mixed leaves it
         * writable below a read-only /proc/sys (the container's own
         * network namespace); elsewhere the same as proc_sys_readonly */
        ht_tristate proc_sys_net_readonly;
        bool boot_separate;
        char *root_fstype;               /* type of the mount on / ("overlay" in most containers) */
        /* 1: the memory controller is mounted as cgroup v1 (legacy or
         * hybrid), so every memory cgroup has its own memory.swappiness;
         * 2: unified cgroup2 only; 0: unknown (no mount table, no cgroup
         * mounts) */
        unsigned cgroup_version;

        /* SysV shared memory */
        bool shm_known;
        ht_shm_segment *shm;
        size_t n_shm;
        uint64_t shm_total_bytes;

        /* services */
        bool systemd_running;
        bool audit_available;
        /* every process's pid and comm, read from /proc once a run for the
         * collectors that look for processes by name (facts-util.c,
         * ht_facts_proc_comms): NULL until asked */
        struct ht_proc_comm *proc_comms;
        size_t n_proc_comms;
        bool proc_comms_read;
        /* other tuners (facts-tuners.c) */
        ht_tuner *tuners;
        size_t n_tuners;

        /* workload: what is installed and running (facts-workload.c) */
        bool workload_collected;         /* HT_FACTS_WITH_WORKLOAD */
        ht_workload_trust trust;         /* what the administrator names (owned) */
        bool processes_known;            /* /proc could be listed */
        ht_process *processes;           /* the processes that matter, by pid */
        size_t n_processes;
        char *oracle_user;               /* "oracle" when /etc/passwd has it */
        int64_t oracle_uid;              /* -1 unknown */
        char *oratab;                    /* /etc/oratab or /var/opt/oracle/oratab, when found */
        char **oratab_sids;              /* the databases it lists */
        char **mysql_units;              /* unit files of mysqld/mariadb/mysql found */
        char **mysql_unit_real;          /* for each of them, the unit it is: the name of
                                          * the file it is the same file as that is no
                                          * link (Debian's mysql.service links and merged
                                          * /usr's /lib copy: "mariadb.service") */
        char **mysql_binaries;           /* /usr/sbin/mysqld, /usr/sbin/mariadbd found */
        ht_mysql_config mysql_config;    /* facts-mysql.c; with instances, its
                                          * large_pages_bytes is their sum */
        ht_mysql_server *mysql_servers;  /* each server, only where instances are found */
        size_t n_mysql_servers;
        char *mysql_template;            /* mariadb@.service where several instances of
                                          * one template are found, else NULL */
        uint64_t mysql_instance_max_bytes; /* with it: the largest instance's large pages */
        /* JVMs (facts-jvm.c) */
        ht_jvm *jvms;
        size_t n_jvms;
        uint64_t jvm_large_pages_bytes;  /* summed over those with -XX:+UseLargePages */
        bool jvm_large_pages_shm;        /* one of those has -XX:+UseSHM: SysV segments */
        char **jvm_large_pages_from;
        char *jvm_user, *jvm_user_from;  /* the one owner, NULL none or several */
        char *jvm_group;                 /* its primary group (/etc/passwd, /etc/group) */
        char *jvm_unit, *jvm_unit_from;  /* the one unit, NULL none or several */
        char **jvm_warnings;
        /* the warnings reading each workload's files gave (also in
         * warnings), so a plan shows only its own workload's */
        char **oracle_warnings, **mysql_warnings;
        /* files another user controls that were not read (a FIFO, a
         * device, too large, a link to what that user could not read):
         * also in warnings; status and verify, which show no other facts
         * warning, show these, since one may be planted on purpose */
        char **unread_warnings;
        /* Oracle configuration (facts-oracle.c) */
        bool oracle_dbs_known;           /* oratab was read */
        ht_oracle_db *oracle_dbs;        /* in oratab order */
        size_t n_oracle_dbs;
        uint64_t oracle_sga_bytes;       /* the sum of hugepages_bytes */
        char **oracle_sga_from;          /* the parameter files of that sum */
        char *oracle_owner;              /* the homes' one installation owner, NULL none */
        char *oracle_owner_from;         /* the home it owns */
        char *oracle_unit;               /* the systemd unit the running databases are in, NULL none */
        char *oracle_unit_from;          /* "/proc/PID/cgroup" of their ora_pmon */
        char *oracle_inventory_group;    /* inst_group= of oraInst.loc, NULL none */
        char *oracle_inventory_group_from; /* the oraInst.loc it is from */

        /* offline images (--root without a running kernel) */
        bool offline;                    /* no running kernel of its own under the root */
        char *image_why;                 /* what showed the build machine's /proc or /sys mounted
                                          * into an image (ht_context_image_why), else NULL */
        char *image_warning;             /* the warning saying so (also in warnings), or NULL */
        char *facts_file;                /* --facts FILE the kernel facts came from */
        char *facts_file_ignored;        /* the warning (also in warnings) when --facts was
                                          * given for a root with a running kernel, else NULL */

        char **warnings;
} ht_facts;

/* A facts object with everything unknown and no warnings. */
ht_facts *ht_facts_new(void);
/* The SIDs, ", "-joined, of the databases whose SGA goes to HugePages
 * (hugepages_bytes > 0) with use_large_pages TRUE, set or by default:
 * Oracle starts them with the rest of the SGA in 4 KB pages when the
 * HugePages are short (issue 37); NULL when none. facts-oracle.c. */
char *ht_oracle_use_large_pages_true(const ht_facts *f);
/* Add a warning (printf-style) to f->warnings. */
void ht_facts_warn(ht_facts *f, const char *fmt, ...) _printf_(2, 3);

/* The workload facts read every /proc/PID (hundreds on a database host),
 * and the device facts (block.devices, cpu.cpufreq) every disk's queue
 * and every CPU's cpufreq files, which the block and cpu backends read
 * themselves: only the commands that show or use them collect them up
 * front; a profile that names facts.workload, facts.block or
 * facts.cpu.cpufreq gets them when it is resolved. */
typedef enum ht_facts_scope {
        HT_FACTS_HOST,
        HT_FACTS_WITH_WORKLOAD,
} ht_facts_scope;

/* Collect the facts from the host behind the context. Returns 0 (facts
 * that cannot be read are unknown, with a warning) or -errno on a fatal
 * problem such as an allocation failure. */
int ht_facts_collect(const ht_context *c, ht_facts_scope scope, ht_facts **ret);
void ht_facts_free(ht_facts *f);
static inline void ht_facts_freep(ht_facts **f) { ht_facts_free(*f); }

const char *ht_bootloader_kind_to_string(ht_bootloader_kind k);

/* GRUB 0.97's file for default=saved */
#define HT_GRUB_LEGACY_DEFAULT_FILE "/boot/grub/default"

/* The boot entry a switch away from the running Xen kernel makes the
 * default: a Linux entry (no chainloader, Memtest or Xen), the default
 * itself when it is one, else the non-Xen build of the running kernel's
 * version, else the newest. -1 when there is none. */
int ht_boot_switch_entry(const ht_facts *f);
/* "oracle", "mysql", "java" */
const char *ht_process_kind_to_string(ht_process_kind k);
/* The option name of ht_mysql_config.sizes[i]. */
const char *ht_mysql_size_name(size_t i);
/* What the mariadb@NAME/mysqld@NAME instance unit puts in large pages,
 * read now from its template, drop-ins and option files (the start gate:
 * one instance's own pages where the apply sized them all), added to f's
 * servers (freed with f, its warnings in f's); *ret_from the files that
 * said so. -EINVAL: no instance unit; -ENOENT: no template. */
int ht_facts_mysql_instance_large_pages(const ht_context *c, ht_facts *f, const char *unit, uint64_t *ret_bytes,
                                        char **ret_from);

/* What one process has of memory, as status and verify report it
 * (facts-workload.c); each field HT_U64_UNKNOWN when the kernel or the
 * fixture does not tell. Sources: kernel Documentation/filesystems/proc.rst,
 * /proc/PID/status (VmPTE, HugetlbPages), /proc/PID/smaps_rollup or smaps
 * (Private_Hugetlb, Shared_Hugetlb: HugeTLB pages mapped; FilePmdMapped:
 * file pages mapped by PMD, i.e. text in transparent huge pages, not
 * HugeTLB) and /proc/PID/stat (majflt, field 12; starttime, field 22, proc(5)). */
typedef struct {
        uint64_t vm_pte_kb;
        uint64_t hugetlb_kb;          /* Private_Hugetlb + Shared_Hugetlb, else status HugetlbPages */
        uint64_t private_hugetlb_kb;
        uint64_t shared_hugetlb_kb;
        uint64_t hugetlb_mapped_kb;   /* Size of its HugeTLB mappings in smaps: reserved or faulted in */
        uint64_t file_pmd_mapped_kb;
        uint64_t majflt;
        uint64_t start_ticks;         /* clock ticks after boot */
        bool smaps_unreadable;        /* smaps_rollup/smaps there but not readable (not root) */
} ht_proc_memory;

/* -ENOENT/-ESRCH when the process is gone (or never was); else 0 with
 * whatever could be read. */
int ht_proc_memory_read(const ht_context *c, unsigned pid, ht_proc_memory *ret);
/* The major-fault counter alone (for --interval's second sample). */
int ht_proc_majflt_read(const ht_context *c, unsigned pid, uint64_t *ret);

/* Whether the root has a running kernel behind it (procfs or sysfs
 * present); an image tree does not. */
bool ht_facts_root_live(const ht_context *c);
/* Whether os-release's ID or ID_LIKE names debian or ubuntu. */
bool ht_facts_os_debian_like(const ht_facts *f);

/* Read a facts JSON file (what `hosttune facts --json` printed on a
 * machine of the target shape) into f: the facts only a running kernel
 * knows (kernel, CPU, memory, HugePages, THP, hugetext, hypervisor).
 * Files the image itself holds (os-release, bootloader, users) are not
 * taken from it. The path is a file of the machine hosttune runs on, not
 * of the root. 0, or -errno with *ret_error naming the file and field. */
int ht_facts_load_kernel(ht_facts *f, const char *path, char **ret_error);

/* A whole number for a --json document, exact over uint64's range:
 * json-c prints an int64 or a uint64 in full, digit for digit (a reader
 * that takes JSON numbers as doubles, jq 1.6 or JavaScript, rounds those
 * above 2^53 itself). NULL (null) for HT_U64_UNKNOWN; and above
 * INT64_MAX with a json-c before 0.14, which has no uint64. */
json_object *ht_json_u64(uint64_t v);
/* A whole number of a parsed --json document or facts tree, over
 * uint64's range (json-c's get_int64 stops at INT64_MAX): 0, or -ERANGE
 * for one below 0, -EINVAL for what is not a whole number. */
int ht_json_get_u64(json_object *o, uint64_t *ret);

/* The facts as a JSON tree with the field names of DESIGN.md
 * ("kernel.release" is {"kernel": {"release": ...}}). Unknown → null. */
json_object *ht_facts_to_json(const ht_facts *f);
/* The same tree for a plan, which reads a few of its groups: every
 * top-level name is there in the same order, each group built from f on
 * the first look-up that names it (ht_facts_lookup, ht_facts_lookup_field,
 * ht_facts_need, ht_facts_json_fill). f must outlive the tree. Code that
 * walks the tree itself calls ht_facts_json_fill (one group) or
 * ht_facts_json_fill_all first; both do nothing to other trees. */
json_object *ht_facts_to_json_lazy(const ht_facts *f);
void ht_facts_json_fill(json_object *facts, const char *dotted);
void ht_facts_json_fill_all(json_object *facts);
/* For `facts` without --json: in a facts JSON tree, block.devices and
 * cpu.cpufreq's policies and energy_perf_bias become counts ("disk 2,
 * dm 1"; the schedulers and governors in use), since a host may have
 * thousands of disks and CPUs. */
void ht_facts_json_summarize(json_object *facts_json);
/* Parts of the workload facts: a plan collects only those its
 * expressions name (facts.workload.oracle.* reads no MySQL file). */
enum {
        HT_WORKLOAD_ORACLE = 1 << 0,
        HT_WORKLOAD_MYSQL = 1 << 1,
        HT_WORKLOAD_JVM = 1 << 2,
        HT_WORKLOAD_PROCESSES = 1 << 3,
        HT_WORKLOAD_ALL = (1 << 4) - 1,
};
/* The "workload" group of the facts JSON, its parts collected now; the
 * parts not asked for read as empty and must not be looked at. */
json_object *ht_facts_workload_json(const ht_context *c, unsigned parts, const ht_workload_trust *trust);
/* "root", "service", "unit", "user", "owner"; NULL for HT_TRUST_NONE */
const char *ht_trust_to_string(ht_trust t);
/* The device facts read now, for the resolver: {"block": ..., "cpufreq":
 * ...} as facts --json has them; what reading them warned about is added
 * to *warnings. */
json_object *ht_facts_devices_json(const ht_context *c, char ***warnings);
/* What of the facts read on demand a facts tree has: zero it with the
 * tree. trust: called (with userdata) for the users and units the
 * administrator names, when a workload's facts are read. */
typedef struct {
        unsigned workload_parts;  /* HT_WORKLOAD_* in facts.workload */
        bool devices_read;        /* block.devices and cpu.cpufreq asked for */
        void (*trust)(void *userdata, ht_workload_trust *t);
        void *userdata;
} ht_facts_demand;
/* The facts the expression name dotted (without "facts.") needs, read
 * into facts now when a plan did not collect them: facts.workload.* (only
 * that workload's part: workload.oracle.* reads no MySQL file) and
 * facts.block, facts.cpu.cpufreq of a running host. What facts already has
 * (collected, or a --facts file) stays. Device warnings go to *warnings. */
void ht_facts_need(const ht_context *c, json_object *facts, const char *dotted, ht_facts_demand *d,
                   char ***warnings);

/* One entry of /sys/block (facts-devices.c): the walk the block facts and
 * the block backend share, so both see the same devices by the same
 * kinds (format-block.h). */
typedef struct {
        char *name;   /* "sda" */
        char *path;   /* "/sys/block/sda": a link into /sys/devices */
        int kind;     /* ht_block_kind */
} ht_sys_block;
/* The entries of /sys/block in name order. -errno (nothing in *ret)
 * when it cannot be listed: no sysfs (a container without it, an image). */
int ht_sys_block_list(const ht_context *c, ht_sys_block **ret, size_t *ret_n);
void ht_sys_block_list_free(ht_sys_block *l, size_t n);
/* The names below a stacked device (dm, md) whose directory is dir: its
 * slaves/ directory, sorted; NULL when there are none or it cannot be
 * read. */
char **ht_sys_block_slaves(const ht_context *c, const char *dir);

/* Look a dotted name ("memory.total_kb") up in a facts JSON tree. Returns
 * the borrowed node or NULL when the name does not exist. A name that
 * exists with a null value returns a node of type json_type_null via
 * *ret_exists=true and NULL. */
json_object *ht_facts_lookup(json_object *facts_json, const char *dotted, bool *ret_exists);
/* The same for expression names: objects only, no list indexes. */
json_object *ht_facts_lookup_field(json_object *facts_json, const char *dotted, bool *ret_exists);
