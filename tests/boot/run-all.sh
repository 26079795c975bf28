#!/bin/bash
# The real-boot end-to-end test of hosttune (`make check-boot`): builds or
# reuses the cached Debian 12 guest image, runs each scenario under qemu,
# prints TAP lines and a closing "boot: N passed, M failed, K skipped".
# Exit 0 all passed, 1 a failure, 77 skipped (not root, no qemu, ...).
#   infra            stand-in apply/verify (sed + update-grub): the harness
#   infra-sabotaged  the same with the sabotages: they really break the boot
#   good             hosttune apply -> reboot -> verify --boot: ok
#   sabotaged        the same, grub.cfg regeneration undone and sysctl
#                    overridden: verify --boot reports drift
#   rollback         good's apply -> reboot -> verify -> rollback -> reboot:
#                    the original state holds (three boots)
#   powercut         good's apply with the power cut (qemu SIGKILLed) at
#                    HT_POWERCUT_RUNS moments (default 3) spread over it:
#                    each next boot gets through GRUB, recovers, every
#                    managed file is wholly old or new, and the rollback
#                    gives the tree back byte for byte; a table at the end
#   cloud-init       cloud-init provisions the guest from a NoCloud seed:
#                    each of HT_CLOUDINIT_EXAMPLES (default
#                    "oracle-db-small mysql-db-small broken": the shipped
#                    examples with a size the 1 GB guest holds, and
#                    oracle-db with an unknown profile; "oracle-db
#                    mysql-db" run them unchanged: hosttune refuses their
#                    sizes) installs the .deb from the seed's apt
#                    repository, applies, reboots only when hosttune says
#                    so; one TAP line each
#   mariadb          issue 39: Debian's mariadb-server (installed from the
#                    payload's apt repository) with the DBA's option file
#                    (large_pages=ON) -> apply mysql -> reboot: verify unit
#                    ok, mariadbd holds its HugePages, its limits never
#                    lowered; large_pages=OFF is drift naming mariadbd;
#                    the start gate (issue 37) with the HugePages taken
#                    by another program: warn logs and starts, refuse
#                    fails the start; rollback (the gate's drop-in gone)
#                    -> reboot: everything as before (3 boots)
#   image            image-offline.sh: a copy of the image tuned offline on
#                    this machine (--root, with and without its /proc, /sys,
#                    /dev bound), checked with the image's tools, rolled
#                    back, then booted once: verify --boot ok
# HT_BOOT_SCENARIOS chooses (default: all ten); other settings in
# run-scenario.sh and build-image.sh. Host packages: tests/boot/deps.sh.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

skip() { echo "1..0 # SKIP $*"; echo "boot: 0 passed, 0 failed, 1 skipped"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (mmdebstrap, a boot image cache in $CACHE_DIR)"
[ "$(uname -m)" = x86_64 ] || skip "needs an x86_64 host (the guest runs the host-built hosttune)"
for t in qemu-system-x86_64 qemu-img mmdebstrap mke2fs debugfs sfdisk grub-mkimage flock jq systemctl systemd-tmpfiles unshare; do
        command -v "$t" >/dev/null || skip "no $t: run tests/boot/deps.sh"
done
# Can qemu start a machine at all (firmware present, accelerator usable)?
# A paused one that is still there after 2 s can.
(exec qemu-system-x86_64 -machine "pc,accel=$(qemu_accel)" -nodefaults -display none \
        -monitor none -serial none -S </dev/null >/dev/null 2>&1) &
probe=$!
sleep 2
kill -0 "$probe" 2>/dev/null || skip "qemu-system-x86_64 cannot start a machine here"
kill "$probe"
wait "$probe" 2>/dev/null

SCENARIOS=${HT_BOOT_SCENARIOS:-infra infra-sabotaged good sabotaged rollback jvm mariadb powercut image cloud-init}
export HOSTTUNE=${HOSTTUNE:-$PWD/hosttune}
# cloud-init runs once an example: "cloud-init:EXAMPLE" entries
list=
for s in $SCENARIOS; do
        if [ "$s" = cloud-init ]; then
                for e in ${HT_CLOUDINIT_EXAMPLES:-oracle-db-small mysql-db-small broken}; do list="$list cloud-init:$e"; done
        else
                list="$list $s"
        fi
done
SCENARIOS=$list

# Children run in the background so that a TERM to this script reaches
# them too (their traps then kill the qemu they started).
child=
trap '[ -n "$child" ] && kill -TERM "$child" 2>/dev/null; wait; exit 130' INT TERM
run_child() {
        "$@" &
        child=$!
        wait "$child"
        local rc=$?
        child=
        return $rc
}

t0=$(now)
if ! run_child "$BOOT_DIR/build-image.sh" >/dev/null; then
        echo "Bail out! the guest image could not be built"
        echo "boot: 0 passed, 1 failed"
        exit 1
fi
log "TIMING image $(( $(now) - t0 ))s"

# One .deb for every cloud-init example (HT_BOOT_DEB: one CI built already).
case " $SCENARIOS " in
*" cloud-init:"*)
        if [ -z "${HT_BOOT_DEB:-}" ]; then
                debdir=$(mktemp -d "${TMPDIR:-/tmp}/hosttune-boot-deb.XXXXXX")
                trap 'rm -rf "$debdir"' EXIT
                td=$(now)
                if HT_BOOT_DEB=$(sh "$TOP_SRCDIR/packaging/build-deb.sh" "$debdir" | grep '/hosttune_.*\.deb$'); then
                        export HT_BOOT_DEB
                        log "TIMING deb $(( $(now) - td ))s"
                else
                        log "packaging/build-deb.sh failed: the cloud-init examples will fail"
                        export HT_BOOT_DEB=$debdir/missing.deb
                fi
        fi ;;
esac

n=0 passed=0 failed=0
echo "1..$(echo $SCENARIOS | wc -w)"
for s in $SCENARIOS; do
        n=$((n + 1))
        ts=$(now)
        runner=$BOOT_DIR/run-scenario.sh
        [ "$s" = image ] && runner=$BOOT_DIR/image-offline.sh
        example=
        case $s in cloud-init:*) example=${s#cloud-init:} ;; esac
        if HT_CLOUDINIT_EXAMPLE=$example run_child "$runner" "${s%%:*}" >&2; then
                echo "ok $n - $s ($(( $(now) - ts ))s)"
                passed=$((passed + 1))
        else
                echo "not ok $n - $s ($(( $(now) - ts ))s)"
                failed=$((failed + 1))
        fi
done
echo "boot: $passed passed, $failed failed"
[ "$failed" = 0 ]
