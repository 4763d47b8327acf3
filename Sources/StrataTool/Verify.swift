// `strata verify [--deep] PATH`: checks every byte of a database without changing it; with
// --deep, also the object-level structure (links, backlinks, indexes, embedded objects).

import ArgumentParser
import Strata
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

            With --deep, then checks the object layer's structure in the same version, from the \
            stored bytes and catalog alone: every object record decodes; class and property ids \
            are the catalog's; every link reaches an existing object; the backlink and \
            secondary-index entries match the objects exactly, both ways; embedded values name \
            embedded classes. Prints each problem to standard error ("problem: KIND: …") and \
            exits 2 when there is one; on success prints "OK: objects: …". A store without an \
            object catalog (such as `demo --storage`'s) has nothing to check at that level: a note says so.

            \(ToolExit.help)
            """
    )

    @Argument(help: "The database directory.")
    var path: String

    @Flag(help: "Also check links, backlinks, indexes and embedded objects (the object layer).")
    var deep = false

    @OptionGroup var key: KeyFileOption

    func run() throws {
        let (statistics, keys, snapshot) = try Output.reportingErrors {
            let store = try Output.openReadOnly(path, key: key)
            Output.printNotes(store.recoveryEvents)
            let snapshot = store.snapshot()
            var keys = 0
            for keyspace in snapshot.keyspaces.sorted() {
                try snapshot.forEach(in: keyspace) { _, _ in
                    keys += 1
                    return true
                }
            }
            return (store.statistics(), keys, snapshot)
        }
        guard keys == statistics.keys else {
            Output.error("error: the index counts \(Format.counted(statistics.keys, "key")) but \(keys) were read")
            throw ExitCode(ToolExit.failure)
        }
        print("OK: \(Format.counted(statistics.segments, "segment", grouped: false)), \(Format.counted(statistics.records, "record", grouped: false)), \(Format.counted(keys, "key", grouped: false))")
        if deep { try verifyObjects(snapshot) }
    }

    /// The object-level check of `snapshot`: prints its notes, and its problems to standard
    /// error, exiting with `ToolExit.corruption` when there is one.
    private func verifyObjects(_ snapshot: Snapshot) throws {
        let report = Database.checkIntegrity(of: snapshot)
        for note in report.notes { print("note: \(note)") }
        guard report.isClean else {
            for problem in report.problems { Output.error("problem: \(problem)") }
            Output.error("corruption: \(Format.counted(report.problems.count, "object-level problem")) in \(path)")
            throw ExitCode(ToolExit.corruption)
        }
        print("""
            OK: objects: \(Format.counted(report.classesChecked, "class", plural: "classes", grouped: false)), \
            \(Format.counted(report.objectsChecked, "object", grouped: false)), \
            \(Format.counted(report.linksChecked, "link", grouped: false)), \
            \(Format.counted(report.backlinksChecked, "backlink", grouped: false)), \
            \(Format.counted(report.indexEntriesChecked, "index entry", plural: "index entries", grouped: false))
            """)
    }
}
