#!/bin/sh
# Bootloader layouts from the field (tests/corpus/bootloader/, README
# there): GRUB 2 grub.cfg without /etc/default/grub (Debian 12, RHEL 7 BIOS
# and EFI), /etc/default/grub with odd quoting, BLS with grubenv's
# kernelopts and $tuned_params (RHEL 8) and with literal options and
# /etc/kernel/cmdline (RHEL 9), SUSE's /etc/grub.conf script, a menu
# without entries. Each case plans, applies on a fixture copy, compares the
# kernel lines with what grubby 8.40 wrote for the same request
# (--update-kernel=ALL --args= --remove-args=; recorded, or live with
# HT_GRUBBY=/path/to/grubby) where grubby defines it, plans again (nothing
# left) and rolls back to a byte-identical tree. Where hosttune differs
# from grubby on purpose (console=, memtest86+) the test says so.
[ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ] && TMPDIR=/dev/shm && export TMPDIR
. "${top_srcdir:-.}/tests/integration/lib.sh"
HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1 LC_ALL=C
export HOSTTUNE_INSECURE_PROFILES HOSTTUNE_NO_AUDIT LC_ALL
CORPUS=$top_srcdir/tests/corpus/bootloader

# The two requests of the README, as profiles (no rules: only these words)
mkdir -p "$tmp/profiles" "$tmp/rules"
# every shipped rules file present and empty: the rules are turned off the
# way an administrator does it (hosttune refuses a rules path without them)
for f in "$top_srcdir"/rules/*.rules; do : >"$tmp/rules/$(basename "$f")"; done
cat >"$tmp/profiles/args.profile" <<'EOF'
summary = "grubby --args='transparent_hugepage=never numa_balancing=disable' --remove-args=quiet";
cmdline = { add = [ "transparent_hugepage=never", "numa_balancing=disable" ]; remove = [ "quiet" ]; };
EOF
cat >"$tmp/profiles/console.profile" <<'EOF'
summary = "grubby --args=console=ttyS1,115200";
cmdline = { add = [ "console=ttyS1,115200" ]; };
EOF
cat >"$tmp/profiles/thp.profile" <<'EOF'
summary = "one single-valued word";
cmdline = { add = [ "transparent_hugepage=never" ]; };
EOF

ht() { # ROOT ARGS...
        r=$1
        shift
        "$HOSTTUNE" --root "$r" --profile-path "$tmp/profiles" --rules-path "$tmp/rules" --color=never "$@"
}
same() { # DESCRIPTION EXPECTED-FILE ACTUAL-FILE
        if cmp -s "$2" "$3"; then ok "$1"; else not_ok "$1: $(diff "$2" "$3" | head -c 800 | tr '\n' '|')"; fi
}
# the tree as before, the journal and the lock aside
same_tree() { # DESCRIPTION BEFORE AFTER
        if d=$(diff -r -x hosttune -x hosttune.lock "$2" "$3" 2>&1); then ok "$1"; else
                not_ok "$1: $(printf '%s' "$d" | head -c 800 | tr '\n' '|')"; fi
}
# The kernel lines of a grub.cfg (what grubby --update-kernel edits)
kernel_lines() { grep -E '^[[:space:]]*(linux|linux16|linuxefi)[[:space:]]' "$1"; }
# Their words after the image, blanks folded: the kernel sees words, so
# hosttune and grubby are compared word by word (grubby keeps a double
# blank where it removed the last word, hosttune the blank before it)
kernel_words() { kernel_lines "$1" | awk '{ $1 = ""; $2 = ""; sub(/^ +/, ""); print }'; }
is_memtest() { case $1 in *memtest86+*) return 0 ;; esac; return 1; }

# run_grubby REQUEST CFG OUT: the README's grubby command for the request
# (grubby also calls grub2-editenv, absent here: its complaint is dropped)
run_grubby() {
        case $1 in
        args) "$HT_GRUBBY" --grub2 -c "$2" -o "$3" --update-kernel=ALL \
                "--args=transparent_hugepage=never numa_balancing=disable" --remove-args=quiet >/dev/null 2>&1 ;;
        console) "$HT_GRUBBY" --grub2 -c "$2" -o "$3" --update-kernel=ALL --args=console=ttyS1,115200 >/dev/null 2>&1 ;;
        esac
}

# ---- GRUB 2, grub.cfg only -------------------------------------------------
# cfg_case NAME CORPUS-CFG HOST-PATH [efi]
cfg_case() {
        name=$1 cfg=$CORPUS/$2 where=$3
        for req in args console; do
                root=$(copy_host debian12-kvm); scratch "$root"
                rm -f "$root/etc/default/grub"
                rm -rf "$root/boot/grub"
                [ "${4:-}" = efi ] && mkdir -p "$root/sys/firmware/efi"
                mkdir -p "$(dirname "$root$where")"
                cp "$cfg" "$root$where"
                chmod 0600 "$root$where" # RHEL: grub2-mkconfig writes it 0600
                cp -a "$root" "$tmp/before"
                ht "$root" plan "$req" >"$tmp/plan" 2>&1
                check "cfg-only $name $req: plan exit" 2 "$?"
                check_contains "cfg-only $name $req: the plan warns that grub-mkconfig needs a defaults file" \
                        "$where: there is no /etc/default/grub, so hosttune edits the kernel lines of grub.cfg in place" "$tmp/plan"
                if grep -qE 'mkconfig -o' "$tmp/plan"; then
                        not_ok "cfg-only $name $req: plan would regenerate grub.cfg"; else
                        ok "cfg-only $name $req: no regeneration planned"; fi
                ht "$root" apply "$req" >"$tmp/out" 2>&1
                check "cfg-only $name $req: apply exit" 0 "$?"
                check "cfg-only $name $req: no /etc/default/grub created" no \
                        "$([ -e "$root/etc/default/grub" ] && echo yes || echo no)"
                check "cfg-only $name $req: grub.cfg keeps its mode" 600 "$(stat -c %a "$root$where")"
                grub_script_check "cfg-only $name $req: grub-script-check accepts the edited grub.cfg" "$root$where"
                # every byte off the kernel lines is kept
                grep -vE '^[[:space:]]*(linux|linux16|linuxefi)[[:space:]]' "$cfg" >"$tmp/rest.want"
                grep -vE '^[[:space:]]*(linux|linux16|linuxefi)[[:space:]]' "$root$where" >"$tmp/rest.got"
                same "cfg-only $name $req: every line but the kernel lines kept" "$tmp/rest.want" "$tmp/rest.got"
                kernel_words "$cfg" >"$tmp/w.in"
                kernel_words "$root$where" >"$tmp/w.ht"
                kernel_lines "$root$where" >"$tmp/l.ht"
                kernel_words "$CORPUS/grubby/${2%.grub.cfg}.$req.lines" >"$tmp/w.grubby"
                check "cfg-only $name $req: as many kernel lines as grubby's" "$(wc -l <"$tmp/w.grubby")" \
                        "$(wc -l <"$tmp/w.ht")"
                # line by line: hosttune's words against the input and grubby's
                i=0 agree=0 differ=""
                while IFS= read -r got; do
                        i=$((i + 1))
                        in=$(sed -n "${i}p" "$tmp/w.in")
                        gr=$(sed -n "${i}p" "$tmp/w.grubby")
                        line=$(sed -n "${i}p" "$tmp/l.ht")
                        if is_memtest "$line"; then
                                # deliberate: memtest86+ is no Linux kernel; grubby
                                # adds the words (and replaces its serial console=)
                                [ "$got" = "$in" ] || differ="$differ|memtest line $i changed: $got"
                                [ "$gr" != "$in" ] || differ="$differ|grubby left memtest line $i alone"
                                continue
                        fi
                        case $req in
                        args)
                                [ "$got" = "$gr" ] && agree=$((agree + 1)) || differ="$differ|line $i: [$got] vs grubby [$gr]" ;;
                        console)
                                # deliberate: the kernel honours every console=
                                # (serial-console.rst); grubby replaces the first
                                [ "$got" = "$in console=ttyS1,115200" ] || differ="$differ|line $i: [$got]"
                                case " $gr " in *" console=tty0 "*) differ="$differ|grubby kept console=tty0 on line $i" ;; esac
                                case " $gr " in *" console=ttyS1,115200 "*) agree=$((agree + 1)) ;; esac ;;
                        esac
                done <"$tmp/w.ht"
                if [ -z "$differ" ] && [ "$agree" -gt 0 ]; then
                        ok "cfg-only $name $req: kernel lines as grubby's ($agree lines), deliberate differences only"
                else not_ok "cfg-only $name $req: $differ (agreeing lines: $agree)"; fi
                if [ "$req" = console ]; then
                        c=$(grep -c 'console=tty0 console=ttyS0,115200n8 .*console=ttyS1,115200' "$root$where")
                        check "cfg-only $name console: every Linux line keeps both consoles and gets the new one" \
                                "$(grep -c 'console=tty0 console=ttyS0,115200n8' "$cfg")" "$c"
                fi
                if [ -n "${HT_GRUBBY:-}" ]; then
                        run_grubby "$req" "$cfg" "$tmp/grubby.out"
                        kernel_lines "$tmp/grubby.out" >"$tmp/grubby.lines"
                        same "grubby live: $name $req gives the recorded kernel lines" "$CORPUS/grubby/${2%.grub.cfg}.$req.lines" \
                                "$tmp/grubby.lines"
                else
                        skip "grubby live: $name $req gives the recorded kernel lines" "HT_GRUBBY not set (grubby is not in Debian)"
                fi
                ht "$root" plan "$req" >"$tmp/plan2" 2>&1
                check "cfg-only $name $req: plan after apply exit (nothing left)" 0 "$?"
                ht "$root" rollback >"$tmp/out" 2>&1
                check "cfg-only $name $req: rollback exit" 0 "$?"
                same_tree "cfg-only $name $req: rollback leaves the tree byte-identical" "$tmp/before" "$root"
                rm -rf "$root" "$tmp/before"
        done
}
cfg_case debian12 debian12-cfgonly.grub.cfg /boot/grub/grub.cfg
cfg_case rhel7-bios rhel7-bios.grub.cfg /boot/grub2/grub.cfg
cfg_case rhel7-efi rhel7-efi.grub.cfg /boot/efi/EFI/redhat/grub.cfg efi

# A kernel line hosttune cannot rewrite (GRUB single quotes): an error
# naming file:line, nothing written
root=$(copy_host debian12-kvm); scratch "$root"
rm -f "$root/etc/default/grub"
sed "119s|ro  quiet|ro 'acpi_osi=Windows 2015' quiet|" "$HOSTS/debian12-kvm/boot/grub/grub.cfg" >"$root/boot/grub/grub.cfg"
cp -a "$root" "$tmp/before"
ht "$root" plan thp >"$tmp/plan" 2>&1
check "cfg-only quoted: plan exit" 1 "$?"
check_contains "cfg-only quoted: the error names grub.cfg:119" "$root/boot/grub/grub.cfg:119: the arguments of this linux line use GRUB quoting" "$tmp/plan"
ht "$root" apply thp >"$tmp/out" 2>&1
check "cfg-only quoted: apply exit" 1 "$?"
same_tree "cfg-only quoted: nothing written" "$tmp/before" "$root"
if grep -q 'pending reboot\|kept' "$tmp/plan"; then not_ok "cfg-only quoted: a word reported as persisted"; else
        ok "cfg-only quoted: no word reported as persisted"; fi
rm -rf "$root" "$tmp/before"

# Files hosttune cannot parse are errors naming them, never skipped:
# a grub.cfg with a NUL byte, a BLS entry with one (GRUB would still list it)
bad_file_case() { # NAME HOST FILE NEEDLE [rm-defaults]
        root=$(copy_host "$2"); scratch "$root"
        [ "${5:-}" = rm-defaults ] && rm -f "$root/etc/default/grub"
        printf 'linux /vmlinuz\000 ro\n' >>"$root$3"
        cp -a "$root" "$tmp/before"
        ht "$root" plan thp >"$tmp/plan" 2>&1
        check "$1: plan exit" 1 "$?"
        check_contains "$1: the error names the file" "$root$3$4" "$tmp/plan"
        ht "$root" apply thp >"$tmp/out" 2>&1
        check "$1: apply exit" 1 "$?"
        same_tree "$1: nothing written" "$tmp/before" "$root"
        rm -rf "$root" "$tmp/before"
}
bad_file_case "cfg-only NUL byte" debian12-kvm /boot/grub/grub.cfg ": holds NUL bytes" rm-defaults
bad_file_case "bls entry NUL byte" ol8-bls \
        /boot/loader/entries/d2b4b7a5c3e14f6f9b0e8a1c7d3f2e61-0-rescue.conf ": holds NUL bytes, not a boot entry"

# ---- GRUB 2 with /etc/default/grub: odd quoting (grubby 8.40 does not
# edit defaults files: nothing to compare with) ----------------------------
grub_words() { # ROOT: what grub-mkconfig's shell sees
        sh -c '. "$1/etc/default/grub"; printf "%s|%s" "$GRUB_CMDLINE_LINUX" "$GRUB_CMDLINE_LINUX_DEFAULT"' sh "$1"
}
defaults_case() { # NAME PROFILE INPUT EXPECTED WORDS
        root=$(copy_host debian12-kvm); scratch "$root"
        printf "$3" >"$root/etc/default/grub"
        printf "$4" >"$tmp/expected"
        cp -a "$root" "$tmp/before"
        ht "$root" plan "$2" >"$tmp/plan" 2>&1
        check "defaults $1: plan exit" 2 "$?"
        ht "$root" apply "$2" >"$tmp/out" 2>&1
        check "defaults $1: apply exit" 0 "$?"
        same "defaults $1: /etc/default/grub edited in place" "$tmp/expected" "$root/etc/default/grub"
        check "defaults $1: the shell sees" "$5" "$(grub_words "$root" | tr -s ' ')"
        ht "$root" plan "$2" >"$tmp/plan" 2>&1
        check "defaults $1: plan after apply exit" 0 "$?"
        ht "$root" rollback >"$tmp/out" 2>&1
        same_tree "defaults $1: rollback byte-identical" "$tmp/before" "$root"
        rm -rf "$root" "$tmp/before"
}
# RHEL 7's installer writes GRUB_CMDLINE_LINUX with two consoles; someone
# added single-quoted _DEFAULT. The new console goes next to the others.
defaults_case two-consoles console \
        "GRUB_TIMEOUT=5\nGRUB_DISTRIBUTOR=\"\$(sed 's, release .*\$,,g' /etc/system-release)\"\nGRUB_DEFAULT=saved\nGRUB_DISABLE_SUBMENU=true\nGRUB_TERMINAL=\"serial console\"\nGRUB_SERIAL_COMMAND=\"serial --speed=115200\"\nGRUB_CMDLINE_LINUX=\"crashkernel=auto rd.lvm.lv=rhel/root rd.lvm.lv=rhel/swap console=tty0 console=ttyS0,115200n8\"\nGRUB_CMDLINE_LINUX_DEFAULT='rhgb quiet'\nGRUB_DISABLE_RECOVERY=\"true\"\n" \
        "GRUB_TIMEOUT=5\nGRUB_DISTRIBUTOR=\"\$(sed 's, release .*\$,,g' /etc/system-release)\"\nGRUB_DEFAULT=saved\nGRUB_DISABLE_SUBMENU=true\nGRUB_TERMINAL=\"serial console\"\nGRUB_SERIAL_COMMAND=\"serial --speed=115200\"\nGRUB_CMDLINE_LINUX=\"crashkernel=auto rd.lvm.lv=rhel/root rd.lvm.lv=rhel/swap console=tty0 console=ttyS0,115200n8 console=ttyS1,115200\"\nGRUB_CMDLINE_LINUX_DEFAULT='rhgb quiet'\nGRUB_DISABLE_RECOVERY=\"true\"\n" \
        "crashkernel=auto rd.lvm.lv=rhel/root rd.lvm.lv=rhel/swap console=tty0 console=ttyS0,115200n8 console=ttyS1,115200|rhgb quiet"
# the flag removed inside single quotes, the quoting kept
defaults_case single-quoted-default args \
        "GRUB_CMDLINE_LINUX_DEFAULT='quiet splash'\nGRUB_CMDLINE_LINUX=\"console=tty0 console=ttyS0,115200n8\"\n" \
        "GRUB_CMDLINE_LINUX_DEFAULT='splash'\nGRUB_CMDLINE_LINUX=\"console=tty0 console=ttyS0,115200n8 transparent_hugepage=never numa_balancing=disable\"\n" \
        "console=tty0 console=ttyS0,115200n8 transparent_hugepage=never numa_balancing=disable|splash"
# a console already there is not added twice, and is honestly "kept"
# (persisted; the running kernel lacks it, so a reboot is pending)
root=$(copy_host debian12-kvm); scratch "$root"
printf 'GRUB_CMDLINE_LINUX="console=ttyS1,115200 console=tty0"\n' >"$root/etc/default/grub"
cp "$root/etc/default/grub" "$tmp/expected"
ht "$root" plan console >"$tmp/plan" 2>&1
check_contains "defaults console present: kept, waiting for the reboot" \
        "in the bootloader configuration; takes effect at the next boot" "$tmp/plan"
if grep -q '^---' "$tmp/plan"; then not_ok "defaults console present: a file diff planned"; else
        ok "defaults console present: no file diff"; fi
rm -rf "$root"
# escaped quotes inside the value: refused with file:line, nothing written
root=$(copy_host debian12-kvm); scratch "$root"
printf 'GRUB_DEFAULT=0\nGRUB_CMDLINE_LINUX="acpi_osi=\\"Windows 2015\\" quiet"\n' >"$root/etc/default/grub"
cp -a "$root" "$tmp/before"
ht "$root" plan args >"$tmp/plan" 2>&1
check "defaults escaped quotes: plan exit" 1 "$?"
check_contains "defaults escaped quotes: the error names /etc/default/grub:2" "$root/etc/default/grub:2" "$tmp/plan"
ht "$root" apply args >"$tmp/out" 2>&1
check "defaults escaped quotes: apply exit" 1 "$?"
same_tree "defaults escaped quotes: nothing written" "$tmp/before" "$root"
rm -rf "$root" "$tmp/before"

# ---- BLS ----------------------------------------------------------------
# grubenv_write FILE LINES...: a GRUB environment block, padded with '#'
# to 1024 bytes as grub2-editenv writes it
grubenv_write() {
        f=$1
        shift
        { printf '# GRUB Environment Block\n'; printf '%s\n' "$@"; } >"$f"
        pad=$((1024 - $(wc -c <"$f")))
        head -c "$pad" /dev/zero | tr '\0' '#' >>"$f"
}
ol8_words() { # ROOT: grubenv's kernelopts
        sed -n 's/^kernelopts=//p' "$1/boot/grub2/grubenv"
}

# RHEL 8: entries take "$kernelopts $tuned_params"; the words go to
# grubenv's kernelopts (and GRUB_CMDLINE_LINUX, which grub2-mkconfig
# copies into kernelopts), entries stay as they are
root=$(copy_host ol8-bls); scratch "$root"
KO="root=/dev/mapper/ol-root ro crashkernel=auto resume=/dev/mapper/ol-swap rd.lvm.lv=ol/root rd.lvm.lv=ol/swap console=tty0 console=ttyS0,115200n8"
grubenv_write "$root/boot/grub2/grubenv" \
        "saved_entry=d2b4b7a5c3e14f6f9b0e8a1c7d3f2e61-5.15.0-206.153.7.1.el8uek.x86_64" "kernelopts=$KO" \
        "boot_success=0" "tuned_params=" "tuned_initrd="
sed -i 's/^GRUB_CMDLINE_LINUX=.*/GRUB_CMDLINE_LINUX="crashkernel=auto resume=\/dev\/mapper\/ol-swap rd.lvm.lv=ol\/root rd.lvm.lv=ol\/swap console=tty0 console=ttyS0,115200n8"/' \
        "$root/etc/default/grub"
cp -a "$root" "$tmp/before"
ht "$root" plan console >"$tmp/plan" 2>&1
check "bls rhel8: plan exit" 2 "$?"
ht "$root" apply console >"$tmp/out" 2>&1
check "bls rhel8: apply exit" 0 "$?"
check "bls rhel8: kernelopts keeps both consoles and gets the new one" "$KO console=ttyS1,115200" "$(ol8_words "$root")"
check "bls rhel8: grubenv stays 1024 bytes" 1024 "$(wc -c <"$root/boot/grub2/grubenv")"
check_contains "bls rhel8: GRUB_CMDLINE_LINUX gets it too" \
        'GRUB_CMDLINE_LINUX="crashkernel=auto resume=/dev/mapper/ol-swap rd.lvm.lv=ol/root rd.lvm.lv=ol/swap console=tty0 console=ttyS0,115200n8 console=ttyS1,115200"' \
        "$root/etc/default/grub"
if diff -r "$tmp/before/boot/loader/entries" "$root/boot/loader/entries" >/dev/null; then
        ok "bls rhel8: entries using \$kernelopts untouched"; else not_ok "bls rhel8: entries changed"; fi
ht "$root" plan console >"$tmp/plan" 2>&1
check "bls rhel8: plan after apply exit" 0 "$?"
ht "$root" rollback >"$tmp/out" 2>&1
same_tree "bls rhel8: rollback byte-identical" "$tmp/before" "$root"
rm -rf "$root" "$tmp/before"

# RHEL 8 with tuned's $tuned_params setting the same word after
# $kernelopts: editing kernelopts cannot win, so the plan says so rather
# than report the word as persisted
root=$(copy_host ol8-bls); scratch "$root"
grubenv_write "$root/boot/grub2/grubenv" "kernelopts=$KO" "tuned_params=transparent_hugepage=always" "tuned_initrd="
cp -a "$root" "$tmp/before"
ht "$root" plan thp >"$tmp/plan" 2>&1
check "bls tuned_params: plan exit" 1 "$?"
check_contains "bls tuned_params: the error says the entries would not have it" \
        "setting kernel parameter transparent_hugepage=never cannot be done: after the edit, not every boot entry's command line has it" "$tmp/plan"
if grep -q 'pending reboot\| kept' "$tmp/plan"; then not_ok "bls tuned_params: reported as persisted"; else
        ok "bls tuned_params: not reported as kept or pending"; fi
ht "$root" apply thp >"$tmp/out" 2>&1
check "bls tuned_params: apply exit" 1 "$?"
same_tree "bls tuned_params: nothing written" "$tmp/before" "$root"
rm -rf "$root" "$tmp/before"

# RHEL 9: literal options in each entry, /etc/kernel/cmdline for new
# kernels, no kernelopts in grubenv
root=$(copy_host ol8-bls); scratch "$root"
OPTS="root=/dev/mapper/rhel-root ro crashkernel=1G-4G:192M,4G-64G:256M,64G-:512M resume=/dev/mapper/rhel-swap rd.lvm.lv=rhel/root rd.lvm.lv=rhel/swap console=tty0 console=ttyS0,115200n8 quiet"
for e in "$root"/boot/loader/entries/*.conf; do
        sed -i "s|^options .*|options $OPTS|" "$e"
done
grubenv_write "$root/boot/grub2/grubenv" "saved_entry=d2b4b7a5c3e14f6f9b0e8a1c7d3f2e61-5.15.0-206.153.7.1.el8uek.x86_64" "boot_success=1"
mkdir -p "$root/etc/kernel"
printf '%s\n' "$OPTS" >"$root/etc/kernel/cmdline"
cp -a "$root" "$tmp/before"
for req in console args; do
        ht "$root" plan "$req" >"$tmp/plan" 2>&1
        check "bls rhel9 $req: plan exit" 2 "$?"
        ht "$root" apply "$req" >"$tmp/out" 2>&1
        check "bls rhel9 $req: apply exit" 0 "$?"
        ht "$root" plan "$req" >"$tmp/plan" 2>&1
        check "bls rhel9 $req: plan after apply exit" 0 "$?"
done
WANT="root=/dev/mapper/rhel-root ro crashkernel=1G-4G:192M,4G-64G:256M,64G-:512M resume=/dev/mapper/rhel-swap rd.lvm.lv=rhel/root rd.lvm.lv=rhel/swap console=tty0 console=ttyS0,115200n8 console=ttyS1,115200 transparent_hugepage=never numa_balancing=disable"
matched=0
for e in "$root"/boot/loader/entries/*.conf; do
        [ "$(sed -n 's/^options //p' "$e")" = "$WANT" ] && matched=$((matched + 1))
done
check "bls rhel9: every entry has both consoles, the new one and the words, without quiet" \
        "$(ls "$root"/boot/loader/entries/*.conf | wc -l)" "$matched"
check "bls rhel9: /etc/kernel/cmdline the same" "$WANT" "$(cat "$root/etc/kernel/cmdline")"
ht "$root" rollback >"$tmp/out" 2>&1
ht "$root" rollback >"$tmp/out" 2>&1
same_tree "bls rhel9: two rollbacks give the tree byte-identical" "$tmp/before" "$root"
rm -rf "$root" "$tmp/before"

# ---- SUSE's /etc/grub.conf and a menu without entries: no false "kept" --
root=$(copy_host debian12-kvm); scratch "$root"
rm -f "$root/etc/default/grub"
rm -rf "$root/boot/grub"
# SLES 11: the batch grub-install feeds to the GRUB shell
printf 'setup --stage2=/boot/grub/stage2 --force-lba (hd0,1) (hd0,1)\nquit\n' >"$root/etc/grub.conf"
cp -a "$root" "$tmp/before"
ht "$root" plan thp >"$tmp/plan" 2>&1
check "suse grub.conf: plan exit" 1 "$?"
ht "$root" facts >"$tmp/facts" 2>&1
check_contains "suse grub.conf: facts name it as grub-install's script" \
        "$root/etc/grub.conf is a GRUB shell script for grub-install (SUSE), not a boot menu" "$tmp/facts"
check_contains "suse grub.conf: the error names it too" "/etc/grub.conf is not a boot menu" "$tmp/plan"
check_contains "suse grub.conf: the word cannot be set" "no bootloader configuration found" "$tmp/plan"
if grep -q 'kept\|pending reboot' "$tmp/plan"; then not_ok "suse grub.conf: reported as kept"; else
        ok "suse grub.conf: not reported as kept"; fi
ht "$root" apply thp >"$tmp/out" 2>&1
check "suse grub.conf: apply exit" 1 "$?"
same_tree "suse grub.conf: nothing written" "$tmp/before" "$root"
rm -rf "$root" "$tmp/before"

root=$(copy_host debian12-kvm); scratch "$root"
rm -f "$root/etc/default/grub"
rm -rf "$root/boot/grub"
mkdir -p "$root/boot/grub"
printf '# menu.lst, entries removed by hand\ndefault 0\ntimeout 8\n' >"$root/boot/grub/menu.lst"
cp -a "$root" "$tmp/before"
ht "$root" plan thp >"$tmp/plan" 2>&1
check "menu without entries: plan exit" 1 "$?"
check_contains "menu without entries: the error names the file" \
        "/boot/grub/menu.lst has no boot entry (title) with a kernel line" "$tmp/plan"
if grep -q 'kept\|pending reboot' "$tmp/plan"; then not_ok "menu without entries: reported as kept"; else
        ok "menu without entries: not reported as kept"; fi
same_tree "menu without entries: nothing written" "$tmp/before" "$root"
rm -rf "$root" "$tmp/before"

finish
