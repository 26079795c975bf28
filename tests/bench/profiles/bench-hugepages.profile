# bench-hugepages: only HugePages for a SysV segment of sga_max_size bytes,
# sized by rules/10-hugepages.rules exactly as the oracle profile sizes them
# (ceil(sga_max_size / Hugepagesize) + hugepage_slack), and nothing else, so
# that tests/bench/run.sh can measure the tuning's effect on a real host
# and roll it back.
summary = "Benchmark: vm.nr_hugepages for sga_max_size, nothing else";

params = {
        # SGA_MAX_SIZE in bytes (4G, 512M...).
        sga_max_size = 0;
        hugepages_bytes = "= sga_max_size";
};
