#!/usr/bin/env bash
# Runs dev.samsa.bench.StartupAndProduceBenchmark (or the benchmark class BENCH names, with BENCH_HEAP of heap) with
# the JVM flags chronicle-bytes needs (pom.xml property chronicle.jvm.flags). Needs only Maven and a JDK 17+.
# Arguments go to the benchmark:
#   bench/run.sh [startupRuns warmups records runs commitEvery]     (defaults 20 3 200000 3 100)
#   BENCH=CompactionBenchmark BENCH_HEAP=3g bench/run.sh 1024       (MiB of log to compact)
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt
FLAGS=$(sed -n 's:.*<chronicle.jvm.flags>\(.*\)</chronicle.jvm.flags>.*:\1:p' pom.xml)
# shellcheck disable=SC2086  # FLAGS is a list of separate options
exec java $FLAGS "-Xmx${BENCH_HEAP:-2g}" -cp "target/classes:target/test-classes:$(cat target/cp.txt)" \
    "dev.samsa.bench.${BENCH:-StartupAndProduceBenchmark}" "$@"
