#!/bin/bash
# run-scenario.sh NAME: one real-boot scenario, tests/boot/scenarios/NAME.
# A throwaway overlay on the cached image; a payload disk with hosttune
# (built on this host: same glibc as the Debian 12 guest), the verify
# unit, profiles/ and rules/ of the source tree and the scenario scripts.
# Boot 1 runs apply.sh and reboots (qemu is started again: a power cycle
# through firmware and GRUB), boot 2 runs verify.sh and powers off (a
# scenario with rollback.sh runs it too and reboots: boot 3 runs
# restored.sh and powers off); the results are read back from the payload
# disk with debugfs.
# Exit 0 pass, 1 fail. Environment: HOSTTUNE (the binary, default
# ./hosttune), HT_PKGDATADIR, HT_BOOT_CACHE, HT_BOOT_TIMEOUT (per boot,
# default 480 s), HT_BOOT_KEEP=1 keeps the work directory; HT_BOOT_PROFILE,
# HT_BOOT_SETS, HT_VERIFY_MESSAGE_ID are passed to the guest scripts.
# HT_CLOUDINIT_EXAMPLE (scenario cloud-init: oracle-db, mysql-db,
# oracle-db-small, mysql-db-small or broken) and HT_BOOT_DEB (the .deb it installs; default: built here).
# HT_BOOT_DISK (a raw disk image) is booted instead of the cached image,
# through a throwaway overlay too, and HT_BOOT_INPUT (a directory) goes to
# the payload as input/: image-offline.sh boots its tuned image so.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

NAME=${1:?usage: run-scenario.sh NAME}
SCEN=$BOOT_DIR/scenarios/$NAME
[ -f "$SCEN/apply.sh" ] || die "no scenario $NAME (no $SCEN/apply.sh)"
[ "$(id -u)" = 0 ] || die "needs root"
if [ -f "$SCEN/needs-disk" ] && [ -z "${HT_BOOT_DISK:-}" ]; then
        die "scenario $NAME boots a prepared disk: run it with tests/boot/image-offline.sh"
fi
HOSTTUNE=${HOSTTUNE:-$PWD/hosttune}
UNIT_IN=$TOP_SRCDIR/packaging/systemd/hosttune-verify.service.in
TMPFILES=$TOP_SRCDIR/packaging/tmpfiles/hosttune.conf

IMG=$("$BOOT_DIR/build-image.sh")
WORK=$(mktemp -d "${TMPDIR:-/tmp}/hosttune-boot-$NAME.XXXXXX")
result=FAIL
cleanup() {
        qemu_cleanup
        if [ "$result" = PASS ] && [ "${HT_BOOT_KEEP:-0}" != 1 ]; then
                rm -rf "$WORK"
        else
                rm -f "$WORK/disk.qcow2"
                log "work directory kept: $WORK"
        fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- the payload -------------------------------------------------------
PL=$WORK/payload
mkdir -p "$PL/scenarios"
cp "$BOOT_DIR/scenarios/lib.sh" "$PL/lib.sh"
for d in "$BOOT_DIR"/scenarios/*/; do cp -r "$d" "$PL/scenarios/"; done
ln -s "scenarios/$NAME" "$PL/scenario"
# a scenario's build hook makes what it needs on the host (the jvm
# scenario's stand-in program: the guest has no compiler)
if [ -x "$SCEN/build" ]; then "$SCEN/build" "$PL/scenarios/$NAME" || die "$NAME: its build hook failed"; fi
if [ -n "${HT_BOOT_INPUT:-}" ]; then cp -r "$HT_BOOT_INPUT" "$PL/input"; fi
# The unit and tmpfiles entry as a package installs them (binary in /usr/sbin).
sed 's|@sbindir[@]|/usr/sbin|g' "$UNIT_IN" >"$PL/hosttune-verify.service"
cp "$TMPFILES" "$PL/hosttune.tmpfiles"
for d in profiles rules; do
        if [ -d "$TOP_SRCDIR/$d" ]; then cp -r "$TOP_SRCDIR/$d" "$PL/"; fi
done
if [ -f "$SCEN/needs-hosttune" ]; then
        [ -x "$HOSTTUNE" ] || die "no hosttune binary at $HOSTTUNE (set HOSTTUNE)"
        [ -d "$PL/profiles" ] && [ -d "$PL/rules" ] || die "no profiles/ or rules/ in $TOP_SRCDIR"
        # Refuse a binary that cannot start in the guest, with the reason.
        missing=
        for lib in $(ldd "$HOSTTUNE" 2>/dev/null | awk '/=>/ { print $1 }'); do
                grep -qxF "$lib" "$IMG/guest-libs" || missing="$missing $lib"
        done
        [ -z "$missing" ] || die "$HOSTTUNE needs$missing, not in the guest image" \
                "(a sanitizer build? else add the package to tests/boot/guest/packages)"
        cp "$HOSTTUNE" "$PL/hosttune"
fi
# Settings for the guest scripts, as shell assignments they source.
q() { printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"; }
{
        echo "PKGDATADIR=$(q "${HT_PKGDATADIR:-/usr/local/share/hosttune}")"
        for v in HT_BOOT_PROFILE HT_BOOT_SETS HT_VERIFY_MESSAGE_ID HT_POWERCUT_RUNS HT_POWERCUT_AT; do
                if [ -n "${!v:-}" ]; then echo "$v=$(q "${!v}")"; fi
        done
} >"$PL/env"
# Scenario cloud-init: the NoCloud seed, an ISO 9660 volume labelled
# cidata (as cloud-localds makes it) with user-data = a shipped example
# copied unchanged (HT_CLOUDINIT_EXAMPLE oracle-db or mysql-db) or with one
# substitution (oracle-db-small, mysql-db-small: a size the guest can
# hold; broken: oracle-db with an unknown profile), meta-data, the test's vendor-data
# (the local apt source, merged under user-data) and repo/: the hosttune
# .deb of this tree (HT_BOOT_DEB, or built by packaging/build-deb.sh) with
# its Packages index, the trusted apt repository vendor-data names.
if [ -f "$SCEN/cloud-init" ]; then
        example=${HT_CLOUDINIT_EXAMPLE:-oracle-db-small}
        SEED=$WORK/seed
        mkdir -p "$SEED/repo"
        # a variant is the shipped file with one substitution (FROM, once)
        base=$example from= to=
        case $example in
        broken) base=oracle-db from='[hosttune, apply, oracle,' to='[hosttune, apply, no-such-profile,' ;;
        # the shipped sizes (18G, 24G) cannot fit the 1 GB guest: hosttune
        # refuses the plan (rule hugepages-fit); good's 64M does
        oracle-db-small) base=oracle-db from=sga_max_size=18G to=sga_max_size=64M ;;
        mysql-db-small) base=mysql-db from='innodb_buffer_pool_size = 24G' to='innodb_buffer_pool_size = 64M' ;;
        esac
        src=$TOP_SRCDIR/packaging/cloud-init/$base.yaml
        [ -f "$src" ] || die "no example $src (HT_CLOUDINIT_EXAMPLE: oracle-db, mysql-db, oracle-db-small, mysql-db-small or broken)"
        if [ -n "$from" ]; then
                [ "$(grep -cF -- "$from" "$src")" = 1 ] || die "$example: $src has not exactly one '$from'"
                awk -v f="$from" -v t="$to" '{ i = index($0, f); if (i) $0 = substr($0, 1, i - 1) t substr($0, i + length(f)); print }' \
                        "$src" >"$SEED/user-data"
                [ "$(diff "$src" "$SEED/user-data" | grep -c '^[<>]')" = 2 ] || die "$example: not one line changed"
        else
                cp "$src" "$SEED/user-data"
                cmp -s "$src" "$SEED/user-data" || die "user-data differs from $src"
        fi
        cp "$SEED/user-data" "$PL/user-data"
        printf 'instance-id: ht-boot-%s\nlocal-hostname: hosttune-boot\n' "$example" >"$SEED/meta-data"
        cp "$SCEN/vendor-data" "$SEED/vendor-data"
        deb=${HT_BOOT_DEB:-}
        if [ -z "$deb" ]; then
                log "building the .deb (packaging/build-deb.sh; HT_BOOT_DEB=path reuses one)"
                deb=$(sh "$TOP_SRCDIR/packaging/build-deb.sh" "$WORK/deb" | grep '/hosttune_.*\.deb$') ||
                        die "packaging/build-deb.sh failed"
        fi
        [ -f "$deb" ] || die "no .deb at $deb"
        cp "$deb" "$SEED/repo/"
        # The example's other packages (mysql-db: mariadb-server), with every
        # hard dependency: apt in the guest takes what it lacks from here.
        others=$(python3 -c 'import sys, yaml
print(" ".join(p for p in yaml.safe_load(open(sys.argv[1])).get("packages", []) if p != "hosttune"))' "$SEED/user-data")
        if [ -n "$others" ]; then seed_debs "$SEED/repo" $others; fi
        (cd "$SEED/repo" && dpkg-scanpackages --multiversion . >Packages 2>/dev/null)
        grep -q '^Package: hosttune$' "$SEED/repo/Packages" || die "no hosttune in the seed's Packages index"
        genisoimage -quiet -output "$WORK/seed.iso" -volid cidata -joliet -rock "$SEED"
        BOOT_SEED=$WORK/seed.iso
        echo "HT_CLOUDINIT_EXAMPLE=$(q "$example")" >>"$PL/env"
fi
make_payload "$PL" "$WORK/payload.img"
if [ -n "${HT_BOOT_DISK:-}" ]; then
        qemu-img create -q -f qcow2 -b "$(realpath "$HT_BOOT_DISK")" -F raw "$WORK/disk.qcow2"
else
        qemu-img create -q -f qcow2 -b "$IMG/base.qcow2" -F qcow2 "$WORK/disk.qcow2"
fi

# --- the boots -----------------------------------------------------------
t0=$(now)
log "$NAME: booting ($(qemu_accel), ${GUEST_SMP} vCPUs, work dir $WORK)"
state=
# A power-cut scenario: one cut a boot (boot 1 arms the first), so
# HT_POWERCUT_RUNS cuts take that many boots plus one.
boots=3 cut=
if [ -f "$SCEN/powercut" ]; then
        runs=${HT_POWERCUT_RUNS:-3}
        case $runs in '' | *[!0-9]* | 0) die "HT_POWERCUT_RUNS must be a number above 0, not '$runs'" ;; esac
        boots=$((runs + 1)) cut=1
fi
boot=0
while [ $boot -lt $boots ]; do
        boot=$((boot + 1))
        tb=$(now)
        # a power-cut run's boot 1 applies twice and rolls back once; a
        # scenario marked long-boot1 installs packages in it (mariadb:
        # apt 250-320 s under TCG at load 11-15)
        long=
        if { [ -n "$cut" ] || [ -f "$SCEN/long-boot1" ]; } && [ $boot = 1 ]; then long=1; fi
        if [ -n "$long" ]; then BOOT_TIMEOUT=$((BOOT_TIMEOUT * 2)); fi
        boot_once "$WORK/disk.qcow2" "$WORK/payload.img" "$WORK/serial-$boot.log" $cut
        if [ -n "$long" ]; then BOOT_TIMEOUT=$((BOOT_TIMEOUT / 2)); fi
        state=$BOOT_RESULT
        log "$NAME: boot $boot ended: $state after $(( $(now) - tb ))s"
        [ "$state" = reboot ] || [ "$state" = cut ] || break
done

debugfs -R 'cat /results.txt' "$WORK/payload.img" >"$WORK/results.txt" 2>/dev/null || true
(cd "$WORK" && debugfs -R 'rdump /out .' payload.img >/dev/null 2>&1) || true
sed 's/^/    /' "$WORK/results.txt"
if [ -n "$cut" ]; then powercut_table "$WORK" "$runs"; fi
# the boot that powered off gives the verdict (boot 2, or 3 after a rollback)
# (its harness stage, which a power-cut run repeats: the last RESULT line)
if [ "$state" = poweroff ] && grep "^HARNESS\[boot[0-9]*\] RESULT " "$WORK/results.txt" | tail -n 1 | grep -q 'RESULT PASS$'; then
        result=PASS
else
        log "$NAME: last serial lines of boot ${boot}:"
        tail -25 "$WORK/serial-$boot.log" | sed 's/^/    | /' >&2
fi
[ -z "${example:-}" ] || NAME=$NAME:$example
log "TIMING $NAME $(( $(now) - t0 ))s ($result, load $(cut -d' ' -f1-3 /proc/loadavg))"
[ "$result" = PASS ]
