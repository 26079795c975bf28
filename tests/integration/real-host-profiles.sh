#!/bin/sh
# Every shipped profile's runtime part on the machine's real kernel
# (issue 16, item 2): for each profile (parameters sized small: 64 MiB of
# HugePages), apply on the real /proc/sys and /sys, then roll back, and
# compare every value the plan touches, THP enabled and defrag included,
# with a snapshot read straight from /proc/sys and /sys before the apply
# (never from hosttune's output). Confined (real-host-lib.sh): the files
# hosttune writes go to a throwaway tree, and the test checks the
# machine's own /etc, /var/lib/hosttune and /run/hosttune.lock are as
# they were. Root only; whatever happens, the snapshot is written back.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
. "$top_srcdir/tests/integration/real-host-lib.sh"

[ "$(id -u)" = 0 ] || skip_all "not root"
real_host_lock
confine_ok || skip_all "no private mount namespace here (unshare -m, mount --bind): cannot confine hosttune"
sw=$(cat /proc/sys/vm/swappiness)
printf '%s\n' "$sw" 2>/dev/null >/proc/sys/vm/swappiness || skip_all "/proc/sys is read-only"
thp=/sys/kernel/mm/transparent_hugepage
[ -w "$thp/enabled" ] && [ -w "$thp/defrag" ] || skip_all "no writable $thp/enabled and defrag"

# The profiles and their parameters: every shipped one must be here.
cases="base|
oracle|--set sga_max_size=64M
mysql|--set innodb_buffer_pool_size=64M
jvm|--set heap_size=64M"
for f in "$top_srcdir"/profiles/*.profile; do
        p=$(basename "$f" .profile)
        printf '%s\n' "$cases" | grep -q "^$p|" && ok "shipped profile $p is tested" ||
                not_ok "shipped profile $p has no case here"
done

word() { sed 's/.*\[\(.*\)\].*/\1/'; }
# snapshot KEYFILE OUT: "key<TAB>file<TAB>content as read" for each key
snapshot() {
        while IFS= read -r k; do
                case $k in /*) f=$k ;; *) f=$(sysctl_path "$k") ;; esac
                printf '%s\t%s\t%s\n' "$k" "$f" "$(cat "$f" 2>&1)"
        done <"$1" >"$2"
}
# put_back SNAPSHOT: write each value as the kernel takes it back
put_back() {
        while IFS="$(printf '\t')" read -r k f v; do
                case $v in *\[*\]*) v=$(printf '%s\n' "$v" | word) ;; esac
                printf '%s\n' "$v" >"$f" 2>/dev/null
        done <"$1"
}
guard=
restore() {
        [ -n "$guard" ] && [ -f "$guard" ] && put_back "$guard"
        rm -rf "$tmp"
}
trap restore EXIT
trap 'restore; exit 1' INT TERM

host_files >"$tmp/host-files-before"
printf '%s\n' "$cases" >"$tmp/cases"
# (not a pipe: the loop must count its checks in this shell)
while IFS='|' read -r prof sets; do
        CROOT=$tmp/root-$prof
        mkconfined_root "$CROOT"
        # shellcheck disable=SC2086
        hc 2 "$prof: plan on the real kernel" --json plan $prof $sets
        cp "$tmp/out" "$tmp/plan-$prof.json"
        # every sysctl and sysfs key the plan names, and THP always
        i=0
        : >"$tmp/keys-$prof"
        : >"$tmp/runtime-$prof"
        while [ "$i" -lt "$(jq_get "$tmp/plan-$prof.json" changes.#)" ]; do
                b=$(jq_get "$tmp/plan-$prof.json" "changes.$i.backend")
                k=$(jq_get "$tmp/plan-$prof.json" "changes.$i.key")
                # a cpu setting has one change per cpufreq policy or CPU:
                # its path is the key
                [ "$b" = cpu ] && k=$(jq_get "$tmp/plan-$prof.json" "changes.$i.path")
                case $b in sysctl | sysfs | cpu)
                        case $k in "" | null) i=$((i + 1)); continue ;; esac
                        echo "$k" >>"$tmp/keys-$prof"
                        [ "$(jq_get "$tmp/plan-$prof.json" "changes.$i.runtime")" = true ] &&
                                printf '%s\t%s\n' "$k" "$(jq_get "$tmp/plan-$prof.json" "changes.$i.desired")" \
                                        >>"$tmp/runtime-$prof" ;;
                esac
                i=$((i + 1))
        done
        # oracle's governor is optional: this machine's real cpufreq takes
        # it, one change per policy, or it has none (most VMs, as the
        # machine this was written on) and the plan says so on one line
        if [ "$prof" = oracle ]; then
                if ls /sys/devices/system/cpu/cpufreq 2>/dev/null | grep -q '^policy'; then
                        check "$prof: the governor is planned per cpufreq policy, or already performance" "" \
                                "$(for pol in /sys/devices/system/cpu/cpufreq/policy*; do
                                        [ -s "$pol/affected_cpus" ] || continue
                                        [ "$(cat "$pol/scaling_governor")" = performance ] && continue
                                        grep -qF "$pol/scaling_governor" "$tmp/keys-$prof" || echo "$pol"
                                done)"
                elif ! command -v jq >/dev/null 2>&1; then
                        skip "$prof: no cpufreq here: the optional governor is one skip" "jq is not installed (scripts/deps.sh installs it)"
                else
                        check "$prof: no cpufreq here: the optional governor is one skip" 1 \
                                "$(jq -r '[.skipped[] | select(.setting == "cpu governor") | .reason] | length' "$tmp/plan-$prof.json")"
                        check "... and no cpu change is written" 0 \
                                "$(jq -r '[.changes[] | select(.backend == "cpu" and .runtime)] | length' "$tmp/plan-$prof.json")"
                fi
        fi
        printf '%s\n%s\n' "$thp/enabled" "$thp/defrag" >>"$tmp/keys-$prof"
        sort -u -o "$tmp/keys-$prof" "$tmp/keys-$prof"
        nrt=$(wc -l <"$tmp/runtime-$prof")
        [ "$nrt" -gt 0 ] && ok "$prof: the plan changes $nrt runtime value(s)" ||
                not_ok "$prof: the plan changes no runtime value; nothing is tested"
        snapshot "$tmp/keys-$prof" "$tmp/before-$prof"
        guard=$tmp/before-$prof
        # a plan that is not ours to undo (an error, a key we cannot read) stops here
        if grep -q "$(printf '\t')cat: " "$tmp/before-$prof"; then
                not_ok "$prof: cannot read every value the plan touches: $(grep "$(printf '\t')cat: " "$tmp/before-$prof" | head -3)"
                continue
        fi

        # shellcheck disable=SC2086
        hc 0 "$prof: apply on the real kernel" --json apply $prof $sets
        while IFS="$(printf '\t')" read -r k want; do
                case $k in /*) f=$k ;; *) f=$(sysctl_path "$k") ;; esac
                got=$(cat "$f")
                case $got in *\[*\]*) got=$(printf '%s\n' "$got" | word) ;; esac
                got=$(printf '%s' "$got" | tr -s ' \t' '  ')
                if [ "$k" = vm.nr_hugepages ] && [ "$got" != "$want" ]; then
                        # fragmented memory: the pool may come back short; the
                        # apply must then say a reboot is needed
                        check "$prof: HugePages short ($got of $want): reboot required" true \
                                "$(jq_get "$tmp/out" reboot_required)"
                        continue
                fi
                check "$prof: $k is $want in the kernel" "$want" "$got"
        done <"$tmp/runtime-$prof"
        check "$prof: the sysctl drop-in is in the tree" yes \
                "$([ -f "$CROOT/etc/sysctl.d/90-hosttune.conf" ] && echo yes || echo no)"

        # the oracle profile's logind drop-in: written in the tree only
        # (the machine's /etc is compared at the end)
        if [ "$(jq -r '[.changes[] | select(.backend == "systemd" and .outcome == "change")] | length' "$tmp/out")" != 0 ]; then
                check "$prof: the logind drop-in is in the tree" "RemoveIPC=no" \
                        "$(grep -h '^RemoveIPC=' "$CROOT/etc/systemd/logind.conf.d/90-hosttune.conf" 2>&1)"
        fi
        hc 0 "$prof: rollback on the real kernel" rollback
        snapshot "$tmp/keys-$prof" "$tmp/after-$prof"
        while IFS="$(printf '\t')" read -r k f v; do
                check "$prof: $k as before" "$v" "$(grep "^$k$(printf '\t')" "$tmp/after-$prof" | cut -f3-)"
        done <"$tmp/before-$prof"
        check "$prof: no drop-in left in the tree" "" \
                "$(find "$CROOT/etc/sysctl.d" "$CROOT/etc/security/limits.d" "$CROOT/etc/tmpfiles.d" \
                        "$CROOT/etc/systemd/logind.conf.d" "$CROOT/etc/systemd/system.conf.d" -type f 2>/dev/null)"
        check "$prof: the GRUB defaults in the tree as before" "" \
                "$(cmp "$HOSTS/debian12-kvm/etc/default/grub" "$CROOT/etc/default/grub" 2>&1)"
        guard=
done <"$tmp/cases"
host_files >"$tmp/host-files-after"
if d=$(diff "$tmp/host-files-before" "$tmp/host-files-after"); then
        ok "the machine's own /etc, /boot, /var/lib/hosttune and /run/hosttune.lock are untouched"
else not_ok "the machine's files changed: $(printf '%s' "$d" | head -c 800)"; fi
finish
