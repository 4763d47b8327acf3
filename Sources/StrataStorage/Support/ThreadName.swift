#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Names the calling thread as `top -H`, debuggers and /proc/self/task/*/comm show it (Linux
/// keeps the first 15 bytes). Foundation's `Thread.name` does not reach the kernel here, and
/// `pthread_setname_np` does not import, so this writes /proc/thread-self/comm. Does nothing
/// where that file is missing. Thread-safe: it names only the calling thread.
func nameCurrentThread(_ name: String) {
    let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    _ = Array(name.utf8.prefix(15)).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
}
