#!/bin/sh
# Issue 38: the other tuners of a host. An Oracle Linux 8 copy where tuned
# runs virtual-guest (a root process named tuned in /proc, its unit wanted
# by multi-user.target, /etc/tuned/active_profile): facts list it, plan
# names each setting tuned would undo with tuned's file and line and what
# to do, verify blames tuned for the value it wrote, explain lists it.
# kubelet, dockerd and bpftune the same from their own tables, and
# power-profiles-daemon's governor and EPP; a process of another user
# called tuned, and a masked unit, are no tuner.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"

h=$(prepare_host ol8-bls); scratch "$h"
mkdir -p "$h/usr/lib/tuned/virtual-guest" "$h/etc/tuned" "$h/etc/systemd/system/multi-user.target.wants" "$h/proc/812"
# tuned's virtual-guest values (tuned 2.x profiles/virtual-guest/tuned.conf:
# dirty_ratio 30 in [vm]... as [sysctl] here, swappiness 30)
cat >"$h/usr/lib/tuned/virtual-guest/tuned.conf" <<'EOF'
[main]
summary=Optimize for running inside a virtual guest

[sysctl]
# tuned's virtual-guest values
vm.dirty_ratio = 30
vm.swappiness = 30
EOF
echo virtual-guest >"$h/etc/tuned/active_profile"
echo tuned >"$h/proc/812/comm"
ln -s /usr/lib/systemd/system/tuned.service "$h/etc/systemd/system/multi-user.target.wants/tuned.service"
# not tuners: irqbalance masked; a "kubelet" another user runs
ln -s /dev/null "$h/etc/systemd/system/multi-user.target.wants/irqbalance.service"
if is_root; then
        mkdir -p "$h/proc/900"; echo kubelet >"$h/proc/900/comm"; chown 1000 "$h/proc/900"
fi

htrun 0 "facts" "$h" --json facts
check "facts: tuned, running, enabled, its profile" \
        "tuned tuned.service true 812 /etc/systemd/system/multi-user.target.wants/tuned.service virtual-guest" \
        "$(jq -r '.tuners[] | "\(.name) \(.unit) \(.running) \(.pid) \(.enabled_by) \(.profile)"' "$tmp/out")"

htrun 2 "plan oracle with tuned running virtual-guest" "$h" --color=never plan oracle
check_contains "plan: tuned's setting, its file and line, hosttune's, what to do" \
        "warning: tuned (running, pid 812; enabled: /etc/systemd/system/multi-user.target.wants/tuned.service; profile virtual-guest) sets vm.swappiness = 30 ($h/usr/lib/tuned/virtual-guest/tuned.conf:7) at tuned's start (after systemd-sysctl at boot) and on every tuned-adm profile: it undoes hosttune's sysctl vm.swappiness = 10 ($PROFILES/oracle.profile:" "$tmp/out"
check_contains "plan: the advice" "keep one tuner: switch tuned off (systemctl disable --now tuned.service), or import its profile (hosttune import tuned virtual-guest)" "$tmp/out"
# two: swappiness, and dirty_ratio (tuned's 30 against the oracle
# profile's 40 from tuned's own oracle profile, issue 33)
check "plan: a tuned warning for each value it would undo" 2 "$(grep -c '^warning: tuned ' "$tmp/out")"
check_contains "plan: tuned's dirty_ratio named too" "sets vm.dirty_ratio = 30 ($h/usr/lib/tuned/virtual-guest/tuned.conf:6)" "$tmp/out"
check "plan: no kubelet of another user, no masked irqbalance" 0 "$(grep -c 'kubelet\|irqbalance' "$tmp/out")"

# an enabled unit of its own that calls sysctl before it starts
mkdir -p "$h/usr/lib/systemd/system"
printf '[Unit]\nDescription=agent\n\n[Service]\nExecStartPre=-/usr/sbin/sysctl -w vm.swappiness=50 net.core.somaxconn=4096\nExecStart=/usr/bin/agent\n' \
        >"$h/usr/lib/systemd/system/agent.service"
ln -s /usr/lib/systemd/system/agent.service "$h/etc/systemd/system/multi-user.target.wants/agent.service"
htrun 2 "plan oracle with a unit whose ExecStartPre calls sysctl" "$h" --color=never plan oracle
check_contains "plan: the unit's sysctl call, its file and line" \
        "warning: agent.service (enabled: /etc/systemd/system/multi-user.target.wants/agent.service) sets vm.swappiness = 50 ($h/usr/lib/systemd/system/agent.service:5) at agent.service's start (ExecStartPre=): it undoes hosttune's sysctl vm.swappiness = 10" "$tmp/out"

htrun 0 "apply oracle" "$h" apply oracle
# tuned starts after the apply and writes its value
echo 30 >"$h/proc/sys/vm/swappiness"
htrun 2 "verify after tuned wrote vm.swappiness" "$h" --json verify
check "verify blames tuned, with its file and line" \
        "30 changed since apply: tuned (running, pid 812; enabled: /etc/systemd/system/multi-user.target.wants/tuned.service; profile virtual-guest) sets vm.swappiness = 30 ($h/usr/lib/tuned/virtual-guest/tuned.conf:7)" \
        "$(jq -r '.checks[] | select(.key == "vm.swappiness") | "\(.actual) \(.hint)"' "$tmp/out" | sed 's/ at tuned.s start.*//')"
htrun 0 "explain vm.swappiness" "$h" --json explain vm.swappiness
check "explain: tuned's value and source" "tuned 30 $h/usr/lib/tuned/virtual-guest/tuned.conf:7" \
        "$(jq -r '.tuners[] | select(.tuner == "tuned") | "\(.tuner) \(.value) \(.source)"' "$tmp/out")"
check "explain: the unit's ExecStartPre too" "unit 50 $h/usr/lib/systemd/system/agent.service:5" \
        "$(jq -r '.tuners[] | select(.tuner == "unit") | "\(.tuner) \(.value) \(.source)"' "$tmp/out")"
check "explain: verify's drift" "drift 30" "$(jq -r '"\(.verify.status) \(.verify.actual)"' "$tmp/out")"
check "explain: hosttune's applied value" "oracle true 10" \
        "$(jq -r '"\(.hosttune.profile) \(.hosttune.applied) \(.hosttune.value)"' "$tmp/out")"
# the unit's value: the unit is blamed, with its ExecStartPre line
echo 50 >"$h/proc/sys/vm/swappiness"
htrun 2 "verify after the unit's ExecStartPre wrote vm.swappiness" "$h" --json verify
check "verify blames the unit's ExecStartPre" \
        "changed since apply: agent.service (enabled: /etc/systemd/system/multi-user.target.wants/agent.service) sets vm.swappiness = 50 ($h/usr/lib/systemd/system/agent.service:5) at agent.service's start (ExecStartPre=)" \
        "$(jq -r '.checks[] | select(.key == "vm.swappiness") | .hint' "$tmp/out" | sed 's/; remove the sysctl call.*//')"
# a value tuned does not set: somebody else, not blamed on tuned
echo 55 >"$h/proc/sys/vm/swappiness"
htrun 2 "verify after someone else wrote vm.swappiness" "$h" --json verify
check "verify names no tuner for a value no tuner sets" 0 \
        "$(jq -r '.checks[] | select(.key == "vm.swappiness") | .hint' "$tmp/out" | grep -c tuned)"

# --- kubelet, dockerd, bpftune: their own tables ----------------------------
k=$(prepare_host ol8-bls); scratch "$k"
mkdir -p "$k/proc/701" "$k/proc/702" "$k/etc/systemd/system/multi-user.target.wants" "$k/proc/sys/net/ipv4" "$k/proc/sys/vm"
echo kubelet >"$k/proc/701/comm"
echo dockerd >"$k/proc/702/comm"
ln -s /usr/lib/systemd/system/bpftune.service "$k/etc/systemd/system/multi-user.target.wants/bpftune.service"
echo 1 >"$k/proc/sys/net/ipv4/ip_forward"
echo 0 >"$k/proc/sys/vm/overcommit_memory"
echo '4096 131072 6291456' >"$k/proc/sys/net/ipv4/tcp_rmem"
htrun 2 "plan with kubelet, dockerd running and bpftune enabled" "$k" --color=never plan base \
        --set sysctl.vm.overcommit_memory=2 --set sysctl.net.ipv4.ip_forward=0 \
        --set "sysctl.net.ipv4.tcp_rmem=4096 262144 16777216" --set sysctl.kernel.panic=10
check_contains "kubelet's value and its source" "warning: kubelet (running, pid 701) sets vm.overcommit_memory = 1 (kubelet setupKernelTunables() (pkg/kubelet/cm/container_manager_linux.go)) at kubelet's start: it undoes hosttune's sysctl vm.overcommit_memory = 2 (--set)" "$tmp/out"
check_contains "dockerd's ip_forward" "warning: dockerd (running, pid 702) sets net.ipv4.ip_forward = 1" "$tmp/out"
check_contains "bpftune owns tcp_rmem" "warning: bpftune (enabled: /etc/systemd/system/multi-user.target.wants/bpftune.service) owns net.ipv4.tcp_rmem and writes it while it runs" "$tmp/out"
check "kubelet's own value (kernel.panic 10) is no conflict" 0 "$(grep -c '^warning: .*kernel.panic = ' "$tmp/out")"

# --- power-profiles-daemon: the governor and EPP at its start ----------------
# 0.11 and later (Debian 12: 0.12) write powersave to every policy with an
# EPP (probe_epp: "Force a scaling_governor where the preference can be
# written"), then the saved profile's preference (state.ini [State]
# Profile=; performance: "performance"). The bare-metal copy is
# intel_pstate with EPP; acpi-cpufreq (no EPP) gets no write from it.
p=$(prepare_host baremetal-numa); scratch "$p"
mkdir -p "$p/proc/733" "$p/etc/systemd/system/graphical.target.wants" "$p/var/lib/power-profiles-daemon" "$tmp/profiles"
echo power-profiles- >"$p/proc/733/comm"
ln -s /usr/lib/systemd/system/power-profiles-daemon.service \
        "$p/etc/systemd/system/graphical.target.wants/power-profiles-daemon.service"
printf '[State]\nDriver=intel_pstate\nProfile=performance\n' >"$p/var/lib/power-profiles-daemon/state.ini"
printf 'summary = "cpu";\ncpu = { governor = "performance"; energy_performance_preference = { value = "balance_power"; optional = true; }; };\n' \
        >"$tmp/profiles/cpu.profile"
htrun 0 "ppd: facts" "$p" --json facts
check "ppd: facts list it, running (comm cut to 15 bytes) and enabled" \
        "power-profiles-daemon power-profiles-daemon.service true 733 /etc/systemd/system/graphical.target.wants/power-profiles-daemon.service" \
        "$(jq -r '.tuners[] | "\(.name) \(.unit) \(.running) \(.pid) \(.enabled_by)"' "$tmp/out")"
HOSTTUNE_INSECURE_PROFILES=1 htrun 2 "ppd: plan a governor and an EPP" "$p" --color=never --profile-path "$tmp/profiles" plan cpu
check_contains "ppd: the governor it forces at its start" \
        "sets governor = powersave (power-profiles-daemon probe_epp (src/ppd-driver-intel-pstate.c, ppd-driver-amd-pstate.c)) at power-profiles-daemon's start, on every policy with an energy_performance_preference: it undoes hosttune's cpu governor = performance" \
        "$tmp/out"
check_contains "ppd: its saved profile's preference" \
        "sets energy_performance_preference = performance (power-profiles-daemon profile_to_epp_pref" "$tmp/out"
check_contains "ppd: the advice" "systemctl mask --now power-profiles-daemon.service" "$tmp/out"
rm -rf "$p/sys/devices/system/cpu/cpufreq"/policy*/energy_performance_preference
HOSTTUNE_INSECURE_PROFILES=1 htrun 2 "ppd: without EPP (acpi-cpufreq) it writes nothing" "$p" --color=never \
        --profile-path "$tmp/profiles" plan cpu
check "ppd: no warning then" 0 "$(grep -c 'power-profiles-daemon' "$tmp/out")"
echo "1..$n"
[ "$failed" -eq 0 ]
