#!/usr/bin/env bash
# The `local` provider's Kubernetes control plane, as `kind create cluster` gives other tools one:
# etcd, kube-apiserver and kube-controller-manager on 127.0.0.1 (built from Go modules by
# scripts/install-kube-test-servers.sh), certificates made here with openssl, everything under
# .runner/local-cluster/ of the repository. There is no kubelet and no scheduler: objects are
# stored and reconciled by the controllers (namespaces, garbage collection, deployments to
# replica sets), pods are never run.
#
#   scripts/local-cluster.sh start    starts it, or leaves it running; waits until it answers
#   scripts/local-cluster.sh stop     stops it; its data stays for the next start
#   scripts/local-cluster.sh status   exit 0 when it answers, 1 when not
#   scripts/local-cluster.sh delete   stops it and removes its data and certificates
#
# `start` writes the admin kubeconfig to .runner/local-cluster/admin.kubeconfig; the `local`
# provider's cluster project reads the address and certificates beside it.
# Settings, remembered from the first start: RUNNER_LOCAL_CLUSTER_DIR (the state folder),
# RUNNER_LOCAL_CLUSTER_PORT (the API server's port, 6443), RUNNER_LOCAL_CLUSTER_ETCD_PORT and
# RUNNER_LOCAL_CLUSTER_ETCD_PEER_PORT (etcd's, 23790 and 23791).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
STATE_DIR="${RUNNER_LOCAL_CLUSTER_DIR:-$root/.runner/local-cluster}"
KUBECONFIG_FILE="$STATE_DIR/admin.kubeconfig"
READY_WITHIN="${RUNNER_LOCAL_CLUSTER_READY_WITHIN:-180}"

log() { printf 'local-cluster: %s\n' "$*" >&2; }
fail() { log "$*"; exit 1; }

pid_of() { # name -> pid of the running component, or nothing
    local file="$STATE_DIR/run/$1.pid" pid
    [ -f "$file" ] || return 0
    pid="$(cat "$file")"
    # After a reboot the pid file may name another process, or none: the command line decides.
    if [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] \
        && tr '\0' ' ' < "/proc/$pid/cmdline" | grep -qF -- "$STATE_DIR"; then
        echo "$pid"
    fi
}

answers() {
    [ -f "$KUBECONFIG_FILE" ] && kubectl --kubeconfig "$KUBECONFIG_FILE" get --raw /readyz >/dev/null 2>&1
}

port_free() { # port -> exit 0 when nothing listens on 127.0.0.1:port
    ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

make_certificates() {
    local pki="$STATE_DIR/pki"
    [ -f "$pki/admin.crt" ] && return 0
    log "making the cluster's certificates in $pki"
    mkdir -p "$pki"
    (
        cd "$pki"
        openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 3650 \
            -subj "/CN=runner-local-cluster-ca" 2>/dev/null
        openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj "/CN=kube-apiserver" 2>/dev/null
        printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes.default.svc\n' > server.ext
        openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt \
            -days 3650 -extfile server.ext 2>/dev/null
        # The admin user is a member of system:masters, as kind's and kubeadm's admin.conf is.
        openssl req -newkey rsa:2048 -nodes -keyout admin.key -out admin.csr \
            -subj "/O=system:masters/CN=runner-local-admin" 2>/dev/null
        printf 'extendedKeyUsage=clientAuth\n' > admin.ext
        openssl x509 -req -in admin.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out admin.crt \
            -days 3650 -extfile admin.ext 2>/dev/null
        openssl genrsa -out sa.key 2048 2>/dev/null
        openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
        rm -f server.csr admin.csr
        chmod 600 ./*.key
    )
}

write_kubeconfig() {
    local pki="$STATE_DIR/pki" port="$1"
    umask 077
    cat > "$KUBECONFIG_FILE.partial" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: runner-local
  cluster:
    server: https://127.0.0.1:$port
    certificate-authority-data: $(base64 -w0 < "$pki/ca.crt")
users:
- name: runner-local-admin
  user:
    client-certificate-data: $(base64 -w0 < "$pki/admin.crt")
    client-key-data: $(base64 -w0 < "$pki/admin.key")
contexts:
- name: runner-local
  context:
    cluster: runner-local
    user: runner-local-admin
current-context: runner-local
EOF
    mv "$KUBECONFIG_FILE.partial" "$KUBECONFIG_FILE"
    # The address alone, for the `local` provider's cluster project, which writes its own
    # kubeconfig from it and the certificates under pki/.
    printf 'https://127.0.0.1:%s' "$port" > "$STATE_DIR/server"
}

launch() { # name program args... : runs in its own session, survives this script
    local name="$1"
    shift
    setsid "$@" >"$STATE_DIR/logs/$name.log" 2>&1 < /dev/null &
    echo $! > "$STATE_DIR/run/$name.pid"
}

stop_component() { # name seconds-before-kill
    local name="$1" grace="$2" pid waited=0
    pid="$(pid_of "$name")"
    rm -f "$STATE_DIR/run/$name.pid"
    [ -n "$pid" ] || return 0
    kill -TERM "$pid" 2>/dev/null || return 0
    # kube-apiserver can take a minute to drain its watchers on SIGTERM; its state is in etcd,
    # so it is killed after a short grace. etcd gets longer: it is where the state is.
    while kill -0 "$pid" 2>/dev/null; do
        if [ "$waited" -ge "$((grace * 10))" ]; then
            kill -KILL "$pid" 2>/dev/null || true
        fi
        sleep 0.1
        waited=$((waited + 1))
    done
}

start() {
    command -v kubectl >/dev/null 2>&1 || fail "kubectl is required to talk to the cluster: apt-get install kubectl"
    command -v openssl >/dev/null 2>&1 || fail "openssl is required to make the cluster's certificates: apt-get install openssl"
    mkdir -p "$STATE_DIR/run" "$STATE_DIR/logs"
    if [ -n "$(pid_of kube-apiserver)" ] && answers; then
        log "already running: kubectl --kubeconfig $KUBECONFIG_FILE"
        [ -n "$(pid_of kube-controller-manager)" ] || start_controller_manager
        return 0
    fi
    # Whatever is left (a crash, a reboot) is stopped; the data folder is kept.
    stop_all
    local bin
    bin="${RUNNER_KUBE_TEST_BIN:-$(bash "$root/scripts/install-kube-test-servers.sh" | tail -n1)}"
    for program in etcd kube-apiserver kube-controller-manager; do
        [ -x "$bin/$program" ] || fail "$program is missing from $bin: run scripts/install-kube-test-servers.sh"
    done
    if [ ! -f "$STATE_DIR/ports" ]; then
        printf '%s %s %s\n' "${RUNNER_LOCAL_CLUSTER_PORT:-6443}" "${RUNNER_LOCAL_CLUSTER_ETCD_PORT:-23790}" \
            "${RUNNER_LOCAL_CLUSTER_ETCD_PEER_PORT:-23791}" > "$STATE_DIR/ports"
    fi
    local port etcd_port peer_port
    read -r port etcd_port peer_port < "$STATE_DIR/ports"
    for taken in "$port" "$etcd_port" "$peer_port"; do
        port_free "$taken" || fail "port $taken on 127.0.0.1 is in use by another program: stop it, or delete this cluster (scripts/local-cluster.sh delete) and start it with RUNNER_LOCAL_CLUSTER_PORT, RUNNER_LOCAL_CLUSTER_ETCD_PORT and RUNNER_LOCAL_CLUSTER_ETCD_PEER_PORT set to free ports"
    done
    make_certificates
    write_kubeconfig "$port"
    local pki="$STATE_DIR/pki"
    log "starting etcd (127.0.0.1:$etcd_port), kube-apiserver (127.0.0.1:$port) and kube-controller-manager"
    launch etcd "$bin/etcd" --name runner-local --data-dir "$STATE_DIR/etcd" \
        --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
        --listen-peer-urls "http://127.0.0.1:$peer_port" \
        --initial-advertise-peer-urls "http://127.0.0.1:$peer_port" \
        --initial-cluster "runner-local=http://127.0.0.1:$peer_port" --log-level warn
    launch kube-apiserver "$bin/kube-apiserver" --etcd-servers "http://127.0.0.1:$etcd_port" \
        --secure-port "$port" --bind-address 127.0.0.1 --advertise-address 127.0.0.1 \
        --tls-cert-file "$pki/server.crt" --tls-private-key-file "$pki/server.key" \
        --client-ca-file "$pki/ca.crt" \
        --service-account-key-file "$pki/sa.pub" --service-account-signing-key-file "$pki/sa.key" \
        --service-account-issuer https://kubernetes.default.svc --service-cluster-ip-range 10.96.0.0/16 \
        --cert-dir "$STATE_DIR/apiserver-certs" --authorization-mode RBAC \
        --enable-priority-and-fairness=false --v=0
    local waited=0
    until answers; do
        [ -n "$(pid_of etcd)" ] || { tail -n 20 "$STATE_DIR/logs/etcd.log" >&2; stop_all; fail "etcd stopped: its log is above"; }
        [ -n "$(pid_of kube-apiserver)" ] || { tail -n 20 "$STATE_DIR/logs/kube-apiserver.log" >&2; stop_all; fail "kube-apiserver stopped: its log is above"; }
        [ "$waited" -lt "$READY_WITHIN" ] || { stop_all; fail "kube-apiserver did not answer /readyz within ${READY_WITHIN}s: see $STATE_DIR/logs/"; }
        sleep 1
        waited=$((waited + 1))
    done
    start_controller_manager "$bin"
    log "ready after about ${waited}s: kubectl --kubeconfig $KUBECONFIG_FILE get ns"
}

start_controller_manager() {
    local bin="${1:-${RUNNER_KUBE_TEST_BIN:-$(bash "$root/scripts/install-kube-test-servers.sh" | tail -n1)}}"
    local pki="$STATE_DIR/pki"
    # Without the garbage collector and the namespace controller a foreground delete (what the
    # Pulumi Kubernetes provider asks for) never finishes, and a namespace is never removed.
    launch kube-controller-manager "$bin/kube-controller-manager" --kubeconfig "$KUBECONFIG_FILE" \
        --leader-elect=false --bind-address 127.0.0.1 --secure-port 0 \
        --controllers namespace,garbagecollector,deployment,replicaset,serviceaccount,serviceaccount-token,endpointslice \
        --service-account-private-key-file "$pki/sa.key" --root-ca-file "$pki/ca.crt"
}

stop_all() {
    stop_component kube-controller-manager 5
    stop_component kube-apiserver 5
    stop_component etcd 30
}

case "${1:-}" in
    start) start ;;
    stop)
        stop_all
        log "stopped; its data stays in $STATE_DIR"
        ;;
    status)
        if answers; then
            log "running: kubectl --kubeconfig $KUBECONFIG_FILE"
        else
            log "not running (scripts/local-cluster.sh start)"
            exit 1
        fi
        ;;
    delete)
        stop_all
        rm -rf "$STATE_DIR"
        log "deleted $STATE_DIR"
        ;;
    *)
        sed -n "2,18p" "$0" | sed 's/^# \{0,1\}//' >&2
        exit 2
        ;;
esac
