#!/usr/bin/env bash
# Installs the Debian 12 packages Untorn's tests and lab use. Run as root (or via sudo).
set -euo pipefail
pkgs=(mariadb-server mariadb-client prometheus prometheus-alertmanager prometheus-mysqld-exporter
  prometheus-node-exporter sysbench chromium docker-compose e2fsprogs util-linux openssl
  docker.io debootstrap iptables victoria-metrics)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-system-deps: all Debian packages present"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-system-deps: need root to install: ${missing[*]}" >&2
  exit 1
fi
echo "install-system-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
# The Debian prometheus and victoria-metrics packages start services on install where systemd runs;
# tests start their own (on free ports).
# docker.io (dockerd) and debootstrap are for `npm run test:compose`: it uses the running dockerd or starts
# one, and scripts/docker-base-images.sh makes the demo's base images with debootstrap. Debian 12 ships
# Compose v1 only (docker-compose 1.29); Compose v2 (`docker compose`) takes the same commands.
