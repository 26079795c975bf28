#!/bin/sh
# audit-mix: sizes from files and processes another user controls. A
# service's JVM may rewrite its own command line (/proc/PID/cmdline is its
# memory), and my.cnf files may be the mysql user's: a size there that the
# software itself would refuse, or one beyond any memory, must not size
# HugePages.
# - HotSpot does not start with a size it cannot parse ("Invalid maximum
#   heap size: -Xmx99999999999999999999g"), nor with a code cache above
#   2048M ("Invalid ReservedCodeCacheSize=3072M. Must be at most 2048M.",
#   compilerDefinitions.cpp), nor can it reserve a heap above what a
#   process can map: such options are no running JVM's, and the JVM's
#   large pages are not counted (a warning names /proc/PID/cmdline). They
#   used to be: a broken -Xmx counted as HotSpot's default, a quarter of
#   the memory (4251 pages here), a 3g code cache as 3g, and -Xmx of 2^63
#   made the whole plan fail with "'hugepages_bytes' is unknown".
# - MariaDB takes innodb_buffer_pool_size up to 18446744073709551615 (and
#   fails to start when it cannot allocate it); that value was read as
#   "not set" and counted as the 128M default. Now the plan's fit check
#   refuses it, the host untouched.
# - Both skip a world-writable option file; hosttune read it.
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (scripts/deps.sh installs it)"
export HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1
P="--profile-path $top_srcdir/profiles --rules-path $top_srcdir/rules"

# oracle-running with an application server's JVM in app.service
h=$(copy_host oracle-running); scratch "$h"
mkdir -p "$h/proc/3001" "$h/etc/systemd/system"
cp "$HOSTS/debian12-kvm/proc/3001/status" "$h/proc/3001/status"
printf 'java\n' >"$h/proc/3001/comm"
printf '1:name=systemd:/system.slice/app.service\n' >"$h/proc/3001/cgroup"
echo 'app:x:61184:61184::/opt/app:/sbin/nologin' >>"$h/etc/passwd"
echo 'app:x:61184:' >>"$h/etc/group"
printf '[Service]\nUser=app\nExecStart=/usr/bin/java -jar /opt/app/app.jar\n' >"$h/etc/systemd/system/app.service"
# jvm OPTION...: the JVM's command line, -XX:+UseLargePages added
jvm() {
        { printf '/usr/lib/jvm/java-17/bin/java\0'; for a in "$@"; do printf '%s\0' "$a"; done
          printf -- '-XX:+UseLargePages\0-jar\0/opt/app/app.jar\0'; } >"$h/proc/3001/cmdline"
}
pages() { jq -r '[.changes[] | select(.key == "vm.nr_hugepages") | .desired][0]' "$tmp/out"; }
cmdline_warning() { jq -r '[.warnings[] | select(startswith("'"$h"'/proc/3001/cmdline: java 3001"))] | length' "$tmp/out"; }

jvm -Xmx1g
"$HOSTTUNE" --root "$h" $P --json plan jvm >"$tmp/out" 2>"$tmp/err"
check "a sound -Xmx1g: its pages (heap, code cache, G1's tables)" "2 653" "$? $(pages)"
for bad in -Xmx99999999999999999999g -Xmxabc -XX:ReservedCodeCacheSize=3g; do
        jvm -Xmx1g "$bad"
        "$HOSTTUNE" --root "$h" $P --json plan jvm >"$tmp/out" 2>"$tmp/err"
        check "$bad (HotSpot would not start): no HugePages from it, a warning names the file" "2 null 1" \
                "$? $(pages) $(cmdline_warning)"
done
check_contains "... and says why" "java 3001's options hold 1 size HotSpot refuses (it does not start with one): its large pages are not counted" "$tmp/out"
jvm -Xmx9223372036854775807
"$HOSTTUNE" --root "$h" $P --json plan jvm >"$tmp/out" 2>"$tmp/err"
check "-Xmx of 2^63 (more than a process maps): the plan is made, no HugePages from it" "2 null 1" \
        "$? $(pages) $(cmdline_warning)"
# composed with Oracle: the forged JVM adds nothing to the SGAs' 10242
"$HOSTTUNE" --root "$h" $P --json plan oracle+jvm >"$tmp/out" 2>"$tmp/err"
check "oracle+jvm beside it: Oracle's pages alone" "2 10242" "$? $(pages)"

# MariaDB: a pool of 2^64-1 in an option file (Debian 12's layout)
m=$(copy_host debian12-kvm); scratch "$m"
printf '[mysqld]\nlarge_pages = ON\ninnodb_buffer_pool_size = 18446744073709551615\n' \
        >"$m/etc/mysql/mariadb.conf.d/70-pool.cnf"
echo 'mysql:x:991:991::/var/lib/mysql:/usr/sbin/nologin' >>"$m/etc/passwd"
echo 'mysql:x:991:' >>"$m/etc/group"
cp -a "$m" "$tmp/m-before"
"$HOSTTUNE" --root "$m" $P --json plan mysql >"$tmp/out" 2>"$tmp/err"
check "innodb_buffer_pool_size = 2^64-1: refused by the fit check, not taken as the 128M default" "1 1" \
        "$? $(jq '[.errors[] | select(test("HugePages may take at most"))] | length' "$tmp/out")"
"$HOSTTUNE" --root "$m" $P apply mysql >"$tmp/out" 2>"$tmp/err"
check "apply: exit 1, nothing changed" 1 $?
if diff -r -x hosttune.lock "$tmp/m-before" "$m" >/dev/null 2>&1; then ok "apply refused: the host is untouched (but the run lock)"
else not_ok "apply refused: the host changed: $(diff -r "$tmp/m-before" "$m" | head -c 300)"; fi

# a world-writable option file: MySQL and MariaDB ignore it ("World-writable
# config file '...' is ignored", mysys/my_default.cc), any user could
# have written it; it sized the pool (4G: 2194 pages with the key
# cache, Aria's and the log buffers) before
rm "$m/etc/mysql/mariadb.conf.d/70-pool.cnf"
printf '[mysqld]\nlarge_pages = ON\ninnodb_buffer_pool_size = 4G\n' >"$m/etc/mysql/mariadb.conf.d/70-pool.cnf"
chmod 0666 "$m/etc/mysql/mariadb.conf.d/70-pool.cnf"
"$HOSTTUNE" --root "$m" $P --json plan mysql >"$tmp/out" 2>"$tmp/err"
check "a world-writable my.cnf: not read, as the server does not, and said" "2 null 1" \
        "$? $(pages) $(jq '[.warnings[] | select(endswith("70-pool.cnf is world-writable, which the server ignores (\"World-writable config file ... is ignored\"): not read"))] | length' "$tmp/out")"
chmod 0644 "$m/etc/mysql/mariadb.conf.d/70-pool.cnf"
"$HOSTTUNE" --root "$m" $P --json plan mysql >"$tmp/out" 2>"$tmp/err"
check "... the same file, root's alone: its pool (4G + the key cache, Aria's and the two 64M log buffers)" "2 2194" "$? $(pages)"

echo "1..$n"
[ "$failed" = 0 ]
