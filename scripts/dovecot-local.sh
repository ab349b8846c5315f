#!/usr/bin/env bash
# Run a real Dovecot IMAP server on 127.0.0.1 for development, tests and CI (the email channel).
# Dovecot comes from the distribution's packages (Debian: apt-get install dovecot-imapd); this
# script only writes its own configuration and data into a temporary directory.
#
#   scripts/dovecot-local.sh start    start it (or keep the running one); last stdout line is DOVECOT_IMAP=127.0.0.1:<port>
#   scripts/dovecot-local.sh stop     stop it and delete its data (exit 0 if nothing runs)
#   scripts/dovecot-local.sh status   exit 0 if it is running and answering, else 1
#
# Environment:
#   DOVECOT_PORT  IMAP port (default 10143)
#   DOVECOT_DIR   its configuration, users (one passwd-file per user: users/<name> holding
#                 "<name>:{PLAIN}<password>", so a user added is seen at once), maildirs and log
#                 (default ${TMPDIR:-/tmp}/engage-dovecot)
#   DOVECOT_TLS_CERT, DOVECOT_TLS_KEY  PEM files: TLS on (STARTTLS on DOVECOT_PORT; without them TLS is off)
#   DOVECOT_IMAPS_PORT  implicit-TLS port (default 0: none; needs the two above)
#   DOVECOT_CAPABILITY  the CAPABILITY answer after login instead of Dovecot's own (e.g. one without IDLE)
#   DOVECOT_SENT        "special-use" (default): a Sent folder marked \Sent; "none": no Sent folder at all
#
# Plaintext logins are allowed because it listens on 127.0.0.1 only. Mailboxes are maildirs; each
# user has INBOX and a Sent folder marked \Sent (where the email channel appends its sent copies),
# unless DOVECOT_SENT=none.
set -euo pipefail

PORT=${DOVECOT_PORT:-10143}
DIR=${DOVECOT_DIR:-${TMPDIR:-/tmp}/engage-dovecot}
CONF=$DIR/dovecot.conf
BIN=${DOVECOT_BIN:-$(command -v dovecot || echo /usr/sbin/dovecot)}

log() { echo "dovecot-local: $*" >&2; }
die() { log "$*"; exit 1; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

write_config() {
  local user group uid gid
  # Dovecot never serves mail as root: as root, mail files belong to nobody.
  if [[ $(id -u) == 0 ]]; then
    user=dovenull; group=nogroup; uid=$(id -u nobody); gid=$(id -g nobody)
  else
    user=$(id -un); group=$(id -gn); uid=$(id -u); gid=$(id -g)
  fi
  mkdir -p "$DIR/run" "$DIR/state" "$DIR/mail"
  mkdir -p "$DIR/users"
  [[ $(id -u) == 0 ]] && chown "$uid:$gid" "$DIR/mail"
  local ssl="ssl = no" sent="" capability=""
  if [[ -n ${DOVECOT_TLS_CERT:-} ]]; then
    ssl="ssl = yes
ssl_cert = <$DOVECOT_TLS_CERT
ssl_key = <$DOVECOT_TLS_KEY"
  fi
  if [[ ${DOVECOT_SENT:-special-use} == special-use ]]; then
    sent='mailbox Sent {
    special_use = \Sent
    auto = subscribe
  }'
  fi
  if [[ -n ${DOVECOT_CAPABILITY:-} ]]; then
    capability="protocol imap {
  imap_capability = $DOVECOT_CAPABILITY
}"
  fi
  cat >"$CONF" <<EOF
base_dir = $DIR/run
state_dir = $DIR/state
log_path = $DIR/dovecot.log
protocols = imap
listen = 127.0.0.1
$ssl
disable_plaintext_auth = no
auth_mechanisms = plain login
first_valid_uid = 1
default_internal_user = $( [[ $(id -u) == 0 ]] && echo dovecot || echo "$user" )
default_login_user = $user
default_internal_group = $( [[ $(id -u) == 0 ]] && echo dovecot || echo "$group" )
mail_location = maildir:$DIR/mail/%u
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u $DIR/users/%u
}
userdb {
  driver = static
  args = uid=$uid gid=$gid home=$DIR/mail/%u
}
namespace inbox {
  inbox = yes
  separator = /
  $sent
}
$capability
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = $PORT
  }
  inet_listener imaps {
    address = 127.0.0.1
    port = ${DOVECOT_IMAPS_PORT:-0}
  }
  chroot =
}
service anvil {
  chroot =
}
service stats {
  unix_listener stats-reader {
    mode = 0666
  }
  unix_listener stats-writer {
    mode = 0666
  }
}
EOF
}

status() { [[ -f $DIR/run/master.pid ]] && kill -0 "$(cat "$DIR/run/master.pid")" 2>/dev/null && port_open "$PORT"; }

start() {
  [[ -x $BIN ]] || die "the dovecot binary is missing (Debian: apt-get install -y dovecot-imapd)"
  if status; then
    echo "DOVECOT_IMAP=127.0.0.1:$PORT"
    return
  fi
  mkdir -p "$DIR"
  # Several test files may start it at once: one does, the others wait and find it running.
  exec 9>"$DIR/.lock"
  flock 9
  if status; then
    echo "DOVECOT_IMAP=127.0.0.1:$PORT"
    return
  fi
  port_open "$PORT" && die "something else listens on 127.0.0.1:$PORT (DOVECOT_PORT)"
  write_config
  # The daemon must not inherit the lock or the caller's output pipes (a caller waiting for them to close would wait for ever).
  "$BIN" -c "$CONF" </dev/null >/dev/null 2>&1 9>&- || die "dovecot did not start; see $DIR/dovecot.log"
  for _ in $(seq 1 50); do
    port_open "$PORT" && { log "running on 127.0.0.1:$PORT ($DIR)"; echo "DOVECOT_IMAP=127.0.0.1:$PORT"; return; }
    sleep 0.1
  done
  die "dovecot did not open 127.0.0.1:$PORT; see $DIR/dovecot.log"
}

stop() {
  if [[ -f $DIR/run/master.pid ]]; then
    local pid
    pid=$(cat "$DIR/run/master.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -rf "$DIR"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
