#!/bin/sh
# The files and directories a hosttune command reads, from strace: prints
# "F /path" for every file opened for reading (O_PATH walks excluded) and
# "D /dir" for every directory listed, in order, once each. Only paths under
# the prefixes given are kept (the root, the profile and rules paths), so
# the dynamic loader's and the libraries' own reads (ld.so.cache,
# /proc/filesystems...) are left out: they are the cost being measured.
#
#   files-read.sh OUT PREFIX[:PREFIX...] -- COMMAND ARGS...
set -eu
out=$1 prefixes=$2
shift 2
[ "$1" = "--" ] && shift
trace=$(mktemp)
trap 'rm -f "$trace"' EXIT
strace -f -y -qq -e trace=openat,openat2,open,getdents64 -e status=successful -o "$trace" "$@" >/dev/null 2>&1 || true
awk -v prefixes="$prefixes" '
BEGIN { n = split(prefixes, pre, ":") }
function keep(p,   i) { for (i = 1; i <= n; i++) if (index(p, pre[i]) == 1) return 1; return 0 }
/getdents64\(/ {
        if (match($0, /getdents64\([0-9]+</)) {
                s = substr($0, RSTART + RLENGTH); p = substr(s, 1, index(s, ">") - 1)
                if (keep(p) && !seen["D" p]++) print "D " p
        }
        next
}
/openat2?\(|open\(/ {
        if ($0 ~ /O_PATH/ || $0 ~ /O_DIRECTORY/) next
        if (match($0, /= [0-9]+<[^>]*>$/)) {
                s = substr($0, RSTART); p = substr(s, index(s, "<") + 1); p = substr(p, 1, length(p) - 1)
                if (keep(p) && !seen["F" p]++) print "F " p
        }
}' "$trace" >"$out"
