# The lab's base image (an empty qcow2 from qemu-img: no OS, it only has to be a valid image)
# and the HTTP server that serves it, with the awkward variants, on loopback.

ensure_image() {
  install -d -m 755 "$IMAGE_DIR"
  # The real guest image, when guest-image/build.sh has built it for the current scripts: linked as
  # .lab/images/guest.qcow2 (a hash of three small files; never a build here, up.sh stays fast).
  bash "$LAB_SRC/guest-image/build.sh" --link-if-cached >/dev/null
  [[ -f $IMAGE_DIR/lab.qcow2 ]] && return 0
  qemu-img create -q -f qcow2 "$IMAGE_DIR/lab.qcow2.tmp" 64M
  mv "$IMAGE_DIR/lab.qcow2.tmp" "$IMAGE_DIR/lab.qcow2"
}

# On loopback for the app and the tests, and on the VM link for the VMs (see guest-network.sh).
image_server_answers() {
  curl -fsS --max-time 2 "$IMAGE_SERVER_URL/healthz" && curl -fsS --max-time 2 "$IMAGE_SERVER_VM_URL/healthz"
}

ensure_image_server() {
  if pid_alive "$IMAGE_SERVER_PID" node && image_server_answers >/dev/null 2>&1; then
    return 0
  fi
  stop_pidfile "$IMAGE_SERVER_PID" node "the image server"
  STARTED_IMAGE_SERVER=1
  setsid node "$LAB_SRC/image-server.mjs" --port "$IMAGE_SERVER_PORT" --image "$IMAGE_DIR/lab.qcow2" \
    --also-listen "$VM_LINK_ROOT_IP" \
    >>"$LOG_DIR/image-server.log" 2>&1 </dev/null &
  echo $! >"$IMAGE_SERVER_PID"
  wait_for 10 "the image server" image_server_answers
}

remove_image_server() { stop_pidfile "$IMAGE_SERVER_PID" node "the image server"; }
