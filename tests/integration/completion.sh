#!/bin/sh
# Bash completion (packaging/bash-completion/hosttune): source it, set
# COMP_WORDS/COMP_CWORD as bash does, call the function, check COMPREPLY.
# Runs twice: plain bash, and with bash-completion's helpers loaded when the
# bash-completion package is installed. Profiles and transaction ids come
# from fake-hosttune (the JSON contract) or, without a usable binary, from
# the profile path.
if [ -z "${BASH_VERSION:-}" ]; then
        command -v bash >/dev/null 2>&1 || { echo "1..0 # SKIP bash not installed"; exit 0; }
        exec bash "$0" "$@"
fi
set -u

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
fake=$top_srcdir/tests/integration/fake-hosttune
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hosttune-completion.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$tmp/profiles" "$tmp/root/etc/hosttune/profiles" "$tmp/dirs/alpha" "$tmp/dirs/beta"
mkdir -p "$tmp/tuned/site-tuned" "$tmp/root/usr/lib/tuned/vendor-tuned" "$tmp/root/usr/lib/tuned/functions"
: >"$tmp/tuned/site-tuned/tuned.conf"
: >"$tmp/root/usr/lib/tuned/vendor-tuned/tuned.conf"
: >"$tmp/profiles/oracle.profile"
: >"$tmp/profiles/mysql.profile"
: >"$tmp/profiles/notaprofile.txt"
: >"$tmp/root/etc/hosttune/profiles/site-db.profile"
# a unit whose hosttune drop-in runs the start gate, one whose does not
mkdir -p "$tmp/root/etc/systemd/system/mariadb.service.d" "$tmp/root/etc/systemd/system/app.service.d"
printf '[Service]\nExecStartPre=-+/usr/sbin/hosttune gate mariadb.service\n' \
        >"$tmp/root/etc/systemd/system/mariadb.service.d/hosttune.conf"
printf '[Service]\nLimitNOFILE=65535\n' >"$tmp/root/etc/systemd/system/app.service.d/hosttune.conf"
# Two transactions for rollback to offer.
if command -v python3 >/dev/null 2>&1; then
        "$fake" --root "$tmp/root" --profile-path "$tmp/profiles" apply oracle >/dev/null
        "$fake" --root "$tmp/root" --profile-path "$tmp/profiles" apply oracle --set a=1 >/dev/null
        have_python=true
else
        have_python=false
fi

failed=0
passed=0

# complete "LINE": COMPREPLY for LINE, which ends where the cursor is;
# words are split like bash does (whitespace, and "=" is a word of its own).
complete_line() {
        local line=$1
        local -a w
        read -r -a w <<<"${line//=/ = }"
        [[ $line == *" " ]] && w+=("")
        COMP_WORDS=("${w[@]}")
        COMP_CWORD=$((${#w[@]} - 1))
        COMP_LINE=$line
        COMP_POINT=${#line}
        COMPREPLY=()
        _hosttune hosttune "${w[-1]}" "${w[-2]:-}"
}

# expect "LINE" "EXPECTED REPLIES"
expect() {
        local line=$1 want=$2
        complete_line "$line"
        local got
        got=$(printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort | tr '\n' ' ')
        got=${got% }
        want=$(printf '%s\n' $want | LC_ALL=C sort | tr '\n' ' ')
        want=${want% }
        if [[ $got == "$want" ]]; then
                passed=$((passed + 1))
                echo "ok $((passed + failed)) - $mode: '$line' -> [$want]"
        else
                failed=$((failed + 1))
                echo "not ok $((passed + failed)) - $mode: '$line' -> [$got], want [$want]"
        fi
}

run_cases() {
        local H=/nonexistent/hosttune P="--profile-path $tmp/profiles"
        # No hosttune on PATH for the fallback cases.
        local PATH=/usr/bin:/bin
        expect "$H " "facts list show plan apply verify rollback history recommend status import explain gate"
        expect "$H pl" "plan"
        expect "$H --json --quiet ap" "apply"
        expect "$H re" "recommend"
        expect "$H --r" "--root --rules-path"
        expect "$H --col" "--color --colour"
        expect "$H --colour " "auto always never"
        expect "$H --rules-path $tmp/dirs/a" "$tmp/dirs/alpha"
        # the value of --rules-path is not taken for the command
        expect "$H --rules-path $tmp/dirs pl" "plan"
        expect "$H --rules-path $tmp/dirs $P plan " "mysql oracle"
        expect "$H verify --f" "--facts --format"
        expect "$H verify --te" "--textfile"
        expect "$H plan --te" ""
        expect "$H verify --format " "text json openmetrics"
        # openmetrics: verify and status only
        expect "$H plan --format " "text json"
        expect "$H status --format=o" "openmetrics"
        expect "$H apply --d" "--dry-run"
        expect "$H verify --b" "--boot"
        expect "$H st" "status"
        expect "$H status --i" "--interval"
        expect "$H status --interval " ""
        expect "$H status --interval 5 --j" "--json"
        expect "$H --root /mnt/img apply --f" "--facts --format"
        expect "$H recommend --f" "--facts --format"
        expect "$H plan --s" "--set --state-dir"
        expect "$H facts --s" "--state-dir"
        expect "$H --color " "auto always never"
        expect "$H --color=al" "always"
        expect "$H --color=" "auto always never"
        expect "$H --root $tmp/dirs/a" "$tmp/dirs/alpha"
        expect "$H --profile-path=$tmp/dirs/b" "$tmp/dirs/beta"
        # Profiles from the profile path and the root's /etc/hosttune/profiles.
        expect "$H $P plan " "mysql oracle"
        expect "$H $P --root $tmp/root apply " "mysql oracle site-db"
        expect "$H --profile-path=$tmp/profiles show o" "oracle"
        expect "$H $P plan --set a=1 " "mysql oracle"
        expect "$H $P plan oracle " ""
        expect "$H $P plan oracle --set " ""
        expect "$H list " ""
        expect "$H rollback " ""
        # import: the kind, then tuned's profiles (--tuned-path, then the root's)
        expect "$H im" "import"
        expect "$H import " "tuned"
        expect "$H --tuned-path $tmp/tuned --root $tmp/root import tuned " "site-tuned vendor-tuned"
        expect "$H --root $tmp/root import tuned v" "vendor-tuned"
        expect "$H import tuned x --o" "--output"
        # explain: the running kernel's sysctl keys, dotted; then a profile
        expect "$H explain vm.swappi" "vm.swappiness"
        # and the booted command line's parameters (issue 38)
        w=$(sed 's/[= ].*//' /proc/cmdline)
        expect "$H explain cmdline.$w" "cmdline.$w"
        expect "$H $P explain vm.swappiness " "mysql oracle"
        expect "$H explain vm.swappiness oracle " ""
        # gate (issue 37): --refuse, and the units whose drop-in runs it
        expect "$H gate --r" "--refuse --root --rules-path"
        expect "$H --root $tmp/root gate " "mariadb.service"
        expect "$H --tuned-path $tmp/dirs/a" "$tmp/dirs/alpha"
        if $have_python; then
                # Profiles and transactions from the binary's JSON.
                expect "$fake $P plan " "mysql oracle"
                expect "$fake --root $tmp/root rollback " "tx1 tx2"
                expect "$fake --root $tmp/root rollback tx1 " ""
        fi
}

# Every long option and every command 'hosttune --help' lists is
# completed somewhere (after the command name, or after a command), so
# the script and the binary cannot drift apart.
HOSTTUNE=${HOSTTUNE:-${top_builddir:-$top_srcdir}/hosttune}
check_help() {
        if [[ ! -x $HOSTTUNE ]]; then
                passed=$((passed + 1))
                echo "ok $((passed + failed)) - $mode: --help compared # SKIP $HOSTTUNE not built"
                return
        fi
        local help cmds opt c all="" missing=""
        help=$("$HOSTTUNE" --help) || { failed=$((failed + 1)); echo "not ok $((passed + failed)) - $mode: hosttune --help failed"; return; }
        cmds=$(printf '%s\n' "$help" | awk '/^Commands:/ { c = 1; next } /^$/ { c = 0 } c && /^  [a-z]/ { print $1 }')
        [[ -n $cmds ]] || { failed=$((failed + 1)); echo "not ok $((passed + failed)) - $mode: no commands found in --help"; return; }
        complete_line "hosttune --"
        all+=" ${COMPREPLY[*]}"
        for c in $cmds; do
                complete_line "hosttune $c --"
                all+=" ${COMPREPLY[*]}"
        done
        complete_line "hosttune "
        for c in $cmds; do
                [[ " ${COMPREPLY[*]} " == *" $c "* ]] || missing+=" $c"
        done
        for opt in $(printf '%s\n' "$help" | grep -o -- '--[a-z][a-z-]*' | LC_ALL=C sort -u); do
                [[ " $all " == *" $opt "* ]] || missing+=" $opt"
        done
        if [[ -z $missing ]]; then
                passed=$((passed + 1))
                echo "ok $((passed + failed)) - $mode: every command and long option of --help is completed"
        else
                failed=$((failed + 1))
                echo "not ok $((passed + failed)) - $mode: in 'hosttune --help' but not completed:$missing"
        fi
}

source "$top_srcdir/packaging/bash-completion/hosttune"
mode=plain
run_cases
check_help

for bc in /usr/share/bash-completion/bash_completion /etc/bash_completion; do
        if [[ -f $bc ]]; then
                # bash_completion expects an interactive-ish shell; these are
                # the only settings it needs here.
                BASH_COMPLETION_COMPAT_DIR=/nonexistent source "$bc"
                source "$top_srcdir/packaging/bash-completion/hosttune"
                if declare -F _init_completion >/dev/null; then
                        mode=bash-completion
                        run_cases
                        check_help
                fi
                break
        fi
done
[[ $mode == bash-completion ]] ||
        echo "ok $((passed + failed + 1)) - bash-completion's helpers # SKIP bash-completion not installed; only the plain mode ran"
[[ $mode == bash-completion ]] || passed=$((passed + 1))
echo "1..$((passed + failed))"
[[ $failed -eq 0 ]]
