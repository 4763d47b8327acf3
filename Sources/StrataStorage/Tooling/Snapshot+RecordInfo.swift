// Where a live record lies and which commit wrote it: for `strata dump`, which lists a
// snapshot's records in log order. `@_spi(Tooling)`: for the tool, not API.

extension Snapshot {
    /// A live record's place in the log and the sequence of the commit that wrote it.
    @_spi(Tooling) public struct RecordInfo: Sendable, Hashable {
        /// The segment file's number (`000001.seg` is 1).
        public let segment: UInt32
        /// The record's byte offset in the segment.
        public let offset: Int
        /// The record's whole length in bytes (header and payload).
        public let length: Int
        /// The sequence number of the commit that wrote it.
        public let sequence: UInt64
    }

    /// Reads and checks the record `entry` refers to and tells where it lies.
    /// - Throws: ``StrataError`` `.corruption` (with file and offset) when the record fails
    ///   its checks; `.io` when reading fails.
    /// - Complexity: O(1) plus the record's size (its checksum is checked).
    @_spi(Tooling) public func recordInfo(of entry: Entry) throws -> RecordInfo {
        let location = entry.location
        return try withRecord(of: entry.key, in: entry.keyspace, at: location) { record in
            RecordInfo(
                segment: location.segment, offset: Int(location.offset),
                length: Int(location.length), sequence: record.sequence)
        }
    }
}
