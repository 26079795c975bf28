#!/bin/sh
# audit-mix: several workloads on one host, applied one after another.
# The crowded host: Oracle's oracle-running fixture (ORCL and DEV in
# oratab, SGAs of 18G and 2G, the preinstall package's files) with an
# application server beside it, a JVM of user app in app.service with
# -XX:+UseLargePages, as Elasticsearch or WebLogic run there.
# 1. oracle+jvm adds up: the HugePages of both, THP never (oracle
#    requires it, jvm only prefers madvise), swappiness the lowest,
#    limits for each user, vm.hugetlb_shm_group Oracle's (it requires
#    it), and show says which won and why.
# 2. apply oracle, then apply jvm: the second apply keeps the first
#    (oracle+jvm, with the first's --set), lowers nothing oracle set, and
#    says so; its rollback gives back the first's state, byte for byte.
#    It used to plan jvm alone: HugePages 2050 -> 653, THP never ->
#    madvise, the oracle user's memlock limits dropped.
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (scripts/deps.sh installs it)"
export HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1
P="--profile-path $top_srcdir/profiles --rules-path $top_srcdir/rules"

h=$(copy_host oracle-running); scratch "$h"
# the JVM: java -Xms1g -Xmx1g -XX:+UseLargePages as user app in app.service
mkdir -p "$h/proc/3001" "$h/etc/systemd/system"
cp "$HOSTS/debian12-kvm/proc/3001/status" "$h/proc/3001/status"
printf 'java\n' >"$h/proc/3001/comm"
printf '/usr/lib/jvm/java-17/bin/java\0-Xms1g\0-Xmx1g\0-XX:+UseLargePages\0-jar\0/opt/app/app.jar\0' \
        >"$h/proc/3001/cmdline"
printf '1:name=systemd:/system.slice/app.service\n5:memory:/system.slice/app.service\n' >"$h/proc/3001/cgroup"
echo 'app:x:61184:61184::/opt/app:/sbin/nologin' >>"$h/etc/passwd"
echo 'app:x:61184:' >>"$h/etc/group"
printf '[Unit]\nDescription=App\n[Service]\nUser=app\nExecStart=/usr/bin/java -jar /opt/app/app.jar\n' \
        >"$h/etc/systemd/system/app.service"
# snapshot DIR: every file of the tree but the journal, with its content
snapshot() {
        (cd "$1" && find . -path ./var/lib/hosttune -prune -o -type f -print | LC_ALL=C sort |
                while read -r f; do printf '== %s\n' "$f"; cat "$f"; done)
}
pages() { jq -r '[.changes[] | select(.key == "vm.nr_hugepages") | .desired][0]' "$tmp/out"; }
thp() { jq -r '[.changes[] | select(.key == "/sys/kernel/mm/transparent_hugepage/enabled") | .desired][0]' "$tmp/out"; }

# --- 1. the two composed: each one's needs, added up ----------------------
"$HOSTTUNE" --root "$h" $P --json show oracle+jvm >"$tmp/out" 2>"$tmp/err"
check "show oracle+jvm: exit 0" 0 $?
# ORCL 18G + DEV 2G in 2 MB pages + 2 slack; 1G heap, 240M code cache and
# G1's tables on large pages (facts-jvm.c) for the JVM
check "HugePages summed: oracle's 10242 + the JVM's 653" "sum 10895 oracle=10242 jvm=653" \
        "$(jq -r '.composed.settings[] | select(.setting == "sysctl vm.nr_hugepages") |
                "\(.how) \(.value) " + ([.contributors[] | "\(.profile)=\(.value)"] | sort | reverse | join(" "))' "$tmp/out")"
check "THP: oracle requires never, jvm only prefers madvise: never" "requires never" \
        "$(jq -r '.composed.settings[] | select(.setting | test("transparent_hugepage/enabled")) | "\(.how) \(.value)"' "$tmp/out")"
check "swappiness: asked 10 (oracle) and 1 (jvm), both declare lowest: 1" "lowest 1" \
        "$(jq -r '.composed.settings[] | select(.setting == "sysctl vm.swappiness") | "\(.how) \(.value)"' "$tmp/out")"
"$HOSTTUNE" --root "$h" $P show oracle+jvm >"$tmp/show" 2>&1
check "show names the winner and why (the sysfs switch and the boot word)" 2 \
        "$(grep -c "= never (requires): oracle requires never (declared at $top_srcdir/profiles/oracle.profile:[0-9]*); jvm only prefers madvise at" "$tmp/show")"
"$HOSTTUNE" --root "$h" $P --json plan oracle+jvm >"$tmp/out" 2>"$tmp/err"
check "plan oracle+jvm: exit 2 (changes)" 2 $?
check "plan: the summed pool" 10895 "$(pages)"
check "plan: the composition said under its changes (who asked what, and why)" \
        "composed (lowest) from jvm 1, oracle 10: declared lowest: the lowest value (jvm's) serves every workload that asks for less|composed (sum) from jvm 653, oracle 10242: each workload maps its own pages, so the pool holds them all" \
        "$(jq -r '[.changes[] | select(.key == "vm.swappiness" or .key == "vm.nr_hugepages") | .note] | join("|")' "$tmp/out")"
check "plan: limits of both users, each its own (oracle memlock, app nofile)" "app soft nofile 65535|oracle hard memlock 134217728" \
        "$(jq -r '[.changes[] | select(.backend == "limits" and (.key == "oracle hard memlock" or .key == "app soft nofile")) | "\(.key) \(.desired)"] | sort | join("|")' "$tmp/out")"
check "plan: the oracle user's nofile from the preinstall file kept (at least)" "kept" \
        "$(jq -r '.changes[] | select(.key == "oracle hard nofile") | .outcome' "$tmp/out")"

# Both map SysV segments (the JVM with -XX:+UseSHM): the kernel takes one
# vm.hugetlb_shm_group, and from 5.16 on the SGA needs it; oracle requires
# it, so oinstall's gid whatever the order (it was the later profile's:
# the JVM user's group for oracle+jvm, Oracle's SGA refused on 5.16+)
printf '/usr/lib/jvm/java-17/bin/java\0-Xms1g\0-Xmx1g\0-XX:+UseLargePages\0-XX:+UseSHM\0-jar\0/opt/app/app.jar\0' \
        >"$h/proc/3001/cmdline"
for w in oracle+jvm jvm+oracle; do
        "$HOSTTUNE" --root "$h" $P --json show "$w" >"$tmp/out" 2>"$tmp/err"
        check "$w, both SysV: hugetlb_shm_group is oinstall's, required by oracle" "requires 54321" \
                "$(jq -r '.composed.settings[] | select(.setting == "sysctl vm.hugetlb_shm_group") | "\(.how) \(.value)"' "$tmp/out")"
done
printf '/usr/lib/jvm/java-17/bin/java\0-Xms1g\0-Xmx1g\0-XX:+UseLargePages\0-jar\0/opt/app/app.jar\0' \
        >"$h/proc/3001/cmdline"

# --- 2. oracle, then jvm: the second adds, it does not replace --------------
"$HOSTTUNE" --root "$h" $P --quiet apply oracle --set sga_max_size=4G >"$tmp/a1" 2>&1
check "apply oracle --set sga_max_size=4G: exit 0" 0 $?
first=$(ls "$h/var/lib/hosttune/journal")
snapshot "$h" >"$tmp/after-oracle"
check "oracle applied: 2050 pages, THP never" "2050 never" \
        "$(cat "$h/proc/sys/vm/nr_hugepages") $(grep -o '\[never\]' "$h/sys/kernel/mm/transparent_hugepage/enabled" | tr -d '[]')"

"$HOSTTUNE" --root "$h" $P --json plan jvm >"$tmp/out" 2>"$tmp/err"
check "plan jvm after oracle: exit 2" 2 $?
check "... planned as oracle+jvm" "oracle+jvm" "$(jq -r .profile "$tmp/out")"
check "... HugePages add up: oracle's 2050 (its --set sga_max_size=4G) + the JVM's 653" 2703 "$(pages)"
check "... THP not changed: never stays (no change planned)" "null" "$(thp)"
check "... the oracle user's memlock stays in hosttune's file" "2" \
        "$(jq -r '[.files[] | select(.path == "/etc/security/limits.d/90-hosttune.conf") | .after | split("\n")[] | select(test("^oracle +(soft|hard) +memlock +134217728$"))] | length' "$tmp/out")"
check "... oracle's lines stay in the sysctl file, the pool raised" "+vm.nr_hugepages = 2703|-vm.nr_hugepages = 2050" \
        "$(jq -r '.files[] | select(.path == "/etc/sysctl.d/90-hosttune.conf") | .diff' "$tmp/out" |
                grep -E "^[-+](vm.nr_hugepages|vm.hugetlb_shm_group|kernel|net|vm.dirty)" | sort | paste -sd'|' -)"
check "... and the plan says why, naming the transaction and the fix" \
        "profile oracle, applied in transaction $first, stays: oracle is not part of jvm, so this plan is oracle+jvm, with its --set sga_max_size=4G, and what oracle set is not lowered; to replace it, roll it back first (hosttune rollback $first)" \
        "$(jq -r '.warnings[] | select(startswith("profile oracle, applied"))' "$tmp/out")"
# a --set of oracle's parameter is taken with jvm asked for (it was an
# unknown parameter of jvm), the later one winning
"$HOSTTUNE" --root "$h" $P --json plan jvm --set sga_max_size=2G >"$tmp/out" 2>"$tmp/err"
check "plan jvm --set sga_max_size=2G: oracle's parameter, this run's value" "2 1679" "$? $(pages)"
# the profile asked for is part of the applied one: that one again
"$HOSTTUNE" --root "$h" $P --json plan base >"$tmp/out" 2>"$tmp/err"
check "plan base after oracle: oracle planned again, nothing to change" "0 oracle 0" \
        "$? $(jq -r '"\(.profile) \(.changes | map(select(.outcome == "change")) | length)"' "$tmp/out")"
# the same profile again replaces its own values: a smaller SGA is asked for
"$HOSTTUNE" --root "$h" $P --json plan oracle --set sga_max_size=2G >"$tmp/out" 2>"$tmp/err"
check "plan oracle again with a smaller SGA: its own, not composed" "oracle 1026 0" \
        "$(jq -r .profile "$tmp/out") $(pages) $(jq '[.warnings[] | select(startswith("profile oracle, applied"))] | length' "$tmp/out")"

"$HOSTTUNE" --root "$h" $P --quiet apply jvm >"$tmp/a2" 2>&1
check "apply jvm after oracle: exit 0" 0 $?
# the newest transaction by its created_usec: two in one second sort by
# their random part, not by time
check "... recorded as oracle+jvm with oracle's --set carried" "oracle+jvm sga_max_size=4G" \
        "$(jq -rs 'max_by(.created_usec) | "\(.profile) \(.info.set | join(","))"' "$h"/var/lib/hosttune/journal/*/manifest.json)"
check "... the pool holds both, THP still never" "2703 never" \
        "$(cat "$h/proc/sys/vm/nr_hugepages") $(grep -o '\[never\]' "$h/sys/kernel/mm/transparent_hugepage/enabled" | tr -d '[]')"
"$HOSTTUNE" --root "$h" $P --json plan jvm >"$tmp/out" 2>"$tmp/err"
check "plan jvm again: nothing to change" "0 oracle+jvm" "$? $(jq -r .profile "$tmp/out")"
"$HOSTTUNE" --root "$h" --quiet rollback >"$tmp/r" 2>&1
check "rollback of the second apply: exit 0" 0 $?
snapshot "$h" >"$tmp/after-rollback"
if cmp -s "$tmp/after-oracle" "$tmp/after-rollback"; then
        ok "rollback gives back the first apply's state, every file byte for byte"
else
        not_ok "rollback gives back the first apply's state: $(diff "$tmp/after-oracle" "$tmp/after-rollback" | head -c 600)"
fi
"$HOSTTUNE" --root "$h" --json verify >"$tmp/out" 2>"$tmp/err"
check "verify after the rollback: the first apply is in effect" "$first oracle" \
        "$(jq -r '"\(.txid) \(.profile)"' "$tmp/out")"

echo "1..$n"
[ "$failed" = 0 ]
