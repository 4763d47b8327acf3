@_spi(Testing) import StrataStorage

/// Where the checksums of the fixture's files are, by the layouts of format.md (§3 segment
/// header, §4 record frame, §6 MANIFEST, §13 COMMITTED), and how to make one match damaged bytes again. A
/// record's checksum is seeded with its segment's salt and its offset (RecordSeal).
public enum SweepChecksums {
    /// A checksum: the masked CRC-32C stored at `crcOffset` covers `covered`.
    public struct Span: Sendable {
        public var crcOffset: Int
        public var covered: Range<Int>
    }

    /// The checksum whose covered bytes hold `offset`, in the undamaged file `bytes`; nil for
    /// a byte of a checksum itself (a recomputed checksum would undo the damage).
    public static func span(covering offset: Int, in bytes: [UInt8], file: String) -> Span? {
        // The MANIFEST, COMMITTED and hints end in a checksum of the rest.
        let spans = file == "MANIFEST" || file == "COMMITTED" || file.hasSuffix(".hint")
            ? [Span(crcOffset: bytes.count - 4, covered: 0..<(bytes.count - 4))]
            : segmentSpans(bytes)
        return spans.first { $0.covered.contains(offset) }
    }

    /// The header's checksum and each record's, walking the frames from offset 64.
    public static func segmentSpans(_ bytes: [UInt8]) -> [Span] {
        let headerCRC = SegmentHeader.checksumOffset
        var spans = [Span(crcOffset: headerCRC, covered: 0..<headerCRC)]
        var offset = SegmentHeader.size
        while offset + RecordFormat.headerSize <= bytes.count {
            // A length that reaches past the file (damaged) covers what the file holds.
            let end = min(offset + RecordFormat.headerSize + Int(littleEndian32(bytes, offset + 4)), bytes.count)
            spans.append(Span(crcOffset: offset, covered: (offset + 4)..<end))
            offset = end
        }
        return spans
    }

    /// Stores the checksum of `span`'s bytes of `bytes`. A record whose (damaged) length field
    /// now reaches further gets the checksum of its new extent when the file holds it.
    static func reseal(_ span: Span, in bytes: inout [UInt8]) {
        var covered = span.covered
        if span.crcOffset >= SegmentHeader.size, span.crcOffset + RecordFormat.headerSize <= bytes.count {
            let end = span.crcOffset + RecordFormat.headerSize + Int(littleEndian32(bytes, span.crcOffset + 4))
            if end <= bytes.count { covered = (span.crcOffset + 4)..<end }
        }
        let seed = span.crcOffset >= SegmentHeader.size ? seal(of: bytes).seed(at: span.crcOffset) : 0
        let crc = Array(bytes[covered]).withUnsafeBytes { CRC32C.checksum($0, extending: seed) }
        let masked = CRC32C.mask(crc)
        for index in 0..<4 { bytes[span.crcOffset + index] = UInt8(truncatingIfNeeded: masked >> (8 * index)) }
    }

    /// The seal of the segment `bytes`: its header's salt (bytes 25..<29) in version 2.
    private static func seal(of bytes: [UInt8]) -> RecordSeal {
        let at = SegmentHeader.versionOffset
        let version = UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
        return version > SegmentHeader.unsaltedVersion
            ? RecordSeal(salt: littleEndian32(bytes, SegmentHeader.saltOffset)) : .unsalted
    }

    private static func littleEndian32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
    }
}
