// Once the test JVM has exited, and Spring closed the contexts it had cached: every cluster that a test recorded must
// have been closed, which deletes its data directory (Samsa registers no shutdown hook of its own).
def list = new File(basedir, 'target/samsa-clusters.txt')
assert list.exists() : "no test recorded its cluster in ${list}"
def directories = list.readLines().findAll { it }.toSet()
assert directories.size() == 2 : "expected the shared cluster and LeaderCrashTest's, got ${directories}"
def alive = directories.findAll { new File(it).exists() }
assert alive.isEmpty() : "clusters left running when the test JVM's Spring contexts closed: ${alive}"
return true
