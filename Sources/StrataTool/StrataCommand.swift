// `strata`: the command-line tool of Strata. One file per subcommand (Verify, Stats, Compact,
// Schema, Inspect, Export, Import, Dump, Salvage, Demo); shared helpers in Output.swift,
// Progress.swift, StoredDatabase.swift and ExportFiles.swift.

import ArgumentParser

@main
struct StrataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Check, inspect and try out Strata databases.",
        discussion: """
            A Strata database is a directory holding a MANIFEST and segment files (000001.seg, …). \
            `verify`, `stats`, `schema`, `inspect`, `export`, `dump` and `salvage` open it read-only: they take no lock and change nothing on disk.

            \(ToolExit.help)
            """,
        subcommands: [Verify.self, Stats.self, Compact.self, Schema.self, Inspect.self, Export.self, Import.self, Dump.self, Salvage.self, Demo.self]
    )
}
