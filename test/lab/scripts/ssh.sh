# SSH side of the lab: two users, the client key, one sshd (own host key, own config) per host
# namespace, and a hashed known_hosts file naming each host exactly as it is dialled.

# ensure_user NAME GROUPS: '*' as password hash so sshd (UsePAM no) does not see a locked account.
ensure_user() {
  local name=$1 groups=$2 home
  if ! id "$name" >/dev/null 2>&1; then
    useradd --create-home --shell /bin/bash --password '*' ${groups:+--groups "$groups"} "$name"
  fi
  home=$(getent passwd "$name" | cut -d: -f6)
  install -d -m 700 -o "$name" -g "$name" "$home/.ssh"
  if ! cmp -s "$SSH_DIR/id_ed25519.pub" "$home/.ssh/authorized_keys"; then
    install -m 600 -o "$name" -g "$name" "$SSH_DIR/id_ed25519.pub" "$home/.ssh/authorized_keys"
  fi
}

ensure_client_key() {
  install -d -m 700 "$SSH_DIR"
  [[ -f $SSH_DIR/id_ed25519 ]] || ssh-keygen -q -t ed25519 -N '' -C kvm2lab -f "$SSH_DIR/id_ed25519"
}

# known_hosts_name ADDR PORT: how OpenSSH writes a host in known_hosts.
known_hosts_name() { if [[ $2 == 22 ]]; then echo "$1"; else echo "[$1]:$2"; fi; }

ensure_known_hosts() {
  local plain="$SSH_DIR/known_hosts.plain"
  {
    printf '%s %s\n' "$(known_hosts_name "$LAB1_ADDR" "$LAB1_PORT")" "$(cut -d' ' -f1,2 "$SSH_DIR/lab1/ssh_host_ed25519_key.pub")"
    printf '%s %s\n' "$(known_hosts_name "$LAB2_ADDR" "$LAB2_PORT")" "$(cut -d' ' -f1,2 "$SSH_DIR/lab2/ssh_host_ed25519_key.pub")"
  } >"$plain"
  # Hashing salts each entry anew, so the file is rewritten only when the keys change.
  if [[ -f $SSH_DIR/known_hosts ]] && cmp -s "$plain" "$SSH_DIR/known_hosts.source"; then
    rm -f "$plain"
    return 0
  fi
  cp "$plain" "$SSH_DIR/known_hosts"
  ssh-keygen -q -H -f "$SSH_DIR/known_hosts" >/dev/null 2>&1
  rm -f "$SSH_DIR/known_hosts.old"
  chmod 600 "$SSH_DIR/known_hosts"
  mv "$plain" "$SSH_DIR/known_hosts.source"
}

# ensure_sshd NAME NETNS ADDR PORT
ensure_sshd() {
  local name=$1 netns=$2 addr=$3 port=$4
  local dir="$SSH_DIR/$name" pidfile conf
  pidfile=$(sshd_pid_file "$name")
  conf="$dir/sshd_config"
  install -d -m 700 "$dir"
  [[ -f $dir/ssh_host_ed25519_key ]] || ssh-keygen -q -t ed25519 -N '' -C "$name" -f "$dir/ssh_host_ed25519_key"
  sed -e "s|@ADDR@|$addr|g" -e "s|@PORT@|$port|g" -e "s|@DIR@|$dir|g" -e "s|@PIDFILE@|$pidfile|g" \
    -e "s|@USERS@|$LAB_USER $NOLV_USER|g" "$LAB_SRC/scripts/sshd_config" >"$conf.new"
  if pid_alive "$pidfile" sshd && cmp -s "$conf.new" "$conf"; then
    rm -f "$conf.new"
    return 0
  fi
  mv "$conf.new" "$conf"
  stop_pidfile "$pidfile" sshd
  /usr/sbin/sshd -t -f "$conf" || die "sshd config $conf is invalid"
  ip netns exec "$netns" /usr/sbin/sshd -f "$conf" -E "$LOG_DIR/sshd-$name.log"
  wait_for 10 "sshd $name" pid_alive "$pidfile" sshd
}

ensure_ssh() {
  ensure_client_key
  ensure_user "$LAB_USER" libvirt
  ensure_user "$NOLV_USER" ""
  # sshd's privilege-separation directory; systemd-tmpfiles would create it on a systemd host.
  install -d -m 755 /run/sshd
  ensure_sshd lab1 "$NS_LAB1" "$LAB1_ADDR" "$LAB1_PORT"
  ensure_sshd lab2 "$NS_LAB2" "$LAB2_ADDR" "$LAB2_PORT"
  ensure_known_hosts
}

remove_users() {
  local name
  for name in "$LAB_USER" "$NOLV_USER"; do
    id "$name" >/dev/null 2>&1 || continue
    # A session still open (a test's forwarded socket) would make userdel refuse; every process
    # of a lab user is the lab's.
    kill_pids $(ps -o pid= -u "$name" 2>/dev/null || true)
    userdel --remove "$name" 2>/dev/null || userdel "$name"
  done
}

remove_ssh() {
  stop_pidfile "$(sshd_pid_file lab1)" sshd
  stop_pidfile "$(sshd_pid_file lab2)" sshd
  remove_users
}
