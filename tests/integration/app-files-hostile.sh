#!/bin/sh
# Issue 32, item 6: the files an application's owner controls (an Oracle
# home's spfile, pfiles and IFILE= targets, oratab, MySQL option files and
# what they include, a JVM's /proc files) can be a FIFO, a device, a 2 GB
# sparse file or a link to /etc/shadow. Every command that reads them
# (facts, plan, status, verify --boot, apply) finishes in seconds, names
# the file in a warning, reads nothing the owner could not read and
# leaves the lock free. Each run is bounded by `timeout`: the old code
# hung on a FIFO, and must fail here rather than hang the suite.
# Item 7 (text output): values from those files with terminal escapes
# reach the text output escaped, and --json with JSON's own escapes.
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (scripts/deps.sh installs it)"
command -v timeout >/dev/null 2>&1 || skip_all "timeout (coreutils) is not installed"
command -v flock >/dev/null 2>&1 || skip_all "flock (util-linux) is not installed"
export HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1
# seconds a run may take: a hang ends there; generous for valgrind
# (make check-valgrind). HT_HANG_TIMEOUT=5 shows old code failing quickly.
T=${HT_HANG_TIMEOUT:-120}
H=/u01/app/oracle/product/19.0.0/dbhome_1
ESC=$(printf '\033') BEL=$(printf '\007') CR=$(printf '\r')

# hts ROOT ARGS...: hosttune on ROOT, bounded; $tmp/out, $tmp/err, $rc
hts() {
        htr=$1
        shift
        timeout -k 5 "$T" "$HOSTTUNE" --root "$htr" --profile-path "$top_srcdir/profiles" \
                --rules-path "$top_srcdir/rules" "$@" >"$tmp/out" 2>"$tmp/err"
        rc=$?
}
# finished DESCRIPTION EXIT...: the last run ended by itself with one of EXIT
finished() {
        fd=$1
        shift
        for want in "$@"; do
                [ "$rc" = "$want" ] && { ok "$fd: finished (exit $rc)"; return; }
        done
        if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
                not_ok "$fd: still running after $T s (hung), killed"
        else
                not_ok "$fd: exit $rc, expected $*: $(head -c 600 "$tmp/err")"
        fi
}
# lock_free DESCRIPTION ROOT: nobody holds hosttune's lock of ROOT
lock_free() {
        if flock -n "$2/run/hosttune.lock" true; then ok "$1: the lock is free"; else
                not_ok "$1: the lock is held"; fi
}
# warned DESCRIPTION TEXT FILE...: TEXT is in a "hosttune: warning:" or
# "warning:" line of one of FILE
warned() {
        wd=$1 wt=$2
        shift 2
        if cat "$@" | grep '^\(hosttune: \)\{0,1\}warning: ' | grep -qF -- "$wt"; then ok "$wd"; else
                not_ok "$wd: no warning [$wt] in: $(cat "$@" | grep 'warning:' | head -c 800)"; fi
}

# --- Oracle: a FIFO as spfile, as pfile, as an IFILE= target -----------------
d=$(copy_host oracle-running); scratch "$d"
hts "$d" --quiet apply oracle
finished "oracle, well-formed: apply" 0
dbs=$d$H/dbs
for f in spfileORCL.ora initTEST.ora sizes_dev.ora; do
        rm -f "$dbs/$f"
        mkfifo "$dbs/$f"
done
fifo_warned() { # DESCRIPTION FILE...
        for f in spfileORCL.ora initTEST.ora sizes_dev.ora; do
                warned "$1: names the FIFO $f" "$H/dbs/$f: not read: a FIFO, not a regular file" "$@"
        done
}
hts "$d" facts
finished "FIFOs: facts" 0
fifo_warned "FIFOs: facts" "$tmp/err"
hts "$d" plan oracle
finished "FIFOs: plan" 0 2
fifo_warned "FIFOs: plan" "$tmp/out"
hts "$d" status
finished "FIFOs: status" 0
fifo_warned "FIFOs: status" "$tmp/err"
hts "$d" verify --boot
finished "FIFOs: verify --boot (the boot unit's command)" 0 2 3
fifo_warned "FIFOs: verify --boot" "$tmp/err"
hts "$d" apply oracle
finished "FIFOs: apply" 0
fifo_warned "FIFOs: apply" "$tmp/out"
lock_free "FIFOs: after apply" "$d"
hts "$d" --quiet rollback
finished "FIFOs: rollback is not refused" 0

# --- Oracle: a 2 GB sparse file, devices, links to devices -----------------
d=$(copy_host oracle-running); scratch "$d"
dbs=$d$H/dbs
rm -f "$dbs/sizes_dev.ora"
truncate -s 2G "$dbs/sizes_dev.ora"
if [ "$(id -u)" = 0 ]; then
        mkdir -p "$d/dev"
        mknod "$d/dev/zero" c 1 5
        rm -f "$dbs/spfileORCL.ora" "$dbs/initTEST.ora"
        # a link to the tree's /dev/zero, and /dev/zero itself
        ln -s /dev/zero "$dbs/spfileORCL.ora"
        mknod "$dbs/initTEST.ora" c 1 5
fi
hts "$d" facts
finished "devices and a sparse file: facts" 0
warned "a 2 GB sparse IFILE= target: refused by its size, before a byte is read" \
        "$H/dbs/sizes_dev.ora: not read: larger than 4194304 bytes (2147483648)" "$tmp/err"
if [ "$(id -u)" = 0 ]; then
        warned "a character device as pfile: named" "$H/dbs/initTEST.ora: not read: a character device, not a regular file" "$tmp/err"
        warned "a link to /dev/zero as spfile: named" "$H/dbs/spfileORCL.ora: not read: a character device, not a regular file" "$tmp/err"
else
        skip "a character device as pfile" "mknod needs root"
        skip "a link to /dev/zero as spfile" "mknod needs root"
fi
hts "$d" verify --boot
finished "devices and a sparse file: verify --boot" 0 1
lock_free "devices and a sparse file: after verify" "$d"

# --- Oracle: what the software owner could not read --------------------------
# dbs/ belongs to oracle (uid 54321 in the fixture's passwd): a link there,
# or an IFILE= in a pfile of theirs, to /etc/shadow must not make root read
# it; a link to a file of their own is followed.
if [ "$(id -u)" = 0 ]; then
        d=$(copy_host oracle-running); scratch "$d"
        dbs=$d$H/dbs
        printf 'root:SECRET-HASH-MARKER:19000:0:99999:7:::\n' >"$d/etc/shadow"
        chmod 0640 "$d/etc/shadow"
        mkdir -p "$d/u01/app/oracle/admin/TEST/pfile"
        printf '*.memory_target=4G\n*.memory_max_target=4G\n' >"$d/u01/app/oracle/admin/TEST/pfile/common.ora"
        mv "$dbs/initTEST.ora" "$d/u01/app/oracle/admin/TEST/pfile/initTEST.ora"
        rm -f "$dbs/spfileORCL.ora"
        ln -s /etc/shadow "$dbs/spfileORCL.ora"
        ln -s /u01/app/oracle/admin/TEST/pfile/initTEST.ora "$dbs/initTEST.ora"
        printf 'IFILE=/etc/shadow\n' >>"$dbs/initDEV.ora"
        chown -R 54321:54321 "$d/u01/app/oracle"
        chmod 0640 "$d/u01/app/oracle/admin/TEST/pfile/initTEST.ora"
        hts "$d" --json facts
        finished "links to /etc/shadow: facts" 0
        warned "a link to /etc/shadow in oracle's dbs/: not read" \
                "$H/dbs/spfileORCL.ora: not read: uid 54321, who can change the way to it or what named it, could not read it (owner 0, mode 0640)" "$tmp/err"
        warned "IFILE=/etc/shadow in oracle's pfile: not read" \
                "/etc/shadow: not read: uid 54321, who can change the way to it or what named it, could not read it (owner 0, mode 0640)" "$tmp/err"
        check "no byte of /etc/shadow in the output" 0 "$(cat "$tmp/out" "$tmp/err" | grep -c SECRET-HASH-MARKER)"
        check "a link to oracle's own pfile elsewhere is followed (TEST's memory_target)" 4294967296 \
                "$(jq -r '.workload.oracle.databases[] | select(.sid == "TEST") | .memory_target' "$tmp/out")"
        check "DEV's own values still read around the refused IFILE=" 2147483648 \
                "$(jq -r '.workload.oracle.databases[] | select(.sid == "DEV") | .sga_max_size' "$tmp/out")"
else
        skip "links to /etc/shadow" "chown needs root"
fi

# --- MySQL/MariaDB: a FIFO as an option file and inside an !includedir -----
m=$(copy_host debian12-kvm); scratch "$m"
mkfifo "$m/etc/my.cnf" "$m/etc/mysql/conf.d/zz-fifo.cnf"
hts "$m" facts
finished "mysql FIFOs: facts" 0
warned "a FIFO as /etc/my.cnf: named" "/etc/my.cnf: not read: a FIFO, not a regular file" "$tmp/err"
warned "a FIFO in !includedir conf.d/: named" "/etc/mysql/conf.d/zz-fifo.cnf: not read: a FIFO, not a regular file" "$tmp/err"
hts "$m" --json facts
check "the other option files are still read (innodb_buffer_pool_size 6G)" 6442450944 \
        "$(jq -r .workload.mysql.config.innodb_buffer_pool_size "$tmp/out")"
hts "$m" plan mysql
finished "mysql FIFOs: plan" 0 2
warned "mysql FIFOs: plan names the FIFO" "/etc/mysql/conf.d/zz-fifo.cnf: not read: a FIFO" "$tmp/out"
hts "$m" status
finished "mysql FIFOs: status" 0
lock_free "mysql FIFOs" "$m"

# --- JVM: a FIFO as an @argfile and as /proc/PID/environ ---------------------
j=$(copy_host debian12-kvm); scratch "$j"
cp -R "$top_srcdir/tests/integration/jvm-elasticsearch/proc/." "$j/proc/"
cp -R "$top_srcdir/tests/integration/jvm-elasticsearch/usr/." "$j/usr/"
mkdir -p "$j/etc/es"
mkfifo "$j/etc/es/jvm.args"
printf '%s\0' /usr/lib/jvm/java-17-openjdk-amd64/bin/java @/etc/es/jvm.args -Xmx8g -XX:+UseLargePages \
        -jar /opt/app/app.jar >"$j/proc/3001/cmdline"
rm -f "$j/proc/4200/environ"
mkfifo "$j/proc/4200/environ"
hts "$j" facts
finished "JVM FIFOs: facts" 0
warned "a FIFO as /proc/4200/environ (a tree of plain files): named" \
        "/proc/4200/environ: cannot be read (a FIFO, not a regular file)" "$tmp/err"
warned "an @argfile (a FIFO) is counted, never opened" "@argfile(s) on java 3001's command line are not read" "$tmp/err"
hts "$j" plan jvm
finished "JVM FIFOs: plan" 0 2
lock_free "JVM FIFOs" "$j"

# --- Item 7: terminal escapes in values from those files ---------------------
e=$(copy_host oracle-running); scratch "$e"
printf "DEV.use_large_pages='%s'\n" "TRUE${ESC}[2J${BEL}x${CR}y" >>"$e$H/dbs/initDEV.ora"
printf '*.db_name=%s\n' "DEV${ESC}]0;owned${BEL}" >>"$e$H/dbs/initDEV.ora"
printf 'IFILE=/u01/%s.ora\n' "x${ESC}[2Jy" >>"$e$H/dbs/initDEV.ora"
printf '[mysqld]\nuser = my%ssql\n' "${ESC}[31m" >"$e/etc/my.cnf"
raw() { # FILE: how many lines hold ESC, BEL or CR
        grep -c "[$ESC$BEL$CR]" "$1"
}
hts "$e" facts
finished "escapes: facts" 0
check "facts: no ESC, BEL or CR on stdout" 0 "$(raw "$tmp/out")"
check "facts: no ESC, BEL or CR on stderr" 0 "$(raw "$tmp/err")"
check_contains "facts: the pfile's value, its controls as '?'" "use_large_pages          TRUE?[2J?X?Y" "$tmp/out"
check_contains "facts: the option file's value, ESC as '?'" "workload.mysql.config.user                            my?[31msql" "$tmp/out"
check_contains "facts: the IFILE= path in the warning, ESC as '?'" "/u01/x?[2Jy.ora: not read" "$tmp/err"
hts "$e" --json facts
finished "escapes: facts --json" 0
check "--json is valid JSON" 0 "$(jq -e . "$tmp/out" >/dev/null 2>&1; echo $?)"
check "--json carries the value itself (JSON's escapes)" "TRUE${ESC}[2J${BEL}X${CR}Y" \
        "$(jq -r '.workload.oracle.databases[] | select(.sid == "DEV") | .use_large_pages' "$tmp/out")"
check_contains "--json writes ESC, BEL and CR as JSON escapes" '"TRUE\u001b[2J\u0007X\rY"' "$tmp/out"
check "--json: no raw control byte" 0 "$(raw "$tmp/out")"
for cmd in "plan oracle" "plan mysql" "show oracle" status "apply oracle" "verify --boot"; do
        hts "$e" $cmd
        finished "escapes: $cmd" 0 2 3
        check "$cmd: no ESC, BEL or CR in the output" 0 "$(cat "$tmp/out" "$tmp/err" | grep -c "[$ESC$BEL$CR]")"
done
hts "$e" --color=always plan oracle
check "plan --color=always: ESC only in colour codes" 0 \
        "$(sed "s/$ESC\[[0-9;]*m//g" "$tmp/out" "$tmp/err" | grep -c "[$ESC$BEL$CR]")"
finish
