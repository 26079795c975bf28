#!/bin/sh
# The example cloud-config files in packaging/cloud-init/ against Debian's
# cloud-init schema validator (cloud-init 22.4 on Debian 12:
# `cloud-init schema --config-file FILE`, exit 0 when valid), plus what
# each example must do: install the package, apply a profile, enable the
# verify unit, reboot only on verify's "reboot pending" (exit 3).
set -eu

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
if ! command -v cloud-init >/dev/null 2>&1; then
        echo "1..0 # SKIP cloud-init not installed (Debian: apt-get install cloud-init)"
        exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hosttune-cloud-init.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# TAP: each example that passes is a check; the first failure ends the run.
fail() { n=$((n + 1)); echo "not ok $n - $*"; echo "1..$n"; exit 1; }

# cloud-init's own Python, for the script it writes from runcmd
ci_python=$(sed -n '1s/^#! *//p' "$(command -v cloud-init)")
n=0
for f in "$top_srcdir"/packaging/cloud-init/*.yaml; do
        [ -f "$f" ] || fail "no cloud-config examples in packaging/cloud-init"
        name=${f##*/}
        out=$(cloud-init schema --config-file "$f" 2>&1) || fail "$name: $out"
        # Deprecated keys are reported with exit 0; examples must not use them.
        case $out in *eprecat*) fail "$name: $out" ;; esac
        grep -q '^#cloud-config' "$f" || fail "$name: no #cloud-config header"
        grep -Eq '^  - hosttune$' "$f" || fail "$name: does not install the hosttune package"
        grep -Eq 'hosttune.*apply' "$f" || fail "$name: no hosttune apply in runcmd"
        grep -Eq '\[systemctl, enable, hosttune-verify.service\]' "$f" || fail "$name: does not enable the verify unit"
        grep -Eq 'condition:.*hosttune verify.*-eq 3' "$f" || fail "$name: reboot is not conditional on verify's exit 3"
        # runcmd becomes one /bin/sh script run without -e (cloud-init's
        # util.shellify, as cc_runcmd calls it): a failing step must end it.
        script=$($ci_python -c 'import sys, yaml
from cloudinit import util
sys.stdout.write(util.shellify(yaml.safe_load(open(sys.argv[1]))["runcmd"]))' "$f" 2>&1) ||
                fail "$name: cloud-init cannot write its runcmd script: $script"
        [ "$(printf '%s\n' "$script" | sed -n 2p)" = "set -e" ] ||
                fail "$name: the runcmd script cloud-init writes does not start with set -e: $script"
        n=$((n + 1))
        echo "ok $n - $name: valid, installs, applies (runcmd under set -e), enables verify, reboots only on exit 3"
done
[ "$n" -ge 2 ] || fail "expected at least two examples, found $n"

# The validator must reject a broken file, or the checks above prove nothing.
printf '#cloud-config\npower_state:\n  mode: explode\nruncmd: 5\n' >"$tmp/bad.yaml"
if cloud-init schema --config-file "$tmp/bad.yaml" >/dev/null 2>&1; then
        fail "cloud-init schema accepted an invalid file"
fi
n=$((n + 1))
echo "ok $n - cloud-init schema rejects an invalid file"
echo "1..$n"
