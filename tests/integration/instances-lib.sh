# Sourced by the tests of several MariaDB instances on one host (issue
# 37: compose-finish.sh, instances-gate.sh).
# add_instances ROOT: on a copy of the debian12-kvm fixture, Debian's
# mariadb@.service and two enabled instances, sales and reports, each
# with its own option group, and a third, old, neither enabled nor
# running.
add_instances() {
        h=$1
        mkdir -p "$h/lib/systemd/system" "$h/etc/systemd/system/multi-user.target.wants"
        # the lines of MariaDB's support-files/mariadb@.service.in (10.4
        # on, MDEV-11670) that say what an instance reads; a comment names
        # the alternative, which must not count
        cat >"$h/lib/systemd/system/mariadb@.service" <<'UNIT'
# Multi instance version of MariaDB
# Alternate: Environment=MYSQLD_MULTI_INSTANCE=--defaults-file=/etc/mysql/my%I.cnf
[Unit]
Description=MariaDB 10.11.6 database server (multi-instance %I)
After=network.target

[Install]
WantedBy=multi-user.target

[Service]
Type=notify
User=mysql
Group=mysql
Environment=MYSQLD_MULTI_INSTANCE="--defaults-group-suffix=.%I"
ExecStart=/usr/sbin/mariadbd $MYSQLD_MULTI_INSTANCE $MYSQLD_OPTS $_WSREP_NEW_CLUSTER $_WSREP_START_POSITION%I
UNIT
        for i in sales reports; do
                ln -s /lib/systemd/system/mariadb@.service "$h/etc/systemd/system/multi-user.target.wants/mariadb@$i.service"
        done
        cat >"$h/etc/mysql/mariadb.conf.d/70-instances.cnf" <<'CNF'
[mariadbd.sales]
datadir = /var/lib/mysql-sales
socket = /run/mysqld/mysqld-sales.sock
port = 3307
large_pages = ON
innodb_buffer_pool_size = 2G

[mariadbd.reports]
datadir = /var/lib/mysql-reports
socket = /run/mysqld/mysqld-reports.sock
port = 3308
large-pages
innodb_buffer_pool_size = 1G
key_buffer_size = 64M

# an instance not enabled and not running: not a consumer
[mariadbd.old]
large_pages = ON
innodb_buffer_pool_size = 8G
CNF
}
