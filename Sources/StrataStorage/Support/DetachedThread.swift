#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// A detached pthread for one piece of blocking work (an async `compact()`): blocking file I/O
// under the engine's pthread locks must not occupy the cooperative pool's few threads.

enum DetachedThread {
    /// Runs `body` on a new detached thread and returns at once.
    /// - Throws: ``StrataError`` `.io` (with the errno) when the thread cannot be created;
    ///   `body` is then not run.
    static func run(_ body: @escaping @Sendable () -> Void) throws {
        let box = Unmanaged.passRetained(Work(body)).toOpaque()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { context in
            guard let context else { return nil }
            Unmanaged<Work>.fromOpaque(context).takeRetainedValue().body()
            return nil
        }, box)
        guard result == 0 else {
            Unmanaged<Work>.fromOpaque(box).release()
            throw StrataError(.io, "a thread for the compaction could not be started", errno: result)
        }
    }

    private final class Work: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
