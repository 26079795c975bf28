# jvm: hosts running large JVMs (application servers, Elasticsearch,
# Kafka...).
#
# HugePages for -XX:+UseLargePages are sized from the running JVMs' own
# options (heap, code cache and the collector's structures on large
# pages, G1's marking bitmaps and card tables: facts.workload.jvm); --set heap_size=SIZE
# sizes them instead. HotSpot maps them with mmap(MAP_HUGETLB), which
# needs no vm.hugetlb_shm_group and no memlock limit; only a JVM with
# -XX:+UseSHM takes SysV segments, and then its user gets both ("Java
# Support for Large Memory Pages",
# https://www.oracle.com/java/technologies/javase/largememory-pages.html;
# rules/10-hugepages.rules).

summary = "JVM hosts: THP madvise, hugetext for JIT code, map count, file and thread limits, optional large pages";
inherit = "base";

params = {
        # The JVM's user: the owner of the running JVMs when they have one
        # (facts.workload.jvm.user, from /proc/PID/status and /etc/passwd);
        # else "java", hosttune's placeholder: set the service's own
        # (--set jvm_user=elasticsearch).
        jvm_user = "= if(defined(facts.workload.jvm.user), facts.workload.jvm.user, \"java\")";
        # Its group (vm.hugetlb_shm_group gets its gid): that owner's primary
        # group (facts.workload.jvm.group), else the same placeholder.
        jvm_group = "= if(defined(facts.workload.jvm.group), facts.workload.jvm.group, \"java\")";
        # Bytes to put in HugePages (0: none); default: what the running JVMs
        # whose options map HugePages (format-jvm.h, ht_jvm_large_pages_kind)
        # need, heap plus code cache plus what the collector maps on large
        # pages (facts-jvm.c cites HotSpot's source).
        heap_size = "= facts.workload.jvm.large_pages_bytes";
        # Elastic, "Increase the file descriptor limit": "Make sure to
        # increase the limit on the number of open files descriptors for
        # the user running Elasticsearch to 65,535 or higher"
        # (https://www.elastic.co/docs/deploy-manage/deploy/self-managed/file-descriptors).
        # A minimum ("or higher"): in limits.d and in the unit's drop-in a
        # larger value the host gives is kept (at_least below; the unit's
        # LimitNOFILE through rules/70-unit-limits.rules, also at least).
        nofile = 65535;
        # Elastic, "Increase the maximum number of threads": "Make sure
        # that the number of threads that the Elasticsearch user can create
        # is at least 4096"
        # (https://www.elastic.co/docs/deploy-manage/deploy/self-managed/max-number-of-threads).
        # A minimum ("at least"), as nofile: unlimited or more is kept.
        nproc = 4096;
        # net.ipv4.tcp_retries2 for an Elasticsearch cluster; 0 leaves the
        # kernel's (15) alone. Elastic, "Decrease the TCP retransmission
        # timeout"
        # (https://www.elastic.co/docs/deploy-manage/deploy/self-managed/system-config-tcpretries):
        # "Most Linux distributions default to retransmitting any lost
        # packets 15 times", "over 900 seconds", and "You can decrease the
        # maximum number of TCP retransmissions to 5"; but "This setting
        # applies to all TCP connections and will affect the reliability
        # of communication with systems other than Elasticsearch clusters
        # too", and "for this reason, Elasticsearch doesn't adjust this
        # setting automatically". This profile is for every large JVM
        # (application servers talking to remote systems too), so it does
        # not either: --set tcp_retries2=5 on an Elasticsearch node sets it,
        # as a maximum (a host already lower keeps its value).
        tcp_retries2 = 0;
        # The systemd unit that runs the JVM ("elasticsearch.service"; ""
        # for none). A service takes its limits from the unit, not from
        # limits.conf (rules/70-unit-limits.rules cites Elastic), so with
        # a unit the same nofile and nproc also go into a drop-in for it,
        # as minimums. A unit the host does not have is an error. Default:
        # the unit the running JVMs are in (/proc/PID/cgroup), when one.
        jvm_unit = "= if(defined(facts.workload.jvm.unit), facts.workload.jvm.unit, \"\")";
        limits_unit = "= jvm_unit";
        limits_unit_nofile = "= nofile";
        limits_unit_nproc = "= nproc";

        hugepages_bytes = "= heap_size";
        hugepages_owner = "= jvm_user";
        hugepages_group = "= jvm_group";
        # SysV segments only with -XX:+UseSHM (os_linux.cpp,
        # os::reserve_memory_special(); rules/10-hugepages.rules): from
        # the running JVMs' options, else mmap(MAP_HUGETLB).
        hugepages_sysv = "= if(defined(facts.workload.jvm.large_pages_shm), facts.workload.jvm.large_pages_shm, false)";
        # and LimitMEMLOCK for the unit, when there is one
        hugepages_unit = "= jvm_unit";
        # madvise: the JVM asks for THP itself with -XX:+UseTransparentHugePages
        # (JDK documentation, "Large Pages"), nothing else gets them.
        thp = "madvise";
        # hugetext mode 2 (anonymous executable memory: JIT code) where the
        # kernel has it.
        workload = "jit";
        # Composition (issue 37; hosttune.profile(5), COMPOSITION): madvise
        # is a preference, not a need: a JVM runs with THP never (HotSpot
        # reads the kernel's THP mode, and with never turns
        # -XX:+UseTransparentHugePages off with a warning and runs on small
        # pages: src/hotspot/os/linux/hugepages.cpp, THPSupport, JDK 21),
        # so a workload that requires never (oracle) wins; so is hugetext's
        # mode 2 (a JIT runs without it).
        prefers = "thp workload";
        # Elastic's swappiness 1 asks for less swapping, as the databases'
        # sources do: the lowest of the values serves all (oracle.profile).
        lowest = "sysctl.vm.swappiness";
};

sysctl = {
        vm = {
                # Elastic, "Disable swapping", "Configure swappiness":
                # "ensure that the sysctl value vm.swappiness is set to 1.
                # This reduces the kernel's tendency to swap and should not
                # lead to swapping under normal circumstances, while still
                # allowing the whole system to swap in emergency
                # conditions" (https://www.elastic.co/docs/deploy-manage/deploy/self-managed/setup-configuration-memory;
                # its first choice is no swap at all, which is the
                # administrator's). As in base: exact, on every kernel
                # (rules/60-swappiness.rules).
                swappiness = { value = 1; bound = "exact"; };
                # Elastic, "Increase virtual memory" (Elasticsearch 8.17 and
                # current, https://www.elastic.co/docs/deploy-manage/deploy/self-managed/vm-max-map-count):
                # "If the operating system's default vm.max_map_count value is
                # 1048576 or higher, no configuration change is necessary. If
                # the default value is lower than 1048576, configure the
                # vm.max_map_count parameter to 1048576" (checked again: the
                # 8.17 page and the current one say so; older releases said
                # 262144, which stays the bootstrap check's floor, "The
                # recommended value is 1048576", 8.18 "Maximum map count
                # check"). A minimum: a host with more keeps it.
                max_map_count = { value = 1048576; bound = "at-least"; };
        };
        net = { ipv4 = {
                # Elastic: "decrease the maximum number of TCP
                # retransmissions to 5" (params, tcp_retries2): only when
                # asked for, at most that many.
                tcp_retries2 = { value = "= tcp_retries2"; bound = "at-most"; when = "tcp_retries2 > 0"; };
        }; };
};

# Elastic's "65,535 or higher" and "at least 4096" (params above) are
# minimums: a user with nofile 1048576 or nproc unlimited from another
# limits file keeps it, and hosttune's file holds no line that would
# lower it.
limits = (
        { domain = "= jvm_user"; type = "soft"; item = "nofile"; value = "= nofile"; at_least = true; },
        { domain = "= jvm_user"; type = "hard"; item = "nofile"; value = "= nofile"; at_least = true; },
        { domain = "= jvm_user"; type = "soft"; item = "nproc"; value = "= nproc"; at_least = true; },
        { domain = "= jvm_user"; type = "hard"; item = "nproc"; value = "= nproc"; at_least = true; }
);

# No cpu section: a search of the JVM's documentation and Elastic's
# "Important system configuration" found no recommendation of a CPU
# frequency governor or energy preference, and none is set without a
# source.
# No systemd section: Elastic's and the JDK's documentation set limits for
# the unit that runs the JVM (the drop-in above, rules/70-unit-limits.rules),
# none recommends a manager-wide DefaultLimitNOFILE= or logind setting, and
# a JVM's large pages are mapped memory, not SysV IPC that RemoveIPC=
# would remove (SysV shared memory only with -XX:+UseSHM).
