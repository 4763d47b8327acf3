/// Where a record lives: a segment number, the record's byte offset in it and its whole length
/// (header and payload). Twelve bytes, so the index stays small.
struct RecordLocation: Hashable, Sendable {
    var segment: UInt32
    var offset: UInt32
    var length: UInt32

    @inlinable
    init(segment: UInt32, offset: Int, length: Int) {
        self.segment = segment
        self.offset = UInt32(truncatingIfNeeded: offset)
        self.length = UInt32(truncatingIfNeeded: length)
    }
}
