// The check every command makes of its database path before opening anything: a directory of
// another program's files is "not a Strata database" (exit 4), never "corruption", and no
// command takes a LOCK in it or writes anything there.

@_spi(Tooling) import StrataStorage

enum DatabasePath {
    /// Throws unless `path` holds a Strata database.
    /// - Throws: ``StrataError`` `.notFound` (exit 4) naming the path when it is missing, a
    ///   file, an empty directory or one holding other files; `.io` when it cannot be listed.
    static func requireDatabase(_ path: String) throws {
        let contents = try Store.contents(of: path)
        guard contents == .store else { throw notADatabase(path, contents) }
    }

    /// Checks that a command may create a database at `path` or add to the one there; returns
    /// whether it is new (nothing, or an empty directory, is there).
    /// - Throws: ``StrataError`` `.notFound` (exit 4) when `path` is a file or a directory
    ///   holding files that are not a Strata database's; `.io` when it cannot be listed.
    static func requireNewOrDatabase(_ path: String) throws -> Bool {
        switch try Store.contents(of: path) {
        case .missing, .empty: return true
        case .store: return false
        case let other: throw notADatabase(path, other)
        }
    }

    private static func notADatabase(_ path: String, _ contents: Store.DirectoryContents) -> StrataError {
        switch contents {
        case .missing:
            StrataError(.notFound, "no Strata database at \(path): No such file or directory", file: path)
        case .notADirectory:
            StrataError(.notFound, "\(path) is not a Strata database: it is a file, and a database is a directory", file: path)
        case .empty:
            StrataError(.notFound, "no Strata database at \(path): the directory is empty", file: path)
        case .store, .otherFiles:
            StrataError(.notFound, "\(path) is not a Strata database: its files (no Strata MANIFEST or segment) are another program's", file: path)
        }
    }
}
