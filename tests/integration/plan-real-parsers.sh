#!/bin/sh
# The real parsers agree with what hosttune writes:
# - the shell (sh -n, and sourcing as grub-mkconfig does) with the
#   /etc/default/grub hosttune edited for the shipped profiles;
# - systemd-tmpfiles --root applies hosttune's tmpfiles.d "w" lines to the
#   fixture copy;
# - as root: procps `sysctl -p` and systemd-sysctl parse a drop-in hosttune
#   rendered, with values equal to this machine's current ones, so writing
#   them changes nothing; in a throwaway network namespace `sysctl -p`
#   really writes the oracle profile's per-namespace net.ipv4 values;
# - as root: grub-mkconfig, in a throwaway mount namespace where
#   /etc/default is the fixture copy's and /boot a scratch directory, puts
#   the words on the generated linux line.
# Parts whose tool (or root) is missing are TAP skips with the reason.
[ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ] && TMPDIR=/dev/shm && export TMPDIR
. "${top_srcdir:-.}/tests/integration/lib.sh"
HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1 LC_ALL=C
export HOSTTUNE_INSECURE_PROFILES HOSTTUNE_NO_AUDIT LC_ALL
PATH=$PATH:/usr/sbin:/sbin
mkdir -p "$tmp/profiles"
# sysctl -p writes this machine's values back: no other test may change
# them meanwhile (real-host-apply.sh does)
real_host_lock

# ---- the GRUB defaults file, through the shell --------------------------
for case in debian12-kvm:oracle:"transparent_hugepage=never" \
            debian12-kvm:jvm:"transparent_hugepage=madvise" \
            ol8-bls:oracle:"crashkernel=auto resume=/dev/mapper/ol-swap rd.lvm.lv=ol/root rd.lvm.lv=ol/swap rhgb quiet transparent_hugepage=madvise" \
            alinux3-hugetext:mysql:"cgroup.memory=nokmem rd.lvm=0 rd.md=0 rd.dm=0 rd.luks=0 vring_force_dma_api net.ifnames=0 console=ttyS0,115200n8 console=tty0 crashkernel=0M-2G:0M,2G-8G:192M,8G-:256M fsck.repair=yes transparent_hugepage=never hugetext=1"; do
        host=${case%%:*} rest=${case#*:}
        profile=${rest%%:*} words=${rest#*:}
        root=$(copy_host "$host"); scratch "$root"
        "$HOSTTUNE" --root "$root" --profile-path "$PROFILES" --rules-path "$top_srcdir/rules" apply "$profile" \
                >"$tmp/out" 2>&1
        check "$host/$profile: apply" 0 "$?"
        sh -n "$root/etc/default/grub"
        check "$host/$profile: sh -n /etc/default/grub" 0 "$?"
        # The fixture's own shell code (lsb_release, sed on
        # /etc/system-release) runs too, harmlessly, as it would in
        # grub-mkconfig.
        got=$(sh -c '. "$1" 2>/dev/null; printf %s "$GRUB_CMDLINE_LINUX"' sh "$root/etc/default/grub")
        check "$host/$profile: the shell sees GRUB_CMDLINE_LINUX" "$words" "$got"
        [ "$host/$profile" = debian12-kvm/oracle ] && cp -a "$root" "$tmp/debian-oracle"
        rm -rf "$root"
done

# ---- tmpfiles.d: systemd-tmpfiles applies the "w" lines -------------------
if command -v systemd-tmpfiles >/dev/null 2>&1; then
        root=$(copy_host alinux3-hugetext); scratch "$root"
        "$HOSTTUNE" --root "$root" --profile-path "$PROFILES" --rules-path "$top_srcdir/rules" apply jvm >"$tmp/out" 2>&1
        check "tmpfiles: apply jvm" 0 "$?"
        thp=$root/sys/kernel/mm/transparent_hugepage
        # w writes without truncating (as into sysfs): start from empty files
        : >"$thp/enabled"
        : >"$thp/hugetext_enabled"
        : >"$thp/hugetext_pad_threshold"
        systemd-tmpfiles --root="$root" --create "$root/etc/tmpfiles.d/hosttune.conf" >"$tmp/out" 2>&1
        check "tmpfiles: systemd-tmpfiles --create accepts hosttune.conf" 0 "$?"
        check "tmpfiles: ... and writes no complaint" "" "$(cat "$tmp/out")"
        check "tmpfiles: THP enabled written" madvise "$(cat "$thp/enabled")"
        check "tmpfiles: hugetext_enabled written" 2 "$(cat "$thp/hugetext_enabled")"
        check "tmpfiles: hugetext_pad_threshold written" 4096 "$(cat "$thp/hugetext_pad_threshold")"
        rm -rf "$root"
else
        skip "tmpfiles: systemd-tmpfiles applies the w lines" "systemd-tmpfiles not installed"
fi

if [ "$(id -u)" != 0 ]; then
        skip "sysctl -p, systemd-sysctl and grub-mkconfig" "they need root"
        finish
fi

# ---- sysctl.d: procps and systemd-sysctl parse hosttune's drop-in ---------
if command -v sysctl >/dev/null 2>&1 && [ -r /proc/sys/vm/swappiness ] && [ -w /proc/sys/vm/swappiness ]; then
        root=$(copy_host debian12-kvm); scratch "$root"
        # Keys in both forms, one with tabs in the kernel's output, one with
        # an interface level; values: this machine's, blanks folded.
        printf 'summary = "current values";\nsysctl = (\n' >"$tmp/profiles/current.profile"
        : >"$tmp/keys"
        for key in vm.swappiness kernel/sem fs.file-max kernel.shmmni vm.max_map_count net.core.rmem_max \
                   net.ipv4.ip_local_port_range kernel.panic_on_oops net/ipv4/conf/lo/rp_filter; do
                dotted=$(printf %s "$key" | tr / .)
                val=$(sysctl -n "$dotted" 2>/dev/null) || continue
                val=$(printf %s "$val" | tr -s ' \t' '  ')
                printf '        { key = "%s"; value = "%s"; },\n' "$key" "$val" >>"$tmp/profiles/current.profile"
                mkdir -p "$root/proc/sys/$(dirname "$(printf %s "$dotted" | tr . /)")"
                sysctl -n "$dotted" >"$root/proc/sys/$(printf %s "$dotted" | tr . /)"
                echo "$dotted" >>"$tmp/keys"
        done
        sed -i '$ s/},$/}/' "$tmp/profiles/current.profile"
        printf ');\n' >>"$tmp/profiles/current.profile"
        "$HOSTTUNE" --root "$root" --profile-path "$tmp/profiles" --rules-path "$top_srcdir/rules" --json plan current \
                >"$tmp/plan.json" 2>&1
        check "sysctl: hosttune sees this machine's values as they are (kernel.sem tabs included)" 2 "$?"
        if command -v jq >/dev/null 2>&1; then
                check "sysctl: ... no runtime change, only the drop-in" "0 1" \
                        "$(jq -r '"\([.changes[] | select(.outcome == "change")] | length) \(.files | length)"' "$tmp/plan.json")"
        fi
        "$HOSTTUNE" --root "$root" --profile-path "$tmp/profiles" --rules-path "$top_srcdir/rules" apply current >"$tmp/out" 2>&1
        check "sysctl: apply writes the drop-in" 0 "$?"
        dropin=$root/etc/sysctl.d/90-hosttune.conf
        for k in $(cat "$tmp/keys"); do sysctl -n "$k"; done >"$tmp/before"
        # the drop-in holds the values read when the profile was made: still
        # this machine's, or sysctl -p would write a stale value back
        for k in $(cat "$tmp/keys"); do cat "$root/proc/sys/$(printf %s "$k" | tr . /)"; done >"$tmp/made"
        if ! cmp -s "$tmp/made" "$tmp/before"; then
                not_ok "sysctl: this machine's values changed while the test ran; not running sysctl -p: $(diff "$tmp/made" "$tmp/before")"
                finish
        fi
        sysctl -p "$dropin" >"$tmp/out" 2>"$tmp/err"
        check "sysctl -p parses the drop-in" 0 "$?"
        check "sysctl -p: no unknown keys or parse errors" "" "$(cat "$tmp/err")"
        check "sysctl -p: one assignment per key" "$(wc -l <"$tmp/keys")" "$(grep -c ' = ' "$tmp/out")"
        for sd in /usr/lib/systemd/systemd-sysctl /lib/systemd/systemd-sysctl; do
                [ -x "$sd" ] || continue
                "$sd" "$dropin" >"$tmp/out" 2>"$tmp/err"
                check "systemd-sysctl parses the drop-in" 0 "$?"
                check "systemd-sysctl: no complaints" "" "$(cat "$tmp/err")"
                break
        done
        for k in $(cat "$tmp/keys"); do sysctl -n "$k"; done >"$tmp/after"
        if cmp -s "$tmp/before" "$tmp/after"; then ok "sysctl: this machine's values unchanged"; else
                not_ok "sysctl: values changed: $(diff "$tmp/before" "$tmp/after")"; fi
        rm -rf "$root"

        # A throwaway network namespace: the oracle profile's per-namespace
        # values really written by sysctl -p from hosttune's drop-in.
        if unshare --net true 2>/dev/null; then
                root=$(copy_host debian12-kvm); scratch "$root"
                printf 'summary = "netns";\nsysctl = { net = { ipv4 = { ip_local_port_range = "9000 65500"; conf = { all = { rp_filter = 2; }; default = { rp_filter = 2; }; }; }; }; };\n' \
                        >"$tmp/profiles/netns.profile"
                "$HOSTTUNE" --root "$root" --profile-path "$tmp/profiles" --rules-path "$top_srcdir/rules" apply netns \
                        >"$tmp/out" 2>&1
                check "netns: apply writes the drop-in" 0 "$?"
                host_range=$(sysctl -n net.ipv4.ip_local_port_range)
                got=$(unshare --net sh -c 'sysctl -p "$1" >/dev/null &&
                        printf "%s|%s|%s" "$(sysctl -n net.ipv4.ip_local_port_range)" \
                                "$(sysctl -n net.ipv4.conf.all.rp_filter)" "$(sysctl -n net.ipv4.conf.default.rp_filter)"' \
                        sh "$root/etc/sysctl.d/90-hosttune.conf" 2>"$tmp/err")
                check "netns: sysctl -p wrote the values (the kernel prints a tab)" "$(printf '9000\t65500|2|2')" "$got"
                check "netns: no complaints" "" "$(cat "$tmp/err")"
                check "netns: the host's namespace untouched" "$host_range" "$(sysctl -n net.ipv4.ip_local_port_range)"
                rm -rf "$root"
        else
                skip "netns: sysctl -p writes the per-namespace values" "unshare --net does not work here"
        fi
else
        skip "sysctl -p and systemd-sysctl parse the drop-in" "no procps sysctl or /proc/sys is read-only"
fi

# ---- grub-mkconfig in a throwaway mount namespace ------------------------
if command -v grub-mkconfig >/dev/null 2>&1 && [ -d "$tmp/debian-oracle" ] && [ -d /etc/grub.d ] &&
   unshare -m true 2>/dev/null; then
        root=$tmp/debian-oracle
        # grub-probe must find a disk behind /boot: not tmpfs
        boot=$(mktemp -d /var/tmp/ht-boot.XXXXXX) || boot=$tmp/boot
        trap 'rm -rf "$tmp" "$boot"' EXIT INT TERM
        mkdir -p "$boot/grub" "$tmp/out.d"
        # grub-mkconfig lists kernels by file name; empty files will do
        : >"$boot/vmlinuz-6.1.0-18-amd64"
        : >"$boot/initrd.img-6.1.0-18-amd64"
        # Only inside the new namespace: /etc/default becomes the fixture's,
        # /boot the scratch directory; the output goes to $tmp.
        mkconfig() { # ETC-DEFAULT-DIR OUTPUT
                timeout 120 unshare -m sh -c 'mount --bind "$1" /etc/default && mount --bind "$2" /boot &&
                        grub-mkconfig -o "$3"' sh "$1" "$boot" "$2" >"$tmp/out" 2>&1
        }
        # First the fixture as shipped: if grub-mkconfig cannot run on that,
        # this machine cannot run it (a skip with the reason); if it can,
        # a failure on hosttune's edit is hosttune's (a failure).
        mkconfig "$HOSTS/debian12-kvm/etc/default" "$tmp/out.d/grub-orig.cfg"
        orig=$?
        orig_out=$(tail -n 2 "$tmp/out" | tr '\n' ' ')
        mkconfig "$root/etc/default" "$tmp/out.d/grub.cfg"
        code=$?
        rm -rf "$boot"
        if [ "$orig" != 0 ]; then
                skip "grub-mkconfig on hosttune's /etc/default/grub" \
                        "grub-mkconfig fails on the unedited fixture too (exit $orig): $orig_out"
        elif [ "$code" != 0 ] || [ ! -s "$tmp/out.d/grub.cfg" ]; then
                not_ok "grub-mkconfig fails on hosttune's edit of a file it takes unedited (exit $code): $(tail -n 5 "$tmp/out" | tr '\n' ' ')"
        else
                ok "grub-mkconfig ran on the fixture's /etc/default/grub"
                grub_script_check "grub-script-check accepts grub-mkconfig's grub.cfg from hosttune's edit" \
                        "$tmp/out.d/grub.cfg"
                check "grub-mkconfig: the unedited fixture has no transparent_hugepage= (the word is hosttune's)" 0 \
                        "$(grep -c 'transparent_hugepage=' "$tmp/out.d/grub-orig.cfg")"
                line=$(grep -m1 '^[[:space:]]*linux[[:space:]].*vmlinuz-6.1.0-18-amd64' "$tmp/out.d/grub.cfg")
                case " $line " in
                *" transparent_hugepage=never "*) ok "grub-mkconfig: the linux line has transparent_hugepage=never" ;;
                *) not_ok "grub-mkconfig: linux line without the word: $line" ;;
                esac
                case " $line " in
                *" quiet "*) ok "grub-mkconfig: ... and GRUB_CMDLINE_LINUX_DEFAULT's quiet" ;;
                *) not_ok "grub-mkconfig: linux line without quiet: $line" ;;
                esac
        fi
        check "grub-mkconfig: the host's /etc/default untouched" "" \
                "$(find /etc/default -newer "$tmp/out.d" -name grub 2>/dev/null)"
else
        skip "grub-mkconfig on hosttune's /etc/default/grub" "grub-mkconfig, /etc/grub.d or unshare -m not available"
fi

finish
