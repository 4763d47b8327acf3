import Foundation
import StrataStorage

extension Database {
    /// Writes a compacted copy of the database, as of this database's current version, into
    /// `directory`; as Realm's `writeCopy(toFile:encryptionKey:)`.
    ///
    /// A live database copies its latest commit (inside a write: the version the write started
    /// from, without its uncommitted changes); a frozen one copies the version it is pinned
    /// to. The copy holds only live objects (no overwritten versions, no deleted objects), and
    /// is a database of its own that opens with `encryptionKey`, whatever this database's key:
    /// a copy may encrypt, decrypt, or change the key.
    ///
    /// ```swift
    /// try db.writeCopy(toDirectory: backupURL, encryptionKey: nil)
    /// let backup = try Database(configuration: .init(directory: backupURL, objectTypes: [Dog.self]))
    /// ```
    ///
    /// The copy is complete and durable when this returns; a crash before then leaves no
    /// directory that opens as a database, and a thrown error leaves none of the files the
    /// copy created. `directory` is created when missing and must not hold a database. It is
    /// on the file system of the configuration's storage options (the disk, by default), for an
    /// in-memory database (``Configuration/inMemoryIdentifier``) too.
    ///
    /// Thread safety: a live database is called on the thread that uses it, a frozen one from
    /// any thread. Writers (in this process or others) go on meanwhile and never wait for the
    /// copy; what they commit after its version is not in it.
    ///
    /// - Parameters:
    ///   - directory: the directory of the copy.
    ///   - encryptionKey: the copy's 64-byte key, or nil for a copy that is not encrypted.
    /// - Throws: ``/StrataStorage/StrataError`` with code `.invalidKey` when `encryptionKey` is not 64 bytes
    ///   (nothing is written); `.invalidArgument` when `directory` already holds a database
    ///   (nothing there is changed); `.locked` when another open holds it; `.corruption` (naming
    ///   file and offset) when a record of this database fails its checks, and `.io`: the files
    ///   written so far are then removed.
    /// - Complexity: O(n + b) for the n live records (objects, index entries, backlinks) and
    ///   the b bytes they hold.
    public func writeCopy(toDirectory directory: URL, encryptionKey: Data?) throws {
        let version = freeze().snapshot
        try shared.store.writeCopy(
            of: version, toDirectory: directory.path, on: configuration.storageOptions.fileSystem,
            encryptionKey: encryptionKey.map(Array.init))
    }
}
