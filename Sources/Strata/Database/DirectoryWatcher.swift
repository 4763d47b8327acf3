import Dispatch
import Foundation
import StrataStorage
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Calls a closure soon after the files of a store directory change, on a thread of its own.
///
/// On the real file system (``PosixFileSystem``) the thread waits in `poll` on an inotify
/// descriptor watching the directory (a file written, created, renamed into it, closed after
/// writing, removed), and after each second without an event compares the files' stamp (below)
/// as a safety net. Where inotify cannot be had, or on another file system (the in-memory one
/// of the tests), it compares the stamp every ``pollInterval``: each file's name and size, and
/// the bytes of the MANIFEST and of COMMITTED. Either
/// way it calls `onChange` once when it starts (whatever changed before is caught up too), then
/// once per batch of changes it sees; `onChange` runs on the watcher's thread, one call at a
/// time.
///
/// ``stop()`` (or the last reference going) wakes the thread through a pipe; it closes its
/// descriptors and ends. `stop()` waits for that unless called from `onChange` itself.
///
/// Thread-safe: the closure and the descriptors belong to the thread; the rest sits behind a
/// lock.
final class DirectoryWatcher: Sendable {
    /// How often the fallback compares the files' stamp.
    static let pollInterval: Int32 = 50
    /// How often the inotify path compares it too (a safety net for missed events).
    static let inotifyRecheckInterval: Int32 = 1000

    private let loop: WatchLoop

    /// Starts watching `directory` on `fileSystem`.
    init(directory: String, fileSystem: any FileSystem, onChange: @escaping @Sendable () -> Void) {
        loop = WatchLoop(directory: directory, fileSystem: fileSystem, onChange: onChange)
        let loop = loop
        Thread { loop.run() }.start()
    }

    deinit { stop() }

    /// Whether the thread waits on inotify (false: it polls).
    var usesInotify: Bool { loop.usesInotify }

    /// Ends the watch: no `onChange` starts after this returns (unless called from `onChange`,
    /// which then finishes first). Idempotent.
    func stop() { loop.stop() }
}

/// The watcher thread's loop and the descriptors it owns.
private final class WatchLoop: Sendable {
    private let directory: String
    private let fileSystem: any FileSystem
    private let onChange: @Sendable () -> Void
    /// The inotify descriptor, or -1 when polling.
    private let inotify: Int32
    /// The pipe that wakes the thread for `stop()`: read end, write end.
    private let wakeRead: Int32
    private let state: Locked<State>
    /// Signalled when the thread has ended (and signalled again by each waiter, as a latch).
    private let ended = DispatchSemaphore(value: 0)
    /// The watcher thread's `pthread_self()`, so `stop()` from `onChange` does not wait for itself.
    private let thread = Atomic<UInt>(0)

    private struct State {
        var isStopped = false
        /// The pipe's write end; -1 once the thread closed it.
        var wakeWrite: Int32
    }

    var usesInotify: Bool { inotify >= 0 }

    init(directory: String, fileSystem: any FileSystem, onChange: @escaping @Sendable () -> Void) {
        self.directory = directory
        self.fileSystem = fileSystem
        self.onChange = onChange
        var pipeEnds: [Int32] = [-1, -1]
        if pipe(&pipeEnds) == 0 {
            for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        } else {
            pipeEnds = [-1, -1]
        }
        wakeRead = pipeEnds[0]
        state = Locked(State(wakeWrite: pipeEnds[1]))
        inotify = fileSystem is PosixFileSystem ? Self.openInotify(directory) : -1
    }

    /// An inotify descriptor watching `directory`, or -1 when inotify is unavailable.
    private static func openInotify(_ directory: String) -> Int32 {
        let descriptor = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
        guard descriptor >= 0 else { return -1 }
        let mask = UInt32(IN_MODIFY) | UInt32(IN_CREATE) | UInt32(IN_MOVED_TO) | UInt32(IN_CLOSE_WRITE)
            | UInt32(IN_DELETE)
        guard inotify_add_watch(descriptor, directory, mask) >= 0 else {
            close(descriptor)
            return -1
        }
        return descriptor
    }

    func run() {
        thread.store(UInt(pthread_self()), ordering: .releasing)
        Self.nameThread()
        defer { finish() }
        var stamp = DirectoryStamp(directory: directory, fileSystem: fileSystem)
        if isStopped { return }
        onChange()
        let timeout = usesInotify ? DirectoryWatcher.inotifyRecheckInterval : DirectoryWatcher.pollInterval
        while !isStopped {
            var descriptors = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            if usesInotify { descriptors.append(pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if isStopped || descriptors[0].revents != 0 { return }
            if ready < 0, errno != EINTR { usleep(UInt32(DirectoryWatcher.pollInterval) * 1000) }
            if usesInotify, descriptors[1].revents != 0 {
                drainInotify()
                onChange()
                continue
            }
            // A timeout (or a failed poll): compare the stamp.
            let now = DirectoryStamp(directory: directory, fileSystem: fileSystem)
            if now != stamp {
                stamp = now
                onChange()
            }
        }
    }

    /// Names the calling thread "strata.follow", as `top -H` and /proc show it (Foundation's
    /// `Thread.name` does not reach the kernel here, and `pthread_setname_np` does not import).
    private static func nameThread() {
        let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = Array("strata.follow".utf8).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }

    private var isStopped: Bool { state.withLock { $0.isStopped } }

    /// Reads every pending inotify event (their content does not matter: any change is one).
    private func drainInotify() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffer.withUnsafeMutableBytes({ read(inotify, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Closes every descriptor; then `stop()` may return.
    private func finish() {
        if inotify >= 0 { close(inotify) }
        if wakeRead >= 0 { close(wakeRead) }
        state.withLock { state in
            if state.wakeWrite >= 0 { close(state.wakeWrite) }
            state.wakeWrite = -1
        }
        ended.signal()
    }

    func stop() {
        let first = state.withLock { state -> Bool in
            guard !state.isStopped else { return false }
            state.isStopped = true
            if state.wakeWrite >= 0 {
                var byte: UInt8 = 1
                _ = write(state.wakeWrite, &byte, 1)
            }
            return true
        }
        guard first, thread.load(ordering: .acquiring) != UInt(pthread_self()) else { return }
        ended.wait()
        ended.signal()
    }
}

/// What the polling fallback compares: each file's name and size, and the bytes of the MANIFEST
/// (a compaction may install one of the same size) and of COMMITTED (the writer rewrites it in
/// place after each commit, once the segment has grown: a follower reads up to what it names).
private struct DirectoryStamp: Equatable {
    var sizes: [String: Int] = [:]
    var contents: [String: [UInt8]] = [:]

    init(directory: String, fileSystem: any FileSystem) {
        guard let names = try? fileSystem.contentsOfDirectory(directory) else { return }
        for name in names {
            let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
            guard let file = try? fileSystem.open(path, mode: .readOnly) else { continue }
            sizes[name] = (try? file.size()) ?? -1
            if name == "MANIFEST" || name == "COMMITTED" { contents[name] = (try? file.readAll()) ?? [] }
            try? file.close()
        }
    }
}
