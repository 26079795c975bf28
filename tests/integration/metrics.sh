#!/bin/sh
# Metrics for Prometheus (issue 22, part 2): verify and status
# --format=openmetrics and --textfile on fixture copies, pending a reboot,
# drifted (a database that runs without its HugePages) and with them in
# use. Each exposition is read by the parser of its format: OpenMetrics by
# python3-prometheus-client's (strict: names, types, units, escapes, EOF),
# the textfile by promtool check metrics (the 0.0.4 parser node_exporter's
# textfile collector uses, and its lint), and by Debian's node_exporter
# itself (its textfile collector alone, on a free 127.0.0.1 port); values
# against the fixture's /proc files and the apply's own --json; a process
# name with a quote and a backslash. The example alerting rules pass
# promtool check rules and their unit tests (metrics-alerts.test.yml).
# Needs jq; python3-prometheus-client, promtool (Debian's prometheus) and
# prometheus-node-exporter with curl, or those checks skip. TAP output.
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"
HOSTTUNE_NO_AUDIT=1 HOSTTUNE_INSECURE_PROFILES=1
export HOSTTUNE_NO_AUDIT HOSTTUNE_INSECURE_PROFILES
P=$(cd "$PROFILES" && pwd)
R=$(cd "$top_srcdir/rules" && pwd)
# Debian's python3 (python3-prometheus-client is a Debian package; a
# python3 earlier on PATH may be another)
py=
for c in /usr/bin/python3 python3; do
        if "$c" -c 'import prometheus_client.openmetrics.parser' 2>/dev/null; then py=$c; break; fi
done
promtool=$(command -v promtool || :)
tf=/var/lib/prometheus/node-exporter/hosttune.prom

# om FILE: the OpenMetrics exposition parsed, one line a sample:
# "FAMILY TYPE UNIT SAMPLE{k=v,...} VALUE" (labels sorted), or the error
om() {
        "$py" - "$1" <<'PY'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
for f in text_string_to_metric_families(open(sys.argv[1], encoding="utf-8").read()):
    if not f.samples:
        print(f.name, f.type, f.unit or "-", "(none)")
    for s in f.samples:
        labels = ",".join("%s=%s" % kv for kv in sorted(s.labels.items()))
        v = s.value
        print(f.name, f.type, f.unit or "-", "%s{%s}" % (s.name, labels), int(v) if float(v).is_integer() else v)
PY
}
# sample SAMPLE{labels} [FILE]: its value in a parsed exposition
sample() { awk -v s="$1" '$4 == s { print $5 }' "${2:-$tmp/om.txt}"; }
# parse_om DESC FILE: strict OpenMetrics parse into $tmp/om.txt
parse_om() {
        if [ -z "$py" ]; then
                skip "$1: OpenMetrics parser" "python3-prometheus-client is not installed"
                : >"$tmp/om.txt"
                return
        fi
        if om "$2" >"$tmp/om.txt" 2>"$tmp/om.err"; then ok "$1: OpenMetrics parser takes it"
        else not_ok "$1: OpenMetrics parser: $(tail -1 "$tmp/om.err")"; fi
}
# lint DESC FILE: promtool check metrics (exit 0 and no complaint)
lint() {
        if [ -z "$promtool" ]; then skip "$1: promtool check metrics" "promtool (Debian's prometheus) is not installed"; return; fi
        if out=$("$promtool" check metrics <"$2" 2>&1) && [ -z "$out" ]; then ok "$1: promtool check metrics"
        else not_ok "$1: promtool check metrics: $out"; fi
}
mi() { awk -v k="$2:" '$1 == k { print $2 }' "$1"; }
vm() { awk -v k="$2" '$1 == k { print $2 }' "$1"; }

# ---- usage: openmetrics for verify and status only
h=$(copy_host debian12-kvm); scratch "$h"
run 1 "plan --format=openmetrics is a usage error" --root "$h" --profile-path "$P" plan oracle --format=openmetrics
check "  and says so" "hosttune: 'plan' does not take --format=openmetrics" "$(head -1 "$tmp/err")"
run 1 "facts --textfile is a usage error" --root "$h" facts --textfile "$tf"
run 1 "--format=yaml is a usage error" --root "$h" verify --format=yaml
check "  and names the formats" "hosttune: --format wants text, json or openmetrics, got 'yaml'" "$(head -1 "$tmp/err")"
run 1 "--json with --format=openmetrics contradict" --root "$h" status --json --format=openmetrics
run 1 "--textfile without its PATH" --root "$h" verify --textfile
check "  says it needs one" "hosttune: option '--textfile' needs an argument" "$(head -1 "$tmp/err")"
run 1 "--format=json without a journal: verify's error, as --json" --root "$h" verify --format=json
check "--format=json is --json" "$("$HOSTTUNE" --root "$h" --json facts)" "$("$HOSTTUNE" --root "$h" --format=json facts)"

# ---- pending a reboot: Oracle's HugePages stay short after the apply
O=$(copy_host oracle-running); scratch "$O"
"$HOSTTUNE" --root "$O" --profile-path "$P" --rules-path "$R" --json apply oracle --set hugepages_from=shm \
        >"$tmp/apply.json" 2>"$tmp/apply.err"
check "oracle-running: apply exits 0" 0 $?
txid=$(jq -r .txid "$tmp/apply.json")
asked=$(jq -r '.changes[] | select(.key == "vm.nr_hugepages") | .desired' "$tmp/apply.json")
run 3 "pending: verify --format=openmetrics exits as verify does" --root "$O" verify --format=openmetrics
cp "$tmp/out" "$tmp/verify-pending.om"
check "pending: ends with # EOF" "# EOF" "$(tail -1 "$tmp/out")"
parse_om "pending: verify" "$tmp/verify-pending.om"
if [ -n "$py" ]; then
        check "pending: status reboot-pending is 1, the others 0" "0 0 1" \
                "$(for s in ok drift reboot-pending; do sample "hosttune_verify_status{status=$s}"; done | paste -sd' ' -)"
        check "pending: reboot pending" 1 "$(sample 'hosttune_reboot_pending{}')"
        check "pending: no drift" 0 "$(sample 'hosttune_verify_drift_checks{}')"
        check "pending: HugePages_Total waits for the reboot" 1 \
                "$(sample 'hosttune_verify_checks{backend=hugepages,status=reboot-pending}')"
        check "pending: the info metric: profile and the apply's txid" "info 1" \
                "$(awk -v s="hosttune_applied_info{profile=oracle,txid=$txid}" '$4 == s { print $2, $5 }' "$tmp/om.txt")"
        check "pending: the age has the unit seconds" "gauge seconds" \
                "$(awk '$1 == "hosttune_last_apply_age_seconds" { print $2, $3 }' "$tmp/om.txt")"
        age=$(sample 'hosttune_last_apply_age_seconds{}')
        check "pending: seconds since the apply, under a minute" yes "$([ "${age:-99}" -ge 0 ] && [ "${age:-99}" -lt 60 ] && echo yes)"
        # the checks by backend add up to verify's own --json
        "$HOSTTUNE" --root "$O" --json verify >"$tmp/v.json" 2>/dev/null
        check "pending: checks by backend and status add up to verify's" "$(jq '.checks | length' "$tmp/v.json")" \
                "$(awk '$1 == "hosttune_verify_checks" { s += $5 } END { print s }' "$tmp/om.txt")"
        check "pending: every backend verify checked, each with three states" \
                "$(jq -r '[.checks[].backend] | unique | length * 3' "$tmp/v.json")" \
                "$(awk '$1 == "hosttune_verify_checks"' "$tmp/om.txt" | wc -l | tr -d ' ')"
fi

run 0 "pending: status --format=openmetrics" --root "$O" status --format=openmetrics
cp "$tmp/out" "$tmp/status-pending.om"
parse_om "pending: status" "$tmp/status-pending.om"
if [ -n "$py" ]; then
        check "status: reboot pending (the journal's boot id is this boot's)" 1 "$(sample 'hosttune_reboot_pending{}')"
        for s in total:Total free:Free reserved:Rsvd surplus:Surp; do
                check "status: HugePages ${s%%:*} = meminfo HugePages_${s#*:}" "$(mi "$O/proc/meminfo" "HugePages_${s#*:}")" \
                        "$(sample "hosttune_hugepages{state=${s%%:*}}")"
        done
        check "status: page tables in bytes" "$(($(mi "$O/proc/meminfo" PageTables) * 1024))" \
                "$(sample 'hosttune_page_tables_bytes{}')"
        check "status: major faults, a counter" "counter $(vm "$O/proc/vmstat" pgmajfault)" \
                "$(awk '$4 == "hosttune_major_faults_total{}" { print $2, $5 }' "$tmp/om.txt")"
        check "status: swap-ins, a counter" "counter $(vm "$O/proc/vmstat" pswpin)" \
                "$(awk '$4 == "hosttune_swap_ins_total{}" { print $2, $5 }' "$tmp/om.txt")"
        check "status: pmon's HugePages (its smaps: none)" 0 \
                "$(sample 'hosttune_workload_hugepages_bytes{kind=oracle,name=ora_pmon_ORCL,pid=1234}')"
        # a process whose smaps the fixture lacks has unknown HugePages: no
        # sample, not a 0
        check "status: a sample for each database process with an smaps" "$(ls "$O"/proc/12[0-9][0-9]/smaps | wc -l | tr -d ' ')" \
                "$(awk '$1 == "hosttune_workload_hugepages_bytes" && $4 ~ /kind=oracle/' "$tmp/om.txt" | wc -l | tr -d ' ')"
fi

# ---- --textfile: node_exporter's directory missing, then there
run 3 "textfile: no node_exporter directory: verify still exits as verify" --root "$O" verify --textfile "$tf"
check_contains "textfile: says it writes nothing" "hosttune: note: not writing $O$tf: its directory does not exist" "$tmp/err"
check "textfile: nothing made" no "$([ -e "$O/var/lib/prometheus" ] && echo yes || echo no)"
mkdir -p "$O/var/lib/prometheus/node-exporter"
run 0 "textfile: status --textfile" --root "$O" status --textfile "$tf"
check_contains "textfile: stdout is still the text report" "Reboot pending:   yes (transaction $txid needs one)" "$tmp/out"
check "textfile: mode 0644, for node_exporter's user" 644 "$(stat -c %a "$O$tf")"
check "textfile: no temp file left" "hosttune.prom" "$(ls -A "$O/var/lib/prometheus/node-exporter" | paste -sd' ' -)"
lint "textfile: status" "$O$tf"
# the same metrics as --format=openmetrics: only the counter and info
# families are named as the 0.0.4 format names them
check "textfile: counters named with _total" "# TYPE hosttune_major_faults_total counter" \
        "$(grep '^# TYPE hosttune_major_faults' "$O$tf")"
check "textfile: the info metric a gauge" "# TYPE hosttune_applied_info gauge" \
        "$(grep '^# TYPE hosttune_applied' "$O$tf")"
check "textfile: no # EOF or # UNIT" 0 "$(grep -c '^# \(EOF\|UNIT\)' "$O$tf")"
# samples equal, but for the age, which moves
strip() { grep -v '^#' "$1" | grep -v '^hosttune_last_apply_age_seconds' | sort; }
check "textfile: the same samples as the OpenMetrics exposition" "$(strip "$tmp/status-pending.om")" "$(strip "$O$tf")"
run 3 "textfile: verify --format=openmetrics --textfile: both" --root "$O" verify --format=openmetrics --textfile "$tf"
check "textfile: verify's file has verify's families" \
        "$(grep '^# TYPE' "$tmp/verify-pending.om" | sed 's/hosttune_applied info/hosttune_applied_info gauge/')" \
        "$(grep '^# TYPE' "$O$tf")"
lint "textfile: verify" "$O$tf"
run 0 "textfile: an empty PATH writes none (the unit's HOSTTUNE_TEXTFILE=)" --root "$O" status --textfile ""
check "textfile: an empty PATH: no note" "" "$(cat "$tmp/err")"
rm -f "$O$tf"
mkdir "$O$tf"
run 1 "textfile: a directory in the way is an error" --root "$O" status --textfile "$tf"
check_contains "  naming the file" "hosttune: --textfile $O$tf:" "$tmp/err"
rmdir "$O$tf"
# Debian's prometheus-node-exporter postinst chowns /var/lib/prometheus to
# its prometheus user: root writes there all the same
if [ "$(id -u)" -eq 0 ]; then
        chown 65534:65534 "$O/var/lib/prometheus"
        run 0 "textfile: /var/lib/prometheus owned by node_exporter's user, as Debian's postinst leaves it" \
                --root "$O" status --textfile "$tf"
        check "  written, root's, 0644" "root 644" "$(stat -c '%U %a' "$O$tf" 2>&1)"
        chown 0:0 "$O/var/lib/prometheus"
else
        skip "textfile: /var/lib/prometheus owned by another user" "needs root (chown)"
fi
# a symlink on the way is not followed (whoever owns the directory could
# have put it there): an error, and nothing where it points
mkdir "$tmp/elsewhere"
mv "$O/var/lib/prometheus/node-exporter" "$O/var/lib/prometheus/ne.real"
ln -s ../../../elsewhere "$O/var/lib/prometheus/node-exporter"
mkdir "$O/elsewhere"
run 1 "textfile: a symlink on the path is an error" --root "$O" status --textfile "$tf"
check_contains "  saying so" "hosttune: --textfile $O$tf: a symbolic link on its path (not followed" "$tmp/err"
check "  nothing written where it points" "" "$(ls -A "$O/elsewhere")"
rm "$O/var/lib/prometheus/node-exporter"
rmdir "$O/elsewhere" "$tmp/elsewhere"
mv "$O/var/lib/prometheus/ne.real" "$O/var/lib/prometheus/node-exporter"

# ---- drifted: the reboot came, the pages are there, Oracle uses none
echo 0f3e2d1c-aaaa-4bbb-8ccc-123456789abc >"$O/proc/sys/kernel/random/boot_id"
sed -i "s/^HugePages_Total:.*/HugePages_Total: $asked/; s/^HugePages_Free:.*/HugePages_Free: $asked/" "$O/proc/meminfo"
echo "$asked" >"$O/proc/sys/vm/nr_hugepages"
run 2 "drift: verify --format=openmetrics --textfile exits 2" --root "$O" verify --format=openmetrics --textfile "$tf"
cp "$tmp/out" "$tmp/verify-drift.om"
parse_om "drift: verify" "$tmp/verify-drift.om"
lint "drift: verify textfile" "$O$tf"
if [ -n "$py" ]; then
        check "drift: status drift is 1, the others 0" "0 1 0" \
                "$(for s in ok drift reboot-pending; do sample "hosttune_verify_status{status=$s}"; done | paste -sd' ' -)"
        check "drift: one check drifted (HugePages in use)" 1 "$(sample 'hosttune_verify_drift_checks{}')"
        check "drift: it is the hugepages backend's" 1 "$(sample 'hosttune_verify_checks{backend=hugepages,status=drift}')"
        check "drift: no reboot pending after the reboot" 0 "$(sample 'hosttune_reboot_pending{}')"
fi
check "drift: the textfile says drift too" 'hosttune_verify_status{status="drift"} 1' \
        "$(grep '^hosttune_verify_status{status="drift"}' "$O$tf")"

# ---- Debian's node_exporter reads the textfile: its textfile collector
# alone, on a free port of 127.0.0.1, scraped once into $tmp/ne.out
ne=$(command -v prometheus-node-exporter || command -v node_exporter || :)
command -v curl >/dev/null 2>&1 || ne=
ne_scrape() {
        port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
        "$ne" --collector.disable-defaults --collector.textfile \
                --collector.textfile.directory="$O/var/lib/prometheus/node-exporter" \
                --web.listen-address="127.0.0.1:$port" >"$tmp/ne.log" 2>&1 &
        ne_pid=$!
        i=0
        : >"$tmp/ne.out"
        until curl -sf "http://127.0.0.1:$port/metrics" >"$tmp/ne.out" 2>/dev/null || [ $i -ge 50 ]; do
                sleep 0.1; i=$((i + 1))
        done
        kill "$ne_pid" 2>/dev/null; wait "$ne_pid" 2>/dev/null
}
ne_why="prometheus-node-exporter (Debian's node_exporter) or curl is not installed"
if [ -z "$ne" ]; then
        skip "node_exporter: its textfile collector reads the file" "$ne_why"
else
        ne_scrape
        check "node_exporter: read the file without error" "node_textfile_scrape_error 0" \
                "$(grep '^node_textfile_scrape_error' "$tmp/ne.out" || tail -2 "$tmp/ne.log")"
        check "node_exporter: serves the verdict" 'hosttune_verify_status{status="drift"} 1' \
                "$(grep '^hosttune_verify_status{status="drift"}' "$tmp/ne.out")"
        check "node_exporter: the info metric with its labels" \
                "hosttune_applied_info{profile=\"oracle\",txid=\"$txid\"} 1" "$(grep '^hosttune_applied_info' "$tmp/ne.out")"
fi

# ---- the pages in use: the SGA attached, as the kernel shows it
pd=$O/proc/1234
cat >"$pd/smaps_rollup" <<'EOF2'
00400000-7ffd1c3f9000 ---p 00000000 00:00 0                              [rollup]
Rss:               52316 kB
Shared_Hugetlb:  2097152 kB
Private_Hugetlb:    4096 kB
Swap:                  0 kB
EOF2
run 0 "in use: status --format=openmetrics" --root "$O" status --format=openmetrics
cp "$tmp/out" "$tmp/status-used.om"
parse_om "in use: status" "$tmp/status-used.om"
if [ -n "$py" ]; then
        check "in use: pmon's HugePages = (Shared_Hugetlb + Private_Hugetlb) x 1024" \
                "$(awk '$1 ~ /_Hugetlb:$/ { s += $2 } END { print s * 1024 }' "$pd/smaps_rollup")" \
                "$(sample 'hosttune_workload_hugepages_bytes{kind=oracle,name=ora_pmon_ORCL,pid=1234}')"
fi

# ---- a process name any user can choose: argv[0] "ora_pmon_a"b\c" is
# an Oracle process to the facts; its quote and backslash are escaped
printf 'ora_pmon_a"b\\c\0' >"$pd/cmdline"
run 0 "hostile name: status --format=openmetrics --textfile" --root "$O" status --format=openmetrics --textfile "$tf"
check_contains "hostile name: escaped in the label" 'name="ora_pmon_a\"b\\c"' "$tmp/out"
cp "$tmp/out" "$tmp/status-hostile.om"
parse_om "hostile name: status" "$tmp/status-hostile.om"
lint "hostile name: textfile" "$O$tf"
if [ -z "$ne" ]; then
        skip "hostile name: node_exporter reads the file" "$ne_why"
else
        ne_scrape
        check "hostile name: node_exporter reads the file without error" "node_textfile_scrape_error 0" \
                "$(grep '^node_textfile_scrape_error' "$tmp/ne.out" || tail -2 "$tmp/ne.log")"
        check "hostile name: and serves the name as written" 1 \
                "$(grep -c '^hosttune_workload_hugepages_bytes{kind="oracle",name="ora_pmon_a\\"b\\\\c",pid="1234"}' "$tmp/ne.out")"
fi

# ---- label values escaped: a profile name with a quote and a backslash
q=$(copy_host debian12-kvm); scratch "$q"
run 0 "escape: apply base" --root "$q" --profile-path "$P" --rules-path "$R" --quiet apply base
# the journal's profile name, edited to carry the characters to escape
# (profile names from the loader never do)
m=$(ls "$q"/var/lib/hosttune/journal/*/manifest.json 2>/dev/null | head -1)
if [ -n "$m" ] && jq -e '.profile' "$m" >/dev/null 2>&1; then
        jq '.profile = "a\"b\\c\nd"' "$m" >"$m.new" && mv "$m.new" "$m"
        "$HOSTTUNE" --root "$q" verify --format=openmetrics >"$tmp/esc.om" 2>"$tmp/esc.err"
        check_contains "escape: \\\" \\\\ \\n in the label value" 'profile="a\"b\\c\nd"' "$tmp/esc.om"
        if [ -n "$py" ]; then
                "$py" - "$tmp/esc.om" >"$tmp/esc.txt" 2>&1 <<'PY'
import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families
for f in text_string_to_metric_families(open(sys.argv[1], encoding="utf-8").read()):
    for s in f.samples:
        if s.name == "hosttune_applied_info":
            print(repr(s.labels["profile"]))
PY
                check "escape: the parser reads the name back" "'a\"b\\\\c\\nd'" "$(cat "$tmp/esc.txt")"
        fi
else
        not_ok "escape: no manifest with a profile in $q/var/lib/hosttune ($(ls -R "$q/var/lib/hosttune" | head -5))"
fi

# ---- the example alerting rules
rules=$top_srcdir/packaging/prometheus/hosttune-alerts.yml
if [ -n "$promtool" ]; then
        if out=$("$promtool" check rules "$rules" 2>&1); then ok "alerts: promtool check rules"
        else not_ok "alerts: promtool check rules: $out"; fi
        # promtool test rules reads rule_files beside the test file
        mkdir "$tmp/rules"
        cp "$rules" "$top_srcdir/tests/integration/metrics-alerts.test.yml" "$tmp/rules/"
        if out=$(cd "$tmp/rules" && "$promtool" test rules metrics-alerts.test.yml 2>&1); then
                ok "alerts: promtool test rules (each alert fires when it should, and only then)"
        else not_ok "alerts: promtool test rules: $out"; fi
else
        skip "alerts: promtool check rules" "promtool (Debian's prometheus) is not installed"
        skip "alerts: promtool test rules" "promtool (Debian's prometheus) is not installed"
fi
finish
