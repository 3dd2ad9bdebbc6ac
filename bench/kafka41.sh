#!/usr/bin/env bash
# Apache Kafka 4.1.1 for the benchmarks' --bootstrap option, as earlier figures were measured: see bench/kafka.sh.
exec "$(dirname "$0")/kafka.sh" 4.1.1
