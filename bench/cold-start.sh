#!/usr/bin/env bash
# Runs dev.samsa.bench.ColdStartBenchmark: java -jar to the ready line, and the first and later clusters inside a
# running JVM, each in fresh JVMs. Needs `mvn -B -q package -DskipTests` first (for the standalone jar).
#   bench/cold-start.sh [runs]     (default 20)
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q test-compile dependency:build-classpath -Dmdep.outputFile=target/cp.txt
FLAGS=$(sed -n 's:.*<chronicle.jvm.flags>\(.*\)</chronicle.jvm.flags>.*:\1:p' pom.xml)
# shellcheck disable=SC2086  # FLAGS is a list of separate options
exec java $FLAGS -Dsamsa.bench.jvm.flags="$FLAGS" -cp "target/classes:target/test-classes:$(cat target/cp.txt)" \
    dev.samsa.bench.ColdStartBenchmark "$@"
