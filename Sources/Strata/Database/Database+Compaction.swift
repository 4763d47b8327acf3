import StrataStorage

// Compaction from async code, and the background compactor's progress
// (docs/design-storage.md, "Background compaction").

extension Database {
    /// Compacts as ``compact()`` does, without holding the calling task's thread, and stops
    /// when the calling task is cancelled.
    ///
    /// The compaction runs on a thread of its own. Cancelling the task stops it at its next
    /// batch of records (64): the files it wrote are removed, the database is as it was
    /// (every object, and the old files still in use; only the active segment stays sealed if
    /// the compaction had sealed it) and `CancellationError` is thrown;
    /// a later compaction starts from scratch. A cancellation that comes once the new segments
    /// are being installed is too late: the compaction then finishes and returns its report.
    /// The replaced files are removed as ``compact()`` says.
    ///
    /// ```swift
    /// let report = try await db.compact()
    /// ```
    ///
    /// Thread safety: the compaction runs beside readers, frozen views and writers on any
    /// thread, as ``compact()`` does; compactions run one at a time.
    /// - Parameter isolation: the caller's actor; leave it to its default.
    /// - Returns: what the compaction did (segments and bytes before and after).
    /// - Throws: `CancellationError` when the task is cancelled before the install (nothing
    ///   changed; thrown at once when it was cancelled before the call); ``/StrataStorage/StrataError``
    ///   `.readOnly` for a database opened read-only, otherwise what ``compact()`` throws.
    /// - Complexity: as ``compact()``; a cancellation takes effect within 64 records' copying.
    @discardableResult
    public func compact(isolation: isolated (any Actor)? = #isolation) async throws -> CompactionReport {
        let report = try await shared.store.compact()
        _ = readVersion()
        return report
    }

    /// What the background compactor is doing and has done: whether a compaction runs, its
    /// progress (bytes done / total), finished and failed runs, the last report and failure.
    /// All zero with ``/StrataStorage/CompactionPolicy/manual`` or read-only.
    ///
    /// Thread safety: may be read from any thread (it reads the store shared by every
    /// `Database` of these files in this process).
    /// - Complexity: O(1).
    public var backgroundCompaction: BackgroundCompactionStatus {
        shared.store.backgroundCompaction
    }

    /// The background compactor's statuses as they change: the current one first, then one
    /// each time a run starts, advances (by at least 1 % of its bytes to copy), finishes or
    /// fails. The stream ends when the store is closed: when the last `Database` of these
    /// files in this process goes. With ``/StrataStorage/CompactionPolicy/manual`` or read-only it holds the
    /// current status and ends at once.
    ///
    /// ```swift
    /// for await status in db.backgroundCompactionUpdates where !status.isRunning {
    ///     print(status.lastReport.map(String.init(describing:)) ?? "no compaction yet")
    /// }
    /// ```
    ///
    /// Thread safety: the stream is `Sendable` and may be iterated from any task; statuses are
    /// sent from the compactor's thread, which never waits for a consumer. A consumer that
    /// falls behind loses the oldest beyond the newest 256.
    /// - Complexity: O(1) to make.
    public var backgroundCompactionUpdates: AsyncStream<BackgroundCompactionStatus> {
        shared.store.backgroundCompactionUpdates
    }
}
