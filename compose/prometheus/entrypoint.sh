#!/bin/sh
# Writes the console's viewer token (UNTORN_VIEWER_TOKEN, from the demo's .env through docker-compose.yml)
# to the file prometheus.yml's untorn-console job reads as its bearer credentials, readable by this user
# only, then runs Prometheus. The token is never written into a committed file.
set -eu
token_file=/run/untorn/viewer-token
token=${UNTORN_VIEWER_TOKEN:-}
if [ "${#token}" -lt 32 ]; then
  echo "untorn-prometheus: UNTORN_VIEWER_TOKEN must be set to the console's viewer token (32+ characters): see .env.example" >&2
  exit 1
fi
umask 077
printf '%s' "$token" >"$token_file.tmp"
mv "$token_file.tmp" "$token_file"
unset token UNTORN_VIEWER_TOKEN
exec /usr/bin/prometheus "$@"
