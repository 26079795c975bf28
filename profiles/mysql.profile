# mysql: MySQL and MariaDB servers.
#
# Large pages are opt-in: --set innodb_buffer_pool_size=SIZE sizes
# HugePages for the buffer pool, sets vm.hugetlb_shm_group to the mysql
# group and LimitMEMLOCK for the unit, as the MySQL Reference Manual,
# "Enabling Large Page Support", describes
# (https://dev.mysql.com/doc/refman/8.0/en/large-page-support.html);
# mysqld also needs large_pages=ON in my.cnf.

summary = "MySQL/MariaDB: swappiness, THP off, open files for the service, dirty ratios, optional large pages";
inherit = "base";

params = {
        # The user and group mysqld runs as: MySQL Reference Manual, "Installing
        # MySQL on Unix/Linux Using Generic Binaries" (groupadd mysql; useradd -r
        # -g mysql -s /bin/false mysql).
        mysql_user = "mysql";
        # groupadd mysql, as above (vm.hugetlb_shm_group gets its gid).
        mysql_group = "mysql";
        # The unit that runs mysqld: mysqld.service is MySQL's and RHEL's
        # mysql-server unit, and an alias of mariadb.service on Debian
        # (links in /lib/systemd/system) and RHEL (Alias= in [Install]);
        # hosttune resolves it to the real unit and writes the drop-in there.
        mysql_unit = "mysqld.service";
        # Bytes of buffer pool to put in HugePages (0: no large pages).
        innodb_buffer_pool_size = 0;
        # LimitNOFILE for the server: mysqld derives open_files_limit from it
        # (MySQL Reference Manual, "Managing MySQL Server with systemd",
        # https://dev.mysql.com/doc/refman/8.0/en/using-systemd.html).
        open_files_limit = 65535;
        # Start background write-back earlier than the kernel's 10/20 % so
        # InnoDB's flushing is not stalled by huge bursts (Percona, "Tuning
        # Linux for Your Database"; kernel Documentation/admin-guide/sysctl/vm.rst).
        dirty_ratio = 15;
        # Background write-back from 5 % of memory (kernel default 10 %), below
        # dirty_ratio: hosttune's choice with the Percona article above, whose
        # exact figure for this knob could not be re-checked here.
        dirty_background_ratio = 5;

        hugepages_bytes = "= innodb_buffer_pool_size";
        hugepages_owner = "= mysql_user";
        hugepages_group = "= mysql_group";
        hugepages_unit = "= mysql_unit";
        # THP off for databases (MySQL/Percona and MongoDB guidance: THP
        # stalls and memory bloat with database allocation patterns).
        thp = "never";
        # hugetext mode 1 (binaries and libraries) where the kernel has it.
        workload = "db";
};

sysctl = {
        vm = {
                dirty_ratio = "= dirty_ratio";
                dirty_background_ratio = "= dirty_background_ratio";
        };
};

# limits.conf does not reach services: a unit drop-in does. A host has
# one of these (on Debian both names are one unit, which gets one drop-in);
# optional, so the other name is skipped with a warning. Limits are
# minimums: a unit that already allows more keeps its value.
services = {
        mysqld = { LimitNOFILE = { value = "= open_files_limit"; optional = true; }; };
        mariadb = { LimitNOFILE = { value = "= open_files_limit"; optional = true; }; };
};
