// The fixed header at the start of every segment file. Part of the on-disk format.
//
// ┌───────────┬─────────┬──────────┬──────────┬──────────┬──────────┬────────┬──────────┬──────────┬────────────┬────────────┬───────────┬────────┐
// │ magic (8) │ ver (2) │ hsize(2) │ seg# (4) │ dict (4) │cipher (4)│kind (1)│ salt (4) │ resv (3) │ sealed (8) │key salt(12)│key check 8│ crc (4)│
// └───────────┴─────────┴──────────┴──────────┴──────────┴──────────┴────────┴──────────┴──────────┴────────────┴────────────┴───────────┴────────┘
//   0           8         10         12         16         20         24       25         29         32           40           52          60
//
// - magic: the ASCII bytes "STRATASG".
// - ver: format version, little-endian UInt16. This code writes version 2 and reads 1 and 2;
//   a newer version is refused with `.unsupportedFormat`, version 0 (never written) is
//   corruption. The versions differ only in the salt: version 1 has none (bytes 25..<29 are
//   reserved zeros) and its record checksums are not seeded. A store written by an older build
//   keeps reading; its new segments are version 2. An older build refuses a version-2 segment
//   with `.unsupportedFormat` instead of misreading it.
// - hsize: header size in bytes (64); records start at this offset.
// - seg#: the segment's number, which is also its file name (000001.seg).
// - dict: id of the zstd dictionary of a compacted segment (0 = none). Non-zero only in a
//   plain (cipher 0) compacted segment whose first record, at offset 64, is a dictionary record
//   holding a zstd dictionary with this id (SegmentDictionary.swift); its puts flagged 0x03 are
//   compressed with it (RecordFormat.swift). A non-zero id in a log segment or an encrypted one
//   is corruption (never written). Builds that predate dictionaries refuse a non-zero id with
//   `.unsupportedFormat`, so they never misread such a segment: no version change.
// - cipher: id of the at-rest cipher. 0 = none; 1 = AES-256-GCM over the payload of every put
//   and delete, under a key derived for this segment from the store's 64-byte key
//   (SegmentCipher.swift, StoreKey.swift). Any other id is refused with `.unsupportedFormat`,
//   and so is 1 in a version-1 header. Builds that predate encryption refused any id but 0, so
//   they refuse an encrypted segment with `.unsupportedFormat` instead of misreading it: no
//   version change.
// - kind: what the segment holds (SegmentKind): 0 = a log segment (transactions of puts and
//   deletes closed by commit records), 1 = a compacted segment (only puts, each one committed
//   on its own, in any order, keeping their original sequences). Any other value is refused
//   with `.unsupportedFormat`. Byte 24 was reserved (written as 0) before compaction existed,
//   so every older segment reads as a log segment. A reader that predates the field would
//   ignore it, which is safe only because such a reader never gets to a compacted segment: a
//   MANIFEST that lists one has version 2, which that reader refuses (Log/Manifest.swift).
// - salt (version 2): a random little-endian UInt32 chosen when the segment is created; it seeds
//   every record checksum of the segment, with the record's offset (RecordSeal.swift).
// - sealed: the segment's length in bytes once it is sealed, little-endian UInt64; 0 = not
//   recorded. A roll writes it into the header of the log segment it seals, and compaction into
//   each compacted segment it fills, just before the fsync that makes the segment whole, so
//   it is durable before any MANIFEST lists a later segment (or the compacted one). Recovery
//   refuses a non-newest segment shorter than it: a cut where a record starts leaves only whole
//   records, which no checksum can tell from a whole segment. A newest log segment may carry a
//   stale value (a crash between the rewrite and the next MANIFEST); it is not checked, and the
//   next roll writes it again. In reserved bytes, which every earlier build wrote as zeros and
//   does not read, so no version change: segments written before the field read as 0 and are
//   not checked.
// - key salt, key check (cipher 1 only; zeros, reserved, otherwise): the random salt the
//   segment's key is derived with, and the first 8 bytes of an HMAC of it under a key derived
//   from the store's key (StoreKey.swift). Open compares the key check of the first segment it
//   reads with the given key's: a mismatch is `.invalidKey` (a later segment that disagrees is
//   corruption).
// - reserved: zero.
// - crc: masked CRC-32C of bytes [0, 60).

/// The header of a segment file.
///
/// `@_spi(Testing)`: through `@_spi(Testing) import StrataStorage`, code that re-checksums a
/// damaged segment sees the layout facts it needs: ``size``, ``versionOffset``,
/// ``currentVersion``, ``unsaltedVersion``, ``saltOffset`` and ``checksumOffset``. Decoding
/// and encoding stay internal.
@_spi(Testing) public struct SegmentHeader: Equatable, Sendable {
    /// The header's size in bytes; records start at this offset.
    @_spi(Testing) public static let size = 64
    static let magic: [UInt8] = Array("STRATASG".utf8)
    /// Where the little-endian UInt16 version lies in the header.
    @_spi(Testing) public static let versionOffset = 8
    /// The version this build writes.
    @_spi(Testing) public static let currentVersion: UInt16 = 2
    /// The version before record checksums were salted; still read.
    @_spi(Testing) public static let unsaltedVersion: UInt16 = 1
    /// Where the little-endian UInt32 salt lies in a header of a salted version.
    @_spi(Testing) public static let saltOffset = 25
    /// Where the masked CRC-32C of the bytes before it lies: the header's last 4 bytes.
    @_spi(Testing) public static let checksumOffset = 60

    var version: UInt16 = SegmentHeader.currentVersion
    var segmentNumber: UInt32
    var dictionaryID: UInt32 = 0
    var cipherID: UInt32 = 0
    var kind: SegmentKind = .log
    /// The salt of a version-2 header (0 in a version-1 header, which has none).
    var salt: UInt32 = 0
    /// The segment's length when it was sealed; 0 when not recorded (a segment still being
    /// written, or one sealed by a build that predates the field).
    var sealedLength: UInt64 = 0

    /// The key salt and key check of an encrypted segment (cipher id 1); empty otherwise.
    var keySalt: [UInt8] = []
    var keyCheck: [UInt8] = []
    /// Whether the header failed only its checksum and was accepted as a seal's rewrite torn by
    /// a crash (`decode(_:file:acceptingTornSeal:)`); its sealed length then reads 0.
    var isTornSeal = false

    /// Where `sealedLength` lies in the header.
    static let sealedLengthOffset = 32
    /// Where the key salt of an encrypted segment lies; its key check follows.
    @_spi(Testing) public static let keySaltOffset = 40

    /// How the segment's record checksums are seeded.
    var recordSeal: RecordSeal {
        version == Self.unsaltedVersion ? .unsalted : RecordSeal(salt: salt)
    }

    /// The header's 64 bytes.
    func encoded() -> [UInt8] {
        var bytes = SegmentHeader.magic
        bytes.appendLittleEndian(version)
        bytes.appendLittleEndian(UInt16(SegmentHeader.size))
        bytes.appendLittleEndian(segmentNumber)
        bytes.appendLittleEndian(dictionaryID)
        bytes.appendLittleEndian(cipherID)
        bytes.append(kind.rawValue)
        if version != Self.unsaltedVersion { bytes.appendLittleEndian(salt) }
        bytes.append(contentsOf: repeatElement(0, count: Self.sealedLengthOffset - bytes.count))
        bytes.appendLittleEndian(sealedLength)
        if cipherID != 0 { bytes += keySalt + keyCheck }
        bytes.append(contentsOf: repeatElement(0, count: Self.checksumOffset - bytes.count))
        bytes.appendLittleEndian(CRC32C.mask(CRC32C.checksum(bytes)))
        return bytes
    }

    /// Reads and checks a header.
    ///
    /// With `acceptingTornSeal` (the newest log segment only), a header whose checksum alone
    /// fails is read with a sealed length of 0 and ``isTornSeal`` set: a crash during a roll's
    /// rewrite of the header (format.md §3) can leave any mix of its old and new bytes, and the
    /// two differ only in the sealed length and the checksum. The caller checks the rest
    /// against the segment's records (Recovery.swift).
    /// - Throws: ``StrataError`` `.corruption` (naming `file`) when the bytes are not a segment
    ///   header, or when a field of a header whose checksum fails does not read;
    ///   `.unsupportedFormat` when the checksum holds and the version, an extension id or the
    ///   kind is not one this code reads.
    static func decode(
        _ bytes: UnsafeRawBufferPointer, file: String, acceptingTornSeal: Bool = false
    ) throws -> SegmentHeader {
        guard bytes.count >= size else {
            throw StrataError.corrupt(
                "segment header cut short (\(bytes.count) of \(size) bytes)", file: file, offset: 0)
        }
        guard bytes[0..<8].elementsEqual(magic) else {
            throw StrataError.corrupt("not a Strata segment (bad magic)", file: file, offset: 0)
        }
        let stored = CRC32C.unmask(bytes.loadLittleEndian(at: checksumOffset, as: UInt32.self))
        let checksumHolds = stored == CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[0..<checksumOffset]))
        guard checksumHolds || acceptingTornSeal else {
            throw checksumMismatch(file: file)
        }
        do {
            return try decodeFields(bytes, file: file, checksumHolds: checksumHolds)
        } catch where !checksumHolds {
            // A header whose checksum fails is damaged wherever a field does not read: its
            // version, cipher or kind are no writer's, so not a newer format's either.
            throw checksumMismatch(file: file)
        }
    }

    /// The fields of a header whose magic is checked, and whose checksum holds unless it is a
    /// torn seal's (`checksumHolds` false: ``sealedLength`` 0, ``isTornSeal`` set).
    private static func decodeFields(
        _ bytes: UnsafeRawBufferPointer, file: String, checksumHolds: Bool
    ) throws -> SegmentHeader {
        let version = bytes.loadLittleEndian(at: versionOffset, as: UInt16.self)
        guard version != 0 else {
            throw StrataError.corrupt(
                "segment format version 0 was never written", file: file, offset: versionOffset)
        }
        guard (unsaltedVersion...currentVersion).contains(version) else {
            throw StrataError(
                .unsupportedFormat,
                "segment format version \(version) is not supported (this build reads versions \(unsaltedVersion) to \(currentVersion)); open it with a newer Strata",
                file: file, offset: versionOffset)
        }
        let headerSize = bytes.loadLittleEndian(at: 10, as: UInt16.self)
        guard headerSize == size else {
            throw StrataError.corrupt("segment header size \(headerSize), expected \(size)", file: file, offset: 10)
        }
        var header = SegmentHeader(
            version: version,
            segmentNumber: bytes.loadLittleEndian(at: 12, as: UInt32.self),
            dictionaryID: bytes.loadLittleEndian(at: 16, as: UInt32.self),
            cipherID: bytes.loadLittleEndian(at: 20, as: UInt32.self))
        guard header.cipherID == 0 || (header.cipherID == SegmentCipher.id && version != unsaltedVersion) else {
            throw StrataError(
                .unsupportedFormat,
                "segment uses cipher \(header.cipherID), which this build does not support (it reads 0, none, and \(SegmentCipher.id), AES-256-GCM)",
                file: file, offset: 20)
        }
        if header.cipherID != 0 {
            let check = keySaltOffset + StoreKey.saltLength
            header.keySalt = Array(bytes[keySaltOffset..<check])
            header.keyCheck = Array(bytes[check..<(check + StoreKey.checkLength)])
        }
        guard let kind = SegmentKind(rawValue: bytes[24]) else {
            throw StrataError(
                .unsupportedFormat,
                "segment kind \(bytes[24]) is not supported (this build reads log and compacted segments); open it with a newer Strata",
                file: file, offset: 24)
        }
        header.kind = kind
        guard header.dictionaryID == 0 || (kind == .compacted && header.cipherID == 0) else {
            throw StrataError.corrupt(
                "segment header names dictionary \(header.dictionaryID) in a segment that cannot have one "
                    + "(\(kind == .log ? "a log segment" : "an encrypted segment"))",
                file: file, offset: 16)
        }
        if version != unsaltedVersion {
            header.salt = bytes.loadLittleEndian(at: saltOffset, as: UInt32.self)
        }
        header.sealedLength = checksumHolds ? bytes.loadLittleEndian(at: sealedLengthOffset, as: UInt64.self) : 0
        header.isTornSeal = !checksumHolds
        return header
    }

    /// The error of a header whose checksum fails.
    static func checksumMismatch(file: String) -> StrataError {
        StrataError.corrupt("segment header checksum mismatch", file: file, offset: 0)
    }
}

extension SegmentHeader {
    /// A header of the current version; `seal` supplies the salt.
    init(segmentNumber: UInt32, kind: SegmentKind = .log, seal: RecordSeal) {
        self.init(segmentNumber: segmentNumber, kind: kind, salt: seal.salt ?? 0)
        dictionaryID = seal.dictionary?.id ?? 0
        if let cipher = seal.cipher {
            cipherID = SegmentCipher.id
            keySalt = cipher.salt
            keyCheck = cipher.check
        }
    }
}

/// What a segment holds: the `kind` byte of its header. Part of the on-disk format.
enum SegmentKind: UInt8, Sendable {
    /// An append-only segment of the log: transactions of puts and deletes, each closed by a
    /// commit record, in increasing sequence order. Only the newest log segment is written to.
    case log = 0
    /// A segment written whole by compaction and synced before any MANIFEST names it: only put
    /// records, each one committed on its own, in any order, keeping their original sequences.
    case compacted = 1
}
