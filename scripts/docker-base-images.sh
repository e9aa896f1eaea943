#!/usr/bin/env bash
# Makes LOCAL STAND-INS for the two base images the demo's Dockerfiles start FROM, for machines that reach
# Debian's mirror but no image registry (Untorn's development and CI machines):
#   debian:bookworm-slim    debootstrap --variant=minbase bookworm, trimmed like the official slim image
#   node:20-bookworm-slim   that image plus THIS machine's Node 20 (node, npm, npx) and a `node` user (uid 1000)
# On a machine with Docker Hub access you do not need this: `docker compose up` pulls the real images.
# A tag that already exists is left alone (pass --force to replace it). Every stand-in carries the label
# org.untorn.stand-in=true, so `docker image ls -f label=org.untorn.stand-in` lists them.
# Needs root, debootstrap and a running dockerd.
set -euo pipefail
force=0
[ "${1:-}" = --force ] && force=1
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
label=org.untorn.stand-in=true

have() { docker image inspect "$1" >/dev/null 2>&1; }
say() { echo "docker-base-images: $*"; }

work=$(mktemp -d /tmp/untorn-base-images.XXXXXX)
child=
cleanup() {
  set +e
  if [ -n "$child" ]; then
    # debootstrap's own children (dpkg, ...) too: it runs in a session of its own
    kill -TERM -- "-$child" 2>/dev/null
    for _ in $(seq 100); do kill -0 -- "-$child" 2>/dev/null || break; sleep 0.2; done
    kill -KILL -- "-$child" 2>/dev/null
    wait "$child" 2>/dev/null
  fi
  # debootstrap mounts /proc and /sys inside the tree while it installs
  grep " $work/" /proc/mounts | cut -d' ' -f2 | sort -r | xargs -r -n1 umount -l 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ $force = 1 ] || ! have debian:bookworm-slim; then
  command -v debootstrap >/dev/null || { say "debootstrap missing: apt-get install debootstrap" >&2; exit 1; }
  say "making a LOCAL STAND-IN for debian:bookworm-slim with debootstrap from $mirror (not the Docker Hub image)"
  root="$work/rootfs"
  # In the background and waited for, so a signal stops it at once (cleanup kills it, then removes the tree).
  setsid debootstrap --variant=minbase bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 &
  child=$!
  wait "$child" || {
    tail -20 "$work/debootstrap.log" >&2
    exit 1
  }
  child=
  cat >"$root/etc/apt/sources.list" <<SRC
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
SRC
  # What the official slim image does: no services started by package scripts, no apt caches, no docs.
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod 755 "$root/usr/sbin/policy-rc.d"
  cat >"$root/etc/apt/apt.conf.d/docker-clean" <<'APT'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache ""; Dir::Cache::srcpkgcache "";
APT
  printf 'Acquire::Languages "none";\n' >"$root/etc/apt/apt.conf.d/docker-no-languages"
  cat >"$root/etc/dpkg/dpkg.cfg.d/docker-slim" <<'DPKG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
DPKG
  find "$root/usr/share/doc" -mindepth 2 -not -name copyright -not -type d -delete 2>/dev/null || true
  rm -rf "$root"/usr/share/{man,info,locale}/* "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin \
    "$root"/var/cache/apt/archives/*.deb "$root"/var/log/* "$root"/tmp/* "$root"/debootstrap
  tar -C "$root" -c . | docker import --change 'CMD ["bash"]' --change "LABEL $label" - debian:bookworm-slim >/dev/null
  say "debian:bookworm-slim stand-in: $(docker image inspect -f '{{.Size}}' debian:bookworm-slim | numfmt --to=iec)"
else
  say "debian:bookworm-slim exists: left alone"
fi

if [ $force = 1 ] || ! have node:20-bookworm-slim; then
  node=$(command -v node) || { say "node missing on this machine" >&2; exit 1; }
  version=$("$node" --version)
  case $version in v20.*) ;; *) say "this machine's node is $version, not Node 20" >&2; exit 1 ;; esac
  npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
  say "making a LOCAL STAND-IN for node:20-bookworm-slim: debian:bookworm-slim plus this machine's node $version"
  mkdir -p "$work/node/bin" "$work/node/lib"
  cp "$(readlink -f "$node")" "$work/node/bin/node"
  cp -a "$npm_dir" "$work/node/lib/npm"
  # A machine whose egress goes through a TLS-inspecting proxy trusts that proxy's CA through
  # NODE_EXTRA_CA_CERTS; the stand-in trusts the same file, or npm could not reach the registry from a build.
  ca_line=
  if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -r "$NODE_EXTRA_CA_CERTS" ]; then
    cp "$NODE_EXTRA_CA_CERTS" "$work/node/extra-ca.crt"
    ca_line='COPY extra-ca.crt /usr/local/share/untorn-stand-in/extra-ca.crt
ENV NODE_EXTRA_CA_CERTS=/usr/local/share/untorn-stand-in/extra-ca.crt'
    say "the stand-in trusts this machine's NODE_EXTRA_CA_CERTS ($NODE_EXTRA_CA_CERTS)"
  fi
  cat >"$work/node/Dockerfile" <<DOCKERFILE
FROM debian:bookworm-slim
COPY bin/node /usr/local/bin/node
COPY lib/npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
ENV NODE_VERSION=${version#v}
$ca_line
LABEL $label
CMD ["node"]
DOCKERFILE
  docker build -q -t node:20-bookworm-slim "$work/node" >/dev/null
  say "node:20-bookworm-slim stand-in: $(docker image inspect -f '{{.Size}}' node:20-bookworm-slim | numfmt --to=iec)"
else
  say "node:20-bookworm-slim exists: left alone"
fi
