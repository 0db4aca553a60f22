# Shared by the tools/stack scripts (sourced from the repository root): the stack's names, its
# env file's values, podman's Docker-compatible socket and the health ticker.

STACK_ENV="${STACK_ENV:-tools/stack/test.env}"
STACK_PROJECT="${STACK_PROJECT:-mnemograph-stack}"
PODMAN_SOCKET=/run/podman/podman.sock
STACK_RUN="/run/mnemograph-stack/${STACK_PROJECT}"

stack_log() { echo "stack: $*" >&2; }

# env_value NAME DEFAULT: NAME's value in the env file, or DEFAULT.
env_value() {
  local line
  line="$(grep -E "^$1=" "${STACK_ENV}" | tail -n 1 || true)"
  if [ -n "${line}" ]; then echo "${line#*=}"; else echo "$2"; fi
}

socket_answers() {
  python3 -c 'import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(2)
try:
    s.connect(sys.argv[1]); s.sendall(b"GET /_ping HTTP/1.0\r\n\r\n")
    sys.exit(0 if b" 200 " in s.recv(64) else 1)
except OSError:
    sys.exit(1)' "${PODMAN_SOCKET}"
}

# podman's Docker API for docker-compose, started in the background unless it answers.
ensure_podman_service() {
  if socket_answers; then
    return
  fi
  mkdir -p "$(dirname "${PODMAN_SOCKET}")" /run/mnemograph-stack
  setsid podman system service --time=0 "unix://${PODMAN_SOCKET}" \
    >/run/mnemograph-stack/podman-service.log 2>&1 </dev/null &
  echo $! >/run/mnemograph-stack/podman-service.pid
  for _ in $(seq 1 50); do
    if socket_answers; then
      return
    fi
    sleep 0.2
  done
  stack_log "podman system service did not answer on ${PODMAN_SOCKET}"
  cat /run/mnemograph-stack/podman-service.log >&2
  return 1
}

# podman runs health checks from systemd timers; with no systemd (containers, CI) nothing would
# run them and `depends_on: service_healthy` would wait for ever. The ticker runs them instead.
ensure_health_ticker() {
  local pid_file="${STACK_RUN}/health-ticker.pid"
  if [ -f "${pid_file}" ] && kill -0 "$(cat "${pid_file}")" 2>/dev/null; then
    return
  fi
  mkdir -p "${STACK_RUN}"
  setsid tools/stack/health-ticker "${STACK_PROJECT}" >"${STACK_RUN}/health-ticker.log" 2>&1 </dev/null &
  echo $! >"${pid_file}"
}

stop_health_ticker() {
  local pid_file="${STACK_RUN}/health-ticker.pid"
  if [ -f "${pid_file}" ]; then
    kill "$(cat "${pid_file}")" 2>/dev/null || true
    rm -f "${pid_file}"
  fi
}

# Stops the podman API service if these scripts started it.
stop_podman_service() {
  local pid_file=/run/mnemograph-stack/podman-service.pid
  if [ -f "${pid_file}" ]; then
    kill "$(cat "${pid_file}")" 2>/dev/null || true
    rm -f "${pid_file}"
  fi
}
