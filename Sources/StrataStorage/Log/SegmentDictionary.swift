// The dictionary record of a compacted segment: where it lies, how it is written, and how a
// segment's opening loads and checks it. Part of the on-disk format (docs/format.md §3, §4, §10).
//
//   offset 0    segment header, dictionary id D ≠ 0 (kind 1, cipher 0)
//   offset 64   ┌──────────┬──────────┬──────┬───────┬──────────┬──────────────────────────┐
//               │ crc  (4) │ length(4)│kind 4│flags 0│ seq 0 (8)│ zstd dictionary, id D    │
//               └──────────┴──────────┴──────┴───────┴──────────┴──────────────────────────┘
//   64 + 18 + length: the segment's puts, as in any compacted segment; a put flagged 0x03
//   holds `raw length u32 │ magicless zstd frame` compressed with this dictionary.
//
// The record is an ordinary frame, so its CRC (salted with the segment's salt and offset 64)
// covers the dictionary, and it is written and synced with the segment: the dictionary is
// atomic with the records that need it. Only this position is valid: anywhere else a
// dictionary record is corruption (SegmentScanner.swift).

enum SegmentDictionary {
    /// Where the dictionary record of a segment lies.
    static let offset = SegmentHeader.size

    /// Appends the dictionary record of a segment sealed with `seal` (whose dictionary it is)
    /// to `buffer`, which will be written at offset 64.
    static func append(_ dictionary: ZstdDictionary, to buffer: inout [UInt8], seal: RecordSeal) {
        _ = dictionary.bytes.withUnsafeBytes { bytes in
            RecordEncoder.appendRecord(
                to: &buffer, kind: .dictionary, flags: 0, sequence: 0, payload: bytes, seal: seal,
                bufferOffset: offset)
        }
    }

    /// Loads the dictionary that `header` names from the record at offset 64 of `file` (of
    /// `size` bytes, at `path`), checked with `seal`; nil when the header names none.
    /// - Throws: ``StrataError`` `.corruption` naming `path` and offset 64 when the record is
    ///   missing, damaged, not a dictionary record, or holds a dictionary that does not load or
    ///   has another id; `.io` when it cannot be read.
    static func load(
        for header: SegmentHeader, seal: RecordSeal, from file: any StorageFile, size: Int, path: String
    ) throws -> ZstdDictionary? {
        guard header.dictionaryID != 0 else { return nil }
        let available = size - offset
        guard available >= RecordFormat.headerSize else {
            throw StrataError.corrupt("segment names a dictionary but has no dictionary record", file: path, offset: offset)
        }
        let declared = try file.withBytes(at: offset, count: RecordFormat.headerSize) {
            Int($0.loadLittleEndian(at: 4, as: UInt32.self))
        }
        guard declared <= ZstdDictionary.maxSize, RecordFormat.headerSize + declared <= available else {
            throw StrataError.corrupt(
                "dictionary record declares \(declared) bytes (at most \(ZstdDictionary.maxSize), "
                    + "\(available - RecordFormat.headerSize) in the file)", file: path, offset: offset)
        }
        let bytes: [UInt8] = try file.withBytes(at: offset, count: RecordFormat.headerSize + declared) { frame in
            switch RecordDecoder.decode(frame, seal: seal, at: offset) {
            case .failure(let damage):
                throw StrataError.corrupt("dictionary record: \(damage.message)", file: path, offset: offset)
            case .success(let record):
                guard record.kind == .dictionary else {
                    throw StrataError.corrupt(
                        "segment names a dictionary but its first record is a \(record.kind) record", file: path, offset: offset)
                }
                return Array(record.payload)
            }
        }
        do {
            return try ZstdDictionary(bytes: bytes, expectedID: header.dictionaryID)
        } catch {
            throw StrataError.corrupt(error.message, file: path, offset: offset)
        }
    }
}
