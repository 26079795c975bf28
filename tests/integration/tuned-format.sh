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

# queue [--headerless] FILE: a file to compare; compare_all: one check a
# file, Python started once for each mode (tuned-configparser.py --split)
: >"$tmp/queue"
queue() {
        if [ "$1" = --headerless ]; then printf 'h %s\n' "$2"; else printf 'p %s\n' "$1"; fi >>"$tmp/queue"
}
compare_all() {
        for m in p h; do
                mkdir -p "$tmp/py-$m"
                # shellcheck disable=SC2046
                set -- $(sed -n "s/^$m //p" "$tmp/queue")
                [ $# -eq 0 ] && continue
                python3 "$py" $([ $m = h ] && echo --headerless) --split "$tmp/py-$m" "$@" 2>"$tmp/py-$m.err" >/dev/null
        done
        np=0 nh=0
        while read -r m f; do
                if [ "$m" = h ]; then mode=--headerless nh=$((nh + 1)) i=$nh; else mode= np=$((np + 1)) i=$np; fi
                "$dump" $mode "$f" >"$tmp/c" 2>"$tmp/c.err"
                p=$tmp/py-$m/$i
                if cmp -s "$tmp/c" "$p"; then
                        ok "$f${mode:+ ($mode)}: $(wc -l <"$tmp/c") lines as Python reads it"
                else
                        not_ok "$f${mode:+ ($mode)}: differs from Python: $(diff "$p" "$tmp/c" 2>&1 | head -20) $(head -c 300 "$p.err" 2>/dev/null) $(head -c 300 "$tmp/py-$m.err")"
                fi
        done <"$tmp/queue"
}

if [ -d /usr/lib/tuned ]; then
        shipped=$(find /usr/lib/tuned -name tuned.conf -type f | sort)
        [ -n "$shipped" ] && ok "the tuned package ships $(echo "$shipped" | wc -l) profiles" ||
                not_ok "no tuned.conf under /usr/lib/tuned"
        for f in $shipped; do queue "$f"; done
        # tuned's own variable files (cpu-partitioning-variables.conf, ...)
        for f in $(find /usr/lib/tuned /etc/tuned -name '*-variables.conf' -type f 2>/dev/null | sort); do
                queue --headerless "$f"
        done
else
        skip "the tuned package's profiles" "/usr/lib/tuned is absent (scripts/deps.sh installs tuned)"
fi

for f in "$fixtures"/*.conf; do queue "$f"; done
for f in "$fixtures"/headerless/*.conf; do queue --headerless "$f"; done
compare_all

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
