#!/bin/sh
# Runs once on a replica's first start: follow the primary by GTID auto-positioning.
set -eu
[ "${UNTORN_ROLE:-primary}" = replica ] || exit 0
until mysql -h mysql-primary -urepl -prepl -e 'SELECT 1' >/dev/null 2>&1; do sleep 2; done
mysql -uroot -p"$MYSQL_ROOT_PASSWORD" <<SQL
CHANGE REPLICATION SOURCE TO SOURCE_HOST='mysql-primary', SOURCE_USER='repl', SOURCE_PASSWORD='repl',
  SOURCE_AUTO_POSITION=1, GET_SOURCE_PUBLIC_KEY=1;
START REPLICA;
SQL
