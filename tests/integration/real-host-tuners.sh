#!/bin/sh
# Issue 38 on the machine's real kernel: tuned's daemon applies its
# profile after hosttune's apply and undoes hosttune's value. Before the
# apply, plan warns that tuned (enabled, profile virtual-guest) would;
# after tuned has run, verify finds the drift and names tuned, running,
# with its file and line. tuned 2.20 runs as real-host-tuned.sh runs it
# (tuned --no-dbus in a private mount namespace: /etc/tuned a throwaway
# copy, /run/tuned and /var/lib/tuned tmpfs, no dynamic tuning, no
# re-applied sysctl.d), with a virtual-guest profile holding tuned's own
# virtual-guest [sysctl] values without its include of
# throughput-performance (whose CPU, disk and scheduler settings are not
# what is tested here and would touch more of the machine). hosttune runs
# confined (real-host-lib.sh). Root only, under the real-host lock; every
# value is written back (trap) and the restore checked.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
. "$top_srcdir/tests/integration/real-host-lib.sh"

[ "$(id -u)" = 0 ] || skip_all "not root"
command -v tuned >/dev/null 2>&1 || skip_all "tuned is not installed (Debian: apt-get install tuned; CI installs it)"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"
real_host_lock
pgrep -x tuned >/dev/null 2>&1 && skip_all "a tuned daemon runs on this machine: it would fight the test"
confine_ok || skip_all "no private mount namespace here (unshare -m, mount --bind): cannot confine tuned and hosttune"
vm=/proc/sys/vm
for f in swappiness dirty_ratio; do [ -w "$vm/$f" ] || skip_all "no writable $vm/$f"; done
printf '%s\n' "$(cat $vm/swappiness)" 2>/dev/null >"$vm/swappiness" || skip_all "/proc/sys is read-only"

swap0=$(cat $vm/swappiness) dr0=$(cat $vm/dirty_ratio)
tuned_pid=""
restore() {
        [ -n "$tuned_pid" ] && { : >"$tmp/stop"; wait "$tuned_pid" 2>/dev/null; }
        printf '%s\n' "$swap0" >"$vm/swappiness" 2>/dev/null
        printf '%s\n' "$dr0" >"$vm/dirty_ratio" 2>/dev/null
        rm -rf "$tmp"
}
trap restore EXIT
trap 'restore; exit 1' INT TERM
# hosttune's value: neither the machine's nor tuned's 30
swap1=$((swap0 == 7 ? 8 : 7))

CROOT=$tmp/root
mkconfined_root "$CROOT"
# tuned enabled in the tree, its active profile virtual-guest
mkdir -p "$CROOT/etc/tuned/virtual-guest" "$CROOT/etc/systemd/system/multi-user.target.wants"
cat >"$CROOT/etc/tuned/virtual-guest/tuned.conf" <<'EOF'
[main]
summary=Optimize for running inside a virtual guest (its [sysctl] only)

[sysctl]
vm.dirty_ratio = 30
vm.swappiness = 30
EOF
echo virtual-guest >"$CROOT/etc/tuned/active_profile"
ln -s /usr/lib/systemd/system/tuned.service "$CROOT/etc/systemd/system/multi-user.target.wants/tuned.service"
chmod -R go-w "$CROOT"
mkdir -p "$tmp/profiles"
printf 'summary = "issue 38 real-host test";\nsysctl = { vm = { swappiness = { value = %s; bound = "exact"; }; }; };\n' \
        "$swap1" >"$tmp/profiles/swap.profile"
PROFILES=$tmp/profiles RULES=$top_srcdir/rules
state=$tmp/state
hr() { hc "$@" --state-dir "$state"; }
host_files >"$tmp/host-files-before"

hr 2 "plan with tuned enabled (virtual-guest)" --color=never plan swap
check_contains "plan warns that tuned would undo vm.swappiness, with its file and line" \
        "warning: tuned (enabled: /etc/systemd/system/multi-user.target.wants/tuned.service; profile virtual-guest) sets vm.swappiness = 30 ($CROOT/etc/tuned/virtual-guest/tuned.conf:6) at tuned's start" "$tmp/out"
hr 0 "apply" apply swap
check "apply: hosttune's value on the real kernel" "$swap1" "$(cat $vm/swappiness)"

# ---- tuned starts after hosttune's apply ---------------------------------------
mkdir -p "$tmp/etc-tuned"
cp -a "$CROOT/etc/tuned/." "$tmp/etc-tuned/"
printf 'daemon = 1\ndynamic_tuning = 0\nreapply_sysctl = 0\n' >"$tmp/etc-tuned/tuned-main.conf"
cat >"$tmp/run-tuned.sh" <<'EOS'
# inside unshare -m: tuned applies virtual-guest and runs until $t/stop
set -u
t=$1
mount --make-rprivate / 2>/dev/null
mount --bind "$t/etc-tuned" /etc/tuned || exit 1
mkdir -p /run/tuned /var/lib/tuned 2>/dev/null
mount -t tmpfs tmpfs /run/tuned || exit 1
mount -t tmpfs tmpfs /var/lib/tuned || exit 1
tuned --no-dbus -p virtual-guest -l "$t/tuned.log" -P /run/tuned/tuned.pid >/dev/null 2>&1 &
pid=$!
i=0
while [ $i -lt 600 ] && ! grep -q "static tuning from profile 'virtual-guest' applied" "$t/tuned.log" 2>/dev/null; do
        sleep 0.05; i=$((i + 1))
done
grep -q "static tuning from profile 'virtual-guest' applied" "$t/tuned.log" 2>/dev/null && : >"$t/applied"
i=0
while [ $i -lt 1200 ] && [ ! -e "$t/stop" ]; do sleep 0.05; i=$((i + 1)); done
kill -TERM "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
EOS
unshare -m --propagation private sh "$tmp/run-tuned.sh" "$tmp" >"$tmp/tuned.out" 2>&1 &
tuned_pid=$!
i=0
while [ $i -lt 700 ] && [ ! -e "$tmp/applied" ] && kill -0 "$tuned_pid" 2>/dev/null; do sleep 0.05; i=$((i + 1)); done
if [ -e "$tmp/applied" ]; then ok "tuned applied virtual-guest after hosttune's apply"
else not_ok "tuned applied virtual-guest: $(tail -5 "$tmp/tuned.log" 2>/dev/null | tr '\n' ' ') $(head -c 400 "$tmp/tuned.out")"; fi
check "tuned's value is on the real kernel" 30 "$(cat $vm/swappiness)"
hr 2 "verify while tuned runs" --json verify
check "verify: vm.swappiness drifted to tuned's 30" "drift 30" \
        "$(jq -r '.checks[] | select(.key == "vm.swappiness") | "\(.status) \(.actual)"' "$tmp/out")"
check "verify names tuned, running, with its file and line" 1 \
        "$(jq -r '.checks[] | select(.key == "vm.swappiness") | .hint' "$tmp/out" |
                grep -c "^changed since apply: tuned (running, pid [0-9]*; enabled: /etc/systemd/system/multi-user.target.wants/tuned.service; profile virtual-guest) sets vm.swappiness = 30 ($CROOT/etc/tuned/virtual-guest/tuned.conf:6)")"
: >"$tmp/stop"
wait "$tuned_pid" 2>/dev/null
tuned_pid=""
hr 0 "rollback" rollback
printf '%s\n' "$swap0" >"$vm/swappiness"; printf '%s\n' "$dr0" >"$vm/dirty_ratio"
check "restored: swappiness and dirty_ratio as before" "$swap0 $dr0" "$(cat $vm/swappiness) $(cat $vm/dirty_ratio)"
host_files >"$tmp/host-files-after"
if d=$(diff "$tmp/host-files-before" "$tmp/host-files-after"); then
        ok "the machine's own /etc, /boot, /var/lib/hosttune and /run/hosttune.lock are untouched"
else not_ok "the machine's files changed: $(printf '%s' "$d" | head -c 800)"; fi
finish
