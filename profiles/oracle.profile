# oracle: Oracle Database on Linux.
#
# Kernel parameters and oracle user limits: the values of Oracle's
# oracle-database-preinstall-19c package (also 21c/23ai), as written in the
# sysctl.conf and /etc/security/limits.d/oracle-database-preinstall-19c.conf
# it installs, each with the comment "oracle-database-preinstall-19c setting
# for ... is ..."; Oracle Database Installation Guide for Linux, "Minimum
# Parameter Settings for Installation"
# (https://docs.oracle.com/en/database/oracle/oracle-database/19/ladbi/minimum-parameter-settings-for-installation.html).
#
# That table's values are "minimum values only" and "if the current value
# for any parameter is greater than the value listed in this table, then
# the Fixup scripts do not change the value of that parameter": each one
# is a bound here (at-least; the port range a range that only widens), so
# a host above it keeps its value (hosttune.profile(5), BOUNDS). Values the
# table does not list as minimums (panic_on_oops, rp_filter) are exact.
#
# HugePages for the SGA (rules/10-hugepages.rules), THP never
# (rules/40-thp.rules; madvise on UEK7+), swappiness per rule.
#   hosttune apply oracle --set sga_max_size=18G

summary = "Oracle Database: preinstall kernel parameters and limits, HugePages for the SGA, THP off";
inherit = "base";

params = {
        # SGA_MAX_SIZE in bytes (18G, 512M...): sizes vm.nr_hugepages. 0: no HugePages.
        sga_max_size = 0;
        # Pages on top of ceil(SGA / Hugepagesize).
        hugepage_slack = 2;
        # The Oracle software owner: Oracle Database Installation Guide 19c for
        # Linux, "About the Oracle Database Preinstallation RPM": the RPM "creates
        # an oracle user, and creates the oraInventory (oinstall) and OSDBA (dba)
        # groups for that user".
        oracle_user = "oracle";
        # The OSDBA group: vm.hugetlb_shm_group gets its gid.
        oracle_group = "dba";
        # MEMORY_TARGET in bytes: AMM cannot use HugePages (rules/20-memory.rules).
        memory_target = 0;

        hugepages_bytes = "= sga_max_size";
        hugepages_owner = "= oracle_user";
        hugepages_group = "= oracle_group";
        # Oracle Database Installation Guide for Linux, "Disabling Transparent
        # HugePages"; My Oracle Support Doc ID 1557478.1.
        thp = "never";
        # madvise instead of never on UEK7 (5.15) and later, as the Oracle
        # Database 23ai Installation Guide for Linux section cited in
        # rules/40-thp.rules says.
        thp_uek7_madvise = true;
};

sysctl = {
        fs = {
                # preinstall: fs.file-max is 6815744; the guide's table: 6815744 (minimum)
                file-max = { value = 6815744; bound = "at-least"; };
                # preinstall: fs.aio-max-nr is 1048576; the guide's table: 1048576 (minimum)
                aio-max-nr = { value = 1048576; bound = "at-least"; };
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
                        # preinstall: net.ipv4.ip_local_port_range is 9000 65500; the guide's
                        # table: "Minimum: 9000 Maximum: 65500": a range that may only widen
                        # (low end at most 9000, high end at least 65500)
                        ip_local_port_range = { value = "9000 65500"; bound = "range"; };
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

# /etc/security/limits.d/oracle-database-preinstall-19c.conf
limits = (
        # preinstall: nofile soft limit is 1024
        { domain = "= oracle_user"; type = "soft"; item = "nofile"; value = 1024; },
        # preinstall: nofile hard limit is 65536
        { domain = "= oracle_user"; type = "hard"; item = "nofile"; value = 65536; },
        # preinstall: nproc soft limit is 16384 (Orabug 15971421)
        { domain = "= oracle_user"; type = "soft"; item = "nproc"; value = 16384; },
        # preinstall: nproc hard limit is 16384
        { domain = "= oracle_user"; type = "hard"; item = "nproc"; value = 16384; },
        # preinstall: stack soft limit is 10240KB
        { domain = "= oracle_user"; type = "soft"; item = "stack"; value = 10240; },
        # preinstall: stack hard limit is 32768KB
        { domain = "= oracle_user"; type = "hard"; item = "stack"; value = 32768; },
        # preinstall: memlock hard limit is maximum of 128GB on x86_64 (KB);
        # rules/10-hugepages.rules raises it when the HugePages need more.
        { domain = "= oracle_user"; type = "hard"; item = "memlock"; value = 134217728; },
        # preinstall: memlock soft limit is maximum of 128GB on x86_64 (KB)
        { domain = "= oracle_user"; type = "soft"; item = "memlock"; value = 134217728; }
);
