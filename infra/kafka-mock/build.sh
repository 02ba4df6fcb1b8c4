#!/usr/bin/env bash
# Builds the Kafka test broker (librdkafka mock cluster) when the binary is missing or older than
# its source. Prints the binary's path on success.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
src="$here/kafka-mock.c"
bin="$here/kafka-mock"

if [[ -x "$bin" && "$bin" -nt "$src" ]]; then
  echo "$bin"
  exit 0
fi

have_rdkafka() { pkg-config --exists rdkafka 2>/dev/null && [[ -f "$(pkg-config --variable=includedir rdkafka)/librdkafka/rdkafka_mock.h" ]]; }

if ! command -v gcc >/dev/null || ! command -v pkg-config >/dev/null || ! have_rdkafka; then
  if [[ "$(id -u)" == "0" ]] && command -v apt-get >/dev/null; then
    echo "kafka-mock: installing gcc, pkg-config and librdkafka-dev with apt" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y --no-install-recommends gcc libc6-dev pkg-config librdkafka-dev >&2 \
      || { apt-get update >&2 && apt-get install -y --no-install-recommends gcc libc6-dev pkg-config librdkafka-dev >&2; }
  else
    echo "kafka-mock: needs gcc, pkg-config and librdkafka-dev (>= 1.9, with rdkafka_mock.h)." >&2
    echo "  Debian/Ubuntu: sudo apt-get install gcc libc6-dev pkg-config librdkafka-dev" >&2
    exit 1
  fi
fi

# Build to a temporary name so a concurrent build or an interrupted one never leaves a broken binary.
tmp="$(mktemp "$here/.kafka-mock.XXXXXX")"
trap 'rm -f "$tmp"' EXIT
# shellcheck disable=SC2046 # pkg-config output must split into separate flags
gcc -O2 -Wall -Wextra -o "$tmp" "$src" $(pkg-config --cflags --libs rdkafka)
chmod 755 "$tmp"
mv -f "$tmp" "$bin"
trap - EXIT
echo "$bin"
