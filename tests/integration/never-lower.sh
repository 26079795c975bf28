#!/bin/sh
# Do no harm, swept: every shipped profile on every fixture host, with the
# host's values as the fixture has them, all above the profiles' bounds,
# and across them (multi-field values half above, half below). No planned
# change and no persisted line may lower a value the plan states as a
# minimum (at-least), raise one it states as a maximum (at-most) or move a
# value its range (LOW..HIGH, Oracle's hard stack) already holds, or move
# one outside it further than the nearer end; each field on its own
# (kernel.sem, the port range: both ends minimums since issue 33). The bounds
# themselves come from the plans (bound, bound_value), so a new bounded
# setting is swept without touching this file.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (scripts/deps.sh installs it)"

# jq: the violations of one plan, one line each
cat >"$tmp/violations.jq" <<'EOF'
def fields: tostring | [splits("[ \t]+") | select(. != "")]
        | map(if . == "unlimited" or . == "infinity" then 1e300 else (tonumber? // null) end);
def lowers($b; $cur; $new):
        ($cur | fields) as $c | ($new | fields) as $n
        | if ($c | length) != ($n | length) or ($c + $n | any(. == null)) then false
          elif $b == "at-least" then [range(0; $c | length) | select($n[.] < $c[.])] | length > 0
          elif $b == "at-most" then [range(0; $c | length) | select($n[.] > $c[.])] | length > 0
          else false end;
# a range LOW..HIGH: the one value allowed is the current one clamped to it
def clamped($bv; $cur):
        ($bv | split("..") | map(tonumber)) as [$lo, $hi] | ($cur | fields)[0] as $c
        | if $c < $lo then $lo elif $c > $hi then $hi else $c end;
def moves($bv; $cur; $new):
        ($cur | fields) as $c | ($new | fields) as $n
        | if ($c | length) != 1 or ($n | length) != 1 or ($c + $n | any(. == null)) then false
          else $n[0] != clamped($bv; $cur) end;
# the drop-in's line for a sysctl key ("" when none)
def persisted($key): [.files[] | select(.backend == "sysctl") | .after // "" | split("\n")[]
        | select(startswith($key + " = ")) | ltrimstr($key + " = ")] | last // "";
. as $plan
| .changes[]
| select(.bound == "at-least" or .bound == "at-most" or .bound == "range")
| select(.current != null and .desired != null)
| (if (.bound == "range" and moves(.bound_value; .current; .desired)) or (.bound != "range" and lowers(.bound; .current; .desired))
   then "\(.backend) \(.key): \(.current) -> \(.desired) (\(.bound) \(.bound_value))" else empty end),
  (if .backend == "sysctl" then .key as $k | ($plan | persisted($k)) as $p
          | select($p != "" and .bound != "range" and lowers(.bound; .current; $p))
          | "\(.key): persisted \($p) below the host's \(.current) (\(.bound) \(.bound_value))"
   else empty end)
EOF

# the checker itself: a plan that lowers in every way is caught, field by field
cat >"$tmp/bad.json" <<'EOF'
{"changes": [
 {"backend": "sysctl", "key": "kernel.sem", "bound": "at-least", "bound_value": "250 32000 100 128",
  "current": "32000\t1024000000\t500\t32000", "desired": "250 32000 500 32000"},
 {"backend": "sysctl", "key": "net.ipv4.ip_local_port_range", "bound": "at-least", "bound_value": "9000 65500",
  "current": "1024 65535", "desired": "9000 65500"},
 {"backend": "limits", "key": "oracle hard stack", "bound": "range", "bound_value": "10240..32768",
  "current": "20000", "desired": "32768"},
 {"backend": "limits", "key": "oracle hard stack", "bound": "range", "bound_value": "10240..32768",
  "current": "unlimited", "desired": "32768"},
 {"backend": "limits", "key": "oracle hard nofile", "bound": "at-least", "bound_value": "65536",
  "current": "unlimited", "desired": "65536"},
 {"backend": "sysctl", "key": "fs.file-max", "bound": "at-least", "bound_value": "6815744",
  "current": "9223372036854775807", "desired": "9223372036854775807"},
 {"backend": "sysctl", "key": "vm.swappiness", "bound": "exact", "current": "60", "desired": "1"}],
 "files": [{"backend": "sysctl", "after": "fs.file-max = 6815744\n"}]}
EOF
# (the second stack line is right: unlimited is above the range's high end)
check "the checker finds a lowered field, a lowered port range end, a value moved inside its range, a lowered limit and a lowering drop-in" 5 \
        "$(jq -r -f "$tmp/violations.jq" "$tmp/bad.json" | wc -l | tr -d ' ')"

# the runtime file of a sysctl key in a fixture copy
proc_file() { printf '%s/proc/sys/%s' "$1" "$(printf '%s' "$2" | tr . /)"; }

# shift_values ROOT PLAN MODE: move each bounded sysctl of PLAN in ROOT's
# /proc/sys above its bound ("above") or field by field across it
# ("across": even fields above, odd ones below)
shift_values() {
        # only ever a fixture copy: never the real /proc/sys
        case $1 in "" | / | /proc* | /sys*) echo "never-lower.sh: refusing to shift values under '$1'" >&2; exit 99 ;; esac
        jq -r '.changes[] | select(.backend == "sysctl" and .bound_value != null and .bound != "exact")
                | [.key, .bound, .bound_value] | @tsv' "$2" |
        while IFS="$(printf '\t')" read -r key bound value; do
                f=$(proc_file "$1" "$key")
                [ -f "$f" ] || continue
                i=0 out=
                for v in $value; do
                        case $3/$bound/$i in
                        above/at-least/*|across/at-least/0|across/at-least/2) n=$((v * 2 + 1)) ;;
                        across/at-least/*) n=$((v / 2)) ;;
                        */at-most/*) n=$((v / 2)) ;;
                        # LOW..HIGH: the middle, which stays
                        */range/*) lo=${v%%..*} hi=${v##*..}; n=$(((lo + hi) / 2)) ;;
                        esac
                        out="$out${out:+	}$n"
                        i=$((i + 1))
                done
                printf '%s\n' "$out" >"$f"
        done
}

plan_json() { # plan_json ROOT PROFILE OUT [--set ...]
        r=$1 p=$2 o=$3
        [ -n "$r" ] && [ "$r" != / ] || { echo "never-lower.sh: no fixture copy" >&2; exit 99; }
        shift 3
        HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1 "$HOSTTUNE" --root "$r" \
                --profile-path "$top_srcdir/profiles" --rules-path "$top_srcdir/rules" \
                --json plan "$p" "$@" >"$o" 2>/dev/null
}

# the fixture's /proc/sys again in ROOT (a copy of HOST): undoes shift_values
restore_sys() {
        scratch "$1"
        rm -rf "$1/proc/sys" && cp -a "$HOSTS/$2/proc/sys" "$1/proc/sys" &&
                chmod -R u+rwX,go+rX,go-w "$1/proc/sys"
}

# One copy a host: plan writes nothing, and what shift_values changes
# (/proc/sys) is put back from the fixture before the next plan. The
# first plan of a shifted mode is the as-is plan (the same copy, values
# and arguments), so it is kept from there.
hi=0
for dir in "$top_srcdir"/tests/hosts/*/; do
        host=$(basename "$dir")
        h=$(prepare_host "$host"); scratch "$h"
        shifted=no
        hi=$((hi + 1)) ci=0
        for case in base jvm mysql "mysql innodb_buffer_pool_size=2G" oracle "oracle sga_max_size=2G"; do
                ci=$((ci + 1))
                # under check-valgrind, every host with two of the six
                # cases, each case on several hosts (sampled, lib.sh)
                sampled $((hi + ci)) 3 || continue
                profile=${case%% *}
                set --
                [ "$case" = "$profile" ] || set -- --set "${case#* }"
                for mode in as-is above across; do
                        [ $shifted = no ] || restore_sys "$h" "$host"
                        shifted=no
                        if [ $mode != as-is ]; then
                                shift_values "$h" "$tmp/first.json" $mode
                                shifted=yes
                        fi
                        plan_json "$h" "$profile" "$tmp/plan.json" "$@"
                        [ $mode != as-is ] || cp "$tmp/plan.json" "$tmp/first.json"
                        if ! jq -r -f "$tmp/violations.jq" "$tmp/plan.json" >"$tmp/bad" 2>"$tmp/jqerr"; then
                                if ! jq -e . "$tmp/plan.json" >/dev/null 2>&1; then
                                        check "$host/$case/$mode: plan prints JSON" yes no
                                        continue
                                fi
                                echo "jq: $(cat "$tmp/jqerr")" >>"$tmp/bad"
                        fi
                        check "$host/$case/$mode: nothing lowered below a minimum, raised above a maximum or narrowed" \
                                "" "$(cat "$tmp/bad")"
                        # the sweep moved something: at least one bounded value is kept
                        if [ $mode = above ] && [ "$(jq '[.changes[] | select(.backend == "sysctl" and .bound_value != null and .bound != "exact")] | length' "$tmp/first.json")" -gt 0 ]; then
                                check "$host/$case/above: values above the bounds are kept" yes \
                                        "$(jq -r 'if [.changes[] | select(.backend == "sysctl" and .outcome == "kept" and .bound != "exact")] | length > 0 then "yes" else "no" end' "$tmp/plan.json")"
                        fi
                done
        done
done
finish
