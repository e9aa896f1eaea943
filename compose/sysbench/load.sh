#!/bin/sh
# A steady oltp_write_only load on one server: prepare once, then run until stopped.
set -eu
HOST=$1
args="--db-driver=mysql --mysql-host=$HOST --mysql-user=sbtest --mysql-password=sbtest --mysql-db=sbtest --tables=8 --table-size=100000 --rand-type=uniform"
until mysql -h "$HOST" -usbtest -psbtest -e 'SELECT 1' sbtest >/dev/null 2>&1; do sleep 3; done
mysql -h "$HOST" -usbtest -psbtest -e 'SELECT 1 FROM sbtest8 LIMIT 1' sbtest >/dev/null 2>&1 || sysbench oltp_write_only $args --threads=4 prepare
exec sysbench oltp_write_only $args --threads="${THREADS:-8}" --time=0 --report-interval=60 run
