// How far a read-only pass may read the newest log segment.
//
// While a writer runs, the bytes past the end it published in COMMITTED (Log/CommittedEnd.swift)
// may be a group whose write or fsync has not returned; if it fails, the writer cuts it off and
// writes its next group at the same offset. So a follower reads the newest segment only up to
// the published end, and nothing of a newest segment the record does not name (the writer
// rolled after publishing it: nothing in the new segment was decided when it was read).
// Sealed segments are whole and are read whole.
//
// With no writer running (no LOCK held), no group is in flight: a pass reads every whole
// transaction, as the next writer's recovery would. A writer that starts during a pass
// publishes a new session before it writes anything, so a pass reads the limit before the
// MANIFEST and again after it is done, and starts over when they differ (`isSameWriter`).

/// What a read-only pass may read of the newest log segment (see above).
struct FollowLimit: Equatable, Sendable {
    /// Whether a writer held the directory's LOCK when the limit was read.
    var writerRunning: Bool
    /// The record the writer published, if any.
    var published: CommittedEnd?

    /// No limit: what a pass that cannot tell uses.
    static let none = FollowLimit(writerRunning: false, published: nil)

    /// Reads whether a writer runs, then its record. Never throws.
    static func read(in directory: String, fileSystem: any FileSystem) -> FollowLimit {
        let running = fileSystem.isLockHeld(joinPath(directory, Store.lockFileName))
        return FollowLimit(writerRunning: running, published: CommittedEnd.read(in: directory, fileSystem: fileSystem))
    }

    /// How many bytes of segment `number`, the newest one listed, of `size` bytes, a pass
    /// reads: all without a running writer that published a record, otherwise up to the
    /// record's end in that segment, or only the header when the record names another.
    func readableEnd(ofNewest number: UInt32, size: Int) -> Int {
        guard writerRunning, let published else { return size }
        guard published.segment == number else { return min(size, SegmentHeader.size) }
        return min(size, Int(clamping: published.end))
    }

    /// Whether `later`, read after a pass, shows the same writer (or none) as this limit: then
    /// no writer started or stopped meanwhile, and what the pass read under this limit holds.
    func isSameWriter(as later: FollowLimit) -> Bool {
        writerRunning == later.writerRunning && published?.session == later.published?.session
    }
}
