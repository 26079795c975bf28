#!/bin/sh
# Issue 33, the values an audit found wrong or missing, on fixture copies
# whose current values sit above, below and across each bound: the jvm
# profile's nofile and nproc are minimums (Elastic: "65,535 or higher",
# "at least 4096"), in limits.d and in the unit; tcp_retries2 only when
# asked for, as a maximum; numa=off only when asked for; Oracle's memlock
# at least 90 % of RAM with HugePages; large-page prerequisites only for
# SysV segments (a JVM with -XX:+UseSHM), none for mmap(MAP_HUGETLB). The
# port range, the hard stack range and swappiness are in bounds.sh,
# oracle.sh and knowledge.sh. Needs jq. TAP output.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (scripts/deps.sh installs it)"
export HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1

# change BACKEND KEY FIELD: a field of the last plan's change ("" when none)
change() {
        jq -r --arg b "$1" --arg k "$2" "[.changes[] | select(.backend == \$b and .key == \$k)][0].$3 // \"\"" "$tmp/out"
}
limits_file() { jq -r '.files[] | select(.path == "/etc/security/limits.d/90-hosttune.conf") | .after // ""' "$tmp/out"; }

# ---- 1. jvm: nofile and nproc are minimums ----------------------------------
h=$(prepare_host debian12-kvm); scratch "$h"
printf 'es:x:998:998:Elasticsearch:/usr/share/elasticsearch:/bin/false\n' >>"$h/etc/passwd"
printf 'es:x:998:\n' >>"$h/etc/group"
# above: nofile 1048576 and nproc unlimited from limits.conf
printf 'es soft nofile 1048576\nes hard nofile 1048576\nes - nproc unlimited\n' >>"$h/etc/security/limits.conf"
htrun 2 "jvm, limits above Elastic's: plan" "$h" --json plan jvm --set jvm_user=es
for k in "es soft nofile:1048576" "es hard nofile:1048576" "es soft nproc:unlimited" "es hard nproc:unlimited"; do
        check "above: ${k%:*} ${k#*:} kept (at least)" "kept ${k#*:} at-least" \
                "$(change limits "${k%:*}" outcome) $(change limits "${k%:*}" current) $(change limits "${k%:*}" bound)"
done
limits_file >"$tmp/limits"
check "above: hosttune's file holds no es nofile or nproc line that would lower them" 0 \
        "$(grep -cE '^es +(soft|hard) +(nofile|nproc)' "$tmp/limits")"
# across: hard nofile above, soft nofile below, nproc unset
sed -i -e 's/^es soft nofile 1048576$/es soft nofile 1024/' -e '/^es - nproc/d' "$h/etc/security/limits.conf"
htrun 2 "jvm, limits across Elastic's: plan" "$h" --json plan jvm --set jvm_user=es
check "across: hard nofile 1048576 kept" "kept" "$(change limits "es hard nofile" outcome)"
check "across: soft nofile 1024 raised to 65535" "change 65535" \
        "$(change limits "es soft nofile" outcome) $(change limits "es soft nofile" desired)"
check "across: nproc (unset) raised to 4096, a minimum" "4096 at-least" \
        "$(change limits "es hard nproc" desired) $(change limits "es hard nproc" bound)"
# below: the whole file raised; apply, then an empty re-plan
sed -i -e '/^es /d' "$h/etc/security/limits.conf"
printf 'es soft nofile 4096\nes hard nofile 4096\n' >>"$h/etc/security/limits.conf"
htrun 0 "jvm, limits below Elastic's: apply" "$h" --json apply jvm --set jvm_user=es
for l in "soft +nofile +65535" "hard +nofile +65535" "soft +nproc +4096" "hard +nproc +4096"; do
        check "below: written, es $l" 1 "$(grep -cE "^es +$l\$" "$h/etc/security/limits.d/90-hosttune.conf")"
done
htrun 0 "below: re-plan after apply: nothing to do" "$h" --json plan jvm --set jvm_user=es
# the unit: a LimitNOFILE above Elastic's stays (the drop-in holds none)
mkdir -p "$h/usr/lib/systemd/system"
printf '[Unit]\nDescription=Elasticsearch\n[Service]\nUser=es\nLimitNOFILE=1048576\nLimitNPROC=2048\nExecStart=/usr/share/elasticsearch/bin/systemd-entrypoint\n[Install]\nWantedBy=multi-user.target\n' \
        >"$h/usr/lib/systemd/system/elasticsearch.service"
htrun 2 "jvm with a unit: plan" "$h" --json plan jvm --set jvm_user=es --set jvm_unit=elasticsearch.service
check "unit: LimitNOFILE 1048576 kept (at least 65535)" "kept at-least" \
        "$(change service "elasticsearch.service LimitNOFILE" outcome) $(change service "elasticsearch.service LimitNOFILE" bound)"
check "unit: LimitNPROC 2048 raised to 4096" "change 4096" \
        "$(change service "elasticsearch.service LimitNPROC" outcome) $(change service "elasticsearch.service LimitNPROC" desired)"

# ---- 7. tcp_retries2 (Elastic: 5) only when asked for, at most ----------------
t=$(prepare_host debian12-kvm); scratch "$t"
printf '15\n' >"$t/proc/sys/net/ipv4/tcp_retries2"
htrun 2 "jvm without tcp_retries2: plan" "$t" --json plan jvm
check "not asked for: the kernel's 15 untouched" "" "$(change sysctl net.ipv4.tcp_retries2 outcome)"
htrun 2 "jvm --set tcp_retries2=5 on 15: plan" "$t" --json plan jvm --set tcp_retries2=5
check "above (15): lowered to 5, a maximum" "change 5 at-most" \
        "$(change sysctl net.ipv4.tcp_retries2 outcome) $(change sysctl net.ipv4.tcp_retries2 desired) $(change sysctl net.ipv4.tcp_retries2 bound)"
printf '3\n' >"$t/proc/sys/net/ipv4/tcp_retries2"
htrun 2 "jvm --set tcp_retries2=5 on 3: plan" "$t" --json plan jvm --set tcp_retries2=5
check "below (3): kept" "kept" "$(change sysctl net.ipv4.tcp_retries2 outcome)"

# ---- 7. numa=off only with --set numa_off=true ---------------------------------
nh=$(prepare_host baremetal-numa); scratch "$nh"
htrun 2 "oracle: plan" "$nh" --json plan oracle
check "numa=off not by default (kernel.numa_balancing=0 instead)" "0 0" \
        "$(jq '[.changes[] | select(.backend == "cmdline" and .key == "numa")] | length' "$tmp/out") $(change sysctl kernel.numa_balancing desired)"
htrun 2 "oracle --set numa_off=true: plan" "$nh" --json plan oracle --set numa_off=true
check "numa=off on the kernel command line when asked for" "numa=off" "$(change cmdline numa desired)"

# ---- 5. Oracle's memlock: at least 90 % of RAM with HugePages -------------------
htrun 2 "oracle on 256 GB with an SGA: plan" "$nh" --json plan oracle --set sga_max_size=18G
total=$(awk '/^MemTotal:/ { print $2 }' "$nh/proc/meminfo")
check "above 142 GB: memlock 90 % of MemTotal ($total KB)" "$((total * 9 / 10))" "$(change limits "oracle hard memlock" desired)"
htrun 2 "oracle on 256 GB without an SGA: plan" "$nh" --json plan oracle
check "no HugePages: the preinstall's 128 GB" "134217728" "$(change limits "oracle hard memlock" desired)"
s=$(prepare_host debian12-kvm); scratch "$s"
printf 'oinstall:x:54321:oracle\n' >>"$s/etc/group"
htrun 2 "oracle on 16 GB with an SGA: plan" "$s" --json plan oracle --set sga_max_size=4G
check "below 142 GB: the preinstall's 128 GB is above 90 %" "134217728" "$(change limits "oracle hard memlock" desired)"

# ---- 6. large pages: SysV prerequisites only for SysV segments ------------------
j=$(prepare_host debian12-kvm); scratch "$j"
printf 'java:x:997:\n' >>"$j/etc/group"
htrun 2 "jvm with -XX:+UseLargePages (mmap): plan" "$j" --json plan jvm
check "mmap: HugePages planned" "yes" "$(change sysctl vm.nr_hugepages desired | grep -q '^[1-9]' && echo yes)"
check "mmap: no memlock limit, no hugetlb_shm_group" "0" \
        "$(jq '[.changes[] | select((.key | test("memlock")) or .key == "vm.hugetlb_shm_group")] | length' "$tmp/out")"
printf '/usr/lib/jvm/java-17-openjdk-amd64/bin/java\0-Xms8g\0-Xmx8g\0-XX:+UseLargePages\0-XX:+UseSHM\0-jar\0/opt/app/app.jar\0' \
        >"$j/proc/3001/cmdline"
"$HOSTTUNE" --root "$j" facts --json >"$tmp/facts.json" 2>/dev/null
check "facts: -XX:+UseSHM seen" "true" "$(jq -r .workload.jvm.large_pages_shm "$tmp/facts.json")"
htrun 2 "jvm with -XX:+UseSHM (SysV): plan" "$j" --json plan jvm
check "SysV: memlock limits and vm.hugetlb_shm_group (java's gid 997)" "at-least at-least 997" \
        "$(change limits "java soft memlock" bound) $(change limits "java hard memlock" bound) $(change sysctl vm.hugetlb_shm_group desired)"

finish
