// `strata compact PATH`: reclaim the space of overwritten and deleted values.

import ArgumentParser
import Foundation
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

            With --dry-run, opens the database read-only instead (no lock; nothing in it \
            changes), compacts a copy of it in a temporary directory (so it needs as much free \
            space there as the database takes), removes the copy and prints what compaction \
            would do: the same figures `compact` then prints.

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
            try DatabasePath.requireDatabase(path)
            return try compact(path)
        }
        print(report.didCompact ? "compacted:" : "nothing to compact:")
        printFigures(of: report, reclaimed: "reclaimed")
        print("  time      \(Format.milliseconds(report.duration))")
    }

    /// Opens the store in `directory` for writing and compacts it.
    private func compact(_ directory: String) throws -> CompactionReport {
        var options = Store.Options()
        options.encryptionKey = try key.key()
        let store = try Store(directory: directory, options: options)
        Output.printNotes(store.recoveryEvents)
        let report = try store.compact()
        try store.close()
        return report
    }

    private func printFigures(of report: CompactionReport, reclaimed: String) {
        print("  segments  \(report.segmentsBefore) → \(report.segmentsAfter)")
        print("  bytes     \(Format.bytes(report.bytesBefore)) → \(Format.bytes(report.bytesAfter))")
        print("  \(reclaimed) \(Format.bytes(report.bytesReclaimed)), \(Format.counted(report.recordsCopied, "live record")) copied")
    }

    /// `--dry-run`: compacts a copy of the database in a temporary directory, which it then
    /// removes, and prints what that compaction did: what compacting the database would do.
    private func printPlan() throws {
        let report = try Output.reportingErrors { () throws -> CompactionReport in
            _ = try Output.openReadOnly(path, key: key)   // refuses what is not a database, checks every record
            let copy = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("strata-dry-run-\(UUID().uuidString)")
            try SystemErrors.io("create \(copy.path)") { try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: false) }
            defer { try? FileManager.default.removeItem(at: copy) }
            let names = try SystemErrors.io("read \(path)") { try FileManager.default.contentsOfDirectory(atPath: path) }
            for name in names where name != "LOCK" {
                try SystemErrors.io("copy \(name) of \(path)") {
                    try FileManager.default.copyItem(atPath: (path as NSString).appendingPathComponent(name), toPath: copy.appendingPathComponent(name).path)
                }
            }
            return try compact(copy.path)
        }
        print(report.didCompact ? "would compact (dry run, nothing written):" : "nothing to compact (dry run): no record")
        printFigures(of: report, reclaimed: "reclaims ")
    }
}
