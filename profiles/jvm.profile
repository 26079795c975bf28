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
        # Elasticsearch Reference, "File descriptors": at least 65535.
        nofile = 65535;
        # Elasticsearch Reference, "Number of threads": at least 4096.
        nproc = 4096;

        hugepages_bytes = "= heap_size";
        hugepages_owner = "= jvm_user";
        hugepages_group = "= jvm_group";
        # madvise: the JVM asks for THP itself with -XX:+UseTransparentHugePages
        # (JDK documentation, "Large Pages"), nothing else gets them.
        thp = "madvise";
        # hugetext mode 2 (anonymous executable memory: JIT code) where the
        # kernel has it.
        workload = "jit";
};

sysctl = {
        vm = {
                # Elastic, "Increase virtual memory" (Elasticsearch 8.17 and
                # current, https://www.elastic.co/docs/deploy-manage/deploy/self-managed/vm-max-map-count):
                # "If the operating system's default vm.max_map_count value is
                # 1048576 or higher, no configuration change is necessary";
                # below that, 1048576 (minimum; older releases said 262144).
                max_map_count = { value = 1048576; bound = "at-least"; };
        };
};

limits = (
        { domain = "= jvm_user"; type = "soft"; item = "nofile"; value = "= nofile"; },
        { domain = "= jvm_user"; type = "hard"; item = "nofile"; value = "= nofile"; },
        { domain = "= jvm_user"; type = "soft"; item = "nproc"; value = "= nproc"; },
        { domain = "= jvm_user"; type = "hard"; item = "nproc"; value = "= nproc"; }
);
