// PosixFile: an open file descriptor behind the `StorageFile` protocol (pread/pwrite, fsync,
// ftruncate, fstat, and zero-copy reads through a growing read-only mmap).
//
// Thread safety: all methods may be called from any thread at once (many readers and one writer
// appending is the intended use). Mutable state (closed flag, known size, mappings) sits in one
// `Locked` mutex; reads and writes run outside it. Closing the file while other threads still use it
// (or still run a `withBytes` body) is the caller's bug: the descriptor and mappings go away.
// Only size changes made through this object or seen by `fstat` are known: another process
// shrinking the file under a mapped reader can still fault it, and so can a disk error on a
// mapped page (SIGBUS). Files opened with `mapped: false` read with `pread` instead, where both
// are a thrown error.
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file opened by ``PosixFileSystem``.
final class PosixFile: StorageFile {
    /// The path the file was opened with.
    let path: String
    private let fd: Int32
    /// Whether ``visitBytes(at:count:_:)`` maps the file (or reads with `pread`).
    private let mapped: Bool
    private let state: Locked<State>

    /// The smallest virtual size mapped for ``withBytes(at:count:_:)``.
    static let minimumMapCapacity = 64 << 20

    /// The mapping's address and how many bytes of it are known to be inside the file, published
    /// by the locked path so that reads inside that range need no lock. Old mappings stay mapped
    /// until `close`, so a reader holding an older pair still reads valid memory. Reset to zero
    /// by `truncate` and `close`.
    private let readableView = Atomic<WordPair>(WordPair(first: 0, second: 0))

    private struct State {
        var closed = false
        /// The file size as far as this process knows (updated by writes, truncates and fstat).
        var knownSize: Int
        /// Address and length of the newest (largest) mapping; 0 when nothing is mapped yet.
        var mapAddress: UInt = 0
        var mapCapacity = 0
        /// Every mapping made so far; older ones stay alive for readers still using them.
        var mappings: [(address: UInt, length: Int)] = []
    }

    /// Wraps an open descriptor; the file takes ownership of it.
    /// - Throws: ``StrataError`` `.io` when `fstat` fails.
    init(path: String, descriptor: Int32, mapped: Bool = true) throws {
        self.path = path
        self.fd = descriptor
        self.mapped = mapped
        let size = try Self.fstatSize(descriptor, path: path)
        self.state = Locked(State(knownSize: size))
    }

    deinit {
        state.withLock { state in
            if !state.closed {
                state.closed = true
                Self.unmapAll(&state)
                _ = Glibc.close(fd)
            }
        }
    }

    /// The size from `fstat`.
    /// - Throws: ``StrataError`` `.io`.
    func size() throws -> Int {
        try checkOpen("fstat")
        let size = try Self.fstatSize(fd, path: path)
        state.withLock { $0.knownSize = size }
        return size
    }

    /// `pread` until `buffer` is full or end of file; `EINTR` is retried.
    /// - Throws: ``StrataError`` `.io`.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws -> Int {
        try checkOpen("pread")
        guard let base = buffer.baseAddress else { return 0 }
        var done = 0
        while done < buffer.count {
            let (n, code) = retryingOnInterrupt { pread(fd, base + done, buffer.count - done, off_t(offset + done)) }
            if n > 0 {
                done += n
            } else if n == 0 {
                break
            } else {
                throw StrataError(.io, "pread failed", file: path, offset: offset, errno: code)
            }
        }
        return done
    }

    /// Maps the file (`PROT_READ`, `MAP_SHARED`) and calls `body` with the requested bytes.
    /// The range must lie inside the file; bytes past end of file are never touched.
    /// - Throws: ``StrataError`` `.io` ("read past end of file", or a failed `mmap`), or what
    ///   `body` throws.
    func visitBytes(
        at offset: Int, count: Int, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        guard offset >= 0, count >= 0, offset <= Int.max - count else {
            throw StrataError(.io, "invalid range: \(count) bytes", file: path, offset: offset,
                              errno: EINVAL)
        }
        guard mapped else { return try visitCopiedBytes(at: offset, count: count, body) }
        let end = offset + count
        if count > 0 {
            let view = readableView.load(ordering: .acquiring)
            if view.first != 0, end <= Int(view.second) {
                return try body(UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: view.first)! + offset, count: count))
            }
        }
        let address: UInt = try state.withLock { state throws(StrataError) -> UInt in
            guard !state.closed else { throw Self.closedError("mmap", path) }
            if end > state.knownSize {
                state.knownSize = try Self.fstatSize(fd, path: path)
                if end > state.knownSize {
                    throw StrataError(
                        .io, "read past end of file: \(count) bytes wanted, file has "
                            + "\(state.knownSize)",
                        file: path, offset: offset, errno: EINVAL)
                }
            }
            if count == 0 { return 0 }
            if end > state.mapCapacity { try remap(&state, covering: end) }
            readableView.store(
                WordPair(first: state.mapAddress, second: UInt(min(state.knownSize, state.mapCapacity))),
                ordering: .releasing)
            return state.mapAddress
        }
        if count == 0 { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        let start = UnsafeRawPointer(bitPattern: address)! + offset
        return try body(UnsafeRawBufferPointer(start: start, count: count))
    }

    /// The unmapped ``visitBytes(at:count:_:)``: reads the range with `pread` into a buffer.
    /// A file shorter than the range (truncated by another process) is an error, never a fault.
    private func visitCopiedBytes(
        at offset: Int, count: Int, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let bytes = try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = try read(into: UnsafeMutableRawBufferPointer(buffer), at: offset)
        }
        guard bytes.count == count else {
            throw StrataError(
                .io, "read past end of file: \(count) bytes wanted, file ends at byte \(offset + bytes.count) "
                    + "(cut short since it was read?)",
                file: path, offset: offset, errno: EINVAL)
        }
        try bytes.withUnsafeBytes(body)
    }

    /// `pwrite` until every byte is written; short writes and `EINTR` are retried.
    /// - Throws: ``StrataError`` `.io` (`ENOSPC`, `EIO`, …, or `EIO` when `pwrite` writes
    ///   nothing); bytes before the failure may have been written.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws {
        try checkOpen("pwrite")
        guard offset >= 0, offset <= Int.max - bytes.count else {
            throw StrataError(.io, "pwrite of \(bytes.count) bytes at an invalid offset", file: path, offset: offset, errno: EINVAL)
        }
        var done = 0
        defer {
            let end = offset + done
            state.withLock { $0.knownSize = max($0.knownSize, end) }
        }
        guard let base = bytes.baseAddress else { return }
        try Self.writeAll(count: bytes.count, at: offset, path: path, written: &done) { done in
            pwrite(fd, base + done, bytes.count - done, off_t(offset + done))
        }
    }

    /// Calls `attempt` (a `pwrite` of the bytes from `written` on, returning its result) until
    /// `count` bytes are written. `EINTR` is retried; a short write goes on from where it
    /// stopped; a write of zero bytes is an error (the device takes nothing, and retrying would
    /// loop forever).
    /// - Throws: ``StrataError`` `.io` with the `errno`, or `EIO` for a write of zero bytes.
    static func writeAll(
        count: Int, at offset: Int, path: String, written: inout Int, _ attempt: (_ written: Int) -> Int
    ) throws {
        while written < count {
            let (n, code) = retryingOnInterrupt { attempt(written) }
            if n > 0 {
                written += n
            } else if n == 0 {
                throw StrataError(
                    .io, "pwrite wrote 0 of \(count - written) bytes", file: path, offset: offset + written, errno: EIO)
            } else {
                throw StrataError(.io, "pwrite failed", file: path, offset: offset + written, errno: code)
            }
        }
    }

    /// `fsync`, retried on `EINTR`.
    /// - Throws: ``StrataError`` `.io`.
    func sync() throws {
        try checkOpen("fsync")
        try fsyncRetrying(fd, path: path)
    }

    /// `ftruncate` to `size`.
    /// - Throws: ``StrataError`` `.io`.
    func truncate(to size: Int) throws {
        try checkOpen("ftruncate")
        let (result, code) = retryingOnInterrupt { ftruncate(fd, off_t(size)) }
        if result != 0 { throw StrataError.io("ftruncate", path: path, errno: code) }
        state.withLock {
            $0.knownSize = size
            readableView.store(WordPair(first: 0, second: 0), ordering: .releasing)
        }
    }

    /// Unmaps everything and closes the descriptor. Closing twice is harmless.
    /// - Throws: ``StrataError`` `.io` when `close(2)` reports an error.
    func close() throws {
        let wasOpen = state.withLock { state in
            if state.closed { return false }
            state.closed = true
            readableView.store(WordPair(first: 0, second: 0), ordering: .releasing)
            Self.unmapAll(&state)
            return true
        }
        // Never retry close(2) on Linux: the descriptor is released even when it fails.
        if wasOpen && Glibc.close(fd) != 0 {
            throw StrataError.io("close", path: path, errno: currentErrno())
        }
    }

    // MARK: - Private

    private func checkOpen(_ operation: String) throws {
        if state.withLock({ $0.closed }) { throw Self.closedError(operation, path) }
    }

    private static func closedError(_ operation: String, _ path: String) -> StrataError {
        StrataError(.io, "\(operation) failed: the file is closed", file: path, errno: EBADF)
    }

    private static func fstatSize(_ fd: Int32, path: String) throws(StrataError) -> Int {
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw StrataError.io("fstat", path: path, errno: currentErrno())
        }
        return Int(info.st_size)
    }

    /// Maps a larger window; the old mapping stays until close.
    private func remap(_ state: inout State, covering end: Int) throws(StrataError) {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        var capacity = max(Self.minimumMapCapacity, state.mapCapacity * 2)
        let wanted = max(end, state.knownSize)
        while capacity < wanted { capacity *= 2 }
        capacity = (capacity + page - 1) / page * page
        guard let pointer = mmap(nil, capacity, PROT_READ, MAP_SHARED, fd, 0),
            Int(bitPattern: pointer) != -1
        else {
            throw StrataError.io("mmap", path: path, errno: currentErrno())
        }
        let address = UInt(bitPattern: pointer)
        state.mappings.append((address, capacity))
        state.mapAddress = address
        state.mapCapacity = capacity
    }

    private static func unmapAll(_ state: inout State) {
        for mapping in state.mappings {
            _ = munmap(UnsafeMutableRawPointer(bitPattern: mapping.address), mapping.length)
        }
        state.mappings = []
        state.mapAddress = 0
        state.mapCapacity = 0
    }
}
