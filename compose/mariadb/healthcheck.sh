#!/bin/bash
# Healthy: the server answers on its socket (as the account mysql@localhost, by unix_socket) and has the demo users;
# a replica also needs both replication threads running.
set -euo pipefail
q() { mariadb --socket=/run/mysqld/mysqld.sock -N -B -e "$1"; }
[ "$(q "SELECT COUNT(*) FROM mysql.user WHERE user='exporter'")" = 1 ]
if [ "${UNTORN_ROLE:-standalone}" = replica ]; then
  status=$(mariadb --socket=/run/mysqld/mysqld.sock -e "SHOW SLAVE STATUS\G")
  grep -q 'Slave_IO_Running: Yes' <<<"$status" && grep -q 'Slave_SQL_Running: Yes' <<<"$status"
fi
