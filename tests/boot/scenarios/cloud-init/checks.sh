# Checks of scenario cloud-init (sourced after /payload/lib.sh by apply.sh
# and verify.sh). $REC is what boot 1 recorded when cloud-init had
# finished, $REC2 the same taken in boot 2.
REC=/var/lib/ht-boot-test/boot1
REC2=/var/lib/ht-boot-test/boot2
USERDATA=$P/user-data
CILOG=/var/log/cloud-init.log

# The hosttune apply of the example's runcmd, as argv lines: the list
# entry [hosttune, apply, ...] or the words of an `sh -c "hosttune ...
# apply ... > FILE"` entry up to the redirection (cloud-init's Python
# parses the YAML).
example_apply_args() {
        python3 - "$USERDATA" <<'PY'
import shlex, sys, yaml
for e in yaml.safe_load(open(sys.argv[1])).get("runcmd", []):
    words = e if isinstance(e, list) else shlex.split(e)
    if words[:2] == ["sh", "-c"]:
        words = shlex.split(words[2])
    words = [str(w) for w in words]
    for i, w in enumerate(words):
        if w in ("--json", "-j"):
            continue
        if w == "apply" and "hosttune" in words[0]:
            out = []
            for a in words[i + 1:]:
                if a.startswith(">") or a in ("|", ";", "&&"):
                    break
                out.append(a)
            print("\n".join(out))
            sys.exit(0)
sys.exit("no hosttune apply in the runcmd of " + sys.argv[1])
PY
}

# record_state DIR [noverify]: what the provisioning left, taken with the
# guest's own tools; copied to the payload's out/ too.
record_state() {
        d=$1
        mkdir -p $d
        dpkg-query -W -f='${Status} ${Version}\n' hosttune >$d/dpkg.txt 2>&1
        hosttune --json history >$d/history.json 2>$d/history.err
        if [ "${2:-}" != noverify ]; then
                hosttune --json verify >$d/verify.json 2>$d/verify.err
                echo $? >$d/verify.rc
        fi
        cp $CILOG /var/log/cloud-init-output.log $d/ 2>/dev/null
        cp /var/lib/cloud/instance/scripts/runcmd $d/runcmd 2>/dev/null
        cp /var/log/apt/history.log $d/apt-history.log 2>/dev/null
        cp /var/log/hosttune-first-boot.json $d/ 2>/dev/null
        cat /etc/apt/sources.list /etc/apt/sources.list.d/* >$d/apt-sources.txt 2>&1
        systemctl is-enabled $UNIT >$d/unit-enabled.txt 2>&1
        journalctl --list-boots --no-pager >$d/boots.txt 2>&1
        sync
        mkdir -p $OUT/${d##*/}
        cp -r $d/. $OUT/${d##*/}/ 2>/dev/null
}

# check_cloud_init DIR ok|error: cloud-init's own verdict on boot 1 and
# its log. ok: status done (exit 0), no errors in result.json, no
# traceback and no WARNING in cloud-init.log. error: status error (exit
# non-zero), and the only failure is the runcmd script's (scripts-user).
check_cloud_init() {
        d=$1
        st=$(sed -n 's/^status: //p' $d/status.txt | head -1)
        ds=$(jq -r .v1.datasource $d/result.json 2>&1)
        case $ds in
        DataSourceNoCloud*seed=/dev/vdc*) pass "datasource: $ds" ;;
        *) fail "datasource: got '$ds', want NoCloud from /dev/vdc" ;;
        esac
        errs=$(jq -r '.v1.errors | length' $d/result.json 2>&1)
        # One WARNING is the image's, not the example's: cloud-init 22.4's
        # set-passwords asks systemd for the ssh service before it looks at
        # ssh_pwauth, and warns on any host without an SSH server even when
        # ssh_pwauth is unset (cc_set_passwords.handle_ssh_pwauth). The
        # test image has none; the line is left out of the counts.
        boot1log=$d/cloud-init.log.checked
        grep -v "cc_set_passwords.py\[WARNING\]: Ignoring config 'ssh_pwauth: None'. SSH service 'ssh' is not installed.\$" \
                $d/cloud-init.log >$boot1log
        warn=$(grep -c '\[WARNING\]' $boot1log)
        tb=$(grep -c '^Traceback' $boot1log)
        grep '\[WARNING\]\|^Traceback' $boot1log | head -20
        if [ "$2" = ok ]; then
                check "cloud-init status" "$st" done
                check "cloud-init status --wait exit" "$(cat $d/status.rc)" 0
                check "cloud-init result.json errors" "$errs" 0
                check "cloud-init.log WARNING lines" "$warn" 0
                check "cloud-init.log tracebacks" "$tb" 0
                return
        fi
        check "cloud-init status" "$st" error
        rc=$(cat $d/status.rc)
        [ "$rc" != 0 ] && pass "cloud-init status --wait exit $rc (non-zero)" ||
                fail "cloud-init status --wait exit 0 although the apply failed"
        jq -r '.v1.errors[]' $d/result.json 2>&1
        other=$(jq -r '.v1.errors[]' $d/result.json 2>/dev/null | grep -vc 'scripts-user')
        check "cloud-init errors not from scripts-user (the runcmd script)" "$other" 0
        [ "$errs" -ge 1 ] 2>/dev/null && pass "result.json has $errs error(s)" || fail "result.json has no errors: $errs"
        grep -q 'Running module scripts-user .* failed' $boot1log && pass "cloud-init.log: module scripts-user failed" ||
                fail "cloud-init.log does not say scripts-user failed"
        # every WARNING is the scripts-user failure (its logexc line and
        # the runparts summary)
        owarn=$(grep '\[WARNING\]' $boot1log | grep -vc 'scripts-user\|Runparts\|runcmd')
        check "cloud-init.log WARNING lines not about scripts-user" "$owarn" 0
}

# hosttune came from the seed's repository through apt, as the example's
# `packages:` asks.
check_package() {
        d=$1
        check "dpkg status of hosttune" "$(cut -d' ' -f1-3 $d/dpkg.txt)" "install ok installed"
        grep -q 'file:/srv/hosttune-repo/repo' $d/apt-sources.txt && pass "apt source: the seed's repository" ||
                fail "no seed repository among the apt sources: $(cat $d/apt-sources.txt)"
        grep -qv '^ *#\|^ *$' /etc/apt/sources.list && fail "sources.list still names a mirror: $(grep -v '^ *#' /etc/apt/sources.list)" ||
                pass "sources.list has no mirror (vendor-data's sources_list)"
        if grep -q '^Commandline: apt-get .* install .*hosttune' $d/apt-history.log &&
                grep -q '^Install: .*hosttune:amd64 (' $d/apt-history.log; then
                pass "apt-get installed hosttune ($(grep '^Install: .*hosttune' $d/apt-history.log | head -1))"
        else
                fail "apt's history has no install of hosttune: $(cat $d/apt-history.log 2>&1 | tail -5)"
        fi
}

# manifest_expectations MANIFEST VERIFY.json: what the example's apply
# set out to hold (the transaction's "expected": the plan's settings as
# the journal keeps them, rules applied) as expectations for plain tools;
# a bounded value as its bound (sysctl at least, at most, a range; limits
# at least), not as a string. An optional setting verify skipped (the
# host cannot take it) is listed, not checked.
manifest_expectations() {
        skipped=$(jq -r '.checks[] | select((.hint // "") | startswith("skipped")) | "\(.backend) \(.key)"' "$2" 2>/dev/null)
        jq -r '.expected[] | (.bound // "exact") as $b |
                (if .optional then "optional " else "" end) +
                if .backend == "sysctl" then
                        (if $b == "exact" then "sysctl \(.key) \(.value)" else "sysctl-\($b) \(.key) \(.value)" end)
                elif .backend == "limits" then
                        (if $b == "range" then "limits-range" elif .at_least then "limits-at-least" else "limits" end) +
                        " \(.domain) \(.type) \(.item) \(.value)"
                elif .backend == "cmdline" then
                        (if .remove then "nocmdline \(.key)" elif (.value // "") == "" then "cmdline \(.key)"
                         else "cmdline \(.key)=\(.value)" end)
                else "\(.backend) \(.key) \(.value)" end' "$1" |
                while IFS= read -r line; do
                        case $line in
                        optional\ *)
                                line=${line#optional }
                                set -- $line
                                bk="$1 $2"
                                case $1 in sysctl-* | limits-*) bk="${1%%-*} $2" ;; esac
                                case $1 in limits | limits-*) bk="limits $2 $3 $4" ;; esac
                                if printf '%s\n' "$skipped" | grep -qxF -- "$bk"; then
                                        echo "skipped-by-verify $line"
                                        continue
                                fi ;;
                        esac
                        echo "$line"
                done
}
# check_bound KIND KEY VALUE...: each field of the kernel's value against
# the bound's (kernel.sem has four); a range's low end may only be lower
# and its high end only higher.
check_bound() {
        kind=$1 key=$2
        shift 2
        want=$(echo "$*" | squeeze)
        got=$(sysctl -n "$key" 2>&1 | squeeze)
        ok=$(awk -v k="$kind" -v g="$got" -v w="$want" 'BEGIN {
                n = split(g, G, " "); m = split(w, W, " ")
                if (n != m) { print 0; exit }
                for (i = 1; i <= n; i++) {
                        if (k == "at-least" || (k == "range" && i == n)) { if (G[i] + 0 < W[i] + 0) { print 0; exit } }
                        else if (k == "at-most" || k == "range") { if (G[i] + 0 > W[i] + 0) { print 0; exit } }
                }
                print 1 }')
        if [ "$ok" = 1 ]; then pass "sysctl $key '$got' ($kind '$want')"; else fail "sysctl $key: got '$got', want $kind '$want'"; fi
}
# check_limit_at_least USER TYPE ITEM VALUE: the login session's limit is
# VALUE or more (unlimited above every number)
check_limit_at_least() {
        got=$(login_limit "$1" "$2" "$3")
        want=$(limit_norm "$4")
        if [ "$got" = unlimited ] || { [ "$want" != unlimited ] && [ "$got" -ge "$want" ] 2>/dev/null; }; then
                pass "limits $1 $2 $3 '$got' (at least '$want')"
        else
                fail "limits $1 $2 $3: got '$got', want at least '$want'"
        fi
}
# a limit with a range bound, LOW..HIGH (issue 33: Oracle's hard stack)
check_limit_range() {
        got=$(login_limit "$1" "$2" "$3")
        low=$(limit_norm "${4%%..*}") high=$(limit_norm "${4##*..}")
        if { [ "$got" != unlimited ] && [ "$got" -ge "$low" ] 2>/dev/null; } &&
                { [ "$high" = unlimited ] || [ "$got" -le "$high" ] 2>/dev/null; }; then
                pass "limits $1 $2 $3 '$got' (within '$4')"
        else
                fail "limits $1 $2 $3: got '$got', want within '$4'"
        fi
}
check_expectations_bounded() { # FILE
        if [ ! -s "$1" ]; then
                fail "no expectations in $1"
                return
        fi
        while IFS= read -r line; do
                set -- $line
                case $1 in
                sysctl-at-least | sysctl-at-most | sysctl-range)
                        k=${1#sysctl-}
                        shift
                        check_bound $k "$@" ;;
                limits-at-least) check_limit_at_least "$2" "$3" "$4" "$5" ;;
                limits-range) check_limit_range "$2" "$3" "$4" "$5" ;;
                skipped-by-verify) echo "skip $line (optional; verify: the host cannot take it)" ;;
                *) check_one "$line" ;;
                esac
        done <"$1"
}

# check_provisioned BOOTS: the example did what it says. BOOTS is the
# number of boots seen (2: power_state rebooted, 1: it did not).
check_provisioned() {
        boots=$1
        check_cloud_init $REC ok
        check_package $REC
        # hosttune's journal: one apply of the example's profile, committed
        args=$(example_apply_args) || { fail "$args"; return; }
        profile=$(printf '%s\n' "$args" | head -1)
        echo "the example applies: $(printf '%s\n' "$args" | tr '\n' ' ')"
        jq . $REC/history.json
        check "transactions in hosttune's journal" "$(jq '.transactions | length' $REC/history.json 2>&1)" 1
        check "transaction command" "$(jq -r '.transactions[0].command' $REC/history.json 2>&1)" apply
        check "transaction profile" "$(jq -r '.transactions[0].profile' $REC/history.json 2>&1)" "$profile"
        check "transaction status" "$(jq -r '.transactions[0].status' $REC/history.json 2>&1)" committed
        # rebooted exactly when hosttune said a reboot is needed
        rr=$(jq -r '.transactions[0].reboot_required' $REC/history.json 2>&1)
        want_rr=false
        [ "$boots" = 2 ] && want_rr=true
        check "apply's reboot_required with $boots boot(s) seen" "$rr" "$want_rr"
        if [ "$boots" = 2 ]; then
                check "verify in boot 1, after cloud-init (reboot pending)" "$(cat $REC/verify.rc)" 3
                # boots since the apply's (the journal is persistent): its
                # boot and this one, so exactly one reboot
                bid=$(jq -r '.transactions[0].boot_id' $REC/history.json | tr -d -)
                since=$(awk -v b="$bid" '$2 == b { f = 1 } f { n++ } END { print n + 0 }' $REC2/boots.txt)
                check "boots from the apply's to this one (journalctl --list-boots)" "$since" 2
        else
                check "verify in boot 1, after cloud-init" "$(cat $REC/verify.rc)" 0
        fi
        if [ -f $REC/hosttune-first-boot.json ]; then
                check "the example's apply JSON: reboot_required" \
                        "$(jq -r .reboot_required $REC/hosttune-first-boot.json 2>&1)" "$want_rr"
        fi
        if [ "$boots" = 2 ]; then
                check "$UNIT enabled" "$(cat $REC2/unit-enabled.txt)" enabled
                check_verify_unit 0 ok
                run_verify post 0 ok --boot
        else
                run_verify post 0 ok
        fi
        # what holds now, read with plain tools: the settings the apply's
        # transaction expects (its manifest in hosttune's journal)
        txid=$(jq -r '.transactions[0].txid' $REC/history.json)
        man=/var/lib/hosttune/journal/$txid/manifest.json
        cp "$man" $OUT/manifest.json 2>/dev/null || fail "no manifest $man"
        rm -f $EXPECT
        manifest_expectations "$man" $OUT/post.json | sort -u >$EXPECT
        cat $EXPECT
        if grep -q '^cmdline ' $EXPECT; then
                [ "$boots" = 2 ] && pass "a command line change, and a reboot" || fail "a command line change without a reboot"
        fi
        grep -q '^sysctl vm.swappiness ' $EXPECT && grep -q '^sysfs ' $EXPECT && grep -q '^limits' $EXPECT &&
                pass "the expectations cover sysctl, sysfs and limits" ||
                fail "the expectations lack sysctl vm.swappiness, sysfs or limits"
        check_expectations_bounded $EXPECT
        json_check post '.' 'ok|skipped'
}

# check_refused PATTERN: the apply failed with hosttune's error PATTERN
# (broken: the unknown profile; a shipped example whose sizes the guest
# cannot hold: rule hugepages-fit). cloud-init reports the failure, the
# runcmd script stopped at the failing step (its first entry `set -e`),
# nothing was applied, and the guest was not rebooted (this runs in the
# only boot).
check_refused() {
        check_cloud_init $REC error
        check_package $REC
        check "runcmd script line 2" "$(sed -n 2p $REC/runcmd)" "set -e"
        cat $REC/runcmd
        # cloud-init runs the script once and logs its exit status
        # (subp's ProcessExecutionError, "Exit code: N"): hosttune's 1.
        # Without set -e the script's status would be the last step's,
        # `systemctl enable` (0: the unit exists), and cloud-init would
        # report no failure at all.
        grep -A4 'instance/scripts/runcmd' $REC/cloud-init.log | grep -q 'Exit code: 1' &&
                pass "the runcmd script exited 1 (hosttune apply's status: set -e stopped it there)" ||
                fail "cloud-init.log does not show the runcmd script exiting 1"
        grep -q -- "$1" $REC/cloud-init-output.log &&
                pass "hosttune's error in cloud-init-output.log: $(grep -- "$1" $REC/cloud-init-output.log | head -1 | cut -c1-300)" ||
                fail "cloud-init-output.log does not show hosttune's error /$1/"
        grep -q 'hosttune: the plan has errors; nothing was changed\|^hosttune: ' $REC/cloud-init-output.log &&
                pass "hosttune says: $(grep '^hosttune: ' $REC/cloud-init-output.log | head -1)"
        check "transactions in hosttune's journal" "$(jq '.transactions | length' $REC/history.json 2>&1)" 0
        check "power_state's decision" "$(cat $REC/decision)" none
}
