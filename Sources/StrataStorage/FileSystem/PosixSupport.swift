// Small helpers around POSIX system calls: errno access, errno-to-StrataError mapping, and the
// one place that retries a call interrupted by a signal (`EINTR`).
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

/// Calls `systemCall` (which returns a negative number and sets `errno` when it fails) again
/// for as long as it fails with `EINTR`. Returns its result, and the `errno` of a failure (0
/// when it did not fail).
@inline(__always)
func retryingOnInterrupt<Result: BinaryInteger>(_ systemCall: () -> Result) -> (result: Result, errno: Int32) {
    while true {
        let result = systemCall()
        if result >= 0 { return (result, 0) }
        let code = currentErrno()
        if code != EINTR { return (result, code) }
    }
}

/// `open(2)`, mode `0644` for created files.
func openDescriptor(_ path: String, flags: Int32, operation: String) throws -> Int32 {
    let (fd, code) = retryingOnInterrupt { Glibc.open(path, flags, 0o644) }
    if fd < 0 { throw posixError(operation, path: path, errno: code) }
    return fd
}

/// `fsync(2)`.
func fsyncRetrying(_ fd: Int32, path: String) throws {
    let (result, code) = retryingOnInterrupt { fsync(fd) }
    if result != 0 { throw StrataError.io("fsync", path: path, errno: code) }
}
