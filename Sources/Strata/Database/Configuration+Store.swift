import Foundation
import StrataStorage

// Where a configuration's store lives before it opens: in the process's memory under an
// identifier, or in a directory, copied from a seed (DatabaseSeed.swift) when it holds no
// database yet; and the default directory and configuration `Database()` opens.

extension Database.Configuration {
    /// The default database directory: `default` in this program's folder of the user's data
    /// directory (`$XDG_DATA_HOME`, else `~/.local/share`), e.g.
    /// `~/.local/share/myapp/default`. As Realm's `default.realm`.
    public static var defaultDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
        return data.appendingPathComponent(ProcessInfo.processInfo.processName).appendingPathComponent("default")
    }

    /// The configuration ``Database/init(isolation:)`` opens, as Realm's `defaultConfiguration`: the
    /// ``defaultDirectory`` and no classes until the program sets them (Linux has no runtime
    /// that lists a program's model classes).
    ///
    /// Thread-safe: reads and writes are serialized.
    public static var defaultConfiguration: Database.Configuration {
        get { defaultStorage.withLock { $0 } }
        set { defaultStorage.withLock { $0 = newValue } }
    }

    private static let defaultStorage = Locked(Database.Configuration(objectTypes: []))

    /// Points `options` at the store this configuration names and returns its directory: an
    /// in-memory file system shared by the identifier, or the directory, seeded first when
    /// ``seedFilePath`` is set and it holds no database.
    /// - Throws: ``/StrataStorage/StrataError`` `.io` when the seed cannot be copied, `.notFound` when it
    ///   does not exist, `.invalidArgument` when the directory holds files but no database
    ///   (nothing is copied or deleted).
    func prepareStore(_ options: inout Store.Options) throws -> String {
        if let inMemoryIdentifier {
            options.fileSystem = InMemoryDatabases.fileSystem(for: inMemoryIdentifier)
            return "/db"
        }
        if let seedFilePath, !options.readOnly { try DatabaseSeed.copy(seedFilePath, into: directory) }
        return directory.path
    }
}

/// The file systems of in-memory databases, by identifier, while a database of it is open.
enum InMemoryDatabases {
    private struct WeakFileSystem { weak var value: MemoryFileSystem? }
    private static let open = Locked<[String: WeakFileSystem]>([:])

    /// The file system of the in-memory databases named `identifier`: the one an open
    /// database of that name uses, else a new, empty one.
    static func fileSystem(for identifier: String) -> MemoryFileSystem {
        open.withLock { open in
            if let existing = open[identifier]?.value { return existing }
            open = open.filter { $0.value.value != nil }
            let fileSystem = MemoryFileSystem()
            open[identifier] = WeakFileSystem(value: fileSystem)
            return fileSystem
        }
    }
}
