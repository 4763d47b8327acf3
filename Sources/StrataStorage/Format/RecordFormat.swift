// The record frame: the unit every segment file is made of.
//
// These constants are part of the on-disk format and must not change; a change is a new
// format version (see SegmentHeader.swift). The same spec, with tables, is in docs/format.md.
//
// ┌──────────┬──────────┬──────┬───────┬──────────┬─────────────────────┐
// │ crc  (4) │ length(4)│kind 1│flags 1│ seq  (8) │ payload (length)    │
// └──────────┴──────────┴──────┴───────┴──────────┴─────────────────────┘
//   0          4          8      9       10         18
//
// - crc: CRC-32C of bytes [4, 18 + length) — length, kind, flags, sequence and payload —
//   masked as LevelDB masks it (CRC32C.mask), little-endian. In a version-2 segment the CRC is
//   seeded with the segment's salt and the record's offset in the segment (RecordSeal.swift),
//   so a frame is valid only where it was written; in a version-1 segment it is not seeded.
// - length: payload byte count, little-endian UInt32, at most `RecordFormat.maxPayloadLength`.
// - kind: 1 put, 2 delete, 3 commit, 4 dictionary. 0 is never written (a zero-filled tail is
//   not a record). A dictionary record lies only at offset 64 of a compacted segment whose
//   header names a dictionary (SegmentDictionary.swift), and nowhere else.
// - flags: bit 0 = payload value is zstd-compressed (put only); bit 1 = compressed with the
//   segment's dictionary (put only, always with bit 0, only in a segment with a dictionary).
//   Other bits must be 0.
// - seq: the sequence number of the transaction the record belongs to, little-endian UInt64.
//   Every record of one transaction carries the same sequence; sequences strictly increase
//   along the log segments (a failed transaction's number is never reused). Compacted
//   segments keep each put's original sequence, in any order (SegmentHeader.swift).
//
// Payloads:
//
//   put     keyspace u32 │ key length u16 │ key │ value
//           (compressed: keyspace u32 │ key length u16 │ key │ raw length u32 │ zstd frame)
//   delete  keyspace u32 │ key length u16 │ key
//   commit  record count u32 │ reserved u32 (0) │ synced-through u64
//   dictionary  a zstd dictionary (zstd's format; its id is the segment header's dictionary id)
//
// A transaction is its put/delete records followed by one commit record with the same
// sequence whose record count equals the number of records before it. Recovery applies a
// transaction only when its commit record is present. `synced-through` is the segment offset
// up to which the writer had fsynced the segment when it wrote the commit: damage below that
// offset cannot be a torn write, so recovery reports it as corruption.
//
// Invariant: a transaction never spans two segments.

/// The kinds of record in a segment.
enum RecordKind: UInt8, Sendable {
    case put = 1
    case delete = 2
    case commit = 3
    /// The zstd dictionary of a compacted segment (SegmentDictionary.swift).
    case dictionary = 4
}

/// Constants of the record frame. Part of the on-disk format.
///
/// `@_spi(Testing)`: through `@_spi(Testing) import StrataStorage`, tests and fuzzers that walk
/// the records of a segment see ``headerSize`` and ``commitPayloadSize``; the other constants
/// stay internal.
@_spi(Testing) public enum RecordFormat {
    /// Bytes before the payload: crc(4) + length(4) + kind(1) + flags(1) + sequence(8).
    @_spi(Testing) public static let headerSize = 18
    /// Bytes of a commit record's payload.
    @_spi(Testing) public static let commitPayloadSize = 16
    /// Bytes of a whole commit record.
    static let commitRecordSize = headerSize + commitPayloadSize
    /// Flag bit: the value of a put is zstd-compressed and preceded by its raw length.
    static let compressedFlag: UInt8 = 0x01
    /// Flag bit, only with `compressedFlag`: the value was compressed with the segment's
    /// dictionary.
    static let dictionaryFlag: UInt8 = 0x02
    /// All flag bits this version understands.
    static let knownFlags: UInt8 = compressedFlag | dictionaryFlag
    /// The largest payload a record may declare (1 GiB). Larger lengths are corruption.
    static let maxPayloadLength = 1 << 30
    /// The largest value any store accepts (the upper bound of `Store.Options.maxValueSize`),
    /// and so the largest raw length a compressed put may declare: a larger one is corruption,
    /// whatever the reading store's own `maxValueSize`.
    static let maxValueLength = maxPayloadLength / 2
    /// Sequences at or above this are refused as corruption: no store commits 2^62 times, and
    /// the bound keeps `sequence + 1` from ever overflowing.
    static let maxSequence: UInt64 = 1 << 62
    /// The longest key, in bytes.
    static let maxKeyLength = Int(UInt16.max)
    /// Bytes of a put/delete payload before the key: keyspace(4) + key length(2).
    static let keyPrefixSize = 6
}
