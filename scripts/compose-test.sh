#!/usr/bin/env bash
# `npm run test:compose`: the docker-compose demo end to end, from nothing.
#  1. Uses the running dockerd, or starts one (root only) on a throwaway data root, so nothing left by an
#     earlier run is reused; where dockerd cannot start, the test is SKIPPED, loudly, with the reason.
#  2. Makes the local stand-ins for debian:bookworm-slim and node:20-bookworm-slim where they are missing
#     (scripts/docker-base-images.sh: no image registry is reachable from Untorn's machines).
#  3. Runs the README's commands with its own .env (random secrets, free loopback ports) and project name:
#       docker-compose --env-file .env up --build -d    then waits for every healthcheck
#  4. Asserts from outside (dashboards/test/compose/demo.e2e.ts): every Prometheus target up, the recording
#     rules produce series, /api/v1/fleet lists the 4 servers from live data with verdicts, replication lag
#     reported for both replicas. With UNTORN_COMPOSE_CANARY=1, then, in Chromium
#     (e2e/tests/compose/canary.spec.ts), a doublewrite-OFF canary on mariadb-replica1 carried from the plan
#     to a decided bake against mariadb-replica2.
#  5. docker-compose --env-file .env down -v, removes the images it built and the stand-ins it made, and
#     stops the dockerd it started: also on failure, Ctrl-C or SIGTERM.
set -uo pipefail
cd "$(dirname "$0")/.."
export COMPOSE_PROJECT_NAME=${COMPOSE_PROJECT_NAME:-untorn-compose-test}
export DOCKER_BUILDKIT=0 COMPOSE_DOCKER_CLI_BUILD=0
compose=(docker-compose)
say() { echo "test:compose: $*"; }
now() { date +%s; }
t0=$(now)

work=$(mktemp -d /var/tmp/untorn-compose-test.XXXXXX)
envfile="$work/.env"
dockerd_pid=
made_bases=()
had_docker0=0
ip link show docker0 >/dev/null 2>&1 && had_docker0=1
cleaned=0
status=1
child=
# Long steps run in the background and are waited for, so SIGTERM and Ctrl-C are handled at once.
run() {
  "$@" &
  child=$!
  wait "$child"
  local rc=$?
  child=
  return $rc
}

cleanup() {
  [ $cleaned = 1 ] && return
  cleaned=1
  trap '' INT TERM
  if [ -n "$child" ]; then
    kill -TERM "$child" 2>/dev/null
    wait "$child" 2>/dev/null
  fi
  if [ -f "$envfile" ] && docker info >/dev/null 2>&1; then
    if [ "$status" != 0 ]; then
      say "FAILED: state of the stack and the last log lines of every container follow"
      "${compose[@]}" --env-file "$envfile" ps 2>&1
      "${compose[@]}" --env-file "$envfile" logs --no-color --tail=40 2>&1 | tail -400
    fi
    say "tearing down: docker-compose --env-file .env down -v (and the images it built)"
    "${compose[@]}" --env-file "$envfile" down -v --rmi all --remove-orphans >/dev/null 2>&1 ||
      say "WARNING: docker-compose down failed"
    docker image prune -f --filter label=org.untorn.build-stage=true >/dev/null 2>&1
    for image in "${made_bases[@]}"; do docker image rm -f "$image" >/dev/null 2>&1; done
  fi
  if [ -n "$dockerd_pid" ]; then
    say "stopping the dockerd this test started (pid $dockerd_pid)"
    kill -TERM "$dockerd_pid" 2>/dev/null
    for _ in $(seq 60); do kill -0 "$dockerd_pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL "$dockerd_pid" 2>/dev/null
    wait "$dockerd_pid" 2>/dev/null
    grep " $work/" /proc/mounts | cut -d' ' -f2 | sort -r | xargs -r -n1 umount -l 2>/dev/null
    [ $had_docker0 = 0 ] && ip link delete docker0 2>/dev/null
  fi
  rm -rf "$work"
  say "finished in $(($(now) - t0))s"
}
trap cleanup EXIT
trap 'say "interrupted"; status=130; cleanup; exit 130' INT
trap 'say "terminated"; status=143; cleanup; exit 143' TERM

skip() {
  echo
  echo "test:compose: SKIPPED ($*)"
  echo "test:compose: the docker-compose demo was NOT tested on this machine"
  echo
  status=0
  exit 0
}
fail() {
  say "FAILED: $*" >&2
  status=1
  exit 1
}

for bin in docker docker-compose; do
  command -v $bin >/dev/null || fail "$bin is missing: run scripts/install-system-deps.sh (Debian packages docker.io, docker-compose)"
done

# 1. dockerd
if docker info >/dev/null 2>&1; then
  say "using the running dockerd ($(docker info -f '{{.ServerVersion}}'))"
else
  command -v dockerd >/dev/null || fail "dockerd is missing: run scripts/install-system-deps.sh (Debian package docker.io)"
  [ "$(id -u)" = 0 ] || skip "no dockerd is running and only root can start one"
  [ -e /var/run/docker.sock ] && skip "/var/run/docker.sock exists but no dockerd answers on it"
  say "starting dockerd on a throwaway data root ($work/docker)"
  dockerd --data-root "$work/docker" --exec-root "$work/exec" --pidfile "$work/dockerd.pid" \
    >"$work/dockerd.log" 2>&1 &
  dockerd_pid=$!
  for _ in $(seq 60); do
    docker info >/dev/null 2>&1 && break
    kill -0 "$dockerd_pid" 2>/dev/null || break
    sleep 1
  done
  if ! docker info >/dev/null 2>&1; then
    tail -15 "$work/dockerd.log"
    skip "dockerd could not start here (its last log lines are above)"
  fi
  say "dockerd $(docker info -f '{{.ServerVersion}}') started in $(($(now) - t0))s"
fi

# 2. base images
for image in debian:bookworm-slim node:20-bookworm-slim; do
  docker image inspect "$image" >/dev/null 2>&1 || made_bases+=("$image")
done
t=$(now)
run scripts/docker-base-images.sh || fail "could not make the base images"
say "base images ready in $(($(now) - t))s"

# 3. the README's commands
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
web_port=$(free_port)
prom_port=$(free_port)
viewer_token=$(openssl rand -hex 24)
cat >"$envfile" <<ENV
UNTORN_ADMIN_PASSWORD=$(openssl rand -hex 16)
UNTORN_VIEWER_TOKEN=$viewer_token
UNTORN_WEB_PORT=$web_port
UNTORN_PROMETHEUS_PORT=$prom_port
UNTORN_RECONCILE_SECONDS=5
ENV
t=$(now)
say "docker-compose --env-file .env up --build -d"
run "${compose[@]}" --env-file "$envfile" up --build -d || fail "docker-compose up failed"
build_s=$(($(now) - t))
say "up --build -d returned after ${build_s}s; waiting for every healthcheck"
t=$(now)
deadline=$(($(now) + ${UNTORN_COMPOSE_CONVERGE_SECONDS:-420}))
while :; do
  states=$(docker inspect -f '{{.Name}} {{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{else}}-{{end}}' \
    $("${compose[@]}" --env-file "$envfile" ps -q) 2>/dev/null)
  waiting=$(awk '$2 != "running" || ($3 != "healthy" && $3 != "-")' <<<"$states")
  [ -z "$waiting" ] && break
  grep -q -E ' (exited|dead) ' <<<"$waiting" && fail "a container stopped: $(grep -E ' (exited|dead) ' <<<"$waiting" | tr '\n' ' ')"
  [ "$(now)" -ge "$deadline" ] && fail "not healthy in time: $(tr '\n' ' ' <<<"$waiting")"
  sleep 3
done
converge_s=$(($(now) - t))
say "every container running and healthy ${converge_s}s after up returned"
say "image sizes:"
docker image ls --format '  {{.Repository}}:{{.Tag}} {{.Size}}' | grep -E 'untorn-demo/|bookworm-slim' | sort

# 4. the assertions
t=$(now)
UNTORN_COMPOSE_PROMETHEUS_URL="http://127.0.0.1:$prom_port" UNTORN_COMPOSE_WEB_URL="http://127.0.0.1:$web_port" \
  UNTORN_COMPOSE_VIEWER_TOKEN="$viewer_token" run npm run -s test:compose:assert -w @untorn/dashboards ||
  fail "assertions failed"
assert_s=$(($(now) - t))
if [ "${UNTORN_COMPOSE_CANARY:-0}" = 1 ]; then
  t=$(now)
  say "the canary rollout in Chromium (e2e/tests/compose/canary.spec.ts)"
  UNTORN_COMPOSE_WEB_URL="http://127.0.0.1:$web_port" \
    UNTORN_COMPOSE_ADMIN_PASSWORD="$(sed -n 's/^UNTORN_ADMIN_PASSWORD=//p' "$envfile")" \
    UNTORN_COMPOSE_CANARY_CONTAINER="$("${compose[@]}" --env-file "$envfile" ps -q mariadb-replica1)" \
    run npm run -s test:compose:canary -w @untorn/e2e || fail "the canary rollout failed"
  say "the canary rollout passed in $(($(now) - t))s"
else
  say "the canary rollout (e2e/tests/compose/canary.spec.ts) NOT run: UNTORN_COMPOSE_CANARY=1 runs it (it waits for the history a bake needs, then bakes: 20 to 40 minutes more)"
fi
say "assertions passed in ${assert_s}s (build + up ${build_s}s, converge ${converge_s}s)"
status=0
