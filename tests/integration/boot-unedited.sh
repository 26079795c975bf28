#!/bin/sh
# Bootloaders hosttune does not edit, as installers lay them out.
# 1. s390x with zipl, as RHEL 8 lays it out: no GRUB, /etc/zipl.conf (the
# [defaultboot] section osbuild's org.osbuild.zipl stage and anaconda
# write: defaultauto, prompt=1, timeout, target=/boot) and BLS entries
# with their options written out (s390utils' 20-zipl-kernel.install puts
# the running command line there, no $kernelopts); zipl.conf's default=
# names a BLS version, the older kernel here (grubby-bls,
# rhboot/grubby: get_default_index). zipl writes the boot record only
# when it runs, which hosttune does not do: facts name the bootloader
# zipl, and a kernel command line word is skipped with a warning saying
# how to set it (a required one is refused with that message), the rest
# of the profile planned, the entries untouched.
# Before, the host was taken for GRUB's BLS: the entries were edited
# (and nothing changed at the next boot) and the newest entry was called
# the default.
# 2. systemd-boot on Debian 12 (systemd-boot 252): the ESP on /boot/efi,
# the entries kernel-install's 90-loaderentry.install writes there
# (title, version, machine-id, sort-key, options, linux, initrd), the
# words in /etc/kernel/cmdline, no GRUB. Before, a live host got "no
# bootloader configuration found ... in a container", and an image got
# its words in /etc/default/grub.d/hosttune.cfg, which nothing reads.
# 3. GRUB 2 on EFI with a directory another distribution left on the ESP
# (a CentOS 7 converted to RHEL or Oracle Linux keeps EFI/centos beside
# EFI/redhat; RHEL's grub2.spec makes efi_vendor os-release's ID with
# rhel -> redhat, Oracle Linux uses EFI/redhat too): the OS's own
# grub.cfg is the one grub2-mkconfig regenerates; with several and none
# the OS's, none is taken and the words are refused. Before, the first
# by name (EFI/centos) was regenerated. grub.cfg: tests/corpus/bootloader
# rhel7-efi.grub.cfg (RHEL 7.9 on EFI).
# 4. openSUSE/SLE with sdbootutil: /etc/sysconfig/bootloader
# LOADER_TYPE="grub2-bls" (or "systemd-boot"), the entries on the ESP,
# while /etc/default/grub and an old grub.cfg stay installed: not GRUB 2
# (grub2-mkconfig's grub.cfg is not what boots), the ESP's entries,
# refused. Before, /etc/default/grub was edited and grub.cfg regenerated.
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"
export HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1 LC_ALL=C
h=$(copy_host ol8-bls); scratch "$h"
rm -rf "$h/boot/grub2" "$h/etc/default/grub" "$h"/boot/loader/entries/*
printf '[defaultboot]\ndefaultauto\nprompt=1\ntimeout=5\ntarget=/boot\nsecure=auto\ndefault=4.18.0-477.10.1.el8_8.s390x\n' \
        >"$h/etc/zipl.conf"
for v in 4.18.0-513.5.1.el8_9.s390x 4.18.0-477.10.1.el8_8.s390x; do
        printf 'title Red Hat Enterprise Linux (%s) 8.9 (Ootpa)\nversion %s\nlinux /boot/vmlinuz-%s\ninitrd /boot/initramfs-%s.img\noptions root=/dev/mapper/rhel-root crashkernel=auto rd.dasd=0.0.0120 rd.lvm.lv=rhel/root cio_ignore=all,!condev\nid rhel-20231101120000-%s\n' \
                "$v" "$v" "$v" "$v" "$v" >"$h/boot/loader/entries/3c6f2e1ab5d44b0c8e7f9a2d1b0c4e5f-$v.conf"
done
cp -a "$h/boot/loader/entries" "$tmp/entries.before"
mkdir -p "$tmp/p" "$tmp/r"
for f in "$top_srcdir"/rules/*.rules; do : >"$tmp/r/$(basename "$f")"; done
printf 'summary = "THP off at boot";\ncmdline = { add = [ "transparent_hugepage=never" ]; };\n' >"$tmp/p/thp.profile"
printf 'summary = "an optional word";\ncmdline = { add = [ "numa_balancing=disable" ]; optional = true; };\n' \
        >"$tmp/p/opt.profile"
ht() { "$HOSTTUNE" --root "$h" --profile-path "$tmp/p" --rules-path "$tmp/r" --color=never "$@"; }

ht --json facts >"$tmp/facts.json" 2>/dev/null
check "facts: the bootloader is zipl, no GRUB default entry claimed" "zipl null" \
        "$(jq -r '.bootloader | "\(.kind) \(.default)"' "$tmp/facts.json")"
# s390x has no other bootloader: a word is skipped with a warning saying
# how to set it, the rest of the profile planned (before, every word was
# an error, and rules/40-thp.rules' THP word failed every workload
# profile on s390x: plan oracle exited 1 with nothing planned); a word the
# profile marks required is the error.
printf 'summary = "THP off at boot, required";\ncmdline = { add = [ "transparent_hugepage=never" ]; required = true; };\n' \
        >"$tmp/p/req.profile"
printf 'summary = "THP off, and a sysctl";\nsysctl = { vm = { swappiness = 10; }; };\ncmdline = { add = [ "transparent_hugepage=never" ]; remove = [ "cio_ignore" ]; };\n' \
        >"$tmp/p/thp-sysctl.profile"
ht plan thp >"$tmp/plan" 2>&1
check "plan: the word skipped, no error (exit 0: nothing else to change)" 0 $?
check_contains "plan: the warning names zipl and how to set the word" \
        "warning: kernel command line not planned (transparent_hugepage=never): this host boots with zipl (s390x, /etc/zipl.conf), whose boot record only zipl writes, and hosttune does not edit its files or run it; set it with grubby --update-kernel=ALL --args=\"transparent_hugepage=never\" (BLS entries, RHEL 8+) or in parameters= of /etc/zipl.conf, then run zipl. The rest of the profile is planned; mark a word required = true to make this an error" \
        "$tmp/plan"
check "plan: no BLS entry in the diff" 0 "$(grep -c 'loader/entries' "$tmp/plan")"
ht plan thp-sysctl >"$tmp/plan2" 2>&1
check "plan: the rest of the profile planned (exit 2)" 2 $?
check_contains "plan: the sysctl planned" "vm.swappiness" "$tmp/plan2"
check_contains "plan: words added and removed, each in its grubby option" \
        'set them with grubby --update-kernel=ALL --args="transparent_hugepage=never" --remove-args="cio_ignore" (BLS entries' \
        "$tmp/plan2"
ht plan req >"$tmp/plan3" 2>&1
check "plan: a required word is an error (exit 1)" 1 $?
check_contains "plan: the refusal names the profile line, zipl and how to set the word" \
        "req.profile:2: the kernel command line word transparent_hugepage=never is marked required, but it cannot be set here: this host boots with zipl (s390x, /etc/zipl.conf), whose boot record only zipl writes, and hosttune does not edit its files or run it; set it with grubby --update-kernel=ALL --args=transparent_hugepage=never (BLS entries, RHEL 8+) or in parameters= of /etc/zipl.conf, then run zipl" \
        "$tmp/plan3"
ht apply req >"$tmp/apply" 2>&1
check "apply: a required word refused (exit 1)" 1 $?
check_contains "apply: for zipl" "this host boots with zipl" "$tmp/apply"
ht apply thp-sysctl >"$tmp/apply2" 2>&1
check "apply: the rest applied (exit 0)" 0 $?
check "apply: the sysctl written" "vm.swappiness = 10" "$(grep -h swappiness "$h"/etc/sysctl.d/*hosttune* 2>/dev/null)"
if diff -r "$tmp/entries.before" "$h/boot/loader/entries" >/dev/null; then ok "apply: the BLS entries untouched"
else not_ok "apply: the BLS entries changed"; fi
ht --json plan opt >"$tmp/opt.json" 2>/dev/null
check "plan: an optional word is skipped, no error" "0 skipped" \
        "$(jq -r '"\(.errors | length) \(.changes[] | select(.key == "numa_balancing") | .outcome)"' "$tmp/opt.json")"

# --- systemd-boot, its entries on the ESP -------------------------------------------
s=$(copy_host debian12-kvm); scratch "$s"
rm -rf "$s/boot/grub" "$s/etc/default/grub" "$s/etc/default/grub.d"
mid=0d5b4b0ff4a04a5ab1b4f1c0c8f4b2aa
mkdir -p "$s/boot/efi/loader/entries" "$s/etc/kernel"
printf 'timeout 3\n' >"$s/boot/efi/loader/loader.conf"
printf 'title      Debian GNU/Linux 12 (bookworm)\nversion    6.1.0-13-amd64\nmachine-id %s\nsort-key   debian\noptions    root=UUID=2f6e1c1a-7b4e-4a8e-9c59-3b0b7f3e2f10 ro quiet\nlinux      /%s/6.1.0-13-amd64/linux\ninitrd     /%s/6.1.0-13-amd64/initrd.img-6.1.0-13-amd64\n' \
        "$mid" "$mid" "$mid" >"$s/boot/efi/loader/entries/$mid-6.1.0-13-amd64.conf"
printf 'root=UUID=2f6e1c1a-7b4e-4a8e-9c59-3b0b7f3e2f10 ro quiet\n' >"$s/etc/kernel/cmdline"
hs() { "$HOSTTUNE" --root "$s" --profile-path "$tmp/p" --rules-path "$tmp/r" --color=never "$@"; }
hs --json facts >"$tmp/sfacts.json" 2>/dev/null
check "systemd-boot: facts name it" systemd-boot-esp "$(jq -r .bootloader.kind "$tmp/sfacts.json")"
hs plan thp >"$tmp/splan" 2>&1
check "systemd-boot, live: an error (exit 1)" 1 $?
check_contains "systemd-boot, live: the refusal names the ESP's entries and /etc/kernel/cmdline" \
        "thp.profile:2: the kernel command line word transparent_hugepage=never cannot be set here: this host boots with systemd-boot, its entries in /boot/efi/loader/entries (the EFI system partition), which hosttune does not edit (it edits BLS entries in /boot/loader/entries only); set the word in each entry's options line there and in /etc/kernel/cmdline" \
        "$tmp/splan"
# the same tree as an image (not a live fixture): offline planning
env -u HOSTTUNE_TEST_LIVE_FIXTURES "$HOSTTUNE" --root "$s" --profile-path "$tmp/p" --rules-path "$tmp/r" \
        --color=never plan thp >"$tmp/simage" 2>&1
check "systemd-boot, image: an error, no grub.d file planned" "1 0" "$? $(grep -c 'grub.d/hosttune.cfg' "$tmp/simage")"
# --- GRUB 2 on EFI: the OS's own vendor directory -------------------------------------
e=$(copy_host ol8-bls); scratch "$e"
rm -rf "$e/boot/loader" "$e/boot/grub2/grub.cfg"
sed -i '/GRUB_ENABLE_BLSCFG/d' "$e/etc/default/grub"
mkdir -p "$e/sys/firmware/efi" "$e/boot/efi/EFI/redhat" "$e/boot/efi/EFI/centos" "$e/boot/efi/EFI/BOOT"
cp "$top_srcdir/tests/corpus/bootloader/rhel7-efi.grub.cfg" "$e/boot/efi/EFI/redhat/grub.cfg"
sed 's/Red Hat Enterprise Linux Server/CentOS Linux/g' "$top_srcdir/tests/corpus/bootloader/rhel7-efi.grub.cfg" \
        >"$e/boot/efi/EFI/centos/grub.cfg"
he() { "$HOSTTUNE" --root "$e" --profile-path "$tmp/p" --rules-path "$tmp/r" --color=never "$@"; }
got=
for id in rhel ol; do
        sed -i "s/^ID=.*/ID=\"$id\"/" "$e/etc/os-release"
        got="$got $(he --json facts 2>/dev/null | jq -r .bootloader.grub_cfg)"
done
check "EFI: RHEL and Oracle Linux take EFI/redhat, not EFI/centos left beside it" \
        " /boot/efi/EFI/redhat/grub.cfg /boot/efi/EFI/redhat/grub.cfg" "$got"
he plan thp >"$tmp/eplan" 2>&1
check_contains "EFI: grub2-mkconfig writes the OS's own grub.cfg" "-o /boot/efi/EFI/redhat/grub.cfg" "$tmp/eplan"
sed -i 's/^ID=.*/ID="fedora"/' "$e/etc/os-release"
he plan thp >"$tmp/eplan2" 2>&1
check "EFI, several grub.cfg, none the OS's: an error (exit 1)" 1 $?
check_contains "EFI, several grub.cfg: the refusal names them" \
        "the EFI system partition holds several grub.cfg (/boot/efi/EFI/centos/grub.cfg, /boot/efi/EFI/redhat/grub.cfg), none in this OS's own directory" \
        "$tmp/eplan2"
# --- SUSE: LOADER_TYPE="grub2-bls" ---------------------------------------------------
mkdir -p "$s/etc/sysconfig"
printf 'NAME="openSUSE Tumbleweed"\nID="opensuse-tumbleweed"\nID_LIKE="opensuse suse"\n' >"$s/etc/os-release"
printf '## Path:\tSystem/Bootloader\n## Description:\tBootloader configuration\n#\n# Type of bootloader in use.\n#\nLOADER_TYPE="grub2-bls"\n' \
        >"$s/etc/sysconfig/bootloader"
cp -a "$HOSTS/debian12-kvm/etc/default" "$s/etc/" && cp -a "$HOSTS/debian12-kvm/boot/grub" "$s/boot/"
chmod -R go-w "$s/etc/default" "$s/boot/grub"
hs --json facts >"$tmp/susefacts.json" 2>/dev/null
check "SUSE grub2-bls beside /etc/default/grub and grub.cfg: the ESP's entries" systemd-boot-esp \
        "$(jq -r .bootloader.kind "$tmp/susefacts.json")"
hs plan thp >"$tmp/suseplan" 2>&1
check "SUSE grub2-bls: refused (exit 1), /etc/default/grub not edited" "1 0" "$? $(grep -c 'etc/default/grub' "$tmp/suseplan")"
finish
