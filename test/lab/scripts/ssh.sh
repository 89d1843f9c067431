# SSH side of the lab: the client key, the same two users on each host, one sshd per host (its own
# host key and config, run inside the host), and a hashed known_hosts file naming each host exactly
# as it is dialled. lab1's users are this machine's; lab2's live in its own /etc/passwd.

ensure_client_key() {
  install -d -m 700 "$SSH_DIR"
  [[ -f $SSH_DIR/id_ed25519 ]] || ssh-keygen -q -t ed25519 -N '' -C kvm2lab -f "$SSH_DIR/id_ed25519"
}

# ensure_user HOST NAME GROUPS: '*' as password hash so sshd (UsePAM no) does not see a locked account.
ensure_user() {
  local host=$1 name=$2 groups=$3 home
  if ! host_exec "$host" id "$name" >/dev/null 2>&1; then
    host_exec "$host" useradd --create-home --shell /bin/bash --password '*' ${groups:+--groups "$groups"} "$name"
  fi
  home=$(host_exec "$host" getent passwd "$name" | cut -d: -f6)
  host_exec "$host" install -d -m 700 -o "$name" -g "$name" "$home/.ssh"
  if ! cmp -s "$SSH_DIR/id_ed25519.pub" "$(host_path "$host" "$home/.ssh/authorized_keys")"; then
    host_exec "$host" install -m 600 -o "$name" -g "$name" /dev/stdin "$home/.ssh/authorized_keys" <"$SSH_DIR/id_ed25519.pub"
  fi
}

# known_hosts_name ADDR PORT: how OpenSSH writes a host in known_hosts.
known_hosts_name() { if [[ $2 == 22 ]]; then echo "$1"; else echo "[$1]:$2"; fi; }

ensure_known_hosts() {
  local plain="$SSH_DIR/known_hosts.plain" host
  for host in "${LAB_HOSTS[@]}"; do
    printf '%s %s\n' "$(known_hosts_name "$(host_var "$host" ADDR)" "$(host_var "$host" PORT)")" \
      "$(cut -d' ' -f1,2 "$SSH_DIR/$host/ssh_host_ed25519_key.pub")"
  done >"$plain"
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

# sshd answers when it greets on its address with an SSH banner.
sshd_answers() {
  local banner
  banner=$(timeout 3 bash -c "exec 3<>/dev/tcp/$(host_var "$1" ADDR)/$(host_var "$1" PORT); head -c 4 <&3") || return 1
  [[ $banner == SSH- ]]
}

# The host's sshd: host key and config in .lab/ssh/<host>/ (known_hosts is made from the key); lab2
# cannot see .lab, so they are copied into its /etc/ssh/kvm2lab/.
start_sshd() {
  local host=$1 dir="$SSH_DIR/$1" conf="$SSH_DIR/$1"
  install -d -m 700 "$dir"
  [[ -f $dir/ssh_host_ed25519_key ]] || ssh-keygen -q -t ed25519 -N '' -C "$host" -f "$dir/ssh_host_ed25519_key"
  if [[ $host != lab1 ]]; then
    conf=/etc/ssh/kvm2lab
    install -d -m 700 "$(host_path "$host" "$conf")"
    install -m 600 "$dir/ssh_host_ed25519_key" "$(host_path "$host" "$conf/ssh_host_ed25519_key")"
  fi
  sed -e "s|@ADDR@|$(host_var "$host" ADDR)|g" -e "s|@PORT@|$(host_var "$host" PORT)|g" -e "s|@DIR@|$conf|g" \
    -e "s|@PIDFILE@|$HOST_RUN/sshd.pid|g" -e "s|@USERS@|$LAB_USER $NOLV_USER|g" \
    "$LAB_SRC/scripts/sshd_config" >"$(host_path "$host" "$conf/sshd_config")"
  # sshd's privilege-separation directory; systemd-tmpfiles would create it on a systemd host.
  host_exec "$host" install -d -m 755 /run/sshd
  host_exec "$host" /usr/sbin/sshd -t -f "$conf/sshd_config" || die "sshd config of $host is invalid"
  host_exec "$host" /usr/sbin/sshd -f "$conf/sshd_config" -E "$HOST_LOG/sshd.log"
}

ensure_ssh() {
  local host
  ensure_client_key
  for host in "${LAB_HOSTS[@]}"; do
    ensure_user "$host" "$LAB_USER" libvirt
    ensure_user "$host" "$NOLV_USER" ""
    ensure_daemon "$host" sshd sshd sshd_answers start_sshd
  done
  ensure_known_hosts
}

# lab1's users are this machine's; lab2's went with its root.
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
