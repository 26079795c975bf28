# Host-side helpers shared by build-image.sh, run-scenario.sh and run-all.sh.
# Sourced (bash); callers set -euo pipefail.

BOOT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP_SRCDIR=$(cd "$BOOT_DIR/../.." && pwd)
CACHE_DIR=${HT_BOOT_CACHE:-/var/cache/hosttune-boot}
KERNEL_PKG=${HT_BOOT_KERNEL:-linux-image-cloud-amd64}
# Seconds per boot: ~60 s on an idle 2-core host, 260 s seen with other
# builds running beside it.
BOOT_TIMEOUT=${HT_BOOT_TIMEOUT:-480}
GUEST_SMP=${HT_BOOT_SMP:-2}            # 1 vCPU is about twice as slow under TCG
GUEST_MEM=${HT_BOOT_MEM:-1024}         # MB

log() { printf '%s: %s\n' "${0##*/}" "$*" >&2; }
die() { log "$*"; exit 1; }
now() { date +%s; }

# The image is defined by these files and settings; change any and the
# cache key changes, so a stale image is never reused.
image_key() {
        {
                cat "$BOOT_DIR/build-image.sh"
                for f in "$BOOT_DIR"/guest/*; do printf '%s\n' "${f##*/}"; cat "$f"; done
                printf 'kernel=%s\n' "$KERNEL_PKG"
                # the disk's size is build-image.sh's setting, not in its
                # text: a cached smaller image must not win (issue 39);
                # the default adds nothing, so the default image's key (and
                # the image other checkouts share) stays as it was
                [ "${HT_BOOT_DISK_MB:-1024}" = 1024 ] || printf 'disk_mb=%s\n' "$HT_BOOT_DISK_MB"
        } | sha256sum | cut -c1-16
}
image_dir() { printf '%s/image-%s\n' "$CACHE_DIR" "$(image_key)"; }

# Software emulation unless asked otherwise: on the project's machines
# /dev/kvm exists but a KVM guest hangs right after GRUB's "Loading Linux"
# (nested virtualisation), so its presence proves nothing.
qemu_accel() {
        case ${HT_BOOT_ACCEL:-tcg} in
        kvm) echo kvm ;;
        *) echo tcg ;;
        esac
}

QEMU_PID=
# Kill the qemu we started (and only it). Safe to call twice.
qemu_cleanup() {
        if [ -n "$QEMU_PID" ] && kill -0 "$QEMU_PID" 2>/dev/null; then
                kill -TERM "$QEMU_PID" 2>/dev/null || true
                sleep 1
                kill -KILL "$QEMU_PID" 2>/dev/null || true
                wait "$QEMU_PID" 2>/dev/null || true
        fi
        QEMU_PID=
}

# boot_once DISK PAYLOAD LOG: power the guest on once. qemu runs with
# -no-reboot, so a guest reboot ends the process and the caller relaunches
# it: a power cycle through firmware and GRUB, minutes faster under TCG
# than a reset inside one qemu. Sets BOOT_RESULT to "poweroff", "reboot"
# or "hang" (not printed: a $(...) subshell would hide QEMU_PID from the
# caller's trap).
#
# With CUT (the 4th argument, scenario powercut) the guest's power is cut
# when its serial console says so: "HT-POWERCUT armed cut=K time=MS" cuts
# MS milliseconds later, "... point=N" once hosttune says it is paused at
# that fault point (HOSTTUNE_FAULT_PAUSE) or the guest says the apply
# exited. The cut is SIGKILL to qemu: the guest's RAM, so its page cache
# and every write it did not flush, is gone, and so is what qemu's qcow2
# layer had not yet written (its metadata cache); what the guest flushed
# qemu has fdatasync'ed (cache=writeback honours the guest's flushes) and
# is on the disk. Writes the guest submitted but did not flush may still
# survive in the host's page cache (a kill is no host power cut), so this
# is a power cut of the guest with a disk that keeps its write cache:
# lost are only the writes nobody flushed from the guest's page cache.
# A monitor "quit" would flush qemu's caches first, and a "system_reset"
# inside one TCG qemu stalls for minutes (see README.md). BOOT_RESULT is
# then "cut".
BOOT_RESULT=
# BOOT_SEED (a raw image, scenario cloud-init: the NoCloud seed) becomes
# the guest's third disk, /dev/vdc, read-only.
BOOT_SEED=
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
boot_once() {
        local disk=$1 payload=$2 logf=$3 cut=${4:-} rc=0 cut_at= line
        local seed=()
        [ -z "$BOOT_SEED" ] || seed=(-drive "file=$BOOT_SEED,if=virtio,format=raw,readonly=on")
        # exec: $! is qemu itself, so the trap kills qemu and nothing else.
        (exec qemu-system-x86_64 -machine "pc,accel=$(qemu_accel)" -nodefaults \
                -smp "$GUEST_SMP" -m "$GUEST_MEM" \
                -display none -vga none -monitor none -nic none \
                -device virtio-rng-pci \
                -serial "file:$logf" -no-reboot \
                -drive "file=$disk,if=virtio,format=qcow2,cache=writeback" \
                -drive "file=$payload,if=virtio,format=raw,cache=writeback" "${seed[@]}" \
                </dev/null >"$logf.qemu" 2>&1) &
        QEMU_PID=$!
        local deadline=$(( $(now) + BOOT_TIMEOUT ))
        while kill -0 "$QEMU_PID" 2>/dev/null; do
                if [ "$(now)" -ge "$deadline" ]; then
                        log "boot exceeded ${BOOT_TIMEOUT}s, killing qemu"
                        qemu_cleanup
                        BOOT_RESULT=hang
                        return 0
                fi
                if [ -z "$cut" ]; then
                        sleep 1
                        continue
                fi
                if [ -z "$cut_at" ]; then
                        line=$(grep -a -o 'HT-POWERCUT armed cut=[0-9]* [a-z]*=[0-9]*' "$logf" 2>/dev/null | tail -n 1 || true)
                        case $line in
                        *time=*) cut_at=$(( $(now_ms) + ${line##*time=} )) ;;
                        *point=*) cut_at=marker ;;
                        esac
                fi
                if { [ "$cut_at" = marker ] &&
                        grep -a -q 'paused (HOSTTUNE_FAULT_PAUSE)\|HT-POWERCUT apply-exited' "$logf" 2>/dev/null; } ||
                        { [ -n "$cut_at" ] && [ "$cut_at" != marker ] && [ "$(now_ms)" -ge "$cut_at" ]; }; then
                        kill -KILL "$QEMU_PID" 2>/dev/null || true
                        wait "$QEMU_PID" 2>/dev/null || true
                        QEMU_PID=
                        log "power cut ($line)"
                        BOOT_RESULT=cut
                        return 0
                fi
                sleep 0.2
        done
        wait "$QEMU_PID" || rc=$?
        QEMU_PID=
        if [ "$rc" != 0 ]; then
                log "qemu exited with $rc: $(tail -3 "$logf.qemu")"
                BOOT_RESULT=hang
        elif grep -q 'reboot: Power down' "$logf"; then
                BOOT_RESULT=poweroff
        elif grep -q 'reboot: Restarting system' "$logf"; then
                BOOT_RESULT=reboot
        else
                BOOT_RESULT=hang
        fi
}

# seed_debs DIR PKG...: PKG and every hard dependency as .deb files in
# DIR, for an apt repository the guest (no network) installs from; its apt
# takes from it only what the image lacks. Taken from this host's
# /var/cache/apt/archives where apt has them already, else downloaded
# with this host's apt (a Debian 12 host, the guest's release); kept in
# $CACHE_DIR/seed-debs (~46 MB for mariadb-server). The caller indexes DIR
# (dpkg-scanpackages).
seed_debs() {
        local dir=$1 closure p
        shift
        mkdir -p "$CACHE_DIR/seed-debs" "$dir"
        closure=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
                --no-replaces --no-enhances "$@" | grep -v '^ \|^<' | sed 's/:amd64$//' | sort -u)
        (cd "$CACHE_DIR/seed-debs" && for p in $closure; do
                ls "${p}"_*.deb >/dev/null 2>&1 || cp /var/cache/apt/archives/"${p}"_*.deb . 2>/dev/null ||
                        apt-get -qq download "$p" 2>/dev/null || true
        done)
        for p in $closure; do cp "$CACHE_DIR/seed-debs/${p}"_*.deb "$dir/" 2>/dev/null || true; done
        for p in "$@"; do
                ls "$dir/${p}"_*.deb >/dev/null 2>&1 || die "could not download $p for the guest's apt repository"
        done
}

# make_payload DIR IMG: an ext4 image holding DIR, sized to fit.
make_payload() {
        local dir=$1 img=$2 kb
        kb=$(du -sk "$dir" | cut -f1)
        rm -f "$img"
        mke2fs -q -t ext4 -L payload -d "$dir" "$img" $(( kb * 2 + 16384 ))k >/dev/null
}

# powercut_table WORK RUNS: one row per cut (what was
# aimed at, the last fault point the serial console shows before the
# power went, what the next boot found), then the totals. Cut K was armed
# in boot K and checked in boot K+1 (POWERCUT-RESULT lines of results.txt).
powercut_table() {
        local work=$1 runs=$2 k aimed reached res booted
        local cuts=0 recovered=0 bootfail=0 failed=0
        printf '%-4s %-12s %-34s %-7s %-12s %-5s %-9s %-8s %s\n' cut aimed "last fault point before the cut" booted recovery tree rollback \
                "runtime*" checks
        for k in $(seq 1 "$runs"); do
                [ -f "$work/serial-$k.log" ] || break
                aimed=$(grep -a -o 'HT-POWERCUT armed cut=[0-9]* [a-z]*=[0-9]*' "$work/serial-$k.log" | tail -n 1 | sed 's/.* //')
                [ -n "$aimed" ] || break
                cuts=$((cuts + 1))
                reached=$(grep -a -o 'hosttune: fault point [0-9]*: [a-z-]*' "$work/serial-$k.log" | tail -n 1 | sed 's/hosttune: fault point //')
                grep -a -q 'HT-POWERCUT apply-exited' "$work/serial-$k.log" && reached="${reached:+$reached, }apply exited"
                res=$(grep -a "^POWERCUT-RESULT cut=$k " "$work/results.txt" | tail -n 1)
                if [ -n "$res" ]; then
                        booted=yes
                elif [ -f "$work/serial-$((k + 1)).log" ] && ! grep -a -q 'HARNESS\[boot' "$work/serial-$((k + 1)).log"; then
                        booted=NO
                        bootfail=$((bootfail + 1))
                else
                        booted=?
                fi
                field() { printf '%s\n' "$res" | tr ' ' '\n' | sed -n "s/^$1=//p"; }
                [ "$(field checks)" = ok ] && recovered=$((recovered + 1)) || failed=$((failed + 1))
                printf '%-4s %-12s %-34s %-7s %-12s %-5s %-9s %-8s %s\n' "$k" "$aimed" "${reached:-(none)}" "$booted" \
                        "$(field recovery)" "$(field tree)" "$(field rollback)" "$(field runtime_kept)" "$(field checks)"
        done
        echo "(runtime*: values the boot after the cut loaded from the files it left, which recovery did not undo)"
        echo "powercut: $cuts cuts, $recovered recovered, $bootfail boot failures, $failed failed checks"
}
