#!/bin/sh
# A JVM sizes itself from its own options: an Elasticsearch JVM
# (tests/integration/jvm-elasticsearch, laid over debian12-kvm) with
# -XX:+UseLargePages in JAVA_TOOL_OPTIONS, the code cache there and again
# in JDK_JAVA_OPTIONS, the heap on the command line, application arguments
# after the main class; its owner from /proc/PID/status and /etc/passwd,
# its unit from /proc/PID/cgroup. heap_size, jvm_user and jvm_unit default
# to them with provenance, --set wins, several owners fall back with a
# warning, hostile process files warn and leave the plan whole. Expected
# values come from the fixture's files.
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (scripts/deps.sh installs it)"
export HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1
ht() { r=$1; shift; "$HOSTTUNE" --root "$r" --profile-path "$top_srcdir/profiles" \
        --rules-path "$top_srcdir/rules" "$@"; }
M=1048576 G=1073741824
d=$(copy_host debian12-kvm); scratch "$d"
cp -R "$top_srcdir/tests/integration/jvm-elasticsearch/proc/." "$d/proc/"
cp -R "$top_srcdir/tests/integration/jvm-elasticsearch/usr/." "$d/usr/"
echo 'elasticsearch:x:112:117::/nonexistent:/bin/false' >>"$d/etc/passwd"
echo 'elasticsearch:x:117:' >>"$d/etc/group"
# here the fixture's 8g JVM is not app.service's but user debian's, started
# from a login session: found, not used (issue 32)
printf '0::/user.slice/user-1000.slice/session-2.scope\n' >"$d/proc/3001/cgroup"
sed -i 's/^Uid:.*/Uid:\t1000\t1000\t1000\t1000/' "$d/proc/3001/status"
ht "$d" --json facts >"$tmp/facts.json" 2>"$tmp/err"
check "facts exits 0" 0 $?
p() { jq -r ".workload.jvm.processes[] | select(.pid == $1) | .$2" "$tmp/facts.json"; }
check "the fixture's cmdline is NUL-separated, the heap on it" "-Xmx4g" \
        "$(tr '\0' '\n' <"$d/proc/4200/cmdline" | grep -m1 '^-Xmx')"
check "java 4200: -Xmx4g from the command line beats JAVA_TOOL_OPTIONS' -Xmx1g" $((4 * G)) "$(p 4200 max_heap_size)"
check "java 4200: -Xms4g" $((4 * G)) "$(p 4200 initial_heap_size)"
check "java 4200: -XX:+UseLargePages from JAVA_TOOL_OPTIONS; the -XX:-UseLargePages after the main class is the application's" \
        true "$(p 4200 use_large_pages)"
check "java 4200: JDK_JAVA_OPTIONS' 128m beats JAVA_TOOL_OPTIONS' quoted 64m" $((128 * M)) "$(p 4200 reserved_code_cache_size)"
check "java 4200: a 128M code cache holds 8 or more 2M pages: in large pages" true "$(p 4200 code_cache_in_large_pages)"
# G1 (-XX:+UseG1GC on 4200; 3001 names none and the fixture is a server
# class machine, so G1 too) maps its block offset table, card table and
# card counts (heap / 512 each) and its two marking bitmaps (heap / 64
# each) on large pages (issue 39: Java 17 failed to reserve the bitmaps)
check "java 4200: G1" g1 "$(p 4200 gc)"
check "java 4200: G1's tables and bitmaps, 3 x 8M + 2 x 64M" $((3 * 8 * M + 2 * 64 * M)) "$(p 4200 gc_large_pages_bytes)"
check "java 4200: needs heap + code cache + G1's structures" $((4 * G + 128 * M + 152 * M)) "$(p 4200 large_pages_bytes)"
check "java 4200: owner uid 112 (status) is elasticsearch (/etc/passwd)" "112 elasticsearch" "$(p 4200 uid) $(p 4200 user)"
check "java 4200: unit from the cgroup" elasticsearch.service "$(p 4200 unit)"
check "java 4200: where its options came from" \
        "/proc/4200/environ (JAVA_TOOL_OPTIONS), /proc/4200/environ (JDK_JAVA_OPTIONS), /proc/4200/cmdline" \
        "$(p 4200 options_from)"
check "java 3001 (-Xmx8g -XX:+UseLargePages, no -XX:ReservedCodeCacheSize): heap + HotSpot's 240M + G1's 304M" \
        $((8 * G + 240 * M + 304 * M)) "$(p 3001 large_pages_bytes)"
check "java 3050 (no -XX:+UseLargePages): none" 0 "$(p 3050 large_pages_bytes)"
check "the sum over the trusted JVMs with large pages, G1's tables and bitmaps too: not debian's 8g" $((4 * G + 128 * M + 152 * M)) \
        "$(jq .workload.jvm.large_pages_bytes "$tmp/facts.json")"
check "java 3001 and 3050 (user debian's) are not used, and say which --set would use them" \
        "3001 jvm_user=debian 3050 jvm_user=debian" \
        "$(jq -r '[.workload.jvm.not_used[] | "\(.pid) \(.set)"] | join(" ")' "$tmp/facts.json")"
check "java 3001: trusted false, 4200: true" "false true" \
        "$(p 3001 trusted) $(p 4200 trusted)"
check "user, group and unit: the one found, with where" \
        "elasticsearch /proc/4200/status elasticsearch /proc/4200/status elasticsearch.service /proc/4200/cgroup" \
        "$(jq -r '.workload.jvm | [.user, .user_from, .group, .group_from, .unit, .unit_from] | join(" ")' "$tmp/facts.json")"
check "no warnings" "[]" "$(jq -c .warnings "$tmp/facts.json")"
"$HOSTTUNE" --root "$d" --json recommend >"$tmp/rec.json" 2>/dev/null
# the plain plan finds the owner, group and unit itself (show below):
# recommend names no --set for them (issue 39)
check "recommend: jvm, no --set for what the plan finds itself" \
        'jvm []' \
        "$(jq -r '.profile' "$tmp/rec.json") $(jq -c .sets "$tmp/rec.json")"
check "recommend: the heap evidence is the JVM's -Xmx4g, not the application's -Xmx99g" true \
        "$(jq '[.candidates[2].evidence[] | select(.pid == 4200) | .what | contains("4.0 GiB")] | all' "$tmp/rec.json")"

ht "$d" --color=never show jvm >"$tmp/show" 2>&1
check_contains "show: heap_size from the trusted JVM's files" \
        "from /proc/4200/environ (JAVA_TOOL_OPTIONS), /proc/4200/environ (JDK_JAVA_OPTIONS), /proc/4200/cmdline" "$tmp/show"
check_contains "show: the user's JVM is listed as not used" \
        "java 3001: owned by debian (uid 1000), in a user's session or user manager (/user.slice/user-1000.slice/session-2.scope); not root's, not a system service's, not jvm_user's; --set jvm_user=debian would use it" "$tmp/show"
check_contains "show: jvm_user from the status file" "from /proc/4200/status" "$tmp/show"
check_contains "show: jvm_unit from the cgroup file" "from /proc/4200/cgroup" "$tmp/show"
ht "$d" --json plan jvm >"$tmp/plan.json" 2>"$tmp/plan.err"
check "plan jvm exits 2 (changes pending)" 2 $?
want=$(( (4 * G + 128 * M + 152 * M + 2 * M - 1) / (2 * M) + 2 ))
check "plan: nr_hugepages = ceil(sum / 2M) + 2" "$want" \
        "$(jq -r '.changes[] | select(.key == "vm.nr_hugepages") | .desired' "$tmp/plan.json")"
ht "$d" --color=never plan jvm >"$tmp/plan.txt" 2>&1
check_contains "plan: the limits go to elasticsearch" "elasticsearch soft nofile" "$tmp/plan.txt"
# HotSpot maps its large pages with mmap(MAP_HUGETLB) unless -XX:+UseSHM
# (issue 33): no shm group, no memlock; Elastic's own unit already has
# LimitNOFILE=65535 and LimitNPROC=4096, the profile's minimums, so no
# drop-in either
check "plan: no vm.hugetlb_shm_group for a JVM that maps its pages (no -XX:+UseSHM)" "" \
        "$(jq -r '.changes[] | select(.key == "vm.hugetlb_shm_group") | .desired' "$tmp/plan.json")"
# (its drop-in holds only the start gate of issue 37: no Limit line)
check "plan: no limit in elasticsearch.service's drop-in, whose own limits meet the minimums" \
        "ExecStartPre=-+SBINDIR/hosttune gate elasticsearch.service" \
        "$(jq -r '.files[] | select(.path | test("elasticsearch.service.d")) | .after' "$tmp/plan.json" |
           sed -n 's|^\(ExecStartPre=-+\)/.*/\(hosttune gate\)|\1SBINDIR/\2|p; /^Limit/p')"
if grep -q '^  java ' "$tmp/plan.txt"; then not_ok "plan: no limits for a java user that does not exist"
else ok "plan: no limits for a java user that does not exist"; fi
ht "$d" --json plan jvm --set heap_size=1G --set jvm_user=debian --set jvm_unit= >"$tmp/set.json" 2>/dev/null
check "--set heap_size=1G wins: 514 pages" 514 \
        "$(jq -r '.changes[] | select(.key == "vm.nr_hugepages") | .desired' "$tmp/set.json")"
check "--set jvm_user=debian wins" debian \
        "$(jq -r '[.changes[] | select(.backend == "limits") | .key | split(" ")[0]] | unique | join(",")' "$tmp/set.json")"

# --- the JDK's release: JDK 20 keeps one G1 bitmap, 21 no card counts -----
# (4200's exe into a JDK whose release file says 21; the fixture's
# others have no exe: counted as JDK 17)
mkdir -p "$d/opt/jdk-21/bin"
printf 'IMPLEMENTOR="Eclipse Adoptium"\nJAVA_VERSION="21.0.2"\n' >"$d/opt/jdk-21/release"
ln -s /opt/jdk-21/bin/java "$d/proc/4200/exe"
ht "$d" --json facts >"$tmp/f21.json" 2>/dev/null
check "JDK 21: its feature release from the release file" 21 \
        "$(jq '.workload.jvm.processes[] | select(.pid == 4200) | .jdk_feature_release' "$tmp/f21.json")"
check "JDK 21: G1's BOT and card table (8M each) and one bitmap (64M)" $((2 * 8 * M + 64 * M)) \
        "$(jq '.workload.jvm.processes[] | select(.pid == 4200) | .gc_large_pages_bytes' "$tmp/f21.json")"
check "no exe: unknown, counted as JDK 17" "null $((3 * 16 * M + 2 * 128 * M))" \
        "$(jq -r '.workload.jvm.processes[] | select(.pid == 3001) | "\(.jdk_feature_release) \(.gc_large_pages_bytes)"' "$tmp/f21.json")"
rm "$d/proc/4200/exe"

# --- what turns HotSpot's large pages on, and which kind -------------------
# (Java 17.0.15 with 800 HugePages of 2 MB and -Xmx512m, smaps and
# HugePages_Rsvd: -XX:+UseSHM alone maps the heap and G1's two 8M bitmaps
# as SysV segments, the code cache in 4 KB pages; -XX:+UseHugeTLBFS alone
# and -XX:+AggressiveHeap as -XX:+UseLargePages; -XX:+UseLargePages with
# -XX:-UseTransparentHugePages maps nothing: "UseLargePages disabled, no
# large pages configured and available on the system")
mkdir -p "$d/proc/4400"
printf 'java\n' >"$d/proc/4400/comm"
printf 'Name:\tjava\nUid:\t112\t112\t112\t112\n' >"$d/proc/4400/status"
printf '0::/system.slice/app.service\n' >"$d/proc/4400/cgroup"
lp4400() {
        printf '/usr/bin/java\0-Xmx512m\0-XX:+UseG1GC\0' >"$d/proc/4400/cmdline"
        for o in "$@"; do printf '%s\0' "$o" >>"$d/proc/4400/cmdline"; done
        printf 'Main\0' >>"$d/proc/4400/cmdline"
        ht "$d" --json facts >"$tmp/f4400.json" 2>/dev/null
        jq -r '.workload.jvm.processes[] | select(.pid == 4400) | "\(.large_pages_kind) \(.large_pages_bytes)"' \
                "$tmp/f4400.json"
}
check "-XX:+UseLargePages -XX:-UseTransparentHugePages: no large pages at all" "null 0" \
        "$(lp4400 -XX:+UseLargePages -XX:-UseTransparentHugePages)"
check "-XX:+UseLargePages -XX:-UseSHM: none either" "null 0" "$(lp4400 -XX:+UseLargePages -XX:-UseSHM)"
check "-XX:+UseSHM alone: SysV segments, heap and G1's bitmaps, no code cache" "shm $((512 * M + 2 * 8 * M))" \
        "$(lp4400 -XX:+UseSHM)"
check "-XX:+UseSHM: the JVMs' pages are SysV segments (the shm group)" true \
        "$(jq .workload.jvm.large_pages_shm "$tmp/f4400.json")"
check "-XX:+UseHugeTLBFS alone: heap, code cache and bitmaps" "hugetlbfs $((512 * M + 240 * M + 2 * 8 * M))" \
        "$(lp4400 -XX:+UseHugeTLBFS)"
check "-XX:+UseSHM beside -XX:+UseHugeTLBFS: mmap, not SysV" "hugetlbfs false" \
        "$(lp4400 -XX:+UseSHM -XX:+UseHugeTLBFS | cut -d' ' -f1) $(jq .workload.jvm.large_pages_shm "$tmp/f4400.json")"
check "-XX:+AggressiveHeap after -XX:-UseLargePages: large pages, Parallel (its bitmap of 16M < 10 pages)" \
        "hugetlbfs $((512 * M + 240 * M)) parallel" \
        "$(printf '/usr/bin/java\0-Xmx512m\0-XX:-UseLargePages\0-XX:+AggressiveHeap\0Main\0' >"$d/proc/4400/cmdline"
           ht "$d" --json facts 2>/dev/null |
           jq -r '.workload.jvm.processes[] | select(.pid == 4400) | "\(.large_pages_kind) \(.large_pages_bytes) \(.gc)"')"
# --- the default heap on a host of 512 GiB (Arguments::set_heap_size) -------
# a RAM sizing flag sizes from all of the memory (-XX:MaxRAMPercentage=75
# of 512G: 384G; the 128G MaxRAM cap counted 96G), none from 128G of it,
# held below the compressed oops limit (32G -> 30G; Java 17.0.15 with
# -XX:MaxRAM=256g -XX:+UseCompressedOops: 32178700288)
cp "$d/proc/meminfo" "$tmp/meminfo"
sed -i 's/^MemTotal:.*/MemTotal:       536870912 kB/' "$d/proc/meminfo"
heap4400() {
        printf '/usr/bin/java\0-XX:+UseLargePages\0' >"$d/proc/4400/cmdline"
        for o in "$@"; do printf '%s\0' "$o" >>"$d/proc/4400/cmdline"; done
        printf 'Main\0' >>"$d/proc/4400/cmdline"
        ht "$d" --json facts 2>/dev/null | jq -r '.workload.jvm.processes[] | select(.pid == 4400) | .heap_bytes'
}
check "512G, -XX:MaxRAMPercentage=75: 384G" $((384 * G)) "$(heap4400 -XX:MaxRAMPercentage=75)"
check "512G, -XX:InitialRAMPercentage=5: a quarter of all of it, 128G" $((128 * G)) "$(heap4400 -XX:InitialRAMPercentage=5)"
check "512G, no flag: a quarter of 128G held at 30G" $((30 * G)) "$(heap4400)"
check "512G, -XX:-UseCompressedOops: 32G" $((32 * G)) "$(heap4400 -XX:-UseCompressedOops)"
cp "$tmp/meminfo" "$d/proc/meminfo"
# --- the memory limit of its cgroup: HotSpot's container support ----------
# (Java 17.0.15 in a memory cgroup v1 whose parent is limited to 2 GB:
# MaxHeapSize 536870912; with -XX:-UseContainerSupport 25 % of the host's
# memory) A service with MemoryMax=4G on cgroup v2 (the fixture's
# 16377536 kB of memory): a quarter of 4G, not of MemTotal.
mkdir -p "$d/sys/fs/cgroup/system.slice/app.service"
echo 4294967296 >"$d/sys/fs/cgroup/system.slice/app.service/memory.max"
check "v2, memory.max 4G: a quarter of it" "$G 4294967296" \
        "$(heap4400 >/dev/null; jq -r '.workload.jvm.processes[] | select(.pid == 4400) | "\(.heap_bytes) \(.cgroup_memory_limit)"' \
                "$(ht "$d" --json facts >"$tmp/fcg.json" 2>/dev/null; echo "$tmp/fcg.json")")"
check "v2: where the heap's size came from" "/proc/4400/cmdline, /sys/fs/cgroup/system.slice/app.service/memory.max" \
        "$(jq -r '.workload.jvm.processes[] | select(.pid == 4400) | .options_from' "$tmp/fcg.json")"
jq -r '.warnings[]' "$tmp/fcg.json" >"$tmp/wcg"
check_contains "v2: the warning names the limit's file" \
        "a quarter of the memory limit of its cgroup, /sys/fs/cgroup/system.slice/app.service/memory.max" "$tmp/wcg"
check "-XX:-UseContainerSupport: a quarter of MemTotal" $((16377536 * 1024 / 4)) "$(heap4400 -XX:-UseContainerSupport)"
check "-Xmx given: the limit is not read" "$((2 * G)) null" \
        "$(heap4400 -Xmx2g >/dev/null; ht "$d" --json facts 2>/dev/null |
           jq -r '.workload.jvm.processes[] | select(.pid == 4400) | "\(.heap_bytes) \(.cgroup_memory_limit)"')"
echo max >"$d/sys/fs/cgroup/system.slice/app.service/memory.max"
check "v2, memory.max max: MemTotal" $((16377536 * 1024 / 4)) "$(heap4400)"
# cgroup v1 (RHEL 7, hybrid hosts): the memory controller's own line; an
# unlimited leaf takes memory.stat's hierarchical_memory_limit (a parent's)
printf '11:memory:/system.slice/app.service\n1:name=systemd:/system.slice/app.service\n0::/\n' \
        >"$d/proc/4400/cgroup"
mkdir -p "$d/sys/fs/cgroup/memory/system.slice/app.service"
echo 9223372036854771712 >"$d/sys/fs/cgroup/memory/system.slice/app.service/memory.limit_in_bytes"
printf 'cache 0\nrss 0\nhierarchical_memory_limit 2147483648\nhierarchical_memsw_limit 9223372036854771712\n' \
        >"$d/sys/fs/cgroup/memory/system.slice/app.service/memory.stat"
check "v1, a parent's 2G (hierarchical_memory_limit): 512M" $((512 * M)) "$(heap4400)"
echo 1073741824 >"$d/sys/fs/cgroup/memory/system.slice/app.service/memory.limit_in_bytes"
check "v1, its own 1G: 256M" $((256 * M)) "$(heap4400)"
printf '11:memory:/system.slice/../../x\n' >"$d/proc/4400/cgroup"
check "v1, a path with ..: not read" $((16377536 * 1024 / 4)) "$(heap4400)"
printf '0::/system.slice/app.service\n' >"$d/proc/4400/cgroup"
# --- -XX:LargePageSizeInBytes=1g ------------------------------------------
# HotSpot takes the size only where the kernel has it (a
# hugepages-1048576kB directory), else the default: Java 17.0.15 with
# -Xmx512m on a kernel with 2 MB pages only mapped its heap, 240M code
# cache and G1's bitmaps (2 x 8M) on 2 MB pages, 384 of them (counted at
# 1 GB, only the heap was)
check "1g on a kernel without 1 GB pages: 2 MB pages, heap + code cache + bitmaps" \
        "$((2 * M)) $((512 * M + 240 * M + 2 * 8 * M))" \
        "$(heap4400 -Xmx512m -XX:LargePageSizeInBytes=1g >/dev/null; ht "$d" --json facts 2>/dev/null |
           jq -r '.workload.jvm.processes[] | select(.pid == 4400) | "\(.large_page_size) \(.large_pages_bytes)"')"
# with 1 GB pages the heap comes from their pool, which vm.nr_hugepages
# does not size: not counted there, a warning says what it needs
mkdir -p "$d/sys/kernel/mm/hugepages/hugepages-1048576kB"
heap4400 -Xmx1536m -XX:LargePageSizeInBytes=1g >/dev/null
ht "$d" --json facts >"$tmp/f1g.json" 2>/dev/null
check "1g with 1 GB pages: its page size, the heap in whole pages" "$G $((2 * G))" \
        "$(jq -r '.workload.jvm.processes[] | select(.pid == 4400) | "\(.large_page_size) \(.large_pages_bytes)"' "$tmp/f1g.json")"
check "1g with 1 GB pages: not in the JVMs' sum of default pages" $((4 * G + 128 * M + 152 * M)) \
        "$(jq .workload.jvm.large_pages_bytes "$tmp/f1g.json")"
jq -r '.warnings[]' "$tmp/f1g.json" >"$tmp/w1g"
check_contains "1g with 1 GB pages: the warning names the pool and the count" \
        "java 4400 maps its heap in pages of 1048576 kB (-XX:LargePageSizeInBytes), not in the default HugePages of 2048 kB that vm.nr_hugepages sizes: it needs 2 of them in /sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages" "$tmp/w1g"
rmdir "$d/sys/kernel/mm/hugepages/hugepages-1048576kB"
# --- the environment: what java reads, and what it does not --------------
# JAVA_OPTS and ES_JAVA_OPTS (a unit's Environment=, Tomcat's and
# Elastic's scripts) are the start scripts' to put on the command line:
# java itself never reads them. _JAVA_OPTIONS comes after the command
# line and wins (Java 17.0.15: JAVA_TOOL_OPTIONS=-Xmx1g
# JDK_JAVA_OPTIONS=-Xmx2g _JAVA_OPTIONS=-Xmx3g java -Xmx5g: MaxHeapSize
# 3221225472; without _JAVA_OPTIONS 5368709120)
printf 'JAVA_OPTS=-XX:+UseLargePages -Xmx64g\0ES_JAVA_OPTS=-XX:+UseLargePages\0' >"$d/proc/4400/environ"
check "JAVA_OPTS and ES_JAVA_OPTS in the environment are not java's" "null 0" "$(lp4400)"
printf 'JAVA_TOOL_OPTIONS=-Xmx1g\0JDK_JAVA_OPTIONS=-Xmx2g\0_JAVA_OPTIONS=-Xmx3g -XX:+UseLargePages\0' >"$d/proc/4400/environ"
check "_JAVA_OPTIONS after the command line wins: 3g, large pages" "hugetlbfs $((3 * G))" \
        "$(printf '/usr/bin/java\0-Xmx5g\0Main\0' >"$d/proc/4400/cmdline"
           ht "$d" --json facts 2>/dev/null |
           jq -r '.workload.jvm.processes[] | select(.pid == 4400) | "\(.large_pages_kind) \(.max_heap_size)"')"
# JDK 8's launcher does not read JDK_JAVA_OPTIONS (JDK 9, JEP 293): a
# JDK 8 JVM (its release file's JAVA_VERSION="1.8.0_402") started where it
# is set for newer JDKs does not take its -XX:+UseLargePages
mkdir -p "$d/opt/jdk8/bin"
printf 'JAVA_VERSION="1.8.0_402"\n' >"$d/opt/jdk8/release"
ln -s /opt/jdk8/bin/java "$d/proc/4400/exe"
printf 'JDK_JAVA_OPTIONS=-XX:+UseLargePages\0' >"$d/proc/4400/environ"
check "JDK 8: JDK_JAVA_OPTIONS is not read" "null 0" "$(lp4400)"
printf 'JAVA_VERSION="17.0.15"\n' >"$d/opt/jdk8/release"
check "JDK 17: it is" "hugetlbfs $((512 * M + 240 * M + 2 * 8 * M))" "$(lp4400)"
rm "$d/proc/4400/exe"
rm "$d/proc/4400/environ"
rm -r "$d/proc/4400"

# --- two owners: no jvm_user from the host, a warning -------------------------
printf 'Name:\tjava\nUid:\t1000\t1000\t1000\t1000\n' >"$d/proc/3050/status"
printf '0::/system.slice/elasticsearch.service\n' >"$d/proc/3050/cgroup"
ht "$d" --json facts >"$tmp/f2.json" 2>/dev/null
check "two owners: no user" null "$(jq .workload.jvm.user "$tmp/f2.json")"
jq -r '.warnings[]' "$tmp/f2.json" >"$tmp/w2"
check_contains "two owners: a warning" "JVMs run as several users" "$tmp/w2"
ht "$d" --color=never show jvm >"$tmp/show2" 2>&1
check_contains "two owners: jvm_user is the placeholder" "jvm_user = java" "$tmp/show2"
rm "$d/proc/3050/status" "$d/proc/3050/cgroup"

# --- hostile process files ----------------------------------------------------------
mkdir -p "$d/proc/4300"
printf 'java\n' >"$d/proc/4300/comm"
# a command line longer than 256 KiB: warned, that JVM left out
head -c 300000 /dev/zero | tr '\0' 'x' >"$d/proc/4300/cmdline"
printf '0::/system.slice/elasticsearch.service\n' >"$d/proc/4300/cgroup"  # trusted: warned about
# an environment cut short, no NUL at its end
printf 'JAVA_TOOL_OPTIONS=-XX:+UseLargePages -Xmx' >"$d/proc/4200/environ"
printf '0::/system.slice/../../etc/x y.service\n1:name=systemd:/\n' >"$d/proc/4200/cgroup"
ht "$d" --json facts >"$tmp/f3.json" 2>/dev/null
check "hostile: facts exits 0" 0 $?
jq -r '.warnings[]' "$tmp/f3.json" >"$tmp/w3"
check_contains "hostile: the long command line is named" "/proc/4300/cmdline: cannot be read (longer than 256 KiB)" "$tmp/w3"
check "hostile: JAVA_TOOL_OPTIONS cut short still reads -XX:+UseLargePages, not a bare -Xmx" "true $((4 * G))" \
        "$(jq -r '.workload.jvm.processes[] | select(.pid == 4200) | "\(.use_large_pages) \(.max_heap_size)"' "$tmp/f3.json")"
check "hostile: a unit name with a space is not taken" null \
        "$(jq '.workload.jvm.processes[] | select(.pid == 4200) | .unit' "$tmp/f3.json")"
ht "$d" --json plan jvm >/dev/null 2>&1
check "hostile: plan jvm still exits 2 (changes pending, no failure)" 2 $?
finish
