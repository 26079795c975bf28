#!/bin/sh
# Every profile and rules snippet of hosttune.profile(5) loads: the page is
# rendered (mandoc, else groff), each snippet is taken from the rendered
# text, wrapped where it is a fragment, and resolved with `hosttune show`
# against a copy of a fixture host: exit 0, no errors, and the snippet's own
# file gives at least one setting. A quote or a bracket the formatter eats
# breaks the snippet, so the test sees what a reader sees.
#
# The snippets are marked in the page's source with roff comments, which
# render as nothing:
#   .\" example: wrap TEMPLATE   a fragment; TEMPLATE with @ replaced by the
#                                snippet is the profile (roff escapes such
#                                as \(dq allowed)
#   .\" example: profile NAME    a whole profile, saved as NAME.profile
#   .\" example: rules NAME      a whole rules file, saved as NAME.rules
#   ...the snippet (a .Bd -literal display or a .Ql line)...
#   .\" example end
# For rendering, a copy of the page has each mark replaced by a visible
# token; the text between two tokens is the snippet. Every .Bd -literal
# display and every .Ql holding " = " must be marked (or exempted), and the test fails
# when it extracts fewer snippets than there are marks. The command lines
# of the page (hosttune ...) run too, with the example profiles on the path.
. "${top_srcdir:-.}/tests/integration/lib.sh"
. "$top_srcdir/tests/integration/apply-lib.sh"

page=$top_srcdir/man/hosttune.profile.5
if command -v mandoc >/dev/null 2>&1; then
        render() { mandoc -T utf8 -O width=250 "$1"; }
elif command -v groff >/dev/null 2>&1; then
        # no hyphenation, long lines: a snippet's words stay whole
        render() { { echo '.nh'; cat "$1"; } | groff -mandoc -Tutf8 -rLL=250n -P-c 2>/dev/null; }
else
        echo "1..0 # SKIP neither mandoc nor groff installed (scripts/deps.sh installs both)"
        exit 0
fi

# The marks, in order: one line each (kind and argument).
sed -n 's/^\.\\" example: //p' "$page" >"$tmp/marks"
marks=$(wc -l <"$tmp/marks")
ends=$(grep -c '^\.\\" example end$' "$page")
check "every example mark has an end mark" "$marks" "$ends"
[ "$marks" -gt 0 ] || not_ok "no example marks in $page"

# Unmarked examples are untested examples (a line `.\" syntax, not an example`
# before a .Ql exempts it).
awk '/^\.\\" (example: |syntax, not an example)/ { marked = NR }
     /^\.Bd -literal/ && marked != NR - 1 { print FILENAME ":" NR ": " $0 }
     /^\.Ql .* = / && marked != NR - 1 { print FILENAME ":" NR ": " $0 }' "$page" >"$tmp/unmarked"
if [ -s "$tmp/unmarked" ]; then not_ok "unmarked snippets (add an example mark): $(cat "$tmp/unmarked")"
else ok "every literal display and every .Ql assignment is marked"; fi

# Tokens instead of the marks, then render.
awk '/^\.\\" example: / { i++; print "HTEX_B_" i "_"; next }
     /^\.\\" example end$/ { print "HTEX_E_" i "_"; next }
     { print }' "$page" >"$tmp/page.5"
render "$tmp/page.5" | sed "s/.$(printf '\b')//g" >"$tmp/page.txt"
[ -s "$tmp/page.txt" ] || not_ok "the page rendered to nothing"

# One file per snippet: the text between its tokens, without the quotes
# .Ql puts around it.
mkdir "$tmp/snip"
LC_ALL=C awk -v dir="$tmp/snip" '{ buf = buf $0 "\n" }
END {
        for (i = 1; ; i++) {
                b = "HTEX_B_" i "_"; e = "HTEX_E_" i "_"
                s = index(buf, b); t = index(buf, e)
                if (!s || !t || t < s) break
                x = substr(buf, s + length(b), t - s - length(b))
                sub(/^[ \t\n]+/, "", x); sub(/[ \t\n]+$/, "", x)
                # an inline one (.Ql) was filled: its line breaks were spaces
                if (sub(/^\342\200\230/, "", x)) { sub(/\342\200\231$/, "", x); gsub(/[ \t]*\n[ \t]*/, " ", x) }
                if (x != "") printf "%s\n", x >(dir "/" i)
        }
}' "$tmp/page.txt"
got=$(ls "$tmp/snip" | wc -l)
if [ "$got" -ge "$marks" ] && [ "$marks" -gt 0 ]; then ok "extracted $got snippets for $marks marks"
else not_ok "extracted $got snippets, but the page marks $marks"; fi
if grep -q 'HTEX_' "$tmp/page.txt" && [ "$got" -lt "$marks" ]; then
        not_ok "tokens left in the rendered text: $(grep -n 'HTEX_' "$tmp/page.txt" | head -5)"
fi

# A 64 GB Oracle Linux 8 host: room for the examples' SGA.
host=$(prepare_host ol8-bls); scratch "$host"
mkdir "$tmp/profiles"
i=0
while IFS= read -r mark; do
        i=$((i + 1))
        f=$tmp/snip/$i
        [ -s "$f" ] || { not_ok "snippet $i ($mark): nothing extracted"; continue; }
        kind=${mark%% *}
        arg=${mark#* }
        rules_opt="" sets="" name=ex$i file=ex$i.profile
        case $kind in
        wrap)
                # roff escapes of the template, then the snippet for its @
                tpl=$(printf '%s\n' "$arg" | sed -e 's/\\(dq/"/g' -e 's/\\&//g' -e 's/\\-/-/g')
                snip=$(cat "$f")
                printf '%s\n' "${tpl%%@*}$snip${tpl#*@}" >"$tmp/profiles/$file" ;;
        profile)
                name=$arg file=$arg.profile
                cp "$f" "$tmp/profiles/$file" ;;
        rules)
                mkdir -p "$tmp/rules-$i"
                cp "$f" "$tmp/rules-$i/$arg.rules"
                file=$arg.rules name=oracle rules_opt="--rules-path $tmp/rules-$i" sets="--set sga_max_size=8G" ;;
        *)
                not_ok "snippet $i: unknown mark kind '$kind'"
                continue ;;
        esac
        # shellcheck disable=SC2086
        "$HOSTTUNE" --root "$host" --profile-path "$tmp/profiles" --profile-path "$PROFILES" \
                $rules_opt --rules-path "$RULES" --json show "$name" $sets >"$tmp/out" 2>"$tmp/err"
        rc=$?
        what="snippet $i ($kind): $(head -c 70 "$f" | tr '\n' ' ')"
        if [ "$rc" != 0 ]; then
                not_ok "$what: show exits $rc: $(head -c 600 "$tmp/err"); the file was: $(head -c 600 "$tmp/profiles/$file" 2>/dev/null)"
                continue
        fi
        nerr=$(jq_get "$tmp/out" 'errors.#')
        if [ "$nerr" != 0 ]; then not_ok "$what: errors: $(jq_get "$tmp/out" errors)"; continue; fi
        if jq_get "$tmp/out" 'settings.*.source' | grep -qF "$file"; then ok "$what"
        else not_ok "$what: no setting comes from $file: $(jq_get "$tmp/out" 'settings.*.source' | sort -u | tr '\n' ' ')"; fi
done <"$tmp/marks"

# The page's command lines, with the example profiles first on the path.
grep -E '^[[:space:]]+hosttune ' "$tmp/page.txt" | sed 's/^[[:space:]]*hosttune //' >"$tmp/cmds"
[ -s "$tmp/cmds" ] || not_ok "no command lines found in the page"
while IFS= read -r line; do
        # shellcheck disable=SC2086
        "$HOSTTUNE" --root "$host" --profile-path "$tmp/profiles" --profile-path "$PROFILES" \
                --rules-path "$RULES" $line >"$tmp/out" 2>"$tmp/err"
        rc=$?
        if [ "$rc" = 0 ] && ! grep -q '^errors:' "$tmp/out"; then ok "hosttune $line (exit 0, no errors)"
        else not_ok "hosttune $line: exit $rc: $(head -c 600 "$tmp/err") $(sed -n '/^errors:/,$p' "$tmp/out" | head -c 600)"; fi
done <"$tmp/cmds"
finish
