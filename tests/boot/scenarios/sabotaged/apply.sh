# sabotaged, boot 1: the good apply, then the bootloader regeneration is
# undone (grub.cfg from before the apply) and a later sysctl.d file
# overrides vm.swappiness. infra-sabotaged proves both really break the
# boot; here hosttune must notice.
. /payload/lib.sh
sh $P/scenarios/good/apply.sh || exit 1
sabotage_grub
swp=$(awk '$1 == "sysctl" && $2 == "vm.swappiness" { print $3 }' $EXPECT)
other=33
[ "$swp" = 33 ] && other=34
sabotage_sysctl vm.swappiness $other
echo $other >/var/lib/ht-boot-test/swappiness-override
