#!/bin/sh
# Block devices as real kernels show them, on copies of the bare-metal
# fixture (audit of the block backend against the kernel):
# - native NVMe multipath (a dual-port U.2 disk): the head nvme1n1 lives
#   under the subsystem and is bio-based: Linux 6.18 (this machine's
#   zram0 too) shows no queue/scheduler, nr_requests or rq_affinity for
#   it (blk-sysfs.c, blk_mq_queue_attr_visible), older kernels "none"
#   without brackets and an nr_requests the kernel refuses to set
#   (EINVAL); the paths nvme1c1n1 and nvme1c2n1 are hidden disks with a
#   queue of their own, which udev never hears of (block/genhd.c);
# - request-based dm-multipath, whose own scheduler orders the I/O (the
#   paths' is bypassed), named directly or under an LVM volume;
# - the lines for one device match the identity it shows (WWID, dm uuid),
#   which a rename at the next boot keeps;
# - a later rules file that writes read-ahead as ATTR{bdi/read_ahead_kb};
# - queue depths the kernel refuses: below 4 it raises them to 4
#   (BLKDEV_MIN_RQ), above 2048 with a scheduler it answers EINVAL
#   (MAX_SCHED_RQ), with none above the tag depth (EINVAL);
# - a single-queue kernel (RHEL 7: "noop deadline [cfq]"), whose depth
#   has no such bound and whose schedulers have the old names.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
export HOSTTUNE_INSECURE_PROFILES=1
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (scripts/deps.sh installs it)"
SAS=sys/devices/pci0000:17/0000:17:02.0/0000:18:00.0/host0/port-0:0/end_device-0:0/target0:0:0/0:0:0:0/block/sda
NVME=sys/devices/pci0000:00/0000:00:1d.0/0000:01:00.0/nvme/nvme0/nvme0n1
HEAD=sys/devices/virtual/nvme-subsystem/nvme-subsys1/nvme1n1

mkdir -p "$tmp/profiles"
bt() {
        btroot=$1
        shift
        "$HOSTTUNE" --root "$btroot" --live-root --profile-path "$tmp/profiles" --profile-path "$PROFILES" \
                --rules-path "$RULES" "$@" >"$tmp/out" 2>"$tmp/err"
        rc=$?
}
btrun() {
        want=$1 desc=$2
        shift 2
        bt "$@"
        if [ "$rc" = "$want" ]; then ok "$desc (exit $rc)"; else
                not_ok "$desc: exit $rc, expected $want; stderr: $(head -c 800 "$tmp/err")"; fi
}
keys() { jq -r '[.changes[] | select(.backend == "block") | .key] | sort | join(",")' "$tmp/out"; }
errors() { jq -r '.errors | join("\n")' "$tmp/out"; }
warnings() { jq -r '.warnings | join("\n")' "$tmp/out"; }

# nvme_host ROOT OLD: the fixture with a multipath NVMe namespace; OLD=old
# gives the head the files kernels before the split show
nvme_host() {
        mkdir -p "$1/$HEAD/queue"
        printf '0\n' >"$1/$HEAD/queue/rotational"
        printf '128\n' >"$1/$HEAD/queue/read_ahead_kb"
        if [ "$2" = old ]; then
                printf 'none\n' >"$1/$HEAD/queue/scheduler"
                printf '128\n' >"$1/$HEAD/queue/nr_requests"
                printf '1\n' >"$1/$HEAD/queue/rq_affinity"
        fi
        ln -s "../${HEAD#sys/}" "$1/sys/block/nvme1n1"
        for c in 1 2; do
                p=sys/devices/pci0000:00/0000:00:1c.$c/0000:0$((c + 1)):00.0/nvme/nvme$c/nvme1c${c}n1
                mkdir -p "$1/$p/queue"
                printf '0\n' >"$1/$p/queue/rotational"
                printf '[none] mq-deadline kyber bfq \n' >"$1/$p/queue/scheduler"
                printf '1023\n' >"$1/$p/queue/nr_requests"
                printf '128\n' >"$1/$p/queue/read_ahead_kb"
                printf '1\n' >"$1/$p/queue/rq_affinity"
                ln -s "../${p#sys/}" "$1/sys/block/nvme1c${c}n1"
        done
}

cat >"$tmp/profiles/ssd.profile" <<'EOF'
summary = "a class of disks, nothing optional";
block = { non-rotational = { queue = {
        scheduler = "mq-deadline";
        nr_requests = 256;
        read_ahead_kb = 256;
}; }; };
EOF
for kernel in new old; do
        h=$(prepare_host baremetal-numa); scratch "$h"
        nvme_host "$h" $kernel
        btrun 2 "nvme multipath ($kernel kernel): a class plan has changes and no error" "$h" --json plan ssd
        check "nvme multipath ($kernel): the head takes read-ahead only; the paths and nvme0n1 the rest" \
                "nvme0n1 queue/nr_requests,nvme0n1 queue/read_ahead_kb,nvme0n1 queue/scheduler,nvme1c1n1 queue/nr_requests,nvme1c1n1 queue/read_ahead_kb,nvme1c1n1 queue/scheduler,nvme1c2n1 queue/nr_requests,nvme1c2n1 queue/read_ahead_kb,nvme1c2n1 queue/scheduler,nvme1n1 queue/read_ahead_kb" \
                "$(keys)"
        check "nvme multipath ($kernel): no error" "" "$(errors)"
        warnings >"$tmp/w"
        check_contains "nvme multipath ($kernel): the hidden paths' boot persistence is warned about" \
                "nvme1c1n1, nvme1c2n1: paths of a multipath NVMe namespace" "$tmp/w"
        btrun 0 "nvme multipath ($kernel): apply" "$h" apply ssd
        check "nvme multipath ($kernel): a path took mq-deadline" "none [mq-deadline] kyber bfq" \
                "$(sed 's/ *$//' "$h/sys/block/nvme1c1n1/queue/scheduler")"
        check "nvme multipath ($kernel): the head's read-ahead" "256" "$(cat "$h/$HEAD/queue/read_ahead_kb")"
        if [ $kernel = old ]; then
                check "nvme multipath (old): the head's nr_requests untouched (the kernel refuses it)" "128" \
                        "$(cat "$h/$HEAD/queue/nr_requests")"
        else
                [ -e "$h/$HEAD/queue/scheduler" ] && not_ok "nvme multipath (new): a scheduler file made on the head" ||
                        ok "nvme multipath (new): no file made on the head"
        fi
        btrun 0 "nvme multipath ($kernel): verify" "$h" verify
        btrun 0 "nvme multipath ($kernel): rollback" "$h" rollback
done

# a name reaching the head: told why, not written
cat >"$tmp/profiles/head.profile" <<'EOF'
summary = "the head by name";
block = { match = ( { kernel = "nvme1n1"; queue = { nr_requests = 256; }; } ); };
EOF
h=$(prepare_host baremetal-numa); scratch "$h"
nvme_host "$h" old
btrun 1 "nvme head by name: refused" "$h" --json plan head
errors >"$tmp/err"
check_contains "nvme head by name: the error says why" \
        "nvme1n1 has no request queue of its own (a bio-based device: no I/O scheduler to choose), so no queue/nr_requests to set" \
        "$tmp/err"

# --- request-based dm-multipath: the scheduler is the dm device's -----------
# A SAN LUN seen through two paths (sdb, sdc) as dm-2 (multipathd's
# mpatha, request-based: a blk-mq queue of its own, so a choice of
# scheduler), with an LVM volume dm-3 on it (bio-based: "none").
# blk_insert_cloned_request (block/blk-mq.c) bypasses the paths'
# schedulers: the one that orders the I/O is dm-2's.
mpath_host() {
        for p in b c; do
                d=sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/host2/rport-2:0-$p/target2:0:0/2:0:0:$p/block/sd$p
                mkdir -p "$1/$d/queue"
                printf '1\n' >"$1/$d/queue/rotational"
                printf '[mq-deadline] kyber bfq none \n' >"$1/$d/queue/scheduler"
                printf '256\n' >"$1/$d/queue/nr_requests"
                printf '4096\n' >"$1/$d/queue/read_ahead_kb"
                ln -s "../${d#sys/}" "$1/sys/block/sd$p"
        done
        mp=$1/sys/devices/virtual/block/dm-2
        mkdir -p "$mp/queue" "$mp/dm" "$mp/slaves"
        printf 'mpatha\n' >"$mp/dm/name"
        printf 'mpath-3600a098038304437415d4b6a59684a52\n' >"$mp/dm/uuid"
        printf '1\n' >"$mp/queue/rotational"
        printf '[mq-deadline] kyber bfq none \n' >"$mp/queue/scheduler"
        printf '256\n' >"$mp/queue/nr_requests"
        printf '4096\n' >"$mp/queue/read_ahead_kb"
        for p in b c; do
                ln -s ../../../../pci0000:3a/0000:3a:00.0/0000:3b:00.0/host2/rport-2:0-$p/target2:0:0/2:0:0:$p/block/sd$p \
                        "$mp/slaves/sd$p"
        done
        ln -s ../devices/virtual/block/dm-2 "$1/sys/block/dm-2"
        lv=$1/sys/devices/virtual/block/dm-3
        mkdir -p "$lv/queue" "$lv/dm" "$lv/slaves"
        printf 'vgdata-oradata\n' >"$lv/dm/name"
        printf '1\n' >"$lv/queue/rotational"
        printf 'none\n' >"$lv/queue/scheduler"
        printf '4096\n' >"$lv/queue/read_ahead_kb"
        ln -s ../../dm-2 "$lv/slaves/dm-2"
        ln -s ../devices/virtual/block/dm-3 "$1/sys/block/dm-3"
}
cat >"$tmp/profiles/mpath.profile" <<'EOF'
summary = "the multipath device by its multipathd name";
block = { match = ( { udev = "ATTR{dm/name}==\"mpatha\""; queue = { scheduler = "none"; }; } ); };
EOF
cat >"$tmp/profiles/lvmpath.profile" <<'EOF'
summary = "an LVM volume on multipath";
block = { match = ( { kernel = "dm-3"; queue = { scheduler = "none"; }; } ); };
EOF
h=$(prepare_host baremetal-numa); scratch "$h"
mpath_host "$h"
btrun 2 "multipath by name: plan" "$h" --json plan mpath
check "multipath by name: dm-2's own scheduler, not its paths'" "dm-2 queue/scheduler" "$(keys)"
jq -r '.files[] | select(.path == "/etc/udev/rules.d/99-hosttune-block.rules") | .after' "$tmp/out" >"$tmp/mp.rules"
check "multipath by name: one line, by the stable name, not leaving dm devices out" \
        'ACTION=="add|change", SUBSYSTEM=="block", ENV{DEVTYPE}=="disk", KERNEL!="loop*|ram*|zram*|sr*|nbd*|fd*", ATTR{dm/name}=="mpatha", ATTR{queue/scheduler}="none"' \
        "$(grep '^ACTION' "$tmp/mp.rules")"
btrun 0 "multipath by name: apply" "$h" apply mpath
check "multipath by name: dm-2 took none" "mq-deadline kyber bfq [none]" \
        "$(sed 's/ *$//' "$h/sys/devices/virtual/block/dm-2/queue/scheduler")"
check "multipath by name: the paths untouched" "[mq-deadline] kyber bfq none" "$(sed 's/ *$//' "$h/sys/block/sdb/queue/scheduler")"
btrun 0 "multipath by name: verify" "$h" verify
btrun 0 "multipath by name: rollback" "$h" rollback
btrun 2 "LVM on multipath: plan" "$h" --json plan lvmpath
check "LVM on multipath: down to the multipath device, not its paths" "dm-2 queue/scheduler" "$(keys)"
jq -r '.files[] | select(.path == "/etc/udev/rules.d/99-hosttune-block.rules") | .after' "$tmp/out" >"$tmp/lv.rules"
check "LVM on multipath: the line matches dm-2 by its dm uuid (a rename keeps it) and does not leave dm out" \
        'ACTION=="add|change", SUBSYSTEM=="block", ENV{DEVTYPE}=="disk", KERNEL!="loop*|ram*|zram*|sr*|nbd*|fd*", ATTR{dm/uuid}=="mpath-3600a098038304437415d4b6a59684a52", ATTR{queue/scheduler}="none"' \
        "$(grep '^ACTION' "$tmp/lv.rules")"
jq -r '.warnings[]' "$tmp/out" >"$tmp/w"
check_contains "LVM on multipath: the warning says how the line finds it" \
        "the udev rule matches them by the identity each shows: dm-2 (dm/uuid)" "$tmp/w"

# --- a rename at the next boot: per-device lines by the disk's identity ------
# The kernel names disks in the order it finds them: sda may come up as
# sdb. A line hosttune writes for one disk (a value a bound keeps, the
# disks under a named LVM volume) matches the WWID the disk shows
# (/sys/block/sda/device/wwid, from SCSI VPD page 0x83), as
# /dev/disk/by-id does; a disk without one keeps its name.
cat >"$tmp/profiles/keep.profile" <<'EOF'
summary = "a bound a disk exceeds, and the disks under an LVM volume";
block = {
        rotational = { queue = { read_ahead_kb = { value = 4096; bound = "at-least"; }; }; };
        match = ( { kernel = "dm-0"; queue = { scheduler = "kyber"; }; } );
};
EOF
h=$(prepare_host baremetal-numa); scratch "$h"
printf 'naa.5000c500a1b2c3d4\n' >"$h/${SAS%/block/sda}/wwid"
ln -s ../../../0:0:0:0 "$h/$SAS/device"
printf '8192\n' >"$h/$SAS/queue/read_ahead_kb"
btrun 2 "rename: plan" "$h" --json plan keep
jq -r '.files[] | select(.path == "/etc/udev/rules.d/99-hosttune-block.rules") | .after' "$tmp/out" >"$tmp/keep.rules"
check_contains "rename: the disk under dm-0 by its WWID" \
        'KERNEL!="dm-*|md*", ATTR{device/wwid}=="naa.5000c500a1b2c3d4", ATTR{queue/scheduler}="kyber"' "$tmp/keep.rules"
check_contains "rename: sda's kept read-ahead by its WWID" \
        'KERNEL!="loop*|ram*|zram*|sr*|nbd*|fd*", ATTR{device/wwid}=="naa.5000c500a1b2c3d4", ATTR{queue/read_ahead_kb}="8192"' "$tmp/keep.rules"
check "rename: no line by sda's name" 0 "$(grep -c 'KERNEL=="sda"' "$tmp/keep.rules")"
btrun 0 "rename: apply" "$h" apply keep
btrun 0 "rename: verify" "$h" verify
btrun 0 "rename: rollback" "$h" rollback

# --- a later rules file that sets read-ahead through the bdi ----------------
# /sys/block/X/bdi/read_ahead_kb is the same value as queue/read_ahead_kb
# (bdi->ra_pages), and tuning rules use either (an admin's
# ATTR{bdi/read_ahead_kb}="2048"): one sorting after hosttune's file wins
# at boot and is named; explain lists it as what it writes.
cat >"$tmp/profiles/ra.profile" <<'EOF'
summary = "read-ahead for rotating disks";
block = { rotational = { queue = { read_ahead_kb = 4096; }; }; };
EOF
h=$(prepare_host baremetal-numa); scratch "$h"
mkdir -p "$h/etc/udev/rules.d"
printf 'ACTION=="add|change", SUBSYSTEM=="block", KERNEL=="sd[a-z]", ATTR{bdi/read_ahead_kb}="2048"\n' \
        >"$h/etc/udev/rules.d/99-readahead.rules"
btrun 2 "bdi read-ahead in a later file: plan" "$h" --json plan ra
warnings >"$tmp/w"
check_contains "bdi read-ahead in a later file: named, as it writes it" \
        "99-readahead.rules:1 sets ATTR{bdi/read_ahead_kb}=\"2048\" and udev reads it after /etc/udev/rules.d/99-hosttune-block.rules" \
        "$tmp/w"
btrun 0 "bdi read-ahead: explain" "$h" --json explain block.sda.queue/read_ahead_kb
check "bdi read-ahead: explain's winner is that line" "ATTR{bdi/read_ahead_kb} 2048" \
        "$(jq -r '[.. | objects | select(.winner? == true)][0] | "\(.key) \(.value)"' "$tmp/out")"

# --- queue depths the kernel refuses ----------------------------------------
cat >"$tmp/profiles/shallow.profile" <<'EOF'
summary = "a depth below the kernel's least";
block = { rotational = { queue = { nr_requests = 2; }; }; };
EOF
cat >"$tmp/profiles/deep.profile" <<'EOF'
summary = "a depth above the kernel's most with a scheduler";
block = { rotational = { queue = { nr_requests = { value = 4096; bound = "at-least"; }; }; }; };
EOF
cat >"$tmp/profiles/deepnone.profile" <<'EOF'
summary = "a depth above the tag depth without a scheduler";
block = { non-rotational = { queue = { nr_requests = 4000; }; }; };
EOF
cat >"$tmp/profiles/deepsched.profile" <<'EOF'
summary = "a depth with the scheduler switched first";
block = { non-rotational = { queue = { scheduler = "mq-deadline"; nr_requests = 2048; }; }; };
EOF
h=$(prepare_host baremetal-numa); scratch "$h"
cp -a "$h" "$tmp/before"
btrun 1 "depth 2: refused" "$h" --json plan shallow
errors >"$tmp/err"
check_contains "depth 2: the error names the kernel's least" \
        "the value '2' is below 4, the smallest queue depth the kernel takes" "$tmp/err"
btrun 1 "depth 4096 with mq-deadline: refused" "$h" --json plan deep
errors >"$tmp/err"
check_contains "depth 4096: the error names the bound and the device" \
        "sda: the kernel refuses a queue depth above 2048 with an I/O scheduler (mq-deadline" "$tmp/err"
btrun 1 "depth 4096: apply refuses too, nothing written" "$h" apply deep
if diff -r "$tmp/before/sys" "$h/sys" >/dev/null; then ok "depth 4096: the host untouched"; else
        not_ok "depth 4096: the host changed"; fi
btrun 2 "depth 4000 under none: planned, with a warning" "$h" --json plan deepnone
warnings >"$tmp/err"
check_contains "depth 4000 under none: the warning names the tag depth" \
        "nvme0n1: with no I/O scheduler the kernel refuses a queue depth above the device's tag depth (EINVAL, block/blk-mq.c), which queue/nr_requests shows under none (1023 now)" \
        "$tmp/err"
btrun 2 "depth 2048 after a switch to mq-deadline: planned" "$h" --json plan deepsched
check "depth 2048 after a switch: no error, no warning about the tag depth" "" \
        "$(errors)$(warnings | grep 'tag depth')"

# --- a single-queue kernel: old names, no depth bound -------------------------
cat >"$tmp/profiles/legacy.profile" <<'EOF'
summary = "new names on an old kernel";
block = {
        rotational = { queue = { scheduler = "mq-deadline"; nr_requests = 4096; }; };
        non-rotational = { queue = { scheduler = "none"; }; };
};
EOF
h=$(prepare_host baremetal-numa); scratch "$h"
printf 'noop deadline [cfq] \n' >"$h/$SAS/queue/scheduler"
printf 'noop deadline [cfq] \n' >"$h/$NVME/queue/scheduler"
btrun 2 "single-queue kernel: plan" "$h" --json plan legacy
check "single-queue kernel: deadline for mq-deadline, noop for none, any depth" \
        "sda queue/scheduler cfq deadline; nvme0n1 queue/scheduler cfq noop; sda queue/nr_requests 256 4096" \
        "$(jq -r '[.changes[] | select(.backend == "block") | "\(.key) \(.current) \(.desired)"] | join("; ")' "$tmp/out")"
btrun 0 "single-queue kernel: apply" "$h" apply legacy
check "single-queue kernel: sda took deadline" "noop [deadline] cfq" "$(sed 's/ *$//' "$h/$SAS/queue/scheduler")"
btrun 0 "single-queue kernel: verify" "$h" verify

# systemd's udev (252 here) reads the lines written above: udevadm test
# on loop0, which every line leaves out, in a private mount namespace
if [ "$(id -u)" != 0 ] || ! command -v udevadm >/dev/null 2>&1 || ! command -v unshare >/dev/null 2>&1 ||
        [ ! -e /sys/devices/virtual/block/loop0 ] || [ ! -d /etc/udev/rules.d ]; then
        skip "udevadm reads the multipath and identity lines" "needs root, udevadm, unshare, loop0 and /etc/udev/rules.d"
else
        cat "$tmp/mp.rules" "$tmp/lv.rules" "$tmp/keep.rules" >"$tmp/ht.rules"
        unshare -m sh -c '
                set -e
                for d in /run /dev /etc/udev/rules.d /lib/udev/rules.d /usr/lib/udev/rules.d; do
                        if [ -d "$d" ]; then mount -t tmpfs tmpfs "$d"; fi
                done
                cp "$1" /etc/udev/rules.d/99-hosttune-block.rules
                udevadm test --action=add /sys/devices/virtual/block/loop0' sh "$tmp/ht.rules" >"$tmp/udevadm.out" 2>&1
        check_contains "udevadm: read hosttune's file" "Reading rules file: /etc/udev/rules.d/99-hosttune-block.rules" \
                "$tmp/udevadm.out"
        if grep -Eq "^/etc/udev/rules.d/99-hosttune-block.rules:[0-9]+ " "$tmp/udevadm.out"; then
                not_ok "udevadm refuses a line: $(grep -E "^/etc/udev/rules.d/99-hosttune-block.rules:[0-9]+ " "$tmp/udevadm.out" | head -2)"
        else ok "udevadm takes the multipath and identity lines"; fi
fi
finish
