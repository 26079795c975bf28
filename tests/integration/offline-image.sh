#!/bin/sh
# Offline image builds: a tree without proc/ and sys/ (debian12-kvm minus
# both), planned and applied with and without --facts (the facts JSON of
# the fixture, as `hosttune facts --json` prints it): no runtime changes,
# only persisted files, the missing-facts message, grub.cfg edited in
# place and never regenerated (not even when the image has the tool), and
# rollback. Needs jq. TAP output.
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v jq >/dev/null 2>&1 || { echo "1..0 # SKIP jq is not installed"; exit 0; }
HOSTTUNE_NO_AUDIT=1 HOSTTUNE_INSECURE_PROFILES=1
export HOSTTUNE_NO_AUDIT HOSTTUNE_INSECURE_PROFILES
H=$(cd "$HOSTS" && pwd)
P=$(cd "$PROFILES" && pwd)
R=$(cd "$top_srcdir/rules" && pwd)

# a listing of the tree with checksums: what "unchanged" means
snapshot() { (cd "$1" && find . -path ./var/lib/hosttune -prune -o -path ./run -prune -o -type f -print | sort | xargs sha256sum); }
# the checkout's profiles and rules (word-split on purpose: no blanks in them)
PR="--profile-path $P --rules-path $R"

FACTS=$tmp/target-facts.json
"$HOSTTUNE" --root "$H/debian12-kvm" facts --json >"$FACTS" 2>/dev/null
check "the target's facts" 0 $?
I=$(offline_image img debian12-kvm)
snapshot "$I" >"$tmp/pristine"

# ---- facts of an image
run 0 "facts of the image" --root "$I" facts --json
check "image.offline" 'true null' "$(jq -c '.image.offline, .image.facts_file' "$tmp/out" | paste -sd' ' -)"
check "kernel facts unknown" 'null null null' "$(jq -c '.kernel.release, .memory.total_kb, .hugepages.default_size_kb' "$tmp/out" | paste -sd' ' -)"
check "the image's own files still read" '"debian" "grub2"' "$(jq -c '.os.id, .bootloader.kind' "$tmp/out" | paste -sd' ' -)"
check_contains "one warning says it is an image" "is an offline image (no /proc/sys or /sys)" "$tmp/err"
check "and only one" 1 "$(grep -c warning "$tmp/err")"
run 0 "facts with --facts" --root "$I" --facts "$FACTS" facts --json
for k in .kernel.release .kernel.cmdline .memory.total_kb .hugepages.default_size_kb .hugepages.sizes_kb .thp.enabled .cpu.flags .hypervisor .hugetext.supported .cgroup.version; do
        check "--facts gives $k" "$(jq -c "$k" "$FACTS")" "$(jq -c "$k" "$tmp/out")"
done
check "--facts: not the target's boot id or mounts" 'null []' "$(jq -c '.boot_id, .mounts.hugetlbfs' "$tmp/out" | paste -sd' ' -)"
check "--facts: its path" "\"$FACTS\"" "$(jq -c .image.facts_file "$tmp/out")"

# ---- without --facts: a profile that sizes HugePages cannot be planned
run 1 "plan oracle sga 4G without --facts" --root "$I" $PR plan oracle --set sga_max_size=4G
check_contains "the message" "facts.hugepages.default_size_kb is unknown: this is an offline image" "$tmp/out"
check_contains "the fix" "pass --facts FILE from a machine of the target shape" "$tmp/out"
run 1 "apply without --facts" --root "$I" $PR apply oracle --set sga_max_size=4G
snapshot "$I" >"$tmp/now"
if cmp -s "$tmp/pristine" "$tmp/now"; then ok "nothing written"; else not_ok "the image changed: $(diff "$tmp/pristine" "$tmp/now")"; fi
# base needs no kernel facts
run 2 "plan base without --facts" --root "$I" $PR plan base
check_contains "offline in the summary" "(offline image)" "$tmp/out"
# jvm: hugetext cannot be decided, and says why
run 2 "plan jvm without --facts" --root "$I" $PR plan jvm
check_contains "hugetext skipped for want of facts" "facts.hugetext.supported is unknown: this is an offline image" "$tmp/out"
check_contains "as a skipped optional setting, with the fix" \
        "skipped (optional): hugetext=2: facts.hugetext.supported is unknown: this is an offline image; pass --facts FILE" "$tmp/out"
check "no hugetext word for the image's command line" "" "$(grep 'hugetext=' "$I/etc/default/grub")"
# with the target's facts (a kernel without hugetext): skipped for that
run 2 "plan jvm with --facts" --root "$I" $PR --facts "$FACTS" --json plan jvm
check "--facts: hugetext skipped because the target kernel has none" "rule hugetext-unavailable" \
        "$(jq -r '.skipped[] | select(.setting | contains("hugetext_enabled")) | .source' "$tmp/out" | cut -d' ' -f1-2)"

# ---- with --facts
run 2 "plan with --facts" --root "$I" $PR --facts "$FACTS" plan oracle --set sga_max_size=4G --json
cp "$tmp/out" "$tmp/plan.json"
check "offline in JSON" true "$(jq -c .offline "$tmp/plan.json")"
check "no runtime change" '[]' "$(jq -c '[.changes[] | select(.runtime)]' "$tmp/plan.json")"
check "nr_hugepages from the target's page size: ceil(4G/2M)+2" '"vm.nr_hugepages = 2050"' \
        "$(jq -c '.files[] | select(.path == "/etc/sysctl.d/90-hosttune.conf") | .after | split("\n") | map(select(startswith("vm.nr_hugepages")))[0]' "$tmp/plan.json")"
# (hosttune-cpu.conf: oracle's optional governor, a glob line that its
# first boot writes to whatever cpufreq policies the machine has, or none)
check "files planned" '["/boot/grub/grub.cfg","/etc/default/grub","/etc/security/limits.d/90-hosttune.conf","/etc/sysctl.d/90-hosttune.conf","/etc/systemd/logind.conf.d/90-hosttune.conf","/etc/tmpfiles.d/hosttune-cpu.conf","/etc/tmpfiles.d/hosttune.conf","/etc/udev/rules.d/99-hosttune-block.rules"]' \
        "$(jq -c '[.files[].path] | sort' "$tmp/plan.json")"
check "the image's governor line" "w /sys/devices/system/cpu/cpufreq/policy*/scaling_governor - - - - performance" \
        "$(jq -r '.files[] | select(.path == "/etc/tmpfiles.d/hosttune-cpu.conf") | .after' "$tmp/plan.json" | grep '^w ')"
check "no grub-mkconfig for an image" '[]' "$(jq -c .actions "$tmp/plan.json")"
run 2 "plan text" --root "$I" $PR --facts "$FACTS" plan oracle --set sga_max_size=4G
check_contains "text: offline" "files to write (offline image)" "$tmp/out"
check_contains "text: when the image boots" "takes effect when the image boots" "$tmp/out"

run 0 "apply with --facts" --root "$I" $PR --facts "$FACTS" apply oracle --set sga_max_size=4G
check "apply runs nothing" "" "$(grep '^note:' "$tmp/out")"
check "no proc/ or sys/ made in the image" "no" "$( [ -e "$I/proc" ] || [ -e "$I/sys" ] && echo yes || echo no)"
check_contains "sysctl.d written" "vm.nr_hugepages = 2050" "$I/etc/sysctl.d/90-hosttune.conf"
check_contains "tmpfiles.d written" "w /sys/kernel/mm/transparent_hugepage/enabled - - - - never" "$I/etc/tmpfiles.d/hosttune.conf"
check_contains "limits.d written" "oracle     hard    memlock" "$I/etc/security/limits.d/90-hosttune.conf"
check_contains "grub defaults edited" 'GRUB_CMDLINE_LINUX="transparent_hugepage=never"' "$I/etc/default/grub"
grub_script_check "grub-script-check accepts the edited grub.cfg" "$I/boot/grub/grub.cfg"
txid=$("$HOSTTUNE" --root "$I" history --json | jq -r '.transactions[-1].txid')
check "journal: no runtime items" 0 \
        "$(jq '[.items[] | select(.kind == "runtime")] | length' "$I/var/lib/hosttune/journal/$txid/manifest.json")"
run 0 "apply again: nothing to do" --root "$I" $PR --facts "$FACTS" apply oracle --set sga_max_size=4G
check_contains "says so" "no changes" "$tmp/out"
run 0 "rollback offline" --root "$I" rollback
snapshot "$I" >"$tmp/now"
if cmp -s "$tmp/pristine" "$tmp/now"; then ok "rollback: the image is as it was"; else not_ok "rollback left: $(diff "$tmp/pristine" "$tmp/now")"; fi

# ---- bad --facts
echo '{"kernel": {"release": 5}, "memory": {}}' >"$tmp/bad1.json"
run 1 "a wrong type" --root "$I" --facts "$tmp/bad1.json" plan base
check_contains "names file and field" "bad1.json: kernel.release: expected a string, got int" "$tmp/err"
printf '{\n "kernel": {}\n "memory": {}\n}' >"$tmp/bad2.json"
run 1 "broken JSON" --root "$I" --facts "$tmp/bad2.json" plan base
check_contains "names the line" "bad2.json:3: not valid JSON" "$tmp/err"
echo '[1, 2]' >"$tmp/bad3.json"
run 1 "not facts" --root "$I" --facts "$tmp/bad3.json" facts
check_contains "says so" "does not look like the output of 'hosttune facts --json'" "$tmp/err"
"$HOSTTUNE" --root "$I" facts --json >"$tmp/img-facts.json" 2>/dev/null
run 1 "facts of an image are no target facts" --root "$I" --facts "$tmp/img-facts.json" facts
check_contains "says where to get them" "collected from an offline image" "$tmp/err"
jq '.thp.sysfs_dir = "/etc"' "$FACTS" >"$tmp/bad4.json"
run 1 "a path outside the THP directories" --root "$I" --facts "$tmp/bad4.json" facts
jq '.kernel.cmdline = "quiet\nGRUB_EVIL=1"' "$FACTS" >"$tmp/bad5.json"
run 1 "a newline in the command line" --root "$I" --facts "$tmp/bad5.json" facts
run 1 "a missing file" --root "$I" --facts "$tmp/nonexistent.json" facts
run 1 "a directory" --root "$I" --facts "$tmp" facts
check_contains "not a regular file" "not a regular file" "$tmp/err"
run 0 "--facts with a live root is ignored, with a warning" --root "$H/debian12-kvm" --facts "$FACTS" facts --json
check_contains "the warning" "is ignored" "$tmp/err"

# ---- the image has grub-mkconfig: it is never run (it would probe the
# build machine's disks), chrooted or not
C=$(offline_image mkconfig-img debian12-kvm)
mkdir -p "$C/usr/sbin"
printf '#!/bin/sh\necho ran >/ran-grub-mkconfig\necho "# regenerated" >"$2"\n' >"$C/usr/sbin/grub-mkconfig"
chmod 755 "$C/usr/sbin/grub-mkconfig"
run 0 "grub-mkconfig in the image: apply" --root "$C" $PR --facts "$FACTS" apply oracle --set sga_max_size=4G
check "grub-mkconfig in the image: not run" "no" "$([ -e "$C/ran-grub-mkconfig" ] && echo yes || echo no)"
check_contains "grub-mkconfig in the image: grub.cfg edited in place instead" "ro  quiet transparent_hugepage=never" "$C/boot/grub/grub.cfg"
grub_script_check "grub-mkconfig in the image: grub-script-check accepts the edited grub.cfg" "$C/boot/grub/grub.cfg"

# ---- the image's first boot: the boot the apply waited for, although no
# boot id was there to record (verify's drift, not "reboot pending")
B=$(offline_image first-boot debian12-kvm)
run 0 "first boot: apply to the image" --root "$B" $PR --facts "$FACTS" apply oracle --set sga_max_size=4G
txid=$("$HOSTTUNE" --root "$B" history --json | jq -r '.transactions[-1].txid')
check "the manifest says offline, with no boot id" 'true null' \
        "$(jq -c '.offline, .boot_id' "$B/var/lib/hosttune/journal/$txid/manifest.json" | paste -sd' ' -)"
# it boots: the fixture's kernel files stand for the running kernel, whose
# command line lacks the word (its bootloader was not the one tuned)
cp -R "$H/debian12-kvm/proc" "$H/debian12-kvm/sys" "$B/"
run 2 "first boot: verify finds drift" --root "$B" $PR --json verify
check "rebooted since the apply" true "$(jq -c .rebooted_since_apply "$tmp/out")"
check "the missing word is drift, not pending" '"drift"' \
        "$(jq -c '.checks[] | select(.backend == "cmdline") | .status' "$tmp/out")"

finish
