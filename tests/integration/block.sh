#!/bin/sh
# The block backend (hosttune.profile(5), "block") on copies of the
# bare-metal fixture, whose /sys/block entries link into /sys/devices as
# on a real host: SAS disk sda (rotational, mq-deadline), NVMe nvme0n1
# (non-rotational, none), LVM dm-0 on sda3, and loop0 and sr0, which are
# never touched. Plan, apply, an empty re-plan, verify and drift,
# rollback byte for byte; bounds that never lower; schedulers a device
# lacks; a dm device's scheduler going to the disk below it; a later
# udev rules file; an offline image; and the rules file read by
# systemd's own udev rule parser (udevadm test) where it can run.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
export HOSTTUNE_INSECURE_PROFILES=1
RULESFILE=etc/udev/rules.d/99-hosttune-block.rules
SAS=sys/devices/pci0000:17/0000:17:02.0/0000:18:00.0/host0/port-0:0/end_device-0:0/target0:0:0/0:0:0:0/block/sda
NVME=sys/devices/pci0000:00/0000:00:1d.0/0000:01:00.0/nvme/nvme0/nvme0n1
DM=sys/devices/virtual/block/dm-0

mkdir -p "$tmp/profiles"
# bt ROOT ARGS...: hosttune with the test's profiles first
bt() {
        btroot=$1
        shift
        "$HOSTTUNE" --root "$btroot" --profile-path "$tmp/profiles" --profile-path "$PROFILES" --rules-path "$RULES" "$@" \
                >"$tmp/out" 2>"$tmp/err"
        rc=$?
}
btrun() {
        want=$1 desc=$2
        shift 2
        bt "$@"
        if [ "$rc" = "$want" ]; then ok "$desc (exit $rc)"; else
                not_ok "$desc: exit $rc, expected $want; stderr: $(head -c 800 "$tmp/err")"; fi
}
q() { "$JQ" "$tmp/out" "$1" 2>/dev/null; }
# keys BACKEND: the plan's change keys of a backend, one a line
keys() { jq -r --arg b "$1" '.changes[] | select(.backend == $b) | .key' "$tmp/out"; }
chg() { jq -r --arg k "$1" "[.changes[] | select(.backend == \"block\" and .key == \$k)][0].$2 // \"\"" "$tmp/out"; }
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (scripts/deps.sh installs it)"

cat >"$tmp/profiles/disks.profile" <<'EOF'
summary = "block test profile";
block = {
        rotational = { queue = {
                scheduler = "bfq";
                read_ahead_kb = { value = 4096; bound = "at-least"; };
                nr_requests = 128;
        }; };
        non-rotational = { queue = { scheduler = "kyber"; rq_affinity = 2; }; };
        match = (
                { kernel = "dm-*"; queue = { read_ahead_kb = 8192; }; },
                { udev = "ATTRS{model}==\"ST2000*\""; queue = { rq_affinity = 2; }; }
        );
};
EOF

# --- the shipped oracle profile: Oracle's schedulers per class -------------
h=$(prepare_host baremetal-numa); scratch "$h"
printf '[none] mq-deadline kyber bfq \n' >"$h/$SAS/queue/scheduler"
htrun 2 "oracle: plan" "$h" --json plan oracle --set sga_max_size=4G
check "oracle: only sda's scheduler changes at runtime (nvme0n1 is none already)" \
        "sda queue/scheduler" "$(keys block)"
check "oracle: sda none -> mq-deadline (Oracle's guide for HDDs)" "none mq-deadline" \
        "$(chg 'sda queue/scheduler' current) $(chg 'sda queue/scheduler' desired)"
check "oracle: the write goes to the device's own directory, not through /sys/block" \
        "/$SAS/queue/scheduler" "$(chg 'sda queue/scheduler' path)"
jq -r '.files[] | select(.path == "/etc/udev/rules.d/99-hosttune-block.rules") | .after' "$tmp/out" >"$tmp/oracle.rules"
check_contains "oracle: rules file sets mq-deadline on rotational disks" \
        'KERNEL!="dm-*|md*", ATTR{queue/rotational}=="1", ATTR{queue/scheduler}="mq-deadline"' "$tmp/oracle.rules"
check_contains "oracle: rules file sets none on non-rotational disks" \
        'KERNEL!="dm-*|md*", ATTR{queue/rotational}=="0", ATTR{queue/scheduler}="none"' "$tmp/oracle.rules"
check_contains "oracle: every line is for added or changed whole disks, never loop/ram/zram/sr/nbd" \
        'ACTION=="add|change", SUBSYSTEM=="block", ENV{DEVTYPE}=="disk", KERNEL!="loop*|ram*|zram*|sr*|nbd*|fd*"' "$tmp/oracle.rules"
check "oracle: two rule lines" "2" "$(grep -c '^ACTION' "$tmp/oracle.rules")"

# --- a profile with every key: apply, re-plan, verify, rollback -------------
h=$(prepare_host baremetal-numa); scratch "$h"
cp -a "$h" "$tmp/before"
btrun 2 "disks: plan" "$h" --json plan disks
check "disks: runtime changes, device by device, never dm-0's scheduler, loop0 or sr0" \
        "sda queue/scheduler
nvme0n1 queue/scheduler
sda queue/nr_requests
sda queue/read_ahead_kb
dm-0 queue/read_ahead_kb
nvme0n1 queue/rq_affinity
sda queue/rq_affinity" "$(keys block)"
check "disks: each change names its setting (verify judges by it)" "rotational queue/read_ahead_kb" \
        "$(jq -r '[.changes[] | select(.key == "sda queue/read_ahead_kb")][0].setting // "none"' "$tmp/out")"
btrun 0 "disks: apply" "$h" apply disks
check "disks: sda takes bfq (the kernel marks it)" "none mq-deadline kyber [bfq]" "$(cat "$h/$SAS/queue/scheduler")"
check "disks: nvme0n1 takes kyber" "none mq-deadline [kyber] bfq" "$(cat "$h/$NVME/queue/scheduler")"
check "disks: sda read-ahead raised to the minimum" "4096" "$(cat "$h/$SAS/queue/read_ahead_kb")"
check "disks: sda nr_requests" "128" "$(cat "$h/$SAS/queue/nr_requests")"
check "disks: dm-0 read-ahead is the dm device's own" "8192" "$(cat "$h/$DM/queue/read_ahead_kb")"
check "disks: dm-0 scheduler untouched" "none" "$(cat "$h/$DM/queue/scheduler")"
check "disks: the ATTRS{model} match reached sda (SEAGATE ST2000NM003A)" "2" "$(cat "$h/$SAS/queue/rq_affinity")"
check "disks: loop0 untouched" "$(cat "$tmp/before/sys/devices/virtual/block/loop0/queue/scheduler")" \
        "$(cat "$h/sys/devices/virtual/block/loop0/queue/scheduler")"
[ -f "$h/$RULESFILE" ] && ok "disks: rules file written" || not_ok "disks: no $RULESFILE"
check "disks: rules file mode" "644" "$(stat -c %a "$h/$RULESFILE" 2>/dev/null)"
check_contains "disks: dm read-ahead line matches dm devices by name" \
        'KERNEL=="dm-*", ATTR{queue/read_ahead_kb}="8192"' "$h/$RULESFILE"
check_contains "disks: the udev match is kept as written" \
        'KERNEL!="dm-*|md*", ATTRS{model}=="ST2000*", ATTR{queue/rq_affinity}="2"' "$h/$RULESFILE"
check_contains "disks: each line cites its setting" "# $tmp/profiles/disks.profile:" "$h/$RULESFILE"
btrun 0 "disks: re-plan after apply is empty" "$h" plan disks
btrun 0 "disks: verify" "$h" verify
printf '[none] mq-deadline kyber bfq\n' >"$h/$NVME/queue/scheduler"
btrun 2 "disks: verify finds nvme0n1's scheduler changed" "$h" verify
check_contains "disks: drift named by its setting" "non-rotational queue/scheduler: expected kyber, actual none" "$tmp/out"
btrun 0 "disks: rollback" "$h" rollback
btrun 0 "disks: apply again" "$h" apply disks
btrun 0 "disks: rollback again" "$h" rollback
for f in "$SAS/queue/scheduler" "$SAS/queue/read_ahead_kb" "$SAS/queue/nr_requests" "$SAS/queue/rq_affinity" \
        "$DM/queue/read_ahead_kb"; do
        check "rollback: $(basename "$(dirname "$(dirname "$f")")")/$(basename "$f") back to the fixture's" \
                "$(sed 's/ *$//' "$tmp/before/$f")" "$(sed 's/ *$//' "$h/$f")"
done
[ -e "$h/$RULESFILE" ] && not_ok "rollback: rules file left" || ok "rollback: rules file removed"

# --- bounds: a device above the minimum keeps its value, now and at boot ----
h=$(prepare_host baremetal-numa); scratch "$h"
printf '8192\n' >"$h/$SAS/queue/read_ahead_kb"
btrun 2 "bound: plan" "$h" --json plan disks
check "bound: sda's 8192 read-ahead kept (at least 4096)" "kept 8192" \
        "$(chg 'sda queue/read_ahead_kb' outcome) $(chg 'sda queue/read_ahead_kb' desired)"
jq -r '.files[] | select(.path == "/etc/udev/rules.d/99-hosttune-block.rules") | .after' "$tmp/out" >"$tmp/bound.rules"
check_contains "bound: the class line holds the minimum for other disks" \
        'ATTR{queue/rotational}=="1", ATTR{queue/read_ahead_kb}="4096"' "$tmp/bound.rules"
check_contains "bound: sda gets its own later line, so boot does not lower it" \
        'KERNEL=="sda", ATTR{queue/read_ahead_kb}="8192"' "$tmp/bound.rules"
check "bound: sda's line comes after the class line" "yes" \
        "$(awk '/rotational}=="1", ATTR\{queue\/read_ahead_kb\}/ {c = NR} /KERNEL=="sda", ATTR\{queue\/read_ahead_kb\}/ {s = NR} END {print (c && s > c) ? "yes" : "no"}' "$tmp/bound.rules")"
btrun 0 "bound: apply" "$h" apply disks
check "bound: sda still 8192" "8192" "$(cat "$h/$SAS/queue/read_ahead_kb")"
btrun 0 "bound: verify accepts the larger value" "$h" verify

# --- a scheduler a device does not offer ------------------------------------
h=$(prepare_host baremetal-numa); scratch "$h"
cat >"$tmp/profiles/nosched.profile" <<'EOF'
summary = "a scheduler nobody has";
block = { rotational = { queue = { scheduler = "cfq"; }; }; };
EOF
btrun 1 "required scheduler the disk lacks: plan fails" "$h" plan nosched
check_contains "required: the error names the device and what it offers" \
        "sda does not offer the I/O scheduler cfq (it offers none, mq-deadline, kyber, bfq)" "$tmp/out"
check_contains "required: the error names the profile line" "nosched.profile:2" "$tmp/out"
cat >"$tmp/profiles/optsched.profile" <<'EOF'
summary = "an optional scheduler nobody has";
block = { rotational = { queue = { scheduler = { value = "cfq"; optional = true; }; }; }; };
EOF
btrun 0 "optional scheduler the disk lacks: skipped" "$h" --json plan optsched
check "optional: listed as skipped, naming the device" "block sda queue/scheduler" "$(q skipped.0.setting)"
check "optional: no rules line udev would fail on" "0" "$(q files.#)"
# the old single-queue name: blk-mq's mq-deadline is taken for deadline
cat >"$tmp/profiles/oldname.profile" <<'EOF'
summary = "the single-queue name";
block = { rotational = { queue = { scheduler = "deadline"; }; }; };
EOF
printf '[none] mq-deadline kyber bfq\n' >"$h/$SAS/queue/scheduler"
btrun 2 "deadline on a blk-mq kernel: plan" "$h" --json plan oldname
check "deadline: sda takes mq-deadline" "mq-deadline" "$(chg 'sda queue/scheduler' desired)"
jq -r '.files[0].after' "$tmp/out" >"$tmp/old.rules"
check_contains "deadline: the rules file writes the name the kernel offers for sda" \
        'KERNEL=="sda", ATTR{queue/scheduler}="mq-deadline"' "$tmp/old.rules"

# --- a dm device's scheduler goes to the disk below it ----------------------
cat >"$tmp/profiles/dmsched.profile" <<'EOF'
summary = "scheduler for the LVM volume";
block = { match = ( { kernel = "dm-0"; queue = { scheduler = "kyber"; }; } ); };
EOF
h=$(prepare_host baremetal-numa); scratch "$h"
btrun 2 "dm: plan" "$h" --json plan dmsched
check "dm: the change is on sda (dm-0 lies on sda3)" "sda queue/scheduler" "$(keys block)"
check_contains "dm: the plan says why" "the disks below the stacked devices it names" "$tmp/out"

# --- no device of a class: nothing planned for it ---------------------------
h=$(prepare_host baremetal-numa); scratch "$h"
rm "$h/sys/block/nvme0n1"
btrun 2 "no SSD: plan" "$h" --json plan disks
check "no SSD: no non-rotational change" "" "$(keys block | grep nvme)"
jq -r '.files[0].after' "$tmp/out" >"$tmp/nossd.rules"
if grep -q 'rotational}=="0"' "$tmp/nossd.rules"; then not_ok "no SSD: a non-rotational line"; else ok "no SSD: no non-rotational line"; fi
h=$(prepare_host debian12-kvm); scratch "$h"
btrun 0 "no /sys/block at all (debian12-kvm fixture): nothing planned" "$h" plan disks

# --- a later udev rules file that sets the same attribute -------------------
h=$(prepare_host baremetal-numa); scratch "$h"
mkdir -p "$h/usr/lib/udev/rules.d" "$h/etc/udev/rules.d"
printf '# Fedora/RHEL shape\nACTION=="add", SUBSYSTEM=="block", ATTR{queue/scheduler}="bfq"\n' \
        >"$h/usr/lib/udev/rules.d/60-block-scheduler.rules"
printf '# an admin rule\n\nKERNEL=="sd*", \\\n  ATTR{queue/scheduler}="none"\n' >"$h/etc/udev/rules.d/99-zz-local.rules"
btrun 2 "later rules: plan" "$h" plan disks
cat "$tmp/err" >>"$tmp/out"
check_contains "later rules: warned, with file and line (of the continued rule)" \
        "$h/etc/udev/rules.d/99-zz-local.rules:3 sets ATTR{queue/scheduler}=\"none\" and udev reads it after" "$tmp/out"
if grep -q "60-block-scheduler" "$tmp/out"; then not_ok "later rules: an earlier file warned about"; else
        ok "later rules: the distribution's 60-block-scheduler.rules, read before, is not"; fi

# --- an earlier rules file sets the depth that hosttune's scheduler switch
# resets (blk_mq_init_sched); warned when the profile leaves the depth alone
h=$(prepare_host baremetal-numa); scratch "$h"
mkdir -p "$h/etc/udev/rules.d"
printf 'ACTION=="add|change", KERNEL=="sd*", ATTR{queue/nr_requests}="64"\n' >"$h/etc/udev/rules.d/60-admin-depth.rules"
printf 'summary = "scheduler only";\nblock = { rotational = { queue = { scheduler = "mq-deadline"; }; }; };\n' \
        >"$tmp/profiles/schedonly.profile"
btrun 2 "earlier depth: plan" "$h" plan schedonly
cat "$tmp/err" >>"$tmp/out"
check_contains "earlier depth: warned, with file and line" \
        "$h/etc/udev/rules.d/60-admin-depth.rules:1 sets ATTR{queue/nr_requests}=\"64\" and udev reads it before" "$tmp/out"
btrun 2 "earlier depth, the profile sets the depth too: plan" "$h" plan disks
cat "$tmp/err" >>"$tmp/out"
if grep -q "60-admin-depth" "$tmp/out"; then not_ok "earlier depth: warned although the profile sets nr_requests"; else
        ok "earlier depth: no warning when the profile sets nr_requests itself"; fi

# --- an offline image: the rules file is the change -------------------------
img=$(offline_image img baremetal-numa); scratch "$img"
btrun 2 "offline: plan" "$img" --json plan disks
check "offline: one change a setting, no device" "7" "$(jq '[.changes[] | select(.backend == "block")] | length' "$tmp/out")"
check "offline: no runtime write" "0" "$(jq '[.changes[] | select(.runtime)] | length' "$tmp/out")"
check "offline: the class setting is the change" "bfq" "$(chg 'rotational queue/scheduler' desired)"
btrun 0 "offline: apply" "$img" apply disks
btrun 0 "offline: re-plan is empty" "$img" plan disks
check_contains "offline: the image has the rules file" 'ATTR{queue/rotational}=="1", ATTR{queue/scheduler}="bfq"' "$img/$RULESFILE"

# --- bad input ---------------------------------------------------------------
h=$(prepare_host baremetal-numa); scratch "$h"
printf 'summary = "x";\nblock = { rotational = { queue = { read_ahead_kb = "lots"; }; }; };\n' >"$tmp/profiles/badval.profile"
btrun 1 "bad value: plan fails" "$h" plan badval
check_contains "bad value: named with file and line" "badval.profile:2: block rotational queue/read_ahead_kb: the value 'lots' must be a non-negative integer" "$tmp/out"
[ -e "$h/$RULESFILE" ] && not_ok "bad value: host touched" || ok "bad value: host untouched"

# --- the rules file read by systemd's udev (udevadm test) -------------------
# systemd 252 has no `udevadm verify` (253+): `udevadm test` loads every
# rules file and names each line it refuses ("FILE:LINE Invalid key/value
# pair, ignoring"). It runs in a private mount namespace whose rules
# directories hold only hosttune's file, on loop0, which every line of
# the file leaves alone (test mode applies ATTR assignments); /run and
# /dev, where it records the device, are scratch there too.
if ! is_root || ! command -v udevadm >/dev/null 2>&1 || ! command -v unshare >/dev/null 2>&1 ||
        [ ! -e /sys/devices/virtual/block/loop0 ]; then
        skip "udevadm test reads hosttune's rules file" "needs root, udevadm (apt-get install udev), unshare and /sys/devices/virtual/block/loop0"
elif [ ! -d /etc/udev/rules.d ]; then
        skip "udevadm test reads hosttune's rules file" "/etc/udev/rules.d is missing (the udev package makes it)"
else
        cp "$tmp/oracle.rules" "$tmp/ht.rules"
        h=$(prepare_host baremetal-numa); scratch "$h"
        bt "$h" apply disks
        cat "$h/$RULESFILE" >>"$tmp/ht.rules"
        printf 'KERNEL=="sd*", ATTR{queue/scheduler}=none\n' >"$tmp/bad.rules"
        unshare -m sh -c '
                set -e
                # /run and /dev too: udevadm records the device there
                for d in /run /dev /etc/udev/rules.d /lib/udev/rules.d /usr/lib/udev/rules.d; do
                        if [ -d "$d" ]; then mount -t tmpfs tmpfs "$d"; fi
                done
                cp "$1" /etc/udev/rules.d/99-hosttune-block.rules
                cp "$2" /etc/udev/rules.d/98-bad.rules
                udevadm test --action=add /sys/devices/virtual/block/loop0' sh "$tmp/ht.rules" "$tmp/bad.rules" \
                >"$tmp/udevadm.out" 2>&1
        check_contains "udevadm: read hosttune's file" "Reading rules file: /etc/udev/rules.d/99-hosttune-block.rules" "$tmp/udevadm.out"
        check_contains "udevadm: the check can fail (it refuses an unquoted value)" "98-bad.rules:1 Invalid" "$tmp/udevadm.out"
        if grep -Eq "^/etc/udev/rules.d/99-hosttune-block.rules:[0-9]+ " "$tmp/udevadm.out"; then
                not_ok "udevadm: refuses a line of hosttune's file: $(grep -E "^/etc/udev/rules.d/99-hosttune-block.rules:[0-9]+ " "$tmp/udevadm.out" | head -3)"
        else
                ok "udevadm: takes every line of hosttune's file"
        fi
fi
finish
