#!/bin/sh
# Every profile of the installed tuned package (Debian's tuned 2.20:
# /usr/lib/tuned, read in place) on two fixture hosts, a KVM guest and a
# bare-metal server (issue 19): `plan tuned:NAME` loads it (exit 0 or 2);
# on the KVM guest also `import tuned NAME` writes one self-contained profile whose header lists
# the tuned files of the include chain and what is not carried over, as
# many lines as the plan has warnings of it; the imported file loads with
# `show` and resolves to the same settings as `show tuned:NAME`.
#
# The profiles whose [variables] assert that isolated_cores is set
# (cpu-partitioning, realtime and what includes them) fail on a host that
# sets none, with tuned's own assertion message; with isolated_cores in
# the variables file they name (/etc/tuned/NAME-variables.conf, under the
# root), they load.
#
# HT_TUNED_DIR: another tuned profile directory (default /usr/lib/tuned).
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"
TD=${HT_TUNED_DIR:-/usr/lib/tuned}
[ -d "$TD" ] && ls "$TD"/*/tuned.conf >/dev/null 2>&1 ||
        skip_all "no tuned profiles in $TD (Debian: apt-get install tuned; CI installs it)"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (scripts/deps.sh installs it)"
HOSTTUNE_INSECURE_PROFILES=1 LC_ALL=C
export HOSTTUNE_INSECURE_PROFILES LC_ALL
mkdir -p "$tmp/none"

# ht_t ROOT ARGS...: hosttune with the tuned directory on the tuned path;
# stdout in $tmp/out, stderr in $tmp/err, status in $rc
ht_t() {
        r=$1
        shift
        "$HOSTTUNE" --root "$r" --tuned-path "$TD" --profile-path "$tmp/none" --rules-path "$RULES" --color=never "$@" \
                >"$tmp/out" 2>"$tmp/err"
        rc=$?
}
# the settings of a show --json without their sources, sorted
settings() {
        jq -r '.settings[] | del(.source, .citation) | tojson' "$1" | LC_ALL=C sort
}
# chain NAME: NAME and every profile its include= lines name (the
# function-free ones), once each
chain() {
        _todo=$1 _seen=" "
        while :; do
                # shellcheck disable=SC2086
                set -- $_todo
                [ $# -gt 0 ] || break
                _p=$1; shift; _todo=$*
                case $_seen in *" $_p "*) continue ;; esac
                _seen="$_seen$_p "
                [ -f "$TD/$_p/tuned.conf" ] || continue
                _inc=$(sed -n 's/^[[:space:]]*include[[:space:]]*=[[:space:]]*\([^$/]*\)$/\1/p' "$TD/$_p/tuned.conf" | tr ',;' '  ')
                _todo="$_todo $_inc"
        done
        echo "$_seen"
}
# asserts_isolated NAME: whether NAME's chain asserts isolated_cores
asserts_isolated() {
        for _p in $(chain "$1"); do
                grep -q 'assertion_non_equal:isolated_cores are set' "$TD/$_p/tuned.conf" 2>/dev/null && return 0
        done
        return 1
}
# with_isolated ROOT NAME: every variables file NAME's chain includes from
# /etc/tuned, under ROOT, with isolated_cores=1 (what tuned-adm's user
# writes there)
with_isolated() {
        for _p in $(chain "$2"); do
                sed -n 's|^[[:space:]]*include[[:space:]]*=[[:space:]]*\(/etc/tuned/[^[:space:]]*\)$|\1|p' "$TD/$_p/tuned.conf" 2>/dev/null
        done | sort -u | while read -r _f; do
                mkdir -p "$1$(dirname "$_f")"
                # isolated_cores as an administrator sets it; max_power_state as
                # Debian's /etc/tuned/cpu-partitioning-powersave-variables.conf has it
                printf '# hosttune test: what the administrator sets\nisolated_cores=1\nmax_power_state=cstate.name:C1|10\n' >"$1$_f"
        done
}

# one_host FIXTURE [plan]: every profile on a copy of FIXTURE; with plan,
# only the plans (the import does not depend on the host's devices)
one_host() {
        fx=$1 only=${2:-}
        mkdir -p "$tmp/$fx.d" "$tmp/$fx.v"
        H=$(copy_host "$fx" "$tmp/$fx.d"); scratch "$H"
        # the same host with the variables files an administrator writes
        HV=$(copy_host "$fx" "$tmp/$fx.v"); scratch "$HV"
        mkdir -p "$tmp/imp-$fx"
        n_seen=0
        for conf in "$TD"/*/tuned.conf; do
                p=$(basename "$(dirname "$conf")")
                # Under check-valgrind every fourth profile (a different
                # quarter on each host): the whole corpus took five minutes
                # there, and the plain and ASan passes run all of it.
                n_seen=$((n_seen + 1))
                if [ -n "${HT_VALGRIND_LOGS:-}" ] && [ $(((n_seen + ${#fx}) % 4)) != 0 ]; then
                        continue
                fi
                root=$H
                if asserts_isolated "$p"; then
                        ht_t "$H" plan "tuned:$p"
                        # tuned's own message (functions/function_assertion_non_equal.py
                        # logs "assertion '%s' failed: '%s' == '%s'"), at the
                        # variable's file:line
                        l=$(grep -n -m1 'assertion_non_equal:isolated_cores are set' "$TD/$p/tuned.conf" 2>/dev/null | cut -d: -f1)
                        if [ "$rc" = 1 ] && grep -q "assertion 'isolated_cores are set' failed: " "$tmp/err" &&
                                { [ -z "$l" ] || grep -qF "$TD/$p/tuned.conf:$l: " "$tmp/err"; }; then
                                ok "$fx: $p without isolated_cores: tuned's own assertion message at its file:line (exit 1)"
                        else
                                not_ok "$fx: $p without isolated_cores: exit $rc, expected 1 with \"assertion 'isolated_cores are set' failed\" at $TD/$p/tuned.conf:$l: $(head -c 600 "$tmp/err")"
                        fi
                        if [ "$only" != plan ]; then
                                ht_t "$H" import tuned "$p"
                                check "$fx: $p without isolated_cores: import fails too" 1 "$rc"
                        fi
                        with_isolated "$HV" "$p"
                        root=$HV
                fi
                ht_t "$root" --json plan "tuned:$p"
                cp "$tmp/out" "$tmp/plan.json"
                case $rc in
                0 | 2) ok "$fx: plan tuned:$p (exit $rc)" ;;
                *) not_ok "$fx: plan tuned:$p: exit $rc: $(head -c 600 "$tmp/err")"; continue ;;
                esac
                check "$fx: plan tuned:$p: no errors" "0" "$(jq '.errors | length' "$tmp/plan.json")"
                warned=$(jq -r '.warnings[]' "$tmp/plan.json" | grep -c ': not carried over: ')
                [ "$only" = plan ] && continue

                out=$tmp/imp-$fx/$p.profile
                ht_t "$root" import tuned "$p" --output "$out"
                if [ "$rc" = 0 ] && [ -s "$out" ]; then ok "$fx: import tuned $p"
                else not_ok "$fx: import tuned $p: exit $rc: $(head -c 600 "$tmp/err")"; continue; fi
                check "$fx: import $p: the header" "# Imported from tuned profile $p by hosttune $("$HOSTTUNE" --version | awk '{print $NF}')." \
                        "$(head -1 "$out")"
                check "$fx: import $p: the chain's files, its own first" "$conf" \
                        "$(sed -n 's/^# tuned files: //p' "$out" | sed 's/, .*//')"
                listed=$(sed -n 's/^# Not carried over (\([0-9]*\)):$/\1/p' "$out")
                lines=$(sed -n '/^# Not carried over/,/^[^#]/p' "$out" | grep -c '^#   ')
                check "$fx: import $p: not carried over: as many as the plan warns of, each listed" \
                        "$warned $warned" "${listed:-0} $lines"
                if grep -q '^[[:space:]]*inherit' "$out"; then not_ok "$fx: import $p: self-contained (no inherit)"
                else ok "$fx: import $p: self-contained (no inherit)"; fi

                "$HOSTTUNE" --root "$root" --profile-path "$tmp/imp-$fx" --rules-path "$RULES" --json show "$p" \
                        >"$tmp/imp.json" 2>"$tmp/err"
                rc=$?
                if [ "$rc" = 0 ]; then ok "$fx: the imported $p loads with show"
                else not_ok "$fx: the imported $p loads with show: exit $rc: $(head -c 600 "$tmp/err")"; continue; fi
                ht_t "$root" --json show "tuned:$p"
                cp "$tmp/out" "$tmp/tuned.json"
                settings "$tmp/tuned.json" >"$tmp/a"
                settings "$tmp/imp.json" >"$tmp/b"
                if d=$(diff "$tmp/a" "$tmp/b"); then ok "$fx: the imported $p resolves as tuned:$p"
                else not_ok "$fx: the imported $p resolves as tuned:$p: $(printf '%s' "$d" | head -c 800)"; fi
        done
}

one_host debian12-kvm
# disks and cpufreq policies for [disk] and [cpu]
one_host baremetal-numa plan
finish
