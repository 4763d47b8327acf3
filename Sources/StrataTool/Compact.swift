// `strata compact PATH`: reclaim the space of overwritten and deleted values.

import ArgumentParser
import StrataStorage

struct Compact: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rewrite a database's sealed segments without their dead records.",
        discussion: """
            Opens the database for writing (it takes the LOCK: no other process may have it \
            open), copies the live records of every sealed segment into compacted segments, \
            installs them, removes the old files and prints what it did. A crash at any point \
            leaves the database as it was before or after, never in between.

            \(ToolExit.help)
            """
    )

    @Argument(help: "The database directory.")
    var path: String

    @OptionGroup var key: KeyFileOption

    func run() throws {
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
}
