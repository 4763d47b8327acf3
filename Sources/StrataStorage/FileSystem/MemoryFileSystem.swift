// MemoryFileSystem: files in memory, for tests and for a store that need not outlive its
// process. It remembers what was made durable (file syncs, directory syncs) so that
// `crashImage(_:)` can build the state a power loss would leave.
//
// Thread safety: all state sits behind one lock; every method may be called from any thread at
// once. Sync hooks run outside the lock, so a hook may call back into the file system (for
// example to take a crash image). `withBytes` bodies run outside the lock on a copy-on-write
// snapshot, so readers never block writers and a body may even call back into the file system.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An in-memory ``FileSystem`` that can simulate a power loss.
///
/// Every file keeps its *durable* contents (as of its last ``StorageFile/sync()``) and the
/// writes and truncates since. Directory entries are tracked the same way: creations, removals
/// and renames become durable only through ``syncDirectory(_:)`` on the directory concerned
/// (syncing a file does not make its name durable). Directories themselves are durable as soon
/// as ``createDirectory(_:)`` returns.
///
/// The type and its ``FileSystem`` conformance are public: a store may run in memory. Its test
/// controls are `@_spi(Testing)`, seen only through `@_spi(Testing) import StrataStorage`:
/// `crashImage(_:)` returns a new file system with what a power loss right now would leave,
/// under a `CrashPolicy`; `setSyncHook(_:)`, `syncCount`, `contents(of:)`,
/// `corrupt(path:at:with:)` and `setContents(_:of:)` watch syncs and reach into file contents.
///
/// Opening a file requires its directory to exist, as on a real file system. Paths are
/// normalized (`a//b/` is `a/b`).
public final class MemoryFileSystem: FileSystem, @unchecked Sendable {
    /// What a sync hook (`setSyncHook(_:)`) is told before a sync takes effect.
    /// `@_spi(Testing)`.
    @_spi(Testing) public struct SyncEvent: Sendable, Equatable {
        /// The sync's number, starting at 1 (file and directory syncs share the count).
        @_spi(Testing) public let number: Int
        /// The file or directory being synced.
        @_spi(Testing) public let path: String
        /// Whether this is a ``MemoryFileSystem/syncDirectory(_:)``.
        @_spi(Testing) public let isDirectory: Bool
    }

    private let mutex = Locked<Void>(())
    /// Guarded by `mutex`: only touched inside `locked`.
    private var state = MemoryFileSystemState()

    /// Makes an empty file system.
    public init() {}

    init(state: MemoryFileSystemState) { self.state = state }

    /// Runs `body` with the state while holding the lock.
    func locked<R, E: Error>(_ body: (inout MemoryFileSystemState) throws(E) -> R) throws(E) -> R {
        var result: Result<R, E>?
        mutex.withLock { _ in
            result = Result { () throws(E) -> R in try body(&state) }
        }
        return try result!.get()
    }

    // MARK: - FileSystem

    /// Opens a file.
    /// - Throws: ``StrataError`` `.notFound` when it (or its directory) is missing, `.io` with
    ///   `EEXIST` for `.createNew` on an existing file, `EISDIR` for a directory.
    public func open(_ path: String, mode: FileOpenMode) throws -> any StorageFile {
        let path = MemoryPath.normalize(path)
        let (handle, inode) = try locked { state throws(StrataError) -> (Int, Int) in
            let inode = try Self.lookupOrCreate(path, create: mode, in: &state)
            let handle = state.nextHandle
            state.nextHandle += 1
            state.openHandles[handle] = inode
            return (handle, inode)
        }
        return MemoryFile(
            fileSystem: self, path: path, handle: handle, inode: inode,
            writable: mode != .readOnly)
    }

    /// Whether a file or directory exists at `path`.
    public func exists(_ path: String) -> Bool {
        let path = MemoryPath.normalize(path)
        return locked { $0.entries[path] != nil || $0.directoryExists(path) }
    }

    /// The names of the files and directories directly inside `path`.
    /// - Throws: ``StrataError`` `.notFound` when the directory does not exist.
    public func contentsOfDirectory(_ path: String) throws -> [String] {
        let path = MemoryPath.normalize(path)
        return try locked { state throws(StrataError) -> [String] in
            guard state.directoryExists(path) else {
                throw posixError("opendir", path: path, errno: ENOENT)
            }
            let children = Array(state.entries.keys) + Array(state.directories)
            return children.filter { MemoryPath.parent(of: $0) == path && $0 != path }
                .map(MemoryPath.name(of:))
        }
    }

    /// Creates a directory and its parents; they are durable at once.
    /// - Throws: ``StrataError`` `.io` with `ENOTDIR` when a file is in the way.
    public func createDirectory(_ path: String) throws {
        let path = MemoryPath.normalize(path)
        try locked { state throws(StrataError) in
            var ancestor = path
            while !ancestor.isEmpty && ancestor != "/" {
                if state.entries[ancestor] != nil {
                    throw StrataError.io("mkdir", path: ancestor, errno: ENOTDIR)
                }
                ancestor = MemoryPath.parent(of: ancestor)
            }
            Self.addDirectories(path, to: &state)
        }
    }

    /// Removes a file's entry (open handles keep working). Not durable until
    /// ``syncDirectory(_:)``.
    /// - Throws: ``StrataError`` `.notFound`, or `.io` with `EISDIR` for a directory.
    public func removeFile(_ path: String) throws {
        let path = MemoryPath.normalize(path)
        try locked { state throws(StrataError) in
            guard let inode = state.entries[path] else {
                if state.directoryExists(path) {
                    throw StrataError.io("unlink", path: path, errno: EISDIR)
                }
                throw posixError("unlink", path: path, errno: ENOENT)
            }
            state.entries[path] = nil
            state.pendingDirectoryOperations.append(.remove(path: path, inode: inode))
        }
    }

    /// Renames a file atomically, replacing `destination`. Not durable until
    /// ``syncDirectory(_:)`` on the directories concerned.
    /// - Throws: ``StrataError`` `.notFound` when `source` or the destination's directory is
    ///   missing, `.io` with `EISDIR` when `destination` is a directory.
    public func rename(_ source: String, to destination: String) throws {
        let source = MemoryPath.normalize(source)
        let destination = MemoryPath.normalize(destination)
        try locked { state throws(StrataError) in
            let operation = "rename to \(destination)"
            guard let inode = state.entries[source] else {
                throw posixError(operation, path: source, errno: ENOENT)
            }
            guard state.directoryExists(MemoryPath.parent(of: destination)) else {
                throw posixError(operation, path: destination, errno: ENOENT)
            }
            if state.directoryExists(destination) {
                throw StrataError.io(operation, path: destination, errno: EISDIR)
            }
            if source == destination { return }
            state.entries[source] = nil
            state.entries[destination] = inode
            state.pendingDirectoryOperations.append(
                .rename(from: source, to: destination, inode: inode))
        }
    }

    /// Makes the directory's entries durable (counts as a sync; the hook runs first).
    /// - Throws: ``StrataError`` `.notFound` when the directory is missing, or what the sync
    ///   hook throws.
    public func syncDirectory(_ path: String) throws {
        let path = MemoryPath.normalize(path)
        try performSync(path: path, isDirectory: true) { state throws(StrataError) in
            guard state.directoryExists(path) else {
                throw posixError("open directory", path: path, errno: ENOENT)
            }
        } apply: { state in
            state.commitDirectory(path)
        }
    }

    /// Takes an in-memory exclusive lock on `path`, creating the file if missing.
    /// - Throws: ``StrataError`` `.locked` while another lock on the path is held, `.notFound`
    ///   when its directory is missing.
    public func lock(_ path: String) throws -> any FileLock {
        let path = MemoryPath.normalize(path)
        try locked { state throws(StrataError) in
            if state.locks.contains(path) {
                throw StrataError(
                    .locked, "the database is locked by another process (or another open store "
                        + "in this process); close it first", file: path)
            }
            _ = try Self.lookupOrCreate(path, create: .createOrOpen, in: &state)
            state.locks.insert(path)
        }
        return MemoryFileLock(fileSystem: self, path: path)
    }

    /// Whether ``lock(_:)`` on `path` is held now.
    public func isLockHeld(_ path: String) -> Bool {
        let path = MemoryPath.normalize(path)
        return locked { $0.locks.contains(path) }
    }

    // MARK: - Internals shared with MemoryFile

    /// Runs a sync: counts it and takes the hook under the lock, runs `check`, calls the hook
    /// outside the lock, then applies the effect under the lock.
    func performSync(
        path: String, isDirectory: Bool,
        check: (inout MemoryFileSystemState) throws(StrataError) -> Void,
        apply: (inout MemoryFileSystemState) -> Void
    ) throws {
        let (number, hook) = try locked {
            state throws(StrataError) -> (Int, (@Sendable (SyncEvent) throws -> Void)?) in
            try check(&state)
            state.syncCount += 1
            return (state.syncCount, state.syncHook)
        }
        try hook?(SyncEvent(number: number, path: path, isDirectory: isDirectory))
        try locked { state throws(StrataError) in
            try check(&state)
            apply(&state)
        }
    }

    /// Writes `bytes` into `contents` at `offset`, zero-filling any gap.
    static func overwrite(_ contents: inout [UInt8], at offset: Int, with bytes: ArraySlice<UInt8>) {
        if bytes.isEmpty { return }
        let end = offset + bytes.count
        if contents.count < end {
            contents.append(contentsOf: repeatElement(0, count: end - contents.count))
        }
        contents.replaceSubrange(offset..<end, with: bytes)
    }

    static func addDirectories(_ path: String, to state: inout MemoryFileSystemState) {
        var directory = path
        while !directory.isEmpty && directory != "/" {
            state.directories.insert(directory)
            directory = MemoryPath.parent(of: directory)
        }
    }

    private static func lookupOrCreate(
        _ path: String, create mode: FileOpenMode, in state: inout MemoryFileSystemState
    ) throws(StrataError) -> Int {
        if state.directoryExists(path) {
            throw StrataError.io("open", path: path, errno: EISDIR)
        }
        if let inode = state.entries[path] {
            if mode == .createNew { throw StrataError.io("open", path: path, errno: EEXIST) }
            return inode
        }
        guard mode == .createNew || mode == .createOrOpen,
            state.directoryExists(MemoryPath.parent(of: path))
        else {
            throw posixError("open", path: path, errno: ENOENT)
        }
        let inode = state.newInode()
        state.link(path, inode: inode)
        return inode
    }
}
