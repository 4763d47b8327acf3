// The child process of the SIGKILL tests: runs the seeded kill workload against a database in
// a real directory (durability .full) until it is killed or reaches its last commit.
//
//   StrataKillWriter DIRECTORY SEED SEGMENT-SIZE COMPACT-EVERY LAST-COMMIT [background]
//
// With `background`, the store's background compactor runs too, with an eager policy (a fifth
// of 16 sealed segments dead), besides the compactions every COMPACT-EVERY commits.
//
// It reopens the directory, reads the number k of the last commit it holds, rebuilds the
// workload's state after k commits without the database, and goes on from commit k + 1. One
// line per event goes to standard output, flushed at once:
//
//   R k            opened; the database holds commits 1…k
//   C i digest     commit i returned (`write` is durable); digest = KillState.digest after it
//   P i / p i      a compaction after commit i begins / ended
//   E message      a failure (the process then exits with status 1)
//
//   StrataKillWriter migrate DIRECTORY
//
// opens the directory at `KillMigration`'s version 2, migrating its version-1 items, and
// reports `M` before the open and `m` once it returned.

import Foundation
@_spi(Testing) import Strata
import StrataKillWorkload

/// Writes one line to standard output at once (unbuffered: a kill loses no reported line).
func report(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func run(_ arguments: [String]) throws {
    let background = arguments.count == 7 && arguments[6] == "background"
    guard arguments.count == 6 || background, let seed = UInt64(arguments[2]), let segmentSize = Int(arguments[3]),
        let compactEvery = Int(arguments[4]), let lastCommit = Int(arguments[5]), compactEvery > 0
    else {
        throw StrataError(.invalidArgument, "usage: StrataKillWriter DIRECTORY SEED SEGMENT-SIZE COMPACT-EVERY LAST-COMMIT [background]")
    }
    var configuration = Database.Configuration(
        directory: URL(fileURLWithPath: arguments[1]), objectTypes: killObjectTypes, durability: .full)
    configuration.storageOptions.segmentSize = segmentSize
    configuration.compaction = background
        ? .automatic(minimumDeadRatio: 0.2, minimumBytes: 16 * segmentSize) : .manual
    let db = try Database(configuration: configuration)
    let start = db.object(ofType: KillProgress.self, forPrimaryKey: 0)?.commit ?? 0
    var state = KillState.replayed(seed: seed, through: start)
    report("R \(start)")
    while state.commit < lastCommit {
        let operations = state.nextOperations(seed: seed)
        try KillDatabase.commit(operations, number: state.commit + 1, to: db)
        state.apply(operations)
        report("C \(state.commit) \(state.digest)")
        if state.commit % compactEvery == 0 {
            report("P \(state.commit)")
            try db.compact()
            report("p \(state.commit)")
        }
    }
}

do {
    if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "migrate" {
        report("M")
        _ = try Database(configuration: KillMigration.v2(URL(fileURLWithPath: CommandLine.arguments[2])))
        report("m")
    } else {
        try run(CommandLine.arguments)
    }
} catch {
    report("E \(error)")
    exit(1)
}
