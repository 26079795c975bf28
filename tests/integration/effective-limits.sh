#!/bin/sh
# Issue 39, item 2: a limit no file of the unit (or no limits file) sets is
# not "unset": the service gets systemd's DefaultLimitX= (system.conf and
# its drop-ins in systemd's order), else systemd's compiled default for
# the version the root has (libsystemd-shared-N.so), else the kernel's as
# PID 1 has it (nproc), and a running service's /proc/PID/limits may show
# more; a login starts from the same. "At least" compares with that
# effective value: never lower, shown with where it comes from. One plan
# per case, the jvm profile for a unit demo-app.service run by appsvc.
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (scripts/deps.sh installs it)"
export HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1
ht() { r=$1; shift; "$HOSTTUNE" --root "$r" --profile-path "$top_srcdir/profiles" \
        --rules-path "$top_srcdir/rules" --json plan jvm --set jvm_unit=demo-app.service \
        --set jvm_user=appsvc --set heap_size=0 "$@"; }
d=$(copy_host debian12-kvm); scratch "$d"
mkdir -p "$d/etc/systemd/system" "$d/usr/lib/x86_64-linux-gnu/systemd"
printf '[Service]\nUser=appsvc\nExecStart=/usr/bin/java -jar /srv/app.jar\n' >"$d/etc/systemd/system/demo-app.service"
echo 'appsvc:x:990:990::/srv:/usr/sbin/nologin' >>"$d/etc/passwd"
echo 'appsvc:x:990:' >>"$d/etc/group"
: >"$d/usr/lib/x86_64-linux-gnu/systemd/libsystemd-shared-252.so"
# PID 1 as the kernel started it: nproc threads-max / 2 (the guest's 15656)
cat >"$d/proc/1/limits" <<'L'
Limit                     Soft Limit           Hard Limit           Units
Max processes             15656                15656                processes
Max open files            1073741816           1073741816           files
Max locked memory         67108864             67108864             bytes
L
# c KEY FIELD: a change's field from $tmp/p.json
c() { jq -r --arg k "$1" ".changes[] | select(.key == \$k) | .$2" "$tmp/p.json"; }
f() { jq -r --arg p "$1" '.files[] | select(.path == $p) | .after' "$tmp/p.json"; }
U=demo-app.service DROPIN=/etc/systemd/system/demo-app.service.d/hosttune.conf

# --- systemd 252, no DefaultLimit*=: its compiled 1024:524288 --------------
ht "$d" >"$tmp/p.json" 2>"$tmp/err"
check "252: plan exits 2" 2 $?
check "252: LimitNOFILE now systemd's default, not (unset)" "1024:524288" "$(c "$U LimitNOFILE" current)"
check_contains "252: where it comes from" "systemd 252's default for services" "$tmp/p.json"
check "252: the drop-in raises the soft limit only, the hard 524288 kept (not 65535)" \
        "LimitNOFILE=65535:524288" "$(f $DROPIN | grep '^Limit')"
check "252: LimitNPROC: the kernel's 15656 (PID 1) meets 4096: kept, no line" \
        "kept 15656" "$(c "$U LimitNPROC" outcome) $(c "$U LimitNPROC" current)"
check_contains "252: nproc from PID 1" "the kernel's default, as PID 1 has it (/proc/1/limits)" "$tmp/p.json"
# the login: soft nofile 1024 -> 65535, hard 524288 and nproc 15656 kept
check "login: soft nofile from 1024 to 65535" "1024 65535" \
        "$(c 'appsvc soft nofile' current) $(c 'appsvc soft nofile' desired)"
# Debian's pam_limits starts a login from PID 1's limits, not sshd's
# (its 027_pam_limits_better_init_allow_explicit_root patch; the soft
# nofile held to 1024): PID 1's hard 1073741816 (audit-limits)
check "login: hard nofile PID 1's 1073741816 kept" "kept 1073741816" "$(c 'appsvc hard nofile' outcome) $(c 'appsvc hard nofile' current)"
check "login: soft and hard nproc 15656 kept" "kept kept" \
        "$(c 'appsvc soft nproc' outcome) $(c 'appsvc hard nproc' outcome)"
check "login: limits.d holds only the soft nofile line" "appsvc     soft    nofile  65535" \
        "$(f /etc/security/limits.d/90-hosttune.conf | grep appsvc)"
"$HOSTTUNE" --root "$d" --profile-path "$top_srcdir/profiles" --rules-path "$top_srcdir/rules" --color=never \
        plan jvm --set jvm_unit=demo-app.service --set jvm_user=appsvc --set heap_size=0 >"$tmp/p.txt" 2>&1
check_contains "text: the effective value and its source instead of (unset)" \
        "LimitNOFILE: 1024:524288 [systemd 252's default for services" "$tmp/p.txt"
if grep -E 'Limit|nofile|nproc' "$tmp/p.txt" | grep -q '(unset)'; then not_ok "text: no (unset) for a limit"; else ok "text: no (unset) for a limit"; fi

# --- systemd 239: the kernel's 1024:4096 passed on --------------------------
rm "$d/usr/lib/x86_64-linux-gnu/systemd/libsystemd-shared-252.so"
: >"$d/usr/lib/x86_64-linux-gnu/systemd/libsystemd-shared-239.so"
ht "$d" >"$tmp/p.json" 2>/dev/null
check "239: LimitNOFILE now the kernel's 1024:4096" "1024:4096" "$(c "$U LimitNOFILE" current)"
check "239: the drop-in gives 65535 both" "LimitNOFILE=65535" "$(f $DROPIN | grep '^LimitNOFILE')"

# --- DefaultLimitNOFILE= in system.conf and its drop-ins --------------------
mkdir -p "$d/etc/systemd/system.conf.d" "$d/usr/lib/systemd/system.conf.d" "$d/run/systemd/system.conf.d"
printf '[Manager]\n#DefaultLimitNOFILE=1024:524288\nDefaultLimitNOFILE=2048:8192\n' >"$d/etc/systemd/system.conf"
ht "$d" >"$tmp/p.json" 2>/dev/null
check "system.conf: DefaultLimitNOFILE=2048:8192" "2048:8192" "$(c "$U LimitNOFILE" current)"
check_contains "system.conf: named" "DefaultLimitNOFILE=2048:8192 in $d/etc/systemd/system.conf" "$tmp/p.json"
# drop-ins by file name over every directory: /usr/lib's 20-big.conf after
# /run's 10-small.conf; /etc's 20-big.conf hides /usr/lib's of that name
printf '[Manager]\nDefaultLimitNOFILE=100000\n' >"$d/usr/lib/systemd/system.conf.d/20-big.conf"
printf '[Manager]\nDefaultLimitNOFILE=4096\n' >"$d/run/systemd/system.conf.d/10-small.conf"
ht "$d" >"$tmp/p.json" 2>/dev/null
check "drop-ins: the last by name wins (/usr/lib's 20-big.conf): 100000 meets 65535, kept" \
        "kept 100000" "$(c "$U LimitNOFILE" outcome) $(c "$U LimitNOFILE" current)"
check_contains "drop-ins: named" "DefaultLimitNOFILE=100000 in $d/usr/lib/systemd/system.conf.d/20-big.conf" "$tmp/p.json"
check "drop-ins: no drop-in for the unit" "" "$(f $DROPIN)"
printf '[Manager]\nDefaultLimitNOFILE=3000:200000\n' >"$d/etc/systemd/system.conf.d/20-big.conf"
ht "$d" >"$tmp/p.json" 2>/dev/null
check "drop-ins: /etc's 20-big.conf hides /usr/lib's: 3000:200000, the soft raised" \
        "3000:200000 LimitNOFILE=65535:200000" "$(c "$U LimitNOFILE" current) $(f $DROPIN | grep '^LimitNOFILE')"
check "login: on Debian a login starts from PID 1's limits, not the manager's default (hard 1073741816 kept)" "kept 1073741816" \
        "$(c 'appsvc hard nofile' outcome) $(c 'appsvc hard nofile' current)"

# --- the running service has more: /proc/PID/limits -------------------------
mkdir -p "$d/sys/fs/cgroup/system.slice/$U" "$d/proc/4242"
echo 4242 >"$d/sys/fs/cgroup/system.slice/$U/cgroup.procs"
cat >"$d/proc/4242/limits" <<'L'
Limit                     Soft Limit           Hard Limit           Units
Max processes             15656                15656                processes
Max open files            524288               1048576              files
L
ht "$d" >"$tmp/p.json" 2>/dev/null
check "running: its 524288:1048576 is what it has: kept" "kept 524288:1048576" \
        "$(c "$U LimitNOFILE" outcome) $(c "$U LimitNOFILE" current)"
check_contains "running: named" "the running pid 4242 has 524288:1048576 (/proc/4242/limits)" "$tmp/p.json"

# --- the unit's own value still wins over every default --------------------
printf '[Service]\nUser=appsvc\nLimitNOFILE=8192\nExecStart=/usr/bin/java -jar /srv/app.jar\n' \
        >"$d/etc/systemd/system/demo-app.service"
ht "$d" >"$tmp/p.json" 2>/dev/null
check "unit's own LimitNOFILE=8192: current, no source line" "8192 null" \
        "$(c "$U LimitNOFILE" current) $(c "$U LimitNOFILE" current_from)"
check "unit's own: raised to 65535" "LimitNOFILE=65535" "$(f $DROPIN | grep '^LimitNOFILE')"

# --- rollback names the service that keeps the limits it started with ------
"$HOSTTUNE" --root "$d" --profile-path "$top_srcdir/profiles" --rules-path "$top_srcdir/rules" apply jvm \
        --set jvm_unit=demo-app.service --set jvm_user=appsvc --set heap_size=0 >"$tmp/a.out" 2>&1
check "apply exits 0" 0 $?
check "the drop-in is there" "LimitNOFILE=65535" "$(grep '^LimitNOFILE' "$d$DROPIN")"
run 0 "rollback" --root "$d" rollback
check_contains "rollback: the running service keeps its limits until restarted" \
        "demo-app.service (pid 4242) keeps the limits it started with until it restarts: systemctl restart demo-app.service" \
        "$tmp/out"
finish
