#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The file-system seam: every byte the engine reads or writes goes through it.
///
/// Three implementations ship with StrataStorage:
/// - ``PosixFileSystem``: the real one (`open`, `pwrite`, `fsync`, `flock`, `mmap`).
/// - ``MemoryFileSystem``: files in memory that remember what was synced, and can produce the
///   state a crash would leave behind (for crash tests; the crash images and the other test
///   controls are `@_spi(Testing)`).
/// - `FaultInjectingFileSystem` (`@_spi(Testing)`): wraps another file system and makes chosen
///   operations fail (`EIO`, `ENOSPC`, a failed `fsync`, a short write).
///
/// Test code reaches the `@_spi(Testing)` parts with `@_spi(Testing) import StrataStorage`.
///
/// Paths are plain strings with `/` separators. Implementations are safe to use from any
/// thread.
public protocol FileSystem: Sendable {
    /// Opens (and, depending on `mode`, creates) a file.
    /// - Throws: ``StrataError`` `.notFound` when the file is missing and `mode` does not create
    ///   it, `.io` for any other failure.
    func open(_ path: String, mode: FileOpenMode) throws -> any StorageFile

    /// Whether a file or directory exists at `path`.
    func exists(_ path: String) -> Bool

    /// The names (not paths) of the entries of a directory, in no particular order.
    /// - Throws: ``StrataError`` `.notFound` or `.io`.
    func contentsOfDirectory(_ path: String) throws -> [String]

    /// Creates a directory and any missing parents. Succeeds if it already exists.
    /// - Throws: ``StrataError`` `.io`.
    func createDirectory(_ path: String) throws

    /// Removes a file.
    /// - Throws: ``StrataError`` `.notFound` or `.io`.
    func removeFile(_ path: String) throws

    /// Renames a file atomically, replacing `destination` if it exists.
    /// - Throws: ``StrataError`` `.notFound` or `.io`.
    func rename(_ source: String, to destination: String) throws

    /// Makes the directory's entries (creations, renames, removals) durable.
    /// - Throws: ``StrataError`` `.io`.
    func syncDirectory(_ path: String) throws

    /// Takes an exclusive, non-blocking lock on the file at `path` (created if missing).
    /// The lock is held until the returned object is released or ``FileLock/unlock()`` is called.
    /// - Throws: ``StrataError`` `.locked` at once when another holder has it, `.io` otherwise.
    func lock(_ path: String) throws -> any FileLock

    /// Whether a lock taken by ``lock(_:)`` on `path` is held now (by this process or
    /// another), found without taking it, so that asking never makes a ``lock(_:)`` fail.
    ///
    /// A read-only store asks it to know whether a writer is running. The default
    /// implementation answers false (unknown), which makes a follower read the log as it would
    /// without a writer.
    func isLockHeld(_ path: String) -> Bool
}

extension FileSystem {
    /// False: this file system cannot tell (see ``FileSystem/isLockHeld(_:)``).
    public func isLockHeld(_ path: String) -> Bool { false }
}

/// How ``FileSystem/open(_:mode:)`` opens a file.
public enum FileOpenMode: Sendable {
    /// Open an existing file for reading only.
    case readOnly
    /// Open an existing file for reading and writing.
    case readWrite
    /// Create a new file for reading and writing; fail if it exists.
    case createNew
    /// Create the file if it is missing, truncating nothing.
    case createOrOpen
}

/// An open file.
///
/// Reads and writes take an explicit offset (`pread`/`pwrite`), so one file can be read from
/// many threads while one writer appends. Implementations are safe to use from any thread;
/// concurrent writes to overlapping ranges are the caller's problem.
public protocol StorageFile: AnyObject, Sendable {
    /// The path the file was opened with.
    var path: String { get }

    /// The file's size in bytes.
    /// - Throws: ``StrataError`` `.io`.
    func size() throws -> Int

    /// Reads up to `buffer.count` bytes at `offset`; returns how many were read, fewer only at
    /// end of file. Interrupted reads are retried.
    /// - Throws: ``StrataError`` `.io`.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws -> Int

    /// The requirement behind `withBytes(at:count:_:)`: not generic, so that reading costs no
    /// runtime generic metadata in the implementations.
    /// - Throws: as `withBytes(at:count:_:)`.
    func visitBytes(
        at offset: Int, count: Int, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws

    /// Writes all of `bytes` at `offset`, extending the file if needed. Either all bytes are
    /// handed to the operating system or it throws; short writes and `EINTR` are retried.
    /// - Throws: ``StrataError`` `.io` (with `ENOSPC`, `EIO`, …).
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws

    /// Makes the file's data durable (`fsync`).
    /// - Throws: ``StrataError`` `.io`. After a failed sync the file's unsynced data is in an
    ///   unknown state; callers must not retry and trust the result.
    func sync() throws

    /// Sets the file's size, dropping bytes past `size`.
    /// - Throws: ``StrataError`` `.io`.
    func truncate(to size: Int) throws

    /// Closes the file. Further calls fail. Closing twice is harmless.
    /// - Throws: ``StrataError`` `.io`.
    func close() throws
}

/// An exclusive lock on a database directory, held until released.
public protocol FileLock: AnyObject, Sendable {
    /// Releases the lock. Releasing twice is harmless.
    func unlock()
}

extension StorageFile {
    /// Writes all of `bytes` at `offset`.
    /// - Throws: ``StrataError`` `.io`.
    public func write(_ bytes: [UInt8], at offset: Int) throws {
        try bytes.withUnsafeBytes { try write($0, at: offset) }
    }

    /// Reads exactly `count` bytes at `offset`, or throws if the file is shorter.
    /// - Throws: ``StrataError`` `.io` (`EINVAL` for a negative count).
    public func readExactly(_ count: Int, at offset: Int) throws -> [UInt8] {
        guard count >= 0 else {
            throw StrataError(.io, "cannot read \(count) bytes", file: path, offset: offset, errno: EINVAL)
        }
        return try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let n = try read(into: UnsafeMutableRawBufferPointer(buffer), at: offset)
            initialized = n
            if n != count {
                throw StrataError(
                    .io, "short read: wanted \(count) bytes, file has \(n)", file: path,
                    offset: offset)
            }
        }
    }

    /// Reads the whole file.
    /// - Throws: ``StrataError`` `.io`.
    public func readAll() throws -> [UInt8] {
        try readExactly(try size(), at: 0)
    }
}

/// Joins path components with `/`.
@inlinable
func joinPath(_ directory: String, _ name: String) -> String {
    directory.hasSuffix("/") ? directory + name : directory + "/" + name
}

extension StorageFile {
    /// Calls `body` with `count` bytes of the file starting at `offset`, without copying them
    /// where the implementation can (the POSIX one maps the file). The pointer is valid only
    /// inside `body`.
    /// - Throws: ``StrataError`` `.io` when the range is not inside the file or the
    ///   implementation returned without calling `body`, or what `body` throws.
    @inline(__always)
    func withBytes<R>(
        at offset: Int, count: Int, _ body: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R {
        var result: R?
        try visitBytes(at: offset, count: count) { result = try body($0) }
        guard let result else {
            throw StrataError(.io, "the file system returned from a read without the bytes", file: path, offset: offset)
        }
        return result
    }
}
