import Synchronization

// `compact()` for async callers: the same compaction, run on a thread of its own, which a
// cancelled task stops at the next batch of records (docs/design-storage.md, "Background
// compaction").

extension Store {
    /// Compacts as ``compact()-2quz9`` does, on a thread of its own, and stops when the calling task
    /// is cancelled.
    ///
    /// The calling task waits without holding a thread: the copying, reading and `fsync`s run
    /// on a dedicated thread, never on the cooperative pool. Cancelling the task stops the
    /// copy at its next batch of records (64 records): the compaction removes the files it
    /// wrote, leaves the store as it was (every value and segment; only the active segment
    /// stays sealed if the compaction had sealed it) and throws `CancellationError`; a later compaction starts from scratch. A cancellation
    /// that comes once the copy is done and the new MANIFEST is being installed is too late:
    /// the compaction then finishes and returns its report. A task cancelled before the call
    /// throws at once, having done nothing.
    ///
    /// ```swift
    /// let task = Task { try await store.compact() }
    /// task.cancel()  // the store is as before, unless the compaction was already installing
    /// ```
    ///
    /// Thread safety: may be called from any task; compactions (this, ``compact()-2quz9`` and the
    /// background compactor's) run one at a time; readers never wait for it, and writers only
    /// for the MANIFEST install, as for ``compact()-2quz9``.
    /// - Returns: what was compacted, and the store's size before and after.
    /// - Throws: `CancellationError` when the task is cancelled before the install (nothing
    ///   changed); otherwise what ``compact()-2quz9`` throws, and ``StrataError`` `.io` when no
    ///   thread could be started for it.
    /// - Complexity: as ``compact()-2quz9``; a cancellation takes effect within 64 records' copying.
    public func compact() async throws -> CompactionReport {
        try Task.checkCancellation()
        if options.readOnly {
            throw StrataError(.readOnly, "the store was opened read-only", file: directory)
        }
        let cancelled = Atomic<Bool>(false)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<CompactionReport, any Error>) in
                do {
                    try NativeThread.start(for: "the compaction", detached: true) { [self] in
                        let hooks = CompactionHooks(batch: { _ in
                            if cancelled.load(ordering: .acquiring) { throw CancellationError() }
                        })
                        continuation.resume(with: Result { try compact(hooks: hooks, sealingActiveSegment: true) })
                    }
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        } onCancel: {
            cancelled.store(true, ordering: .releasing)
        }
    }
}
