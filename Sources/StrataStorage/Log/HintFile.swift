// The hint file of a sealed segment (Bitcask's): what a scan of the segment would apply to the
// index, so that open need not read the segment. Part of the on-disk format (docs/format.md).
//
// `000007.hint` sits beside `000007.seg`. Little-endian throughout.
//
// ┌───────────┬─────────┬─────────┬──────────┬──────────┬──────────┬────────────┬────────────┬────────────┐
// │ magic (8) │ ver (2) │ kind (1)│ resv (1) │ seg# (4) │ salt (4) │ resv (4)   │ sealed (8) │ last seq(8)│
// └───────────┴─────────┴─────────┴──────────┴──────────┴──────────┴────────────┴────────────┴────────────┘
//   0           8         10        11         12         16         20           24           32
// ┌────────────┬─────────────┬─────────────┬──────────────┬──────────────┬─────────────────────┬─────────┐
// │ floor (8)  │ records (4) │ uncommit (4)│ committed (4)│ entries (4)  │ entry … entry       │ crc (4) │
// └────────────┴─────────────┴─────────────┴──────────────┴──────────────┴─────────────────────┴─────────┘
//   40           48            52            56             60             64                    size − 4
//
// Entry (15 + key bytes):
// ┌────────┬──────────────┬──────────┬────────────┬────────────┬───────────┐
// │ op (1) │ keyspace (4) │ klen (2) │ offset (4) │ length (4) │ key (klen)│
// └────────┴──────────────┴──────────┴────────────┴────────────┴───────────┘
//
// - magic "STRATAHT"; ver 1 (any other is refused: the hint is ignored, never fatal).
// - kind, seg#, salt, sealed: the segment's header kind, number, salt and sealed length. A hint
//   is used only for a segment whose header says exactly these and whose file is exactly
//   `sealed` bytes long: a segment rewritten, cut or replaced never matches a stale hint.
// - last seq: the highest committed sequence in the segment (0: none). floor: the lowest
//   sequence of any record in it (0: none); open uses the hint only when floor is above the
//   sequence committed by earlier segments (else it scans, and the scan reports what is wrong).
// - records, uncommit, committed: what a scan counts (records read; records of transactions
//   that never committed; the end of the last commit record), so that tallies and recovery
//   events are the same with or without the hint.
// - entries: for each key the segment touches, its last committed operation there: op 1 = put
//   (offset, length: the record), op 2 = delete (offset, length: the tombstone record). Each
//   key appears once, in any order. Applying every segment's entries in segment order (put:
//   set; delete: remove) gives the index a scan gives: within a segment only the last
//   operation on a key matters, and a delete in a later segment hides a put in an earlier one
//   exactly as the scan's would. A compacted segment's hint holds only puts.
// - crc: masked CRC-32C of every byte before it. A hint that fails any check is ignored and
//   its segment scanned (a RecoveryEvent), so a missing or damaged hint is never an error.
//
// Record checksums are not in the hint: every read checks the record's own CRC, and the
// segment the hint matches was synced whole before the hint was written.
// Hints are written only for unencrypted segments (they would list plaintext keys).

/// One entry of a hint: a key's last committed operation in the segment.
struct HintEntry: Equatable, Sendable {
    var isPut: Bool
    var keyspace: Keyspace
    var key: StorageKey
    var offset: UInt32
    var length: UInt32
}

/// A decoded hint file.
struct HintFile: Equatable, Sendable {
    static let magic: [UInt8] = Array("STRATAHT".utf8)
    static let version: UInt16 = 1
    static let headerSize = 64
    static let entryHeaderSize = 15
    static let checksumSize = 4
    static let putOp: UInt8 = 1
    static let deleteOp: UInt8 = 2

    var kind: SegmentKind
    var segmentNumber: UInt32
    var salt: UInt32
    var sealedLength: UInt64
    var lastSequence: UInt64
    var floorSequence: UInt64
    var records: UInt32
    var uncommittedRecords: UInt32
    var committedEnd: UInt32
    var entries: [HintEntry]

    /// `000007.hint` for segment 7.
    static func name(for number: UInt32) -> String {
        let segment = SegmentFile.name(for: number)
        return segment.dropLast(4) + ".hint"
    }

    /// The number of a hint file's name, or nil when `name` is not one.
    static func number(fromName name: String) -> UInt32? {
        guard name.hasSuffix(".hint") else { return nil }
        return SegmentFile.number(fromName: name.dropLast(5) + ".seg")
    }

    /// The hint's bytes, checksum included.
    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.headerSize + entries.count * 24 + Self.checksumSize)
        bytes.append(contentsOf: Self.magic)
        bytes.appendLittleEndian(Self.version)
        bytes.append(kind.rawValue)
        bytes.append(0)
        bytes.appendLittleEndian(segmentNumber)
        bytes.appendLittleEndian(salt)
        bytes.appendLittleEndian(UInt32(0))
        bytes.appendLittleEndian(sealedLength)
        bytes.appendLittleEndian(lastSequence)
        bytes.appendLittleEndian(floorSequence)
        bytes.appendLittleEndian(records)
        bytes.appendLittleEndian(uncommittedRecords)
        bytes.appendLittleEndian(committedEnd)
        bytes.appendLittleEndian(UInt32(truncatingIfNeeded: entries.count))
        for entry in entries {
            bytes.append(entry.isPut ? Self.putOp : Self.deleteOp)
            bytes.appendLittleEndian(entry.keyspace.rawValue)
            let key = entry.key.bytes
            bytes.appendLittleEndian(UInt16(truncatingIfNeeded: key.count))
            bytes.appendLittleEndian(entry.offset)
            bytes.appendLittleEndian(entry.length)
            bytes.append(contentsOf: key)
        }
        let crc = bytes.withUnsafeBytes { CRC32C.mask(CRC32C.checksum($0)) }
        bytes.appendLittleEndian(crc)
        return bytes
    }
}
