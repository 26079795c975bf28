#!/bin/sh
# The command-line contract: help, version, usage errors and exit codes.
. "${top_srcdir:-.}/tests/integration/lib.sh"

run 0 "--help" --help
check_contains "--help lists the commands" "plan PROFILE" "$tmp/out"
check "--help: apply has its description" "plan, then change the host as one transaction" \
        "$(sed -n '/^  apply PROFILE/{n;s/^ *//;p;}' "$tmp/out")"
check_contains "--help lists -q" "-q, --quiet" "$tmp/out"
check_contains "--help lists -j" "-j, --json" "$tmp/out"
check_contains "--help lists --colour" "--color=WHEN, --colour=WHEN" "$tmp/out"
# every command has a description on its line or the next
check "--help: no command without a description" "" \
        "$(awk '/^Commands:/ { c = 1; next } /^$/ { c = 0 } c && NF == 1 { print }' "$tmp/out")"
run 0 "--version" --version
version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$top_builddir/config.h")
check "--version prints exactly the version" "hosttune $version" "$(cat "$tmp/out")"

run 1 "no command" 
check_contains "no command: usage on stderr" "Usage: hosttune" "$tmp/err"
run 1 "unknown command" frobnicate
check_contains "unknown command named" "unknown command 'frobnicate'" "$tmp/err"
run 1 "unknown option" --frobnicate facts
check_contains "unknown option named" "unknown option '--frobnicate'" "$tmp/err"
run 1 "option missing its argument" facts --root
run 1 "--set on a command that does not take it" facts --set a=b
check_contains "--set refused for facts" "does not take --set" "$tmp/err"
run 1 "--set without =" plan oracle --set novalue
run 1 "bad --color" --color=sometimes facts
run 1 "plan without a profile" plan
run 1 "facts with an argument" facts extra
run 1 "missing root" --root "$tmp/does-not-exist" facts
check_contains "missing root named" "$tmp/does-not-exist" "$tmp/err"

run 0 "facts on a fixture" --root "$HOSTS/debian12-kvm" facts
check_contains "facts text is aligned key/value" "kernel.release" "$tmp/out"
run 0 "options after the command" facts --root "$HOSTS/debian12-kvm" --json
if command -v jq >/dev/null 2>&1; then
        check "facts --json parses" "6.1.0-18-amd64" "$(jq -r '.kernel.release' "$tmp/out")"
fi
run 0 "--quiet facts" --quiet --root "$HOSTS/rhel5-xen" facts
check "--quiet prints no warnings" "" "$(cat "$tmp/err")"
run 0 "-q facts" -q --root "$HOSTS/rhel5-xen" facts
check "-q prints no warnings" "" "$(cat "$tmp/err")"

# ---- colour -------------------------------------------------------------
# An explicit --color=always/never wins over NO_COLOR (no-color.org lets an
# option override it); NO_COLOR, when not empty, only turns auto off; auto
# colours a terminal only. The plan of the oracle profile has diffs and
# warnings, which are coloured.
ESC=$(printf '\033')
colour_plan() { # colour_plan NO_COLOR(unset|VALUE) ARGS...: plan's stdout in $tmp/out
        nc=$1
        shift
        if [ "$nc" = unset ]; then
                (unset NO_COLOR; "$HOSTTUNE" --root "$HOSTS/debian12-kvm" --profile-path "$PROFILES" \
                        --rules-path "$top_srcdir/rules" "$@" plan oracle --set sga_max_size=4G >"$tmp/out" 2>"$tmp/err")
        else
                NO_COLOR=$nc "$HOSTTUNE" --root "$HOSTS/debian12-kvm" --profile-path "$PROFILES" \
                        --rules-path "$top_srcdir/rules" "$@" plan oracle --set sga_max_size=4G >"$tmp/out" 2>"$tmp/err"
        fi
        got=$?
        [ "$got" = 2 ] || not_ok "colour: plan $*: exit $got, expected 2: $(head -c 300 "$tmp/err")"
        if grep -q "$ESC" "$tmp/out"; then echo colour; else echo plain; fi
}
for nc in unset "" 1; do
        label="NO_COLOR=${nc:-(empty)}"
        [ "$nc" = unset ] && label="NO_COLOR unset"
        check "colour: $label, --color=always" colour "$(colour_plan "$nc" --color=always)"
        check "colour: $label, --colour=always" colour "$(colour_plan "$nc" --colour=always)"
        check "colour: $label, --color=never" plain "$(colour_plan "$nc" --color=never)"
        check "colour: $label, --color=auto, not a terminal" plain "$(colour_plan "$nc" --color=auto)"
        check "colour: $label, default (auto), not a terminal" plain "$(colour_plan "$nc")"
done
# auto on a terminal (script(1) gives one): colour unless NO_COLOR is set
if command -v script >/dev/null 2>&1 && script -qec true /dev/null >/dev/null 2>&1 </dev/null; then
        tty_plan() { # tty_plan ENV...: plan --color=auto on a pty
                env "$@" TERM=xterm script -qec "'$HOSTTUNE' --root '$HOSTS/debian12-kvm' --profile-path '$PROFILES' \
                        --rules-path '$top_srcdir/rules' --color=auto plan oracle --set sga_max_size=4G" /dev/null \
                        </dev/null >"$tmp/tty" 2>&1
                if grep -q "$ESC\[" "$tmp/tty"; then echo colour; else echo plain; fi
        }
        check "colour: auto on a terminal, NO_COLOR unset" colour "$(tty_plan -u NO_COLOR)"
        check "colour: auto on a terminal, NO_COLOR empty" colour "$(tty_plan NO_COLOR=)"
        check "colour: auto on a terminal, NO_COLOR=1" plain "$(tty_plan NO_COLOR=1)"
        check "colour: auto on a terminal, TERM=dumb" plain "$(env -u NO_COLOR TERM=dumb script -qec \
                "'$HOSTTUNE' --root '$HOSTS/debian12-kvm' --profile-path '$PROFILES' --rules-path '$top_srcdir/rules' plan oracle --set sga_max_size=4G" \
                /dev/null </dev/null 2>&1 | grep -q "$ESC\[" && echo colour || echo plain)"
else
        ok "colour on a terminal # SKIP script(1) cannot make a pty here"
fi

# ---- --facts with a live root -----------------------------------------------
# --facts is for offline images; a root with /proc/sys has its own kernel.
# Every command that reads facts says it ignores the file, as 'facts' does:
# on stderr, and in --json in warnings[].
"$HOSTTUNE" --root "$HOSTS/rhel5-xen" --json facts >"$tmp/facts.json" 2>/dev/null
live=$tmp/live
rm -rf "$live" && cp -a "$HOSTS/debian12-kvm" "$live"
FX="--root $live --profile-path $PROFILES --rules-path $top_srcdir/rules --facts $tmp/facts.json"
ignored="hosttune: warning: --facts $tmp/facts.json is ignored: $live/proc/sys is there, so this root has a running kernel whose facts are read instead"
run 0 "--facts on a live root: facts" $FX facts
check "facts: warns that --facts is ignored" "$ignored" "$(grep -F -- '--facts ' "$tmp/err")"
json_warned() { # json_warned FILE: whether warnings[] names the ignored file
        if command -v jq >/dev/null 2>&1; then
                jq -r --arg w "${ignored#hosttune: warning: }" '[.warnings[] | select(. == $w)] | length' "$1"
        else
                grep -cF -- "--facts $tmp/facts.json is ignored" "$1"
        fi
}
for cmd in plan show "apply --dry-run"; do
        want=2
        [ "$cmd" = show ] && want=0
        run $want "--facts on a live root: $cmd" $FX $cmd oracle --set sga_max_size=4G
        check "$cmd: warns on stderr as facts does" "$ignored" "$(grep -F -- '--facts ' "$tmp/err")"
        run $want "--facts on a live root: $cmd --json" $FX --json $cmd oracle --set sga_max_size=4G
        check "$cmd --json: on stderr" "$ignored" "$(grep -F -- '--facts ' "$tmp/err")"
        check "$cmd --json: in warnings[]" "1" "$(json_warned "$tmp/out")"
done
HOSTTUNE_NO_AUDIT=1 "$HOSTTUNE" $FX --json apply oracle --set sga_max_size=4G >"$tmp/out" 2>"$tmp/err"
check "--facts on a live root: apply" "0" "$?"
check "apply: warns on stderr" "$ignored" "$(grep -F -- '--facts ' "$tmp/err")"
check "apply --json: in warnings[]" "1" "$(json_warned "$tmp/out")"
run 0 "--facts on a live root: --quiet --json show" $FX --quiet --json show oracle --set sga_max_size=4G
check "--quiet: nothing on stderr" "" "$(cat "$tmp/err")"

# ---- a search-path directory the user cannot read --------------------------
# Not the same as a missing profile: the error (or the warning, when the
# profile is found further down the path) names the directory and why.
udir=
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
        # what the user reads lies where the user can reach it ($tmp, or a
        # directory in /tmp when $tmp lies under one only root may enter)
        user_dir
fi
if [ -n "$udir" ]; then
        u=$udir
        mkdir -p "$u/locked" "$u/open" "$u/rules"
        # the shipped rules (a rules path without them is an error)
        cp "$top_srcdir"/rules/*.rules "$u/rules/"
        cp "$PROFILES/oracle.profile" "$PROFILES/base.profile" "$u/locked/"
        cp "$PROFILES/oracle.profile" "$PROFILES/base.profile" "$u/open/"
        chmod 0700 "$u/locked"
        # The checkout may sit under a directory only root can enter, and a
        # umask 077 clone has fixture files only root may read: the user
        # gets a readable copy of the host, and of the binary if need be.
        nobody_root=$(copy_host debian12-kvm "$u"); scratch "$nobody_root"
        chmod -R a+rX "$nobody_root" "$u/open" "$u/rules"
        nobody_bin=$HOSTTUNE
        if ! setpriv --reuid=65534 --regid=65534 --clear-groups "$nobody_bin" --version >/dev/null 2>&1; then
                cp "$top_builddir/hosttune" "$u/hosttune-copy"
                chmod 0755 "$u/hosttune-copy"
                nobody_bin=$u/hosttune-copy
        fi
        nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$nobody_bin" --root "$nobody_root" "$@" \
                >"$tmp/out" 2>"$tmp/err"; }
        denied="cannot read profile directory $u/locked: Permission denied"
        nobody --profile-path "$u/locked" --rules-path "$u/rules" plan oracle --set sga_max_size=4G
        check "unreadable profile directory: plan fails" "1" "$?"
        check_contains "the error names the directory and the reason" "hosttune: $denied; " "$tmp/err"
        check_contains "the error says some directories could not be read" \
                "profile 'oracle' not found in the readable directories of the profile path $u/locked:" "$tmp/err"
        if grep -q "profile 'oracle' not found on the profile path" "$tmp/err"; then
                not_ok "unreadable directory reported as a plain not-found: $(cat "$tmp/err")"
        else ok "not reported as a plain not-found"; fi
        nobody --profile-path "$u/locked" --profile-path "$u/open" --rules-path "$u/rules" \
                plan oracle --set sga_max_size=4G
        check "found past an unreadable directory: plan runs" "2" "$?"
        check_contains "the plan warns of the directory it could not read" \
                "warning: $denied; profile 'oracle' is read from $u/open/oracle.profile" "$tmp/out"
        nobody --profile-path "$u/locked" --profile-path "$u/open" --rules-path "$u/rules" --json \
                show oracle --set sga_max_size=4G
        check "show --json: exit" "0" "$?"
        check_contains "show --json: in warnings[]" "$denied; profile 'base' is read from $u/open/base.profile" "$tmp/out"
        nobody --profile-path "$u/locked" list
        check "list: unreadable directory is an error" "1" "$?"
        check "list: names it" "hosttune: $denied" "$(cat "$tmp/err")"
        nobody --profile-path "$u/open" --rules-path "$u/locked" plan oracle --set sga_max_size=4G
        check "unreadable rules directory: plan fails" "1" "$?"
        check "the error names the rules directory" "hosttune: cannot read rules directory $u/locked: Permission denied" \
                "$(cat "$tmp/err")"
        chmod 0700 "$tmp"
elif [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
        skip "unreadable search-path directories" "uid 65534 can reach neither $tmp nor a directory in /tmp"
else
        skip "unreadable search-path directories" "needs root and setpriv"
fi

# a relative --root: the journal still lands inside it, and history finds it
cp -a "$HOSTS/debian12-kvm" "$tmp/rel"
(cd "$tmp" && HOSTTUNE_NO_AUDIT=1 "$HOSTTUNE" --root rel --profile-path "$top_srcdir/profiles" \
        --rules-path "$top_srcdir/rules" --quiet apply base >/dev/null 2>&1)
check "apply with a relative root" 0 $?
(cd "$tmp" && "$HOSTTUNE" --root rel history >"$tmp/out" 2>&1)
check "history with a relative root" 0 $?
check_contains "the journal is inside the root" "committed" "$tmp/out"
[ -d "$tmp/rel/var/lib/hosttune/journal" ] && ok "journal under ROOT/var/lib/hosttune" ||
        not_ok "no journal under ROOT/var/lib/hosttune"

# No locale: hosttune never calls setlocale(), so LANG and LC_ALL (a
# Turkish locale's dotless i in a case-insensitive compare, a German
# decimal comma) change no output, and the programs it runs get LC_ALL=C
# (hosttune(8), DESCRIPTION). The binary, not $HOSTTUNE (a valgrind
# wrapper under check-valgrind).
check "hosttune calls no setlocale(), uselocale() or newlocale()" "" \
        "$(nm -u "$top_builddir/hosttune" | grep -E ' (setlocale|uselocale|newlocale)(@|$)')"

finish
