// The seed of a record's checksum: the segment's salt and the record's offset. Part of the
// on-disk format (RecordFormat.swift, SegmentHeader.swift).
//
// In a version-2 segment a record's CRC-32C starts from the CRC of 12 bytes,
//
// ┌──────────┬──────────────┐
// │ salt (4) │ offset (8)   │   salt: the segment header's, offset: where the record starts
// └──────────┴──────────────┘
//
// and goes on over the record's bytes [4, 18 + length). A frame is valid only in the segment
// it was written to and only at the offset it was written at: a valid frame copied into a
// value (from another segment, or from another place in its own) fails its checksum, so user
// data cannot pose as a commit record when recovery resynchronises past damage. The salt is
// random per segment, so nobody who has not read the file can build a frame that passes.
// Version-1 segments have no salt; their checksums start from 0.
//
// The seal of an encrypted segment also carries the segment's cipher (SegmentCipher.swift):
// the encoder seals, and the decoder opens, the payload of every put and delete with it.
//
// A value; `Sendable`.

/// How the record checksums of one segment are seeded.
///
/// `@_spi(Testing)`: through `@_spi(Testing) import StrataStorage`, code that re-checksums a
/// damaged record sees ``init(salt:)``, ``unsalted`` and ``seed(at:)``:
///
/// ```swift
/// // `record`: the bytes of a record that starts at `offset` in a segment salted with `salt`.
/// let seal = RecordSeal(salt: salt)  // RecordSeal.unsalted in a version-1 segment
/// let crc = record[4...].withUnsafeBytes { CRC32C.checksum($0, extending: seal.seed(at: offset)) }
/// let stored = CRC32C.mask(crc)
/// ```
@_spi(Testing) public struct RecordSeal: Sendable, Equatable {
    /// The segment's salt; nil for a version-1 segment, whose checksums are unseeded.
    let salt: UInt32?
    /// The CRC-32C of the salt's four bytes, computed once per segment.
    private let saltCRC: UInt32
    /// The cipher of an encrypted segment; nil for a plain one.
    let cipher: SegmentCipher?
    /// The zstd dictionary of a compacted segment that has one (SegmentDictionary.swift).
    let dictionary: ZstdDictionary?

    /// The seal of a segment whose header holds `salt`; `nil` for a version-1 segment.
    @_spi(Testing) public init(salt: UInt32?) {
        self.init(salt: salt, cipher: nil)
    }

    /// The seal of a segment whose header holds `salt`, encrypted with `cipher` when not nil.
    init(salt: UInt32?, cipher: SegmentCipher?, dictionary: ZstdDictionary? = nil) {
        self.salt = salt
        self.saltCRC = salt.map { salt in withUnsafeBytes(of: salt.littleEndian) { CRC32C.checksum($0) } } ?? 0
        self.cipher = cipher
        self.dictionary = dictionary
    }

    /// This seal, encrypting with `cipher`.
    func encrypting(with cipher: SegmentCipher?) -> RecordSeal {
        RecordSeal(salt: salt, cipher: cipher, dictionary: dictionary)
    }

    /// This seal, decompressing with `dictionary`.
    func decompressing(with dictionary: ZstdDictionary?) -> RecordSeal {
        RecordSeal(salt: salt, cipher: cipher, dictionary: dictionary)
    }

    /// Where the first put of the segment lies: after the header, and after the dictionary
    /// record of a segment that has one.
    var firstRecordOffset: Int {
        SegmentHeader.size + (dictionary.map { RecordFormat.headerSize + $0.bytes.count } ?? 0)
    }

    public static func == (lhs: RecordSeal, rhs: RecordSeal) -> Bool {
        lhs.salt == rhs.salt && lhs.cipher == rhs.cipher && lhs.dictionary === rhs.dictionary
    }

    /// The seal of version-1 segments: no seed.
    @_spi(Testing) public static let unsalted = RecordSeal(salt: nil)

    /// A seal with a new random salt, for a segment being created.
    static func random() -> RecordSeal {
        var generator = SystemRandomNumberGenerator()
        return RecordSeal(salt: UInt32.random(in: UInt32.min...UInt32.max, using: &generator))
    }

    /// The CRC to extend over the bytes [4, 18 + length) of a record that starts at `offset`.
    @inline(__always)
    @_spi(Testing) public func seed(at offset: Int) -> UInt32 {
        guard salt != nil else { return 0 }
        return withUnsafeBytes(of: UInt64(truncatingIfNeeded: offset).littleEndian) {
            CRC32C.checksum($0, extending: saltCRC)
        }
    }
}
