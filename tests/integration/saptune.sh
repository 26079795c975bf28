#!/bin/sh
# Issue 38: saptune 3 (SUSE) as another tuner, from its own configuration:
# /etc/sysconfig/saptune's NOTE_APPLY_ORDER names the notes it applies at
# saptune.service's start, in that order; each note's [sysctl] lines come
# from /usr/share/saptune/notes/NOTE (or /etc/saptune/extra/NOTE.conf),
# /etc/saptune/override/NOTE replaces them (an empty value: left alone);
# a later note's value wins. plan names each value that undoes
# hosttune's with the note file's line, explain lists it, verify blames
# saptune. "<" and ">" bounds are not claimed.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"

h=$(prepare_host ol8-bls); scratch "$h"
mkdir -p "$h/usr/share/saptune/notes" "$h/etc/saptune/override" "$h/etc/saptune/extra" "$h/etc/sysconfig" \
        "$h/etc/systemd/system/multi-user.target.wants"
ln -s /usr/lib/systemd/system/saptune.service "$h/etc/systemd/system/multi-user.target.wants/saptune.service"
cat >"$h/etc/sysconfig/saptune" <<'CONF'
## Type:    string
TUNE_FOR_SOLUTIONS=""
TUNE_FOR_NOTES=""
NOTE_APPLY_ORDER="1410736 myhana"
SAPTUNE_VERSION="3"
CONF
cat >"$h/usr/share/saptune/notes/1410736" <<'NOTE'
# 1410736 - TCP/IP: setting keepalive interval
[version]
VERSION=6

[sysctl]
net.ipv4.tcp_keepalive_time = 300
net.ipv4.tcp_keepalive_intvl = 75
vm.swappiness = 60
kernel.shmmni > 4096
NOTE
printf '[sysctl]\nnet.ipv4.tcp_keepalive_intvl =\nvm.swappiness = 55\n' >"$h/etc/saptune/override/1410736"
printf '# a customer note\n[sysctl]\nvm.swappiness = 40\n' >"$h/etc/saptune/extra/myhana.conf"
# not applied: not in NOTE_APPLY_ORDER
printf '[sysctl]\nvm.swappiness = 1\n' >"$h/usr/share/saptune/notes/2382421"

htrun 0 "explain vm.swappiness" "$h" --json explain vm.swappiness
check "the last note's value wins, with its file and line" \
        "saptune 40 $h/etc/saptune/extra/myhana.conf:3" \
        "$(jq -r '.tuners[] | "\(.tuner) \(.value) \(.source)"' "$tmp/out")"
htrun 0 "explain net.ipv4.tcp_keepalive_time" "$h" --json explain net.ipv4.tcp_keepalive_time
check "a note's own line" "saptune 300 $h/usr/share/saptune/notes/1410736:6" \
        "$(jq -r '.tuners[] | "\(.tuner) \(.value) \(.source)"' "$tmp/out")"
htrun 0 "explain net.ipv4.tcp_keepalive_intvl" "$h" --json explain net.ipv4.tcp_keepalive_intvl
check "an empty override value: saptune leaves the key alone" 0 "$(jq -r '.tuners | length' "$tmp/out")"
htrun 0 "explain kernel.shmmni" "$h" --json explain kernel.shmmni
check "a '>' bound is not claimed" 0 "$(jq -r '.tuners | length' "$tmp/out")"

htrun 2 "plan oracle with saptune enabled" "$h" --color=never plan oracle
check_contains "plan: saptune's value, its file and line, hosttune's" \
        "warning: saptune (enabled: /etc/systemd/system/multi-user.target.wants/saptune.service) sets vm.swappiness = 40 ($h/etc/saptune/extra/myhana.conf:3) at saptune.service's start (saptune service apply, at boot): it undoes hosttune's sysctl vm.swappiness = 10" "$tmp/out"
htrun 0 "apply oracle" "$h" apply oracle
echo 40 >"$h/proc/sys/vm/swappiness"
htrun 2 "verify after saptune wrote vm.swappiness" "$h" --json verify
check "verify blames saptune's note" \
        "changed since apply: saptune (enabled: /etc/systemd/system/multi-user.target.wants/saptune.service) sets vm.swappiness = 40 ($h/etc/saptune/extra/myhana.conf:3)" \
        "$(jq -r '.checks[] | select(.key == "vm.swappiness") | .hint' "$tmp/out" | sed 's/ at saptune.service.s start.*//')"
echo "1..$n"
[ "$failed" -eq 0 ]
