#!/bin/sh
# The service backend resolves a unit name to the unit the host has
# (Debian's mariadb.service with mysql/mysqld links, RHEL's mysqld.service,
# RHEL's mariadb.service with Alias=), writes one drop-in for it, reads
# its current limits from the unit and every drop-in, never lowers them,
# and systemd itself (systemd-analyze --root verify) sees the result.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
PROFILES=$top_srcdir/profiles
U=$top_srcdir/tests/units
DEB_UNIT=$U/debian12-mariadb/lib/systemd/system/mariadb.service
BP=2G
BP_BYTES=2147483648
# The backend's unit handling is what is tested: a server that takes its
# large pages with shmget() (hugepages_sysv, MariaDB 10.4 and older) needs
# LimitMEMLOCK for them, and an open_files_limit above the 32768 that
# MariaDB's own unit already has makes LimitNOFILE a change too (issue 33:
# MariaDB 10.5+ maps its pages, and 32768 is its unit's own value).
SYSV="--set hugepages_sysv=true --set open_files_limit=65535"

# host NAME OVERLAY: a fixture copy with a unit overlay on it
host() {
        p=$(prepare_host "$1"); scratch "$p"
        cp -a "$U/$2/." "$p/"
        printf '%s\n' "$p"
}
unit_value() { sed -n "s/^$2 *= *//p" "$1" | tail -n 1; }
# what systemd loads for UNIT under ROOT: "Skipping" lines, drop-ins, limits
sd_dump() {
        SYSTEMD_LOG_LEVEL=debug systemd-analyze --root="$1" verify "$2" >"$tmp/sd" 2>&1
        grep -E "Skipping overridden|DropIn Path|^[[:space:]]+Limit(NOFILE|MEMLOCK):" "$tmp/sd" >"$tmp/sd.f"
}
sd_limit() { sed -n "s/^[[:space:]]*$1: //p" "$tmp/sd.f" | head -n 1; }
have_sd=yes
if ! command -v systemd-analyze >/dev/null 2>&1 ||
   ! SYSTEMD_LOG_LEVEL=debug systemd-analyze --root="$U/debian12-mariadb" verify mariadb.service 2>&1 |
        grep -q "LimitMEMLOCK:"; then have_sd=; fi
sd_check() { # sd_check DESC EXPECTED ACTUAL (skipped without systemd-analyze)
        if [ -n "$have_sd" ]; then check "$@"; else skip "$1" "systemd-analyze --root verify not available"; fi
}

# --- Debian 12: mysqld.service and mysql.service are links to mariadb.service
h=$(host debian12-kvm debian12-mariadb); scratch "$h"
htrun 2 "debian: plan" "$h" --json plan mysql $SYSV --set innodb_buffer_pool_size=$BP
check "debian: LimitNOFILE current from the vendor unit" "$(unit_value "$DEB_UNIT" LimitNOFILE)" \
        "$(jq -r '.changes[] | select(.key == "mariadb.service LimitNOFILE") | .current' "$tmp/out")"
check "debian: LimitMEMLOCK current from the vendor unit" "$(unit_value "$DEB_UNIT" LimitMEMLOCK)" \
        "$(jq -r '.changes[] | select(.key == "mysqld.service LimitMEMLOCK") | .current' "$tmp/out")"
# the bug's leftover: an earlier hosttune's drop-in under the alias name
mkdir -p "$h/etc/systemd/system/mysqld.service.d"
printf '# Managed by hosttune (profile mysql). Changes here are overwritten\n[Service]\nLimitMEMLOCK=4299161600\n' \
        >"$h/etc/systemd/system/mysqld.service.d/hosttune.conf"
htrun 2 "debian: plan with the leftover" "$h" --json plan mysql $SYSV --set innodb_buffer_pool_size=$BP
check "debian: one drop-in written, the alias one removed" \
        "/etc/systemd/system/mariadb.service.d/hosttune.conf create
/etc/systemd/system/mysqld.service.d/hosttune.conf remove" \
        "$(jq -r '.files[] | select(.backend == "service") | .path + " " + .action' "$tmp/out" | sort)"
check "debian: the leftover is what systemd uses now" "4299161600" \
        "$(jq -r '.changes[] | select(.key == "mysqld.service LimitMEMLOCK") | .current' "$tmp/out")"
check "debian: no error" "0" "$(jq '.errors | length' "$tmp/out")"
htrun 0 "debian: apply" "$h" --quiet apply mysql $SYSV --set innodb_buffer_pool_size=$BP
check "debian: no drop-in left under the alias" "no" \
        "$([ -e "$h/etc/systemd/system/mysqld.service.d/hosttune.conf" ] && echo yes || echo no)"
D=$h/etc/systemd/system/mariadb.service.d/hosttune.conf
memlock=$(unit_value "$D" LimitMEMLOCK)
check "debian: LimitMEMLOCK covers the buffer pool" yes "$([ "${memlock:-0}" -ge $BP_BYTES ] && echo yes || echo no)"
check "debian: LimitNOFILE the profile's" "65535" "$(unit_value "$D" LimitNOFILE)"
sd_dump "$h" mariadb.service
sd_check "systemd: no overridden drop-in" "" "$(grep Skipping "$tmp/sd.f")"
sd_check "systemd: reads hosttune's drop-in" "DropIn Path: $D" "$(sed -n 's/^[[:space:]]*//; /DropIn Path/p' "$tmp/sd.f")"
sd_check "systemd: LimitMEMLOCK of mariadb.service" "$memlock" "$(sd_limit LimitMEMLOCK)"
sd_check "systemd: LimitNOFILE of mariadb.service" "65535" "$(sd_limit LimitNOFILE)"
ht "$h" --json verify
# (the fourth: the start gate's ExecStartPre= line, issue 37)
check "debian: verify: service checks ok" "ok ok ok ok" \
        "$(jq -r '[.checks[] | select(.backend == "service") | .status] | join(" ")' "$tmp/out")"
# someone lowers it in a drop-in read after hosttune's
printf '[Service]\nLimitMEMLOCK=1M\n' >"$h/etc/systemd/system/mariadb.service.d/zz-local.conf"
ht "$h" --json verify
check "debian: verify exit on drift" 2 "$rc"
check "debian: verify: LimitMEMLOCK drift, actual the later file's" "drift 1M" \
        "$(jq -r '.checks[] | select(.key == "mysqld.service LimitMEMLOCK") | .status + " " + .actual' "$tmp/out")"
sd_dump "$h" mariadb.service
sd_check "systemd agrees: LimitMEMLOCK lowered" "1048576" "$(sd_limit LimitMEMLOCK)"

# --- never lower: a drop-in before hosttune's that already allows more
h=$(host debian12-kvm debian12-mariadb); scratch "$h"
mkdir -p "$h/etc/systemd/system/mariadb.service.d"
printf '[Service]\nLimitNOFILE=infinity\nLimitMEMLOCK=1024:8G\n' >"$h/etc/systemd/system/mariadb.service.d/10-local.conf"
htrun 2 "higher: plan" "$h" --json plan mysql $SYSV --set innodb_buffer_pool_size=$BP
check "higher: LimitNOFILE infinity kept" "kept infinity" \
        "$(jq -r '.changes[] | select(.key == "mariadb.service LimitNOFILE") | .outcome + " " + .current' "$tmp/out")"
check "higher: drop-in raises only the soft memlock, keeps 8G hard" \
        "LimitMEMLOCK=$memlock:8589934592" \
        "$(jq -r '.files[] | select(.backend == "service") | .after' "$tmp/out" | grep '^Limit')"

# --- never lower: what systemd reads from other drop-in directories too:
# the type's service.d (every service) and a template's foo@.service.d
h=$(host debian12-kvm debian12-mariadb); scratch "$h"
mkdir -p "$h/etc/systemd/system/service.d"
printf '[Service]\nLimitNOFILE=1048576\n' >"$h/etc/systemd/system/service.d/00-site.conf"
htrun 2 "type drop-in: plan" "$h" --json plan mysql $SYSV
check "type drop-in: LimitNOFILE 1048576 from service.d kept" "kept 1048576" \
        "$(jq -r '.changes[] | select(.key == "mariadb.service LimitNOFILE") | .outcome + " " + .current' "$tmp/out")"
check "type drop-in: no unit drop-in written to lower it" "" \
        "$(jq -r '.files[] | select(.backend == "service") | .path' "$tmp/out")"
sd_dump "$h" mariadb.service
sd_check "systemd agrees: LimitNOFILE from service.d" "1048576" "$(sd_limit LimitNOFILE)"
# a template instance reads its template's drop-ins (prefix cut before '@')
h=$(prepare_host debian12-kvm); scratch "$h"
mkdir -p "$h/lib/systemd/system" "$h/etc/systemd/system/app@.service.d"
printf '[Unit]\nDescription=app %%i\n[Service]\nExecStart=/bin/true\n' >"$h/lib/systemd/system/app@.service"
printf '[Service]\nLimitNOFILE=262144\n' >"$h/etc/systemd/system/app@.service.d/10-site.conf"
htrun 2 "template drop-in: plan" "$h" --json plan jvm --set jvm_unit=app@one.service
check "template drop-in: the instance is its template's unit" "app@one.service" \
        "$(jq -r '[.changes[] | select(.backend == "service") | .key | split(" ")[0]] | unique | join(" ")' "$tmp/out")"
check "template drop-in: LimitNOFILE 262144 from app@.service.d kept" "kept 262144" \
        "$(jq -r '.changes[] | select(.key | endswith("LimitNOFILE")) | .outcome + " " + .current' "$tmp/out")"
check "template drop-in: the instance's drop-in raises LimitNPROC" "/etc/systemd/system/app@one.service.d/hosttune.conf" \
        "$(jq -r '.files[] | select(.backend == "service") | .path' "$tmp/out")"
# a name with dashes reads the drop-ins of each prefix (my-.service.d)
mkdir -p "$h/etc/systemd/system/my-.service.d"
printf '[Service]\nExecStart=/bin/true\n' >"$h/lib/systemd/system/my-app.service"
printf '[Service]\nLimitNOFILE=300000\n' >"$h/etc/systemd/system/my-.service.d/10-site.conf"
htrun 2 "prefix drop-in: plan" "$h" --json plan jvm --set jvm_unit=my-app.service
check "prefix drop-in: LimitNOFILE 300000 from my-.service.d kept" "kept 300000" \
        "$(jq -r '.changes[] | select(.key | endswith("LimitNOFILE")) | .outcome + " " + .current' "$tmp/out")"
htrun 0 "template drop-in: apply" "$h" apply jvm --set jvm_unit=app@one.service
sd_dump "$h" app@one.service
sd_check "systemd agrees: the instance keeps the template drop-in's LimitNOFILE" "262144" "$(sd_limit LimitNOFILE)"

# --- RHEL 9 MySQL: mysqld.service; mariadb.service absent (optional)
h=$(host ol8-bls rhel9-mysqld); scratch "$h"
R=$U/rhel9-mysqld/usr/lib/systemd/system/mysqld.service
htrun 2 "rhel mysqld: plan" "$h" --json plan mysql $SYSV --set innodb_buffer_pool_size=$BP
check "rhel mysqld: the drop-in of mysqld.service" "/etc/systemd/system/mysqld.service.d/hosttune.conf" \
        "$(jq -r '.files[] | select(.backend == "service") | .path' "$tmp/out")"
check "rhel mysqld: current LimitNOFILE" "$(unit_value "$R" LimitNOFILE)" \
        "$(jq -r '.changes[] | select(.key == "mysqld.service LimitNOFILE") | .current' "$tmp/out")"
jq -r '.skipped[] | .reason' "$tmp/out" >"$tmp/msgs"
check_contains "rhel mysqld: mariadb.service skipped" "LimitNOFILE=65535 for mariadb.service: no such unit" "$tmp/msgs"
check "rhel mysqld: and not warned about" 0 "$(jq '[.warnings[] | select(contains("mariadb.service"))] | length' "$tmp/out")"
htrun 0 "rhel mysqld: apply" "$h" --quiet apply mysql $SYSV --set innodb_buffer_pool_size=$BP
sd_dump "$h" mysqld.service
sd_check "systemd: mysqld.service LimitNOFILE" "65535" "$(sd_limit LimitNOFILE)"

# --- RHEL 9 MariaDB, not enabled: mysqld.service only in Alias=
h=$(host ol8-bls rhel9-mariadb); scratch "$h"
htrun 2 "rhel mariadb: plan" "$h" --json plan mysql $SYSV --set innodb_buffer_pool_size=$BP
check "rhel mariadb: one drop-in, for mariadb.service" "/etc/systemd/system/mariadb.service.d/hosttune.conf" \
        "$(jq -r '.files[] | select(.backend == "service") | .path' "$tmp/out")"
check "rhel mariadb: both settings in it" "LimitNOFILE=65535 LimitMEMLOCK" \
        "$(jq -r '.files[] | select(.backend == "service") | .after' "$tmp/out" | grep '^Limit' | sed 's/^LimitMEMLOCK=.*/LimitMEMLOCK/' | paste -sd' ' -)"

# --- no unit, a masked one, a link out of the root
h=$(prepare_host debian12-kvm); scratch "$h"
htrun 1 "no unit: large pages need the unit" "$h" --json plan mysql $SYSV --set innodb_buffer_pool_size=$BP
jq -r '.errors[]' "$tmp/out" >"$tmp/msgs"
check_contains "no unit: the error says so" "for mysqld.service: no such unit on this host" "$tmp/msgs"
check "no unit: no drop-in" "0" "$(jq '[.files[] | select(.backend == "service")] | length' "$tmp/out")"
htrun 2 "no unit, no large pages: optional limits skipped" "$h" --json plan mysql
h=$(host debian12-kvm debian12-mariadb); scratch "$h"
ln -s /dev/null "$h/etc/systemd/system/mariadb.service"
htrun 1 "masked: plan fails" "$h" --json plan mysql $SYSV --set innodb_buffer_pool_size=$BP
jq -r '.errors[]' "$tmp/out" >"$tmp/msgs"
check_contains "masked: says so" "the unit is masked" "$tmp/msgs"
h=$(host debian12-kvm debian12-mariadb); scratch "$h"
ln -s ../../../../../../../../etc/passwd "$h/etc/systemd/system/mysqld.service"
htrun 1 "link out of the root: refused" "$h" --json plan mysql $SYSV --set innodb_buffer_pool_size=$BP
jq -r '.errors[]' "$tmp/out" >"$tmp/msgs"
check_contains "link out of the root: says so" "out of the root (refused)" "$tmp/msgs"

# Time spans and priorities are not "at least" values: written as given
# (systemd.exec(5): LimitCPU= and LimitRTTIME= take time spans)
h=$(host debian12-kvm debian12-mariadb); scratch "$h"
mkdir -p "$tmp/tprof"
printf 'summary = "time limits";
services = { mariadb = { LimitCPU = "1h"; LimitRTTIME = "500ms"; }; };
' \
        >"$tmp/tprof/timelimits.profile"
"$HOSTTUNE" --root "$h" --profile-path "$tmp/tprof" --rules-path "$RULES" apply timelimits >"$tmp/out" 2>"$tmp/err"
check "time spans: apply (exit status)" 0 "$?"
check "time spans: LimitCPU as given" "1h" "$(unit_value "$h/etc/systemd/system/mariadb.service.d/hosttune.conf" LimitCPU)"
check "time spans: LimitRTTIME as given" "500ms" \
        "$(unit_value "$h/etc/systemd/system/mariadb.service.d/hosttune.conf" LimitRTTIME)"
finish
