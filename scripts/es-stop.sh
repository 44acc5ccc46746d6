#!/usr/bin/env bash
# Stops the test node that scripts/es-start.sh started on ES_PORT (default 9200): SIGTERM, so
# Elasticsearch closes cleanly, then SIGKILL if it is still alive after ES_STOP_TIMEOUT seconds
# (default 30). Removes the PID file. Succeeds without doing anything when no node of ours runs
# on that port; a node it did not start (ES_URL, Docker) is never touched.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PORT="${ES_PORT:-9200}"
PID_FILE="$ROOT/.cache/es/es-$PORT.pid"
TIMEOUT="${ES_STOP_TIMEOUT:-30}"

say() { echo "es-stop: $*" >&2; }

if [[ ! -f "$PID_FILE" ]]; then
  say "no $PID_FILE: nothing to stop"
  exit 0
fi
pid="$(cat "$PID_FILE")"

# The PID file may outlive its process (reboot, kill -9); never signal a reused PID.
if ! [[ -r "/proc/$pid/cmdline" ]] || ! tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q 'simdup.es.EsNodeLauncher'; then
  say "pid $pid is not a running test node; removing stale $PID_FILE"
  rm -f "$PID_FILE"
  exit 0
fi

say "stopping node pid $pid"
kill -TERM "$pid"
waited=0
while kill -0 "$pid" 2>/dev/null; do
  if ((waited >= TIMEOUT)); then
    say "still alive after ${TIMEOUT}s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    break
  fi
  sleep 1
  waited=$((waited + 1))
done
rm -f "$PID_FILE"
say "stopped"
