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
BOOT_RESULT=
boot_once() {
        local disk=$1 payload=$2 logf=$3 rc=0
        # exec: $! is qemu itself, so the trap kills qemu and nothing else.
        (exec qemu-system-x86_64 -machine "pc,accel=$(qemu_accel)" -nodefaults \
                -smp "$GUEST_SMP" -m "$GUEST_MEM" \
                -display none -vga none -monitor none -nic none \
                -device virtio-rng-pci \
                -serial "file:$logf" -no-reboot \
                -drive "file=$disk,if=virtio,format=qcow2" \
                -drive "file=$payload,if=virtio,format=raw" \
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
                sleep 1
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

# make_payload DIR IMG: an ext4 image holding DIR, sized to fit.
make_payload() {
        local dir=$1 img=$2 kb
        kb=$(du -sk "$dir" | cut -f1)
        rm -f "$img"
        mke2fs -q -t ext4 -L payload -d "$dir" "$img" $(( kb * 2 + 16384 ))k >/dev/null
}
