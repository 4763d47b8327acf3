// `strata salvage PATH --out NEW`: copy what a damaged database can still give into a new one.

import ArgumentParser
@_spi(Tooling) import StrataStorage

struct Salvage: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy every readable committed transaction of a damaged database into a new database.",
        discussion: """
            Opens the database read-only in salvage mode: each segment is read up to its first \
            damage, and every transaction committed before it is kept (a missing MANIFEST is \
            replaced by the segments found). Prints what was skipped as notes, then writes a \
            compacted copy of what was read into --out (created when missing; it must be empty), \
            encrypted with the same key when --key-file is given. Nothing in PATH changes.

            Exits 0 when the copy is written, even when damage was skipped (the notes say \
            where); `strata verify --deep` on the copy then checks its objects.

            \(ToolExit.help)
            """
    )

    @Argument(help: "The damaged database directory.")
    var path: String

    @Option(help: "The directory of the new database (created when missing; must be empty).")
    var out: String

    @OptionGroup var key: KeyFileOption

    func run() throws {
        let statistics = try Output.reportingErrors { () throws -> StoreStatistics in
            try DatabasePath.requireDatabase(path)
            guard [.missing, .empty].contains(try Store.contents(of: out)) else {
                throw StrataError(.invalidArgument, "\(out) exists and is not an empty directory; choose another --out")
            }
            var options = Store.Options()
            options.readOnly = true
            options.salvage = true
            options.encryptionKey = try key.key()
            let store = try Store(directory: path, options: options)
            Output.printNotes(store.recoveryEvents)
            try store.writeCopy(toDirectory: out, encryptionKey: options.encryptionKey)
            return store.statistics()
        }
        print("salvaged \(Format.counted(statistics.keys, "key")) (last sequence \(Format.count(statistics.sequence))) into \(out)")
    }
}
