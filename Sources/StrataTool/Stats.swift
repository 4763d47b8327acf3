// `strata stats PATH [--json]`: the figures of a database.

import ArgumentParser
@_spi(Tooling) import Strata
import StrataStorage

struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the segments, records, keys and bytes of a database, read-only.",
        discussion: """
            Opens the database read-only (no lock; nothing on disk changes) and prints its \
            segments, records, keys, keyspaces, total, live and dead bytes, last sequence and, \
            for an object database, the number of objects of each class. \
            Dead bytes are what compaction would reclaim: overwritten values, deletes, commit \
            records and headers.

            \(ToolExit.help)
            """
    )

    @Argument(help: "The database directory.")
    var path: String

    @Flag(help: "Print one JSON object (keys sorted) instead of a table.")
    var json = false

    @OptionGroup var key: KeyFileOption

    func run() throws {
        let report = try Output.reportingErrors {
            let store = try Output.openReadOnly(path, key: key)
            var report = StatsReport(path: path, statistics: store.statistics(), recoveryEvents: store.recoveryEvents)
            let snapshot = store.snapshot()
            let counts = try StoredSchema.load(from: snapshot).objectCounts(in: snapshot)
            if !counts.isEmpty { report.objects = counts.map { .init(className: $0.className, count: $0.count) } }
            return report
        }
        if json {
            print(try report.json())
        } else {
            for event in report.recoveryEvents { print("note: \(event)") }
            for line in report.lines { print(line) }
        }
    }
}
