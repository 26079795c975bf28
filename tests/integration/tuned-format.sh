#!/bin/sh
# format-tuned reads tuned's profile files as tuned does: for every
# tuned.conf of the tuned package (/usr/lib/tuned, read in place) and every
# edge case under tests/fixtures/tuned-format (headerless/: read as tuned
# reads variable files), tests/tuned-dump's (section, key, value) lines
# must equal Python's configparser with tuned's arguments
# (tests/tools/tuned-configparser.py), an error where Python raises one.
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed (scripts/deps.sh installs it)"
dump=$top_builddir/tests/tuned-dump
py=$top_srcdir/tests/tools/tuned-configparser.py
fixtures=$top_srcdir/tests/fixtures/tuned-format
[ -x "$dump" ] || { echo "Bail out! $dump not built"; exit 99; }

# compare [--headerless] FILE: one check
compare() {
        if [ "$1" = --headerless ]; then mode=$1; shift; else mode=; fi
        f=$1
        "$dump" $mode "$f" >"$tmp/c" 2>"$tmp/c.err"
        python3 "$py" $mode "$f" >"$tmp/p" 2>"$tmp/p.err"
        if cmp -s "$tmp/c" "$tmp/p"; then
                ok "$f${mode:+ ($mode)}: $(wc -l <"$tmp/c") lines as Python reads it"
        else
                not_ok "$f${mode:+ ($mode)}: differs from Python: $(diff "$tmp/p" "$tmp/c" | head -20) $(head -c 300 "$tmp/p.err")"
        fi
}

if [ -d /usr/lib/tuned ]; then
        shipped=$(find /usr/lib/tuned -name tuned.conf -type f | sort)
        [ -n "$shipped" ] && ok "the tuned package ships $(echo "$shipped" | wc -l) profiles" ||
                not_ok "no tuned.conf under /usr/lib/tuned"
        for f in $shipped; do compare "$f"; done
        # tuned's own variable files (cpu-partitioning-variables.conf, ...)
        for f in $(find /usr/lib/tuned /etc/tuned -name '*-variables.conf' -type f 2>/dev/null | sort); do
                compare --headerless "$f"
        done
else
        skip "the tuned package's profiles" "/usr/lib/tuned is absent (scripts/deps.sh installs tuned)"
fi

for f in "$fixtures"/*.conf; do compare "$f"; done
for f in "$fixtures"/headerless/*.conf; do compare --headerless "$f"; done

# the error fixtures are errors (for both), the others are not, and the
# message names the file and line
for f in "$fixtures"/*.conf "$fixtures"/headerless/*.conf; do
        case $f in */headerless/*) mode=--headerless ;; *) mode= ;; esac
        "$dump" $mode "$f" >"$tmp/c" 2>"$tmp/c.err"
        case $(basename "$f") in
        error-*)
                check "$f: an error" error "$(cat "$tmp/c")"
                check_contains "$f: the message names file and line" "$f:" "$tmp/c.err" ;;
        *) [ "$(cat "$tmp/c")" != error ] || not_ok "$f: an error: $(cat "$tmp/c.err")" ;;
        esac
done

# line and comment, which Python does not report: checked by hand
"$dump" --lines "$fixtures/comments.conf" >"$tmp/lines"
check "comments.conf: a key's line and the comment lines above it" \
        "$(printf 'main\tkey: with colon\tvalue: here\t8\tsemicolon comment line\\nindented comment')" \
        "$(grep '^main	key: with colon' "$tmp/lines")"
finish
