#!/bin/sh
# MySQL/MariaDB option files read as the server reads them, case by case
# against Debian 12's mariadb-server 10.11.19 (mariadbd --defaults-file=F
# --help --verbose, my_print_defaults --mysqld) and its source
# (mysys/my_default.c, mysys/my_getopt.c): a size's letter followed by
# more text ("8GB") is the size, a boolean the server does not know
# ("yes") is OFF, "[ mysqld ]" is no group the server reads, a missing
# !includedir keeps it from starting, a unique prefix of an option's
# name ("key_buffer") is that option. Expected
# values come from the files written here.
. "${top_srcdir:-.}/tests/integration/lib.sh"
command -v jq >/dev/null 2>&1 || skip_all "jq is not installed (scripts/deps.sh installs it)"
export HOSTTUNE_INSECURE_PROFILES=1 HOSTTUNE_NO_AUDIT=1
ht() { r=$1; shift; "$HOSTTUNE" --root "$r" --profile-path "$top_srcdir/profiles" \
        --rules-path "$top_srcdir/rules" "$@"; }
d=$(copy_host debian12-kvm); scratch "$d"
c=$d/etc/mysql/mariadb.conf.d
facts() { ht "$d" --json facts >"$tmp/facts.json" 2>/dev/null; jq -r '.warnings[]' "$tmp/facts.json" >"$tmp/w"; }
cfg() { jq -r ".workload.mysql.config.$1" "$tmp/facts.json"; }

# --- sizes: only the one letter after the digits counts ---------------------------
# eval_num_suffix(): "8GB" is 8G (mariadbd shows innodb-buffer-pool-size
# 8589934592), "512MiB" 512M; "8 G" is an "Unknown suffix ' '" the
# server refuses to start with, so it sizes nothing here either
printf '[mysqld]\ninnodb_buffer_pool_size = 8GB\nkey_buffer_size = 512MiB\naria_pagecache_buffer_size = 8 G\nlarge_pages = ON\n' \
        >"$c/70-units.cnf"
facts
check "innodb_buffer_pool_size = 8GB: 8G, as the server takes it" $((8 * 1073741824)) "$(cfg innodb_buffer_pool_size)"
check "key_buffer_size = 512MiB: 512M" $((512 * 1048576)) "$(cfg key_buffer_size)"
check "aria_pagecache_buffer_size = 8 G: not a size (the server's 'Unknown suffix'), 60-tuning.cnf's 128M kept" $((128 * 1048576)) \
        "$(cfg aria_pagecache_buffer_size)"
check_contains "8 G is named with its file and line" "70-units.cnf:4: aria_pagecache_buffer_size = 8 G is not a size" "$tmp/w"
ht "$d" --json plan mysql >"$tmp/plan.json" 2>/dev/null
check "plan: the 8GB pool's pages are planned" true \
        "$(jq '[.changes[] | select(.key == "vm.nr_hugepages") | .desired | tonumber] | .[0] > 4096' "$tmp/plan.json")"

# --- booleans: ON/OFF, TRUE/FALSE, 1/0 only -----------------------------------------
# get_bool_argument(): "option 'large_pages': boolean value 'yes' wasn't
# recognized. Set to OFF." (mariadbd 10.11.19), so the server maps no
# large pages and none are planned
printf '[mysqld]\nlarge-pages = yes\n' >"$c/75-yes.cnf"
facts
check "large-pages = yes: OFF, as the server takes it" false "$(cfg large_pages)"
check_contains "the warning names file:line and says OFF" "75-yes.cnf:2: large_pages = yes is not ON/OFF, TRUE/FALSE or 1/0, which the server takes for OFF" "$tmp/w"
ht "$d" --json plan mysql >"$tmp/plan.json" 2>/dev/null
check "plan: no HugePages for a server that takes none" "" \
        "$(jq -r '.changes[] | select(.key == "vm.nr_hugepages") | .desired' "$tmp/plan.json")"
printf '[mysqld]\nlarge-pages = True\n' >"$c/75-yes.cnf"
facts
check "large-pages = True: on (any case)" true "$(cfg large_pages)"

# --- groups: blanks after "[" are part of the name -----------------------------------
# search_default_file_with_ext() trims the blanks before "]" only:
# my_print_defaults --mysqld prints nothing from "[ mysqld ]"
printf '[ mysqld ]\nkey_buffer_size = 2G\n[mysqld  ]\ninnodb_log_buffer_size = 32M\n' >"$c/80-spaces.cnf"
facts
check "[ mysqld ]: not the server's group, its key_buffer_size not used" $((512 * 1048576)) "$(cfg key_buffer_size)"
check "[mysqld  ]: blanks before ] trimmed, the server's group" $((32 * 1048576)) "$(cfg innodb_log_buffer_size)"
check_contains "[ mysqld ] is warned about" "80-spaces.cnf:1: a group name that starts with a blank" "$tmp/w"
# --- includes: a missing directory stops the server, a missing file does not -------
# my_dir() fails on a missing !includedir and mariadbd 10.11.19 stops:
# "Fatal error in defaults handling. Program aborted"; the server skips
# a missing !include file without a word (hosttune names it) and reads
# an empty directory as nothing
mkdir -p "$d/etc/mysql/empty.d"
printf '!includedir /etc/mysql/gone.d/\n!includedir /etc/mysql/empty.d\n!include /etc/mysql/gone.cnf\n' >"$c/85-includes.cnf"
facts
check_contains "a missing !includedir: the server does not start with it" \
        "85-includes.cnf:1: !includedir /etc/mysql/gone.d/ is not a directory: the server does not start with it" "$tmp/w"
check "an empty directory is no warning" 0 "$(grep -c 'empty.d' "$tmp/w")"
check_contains "a missing !include file: skipped, as the server skips it" "/etc/mysql/gone.cnf: not read" "$tmp/w"
# --- a unique prefix of an option's name is the option ------------------------------
# my_getopt's findopt(): "key_buffer = 16M" (Debian's MySQL 5.x my.cnf)
# is key_buffer_size to mariadbd 10.11.19, "innodb_log_buffer" is
# innodb_log_buffer_size; "innodb_buffer_pool" begins several options
# (the server refuses it at its start) and sets nothing
printf '[mysqld]\nkey_buffer = 16M\ninnodb_log_buffer = 24M\ninnodb_buffer_pool = 1G\n' >"$c/86-prefixes.cnf"
facts
check "key_buffer = 16M: key_buffer_size, as the server takes it" $((16 * 1048576)) "$(cfg key_buffer_size)"
check "innodb_log_buffer = 24M: innodb_log_buffer_size" $((24 * 1048576)) "$(cfg innodb_log_buffer_size)"
check "innodb_buffer_pool (ambiguous): the pool stays 70-units.cnf's 8G" $((8 * 1073741824)) "$(cfg innodb_buffer_pool_size)"
finish
