#!/bin/sh
# Runs inside `unshare -m` (a private mount namespace), started by run.sh:
# a private system bus (tmpfs over /run/dbus, so the host's bus, if any, is
# neither seen nor touched), the tuned daemon on it with PROFILE, then
# `tuned-adm verify` and `tuned-adm active` timed by runbench; with
# SWITCH, `tuned-adm profile SWITCH` too, from PROFILE each time (the
# switch back is untimed).
#
#   tuned-dbus.sh RUNBENCH RUNS PROFILE OUTDIR [SWITCH]
# Writes OUTDIR/tuned-verify.samples, OUTDIR/tuned-active.samples (runbench
# -r lines) and OUTDIR/tuned-verify.out (the last verify's output); with
# SWITCH OUTDIR/tuned-profile.samples: "WALL_MS CPU_MS RSS_KB" a run, the
# CPU time tuned-adm's own plus what the daemon spent meanwhile (its
# /proc/PID/stat, in clock ticks), the RSS the daemon's peak.
set -eu
rb=$1 runs=$2 profile=$3 out=$4 switch=${5:-}

mount --make-rprivate / 2>/dev/null || true
mount -t tmpfs tmpfs /run/dbus
dbus_pid=$(dbus-daemon --system --fork --nopidfile --print-pid)
tuned_pid=""
stop() {
        if [ -n "$tuned_pid" ]; then
                kill -TERM "$tuned_pid" 2>/dev/null || true
                wait "$tuned_pid" 2>/dev/null || true
        fi
        kill "$dbus_pid" 2>/dev/null || true
}
trap stop EXIT
log=$out/tuned-daemon.log
tuned -p "$profile" -l "$log" -P "$out/tuned.pid" &
tuned_pid=$!
for i in $(seq 1 600); do
        grep -q "static tuning from profile '$profile' applied" "$log" 2>/dev/null && break
        sleep 0.05
done
if ! grep -q "static tuning from profile '$profile' applied" "$log" 2>/dev/null; then
        echo "tuned did not apply $profile on the private bus" >&2
        cat "$log" >&2 || true
        exit 1
fi
"$rb" -x -n 1 -w 0 -v -- tuned-adm verify >"$out/tuned-verify.out" 2>&1 || true
"$rb" -x -r -n "$runs" -w 1 -- tuned-adm verify >"$out/tuned-verify.samples"
"$rb" -x -r -n "$runs" -w 1 -- tuned-adm active >"$out/tuned-active.samples"

if [ -n "$switch" ]; then
        # the daemon's user + system time in ms
        ticks() { awk -v t="$(getconf CLK_TCK)" '{printf "%.1f", ($14 + $15) * 1000 / t}' "/proc/$tuned_pid/stat"; }
        : >"$out/tuned-profile.samples"
        i=0
        while [ "$i" -lt "$runs" ]; do
                tuned-adm profile "$profile" >/dev/null 2>&1
                c0=$(ticks)
                s=$("$rb" -r -n 1 -w 0 -- tuned-adm profile "$switch")
                c1=$(ticks)
                rss=$(awk '/^VmHWM/ {print $2}' "/proc/$tuned_pid/status")
                echo "$s" | awk -v d="$c0" -v e="$c1" -v m="$rss" '{printf "%s %.3f %s\n", $1, $2 + e - d, m}' >>"$out/tuned-profile.samples"
                i=$((i + 1))
        done
        grep -q "static tuning from profile '$switch' applied" "$log" ||
                { echo "tuned did not apply $switch" >&2; exit 1; }
fi
