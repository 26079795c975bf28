#!/bin/sh
# Issue 38: the value that wins at boot is the one systemd-sysctl really
# writes. A fixture with sysctl.d files in /etc, /run, /usr/local/lib and
# /usr/lib (a name in /run overriding /usr/lib's, a /dev/null link masking
# one, 99-sysctl.conf linked to sysctl.conf, a later 99-zz-*.conf, globs,
# a "-key" exclusion, a "-" prefix, a glob assigned again with its value)
# is read by `hosttune explain` and, as the real tool, by this machine's
# systemd-sysctl in a private mount namespace whose /proc/sys is a tmpfs
# (no kernel value is touched) and by `systemd-analyze cat-config --root`.
# Plan on an Oracle Linux 8 copy names the file that wins (was sysctl.conf).
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"

# --- plan on OL8: sysctl.conf through 99-sysctl.conf, then 99-zz-agent --
h=$(prepare_host ol8-bls); scratch "$h"
ln -s ../sysctl.conf "$h/etc/sysctl.d/99-sysctl.conf"
echo 'vm.swappiness = 60' >>"$h/etc/sysctl.conf"
echo 'vm.swappiness = 45' >"$h/etc/sysctl.d/99-zz-agent.conf"
htrun 2 "plan oracle on OL8 with a monitoring agent's 99-zz-agent.conf" "$h" --color=never plan oracle
check "plan names the file and line that win at boot (not sysctl.conf)" 1 \
        "$(grep -c "^warning: .*/etc/sysctl.d/99-zz-agent.conf:1 sets vm.swappiness = 45 and is read after /etc/sysctl.d/90-hosttune.conf: at boot vm.swappiness will be 45, not 10" "$tmp/out")"
check "plan does not name sysctl.conf as the winner" 0 "$(grep -c 'sysctl.conf:[0-9]* sets vm.swappiness' "$tmp/out")"
htrun 0 "explain vm.swappiness oracle" "$h" --json explain vm.swappiness oracle
check "explain: the winner, file and line" "/etc/sysctl.d/99-zz-agent.conf:1 45" \
        "$(jq -r '.boot.winner | "\(.file):\(.line) \(.value)"' "$tmp/out")"
check "explain: every assignment in reading order" "/etc/sysctl.d/99-sysctl.conf:11=60 /etc/sysctl.d/99-zz-agent.conf:1=45" \
        "$(jq -r '[.boot.assignments[] | "\(.file):\(.line)=\(.value)"] | join(" ")' "$tmp/out")"
check "explain: hosttune's value and its profile line" "10 exact oracle.profile" \
        "$(jq -r '.hosttune | "\(.value) \(.bound) \(.source | sub(".*/"; "") | sub(":[0-9]+$"; ""))"' "$tmp/out")"
check "explain: the runtime value" 30 "$(jq -r .runtime.value "$tmp/out")"
htrun 0 "explain (text)" "$h" --color=never explain sysctl.vm.swappiness
check_contains "explain text: the winner marked" "/etc/sysctl.d/99-zz-agent.conf:1  vm.swappiness = 45   <- wins" "$tmp/out"
htrun 1 "explain a key that is no sysctl name" "$h" explain 'vm/../x'

# --- the fixture both read ------------------------------------------------
r=$tmp/sysroot
mkdir -p "$r/etc/sysctl.d" "$r/run/sysctl.d" "$r/usr/local/lib/sysctl.d" "$r/usr/lib/sysctl.d" "$r/run/systemd/system"
printf 'vm.swappiness = 60\nnet.ipv4.conf.*.rp_filter = 2\nkernel.sem = 1 2 3 4\nfs.file-max = 100\n' \
        >"$r/usr/lib/sysctl.d/10-vendor.conf"
printf 'vm.dirty_ratio = 77\n' >"$r/usr/lib/sysctl.d/50-masked.conf"
ln -s /dev/null "$r/etc/sysctl.d/50-masked.conf"
printf 'vm.dirty_background_ratio = 3\n' >"$r/usr/lib/sysctl.d/60-over.conf"
printf 'vm.dirty_background_ratio = 4\n' >"$r/run/sysctl.d/60-over.conf"
printf 'net.ipv4.conf.e*.rp_filter = 1\n-net.ipv4.conf.lo.rp_filter\n' >"$r/usr/local/lib/sysctl.d/70-local.conf"
printf '# Managed by hosttune (profile t).\nvm.swappiness = 10\nfs.file-max = 200\n' >"$r/etc/sysctl.d/90-hosttune.conf"
printf '# sysctl.conf\nvm.swappiness = 60\nkernel.sem = 5 6 7 8\n' >"$r/etc/sysctl.conf"
ln -s ../sysctl.conf "$r/etc/sysctl.d/99-sysctl.conf"
printf 'vm.swappiness = 45\n-fs.file-max = 300\nnet.ipv4.conf.*.rp_filter = 2\n' >"$r/etc/sysctl.d/99-zz-agent.conf"
echo 'not read' >"$r/etc/sysctl.d/README"
keys="vm/swappiness fs/file-max kernel/sem vm/dirty_ratio vm/dirty_background_ratio
net/ipv4/conf/eth0/rp_filter net/ipv4/conf/lo/rp_filter net/ipv4/conf/all/rp_filter"

# hosttune's reading: the winning value per key, D where no file sets it
: >"$tmp/ours"
for k in $keys; do
        ht "$r" --json explain "$k"
        printf '%s %s\n' "$k" "$(jq -r '.boot.winner.value // "D"' "$tmp/out")" >>"$tmp/ours"
done
ht "$r" --json explain vm.swappiness
jq -r '.boot.files[]' "$tmp/out" >"$tmp/our-files"
check "explain: the masked name" /etc/sysctl.d/50-masked.conf "$(jq -r '.boot.masked | join(" ")' "$tmp/out")"
check "explain: systemd-sysctl reads them" systemd-sysctl "$(jq -r .boot.consumer "$tmp/out")"
check "explain: the hand-worked values" "vm/swappiness 45
fs/file-max 300
kernel/sem 5 6 7 8
vm/dirty_ratio D
vm/dirty_background_ratio 4
net/ipv4/conf/eth0/rp_filter 1
net/ipv4/conf/lo/rp_filter D
net/ipv4/conf/all/rp_filter 2" "$(cat "$tmp/ours")"

# the real tool's file order (systemd-analyze reads the root as given)
if command -v systemd-analyze >/dev/null 2>&1 &&
   systemd-analyze cat-config sysctl.d --root="$r" --no-pager >"$tmp/cat" 2>"$tmp/cat.err"; then
        sed -n "s|^# $r||p" "$tmp/cat" | grep -v '^/etc/sysctl.d/50-masked.conf$' >"$tmp/their-files"
        check "the files in systemd-analyze cat-config's order (the masked one aside)" "$(cat "$tmp/their-files")" \
                "$(cat "$tmp/our-files")"
else
        skip "systemd-analyze cat-config --root" "not available: $(head -c 200 "$tmp/cat.err" 2>/dev/null)"
fi

# the real tool's values: systemd-sysctl in a mount namespace of its own,
# the fixture bound over the host's directories, /proc/sys a tmpfs
SD_SYSCTL=""
for p in /usr/lib/systemd/systemd-sysctl /lib/systemd/systemd-sysctl; do [ -x "$p" ] && SD_SYSCTL=$p && break; done
if [ -z "$SD_SYSCTL" ] || ! is_root || ! command -v unshare >/dev/null 2>&1; then
        skip "systemd-sysctl's own values" "needs root, unshare and systemd-sysctl"
else
        cat >"$tmp/ns.sh" <<'EOF'
set -e
r=$1 sd=$2 keys=$3
mount --make-rprivate /
mount -t tmpfs tmpfs /proc/sys
for k in $keys; do mkdir -p "/proc/sys/${k%/*}"; echo D >"/proc/sys/$k"; done
# /run and /usr/local/lib: tmpfs here, so that no directory is made on the host
mount -t tmpfs tmpfs /run; mkdir /run/sysctl.d
mount -t tmpfs tmpfs /usr/local/lib; mkdir /usr/local/lib/sysctl.d
for d in /etc/sysctl.d /run/sysctl.d /usr/local/lib/sysctl.d /usr/lib/sysctl.d; do mount --bind "$r$d" "$d"; done
[ -e /etc/sysctl.conf ] && mount --bind "$r/etc/sysctl.conf" /etc/sysctl.conf
# on split-usr hosts /lib/sysctl.d is read too: empty it here
[ -d /lib/sysctl.d ] && [ ! /lib/sysctl.d -ef /usr/lib/sysctl.d ] && mount -t tmpfs tmpfs /lib/sysctl.d
"$sd" --cat-config --no-pager | sed -n 's|^# \(/.*\)$|\1|p' >"$r.files"
"$sd" || true
for k in $keys; do printf '%s %s\n' "$k" "$(cat "/proc/sys/$k")"; done
EOF
        before=$(cat /proc/sys/vm/swappiness)
        if unshare --mount sh "$tmp/ns.sh" "$r" "$SD_SYSCTL" "$keys" >"$tmp/theirs" 2>"$tmp/ns.err"; then
                check "each key: hosttune's winner is the value systemd-sysctl writes" "$(cat "$tmp/theirs")" \
                        "$(cat "$tmp/ours")"
                check "systemd-sysctl --cat-config reads the files in hosttune's order (the masked one aside)" \
                        "$(cat "$tmp/our-files")" "$(grep -v '^/etc/sysctl.d/50-masked.conf$' "$r.files")"
        else
                not_ok "systemd-sysctl in a private namespace: $(head -c 400 "$tmp/ns.err")"
        fi
        check "the real kernel's vm.swappiness is untouched" "$before" "$(cat /proc/sys/vm/swappiness)"
fi
echo "1..$n"
[ "$failed" -eq 0 ]
