#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether the process runs under the thread sanitizer.
enum ThreadSanitizer {
    /// True when the sanitizer's runtime is linked in (looked up once with `dlsym`).
    static let isActive: Bool = {
        guard let program = dlopen(nil, RTLD_NOW) else { return false }
        return dlsym(program, "__tsan_init") != nil
    }()
}

/// Makes one hand-off that the thread sanitizer cannot see visible to it; does nothing (one
/// predictable branch) in a build without the sanitizer.
///
/// A snapshot shares the nodes of the index, and the segment map's storage, with the published
/// state. When a reader drops the last snapshot that holds a node, the writer finds the node
/// uniquely referenced and mutates it in place. The atomic reference count orders the reader's
/// reads before the writer's writes, but the Swift runtime that keeps the count is not
/// instrumented, so without the fence the sanitizer reports the two as a race (now and then,
/// in `ConcurrencyTests`). So, under the sanitizer, every in-place mutation of the published state
/// runs inside the fence, and so does the start of every `SnapshotStorage.deinit`, before the
/// storage lets its references go: either the writer's check of uniqueness and its writes come
/// before the reader's release (and then the node is still shared and gets copied), or the
/// reader's reads happen before the writer's lock, which the sanitizer does see.
///
/// Thread-safe; `Sendable`.
final class SanitizerFence: Sendable {
    private let mutex = Locked(())

    /// Runs `body`; under the sanitizer, holding the fence's mutex. REQUIRES: no other lock is
    /// taken inside `body`.
    @inline(__always)
    func run<R>(_ body: () throws -> R) rethrows -> R {
        guard ThreadSanitizer.isActive else { return try body() }
        return try mutex.withLock { _ in try body() }
    }
}
