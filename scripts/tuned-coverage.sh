#!/bin/sh
# What hosttune carries over of every installed tuned profile, as a
# Markdown table, made from `hosttune import tuned NAME` (the real
# program's output): per profile the settings of its merged include
# chain, how many the imported profile holds (the distinct `# tuned:
# FILE:LINE` comments of its settings) and how many are not carried over, by reason (the
# import's "Not carried over" header). docs/TUNED.md includes the table;
# tests/integration/tuned-coverage.sh holds the two equal.
#
#   sh scripts/tuned-coverage.sh [TUNED_DIR]
#
# TUNED_DIR: default /usr/lib/tuned. Environment: HOSTTUNE (default: the
# build's ./hosttune), HT_COVERAGE_ROOT (the host the profiles are
# imported for; default the fixture tests/hosts/baremetal-numa, a
# two-socket server with disks, cpufreq and the CPU lists the cpulist
# functions read). Profiles that assert isolated_cores (cpu-partitioning,
# realtime and what includes them) are imported with isolated_cores=1 in
# the variables files they include, as an administrator sets it.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
TD=${1:-/usr/lib/tuned}
HOSTTUNE=${HOSTTUNE:-$top/hosttune}
fixture=${HT_COVERAGE_ROOT:-$top/tests/hosts/baremetal-numa}
[ -x "$HOSTTUNE" ] || { echo "tuned-coverage: $HOSTTUNE is not built (make)" >&2; exit 2; }
ls "$TD"/*/tuned.conf >/dev/null 2>&1 || { echo "tuned-coverage: no tuned profiles in $TD" >&2; exit 2; }
# the fixture stands for a running host (HACKING.md, "Fixture hosts")
export LC_ALL=C HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1 HOSTTUNE_TEST_LIVE_FIXTURES=1

work=$(mktemp -d "${TMPDIR:-/tmp}/tuned-coverage.XXXXXX")
trap 'rm -rf "$work"' EXIT
# the host, with the variables files the isolated_cores profiles read
cp -a "$fixture" "$work/root"
for conf in "$TD"/*/tuned.conf; do
        sed -n 's|^[[:space:]]*include[[:space:]]*=[[:space:]]*\(/etc/tuned/[^[:space:]]*-variables\.conf\)$|\1|p' "$conf"
done | sort -u | while read -r f; do
        mkdir -p "$work/root$(dirname "$f")"
        # max_power_state as the package's cpu-partitioning-powersave-variables.conf has it
        printf 'isolated_cores=1\nmax_power_state=cstate.name:C1|10\n' >"$work/root$f"
done
mkdir -p "$work/none"

echo "| profile | settings | carried over | not carried over | by reason |"
echo "|---|---:|---:|---:|---|"
ts=0 tc=0 tn=0
for conf in "$TD"/*/tuned.conf; do
        p=$(basename "$(dirname "$conf")")
        out=$work/$p.profile
        if ! "$HOSTTUNE" --root "$work/root" --tuned-path "$TD" --profile-path "$work/none" \
                import tuned "$p" --output "$out" >/dev/null 2>"$work/err"; then
                echo "| $p | - | - | - | import failed: $(head -1 "$work/err" | sed 's/|/\\|/g') |"
                continue
        fi
        # tuned options, not hosttune settings: a cmdline option of three
        # words is three settings with the same source line
        carried=$(sed -n 's/^[[:space:]]*# tuned: //p' "$out" | sort -u | wc -l | tr -d ' ')
        # "#   FILE:LINE: [SECTION] KEY: REASON": the reason is what follows
        # the key; counted per distinct reason, the most frequent first
        sed -n '/^# Not carried over/,/^[^#]/p' "$out" | sed -n 's/^#   [^ ]* \[[^]]*\] [^:]*: //p' >"$work/reasons"
        not=$(wc -l <"$work/reasons" | tr -d ' ')
        reasons=$(sort "$work/reasons" | uniq -c | sort -k1,1nr -k2 |
                awk '{ n = $1; sub(/^ *[0-9]+ /, ""); gsub(/\|/, "\\|"); printf "%s%s %s", (NR > 1 ? "; " : ""), n, $0 }')
        echo "| $p | $((carried + not)) | $carried | $not | ${reasons:--} |"
        ts=$((ts + carried + not)) tc=$((tc + carried)) tn=$((tn + not))
done
echo "| **all** | **$ts** | **$tc** | **$tn** | |"
