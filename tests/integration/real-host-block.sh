#!/bin/sh
# The block backend on the machine's real kernel: apply a profile that
# names one real disk (the first whole disk of /sys/block hosttune may
# touch, vda on the test machine) with another I/O scheduler
# (mq-deadline -> none, or back) and more read-ahead, check the kernel
# took both, verify, roll back and check both are as before (and the
# queue depth an administrator set, which the switch resets); then have
# systemd's udev apply hosttune's rules file to that disk (udevadm test in
# a private mount namespace) and check the rule set the scheduler, and
# put it back; then queue depths the kernel refuses: plans refuse them,
# and the kernel does as they say (2 reads back 4, 2049 fails); a value a
# bound keeps, whose line matches the disk by its serial or WWID, applied
# by udev. Root only; confined (real-host-lib.sh): the files land in a
# throwaway tree, and the machine's own files are checked unchanged.
# Whatever happens, the saved values are written back (trap).
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
. "$top_srcdir/tests/integration/real-host-lib.sh"
export HOSTTUNE_INSECURE_PROFILES=1

[ "$(id -u)" = 0 ] || skip_all "not root"
real_host_lock
confine_ok || skip_all "no private mount namespace here (unshare -m, mount --bind): cannot confine hosttune"

# the disk: not one hosttune leaves alone, with a scheduler to choose
dev=
for l in /sys/block/*; do
        bn=${l##*/}
        case $bn in loop* | ram* | zram* | sr* | nbd* | fd* | dm-* | md*) continue ;; esac
        [ -w "$l/queue/scheduler" ] && [ -w "$l/queue/read_ahead_kb" ] || continue
        grep -q '\[' "$l/queue/scheduler" && grep -qw none "$l/queue/scheduler" || continue
        dev=$bn
        break
done
[ -n "$dev" ] || skip_all "no writable disk with a choice of I/O scheduler in /sys/block"
q=/sys/block/$dev/queue
word() { sed 's/.*\[\(.*\)\].*/\1/' "$1"; }
sched0=$(word "$q/scheduler") ra0=$(cat "$q/read_ahead_kb") nr0=$(cat "$q/nr_requests")
# a no-op write tells whether /sys takes writes (read-only in containers)
printf '%s\n' "$sched0" 2>/dev/null >"$q/scheduler" || skip_all "$q/scheduler is read-only"
restore() {
        printf '%s\n' "$sched0" >"$q/scheduler" 2>/dev/null
        printf '%s\n' "$ra0" >"$q/read_ahead_kb" 2>/dev/null
        printf '%s\n' "$nr0" >"$q/nr_requests" 2>/dev/null
        rm -rf "$tmp"
}
trap restore EXIT INT TERM
# An administrator's queue depth, not the scheduler's default: the switch
# resets it (blk_mq_init_sched), and the rollback must bring it back.
nr_admin=$((nr0 / 4))
[ "$nr_admin" -ge 4 ] || nr_admin=4
printf '%s\n' "$nr_admin" >"$q/nr_requests" 2>/dev/null || nr_admin=

if [ "$sched0" = none ]; then
        sched1=$(tr -d '[]' <"$q/scheduler" | tr ' ' '\n' | grep -v '^none$' | grep . | head -1)
        sched_deep=$sched1
else
        sched1=none
        sched_deep=$sched0
fi
ra1=$((ra0 + 1024))
CROOT=$tmp/root
mkconfined_root "$CROOT"
mkdir -p "$tmp/profiles"
cat >"$tmp/profiles/realdisk.profile" <<EOF
summary = "one real disk";
block = { match = ( { kernel = "$dev"; queue = { scheduler = "$sched1"; read_ahead_kb = $ra1; }; } ); };
EOF
rules=$CROOT/etc/udev/rules.d/99-hosttune-block.rules
host_files >"$tmp/host-before"

hc 2 "plan: $dev $sched0 -> $sched1, read-ahead $ra0 -> $ra1" --profile-path "$tmp/profiles" plan realdisk
check_contains "plan names the device" "$dev queue/scheduler: $sched0 → $sched1" "$tmp/out"
[ -z "$nr_admin" ] || check_contains "plan says the switch resets the queue depth" \
        "resets queue/nr_requests (now $nr_admin)" "$tmp/out"
hc 0 "apply" --profile-path "$tmp/profiles" apply realdisk
check "the kernel took the scheduler" "$sched1" "$(word "$q/scheduler")"
check "the kernel took the read-ahead" "$ra1" "$(cat "$q/read_ahead_kb")"
check_contains "the rules file is in the tree" "KERNEL==\"$dev\", ATTR{queue/scheduler}=\"$sched1\"" "$rules"
cp "$rules" "$tmp/ht.rules" 2>/dev/null
hc 0 "verify" verify
hc 0 "rollback" rollback
check "scheduler restored" "$sched0" "$(word "$q/scheduler")"
check "read-ahead restored" "$ra0" "$(cat "$q/read_ahead_kb")"
if [ -n "$nr_admin" ]; then
        check "nr_requests restored after the scheduler (the switch back reset it)" "$nr_admin" "$(cat "$q/nr_requests")"
        check_contains "rollback said so" "$dev queue/nr_requests: restored $nr_admin" "$tmp/out"
        printf '%s\n' "$nr0" >"$q/nr_requests"
        check "nr_requests back to the machine's" "$nr0" "$(cat "$q/nr_requests")"
else
        skip "nr_requests restored after the scheduler" "$q/nr_requests takes no write"
fi
[ -e "$rules" ] && not_ok "rollback left the rules file" || ok "rollback removed the rules file"
host_files >"$tmp/host-after"
if diff "$tmp/host-before" "$tmp/host-after" >"$tmp/host-diff"; then ok "the machine's own files are unchanged"; else
        not_ok "the machine's files changed: $(head -c 600 "$tmp/host-diff")"; fi

# udev itself applies the rule to the real disk: udevadm test runs the
# rules (and, in systemd 252, their ATTR assignments) for one device;
# only hosttune's file is in the rules directories, /run and /dev are
# scratch, so nothing else of udev's runs or stays
if ! command -v udevadm >/dev/null 2>&1 || [ ! -d /etc/udev/rules.d ] || [ ! -s "$tmp/ht.rules" ]; then
        skip "udev applies hosttune's rule to $dev" "no udevadm (apt-get install udev) or no rules file"
else
        unshare -m sh -c '
                set -e
                for d in /run /dev /etc/udev/rules.d /lib/udev/rules.d /usr/lib/udev/rules.d; do
                        if [ -d "$d" ]; then mount -t tmpfs tmpfs "$d"; fi
                done
                cp "$1" /etc/udev/rules.d/99-hosttune-block.rules
                udevadm test --action=add "/sys/block/$2"' sh "$tmp/ht.rules" "$dev" >"$tmp/udevadm.out" 2>&1
        check "udev's rule set the scheduler on $dev" "$sched1" "$(word "$q/scheduler")"
        check "udev's rule set the read-ahead on $dev" "$ra1" "$(cat "$q/read_ahead_kb")"
        if grep -Eq "^/etc/udev/rules.d/99-hosttune-block.rules:[0-9]+ " "$tmp/udevadm.out"; then
                not_ok "udev refused a line: $(grep -E "^/etc/udev/rules.d/99-hosttune-block.rules:[0-9]+ " "$tmp/udevadm.out" | head -2)"
        else ok "udev took every line"; fi
        printf '%s\n' "$sched0" >"$q/scheduler"
        printf '%s\n' "$ra0" >"$q/read_ahead_kb"
        check "scheduler back after udev's test" "$sched0" "$(word "$q/scheduler")"
        check "read-ahead back after udev's test" "$ra0" "$(cat "$q/read_ahead_kb")"
fi

# Queue depths the kernel refuses (queue_requests_store): the plan refuses
# them before a write, and the kernel does what the plan says it would:
# below 4 it stores 4, above 2048 with a scheduler it answers EINVAL.
printf 'summary = "a depth below the least";\nblock = { match = ( { kernel = "%s"; queue = { nr_requests = 2; }; } ); };\n' \
        "$dev" >"$tmp/profiles/shallow.profile"
printf 'summary = "a depth above the most";\nblock = { match = ( { kernel = "%s"; queue = { scheduler = "%s"; nr_requests = 2049; }; } ); };\n' \
        "$dev" "$sched_deep" >"$tmp/profiles/deep.profile"
nr_now=$(cat "$q/nr_requests")
hc 1 "plan: nr_requests 2 refused" --profile-path "$tmp/profiles" plan shallow
check_contains "plan: says the kernel raises it to 4" "is below 4, the smallest queue depth the kernel takes" "$tmp/out"
hc 1 "plan: nr_requests 2049 with $sched_deep refused" --profile-path "$tmp/profiles" plan deep
check_contains "plan: says the kernel refuses it" \
        "$dev: the kernel refuses a queue depth above 2048 with an I/O scheduler ($sched_deep" "$tmp/out"
check "the plans wrote nothing: nr_requests" "$nr_now" "$(cat "$q/nr_requests")"
printf '%s\n' "$sched_deep" >"$q/scheduler"
printf '2\n' >"$q/nr_requests" 2>/dev/null
check "the kernel: nr_requests 2 reads back 4" "4" "$(cat "$q/nr_requests")"
if printf '2049\n' 2>/dev/null >"$q/nr_requests"; then not_ok "the kernel took nr_requests 2049 with $sched_deep"; else
        ok "the kernel refused nr_requests 2049 with $sched_deep"; fi
printf '%s\n' "$sched0" >"$q/scheduler"
printf '%s\n' "$nr0" >"$q/nr_requests"
check "scheduler back after the depth checks" "$sched0" "$(word "$q/scheduler")"
check "nr_requests back after the depth checks" "$nr0" "$(cat "$q/nr_requests")"

# A value a bound keeps gets a line of its own for the disk, matched by
# the identity the disk shows (serial, WWID) so that a rename at the next
# boot keeps it: udev applies it after the selector's line, and the disk
# ends with its own value.
ra_half=$((ra0 / 2))
printf 'summary = "a floor the disk is above";\nblock = { match = ( { kernel = "%s"; queue = { read_ahead_kb = { value = %s; bound = "at-least"; }; }; } ); };\n' \
        "$dev" "$ra_half" >"$tmp/profiles/floor.profile"
hc 0 "apply a floor of $ra_half under $dev's $ra0" --profile-path "$tmp/profiles" apply floor
cp "$rules" "$tmp/floor.rules" 2>/dev/null
hc 0 "rollback the floor" rollback
id=$(grep -o 'ATTR{[a-z/]*}=="[^"]*", ATTR{queue/read_ahead_kb}="'"$ra0"'"' "$tmp/floor.rules" | head -1)
[ -n "$id" ] && ok "the kept value's line matches $dev by its identity ($id)" ||
        skip "the kept value's line matches $dev by its identity" "$dev shows no serial or WWID: $(grep -c "KERNEL==\"$dev\", ATTR{queue/read_ahead_kb}=\"$ra0\"" "$tmp/floor.rules") line by name"
if ! command -v udevadm >/dev/null 2>&1 || [ ! -d /etc/udev/rules.d ] || [ ! -s "$tmp/floor.rules" ]; then
        skip "udev keeps $dev's read-ahead by its own line" "no udevadm or no rules file"
else
        printf '%s\n' "$ra_half" >"$q/read_ahead_kb"
        unshare -m sh -c '
                set -e
                for d in /run /dev /etc/udev/rules.d /lib/udev/rules.d /usr/lib/udev/rules.d; do
                        if [ -d "$d" ]; then mount -t tmpfs tmpfs "$d"; fi
                done
                cp "$1" /etc/udev/rules.d/99-hosttune-block.rules
                udevadm test --action=add "/sys/block/$2"' sh "$tmp/floor.rules" "$dev" >"$tmp/udevadm.out" 2>&1
        check "udev applied the disk's own line after the floor: its read-ahead is back to $ra0" "$ra0" \
                "$(cat "$q/read_ahead_kb")"
        printf '%s\n' "$ra0" >"$q/read_ahead_kb"
        check "read-ahead back after the floor's test" "$ra0" "$(cat "$q/read_ahead_kb")"
fi
finish
