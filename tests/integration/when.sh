#!/bin/sh
# A setting's `when` (hosttune.profile(5), PROFILE FORMAT): true keeps it,
# false or unknown leaves it out and lists it as skipped (condition) in
# show, plan and --json alike; every section that takes values takes it
# (sysctl, sysfs, block queue values, cpu, systemd, services, limits and
# cmdline groups); one file may set a key twice when one of the two has a
# `when`, the later true one winning; bad conditions fail naming the file
# and line. On a copy of baremetal-numa (8 CPUs, x86_64, hugetext absent).
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (scripts/deps.sh installs it)"
HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1
export HOSTTUNE_INSECURE_PROFILES HOSTTUNE_NO_AUDIT

h=$(copy_host baremetal-numa); scratch "$h"
P=$tmp/profiles
mkdir -p "$P"
ht() { "$HOSTTUNE" --root "$h" --profile-path "$P" --rules-path "$top_srcdir/rules" --color=never "$@"; }

# the fixture's own facts, read here: the conditions below depend on them
cpus=$(grep -c '^processor' "$h/proc/cpuinfo")
check "fixture: 8 CPUs" 8 "$cpus"
check "fixture: x86_64" x86_64 "$(cat "$h/proc/sys/kernel/arch")"
[ ! -e "$h/sys/kernel/mm/hugetext_enabled" ] && ok "fixture: no hugetext (facts.hugetext.enabled is null)" ||
        not_ok "fixture: has hugetext"

# the facts the conditions read, as `facts` prints them: one line each
run 0 "facts (text)" --root "$h" facts
distinct=$(awk '!seen[$0]++' "$h/proc/cpuinfo" | wc -l)
check "facts: cpuinfo as its first line, and how many distinct lines follow" \
        "$(head -1 "$h/proc/cpuinfo") ... ($((distinct - 1)) more lines in --json)" \
        "$(sed -n 's/^cpu\.cpuinfo  *//p' "$tmp/out")"
check "facts: kernel.uname from the fixture's files" \
        "Linux $(cat "$h/proc/sys/kernel/hostname") $(cat "$h/proc/sys/kernel/osrelease") $(cat "$h/proc/sys/kernel/version") x86_64" \
        "$(sed -n 's/^kernel\.uname  *//p' "$tmp/out")"

cat >"$P/cond.profile" <<'EOF'
summary = "conditions";
sysctl = {
        vm = {
                swappiness = { value = 10; when = "facts.cpu.count >= 8"; };
                dirty_ratio = { value = 40; when = "matches(facts.kernel.uname, \"aarch64\")"; };
                dirty_background_ratio = { value = 5; when = "facts.hugetext.enabled > 0"; };
        };
};
sysfs = {
        kernel = { mm = { transparent_hugepage = {
                enabled = { value = "never"; when = "matches(facts.kernel.machine, \"^x86_64$\")"; };
                defrag = { value = "never"; when = "facts.cpu.count > 64"; };
        }; }; };
};
cpu = { governor = { value = "performance"; when = "facts.cpu.count > 64"; }; };
block = { non-rotational = { queue = { scheduler = { value = "none"; when = "false"; }; }; }; };
systemd = { logind = { RemoveIPC = { value = "no"; when = "false"; }; }; };
services = { mysqld = { LimitNOFILE = { value = 65536; when = "false"; }; }; };
limits = (
        { domain = "oracle"; type = "soft"; item = "nofile"; value = 1024; when = "false"; }
);
cmdline = ( { add = [ "numa=off" ]; when = "facts.cpu.count > 64"; },
            { add = [ "nosmt" ]; when = "true"; } );
EOF
run 0 "show cond" --root "$h" --profile-path "$P" --rules-path "$top_srcdir/rules" --color=never show cond
cp "$tmp/out" "$tmp/show.txt"
check_contains "show: a true condition keeps the setting" "sysctl   vm.swappiness = 10" "$tmp/show.txt"
check_contains "show: sysfs under a true matches()" "/sys/kernel/mm/transparent_hugepage/enabled = never" "$tmp/show.txt"
check_contains "show: the cmdline group whose condition holds" "nosmt" "$tmp/show.txt"
check_contains "show: its own list" "skipped (condition):" "$tmp/show.txt"
check_contains "show: false, with the condition and the line" \
        "sysctl vm.dirty_ratio: its condition is false: matches(facts.kernel.uname, \"aarch64\") ($P/cond.profile:5)" "$tmp/show.txt"
check_contains "show: unknown fact: unknown, not an error" \
        "sysctl vm.dirty_background_ratio: its condition is unknown on this host: facts.hugetext.enabled > 0 ($P/cond.profile:6)" \
        "$tmp/show.txt"
if grep -q "optional" "$tmp/show.txt"; then not_ok "show: a condition is not called optional"; else
        ok "show: a condition is not called optional"; fi

run 0 "show cond --json" --root "$h" --profile-path "$P" --rules-path "$top_srcdir/rules" --json show cond
cp "$tmp/out" "$tmp/show.json"
# every section left out by its condition, each once, with its condition
check "json: the skipped settings" \
        '["block non-rotational queue/scheduler","cmdline numa","cpu governor","limits oracle soft nofile","service mysqld.service LimitNOFILE","sysctl vm.dirty_background_ratio","sysctl vm.dirty_ratio","sysfs /sys/kernel/mm/transparent_hugepage/defrag","systemd logind.RemoveIPC"]' \
        "$(jq -c '[.skipped[].setting] | sort' "$tmp/show.json")"
check "json: each carries its condition" 9 "$(jq '[.skipped[] | select(.condition != null)] | length' "$tmp/show.json")"
check "json: the condition as written" 'facts.cpu.count > 64' \
        "$(jq -r '.skipped[] | select(.setting == "cpu governor") | .condition' "$tmp/show.json")"
check "json: the settings kept" '["/sys/kernel/mm/transparent_hugepage/enabled","nosmt","vm.swappiness"]' \
        "$(jq -c '[.settings[] | select(.source | startswith("'"$P"'")) | .key] | sort' "$tmp/show.json")"

run 2 "plan cond --json" --root "$h" --profile-path "$P" --rules-path "$top_srcdir/rules" --json plan cond
check "plan --json: the same skipped list as show" "$(jq -c '[.skipped[] | [.setting, .reason, .source, .condition]] | sort' "$tmp/show.json")" \
        "$(jq -c '[.skipped[] | select(.condition != null) | [.setting, .reason, .source, .condition]] | sort' "$tmp/out")"
check "plan --json: no change for a skipped key" "" \
        "$(jq -r '.changes[] | select(.key == "vm.dirty_ratio" or .key == "numa") | .key' "$tmp/out")"
run 2 "plan cond" --root "$h" --profile-path "$P" --rules-path "$top_srcdir/rules" --color=never plan cond
check_contains "plan: the skipped line names the condition" \
        "skipped (condition): sysctl vm.dirty_ratio: its condition is false: matches(facts.kernel.uname, \"aarch64\") ($P/cond.profile:5)" \
        "$tmp/out"
check_contains "plan: the kept setting is planned" "vm.swappiness" "$tmp/out"

# --- one key twice in one file ------------------------------------------------
cat >"$P/twice.profile" <<'EOF'
sysctl = (
        { key = "vm.swappiness"; value = 30; },
        { key = "vm.swappiness"; value = 20; when = "facts.cpu.count >= 8"; },
        { key = "vm.dirty_ratio"; value = 30; when = "true"; },
        { key = "vm.dirty_ratio"; value = 35; when = "false"; },
        { key = "vm.dirty_background_ratio"; value = 3; when = "true"; },
        { key = "vm.dirty_background_ratio"; value = 4; }
);
EOF
run 0 "twice: a key set again under a when" --root "$h" --profile-path "$P" --rules-path "$top_srcdir/rules" --json show twice
check "twice: the later true one wins" 20 "$(jq -r '.settings[] | select(.key == "vm.swappiness") | .value' "$tmp/out")"
check "twice: a false one does not replace" 30 "$(jq -r '.settings[] | select(.key == "vm.dirty_ratio") | .value' "$tmp/out")"
check "twice: a plain one after a conditional one wins" 4 \
        "$(jq -r '.settings[] | select(.key == "vm.dirty_background_ratio") | .value' "$tmp/out")"
check "twice: no conflict warning within one file" "[]" "$(jq -c '[.warnings[] | select(contains("conflict"))]' "$tmp/out")"

cat >"$P/twice-plain.profile" <<'EOF'
sysctl = (
        { key = "vm.swappiness"; value = 30; },
        { key = "vm.swappiness"; value = 20; when = "true"; },
        { key = "vm.swappiness"; value = 10; }
);
EOF
run 1 "twice-plain: two entries without a when still fail" --root "$h" --profile-path "$P" --rules-path "$top_srcdir/rules" show twice-plain
check_contains "twice-plain: names both plain lines" \
        "$P/twice-plain.profile:4: sysctl vm.swappiness is set twice in this file (also at line 2)" "$tmp/err"

# --- bad conditions: an error naming the file and line, the host untouched -------
bad() { # NAME WHEN-LINE NEEDLE
        printf 'sysctl = { vm = { swappiness = { value = 1; %s }; }; };\n' "$2" >"$P/$1.profile"
        run 1 "$1: refused" --root "$h" --profile-path "$P" --rules-path "$top_srcdir/rules" plan "$1"
        check_contains "$1: says why, with file:line" "$3" "$tmp/err"
}
bad integer 'when = "facts.cpu.count";' \
        "$P/integer.profile:1: sysctl vm.swappiness: when: the condition must be true or false, not the integer '8'"
bad string 'when = "facts.kernel.machine";' "not the string 'x86_64'"
bad syntax 'when = "facts.cpu.count >";' "$P/syntax.profile:1: sysctl vm.swappiness: when: column"
bad unknown-name 'when = "facts.cpu.nosuch";' "unknown name 'facts.cpu.nosuch'"
bad empty 'when = " ";' "$P/empty.profile:1: sysctl vm.swappiness: when: expected an expression"
bad number 'when = 1;' "$P/number.profile:1: sysctl vm.swappiness: when: expected a string"
bad regex 'when = "matches(facts.kernel.uname, \"(\")";' "the regex \"(\" is not one hosttune can use"
bad no-value 'when = "true"; value2 = 1;' "unknown key 'value2'"
check "the host is untouched" "$(cat "$HOSTS/baremetal-numa/proc/sys/vm/swappiness")" "$(cat "$h/proc/sys/vm/swappiness")"
[ ! -e "$h/etc/sysctl.d/90-hosttune.conf" ] && ok "no drop-in written" || not_ok "a drop-in was written"
finish
