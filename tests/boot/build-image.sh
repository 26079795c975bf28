#!/bin/bash
# Build (or reuse) the Debian 12 guest image of the real-boot test:
# minbase + systemd + a cloud kernel + GRUB (BIOS) + cloud-init +
# hosttune's runtime libraries, serial console, and the harness unit. The
# system locale is C.UTF-8 (/etc/default/locale, as the installer writes
# it): else cloud-init's locale module would set en_US.UTF-8, which
# minbase cannot generate (update-locale fails, and so does the module). No loop devices and no
# mounts: the ext4 root is written with `mke2fs -d`, GRUB's boot sectors
# with dd, and the guest runs its own update-grub in a first "prime" boot.
#
# Output: $HT_BOOT_CACHE/image-KEY/base.qcow2 (default cache
# /var/cache/hosttune-boot), KEY a hash of the files that define the image.
# Prints the image directory on stdout. --force rebuilds.
# Needs root, network to the Debian mirror and the packages of deps.sh.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# stdout carries only the image directory; everything else goes to stderr.
exec 3>&1 1>&2
force=0
[ "${1:-}" = --force ] && force=1
[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap --mode=root)"

IMG=$(image_dir)
if [ "$force" = 0 ] && [ -s "$IMG/base.qcow2" ] && [ -s "$IMG/guest-libs" ]; then
        log "reusing $IMG"
        echo "$IMG" >&3
        exit 0
fi

MIRROR=${HT_BOOT_MIRROR:-$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
SIZE_MB=${HT_BOOT_DISK_MB:-1024}
DEBS=$CACHE_DIR/debs                    # .deb cache across rebuilds
WORK=$CACHE_DIR/build.$$
mkdir -p "$CACHE_DIR" "$DEBS"

# One build at a time per cache; a second caller waits, then reuses.
exec 9>"$CACHE_DIR/.lock"
flock 9
if [ "$force" = 0 ] && [ -s "$IMG/base.qcow2" ] && [ -s "$IMG/guest-libs" ]; then
        log "reusing $IMG (built meanwhile)"
        echo "$IMG" >&3
        exit 0
fi

cleanup() {
        local rc=$?
        qemu_cleanup
        # mmdebstrap only warns when it cannot unmount; never rm -rf through a live /proc.
        if [ -d "$WORK/rootfs" ]; then
                for m in proc sys dev/pts dev; do
                        mountpoint -q "$WORK/rootfs/$m" 2>/dev/null && umount -l "$WORK/rootfs/$m"
                done
        fi
        grep -q " $WORK/" /proc/mounts && return
        if [ "$rc" = 0 ]; then
                rm -rf "$WORK"
        else    # keep the logs of a failed build, not the bulk
                rm -rf "$WORK/rootfs" "$WORK"/*.raw "$WORK"/*.qcow2 "$WORK"/*.img
                log "logs of the failed build kept in $WORK"
        fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
rm -rf "$WORK"
mkdir -p "$WORK"
cd "$WORK"

pkgs=$(grep -v '^#' "$BOOT_DIR/guest/packages" | tr -s ' \n' ',' | sed 's/^,//; s/,$//')
t0=$(now)

# --- 1. root filesystem ------------------------------------------------
export BOOT_DIR
timeout 1800 mmdebstrap --variant=minbase --mode=root --skip=essential/unlink \
        --aptopt='DPkg::Lock::Timeout "600"' \
        --include="$pkgs,$KERNEL_PKG" \
        --setup-hook='mkdir -p "$1/var/cache/apt/archives/"' \
        --setup-hook="sync-in $DEBS /var/cache/apt/archives/" \
        --setup-hook='mkdir -p "$1/etc/initramfs-tools/conf.d" "$1/etc/initramfs-tools/hooks" "$1/etc/default"' \
        --setup-hook='printf "MODULES=list\nCOMPRESS=zstd\n" >"$1/etc/initramfs-tools/conf.d/10-small"' \
        --setup-hook='cp "$BOOT_DIR/guest/initramfs-hook-virtio" "$1/etc/initramfs-tools/hooks/virtio"' \
        --setup-hook='cp "$BOOT_DIR/guest/default-grub" "$1/etc/default/grub"' \
        --customize-hook="sync-out /var/cache/apt/archives $DEBS" \
        --customize-hook='echo hosttune-boot >"$1/etc/hostname"' \
        --customize-hook='cp "$BOOT_DIR/guest/harness.service" "$1/etc/systemd/system/ht-harness.service"' \
        --customize-hook='install -m755 "$BOOT_DIR/guest/harness.sh" "$1/usr/local/sbin/ht-harness"' \
        --customize-hook='chroot "$1" systemctl enable ht-harness.service' \
        --customize-hook='cp "$BOOT_DIR/guest/modprobe.conf" "$1/etc/modprobe.d/ht-boot-test.conf"' \
        --customize-hook='echo LANG=C.UTF-8 >"$1/etc/default/locale"' \
        --customize-hook='chroot "$1" systemctl mask serial-getty@ttyS0.service getty@tty1.service getty-static.service e2scrub_reap.service e2scrub_all.timer fstrim.timer' \
        --customize-hook='mkdir -p "$1/boot/grub/i386-pc"; cp "$1"/usr/lib/grub/i386-pc/*.mod "$1"/usr/lib/grub/i386-pc/*.lst "$1/boot/grub/i386-pc/"' \
        bookworm rootfs "$MIRROR" >build.log 2>&1 || { tail -30 build.log >&2; die "mmdebstrap failed"; }
t1=$(now)
log "TIMING mmdebstrap $((t1 - t0))s"
for m in proc sys dev/pts dev; do
        mountpoint -q "rootfs/$m" && umount -l "rootfs/$m"
done
grep -q " $WORK/rootfs/" /proc/mounts && die "rootfs still has mounts"

# What the guest's libraries are, so run-scenario.sh can refuse a binary
# that would not start there (a sanitizer build, a missing package).
(cd rootfs && find lib usr/lib -name '*.so*' \( -type f -o -type l \) -printf '%f\n') |
        sort -u >guest-libs

# --- 2. bootstrap grub.cfg and fstab (the prime boot replaces grub.cfg) --
KVER=$(ls rootfs/boot | sed -n 's/^vmlinuz-//p' | head -1)
[ -n "$KVER" ] || die "no kernel in rootfs/boot"
UUID=$(cat /proc/sys/kernel/random/uuid)
echo "UUID=$UUID / ext4 rw,errors=remount-ro 0 1" >rootfs/etc/fstab
cat >rootfs/boot/grub/grub.cfg <<CFG
serial --unit=0 --speed=115200
terminal_input serial; terminal_output serial
set timeout=0
menuentry 'bootstrap' {
  search --no-floppy --fs-uuid --set=root $UUID
  linux /boot/vmlinuz-$KVER root=UUID=$UUID ro console=ttyS0,115200 panic=10
  initrd /boot/initrd.img-$KVER
}
CFG

# --- 3. MBR disk, ext4 written straight from the directory --------------
truncate -s "${SIZE_MB}M" disk.raw
printf 'label: dos\nstart=2048, type=83, bootable\n' | sfdisk -q disk.raw
mke2fs -q -t ext4 -U "$UUID" -L root -E offset=$((2048 * 512)) -d rootfs disk.raw $((SIZE_MB * 1024 - 1024))k

# --- 4. what grub-install does for i386-pc: boot.img into the MBR's first
# 440 bytes, core.img into the gap before the partition ------------------
grub-mkimage -O i386-pc -o core.img -p '(hd0,msdos1)/boot/grub' -d rootfs/usr/lib/grub/i386-pc \
        biosdisk part_msdos ext2 search search_fs_uuid
[ "$(stat -c %s core.img)" -lt $((2047 * 512)) ] || die "core.img does not fit before the partition"
dd if=rootfs/usr/lib/grub/i386-pc/boot.img of=disk.raw bs=440 count=1 conv=notrunc status=none
dd if=core.img of=disk.raw bs=512 seek=1 conv=notrunc status=none
rm -rf rootfs core.img
qemu-img convert -O qcow2 disk.raw stage.qcow2
rm -f disk.raw
t2=$(now)
log "TIMING disk $((t2 - t1))s"

# --- 5. prime boot: the guest runs its own update-grub (the real
# grub-mkconfig output the tests start from) and commits its machine-id --
mkdir -p prime/scenario
cat >prime/scenario/apply.sh <<'PRIME'
set -e
update-grub
grep -q 'console=ttyS0' /boot/grub/grub.cfg
PRIME
make_payload prime prime.img
boot_once stage.qcow2 prime.img prime-serial.log
r=$BOOT_RESULT
debugfs -R 'cat /results.txt' prime.img 2>/dev/null >prime-results.txt || true
if [ "$r" != poweroff ] || ! grep -q 'RESULT PASS' prime-results.txt; then
        tail -40 prime-serial.log >&2
        die "prime boot failed ($r)"
fi
t3=$(now)
log "TIMING prime $((t3 - t2))s"

# Compressed: the cached image stays small; overlays read it fine.
qemu-img convert -c -O qcow2 stage.qcow2 base.qcow2
rm -f stage.qcow2
t4=$(now)
log "TIMING compress $((t4 - t3))s total $((t4 - t0))s"

# Publish atomically, drop images of older keys.
rm -rf "$IMG.new"
mkdir -p "$IMG.new"
mv base.qcow2 guest-libs build.log prime-serial.log "$IMG.new/"
echo "$KVER" >"$IMG.new/kernel"
rm -rf "$IMG"
mv "$IMG.new" "$IMG"
for old in "$CACHE_DIR"/image-*; do
        [ "$old" = "$IMG" ] || rm -rf "$old"
done
log "built $IMG ($(du -h "$IMG/base.qcow2" | cut -f1))"
echo "$IMG" >&3
