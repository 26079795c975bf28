#!/bin/sh
# Snapshot and restore of the host values a peer (tuned) may change: every
# writable sysctl, block-device readahead, THP enabled/defrag.
#
#   values.sh snapshot FILE     record them (path TAB value per line)
#   values.sh restore FILE      write back each that differs; print what
set -eu
cmd=$1 snap=$2
tab=$(printf '\t')
selected() { # "always [madvise] never" -> madvise
        case $1 in *"["*) printf '%s' "$1" | sed 's/.*\[\(.*\)\].*/\1/' ;; *) printf '%s' "$1" ;; esac
}
case $cmd in
snapshot)
        : >"$snap"
        # ns_last_pid and the random pool move by themselves: not settings
        find /proc/sys -type f -perm -u+w ! -path '*/kernel/ns_last_pid' ! -path '*/kernel/random/*' \
                2>/dev/null | while read -r f; do
                v=$(cat "$f" 2>/dev/null | tr '\n' ' ') || continue
                printf '%s\t%s\n' "$f" "$v"
        done >>"$snap"
        for f in /sys/block/*/queue/read_ahead_kb /sys/kernel/mm/transparent_hugepage/enabled \
                /sys/kernel/mm/transparent_hugepage/defrag; do
                [ -w "$f" ] || continue
                printf '%s\t%s\n' "$f" "$(selected "$(cat "$f")")" >>"$snap"
        done
        ;;
restore)
        while IFS="$tab" read -r f v; do
                [ -w "$f" ] || continue
                now=$(cat "$f" 2>/dev/null | tr '\n' ' ') || continue
                now=$(selected "$now")
                # compare word by word: tabs and spaces differ between read and write
                # shellcheck disable=SC2086
                [ "$(echo $now)" = "$(echo $v)" ] && continue
                printf '%s\n' "$v" >"$f" 2>/dev/null && echo "restored $f: $now -> $v"
        done <"$snap"
        ;;
*)
        echo "usage: values.sh snapshot|restore FILE" >&2
        exit 2
        ;;
esac
