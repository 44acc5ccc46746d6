#!/usr/bin/env bash
# Starts simdup's loopback Elasticsearch test node (no Docker needed) and prints its URL as the
# last line of stdout. Progress goes to stderr.
#
#   ES_PORT           HTTP port on 127.0.0.1                        (default 9200)
#   ES_DATA           data directory       (default .cache/es/data; .cache/es/data-PORT off 9200)
#   ES_HEAP           JVM heap, -Xms = -Xmx                         (default 1g)
#   ES_START_TIMEOUT  seconds to wait for green/yellow health      (default 180)
#   ES_NODES          number of nodes (default 1). With N > 1, N JVMs form one cluster:
#                     HTTP ports ES_PORT … ES_PORT+N-1, transport ports ES_TRANSPORT_BASE …
#                     (default ES_PORT+100 …), data in .cache/es/cluster-ES_PORT/node-I, each
#                     node master-eligible and data, found through discovery.seed_hosts. The last
#                     line then lists every node's URL, comma-separated (what --es and ES_URL take).
#                     Heap per node defaults to 512m (ES_HEAP) so three fit beside the tests.
#                     Run again while some nodes of that cluster are down (kill -9, crash), it
#                     starts only those, on their own data, and waits until all have joined.
#   ES_FRESH=1        when this run starts every node (none of ours runs), delete their data
#                     directory first: a cluster formed from scratch, no indexes or cluster state
#                     left by an earlier run (what CI wants). Nodes restarted into a running
#                     cluster always keep their data.
#   ES_EXTRA_SETTINGS node settings added to every node, space-separated key=value pairs, e.g.
#                     "thread_pool.write.size=1 thread_pool.write.queue_size=1" (a node that
#                     answers 429 under a small load, for the fault tests)
#
# The first run builds scripts/es with Maven: it downloads Elastic's integ-test-zip distribution
# and the server API jar from Maven Central into ~/.m2 and compiles one launcher class. Later runs
# reuse scripts/es/target/ and never call Maven. If a node already answers on the port, the script
# only prints the URL. State lives in .cache/es/, named by port: es-9200.pid, es-9200.log.
# stdout before the URL says "started pid N" (this run launched the node) or "already running".
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ES_DIR="$ROOT/scripts/es"
STATE="$ROOT/.cache/es"
PORT="${ES_PORT:-9200}"
PID_FILE="$STATE/es-$PORT.pid"
LOG_FILE="$STATE/es-$PORT.log"
# A cluster this script started remembers its size, so a later plain start reports all its URLs.
if [[ -n "${ES_NODES:-}" ]]; then NODES="$ES_NODES"; elif [[ -f "$ROOT/.cache/es/es-$PORT.nodes" ]]; then NODES="$(cat "$ROOT/.cache/es/es-$PORT.nodes")"; else NODES=1; fi
[[ "$NODES" =~ ^[1-9]$ ]] || { echo "es-start: ERROR: ES_NODES must be a number from 1 to 9, got '$NODES'" >&2; exit 1; }
if ((NODES > 1)); then HEAP="${ES_HEAP:-512m}"; else HEAP="${ES_HEAP:-1g}"; fi
# Two nodes cannot share a data directory, so a node on another port gets its own by default.
if [[ "$PORT" == 9200 ]]; then DATA="${ES_DATA:-$STATE/data}"; else DATA="${ES_DATA:-$STATE/data-$PORT}"; fi
TIMEOUT="${ES_START_TIMEOUT:-180}"
URL="http://127.0.0.1:$PORT"
read -r -a EXTRA <<<"${ES_EXTRA_SETTINGS:-}"
for setting in "${EXTRA[@]}"; do [[ "$setting" == *=* ]] || { echo "es-start: ERROR: ES_EXTRA_SETTINGS takes key=value pairs, got '$setting'" >&2; exit 1; }; done
EXTRA=("${EXTRA[@]/#/-E}")

say() { echo "es-start: $*" >&2; }
fail() {
  say "ERROR: $*"
  exit 1
}

# Prints one field of the cluster health (status, number_of_nodes, …) of the node on $1, if one
# answers. Node is used instead of curl because every machine that runs this project has it.
health_field() { # url field
  node -e '
    fetch(process.argv[1] + "/_cluster/health", { signal: AbortSignal.timeout(2000) })
      .then((r) => r.json())
      .then((b) => { const v = b[process.argv[2]]; if (v === undefined || v === null) process.exit(1); console.log(v) })
      .catch(() => process.exit(1))
  ' "$1" "$2" 2>/dev/null
}

# The health status (green/yellow/red) of the node on $URL.
health() { health_field "$URL" status; }

ready() {
  local status
  status="$(health)" || return 1
  [[ "$status" == green || "$status" == yellow ]]
}

# Number of nodes in the cluster that the node on $1 belongs to.
node_count() { health_field "$1" number_of_nodes; }

port_free() { # [port]
  node -e '
    const server = require("node:net").createServer()
    server.once("error", () => process.exit(1))
    server.listen(Number(process.argv[1]), "127.0.0.1", () => server.close())
  ' "${1:-$PORT}" 2>/dev/null
}

is_our_node() { # pid
  [[ -r "/proc/$1/cmdline" ]] && tr '\0' ' ' <"/proc/$1/cmdline" | grep -q 'simdup.es.EsNodeLauncher'
}

[[ "$PORT" =~ ^[0-9]+$ ]] || fail "ES_PORT must be a port number, got '$PORT'"
mkdir -p "$STATE"

# Concurrent starts (several test workers, several developers' commands) queue here, so the
# build runs once and one port never gets two JVMs.
exec 9>"$STATE/start.lock"
flock 9

URLS="$URL"
for ((i = 1; i < NODES; i++)); do URLS="$URLS,http://127.0.0.1:$((PORT + i))"; done

# A cluster of ours with nodes missing (killed, crashed) gets those nodes back below.
ours_partly_up=false
[[ -f "$STATE/es-$PORT.nodes" ]] && ((NODES > 1)) && ours_partly_up=true
if ready; then
  count="$(node_count "$URL" || echo 0)"
  if ((count >= NODES)); then
    say "a node already answers on $URL"
    echo "already running"
    echo "$URLS"
    exit 0
  fi
  $ours_partly_up || fail "a cluster of $count node(s) already answers on $URL, not $NODES; stop it first (ES_NODES=$count npm run es:stop) or set ES_PORT"
fi

if ((NODES == 1)) && [[ -f "$PID_FILE" ]]; then
  old_pid="$(cat "$PID_FILE")"
  if is_our_node "$old_pid"; then
    fail "node pid $old_pid (from $PID_FILE) is running but not healthy on $URL; see $LOG_FILE, then run 'npm run es:stop'"
  fi
  rm -f "$PID_FILE"
fi
# Anything else on the port would only show up later as a bind error deep in the node's log.
((NODES > 1)) || port_free || fail "127.0.0.1:$PORT is taken by something that is not a healthy Elasticsearch node; set ES_PORT"

# --- build (first use only) ----------------------------------------------------------------------
command -v java >/dev/null || fail "java (17 or newer) is not on PATH"
ES_VERSION="$(sed -n 's:.*<es.version>\(.*\)</es.version>.*:\1:p' "$ES_DIR/pom.xml")"
ES_HOME="$ES_DIR/target/dist/elasticsearch-$ES_VERSION"
LAUNCHER_JAR="$ES_DIR/target/es-test-node.jar"
PLUGINS_DIR="$ES_DIR/target/plugins"
needs_build() {
  [[ -d "$ES_HOME/lib" && -f "$LAUNCHER_JAR" && -f "$PLUGINS_DIR/simdup-root-info/es-test-node-root-info.jar" ]] || return 0
  local input
  for input in "$ES_DIR/pom.xml" "$ES_DIR"/src/main/java/simdup/es/*.java "$ES_DIR"/src/plugin/*; do
    [[ "$input" -nt "$LAUNCHER_JAR" ]] && return 0
  done
  return 1
}
if needs_build; then
  command -v mvn >/dev/null || fail "mvn is not on PATH; it is needed once to build scripts/es"
  say "building scripts/es with Maven (first use: downloads ~115 MB from Maven Central into ~/.m2)"
  # Debian's Maven 3.8 prints colour resets even in batch mode; strip them.
  mvn -B -q -f "$ES_DIR/pom.xml" package 2>&1 | sed 's/\x1b\[[0-9;]*m//g' >&2 ||
    fail "Maven build of scripts/es failed (output above)"
fi

# --- start -----------------------------------------------------------------------------------------
mkdir -p "$STATE/logs" "$STATE/tmp"

# start_node PORT TRANSPORT DATA LOG [-Ekey=value ...]: launches one node in the background and
# prints its pid. JVM flags follow what Elasticsearch's own launcher passes on Java 17; the module
# path mirrors the real server (modular plugins need the org.elasticsearch.server module).
# setsid detaches the node from this shell's process group, so Ctrl-C in a test run does not
# kill it halfway; es-stop.sh is the way to stop it. 9>&- keeps the start lock out of the JVM.
# Log4j's own shutdown hook is off so the node's clean close on SIGTERM still reaches the log.
start_node() {
  local port="$1" transport="$2" data="$3" log="$4"
  shift 4
  mkdir -p "$data"
  data="$(cd "$data" && pwd)"
  setsid java \
    "-Xms$HEAP" "-Xmx$HEAP" -XX:+UseG1GC -Xss1m \
    -XX:+ExitOnOutOfMemoryError -XX:-OmitStackTraceInFastThrow \
    -Djava.awt.headless=true -Dfile.encoding=UTF-8 -Djna.nosys=true \
    -Dio.netty.noUnsafe=true -Dlog4j2.disable.jmx=true -Dlog4j2.shutdownHookEnabled=false \
    "-Djava.io.tmpdir=$STATE/tmp" \
    "-Des.path.home=$ES_HOME" "-Des.path.conf=$ES_DIR/config" \
    --module-path "$ES_HOME/lib" --add-modules=ALL-MODULE-PATH --add-modules=jdk.net \
    "-Dsimdup.plugins=$PLUGINS_DIR" -cp "$LAUNCHER_JAR" simdup.es.EsNodeLauncher \
    "-Ehttp.port=$port" "-Etransport.port=$transport" \
    "-Epath.data=$data" "-Epath.logs=$STATE/logs" "$@" \
    </dev/null >"$log" 2>&1 9>&- &
  echo $!
}

pids=() started_ports=()
if ((NODES == 1)); then
  if [[ "${ES_FRESH:-}" == 1 ]]; then rm -rf "$DATA"; fi
  say "starting Elasticsearch $ES_VERSION on $URL (heap $HEAP, data $DATA${ES_FRESH:+ (fresh)}, log $LOG_FILE)"
  pids+=("$(start_node "$PORT" "${ES_TRANSPORT_PORT:-9300-9399}" "$DATA" "$LOG_FILE" "${EXTRA[@]}")")
  started_ports+=("$PORT")
  echo "${pids[0]}" >"$PID_FILE"
else
  # N nodes on this machine, one JVM each: every node is master-eligible and holds data, and they
  # find each other through the fixed transport ports listed in discovery.seed_hosts. The first
  # start bootstraps the cluster from cluster.initial_master_nodes (ignored once it has formed).
  TBASE="${ES_TRANSPORT_BASE:-$((PORT + 100))}"
  CLUSTER_DATA="${ES_DATA:-$STATE/cluster-$PORT}"
  seeds="" masters=""
  for ((i = 0; i < NODES; i++)); do
    seeds="$seeds${seeds:+,}127.0.0.1:$((TBASE + i))"
    masters="$masters${masters:+,}simdup-node-$((PORT + i))"
  done
  # Nodes of ours still running stay; the others (all of them on a first start) are started.
  missing=()
  for ((i = 0; i < NODES; i++)); do
    p=$((PORT + i))
    if [[ -f "$STATE/es-$p.pid" ]] && is_our_node "$(cat "$STATE/es-$p.pid")"; then
      $ours_partly_up || fail "a node of ours already runs on port $p (pid $(cat "$STATE/es-$p.pid")); run 'ES_NODES=$NODES npm run es:stop' first"
      continue
    fi
    port_free "$p" || fail "127.0.0.1:$p is taken; set ES_PORT"
    port_free "$((TBASE + i))" || fail "transport port 127.0.0.1:$((TBASE + i)) is taken; set ES_TRANSPORT_BASE"
    missing+=("$i")
  done
  if ((${#missing[@]} < NODES)); then
    say "restarting ${#missing[@]} of the $NODES nodes on their data (ports$(for i in "${missing[@]}"; do printf ' %s' $((PORT + i)); done))"
  else
    # Only here, with no node of ours running on these ports: a node restarted into a running
    # cluster must keep its data (its shard copies), whatever ES_FRESH says.
    if [[ "${ES_FRESH:-}" == 1 ]]; then rm -rf "$CLUSTER_DATA"; fi
    say "starting a cluster of $NODES Elasticsearch $ES_VERSION nodes on $URLS (heap $HEAP each, data $CLUSTER_DATA${ES_FRESH:+ (fresh)})"
  fi
  for i in "${missing[@]}"; do
    p=$((PORT + i))
    pid="$(start_node "$p" "$((TBASE + i))" "$CLUSTER_DATA/node-$i" "$STATE/es-$p.log" \
      -Ediscovery.type=multi-node "-Enode.name=simdup-node-$p" \
      "-Ediscovery.seed_hosts=$seeds" "-Ecluster.initial_master_nodes=$masters" "${EXTRA[@]}")"
    echo "$pid" >"$STATE/es-$p.pid"
    pids+=("$pid")
    started_ports+=("$p")
  done
  echo "$NODES" >"$STATE/es-$PORT.nodes"
fi

# Every node answers and the cluster holds all of them (a node that has not joined yet answers
# with a cluster of its own size, or not at all).
all_ready() {
  local i count
  for ((i = 0; i < NODES; i++)); do
    URL="http://127.0.0.1:$((PORT + i))" ready || return 1
  done
  count="$(node_count "http://127.0.0.1:$PORT")" || return 1
  ((count >= NODES))
}

stop_started() {
  local pid
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for p in "${started_ports[@]}"; do rm -f "$STATE/es-$p.pid"; done
  ((${#started_ports[@]} < NODES)) || rm -f "$STATE/es-$PORT.nodes"
}

# Why the start failed, node by node: which nodes answer and how many nodes each one sees, then
# the log of every node that is not in the whole cluster, with the cause when it is a known one.
diagnose() {
  local i p url seen bad=()
  for ((i = 0; i < NODES; i++)); do
    p=$((PORT + i)) url="http://127.0.0.1:$((PORT + i))"
    if seen="$(node_count "$url")"; then
      say "node $p answers, in a cluster of $seen node(s), health $(health_field "$url" status || echo unknown)"
      ((seen >= NODES)) || bad+=("$p")
    else
      say "node $p does not answer on $url"
      bad+=("$p")
    fi
  done
  ((${#bad[@]} > 0)) || bad=("$PORT")
  for p in "${bad[@]}"; do
    say "last lines of $STATE/es-$p.log:"
    tail -n 25 "$STATE/es-$p.log" >&2 || true
    if grep -q 'different cluster with UUID' "$STATE/es-$p.log" 2>/dev/null && ((NODES > 1)); then
      say "node $p holds the state of another cluster (stale data in ${CLUSTER_DATA:-$DATA}): run 'ES_FRESH=1 ES_NODES=$NODES ES_PORT=$PORT npm run es:start' to start from empty data directories"
    fi
    if grep -q 'BindException\|Address already in use' "$STATE/es-$p.log" 2>/dev/null; then
      say "node $p could not bind its port (taken by another process): set ES_PORT / ES_TRANSPORT_BASE"
    fi
  done
}

# True when a node this run started was refused for holding another cluster's state (its log is
# new with this start).
refused_join() {
  local p
  for p in "${started_ports[@]}"; do grep -q 'different cluster with UUID' "$STATE/es-$p.log" 2>/dev/null && return 0; done
  return 1
}

started=$SECONDS
until all_ready; do
  for ((i = 0; i < ${#pids[@]}; i++)); do
    if ! kill -0 "${pids[$i]}" 2>/dev/null; then
      diagnose
      stop_started
      fail "the node on port ${started_ports[$i]} exited during start-up (its log is above); stopped the nodes this run started"
    fi
  done
  # A node holding another cluster's state is refused for good: no use waiting out the timeout.
  if ((NODES > 1)) && refused_join; then
    diagnose
    stop_started
    fail "a node cannot join: its data directory holds another cluster (details above); stopped the nodes this run started"
  fi
  if ((SECONDS - started >= TIMEOUT)); then
    diagnose
    stop_started
    fail "no green/yellow health with $NODES node(s) on $URL after ${TIMEOUT}s (causes above; a loaded machine may need a larger ES_START_TIMEOUT); stopped the nodes this run started"
  fi
  sleep 1
done

say "ready after $((SECONDS - started))s (pid ${pids[*]})"
echo "started pid ${pids[*]}"
echo "$URLS"
