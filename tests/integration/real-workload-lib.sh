# Shared by real-mariadb.sh and real-jvm.sh (issue 20, part 4): the real
# host, confined as real-host-apply.sh confines it (real-host-lib.sh:
# hosttune runs with --root on a throwaway tree whose proc/ and sys/ are
# the machine's, so its runtime writes reach the real kernel and its files
# stay in the tree; the machine's own drop-in paths are checked untouched). Root only; the real
# /proc/sys under real_host_lock; a temporary state directory; hosttune's
# drop-ins must be absent before (this machine is not managed by
# hosttune) and are removed by the rollback; every value the plan changes
# and all of vm.* are compared before and after; the processes the test
# started are stopped and their directories removed (trap).
# Sourced after lib.sh and apply-lib.sh; the caller sets rw_dropins
# (the files its profile writes) and defines rw_stop (stops its process).
HOSTTUNE_NO_AUDIT=1
export HOSTTUNE_NO_AUDIT

[ "$(id -u)" = 0 ] || skip_all "not root: the test starts a real server with HugePages"
real_host_lock
grep -q '^HugePages_Total:' /proc/meminfo || skip_all "no HugePages in this kernel"
for f in $rw_dropins /etc/tmpfiles.d/hosttune.conf; do
        [ -e "$f" ] && skip_all "$f exists: hosttune manages this machine; not touching it"
done
[ -e /run/hosttune.lock ] && ! flock -n /run/hosttune.lock true && skip_all "another hosttune runs on this machine"
rw_hp0=$(cat /proc/sys/vm/nr_hugepages)
printf '%s\n' "$rw_hp0" 2>/dev/null >/proc/sys/vm/nr_hugepages || skip_all "/proc/sys/vm/nr_hugepages is read-only"
[ "$(awk '/^HugePages_Total:/ { print $2 }' /proc/meminfo)" = "$rw_hp0" ] ||
        skip_all "HugePages_Total differs from vm.nr_hugepages: something else uses HugePages here"
# vm.* as the test found it (the keys the plans change are all there)
rw_vm() { sysctl vm 2>/dev/null | grep -v '^vm.stat_refresh' | sort; }
rw_vm >"$tmp/vm-before"
# the disks' schedulers (mysql's block settings), restored by the trap too
for d in /sys/block/*/queue/scheduler; do
        [ -w "$d" ] && grep -q '\[' "$d" && printf '%s %s\n' "$d" "$(sed 's/.*\[\(.*\)\].*/\1/' "$d")"
done >"$tmp/sched-before"
rw_had_lock=no
[ -e /run/hosttune.lock ] && rw_had_lock=yes
rw_dirs=""
for d in /etc/sysctl.d /etc/security/limits.d /etc/systemd/system; do [ -d "$d" ] && rw_dirs="$rw_dirs $d"; done
# the work directory: one other users may enter (the server drops to its
# own user), removed by the trap
rw_work=$(mktemp -d /var/tmp/hosttune-real-workload.XXXXXX) || exit 99
chmod 0755 "$rw_work"
. "$top_srcdir/tests/integration/real-host-lib.sh"
confine_ok || { rm -rf "$rw_work"; skip_all "no private mount namespace (unshare -m) to confine hosttune to a throwaway root"; }
PROFILES=$top_srcdir/profiles RULES=$top_srcdir/rules
# the tree hosttune is confined to; inside $rw_work, so the server's user
# can read the option file the test writes there for it and for the facts
CROOT=$rw_work/root
mkconfined_root "$CROOT"
# the unit files the machine has for the workload (Debian's mariadb-server
# ships mariadb.service, with mysql.service and mysqld.service as aliases)
for u in mariadb.service mysql.service mysqld.service; do
        for d in /lib/systemd/system /usr/lib/systemd/system; do
                [ -e "$d/$u" ] && { cp -P "$d/$u" "$CROOT/lib/systemd/system/$u"; break; }
        done
done

rw_restore() {
        rw_stop
        # what the rollback should have done already, done again whatever
        # happened before it: the values, the files only this test made
        while read -r k _ v; do
                case "$k" in
                vm.nr_hugepages | vm.hugetlb_shm_group | vm.swappiness | vm.dirty_ratio | \
                        vm.dirty_background_ratio | vm.max_map_count)
                        printf '%s\n' "$v" >"/proc/sys/$(echo "$k" | tr . /)" 2>/dev/null ;;
                esac
        done <"$tmp/vm-before"
        while read -r f w; do printf '%s\n' "$w" >"$f" 2>/dev/null; done <"$tmp/sched-before"
        rm -rf "$rw_work" "$tmp"
}
trap rw_restore EXIT
trap 'rw_restore; exit 1' INT TERM

# hr EXPECTED-EXIT DESC ARGS...: hosttune confined to $CROOT (the real
# kernel's /proc and /sys), the shipped profiles, this test's journal
rw_state=$tmp/state
hr() { hc "$@" --state-dir "$rw_state"; }
# the plan may change only what the rollback and the trap restore
rw_check_plan() {
        # every file the plan writes is one the trap restores (a server
        # that maps its pages needs no limits drop-in: issue 33)
        extra=$(jq -r '.files[].path' "$1" | while read -r f; do
                case " $(echo $rw_dropins) " in *" $f "*) ;; *) printf '%s ' "$f" ;; esac; done)
        check "plan: files are among the drop-ins this test restores" "" "$extra"
        check "plan: it writes some" yes "$([ "$(jq '.files | length' "$1")" -gt 0 ] && echo yes || echo no)"
        check "plan: no actions, no kernel command line" "0 0" \
                "$(jq '.actions | length' "$1") $(jq '[.changes[] | select(.backend == "cmdline" or .backend == "sysfs")] | length' "$1")"
}
meminfo() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
# HugePages in use as verify counts them, read here: faulted in + reserved
rw_in_use() { echo $(($(meminfo HugePages_Total) - $(meminfo HugePages_Free) + $(meminfo HugePages_Rsvd))); }
smaps_kb() { awk -v k="$2:" '$1 == k { s += $2 } END { print s + 0 }' "/proc/$1/smaps_rollup"; }
hugetlb_kb() { echo $(($(smaps_kb "$1" Private_Hugetlb) + $(smaps_kb "$1" Shared_Hugetlb))); }
# between LOW and HIGH (a live process's counters may move while read)
check_between() {
        if [ -n "$3" ] && [ "$3" != null ] && [ "$3" -ge "$2" ] && [ "$3" -le "$4" ]; then ok "$1 ($3)"
        else not_ok "$1: expected $2..$4, got [$3]"; fi
}
# check_process PID NAME: status's figures for the process, against its
# /proc files read before and after
check_process() {
        pte0=$(awk '$1 == "VmPTE:" { print $2 }' "/proc/$1/status") ht0=$(hugetlb_kb "$1")
        mf0=$(sed 's/.*) //' "/proc/$1/stat" | awk '{ print $10 }')
        hr 0 "status with $2 running" --json status --interval 1
        cp "$tmp/out" "$tmp/status.json"
        pte1=$(awk '$1 == "VmPTE:" { print $2 }' "/proc/$1/status") ht1=$(hugetlb_kb "$1")
        mf1=$(sed 's/.*) //' "/proc/$1/stat" | awk '{ print $10 }')
        sel=".processes[] | select(.pid == $1)"
        check "status: $2 listed by its pid" "\"$2\"" "$(jq -c "$sel | .name" "$tmp/status.json")"
        lo=$((pte0 < pte1 ? pte0 : pte1)) hi=$((pte0 > pte1 ? pte0 : pte1))
        check_between "status: $2 VmPTE as /proc/$1/status has it" "$lo" "$(jq "$sel | .vm_pte_kb" "$tmp/status.json")" "$hi"
        lo=$((ht0 < ht1 ? ht0 : ht1)) hi=$((ht0 > ht1 ? ht0 : ht1))
        check_between "status: $2 Hugetlb as smaps_rollup has it" "$lo" "$(jq "$sel | .hugetlb_kb" "$tmp/status.json")" "$hi"
        check_between "status: $2 majflt as /proc/$1/stat has it" "$mf0" "$(jq "$sel | .majflt" "$tmp/status.json")" "$mf1"
        r=$(jq "$sel | .majflt_per_second" "$tmp/status.json")
        if [ "$r" != null ] && [ "$(echo "$r" | awk -v a="$mf0" -v b="$mf1" '{ print ($1 >= 0 && $1 <= b - a) ? "y" : "n" }')" = y ]
        then ok "status: $2 majflt rate over the interval ($r/s)"
        else not_ok "status: $2 majflt rate over the interval: [$r], counter went $mf0 -> $mf1"; fi
}
# use_check FIELD: verify's "HugePages in use" check in $tmp/out
use_check() { jq -c '.checks[] | select(.key == "HugePages in use") | '"$1" "$tmp/out"; }
# rw_check_pages_in_use: verify with the workload running on its pages:
# ok, and the in-use figure as /proc/meminfo has it
rw_check_pages_in_use() {
        hr 0 "verify: pages in use" --json verify
        check "verify: ok" '"ok"' "$(jq -c .status "$tmp/out")"
        check "the check: ok" '"ok"' "$(use_check .status)"
        check "actual: as /proc/meminfo has it" \
                "\"$(rw_in_use) in use ($(meminfo HugePages_Free) free, $(meminfo HugePages_Rsvd) reserved)\"" "$(use_check .actual)"
}
# after the rollback: vm.* as before, the drop-ins gone
rw_check_restored() {
        rw_vm >"$tmp/vm-after"
        if diff "$tmp/vm-before" "$tmp/vm-after" >"$tmp/vm-diff"; then ok "vm.* as before the test"
        else not_ok "vm.* differs after the rollback: $(head -c 600 "$tmp/vm-diff")"; fi
        for f in $rw_dropins; do
                check "$f is gone from the tree" no "$([ -e "$CROOT$f" ] && echo yes || echo no)"
                check "the machine's $f never written" no "$([ -e "$f" ] && echo yes || echo no)"
        done
        [ "$rw_had_lock" = yes ] ||
                check "no /run/hosttune.lock on the machine" no "$([ -e /run/hosttune.lock ] && echo yes || echo no)"
        for d in $rw_dirs; do check "$d still there" yes "$([ -d "$d" ] && echo yes || echo no)"; done
        check "HugePages_Total as before" "$rw_hp0" "$(meminfo HugePages_Total)"
}
