# mysql: MySQL and MariaDB servers.
#
# Large pages are opt-in: --set innodb_buffer_pool_size=SIZE sizes
# HugePages for the buffer pool (MySQL Reference Manual, "Enabling Large
# Page Support", https://dev.mysql.com/doc/refman/8.0/en/large-page-support.html);
# mysqld also needs large_pages=ON in my.cnf. MySQL 8.0 and MariaDB 10.5
# and later map them with mmap(MAP_HUGETLB), which needs no
# vm.hugetlb_shm_group and no memlock limit, so none is set
# (rules/10-hugepages.rules quotes both sources); --set
# hugepages_sysv=true for an older server, whose shmget() segments need
# them.

summary = "MySQL/MariaDB: swappiness, THP off, open files for the service, dirty ratios, optional large pages";
inherit = "base";

params = {
        # The user and group mysqld runs as: MySQL Reference Manual, "Installing
        # MySQL on Unix/Linux Using Generic Binaries" (groupadd mysql; useradd -r
        # -g mysql -s /bin/false mysql).
        mysql_user = "= if(defined(facts.workload.mysql.config.user), facts.workload.mysql.config.user, \"mysql\")";
        # groupadd mysql, as above (vm.hugetlb_shm_group gets its gid).
        mysql_group = "mysql";
        # The unit that runs mysqld: mysqld.service is MySQL's and RHEL's
        # mysql-server unit, and an alias of mariadb.service on Debian
        # (links in /lib/systemd/system) and RHEL (Alias= in [Install]);
        # hosttune resolves it to the real unit and writes the drop-in there.
        # Default: the unit the running server is in (/proc/PID/cgroup,
        # facts.workload.mysql.unit), else mysqld.service.
        mysql_unit = "= if(defined(facts.workload.mysql.template), facts.workload.mysql.template, if(defined(facts.workload.mysql.unit), facts.workload.mysql.unit, \"mysqld.service\"))";  /* several instances: their template (rules/10-hugepages.rules, hugepages-template-memlock) */
        # Bytes to put in HugePages (0: none); default: with large_pages on in
        # the option files, the buffer pool, and on MariaDB also the key
        # cache, the Aria page cache and InnoDB's two log buffers, which take
        # large pages too (facts.workload.mysql.large_pages_bytes). --set sizes the total.
        innodb_buffer_pool_size = "= facts.workload.mysql.large_pages_bytes";
        # LimitNOFILE for the server: mysqld derives open_files_limit from it
        # (MySQL Reference Manual, "Managing MySQL Server with systemd",
        # https://dev.mysql.com/doc/refman/8.0/en/using-systemd.html, which
        # shows where to set it but gives no number). The value is
        # MariaDB's own unit's: mariadb.service "# Number of files limit.
        # previously [mysqld_safe] open-files-limit" "LimitNOFILE=32768"
        # (MariaDB 10.11, Debian 12's mariadb-server 10.11.14: its
        # /usr/lib/systemd/system/mariadb.service); MySQL's mysqld.service
        # has "# Sets open_files_limit" "LimitNOFILE = 10000" (MySQL's RPM
        # unit, scripts/systemd/mysqld.service.in), which this raises. A
        # minimum, as every unit limit: a unit allowing more keeps it. (It
        # was 65535 without a source; no vendor gives that number.)
        open_files_limit = 32768;
        # Start write-back earlier than the kernel's 20/10 % so InnoDB's
        # flushing does not meet one huge burst: "Red Hat recommends a
        # slightly lower value of 15 for database workloads"
        # (dirty_ratio) and "a slightly lower value of 3"
        # (dirty_background_ratio) (Red Hat Enterprise Linux 6
        # Performance Tuning Guide, 5.5 "Tuning Virtual Memory",
        # https://access.redhat.com/documentation/en-us/red_hat_enterprise_linux/6/html/performance_tuning_guide/s-memory-tunables;
        # what the values mean: kernel Documentation/admin-guide/sysctl/vm.rst).
        # The background ratio was 5, cited to a Percona article that
        # could not be found again; Red Hat's 3 replaces it.
        # That guide is RHEL 6's, and the later ones give no database
        # value. tuned at its head (redhat-performance/tuned 2bfa4423)
        # does not agree with it either way: throughput-performance, which
        # its database profiles include, sets "dirty_bytes = 40%" and
        # "dirty_background_bytes = 10%" (ratios 40 and 10, since commit
        # d5aea87, 2014, "altered dirty ratios for better performance"),
        # more dirty memory for throughput, and its oracle profile keeps
        # that 40 with a background 3 %; its postgresql profile goes the
        # other way, "dirty_background_bytes = 67108864" and "dirty_bytes =
        # 536870912", "about size of RAID controller write-back cache", to
        # keep checkpoint bursts small. No MySQL or MariaDB source gives
        # one. hosttune keeps Red Hat's database values, the early
        # write-back that the postgresql profile also aims at, as ratios
        # (which scale with the host); --set dirty_ratio=40 gives tuned's.
        dirty_ratio = 15;
        # Red Hat's 3 for database workloads (the guide quoted above).
        dirty_background_ratio = 3;

        hugepages_bytes = "= innodb_buffer_pool_size";
        # mmap(MAP_HUGETLB), not SysV segments: MySQL 8.0's InnoDB
        # (large_page_alloc-linux.h) and MariaDB 10.5+ (my_largepage.c),
        # quoted in rules/10-hugepages.rules. true for MySQL 5.7 or
        # MariaDB 10.4 and older (shmget with SHM_HUGETLB).
        hugepages_sysv = false;
        hugepages_owner = "= mysql_user";
        hugepages_group = "= mysql_group";
        hugepages_unit = "= mysql_unit";
        # THP never. MariaDB: "The effect of using THP are that MariaDB
        # will use much more (10x) more memory and will no be able to
        # release memory back to the system" (MariaDB server commit
        # c777429cf9, MDEV-33279 "Disable transparent huge pages after
        # page buffers has been allocated"); since 10.6.17 (and
        # the releases after 19 January 2024) mariadbd turns THP off for
        # itself once its buffers are allocated (MariaDB documentation,
        # "MariaDB Memory Allocation", section "Huge Pages"). No such
        # self-protection was found for MySQL or Percona Server; no THP
        # guidance was found in the MySQL Reference Manual, only HugeTLB
        # large pages ("Enabling Large Page Support", which the
        # large-page rules follow); Percona's TokuDB refused to start with
        # THP enabled (its startup error: "TokuDB will not run with
        # transparent huge pages enabled"; TokuDB is unsupported since
        # Percona Server 8.0.28-19, Percona's "TokuDB installation"). So
        # the system-wide switch stays the protection for MySQL: never,
        # as tuned's postgresql and oracle profiles also set it.
        # (This used to cite MongoDB's "Disable Transparent Huge Pages";
        # MongoDB 8.0 asks for THP enabled instead, with its new TCMalloc,
        # "TCMalloc Performance Optimization for a Self-Managed
        # Deployment", so that citation no longer supports this value.)
        thp = "never";
        # hugetext mode 1 (binaries and libraries) where the kernel has it.
        workload = "db";
        # Composition (issue 37; hosttune.profile(5), COMPOSITION): THP
        # never is required for MySQL, whose server has no protection of
        # its own (see thp above; MariaDB's own words: THP makes it "use
        # much more (10x) more memory"); a JVM's madvise gives way.
        requires = "thp";
        # MariaDB's swappiness 1 ("Configuring Swappiness"): the lowest of
        # the workloads' values serves all (oracle.profile says why).
        lowest = "sysctl.vm.swappiness";
};

sysctl = {
        vm = {
                # MariaDB: "A low swappiness setting is recommended for
                # database workloads. For MariaDB databases, it is
                # recommended to set swappiness to a value of 1" (MariaDB
                # documentation, "Configuring Swappiness",
                # https://mariadb.com/docs/server/server-management/install-and-upgrade-mariadb/configuring-mariadb/mariadb-performance-advanced-configurations/configuring-swappiness).
                # No value was found in the MySQL Reference Manual. As in base:
                # exact, on every kernel (rules/60-swappiness.rules).
                swappiness = { value = 1; bound = "exact"; };
                dirty_ratio = "= dirty_ratio";
                dirty_background_ratio = "= dirty_background_ratio";
        };
};

# limits.conf does not reach services: a unit drop-in does. A host has
# one of these (on Debian both names are one unit, which gets one drop-in);
# optional, so the other name is listed as skipped, not warned about.
# Limits are minimums: a unit that already allows more keeps its value.
services = {
        mysqld = { LimitNOFILE = { value = "= open_files_limit"; optional = true; }; };
        mariadb = { LimitNOFILE = { value = "= open_files_limit"; optional = true; }; };
};

# MySQL Reference Manual 8.4, 10.5.8 "Optimizing InnoDB Disk I/O"
# (https://dev.mysql.com/doc/refman/8.4/en/optimizing-innodb-diskio.html):
# "Use a noop or deadline I/O scheduler with native AIO on Linux ... With
# native AIO, the type of I/O scheduler has greater influence on I/O
# performance. Conduct benchmarks to determine which I/O scheduler
# provides the best results for your workload and environment." On blk-mq
# kernels noop is "none" and deadline "mq-deadline" (hosttune takes
# either name). The manual does not say which for which disks: deadline
# for rotating disks, whose seeks it orders, noop for SSD and NVMe, which
# have none to order, is hosttune's reading. Optional: a device without
# the scheduler is skipped.
block = {
        # MySQL: "a noop or deadline I/O scheduler": deadline for rotating disks
        rotational = { queue = { scheduler = { value = "mq-deadline"; optional = true; }; }; };
        # MySQL: "a noop or deadline I/O scheduler": noop (none) for SSD and NVMe
        non-rotational = { queue = { scheduler = { value = "none"; optional = true; }; }; };
};
# No cpu section: a search of the MySQL Reference Manual and MariaDB's
# documentation found no recommendation of a CPU frequency governor or
# energy preference, and none is set without a source (the oracle
# profile's comes from tuned's oracle profile).
# No systemd section: the MySQL and MariaDB manuals set the server's limits
# in its own unit (LimitNOFILE= above, "Managing MySQL Server with
# systemd"), not a manager-wide DefaultLimitNOFILE=. With large_pages the
# buffer pool is SysV shared memory, but of the mysql system user, whose
# IPC logind's RemoveIPC= leaves alone ("IPC objects of the root user and
# other system users are excluded", logind.conf(5)).
