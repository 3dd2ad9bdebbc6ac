def java = new File(java25Home, 'bin/java')
if (!java.canExecute()) {
    println "SKIPPED ${basedir.name}: no Java 25 at ${java25Home} (set -Djava25.home=... to run this row)"
    return false
}
return true
