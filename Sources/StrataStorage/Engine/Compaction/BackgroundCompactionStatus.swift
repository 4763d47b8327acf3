/// What a store's background compactor is doing and has done, from
/// ``Store/backgroundCompaction``.
///
/// A value type; `Sendable`.
public struct BackgroundCompactionStatus: Sendable {
    /// Whether a background compaction is running now.
    public var isRunning = false
    /// Live bytes copied so far by the running compaction (its total when it is done).
    public var bytesDone = 0
    /// Live bytes the running (or last) compaction has to copy: an estimate taken when it was
    /// decided on, so `bytesDone` is capped at it.
    public var bytesTotal = 0
    /// Background compactions that finished.
    public var completedRuns = 0
    /// Background compactions that failed or were stopped (the store went on; the next
    /// segment seal retries).
    public var failedRuns = 0
    /// What the last finished background compaction did.
    public var lastReport: CompactionReport?
    /// Why the last failed background compaction failed.
    public var lastFailure: StrataError?

    /// `bytesDone / bytesTotal`, 0…1 (1 when there is nothing to copy).
    public var fractionDone: Double {
        bytesTotal == 0 ? 1 : min(1, Double(bytesDone) / Double(bytesTotal))
    }
}
