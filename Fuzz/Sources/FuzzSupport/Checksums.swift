// Checksum repair and file building for the fuzz targets.
//
// The format facts come from StrataStorage's `@_spi(Testing)` seam (CRC32C, RecordSeal,
// RecordFormat, SegmentHeader and Manifest constants), so a repair computes a checksum exactly
// as the engine does and a format change reaches the fuzzers without a copy to update. Field
// offsets inside a record (length at 4, kind at 8, sequence at 10) follow format.md §4.

@_spi(Testing) import StrataStorage

/// The masked CRC-32C of `bytes`, continuing from `seed`, as Strata stores it.
func maskedChecksum(_ bytes: ArraySlice<UInt8>, extending seed: UInt32 = 0) -> UInt32 {
    CRC32C.mask(bytes.withUnsafeBytes { CRC32C.checksum($0, extending: seed) })
}

extension Array where Element == UInt8 {
    /// Appends a little-endian integer.
    public mutating func appendLE<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    /// Reads a little-endian integer at `offset`; the caller checks the range.
    public func loadLE<T: FixedWidthInteger>(at offset: Int, as: T.Type = T.self) -> T {
        var value: T = 0
        for i in (0..<MemoryLayout<T>.size).reversed() { value = value << 8 | T(self[offset + i]) }
        return value
    }

    /// Stores a little-endian integer at `offset`; the caller checks the range.
    public mutating func storeLE<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        Swift.withUnsafeBytes(of: value.littleEndian) { bytes in
            for (i, byte) in bytes.enumerated() { self[offset + i] = byte }
        }
    }
}

/// Checksum repairs: they let a mutated input get past the CRC checks, so that the fuzzer
/// explores the decoding and recovery logic behind them instead of only the checksum test.
public enum Repair {
    /// Recomputes the segment header's CRC (bytes [60, 64) over [0, 60)) when the header is whole.
    public static func segmentHeaderChecksum(_ segment: inout [UInt8]) {
        guard segment.count >= SegmentHeader.size else { return }
        let crcOffset = SegmentHeader.checksumOffset
        segment.storeLE(maskedChecksum(segment[..<crcOffset]), at: crcOffset)
    }

    /// Walks the record chain from the end of the header by each record's length field and
    /// recomputes every whole record's CRC. Stops at the first record that runs past the end.
    /// Unless the header is whole and says version 1, a record's CRC is seeded with the
    /// header's salt and the record's offset (RecordSeal) before covering its bytes [4, end).
    /// Linear in the segment's size.
    public static func recordChecksums(_ segment: inout [UInt8]) {
        let salted = segment.count >= SegmentHeader.size
            && segment.loadLE(at: SegmentHeader.versionOffset, as: UInt16.self) != SegmentHeader.unsaltedVersion
        let seal = salted
            ? RecordSeal(salt: segment.loadLE(at: SegmentHeader.saltOffset, as: UInt32.self))
            : .unsalted
        var offset = SegmentHeader.size
        while offset + RecordFormat.headerSize <= segment.count {
            let payload = Int(segment.loadLE(at: offset + 4, as: UInt32.self))
            let end = offset + RecordFormat.headerSize + payload
            guard end <= segment.count else { return }
            let crc = maskedChecksum(segment[(offset + 4)..<end], extending: seal.seed(at: offset))
            segment.storeLE(crc, at: offset)
            offset = end
        }
    }

    /// Makes the transactions along the record chain consistent: for each commit record (kind
    /// 3 with a 16-byte payload), gives the records since the previous commit the commit's
    /// sequence and sets the commit's record count to their number. One mutated sequence then
    /// moves a whole transaction, instead of leaving it uncommitted. Checksums are not
    /// repaired here (see `recordChecksums`). Linear in the segment's size.
    public static func transactions(_ segment: inout [UInt8]) {
        var offset = SegmentHeader.size
        var pending: [Int] = []
        while offset + RecordFormat.headerSize <= segment.count {
            let payload = Int(segment.loadLE(at: offset + 4, as: UInt32.self))
            let end = offset + RecordFormat.headerSize + payload
            guard end <= segment.count else { return }
            if segment[offset + 8] == 3, payload == RecordFormat.commitPayloadSize {
                let sequence = segment.loadLE(at: offset + 10, as: UInt64.self)
                for record in pending { segment.storeLE(sequence, at: record + 10) }
                segment.storeLE(UInt32(pending.count), at: offset + RecordFormat.headerSize)
                pending.removeAll(keepingCapacity: true)
            } else {
                pending.append(offset)
            }
            offset = end
        }
    }

    /// Rewrites a manifest's segment count to fit its length (when the length can fit one).
    public static func manifestCount(_ manifest: inout [UInt8]) {
        let extra = manifest.count - Manifest.fixedSize
        guard extra >= 0, extra % 4 == 0 else { return }
        manifest.storeLE(UInt32(extra / 4), at: 12)
    }

    /// Recomputes a manifest's trailing CRC over every byte before it.
    public static func manifestChecksum(_ manifest: inout [UInt8]) {
        guard manifest.count >= 4 else { return }
        let crcOffset = manifest.count - 4
        manifest.storeLE(maskedChecksum(manifest[..<crcOffset]), at: crcOffset)
    }
}

/// Builds files in the format, for seeds and fixtures.
public enum Build {
    /// A manifest listing `segments` with `lastSequence`, with a valid checksum.
    public static func manifest(segments: [UInt32], lastSequence: UInt64) -> [UInt8] {
        var bytes = Manifest.magic
        bytes.appendLE(Manifest.logOnlyVersion)
        bytes.appendLE(UInt16(0))
        bytes.appendLE(UInt32(segments.count))
        bytes.appendLE(lastSequence)
        for segment in segments { bytes.appendLE(segment) }
        bytes.appendLE(maskedChecksum(bytes[...]))
        return bytes
    }
}
