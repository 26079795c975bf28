#!/bin/sh
# audit-iface: every --json document is UTF-8 (RFC 8259, section 8.1),
# whatever bytes the host's files hold. Before, explain --json copied a
# sysctl.d value that is not UTF-8 into its document as it was, and
# Python's json.load (what Ansible and most tooling read it with) failed
# on the byte. Now such bytes are U+FFFD. A value with 0xff, a UTF-16
# surrogate (ED A0 80) and an overlong form (E0 80 80), and a file whose
# name is not UTF-8; iconv (glibc's strict decoder) checks the documents.
. "${top_srcdir:-.}/tests/integration/lib.sh"
export HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed"
h=$(copy_host debian12-kvm); scratch "$h"
printf 'kernel.shmmax = 1\377\355\240\200\340\200\2002\n' >"$h/etc/sysctl.d/50-bytes.conf"
printf 'kernel.shmmni = 4096\n' >"$h/etc/sysctl.d/51-name-$(printf '\376').conf"
for c in "explain kernel.shmmax" "explain kernel.shmmni"; do
        "$HOSTTUNE" --root "$h" --json $c >"$tmp/out.json" 2>"$tmp/err"
        check "$c: exit 0" 0 $?
        iconv -f UTF-8 -t UTF-8 "$tmp/out.json" >/dev/null 2>"$tmp/iconv"
        check "$c --json is UTF-8" "0 " "$? $(cat "$tmp/iconv")"
done
"$HOSTTUNE" --root "$h" --json explain kernel.shmmax >"$tmp/out.json" 2>/dev/null
check "explain: each byte that is not UTF-8 is U+FFFD" "1$(printf '\357\277\275\357\277\275\357\277\275\357\277\275\357\277\275\357\277\275\357\277\275')2" \
        "$(jq -r '.boot.assignments[] | select(.file == "/etc/sysctl.d/50-bytes.conf") | .value' "$tmp/out.json")"
"$HOSTTUNE" --root "$h" --json explain kernel.shmmni >"$tmp/out.json" 2>/dev/null
check "explain: a file name that is not UTF-8" "/etc/sysctl.d/51-name-$(printf '\357\277\275').conf" \
        "$(jq -r '.boot.assignments[0].file' "$tmp/out.json")"
# UTF-8 stays as it is, around and after the bytes that are not
printf 'kernel.msgmax = caf\303\251\377\360\237\230\200x\n' >"$h/etc/sysctl.d/52-utf8.conf"
"$HOSTTUNE" --root "$h" --json explain kernel.msgmax >"$tmp/out.json" 2>/dev/null
check "explain: UTF-8 kept, the byte between replaced" "$(printf 'caf\303\251\357\277\275\360\237\230\200x')" \
        "$(jq -r '.boot.assignments[] | select(.file == "/etc/sysctl.d/52-utf8.conf") | .value' "$tmp/out.json")"
finish
