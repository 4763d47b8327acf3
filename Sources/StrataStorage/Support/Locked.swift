#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a pthread mutex: the only way to reach it is `withLock`.
///
/// Strata uses this instead of `Synchronization.Mutex` because the thread sanitizer intercepts
/// `pthread_mutex_lock` but cannot see the futex inside `Mutex` on Linux, and reports every
/// access it guards as a race; CI runs the concurrency tests under the sanitizer.
///
/// Shared with the object layer (`package` access). Thread-safe by construction.
package final class Locked<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// The value, in its own allocation, reached only through this pointer and only under the
    /// mutex. Not a stored `var`: the sanitizer reports an `inout` access to a class's stored
    /// property as an access to the object, and for a zero-sized value (`Locked<Void>`) that
    /// overlapped the object-header reads every caller makes before it locks, so concurrent
    /// `withLock` calls were reported as races.
    private let storage: UnsafeMutablePointer<Value>

    package init(_ value: Value) {
        storage = .allocate(capacity: 1)
        storage.initialize(to: value)
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        storage.deinitialize(count: 1)
        storage.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    @inline(__always)
    package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&storage.pointee)
    }
}
