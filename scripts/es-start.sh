#!/usr/bin/env bash
# Starts simdup's loopback Elasticsearch test node (no Docker needed) and prints its URL as the
# last line of stdout. Progress goes to stderr.
#
#   ES_PORT           HTTP port on 127.0.0.1                        (default 9200)
#   ES_DATA           data directory       (default .cache/es/data; .cache/es/data-PORT off 9200)
#   ES_HEAP           JVM heap, -Xms = -Xmx                         (default 1g)
#   ES_START_TIMEOUT  seconds to wait for green/yellow health      (default 180)
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
HEAP="${ES_HEAP:-1g}"
# Two nodes cannot share a data directory, so a node on another port gets its own by default.
if [[ "$PORT" == 9200 ]]; then DATA="${ES_DATA:-$STATE/data}"; else DATA="${ES_DATA:-$STATE/data-$PORT}"; fi
TIMEOUT="${ES_START_TIMEOUT:-180}"
URL="http://127.0.0.1:$PORT"

say() { echo "es-start: $*" >&2; }
fail() {
  say "ERROR: $*"
  exit 1
}
fail_with_log() {
  say "ERROR: $*"
  say "last lines of $LOG_FILE:"
  tail -n 40 "$LOG_FILE" >&2 || true
  exit 1
}

# Prints the cluster health status (green/yellow/red) if an Elasticsearch node answers on $URL.
# Node is used instead of curl because every machine that runs this project has it.
health() {
  node -e '
    fetch(process.argv[1] + "/_cluster/health", { signal: AbortSignal.timeout(2000) })
      .then((r) => r.json())
      .then((b) => { if (typeof b.status !== "string") process.exit(1); console.log(b.status) })
      .catch(() => process.exit(1))
  ' "$URL" 2>/dev/null
}

ready() {
  local status
  status="$(health)" || return 1
  [[ "$status" == green || "$status" == yellow ]]
}

port_free() {
  node -e '
    const server = require("node:net").createServer()
    server.once("error", () => process.exit(1))
    server.listen(Number(process.argv[1]), "127.0.0.1", () => server.close())
  ' "$PORT" 2>/dev/null
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

if ready; then
  say "a node already answers on $URL"
  echo "already running"
  echo "$URL"
  exit 0
fi

if [[ -f "$PID_FILE" ]]; then
  old_pid="$(cat "$PID_FILE")"
  if is_our_node "$old_pid"; then
    fail "node pid $old_pid (from $PID_FILE) is running but not healthy on $URL; see $LOG_FILE, then run 'npm run es:stop'"
  fi
  rm -f "$PID_FILE"
fi
# Anything else on the port would only show up later as a bind error deep in the node's log.
port_free || fail "127.0.0.1:$PORT is taken by something that is not a healthy Elasticsearch node; set ES_PORT"

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
mkdir -p "$DATA" "$STATE/logs" "$STATE/tmp"
DATA="$(cd "$DATA" && pwd)"
say "starting Elasticsearch $ES_VERSION on $URL (heap $HEAP, data $DATA, log $LOG_FILE)"

# JVM flags follow what Elasticsearch's own launcher passes on Java 17; the module path mirrors
# the real server (modular plugins need the org.elasticsearch.server module).
# setsid detaches the node from this shell's process group, so Ctrl-C in a test run does not
# kill it halfway; es-stop.sh is the way to stop it. 9>&- keeps the start lock out of the JVM.
# Log4j's own shutdown hook is off so the node's clean close on SIGTERM still reaches the log.
setsid java \
  "-Xms$HEAP" "-Xmx$HEAP" -XX:+UseG1GC -Xss1m \
  -XX:+ExitOnOutOfMemoryError -XX:-OmitStackTraceInFastThrow \
  -Djava.awt.headless=true -Dfile.encoding=UTF-8 -Djna.nosys=true \
  -Dio.netty.noUnsafe=true -Dlog4j2.disable.jmx=true -Dlog4j2.shutdownHookEnabled=false \
  "-Djava.io.tmpdir=$STATE/tmp" \
  "-Des.path.home=$ES_HOME" "-Des.path.conf=$ES_DIR/config" \
  --module-path "$ES_HOME/lib" --add-modules=ALL-MODULE-PATH --add-modules=jdk.net \
  "-Dsimdup.plugins=$PLUGINS_DIR" -cp "$LAUNCHER_JAR" simdup.es.EsNodeLauncher \
  "-Ehttp.port=$PORT" "-Etransport.port=${ES_TRANSPORT_PORT:-9300-9399}" \
  "-Epath.data=$DATA" "-Epath.logs=$STATE/logs" \
  </dev/null >"$LOG_FILE" 2>&1 9>&- &
pid=$!
echo "$pid" >"$PID_FILE"

started=$SECONDS
until ready; do
  if ! kill -0 "$pid" 2>/dev/null; then
    rm -f "$PID_FILE"
    fail_with_log "the node exited during start-up"
  fi
  if ((SECONDS - started >= TIMEOUT)); then
    kill -TERM "$pid" 2>/dev/null || true
    rm -f "$PID_FILE"
    fail_with_log "no green/yellow health on $URL after ${TIMEOUT}s (raise ES_START_TIMEOUT?); node stopped"
  fi
  sleep 1
done

say "ready after $((SECONDS - started))s (pid $pid)"
echo "started pid $pid"
echo "$URL"
