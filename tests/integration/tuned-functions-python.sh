#!/bin/sh
# tuned's ${f:...} functions against tuned itself: values made at random
# (a fixed seed) and the real profiles' calls go through tuned 2.20's
# Functions().expand, with its reads of /sys and /proc and its virt-what
# answered from the same facts, and through hosttune's
# ht_tuned_expand_functions (tests/tuned-expand). Every result must be
# tuned's; where tuned logs an error or raises, hosttune must fail. The
# known differences are allowed by name: CPUs above 8191 (tuned builds
# any list) and regexes POSIX cannot say (-ENOTSUP). Skipped without
# tuned's Python package (Debian: apt-get install tuned).
. "${top_srcdir:-.}/tests/integration/lib.sh"

expand_bin=$top_builddir/tests/tuned-expand
[ -x "$expand_bin" ] || { echo "Bail out! $expand_bin not built"; exit 99; }
py=
for p in /usr/bin/python3 python3; do
        if "$p" -c 'import tuned.profiles.functions.functions' 2>/dev/null; then py=$p; break; fi
done
[ -n "$py" ] || skip_all "tuned's Python package is not installed (apt-get install tuned)"

# tuned's answers, one a line: "OK RESULT" or "ERR" (an error logged or
# an exception), \x01 for newlines as tests/tuned-expand writes them
cat >"$tmp/tuned-ref.py" <<'EOF'
import sys, json, logging
import tuned.utils.commands as C
import tuned.logs
facts = json.loads(sys.argv[1])
cpu = facts.get("cpu", {})
files = {"/sys/devices/system/cpu/online": cpu.get("online", ""),
         "/sys/devices/system/cpu/present": cpu.get("present", ""),
         "/proc/cpuinfo": cpu.get("cpuinfo", "")}
C.commands.read_file = lambda self, f, err_ret="", no_error=False: files[f]
virt = facts.get("hypervisor") not in (None, "none")
C.commands.execute = lambda self, args, **kw: (0, "kvm\n" if virt else "") if args[0] == "virt-what" else (1, "")
errors = []
class Catch(logging.Handler):
    def emit(self, rec):
        if rec.levelno >= logging.ERROR:
            errors.append(rec.getMessage())
log = tuned.logs.get()
for h in list(log.handlers):
    log.removeHandler(h)
log.addHandler(Catch())
log.propagate = False
from tuned.profiles.functions.functions import Functions
f = Functions()
for line in sys.stdin.buffer.read().decode("utf-8").split("\n")[:-1]:
    errors.clear()
    try:
        out = f.expand(line.replace("\x01", "\n"))
        print("ERR" if errors else "OK " + out.replace("\n", "\x01"))
    except Exception:
        print("ERR")
EOF

# values: random calls of every function tuned can evaluate from facts,
# nested, escaped, with junk; then each tuned.conf line with a call
# (but those that run programs: exec, nproc, the sysfs topology)
cat >"$tmp/gen.py" <<'EOF'
import random, sys, glob
random.seed(int(sys.argv[1]))
names = ["strip", "kb2s", "s2kb", "cpulist_unpack", "cpulist_pack", "cpulist_invert", "cpulist2hex",
         "cpulist2hex_invert", "hex2cpulist", "cpulist_online", "cpulist_present", "cpulist2devs",
         "regex_search_ternary", "cpuinfo_check", "assertion", "assertion_non_equal", "virt_check", "nope"]
toks = ["0", "1", "3", "0-3", "2-5", "7", "9", "15", "31", "32", "63", "64", "100", "0x0", "0xf", "0XfF", "0x_f",
        "0x1_0", "00000001", "ffffffff", "f", "^2", "!1", "^1-2", "^x", "1-3-5", "5-3", " 4 ", "+3", "-3", "1_0",
        "1__0", "_1", "abc", "", "'0-2'", "\"1\"", "0xg", "0x", " ", "\\:", "a\\:b", "x", "\\s*[0-9]",
        "\\b[y,Y,1,t,T]\\b", "y", "GenuineIntel", "avx2$", "^flags", "[^0-9]", "\\d+", "(a|b)", "a{,2}b", "{", "}",
        "a*?", "\\.", "[\\]]", "[-^]", "-0", "0,,1", ",", ",,", "\t7\t", "\u00a05", "\u0663", "1\u2003"]
big = ["9999999999999999999999", "-12345678901234567", "18014398509481985", "1" + "0" * 400]
def arg(d, numbers):
    if d < 3 and random.random() < 0.15:
        return call(d + 1)
    s = random.choice(toks + (big if numbers else []))
    for sep, p in ((",", 0.3), (",,", 0.2), ("-", 0.1)):
        if random.random() < p:
            s += sep + random.choice(toks)
    return s
def call(d=0):
    n = random.choice(names)
    k = random.choice([0, 1, 1, 1, 2, 2, 3, 4, 5])
    return "${f:" + n + "".join(":" + arg(d, n in ("kb2s", "s2kb") and k == 1) for _ in range(k)) + "}"
for i in range(int(sys.argv[2])):
    s = random.choice(["", "", "x", "\\", " ", "${v}", "$"]) + call() + random.choice(["", "y", "\\${f:strip:z}", " ${f:strip:q}"])
    if random.random() < 0.1:
        s = call() + "\n" + call()
    print(s.replace("\n", "\x01"))
for conf in sorted(glob.glob("/usr/lib/tuned/*/tuned.conf")):
    for l in open(conf, encoding="utf-8"):
        if "${f:" in l and not any(f in l for f in ("${f:exec", "calc_isolated_cores", "check_net_queue_count")):
            print(l.strip().split("=", 1)[-1].strip())
EOF

cpuinfo='processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz\nflags\t\t: fpu vme avx2 hypervisor'
i=0
for facts in \
        "{\"hypervisor\":\"kvm\",\"container\":null,\"cpu\":{\"online\":\"0-7\",\"present\":\"0-15\",\"cpuinfo\":\"$cpuinfo\"}}" \
        "{\"hypervisor\":\"none\",\"container\":null,\"cpu\":{\"online\":\"0,2-3,9,64-65\",\"present\":\"0-127\",\"cpuinfo\":\"$cpuinfo\"}}"; do
        i=$((i + 1))
        "$py" "$tmp/gen.py" "$i" 2500 >"$tmp/in"
        if ! (ulimit -v 2000000; "$py" "$tmp/tuned-ref.py" "$facts" <"$tmp/in" >"$tmp/tuned.out" 2>"$tmp/tuned.err"); then
                not_ok "facts $i: tuned's own expansion ran: $(tail -3 "$tmp/tuned.err")"
                continue
        fi
        "$expand_bin" "$facts" <"$tmp/in" >"$tmp/ht.out"
        "$py" - "$tmp/in" "$tmp/tuned.out" "$tmp/ht.out" >"$tmp/cmp" <<'EOF'
import sys
ins, tuned, ht = (open(f, "rb").read().split(b"\n")[:-1] for f in sys.argv[1:])
assert len(ins) == len(tuned) == len(ht), (len(ins), len(tuned), len(ht))
allowed = (b"the most Linux has", b"uses Python syntax POSIX regular expressions lack")
bad = agree = 0
for v, t, h in zip(ins, tuned, ht):
    if h.startswith(b"ERR") and any(a in h for a in allowed):
        continue
    if t == b"ERR" and (h.startswith(b"ERR -22 ") or h.startswith(b"ERR -8 ")) or t.startswith(b"OK ") and t == h:
        agree += t.startswith(b"OK ")
        continue
    bad += 1
    if bad <= 5:
        print("value %r: tuned %r, hosttune %r" % (v, t, h))
print("agree", agree, "of", len(ins), "bad", bad)
EOF
        check "facts $i: every value expands as tuned expands it" "" "$(grep -v '^agree' "$tmp/cmp")"
        agree=$(sed -n 's/^agree \([0-9]*\) .*/\1/p' "$tmp/cmp")
        # most values must give a result, or the comparison proves little
        if [ "${agree:-0}" -ge 1000 ]; then ok "facts $i: $agree values with a result compared"
        else not_ok "facts $i: only ${agree:-0} values with a result ($(tail -1 "$tmp/cmp"))"; fi
done
finish
