// The store's side of the background compactor (BackgroundCompactor.swift): deciding whether
// the policy wants a compaction, running it, and the public status.

extension Store {
    /// What the background compactor is doing and has done: whether a compaction runs, its
    /// progress (bytes done / total), finished and failed runs, the last report and failure.
    /// All zero with ``CompactionPolicy/manual`` or read-only.
    ///
    /// Thread safety: may be read from any thread.
    /// - Complexity: O(1).
    public var backgroundCompaction: BackgroundCompactionStatus {
        backgroundCompactor?.currentStatus ?? BackgroundCompactionStatus()
    }

    /// Asks the background compactor to check its policy now, as it does after each segment
    /// seal, and to compact when the policy says so; returns at once (coalesced with a request
    /// not yet taken up). Does nothing with ``CompactionPolicy/manual`` or read-only.
    ///
    /// Thread safety: may be called from any thread.
    /// - Complexity: O(1) here; the check runs on the compactor's thread.
    public func scheduleBackgroundCompaction() {
        backgroundCompactor?.request()
    }

    /// The background compactor's statuses as they change: the current one first, then one
    /// each time a run starts, advances (by at least 1 % of its ``BackgroundCompactionStatus/bytesTotal``),
    /// finishes or fails. The stream ends when the store is closed (``close()`` or its last
    /// reference going); for a store without a background compactor (``CompactionPolicy/manual``
    /// or read-only) and after `close()`, it holds the current status and ends at once.
    ///
    /// Each access makes a new stream; any number may be iterated at once. A consumer that
    /// falls behind loses the oldest statuses beyond the newest 256 (a run sends about 100),
    /// never the order: within a stream, `bytesDone` grows during a run.
    ///
    /// ```swift
    /// for await status in store.backgroundCompactionUpdates {
    ///     print("\(Int(status.fractionDone * 100)) %")
    /// }
    /// ```
    ///
    /// Thread safety: may be read, and its stream iterated, from any thread or task; statuses
    /// are sent from the compactor's thread, which never waits for a consumer.
    /// - Complexity: O(1) to make; O(s) per status sent, for s streams open.
    public var backgroundCompactionUpdates: AsyncStream<BackgroundCompactionStatus> {
        guard let backgroundCompactor else {
            return AsyncStream { continuation in
                continuation.yield(BackgroundCompactionStatus())
                continuation.finish()
            }
        }
        return backgroundCompactor.updates()
    }

    /// Waits until the background compactor has nothing asked of it and nothing under way.
    /// Returns at once when there is none.
    @_spi(Testing) public func waitForBackgroundCompaction() {
        backgroundCompactor?.waitUntilIdle()
    }

    /// One run of the background compactor: compacts when the policy wants it; reports a
    /// failure to the status and to ``Options/onBackgroundCompactionFailure``. On the
    /// compactor's thread.
    func runBackgroundCompaction(_ compactor: BackgroundCompactor) {
        guard let liveBytes = liveBytesIfCompactionIsDue() else { return }
        compactor.began(copying: liveBytes)
        do {
            let report = try compact(hooks: CompactionHooks(
                batch: { bytes in try compactor.progress(bytesCopied: bytes) },
                pace: { bytes in
                    try compactor.pace(bytesCopied: bytes, commitsWaiting: { self.commitQueue.isBusy }, sequence: { self.sequence })
                }), sealingActiveSegment: false)
            compactor.finished(report)
        } catch {
            let failure = StrataError.converting(error)
            if compactor.failed(failure) { options.onBackgroundCompactionFailure?(failure) }
        }
    }

    /// The live bytes of the sealed segments when ``Options/compaction`` wants them compacted
    /// now, else nil (also when the store refuses writes). O(1) when the store's dead bytes
    /// alone rule it out; otherwise O(k) over the live keys, outside every lock.
    func liveBytesIfCompactionIsDue() -> Int? {
        let policy = options.compaction
        let candidate = writer.withLock { state -> (Set<UInt32>, Int, SnapshotStorage)? in
            guard (try? Self.checkWritable(state)) != nil else { return nil }
            let sealed = Set(state.segmentOrder.dropLast())
            return published.withLock { published in
                let sealedBytes = sealed.reduce(0) { $0 + (published.tallies[$1]?.bytes ?? 0) }
                // Every dead byte lying in a sealed segment is the most the sealed part can hold.
                let deadAtMost = published.bytes - published.index.liveBytes
                guard policy.shouldCompact(sealedBytes: sealedBytes, liveBytes: sealedBytes - deadAtMost) else {
                    return nil
                }
                let source = SnapshotStorage(index: published.index, segments: published.segments, fence: fence)
                return (sealed, sealedBytes, source)
            }
        }
        guard let (sealed, sealedBytes, source) = candidate else { return nil }
        var live = 0
        for (_, keys) in source.index.keyspaces {
            for (_, location) in keys where sealed.contains(location.segment) { live += Int(location.length) }
        }
        return policy.shouldCompact(sealedBytes: sealedBytes, liveBytes: live) ? live : nil
    }
}
