#!/bin/sh
# sysctl against what real hosts do (audit-sysctl), each case modelled on
# the real software: systemd 252's systemd-sysctl (Debian 12) and procps
# 4.0.2's `sysctl --system`.
# - an offline image: a minimum is merged with the value the image's first
#   boot gives without hosttune (its other sysctl.d files, else the
#   kernel's compiled-in default: kernel.sem 32000 1024000000 500 32000,
#   kernel.shmmax/shmall ULONG_MAX - 2^24, ip_local_port_range 32768
#   60999), so that no field of it is lowered; the image's files as
#   systemd-sysctl applies them (private mount namespace, /proc/sys a
#   tmpfs seeded with those defaults) lower none;
# - sysctl.d syntax as systemd-sysctl reads it (CRLF, CR alone and NUL end
#   lines as its read_line() does, "-key", globs, '/', comments, no blanks,
#   long values): the image's boot values equal what systemd-sysctl writes;
# - a read-only key (kernel.osrelease, mode 0444 in /proc/sys: root's write
#   fails with EACCES, systemd-sysctl skips it with a debug message) is a
#   plan error naming the profile line, or a skip where optional;
# - a key of an interface not there now (net.ipv4.conf.eth1.*): persisted,
#   no runtime write, a note that systemd-sysctl sets it when the interface
#   appears (udev's 99-systemd.rules runs it with --prefix=/net/ipv4/conf/
#   $name); verify says so until then, and checks it after;
# - procps' order (sysctl.conf last) on a host without systemd, or booted
#   by sysvinit with procps' init script and the systemd package beside
#   it; hosttune's own file masked by a /dev/null link: a plan error.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"
HOSTTUNE_INSECURE_PROFILES=1; export HOSTTUNE_INSECURE_PROFILES
PROFILES=$tmp/profiles
mkdir -p "$PROFILES"
cat >"$PROFILES/mins.profile" <<'EOF'
summary = "audit-sysctl: Oracle's preinstall minimums";
sysctl = {
        kernel = {
                sem = { value = "250 32000 100 128"; bound = "at-least"; };
                shmmax = { value = 4398046511104; bound = "at-least"; };
                shmall = { value = 1073741824; bound = "at-least"; };
        };
        net = { ipv4 = { ip_local_port_range = { value = "9000 65500"; bound = "at-least"; }; }; };
};
EOF
dropin_line() { sed -n "s/^$2 = //p" "$1/etc/sysctl.d/90-hosttune.conf"; }

# --- an offline image: nothing below what its first boot gives ------------
I=$(offline_image img debian12-kvm); scratch "$I"
htrun 0 "offline image: apply the minimums" "$I" apply mins
check "image: kernel.sem keeps the kernel's default (was lowered to 250 32000 100 128)" \
        "32000 1024000000 500 32000" "$(dropin_line "$I" kernel.sem)"
check "image: kernel.shmmax keeps the kernel's ULONG_MAX - 2^24 (was lowered to 4 TiB)" \
        18446744073692774399 "$(dropin_line "$I" kernel.shmmax)"
check "image: kernel.shmall the same" 18446744073692774399 "$(dropin_line "$I" kernel.shmall)"
check "image: the port range's low end stays 32768, its high end rises to 65500" \
        "32768 65500" "$(dropin_line "$I" net.ipv4.ip_local_port_range)"
htrun 0 "image: rollback" "$I" rollback

# the image's own file gives more than the minimum in some fields
printf 'kernel.sem = 500 32000 32 128\nnet.ipv4.ip_local_port_range = 10000 61000\n' >"$I/etc/sysctl.d/50-vendor.conf"
htrun 2 "image with a vendor file: plan" "$I" --json plan mins
check "image: the vendor's SEMMSL 500 is kept, SEMOPM raised (was 250 32000 100 128)" \
        "500 32000 32 128 -> 500 32000 100 128" \
        "$(jq -r '.changes[] | select(.key == "kernel.sem") | "\(.current) -> \(.desired)"' "$tmp/out")"
check "image: the vendor's low end 10000 is kept (was lowered to 9000)" "10000 65500" \
        "$(jq -r '.changes[] | select(.key == "net.ipv4.ip_local_port_range") | .desired' "$tmp/out")"
htrun 0 "image with a vendor file: apply" "$I" apply mins

# systemd-sysctl applies the image's files over the kernel's defaults
SD_SYSCTL=""
for p in /usr/lib/systemd/systemd-sysctl /lib/systemd/systemd-sysctl; do [ -x "$p" ] && SD_SYSCTL=$p && break; done
if [ -z "$SD_SYSCTL" ] || ! is_root || ! command -v unshare >/dev/null 2>&1; then
        skip "systemd-sysctl over the image's files" "needs root, unshare and systemd-sysctl"
else
        cat >"$tmp/ns.sh" <<'EOF'
set -e
r=$1 sd=$2
mount --make-rprivate /
# (systemd-sysctl writes without truncating, as to /proc: the first line counts)
mount -t tmpfs tmpfs /proc/sys
mkdir -p /proc/sys/kernel /proc/sys/net/ipv4
echo '32000 1024000000 500 32000' >/proc/sys/kernel/sem
echo 18446744073692774399 >/proc/sys/kernel/shmmax
echo 18446744073692774399 >/proc/sys/kernel/shmall
echo '32768 60999' >/proc/sys/net/ipv4/ip_local_port_range
mount -t tmpfs tmpfs /run; mkdir /run/sysctl.d
mount -t tmpfs tmpfs /usr/local/lib; mkdir /usr/local/lib/sysctl.d
mount -t tmpfs tmpfs /usr/lib/sysctl.d
mount --bind "$r/etc/sysctl.d" /etc/sysctl.d
mount --bind "$r/etc/sysctl.conf" /etc/sysctl.conf
[ -d /lib/sysctl.d ] && [ ! /lib/sysctl.d -ef /usr/lib/sysctl.d ] && mount -t tmpfs tmpfs /lib/sysctl.d
"$sd" || true
for k in kernel/sem kernel/shmmax net/ipv4/ip_local_port_range; do printf '%s=%s\n' "$k" "$(head -n1 "/proc/sys/$k")"; done
EOF
        if unshare --mount sh "$tmp/ns.sh" "$I" "$SD_SYSCTL" >"$tmp/theirs" 2>"$tmp/ns.err"; then
                check "systemd-sysctl at the image's boot: no field below the kernel's or the vendor's" \
                        "kernel/sem=500 32000 100 128
kernel/shmmax=18446744073692774399
net/ipv4/ip_local_port_range=10000 65500" "$(cat "$tmp/theirs")"
        else
                not_ok "systemd-sysctl in a private namespace: $(head -c 400 "$tmp/ns.err")"
        fi
fi

# --- sysctl.d syntax, against systemd-sysctl itself ------------------------
# One file with what real files hold: "-key = value", no blanks around '=',
# '/' as separator, ';' and '#' comments, trailing blanks, CRLF, CR alone
# (old Mac), a NUL, a key without '=', an inline '#' (not a comment to
# systemd), quotes (kept), globs with [!...] and a "-key" exclusion, a
# VLAN name with a dot, a 5000-byte value. The image's boot values (plan's
# "current" for an image) must be the values systemd-sysctl writes.
S=$(offline_image syntax debian12-kvm); scratch "$S"
long=$(head -c 5000 /dev/zero | tr '\0' 7)
printf -- '-vm.swappiness = 33\nkernel/sem=1 2 3 4\r\nvm.dirty_ratio = 20   \r\n; c\n# c\nvm.dirty_background_ratio\nfs.file-max=100 # not a comment\nkernel.shmmni = "4096"\nnet.ipv4.conf.*.rp_filter = 2\n-net.ipv4.conf.lo.rp_filter\nnet.ipv4.conf.[!ea]*.accept_redirects = 0\nvm.max_map_count = 7\rvm.overcommit_ratio = 55\nvm.min_free_kbytes = 9\0vm.admin_reserve_kbytes = 11\nnet/ipv4/conf/eth0.100/forwarding = 1\n   kernel.pid_max   =   4194304   \nkernel.domainname = %s\n' "$long" \
        >"$S/etc/sysctl.d/50-syntax.conf"
skeys="vm/swappiness kernel/sem vm/dirty_ratio vm/dirty_background_ratio fs/file-max kernel/shmmni
net/ipv4/conf/eth0/rp_filter net/ipv4/conf/lo/rp_filter net/ipv4/conf/eth0/accept_redirects
net/ipv4/conf/lo/accept_redirects vm/max_map_count vm/overcommit_ratio vm/min_free_kbytes
vm/admin_reserve_kbytes net/ipv4/conf/eth0.100/forwarding kernel/pid_max kernel/domainname"
{
        echo 'summary = "audit-sysctl: every key of the syntax file";'
        echo 'sysctl = ('
        sep=' '
        for k in $skeys; do
                printf '  %s{ key = "%s"; value = 424242; }\n' "$sep" "$(printf '%s' "$k" | tr './' '/.')"
                sep=','
        done
        echo ');'
} >"$PROFILES/syntax.profile"
htrun 2 "the syntax file: plan on the image" "$S" --json plan syntax
: >"$tmp/ours"
for k in $skeys; do
        d=$(printf '%s' "$k" | tr './' '/.')
        v=$(jq -r --arg k "$d" '.changes[] | select(.key == $k) | .current // "D"' "$tmp/out")
        [ "${#v}" -gt 100 ] && v="long:${#v}"
        printf '%s %s\n' "$k" "$v" >>"$tmp/ours"
done
check "the syntax file: hosttune's boot values (hand-checked)" "vm/swappiness 33
kernel/sem 1 2 3 4
vm/dirty_ratio 20
vm/dirty_background_ratio D
fs/file-max 100 # not a comment
kernel/shmmni \"4096\"
net/ipv4/conf/eth0/rp_filter 2
net/ipv4/conf/lo/rp_filter D
net/ipv4/conf/eth0/accept_redirects D
net/ipv4/conf/lo/accept_redirects 0
vm/max_map_count 7
vm/overcommit_ratio 55
vm/min_free_kbytes 9
vm/admin_reserve_kbytes 11
net/ipv4/conf/eth0.100/forwarding 1
kernel/pid_max 4194304
kernel/domainname long:5000" "$(cat "$tmp/ours")"
check_contains "the key without '=' is named by file and line" \
        "/etc/sysctl.d/50-syntax.conf:6: line is not an assignment" "$tmp/out"
if [ -z "$SD_SYSCTL" ] || ! is_root || ! command -v unshare >/dev/null 2>&1; then
        skip "systemd-sysctl over the syntax file" "needs root, unshare and systemd-sysctl"
else
        cat >"$tmp/ns2.sh" <<'EOF'
set -e
r=$1 sd=$2 keys=$3
mount --make-rprivate /
mount -t tmpfs tmpfs /proc/sys
for k in $keys; do mkdir -p "/proc/sys/${k%/*}"; echo D >"/proc/sys/$k"; done
mount -t tmpfs tmpfs /run; mkdir /run/sysctl.d
mount -t tmpfs tmpfs /usr/local/lib; mkdir /usr/local/lib/sysctl.d
mount -t tmpfs tmpfs /usr/lib/sysctl.d
mount --bind "$r/etc/sysctl.d" /etc/sysctl.d
mount --bind "$r/etc/sysctl.conf" /etc/sysctl.conf
[ -d /lib/sysctl.d ] && [ ! /lib/sysctl.d -ef /usr/lib/sysctl.d ] && mount -t tmpfs tmpfs /lib/sysctl.d
"$sd" 2>/dev/null || true
for k in $keys; do
        v=$(head -n1 "/proc/sys/$k")
        [ "${#v}" -gt 100 ] && v="long:${#v}"
        printf '%s %s\n' "$k" "$v"
done
EOF
        if unshare --mount sh "$tmp/ns2.sh" "$S" "$SD_SYSCTL" "$skeys" >"$tmp/theirs2" 2>"$tmp/ns2.err"; then
                check "the syntax file: each key's value is the one systemd-sysctl writes" "$(cat "$tmp/theirs2")" \
                        "$(cat "$tmp/ours")"
        else
                not_ok "systemd-sysctl in a private namespace: $(head -c 400 "$tmp/ns2.err")"
        fi
fi

# an image of an old kernel (--facts says 3.10): its defaults were lower
# than the minimums, which are written as they are
"$HOSTTUNE" --root "$HOSTS/debian12-kvm" facts --json 2>/dev/null |
        jq '.kernel.release = "3.10.0-1160.el7.x86_64"' >"$tmp/old.json"
O=$(offline_image old debian12-kvm); scratch "$O"
htrun 2 "image of a 3.10 kernel: plan" "$O" --facts "$tmp/old.json" --json plan mins
check "3.10: the minimums (its defaults were 250 32000 32 128 and 32 MiB), the port range's 32768 kept" \
        "250 32000 100 128 4398046511104 32768 65500" \
        "$(jq -r '[.changes[] | select(.key == "kernel.sem" or .key == "kernel.shmmax" or .key == "net.ipv4.ip_local_port_range") | .desired] | join(" ")' "$tmp/out")"

# --- a read-only key ------------------------------------------------------
h=$(prepare_host debian12-kvm); scratch "$h"
chmod 0444 "$h/proc/sys/kernel/osrelease"
cat >"$PROFILES/ro.profile" <<'EOF'
summary = "audit-sysctl: a read-only key";
sysctl = ( { key = "kernel.osrelease"; value = "6.1.0-99-amd64"; }, { key = "vm.swappiness"; value = 10; } );
EOF
tree_sig "$h" >"$tmp/ro.before"
htrun 1 "a read-only key: plan is an error (was a change that apply failed on)" "$h" --color=never plan ro
check_contains "the error names the profile line and why" \
        "ro.profile:2: kernel.osrelease is read-only on this kernel (no write bit in /proc/sys)" "$tmp/out"
htrun 1 "a read-only key: apply refuses" "$h" apply ro
tree_sig "$h" >"$tmp/ro.after"
check "a read-only key: the host untouched" "$(cat "$tmp/ro.before")" "$(cat "$tmp/ro.after")"
check "a read-only key: vm.swappiness untouched too" 60 "$(cat "$h/proc/sys/vm/swappiness")"
sed -i 's/value = "6.1.0-99-amd64"; }/value = "6.1.0-99-amd64"; optional = true; }/' "$PROFILES/ro.profile"
htrun 2 "a read-only key marked optional: skipped" "$h" --json plan ro
check "optional: skipped, and not persisted" "skipped 0" \
        "$(jq -r '.changes[] | select(.key == "kernel.osrelease") | .outcome' "$tmp/out") $(jq -r '[.files[].diff | select(test("osrelease"))] | length' "$tmp/out")"
sed -i 's/"6.1.0-99-amd64"/"6.1.0-18-amd64"/' "$PROFILES/ro.profile"
htrun 2 "a read-only key that already has the value: no error" "$h" plan ro

# a read-only copy of the whole tree (make distcheck clears every write
# bit): a fixture's modes say nothing there (every key was "read-only")
h=$(prepare_host debian12-kvm); scratch "$h"
printf 'summary = "rocopy";\nsysctl = ( { key = "vm.swappiness"; value = 10; } );\n' >"$PROFILES/rocopy.profile"
chmod -R a-w "$h"
htrun 2 "a read-only copy of the tree: vm.swappiness planned, not read-only" "$h" plan rocopy
chmod -R u+w "$h"

# the real kernel's kernel.osrelease (mode 0444): plan only, nothing written
. "$top_srcdir/tests/integration/real-host-lib.sh"
if is_root && confine_ok; then
        CROOT=$tmp/confined; mkconfined_root "$CROOT"
        printf 'summary = "ro";\nsysctl = ( { key = "kernel.osrelease"; value = "x"; } );\n' >"$PROFILES/ro2.profile"
        hc 1 "the real kernel: a read-only key is a plan error" plan ro2
        check_contains "the real kernel: says read-only" "kernel.osrelease is read-only on this kernel" "$tmp/out"
else
        skip "the real kernel's read-only key" "needs root and a mount namespace"
fi

# --- an interface that appears later -------------------------------------
h=$(prepare_host debian12-kvm); scratch "$h"
cat >"$PROFILES/iface.profile" <<'EOF'
summary = "audit-sysctl: a key of an interface not there yet";
sysctl = ( { key = "net.ipv4.conf.eth1.rp_filter"; value = 2; }, { key = "net.ipv6.conf.eth1/100.accept_ra"; value = 0; } );
EOF
mkdir -p "$h/proc/sys/net/ipv6/conf/all"
htrun 2 "eth1 absent: plan (was: this kernel has no net.ipv4.conf.eth1.rp_filter)" "$h" --json plan iface
check "eth1: persisted, no runtime write, the note" \
        "change false eth1 is not there now: systemd-sysctl sets it when the interface appears (udev's 99-systemd.rules)" \
        "$(jq -r '.changes[] | select(.key == "net.ipv4.conf.eth1.rp_filter") | "\(.outcome) \(.runtime) \(.note)"' "$tmp/out")"
check "eth1.100 (a VLAN) under ipv6 too" "change eth1.100 is not there now" \
        "$(jq -r '.changes[] | select(.key == "net.ipv6.conf.eth1/100.accept_ra") | "\(.outcome) \(.note)"' "$tmp/out" | cut -d: -f1)"
htrun 0 "eth1 absent: apply" "$h" apply iface
check "the drop-in holds both lines" "net.ipv4.conf.eth1.rp_filter = 2
net.ipv6.conf.eth1/100.accept_ra = 0" "$(grep -v '^#' "$h/etc/sysctl.d/90-hosttune.conf")"
htrun 0 "eth1 absent: plan again, nothing to do" "$h" plan iface
htrun 0 "eth1 absent: verify ok" "$h" --json verify
check "verify: no value yet" "ok null" \
        "$(jq -r '.checks[] | select(.key == "net.ipv4.conf.eth1.rp_filter") | "\(.status) \(.actual)"' "$tmp/out")"
# eth1 appears and udev's systemd-sysctl run sets it
mkdir -p "$h/proc/sys/net/ipv4/conf/eth1" "$h/proc/sys/net/ipv6/conf/eth1.100"
echo 2 >"$h/proc/sys/net/ipv4/conf/eth1/rp_filter"
echo 0 >"$h/proc/sys/net/ipv6/conf/eth1.100/accept_ra"
htrun 0 "eth1 there, set by systemd-sysctl: verify ok" "$h" --json verify
check "verify: the value read" "ok 2" \
        "$(jq -r '.checks[] | select(.key == "net.ipv4.conf.eth1.rp_filter") | "\(.status) \(.actual)"' "$tmp/out")"
htrun 0 "rollback" "$h" rollback
# a host without systemd (procps' sysctl --system runs once at boot): still an error
h=$(prepare_host debian12-kvm); scratch "$h"
rm -rf "$h/run/systemd"
htrun 1 "eth1 absent on a host without systemd-sysctl: an error" "$h" plan iface
check_contains "names the key" "this kernel has no net.ipv4.conf.eth1.rp_filter" "$tmp/out"

# --- where hosttune's file takes effect -----------------------------------
# procps' sysctl --system (a host without systemd) reads /etc/sysctl.conf
# last, after 99-sysctl.conf and 99-zz-*.conf; a /dev/null link in place of
# hosttune's own file masks it (sysctl.d(5)): plan says so, apply does not
# fail half-way
h=$(prepare_host debian12-kvm); scratch "$h"
rm -rf "$h/run/systemd"
echo 'vm.swappiness = 60' >>"$h/etc/sysctl.conf"
echo 'vm.swappiness = 45' >"$h/etc/sysctl.d/99-zz-agent.conf"
printf 'summary = "s";\nsysctl = { vm = { swappiness = 10; }; };\n' >"$PROFILES/swap.profile"
htrun 2 "procps host: plan" "$h" --color=never plan swap
check "procps host: sysctl.conf, read last, wins over 99-zz-agent.conf" 1 \
        "$(grep -c '^warning: .*/etc/sysctl.conf:[0-9]* sets vm.swappiness = 60 and is read after /etc/sysctl.d/90-hosttune.conf' "$tmp/out")"
ln -s /dev/null "$h/etc/sysctl.d/90-hosttune.conf"
htrun 1 "hosttune's file masked by /dev/null: plan is an error (was a diff that apply refused)" "$h" --color=never plan swap
check_contains "says it is masked and what to do" \
        "/etc/sysctl.d/90-hosttune.conf is a symbolic link (to /dev/null), which masks hosttune's sysctl settings at boot" "$tmp/out"
htrun 1 "masked: apply refuses before any change" "$h" apply swap
check "masked: vm.swappiness untouched" 60 "$(cat "$h/proc/sys/vm/swappiness")"

# Debian with sysvinit and the systemd package beside it: the boot runs
# /etc/init.d/procps (`sysctl -q --system`), not systemd-sysctl
h=$(prepare_host debian12-kvm); scratch "$h"
rm -rf "$h/run/systemd"
mkdir -p "$h/usr/lib/systemd" "$h/etc/init.d"
printf '#!/bin/sh\n' >"$h/usr/lib/systemd/systemd-sysctl"
printf '#!/bin/sh\n# stands for Debian procps'"'"' script: sysctl $QUIET_SYSCTL --system\n' >"$h/etc/init.d/procps"
chmod 0755 "$h/usr/lib/systemd/systemd-sysctl" "$h/etc/init.d/procps"
echo 'vm.swappiness = 60' >>"$h/etc/sysctl.conf"
echo 'vm.swappiness = 45' >"$h/etc/sysctl.d/99-zz-agent.conf"
htrun 2 "sysvinit with systemd installed: plan" "$h" --color=never plan swap
check "sysvinit: sysctl.conf read last wins (was 99-zz-agent.conf, systemd's order)" 1 \
        "$(grep -c '^warning: .*/etc/sysctl.conf:[0-9]* sets vm.swappiness = 60 and is read after' "$tmp/out")"
htrun 0 "sysvinit: explain" "$h" --json explain vm.swappiness
check "sysvinit: the consumer is sysctl --system" "sysctl --system" "$(jq -r .boot.consumer "$tmp/out")"

finish
