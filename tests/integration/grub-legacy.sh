#!/bin/sh
# Legacy GRUB hosts as they are in the field (issue 16): the corpus in
# tests/corpus/grub-legacy (see its README) on copies of the rhel5-xen
# fixture. Each case plans, applies, compares the edited grub.conf with
# what grubby 8.40 writes for the same request (recorded there, with the
# differences hosttune makes on purpose), rolls back byte for byte and
# checks that the distribution's links are still links. Then the kernel
# switch: which entry becomes the default, the settings pending the
# reboot into it, and the links hosttune refuses.
[ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ] && TMPDIR=/dev/shm && export TMPDIR
. "${top_srcdir:-.}/tests/integration/lib.sh"
HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1 LC_ALL=C
export HOSTTUNE_INSECURE_PROFILES HOSTTUNE_NO_AUDIT LC_ALL
CORPUS=$top_srcdir/tests/corpus/grub-legacy

mkdir -p "$tmp/profiles" "$tmp/rules"
# every shipped rules file present and empty: only the profiles' words are
# planned (hosttune refuses a rules path without the shipped rules files)
for f in "$top_srcdir"/rules/*.rules; do : >"$tmp/rules/$(basename "$f")"; done
cat >"$tmp/profiles/thp.profile" <<'EOF'
summary = "the THP boot parameter only";
cmdline = { add = [ "transparent_hugepage=never" ]; };
EOF
cat >"$tmp/profiles/noargs.profile" <<'EOF'
summary = "grubby's own test updargs/g3.7: --remove-args=\"hdd root ro\"";
cmdline = { remove = [ "hdd", "root", "ro" ]; };
EOF
cat >"$tmp/profiles/mbargs.profile" <<'EOF'
summary = "the Xen hypervisor's dom0 memory only";
cmdline = { add = [ "dom0_mem=4096M" ]; target = "xen"; };
EOF

ht() { # ROOT ARGS...
        r=$1
        shift
        "$HOSTTUNE" --root "$r" --profile-path "$tmp/profiles" --rules-path "$tmp/rules" --color=never "$@"
}
oracle() { # ROOT COMMAND: the founding case, the kernel switch allowed
        "$HOSTTUNE" --root "$1" --profile-path "$PROFILES" --rules-path "$top_srcdir/rules" --color=never \
                "$2" oracle --set sga_max_size=4G --set allow_kernel_switch=true
}
same() { # DESCRIPTION EXPECTED-FILE ACTUAL-FILE: byte for byte
        if cmp -s "$2" "$3"; then ok "$1"; else not_ok "$1: $(diff "$2" "$3" | head -c 600 | tr '\n' '|')"; fi
}
# link_is DESCRIPTION PATH TARGET: PATH is still a symlink to TARGET
link_is() {
        if [ -L "$2" ]; then check "$1" "$3" "$(readlink "$2")"; else not_ok "$1: $2 is no symlink any more"; fi
}
# vs_grubby NAME OP FILE: hosttune's result compared with grubby's
# recorded one; the difference must be exactly the recorded, reviewed one
vs_grubby() {
        diff "$CORPUS/grubby/$1.$2" "$3" >"$tmp/differs"
        same "$1 $2: as grubby writes it, but for the differences in differs/$1.$2.diff" \
                "$CORPUS/differs/$1.$2.diff" "$tmp/differs"
}

# host_with NAME LAYOUT: a rhel5-xen copy whose grub.conf is the corpus
# file. bios: /boot/grub/grub.conf, with the fixture's /etc/grub.conf ->
# ../boot/grub/grub.conf and menu.lst -> ./grub.conf; efi: RHEL 6 on UEFI,
# /boot/efi/EFI/redhat/grub.conf and /etc/grub.conf linking to it.
host_with() {
        h=$(copy_host rhel5-xen); scratch "$h"
        if [ "$2" = efi ]; then
                rm -rf "$h/boot/grub" "$h/etc/grub.conf"
                mkdir -p "$h/boot/efi/EFI/redhat"
                cp "$CORPUS/$1.conf" "$h/boot/efi/EFI/redhat/grub.conf"
                ln -s ../boot/efi/EFI/redhat/grub.conf "$h/etc/grub.conf"
        else
                cp "$CORPUS/$1.conf" "$h/boot/grub/grub.conf"
                [ -f "$CORPUS/$1.default" ] && cp "$CORPUS/$1.default" "$h/boot/grub/default"
        fi
        chmod 0644 "$h$(conf_of "$2")"
        printf '%s\n' "$h"
}
conf_of() { # LAYOUT: the host path of the grub.conf itself
        if [ "$1" = efi ]; then echo /boot/efi/EFI/redhat/grub.conf; else echo /boot/grub/grub.conf; fi
}
links_kept() { # NAME LAYOUT ROOT WHEN
        if [ "$2" = efi ]; then
                link_is "$1: $4, /etc/grub.conf is still a link into the ESP" "$3/etc/grub.conf" \
                        ../boot/efi/EFI/redhat/grub.conf
        else
                link_is "$1: $4, /etc/grub.conf is still a link" "$3/etc/grub.conf" ../boot/grub/grub.conf
                link_is "$1: $4, menu.lst is still a link" "$3/boot/grub/menu.lst" ./grub.conf
        fi
}

# edit_case NAME LAYOUT PROFILE OP: plan, apply, compare, roll back
edit_case() {
        name=$1 layout=$2
        h=$(host_with "$1" "$2")
        rel=$(conf_of "$2")
        conf=$h$rel
        ht "$h" plan "$3" >"$tmp/plan" 2>&1
        check "$name $4: plan exit (changes pending)" 2 "$?"
        check_contains "$name $4: the plan edits the file the links lead to" "+++ b$rel" "$tmp/plan"
        ht "$h" apply "$3" >"$tmp/out" 2>&1
        check "$name $4: apply exit" 0 "$?"
        vs_grubby "$name" "$4" "$conf"
        links_kept "$name" "$layout" "$h" "after apply"
        ht "$h" plan "$3" >"$tmp/plan" 2>&1
        check "$name $4: a second plan changes nothing" 0 "$?"
        ht "$h" rollback >"$tmp/out" 2>&1
        check "$name $4: rollback exit" 0 "$?"
        same "$name $4: rollback restores grub.conf byte for byte" "$CORPUS/$name.conf" "$conf"
        check "$name $4: rollback keeps the mode" 644 "$(stat -c %a "$conf")"
        links_kept "$name" "$layout" "$h" "after rollback"
}

edit_case xen-dos-memtest bios thp thp
edit_case xen-dos-memtest bios mbargs mbargs
edit_case saved-crlf bios thp thp
edit_case no-newline bios thp thp
edit_case rhel6-efi efi thp thp
# grubby's own test menu (rhboot/grubby test/grub.3) with every argument
# removed: grubby's test/results/updargs/g3.7, byte for byte, no blank
# left after the image (issue 33)
edit_case grubby-grub3 bios noargs noargs

# grubby itself, when there is one: the recorded files are still its output
if [ -n "${HT_GRUBBY:-}" ] && [ -x "$HT_GRUBBY" ]; then
        for c in xen-dos-memtest:thp:--args=transparent_hugepage=never saved-crlf:thp:--args=transparent_hugepage=never \
                 no-newline:thp:--args=transparent_hugepage=never rhel6-efi:thp:--args=transparent_hugepage=never \
                 xen-dos-memtest:mbargs:--mbargs=dom0_mem=4096M; do
                name=${c%%:*} rest=${c#*:}
                op=${rest%%:*} arg=${rest#*:}
                "$HT_GRUBBY" --grub -c "$CORPUS/$name.conf" -o "$tmp/grubby.out" --update-kernel=ALL "$arg"
                same "grubby $name $op: $HT_GRUBBY writes the recorded file" "$CORPUS/grubby/$name.$op" "$tmp/grubby.out"
        done
        for c in xen-dos-memtest:5 saved-crlf:1; do
                "$HT_GRUBBY" --grub -c "$CORPUS/${c%:*}.conf" -o "$tmp/grubby.out" --set-default-index="${c#*:}"
                same "grubby ${c%:*} default${c#*:}: $HT_GRUBBY writes the recorded file" \
                        "$CORPUS/grubby/${c%:*}.default${c#*:}" "$tmp/grubby.out"
        done
else
        skip "grubby: the recorded outputs are still what grubby writes" "HT_GRUBBY is not set (CI has no grubby)"
fi

# --- the kernel switch: Oracle's SGA on the Xen dom0 --------------------------
oracle_host() { # NAME: host_with, with Oracle's groups (the founding case)
        h=$(host_with "$1" bios)
        printf 'oinstall:x:54321:oracle\ndba:x:54322:oracle\n' >>"$h/etc/group"
        printf '%s\n' "$h"
}
# switch_case NAME EXPECTED-DEFAULT-LINE [OP]: the plan takes the switch,
# vm.nr_hugepages and vm.hugetlb_shm_group wait for its reboot; without
# OP the default already boots the non-Xen kernel and stays as it is
switch_case() {
        name=$1
        h=$(oracle_host "$1")
        conf=$h/boot/grub/grub.conf
        cp "$h/etc/sysctl.conf" "$tmp/sysctl.orig"
        oracle "$h" plan >"$tmp/plan" 2>&1
        check "switch $name: plan exit (changes pending, no error)" 2 "$?"
        check_contains "switch $name: vm.nr_hugepages waits for the reboot" \
                "pending reboot: sysctl vm.nr_hugepages" "$tmp/plan"
        # 54321: oinstall's gid in the copy's /etc/group (15-oracle.rules)
        check_contains "switch $name: vm.hugetlb_shm_group waits for the reboot" \
                "pending reboot: sysctl vm.hugetlb_shm_group → 54321" "$tmp/plan"
        oracle "$h" apply >"$tmp/out" 2>&1
        check "switch $name: apply exit" 0 "$?"
        check "switch $name: the default line" "$2" "$(grep -a '^default' "$conf" | tr -d '\r')"
        if [ $# -ge 3 ]; then
                vs_grubby "$name" "$3" "$conf"
        else
                same "switch $name: a default that boots the non-Xen kernel is left alone" "$CORPUS/$name.conf" "$conf"
        fi
        check_contains "switch $name: vm.hugetlb_shm_group persisted for the next kernel" \
                "vm.hugetlb_shm_group = 54321" "$h/etc/sysctl.conf"
        check_contains "switch $name: vm.nr_hugepages persisted for the next kernel" \
                "vm.nr_hugepages = " "$h/etc/sysctl.conf"
        links_kept "switch $name" bios "$h" "after apply"
        oracle "$h" rollback >"$tmp/out" 2>&1 || "$HOSTTUNE" --root "$h" rollback >"$tmp/out" 2>&1
        same "switch $name: rollback restores grub.conf" "$CORPUS/$name.conf" "$conf"
        same "switch $name: rollback restores sysctl.conf" "$tmp/sysctl.orig" "$h/etc/sysctl.conf"
        links_kept "switch $name" bios "$h" "after rollback"
}
# index 5: the running 2.6.18-398.el5xen's own non-Xen build, not the
# DOS entry (1), Memtest86+ (2, 3) or the newer 2.6.18-400.el5 (4)
switch_case xen-dos-memtest default=5 default5
# default=saved with /boot/grub/default 0 (the Xen entry): entry 1
switch_case saved-crlf default=1 default1
check "switch saved-crlf: /boot/grub/default is not touched" "" \
        "$(cmp "$CORPUS/saved-crlf.default" "$h/boot/grub/default" 2>&1)"
switch_case no-newline "default 1"

# THP for the kernel booted next. The fixture's /boot/config-2.6.18-398.el5
# has no CONFIG_TRANSPARENT_HUGEPAGE (RHEL 5 has no THP), so the cases
# above set no word; a build with it gets transparent_hugepage=never on
# every Linux entry: 2.6.18-400, -398 and -92 and the two Xen entries'
# modules, 5 lines, not DOS or the two Memtest86+ entries.
h=$(oracle_host xen-dos-memtest)
echo CONFIG_TRANSPARENT_HUGEPAGE=y >>"$h/boot/config-2.6.18-398.el5"
oracle "$h" apply >"$tmp/out" 2>&1
check "THP on the next kernel: apply exit" 0 "$?"
check_contains "THP on the next kernel: says why" "(rule thp-after-switch)" "$tmp/out"
check "THP on the next kernel: the word on every Linux entry" 5 \
        "$(grep -c '^	\(kernel /vmlinuz\|module /vmlinuz\).* transparent_hugepage=never$' "$h/boot/grub/grub.conf")"
check "THP on the next kernel: no word on Memtest86+" 0 "$(grep -c 'memtest.*transparent' "$h/boot/grub/grub.conf")"
check "THP on the next kernel: the default moves too" default=5 "$(grep '^default' "$h/boot/grub/grub.conf")"
rm "$h/boot/config-2.6.18-398.el5"
oracle "$h" plan >"$tmp/out" 2>&1
check_contains "THP on the next kernel: without its config (unknown), the word stays planned" \
        "(rule thp-after-switch)" "$tmp/out"

# /etc/sysctl.conf a link (kept under /etc/local): RHEL 5 reads only it at
# boot, so the values go into the file it leads to; the link stays
h=$(oracle_host xen-dos-memtest)
mkdir -p "$h/etc/local"
mv "$h/etc/sysctl.conf" "$h/etc/local/sysctl.conf"
ln -s local/sysctl.conf "$h/etc/sysctl.conf"
cp "$h/etc/local/sysctl.conf" "$tmp/sysctl.orig"
oracle "$h" apply >"$tmp/out" 2>&1
check "sysctl.conf link: apply exit" 0 "$?"
check_contains "sysctl.conf link: the file the link leads to is edited" "+++ b/etc/local/sysctl.conf" "$tmp/out"
check_contains "sysctl.conf link: it holds the pending key" "vm.hugetlb_shm_group = 54321" "$h/etc/local/sysctl.conf"
"$HOSTTUNE" --root "$h" verify >"$tmp/out" 2>&1
check "sysctl.conf link: verify says the settings wait for the reboot (exit 3)" 3 "$?"
check_contains "sysctl.conf link: verify lists vm.hugetlb_shm_group as pending" \
        "PENDING  sysctl vm.hugetlb_shm_group: expected 54321" "$tmp/out"
"$HOSTTUNE" --root "$h" rollback >"$tmp/out" 2>&1
check "sysctl.conf link: rollback exit" 0 "$?"
same "sysctl.conf link: rollback restores the file" "$tmp/sysctl.orig" "$h/etc/local/sysctl.conf"
link_is "sysctl.conf link: still a link" "$h/etc/sysctl.conf" local/sysctl.conf

# A grub.conf with nothing but Xen, DOS and Memtest86+: the existing error,
# and the host untouched
h=$(oracle_host xen-dos-memtest)
sed -e '/^title Red Hat Enterprise Linux Server (2.6.18-400/,$d' "$CORPUS/xen-dos-memtest.conf" >"$h/boot/grub/grub.conf"
cp "$h/boot/grub/grub.conf" "$tmp/only-xen.conf"
oracle "$h" apply >"$tmp/out" 2>&1
check "no Linux entry: apply exit" 1 "$?"
check_contains "no Linux entry: the rule says there is no non-Xen entry" "no non-Xen entry to switch to" "$tmp/out"
same "no Linux entry: grub.conf untouched" "$tmp/only-xen.conf" "$h/boot/grub/grub.conf"
check "no Linux entry: no journal" "" "$(ls "$h/var/lib/hosttune/journal" 2>/dev/null)"

# --- links hosttune still refuses -------------------------------------------
# link_refused DESCRIPTION TARGET NEEDLE: /etc/grub.conf (the only menu
# file) links to TARGET; plan and apply fail naming it, nothing changes
link_refused() {
        h=$(copy_host rhel5-xen); scratch "$h"
        mv "$h/boot/grub/grub.conf" "$h/boot/grub/grub.conf.real"
        rm -f "$h/boot/grub/menu.lst" "$h/etc/grub.conf"
        ln -s "$2" "$h/etc/grub.conf"
        # the lock file apply takes is no change to the host
        (cd "$h" && find . -type f ! -path ./run/hosttune.lock -exec sha256sum {} + | sort) >"$tmp/before"
        ht "$h" plan thp >"$tmp/out" 2>&1
        check "$1: plan exit" 1 "$?"
        check_contains "$1: the error names the link" "$3" "$tmp/out"
        ht "$h" apply thp >"$tmp/out" 2>&1
        check "$1: apply exit" 1 "$?"
        (cd "$h" && find . -type f ! -path ./run/hosttune.lock -exec sha256sum {} + | sort) >"$tmp/after"
        same "$1: the host is untouched" "$tmp/before" "$tmp/after"
        link_is "$1: the link is as it was" "$h/etc/grub.conf" "$2"
}
# a grub.conf planted in hosttune's state directory
link_refused_state() {
        h=$(copy_host rhel5-xen); scratch "$h"
        mkdir -p "$h/var/lib/hosttune"
        mv "$h/boot/grub/grub.conf" "$h/var/lib/hosttune/grub.conf"
        rm -f "$h/boot/grub/menu.lst" "$h/etc/grub.conf"
        ln -s ../var/lib/hosttune/grub.conf "$h/etc/grub.conf"
        cp "$h/var/lib/hosttune/grub.conf" "$tmp/state.conf"
        ht "$h" apply thp >"$tmp/out" 2>&1
        check "link into the state directory: apply exit" 1 "$?"
        check_contains "link into the state directory: refused, naming the link" \
                "etc/grub.conf is a symlink to" "$tmp/out"
        check_contains "link into the state directory: says why" "one of hosttune's own files: refused" "$tmp/out"
        same "link into the state directory: the file there is untouched" "$tmp/state.conf" \
                "$h/var/lib/hosttune/grub.conf"
}
link_refused_state
link_refused "a link out of the root" ../../../../../../../../../../etc/passwd \
        "etc/grub.conf is a symlink that leads out of the root: hosttune never writes through it"
link_refused "a dangling link" ../boot/grub/grub.conf.gone "etc/grub.conf is a symlink to a file that does not exist"
link_refused "a link to a directory" ../boot/grub "grub, which is not a regular file"

finish
