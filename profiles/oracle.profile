# oracle: Oracle Database on Linux.
#
# Kernel parameters and oracle user limits: the values of Oracle's
# oracle-database-preinstall-19c package, as written in the sysctl.conf and
# /etc/security/limits.d/oracle-database-preinstall-19c.conf it installs,
# each with the comment "oracle-database-preinstall-19c setting for ... is
# ..."; Oracle Database Installation Guide for Linux, "Minimum Parameter
# Settings for Installation"
# (https://docs.oracle.com/en/database/oracle/oracle-database/19/ladbi/minimum-parameter-settings-for-installation.html).
#
# oracle_release picks what differs between releases. The 21c and 23ai
# packages write the same lines as 19c's except: 23ai sets kernel.panic = 10
# (rules/15-oracle.rules) and ip_local_port_range = 9000 65535, both rows of
# the 23ai table too; 21c changes nothing (its package's sysctl lines
# equal 19c's; the 21c guide's table could not be read here). The packages'
# files were compared as reproduced in public install notes, not from the
# RPMs themselves. The 23ai table also words shmall differently ("greater
# than or equal to the value of shmmax, in pages", 19c: "40 percent of the
# size of physical memory in pages"); the package value taken below,
# 1073741824 pages of 4 KB, is exactly shmmax's 4398046511104 bytes, so it
# serves both.
#
# That table's values are "minimum values only" and "if the current value
# for any parameter is greater than the value listed in this table, then
# the Fixup scripts do not change the value of that parameter": each one
# is a bound here (at-least; the port range's two ends each a minimum), so
# a host above it keeps its value (hosttune.profile(5), BOUNDS). Values the
# table does not list as minimums (panic_on_oops, rp_filter) are exact.
#
# Limits are minimums too (at_least): a larger value another limits file
# already gives the oracle user is kept; the hard stack limit alone has a
# maximum as well (a range). kernel.numa_balancing = 0 on NUMA hosts, as
# tuned's oracle profile (rules/15-oracle.rules); numa=off on the kernel
# command line only with --set numa_off=true (rules/15-oracle.rules says
# why). tuned's oracle profile's dirty page settings are taken too.
#
# HugePages for the SGA (rules/10-hugepages.rules) take at most 70 % of the
# memory (rules/20-memory.rules), THP never (rules/40-thp.rules; madvise on
# UEK7+), swappiness per rule.
#   hosttune apply oracle --set sga_max_size=18G
#   hosttune apply oracle --set oracle_release=23ai --set sga_max_size=18G

summary = "Oracle Database: preinstall kernel parameters and limits, HugePages for the SGA, THP off";
inherit = "base";

params = {
        # SGA_MAX_SIZE in bytes (18G...) for vm.nr_hugepages, 0: none; default: the SGAs in oratab's spfiles/pfiles (hosttune(8), JSON, facts).
        sga_max_size = "= facts.workload.oracle.sga_bytes";
        # Pages on top of ceil(SGA / Hugepagesize).
        hugepage_slack = 2;
        # The database release: "19c", "21c" or "23ai" (rules/15-oracle.rules).
        oracle_release = "19c";
        # The Oracle software owner: Oracle Database Installation Guide 19c for
        # Linux, "About the Oracle Database Preinstallation RPM": the RPM "creates
        # an oracle user, and creates the oraInventory (oinstall) and OSDBA (dba)
        # groups for that user". Default: the owner of the databases' homes in
        # oratab when it is an installation owner (in oinstall or dba;
        # facts.workload.oracle.owner), else oracle.
        oracle_user = "= if(defined(facts.workload.oracle.owner), facts.workload.oracle.owner, \"oracle\")";
        # vm.hugetlb_shm_group gets this group's gid. Oracle's "Configuring
        # HugePages on Linux" (Database Installation Guide 19c and 23ai,
        # https://docs.oracle.com/en/database/oracle/oracle-database/19/cwlin/configure-hugepages.html)
        # has you run "id oracle" and "note the value of gid", the oracle
        # user's primary group, "gid=54321(oinstall)" in its example, and set
        # vm.hugetlb_shm_group to it (the step that sets it could be read
        # only in part here). That is the Oracle Inventory group, not OSDBA
        # (dba): "An Oracle installation owner should always have the group
        # you want to have designated as the OINSTALL group (oinstall) as its
        # primary group" (Grid Infrastructure Installation Guide, "Creating
        # the Oracle Inventory Group If an Oracle Inventory Does Not Exist").
        # The kernel also accepts a supplementary group (in_group_p()), so
        # dba works for an oracle user in it, but the inventory group is what
        # Oracle's procedure names and what every Oracle software owner
        # (oracle, grid) has as its primary group. Default: the group the
        # installer recorded for it, inst_group= of /etc/oraInst.loc
        # (facts.workload.oracle.inventory_group: a host installed with
        # another name for it, a single dba group, has no oinstall), else
        # oinstall, its default name.
        oracle_group = "= if(defined(facts.workload.oracle.inventory_group), facts.workload.oracle.inventory_group, \"oinstall\")";
        # MEMORY_TARGET and MEMORY_MAX_TARGET in bytes: either one set means
        # AMM, which cannot use HugePages (rules/20-memory.rules).
        memory_target = 0;
        # Oracle Database Reference, MEMORY_MAX_TARGET (as above): 0, not set.
        memory_max_target = 0;

        hugepages_bytes = "= sga_max_size";
        hugepages_owner = "= oracle_user";
        hugepages_group = "= oracle_group";
        # The systemd unit that runs the databases, when systemd starts them
        # (a dbora.service running dbstart; "" for none). pam_limits applies
        # to login sessions only (pam_limits(8): "session" module; systemd
        # sets a service's limits from its unit, systemd.exec(5), "Process
        # Properties"), so the limits below do not reach a database such a
        # unit starts: with a unit, its drop-in gets the preinstall's hard
        # nofile (65536) and nproc (16384) and the HugePages' memlock, as
        # minimums. Default: the unit the running databases' ora_pmon is in
        # (/proc/PID/cgroup, facts.workload.oracle.unit), when one.
        oracle_unit = "= if(defined(facts.workload.oracle.unit), facts.workload.oracle.unit, \"\")";
        limits_unit = "= oracle_unit";
        limits_unit_nofile = 65536; # preinstall: nofile hard limit is 65536
        limits_unit_nproc = 16384; # preinstall: nproc hard limit is 16384
        hugepages_unit = "= oracle_unit";
        # The SGA is SysV shared memory: SHM_HUGETLB segments (the
        # "hugepages_settings.sh" of rules/10-hugepages.rules counts them).
        hugepages_sysv = true;
        # Without the group (or CAP_IPC_LOCK) a kernel from 5.16 on refuses
        # the SGA's SHM_HUGETLB segments: an error (rules/10-hugepages.rules).
        hugepages_group_required = true;
        # Oracle's "Configuring HugePages on Linux" (as above): "Oracle
        # recommends that you reserve a minimum of 30 percent of the total
        # memory for standard pages and not more than 70 percent of the total
        # memory for HugePages."
        hugepages_max_percent = 70;
        # tuned's oracle profile: kernel.numa_balancing = 0 (rules/15-oracle.rules).
        numa_balancing_off = true;
        # numa=off on the kernel command line, as the preinstall package
        # does: off unless asked for (rules/15-oracle.rules says why).
        numa_off = false;
        # Oracle Database Installation Guide 19c for Linux, "Checking
        # Resource Limits for Oracle Software Installation Users", Table 5-1
        # (https://docs.oracle.com/en/database/oracle/oracle-database/19/ladbi/checking-resource-limits-for-oracle-software-installation-users.html):
        # memlock "at least 90 percent of the current RAM when HugePages
        # memory is enabled and at least 3145728 KB (3 GB) when HugePages
        # memory is disabled"; the preinstall package's limits file says
        # the same beside its fixed value: "maximum of 128GB on x86_64 or
        # 3GB on x86 OR 90 % of RAM" (the 19c and 23ai packages' file as
        # reproduced in public install notes). With HugePages for the SGA the memlock limits are raised
        # to 90 % of MemTotal where that is above the package's 128 GB
        # (hosts with more than about 142 GB; rules/10-hugepages.rules).
        hugepages_memlock_ram_percent = 90;
        # Oracle Database Installation Guide for Linux, "Disabling Transparent
        # HugePages"; My Oracle Support Doc ID 1557478.1.
        thp = "never";
        # madvise instead of never on UEK7 (5.15) and later, as the Oracle
        # Database 23ai Installation Guide for Linux section cited in
        # rules/40-thp.rules says.
        thp_uek7_madvise = true;
        # Composition with other workloads (issue 37; hosttune.profile(5),
        # COMPOSITION). THP never is required: Oracle's "Disabling Transparent
        # HugePages" (Database Installation Guide for Linux): THP "can cause
        # delays in accessing memory that can result in node restarts in Oracle
        # RAC environments, or performance issues or delays for Oracle Database
        # single instances"; MOS Doc ID 1557478.1; jvm's madvise gives way. So
        # is vm.hugetlb_shm_group: one group, which from 5.16 on the SGA needs
        # (hugepages_group_required, rules/10-hugepages.rules); a JVM's
        # -XX:+UseSHM heap falls back to small pages (the order chose before).
        requires = "thp sysctl.vm.hugetlb_shm_group";
        # swappiness: both this profile's source (Red Hat: "for Oracle
        # databases, Red Hat recommends a swappiness value of 10") and the
        # other workloads' (Elastic's 1, MariaDB's 1) ask for less swapping
        # than the kernel's 60; the lowest of them serves every one.
        lowest = "sysctl.vm.swappiness";
};

sysctl = {
        fs = {
                # preinstall: fs.file-max is 6815744; the guide's table: 6815744 (minimum)
                file-max = { value = 6815744; bound = "at-least"; };
                # preinstall: fs.aio-max-nr is 1048576; the guide's table: 1048576 (minimum)
                aio-max-nr = { value = 1048576; bound = "at-least"; };
        };
        vm = {
                # Red Hat: "for Oracle databases, Red Hat recommends a swappiness
                # value of 10" (Red Hat Enterprise Linux 6 Performance Tuning
                # Guide, 5.5 "Tuning Virtual Memory"); tuned's oracle profile
                # (profiles/oracle/tuned.conf) sets vm.swappiness = 10. The
                # preinstall package sets none. Chosen over base's 1: these are
                # the sources that speak of Oracle. Exact, as in base.
                swappiness = { value = 10; bound = "exact"; };
                # tuned's oracle profile (profiles/oracle/tuned.conf,
                # redhat-performance/tuned at 2bfa4423): [vm]
                # "dirty_background_bytes = 3%" and "dirty_bytes = 40%",
                # which tuned's vm plugin writes as vm.dirty_background_ratio
                # and vm.dirty_ratio (tuned/plugins/plugin_vm.py: a value
                # ending in % "updates the /proc/sys/vm/dirty_ratio sysctl
                # option"). Exact: tuning values, not minimums. (The 40 is
                # also throughput-performance's, which the oracle profile
                # includes; its background 10 % the oracle profile lowers.)
                dirty_background_ratio = { value = 3; bound = "exact"; };
                # tuned oracle: "dirty_bytes = 40%" (vm.dirty_ratio, as above)
                dirty_ratio = { value = 40; bound = "exact"; };
                # tuned oracle [sysctl]: "vm.dirty_expire_centisecs = 500"
                dirty_expire_centisecs = { value = 500; bound = "exact"; };
                # tuned oracle [sysctl]: "vm.dirty_writeback_centisecs = 100"
                dirty_writeback_centisecs = { value = 100; bound = "exact"; };
        };
        kernel = {
                # preinstall: kernel.sem is '250 32000 100 128' (SEMMSL SEMMNS SEMOPM SEMMNI);
                # the guide's table: 250 32000 100 128 (minimum, each field on its own)
                sem = { value = "250 32000 100 128"; bound = "at-least"; };
                # preinstall: kernel.shmmni is 4096; the guide's table: 4096 (minimum)
                shmmni = { value = 4096; bound = "at-least"; };
                # preinstall: kernel.shmall is 1073741824 on x86_64 (pages); the guide's
                # table asks for 40 percent of memory in pages (minimum): the package's
                # value is taken, as a minimum
                shmall = { value = 1073741824; bound = "at-least"; };
                # preinstall: kernel.shmmax is 4398046511104 on x86_64 (4 TB); the guide's
                # table asks for half of memory in bytes (minimum): the package's value
                # is taken, as a minimum
                shmmax = { value = 4398046511104; bound = "at-least"; };
                # preinstall: kernel.panic_on_oops is 1 per Orabug 19212317; the table's
                # 1 is a switch, not a minimum: exact on purpose
                panic_on_oops = { value = 1; bound = "exact"; };
        };
        net = {
                core = {
                        # preinstall: net.core.rmem_default is 262144; the guide's table: 262144 (minimum)
                        rmem_default = { value = 262144; bound = "at-least"; };
                        # preinstall: net.core.rmem_max is 4194304; the guide's table: 4194304 (minimum)
                        rmem_max = { value = 4194304; bound = "at-least"; };
                        # preinstall: net.core.wmem_default is 262144; the guide's table: 262144 (minimum)
                        wmem_default = { value = 262144; bound = "at-least"; };
                        # preinstall: net.core.wmem_max is 1048576; the guide's table: 1048576 (minimum)
                        wmem_max = { value = 1048576; bound = "at-least"; };
                };
                ipv4 = {
                        # preinstall-19c/21c: net.ipv4.ip_local_port_range is 9000 65500;
                        # the 19c guide's table: "Minimum: 9000 Maximum: 65500". 23ai: the
                        # table says "Minimum: 9000 Maximum: 65535" and preinstall-23ai
                        # writes "9000 65535" (under a comment that still says 9000
                        # 65500). tuned's oracle profile has 9000 65499; Oracle's own
                        # values are taken. Both ends are minimums (at-least, field by
                        # field): Oracle Database Installation Guide 23ai for Linux,
                        # "Setting UDP and TCP Kernel Parameters Manually": "Ensure that
                        # the lower range is set to 9000 or higher to avoid well known
                        # ports and those commonly registered for use by Oracle and
                        # other vendors or servers", and "Set the port range high enough
                        # to include reserved ports for any applications you may intend
                        # to use and large enough ephemeral ports for the anticipated
                        # server workload"
                        # (https://docs.oracle.com/en/database/oracle/oracle-database/23/ladbi/setting-udp-and-tcp-kernel-parameters-manually.html).
                        # So a host's 1024 65535 becomes 9000 65535 (its low end
                        # raised, its high end kept); this used to keep it as a range
                        # "covering" 9000 65500, which left Oracle's ports to others.
                        ip_local_port_range = {
                                value = "= if(oracle_release == \"23ai\", \"9000 65535\", \"9000 65500\")";
                                bound = "at-least";
                        };
                        conf = {
                                # preinstall: net.ipv4.conf.all.rp_filter is 2 (loose mode,
                                # for multiple interconnects); not in the table: exact
                                all = { rp_filter = 2; };
                                # preinstall: net.ipv4.conf.default.rp_filter is 2
                                default = { rp_filter = 2; };
                        };
                };
        };
};

# /etc/security/limits.d/oracle-database-preinstall-19c.conf (the 21c and
# 23ai packages write the same limits). Every one is a minimum (at_least):
# the guide's note on its tables covers "kernel parameter and shell limit
# values" ("minimum values only"), so a larger value, or unlimited, that
# another limits file already gives the oracle user is kept and
# hosttune's file holds no line for it.
limits = (
        # preinstall: nofile soft limit is 1024
        { domain = "= oracle_user"; type = "soft"; item = "nofile"; value = 1024; at_least = true; },
        # preinstall: nofile hard limit is 65536
        { domain = "= oracle_user"; type = "hard"; item = "nofile"; value = 65536; at_least = true; },
        # preinstall: nproc soft limit is 16384 (Orabug 15971421)
        { domain = "= oracle_user"; type = "soft"; item = "nproc"; value = 16384; at_least = true; },
        # preinstall: nproc hard limit is 16384
        { domain = "= oracle_user"; type = "hard"; item = "nproc"; value = 16384; at_least = true; },
        # preinstall: stack soft limit is 10240KB; the guide's Table 5-1
        # ("Checking Resource Limits for Oracle Software Installation
        # Users", cited at hugepages_memlock_ram_percent): soft "at least
        # 10240 KB"
        { domain = "= oracle_user"; type = "soft"; item = "stack"; value = 10240; at_least = true; },
        # preinstall: stack hard limit is 32768KB; the guide's Table 5-1:
        # hard "at least 10240 KB, and at most 32768 KB" (a range, the
        # one limit the table gives a maximum): a host's unlimited or
        # 65536 is lowered to 32768, 8192 raised to 10240, 20000 kept. No
        # line anywhere (the kernel's default hard stack is unlimited)
        # gets the high end, 32768, as the package writes.
        { domain = "= oracle_user"; type = "hard"; item = "stack"; value = "10240..32768"; bound = "range"; },
        # preinstall: "setting for memlock hard limit is maximum of 128GB on
        # x86_64 or 3GB on x86 OR 90 % of RAM" (KB): the fixed value
        # here;
        # rules/10-hugepages.rules raises it when the HugePages need more,
        # and to 90 % of RAM with HugePages (hugepages_memlock_ram_percent).
        { domain = "= oracle_user"; type = "hard"; item = "memlock"; value = 134217728; at_least = true; },
        # preinstall: memlock soft limit is maximum of 128GB on x86_64 or
        # 3GB on x86 OR 90% of RAM (KB), as the hard one
        { domain = "= oracle_user"; type = "soft"; item = "memlock"; value = 134217728; at_least = true; },
        # preinstall: "setting for data soft limit is 'unlimited'" (the 19c
        # and 23ai packages' file as reproduced in public install notes; the
        # RPMs themselves not inspected, nor which 19c version added it)
        { domain = "= oracle_user"; type = "soft"; item = "data"; value = "unlimited"; at_least = true; },
        # preinstall: "setting for data hard limit is 'unlimited'"
        { domain = "= oracle_user"; type = "hard"; item = "data"; value = "unlimited"; at_least = true; }
);

# Disk I/O scheduler per device class: Oracle Grid Infrastructure
# Installation and Upgrade Guide 19c for Linux, "Verifying the Disk I/O
# Scheduler on Linux 8 and Later Systems"
# (https://docs.oracle.com/en/database/oracle/oracle-database/19/cwlin/setting-the-disk-io-scheduler-on-linux-8.html):
# "In general, Oracle recommends that you set the I/O Scheduler to
# mq-deadline for rotating storage devices (HDDs) and to none for
# non-rotating storage devices such as SSDs and NVMe". Its page for Linux
# 7 says deadline and none; hosttune takes deadline for mq-deadline (and
# noop for none) where a device offers only the other name. Optional: a
# kernel without the scheduler, or a device without a choice (a VM's
# "none"), is skipped, as the guide says not to change the scheduler
# "on such environments". Written as a udev rule, as the guide does
# (/etc/udev/rules.d/60-oracle-schedulers.rules there).
block = {
        # Oracle: "mq-deadline for rotating storage devices (HDDs)"
        rotational = { queue = { scheduler = { value = "mq-deadline"; optional = true; }; }; };
        # Oracle: "none for non-rotating storage devices such as SSDs and NVMe"
        non-rotational = { queue = { scheduler = { value = "none"; optional = true; }; }; };
};

# tuned's oracle profile (profiles/oracle/tuned.conf) has
# "include=throughput-performance", whose [cpu] section
# (profiles/throughput-performance/tuned.conf, redhat-performance/tuned at
# 2bfa4423) reads "governor=performance", "energy_perf_bias=performance",
# "min_perf_pct=100" and "energy_performance_preference=performance". Only
# the governor is taken. Under intel_pstate in active mode the performance
# governor holds the energy-performance preference at performance itself
# (kernel Documentation/admin-guide/pm/intel_pstate.rst: attempts to change
# "the EPP/EPB to a value different from 0 ("performance") via sysfs in
# this configuration will be rejected"); energy_perf_bias matters on CPUs
# without hardware P-states, and min_perf_pct=100 keeps every CPU at its
# highest P-state even when idle: both are the administrator's to add (a
# cpu section in a profile that inherits this one). Optional: most virtual
# machines have no cpufreq, and a host whose driver lacks the performance
# governor skips it (hosttune.profile(5), cpu).
cpu = {
        # tuned throughput-performance (included by tuned's oracle profile): governor=performance
        governor = { value = "performance"; optional = true; };
};

# systemd-logind: "RemoveIPC= Controls whether System V and POSIX IPC
# objects belonging to the user shall be removed when the user fully logs
# out. ... Defaults to "yes"." (logind.conf(5), systemd 252; system users
# are excluded, the oracle user is not one). With yes, the SGA's shared
# memory and the instance's semaphores go when the last session of the
# user who started it ends, and the instance crashes (ORA-27157,
# ORA-27300). Oracle Linux 7 Update 2 Release Notes, "Database
# Installation and Operation Fails if RemoveIPC=yes Is Configured for
# systemd": "To avoid database crashes, set RemoveIPC=no in
# /etc/systemd/logind.conf" (Bug ID 22224874); My Oracle Support Doc ID
# 2081410.1, "ALERT: Setting RemoveIPC=yes on Redhat 7.2 Crashes ASM and
# Database Instances as Well as Any Application That Uses a Shared Memory
# Segment (SHM) or Semaphores (SEM)". RHEL 8 and 9 build logind with
# RemoveIPC=no (logind.conf shows "#RemoveIPC=no": systemd-rhel8's
# src/login/logind.conf.in; bugs 1523233, 1959836), so a plan there changes
# nothing; Debian keeps systemd's yes and gets the drop-in. The Database
# Installation Guide 19c: no section of its own on it was found. Optional: a
# host without systemd-logind (RHEL 5, a container without systemd) has no
# sessions whose end could remove the IPC.
systemd = {
        logind = {
                # Oracle: "set RemoveIPC=no" (Bug ID 22224874, above)
                RemoveIPC = { value = "no"; optional = true; };
        };
};
