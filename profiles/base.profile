# base: what every database or JVM host profile builds on. The knowledge
# that depends on the host (HugePages, THP, hugetext, swappiness on old
# kernels) lives in the rules; their parameters are listed by
# `hosttune show PROFILE`.

summary = "Common safe defaults for database and JVM hosts";

sysctl = {
        vm = {
                # 1: swap only when the alternative is the OOM killer. The
                # kernel: "At 0, the kernel will not initiate swap until
                # the amount of free and file-backed pages is less than
                # the high watermark in a zone" (Documentation/admin-guide/
                # sysctl/vm.rst, "swappiness"), so 0 trades swap for the
                # OOM killer and 1 is the lowest value that still swaps.
                # The workloads' vendors that give a number give 1
                # (MariaDB, "Configuring Swappiness"; Elastic, "Disable
                # swapping"); mysql and jvm set it again with their own
                # source. Red Hat recommends 10 for Oracle (RHEL 6
                # Performance Tuning Guide, 5.5 "Tuning Virtual Memory"),
                # which is the oracle profile's to say, not this one's.
                # Kept on kernels before 3.5 too, where 0 and 1 alike only
                # make swapping rare (rules/60-swappiness.rules says why).
                # Exact on purpose: neither a minimum nor a maximum (0
                # invites the OOM killer, higher values swap more).
                swappiness = { value = 1; bound = "exact"; };
        };
};
