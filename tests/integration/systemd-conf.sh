#!/bin/sh
# The systemd backend: hosttune's logind.conf.d and system.conf.d drop-ins.
# The current value is what systemd ends up with over the main file and
# every drop-in in its order (checked against systemd's own ordering,
# `systemd-analyze --root cat-config`, where systemd-analyze is
# installed); a host already at the value gets no file; a later drop-in
# that sets the key is warned about; limits never go down; a drop-in of
# an earlier profile goes; an image gets the drop-in and no follow-up.
# Never reloads this machine's logind or manager: every run is --root on a
# fixture copy.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
HOSTTUNE_INSECURE_PROFILES=1 LC_ALL=C
export HOSTTUNE_INSECURE_PROFILES LC_ALL
mkdir -p "$tmp/profiles"
PP="$tmp/profiles"
OWN=etc/systemd/logind.conf.d/90-hosttune.conf
SOWN=etc/systemd/system.conf.d/90-hosttune.conf
SGA="--set sga_max_size=4G"

# hp ROOT ARGS...: hosttune with the test profiles before the shipped ones
hp() {
        hproot=$1
        shift
        "$HOSTTUNE" --root "$hproot" --profile-path "$PP" --profile-path "$PROFILES" --rules-path "$RULES" "$@" \
                >"$tmp/out" 2>"$tmp/err"
        rc=$?
}
profile() { printf 'summary = "systemd test";\n%s\n' "$2" >"$PP/$1.profile"; }
# change KEY FIELD: a field of the systemd change for KEY in $tmp/out (--json plan)
change() { jq -r ".changes[] | select(.backend == \"systemd\" and .key == \"$1\") | .$2" "$tmp/out"; }
files() { jq -r '.files[] | select(.backend == "systemd") | .path + " " + .action' "$tmp/out"; }
have_cat=
command -v systemd-analyze >/dev/null 2>&1 &&
        systemd-analyze --root="$HOSTS/debian12-kvm" cat-config systemd/logind.conf >/dev/null 2>&1 && have_cat=yes
# sd_last ROOT KEY FILE: the last KEY= line in systemd's own order of FILE's
# configuration, and the file it is in ("no /etc/systemd/logind.conf.d/...")
sd_last() {
        systemd-analyze --root="$1" cat-config "systemd/$3" >"$tmp/cat" 2>&1 || { echo "cat-config failed"; return; }
        awk -v k="$2" -v r="$1" 'index($0, "# " r "/") == 1 { f = substr($0, length(r) + 3) }
                index($0, k "=") == 1 { v = substr($0, length(k) + 2); at = f } END { print v " " at }' "$tmp/cat"
}
sd_check() { # DESC EXPECTED ACTUAL: skipped without systemd-analyze cat-config --root
        if [ -n "$have_cat" ]; then check "$@"; else skip "$1" "systemd-analyze cat-config --root not available"; fi
}

# ---- Debian 12: systemd's default RemoveIPC=yes, the drop-in written ----
h=$(prepare_host debian12-kvm); scratch "$h"
htrun 2 "debian: plan oracle" "$h" --json plan oracle $SGA
check "debian: RemoveIPC now: the default the shipped logind.conf shows" "yes" "$(change logind.RemoveIPC current)"
check "debian: RemoveIPC planned" "no" "$(change logind.RemoveIPC desired)"
check "debian: the source is the oracle profile" "$PROFILES/oracle.profile" \
        "$(change logind.RemoveIPC source | sed 's/:[0-9]*$//')"
check "debian: one drop-in, hosttune's own" "/$OWN create" "$(files)"
check "debian: no follow-up on a copied tree (no reload of this machine's logind)" "" \
        "$(jq -r '.actions[]?.action' "$tmp/out" | grep -E 'logind|daemon-reload')"
htrun 0 "debian: apply oracle" "$h" --quiet apply oracle $SGA
check "debian: the drop-in's section and line" "[Login]
RemoveIPC=no" "$(grep -v '^#' "$h/$OWN")"
sd_check "debian: systemd's order ends at hosttune's RemoveIPC=no" "no /$OWN" "$(sd_last "$h" RemoveIPC logind.conf)"
sd_check "debian: systemd reads the vendor drop-in after it (unattended-upgrades')" \
        "30 /usr/lib/systemd/logind.conf.d/unattended-upgrades-logind-maxdelay.conf" \
        "$(sd_last "$h" InhibitDelayMaxSec logind.conf)"
htrun 0 "debian: plan again: nothing to change" "$h" --json plan oracle $SGA
check "debian: RemoveIPC kept" "kept" "$(change logind.RemoveIPC outcome)"
check "debian: RemoveIPC now no, from the drop-in" "no" "$(change logind.RemoveIPC current)"
# verify: the setting as applied (the command line waits for a reboot: 3),
# then a later drop-in that sets it back is drift
htrun 3 "debian: verify" "$h" verify
check_contains "debian: verify: RemoveIPC ok" "ok       systemd logind.RemoveIPC: expected no, actual no" "$tmp/out"
printf '[Login]\nRemoveIPC=yes\n' >"$h/etc/systemd/logind.conf.d/99-admin.conf"
htrun 2 "debian: verify with a later drop-in" "$h" verify
check_contains "debian: verify names the drift and the file" \
        "DRIFT    systemd logind.RemoveIPC: expected no, actual yes — $h/etc/systemd/logind.conf.d/99-admin.conf sets RemoveIPC=yes" \
        "$tmp/out"
rm "$h/etc/systemd/logind.conf.d/99-admin.conf"
htrun 0 "debian: rollback" "$h" --quiet rollback
check "debian: rollback removes the drop-in" "no" "$([ -e "$h/$OWN" ] && echo yes || echo no)"

# ---- Oracle Linux 8: RHEL builds logind with RemoveIPC=no ---------------
h=$(prepare_host ol8-bls); scratch "$h"
htrun 2 "ol8: plan oracle" "$h" --json plan oracle $SGA
check "ol8: RemoveIPC now no (\"#RemoveIPC=no\" in RHEL's logind.conf)" "no" "$(change logind.RemoveIPC current)"
check "ol8: kept" "kept" "$(change logind.RemoveIPC outcome)"
check "ol8: no drop-in" "" "$(files)"

# ---- booleans compare by meaning, files in systemd's order -------------
h=$(prepare_host debian12-kvm); scratch "$h"
sed -i 's/^#RemoveIPC=yes$/RemoveIPC=false/' "$h/etc/systemd/logind.conf"
htrun 2 "main file RemoveIPC=false: plan" "$h" --json plan oracle $SGA
check "main file RemoveIPC=false: no is false" "kept no" "$(change logind.RemoveIPC outcome) $(change logind.RemoveIPC current)"
check "main file RemoveIPC=false: no drop-in" "" "$(files)"
# a drop-in overrides the main file
mkdir -p "$h/etc/systemd/logind.conf.d"
printf '[Login]\nRemoveIPC=yes\n' >"$h/etc/systemd/logind.conf.d/50-local.conf"
htrun 2 "an earlier drop-in sets yes: plan" "$h" --json plan oracle $SGA
check "an earlier drop-in sets yes: current yes" "yes" "$(change logind.RemoveIPC current)"
sd_check "... as systemd's order has it" "yes /etc/systemd/logind.conf.d/50-local.conf" "$(sd_last "$h" RemoveIPC logind.conf)"
check "an earlier drop-in sets yes: hosttune's drop-in wins over it" "/$OWN create" "$(files)"
# a vendor drop-in masked by a link to /dev/null in /etc counts for nothing
rm "$h/etc/systemd/logind.conf.d/50-local.conf"
sed -i 's/^RemoveIPC=false$/#RemoveIPC=yes/' "$h/etc/systemd/logind.conf"
mkdir -p "$h/usr/lib/systemd/logind.conf.d"
printf '[Login]\nRemoveIPC=no\n' >"$h/usr/lib/systemd/logind.conf.d/20-vendor.conf"
ln -s /dev/null "$h/etc/systemd/logind.conf.d/20-vendor.conf"
htrun 2 "a masked vendor drop-in: plan" "$h" --json plan oracle $SGA
check "a masked vendor drop-in: its no does not count" "yes" "$(change logind.RemoveIPC current)"
sd_check "... nor for systemd" " " "$(sd_last "$h" RemoveIPC logind.conf)"
# unmasked, and in /usr/lib: read, sorted among the others by name
rm "$h/etc/systemd/logind.conf.d/20-vendor.conf"
htrun 2 "a vendor drop-in with no: plan" "$h" --json plan oracle $SGA
check "a vendor drop-in with no: kept, no file" "kept no " "$(change logind.RemoveIPC outcome) $(change logind.RemoveIPC current) $(files)"

# ---- a later drop-in wins over hosttune's: warned --------------------------
h=$(prepare_host debian12-kvm); scratch "$h"
mkdir -p "$h/etc/systemd/logind.conf.d"
printf '[Login]\nRemoveIPC=yes\n' >"$h/etc/systemd/logind.conf.d/99-admin.conf"
htrun 2 "a later drop-in: plan" "$h" --json plan oracle $SGA
check "a later drop-in: overridden" "overridden" "$(change logind.RemoveIPC outcome)"
check_contains "a later drop-in: warned, naming the file" \
        "/etc/systemd/logind.conf.d/99-admin.conf sets RemoveIPC=yes and is read after /$OWN" "$tmp/out"
htrun 0 "a later drop-in: apply" "$h" --quiet apply oracle $SGA
sd_check "... and systemd agrees that the admin's file wins" "yes /etc/systemd/logind.conf.d/99-admin.conf" \
        "$(sd_last "$h" RemoveIPC logind.conf)"

# ---- the manager: limits are minimums -------------------------------------
profile nofile 'systemd = { system = { DefaultLimitNOFILE = "65536"; DefaultTimeoutStopSec = "30s"; }; };'
h=$(prepare_host debian12-kvm); scratch "$h"
hp "$h" --quiet apply nofile
check "manager: apply: exit 0" 0 "$rc"
# systemd's default is 1024:524288 (systemd-system.conf(5)): the hard limit stays
check "manager: soft raised, the default hard 524288 kept" "[Manager]
DefaultLimitNOFILE=65536:524288
DefaultTimeoutStopSec=30s" "$(grep -v '^#' "$h/$SOWN")"
sd_check "manager: systemd reads it last" "65536:524288 /$SOWN" "$(sd_last "$h" DefaultLimitNOFILE system.conf)"
hp "$h" --json plan nofile
check "manager: again: exit 0" 0 "$rc"
check "manager: time spans compare by length" "kept" "$(change system.DefaultTimeoutStopSec outcome)"
# another file already allows more: no line for it
h=$(prepare_host debian12-kvm); scratch "$h"
mkdir -p "$h/etc/systemd/system.conf.d"
printf '[Manager]\nDefaultLimitNOFILE=1048576\nDefaultTimeoutStopSec=0.5min\n' >"$h/etc/systemd/system.conf.d/50-big.conf"
hp "$h" --json plan nofile
check "manager: a host above the minimum: exit 0" 0 "$rc"
check "manager: the larger limit is kept" "kept 1048576" \
        "$(change system.DefaultLimitNOFILE outcome) $(change system.DefaultLimitNOFILE current)"
check "manager: no drop-in" "" "$(files)"

# ---- a profile without the section: hosttune's old drop-in goes ---------
profile nosd 'sysctl = { vm = { swappiness = 10; }; };'
# (a profile of no workload: an applied workload's profile, oracle, would
# stay, composed with the next, compose-applied.sh)
profile withsd 'systemd = { logind = { RemoveIPC = "no"; }; };'
h=$(prepare_host debian12-kvm); scratch "$h"
hp "$h" --quiet apply withsd
check "stale: apply a profile with a logind setting: exit 0" 0 "$rc"
hp "$h" --json plan nosd
check "stale: the drop-in is removed by a profile without systemd" "/$OWN remove" "$(files)"
# a file of the same name that hosttune did not write is the admin's: left alone
h=$(prepare_host debian12-kvm); scratch "$h"
mkdir -p "$h/etc/systemd/logind.conf.d"
printf '[Login]\nKillUserProcesses=no\n' >"$h/$OWN"
hp "$h" --json plan nosd
check "not ours: left alone" "" "$(files)"

# ---- an image: the drop-in is the change, no follow-up ---------------------
img=$(offline_image img debian12-kvm); scratch "$img"
mkdir -p "$img/run" "$img/var/lib"; : >"$img/run/hosttune.lock"
# (oracle needs --facts of the target for an image's HugePages: a profile
# of only this setting)
profile ipc 'systemd = { logind = { RemoveIPC = false; }; };'
hp "$img" --json plan ipc
check "image: plan: exit 2" 2 "$rc"
check "image: a libconfig false is no" "yes no" "$(change logind.RemoveIPC current) $(change logind.RemoveIPC desired)"
check "image: the drop-in planned" "/$OWN create" "$(files)"
check "image: no action" "" "$(jq -r '.actions[]?.action' "$tmp/out" | grep -E 'logind|daemon-reload')"

# ---- a host without systemd (RHEL 5): nothing reads a drop-in ----------
h=$(prepare_host rhel5-xen); scratch "$h"
hp "$h" --json plan ipc
check "no systemd, a required setting: an error" "1 failed" "$rc $(change logind.RemoveIPC outcome)"
check_contains "... saying why" "this host has no systemd-logind" "$tmp/out"
check "... and no drop-in" "" "$(files)"
htrun 2 "no systemd: oracle, where RemoveIPC is optional" "$h" --json plan oracle --set hugepages_bytes=0
check "no systemd: skipped" "skipped" "$(change logind.RemoveIPC outcome)"
check "no systemd: listed with the reason" "1" \
        "$(jq '[.skipped[] | select(.setting == "systemd logind.RemoveIPC")] | length' "$tmp/out")"

finish
