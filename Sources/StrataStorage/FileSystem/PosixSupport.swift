// Small helpers around POSIX system calls: errno access, errno-to-StrataError mapping, and
// EINTR-retrying open/fsync.
//
// Thread safety: stateless functions; `errno` is per thread.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The calling thread's `errno`.
@inline(__always)
func currentErrno() -> Int32 { errno }

/// An error for a failed system call: `.notFound` for `ENOENT`, `.io` otherwise.
func posixError(_ operation: String, path: String, errno code: Int32) -> StrataError {
    if code == ENOENT {
        return StrataError(
            .notFound, "\(operation) failed: no such file or directory", file: path, errno: code)
    }
    return StrataError.io(operation, path: path, errno: code)
}

/// `open(2)` retried on `EINTR`, mode `0644` for created files.
func openDescriptor(_ path: String, flags: Int32, operation: String) throws -> Int32 {
    while true {
        let fd = Glibc.open(path, flags, 0o644)
        if fd >= 0 { return fd }
        let code = currentErrno()
        if code != EINTR { throw posixError(operation, path: path, errno: code) }
    }
}

/// `fsync(2)` retried on `EINTR`.
func fsyncRetrying(_ fd: Int32, path: String) throws {
    while fsync(fd) != 0 {
        let code = currentErrno()
        if code != EINTR { throw StrataError.io("fsync", path: path, errno: code) }
    }
}
