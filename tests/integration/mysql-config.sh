#!/bin/sh
# MySQL/MariaDB sizes itself from its option files: Debian's layout
# (/etc/mysql/my.cnf -> /etc/alternatives/my.cnf -> /etc/mysql/mariadb.cnf
# with !includedir conf.d/ and mariadb.conf.d/, as mariadb-common and
# mariadb-server 10.11 install it), "-" and "_" alike, loose-, quotes,
# what MariaDB puts in large pages (pool in 8 MiB extents, key cache,
# Aria's page cache, two log buffers),
# only *.cnf read, versioned groups not used, large_pages off means no
# HugePages, include loops and bad values warn, --set wins. Expected
# values come from the fixture's files.
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (scripts/deps.sh installs it)"
export HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1
ht() { r=$1; shift; "$HOSTTUNE" --root "$r" --profile-path "$top_srcdir/profiles" \
        --rules-path "$top_srcdir/rules" "$@"; }
d=$(copy_host debian12-kvm); scratch "$d"
# the fixture keeps large_pages off (the server's default): as it is,
# the pool is reported and nothing is reserved
ht "$d" --json facts >"$tmp/facts.json" 2>"$tmp/err"
check "large_pages not set: off, 0 bytes" "null 0" \
        "$(jq -r '[.workload.mysql.config.large_pages, .workload.mysql.large_pages_bytes] | map(tostring) | join(" ")' "$tmp/facts.json")"
# the DBA turns large pages on; the server package's user (preinst)
printf '[mysqld]\nloose-large_pages\nuser = mysql\n' >"$d/etc/mysql/mariadb.conf.d/65-large-pages.cnf"
echo 'mysql:x:102:108:MySQL Server,,,:/nonexistent:/bin/false' >>"$d/etc/passwd"
echo 'mysql:x:108:' >>"$d/etc/group"
ht "$d" --json facts >"$tmp/facts.json" 2>"$tmp/err"
cfg() { jq -r ".workload.mysql.config.$1" "$tmp/facts.json"; }

check "the alternatives chain is a chain of links" "/etc/alternatives/my.cnf /etc/mysql/mariadb.cnf" \
        "$(readlink "$d/etc/mysql/my.cnf") $(readlink "$d/etc/alternatives/my.cnf")"
check "files in the server's order: my.cnf, then conf.d/*.cnf, then mariadb.conf.d/*.cnf sorted" \
        "/etc/mysql/my.cnf /etc/mysql/conf.d/mysql.cnf /etc/mysql/conf.d/mysqldump.cnf /etc/mysql/mariadb.conf.d/50-mysqld_safe.cnf /etc/mysql/mariadb.conf.d/50-server.cnf /etc/mysql/mariadb.conf.d/60-tuning.cnf /etc/mysql/mariadb.conf.d/65-large-pages.cnf" \
        "$(jq -r '.workload.mysql.config.files | join(" ")' "$tmp/facts.json")"
check "innodb-buffer-pool-size = 6G (dashes, a trailing comment)" $((6 * 1073741824)) "$(cfg innodb_buffer_pool_size)"
check "loose-large_pages (65-large-pages.cnf), bare: on" true "$(cfg large_pages)"
check "key_buffer_size = 32M" $((32 * 1048576)) "$(cfg key_buffer_size)"
check "innodb_log_buffer_size=64M" $((64 * 1048576)) "$(cfg innodb_log_buffer_size)"
check "aria_pagecache_buffer_size = \"128M\" in [mariadb] (quoted)" $((128 * 1048576)) "$(cfg aria_pagecache_buffer_size)"
check "query_cache_size: not set" null "$(cfg query_cache_size)"
check "MariaDB's option files (mariadb.conf.d/): MariaDB" true "$(jq .workload.mysql.mariadb "$tmp/facts.json")"
check "large_pages_bytes: the pool + the key cache + the Aria page cache + two log buffers (MariaDB's my_large_malloc users)" \
        $((6 * 1073741824 + 32 * 1048576 + 128 * 1048576 + 2 * 64 * 1048576)) "$(jq .workload.mysql.large_pages_bytes "$tmp/facts.json")"
check "user = mysql" mysql "$(cfg user)"
check "large_pages_bytes_from: the sizes' file and large_pages' file" \
        "/etc/mysql/mariadb.conf.d/60-tuning.cnf, /etc/mysql/mariadb.conf.d/65-large-pages.cnf" \
        "$(jq -r .workload.mysql.large_pages_bytes_from "$tmp/facts.json")"
check "no warnings" "[]" "$(jq -c .warnings "$tmp/facts.json")"

ht "$d" --color=never show mysql >"$tmp/show" 2>&1
pool_line=$(grep -n 'innodb_buffer_pool_size = "= facts' "$top_srcdir/profiles/mysql.profile" | cut -d: -f1)
check_contains "show: the pool from its file" \
        "profiles/mysql.profile:$pool_line from /etc/mysql/mariadb.conf.d/60-tuning.cnf, /etc/mysql/mariadb.conf.d/65-large-pages.cnf" "$tmp/show"
ht "$d" --json plan mysql >"$tmp/plan.json" 2>/dev/null
check "plan: nr_hugepages = ceil((6G + 32M + 128M + 2 * 64M) / 2M) + 2" 3218 \
        "$(jq -r '.changes[] | select(.key == "vm.nr_hugepages") | .desired' "$tmp/plan.json")"
ht "$d" --json plan mysql --set innodb_buffer_pool_size=2G >"$tmp/plan2.json" 2>/dev/null
check "--set innodb_buffer_pool_size=2G wins: 1026 pages" 1026 \
        "$(jq -r '.changes[] | select(.key == "vm.nr_hugepages") | .desired' "$tmp/plan2.json")"

# --- mysql_unit: the unit the running server is in ------------------------------
mkdir -p "$d/proc/880" "$d/usr/lib/systemd/system"
printf '/usr/sbin/mariadbd\0' >"$d/proc/880/cmdline"
echo mariadbd >"$d/proc/880/comm"
printf '0::/system.slice/mariadb.service\n' >"$d/proc/880/cgroup"
printf '[Unit]\nDescription=MariaDB\n[Service]\nExecStart=/usr/sbin/mariadbd\n' >"$d/usr/lib/systemd/system/mariadb.service"
ht "$d" --json facts >"$tmp/fu.json" 2>/dev/null
check "the running mariadbd's unit, from its cgroup" "mariadb.service /proc/880/cgroup" \
        "$(jq -r '.workload.mysql | "\(.unit) \(.unit_from)"' "$tmp/fu.json")"
ht "$d" --color=never show mysql >"$tmp/showu" 2>&1
check_contains "show: mysql_unit from the cgroup" "from /proc/880/cgroup" "$tmp/showu"
ht "$d" --color=never plan mysql >"$tmp/planu" 2>&1
check_contains "plan: the drop-in goes to mariadb.service" "mariadb.service LimitNOFILE" "$tmp/planu"
"$HOSTTUNE" --root "$d" --json recommend >"$tmp/recu.json" 2>/dev/null
# the plain plan takes the running server's unit itself (above): recommend
# names no --set for it (issue 39)
check "recommend: no --set for the running server's unit, which the plan finds" '[]' "$(jq -c .sets "$tmp/recu.json")"
rm -r "$d/proc/880" "$d/usr/lib/systemd/system/mariadb.service"

# --- the running server's command line wins over its files ------------------------
# Debian's mariadb.service (mariadb-server 1:10.11.19-0+deb12u1) runs
# "/usr/sbin/mariadbd $MYSQLD_OPTS ..." as User=mysql: a drop-in's
# Environment=MYSQLD_OPTS= puts options there, which the server reads
# after its option files (my_getopt: the last value wins). A mariadbd of
# another user's (uid 1000, in a session) is untrusted: its options are
# never read.
mkdir -p "$d/proc/881" "$d/proc/882"
printf '%s\0' /usr/sbin/mariadbd --defaults-extra-file=/etc/mysql/extra.cnf --innodb-buffer-pool-size=8G \
        --basedir=/usr --loose-large-pages --key_buffer_size 16M >"$d/proc/881/cmdline"
echo mariadbd >"$d/proc/881/comm"
printf '0::/system.slice/mariadb.service\n' >"$d/proc/881/cgroup"
printf '[mariadbd]\naria_pagecache_buffer_size = 64M\n' >"$d/etc/mysql/extra.cnf"
printf '%s\0' /usr/sbin/mariadbd --innodb-buffer-pool-size=99G >"$d/proc/882/cmdline"
echo mariadbd >"$d/proc/882/comm"
printf 'Name:\tmariadbd\nUid:\t1000\t1000\t1000\t1000\n' >"$d/proc/882/status"
printf '0::/user.slice/user-1000.slice/session-3.scope\n' >"$d/proc/882/cgroup"
ht "$d" --json facts >"$tmp/fc.json" 2>/dev/null
check "command line: --innodb-buffer-pool-size=8G over the files' 6G, --loose-large-pages on, --key_buffer_size 16M, the extra file's Aria cache" \
        "$((8 * 1073741824)) true $((16 * 1048576)) $((64 * 1048576))" \
        "$(jq -r '.workload.mysql.config | [.innodb_buffer_pool_size, .large_pages, .key_buffer_size, .aria_pagecache_buffer_size] | map(tostring) | join(" ")' "$tmp/fc.json")"
check "--defaults-extra-file is read after the default files" /etc/mysql/extra.cnf \
        "$(jq -r '.workload.mysql.config.files[-1]' "$tmp/fc.json")"
check "large_pages_bytes_from names the command line (as a path in the root, like the files)" true \
        "$(jq '.workload.mysql.large_pages_bytes_from | split(", ") | index("/proc/881/cmdline") != null' "$tmp/fc.json")"
printf '%s\0' /usr/sbin/mariadbd --defaults-file=/etc/mysql/extra.cnf >"$d/proc/881/cmdline"
ht "$d" --json facts >"$tmp/fd.json" 2>/dev/null
check "--defaults-file: that file only, the pool at its default" "/etc/mysql/extra.cnf null" \
        "$(jq -r '.workload.mysql.config | "\(.files | join(" ")) \(.innodb_buffer_pool_size)"' "$tmp/fd.json")"
# the first --defaults-file is the one (get_defaults_options(): "if
# (!my_defaults_file && ..."): a unit's "--defaults-file=A $MYSQLD_OPTS"
# with a second one in MYSQLD_OPTS reads A (mariadbd 10.11.19 does)
printf '[mysqld]\ninnodb_buffer_pool_size = 3G\n' >"$d/etc/mysql/other.cnf"
printf '%s\0' /usr/sbin/mariadbd --defaults-file=/etc/mysql/extra.cnf --defaults-file=/etc/mysql/other.cnf >"$d/proc/881/cmdline"
ht "$d" --json facts >"$tmp/ff.json" 2>/dev/null
check "two --defaults-file: the first one, as the server" "/etc/mysql/extra.cnf null" \
        "$(jq -r '.workload.mysql.config | "\(.files | join(" ")) \(.innodb_buffer_pool_size)"' "$tmp/ff.json")"
rm "$d/etc/mysql/other.cnf"
# the server's environment (/proc/PID/environ): $MYSQL_HOME/my.cnf after
# the global files, ~/.my.cnf of its $HOME last (systemd's HOME from
# User=: /var/lib/mysql, the mysql user's home on RHEL and Fedora),
# $MYSQL_GROUP_SUFFIX's groups; mariadbd 10.11.19 reads all three
mkdir -p "$d/srv/mysql" "$d/var/lib/mysql"
printf 'LANG=C\0HOME=/var/lib/mysql\0MYSQL_HOME=/srv/mysql\0MYSQL_GROUP_SUFFIX=.db1\0' >"$d/proc/881/environ"
printf '[mysqld]\nkey_buffer_size = 24M\n[mysqld.db1]\nquery_cache_size = 1M\n' >"$d/srv/mysql/my.cnf"
printf '[mysqld]\ninnodb_log_buffer_size = 48M\n' >"$d/var/lib/mysql/.my.cnf"
printf '%s\0' /usr/sbin/mariadbd --defaults-extra-file=/etc/mysql/extra.cnf >"$d/proc/881/cmdline"
ht "$d" --json facts >"$tmp/fh.json" 2>/dev/null
check "the environment's files in the server's order: \$MYSQL_HOME/my.cnf, the extra file, ~/.my.cnf" \
        "/srv/mysql/my.cnf /etc/mysql/extra.cnf /var/lib/mysql/.my.cnf" \
        "$(jq -r '.workload.mysql.config.files[-3:] | join(" ")' "$tmp/fh.json")"
check "... their sizes: key cache from \$MYSQL_HOME, log buffer from ~/.my.cnf, query cache from [mysqld.db1]" \
        "$((24 * 1048576)) $((48 * 1048576)) 1048576" \
        "$(jq -r '.workload.mysql.config | [.key_buffer_size, .innodb_log_buffer_size, .query_cache_size] | map(tostring) | join(" ")' "$tmp/fh.json")"
rm -r "$d/proc/881/environ" "$d/srv/mysql" "$d/var/lib/mysql/.my.cnf"
printf '%s\0' /usr/sbin/mariadbd --defaults-file=/srv/db1/my.cnf >"$d/proc/881/cmdline"
ht "$d" --json facts >"$tmp/fe.json" 2>/dev/null
check "--defaults-file naming no file in the root: a warning, no file read" "1 0" \
        "$(jq -r '"\([.warnings[] | select(test("srv/db1/my.cnf: not read"))] | length) \(.workload.mysql.config.files | length)"' "$tmp/fe.json")"
rm -r "$d/proc/881" "$d/proc/882" "$d/etc/mysql/extra.cnf"

# --- what the server would not read, and broken input ---------------------------
c=$d/etc/mysql/mariadb.conf.d
printf '[mysqld]\ninnodb_buffer_pool_size = 99G\n' >"$c/60-tuning.cnf.dpkg-old"
printf '[mariadb-10.11]\ninnodb_buffer_pool_size = 1G\n[mysql]\nkey_buffer_size = 1G\n' >"$c/70-version.cnf"
printf '[mysqld]\nkey_buffer_size = lots\n!include /etc/mysql/mariadb.cnf\n' >"$c/80-bad.cnf"
ht "$d" --json facts >"$tmp/f2.json" 2>/dev/null
jq -r '.warnings[]' "$tmp/f2.json" >"$tmp/w2"
check "a .dpkg-old file is not read (only *.cnf)" $((6 * 1073741824)) \
        "$(jq .workload.mysql.config.innodb_buffer_pool_size "$tmp/f2.json")"
check_contains "[mariadb-10.11] is named, not used" "70-version.cnf:2: [mariadb-10.11] sets innodb_buffer_pool_size" "$tmp/w2"
check "[mysql] is the client's group: not used" $((32 * 1048576)) "$(jq .workload.mysql.config.key_buffer_size "$tmp/f2.json")"
check_contains "a bad size names file:line" "80-bad.cnf:2: key_buffer_size = lots is not a size" "$tmp/w2"
check_contains "an include loop is named and not followed" "mariadb.cnf: included again (an include loop)" "$tmp/w2"
printf '[mysqld]\nskip-large-pages\n' >"$c/90-off.cnf"
ht "$d" --json plan mysql >"$tmp/off.json" 2>/dev/null
check "skip-large-pages: no HugePages planned" "" \
        "$(jq -r '.changes[] | select(.key == "vm.nr_hugepages") | .desired' "$tmp/off.json")"

# --- MySQL (no MariaDB binary, process or file): the pool alone --------------------
m=$(copy_host ol8-bls); scratch "$m"
printf '[mysqld]\nlarge_pages = ON\ninnodb_buffer_pool_size = 1G\nkey_buffer_size = 64M\n' >"$m/etc/my.cnf"
ht "$m" --json facts >"$tmp/fm.json" 2>/dev/null
check "MySQL: not MariaDB, only the pool counted (the key cache is MariaDB's large-page user)" "false $((1073741824))" \
        "$(jq -r '[.workload.mysql.mariadb, .workload.mysql.large_pages_bytes] | map(tostring) | join(" ")' "$tmp/fm.json")"
printf '[mysqld]\nlarge_pages = ON\n' >"$m/etc/my.cnf"
mkdir -p "$m/usr/sbin" && : >"$m/usr/sbin/mariadbd"
ht "$m" --json facts >"$tmp/fm2.json" 2>/dev/null
check "MariaDB (its binary), nothing set: the three defaults of 128M and two log buffers of 16M" \
        "true $((3 * 134217728 + 2 * 16777216))" \
        "$(jq -r '[.workload.mysql.mariadb, .workload.mysql.large_pages_bytes] | map(tostring) | join(" ")' "$tmp/fm2.json")"
# MariaDB maps its pool in whole extents of 8 MiB (innodb_buffer_pool_extent_size):
# mariadbd 10.11.19 with innodb_buffer_pool_size=1001M maps 1008M of HugePages
printf '[mysqld]\nlarge_pages = ON\ninnodb_buffer_pool_size = 1001M\nkey_buffer_size = 0\naria_pagecache_buffer_size = 0\n' >"$m/etc/my.cnf"
ht "$m" --json facts >"$tmp/fm3.json" 2>/dev/null
check "MariaDB: a 1001M pool takes 1008M (8 MiB extents), beside the two 16M log buffers" \
        $((1008 * 1048576 + 2 * 16777216)) "$(jq .workload.mysql.large_pages_bytes "$tmp/fm3.json")"

# --- no option files: unchanged ----------------------------------------------------
o=$(copy_host ol8-bls); scratch "$o"
ht "$o" --json facts >"$tmp/f0.json" 2>/dev/null
check "no option files: none read, 0 bytes" "0 0" \
        "$(jq -r '[(.workload.mysql.config.files | length), .workload.mysql.large_pages_bytes] | map(tostring) | join(" ")' "$tmp/f0.json")"
finish
