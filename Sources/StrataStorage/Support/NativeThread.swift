#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// A pthread of the engine's own, for blocking work (an async `compact()`, the background
// compactor): blocking file I/O under the engine's pthread locks must not occupy the
// cooperative pool's few threads.

enum NativeThread {
    /// Runs `body` on a new thread and returns at once. A detached thread is never joined;
    /// otherwise the caller joins (or detaches) the thread returned.
    /// - Parameter purpose: what the thread is for, named in the error.
    /// - Throws: ``StrataError`` `.io` (with the errno) when the thread cannot be created;
    ///   `body` is then not run.
    @discardableResult
    static func start(
        for purpose: String, detached: Bool, _ body: @escaping @Sendable () -> Void
    ) throws -> pthread_t {
        let box = Unmanaged.passRetained(Work(body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        if detached { pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED)) }
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { context in
            guard let context else { return nil }
            Unmanaged<Work>.fromOpaque(context).takeRetainedValue().body()
            return nil
        }, box)
        guard result == 0 else {
            Unmanaged<Work>.fromOpaque(box).release()
            throw StrataError(.io, "a thread for \(purpose) could not be started", errno: result)
        }
        return thread
    }

    private final class Work: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
