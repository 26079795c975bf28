#!/bin/sh
# The real host (issue 5): apply a small profile to the running kernel —
# vm.swappiness and a few more HugePages — with a temporary state
# directory, check /proc/sys and HugePages_Total, verify, roll back, and
# check every value is as before. Root only, and only where /proc/sys is
# writable; whatever happens, the saved values are written back (trap).
# Confined (real-host-lib.sh): the runtime writes reach the real kernel,
# the files hosttune writes land in a throwaway tree, and the machine's
# own /etc, /var/lib/hosttune and /run/hosttune.lock are checked unchanged.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
. "$top_srcdir/tests/integration/real-host-lib.sh"

[ "$(id -u)" = 0 ] || skip_all "not root"
real_host_lock
[ -r /proc/sys/vm/swappiness ] && [ -r /proc/sys/vm/nr_hugepages ] || skip_all "no vm.swappiness or vm.nr_hugepages"
grep -q '^HugePages_Total:' /proc/meminfo || skip_all "no HugePages in this kernel"
confine_ok || skip_all "no private mount namespace here (unshare -m, mount --bind): cannot confine hosttune"
CROOT=$tmp/root
mkconfined_root "$CROOT"
dropin=$CROOT/etc/sysctl.d/90-hosttune.conf

swap0=$(cat /proc/sys/vm/swappiness)
hp0=$(cat /proc/sys/vm/nr_hugepages)
# a no-op write tells whether /proc/sys takes writes (read-only in containers)
printf '%s\n' "$swap0" 2>/dev/null >/proc/sys/vm/swappiness || skip_all "/proc/sys is read-only"
printf '%s\n' "$hp0" 2>/dev/null >/proc/sys/vm/nr_hugepages || skip_all "/proc/sys/vm/nr_hugepages is read-only"
# THP: a choice file that shows three words and takes one (a fixture's
# plain file takes anything; the kernel's refuses "always [madvise] never")
thp=/sys/kernel/mm/transparent_hugepage
tmpfiles_dropin=$CROOT/etc/tmpfiles.d/hosttune.conf
word() { sed 's/.*\[\(.*\)\].*/\1/' "$1"; }
thp_ok=no
if [ -w "$thp/enabled" ] && [ -w "$thp/defrag" ]; then
        thp_en0=$(word "$thp/enabled") thp_df0=$(word "$thp/defrag")
        thp_ok=yes
fi

# another choice list (mm/shmem.c shmem_enabled_store takes one word) and
# a value the kernel prints tab-separated (kernel.sem, proc_dointvec)
shm=$thp/shmem_enabled
sem=/proc/sys/kernel/sem
other_ok=no
if [ -w "$shm" ] && [ -w "$sem" ] && grep -q '\[' "$shm"; then
        shm0=$(cat "$shm") sem0=$(cat "$sem")
        other_ok=yes
fi
restore() {
        if [ "$other_ok" = yes ]; then
                printf '%s\n' "$shm0" | sed 's/.*\[\(.*\)\].*/\1/' >"$shm" 2>/dev/null
                printf '%s\n' "$sem0" >"$sem" 2>/dev/null
        fi
        printf '%s\n' "$swap0" >/proc/sys/vm/swappiness 2>/dev/null
        printf '%s\n' "$hp0" >/proc/sys/vm/nr_hugepages 2>/dev/null
        if [ "$thp_ok" = yes ]; then
                printf '%s\n' "$thp_en0" >"$thp/enabled" 2>/dev/null
                printf '%s\n' "$thp_df0" >"$thp/defrag" 2>/dev/null
        fi
        rm -rf "$tmp"
}
trap restore EXIT
trap 'restore; exit 1' INT TERM

swap1=$((swap0 == 33 ? 34 : 33))
hp1=$((hp0 + 2))
mkdir -p "$tmp/profiles"
cat >"$tmp/profiles/ht-real-host-test.profile" <<EOP
summary = "hosttune real-host test: two sysctl values, nothing else";
sysctl = { vm = { swappiness = $swap1; nr_hugepages = $hp1; }; };
EOP
state=$tmp/state
PROFILES=$tmp/profiles RULES=$top_srcdir/rules
hr() { hc "$@" --state-dir "$state"; }
host_files >"$tmp/host-files-before"

# the plan must touch the two values and the sysctl drop-in, nothing else
hr 2 "plan on the real host" --json plan ht-real-host-test
cp "$tmp/out" "$tmp/plan.json"
check "plan: only sysctl changes" "sysctl sysctl" "$(jq_get "$tmp/plan.json" 'changes.*.backend' | tr '\n' ' ' | sed 's/ $//')"
check "plan: only the sysctl drop-in" "/etc/sysctl.d/90-hosttune.conf" "$(jq_get "$tmp/plan.json" 'files.*.path' | tr '\n' ' ' | sed 's/ $//')"
check "plan: no actions" "0" "$(jq_get "$tmp/plan.json" actions.#)"
if [ "$failed" -gt 0 ]; then
        echo "# the plan would touch more than this test restores; not applying"
        finish
fi

hr 0 "apply on the real host" --json apply ht-real-host-test
cp "$tmp/out" "$tmp/apply.json"
txid=$(jq_get "$tmp/apply.json" txid)
check "apply changed the host" "true" "$(jq_get "$tmp/apply.json" changed)"
check "vm.swappiness in /proc/sys" "$swap1" "$(cat /proc/sys/vm/swappiness)"
hpt=$(awk '/^HugePages_Total:/ { print $2 }' /proc/meminfo)
hpk=$(cat /proc/sys/vm/nr_hugepages)
if [ "$hpt" -ge "$hp1" ]; then
        ok "HugePages_Total is $hpt (asked for $hp1)"
        check "no reboot needed" "false" "$(jq_get "$tmp/apply.json" reboot_required)"
        verify_want=0
else
        # fragmented memory: persisted, and the result must say so with the
        # count the kernel really has
        check "HugePages short ($hpt of $hp1): reboot required" "true" "$(jq_get "$tmp/apply.json" reboot_required)"
        check_contains "the reason gives the kernel's count" \
                "HugePages_Total is $hpt of the $hp1 asked for: memory is too fragmented" "$tmp/apply.json"
        verify_want=3
fi
# the kernel took the write: the pool moved from hp0 towards hp1 (a
# kernel that ignored it would leave HugePages_Total at hp0)
if [ "$hpk" -gt "$hp0" ] || [ "$hpt" -gt "$hp0" ]; then ok "the kernel's pool grew: $hp0 -> $hpt"
else not_ok "the kernel's pool did not grow: still $hpt after asking for $hp1"; fi
check_contains "the drop-in persists vm.swappiness" "vm.swappiness = $swap1" "$dropin"
check "the drop-in is 0644 root:root" "644 0:0" "$(stat -c '%a %u:%g' "$dropin")"
check "the lock is the tree's /run/hosttune.lock" "yes" "$([ -f "$CROOT/run/hosttune.lock" ] && echo yes || echo no)"

hr 0 "apply again changes nothing" --json apply ht-real-host-test
check "second apply: changed false" "false" "$(jq_get "$tmp/out" changed)"

# a sysctl-only apply whose HugePages all came needs no reboot: verify
# exits 0; only the short pool is "reboot pending" (3)
hr "$verify_want" "verify after apply" --json verify
check "verify: status" "$([ "$verify_want" = 0 ] && echo ok || echo reboot-pending)" "$(jq_get "$tmp/out" status)"
check "verify: vm.swappiness is what the kernel has" "vm.swappiness $swap1" \
        "$(paste -d' ' "$(jq_get "$tmp/out" 'checks.*.key' >"$tmp/k"; echo "$tmp/k")" \
        "$(jq_get "$tmp/out" 'checks.*.actual' >"$tmp/a"; echo "$tmp/a")" | grep '^vm.swappiness ')"

hr 0 "rollback on the real host" rollback
check_contains "rollback names the transaction" "$txid" "$tmp/out"
check "vm.swappiness as before" "$swap0" "$(cat /proc/sys/vm/swappiness)"
check "vm.nr_hugepages as before" "$hp0" "$(cat /proc/sys/vm/nr_hugepages)"
check "the drop-in is gone" "no" "$([ -e "$dropin" ] && echo yes || echo no)"
hr 0 "history" --json history
check "history: the apply is rolled back, the rollback recorded" "rolled-back committed" \
        "$(jq_get "$tmp/out" 'transactions.*.status' | tr '\n' ' ' | sed 's/ $//')"

# ---- THP enabled and defrag on the real kernel: apply, roll back --------
if [ "$thp_ok" = yes ]; then
        en1=$([ "$thp_en0" = never ] && echo madvise || echo never)
        df1=$([ "$thp_df0" = never ] && echo madvise || echo never)
        cat >"$tmp/profiles/ht-real-host-thp.profile" <<EOP
summary = "hosttune real-host test: THP enabled and defrag, nothing else";
sysfs = ( { path = "$thp/enabled"; value = "$en1"; }, { path = "$thp/defrag"; value = "$df1"; } );
EOP
        hr 0 "THP: apply on the real kernel" apply ht-real-host-thp
        check "THP: enabled is $en1" "$en1" "$(word "$thp/enabled")"
        check "THP: defrag is $df1" "$df1" "$(word "$thp/defrag")"
        hr 0 "THP: rollback on the real kernel" rollback
        check "THP: enabled as before" "$thp_en0" "$(word "$thp/enabled")"
        check "THP: defrag as before" "$thp_df0" "$(word "$thp/defrag")"
        check "THP: the tmpfiles drop-in is gone" "no" "$([ -e "$tmpfiles_dropin" ] && echo yes || echo no)"
        check "THP: the tree's /etc/tmpfiles.d is gone too" "no" "$([ -d "$CROOT/etc/tmpfiles.d" ] && echo yes || echo no)"
else
        skip "THP: apply and roll back on the real kernel" "no writable $thp/enabled and defrag"
fi

# ---- shmem_enabled and kernel.sem on the real kernel ---------------------
if [ "$other_ok" = yes ]; then
        shmw0=$(word "$shm")
        shm1=$([ "$shmw0" = advise ] && echo never || echo advise)
        # one more semaphore set (semmni): raises a limit, lowers none
        sem_sp=$(printf '%s\n' "$sem0" | tr -s ' \t' '  ')
        sem1=$(printf '%s\n' "$sem_sp" | awk '{ $4 = $4 + 1; print }')
        cat >"$tmp/profiles/ht-real-host-fields.profile" <<EOP
summary = "hosttune real-host test: shmem_enabled and kernel.sem, nothing else";
sysctl = { kernel = { sem = "$sem1"; }; };
sysfs = ( { path = "$shm"; value = "$shm1"; } );
EOP
        hr 0 "fields: apply on the real kernel" --json apply ht-real-host-fields
        ftx=$(jq_get "$tmp/out" txid)
        check "fields: shmem_enabled is $shm1" "$shm1" "$(word "$shm")"
        check "fields: kernel.sem is $sem1" "$sem1" "$(tr -s ' \t' '  ' <"$sem")"
        m=$state/journal/$ftx/manifest.json
        i=0 jsem= jshm=
        while [ "$i" -lt "$(jq_get "$m" items.#)" ]; do
                case $(jq_get "$m" "items.$i.key") in
                kernel.sem) jsem=$(jq_get "$m" "items.$i.prior.value") ;;
                "$shm") jshm=$(jq_get "$m" "items.$i.prior.value") ;;
                esac
                i=$((i + 1))
        done
        check "fields: the journal keeps shmem_enabled as the word the kernel takes" "$shmw0" "$jshm"
        check "fields: the journal keeps kernel.sem one space apart" "$sem_sp" "$jsem"
        hr 0 "fields: rollback on the real kernel" rollback
        check "fields: shmem_enabled as before, as the kernel prints it" "$shm0" "$(cat "$shm")"
        check "fields: kernel.sem as before, as the kernel prints it (tabs)" "$sem0" "$(cat "$sem")"
else
        skip "fields: shmem_enabled and kernel.sem on the real kernel" "no writable $shm choice list or $sem"
fi

host_files >"$tmp/host-files-after"
if d=$(diff "$tmp/host-files-before" "$tmp/host-files-after"); then
        ok "the machine's own /etc, /boot, /var/lib/hosttune and /run/hosttune.lock are untouched"
else not_ok "the machine's files changed: $(printf '%s' "$d" | head -c 800)"; fi
finish
