// The compacted segments one compaction (or one `writeCopy`) writes: fills them in turn,
// buffering writes. Used by one thread (the compacting or copying one).
//
// A record is copied as its bytes, with its CRC recomputed for its new segment and offset,
// when neither segment is encrypted. Otherwise it is written again from its plain payload:
// sealed under the new segment's key with a new nonce (SegmentCipher.swift), or in the clear
// when the destination has no key.

struct CompactionOutput {
    /// Where the output goes and how its segments are made.
    struct Destination {
        var directory: String
        var fileSystem: any FileSystem
        /// A new output segment starts when the next record would make the current one larger.
        var segmentSize: Int
        /// The key output segments are encrypted with; nil for plain ones.
        var key: StoreKey?
        /// Unlinks an abandoned output file (best effort).
        var remove: (String) -> Void
        /// Creates the next output segment (compacted, header written, not synced).
        var newSegment: () throws -> SegmentFile
        /// Writes the hint of an output segment just sealed at the given length (HintFile+Write.swift).
        var writeHint: (SegmentFile, Int) throws -> Void
    }

    let destination: Destination
    /// Output segments written and synced, in order, with their tallies.
    private(set) var finished: [SegmentFile] = []
    private(set) var tallies: [SegmentTally] = []
    private var current: SegmentFile?
    private var currentTally = SegmentTally()
    /// Bytes of `current` already written to the file.
    private var written = 0
    private var buffer: [UInt8] = []

    init(destination: Destination) {
        self.destination = destination
    }

    /// Appends `record` (a checked put whose frame is `frame`, from a segment sealed with
    /// `source`); returns where it will lie.
    mutating func append(_ record: DecodedRecord, frame: UnsafeRawBufferPointer, from source: RecordSeal) throws -> RecordLocation {
        let reencrypt = source.cipher != nil || destination.key != nil
        let length = reencrypt
            ? RecordFormat.headerSize + record.payload.count + (destination.key == nil ? 0 : SegmentCipher.overhead)
            : frame.count
        if current != nil, currentTally.bytes > SegmentHeader.size,
           currentTally.bytes + length > destination.segmentSize {
            try seal()
        }
        let segment = try current ?? startSegment()
        let location = RecordLocation(segment: segment.number, offset: currentTally.bytes, length: length)
        if reencrypt {
            _ = RecordEncoder.appendRecord(
                to: &buffer, kind: .put, flags: record.flags, sequence: record.sequence, payload: record.payload,
                seal: segment.seal, bufferOffset: written)
        } else {
            // The same bytes, checksummed for their new segment and offset.
            let start = buffer.count
            buffer.append(contentsOf: frame)
            buffer.withUnsafeMutableBytes { raw in
                RecordEncoder.reseal(
                    UnsafeMutableRawBufferPointer(rebasing: raw[start...]), seal: segment.seal, at: currentTally.bytes)
            }
        }
        currentTally.add(records: 1, bytes: length)
        if buffer.count >= Store.compactionWriteSize { try flush() }
        return location
    }

    /// Creates the next output segment and makes it current.
    private mutating func startSegment() throws -> SegmentFile {
        let segment = try destination.newSegment()
        current = segment
        currentTally = SegmentTally(records: 0, bytes: SegmentHeader.size)
        written = SegmentHeader.size
        return segment
    }

    /// Seals the current segment (see `seal()`).
    mutating func finishFiles() throws {
        if current != nil { try seal() }
    }

    /// Makes the output files' names durable. Call after ``finishFiles()``.
    func syncDirectory() throws {
        if !finished.isEmpty { try destination.fileSystem.syncDirectory(destination.directory) }
    }

    /// Closes and unlinks every output file (best effort): no MANIFEST names them.
    mutating func abandon() {
        for segment in finished + (current.map { [$0] } ?? []) {
            try? segment.file.close()
            destination.remove(segment.path)
            destination.remove(String(segment.path.dropLast(4)) + ".hint")  // its hint, if written
        }
        finished.removeAll()
        tallies.removeAll()
        current = nil
        buffer.removeAll()
    }

    private mutating func flush() throws {
        guard let current, !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { try current.file.write($0, at: written) }
        written += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes out the buffer, records the segment's length in its header, syncs it and closes
    /// it off.
    private mutating func seal() throws {
        guard let segment = current else { return }
        try flush()
        try SegmentWriter.seal(segment, atLength: written)
        try destination.writeHint(segment, written)
        finished.append(segment)
        tallies.append(currentTally)
        current = nil
    }
}
