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

record_orig $OUT/plan-before.json || exit 1

sh $P/scenarios/good/apply.sh
