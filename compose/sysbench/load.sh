#!/bin/sh
# A steady oltp_write_only load on one server: prepare once, then run until stopped, at RATE transactions/s
# (0 = as fast as it goes) so the demo leaves the machine usable.
set -eu
HOST=$1
args="--db-driver=mysql --mysql-host=$HOST --mysql-user=sbtest --mysql-password=sbtest --mysql-db=sbtest --tables=${TABLES:-4} --table-size=${TABLE_SIZE:-20000} --rand-type=uniform"
until mariadb -h "$HOST" -usbtest -psbtest -e 'SELECT 1' sbtest >/dev/null 2>&1; do sleep 3; done
mariadb -h "$HOST" -usbtest -psbtest -e "SELECT 1 FROM sbtest${TABLES:-4} LIMIT 1" sbtest >/dev/null 2>&1 \
  || sysbench oltp_write_only $args --threads=2 prepare
exec sysbench oltp_write_only $args --threads="${THREADS:-2}" --rate="${RATE:-40}" --time=0 --report-interval=60 run
