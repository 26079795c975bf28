#!/bin/sh
# kernel-install's command line, as systemd 252 (Debian 12's
# /usr/lib/kernel/install.d/90-loaderentry.install) and RHEL 9's
# 20-grub.install read it for each kernel they add: /etc/kernel/cmdline,
# else /usr/lib/kernel/cmdline (the distribution's), else the running
# kernel's /proc/cmdline without BOOT_IMAGE= and initrd=.
# 1. systemd-boot with its entries in /boot/loader/entries (XBOOTLDR), no
# GRUB, and only /usr/lib/kernel/cmdline: the entries are edited and
# /etc/kernel/cmdline is created from /usr/lib/kernel/cmdline with the
# same edit (never the file in /usr), so the next kernel's entry keeps
# the words; rollback leaves the tree byte-identical. Before, the next
# kernel got /usr/lib/kernel/cmdline without them.
# 2. The same without either file: a warning that a kernel installed
# before the reboot takes /proc/cmdline and so lacks the words.
# 3. An image without a bootloader yet and with /usr/lib/kernel/cmdline:
# /etc/kernel/cmdline planned the same way. Before, the words were
# skipped.
# 4. Unified kernel images in EFI/Linux of the ESP, /etc/kernel/cmdline,
# no entries hosttune edits: the error says that the images embed their
# command line and how kernel-install sets it, instead of "in a
# container".
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"
export HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1 LC_ALL=C
mkdir -p "$tmp/p" "$tmp/r"
for f in "$top_srcdir"/rules/*.rules; do : >"$tmp/r/$(basename "$f")"; done
printf 'summary = "THP off";\ncmdline = { add = [ "transparent_hugepage=never" ]; remove = [ "quiet" ]; };\n' \
        >"$tmp/p/thp.profile"
line='root=UUID=2f9c1a3e-5b7d-4c61-9e0a-8d3f6b2c4e17 ro quiet'
mid=0d5b4b0ff4a04a5ab1b4f1c0c8f4b2aa

# --- 1. systemd-boot, XBOOTLDR, /usr/lib/kernel/cmdline ------------------------
h=$(copy_host debian12-kvm); scratch "$h"
rm -rf "$h/boot/grub" "$h/etc/default/grub" "$h/etc/default/grub.d"
mkdir -p "$h/boot/loader/entries" "$h/usr/lib/kernel"
for v in 6.1.0-17-amd64 6.1.0-18-amd64; do
        printf 'title      Debian GNU/Linux 12 (bookworm)\nversion    %s\nmachine-id %s\nsort-key   debian\noptions    %s\nlinux      /%s/%s/linux\ninitrd     /%s/%s/initrd.img-%s\n' \
                "$v" "$mid" "$line" "$mid" "$v" "$mid" "$v" "$v" >"$h/boot/loader/entries/$mid-$v.conf"
done
printf '%s\n' "$line" >"$h/usr/lib/kernel/cmdline"
cp -a "$h" "$tmp/before"
ht() { "$HOSTTUNE" --root "$h" --profile-path "$tmp/p" --rules-path "$tmp/r" --color=never "$@"; }
ht --json plan thp >"$tmp/plan1.json" 2>/dev/null
check "XBOOTLDR: bls, no error" "bls 0" \
        "$(ht --json facts 2>/dev/null | jq -r .bootloader.kind) $(jq '.errors | length' "$tmp/plan1.json")"
check "XBOOTLDR: the entries and /etc/kernel/cmdline, not /usr/lib/kernel/cmdline" \
        '["/boot/loader/entries/'$mid'-6.1.0-17-amd64.conf","/boot/loader/entries/'$mid'-6.1.0-18-amd64.conf","/etc/kernel/cmdline"]' \
        "$(jq -c '[.files[].path] | sort' "$tmp/plan1.json")"
ht apply thp >"$tmp/apply1" 2>&1
check "XBOOTLDR: apply exit" 0 $?
check "XBOOTLDR: /etc/kernel/cmdline is the distribution's line with the edit" \
        "root=UUID=2f9c1a3e-5b7d-4c61-9e0a-8d3f6b2c4e17 ro transparent_hugepage=never" "$(cat "$h/etc/kernel/cmdline")"
check "XBOOTLDR: /usr/lib/kernel/cmdline untouched" "$line" "$(cat "$h/usr/lib/kernel/cmdline")"
ht rollback >"$tmp/rb1" 2>&1
check "XBOOTLDR: rollback exit" 0 $?
if d=$(diff -r -x hosttune -x hosttune.lock "$tmp/before" "$h" 2>&1); then ok "XBOOTLDR: rollback leaves the tree as it was"
else not_ok "XBOOTLDR: rollback: $(printf '%s' "$d" | head -c 600)"; fi

# --- 2. neither file: the running kernel's line ----------------------------------
rm "$h/usr/lib/kernel/cmdline"
ht plan thp >"$tmp/plan2" 2>&1
check_contains "XBOOTLDR, no kernel-install file: the warning names /proc/cmdline" \
        "there is no /etc/kernel/cmdline (nor /usr/lib/kernel/cmdline), so kernel-install writes the boot entry of a kernel installed later with the running kernel's /proc/cmdline" \
        "$tmp/plan2"

# --- 3. an image with /usr/lib/kernel/cmdline only ------------------------------
i=$(offline_image img debian12-kvm)
rm -rf "$i/boot/grub" "$i/etc/default/grub" "$i/etc/default/grub.d"
sed -i 's/^ID=.*/ID=fedora/; /^ID_LIKE/d' "$i/usr/lib/os-release"
rm -f "$i/etc/os-release" "$i/etc/debian_version"
mkdir -p "$i/usr/lib/kernel"
printf '%s\n' "$line" >"$i/usr/lib/kernel/cmdline"
env -u HOSTTUNE_TEST_LIVE_FIXTURES "$HOSTTUNE" --root "$i" --profile-path "$tmp/p" --rules-path "$tmp/r" \
        --json plan thp >"$tmp/plan3.json" 2>/dev/null
check "image: /etc/kernel/cmdline planned, the word planned" '["/etc/kernel/cmdline"] change' \
        "$(jq -c '[.files[].path]' "$tmp/plan3.json") $(jq -r '.changes[] | select(.key == "transparent_hugepage") | .outcome' "$tmp/plan3.json")"

# --- 4. unified kernel images, no entries hosttune edits --------------------------
rm -rf "$h/boot/loader"
mkdir -p "$h/boot/efi/EFI/Linux" "$h/etc/kernel"
: >"$h/boot/efi/EFI/Linux/$mid-6.1.0-18-amd64.efi"
printf '%s\n' "$line" >"$h/etc/kernel/cmdline"
ht plan thp >"$tmp/plan4" 2>&1
check "UKI: an error (exit 1)" 1 $?
check_contains "UKI: the error says where the line is and how kernel-install sets it" \
        "the unified kernel images in /boot/efi/EFI/Linux embed the command line they were built with; kernel-install builds the boot entry or unified kernel image of each kernel it adds from /etc/kernel/cmdline" \
        "$tmp/plan4"
finish
