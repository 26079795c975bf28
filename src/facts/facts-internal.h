/* Internals of the facts room: the pure parsers (strings in, facts out,
 * so unit tests feed them garbage directly) and the per-concern
 * collectors that ht_facts_collect() runs in order. Not for other rooms. */
#pragma once

#include <stddef.h>

#include "context.h"
#include "facts.h"

/* Biggest file any fact source may be; a larger one is garbage. */
#define HT_FACTS_MAX_FILE (4u << 20)

/* facts-util.c: below every collector, calling none (docs/DESIGN.md) */

/* The warning ht_facts_read gives when path cannot be read (r < 0), for
 * sources read by another module (accounts.h). */
void ht_facts_warn_read_error(const ht_context *c, ht_facts *f, const char *path, int r);
/* Read a host file for a fact. On failure adds a warning (a missing file
 * only when required) and returns -errno; *ret is then untouched. */
int ht_facts_read(const ht_context *c, ht_facts *f, const char *path, bool required,
                  char **ret, size_t *ret_len);
/* Read a file another user may control (oratab, an Oracle home's
 * parameter files, MySQL option files and their includes) through
 * ht_read_file_untrusted: *ctl in, who named path; out, who controls it.
 * On failure a warning naming the file and why (a missing file only when
 * warn_missing), and -errno. */
int ht_facts_read_untrusted(const ht_context *c, ht_facts *f, const char *path, size_t max,
                            ht_controllers *ctl, bool warn_missing, char **ret, size_t *ret_len);
/* A process as /proc lists it: its pid and comm (NULL when comm could not
 * be read: gone, or a fixture without one). */
typedef struct ht_proc_comm {
        unsigned pid;
        char *comm;
} ht_proc_comm;
/* Every process of /proc (at most 65536), read once a run and kept in f:
 * the workload and the tuner collectors both look for processes by name,
 * and a busy host has thousands. *ret_n 0 when /proc cannot be listed;
 * returns whether it could. */
bool ht_facts_proc_comms(const ht_context *c, ht_facts *f, const ht_proc_comm **ret, size_t *ret_n);
/* Same for a one-line kernel value, trailing newline removed. */
int ht_facts_read_line(const ht_context *c, ht_facts *f, const char *path, bool required,
                       char **ret);
/* Warn when buf holds NUL bytes before len (binary junk); returns whether
 * it did. Parsers then only see the text before the first NUL. */
bool ht_facts_check_nul(ht_facts *f, const char *buf, size_t len, const char *where);

/* The value of the last "key=value" word on a kernel command line (the
 * kernel applies them in order), NULL when absent. */
char *ht_cmdline_value(const char *cmdline, const char *key);

/* facts-kernel.c */
/* A shell-style value as os-release(5) writes them
 * ("..." with \\ escapes, '...', bare words). NULL when quoting is broken. */
char *ht_shell_unquote(const char *v);
void ht_facts_parse_os_release(ht_facts *f, const char *buf, size_t len, const char *where);
/* /etc/redhat-release and friends: name is the file's basename. Returns 0
 * and sets the id (always) and version (when one is found), or -EINVAL. */
int ht_parse_release_file(const char *name, const char *buf, char **ret_id, char **ret_version,
                          char **ret_pretty);
void ht_facts_parse_cpuinfo(ht_facts *f, const char *buf, size_t len, const char *where);
/* The text of cpuinfo with each distinct line kept once, in order of first
 * appearance, joined with "\n" (facts.cpu.cpuinfo). */
char *ht_cpuinfo_distinct_lines(const char *buf);
/* The machine (uname -m) a kernel release's name gives ("...el8.x86_64",
 * "6.1.0-18-amd64"), or the architecture a kernel config sets; NULL: none. */
const char *ht_release_machine(const char *release);
const char *ht_kernel_config_machine(const char *config);
/* Map DMI vendor/product strings to a hypervisor name, NULL for none known. */
const char *ht_hypervisor_from_dmi(const char *sys_vendor, const char *product_name,
                                   const char *bios_vendor);
void ht_facts_collect_kernel(const ht_context *c, ht_facts *f);
void ht_facts_collect_os(const ht_context *c, ht_facts *f);
void ht_facts_collect_cpu(const ht_context *c, ht_facts *f);
void ht_facts_collect_virt(const ht_context *c, ht_facts *f);

/* facts-memory.c */
void ht_facts_parse_meminfo(ht_facts *f, const char *buf, size_t len, const char *where);
/* The bracketed word of a sysfs choice file ("always [madvise] never").
 * -EINVAL when there is not exactly one. */
int ht_parse_bracketed(const char *s, char **ret);
void ht_facts_parse_shm(ht_facts *f, const char *buf, size_t len, const char *where);
void ht_facts_collect_memory(const ht_context *c, ht_facts *f);
void ht_facts_collect_thp(const ht_context *c, ht_facts *f);
void ht_facts_collect_shm(const ht_context *c, ht_facts *f);

/* facts-boot.c: the boot files through their formats (format-grub-legacy.h,
 * format-bls.h, format-grub-defaults.h), problems worded as warnings */
void ht_facts_parse_grub_legacy(ht_facts *f, const char *buf, size_t len, const char *where);
/* /boot/grub/default, which default=saved refers to: its first line is
 * the default entry's number. */
void ht_facts_parse_grub_default(ht_facts *f, const char *buf, size_t len, const char *where);
/* Parse one BLS entry file into e (fields it lacks stay NULL). */
void ht_parse_bls_entry(ht_facts *f, const char *buf, size_t len, const char *where,
                        ht_boot_entry *e);
void ht_facts_parse_grubenv(ht_facts *f, const char *buf, size_t len, const char *where);
void ht_boot_entry_done(ht_boot_entry *e);
void ht_facts_collect_boot(const ht_context *c, ht_facts *f);
/* On a Xen kernel: what the kernel a switch would boot offers (after
 * ht_facts_collect_boot and _kernel). */
void ht_facts_collect_switch(const ht_context *c, ht_facts *f);

/* facts-devices.c: the running kernel's /sys (not an image's) */
void ht_facts_collect_cpufreq(const ht_context *c, ht_facts *f);
void ht_facts_collect_block(const ht_context *c, ht_facts *f);
void ht_facts_devices_free(ht_facts *f);

/* facts-mounts.c */
void ht_facts_parse_mountinfo(ht_facts *f, const char *buf, size_t len, const char *where);
void ht_facts_collect_mounts(const ht_context *c, ht_facts *f);

/* facts-virt.c: after the mounts and the bootloader, whose facts they use */
/* "container" from PID 1's environment (NUL-separated "name=value"):
 * NULL when absent, "" when set empty (not a container). *ret_kubernetes
 * tells whether KUBERNETES_SERVICE_HOST is set (a Kubernetes pod). */
char *ht_environ_container(const char *buf, size_t len, bool *ret_kubernetes);
void ht_facts_collect_container(const ht_context *c, ht_facts *f);
/* facts-tuners.c: tuned, bpftune, ... running or enabled */
void ht_facts_collect_tuners(const ht_context *c, ht_facts *f);
void ht_facts_collect_direct_kernel(const ht_context *c, ht_facts *f);

/* facts-workload.c */
/* The heap a JVM command line (NUL-separated argv) asks for: the last
 * -Xmx or -XX:MaxHeapSize. -ENOENT when it gives none. */
int ht_java_max_heap(const char *cmdline, size_t len, uint64_t *ret);
/* The SIDs of an oratab (SID:ORACLE_HOME:Y|N lines). */
void ht_facts_parse_oratab(ht_facts *f, const char *buf, size_t len, const char *where);
void ht_facts_collect_workload(const ht_context *c, ht_facts *f);
/* The parts (HT_WORKLOAD_*) only, each with what it needs. */
void ht_facts_collect_workload_parts(const ht_context *c, ht_facts *f, unsigned parts);
/* A process's place in systemd's tree from its /proc/PID/cgroup text:
 * the name=systemd hierarchy on cgroup v1, else the v2 line. *ret_path:
 * that path (printable), *ret_unit: the first unit below the slices
 * (a valid name, outside user.slice and machine.slice), *ret_bad_unit:
 * a component there that is no valid unit name; each NULL when none. */
ht_cgroup_kind ht_cgroup_parse(const char *buf, char **ret_path, char **ret_unit, char **ret_bad_unit);
/* Why an untrusted process is not used, in a sentence: whose it is,
 * where it runs, what it is not. */
char *ht_process_not_used_reason(const ht_process *p);
/* The --set assignment that would use it ("jvm_user=NAME"), NULL none. */
char *ht_process_use_set(const ht_process *p);

/* facts-mysql.c */
void ht_facts_collect_mysql_config(const ht_context *c, ht_facts *f);
void ht_facts_mysql_config_free(ht_facts *f);
/* "g1", "parallel", ... for HT_JVM_GC_* (facts-jvm.c) */
const char *ht_jvm_gc_name(int gc);
/* The running JVMs' options, owners and units (facts-jvm.c). */
void ht_facts_collect_jvm(const ht_context *c, ht_facts *f);
void ht_facts_jvm_free(ht_facts *f);

/* facts-oracle.c */
/* The name of uid in the root's /etc/passwd, NULL when none. */
char *ht_facts_passwd_name(const ht_context *c, uint64_t uid);
/* The databases of f->oratab (read after the processes, for pmon). */
void ht_facts_collect_oracle(const ht_context *c, ht_facts *f);
void ht_facts_oracle_free(ht_facts *f);
void ht_facts_workload_free(ht_facts *f);
