# powercut, every boot after a cut: the guest booted (through GRUB, with
# whatever grub.cfg the cut left); before any hosttune command every
# managed file is wholly old or wholly new; the next command (`hosttune
# status`) recovers an unfinished transaction; then the tree is the old
# one (rolled back) or the new one (the apply had committed: `hosttune
# rollback` undoes it) and ends byte for byte as before the apply. Then
# the next cut is armed, or, after the last, the boot powers off.
. /payload/lib.sh
. ./powercut.sh
k=$(cat $PC/cut)
spec=$(cat $PC/spec-$k)
echo "powercut: booted after cut $k ($spec): $(cat /proc/cmdline)"
pass "cut $k: the guest booted through GRUB"
[ -e /boot/grub/grub.cfg.new ] && echo "note: grub-mkconfig's /boot/grub/grub.cfg.new is left over (its own temp file)"

managed_state >$PC/cut-$k-before
check_wholly $PC/cut-$k-before "cut $k, before recovery"
if cmp -s $PC/cut-$k-before $PC/pre; then before=old
elif cmp -s $PC/cut-$k-before $PC/new; then before=new
else before=partly-new; fi

hosttune status >$OUT/status-$k.log 2>&1
check "cut $k: hosttune status (the recovering command): exit" "$?" 0
cat $OUT/status-$k.log
if grep -q 'recovered .* unfinished transaction' $OUT/status-$k.log; then recovery=rolled-back; else recovery=none; fi

managed_state >$PC/cut-$k-after
check_wholly $PC/cut-$k-after "cut $k, after recovery"
hosttune --json history >$OUT/history-$k.json 2>&1
check "cut $k: no transaction left pending" \
        "$(jq -r '[.transactions[] | select(.status == "pending")] | length' $OUT/history-$k.json 2>&1)" 0
committed=$(jq -r '[.transactions[] | select(.command == "apply" and .status == "committed")] | length' \
        $OUT/history-$k.json 2>&1)
if cmp -s $PC/cut-$k-after $PC/pre; then
        tree=old
        check "cut $k: the old tree, and no applied transaction" "$committed" 0
elif cmp -s $PC/cut-$k-after $PC/new; then
        tree=new
        check "cut $k: the new tree, and its transaction committed" "$committed" 1
        check "cut $k: a committed apply is not rolled back by recovery" "$recovery" none
else
        tree=mixed
        fail "cut $k: after recovery the managed files are neither all old nor all new"
        diff $PC/pre $PC/cut-$k-after
fi
rollback=n/a
if [ "$committed" != 0 ]; then
        hosttune rollback >$OUT/rollback-$k.log 2>&1
        rc=$?
        cat $OUT/rollback-$k.log
        check "cut $k: hosttune rollback exit" "$rc" 0
        [ "$rc" = 0 ] && rollback=ok || rollback=failed
fi
files_state >$PC/cut-$k-files
diff $PC/files-pre $PC/cut-$k-files
check "cut $k: files byte for byte as before the apply" "$(sha256sum <$PC/cut-$k-files)" "$(sha256sum <$PC/files-pre)"
check "cut $k: managed files as before the apply" "$(managed_state | sha256sum)" "$(sha256sum <$PC/pre)"
# The boot after the cut loaded whatever sysctl.d and tmpfiles.d files
# the cut left; recovery restores the files, not the values the boot took
# from them (reported, not failed: see HACKING.md, "Power cuts").
runtime_state >$PC/cut-$k-runtime
kept=$(grep -cvxF -f $PC/runtime-pre $PC/cut-$k-runtime)
if [ "$kept" -gt 0 ]; then
        echo "note: cut $k: $kept runtime values differ from before the apply after recovery and rollback" \
                "(the boot loaded the files the cut left):"
        grep -vxF -f $PC/runtime-pre $PC/cut-$k-runtime | sed 's/^/note:   /'
        runtime_reset
        check "cut $k: runtime values reset with plain tools" "$(runtime_state | sha256sum)" "$(sha256sum <$PC/runtime-pre)"
fi
verdict=ok
[ "$n_fail" = 0 ] || verdict=FAIL
echo "POWERCUT-RESULT cut=$k spec=$spec booted=yes before=$before recovery=$recovery tree=$tree rollback=$rollback runtime_kept=$kept checks=$verdict"
[ "$n_fail" = 0 ] || { checks_done; exit 1; }
if [ "$k" -lt "$RUNS" ]; then
        checks_done
        arm_cut $((k + 1))
fi
checks_done
