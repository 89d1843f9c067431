# The lab's PostgreSQL (Debian's postgresql package), for the replica tests: its own cluster in
# .lab/postgres, started with pg_ctl (no systemd), listening on loopback only on a port of its own,
# password authentication; up.sh writes its URL to .lab/lab.json as `postgresUrl`.

PG_PORT=${KVM2LAB_PG_PORT:-55432}
PG_DIR="$LAB_DIR/postgres"
PG_DATA="$PG_DIR/data"
PG_DB=kvm2
PG_USER=kvm2

pg_bin() {
  local dir
  dir=$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -1)
  [[ -n $dir ]] || die "no PostgreSQL server under /usr/lib/postgresql: install the postgresql package (test/lab/install-packages.sh)"
  echo "$dir"
}

# PostgreSQL refuses to run as root; its files belong to the postgres user the package made.
as_postgres() { runuser -u postgres -- "$@"; }

postgres_running() {
  [[ -f $PG_DATA/PG_VERSION ]] && as_postgres "$(pg_bin)/pg_ctl" -D "$PG_DATA" status >/dev/null 2>&1
}

ensure_postgres() {
  local bin password
  bin=$(pg_bin)
  install -d -m 755 "$PG_DIR"
  if [[ ! -f $PG_DATA/PG_VERSION ]]; then
    password=$(head -c 24 /dev/urandom | base64 | tr -d '/+=')
    install -m 600 /dev/null "$PG_DIR/password"
    printf '%s' "$password" >"$PG_DIR/password"
    install -d -m 700 -o postgres -g postgres "$PG_DATA"
    local pwfile
    pwfile=$(mktemp)
    printf '%s\n' "$password" >"$pwfile"
    chown postgres "$pwfile"
    as_postgres "$bin/initdb" -D "$PG_DATA" -U "$PG_USER" --pwfile="$pwfile" --auth=scram-sha-256 -E UTF8 >"$PG_DIR/initdb.log" 2>&1 ||
      { rm -f "$pwfile"; die "initdb failed: see $PG_DIR/initdb.log"; }
    rm -f "$pwfile"
  fi
  if ! postgres_running; then
    touch "$PG_DIR/server.log" && chown postgres "$PG_DIR/server.log"
    as_postgres "$bin/pg_ctl" -D "$PG_DATA" -l "$PG_DIR/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -c port=$PG_PORT -c unix_socket_directories=''" start >/dev/null ||
      die "PostgreSQL did not start: see $PG_DIR/server.log"
  fi
  # Asked on its socket, like every other lab daemon.
  PGPASSWORD=$(<"$PG_DIR/password") "$bin/psql" -h 127.0.0.1 -p "$PG_PORT" -U "$PG_USER" -d postgres -tAc 'SELECT 1' >/dev/null ||
    die "PostgreSQL on 127.0.0.1:$PG_PORT does not answer"
  if [[ -z $(PGPASSWORD=$(<"$PG_DIR/password") "$bin/psql" -h 127.0.0.1 -p "$PG_PORT" -U "$PG_USER" -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$PG_DB'") ]]; then
    PGPASSWORD=$(<"$PG_DIR/password") "$bin/psql" -h 127.0.0.1 -p "$PG_PORT" -U "$PG_USER" -d postgres -qc "CREATE DATABASE $PG_DB" ||
      die "creating the database $PG_DB failed"
  fi
  POSTGRES_URL="postgres://$PG_USER:$(<"$PG_DIR/password")@127.0.0.1:$PG_PORT/$PG_DB"
}

stop_postgres() {
  [[ -f $PG_DATA/PG_VERSION ]] || return 0
  postgres_running || return 0
  as_postgres "$(pg_bin)/pg_ctl" -D "$PG_DATA" -m fast -w -t 60 stop >/dev/null || die "PostgreSQL did not stop"
}
