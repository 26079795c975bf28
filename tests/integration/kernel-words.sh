#!/bin/sh
# Kernel command line words that would carry GRUB script, and GRUB
# defaults files hosttune cannot follow (issue 32, items 4 and 8).
# A word with one of GRUB 2's operators (; & | < > { }) is refused, from a
# profile and from --set, on every layout whose files GRUB 2 reads as
# script (the defaults files, grub.cfg, BLS entries and grubenv, an
# image's grub.d), naming the profile line, the word and the file; plan
# and apply exit 1 and the host copy is byte-identical. Real parameters
# from distributions' command lines go through, and grub-script-check
# takes the grub.cfg they give. A here-document or an unset of the edited
# variable in /etc/default/grub is an error naming the file and line;
# the cloud images' grub.d files are read as before.
[ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ] && TMPDIR=/dev/shm && export TMPDIR
. "${top_srcdir:-.}/tests/integration/lib.sh"
HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1 LC_ALL=C
export HOSTTUNE_INSECURE_PROFILES HOSTTUNE_NO_AUDIT LC_ALL
P=$tmp/profiles
mkdir -p "$P"

ht() { # ROOT ARGS...
        r=$1
        shift
        "$HOSTTUNE" --root "$r" --profile-path "$P" --rules-path "$top_srcdir/rules" --color=never "$@"
}

# One word per line, so each error names its own line.
cat >"$P/ops.profile" <<'EOF'
cmdline = (
        { add = [ "w1=a;reboot" ]; },
        { add = [ "w2=a&b" ]; },
        { add = [ "w3=a|b" ]; },
        { add = [ "w4=a<b" ]; },
        { add = [ "w5=a>b" ]; },
        { add = [ "w6={" ]; },
        { add = [ "w7=}" ]; },
        { add = [ "x1=a;b" ]; target = "xen"; },
        { add = [ "console=ttyS0,115200n8" ]; }
);
EOF
# A --set parameter carried into a word by an expression.
cat >"$P/viaset.profile" <<'EOF'
params = { v = "x"; };
cmdline = { add = [ "= \"foo=\" + v" ]; };
EOF

# refused_everywhere NAME ROOT FILE-AS-SHOWN: plan and apply of both
# profiles refused, each word named with its line and the file; the
# copy unchanged.
refused_everywhere() {
        name=$1 root=$2 file=$3
        cp -a "$root" "$tmp/before"
        ht "$root" plan ops >"$tmp/out" 2>&1
        check "$name: plan exit" 1 "$?"
        i=1
        for w in 'w1=a;reboot' 'w2=a&b' 'w3=a|b' 'w4=a<b' 'w5=a>b' 'w6={' 'w7=}' 'x1=a;b'; do
                i=$((i + 1))
                check_contains "$name: $w refused, with its line and the file" \
                        "$P/ops.profile:$i: kernel parameter $w cannot be written to $root$file: '" "$tmp/out"
        done
        check "$name: the good word is not planned alone" 0 "$(grep -c '^+.*console=ttyS0,115200n8' "$tmp/out")"
        ht "$root" apply ops >"$tmp/out" 2>&1
        check "$name: apply exit" 1 "$?"
        check_contains "$name: apply says why" "kernel parameter w1=a;reboot cannot be written to $root$file" "$tmp/out"
        for v in 'a;reboot' 'a}' 'x|y'; do
                ht "$root" apply viaset --set "v=$v" >"$tmp/out" 2>&1
                check "$name: --set v=$v: apply exit" 1 "$?"
                check_contains "$name: --set v=$v: refused with the profile line" \
                        "$P/viaset.profile:2: kernel parameter foo=$v cannot be written to $root$file" "$tmp/out"
        done
        rm -f "$root/run/hosttune.lock"
        [ -d "$tmp/before/run" ] || rmdir "$root/run" 2>/dev/null
        rm -rf "$root/var/lib/hosttune" "$tmp/before/var/lib/hosttune"
        if diff -r "$tmp/before" "$root" >"$tmp/diff" 2>&1; then ok "$name: nothing written"; else
                not_ok "$name: written: $(head -c 300 "$tmp/diff")"; fi
        rm -rf "$tmp/before"
}

# ---- item 4: every GRUB 2 layout -------------------------------------------
h=$(copy_host debian12-kvm); scratch "$h"
refused_everywhere "GRUB 2 defaults" "$h" /etc/default/grub
h=$(copy_host debian12-kvm); scratch "$h"
rm -f "$h/etc/default/grub"
refused_everywhere "grub.cfg only" "$h" /boot/grub/grub.cfg
h=$(copy_host ol8-bls); scratch "$h"
refused_everywhere "BLS" "$h" '/boot/loader/entries/*.conf'
h=$(offline_image debootstrap debian12-kvm); scratch "$h"
rm -rf "$h/etc/default/grub" "$h/boot/grub"
refused_everywhere "image, grub.d" "$h" /etc/default/grub.d/hosttune.cfg

# Legacy GRUB (0.97) has no script: it hands the kernel line to the
# kernel as written, so only what the kernel's parser and hosttune's
# quoting refuse is refused there (hosttune.profile(5)).
h=$(copy_host rhel5-xen); scratch "$h"
cat >"$P/legacy.profile" <<'EOF'
cmdline = { add = [ "foo=a;b" ]; };
EOF
ht "$h" plan legacy >"$tmp/out" 2>&1
check "legacy GRUB: an operator of GRUB 2 is no operator there (plan exit)" 2 "$?"
check_contains "legacy GRUB: the word on the kernel line as written" " foo=a;b" "$tmp/out"

# Real parameters, from distributions' default command lines and the
# kernel's documentation, go through and give a grub.cfg GRUB parses.
cat >"$P/real.profile" <<'EOF'
cmdline = { add = [ "console=ttyS0,115200n8", "rd.lvm.lv=vg/root", "root=UUID=0f3c1f4e-6a8f-4c52-9c3e-2b9a7d1e5f10",
                    "hugepagesz=1G", "isolcpus=1-3,5", "crashkernel=1G-4G:192M,4G-64G:256M", "nohz_full=1-3",
                    "intel_iommu=on", "memmap=2G!4G", "acpi_osi=!Windows2012", "rootflags=subvol=@",
                    "mtdparts=nand:512k(boot),-(root)", "video=1024x768@60", "ip=[fe80::1]::[fe80::fe]:64::eth0:none",
                    "modprobe.blacklist=nouveau,floppy", "systemd.unified_cgroup_hierarchy=1", "tag=#1" ]; };
EOF
h=$(copy_host debian12-kvm); scratch "$h"
rm -f "$h/etc/default/grub"
ht "$h" apply real >"$tmp/out" 2>&1
check "real parameters: apply exit (grub.cfg only)" 0 "$?"
check_contains "real parameters: on the kernel lines" " mtdparts=nand:512k(boot),-(root) " "$h/boot/grub/grub.cfg"
grub_script_check "real parameters: grub-script-check accepts grub.cfg" "$h/boot/grub/grub.cfg"

# ---- item 8: /etc/default/grub that hosttune cannot follow -----------------
cat >"$P/thp.profile" <<'EOF'
cmdline = { add = [ "transparent_hugepage=never" ]; };
EOF
# defaults_refused NAME NEEDLE TEXT: TEXT appended to the fixture's
# /etc/default/grub (29 lines: TEXT starts on line 30)
defaults_refused() {
        h=$(copy_host debian12-kvm); scratch "$h"
        printf '%s\n' "$3" >>"$h/etc/default/grub"
        cp -a "$h" "$tmp/before"
        ht "$h" plan thp >"$tmp/out" 2>&1
        check "$1: plan exit" 1 "$?"
        check_contains "$1: the file and line named" "$h/etc/default/grub:$2" "$tmp/out"
        ht "$h" apply thp >"$tmp/out" 2>&1
        check "$1: apply exit" 1 "$?"
        rm -f "$h/run/hosttune.lock"
        [ -d "$tmp/before/run" ] || rmdir "$h/run" 2>/dev/null
        rm -rf "$h/var/lib/hosttune"
        if diff -r "$tmp/before" "$h" >"$tmp/diff" 2>&1; then ok "$1: nothing written"; else
                not_ok "$1: written: $(head -c 300 "$tmp/diff")"; fi
        rm -rf "$tmp/before"
}
lines=$(wc -l <"$HOSTS/debian12-kvm/etc/default/grub")
defaults_refused "here-document" "$((lines + 1)): a here-document (<<)" 'cat >/dev/null <<EOF
GRUB_CMDLINE_LINUX="quiet"
EOF'
defaults_refused "unset after the assignment" "$((lines + 2)): unset here" '
unset GRUB_CMDLINE_LINUX'
defaults_refused "unset among others" "$((lines + 1)): unset here" 'unset -v GRUB_TIMEOUT GRUB_CMDLINE_LINUX'
# an unset before the last assignment, of another variable or of
# functions: the value is known, the edit goes ahead
h=$(copy_host debian12-kvm); scratch "$h"
printf 'unset GRUB_CMDLINE_LINUX\nGRUB_CMDLINE_LINUX="nosmt"\nunset GRUB_TIMEOUT_STYLE\nunset -f GRUB_CMDLINE_LINUX\n' \
        >>"$h/etc/default/grub"
ht "$h" plan thp >"$tmp/out" 2>&1
check "unset before the assignment: plan exit" 2 "$?"
check_contains "unset before the assignment: the last assignment edited" \
        '+GRUB_CMDLINE_LINUX="nosmt transparent_hugepage=never"' "$tmp/out"
# grub.d files as cloud images ship them (Debian's and Ubuntu's
# 50-cloudimg-settings.cfg build on the earlier value)
h=$(copy_host debian12-kvm); scratch "$h"
mkdir -p "$h/etc/default/grub.d"
cat >"$h/etc/default/grub.d/50-cloudimg-settings.cfg" <<'EOF'
# Cloud Image specific Grub settings for Generic Cloud Images
# CLOUD_IMG: This file was created/modified by the Cloud Image build process

# Set the recordfail timeout
GRUB_RECORDFAIL_TIMEOUT=0

# Do not wait on grub prompt
GRUB_TIMEOUT=0

# Set the default commandline
GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT console=tty1 console=ttyS0"

# Set the grub console type
GRUB_TERMINAL=console
EOF
ht "$h" plan thp >"$tmp/out" 2>&1
check "cloud image grub.d: plan exit" 2 "$?"
check "cloud image grub.d: no error" 0 "$(grep -c '^error' "$tmp/out")"
check_contains "cloud image grub.d: GRUB_CMDLINE_LINUX edited" '+GRUB_CMDLINE_LINUX="transparent_hugepage=never"' "$tmp/out"

finish
