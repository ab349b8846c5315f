#!/usr/bin/env bash
# Run a real single-node Apache Kafka broker (KRaft mode) for development and CI.
# The broker is built from the Kafka jars Maven resolves (scripts/kafka/pom.xml):
# no Docker and no Kafka tarball needed, only Java 17+ and Maven.
#
#   scripts/kafka-local.sh start    start the broker; last stdout line is KAFKA_BROKERS=127.0.0.1:<port>
#                                   (on the data a `stop` with KAFKA_KEEP_DATA=1 or a `kill` kept, if any)
#   scripts/kafka-local.sh stop     stop the broker and delete its data (exit 0 if nothing runs)
#   scripts/kafka-local.sh kill     kill the broker with SIGKILL (a crash), keeping its data
#   scripts/kafka-local.sh restart  stop the broker cleanly, keeping its data, and start it again on it
#   scripts/kafka-local.sh status   exit 0 if the broker is running and answering, else 1
#
# Environment:
#   KAFKA_PORT             client listener port (default 9092)
#   KAFKA_CONTROLLER_PORT  KRaft controller port (default 9093; clients never use it)
#   KAFKA_HEAP_OPTS        JVM heap flags (default "-Xms128m -Xmx512m")
#   KAFKA_STATE_DIR        where this broker's config, log, pid and state go (default .kafka): a
#                          second broker (other ports) with its own state dir runs beside the first
#   KAFKA_KEEP_DATA=1      `stop` keeps the data for the next `start` (topics, offsets, groups)
#
# Inside the repository it writes only to .kafka/ (jars, and by default generated config, broker
# log, pid and state). The broker's data lives in a temporary directory that `stop` deletes.
set -euo pipefail

# Work from the repository root, whatever the caller's directory.
cd -- "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$(pwd -P)

SRC_DIR=$ROOT/scripts/kafka
KAFKA_DIR=$ROOT/.kafka
LIB_DIR=$KAFKA_DIR/lib
STATE_DIR=${KAFKA_STATE_DIR:-$KAFKA_DIR}
mkdir -p "$STATE_DIR"
STATE_DIR=$(cd -- "$STATE_DIR" && pwd -P)
CONF_DIR=$STATE_DIR/conf
LOGS_DIR=$STATE_DIR/logs
BROKER_LOG=$LOGS_DIR/kafka.out
PID_FILE=$STATE_DIR/kafka.pid
STATE_FILE=$STATE_DIR/state

PORT=${KAFKA_PORT:-9092}
CONTROLLER_PORT=${KAFKA_CONTROLLER_PORT:-9093}
read -r -a HEAP_OPTS <<<"${KAFKA_HEAP_OPTS:--Xms128m -Xmx512m}"
START_TIMEOUT=120
STOP_TIMEOUT=30

log() { echo "kafka-local: $*" >&2; }
die() { log "$*"; exit 1; }

# Run a command with its output hidden; show the output only if it fails.
quietly() {
  local out
  if ! out=$("$@" 2>&1 </dev/null); then
    printf '%s\n' "$out" >&2
    return 1
  fi
}

# Read one key=value line from the state file written by `start`.
state_get() {
  if [[ -f $STATE_FILE ]]; then
    sed -n "s/^$1=//p" "$STATE_FILE" | head -n 1
  fi
}

# True if something accepts TCP connections on 127.0.0.1:<port> (bash's /dev/tcp, no nc needed).
port_open() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# True if <pid> is our broker. Matching the command line means a recycled PID
# (or a dead, not yet reaped broker) is never mistaken for it.
is_broker() {
  ps -ww -o args= -p "$1" 2>/dev/null | grep -qF "kafka.Kafka $CONF_DIR/server.properties"
}

# Print the PID of the broker this script started, if it is still alive.
broker_pid() {
  local pid
  [[ -f $PID_FILE ]] || return 1
  pid=$(<"$PID_FILE")
  [[ $pid =~ ^[0-9]+$ ]] && is_broker "$pid" || return 1
  echo "$pid"
}

# Copy kafka_2.13 and its runtime dependencies into .kafka/lib, once.
# .kafka/lib/.complete holds the pom's checksum: an interrupted download or an
# edited pom (e.g. a new Kafka version) triggers a fresh resolve.
resolve_jars() {
  local want
  want=$(cksum <"$SRC_DIR/pom.xml")
  if [[ -f $LIB_DIR/.complete && $(<"$LIB_DIR/.complete") == "$want" ]]; then
    return 0
  fi
  command -v mvn >/dev/null || die "Maven (mvn) is required to fetch the Kafka jars"
  log "resolving Kafka jars with Maven into .kafka/lib (first run only)..."
  rm -rf "$LIB_DIR" "$LIB_DIR.tmp"
  # -B: never prompt; -q: errors only. Output is shown only on failure (quietly), which also
  # hides the stray colour-reset bytes some Maven builds print even with -q -B.
  quietly mvn -q -B -f "$SRC_DIR/pom.xml" dependency:copy-dependencies \
    -DoutputDirectory="$LIB_DIR.tmp" || die "Maven could not resolve the Kafka jars"
  echo "$want" >"$LIB_DIR.tmp/.complete"
  mv "$LIB_DIR.tmp" "$LIB_DIR"
}

# A random cluster id in Kafka's Uuid format: 16 bytes, base64url, no padding.
new_cluster_id() {
  local id
  id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')
  # A leading '-' would be parsed as a command-line flag (Kafka avoids it too).
  [[ $id == -* ]] && id="A${id:1}"
  echo "$id"
}

# Ends the broker process: SIGTERM runs Kafka's shutdown hook (clean shutdown), SIGKILL only as a
# last resort; with "kill", SIGKILL at once (a crash).
end_broker() {
  local pid i
  if pid=$(broker_pid); then
    if [[ ${1:-} == kill ]]; then
      log "killing broker (pid $pid)..."
    else
      log "stopping broker (pid $pid)..."
      kill -TERM "$pid" 2>/dev/null || true
      for ((i = 0; i < STOP_TIMEOUT * 2; i++)); do
        is_broker "$pid" || break
        sleep 0.5
      done
      is_broker "$pid" && log "no exit after ${STOP_TIMEOUT}s; sending SIGKILL"
    fi
    if is_broker "$pid"; then
      kill -KILL "$pid" 2>/dev/null || true
      while is_broker "$pid"; do sleep 0.2; done
    fi
  fi
  rm -f "$PID_FILE"
}

# Ends the broker and keeps its data for the next start (the state file then says kept=1).
keep_broker() {
  end_broker "${1:-}"
  local log_dir
  log_dir=$(state_get log_dir)
  if [[ -n $log_dir && -d $log_dir ]]; then
    grep -q '^kept=1$' "$STATE_FILE" || echo 'kept=1' >>"$STATE_FILE"
    log "data kept in $log_dir for the next start"
  fi
}

# The kept data dir, if the last stop kept one (KAFKA_KEEP_DATA=1, kill, restart).
kept_log_dir() {
  local log_dir
  [[ $(state_get kept) == 1 ]] || return 1
  log_dir=$(state_get log_dir)
  [[ -n $log_dir && -f $log_dir/meta.properties ]] || return 1
  echo "$log_dir"
}

stop_broker() {
  local log_dir
  end_broker
  log_dir=$(state_get log_dir)
  # Only ever delete a directory this script created with mktemp.
  if [[ -n $log_dir && -d $log_dir && ${log_dir##*/} == kafka-local.* ]]; then
    rm -rf -- "$log_dir"
  fi
  rm -f "$PID_FILE" "$STATE_FILE"
}

# Give up on a start: show why, and leave nothing running.
fail_start() {
  log "$1"
  if [[ -s $BROKER_LOG ]]; then
    log "last lines of .kafka/logs/kafka.out:"
    tail -n 40 "$BROKER_LOG" >&2
  fi
  # A failed start on kept data keeps it.
  if [[ $(state_get kept) == 1 ]]; then end_broker; else stop_broker; fi
  exit 1
}

start_broker() {
  local pid running_port log_dir cluster_id p

  [[ $PORT =~ ^[0-9]+$ && $CONTROLLER_PORT =~ ^[0-9]+$ && $PORT != "$CONTROLLER_PORT" ]] ||
    die "KAFKA_PORT and KAFKA_CONTROLLER_PORT must be two different port numbers"

  # Idempotent: a broker we started that still answers is reused as is.
  if pid=$(broker_pid); then
    running_port=$(state_get port)
    if [[ -n $running_port ]] && port_open "$running_port"; then
      [[ $running_port == "$PORT" ]] ||
        die "a broker is already running on port $running_port (KAFKA_PORT=$PORT); run '$0 stop' first"
      log "already running (pid $pid)"
      echo "KAFKA_BROKERS=127.0.0.1:$PORT"
      return 0
    fi
    log "broker (pid $pid) is not answering; restarting it"
  fi
  # Clear whatever a previous run left behind (dead pid, old data dir), unless its data was kept.
  if log_dir=$(kept_log_dir); then
    end_broker
    running_port=$(state_get port)
    [[ $running_port == "$PORT" && $(state_get controller_port) == "$CONTROLLER_PORT" ]] ||
      die "the kept data is for port $running_port; set KAFKA_PORT=$running_port KAFKA_CONTROLLER_PORT=$(state_get controller_port), or run '$0 stop' to delete it"
  else
    stop_broker
    log_dir=
  fi

  for p in "$PORT" "$CONTROLLER_PORT"; do
    ! port_open "$p" || die "port $p is already in use by another process (set KAFKA_PORT / KAFKA_CONTROLLER_PORT)"
  done
  command -v java >/dev/null || die "Java 17+ is required"

  resolve_jars

  mkdir -p "$CONF_DIR" "$LOGS_DIR"
  : >"$BROKER_LOG"
  local fresh=
  if [[ -z $log_dir ]]; then
    # A fresh data dir every start: formatting a used one fails, and tests want a clean broker.
    fresh=1
    log_dir=$(mktemp -d "${TMPDIR:-/tmp}/kafka-local.XXXXXX")
    # Record it at once so `stop` can delete it even if this start fails.
    printf 'log_dir=%s\nport=%s\ncontroller_port=%s\n' "$log_dir" "$PORT" "$CONTROLLER_PORT" >"$STATE_FILE"
  else
    log "starting on the kept data in $log_dir"
  fi

  sed -e "s|@KAFKA_PORT@|$PORT|g" \
      -e "s|@KAFKA_CONTROLLER_PORT@|$CONTROLLER_PORT|g" \
      -e "s|@LOG_DIR@|$log_dir|g" \
      "$SRC_DIR/server.properties.template" >"$CONF_DIR/server.properties"
  cp "$SRC_DIR/log4j2.yaml" "$SRC_DIR/tools-log4j2.yaml" "$CONF_DIR/"
  if [[ -z $fresh ]]; then
    launch_broker
    return
  fi

  # KRaft needs the data dir formatted with a cluster id before the first start.
  # No --standalone: the quorum is fixed by controller.quorum.voters.
  cluster_id=$(new_cluster_id)
  quietly java -Xmx256m -Dlog4j2.configurationFile="$CONF_DIR/tools-log4j2.yaml" \
    -cp "$LIB_DIR/*" kafka.tools.StorageTool format \
    -t "$cluster_id" -c "$CONF_DIR/server.properties" || fail_start "formatting the data dir failed"
  launch_broker
}

# Starts the JVM on the generated config and waits until the broker answers.
launch_broker() {
  local pid
  log "starting broker on 127.0.0.1:$PORT..."
  # Output goes to a file and stdin comes from /dev/null, so the background JVM never
  # holds the caller's pipes open (e.g. `$(scripts/kafka-local.sh start)` returns).
  # The JVM flags follow Kafka's own kafka-run-class.sh, with a smaller heap.
  nohup java "${HEAP_OPTS[@]}" \
    -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 \
    -XX:+ExplicitGCInvokesConcurrent -XX:ErrorFile="$LOGS_DIR/hs_err_pid%p.log" \
    -Djava.awt.headless=true -Dkafka.logs.dir="$LOGS_DIR" \
    -Dlog4j2.configurationFile="$CONF_DIR/log4j2.yaml" \
    -cp "$LIB_DIR/*" kafka.Kafka "$CONF_DIR/server.properties" \
    </dev/null >"$BROKER_LOG" 2>&1 &
  pid=$!
  echo "$pid" >"$PID_FILE"

  # Ready = the client port accepts connections (Kafka opens it only once the broker
  # can serve requests) and the broker has logged that it finished starting.
  local started=$SECONDS
  until port_open "$PORT" && grep -qF 'Kafka Server started' "$BROKER_LOG"; do
    is_broker "$pid" || fail_start "the broker exited during startup"
    ((SECONDS - started < START_TIMEOUT)) || fail_start "the broker was not ready after ${START_TIMEOUT}s"
    sleep 0.5
  done
  # Kept data in use again: the next stop deletes it (unless told to keep it).
  sed -i '/^kept=1$/d' "$STATE_FILE"
  log "broker ready after $((SECONDS - started))s (pid $pid, log ${BROKER_LOG#"$ROOT"/})"
  echo "KAFKA_BROKERS=127.0.0.1:$PORT"
}

status_broker() {
  local pid port
  pid=$(broker_pid) || { log "not running"; return 1; }
  port=$(state_get port)
  if [[ -n $port ]] && port_open "$port"; then
    log "running (pid $pid) on 127.0.0.1:$port"
  else
    log "running (pid $pid) but not answering on 127.0.0.1:${port:-?}"
    return 1
  fi
}

case "${1:-}" in
  start) start_broker ;;
  stop) if [[ ${KAFKA_KEEP_DATA:-} == 1 ]]; then keep_broker; else stop_broker; fi ;;
  kill) keep_broker kill ;;
  restart)
    keep_broker
    start_broker
    ;;
  status) status_broker ;;
  *)
    echo "usage: $0 start|stop|kill|restart|status" >&2
    exit 2
    ;;
esac
