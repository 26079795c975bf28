#!/bin/sh
# The oracle profile's release differences, NUMA balancing, the HugePages
# cap, AMM and the hugetlb_shm_group group by kernel version, and its
# limits as minimums, planned on fixture copies. The expected values are
# those of the sources the profile cites: Oracle's 19c and 23ai tables and
# preinstall packages (23ai: kernel.panic 10, ports up to 65535), tuned's
# oracle profile (kernel.numa_balancing = 0), Oracle's "Configuring
# HugePages on Linux" (at most 70 % of memory, the gid of oinstall), and
# fs/hugetlbfs/inode.c (the memlock fallback is gone from 5.16 on).
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (scripts/deps.sh installs it)"
export HOSTTUNE_INSECURE_PROFILES=1

setv() { printf '%s\n' "$3" >"$1/proc/sys/$(printf '%s' "$2" | tr . /)"; }
# change FILE BACKEND KEY FIELD: a field of the plan's change ("" when none)
change() {
        jq -r --arg b "$2" --arg k "$3" \
                "[.changes[] | select(.backend == \$b and .key == \$k)][0].$4 // \"\"" "$1"
}
# dropin FILE PATH: the planned content of PATH (the file's "after")
dropin() { jq -r --arg p "$2" '.files[] | select(.path == $p) | .after' "$1"; }
errors() { jq -r '.errors[]' "$1"; }
warnings() { jq -r '.warnings[]' "$1"; }
SYSCTL_D=/etc/sysctl.d/90-hosttune.conf
LIMITS_D=/etc/security/limits.d/90-hosttune.conf

# --- oracle_release: 19c, 21c and 23ai ------------------------------------------
d=$(prepare_host debian12-kvm); scratch "$d"
for rel in 19c 21c 23ai; do
        htrun 2 "plan oracle, oracle_release=$rel" "$d" --json plan oracle --set oracle_release=$rel
        cp "$tmp/out" "$tmp/$rel.json"
done
htrun 2 "plan oracle, default release" "$d" --json plan oracle
check "the default release is 19c: the same plan" "$(jq -S .changes "$tmp/19c.json")" "$(jq -S .changes "$tmp/out")"
check "21c: the same settings as 19c (its package writes 19c's lines)" \
        "$(jq -S .changes "$tmp/19c.json")" "$(jq -S .changes "$tmp/21c.json")"
# the fixture's 32768 60999: its low end is already at least 9000 and
# stays, its high end is raised to the release's (issue 33: each end a
# minimum)
check "19c: port range up to 65500 (19c table)" "32768 65500" \
        "$(change "$tmp/19c.json" sysctl net.ipv4.ip_local_port_range desired)"
check "23ai: port range up to 65535 (23ai table, preinstall-23ai)" "32768 65535" \
        "$(change "$tmp/23ai.json" sysctl net.ipv4.ip_local_port_range desired)"
check "23ai: the port range's ends are minimums" "at-least" \
        "$(change "$tmp/23ai.json" sysctl net.ipv4.ip_local_port_range bound)"
check "19c: no kernel.panic" "" "$(change "$tmp/19c.json" sysctl kernel.panic desired)"
check "21c: no kernel.panic" "" "$(change "$tmp/21c.json" sysctl kernel.panic desired)"
check "23ai: kernel.panic 0 -> 10 (23ai table: 10 seconds)" "0 10" \
        "$(change "$tmp/23ai.json" sysctl kernel.panic current) $(change "$tmp/23ai.json" sysctl kernel.panic desired)"
check "23ai: kernel.panic is a minimum" "at-least" "$(change "$tmp/23ai.json" sysctl kernel.panic bound)"
dropin "$tmp/23ai.json" $SYSCTL_D >"$tmp/dropin"
check_contains "23ai: drop-in persists kernel.panic" "kernel.panic = 10" "$tmp/dropin"
check_contains "23ai: drop-in persists the wider port range" "net.ipv4.ip_local_port_range = 32768 65535" "$tmp/dropin"
dropin "$tmp/19c.json" $SYSCTL_D >"$tmp/dropin"
if grep -q '^kernel.panic ' "$tmp/dropin"; then not_ok "19c: drop-in has no kernel.panic"; else ok "19c: drop-in has no kernel.panic"; fi
# a host that reboots 30 s after a panic (for kdump) keeps it
setv "$d" kernel.panic 30
ht "$d" --json plan oracle --set oracle_release=23ai
check "23ai: kernel.panic 30 kept, not lowered" "kept 30" \
        "$(change "$tmp/out" sysctl kernel.panic outcome) $(change "$tmp/out" sysctl kernel.panic desired)"
setv "$d" kernel.panic 0
for bad in 23AI 18c 19; do
        htrun 1 "oracle_release=$bad is refused" "$d" --json plan oracle --set oracle_release="$bad"
        check "oracle_release=$bad: the only error, naming the valid values" \
                "oracle_release must be \"19c\", \"21c\" or \"23ai\", not \"$bad\"." \
                "$(errors "$tmp/out" | sed 's/ Fix:.*//')"
done

# --- kernel.numa_balancing = 0 on NUMA hosts (tuned's oracle profile) ------------
o=$(prepare_host ol8-bls); scratch "$o"
htrun 2 "ol8-bls (2 NUMA nodes): plan oracle" "$o" --json plan oracle
check "2 nodes: kernel.numa_balancing 1 -> 0" "1 0" \
        "$(change "$tmp/out" sysctl kernel.numa_balancing current) $(change "$tmp/out" sysctl kernel.numa_balancing desired)"
check "2 nodes: exact, a switch" "exact" "$(change "$tmp/out" sysctl kernel.numa_balancing bound)"
dropin "$tmp/out" $SYSCTL_D >"$tmp/dropin"
check_contains "2 nodes: persisted" "kernel.numa_balancing = 0" "$tmp/dropin"
htrun 2 "ol8-bls: plan oracle --set numa_balancing_off=false" "$o" --json plan oracle --set numa_balancing_off=false
check "numa_balancing_off=false: nothing set" "" "$(change "$tmp/out" sysctl kernel.numa_balancing desired)"
htrun 2 "ol8-bls: plan base" "$o" --json plan base
check "base: no NUMA setting" "" "$(change "$tmp/out" sysctl kernel.numa_balancing desired)"
rm -rf "$o/sys/devices/system/node/node1"
htrun 2 "ol8-bls with one node left: plan oracle" "$o" --json plan oracle
check "1 node: nothing to turn off" "" "$(change "$tmp/out" sysctl kernel.numa_balancing desired)"
htrun 2 "debian12-kvm (1 node): plan oracle" "$d" --json plan oracle
check "debian12-kvm: no NUMA setting" "" "$(change "$tmp/out" sysctl kernel.numa_balancing desired)"

# --- HugePages: at most 70 % of memory for Oracle, 90 % for others ----------------
# ol8-bls: MemTotal 65248412 kB, 70 % = 45673888 kB. 43G of SGA is 22018
# pages of 2 MB (45092864 kB), 44G is 22530 (46141440 kB).
o=$(prepare_host ol8-bls); scratch "$o"
htrun 2 "ol8-bls: sga_max_size=43G fits in 70 %" "$o" --json plan oracle --set sga_max_size=43G
check "43G: 22018 pages" "22018" "$(change "$tmp/out" sysctl vm.nr_hugepages desired)"
htrun 1 "ol8-bls: sga_max_size=44G does not" "$o" --json plan oracle --set sga_max_size=44G
check "44G: the error says 70 % and how much that is" \
        "the plan needs 44.0 GB of HugePages (22530 pages of 2048 KB), the host has 62.23 GB of memory and HugePages may take at most 70% of it (43.56 GB)." \
        "$(errors "$tmp/out" | grep 'HugePages may take' | sed 's/ Fix:.*//')"
# The apply is refused: nothing changed, so nothing waits for a reboot,
# although the plan's command line change would need one (a script that
# reboots on apply's reboot_required, as the mysql cloud-init example's
# readers may, must leave this host alone).
htrun 1 "ol8-bls: apply with sga_max_size=44G is refused" "$o" --json apply oracle --set sga_max_size=44G
check "refused apply: changed false" false "$(jq -c .changed "$tmp/out")"
check "refused apply: no transaction" null "$(jq -c .txid "$tmp/out")"
check "refused apply: a planned change needs a reboot" true "$(jq -c '[.changes[] | select(.reboot_required)] | length > 0' "$tmp/out")"
check "refused apply: reboot_required false" false "$(jq -c .reboot_required "$tmp/out")"
htrun 2 "ol8-bls: 44G with --set hugepages_max_percent=80" "$o" --json plan oracle --set sga_max_size=44G \
        --set hugepages_max_percent=80
ht "$o" --json plan mysql --set innodb_buffer_pool_size=44G
check "mysql keeps its 90 %: 44G of buffer pool is no fit error" "" \
        "$(errors "$tmp/out" | grep 'HugePages may take' || :)"

# --- AMM: MEMORY_TARGET or MEMORY_MAX_TARGET ------------------------------------
for c in "memory_target=8G|MEMORY_TARGET=8589934592" \
        "memory_max_target=8G|MEMORY_MAX_TARGET=8589934592" \
        "memory_target=4G memory_max_target=8G|MEMORY_TARGET=4294967296, MEMORY_MAX_TARGET=8589934592"; do
        sets=""
        for s in ${c%|*}; do sets="$sets --set $s"; done
        # shellcheck disable=SC2086 # word-split on purpose
        htrun 1 "AMM with ${c%|*}" "$d" --json plan oracle --set sga_max_size=4G $sets
        check "AMM with ${c%|*}: the error names what is set" \
                "Oracle automatic memory management (${c#*|}) cannot use HugePages." \
                "$(errors "$tmp/out" | grep 'automatic memory' | sed 's/ Fix:.*//')"
done
htrun 2 "memory_max_target without HugePages is fine" "$d" --json plan oracle --set memory_max_target=8G

# --- vm.hugetlb_shm_group: the group, by kernel version -------------------------
htrun 2 "debian12-kvm: oinstall exists" "$d" --json plan oracle --set sga_max_size=4G
check "vm.hugetlb_shm_group is oinstall's gid (54321 in the fixture's /etc/group)" "54321" \
        "$(change "$tmp/out" sysctl vm.hugetlb_shm_group desired)"
htrun 2 "--set oracle_group=dba" "$d" --json plan oracle --set sga_max_size=4G --set oracle_group=dba
check "oracle_group=dba: dba's gid (54322)" "54322" "$(change "$tmp/out" sysctl vm.hugetlb_shm_group desired)"
g=$(prepare_host debian12-kvm); scratch "$g"
grep -v '^oinstall:' "$HOSTS/debian12-kvm/etc/group" >"$g/etc/group"
for c in "6.1.0-18-amd64|1" "5.16.0-1-amd64|1" "5.15.0-206.153.7.1.el8uek.x86_64|2" \
        "4.18.0-553.el8_10.x86_64|2" "2.6.32-754.el6.x86_64|2"; do
        rel=${c%|*} want=${c#*|}
        setv "$g" kernel.osrelease "$rel"
        htrun "$want" "no oinstall group, kernel $rel" "$g" --json plan oracle --set sga_max_size=4G
        check "kernel $rel: no vm.hugetlb_shm_group" "" "$(change "$tmp/out" sysctl vm.hugetlb_shm_group desired)"
        if [ "$want" = 1 ]; then
                check "kernel $rel: an error, the memlock limit is no longer enough" "1" \
                        "$(errors "$tmp/out" | grep -c "group 'oinstall' is not in /etc/group.*kernel $rel (5.16 or later).*a memlock limit is no longer enough")"
                check "kernel $rel: the fix names the group and --set oracle_group" "1" \
                        "$(errors "$tmp/out" | grep -c 'groupadd oinstall; usermod -aG oinstall oracle.*--set oracle_group=EXISTING')"
        else
                check "kernel $rel: a warning, the deprecated fallback still works" "1" \
                        "$(warnings "$tmp/out" | grep -c "group 'oinstall' is not in /etc/group.*kernel $rel (before 5.16).*memlock limit covers them.*deprecated since Linux 2.6.30")"
                check "kernel $rel: no group error" "0" "$(errors "$tmp/out" | grep -c "group 'oinstall'")"
        fi
done
htrun 2 "no oinstall group, 6.1: --set oracle_group=dba" "$g" --json plan oracle --set sga_max_size=4G --set oracle_group=dba
check "oracle_group=dba on 6.1: dba's gid" "54322" "$(change "$tmp/out" sysctl vm.hugetlb_shm_group desired)"
# mysql does not require the group (hugepages_group_required). MySQL 8.0
# and MariaDB 10.5+ map large pages with mmap(MAP_HUGETLB), which needs no
# group (issue 33): no warning and no memlock limit; an older server
# (--set hugepages_sysv=true: shmget) gets the warning on 6.1, not an error
setv "$g" kernel.osrelease 6.1.0-18-amd64
ht "$g" --json plan mysql --set innodb_buffer_pool_size=4G
check "mysql on 6.1 (mmap): no group warning, no error, no memlock" "0 0 0" \
        "$(warnings "$tmp/out" | grep -c "group 'mysql'") $(errors "$tmp/out" | grep -c "group 'mysql'") $(jq '[.changes[] | select(.key | test("memlock|LimitMEMLOCK"))] | length' "$tmp/out")"
ht "$g" --json plan mysql --set innodb_buffer_pool_size=4G --set hugepages_sysv=true
check "mysql on 6.1 (SysV): a warning, not an error" "1 0" \
        "$(warnings "$tmp/out" | grep -c "group 'mysql' is not in /etc/group.*lets only members of that group") $(errors "$tmp/out" | grep -c "group 'mysql'")"
# an image: no running kernel to ask, so the group is required
i=$tmp/image
mkdir -p "$i"
(cd "$g" && tar cf - --exclude=./proc --exclude=./sys .) | (cd "$i" && tar xf -)
ht "$i" --json plan oracle --set sga_max_size=4G
check "offline image without the group: exit 1" "1" "$rc"
check "offline image: the group error says the target kernel is unknown" "1" \
        "$(errors "$tmp/out" | grep -c "group 'oinstall'.*the target kernel is unknown (offline image)")"

# --- limits: minimums, a larger host value is kept ------------------------------
dropin "$tmp/19c.json" $LIMITS_D >"$tmp/limits"
check_contains "data soft unlimited (preinstall)" "oracle     soft    data     unlimited" "$tmp/limits"
check_contains "data hard unlimited (preinstall)" "oracle     hard    data     unlimited" "$tmp/limits"
r=$(prepare_host oracle-running); scratch "$r"
# an administrator raised two of the preinstall file's limits; pam_limits
# reads limits.conf first and limits.d in name order, a later line for
# the same user winning, so limits.conf's 512 never applies
printf 'oracle soft nofile 512\n' >>"$r/etc/security/limits.conf"
sed -i -e 's/^oracle   hard   stack    32768/oracle   hard   stack    unlimited/' \
        -e 's/^oracle   hard   nofile    65536/oracle   hard   nofile    131072/' \
        "$r/etc/security/limits.d/oracle-database-preinstall-19c.conf"
htrun 2 "oracle-running with larger limits: plan oracle" "$r" --json plan oracle
check "hard nofile 131072 (the preinstall file) kept" "kept 131072 65536" \
        "$(change "$tmp/out" limits 'oracle hard nofile' outcome) $(change "$tmp/out" limits 'oracle hard nofile' current) $(change "$tmp/out" limits 'oracle hard nofile' bound_value)"
# the hard stack has a maximum too (Oracle's Table 5-1: "at least 10240 KB,
# and at most 32768 KB"; issue 33): unlimited is above it and is lowered
# to the range's high end, shown as the range
check "hard stack unlimited (the preinstall file): lowered to 32768, within 10240..32768" \
        "change 32768 range 10240..32768" \
        "$(change "$tmp/out" limits 'oracle hard stack' outcome) $(change "$tmp/out" limits 'oracle hard stack' desired) $(change "$tmp/out" limits 'oracle hard stack' bound) $(change "$tmp/out" limits 'oracle hard stack' bound_value)"
# the preinstall file is read after hosttune's 90-hosttune.conf ("o" sorts
# after "9"), so its unlimited would still win: the plan says which line
check "hard stack unlimited: the plan names the preinstall line that wins" "1" \
        "$(warnings "$tmp/out" | grep -c "oracle-database-preinstall-19c.conf:[0-9]* takes precedence over hosttune's entry: oracle gets hard stack unlimited, not 32768")"
# the preinstall file sets soft nofile 1024 and is read after limits.conf:
# the 512 never applies and 1024 meets the minimum
check "soft nofile 1024 (preinstall file) kept" "kept 1024" \
        "$(change "$tmp/out" limits 'oracle soft nofile' outcome) $(change "$tmp/out" limits 'oracle soft nofile' current)"
dropin "$tmp/out" $LIMITS_D >"$tmp/limits"
if grep -Eq 'oracle +hard +nofile' "$tmp/limits"; then
        not_ok "hosttune's file holds no line that would lower hard nofile"
else
        ok "hosttune's file holds no line that would lower hard nofile"
fi
check_contains "hosttune's file caps the hard stack at Oracle's maximum" "oracle     hard    stack    32768" "$tmp/limits"
# below and inside the range: raised to the low end, kept
for c in "8192|change 10240" "20000|kept 20000" "32768|kept 32768" "65536|change 32768"; do
        sed -i -E "s/^oracle   hard   stack    [0-9a-z]+/oracle   hard   stack    ${c%|*}/" \
                "$r/etc/security/limits.d/oracle-database-preinstall-19c.conf"
        ht "$r" --json plan oracle
        check "hard stack ${c%|*}: ${c#*|}" "${c#*|}" \
                "$(change "$tmp/out" limits 'oracle hard stack' outcome) $(change "$tmp/out" limits 'oracle hard stack' desired)"
done
sed -i -E "s/^oracle   hard   stack    [0-9a-z]+/oracle   hard   stack    unlimited/" \
        "$r/etc/security/limits.d/oracle-database-preinstall-19c.conf"
ht "$r" --json plan oracle
check_contains "memlock (the preinstall file's is lower) is still written" "oracle     soft    memlock  134217728" "$tmp/limits"
check "no precedence warning for a larger value" "0" "$(warnings "$tmp/out" | grep -c 'gets hard nofile')"
finish
