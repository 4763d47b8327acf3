// PosixFileSystem: the real file system, over Linux system calls (open, pread/pwrite, fsync,
// flock, mmap, rename, …).
//
// Thread safety: `PosixFileSystem` is a stateless value; every method is safe to call from any
// thread at the same time. The files it opens are documented in PosixFile.swift.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The real file system: files on disk through POSIX system calls.
///
/// Files are opened with `O_CLOEXEC`, written with `pwrite` (short writes and `EINTR` retried),
/// made durable with `fsync`, and read either without copying through `mmap` (the default) or
/// with `pread` into a buffer (``mappedReads`` false). ``lock(_:)`` takes a `flock` and an
/// open-file-description record lock (`F_OFD_SETLK`), which ``isLockHeld(_:)`` asks about.
///
/// Mapped reads are fast but not safe against everything: a read of a mapped page that the
/// disk fails to deliver (`EIO`), or that another process truncated away, raises `SIGBUS`.
/// With ``mappedReads`` false such reads throw ``StrataError`` `.io` instead. A read-only
/// ``Store`` always reads with `pread`, because it takes no lock and a writer in another
/// process may truncate the newest segment under it.
///
/// Creating, removing or renaming a file does **not** make the change durable: the caller must
/// call ``syncDirectory(_:)`` on the directory (both directories, for a rename across two) once
/// it needs the change to survive a power loss. The storage engine does this itself.
public struct PosixFileSystem: FileSystem {
    /// Whether files are read through `mmap` (true) or `pread` (false).
    public let mappedReads: Bool

    /// Makes the file system. It holds no state but the read mode.
    /// - Parameter mappedReads: read through `mmap` (default) or, when false, with `pread`.
    public init(mappedReads: Bool = true) {
        self.mappedReads = mappedReads
    }

    /// Opens a file with `open(2)`; created files get mode `0644`.
    /// - Throws: ``StrataError`` `.notFound` when the file is missing (and `mode` does not create
    ///   it), `.io` with the `errno` for any other failure (`EEXIST` for `.createNew` on an
    ///   existing file).
    public func open(_ path: String, mode: FileOpenMode) throws -> any StorageFile {
        let flags: Int32
        switch mode {
        case .readOnly: flags = O_RDONLY
        case .readWrite: flags = O_RDWR
        case .createNew: flags = O_RDWR | O_CREAT | O_EXCL
        case .createOrOpen: flags = O_RDWR | O_CREAT
        }
        let fd = try openDescriptor(path, flags: flags | O_CLOEXEC, operation: "open")
        do {
            return try PosixFile(path: path, descriptor: fd, mapped: mappedReads)
        } catch {
            _ = Glibc.close(fd)
            throw error
        }
    }

    /// Whether anything (file, directory, …) exists at `path`, by `stat(2)`.
    public func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// The names in a directory, without `.` and `..`, read with `opendir`/`readdir`.
    /// - Throws: ``StrataError`` `.notFound` when the directory is missing, `.io` otherwise.
    public func contentsOfDirectory(_ path: String) throws -> [String] {
        guard let directory = opendir(path) else {
            throw posixError("opendir", path: path, errno: currentErrno())
        }
        defer { closedir(directory) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                let code = currentErrno()
                if code != 0 { throw posixError("readdir", path: path, errno: code) }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }

    /// Creates a directory and its missing parents (`mkdir -p`, mode `0755`).
    /// Succeeds when it already exists. The new directories' own entries are not made durable.
    /// - Throws: ``StrataError`` `.io` (`ENOTDIR` when something else than a directory is in
    ///   the way).
    public func createDirectory(_ path: String) throws {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if mkdir(prefix, 0o755) != 0 {
                let code = currentErrno()
                if code != EEXIST { throw StrataError.io("mkdir", path: prefix, errno: code) }
            }
            prefix += "/"
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw StrataError.io("stat", path: path, errno: currentErrno())
        }
        if info.st_mode & S_IFMT != S_IFDIR {
            throw StrataError.io("mkdir", path: path, errno: ENOTDIR)
        }
    }

    /// Removes a file with `unlink(2)`. Call ``syncDirectory(_:)`` to make the removal durable.
    /// - Throws: ``StrataError`` `.notFound` when it does not exist, `.io` otherwise.
    public func removeFile(_ path: String) throws {
        if unlink(path) != 0 { throw posixError("unlink", path: path, errno: currentErrno()) }
    }

    /// Renames atomically with `rename(2)`, replacing `destination`. Call ``syncDirectory(_:)``
    /// to make the rename durable.
    /// - Throws: ``StrataError`` `.notFound` when `source` does not exist, `.io` otherwise.
    public func rename(_ source: String, to destination: String) throws {
        if Glibc.rename(source, destination) != 0 {
            throw posixError("rename to \(destination)", path: source, errno: currentErrno())
        }
    }

    /// Makes a directory's entries durable: opens it `O_RDONLY | O_DIRECTORY` and `fsync`s it.
    /// - Throws: ``StrataError`` `.notFound` when the directory is missing, `.io` otherwise.
    public func syncDirectory(_ path: String) throws {
        let fd = try openDescriptor(
            path, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC, operation: "open directory")
        defer { _ = Glibc.close(fd) }
        try fsyncRetrying(fd, path: path)
    }

    /// Takes an exclusive `flock(2)` on `path` (created if missing) without waiting.
    ///
    /// `flock` locks belong to an open file description, so a second `lock` on the same path
    /// fails even inside the same process.
    /// - Throws: ``StrataError`` `.locked` when another holder has the lock, `.notFound` when
    ///   the directory is missing, `.io` otherwise.
    public func lock(_ path: String) throws -> any FileLock {
        let fd = try openDescriptor(path, flags: O_RDWR | O_CREAT | O_CLOEXEC, operation: "open")
        let (result, code) = retryingOnInterrupt { flock(fd, LOCK_EX | LOCK_NB) }
        if result != 0 {
            _ = Glibc.close(fd)
            if code == EWOULDBLOCK {
                throw StrataError(
                    .locked,
                    "the database is locked by another process (or another open store in this "
                        + "process); close it first",
                    file: path, errno: code)
            }
            throw StrataError.io("flock", path: path, errno: code)
        }
        // An open-file-description record lock beside the `flock`: unlike a `flock`, it can
        // be asked about without being taken (`isLockHeld`).
        var record = Self.wholeFileLock(type: F_WRLCK)
        if fcntl(fd, Self.setOpenFileDescriptionLock, &record) != 0 {
            let code = currentErrno()
            _ = Glibc.close(fd)
            throw StrataError.io("fcntl(F_OFD_SETLK)", path: path, errno: code)
        }
        return PosixFileLock(descriptor: fd)
    }

    /// Whether a ``lock(_:)`` on `path` is held now, asked with `F_OFD_GETLK` (never taken).
    /// False when the file is missing or cannot be asked. A holder from a build whose locks
    /// were `flock` only is not seen.
    public func isLockHeld(_ path: String) -> Bool {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { _ = Glibc.close(fd) }
        var record = Self.wholeFileLock(type: F_RDLCK)
        guard fcntl(fd, Self.getOpenFileDescriptionLock, &record) == 0 else { return false }
        return record.l_type != Int16(F_UNLCK)
    }

    /// Linux's `F_OFD_GETLK` and `F_OFD_SETLK` (not imported into Swift).
    private static let getOpenFileDescriptionLock: Int32 = 36
    private static let setOpenFileDescriptionLock: Int32 = 37

    private static func wholeFileLock(type: Int32) -> Glibc.flock {
        var record = Glibc.flock()
        record.l_type = Int16(type)
        record.l_whence = Int16(SEEK_SET)
        record.l_start = 0
        record.l_len = 0
        record.l_pid = 0
        return record
    }
}

/// An exclusive `flock` held on an open descriptor; closing the descriptor releases it.
/// Thread safe: the descriptor sits in a `Locked` mutex, so concurrent `unlock()` calls close it once.
final class PosixFileLock: FileLock {
    private let descriptor: Locked<Int32>

    init(descriptor: Int32) { self.descriptor = Locked(descriptor) }

    /// Releases the lock by closing the descriptor. Releasing twice is harmless.
    func unlock() {
        let fd = descriptor.withLock { fd in
            let old = fd
            fd = -1
            return old
        }
        if fd >= 0 {
            _ = flock(fd, LOCK_UN)
            _ = Glibc.close(fd)
        }
    }

    deinit { unlock() }
}
