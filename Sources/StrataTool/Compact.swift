// `strata compact PATH`: reclaim the space of overwritten and deleted values.

import ArgumentParser
import StrataStorage

struct Compact: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rewrite a database's segments without their dead records.",
        discussion: """
            Opens the database for writing (it takes the LOCK: no other process may have it \
            open), seals the active segment when it holds records, copies the live records of \
            every sealed segment into compacted segments, installs them, removes the old files \
            and prints what it did. A crash at any point \
            leaves the database as it was before or after, never in between.

            With --dry-run, opens the database read-only instead (no lock; nothing on disk \
            changes) and prints what compaction would do: the segments it would rewrite and \
            the dead bytes it would reclaim at most.

            \(ToolExit.help)
            """
    )

    @Argument(help: "The database directory.")
    var path: String

    @Flag(help: "Print what compaction would reclaim, without writing anything.")
    var dryRun = false

    @OptionGroup var key: KeyFileOption

    func run() throws {
        if dryRun { return try printPlan() }
        let report = try Output.reportingErrors { () throws -> CompactionReport in
            guard PosixFileSystem().exists(path + "/MANIFEST") else {
                throw StrataError(.notFound, "no Strata database at \(path)", file: path)
            }
            var options = Store.Options()
            options.encryptionKey = try key.key()
            let store = try Store(directory: path, options: options)
            Output.printNotes(store.recoveryEvents)
            let report = try store.compact()
            try store.close()
            return report
        }
        print(report.didCompact ? "compacted:" : "nothing to compact:")
        print("  segments  \(report.segmentsBefore) → \(report.segmentsAfter)")
        print("  bytes     \(Format.bytes(report.bytesBefore)) → \(Format.bytes(report.bytesAfter))")
        print("  reclaimed \(Format.bytes(report.bytesReclaimed)), \(Format.count(report.recordsCopied)) live records copied")
        print("  time      \(Format.milliseconds(report.duration))")
    }

    /// `--dry-run`: the figures of a read-only open.
    private func printPlan() throws {
        let statistics = try Output.reportingErrors {
            let store = try Output.openReadOnly(path, key: key)
            Output.printNotes(store.recoveryEvents)
            return store.statistics()
        }
        // Every segment but an empty active one: a compaction seals an active one with records.
        let hasRecords = statistics.records > 0
        print(hasRecords ? "would compact (dry run, nothing written):" : "nothing to compact (dry run): no record")
        print("  segments  \(statistics.segments), each holding records would be rewritten")
        print("  bytes     \(Format.bytes(statistics.totalBytes)) now, \(Format.bytes(statistics.liveBytes)) live")
        print("  reclaims  at most \(Format.bytes(hasRecords ? statistics.deadBytes : 0))")
    }
}
