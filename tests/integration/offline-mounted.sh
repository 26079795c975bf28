#!/bin/sh
# An image build's chroot recipe: the build machine's /proc, /sys and /dev
# bind-mounted into the tree (inside a private mount namespace of the
# test's own). hosttune must take the tree for an offline image all the
# same (issue 17): no runtime change, --facts honoured, a warning saying
# what it saw, nothing on the build machine changed by apply, --live-root
# as the way to say otherwise. Also, without mounts: the run lock goes
# to the state directory, so nothing but the planned files is left in
# the image. Needs jq; the mounted part needs root and unshare -m. TAP.
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v jq >/dev/null 2>&1 || { echo "1..0 # SKIP jq is not installed"; exit 0; }
HOSTTUNE_NO_AUDIT=1 HOSTTUNE_INSECURE_PROFILES=1
export HOSTTUNE_NO_AUDIT HOSTTUNE_INSECURE_PROFILES
H=$(cd "$HOSTS" && pwd)
PR="--profile-path $(cd "$PROFILES" && pwd) --rules-path $(cd "$top_srcdir/rules" && pwd)"

# every file, link and directory of the tree but the state directory,
# with its checksum: what "nothing else left in the image" means
listing() {
        (cd "$1" && find . -path ./var/lib/hosttune -prune -o -print | LC_ALL=C sort | while IFS= read -r p; do
                if [ -L "$p" ]; then echo "link $p $(readlink "$p")"
                elif [ -f "$p" ]; then echo "file $p $(sha256sum <"$p" | cut -c1-16)"
                else echo "dir $p"; fi
        done)
}
FACTS=$tmp/target-facts.json
"$HOSTTUNE" --root "$H/debian12-kvm" facts --json >"$FACTS" 2>/dev/null
check "the target's facts" 0 $?

# ---- the lock of an image is in its state directory
I=$(offline_image lock-img debian12-kvm)
scratch "$I"
listing "$I" >"$tmp/before"
run 2 "plan of an image" --root "$I" $PR --facts "$FACTS" --json plan oracle --set sga_max_size=4G
planned=$(jq -r '.files[].path | "file .\(.)"' "$tmp/out" | LC_ALL=C sort | paste -sd' ' -)
run 0 "apply to an image" --root "$I" $PR --facts "$FACTS" apply oracle --set sga_max_size=4G
check "no /run/hosttune.lock in the image" no "$([ -e "$I/run/hosttune.lock" ] && echo yes || echo no)"
check "the lock is in the state directory" yes "$([ -f "$I/var/lib/hosttune/lock" ] && echo yes || echo no)"
listing "$I" >"$tmp/after"
check "only the planned files changed" "$planned" \
        "$(diff "$tmp/before" "$tmp/after" | sed -n 's/^> \(file [^ ]*\) .*/\1/p' | LC_ALL=C sort | paste -sd' ' -)"
run 0 "rollback" --root "$I" rollback
listing "$I" >"$tmp/after"
if cmp -s "$tmp/before" "$tmp/after"; then ok "rollback: the image is as it was, /run included"
else not_ok "rollback left: $(diff "$tmp/before" "$tmp/after" | head -20)"; fi
# a state directory outside the image: the image gets the files only
rm -rf "$I/var/lib/hosttune"
mkdir -m 0700 "$tmp/state"
run 0 "apply with --state-dir outside" --root "$I" --state-dir "$tmp/state" $PR --facts "$FACTS" apply oracle --set sga_max_size=4G
check "the lock went with the state directory" yes "$([ -f "$tmp/state/lock" ] && [ ! -e "$I/var/lib/hosttune" ] && echo yes || echo no)"
run 0 "rollback from there" --root "$I" --state-dir "$tmp/state" rollback
listing "$I" >"$tmp/after"
if cmp -s "$tmp/before" "$tmp/after"; then ok "and the image is as it was"
else not_ok "left: $(diff "$tmp/before" "$tmp/after" | head -20)"; fi

# ---- the build machine's /proc, /sys and /dev mounted in
if [ "$(id -u)" != 0 ] || ! unshare -m --propagation private true 2>/dev/null || [ ! -r /proc/sys/vm/swappiness ]; then
        skip "mounted /proc: needs root, unshare -m and a kernel's /proc" "not here"
        finish
fi
# the real-host tests retune this machine: not while its values are compared
real_host_lock
M=$(offline_image mounted-img debian12-kvm)
scratch "$M"
mkdir -p "$M/proc" "$M/sys" "$M/dev"
listing "$M" >"$tmp/before-m"
# hm WANT DESC ARGS...: hosttune with the mounts (they vanish with it)
hm() {
        want=$1 desc=$2
        shift 2
        unshare -m --propagation private sh -c \
                'r=$1; shift; mount --bind /proc "$r/proc" && mount --bind /sys "$r/sys" && mount --bind /dev "$r/dev" && exec "$@"' \
                sh "$M" "$HOSTTUNE" --root "$M" "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
        rc=$?
        if [ "$rc" = "$want" ]; then ok "$desc (exit $rc)"; else
                not_ok "$desc: exit $rc, expected $want; stderr: $(head -c 600 "$tmp/err")"; fi
}
# the machine's values the oracle profile touches, THP and HugePages
machine() {
        for k in vm/swappiness fs/file-max fs/aio-max-nr kernel/sem kernel/shmmni kernel/shmall kernel/shmmax \
                kernel/panic_on_oops net/core/rmem_default net/core/rmem_max net/core/wmem_default \
                net/core/wmem_max net/ipv4/ip_local_port_range net/ipv4/conf/all/rp_filter \
                net/ipv4/conf/default/rp_filter vm/nr_hugepages vm/hugetlb_shm_group; do
                printf '%s=%s\n' "$k" "$(cat "/proc/sys/$k" 2>/dev/null)"
        done
        for t in enabled defrag shmem_enabled; do
                printf 'thp %s=%s\n' "$t" "$(cat "/sys/kernel/mm/transparent_hugepage/$t" 2>/dev/null)"
        done
}
machine >"$tmp/machine-before"

hm 0 "facts" facts --json
check "an offline image" true "$(jq -c .image.offline "$tmp/out")"
check "no kernel facts read from the build machine" 'null null null' \
        "$(jq -c '.kernel.release, .memory.total_kb, .kernel.cmdline' "$tmp/out" | paste -sd' ' -)"
check "what showed it" true "$(jq -c '.image.detected_by | type == "string" and contains("/proc")' "$tmp/out")"
check_contains "the warning" "is treated as an offline image" "$tmp/err"
hm 0 "facts with --facts" --facts "$FACTS" facts --json
check "--facts is honoured" "$(jq -c .kernel.release "$FACTS") $(jq -c .memory.total_kb "$FACTS")" \
        "$(jq -c '.kernel.release, .memory.total_kb' "$tmp/out" | paste -sd' ' -)"
check "and not ignored" false "$(grep -q 'is ignored' "$tmp/err" && echo true || echo false)"

hm 1 "plan without --facts cannot size HugePages" $PR plan oracle --set sga_max_size=4G
check_contains "the image message" "this is an offline image" "$tmp/out"
hm 2 "plan with --facts" $PR --facts "$FACTS" --json plan oracle --set sga_max_size=4G
cp "$tmp/out" "$tmp/plan-m.json"
check "offline" true "$(jq -c .offline "$tmp/plan-m.json")"
check "no runtime change" 0 "$(jq '[.changes[] | select(.runtime)] | length' "$tmp/plan-m.json")"
check "the warning in JSON" true "$(jq -c '[.warnings[] | contains("treated as an offline image")] | any' "$tmp/plan-m.json")"
check "every persisted sysctl in changes[]" \
        "$(jq -r '.files[] | select(.path == "/etc/sysctl.d/90-hosttune.conf") | .after' "$tmp/plan-m.json" | grep -c ' = ')" \
        "$(jq '[.changes[] | select(.backend == "sysctl" and .runtime == false)] | length' "$tmp/plan-m.json")"
check "the sysfs value in changes[]" '"never"' \
        "$(jq -c '.changes[] | select(.backend == "sysfs" and (.key | endswith("transparent_hugepage/enabled"))) | .desired' "$tmp/plan-m.json")"
check "the current values are the image's (nothing persisted yet), not the machine's" '[null]' \
        "$(jq -c '[.changes[] | select(.backend == "sysctl") | .current] | unique' "$tmp/plan-m.json")"

hm 0 "apply with the mounts" $PR --facts "$FACTS" apply oracle --set sga_max_size=4G
machine >"$tmp/machine-after"
if cmp -s "$tmp/machine-before" "$tmp/machine-after"; then ok "the build machine's kernel is unchanged"
else not_ok "the build machine changed: $(diff "$tmp/machine-before" "$tmp/machine-after")"; fi
check_contains "the image got the drop-in" "vm.nr_hugepages = 2050" "$M/etc/sysctl.d/90-hosttune.conf"
check "no lock in the image's /run" no "$([ -e "$M/run/hosttune.lock" ] && echo yes || echo no)"
hm 0 "rollback with the mounts" rollback
listing "$M" >"$tmp/after-m"
if cmp -s "$tmp/before-m" "$tmp/after-m"; then ok "rollback: the image is as it was"
else not_ok "rollback left: $(diff "$tmp/before-m" "$tmp/after-m" | head -20)"; fi
machine >"$tmp/machine-after"
if cmp -s "$tmp/machine-before" "$tmp/machine-after"; then ok "and the build machine is still unchanged"
else not_ok "the build machine changed: $(diff "$tmp/machine-before" "$tmp/machine-after")"; fi

# --live-root: the tree is the running system after all (plan only)
hm 0 "--live-root: facts" --live-root facts --json
check "--live-root reads the running kernel" "false $(jq -Rc . /proc/sys/kernel/osrelease)" \
        "$(jq -c '.image.offline, .kernel.release' "$tmp/out" | paste -sd' ' -)"
check "without the image warning" false "$(grep -q 'treated as an offline image' "$tmp/err" && echo true || echo false)"
# hosttune run inside the chroot (no --root): / is the image
BIN=$(cd "$top_builddir" && pwd)/hosttune
if head -c 4 "$BIN" | grep -q ELF && command -v ldd >/dev/null 2>&1 && command -v chroot >/dev/null 2>&1; then
        C=$(offline_image chroot-img debian12-kvm)
        scratch "$C"
        mkdir -p "$C/proc" "$C/sys" "$C/usr/sbin" "$C/srv"
        cp "$BIN" "$C/usr/sbin/hosttune"
        for lib in $(ldd "$BIN" | awk '/=>/ && $3 ~ /^\// { print $3 } /^[ \t]*\// { print $1 }'); do
                mkdir -p "$C$(dirname "$lib")"
                cp "$(readlink -f "$lib")" "$C$lib"
        done
        cp -R "$PROFILES" "$C/srv/profiles"
        cp -R "$top_srcdir/rules" "$C/srv/rules"
        cp "$FACTS" "$C/srv/target.json"
        hchroot() {
                unshare -m --propagation private sh -c \
                        'r=$1; shift; mount --bind /proc "$r/proc" && mount --bind /sys "$r/sys" && exec chroot "$r" "$@"' \
                        sh "$C" /usr/sbin/hosttune "$@" </dev/null >"$tmp/out" 2>"$tmp/err"
        }
        hchroot facts --json
        check "in the chroot: an offline image" true "$(jq -c '.image.offline' "$tmp/out")"
        check "in the chroot: no kernel facts of the build machine" null "$(jq -c '.kernel.release' "$tmp/out")"
        check_contains "in the chroot: the warning" "is treated as an offline image" "$tmp/err"
        hchroot --profile-path /srv/profiles --rules-path /srv/rules --facts /srv/target.json --json plan oracle \
                --set sga_max_size=4G
        check "in the chroot: plan exits 2" 2 $?
        check "in the chroot: offline, no runtime change" "true 0" \
                "$(jq -c '.offline, ([.changes[] | select(.runtime)] | length)' "$tmp/out" | paste -sd' ' -)"
        hchroot --profile-path /srv/profiles --rules-path /srv/rules --facts /srv/target.json apply oracle \
                --set sga_max_size=4G
        check "in the chroot: apply" 0 $?
        machine >"$tmp/machine-after"
        if cmp -s "$tmp/machine-before" "$tmp/machine-after"; then ok "in the chroot: the build machine is unchanged"
        else not_ok "in the chroot: the build machine changed: $(diff "$tmp/machine-before" "$tmp/machine-after")"; fi
        check_contains "in the chroot: the image got the drop-in" "vm.nr_hugepages = 2050" "$C/etc/sysctl.d/90-hosttune.conf"
else
        skip "hosttune in a chroot" "the built hosttune is no ELF binary here (valgrind wrapper) or ldd/chroot missing"
fi
# a sysfs alone (no procfs) is the build machine's too
rmdir "$M/proc"
unshare -m --propagation private sh -c 'mount --bind /sys "$1/sys" && exec "$2" --root "$1" facts --json' \
        sh "$M" "$HOSTTUNE" >"$tmp/out" 2>"$tmp/err"
check "a sysfs without a procfs: an image" true "$(jq -c '.image.offline' "$tmp/out")"
check_contains "and says why" "is a sysfs but" "$tmp/err"
finish
