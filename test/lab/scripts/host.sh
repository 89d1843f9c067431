# The two lab hosts as namespaces: each host's init (host-init.sh) holds its network, mount, pid and
# UTS namespaces; up.sh runs the host's daemons inside them with host_exec, and checks them from the
# root namespace through host_path (/proc/<init>/root/...: the host's own file system view).

# The root of lab2's file system (Debian 13), built once and cached (hypervisor2/build.sh).
hypervisor2_root() {
  bash "$LAB_SRC/hypervisor2/build.sh" --if-cached 2>/dev/null || bash "$LAB_SRC/hypervisor2/build.sh"
}

host_state_dir() { echo "$HOSTS_DIR/$1"; }

# host_init_pid HOST: prints the pid of HOST's init when it runs inside HOST's network namespace.
host_init_pid() {
  local file pid netns
  file=$(host_init_pid_file "$1")
  netns=$(host_var "$1" NETNS)
  [[ -s $file ]] || return 1
  pid=$(<"$file")
  [[ $pid =~ ^[0-9]+$ ]] && running "$pid" && netns_exists "$netns" || return 1
  [[ $(stat -L -c %i "/proc/$pid/ns/net" 2>/dev/null) == "$(stat -L -c %i "/run/netns/$netns")" ]] || return 1
  echo "$pid"
}

# host_path HOST PATH: PATH as HOST sees it, reachable from the root namespace.
host_path() { echo "/proc/$(host_init_pid "$1")/root$2"; }

# host_exec HOST COMMAND...: COMMAND inside HOST (its namespaces and root), with a clean environment.
host_exec() {
  local pid
  pid=$(host_init_pid "$1") || die "host $1 is not running"
  shift
  nsenter -t "$pid" -m -n -p -u -r -w -- /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 HOME=/root "$@"
}

# host_has_processes HOST: something runs in HOST's network namespace.
host_has_processes() {
  local netns
  netns=$(host_var "$1" NETNS)
  netns_exists "$netns" && [[ -n $(ip netns pids "$netns" 2>/dev/null) ]]
}

# lab1's private libvirt state starts from the machine's own libvirt configuration files (not its
# definitions): the daemons' *.conf as Debian installed them.
seed_lab1_state() {
  local state=$1 dir
  for dir in etc/libvirt var/lib/libvirt etc/polkit-1/rules.d; do install -d -m 755 "$state/fs/$dir"; done
  [[ -n $(compgen -G "$state/fs/etc/libvirt/*.conf") ]] || cp /etc/libvirt/*.conf "$state/fs/etc/libvirt/"
}

# ensure_host HOST: HOST's init runs (started when not).
ensure_host() {
  local host=$1 state netns cache args pid unshare_pid i lower
  host_init_pid "$host" >/dev/null && return 0
  state=$(host_state_dir "$host")
  netns=$(host_var "$host" NETNS)
  cache=$CACHE_ROOT/libvirt-cache/$host
  install -d -m 755 "$state" "$state/log" "$cache"
  if [[ $host == lab1 ]]; then
    seed_lab1_state "$state"
    args=(bind "$(host_var "$host" HOSTNAME)" "$state" "$cache")
  else
    lower=$(hypervisor2_root) || die "the Debian 13 root of lab2 could not be built (test/lab/hypervisor2/build.sh)"
    args=(overlay "$(host_var "$host" HOSTNAME)" "$state" "$lower" "$cache")
  fi
  setsid ip netns exec "$netns" unshare --mount --pid --uts --fork --propagation private --kill-child -- \
    bash "$LAB_SRC/scripts/host-init.sh" "${args[@]}" >>"$LOG_DIR/$host-init.log" 2>&1 </dev/null &
  unshare_pid=$!
  STARTED_HOSTS+=("$host")
  for ((i = 0; i < 100; i++)); do
    pid=$(cat "/proc/$unshare_pid/task/$unshare_pid/children" 2>/dev/null | awk '{print $1}')
    # The init is ready once its /run is its own and the log directory is bound.
    if [[ -n $pid && -d /proc/$pid/root$HOST_LOG ]] && grep -q " $HOST_LOG " "/proc/$pid/mounts" 2>/dev/null; then
      echo "$pid" >"$(host_init_pid_file "$host")"
      host_exec "$host" install -d -m 755 "$HOST_RUN"
      return 0
    fi
    running "$unshare_pid" || break
    sleep 0.1
  done
  tail -n 20 "$LOG_DIR/$host-init.log" >&2 || true
  die "host $host did not start (see $LOG_DIR/$host-init.log)"
}

# stop_host HOST: killing a pid namespace's init kills every process in it (daemons, QEMU).
stop_host() {
  local pid file
  file=$(host_init_pid_file "$1")
  if pid=$(host_init_pid "$1"); then
    kill -9 "$pid" 2>/dev/null || true
    wait_for 10 "host $1 to stop" bash -c "! kill -0 $pid 2>/dev/null"
  fi
  rm -f "$file"
}

# host_daemon_alive HOST NAME COMM: the pid in HOST's $HOST_RUN/NAME.pid runs and is COMM.
host_daemon_alive() {
  local file pid
  file=$(host_path "$1" "$HOST_RUN/$2.pid")
  [[ -s $file ]] || return 1
  pid=$(<"$file")
  [[ $pid =~ ^[0-9]+$ ]] && [[ $(cat "$(host_path "$1" "/proc/$pid/comm")" 2>/dev/null) == "$3" ]]
}

# host_root_pid HOST PID: the root namespace's pid of the process that is PID inside HOST (the last
# field of NSpid, among the processes in HOST's pid namespace).
host_root_pid() {
  local init entry key value
  init=$(host_init_pid "$1") || return 1
  # Builtins only (-ef compares the namespaces' inodes): this looks at every process of the machine.
  for entry in /proc/[0-9]*; do
    [[ $entry/ns/pid -ef /proc/$init/ns/pid ]] || continue
    while read -r key value; do
      [[ $key == NSpid: ]] || continue
      [[ ${value##*[[:space:]]} == "$2" ]] && echo "${entry#/proc/}" && return 0
      break
    done 2>/dev/null <"$entry/status"
  done
  return 1
}

# stop_host_daemon HOST NAME COMM: stop_pids it (SIGTERM, SIGKILL when it outstays the wait) and
# drop its pid file.
stop_host_daemon() {
  local pid
  if host_daemon_alive "$1" "$2" "$3" && pid=$(host_root_pid "$1" "$(<"$(host_path "$1" "$HOST_RUN/$2.pid")")"); then
    stop_pids "$2 of $1" "$pid"
  fi
  rm -f "$(host_path "$1" "$HOST_RUN/$2.pid")"
}

# unix_socket_answers PATH: something accepts connections on the unix socket PATH.
unix_socket_answers() {
  python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(2)
s.connect(sys.argv[1])' "$1"
}
