# rollback, boot 1: the original state of everything the plan touches is
# recorded with plain tools (sysctl, the sysfs files, the block devices'
# queue files, /proc/cmdline, su -l
# for limits, checksums of the files hosttune edits or creates), then the
# good scenario's apply runs. The keys come from the plan; the values
# never come from hosttune.
. /payload/lib.sh
PROFILE=${HT_BOOT_PROFILE:-oracle}
SETS=${HT_BOOT_SETS:---set sga_max_size=64M --set oracle_user=oracle --set oracle_group=dba}
# the users good/apply.sh makes: they exist before the original state is read
getent group oinstall >/dev/null || groupadd oinstall
getent group dba >/dev/null || groupadd dba
id oracle >/dev/null 2>&1 || useradd -m -g oinstall -G dba -s /bin/bash oracle
install_hosttune $P/hosttune
HT="hosttune --profile-path $P/profiles --rules-path $P/rules"
$HT --json plan $PROFILE $SETS >$OUT/plan-before.json
rc=$?
[ "$rc" = 2 ] || { echo "FAIL plan exit $rc, want 2"; cat $OUT/plan-before.json; exit 1; }

: >$ORIG
: >$OUT/orig-problems
jq -r '.changes[] | "\(.backend) \(.outcome) \(.path) \(.key)"' $OUT/plan-before.json | while read -r backend outcome path key; do
        # a skipped change (no cpufreq in the guest) changes nothing
        [ "$outcome" = skipped ] && continue
        case $backend in
        sysctl) echo "sysctl $key $(sysctl -n "$key" | squeeze)" ;;
        sysfs) echo "sysfs $key $(sysfs_value "$key")" ;;
        block)
                set -- $key
                echo "block $1 $2 $(block_value "$1" "$2")" ;;
        limits)
                set -- $key
                for t in soft hard; do
                        [ "$2" = $t ] || [ "$2" = - ] || continue
                        v=$(login_limit "$1" $t "$3")
                        case $v in \(*) echo "cannot read the limit $1 $t $3: $v" >>$OUT/orig-problems ;; esac
                        echo "limits $1 $t $3 $v"
                done ;;
        cpu) echo "sysfs $path $(sysfs_value "$path")" ;;
        systemd)
                case $key in
                logind.*)
                        v=$(busctl get-property org.freedesktop.login1 /org/freedesktop/login1 \
                                org.freedesktop.login1.Manager "${key#logind.}" 2>&1 | sed 's/^b true$/yes/; s/^b false$/no/')
                        echo "systemd $key $v" ;;
                *) echo "systemd $key (not checked)" ;;
                esac ;;
        cmdline) ;;     # the whole command line is kept below
        *) echo "the plan has a $backend change this test cannot check after the rollback" >>$OUT/orig-problems ;;
        esac
done >>$ORIG
if [ -s $OUT/orig-problems ]; then
        sed 's/^/FAIL /' $OUT/orig-problems
        exit 1
fi
sort -u -o $ORIG $ORIG
# THP defrag is no shipped profile's: it must not move either
echo "sysfs /sys/kernel/mm/transparent_hugepage/defrag $(sysfs_value /sys/kernel/mm/transparent_hugepage/defrag)" >>$ORIG
cat $ORIG
cat /proc/cmdline >$ORIG_DIR/cmdline
files_state >$ORIG_DIR/files
cat $ORIG_DIR/files

sh $P/scenarios/good/apply.sh
