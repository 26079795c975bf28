#!/bin/sh
# "A host already in the profile's state yields an empty plan": every
# shipped profile (and the --set cases of the goldens) against a copy of
# every fixture host: apply, then plan exits 0 with changed false, the
# kernel command line words that wait for a reboot are reported as pending
# (outcome kept, reboot_required), and a second apply changes nothing.
# Where the profile cannot apply (errors), plan and apply exit 1 and
# nothing is written.
# fsync is slow on disks and free on tmpfs
[ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ] && TMPDIR=/dev/shm && export TMPDIR
. "${top_srcdir:-.}/tests/integration/lib.sh"
HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1 LC_ALL=C
export HOSTTUNE_INSECURE_PROFILES HOSTTUNE_NO_AUDIT LC_ALL
command -v jq >/dev/null 2>&1 || { echo "1..0 # SKIP jq not installed"; exit 0; }

ht() { # ROOT ARGS...
        r=$1
        shift
        "$HOSTTUNE" --root "$r" --profile-path "$PROFILES" --rules-path "$top_srcdir/rules" "$@"
}

# converge NAME HOST PROFILE [--set K=V]...
converge() {
        name=$1 host=$2 profile=$3
        shift 3
        root=$(copy_host "$host"); scratch "$root"
        # UNITS=OVERLAY: the unit files of tests/units/OVERLAY/lib on the copy (the
        # service the limits are for; not its absolute wants link, which
        # dangles outside a chroot and diff -r follows)
        [ -z "${UNITS:-}" ] || cp -a "$top_srcdir/tests/units/$UNITS/lib" "$root/"
        ht "$root" --json apply "$profile" "$@" >"$tmp/apply1" 2>"$tmp/err"
        code=$?
        check "$name: first apply" 0 "$code"
        [ "$code" = 0 ] || { sed 's/^/# /' "$tmp/err" | head -5; return; }
        cp -a "$root" "$tmp/after-apply"

        ht "$root" --json plan "$profile" "$@" >"$tmp/plan" 2>"$tmp/err"
        check "$name: plan after apply exits 0" 0 "$?"
        # one jq run: changed, files, changing keys, reboot_required
        check "$name: plan after apply: changed false, no files, no changes" "false 0 []" \
                "$(jq -c '"\(.changed) \(.files | length) \([.changes[] | select(.outcome == "change") | .key])"' "$tmp/plan" | tr -d '"')"
        # Words the running kernel (/proc/cmdline) lacks wait for the
        # reboot: listed as kept + reboot_required, and the plan says so.
        # A word another machine sets (a container's node, a microVM's
        # host) is skipped, never persisted here: nothing waits for it.
        pending=$(jq -r --rawfile cmdline "$root/proc/cmdline" --slurpfile plan "$tmp/plan" '
                ($cmdline | split(" ") | map(rtrimstr("\n"))) as $running
                | .changes[] | select(.backend == "cmdline" and .desired != null and .outcome != "skipped")
                | select(.desired as $d | $running | index($d) | not)
                | .key as $k
                | "\($k)=\([$plan[0].changes[] | select(.key == $k) | "\(.outcome)/\(.reboot_required)"] | join(","))/\($plan[0].reboot_required)"
                ' "$tmp/apply1")
        if [ -n "$pending" ]; then
                ht "$root" --color=never plan "$profile" "$@" >"$tmp/plan.txt" 2>&1
                for p in $pending; do
                        check "$name: ${p%%=*} pending a reboot (outcome/reboot_required/plan reboot_required)" \
                                "${p%%=*}=kept/true/true" "$p"
                        check_contains "$name: text plan lists ${p%%=*} as pending" "pending reboot: cmdline ${p%%=*}" "$tmp/plan.txt"
                done
        fi

        ht "$root" --json apply "$profile" "$@" >"$tmp/apply2" 2>"$tmp/err"
        check "$name: second apply" 0 "$?"
        check "$name: second apply: changed false" false "$(jq .changed "$tmp/apply2")"
        # Byte for byte: nothing but hosttune's own state moved.
        if diff -r -x hosttune "$tmp/after-apply" "$root" >"$tmp/diff" 2>&1; then
                ok "$name: second apply wrote nothing"
        else
                not_ok "$name: second apply wrote: $(head -c 400 "$tmp/diff")"
        fi
        rm -rf "$tmp/after-apply" "$root"
}

# refused NAME HOST PROFILE [--set K=V]...: exit 1, nothing written
refused() {
        name=$1 host=$2 profile=$3
        shift 3
        root=$(copy_host "$host"); scratch "$root"
        ht "$root" --json plan "$profile" "$@" >"$tmp/plan" 2>&1
        check "$name: plan exits 1" 1 "$?"
        check "$name: plan lists errors" true "$(jq '.errors | length > 0' "$tmp/plan" 2>/dev/null)"
        ht "$root" apply "$profile" "$@" >"$tmp/out" 2>&1
        check "$name: apply exits 1" 1 "$?"
        # the run lock is hosttune's own (a lock file stays, as flock files do)
        rm -f "$root/run/hosttune.lock"
        [ -d "$HOSTS/$host/run" ] || rmdir "$root/run" 2>/dev/null
        if diff -r "$HOSTS/$host" "$root" >"$tmp/diff" 2>&1; then ok "$name: nothing written"; else
                not_ok "$name: apply wrote: $(head -c 400 "$tmp/diff")"; fi
        rm -rf "$root"
}

hi=0
for h in "$HOSTS"/*/; do
        host=$(basename "$h")
        hi=$((hi + 1)) pi=0
        for p in base oracle mysql jvm; do
                pi=$((pi + 1))
                sampled $((hi + pi)) || continue
                # containers and the microVM converge too: their kernel
                # command line is skipped (set by the node or the VM's host)
                converge "$host/$p" "$host" "$p"
        done
done
converge ol8-bls/oracle-sga18g ol8-bls oracle --set sga_max_size=18G
converge oracle-running/oracle-sga18g oracle-running oracle --set sga_max_size=18G
refused debian12-kvm/oracle-sga18g debian12-kvm oracle --set sga_max_size=18G
refused rhel5-xen/oracle-sga2g rhel5-xen oracle --set sga_max_size=2G
converge rhel5-xen/oracle-sga2g-switch rhel5-xen oracle --set sga_max_size=2G --set allow_kernel_switch=true
UNITS=debian12-mariadb
converge debian12-kvm/mysql-bp4g debian12-kvm mysql --set innodb_buffer_pool_size=4G
UNITS=
converge alinux3-hugetext/mysql-bp2g-mariadb alinux3-hugetext mysql --set innodb_buffer_pool_size=2G \
        --set mysql_unit=mariadb

# The Xen switch: after apply the new default entry and vm.nr_hugepages
# wait for the reboot (the running kernel has no vm.nr_hugepages at all).
root=$(copy_host rhel5-xen); scratch "$root"
ht "$root" apply oracle --set sga_max_size=2G --set allow_kernel_switch=true >/dev/null 2>&1
ht "$root" --json plan oracle --set sga_max_size=2G --set allow_kernel_switch=true >"$tmp/plan" 2>&1
check "xen switch: plan after apply exits 0" 0 "$?"
check "xen switch: vm.nr_hugepages pending the reboot" "kept true 1026" \
        "$(jq -r '.changes[] | select(.key == "vm.nr_hugepages") | "\(.outcome) \(.reboot_required) \(.desired)"' "$tmp/plan")"
check "xen switch: reboot required" true "$(jq .reboot_required "$tmp/plan")"
check "xen switch: grub.conf defaults to the non-Xen entry" "default=1" "$(grep '^default=' "$root/boot/grub/grub.conf")"
check "xen switch: vm.nr_hugepages persisted in sysctl.conf (RHEL 5 reads nothing else)" "vm.nr_hugepages = 1026" \
        "$(grep '^vm.nr_hugepages' "$root/etc/sysctl.conf")"
check "xen switch: no sysctl.d drop-in on RHEL 5" no "$([ -e "$root/etc/sysctl.d" ] && echo yes || echo no)"

finish
