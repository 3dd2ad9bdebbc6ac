#!/usr/bin/env bash
# Starts Apache Kafka (version $1, default 4.4.0) for the benchmarks' --bootstrap option: one KRaft node (broker and
# controller) in a JVM of its own on 127.0.0.1:19092, with Kafka's default heap and GC flags (kafka-run-class.sh). Its
# jars come from Maven Central (mvn dependency:copy-dependencies of org.apache.kafka:kafka_2.13) into /tmp/kafka-<version>,
# outside the repository, once; the data directory starts empty on every run. Runs until killed.
#   bench/kafka.sh 4.4.0 &
#   BENCH=ConsumeBenchmark bench/run.sh 5 300000 --bootstrap 127.0.0.1:19092
set -euo pipefail
VERSION=${1:-4.4.0}
DIR=${KAFKA_DIR:-/tmp/kafka-$VERSION}
PORT=${KAFKA_PORT:-19092}
mkdir -p "$DIR"
if [ ! -d "$DIR/libs" ]; then
    cat > "$DIR/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local</groupId><artifactId>kafka</artifactId><version>1</version><packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$VERSION</version></dependency>
  </dependencies>
</project>
POM
    mvn -B -q -f "$DIR/pom.xml" dependency:copy-dependencies -DoutputDirectory="$DIR/libs" -Dmaven.repo.local="$DIR/m2"
fi
rm -rf "$DIR/data"
cat > "$DIR/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$((PORT + 1))
listeners=PLAINTEXT://127.0.0.1:$PORT,CONTROLLER://127.0.0.1:$((PORT + 1))
advertised.listeners=PLAINTEXT://127.0.0.1:$PORT
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$DIR/data
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
PROPS
CP="$DIR/libs/*"
java -cp "$CP" kafka.tools.StorageTool format -t "$(java -cp "$CP" kafka.tools.StorageTool random-uuid)" \
    -c "$DIR/server.properties" >/dev/null
exec java -Xmx1G -Xms1G -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 \
    -XX:+ExplicitGCInvokesConcurrent -Djava.awt.headless=true -cp "$CP" kafka.Kafka "$DIR/server.properties"
