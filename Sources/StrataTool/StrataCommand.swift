// `strata`: the command-line tool of Strata. One file per subcommand (Verify.swift, Compact.swift,
// Stats.swift, Demo.swift); shared helpers in Output.swift.

import ArgumentParser

@main
struct StrataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata",
        abstract: "Check, inspect and try out Strata databases.",
        discussion: """
            A Strata database is a directory holding a MANIFEST and segment files (000001.seg, …). \
            `verify` and `stats` open it read-only: they take no lock and change nothing on disk.

            \(ToolExit.help)
            """,
        subcommands: [Verify.self, Stats.self, Compact.self, Demo.self]
    )
}
