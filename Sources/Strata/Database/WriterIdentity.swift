#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Who holds a `WriterLock`: the task that took it, or the thread that took it outside any task.
///
/// A task, not its thread, owns a lock taken in a task: a task may take it on one thread of the
/// cooperative pool, suspend, and go on (and release it) on another, while the first thread runs
/// other tasks, which must wait for the lock rather than be refused it.
///
/// Identities are compared only while the lock is held. A task or thread that ended without
/// releasing the lock (a write left open by a `Database` still alive) leaves its identity in
/// place until that `Database` releases the lock.
enum WriterIdentity: Equatable {
    case task(UnsafeCurrentTask)
    case thread(pthread_t)

    /// The current task, or the current thread when no task runs.
    static var current: WriterIdentity {
        if let task = withUnsafeCurrentTask(body: { $0 }) { return .task(task) }
        return .thread(pthread_self())
    }

    static func == (lhs: WriterIdentity, rhs: WriterIdentity) -> Bool {
        switch (lhs, rhs) {
        case let (.task(left), .task(right)): return left == right
        case let (.thread(left), .thread(right)): return pthread_equal(left, right) != 0
        default: return false
        }
    }
}
