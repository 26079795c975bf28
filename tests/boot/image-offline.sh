#!/bin/bash
# image-offline.sh: the image-build promise on a real image, end to end
# (run-all.sh's entry `image`). The cached Debian 12 guest image is taken
# apart without mounting it (qemu-img to raw, debugfs rdump of the ext4
# partition, modes and owners checked against the file system's own
# listing); hosttune is installed into a copy as a package would be and its
# verify unit enabled with the real `systemctl --root`; the copy is tuned
# offline with the shipped oracle profile:
#   - without --facts (the plan fails for want of kernel facts, writes
#     nothing), and with --facts, no bind mounts;
#   - with the build machine's /proc, /sys and /dev bind-mounted into the
#     tree (a private mount namespace): still an offline image, and the
#     build machine's /proc/sys, THP and HugePages are the same afterwards;
# each time the files are checked with the image's own tools (chroot:
# systemd-sysctl, systemd-tmpfiles, systemd-analyze, su for pam_limits,
# sh for /etc/default/grub, grub-script-check), grub.cfg keeps the image's
# root=UUID= and names no disk of the build machine, nothing is left
# outside the state directory and the files the plan lists, and rollback
# gives the tree back byte for byte. Then applied once more, written into a
# copy of the disk with `mke2fs -d` (same UUID: the MBR and core.img stay
# valid) and booted once: scenarios/image/apply.sh checks `hosttune verify
# --boot`, the verify unit and the values in that first boot.
# Exit 0 pass, 1 fail. Environment: HOSTTUNE, HT_PKGDATADIR, HT_BOOT_CACHE,
# HT_BOOT_TIMEOUT, HT_BOOT_KEEP=1 (as run-scenario.sh); HT_BOOT_PROFILE,
# HT_BOOT_SETS choose the profile (default oracle, good's sets).
set -Eeuo pipefail
. "$(dirname "$0")/lib.sh"
export LC_ALL=C

[ "$(id -u)" = 0 ] || die "needs root (chroot, mounts in a private namespace, owners in the tree)"
for t in qemu-img debugfs mke2fs sfdisk blkid jq systemctl systemd-tmpfiles unshare chroot; do
        command -v "$t" >/dev/null || die "no $t: run tests/boot/deps.sh"
done
HOSTTUNE=${HOSTTUNE:-$PWD/hosttune}
[ -x "$HOSTTUNE" ] || die "no hosttune binary at $HOSTTUNE (set HOSTTUNE)"
HOSTTUNE=$(cd "$(dirname "$HOSTTUNE")" && pwd)/${HOSTTUNE##*/}
PKGDATADIR=${HT_PKGDATADIR:-/usr/local/share/hosttune}
PROFILE=${HT_BOOT_PROFILE:-oracle}
# word-split on purpose, as good's apply.sh does
SETS=${HT_BOOT_SETS:---set sga_max_size=64M --set oracle_user=oracle --set oracle_group=dba}
UNIT=hosttune-verify.service

IMGDIR=$("$BOOT_DIR/build-image.sh")
W=$(mktemp -d "${TMPDIR:-/var/tmp}/hosttune-image.XXXXXX")
result=FAIL
cleanup() {
        # The bind mounts live in a namespace that is gone; never rm -rf
        # through a mount all the same.
        if grep -q " $W/" /proc/mounts; then
                log "mounts left under $W, not removed: $(grep " $W/" /proc/mounts)"
                return
        fi
        if [ "$result" = PASS ] && [ "${HT_BOOT_KEEP:-0}" != 1 ]; then
                rm -rf "$W"
        else
                rm -f "$W"/*.raw
                log "work directory kept: $W"
        fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
trap 'log "unexpected exit $? at line $LINENO"' ERR

n_ok=0 n_fail=0
pass() { n_ok=$((n_ok + 1)); echo "ok   $*"; }
fail() { n_fail=$((n_fail + 1)); echo "FAIL $*"; }
check() { # NAME ACTUAL WANT
        if [ "$2" = "$3" ]; then pass "$1 = '$2'"; else fail "$1: got '$2', want '$3'"; fi
}
check_grep() { # NAME REGEX FILE
        if grep -Eq -- "$2" "$3"; then pass "$1"; else fail "$1: no /$2/ in $3: $(head -c 600 "$3")"; fi
}
differ() { diff "$@" || true; }   # for messages: diff's status 1 is no error
T0=$(now)
step() { log "[$(( $(now) - T0 ))s] $*"; }

# --- a. the image's root tree, without mounting ------------------------
step "extracting $IMGDIR/base.qcow2"
qemu-img convert -O raw "$IMGDIR/base.qcow2" "$W/disk.raw"
part=$(sfdisk -J "$W/disk.raw" | jq -c '.partitiontable.partitions[0] | [.start, .size]')
OFF=$(( $(echo "$part" | jq '.[0]') * 512 ))
PART_KB=$(( $(echo "$part" | jq '.[1]') / 2 ))
FS="$W/disk.raw?offset=$OFF"
UUID=$(blkid -p -O "$OFF" -s UUID -o value "$W/disk.raw")
LABEL=$(blkid -p -O "$OFF" -s LABEL -o value "$W/disk.raw")
[ -n "$UUID" ] || die "no file system UUID at offset $OFF of the image"
mkdir "$W/pristine"
debugfs -R "rdump / $W/pristine" "$FS" 2>"$W/rdump.err" || die "rdump failed: $(cat "$W/rdump.err")"

# "TYPE PERMS UID GID SIZE PATH" for every inode below / (SIZE: a file's
# bytes, a link's target length; "-" for directories, whose sizes differ
# between file systems), from the file system (debugfs ls -p of every
# directory) and from the tree (find).
fs_listing() {
        (cd "$W/pristine" && find . -type d -printf '%P\n') | sort |
                while IFS= read -r d; do printf 'ls -p "/%s"\n' "$d"; done >"$W/ls.cmds"
        debugfs -f "$W/ls.cmds" "$FS" 2>/dev/null | awk -v inodes="$W/inodes" '
                /^debugfs: ls -p / { d = $0; sub(/^debugfs: ls -p "\//, "", d); sub(/"$/, "", d); next }
                /^\// { n = split($0, f, "/")
                        if (f[6] == "." || f[6] == ".." || f[2] == "0") next
                        m = f[3]; t = substr(m, 1, length(m) - 4); p = substr(m, length(m) - 3)
                        ty = (t == "4" || t == "04") ? "d" : (t == "10") ? "f" : (t == "12") ? "l" : \
                             (t == "2" || t == "02") ? "c" : (t == "6" || t == "06") ? "b" : (t == "1" || t == "01") ? "p" : (t == "14") ? "s" : "?" t
                        if (ty != "d") print f[2], (d == "" ? "" : d "/") f[6] > inodes
                        printf "%s %04d %s %s %s %s\n", ty, p, f[4], f[5], (ty == "d" ? "-" : f[7] + 0), (d == "" ? "" : d "/") f[6] }' | sort -k6
}
tree_listing() {
        (cd "$1" && find . -mindepth 1 -printf '%y %#m %U %G %s %P\n') |
                awk '{ $2 = sprintf("%04d", $2 % 10000); if ($1 == "d") $5 = "-"; print }' | sort -k6
}
fs_listing >"$W/fs.list"
tree_listing "$W/pristine" >"$W/tree.list"
# rdump skips device nodes (mmdebstrap made a few in /dev): made here
# from debugfs stat's major/minor.
awk '$1 == "c" || $1 == "b"' "$W/fs.list" | while read -r ty perm uid gid _size path; do
        [ -e "$W/pristine/$path" ] && continue
        mm=$(debugfs -R "stat \"/$path\"" "$FS" 2>/dev/null | sed -n 's/.*Device major\/minor number: *\([0-9]*\):\([0-9]*\).*/\1 \2/p')
        [ -n "$mm" ] || die "no device number for /$path"
        # shellcheck disable=SC2086
        mknod -m "$perm" "$W/pristine/$path" "$ty" $((10#${mm% *})) $((10#${mm#* }))
done
# rdump drops setuid, setgid and sticky bits (its chown after chmod):
# put back what the file system says, then insist on equality.
join -1 6 -2 6 -o 1.1,1.2,1.3,1.4,1.6,2.1,2.2,2.3,2.4 <(sort -k6 "$W/fs.list") <(sort -k6 "$W/tree.list") |
        while read -r ty perm uid gid path tty tperm tuid tgid; do
                [ "$ty $perm $uid $gid" = "$tty $tperm $tuid $tgid" ] && continue
                [ "$ty" = "$tty" ] || continue
                chown -h "$uid:$gid" "$W/pristine/$path"
                [ "$ty" = l ] || chmod "$perm" "$W/pristine/$path"
                echo "$path"
        done >"$W/fixed.list"
fixed=$(wc -l <"$W/fixed.list")
tree_listing "$W/pristine" >"$W/tree.list"
if cmp -s "$W/fs.list" "$W/tree.list"; then
        pass "extracted tree: every one of $(wc -l <"$W/fs.list") inodes has the type, mode, owner, group and size of the file system ($fixed special modes rdump lost put back: $(head -5 "$W/fixed.list" | tr '\n' ' '))"
else
        fail "extracted tree differs from the file system: $(differ "$W/fs.list" "$W/tree.list" | head -20)"
fi
# rdump does not copy extended attributes, nor does this script: the
# image's are journald's and systemd's own bookkeeping, made again at boot
# (tmpfiles' a+ lines for the journal's ACLs). Any other (a file
# capability, an SELinux label) would make the tuned image differ unseen.
(cd "$W/pristine" && find . -mindepth 1 -printf 'ea_list "/%P"\n') >"$W/ea.cmds"
debugfs -f "$W/ea.cmds" "$FS" 2>/dev/null |
        awk '/^debugfs: ea_list / { p = $3; gsub(/"/, "", p) } /^  [a-z]+\.[^ ]* / { print p, $1 }' | sort >"$W/xattrs"
other=$(grep -vE '^/var/(log/journal|lib/systemd)[^ ]* (system\.posix_acl_(access|default)|user\.(crtime_usec|random-seed-creditable))$' \
        "$W/xattrs" | head -5 || true)
if [ -z "$other" ]; then pass "extended attributes: only systemd's own, made again at boot ($(wc -l <"$W/xattrs"))"
else fail "extended attributes the extraction would lose: $other"; fi
# rdump makes copies of hard links (one inode, two names: perl has
# them): linked again here (cp -a and mke2fs -d keep them).
sort -k1,1n -k2 "$W/inodes" | awk '$1 == prev { print first, $2; next } { prev = $1; first = $2 }' >"$W/hardlinks"
while read -r first other; do ln -f "$W/pristine/$first" "$W/pristine/$other"; done <"$W/hardlinks"
bad=
while read -r first other; do
        [ "$(stat -c %i "$W/pristine/$first")" = "$(stat -c %i "$W/pristine/$other")" ] || bad="$bad $other"
done <"$W/hardlinks"
check "hard links of the image linked again in the tree ($(awk '{ print $2 }' "$W/hardlinks" | tr '\n' ' '))" "${bad:-none}" none
# symlink targets survive (a sample the image surely has)
check "symlink /bin" "$(readlink "$W/pristine/bin")" usr/bin
check "/tmp mode" "$(stat -c %a "$W/pristine/tmp")" 1777
check "/usr/bin/su mode" "$(stat -c %a "$W/pristine/usr/bin/su")" 4755
for f in /etc/passwd /etc/default/grub /boot/grub/grub.cfg /usr/bin/su; do
        check "$f: the bytes of the file system" "$(sha256sum <"$W/pristine$f" | cut -c1-16)" \
                "$(debugfs -R "cat $f" "$FS" 2>/dev/null | sha256sum | cut -c1-16)"
done
step "extracted ($(du -sh "$W/pristine" | cut -f1))"

# The tree as "byte for byte": type, mode, owner, size, link target and
# sha256 of every path except the state directory (and /run: a tmpfs).
manifest() { # TREE
        (cd "$1" && find . -path ./var/lib/hosttune -prune -o -printf '%y %#m %U:%G %s %p -> %l\n' |
                awk '$1 == "d" { $4 = "-" } { print }' | sort)
        (cd "$1" && find . -path ./var/lib/hosttune -prune -o -type f -print0 | sort -z | xargs -0 sha256sum)
}
# changed_paths OLD NEW: the paths whose line differs
changed_paths() {
        { diff "$1" "$2" || true; } | sed -n 's/^[<>] //p' | awk '{ print ($2 ~ /^\.\//) ? $2 : $5 }' | sed 's|^\./|/|' | sort -u
}
manifest "$W/pristine" >"$W/pristine.manifest"

# --- b. hosttune installed into a copy, as a package would ---------------
I=$W/img
cp -a "$W/pristine" "$I"
install -D -m755 "$HOSTTUNE" "$I/usr/sbin/hosttune"
sed 's|@sbindir[@]|/usr/sbin|g' "$TOP_SRCDIR/packaging/systemd/hosttune-verify.service.in" >"$W/$UNIT"
install -D -m644 "$W/$UNIT" "$I/lib/systemd/system/$UNIT"
install -D -m644 "$TOP_SRCDIR/packaging/tmpfiles/hosttune.conf" "$I/usr/lib/tmpfiles.d/hosttune.conf"
mkdir -p "$I$PKGDATADIR"
cp -r "$TOP_SRCDIR/profiles" "$TOP_SRCDIR/rules" "$I$PKGDATADIR/"
chown -R 0:0 "$I$PKGDATADIR"
chmod -R go-w "$I$PKGDATADIR"
systemd-tmpfiles --root="$I" --create "$I/usr/lib/tmpfiles.d/hosttune.conf"
systemctl --root="$I" enable "$UNIT" 2>&1
check "systemctl --root enable: the wants link" "$(readlink "$I/etc/systemd/system/multi-user.target.wants/$UNIT")" \
        "/lib/systemd/system/$UNIT"
# the owner and group the profile refers to, made with the image's own tools
chroot "$I" groupadd oinstall
chroot "$I" groupadd dba
chroot "$I" useradd -m -g oinstall -G dba -s /bin/bash oracle
check "the oracle user in the image" "$(chroot "$I" id oracle | sed 's/uid=[0-9]*(\([a-z]*\)).*/\1/')" oracle
manifest "$I" >"$W/before.manifest"
check "the state directory, empty" "$(stat -c '%a %U' "$I/var/lib/hosttune") $(ls -A "$I/var/lib/hosttune" | wc -l)" "700 root 0"

# The target's facts: the Debian 12 KVM fixture (a machine of the guest's
# shape: the build machine here is a Firecracker VM without a bootloader),
# with the guest's kernel and memory. The fixture stands for a running
# machine: the test suite's variable says so (HACKING.md, "Fixture hosts").
FACTS=$W/target-facts.json
HOSTTUNE_TEST_LIVE_FIXTURES=1 HOSTTUNE_NO_AUDIT=1 "$HOSTTUNE" --root "$TOP_SRCDIR/tests/hosts/debian12-kvm" facts --json 2>/dev/null |
        jq --arg rel "$(cat "$IMGDIR/kernel")" --argjson mem $(( GUEST_MEM * 1024 - 40000 )) \
                '.kernel.release = $rel | .memory.total_kb = $mem | .memory.free_kb = $mem - 100000
                 | .memory.available_kb = $mem - 80000' >"$FACTS"
jq -e .kernel.release "$FACTS" >/dev/null || die "no target facts"

export HOSTTUNE_NO_AUDIT=1
HT() { "$HOSTTUNE" --root "$I" --profile-path "$TOP_SRCDIR/profiles" --rules-path "$TOP_SRCDIR/rules" "$@"; }

# The files a plan lists (its changes' files, every file it writes).
plan_files() { jq -r '.files[].path' "$1" | sort -u; }
# The tree after an apply differs from before.manifest only in the files
# the plan lists (the state directory is not in the manifest).
check_only_planned() { # NAME PLAN.json
        manifest "$I" >"$W/now.manifest"
        changed_paths "$W/before.manifest" "$W/now.manifest" >"$W/changed"
        plan_files "$2" >"$W/planned"
        # a directory the apply made for a planned file (logind.conf.d)
        # is the file's, not an extra change
        extra=$(comm -23 "$W/changed" "$W/planned" | while IFS= read -r p; do
                if [ -d "$I$p" ] && grep -q "^$p/" "$W/planned"; then continue; fi
                echo "$p"
        done | tr '\n' ' ')
        if [ -z "$extra" ]; then pass "$1: the tree changed only in the files the plan lists ($(tr '\n' ' ' <"$W/changed"))"
        else fail "$1: changed outside the plan's files: $extra"; fi
        if [ -e "$I/run/hosttune.lock" ]; then fail "$1: /run/hosttune.lock left in the image"
        else pass "$1: no /run/hosttune.lock in the image"; fi
}
check_unchanged() { # NAME
        manifest "$I" >"$W/now.manifest"
        if cmp -s "$W/before.manifest" "$W/now.manifest"; then
                pass "$1: the tree is byte for byte as before (outside /var/lib/hosttune)"
        else
                fail "$1: the tree differs: $(differ "$W/before.manifest" "$W/now.manifest" | head -12)"
        fi
}
check_plan_offline() { # NAME PLAN.json
        check "$1: offline" "$(jq -c .offline "$2")" true
        check "$1: runtime changes" "$(jq -c '[.changes[] | select(.runtime == true) | .key]' "$2")" '[]'
        check "$1: reboot_required" "$(jq -c .reboot_required "$2")" false
        check "$1: the command line change" \
                "$(jq -c '[.changes[] | select(.backend == "cmdline") | .desired]' "$2")" '["transparent_hugepage=never"]'
        for k in vm.swappiness vm.nr_hugepages; do
                check "$1: $k in changes[], not runtime" \
                        "$(jq -c --arg k $k '[.changes[] | select(.backend == "sysctl" and .key == $k) | .runtime]' "$2")" '[false]'
        done
        check "$1: sysfs THP enabled in changes[], not runtime" \
                "$(jq -c '[.changes[] | select(.backend == "sysfs" and (.key | endswith("transparent_hugepage/enabled"))) | .runtime]' "$2")" '[false]'
}
# grub.cfg keeps the image's root and names no disk of the build machine.
check_grub_cfg() { # NAME
        cfg=$I/boot/grub/grub.cfg
        nl=$(grep -cE '^\s*linux\s' "$cfg" || true)
        check "$1: grub.cfg linux lines with root=UUID=$UUID" "$(grep -E '^\s*linux\s' "$cfg" | grep -c "root=UUID=$UUID " || true)" "$nl"
        check "$1: grub.cfg linux lines with transparent_hugepage=never" \
                "$(grep -E '^\s*linux\s' "$cfg" | grep -c 'transparent_hugepage=never' || true)" "$nl"
        bad=$(grep -nE 'root=/dev/|vda|search .*--set=root [^ ]*$' "$cfg" | grep -v -- "$UUID" | head -3 || true)
        hostuuid=$(findmnt -no UUID / 2>/dev/null || true)
        if [ -n "$hostuuid" ] && grep -q "$hostuuid" "$cfg"; then bad="$bad the build machine's root UUID $hostuuid"; fi
        if [ -z "$bad" ]; then pass "$1: grub.cfg names no disk of the build machine"
        else fail "$1: grub.cfg names the build machine: $bad"; fi
        # grub-mkconfig did not run: only the linux lines differ, each by
        # the word, everything else as the image's own update-grub wrote it
        diff "$W/pristine/boot/grub/grub.cfg" "$cfg" >"$W/grub.diff" || true
        [ -s "$W/grub.diff" ] || fail "$1: grub.cfg is as the image had it"
        old=$(sed -n 's/^< //p' "$W/grub.diff" | grep -cvE '^\s*linux\s' || true)
        new=$(sed -n 's/^> //p' "$W/grub.diff" | grep -cvE '^\s*linux\s' || true)
        unword=$(sed -n 's/^> //p' "$W/grub.diff" | sed 's/ transparent_hugepage=never//' | sort | cmp -s - <(sed -n 's/^< //p' "$W/grub.diff" | sort) && echo same || echo different)
        check "$1: grub.cfg edited in place (other lines changed; linux lines without the word)" "$old $new $unword" "0 0 same"
        if chroot "$I" grub-script-check /boot/grub/grub.cfg >"$W/gsc.out" 2>&1; then pass "$1: grub-script-check grub.cfg"
        else fail "$1: grub-script-check: $(cat "$W/gsc.out")"; fi
}

# d. the written files, read by the image's own tools
check_with_image_tools() { # NAME PLAN.json
        local n=$1 plan=$2
        chroot "$I" /lib/systemd/systemd-sysctl --cat-config >"$W/sysctl.cat" 2>&1 || true
        check_grep "$n: systemd-sysctl --cat-config shows hosttune's drop-in" '^# /etc/sysctl.d/[^ ]*hosttune' "$W/sysctl.cat"
        # the keys of the drop-ins the plan writes (the plan's file contents)
        jq -r '.files[] | select(.path | test("^/etc/sysctl\\.d/")) | .after // empty' "$plan" |
                awk -F= '/^[^#;]/ && NF > 1 { k = $1; v = substr($0, index($0, "=") + 1); gsub(/^[ \t]+|[ \t]+$/, "", k)
                        gsub(/^[ \t]+|[ \t]+$/, "", v); print k, v }' >"$W/sysctl.want"
        # the last assignment systemd-sysctl would make of each key
        awk -F= '/^[^#;]/ && NF > 1 { k = $1; v = substr($0, index($0, "=") + 1); gsub(/^[ \t]+|[ \t]+$/, "", k)
                        gsub(/^[ \t]+|[ \t]+$/, "", v); last[k] = v }
                END { for (k in last) print k, last[k] }' "$W/sysctl.cat" | sort >"$W/sysctl.have"
        nk=0 bad=
        while read -r k v; do
                nk=$((nk + 1))
                grep -qxF "$k $v" "$W/sysctl.have" || bad="$bad $k=$v($(awk -v k="$k" '$1 == k { $1 = ""; print }' "$W/sysctl.have"))"
        done < <(awk '{ $1 = $1; print }' "$W/sysctl.want")
        if [ "$nk" -gt 0 ] && [ -z "$bad" ]; then pass "$n: systemd-sysctl would set all $nk keys of the planned drop-in to their values"
        else fail "$n: systemd-sysctl's last word differs for:$bad (of $nk)"; fi
        with_mounts chroot "$I" systemd-tmpfiles --cat-config >"$W/tmpfiles.cat" 2>&1 || true
        check_grep "$n: systemd-tmpfiles --cat-config shows the THP w line" \
                '^w[+]? /sys/kernel/mm/transparent_hugepage/enabled .* never$' "$W/tmpfiles.cat"
        jq -r '.files[] | select(.path | test("^/etc/tmpfiles\\.d/")) | .after // empty' "$plan" | grep '^w' >"$W/tmpfiles.want" || true
        [ -s "$W/tmpfiles.want" ] || fail "$n: the plan writes no tmpfiles.d w line"
        while read -r ty path rest; do
                # the path as text: the cpu backend's lines are globs (policy*)
                re=$(printf '%s' "$path" | sed 's/[][\.*^$+?(){}|]/\\&/g')
                check_grep "$n: systemd-tmpfiles --cat-config has the planned $ty $path" "^w[+]? $re " "$W/tmpfiles.cat"
        done <"$W/tmpfiles.want"
        # unit drop-ins: systemd-analyze verify of every unit one is for
        units=$(plan_files "$plan" | sed -n 's|^/etc/systemd/system/\([^/]*\)\.d/.*|\1|p' | sort -u)
        if [ -z "$units" ]; then
                echo "note $n: the profile writes no unit drop-in (systemd-analyze verify of $UNIT only)"
                units=$UNIT
        fi
        for u in $units; do
                if SYSTEMD_LOG_LEVEL=warning systemd-analyze --root="$I" verify --man=no "$u" >"$W/analyze.out" 2>&1 ||
                        ! grep -q "$u" "$W/analyze.out"; then
                        pass "$n: systemd-analyze --root verify $u"
                else
                        fail "$n: systemd-analyze --root verify $u: $(head -5 "$W/analyze.out")"
                fi
        done
        # limits as pam_limits reads them: a session of the user through su
        jq -r '.changes[] | select(.backend == "limits" and .outcome == "change") | "\(.key) \(.desired)"' "$plan" >"$W/limits.want"
        nl=0
        cap_res=$(( (0x$(awk '/^CapEff:/ { print $2 }' /proc/self/status) >> 24) & 1 ))
        for item in nofile:n memlock:l nproc:u stack:s data:d; do
                for t in soft hard; do
                        want=$(awk -v i="${item%%:*}" -v t=$t '$1 == "oracle" && $2 == t && $3 == i { print $4 }' "$W/limits.want" | tail -1)
                        [ -n "$want" ] || continue
                        case $want in -1 | infinity) want=unlimited ;; esac
                        flag=${item#*:}
                        # without CAP_SYS_RESOURCE (this sandbox) pam_limits
                        # cannot raise a limit above the caller's hard one:
                        # the guest's login checks it after the boot
                        if [ "$cap_res" = 0 ]; then
                                ceil=$(ulimit -H -$flag)
                                if [ "$ceil" != unlimited ] && { [ "$want" = unlimited ] || [ "$want" -gt "$ceil" ]; }; then
                                        echo "note $n: $t ${item%%:*} $want is above this build machine's hard limit $ceil and it lacks CAP_SYS_RESOURCE: checked in the boot"
                                        continue
                                fi
                        fi
                        nl=$((nl + 1))
                        got=$(with_mounts chroot "$I" su -s /bin/bash oracle -c "ulimit -$([ $t = soft ] && echo S || echo H) -${item#*:}" 2>&1 || true)
                        check "$n: su oracle: $t ${item%%:*} (pam_limits)" "$got" "$want"
                done
        done
        [ "$nl" -gt 0 ] || fail "$n: no oracle limit of the plan checked: $(cat "$W/limits.want")"
        got=$(chroot "$I" sh -c '. /etc/default/grub && printf "%s\n" "$GRUB_CMDLINE_LINUX $GRUB_CMDLINE_LINUX_DEFAULT"')
        case " $got " in
        *" transparent_hugepage=never "*) pass "$n: /etc/default/grub sourced by sh: $got" ;;
        *) fail "$n: /etc/default/grub sourced by sh gives '$got'" ;;
        esac
        check_grub_cfg "$n"
}
# the chroot checks need /proc and /dev (su, pam): a private namespace
with_mounts() { # CMD...: run with the build machine's /proc, /sys, /dev bound into the tree
        unshare -m --propagation private /bin/bash -c '
                set -e
                I=$1; shift
                for m in proc sys dev; do mount --bind /$m "$I/$m"; done
                "$@"' with_mounts "$I" "$@"
}

# --- c(i). offline, no bind mounts ---------------------------------------
step "tuning offline without mounts"
rc=0; HT plan "$PROFILE" $SETS >"$W/plan-nofacts.out" 2>&1 || rc=$?
check "plan without --facts: exit" "$rc" 1
check_grep "plan without --facts: says which fact and why" \
        'facts\.hugepages\.default_size_kb is unknown: this is an offline image' "$W/plan-nofacts.out"
check_grep "plan without --facts: gives the fix" 'pass --facts FILE' "$W/plan-nofacts.out"
rc=0; HT apply "$PROFILE" $SETS >"$W/apply-nofacts.out" 2>&1 || rc=$?
check "apply without --facts: exit" "$rc" 1
check_unchanged "plan and apply without --facts"

rc=0; HT --facts "$FACTS" --json plan "$PROFILE" $SETS >"$W/plan.json" 2>"$W/plan.err" || rc=$?
check "plan --facts: exit" "$rc" 2
check_plan_offline "plan --facts" "$W/plan.json"
check_unchanged "plan --facts"
rc=0; HT --facts "$FACTS" --json apply "$PROFILE" $SETS >"$W/apply.json" 2>"$W/apply.err" || rc=$?
check "apply --facts: exit" "$rc" 0
check "apply --facts: changed, offline, reboot_required" "$(jq -c '[.changed, .offline, .reboot_required]' "$W/apply.json")" '[true,true,false]'
check "apply --facts: runtime changes" "$(jq -c '[.changes[]? | select(.runtime == true) | .key]' "$W/apply.json")" '[]'
check_only_planned "apply --facts" "$W/plan.json"
cp "$W/now.manifest" "$W/applied.manifest"
check_with_image_tools "apply --facts" "$W/plan.json"
rc=0; HT --json rollback >"$W/rollback.json" 2>&1 || rc=$?
check "rollback: exit" "$rc" 0
check_unchanged "rollback"

# --- c(ii). the build machine's /proc, /sys, /dev bound into the tree ---
# The build machine's state: every readable and writable value of
# /proc/sys/{vm,kernel,fs,net/core} and every key the plan changes
# (net.ipv4.* too), THP and HugePages; values that change by themselves
# (read twice, a second apart) are left out.
jq -r '.changes[] | select(.backend == "sysctl") | .key' "$W/plan.json" | tr . / | sed 's|^|/proc/sys/|' >"$W/host.keys"
host_state() {
        { find /proc/sys/vm /proc/sys/kernel /proc/sys/fs /proc/sys/net/core -type f -perm -u+r -perm -u+w 2>/dev/null
          cat "$W/host.keys"; } | sort -u | tr '\n' '\0' | xargs -0 grep -H -s '' 2>/dev/null || true
        grep -H '' /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag \
                /sys/kernel/mm/transparent_hugepage/shmem_enabled /sys/kernel/mm/hugepages/*/nr_hugepages 2>/dev/null || true
}
# The suite's real-host tests change these values (and restore them) while
# they hold the real-host lock (tests/integration/lib.sh, real_host_lock);
# CI runs the boots beside the suites, so the comparison holds it too,
# from the first reading to the last.
HT_REAL_HOST_LOCK=${HT_REAL_HOST_LOCK:-/tmp/hosttune-real-host-tests.lock}
( umask 0; : >>"$HT_REAL_HOST_LOCK" ) 2>/dev/null || true
exec 8<"$HT_REAL_HOST_LOCK"
flock 8
host_state >"$W/host.0"
sleep 1
host_state >"$W/host.1"
{ diff "$W/host.0" "$W/host.1" || true; } | sed -n 's/^[<>] \([^:]*\):.*/\1/p' | sort -u >"$W/host.volatile"
grep -vF -f <(sed 's/$/:/' "$W/host.volatile") "$W/host.1" >"$W/host.before" || true
while read -r f; do
        [ -r "$f" ] || continue
        grep -q "^$f:" "$W/host.before" || fail "the profile's $f is not among the stable host values compared"
done <"$W/host.keys"
step "tuning offline with the build machine's /proc, /sys, /dev bound ($(wc -l <"$W/host.before") host values, $(wc -l <"$W/host.volatile") volatile left out)"
# the plan first: apply only if it promises to stay offline (else it
# would tune the build machine)
in_mounts_plan() {
        rc=0; HT --facts "$FACTS" --json plan "$PROFILE" $SETS >"$W/plan-mnt.json" 2>"$W/plan-mnt.err" || rc=$?
        echo $rc >"$W/plan-mnt.rc"
        HT plan "$PROFILE" $SETS >"$W/plan-mnt-nofacts.out" 2>&1 || echo $? >"$W/plan-mnt-nofacts.rc"
        if [ "$(jq -c '[.offline, ([.changes[] | select(.runtime)] | length)]' "$W/plan-mnt.json" 2>/dev/null)" = '[true,0]' ]; then
                rc=0; HT --facts "$FACTS" --json apply "$PROFILE" $SETS >"$W/apply-mnt.json" 2>"$W/apply-mnt.err" || rc=$?
                echo $rc >"$W/apply-mnt.rc"
        else
                echo "the plan is not offline: apply not run (it would tune the build machine)" >"$W/apply-mnt.err"
                echo skipped >"$W/apply-mnt.rc"
        fi
}
export -f HT in_mounts_plan
export HOSTTUNE TOP_SRCDIR I W FACTS PROFILE SETS
with_mounts in_mounts_plan
if grep -q " $I/" /proc/mounts; then fail "mounts left in the tree: $(grep " $I/" /proc/mounts)"; fi
check "with mounts: plan --facts exit" "$(cat "$W/plan-mnt.rc")" 2
check_plan_offline "with mounts: plan --facts" "$W/plan-mnt.json"
check_grep "with mounts: a warning says the root is an offline image" 'offline' "$W/plan-mnt.err"
check "with mounts: plan without --facts fails for want of facts" "$(cat "$W/plan-mnt-nofacts.rc" 2>/dev/null || echo 0)" 1
check "with mounts: the same changes as without" "$(jq -c '[.changes[] | [.backend, .key, .desired]]' "$W/plan-mnt.json")" \
        "$(jq -c '[.changes[] | [.backend, .key, .desired]]' "$W/plan.json")"
check "with mounts: apply --facts exit" "$(cat "$W/apply-mnt.rc")" 0
[ -s "$W/apply-mnt.json" ] && check "with mounts: apply changed, offline, reboot_required" \
        "$(jq -c '[.changed, .offline, .reboot_required]' "$W/apply-mnt.json")" '[true,true,false]'
host_state | grep -vF -f <(sed 's/$/:/' "$W/host.volatile") >"$W/host.after" || true
if cmp -s "$W/host.before" "$W/host.after"; then
        pass "with mounts: the build machine's $(wc -l <"$W/host.before") /proc/sys, THP and HugePages values are as before"
else
        fail "with mounts: the build machine changed: $(differ "$W/host.before" "$W/host.after" | head -10)"
fi
check_only_planned "with mounts: apply" "$W/plan-mnt.json"
if cmp -s "$W/applied.manifest" "$W/now.manifest"; then pass "with mounts: the same files as the apply without mounts, byte for byte"
else fail "with mounts: the files differ from the apply without mounts: $(differ "$W/applied.manifest" "$W/now.manifest" | head -10)"; fi
check_grub_cfg "with mounts"
# the rollback with the mounts too: it must not touch the machine either
in_mounts_rollback() {
        rc=0; HT --json rollback >"$W/rollback-mnt.json" 2>&1 || rc=$?
        echo $rc >"$W/rollback-mnt.rc"
}
export -f in_mounts_rollback
with_mounts in_mounts_rollback
if grep -q " $I/" /proc/mounts; then fail "mounts left in the tree: $(grep " $I/" /proc/mounts)"; fi
check "with mounts: rollback exit" "$(cat "$W/rollback-mnt.rc")" 0
host_state | grep -vF -f <(sed 's/$/:/' "$W/host.volatile") >"$W/host.after" || true
if cmp -s "$W/host.before" "$W/host.after"; then
        pass "with mounts: after the rollback too, the build machine's values are as before"
else
        fail "with mounts: the rollback changed the build machine: $(differ "$W/host.before" "$W/host.after" | head -10)"
fi
check_unchanged "with mounts: rollback"
exec 8<&-

# --- f. applied once more, written into a disk and booted once ----------
step "applying for the boot"
rc=0; HT --facts "$FACTS" --json apply "$PROFILE" $SETS >"$W/apply-boot.json" 2>"$W/apply-boot.err" || rc=$?
check "apply for the boot: exit" "$rc" 0
rc=0; HT --facts "$FACTS" --json apply "$PROFILE" $SETS >"$W/reapply.json" 2>"$W/reapply.err" || rc=$?
check "re-apply: exit" "$rc" 0
check "re-apply: changed, reboot_required" "$(jq -c '[.changed, .reboot_required]' "$W/reapply.json")" '[false,false]'
check_only_planned "apply for the boot" "$W/plan.json"

echo "checks before the boot: $n_ok ok, $n_fail failed"
# A failed check above does not stop the boot (it shows how far the image
# gets); a failed apply does.
[ -s "$W/apply-boot.json" ] && [ "$(jq -c .changed "$W/apply-boot.json")" = true ] || die "no tuned image to boot"
cp --sparse=always "$W/disk.raw" "$W/tuned.raw"
mke2fs -q -F -t ext4 -U "$UUID" -L "$LABEL" -E offset="$OFF" -d "$I" "$W/tuned.raw" "${PART_KB}k"
mkdir -p "$W/input"
cp "$W/plan.json" "$W/apply-boot.json" "$W/input/"
step "booting the tuned image once"
rc=0
HT_BOOT_DISK=$W/tuned.raw HT_BOOT_INPUT=$W/input "$BOOT_DIR/run-scenario.sh" image || rc=$?
check "the tuned image's first boot (scenarios/image)" "$rc" 0
step "done: $n_ok ok, $n_fail failed"
[ "$n_fail" = 0 ] && result=PASS
log "TIMING image $(( $(now) - T0 ))s ($result, load $(cut -d' ' -f1-3 /proc/loadavg))"
[ "$result" = PASS ] || exit 1
