// MemoryFile and MemoryFileLock: the open files and locks handed out by MemoryFileSystem.
//
// Thread safety: every operation runs under the file system's lock. `withBytes` takes a
// copy-on-write snapshot of the contents under the lock and calls its body outside it, so the
// body sees a stable view and concurrent writers are not blocked (they copy instead).
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file opened from a ``MemoryFileSystem``. Writes and truncates are recorded as unsynced
/// until ``sync()``.
final class MemoryFile: StorageFile {
    /// The (normalized) path the file was opened with.
    let path: String
    private let fileSystem: MemoryFileSystem
    private let handle: Int
    private let inode: Int
    private let writable: Bool

    init(fileSystem: MemoryFileSystem, path: String, handle: Int, inode: Int, writable: Bool) {
        self.fileSystem = fileSystem
        self.path = path
        self.handle = handle
        self.inode = inode
        self.writable = writable
    }

    deinit {
        let handle = handle
        fileSystem.locked { state in state.openHandles[handle] = nil }
    }

    /// The current size.
    /// - Throws: ``StrataError`` `.io` (`EBADF`) after close.
    func size() throws -> Int {
        try withInode("fstat") { $0.current.count }
    }

    /// Copies up to `buffer.count` bytes at `offset`.
    /// - Throws: ``StrataError`` `.io` (`EBADF`) after close.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws -> Int {
        let path = path
        return try withInode("pread") { inode throws(StrataError) -> Int in
            guard offset >= 0 else { throw StrataError.io("pread", path: path, errno: EINVAL) }
            guard offset < inode.current.count, !buffer.isEmpty else { return 0 }
            let count = min(buffer.count, inode.current.count - offset)
            inode.current.withUnsafeBytes { source in
                buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: source[offset..<offset + count]))
            }
            return count
        }
    }

    /// Calls `body` with a snapshot of the requested bytes (no copy unless a writer changes
    /// the file meanwhile).
    /// - Throws: ``StrataError`` `.io` when the range is not inside the file or the file is
    ///   closed, or what `body` throws.
    func visitBytes(
        at offset: Int, count: Int, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let path = path
        let snapshot = try withInode("mmap") { inode throws(StrataError) -> [UInt8] in
            guard offset >= 0, count >= 0, offset <= inode.current.count - count else {
                throw StrataError(
                    .io, "read past end of file: \(count) bytes wanted, file has "
                        + "\(inode.current.count)",
                    file: path, offset: offset, errno: EINVAL)
            }
            return inode.current
        }
        if count == 0 { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try snapshot.withUnsafeBytes { raw in
            try body(UnsafeRawBufferPointer(rebasing: raw[offset..<offset + count]))
        }
    }

    /// Writes all of `bytes` at `offset` (zero-filling any gap); unsynced until ``sync()``.
    /// - Throws: ``StrataError`` `.io` (`EBADF`) after close or on a read-only file.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws {
        let data = [UInt8](bytes)
        let path = path
        try withInode("pwrite", writing: true) { inode throws(StrataError) in
            guard offset >= 0 else { throw StrataError.io("pwrite", path: path, errno: EINVAL) }
            MemoryFileSystem.overwrite(&inode.current, at: offset, with: data[...])
            inode.pending.append(.write(offset: offset, bytes: data))
        }
    }

    /// Makes the contents durable (the sync hook runs first and may make it fail). The file's
    /// name is not made durable; that takes ``MemoryFileSystem/syncDirectory(_:)``.
    /// - Throws: ``StrataError`` `.io` after close, or what the sync hook throws.
    func sync() throws {
        let inodeID = inode
        try fileSystem.performSync(path: path, isDirectory: false) { state throws(StrataError) in
            try self.checkOpen("fsync", state)
        } apply: { state in
            state.inodes[inodeID]!.durable = state.inodes[inodeID]!.current
            state.inodes[inodeID]!.pending = []
        }
    }

    /// Sets the size, dropping bytes or adding zeros; unsynced until ``sync()``.
    /// - Throws: ``StrataError`` `.io` after close, on a read-only file, or for a negative size.
    func truncate(to size: Int) throws {
        let path = path
        try withInode("ftruncate", writing: true) { inode throws(StrataError) in
            guard size >= 0 else { throw StrataError.io("ftruncate", path: path, errno: EINVAL) }
            if size < inode.current.count {
                inode.current.removeLast(inode.current.count - size)
            } else {
                inode.current.append(contentsOf: repeatElement(0, count: size - inode.current.count))
            }
            inode.pending.append(.truncate(size: size))
        }
    }

    /// Closes the file; later operations throw. Closing twice is harmless.
    func close() throws {
        let handle = handle
        fileSystem.locked { state in state.openHandles[handle] = nil }
    }

    private func checkOpen(_ operation: String, _ state: MemoryFileSystemState) throws(StrataError) {
        guard state.openHandles[handle] != nil else {
            throw StrataError(.io, "\(operation) failed: the file is closed", file: path,
                              errno: EBADF)
        }
    }

    private func withInode<R>(
        _ operation: String, writing: Bool = false,
        _ body: (inout MemoryInode) throws(StrataError) -> R
    ) throws(StrataError) -> R {
        try fileSystem.locked { state throws(StrataError) -> R in
            try checkOpen(operation, state)
            if writing && !writable {
                throw StrataError(.io, "\(operation) failed: the file is open read-only",
                                  file: path, errno: EBADF)
            }
            return try body(&state.inodes[inode]!)
        }
    }
}

/// An in-memory exclusive lock; released by ``unlock()`` or when the object goes away.
final class MemoryFileLock: FileLock {
    private let fileSystem: MemoryFileSystem
    private let path: String
    private let released = Locked(false)

    init(fileSystem: MemoryFileSystem, path: String) {
        self.fileSystem = fileSystem
        self.path = path
    }

    /// Releases the lock. Releasing twice is harmless.
    func unlock() {
        let wasHeld = released.withLock { released in
            defer { released = true }
            return !released
        }
        if wasHeld {
            let path = path
            fileSystem.locked { state in _ = state.locks.remove(path) }
        }
    }

    deinit { unlock() }
}
