#!/bin/sh
# audit-iface: when verify cannot judge (here: a corrupt journal), its
# --textfile no longer keeps what the last verify wrote. Before, the file
# went on saying "reboot-pending" (or "ok") to Prometheus while verify
# failed; now it holds the families without samples, as status writes them
# when verify cannot judge, and --format=openmetrics prints a complete
# exposition (# EOF) instead of nothing.
. "${top_srcdir:-.}/tests/integration/lib.sh"
export HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1
h=$(copy_host debian12-kvm); scratch "$h"
tf=/var/lib/prometheus/node-exporter/hosttune.prom
mkdir -p "$h/var/lib/prometheus/node-exporter"
"$HOSTTUNE" --root "$h" --profile-path "$PROFILES" apply oracle --set sga_max_size=4G >/dev/null 2>"$tmp/err"
check "apply exits 0" 0 $?
"$HOSTTUNE" --root "$h" verify --textfile "$tf" >/dev/null 2>&1
check "verify: a reboot pending (3)" 3 $?
check "the textfile says reboot-pending" 'hosttune_verify_status{status="reboot-pending"} 1' \
        "$(grep '^hosttune_verify_status.*reboot-pending' "$h$tf")"

for m in "$h"/var/lib/hosttune/journal/*/manifest.json; do echo '{ broken' >"$m"; done
"$HOSTTUNE" --root "$h" verify --textfile "$tf" --format=openmetrics >"$tmp/om.txt" 2>"$tmp/err"
check "verify with a corrupt journal exits 1" 1 $?
check_contains "  and says why" "manifest is corrupt" "$tmp/err"
check "the textfile no longer has a verdict" 0 "$(grep -c '^hosttune_verify_status' "$h$tf")"
check "  nor the applied profile" 0 "$(grep -c '^hosttune_applied_info' "$h$tf")"
check "  but has its families" "# TYPE hosttune_verify_status gauge" "$(grep '# TYPE hosttune_verify_status' "$h$tf")"
check "stdout: a complete exposition without samples" "# EOF" "$(tail -1 "$tmp/om.txt")"
check "stdout: no sample" 0 "$(grep -c '^hosttune' "$tmp/om.txt")"
if command -v promtool >/dev/null 2>&1; then
        promtool check metrics <"$h$tf" >"$tmp/lint" 2>&1
        check "promtool check metrics: the textfile" "0 " "$? $(cat "$tmp/lint")"
else
        skip "promtool check metrics" "promtool (Debian: prometheus) is not installed"
fi
finish
