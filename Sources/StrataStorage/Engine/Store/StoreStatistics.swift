/// Figures about a store's files and index, from ``Store/statistics()``.
///
/// A value type; `Sendable`.
public struct StoreStatistics: Sendable, Hashable {
    /// Segment files in the live set.
    public var segments: Int
    /// Records in the live segments (puts, deletes and commit records), including dead ones.
    public var records: Int
    /// Live keys over all keyspaces.
    public var keys: Int
    /// Keyspaces with at least one key.
    public var keyspaces: Int
    /// Bytes of all live segments (headers included).
    public var totalBytes: Int
    /// Bytes of the records the index points at: what compaction would keep.
    public var liveBytes: Int
    /// Bytes nothing points at any more (overwritten values, tombstones, commit records,
    /// headers): what compaction would reclaim.
    public var deadBytes: Int { totalBytes - liveBytes }
    /// The latest committed sequence number.
    public var sequence: UInt64
}

extension Store {
    /// Figures about the store as of the latest commit.
    /// - Complexity: O(1).
    public func statistics() -> StoreStatistics {
        published.withLock { state in
            StoreStatistics(
                segments: state.segments.count, records: state.records, keys: state.index.count,
                keyspaces: state.index.keyspaces.count, totalBytes: state.bytes,
                liveBytes: state.index.liveBytes, sequence: state.sequence)
        }
    }
}
