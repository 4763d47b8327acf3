// A read-only store following the writer: `refresh()` catches up with the commits another
// process (the one holding the directory's LOCK) made since this store last read the log.
//
// 1. Read the MANIFEST. When it lists the segments this store knows (or those followed by new
//    ones: a roll), go on scanning from where the last refresh stopped (Recovery+Follow.swift),
//    on a copy of the published index: O(new bytes), plus O(k log n) index nodes copied for k
//    changed keys.
// 2. Otherwise (a compaction replaced segments), or when the incremental pass finds anything
//    it cannot continue (damage, a segment shorter than what was read, a file gone), recover
//    from scratch (Recovery.run, which starts over when the MANIFEST changes under it): O(n) in
//    the log's size.
// 3. Publish the result as a commit does: one swap of the published state under its lock, so a
//    snapshot taken before keeps its index and segments, and `sequence` moves on.
//
// A torn tail (a write the writer has not finished) ends the scan and is read again by the next
// refresh. While a writer runs, the newest segment is read only up to the end it published as
// decided (Engine/Recovery/FollowLimit.swift): a group whose write or fsync has not returned may still
// be cut off. A failure throws before step 3 and leaves the store as it was.
//
// Lock order: `follow` (held for a whole refresh, so refreshes run one at a time) → `published`.

extension Store {
    /// Where a read-only store stopped reading the log: what the next refresh continues from.
    struct FollowPosition: Sendable {
        var manifest: Manifest?
        var segmentOrder: [UInt32]
        var compactedSegments: Set<UInt32>
        var nextSegmentNumber: UInt64
        /// Where the committed log of the newest listed segment ends.
        var committedEnd: Int
        /// The last sequence committed in the log (without the MANIFEST's floor).
        var scannedSequence: UInt64
        /// How many refreshes recovered from scratch (for tests: the rest went incrementally).
        var fullRecoveries = 0

        init(_ recovered: Recovery.Result) {
            manifest = recovered.manifest
            segmentOrder = recovered.segmentOrder
            compactedSegments = recovered.compactedSegments
            nextSegmentNumber = recovered.nextSegmentNumber
            committedEnd = recovered.activeEnd
            scannedSequence = recovered.scannedSequence
        }
    }

    /// Catches a read-only store up with the commits the writing process made since this store
    /// was opened or last refreshed. A writable store is always current: it returns false.
    ///
    /// Only whole transactions are read: one the writer is still writing is left for the next
    /// call. Snapshots taken before keep reading what they read; ``snapshot()`` and
    /// ``sequence`` show the new commits once this returns.
    ///
    /// ```swift
    /// var options = Store.Options()
    /// options.readOnly = true
    /// let follower = try Store(directory: path, options: options)
    /// // … another process commits …
    /// if try follower.refresh() { print(follower.sequence) }
    /// ```
    ///
    /// Thread safety: may be called from any thread; concurrent calls run one after the other.
    /// It never waits for the writing process. Readers wait at most for the swap of the
    /// published state.
    ///
    /// - Returns: whether the store now reads another version (``sequence`` changed).
    /// - Throws: ``StrataError`` `.corruption` (naming file and offset) for damage a writer in
    ///   progress cannot explain, `.unsupportedFormat`, `.notFound` when the store's files are
    ///   gone, `.io`. After a throw the store is as it was before the call.
    /// - Complexity: O(b) in the bytes committed since the last refresh, plus O(k log n) for the
    ///   k keys they change; O(n) in the log's size after a compaction (a full recovery).
    public func refresh() throws -> Bool {
        guard options.readOnly else { return false }
        return try follow.withLock { position in
            let before = sequence
            guard let (result, isFull) = try caughtUp(from: position) else { return false }
            publishRecovered(result)
            let fullRecoveries = position.fullRecoveries + (isFull ? 1 : 0)
            position = FollowPosition(result)
            position.fullRecoveries = fullRecoveries
            return result.lastSequence != before
        }
    }

    /// The store caught up with the files and whether that took a full recovery, or nil when
    /// nothing changed since `position`. REQUIRES: `follow` is held.
    private func caughtUp(from position: FollowPosition) throws -> (Recovery.Result, isFull: Bool)? {
        var recovery = Recovery(directory: directory, options: options, key: key, remover: nil)
        // Read before the MANIFEST, and again after the pass (Engine/Recovery/FollowLimit.swift).
        recovery.followLimit = FollowLimit.read(in: directory, fileSystem: fileSystem)
        if let manifest = try? Manifest.read(in: directory, fileSystem: fileSystem) {
            var result = resultToContinue(from: position)
            if (try? recovery.catchUp(&result, to: manifest)) == true,
               recovery.followLimit.isSameWriter(as: FollowLimit.read(in: directory, fileSystem: fileSystem)) {
                let same = manifest == position.manifest && result.scannedSequence == position.scannedSequence
                    && result.activeEnd == position.committedEnd
                return same ? nil : (result, false)
            }
        }
        return (try recovery.run(), true)
    }

    /// A recovery result holding what the store publishes now, positioned where it stopped.
    private func resultToContinue(from position: FollowPosition) -> Recovery.Result {
        published.withLock { state in
            var result = Recovery.Result()
            result.index = state.index
            result.segments = state.segments
            result.tallies = state.tallies
            result.records = state.records
            result.bytes = state.bytes
            result.segmentOrder = position.segmentOrder
            result.compactedSegments = position.compactedSegments
            result.nextSegmentNumber = position.nextSegmentNumber
            result.activeEnd = position.committedEnd
            result.lastSequence = position.scannedSequence
            result.scannedSequence = position.scannedSequence
            result.manifest = position.manifest
            result.sawLogSegment = true
            return result
        }
    }

    /// Swaps in a recovered state, as one publication. REQUIRES: `follow` is held.
    private func publishRecovered(_ result: Recovery.Result) {
        published.withLock { state in fence.run {
            state = PublishedState(
                index: result.index, sequence: result.lastSequence, segments: result.segments,
                tallies: result.tallies, records: result.records, bytes: result.bytes)
            notePublished(result.lastSequence)
        } }
    }
}
