// The compacted segments one compaction (or one `writeCopy`) writes: fills them in turn,
// buffering writes. Used by one thread (the compacting or copying one).
//
// A record is copied as its bytes, with its CRC recomputed for its new segment and offset,
// when neither segment is encrypted. Otherwise it is written again from its plain payload:
// sealed under the new segment's key with a new nonce (SegmentCipher.swift), or in the clear
// when the destination has no key.
//
// With a dictionary (CompactionDictionary.swift; plain stores only), every output segment
// starts with the dictionary's record (SegmentDictionary.swift), and a small put whose value
// comes out smaller compressed with the dictionary is written again that way (flags 0x03);
// any other record is copied as it is.

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
        /// Compresses small values of plain output segments; nil: none does.
        var dictionary: ZstdDictionary.Compressor? = nil
        /// Creates the next output segment (compacted, header naming the dictionary, if any,
        /// written, not synced).
        var newSegment: (ZstdDictionary?) throws -> SegmentFile
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
        if let (payload, flags) = try rewrittenPayload(of: record, frame: frame, from: source) {
            return try payload.withUnsafeBytes { try appendRewritten(record, payload: $0, flags: flags) }
        }
        let reencrypt = source.cipher != nil || destination.key != nil
        let length = reencrypt
            ? RecordFormat.headerSize + record.payload.count + (destination.key == nil ? 0 : SegmentCipher.overhead)
            : frame.count
        if current != nil, currentTally.bytes > current?.seal.firstRecordOffset ?? SegmentHeader.size,
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

    /// The payload and flags `record` is written again with, or nil when it is copied as it is.
    /// A value compressed with its segment's dictionary is always written again (the output
    /// has another dictionary, or none): compressed with the output's dictionary when that
    /// saves bytes, raw otherwise. A small put (at most `CompactionDictionary.recordLimit`
    /// bytes) of a plain segment is compressed with the output's dictionary when that saves
    /// bytes. Output segments of an encrypted destination have no dictionary.
    private func rewrittenPayload(
        of record: DecodedRecord, frame: UnsafeRawBufferPointer, from source: RecordSeal
    ) throws -> (payload: [UInt8], flags: UInt8)? {
        let compressor = destination.key == nil ? destination.dictionary : nil
        let prefix = RecordFormat.keyPrefixSize + record.keyBytes.count
        if record.usesDictionary {
            let value = try record.value()
            if let compressor, let payload = Self.dictionaryPayload(record, value: value, prefix: prefix, compressor: compressor) {
                return (payload, RecordFormat.compressedFlag | RecordFormat.dictionaryFlag)
            }
            return (Array(record.payload[..<prefix]) + value, 0)
        }
        guard let compressor, source.cipher == nil, frame.count <= CompactionDictionary.recordLimit else { return nil }
        let value = try record.value()
        guard let payload = Self.dictionaryPayload(record, value: value, prefix: prefix, compressor: compressor),
              payload.count < record.payload.count
        else { return nil }
        return (payload, RecordFormat.compressedFlag | RecordFormat.dictionaryFlag)
    }

    /// `record`'s key prefix, `value`'s length and its frame compressed with `compressor`; nil
    /// when that is not smaller than the raw value.
    private static func dictionaryPayload(
        _ record: DecodedRecord, value: [UInt8], prefix: Int, compressor: ZstdDictionary.Compressor
    ) -> [UInt8]? {
        let compressed = value.withUnsafeBytes { ZstdCodec.compress($0, dictionary: compressor) }
        guard compressed.count + 4 < value.count else { return nil }
        var payload = Array(record.payload[..<prefix])
        payload.appendLittleEndian(UInt32(value.count))
        payload += compressed
        return payload
    }

    /// Appends `record` written again with `payload` and `flags` (its sequence kept).
    private mutating func appendRewritten(_ record: DecodedRecord, payload: UnsafeRawBufferPointer, flags: UInt8) throws -> RecordLocation {
        let length = RecordFormat.headerSize + payload.count + (destination.key == nil ? 0 : SegmentCipher.overhead)
        if current != nil, currentTally.bytes > current?.seal.firstRecordOffset ?? SegmentHeader.size,
           currentTally.bytes + length > destination.segmentSize {
            try seal()
        }
        let segment = try current ?? startSegment()
        let location = RecordLocation(segment: segment.number, offset: currentTally.bytes, length: length)
        _ = RecordEncoder.appendRecord(
            to: &buffer, kind: .put, flags: flags, sequence: record.sequence, payload: payload,
            seal: segment.seal, bufferOffset: written)
        currentTally.add(records: 1, bytes: length)
        if buffer.count >= Store.compactionWriteSize { try flush() }
        return location
    }

    /// Creates the next output segment, writes its dictionary record when it has one, and
    /// makes it current.
    private mutating func startSegment() throws -> SegmentFile {
        let dictionary = destination.key == nil ? destination.dictionary?.dictionary : nil
        let segment = try destination.newSegment(dictionary)
        current = segment
        written = SegmentHeader.size
        if let dictionary { SegmentDictionary.append(dictionary, to: &buffer, seal: segment.seal) }
        currentTally = SegmentTally(records: 0, bytes: segment.seal.firstRecordOffset)
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
