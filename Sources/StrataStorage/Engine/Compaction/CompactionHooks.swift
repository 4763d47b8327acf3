// What a compaction calls while it copies (Compaction.swift): the background compactor uses
// them to publish progress, yield to commits and stop at `close()`; the async `compact()` to
// stop when its task is cancelled. Either hook may throw to stop the compaction, which then
// removes its output files and leaves the store as it was.
//
// Called on the compacting thread, with no store lock held.

struct CompactionHooks {
    /// Records copied between two calls of `batch`.
    static let batchRecords = 64

    /// Called with the live bytes copied so far: before the plan is made (with 0), after
    /// every `batchRecords` records, and once after the last (before the install). Cheap
    /// checks only: it runs often.
    var batch: (_ bytesCopied: Int) throws -> Void = { _ in }

    /// Called about every `Store.compactionPaceBytes` of live records copied, with the bytes
    /// copied so far; may wait (to yield to commits).
    var pace: (_ bytesCopied: Int) throws -> Void = { _ in }
}
