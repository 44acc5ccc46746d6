#!/usr/bin/env bash
# Stops the test node(s) that scripts/es-start.sh started on ES_PORT (default 9200): SIGTERM, so
# Elasticsearch closes cleanly, then SIGKILL if one is still alive after ES_STOP_TIMEOUT seconds
# (default 30). Removes the PID files. A cluster started with ES_NODES=N is stopped whole (the
# node count is remembered in .cache/es/es-PORT.nodes; ES_NODES overrides it). Succeeds without
# doing anything when no node of ours runs on those ports; a node it did not start (ES_URL,
# Docker) is never touched.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STATE="$ROOT/.cache/es"
PORT="${ES_PORT:-9200}"
TIMEOUT="${ES_STOP_TIMEOUT:-30}"
NODES_FILE="$STATE/es-$PORT.nodes"
if [[ -n "${ES_NODES:-}" ]]; then NODES="$ES_NODES"; elif [[ -f "$NODES_FILE" ]]; then NODES="$(cat "$NODES_FILE")"; else NODES=1; fi
[[ "$NODES" =~ ^[1-9]$ ]] || { echo "es-stop: ERROR: ES_NODES must be a number from 1 to 9, got '$NODES'" >&2; exit 1; }

say() { echo "es-stop: $*" >&2; }

# The PID file may outlive its process (reboot, kill -9); never signal a reused PID.
is_our_node() { # pid
  [[ -r "/proc/$1/cmdline" ]] && tr '\0' ' ' <"/proc/$1/cmdline" | grep -q 'simdup.es.EsNodeLauncher'
}

pids=()
for ((i = 0; i < NODES; i++)); do
  pid_file="$STATE/es-$((PORT + i)).pid"
  if [[ ! -f "$pid_file" ]]; then
    say "no $pid_file: nothing to stop on port $((PORT + i))"
    continue
  fi
  pid="$(cat "$pid_file")"
  rm -f "$pid_file"
  if ! is_our_node "$pid"; then
    say "pid $pid is not a running test node; removed stale $pid_file"
    continue
  fi
  say "stopping node pid $pid (port $((PORT + i)))"
  kill -TERM "$pid"
  pids+=("$pid")
done
rm -f "$NODES_FILE"

# Nodes of one cluster stop together, so none waits for the others' timeouts in turn.
waited=0
for pid in "${pids[@]}"; do
  while kill -0 "$pid" 2>/dev/null; do
    if ((waited >= TIMEOUT)); then
      say "pid $pid still alive after ${TIMEOUT}s; sending SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 1
    waited=$((waited + 1))
  done
done
((${#pids[@]} == 0)) || say "stopped"
