#!/bin/sh
# One-shot topic creation for the scaled setup (docker compose service kafka-init).
# Idempotent: --if-not-exists, so re-running on every `docker compose up` is safe. Partition
# counts only grow; Kafka cannot shrink them, and growing `clicks` remaps link ids to partitions
# (per-link ordering holds again once in-flight events drain).
set -eu

BOOTSTRAP="${KAFKA_BOOTSTRAP:-kafka:9092}"
PREFIX="${BUS_PREFIX:-}"
REPLICATION="${KAFKA_REPLICATION_FACTOR:-1}"
TOPICS_BIN="${KAFKA_TOPICS_BIN:-/opt/kafka/bin/kafka-topics.sh}"

create() { # name partitions retention-ms
  "$TOPICS_BIN" --bootstrap-server "$BOOTSTRAP" --create --if-not-exists \
    --topic "${PREFIX}$1" --partitions "$2" --replication-factor "$REPLICATION" \
    --config "retention.ms=$3"
  echo "topic ${PREFIX}$1: $2 partitions"
}

DAY=86400000
# clicks: the busiest stream, keyed by link id; partitions cap analytics consumer parallelism.
create clicks "${CLICKS_PARTITIONS:-12}" $((7 * DAY))
create links "${LINKS_PARTITIONS:-6}" $((7 * DAY))
create click-totals "${CLICK_TOTALS_PARTITIONS:-6}" $((7 * DAY))
# Dead letters are inspected by hand, so they are kept longer and need no parallelism.
create clicks.dlq 1 $((30 * DAY))
create links.dlq 1 $((30 * DAY))
create click-totals.dlq 1 $((30 * DAY))

"$TOPICS_BIN" --bootstrap-server "$BOOTSTRAP" --list
