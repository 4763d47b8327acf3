/// What one ``Store/compact()-2quz9`` did.
///
/// "Before" figures are taken when the compaction starts and "after" figures when it ends; both
/// cover the whole store, so commits made while it ran count in `bytesAfter`. The figures about
/// the compacted part alone are ``bytesCompacted``, ``bytesWritten`` and ``bytesReclaimed``.
///
/// A value type; `Sendable`.
public struct CompactionReport: Sendable, Hashable, CustomStringConvertible {
    /// Live segments (log and compacted) when the compaction started.
    public var segmentsBefore: Int
    /// Live segments when it ended.
    public var segmentsAfter: Int
    /// Bytes of all live segments when it started.
    public var bytesBefore: Int
    /// Bytes of all live segments when it ended (commits made meanwhile included).
    public var bytesAfter: Int
    /// Segments compacted, and so replaced (the active one included when the compaction sealed
    /// it first); 0 when there was nothing to compact.
    public var segmentsCompacted: Int
    /// Bytes of the segments compacted.
    public var bytesCompacted: Int
    /// Compacted segments written in their place (0 when none of their records was live).
    public var segmentsWritten: Int
    /// Bytes of the compacted segments written, headers included.
    public var bytesWritten: Int
    /// Live records copied: one per key whose newest value was in a compacted segment.
    public var recordsCopied: Int
    /// Copied keys that a commit overwrote or deleted while the compaction ran. They keep
    /// their newer state; their copies are dead from the start and go at the next compaction.
    public var recordsSuperseded: Int
    /// How long the compaction took.
    public var duration: Duration

    /// Whether anything was compacted (false when the store had no sealed segment).
    public var didCompact: Bool { segmentsCompacted > 0 }

    /// Bytes freed in the compacted part: ``bytesCompacted`` − ``bytesWritten``.
    public var bytesReclaimed: Int { bytesCompacted - bytesWritten }

    public var description: String {
        guard didCompact else { return "nothing to compact (\(segmentsBefore) segment(s), \(bytesBefore) bytes)" }
        return "compacted \(segmentsCompacted) segment(s) of \(bytesCompacted) bytes into \(segmentsWritten) of "
            + "\(bytesWritten) bytes (\(recordsCopied) records copied, \(recordsSuperseded) superseded meanwhile) "
            + "in \(duration); store: \(segmentsBefore) → \(segmentsAfter) segments, \(bytesBefore) → \(bytesAfter) bytes"
    }
}
