// `strata verify PATH`: checks every byte of a database without changing it.

import ArgumentParser
import StrataStorage

struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check every record and every live value of a database, read-only.",
        discussion: """
            Opens the database read-only (no lock; nothing on disk changes), which scans every \
            record of every segment and checks its checksum, then reads every live value of every \
            keyspace through a snapshot, checking each record again and decompressing it.

            What a crash leaves behind (a torn or zero-filled tail, a transaction that never \
            committed) is not an error: it is printed as a note, and a read-write open would cut \
            it off. On success prints "OK: N segments, N records, N keys".

            \(ToolExit.help)
            """
    )

    @Argument(help: "The database directory.")
    var path: String

    func run() throws {
        let (statistics, keys) = try Output.reportingErrors {
            let store = try Output.openReadOnly(path)
            Output.printNotes(store.recoveryEvents)
            let snapshot = store.snapshot()
            var keys = 0
            for keyspace in snapshot.keyspaces.sorted() {
                try snapshot.forEach(in: keyspace) { _, _ in
                    keys += 1
                    return true
                }
            }
            return (store.statistics(), keys)
        }
        guard keys == statistics.keys else {
            Output.error("error: the index counts \(statistics.keys) keys but \(keys) were read")
            throw ExitCode(ToolExit.failure)
        }
        print("OK: \(statistics.segments) segments, \(statistics.records) records, \(keys) keys")
    }
}
