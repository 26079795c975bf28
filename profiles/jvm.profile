# jvm: hosts running large JVMs (application servers, Elasticsearch,
# Kafka...).
#
# --set heap_size=SIZE sizes HugePages for -XX:+UseLargePages and gives the
# JVM user the memlock limit and vm.hugetlb_shm_group it needs ("Java
# Support for Large Memory Pages",
# https://www.oracle.com/java/technologies/javase/largememory-pages.html).

summary = "JVM hosts: THP madvise, hugetext for JIT code, map count, file and thread limits, optional large pages";
inherit = "base";

params = {
        # The JVM's user and group: no source names one; "java" is hosttune's
        # placeholder. Set the service's own (--set jvm_user=elasticsearch).
        jvm_user = "java";
        # The same placeholder for its group (vm.hugetlb_shm_group gets its gid).
        jvm_group = "java";
        # Java heap in bytes to put in HugePages (0: no large pages).
        heap_size = 0;
        # Elastic, "Increase the file descriptor limit": "Make sure to
        # increase the limit on the number of open files descriptors for
        # the user running Elasticsearch to 65,535 or higher"
        # (https://www.elastic.co/docs/deploy-manage/deploy/self-managed/file-descriptors).
        nofile = 65535;
        # Elastic, "Increase the maximum number of threads": "Make sure
        # that the number of threads that the Elasticsearch user can create
        # is at least 4096"
        # (https://www.elastic.co/docs/deploy-manage/deploy/self-managed/max-number-of-threads).
        nproc = 4096;
        # The systemd unit that runs the JVM ("elasticsearch.service"; ""
        # for none). A service takes its limits from the unit, not from
        # limits.conf (rules/70-unit-limits.rules cites Elastic), so with
        # a unit the same nofile and nproc also go into a drop-in for it,
        # as minimums. A unit the host does not have is an error.
        jvm_unit = "";
        limits_unit = "= jvm_unit";
        limits_unit_nofile = "= nofile";
        limits_unit_nproc = "= nproc";

        hugepages_bytes = "= heap_size";
        hugepages_owner = "= jvm_user";
        hugepages_group = "= jvm_group";
        # and LimitMEMLOCK for the unit, when there is one
        hugepages_unit = "= jvm_unit";
        # madvise: the JVM asks for THP itself with -XX:+UseTransparentHugePages
        # (JDK documentation, "Large Pages"), nothing else gets them.
        thp = "madvise";
        # hugetext mode 2 (anonymous executable memory: JIT code) where the
        # kernel has it.
        workload = "jit";
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
                # administrator's). As in base: exact, and 10 on kernels
                # before 3.5 (rules/60-swappiness.rules).
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
};

limits = (
        { domain = "= jvm_user"; type = "soft"; item = "nofile"; value = "= nofile"; },
        { domain = "= jvm_user"; type = "hard"; item = "nofile"; value = "= nofile"; },
        { domain = "= jvm_user"; type = "soft"; item = "nproc"; value = "= nproc"; },
        { domain = "= jvm_user"; type = "hard"; item = "nproc"; value = "= nproc"; }
);
