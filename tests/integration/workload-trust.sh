#!/bin/sh
# Issue 32, item 5: a process any local user can start (a script named
# java, a copy of mysqld or mariadbd, an "ora_pmon_X") must not steer
# root's plans. Crowded copies of the fixture hosts: the real service
# beside hostile processes (another user's login session, a user's
# delegated cgroup under a system unit's name, a container's systemd);
# the plans size, name and grant from the real service only, list the
# others as not used with the --set that would use them, and use them
# once the administrator names their user. Item 7: recommend's "Next:"
# command is quoted word by word (compared with python3's shlex.split)
# and a cgroup that names no valid unit gives no unit. Needs jq.
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (scripts/deps.sh installs it)"
export HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1
ht() { r=$1; shift; "$HOSTTUNE" --root "$r" --profile-path "$top_srcdir/profiles" \
        --rules-path "$top_srcdir/rules" "$@"; }
# proc ROOT PID COMM UID CGROUP ARGV...: a process of the fixture's /proc
proc() {
        pr=$1/proc/$2; mkdir -p "$pr"; echo "$3" >"$pr/comm"
        printf 'Name:\t%s\nUid:\t%s\t%s\t%s\t%s\nGid:\t%s\t%s\t%s\t%s\n' "$3" "$4" "$4" "$4" "$4" "$4" "$4" "$4" "$4" >"$pr/status"
        printf '%s\n' "$5" >"$pr/cgroup"
        shift 5; printf '%s\0' "$@" >"$pr/cmdline"
}
G=1073741824 M=1048576
pages() { jq -r '.changes[] | select(.key == "vm.nr_hugepages") | .desired' "$1"; }

# --- JVM: debian12-kvm's app.service (8g, large pages) and the crowd ----------
d=$(copy_host debian12-kvm); scratch "$d"
# the issue's reproduction: nobody's "java" from a login shell
proc "$d" 4400 java 65534 '0::/user.slice/user-65534.slice/session-9.scope' \
        /tmp/java -XX:+UseLargePages -Xmx13g
# a user's delegated cgroup under a system unit's name: not that unit
proc "$d" 4401 java 1000 '0::/user.slice/user-1000.slice/user@1000.service/app.slice/elasticsearch.service' \
        /usr/bin/java -XX:+UseLargePages -Xmx200g
# a container's JVM (its own systemd inside machine.slice), root in its user namespace
proc "$d" 4402 java 100000 '0::/machine.slice/machine-web.scope/payload/system.slice/app.service' \
        /usr/bin/java -XX:+UseLargePages -Xmx20g
# effective uid root, real uid a user's (a setuid copy): not root's
proc "$d" 4403 java 1000 '0::/user.slice/user-1000.slice/session-2.scope' /usr/bin/java -XX:+UseLargePages -Xmx9g
sed -i 's/^Uid:.*/Uid:\t1000\t0\t0\t0/' "$d/proc/4403/status"
ht "$d" --json facts >"$tmp/facts.json" 2>/dev/null
# with G1's tables (3 x heap/512) and marking bitmaps (2 x heap/64), which
# HotSpot maps on large pages too (issue 39): 304M for 8g, 494M for 13g
check "jvm: only app.service's JVM is sized: its 8g, code cache and G1's structures" $((8 * G + 240 * M + 304 * M)) \
        "$(jq .workload.jvm.large_pages_bytes "$tmp/facts.json")"
check "jvm: trust of each process" "3001:service 3050:null 4400:null 4401:null 4402:null 4403:null" \
        "$(jq -r '[.workload.processes[] | "\(.pid):\(.trust)"] | join(" ")' "$tmp/facts.json")"
check "jvm: the unit is app.service, not the delegated 'elasticsearch.service' or the container's" \
        "app.service null" "$(jq -r '.workload.jvm | "\(.unit) \(.user)"' "$tmp/facts.json")"
check "jvm: not used, each with the --set that would use it" \
        "3050:jvm_user=debian 4400:jvm_user=nobody 4401:jvm_user=debian 4402:null 4403:null" \
        "$(jq -r '[.workload.jvm.not_used[] | "\(.pid):\(.set)"] | join(" ")' "$tmp/facts.json")"
check "jvm: a hostile JVM adds no warning" "[]" "$(jq -c .warnings "$tmp/facts.json")"
ht "$d" --json plan jvm >"$tmp/plan.json" 2>/dev/null
check "plan jvm: nr_hugepages from app.service's JVM alone (as the debian12-kvm golden)" 4370 "$(pages "$tmp/plan.json")"
check "plan jvm: no limits and no group for nobody" "" \
        "$(jq -r '.changes[] | select((.key | test("nobody")) or .key == "vm.hugetlb_shm_group") | .key' "$tmp/plan.json")"
check "plan jvm: --json lists the 5 not used" "3050 4400 4401 4402 4403" \
        "$(jq -r '[.not_used[].pid] | join(" ")' "$tmp/plan.json")"
ht "$d" --color=never plan jvm >"$tmp/plan.txt" 2>&1
check_contains "plan jvm: text says why and what would use it" \
        "not used: java 4400: owned by nobody (uid 65534), in a user's session or user manager (/user.slice/user-65534.slice/session-9.scope); not root's, not a system service's, not jvm_user's; --set jvm_user=nobody would use it" \
        "$tmp/plan.txt"
check_contains "plan jvm: a real uid that is not the effective one" \
        "java 4403: owned by debian (uid 1000; its effective or saved uid differs)" "$tmp/plan.txt"
# the administrator names the user: then its JVM counts (13g + 240M more)
ht "$d" --json plan jvm --set jvm_user=nobody >"$tmp/named.json" 2>/dev/null
check "--set jvm_user=nobody: nobody's 13g JVM is used" \
        $(( (8 * G + 240 * M + 304 * M + 13 * G + 240 * M + 494 * M + 2 * M - 1) / (2 * M) + 2 )) "$(pages "$tmp/named.json")"
check "--set jvm_user=nobody: it is no longer listed" "3050 4401 4402 4403" \
        "$(jq -r '[.not_used[].pid] | join(" ")' "$tmp/named.json")"
# naming the unit the delegated cgroup spoofs trusts nothing more
ht "$d" --json show jvm --set jvm_unit=elasticsearch.service >"$tmp/unit.json" 2>/dev/null
check "--set jvm_unit=elasticsearch.service: the user's sub-cgroup of that name is not that unit" \
        $((8 * G + 240 * M + 304 * M)) "$(jq -r '.params[] | select(.name == "heap_size") | .value' "$tmp/unit.json")"

# --- MySQL/MariaDB: a MySQL server unit, a user's mariadbd, a container's ---
m=$(copy_host ol8-bls); scratch "$m"
printf '[mysqld]\nlarge_pages = ON\ninnodb_buffer_pool_size = 1G\n' >"$m/etc/my.cnf"
proc "$m" 600 mysqld 27 '1:name=systemd:/system.slice/mysqld.service' /usr/sbin/mysqld --basedir=/usr
echo 'u1000:x:1000:1000::/home/u:/bin/bash' >>"$m/etc/passwd"
# MariaDB sizes two more caches: a user's copy of mariadbd must not say so
proc "$m" 700 mariadbd 1000 '1:name=systemd:/user.slice/user-1000.slice/session-4.scope' /home/u/mariadbd
# a container's own mariadb.service is not the host's unit
proc "$m" 701 mariadbd 100999 '1:name=systemd:/machine.slice/machine-db.scope/payload/system.slice/mariadb.service' \
        /usr/sbin/mariadbd
# the same in a user's delegated cgroup
proc "$m" 702 mysqld 1000 '1:name=systemd:/user.slice/user-1000.slice/user@1000.service/app.slice/mariadb.service' \
        /usr/sbin/mysqld
ht "$m" --json facts >"$tmp/mf.json" 2>/dev/null
check "mysql: MySQL (the trusted server is mysqld), the unit is the trusted one's" "false mysqld.service" \
        "$(jq -r '.workload.mysql | "\(.mariadb) \(.unit)"' "$tmp/mf.json")"
check "mysql: the buffer pool alone, no MariaDB caches" "$G" "$(jq .workload.mysql.large_pages_bytes "$tmp/mf.json")"
check "mysql: not used" "700:mysql_user=u1000 701:null 702:mysql_user=u1000" \
        "$(jq -r '[.workload.mysql.not_used[] | "\(.pid):\(.set)"] | join(" ")' "$tmp/mf.json")"
rm -r "$m/proc/600"
ht "$m" --json facts >"$tmp/mf2.json" 2>/dev/null
check "mysql: with only untrusted servers: no unit, not MariaDB" "null false" \
        "$(jq -r '.workload.mysql | "\(.unit) \(.mariadb)"' "$tmp/mf2.json")"

# --- Oracle: ora_pmon_TEST by nobody, ora_pmon_DEV by the home's owner -----
o=$(copy_host oracle-running); scratch "$o"
owner=$(stat -c %u "$o/u01/app/oracle/product/19.0.0/dbhome_1")
proc "$o" 5000 ora_pmon_TEST 65534 '1:name=systemd:/user.slice/user-65534.slice/session-7.scope' ora_pmon_TEST
proc "$o" 5001 ora_pmon_DEV "$owner" '1:name=systemd:/user.slice/user-54321.slice/session-3.scope' ora_pmon_DEV
ht "$o" --json facts >"$tmp/of.json" 2>/dev/null
check "oracle: ORCL (dbora.service) runs, TEST (nobody's pmon) does not, DEV (the home owner's) does" \
        "ORCL:true +ASM:false TEST:false DEV:true" \
        "$(jq -r '[.workload.oracle.databases[] | "\(.sid):\(.running)"] | join(" ")' "$tmp/of.json")"
check "oracle: trust of ORCL's, TEST's and DEV's pmon" "service null $([ "$owner" = 0 ] && echo root || echo owner)" \
        "$(jq -r '[.workload.processes[] | select(.pid == 1234 or .pid == 5000 or .pid == 5001) | .trust] | map(tostring) | join(" ")' "$tmp/of.json")"
check "oracle: nobody's pmon listed, oracle_user=nobody would use it" "5000 oracle_user=nobody" \
        "$(jq -r '.workload.oracle.not_used[] | "\(.pid) \(.set)"' "$tmp/of.json")"
ht "$o" --json recommend >"$tmp/or.json" 2>/dev/null
check "oracle: recommend gives nobody's pmon no points" 0 \
        "$(jq '[.candidates[0].evidence[] | select(.pid == 5000) | .points] | add' "$tmp/or.json")"

# --- item 7: printed commands, quoted word by word -------------------------
# recommend names only what a plain plan would not find (issue 39), none of
# it host text; the --set a not-used process would need is the command
# text that carries a user's name: an owner whose name and group a shell
# would read, in a login session
q=$(copy_host debian12-kvm); scratch "$q"
rm -r "$q/proc/3050"
printf '0::/user.slice/user-1234.slice/session-4.scope\n' >"$q/proc/3001/cgroup"
sed -i 's/^Uid:.*/Uid:\t1234\t1234\t1234\t1234/' "$q/proc/3001/status"
printf "%s\n" "a b'c\"\$(touch x)\`id\`:x:1234:1234::/nonexistent:/bin/false" >>"$q/etc/passwd"
printf "%s\n" "g;rm -rf ~:x:1234:" >>"$q/etc/group"
ht "$q" --color=never plan jvm >"$tmp/nu.txt" 2>&1
ht "$q" --json plan jvm >"$tmp/nu.json" 2>/dev/null
set_text=$(sed -n 's/^not used: java 3001: .*; --set \(.*\) would use it$/\1/p' "$tmp/nu.txt")
check "item 7: the JSON names the --set as its words" "jvm_user=a b'c\"\$(touch x)\`id\`" \
        "$(jq -r '.not_used[] | select(.pid == 3001) | .set' "$tmp/nu.json")"
if command -v python3 >/dev/null 2>&1; then
        words=$(printf '%s' "$set_text" | python3 -c 'import shlex, sys; print("\n".join(shlex.split(sys.stdin.read())))')
        check "item 7: the printed --set reads back as exactly that word" \
                "jvm_user=a b'c\"\$(touch x)\`id\`" "$words"
else
        skip "item 7: the printed --set reads back as exactly that word" "no python3"
fi
check "item 7: the exact quoted text" "'jvm_user=a b'\\''c\"\$(touch x)\`id\`'" "$set_text"
ht "$q" recommend >"$tmp/next.txt" 2>&1
ht "$q" --json recommend >"$tmp/next.json" 2>/dev/null
check "item 7: recommend's text and JSON command agree" "$(sed -n 's/^Next: //p' "$tmp/next.txt")" \
        "$(jq -r .command "$tmp/next.json")"
# a root JVM in cgroups whose names no unit has: no unit in the command, a warning
for cg in '/system.slice/$(touch x).service' '/system.slice/`id`.service' "/system.slice/a'b.service"; do
        printf '0::%s\n' "$cg" >"$q/proc/3001/cgroup"
        sed -i 's/^Uid:.*/Uid:\t0\t0\t0\t0/' "$q/proc/3001/status"
        ht "$q" --json recommend >"$tmp/bad.json" 2>/dev/null
        check "item 7: cgroup $cg: no jvm_unit in recommend's command" 0 "$(jq -r .command "$tmp/bad.json" | grep -c jvm_unit)"
        ht "$q" --json facts >"$tmp/badf.json" 2>/dev/null
        check_contains "item 7: cgroup $cg: a warning names it" "which is not a valid unit name: not taken for a unit" \
                "$(jq -r '.warnings[]' "$tmp/badf.json" >"$tmp/badw"; echo "$tmp/badw")"
done
if [ -e x ] || [ -e "$q/x" ]; then not_ok "nothing ran the command's substitution"
else ok "nothing ran the command's substitution"; fi
finish
