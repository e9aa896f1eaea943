#!/bin/bash
# First start: make the datadir, then per UNTORN_ROLE
#   primary | standalone  create the demo users (binlogged, so replicas receive them)
#   replica               CHANGE MASTER TO UNTORN_PRIMARY with MASTER_USE_GTID=slave_pos: an empty
#                         gtid_slave_pos replays the primary's binlog from its first transaction
# then run mariadbd in the foreground. Later starts go straight to mariadbd.
set -euo pipefail
role=${UNTORN_ROLE:-standalone}
server_id=${UNTORN_SERVER_ID:-1}
datadir=/var/lib/mysql
socket=/run/mysqld/mysqld.sock
case $role in primary | standalone | replica) ;; *)
  echo "untorn-mariadb: UNTORN_ROLE must be primary, replica or standalone, not '$role'" >&2
  exit 2
  ;;
esac
args=(--server-id="$server_id")
[ "$role" = replica ] && args+=(--read-only=ON)

if [ ! -d "$datadir/mysql" ]; then
  echo "untorn-mariadb: first start as $role (server_id $server_id): making the datadir"
  mariadb-install-db --datadir="$datadir" --auth-root-authentication-method=socket --auth-root-socket-user=mysql \
    --skip-test-db >/dev/null
  mariadbd "${args[@]}" --skip-networking --socket="$socket" &
  pid=$!
  for _ in $(seq 60); do mariadb-admin --socket="$socket" ping >/dev/null 2>&1 && break; sleep 1; done
  if [ "$role" = replica ]; then
    primary=${UNTORN_PRIMARY:?UNTORN_PRIMARY names the primary of a replica}
    mariadb --socket="$socket" <<SQL
CHANGE MASTER TO MASTER_HOST='$primary', MASTER_USER='repl', MASTER_PASSWORD='repl',
  MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=2;
SQL
  else
    mariadb --socket="$socket" </usr/local/share/untorn/users.sql
  fi
  mariadb-admin --socket="$socket" shutdown
  wait "$pid" || true
  echo "untorn-mariadb: datadir ready"
fi
exec mariadbd "${args[@]}" --socket="$socket"
