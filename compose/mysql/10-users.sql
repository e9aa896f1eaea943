-- Runs once on the primary's first start (docker-entrypoint-initdb.d); replicas copy it through GTIDs.
CREATE USER IF NOT EXISTS 'exporter'@'%' IDENTIFIED BY 'exporter' WITH MAX_USER_CONNECTIONS 6;
GRANT PROCESS, REPLICATION CLIENT ON *.* TO 'exporter'@'%';
GRANT SELECT ON performance_schema.* TO 'exporter'@'%';
CREATE USER IF NOT EXISTS 'repl'@'%' IDENTIFIED BY 'repl';
GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%';
CREATE USER IF NOT EXISTS 'sbtest'@'%' IDENTIFIED BY 'sbtest';
CREATE DATABASE IF NOT EXISTS sbtest;
GRANT ALL ON sbtest.* TO 'sbtest'@'%';
