#!/bin/sh
# The facts of every fixture host under tests/hosts, checked field by field
# against the files the fixture holds (read here independently with awk,
# sed and shell), plus a broken copy of a fixture: hostile sources give
# warnings and nulls, never a failure. Needs jq. TAP output.
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
DUMP=$top_builddir/tests/facts-dump
HOSTS=$top_srcdir/tests/hosts

if ! command -v jq >/dev/null 2>&1; then
        echo "1..0 # SKIP jq is not installed"
        exit 0
fi
[ -x "$DUMP" ] || { echo "Bail out! $DUMP not built"; exit 99; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ht-facts-fixtures.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT INT TERM

n=0
failed=0
pass() { n=$((n + 1)); echo "ok $n - $1"; }
fail() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
ok() { flush; pass "$1"; }
not_ok() { flush; fail "$1"; }

# check HOST JQ-EXPR EXPECTED (compact JSON)
check() { queue J "$@"; }
# as check, expected given as a raw string
check_str() { queue S "$@"; }
# The checks wait in $tmp/queue until flush runs them: one jq a host for
# all its expressions (a jq a check was most of this script's time). ok
# and not_ok flush first, so the TAP lines keep their order.
us=$(printf '\037')
nl='
'
: >"$tmp/queue"
queue() { # J|S HOST EXPR EXPECTED
        case $3$4 in
        *"$nl"* | *"$us"*) flush; check_now "$@"; return ;;
        esac
        printf '%s\037%s\037%s\037%s\n' "$1" "$2" "$3" "$4" >>"$tmp/queue"
}
check_now() { # J|S HOST EXPR EXPECTED: one check, one jq
        fq_want=$4
        [ "$1" = J ] || fq_want=$(printf '%s' "$4" | jq -Rsc .)
        fq_got=$(jq -c "$3" "$tmp/$2.json" 2>&1)
        if [ "$fq_got" = "$fq_want" ]; then pass "$2: $3 = $fq_want"; else fail "$2: $3: expected $fq_want, got $fq_got"; fi
}
flush() {
        [ -s "$tmp/queue" ] || return 0
        mv "$tmp/queue" "$tmp/q" && : >"$tmp/queue"
        # per host: one line a check in $tmp/r-HOST, "=" or "!", the
        # expected JSON and what the expression gave (as JSON), tab apart
        for fq_host in $(cut -d "$us" -f2 "$tmp/q" | sort -u); do
                fq_prog='def r(f): try ([f] | map(tojson) | join("\n")) catch "jq: error: \(.)"; $ARGS.positional as $e'
                fq_sep=' | ' fq_i=0
                set --
                while IFS=$us read -r fq_type fq_h fq_expr fq_want; do
                        [ "$fq_h" = "$fq_host" ] || continue
                        if [ "$fq_type" = S ]; then fq_w="(\$e[$fq_i] | tojson)"; else fq_w="\$e[$fq_i]"; fi
                        fq_prog="$fq_prog$fq_sep($fq_w as \$w | r($fq_expr) | (if . == \$w then \"=\" else \"!\" end) + \"\\t\" + \$w + \"\\t\" + tojson)"
                        fq_sep=', ' fq_i=$((fq_i + 1))
                        set -- "$@" "$fq_want"
                done <"$tmp/q"
                # a program jq refuses: each check on its own below
                jq -r "$fq_prog" "$tmp/$fq_host.json" --args "$@" >"$tmp/r-$fq_host" 2>/dev/null || : >"$tmp/r-$fq_host"
        done
        awk -F "$us" -v dir="$tmp" -v us="$us" '{
                f = dir "/r-" $2
                if ((getline line < f) > 0) { split(line, p, "\t"); print p[1] us $0 us p[2] us p[3] }
                else print "?" us $0
        }' "$tmp/q" >"$tmp/results"
        while IFS=$us read -r fq_st fq_type fq_h fq_expr fq_want fq_wantj fq_got; do
                case $fq_st in
                =) pass "$fq_h: $fq_expr = $fq_wantj" ;;
                !) fail "$fq_h: $fq_expr: expected $fq_wantj, got $fq_got" ;;
                *) check_now "$fq_type" "$fq_h" "$fq_expr" "$fq_want" ;;
                esac
        done <"$tmp/results"
}
# the value of KEY in a meminfo file, without the unit
meminfo() { awk -v k="$2:" '$1 == k { print $2 }' "$1/proc/meminfo"; }
# the cgroup version of the memory controller in a mountinfo or
# /proc/mounts file: 1, 2 or null
cgroup_version() {
        awk '
        / - / { split($0, p, " - "); split(p[2], f, " "); type = f[1]; opts = f[3] }
        !/ - / { type = $3; opts = $4 }
        type == "cgroup" { v1 = 1; if (("," opts ",") ~ /,memory,/) mem = 1 }
        type == "cgroup2" { v2 = 1 }
        END { print mem ? 1 : v2 ? 2 : v1 ? 1 : "null" }' "$1"
}
# a value from an os-release file, as the shell reads it
osrel() { (. "$1/etc/os-release" && eval "printf '%s' \"\${$2}\""); }

for dir in "$HOSTS"/*/; do
        h=$(basename "$dir")
        H=$HOSTS/$h
        if "$DUMP" --root "$H" >"$tmp/$h.json" 2>"$tmp/$h.err" && jq -e . "$tmp/$h.json" >/dev/null; then
                ok "$h: facts-dump gives valid JSON"
        else
                not_ok "$h: facts-dump failed: $(cat "$tmp/$h.err")"
                continue
        fi
        if [ -f "$H/README" ] && [ "$(wc -l <"$H/README")" -eq 1 ]; then
                ok "$h: README is one line"
        else
                not_ok "$h: README missing or not one line"
        fi
        # sources every fixture has, compared with the files themselves
        check_str "$h" .kernel.release "$(cat "$H/proc/sys/kernel/osrelease")"
        check_str "$h" .kernel.cmdline "$(cat "$H/proc/cmdline")"
        check_str "$h" .boot_id "$(cat "$H/proc/sys/kernel/random/boot_id")"
        check "$h" .memory.total_kb "$(meminfo "$H" MemTotal)"
        check "$h" .memory.page_tables_kb "$(meminfo "$H" PageTables)"
        check "$h" .cpu.count "$(grep -c '^processor' "$H/proc/cpuinfo")"
        # cpuinfo_regex's text: each distinct line once, in order
        check "$h" .cpu.cpuinfo "$(awk '!seen[$0]++' "$H/proc/cpuinfo" | jq -Rsc 'rtrimstr("\n")')"
        # uname_regex's text: the kernel's utsname files, machine from
        # kernel/arch (6.1 and later), else the release's name, else the
        # kernel's config
        K=$H/proc/sys/kernel
        rel=$(cat "$K/osrelease")
        if [ -f "$K/arch" ]; then
                mach=$(cat "$K/arch")
        else
                case $rel in
                *.x86_64|*-amd64) mach=x86_64 ;;
                *.aarch64|*-arm64) mach=aarch64 ;;
                *.ppc64le) mach=ppc64le ;;
                *.s390x) mach=s390x ;;
                *) mach=$(sed -n 's/^CONFIG_X86_64=y$/x86_64/p' "$H/boot/config-$rel") ;;
                esac
        fi
        check_str "$h" .kernel.machine "$mach"
        check_str "$h" .kernel.uname "$(cat "$K/ostype") $(cat "$K/hostname") $rel $(cat "$K/version") $mach"
        for l in online present; do
                if [ -f "$H/sys/devices/system/cpu/$l" ]; then
                        check_str "$h" .cpu.$l "$(cat "$H/sys/devices/system/cpu/$l")"
                else
                        check "$h" .cpu.$l null
                fi
        done
        if grep -q '^HugePages_Total:' "$H/proc/meminfo"; then
                check "$h" .hugepages.supported true
                check "$h" .hugepages.total "$(meminfo "$H" HugePages_Total)"
                check "$h" .hugepages.free "$(meminfo "$H" HugePages_Free)"
                check "$h" .hugepages.rsvd "$(meminfo "$H" HugePages_Rsvd)"
                check "$h" .hugepages.default_size_kb "$(meminfo "$H" Hugepagesize)"
                sizes=$(ls "$H/sys/kernel/mm/hugepages" | sed -n 's/^hugepages-\([0-9]*\)kB$/\1/p' | sort -n | paste -sd, -)
                check "$h" .hugepages.sizes_kb "[$sizes]"
        else
                check "$h" .hugepages.supported false
                check "$h" .hugepages.total null
                check "$h" .hugepages.sizes_kb "[]"
        fi
        # x86's pdpe1gb flag, or (arm64, ppc64le, s390x: no such flag) a
        # hugetlb size of 1 GB or more the kernel registered
        if grep -q pdpe1gb "$H/proc/cpuinfo" ||
           ls "$H/sys/kernel/mm/hugepages" 2>/dev/null | awk -F'[-k]' '$2 >= 1048576 {f = 1} END {exit !f}'; then
                gig=true
        else
                gig=false
        fi
        check "$h" .hugepages.gigantic_possible $gig
        if [ -f "$H/etc/os-release" ]; then
                check_str "$h" .os.id "$(osrel "$H" ID)"
                check_str "$h" .os.version_id "$(osrel "$H" VERSION_ID)"
        fi
        segs=$(awk 'NR > 1 { n++ } END { print n + 0 }' "$H/proc/sysvipc/shm")
        total=$(awk 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "size") c = i; next } { t += $c } END { printf "%.0f", t }' "$H/proc/sysvipc/shm")
        check "$h" .shm.segments "$segs"
        check "$h" .shm.total_bytes "$total"
        if [ -d "$H/run/systemd/system" ]; then sd=true; else sd=false; fi
        check "$h" .systemd.running $sd
        if [ -f "$H/sys/kernel/mm/transparent_hugepage/enabled" ]; then
                check "$h" .thp.supported true
                check_str "$h" .thp.enabled "$(sed 's/.*\[\(.*\)\].*/\1/' "$H/sys/kernel/mm/transparent_hugepage/enabled")"
                check_str "$h" .thp.defrag "$(sed 's/.*\[\(.*\)\].*/\1/' "$H/sys/kernel/mm/transparent_hugepage/defrag")"
        fi
        if [ -f "$H/sys/kernel/mm/transparent_hugepage/hugetext_enabled" ]; then
                check "$h" .hugetext.supported true
                check "$h" .hugetext.enabled "$(cat "$H/sys/kernel/mm/transparent_hugepage/hugetext_enabled")"
                check "$h" .hugetext.pad_threshold "$(cat "$H/sys/kernel/mm/transparent_hugepage/hugetext_pad_threshold")"
        else
                check "$h" .hugetext.supported false
        fi
        nodes=$(ls "$H/sys/devices/system/node" 2>/dev/null | grep -c '^node[0-9][0-9]*$')
        [ "$nodes" -gt 0 ] || nodes=null
        check "$h" .numa.nodes "$nodes"
        # (zipl reads the entries itself: facts list none there)
        if [ -d "$H/boot/loader/entries" ] && [ ! -f "$H/etc/zipl.conf" ]; then
                check "$h" '.bootloader.entries | length' "$(ls "$H/boot/loader/entries" | grep -c '\.conf$')"
        fi
        # cgroup.version: 1 where a cgroup (v1) mount carries the memory
        # controller, else 2 where cgroup2 is mounted, read from the
        # fixture's mount table here with awk
        mt=$H/proc/self/mountinfo
        [ -f "$mt" ] || mt=$H/proc/mounts
        check "$h" .cgroup.version "$(cgroup_version "$mt")"
        # oracle-running's TEST database is on AMM: the one warning it has
        # (tests/integration/oracle-config.sh checks the rest)
        if [ "$h" = oracle-running ]; then
                check "$h" '.warnings | map(sub(":.*"; "")) | join(",")' '"oracle TEST"'
        else
                check "$h" .warnings "[]"
        fi
done

# ---- what each fixture is about
check debian12-kvm .hypervisor '"kvm"'
check debian12-kvm .kernel.xen false
check debian12-kvm .bootloader.kind '"grub2"'
check debian12-kvm .bootloader.grub_cfg '"/boot/grub/grub.cfg"'
check debian12-kvm .bootloader.efi false
check debian12-kvm .bootloader.grub_default '"0"'
check debian12-kvm .memory.total_kb 16377536
check debian12-kvm '.cpu.flags | index("pdpe1gb")' null
check debian12-kvm '.mounts.hugetlbfs' '[{"target":"/dev/hugepages","pagesize_kb":2048}]'
check debian12-kvm '[.mounts.sys_readonly, .mounts.proc_sys_readonly, .mounts.boot_separate]' '[false,false,false]'
check debian12-kvm .audit.available true
check debian12-kvm .container null

check rhel5-xen .kernel.xen true
check rhel5-xen .hypervisor '"xen"'
check rhel5-xen .xen '{"type":"dom0","guest_type":null,"dom0":true}'
check rhel5-xen '[.os.id, .os.version_id]' '["rhel","5.11"]'
check rhel5-xen .hugepages.default_size_kb null
check rhel5-xen .thp.supported false
check rhel5-xen .bootloader.kind '"grub-legacy"'
check rhel5-xen .bootloader.legacy_conf '"/boot/grub/grub.conf"'
check rhel5-xen .bootloader.default 0
check rhel5-xen .bootloader.default_is_xen true
check rhel5-xen '[.bootloader.entries[].xen]' '[true,false]'
check rhel5-xen '[.bootloader.entries[].version]' '["2.6.18-398.el5xen","2.6.18-398.el5"]'
check rhel5-xen .bootloader.non_xen_entry '"Red Hat Enterprise Linux Server-base (2.6.18-398.el5)"'
check rhel5-xen .mounts.boot_separate true
check rhel5-xen .systemd.running false
check rhel5-xen .numa.nodes null

uek=5.15.0-206.153.7.1.el8uek.x86_64
check ol8-bls .bootloader.kind '"bls"'
check ol8-bls .hypervisor '"none"'
check ol8-bls .numa.nodes 2
check ol8-bls .memory.total_kb 65248412
check ol8-bls .hugepages.sizes_kb '[2048,1048576]'
check ol8-bls '.cpu.flags | index("pdpe1gb") != null' true
check ol8-bls .thp.enabled '"always"'
check_str ol8-bls .bootloader.kernelopts "$(sed -n 's/^kernelopts=//p' "$HOSTS/ol8-bls/boot/grub2/grubenv")"
check ol8-bls '[.bootloader.entries[].version]' "[\"$uek\",\"4.18.0-513.5.1.el8_9.x86_64\",\"0-rescue-d2b4b7a5c3e14f6f9b0e8a1c7d3f2e61\"]"
check ol8-bls .bootloader.default 0
check ol8-bls '.bootloader.entries[0].options' '"root=/dev/mapper/ol-root ro crashkernel=auto resume=/dev/mapper/ol-swap rd.lvm.lv=ol/root rd.lvm.lv=ol/swap rhgb quiet"'
check ol8-bls '.mounts.hugetlbfs | map(.pagesize_kb)' '[2048,1048576]'
check ol8-bls .mounts.boot_separate true
if [ "$(wc -c <"$HOSTS/ol8-bls/boot/grub2/grubenv")" -eq 1024 ]; then ok "ol8-bls: grubenv is 1024 bytes"; else not_ok "ol8-bls: grubenv is not 1024 bytes"; fi

check alinux3-hugetext '[.os.id, .os.version_id]' '["alinux","3"]'
check alinux3-hugetext .hypervisor '"alibaba"'
check alinux3-hugetext .hugetext '{"supported":true,"enabled":0,"pad_threshold":0}'
check alinux3-hugetext .bootloader.kind '"bls"'
check alinux3-hugetext .kernel.release '"5.10.134-16.al8.x86_64"'

# arm64 hosts: no x86 flags, DMI names the guest; the hugetlb sizes
# arm64's kernel registers for its base page (arch/arm64/mm/hugetlbpage.c,
# hugetlbpage_init: CONT_PTE, PMD, CONT_PMD and, with 4 KB pages, PUD)
g=ec2-graviton-ubuntu
check $g .kernel.machine '"aarch64"'
check $g .hypervisor '"amazon"'
check $g .cpu.count "$(grep -c '^processor' "$HOSTS/$g/proc/cpuinfo")"
check $g .cpu.flags '["aes"]'
check $g .hugepages.default_size_kb 2048
check $g .hugepages.sizes_kb '[64,2048,32768,1048576]'
check $g .bootloader.kind '"grub2"'
check $g .bootloader.grub_cfg '"/boot/grub/grub.cfg"'
check_str $g .bootloader.grub_cmdline_linux_default "$(sed -n 's/^GRUB_CMDLINE_LINUX_DEFAULT="\(.*\)"$/\1/p' "$HOSTS/$g/etc/default/grub.d/50-cloudimg-settings.cfg")"
o=oci-a1-ol8-64k
check $o .kernel.machine '"aarch64"'
check $o .hypervisor '"kvm"'
check $o .cpu.count "$(grep -c '^processor' "$HOSTS/$o/proc/cpuinfo")"
check $o .hugepages.default_size_kb "$(awk '/^Hugepagesize:/ {print $2}' "$HOSTS/$o/proc/meminfo")"
check $o .hugepages.sizes_kb '[2048,524288,16777216]'
check $o '.mounts.hugetlbfs | map(.pagesize_kb)' '[524288]'
check $o .bootloader.kind '"bls"'
check $o .bootloader.grub_cfg '"/boot/efi/EFI/redhat/grub.cfg"'
check_str $o .bootloader.kernelopts "$(sed -n 's/^kernelopts=//p' "$HOSTS/$o/boot/efi/EFI/redhat/grubenv")"
if [ "$(wc -c <"$HOSTS/$o/boot/efi/EFI/redhat/grubenv")" -eq 1024 ]; then ok "$o: grubenv is 1024 bytes"; else not_ok "$o: grubenv is not 1024 bytes"; fi

# ppc64le on PowerVM, hash MMU with 64 KB pages: 16 MB and 16 GB pages,
# no flags line (PowerPC has none: no warning), no DMI
p=rhel9-power9-lpar
check $p .kernel.machine '"ppc64le"'
check $p .hypervisor null
check $p .cpu.flags null
check $p .cpu.count "$(grep -c '^processor' "$HOSTS/$p/proc/cpuinfo")"
check $p .hugepages.default_size_kb 16384
check $p .hugepages.sizes_kb '[16384,16777216]'
check $p .bootloader.kind '"bls"'
check $p .bootloader.efi false
check $p .bootloader.grub_cfg '"/boot/grub2/grub.cfg"'
check $p .warnings '[]'

# s390x under z/VM: "processor N:" lines, a features line (none of the
# flags the rules ask about), 1 MB and 2 GB pages, zipl
z=rhel9-s390x-zvm
check $z .kernel.machine '"s390x"'
check $z .cpu.count 4
check $z .cpu.flags '[]'
check $z .hypervisor null
check $z .hugepages.default_size_kb 1024
check $z .hugepages.sizes_kb '[1024,2097152]'
check $z .bootloader.kind '"zipl"'
check $z .bootloader.default null
check $z .warnings '[]'

check container .container '"docker"'
check container .mounts.sys_readonly true
check container .mounts.proc_sys_readonly true
check container .bootloader.kind '"none"'
check container .systemd.running false
check container .audit.available false
check container .hypervisor '"amazon"'

check oracle-running .hypervisor '"vmware"'
check oracle-running .shm.segments 4
check oracle-running .shm.total_bytes 19328131072
check oracle-running '[.shm.list[].uid] | unique' '[54321]'
check oracle-running '.shm.list[3].key' '"0x8f2a6c14"'
check oracle-running '.shm.total_bytes > 17 * 1073741824 and .shm.total_bytes < 19 * 1073741824' true
check oracle-running .hugepages.total 0
check oracle-running .memory.total_kb 32594320
check oracle-running .thp.cmdline '"never"'
check oracle-running .thp.enabled '"never"'
check oracle-running .bootloader.efi true
check oracle-running .bootloader.grub_cfg '"/boot/efi/EFI/redhat/grub.cfg"'
check oracle-running .bootloader.saved_entry '"7a1e3c5b9d2f4a6c8e0b1d3f5a7c9e2b-4.18.0-513.5.1.el8_9.x86_64"'
check oracle-running .bootloader.default 0
if grep -q '^oracle:x:54321:' "$HOSTS/oracle-running/etc/passwd" &&
   grep -q '^oinstall:x:54321:' "$HOSTS/oracle-running/etc/group" &&
   grep -q '^dba:x:54322:' "$HOSTS/oracle-running/etc/group"; then
        ok "oracle-running: oracle 54321, oinstall 54321, dba 54322"
else
        not_ok "oracle-running: oracle user or groups missing"
fi

# ---- cgroup versions the fixtures do not show. The EL 8 fixtures are
# cgroup v1 (RHEL 8's default), debian12-kvm and container cgroup2 only,
# rhel5-xen none (RHEL 5's 2.6.18 predates cgroups).
check ol8-bls .cgroup.version 1
check debian12-kvm .cgroup.version 2
check rhel5-xen .cgroup.version null
# systemd's hybrid layout (Ubuntu 20.04, Debian 10): cgroup2 beside the
# v1 controllers, memory still on v1
Y=$tmp/hybrid
cp -R "$HOSTS/debian12-kvm" "$Y"
grep -v ' /sys/fs/cgroup ' "$HOSTS/debian12-kvm/proc/self/mountinfo" >"$Y/proc/self/mountinfo"
cat >>"$Y/proc/self/mountinfo" <<'MI'
32 22 0:27 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755,inode64
42 32 0:28 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:10 - cgroup2 cgroup2 rw,nsdelegate
43 32 0:29 / /sys/fs/cgroup/systemd rw,nosuid,nodev,noexec,relatime shared:11 - cgroup cgroup rw,xattr,name=systemd
44 32 0:33 / /sys/fs/cgroup/memory rw,nosuid,nodev,noexec,relatime shared:15 - cgroup cgroup rw,memory
45 32 0:34 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime shared:16 - cgroup cgroup rw,cpu,cpuacct
MI
"$DUMP" --root "$Y" >"$tmp/hybrid.json" 2>/dev/null && ok "hybrid: facts-dump exits 0" || not_ok "hybrid: facts-dump failed"
check hybrid .cgroup.version 1
# RHEL 6: libcgroup's cgconfig service mounts the v1 controllers under
# /cgroup (its default /etc/cgconfig.conf)
S=$tmp/el6
cp -R "$HOSTS/rhel5-xen" "$S"
cat >>"$S/proc/mounts" <<'MI'
cgroup /cgroup/cpuset cgroup rw,relatime,cpuset 0 0
cgroup /cgroup/cpu cgroup rw,relatime,cpu 0 0
cgroup /cgroup/memory cgroup rw,relatime,memory 0 0
MI
"$DUMP" --root "$S" >"$tmp/el6.json" 2>/dev/null && ok "el6: facts-dump exits 0" || not_ok "el6: facts-dump failed"
check el6 .cgroup.version 1

# ---- a broken copy: hostile sources give warnings, nulls, exit 0
B=$tmp/broken
cp -R "$HOSTS/rhel5-xen" "$B"
rm -f "$B/etc/redhat-release"
ln -s ../../../../../../../../../../etc/os-release "$B/etc/os-release"
head -c 100 "$HOSTS/debian12-kvm/proc/meminfo" >"$B/proc/meminfo"     # cut mid-line
sed -i 's/^default=0/default=9/' "$B/boot/grub/grub.conf"
printf 'two words\n' >"$B/proc/sys/kernel/hostname"     # no hostname has a space
rm "$B/boot/config-2.6.18-398.el5xen"                   # nothing names the machine
mkdir -p "$B/sys/devices/system/cpu"
printf '0-3,x\n' >"$B/sys/devices/system/cpu/online"
if "$DUMP" --root "$B" >"$tmp/broken.json" 2>"$tmp/broken.err"; then
        ok "broken: facts-dump exits 0"
else
        not_ok "broken: facts-dump failed: $(cat "$tmp/broken.err")"
fi
warns() {
        if jq -e --arg s "$1" '.warnings | any(contains($s))' "$tmp/broken.json" >/dev/null; then
                ok "broken: warning \"$1\""
        else
                not_ok "broken: no warning \"$1\" in $(jq -c .warnings "$tmp/broken.json")"
        fi
}
warns "etc/os-release: a symlink leads out of the root"
warns "proc/meminfo:4: truncated line"
warns "default=9 is out of range (2 entries)"
check broken .os.id null
check broken .bootloader.default null
check broken .bootloader.default_is_xen null
check broken .hugepages.supported null
check broken .memory.total_kb 16377536
warns "proc/sys/kernel/hostname: \"two words\" is not what the kernel prints there, ignored"
warns "sys/devices/system/cpu/online: \"0-3,x\" is not a CPU list, ignored"
check broken .kernel.machine null
check broken .kernel.uname null
check broken .cpu.online null

# Debian on EFI: the ESP's grub.cfg only hands over to /boot/grub/grub.cfg
E=$tmp/efi
cp -R "$HOSTS/debian12-kvm" "$E"
mkdir -p "$E/sys/firmware/efi" "$E/boot/efi/EFI/debian"
printf "search.fs_uuid 2f9c1a3e-5b7d-4c61-9e0a-8d3f6b2c4e17 root hd0,gpt2 \nset prefix=(\$root)'/boot/grub'\nconfigfile \$prefix/grub.cfg\n" >"$E/boot/efi/EFI/debian/grub.cfg"
"$DUMP" --root "$E" >"$tmp/efi.json" 2>/dev/null && ok "efi: facts-dump exits 0" || not_ok "efi: facts-dump failed"
check efi .bootloader.efi true
check efi .bootloader.grub_cfg '"/boot/grub/grub.cfg"'
check efi .bootloader.kind '"grub2"'

# binary junk in os-release
J=$tmp/junk
mkdir -p "$J/etc"
printf 'ID=\001\002\377\nNAME="\377\376"\nVERSION_ID="8.\0019"\n' >"$J/etc/os-release"
"$DUMP" --root "$J" >"$tmp/junk.json" 2>/dev/null && ok "junk: facts-dump exits 0" || not_ok "junk: facts-dump failed"
check junk .os '{"id":null,"version_id":null,"name":null,"pretty_name":null}'
if jq -e '.warnings | any(contains("os-release:1: not a KEY=value line"))' "$tmp/junk.json" >/dev/null; then
        ok "junk: warning for line 1"
else
        not_ok "junk: warnings $(jq -c .warnings "$tmp/junk.json")"
fi
if jq -r '.warnings[]' "$tmp/junk.json" | LC_ALL=C grep -q '[[:cntrl:]]'; then
        not_ok "junk: warnings carry control characters"
else
        ok "junk: warnings are clean text"
fi

flush
echo "1..$n"
[ "$failed" -eq 0 ]
