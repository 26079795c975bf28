#!/bin/sh
# matches() against Python's re, the engine tuned runs its conditional
# sections with (tuned/units/manager.py: re.search(regex, text,
# re.MULTILINE) over /proc/cpuinfo and " ".join(os.uname())): every
# uname_regex and cpuinfo_regex of the installed tuned profiles (when
# /usr/lib/tuned is there) and of tuned 2.20 as pinned below, each as a
# setting's `when` over facts.cpu.cpuinfo or facts.kernel.uname on fixture
# copies holding x86 and Arm hosts' /proc/cpuinfo. The expected answer is
# Python's on the raw file, so hosttune's facts (each distinct cpuinfo line
# once) are held to what tuned itself would see.
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (scripts/deps.sh installs it)"
command -v python3 >/dev/null 2>&1 || skip_all "python3 is not installed (scripts/deps.sh installs it)"
HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1
export HOSTTUNE_INSECURE_PROFILES HOSTTUNE_NO_AUDIT

# tuned 2.20's (Debian bookworm's package): throughput-performance's
# [variables] and aws's [main]/[sysctl.*] sections
cat >"$tmp/regexes" <<'EOF'
aarch64
CPU part\s+:\s+(0x0?516)|(0x0?af)|(0x0?a[0-3])|(0x0?b8)\b
model name\s+:.*\bAMD\b
x86_64
^Linux
\d+\.\d+\.\d+
CPU implementer\s*:\s*0x4[13]$
^flags\s+:.*\bavx2\b
BogoMIPS\s+:\s+\d+\.0\d$
^CPU part\s+:\s+0x0\D
EOF
# and whatever the installed tuned's profiles say, ${variables} resolved
# from their own [variables] (the only indirection they use)
if [ -d /usr/lib/tuned ]; then
        python3 - /usr/lib/tuned/*/tuned.conf >>"$tmp/regexes" <<'EOF'
import re, sys
for path in sys.argv[1:]:
    variables, found = {}, []
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.strip()
        m = re.match(r"^([A-Za-z0-9_]+)\s*=\s*(.*)$", line)
        if not m:
            continue
        k, v = m.groups()
        variables[k] = v
        if k in ("uname_regex", "cpuinfo_regex") or k.endswith("_cpuinfo_regex"):
            found.append(v)
    for v in found:
        v = re.sub(r"\$\{([A-Za-z0-9_]+)\}", lambda m: variables.get(m.group(1), m.group(0)), v)
        if "${" not in v:
            print(v)
EOF
fi
sort -u "$tmp/regexes" >"$tmp/regexes.u"
check "regexes to compare" yes "$([ "$(wc -l <"$tmp/regexes.u")" -ge 8 ] && echo yes || echo no)"

# Arm servers' /proc/cpuinfo (Linux arch/arm64/kernel/cpuinfo.c's format):
# Cavium ThunderX (CN88xx, part 0x0a1), ThunderX2 (0x0af), AWS Graviton2
# (Neoverse N1, 0xd0c); two CPUs each
arm_cpuinfo() { # VARIANT PART FEATURES
        for i in 0 1; do
                printf 'processor\t: %s\nBogoMIPS\t: 200.00\nFeatures\t: %s\nCPU implementer\t: %s\nCPU architecture: 8\nCPU variant\t: %s\nCPU part\t: %s\nCPU revision\t: 1\n\n' \
                        "$i" "$3" "$4" "$1" "$2"
        done
}
sample() { # NAME FIXTURE MACHINE: a copy with that machine's kernel/arch
        s=$(copy_host "$2" "$tmp/$1"); scratch "$s"
        printf '%s\n' "$3" >"$s/proc/sys/kernel/arch"
        printf '%s\n' "$s"
}
mkdir -p "$tmp/amd" "$tmp/intel" "$tmp/thunderx" "$tmp/thunderx2" "$tmp/graviton2"
amd=$(sample amd debian12-kvm x86_64)
intel=$(sample intel oracle-running x86_64)
tx=$(sample thunderx debian12-kvm aarch64)
arm_cpuinfo 0x1 0x0a1 "fp asimd evtstrm aes pmull sha1 sha2 crc32 cpuid" 0x43 >"$tx/proc/cpuinfo"
tx2=$(sample thunderx2 debian12-kvm aarch64)
arm_cpuinfo 0x1 0x0af "fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics cpuid asimdrdm" 0x43 >"$tx2/proc/cpuinfo"
g2=$(sample graviton2 debian12-kvm aarch64)
arm_cpuinfo 0x3 0xd0c "fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp ssbs" 0x41 >"$g2/proc/cpuinfo"
for s in "$tx" "$tx2" "$g2"; do
        printf '5.10.134-16.al8.aarch64\n' >"$s/proc/sys/kernel/osrelease"
done

P=$tmp/profiles
mkdir -p "$P"
for s in "$amd" "$intel" "$tx" "$tx2" "$g2"; do
        name=$(basename "$(dirname "$s")")
        uname="$(cat "$s/proc/sys/kernel/ostype") $(cat "$s/proc/sys/kernel/hostname") $(cat "$s/proc/sys/kernel/osrelease") $(cat "$s/proc/sys/kernel/version") $(cat "$s/proc/sys/kernel/arch")"
        # the profile (one setting a regex and text, all one key: each has a
        # when) and Python's answers: the lines whose condition is false
        printf '%s' "$uname" >"$tmp/$name.uname"
        python3 - "$tmp/regexes.u" "$s/proc/cpuinfo" "$tmp/$name.uname" "$P/m-$name.profile" "$tmp/$name.want" <<'EOF'
import re, sys
regexes = [l.rstrip("\n") for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
texts = {"facts.cpu.cpuinfo": open(sys.argv[2], encoding="utf-8").read(),
         "facts.kernel.uname": open(sys.argv[3], encoding="utf-8").read()}
def string(s):  # a string literal of expressions, and of libconfig: \\ and \" escaped
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
lines, false = ["sysctl = ("], []
for r in regexes:
    for fact, text in texts.items():
        when = "matches(%s, %s)" % (fact, string(r))
        lines.append('{ key = "vm.swappiness"; value = 1; when = %s; },' % string(when))
        if not re.search(r, text, re.MULTILINE):
            false.append(len(lines))
lines[-1] = lines[-1].rstrip(",")
lines.append(");")
open(sys.argv[4], "w").write("\n".join(lines) + "\n")
open(sys.argv[5], "w").write("\n".join(str(n) for n in false) + "\n")
EOF
        "$HOSTTUNE" --root "$s" --profile-path "$P" --rules-path "$top_srcdir/rules" --json show "m-$name" \
                >"$tmp/out" 2>"$tmp/err"
        rc=$?
        check "$name: show m-$name (exit)" 0 "$rc"
        [ "$rc" = 0 ] || sed 's/^/# /' "$tmp/err"
        jq -r '.skipped[] | select(.condition != null) | .source | sub(".*:"; "")' "$tmp/out" >"$tmp/$name.got"
        check "$name: the conditions false where Python's re.search finds nothing" \
                "$(tr '\n' ' ' <"$tmp/$name.want")" "$(tr '\n' ' ' <"$tmp/$name.got")"
        check "$name: no condition unknown" 0 \
                "$(jq '[.skipped[] | select(.reason | contains("unknown"))] | length' "$tmp/out")"
done
# the samples are what the regexes are for: ThunderX's sections apply on
# ThunderX and ThunderX2 only, the AMD one on the AMD host only
tx_re='CPU part\s+:\s+(0x0?516)|(0x0?af)|(0x0?a[0-3])|(0x0?b8)\b'
for name in amd intel thunderx thunderx2 graviton2; do
        pos=$(grep -nxF "$tx_re" "$tmp/regexes.u" | cut -d: -f1)
        line=$((2 * pos))   # its cpuinfo setting's line (one header line, two a regex)
        if grep -qx "$line" "$tmp/$name.want"; then got=false; else got=true; fi
        case $name in thunderx|thunderx2) want=true ;; *) want=false ;; esac
        check "$name: tuned's ThunderX condition is $want" "$want" "$got"
done
finish
