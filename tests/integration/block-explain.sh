#!/bin/sh
# Issue 38: `hosttune explain block.DEVICE.ATTR`: a disk's queue attribute
# now (sysfs), every ATTR{} assignment of the udev rules files in udevd's
# order (the *.rules of /etc, /run, /usr/local/lib, /usr/lib and
# /lib/udev/rules.d sorted by name across them, a same-named file earlier
# hiding a later one, a link to /dev/null masking it; systemd
# src/udev/udev-rules.c udev_rules_load: conf_files_list_strv over
# RULES_DIRS), each noted as matching the disk, not, or maybe (a key
# hosttune cannot evaluate), the last matching one winning (udevd writes
# ATTR{} when it processes the rule), hosttune's value and verify's check.
# The file order is compared with systemd-analyze cat-config udev/rules.d
# --root (systemd 252 knows that path). udevadm test runs the rules
# against a device of the running kernel's /sys, not a tree's, and
# writes the attributes: real-host-udev-order.sh compares with it.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
export HOSTTUNE_INSECURE_PROFILES=1
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"

h=$(prepare_host baremetal-numa); scratch "$h"
mkdir -p "$h/usr/lib/udev/rules.d" "$h/etc/udev/rules.d" "$h/run/udev/rules.d" "$h/usr/local/lib/udev/rules.d"
cat >"$h/usr/lib/udev/rules.d/60-block-scheduler.rules" <<'EOF'
# as Fedora's: the whole SCSI disks
ACTION=="add", SUBSYSTEM=="block", KERNEL=="sd*[!0-9]", ENV{DEVTYPE}=="disk", ATTR{queue/scheduler}="bfq"
ACTION=="add", SUBSYSTEM=="block", KERNEL=="nvme*", ATTR{queue/scheduler}="none"
EOF
# hidden by the same name in /etc
printf 'ATTR{queue/scheduler}="kyber"\n' >"$h/usr/lib/udev/rules.d/70-vendor.rules"
cat >"$h/etc/udev/rules.d/70-vendor.rules" <<'EOF'
ACTION=="add|change", SUBSYSTEM=="block", ATTR{queue/rotational}=="1", ATTR{queue/scheduler}="mq-deadline"
ENV{ID_BUS}=="ata", ATTR{queue/scheduler}="none"
ACTION=="remove", ATTR{queue/scheduler}="kyber"
EOF
printf 'KERNEL=="sda", ATTR{queue/read_ahead_kb}="512"\n' >"$h/usr/local/lib/udev/rules.d/65-ra.rules"
printf 'ATTR{queue/scheduler}="kyber"\n' >"$h/run/udev/rules.d/80-masked.rules"
ln -s /dev/null "$h/etc/udev/rules.d/80-masked.rules"

ht "$h" --json explain block.sda.scheduler
check "the runtime value: the bracketed word of sysfs" "/sys/block/sda/queue/scheduler mq-deadline" \
        "$(jq -r '"\(.runtime.path) \(.runtime.value)"' "$tmp/out")"
check "udevd reads them; the masked name" "systemd-udevd|/etc/udev/rules.d/80-masked.rules" \
        "$(jq -r '"\(.boot.consumer)|\(.boot.masked | join(" "))"' "$tmp/out")"
check "every assignment in udev's order, matching or not, the last match wins" \
"/usr/lib/udev/rules.d/60-block-scheduler.rules:2 bfq false matches sda
/usr/lib/udev/rules.d/60-block-scheduler.rules:3 none false does not match sda
/etc/udev/rules.d/70-vendor.rules:1 mq-deadline true matches sda
/etc/udev/rules.d/70-vendor.rules:2 none false may match sda: depends on ENV{ID_BUS}
/etc/udev/rules.d/70-vendor.rules:3 kyber false does not match sda" \
        "$(jq -r '.boot.assignments[] | "\(.file):\(.line) \(.value) \(.winner) \(.note)"' "$tmp/out")"
check "a later rule that may match is warned about" \
        "/etc/udev/rules.d/70-vendor.rules:2 may set ATTR{queue/scheduler} later (may match sda: depends on ENV{ID_BUS})" \
        "$(jq -r '.warnings | join(";")' "$tmp/out")"
ht "$h" --json explain block.nvme0n1.queue/scheduler
check "nvme0n1: the nvme rule wins; the rotational one does not match" \
        "/usr/lib/udev/rules.d/60-block-scheduler.rules:3 none" \
        "$(jq -r '"\(.boot.winner.file):\(.boot.winner.line) \(.boot.winner.value)"' "$tmp/out")"
ht "$h" explain block.sda.read_ahead_kb
check_contains "text: /usr/local/lib's file, its winner" \
        "    /usr/local/lib/udev/rules.d/65-ra.rules:1  ATTR{queue/read_ahead_kb}: 512   <- wins (matches sda)" "$tmp/out"
check_contains "text: the runtime value" "  now:       128" "$tmp/out"

# the order of the files, against systemd's own reading
if command -v systemd-analyze >/dev/null 2>&1 &&
        systemd-analyze cat-config --root="$h" udev/rules.d >"$tmp/cc" 2>"$tmp/cc.err"; then
        # cat-config prints a masked file's name with nothing under it
        theirs=$(sed -n "s|^# $h||p" "$tmp/cc" | grep -vx '/etc/udev/rules.d/80-masked.rules')
        ht "$h" --json explain block.sda.scheduler
        check "the rules files in systemd-analyze cat-config udev/rules.d's order" "$theirs" \
                "$(jq -r '.boot.files[]' "$tmp/out")"
        check_contains "cat-config lists the masked name too" "# $h/etc/udev/rules.d/80-masked.rules" "$tmp/cc"
else
        skip "systemd-analyze cat-config udev/rules.d --root" "systemd-analyze is not installed or does not know it"
fi

# tuned running a profile whose [disk] plugin sets the scheduler: listed
# with its file and line (tuned's disk plugin takes sd*, vd*, xvd*, nvme*
# that are not removable); sysfs' removable is 0 for both disks here
mkdir -p "$h/etc/tuned/dbdisk" "$h/etc/systemd/system/multi-user.target.wants" "$h/proc/812"
printf '[main]\nsummary=disks\n\n[disk]\nelevator=none\n' >"$h/etc/tuned/dbdisk/tuned.conf"
echo dbdisk >"$h/etc/tuned/active_profile"
echo tuned >"$h/proc/812/comm"
ln -s /usr/lib/systemd/system/tuned.service "$h/etc/systemd/system/multi-user.target.wants/tuned.service"
for d in "$h/sys/block/sda" "$h/sys/block/nvme0n1"; do echo 0 >"$(readlink -f "$d")/removable"; done
ht "$h" --json explain block.sda.scheduler
check "tuned's [disk] elevator: listed for sda, with its file and line" \
        "tuned none $h/etc/tuned/dbdisk/tuned.conf:5" \
        "$(jq -r '.tuners[] | "\(.tuner) \(.value) \(.source)"' "$tmp/out")"
ht "$h" --json explain block.sda.read_ahead_kb
check "tuned sets no read-ahead: not listed for it" 0 "$(jq -r '.tuners | length' "$tmp/out")"
rm -r "$h/proc/812" "$h/etc/systemd/system/multi-user.target.wants/tuned.service" "$h/etc/tuned/active_profile"

# hosttune's value and verify's check after an apply
mkdir -p "$tmp/profiles"
cat >"$tmp/profiles/disks.profile" <<'EOF'
summary = "block explain";
block = {
        rotational = { queue = { scheduler = "bfq"; }; };
        match = ( { kernel = "sd*"; queue = { scheduler = "kyber"; }; } );
};
EOF
"$HOSTTUNE" --root "$h" --profile-path "$tmp/profiles" --rules-path "$RULES" apply disks >"$tmp/out" 2>"$tmp/err"
check "apply disks" 0 "$?"
"$HOSTTUNE" --root "$h" --profile-path "$tmp/profiles" --rules-path "$RULES" --json explain block.sda.scheduler \
        >"$tmp/out" 2>"$tmp/err"
check "after apply: the runtime value, hosttune's last setting for sda, its line, verify" \
        "kyber|kyber $tmp/profiles/disks.profile:4 true|ok kyber" \
        "$(jq -r '"\(.runtime.value)|\(.hosttune.value) \(.hosttune.source) \(.hosttune.applied)|\(.verify.status) \(.verify.actual)"' "$tmp/out")"
check "after apply: hosttune's rules file sorts last; its line for sda wins" \
        "/etc/udev/rules.d/99-hosttune-block.rules kyber" \
        "$(jq -r '"\(.boot.winner.file) \(.boot.winner.value)"' "$tmp/out")"

# bad names
ht "$h" explain block.sda.queue/../../x
check "an attribute hosttune does not manage is refused" \
        "1 hosttune: explain block.sda.queue/../../x: not a disk name and an attribute hosttune manages (scheduler, nr_requests, read_ahead_kb, rq_affinity)" \
        "$rc $(cat "$tmp/err")"
ht "$h" explain block.../x
check "a device name with dots and slashes is refused" 1 "$rc"
echo "1..$n"
[ "$failed" -eq 0 ]
