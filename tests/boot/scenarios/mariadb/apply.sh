# mariadb, boot 1 (issue 39): a MariaDB host as a DBA has it. The DBA's
# own option file (a buffer pool the 1 GB guest holds, a small key cache,
# large_pages=ON) is in place before Debian's mariadb-server is installed
# with apt from the payload's repository (the build hook's; the guest has
# no network), so the server the package starts already asks for large
# pages and runs without them. Then, with plain tools, what the apply may
# touch: the plan's values ($ORIG, record_orig), the server's limits as
# its process has them and as systemd gives them, HugePages; then
# `hosttune apply mysql` with no --set, sized from the option file, with
# its start gate (issue 37) in warn mode, the default.
. /payload/lib.sh
mkdir -p /etc/mysql/mariadb.conf.d
cat >/etc/mysql/mariadb.conf.d/90-dba.cnf <<'CNF'
# The DBA's sizing: InnoDB on large pages; MyISAM is not used here, so a
# small key cache. (The 1 GB test guest: a production host has GBs here.)
[mysqld]
innodb_buffer_pool_size = 256M
key_buffer_size = 16M
large_pages = ON
CNF

# apt from the payload's repository only (no mirror to wait for)
cat >/tmp/ht-seed.list <<L
deb [trusted=yes] file:$P/scenario/repo ./
L
# DPkg::Lock::Timeout: apt-daily-upgrade.service may run at this boot;
# --force-unsafe-io: no fsync per unpacked file (a throwaway disk; the
# install is most of boot 1 under TCG)
APT="apt-get -q -o Dir::Etc::SourceList=/tmp/ht-seed.list -o Dir::Etc::SourceParts=- -o APT::Get::List-Cleanup=false
        -o DPkg::Lock::Timeout=300 -o DPkg::Options::=--force-unsafe-io"
t0=$(cut -d' ' -f1 /proc/uptime)
$APT update >$OUT/apt.log 2>&1 &&
        DEBIAN_FRONTEND=noninteractive $APT install -y --no-install-recommends mariadb-server >>$OUT/apt.log 2>&1
rc=$?
tail -5 $OUT/apt.log
echo "apt-get install mariadb-server: exit $rc, $(cut -d' ' -f1 /proc/uptime) s uptime (from $t0 s)"
[ "$rc" = 0 ] || { echo "FAIL apt-get install mariadb-server"; cat $OUT/apt.log; exit 1; }
dpkg-query -W mariadb-server
systemctl is-active mariadb.service || { echo "FAIL mariadb.service is not running"; exit 1; }
mariadb -N -e 'SELECT @@large_pages, @@innodb_buffer_pool_size' | tee $ORIG_DIR/server-vars
[ "$(cut -f1 $ORIG_DIR/server-vars)" = 1 ] || { echo "FAIL the option file's large_pages=ON is not the server's"; exit 1; }

# The server's limits before hosttune: its process's, and systemd's
# (the unit's own LimitNOFILE=32768, LimitMEMLOCK systemd's default).
pid=$(systemctl show -p MainPID --value mariadb.service)
echo "mariadbd: pid $pid"
grep -E '^Max (open files|locked memory|processes)' /proc/$pid/limits | tee $ORIG_DIR/unit-limits-before
systemctl show -p LimitNOFILE,LimitNOFILESoft,LimitMEMLOCK,LimitMEMLOCKSoft mariadb.service | tee $ORIG_DIR/unit-props-before
grep -E '^HugePages_(Total|Free|Rsvd)' /proc/meminfo | tee $ORIG_DIR/meminfo-before

install_hosttune $P/hosttune
HT="hosttune --profile-path $P/profiles --rules-path $P/rules"
$HT --json plan mysql >$OUT/plan.json
rc=$?
jq . $OUT/plan.json || cat $OUT/plan.json
[ "$rc" = 2 ] || { echo "FAIL plan exit $rc, want 2"; exit 1; }
c() { jq -r --arg k "$1" '.changes[] | select(.key == $k) | .'"$2" $OUT/plan.json; }
# sized from the option file: pool 256M + key cache 16M + Aria's page
# cache (its default 128M: MariaDB takes large pages for it too) + InnoDB's
# two log buffers (16M each by default, large pages too) = 216 pages of
# 2 MB, and the rule's few pages of slack
pages=$(c vm.nr_hugepages desired)
echo "plan: vm.nr_hugepages $(c vm.nr_hugepages current) -> $pages"
case $pages in '' | *[!0-9]*) echo "FAIL the plan sizes no HugePages"; exit 1 ;; esac
[ "$pages" -ge 216 ] && [ "$pages" -le 226 ] || { echo "FAIL vm.nr_hugepages $pages, want 216 to 226 from 90-dba.cnf"; exit 1; }
echo "plan: mariadb.service LimitNOFILE $(c 'mariadb.service LimitNOFILE' current) -> $(c 'mariadb.service LimitNOFILE' desired)"
# the start gate (issue 37): warn by default, said in words
echo "plan: mariadb.service StartGate -> $(c 'mariadb.service StartGate' desired): $(c 'mariadb.service StartGate' note)"
[ "$(c 'mariadb.service StartGate' desired)" = warn ] || { echo "FAIL the plan sets no start gate (warn) for mariadb.service"; exit 1; }
c 'mariadb.service StartGate' note | grep -q 'never keeps it from starting' ||
        { echo "FAIL the plan does not say that the warn gate never keeps mariadb.service from starting"; exit 1; }

record_orig $OUT/plan.json || exit 1
# the cases the test is about must start from other values
grep -q '^sysctl vm.nr_hugepages 0$' $ORIG || { echo "FAIL the guest has HugePages before the apply: proves nothing"; exit 1; }

$HT apply mysql
rc=$?
echo "hosttune apply mysql: exit $rc"
[ "$rc" = 0 ] || exit 1
ls -l /etc/sysctl.d /etc/tmpfiles.d /etc/systemd/system/mariadb.service.d 2>&1
cat /etc/systemd/system/mariadb.service.d/*.conf 2>&1

plan_expectations $OUT/plan.json >>$EXPECT
sort -u -o $EXPECT $EXPECT
cat $EXPECT
# mariadbd runs since before the apply: reboot-pending until the reboot
# restarts it
hosttune --json verify >$OUT/pre-verify.json
echo $? >$OUT/pre-verify.rc
cat $OUT/pre-verify.json
exit 0
