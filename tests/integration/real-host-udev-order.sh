#!/bin/sh
# Issue 38: the udev rules order of `hosttune explain block.DEVICE.ATTR`
# against udevd's own, on a disk of this machine: `udevadm test
# --action=add /sys/block/DISK` runs the rules as udevd does and logs each
# file it reads ("Reading rules file:") and each ATTR write with its
# file:line. systemd 252's udevadm test WRITES the attributes (it is no
# dry run for ATTR{}), so only queue/read_ahead_kb is set by the rules
# (no other attribute depends on it), it is written back (trap) and the
# restore checked; the rules are the test's own: in a private mount
# namespace, the machine's /etc/udev/rules.d and /usr/lib/udev/rules.d
# have the fixture's directories bound over them and /run is a tmpfs (udevadm's
# database goes there, not to the machine's /run). hosttune reads the same
# directories through a --live-root tree with the machine's /sys bound in.
# Root only, under the real-host lock.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"

[ "$(id -u)" = 0 ] || skip_all "not root"
command -v udevadm >/dev/null 2>&1 || skip_all "udevadm is not installed"
command -v unshare >/dev/null 2>&1 || skip_all "unshare is not installed"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"
real_host_lock
disk=""
for d in /sys/block/*; do
        case ${d##*/} in loop* | ram* | zram* | sr* | nbd* | fd* | dm-* | md*) continue ;; esac
        [ -w "$d/queue/read_ahead_kb" ] && { disk=${d##*/}; break; }
done
[ -n "$disk" ] || skip_all "no disk with a writable queue/read_ahead_kb here"
for d in /etc/udev/rules.d /usr/lib/udev/rules.d; do [ -d "$d" ] || skip_all "no $d to cover"; done
[ -L /lib ] || [ ! -d /lib/udev/rules.d ] || skip_all "/lib/udev/rules.d is a directory of its own (split /usr): not covered"
ra=/sys/block/$disk/queue/read_ahead_kb
ra0=$(cat "$ra") sched0=$(cat "/sys/block/$disk/queue/scheduler")
restore() {
        printf '%s\n' "$ra0" >"$ra" 2>/dev/null
        rm -rf "$tmp"
}
trap restore EXIT
trap 'restore; exit 1' INT TERM

# the tree: the rules, and /proc and /sys bound in below
t=$tmp/root
mkdir -p "$t/etc/udev/rules.d" "$t/usr/lib/udev/rules.d" "$t/run/udev/rules.d" "$t/proc" "$t/sys" "$t/var/lib"
cp /etc/os-release "$t/etc/" 2>/dev/null
k="KERNEL==\"$disk\""
printf 'ACTION=="add", %s, ATTR{queue/read_ahead_kb}="1024"\nKERNEL=="no-such-disk", ATTR{queue/read_ahead_kb}="4096"\n' "$k" \
        >"$t/usr/lib/udev/rules.d/60-a.rules"
printf '%s, ATTR{queue/read_ahead_kb}="1536"\n' "$k" >"$t/run/udev/rules.d/65-b.rules"
printf '%s, ATTR{queue/read_ahead_kb}="2048"\n' "$k" >"$t/usr/lib/udev/rules.d/70-c.rules"
printf '# hides /usr/lib'"'"'s\n%s, ATTR{queue/read_ahead_kb}="2560"\n' "$k" >"$t/etc/udev/rules.d/70-c.rules"
printf '%s, ATTR{queue/read_ahead_kb}="512"\nACTION=="remove", %s, ATTR{queue/read_ahead_kb}="999"\n' "$k" "$k" \
        >"$t/etc/udev/rules.d/75-d.rules"
printf '%s, ATTR{queue/read_ahead_kb}="3072"\n' "$k" >"$t/run/udev/rules.d/80-m.rules"
ln -s /dev/null "$t/etc/udev/rules.d/80-m.rules"

unshare -m --propagation private sh -c '
        t=$1 h=$2 disk=$3 out=$4
        mount --bind /proc "$t/proc" && mount --bind /sys "$t/sys" || exit 90
        "$h" --root "$t" --live-root --json explain "block.$disk.read_ahead_kb" >"$out/ht.json" 2>"$out/ht.err" || exit 91
        mount --bind "$t/etc/udev/rules.d" /etc/udev/rules.d && mount --bind "$t/usr/lib/udev/rules.d" /usr/lib/udev/rules.d &&
                mount -t tmpfs tmpfs /run && mkdir -p /run/udev/rules.d && mount --bind "$t/run/udev/rules.d" /run/udev/rules.d ||
                exit 92
        udevadm test --action=add "/sys/block/$disk" >"$out/udevadm.out" 2>&1
        exit 0' sh "$t" "$HOSTTUNE" "$disk" "$tmp"
check "the namespace, hosttune and udevadm test ran" 0 "$?"
printf '%s\n' "$(cat "$ra")" >"$tmp/ra.after-udevadm"
printf '%s\n' "$ra0" >"$ra"
check "read_ahead_kb written back" "$ra0" "$(cat "$ra")"
check "the scheduler untouched" "$sched0" "$(cat "/sys/block/$disk/queue/scheduler")"
check "udevadm test did run the rules (it wrote 512)" 512 "$(cat "$tmp/ra.after-udevadm")"

check "hosttune's winner and matching writes, as worked out by hand" \
        "/usr/lib/udev/rules.d/60-a.rules:1 1024 /run/udev/rules.d/65-b.rules:1 1536 /etc/udev/rules.d/70-c.rules:2 2560 /etc/udev/rules.d/75-d.rules:1 512|/etc/udev/rules.d/75-d.rules:1" \
        "$(jq -r '"\([.boot.assignments[] | select(.note | startswith("matches")) | "\(.file):\(.line) \(.value)"] | join(" "))|\(.boot.winner.file):\(.boot.winner.line)"' "$tmp/ht.json")"
# udevd's reading order: the files it read (a masked one is read as empty)
theirs=$(sed -n 's/^Reading rules file: //p' "$tmp/udevadm.out" | grep -vx /etc/udev/rules.d/80-m.rules)
check "the rules files in udevd's order" "$theirs" "$(jq -r '.boot.files[]' "$tmp/ht.json")"
check "the masked name" "/etc/udev/rules.d/80-m.rules" "$(jq -r '.boot.masked | join(" ")' "$tmp/ht.json")"
# every write udevd made, and hosttune's matching assignments, in order
theirs=$(sed -n "s|^$disk: \(/[^ ]*:[0-9]*\) ATTR '[^']*/queue/read_ahead_kb' writing '\([^']*\)'.*|\1 \2|p" "$tmp/udevadm.out")
check "the matching assignments are the writes udevd made, in its order" "$theirs" \
        "$(jq -r '.boot.assignments[] | select(.note | startswith("matches")) | "\(.file):\(.line) \(.value)"' "$tmp/ht.json")"
check "the winner is udevd's last write" "$(printf '%s\n' "$theirs" | tail -n1)" \
        "$(jq -r '.boot.winner | "\(.file):\(.line) \(.value)"' "$tmp/ht.json")"
echo "1..$n"
[ "$failed" -eq 0 ]
