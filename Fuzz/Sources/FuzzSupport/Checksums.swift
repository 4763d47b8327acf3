// CRC-32C and the on-disk layouts the fuzz targets need to repair checksums.
//
// StrataStorage keeps its CRC32C and format constants internal; the fuzzers use only the public
// API, so the few facts they need are restated here (from Format/RecordFormat.swift,
// Format/SegmentHeader.swift, Format/RecordSeal.swift and Log/Manifest.swift). If the format changes, change these too:
// the seed generator's output stops opening and `swift run MakeSeeds` fails loudly.

/// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), masked as LevelDB masks it.
public enum CRC32C {
    private static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        return crc
    }

    /// The CRC-32C of `bytes`.
    public static func checksum<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var crc: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { table in
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        return crc ^ 0xFFFF_FFFF
    }

    /// LevelDB's mask: rotate right 15 bits, add a constant.
    public static func mask(_ crc: UInt32) -> UInt32 {
        ((crc >> 15) | (crc << 17)) &+ 0xA282_EAD8
    }

    /// The masked checksum of `bytes`, as Strata stores it.
    public static func masked<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        mask(checksum(bytes))
    }
}

/// Facts about the on-disk format, restated from StrataStorage.
public enum Layout {
    /// Segment header size; records start here.
    public static let segmentHeaderSize = 64
    /// Record header: crc(4) length(4) kind(1) flags(1) sequence(8).
    public static let recordHeaderSize = 18
    /// Manifest: magic(8) ver(2) reserved(2) count(4) lastSeq(8), then segment#(4)×N, crc(4).
    public static let manifestFixedSize = 28
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
        guard segment.count >= Layout.segmentHeaderSize else { return }
        segment.storeLE(CRC32C.masked(segment[0..<60]), at: 60)
    }

    /// Walks the record chain from the end of the header by each record's length field and
    /// recomputes every whole record's CRC. Stops at the first record that runs past the end.
    /// In a version-2 segment a record's CRC covers the header's salt (bytes [25, 29)) and the
    /// record's offset (LE u64) before its bytes [4, end). Linear in the segment's size.
    public static func recordChecksums(_ segment: inout [UInt8]) {
        let salted = segment.count >= Layout.segmentHeaderSize && segment.loadLE(at: 8, as: UInt16.self) != 1
        let salt = salted ? Array(segment[25..<29]) : []
        var offset = Layout.segmentHeaderSize
        while offset + Layout.recordHeaderSize <= segment.count {
            let payload = Int(segment.loadLE(at: offset + 4, as: UInt32.self))
            let end = offset + Layout.recordHeaderSize + payload
            guard end <= segment.count else { return }
            var seed: [UInt8] = []
            if salted {
                seed = salt
                seed.appendLE(UInt64(offset))
            }
            segment.storeLE(CRC32C.masked(seed + segment[(offset + 4)..<end]), at: offset)
            offset = end
        }
    }

    /// Makes the transactions along the record chain consistent: for each commit record (kind
    /// 3 with a 16-byte payload), gives the records since the previous commit the commit's
    /// sequence and sets the commit's record count to their number. One mutated sequence then
    /// moves a whole transaction, instead of leaving it uncommitted. Checksums are not
    /// repaired here (see `recordChecksums`). Linear in the segment's size.
    public static func transactions(_ segment: inout [UInt8]) {
        var offset = Layout.segmentHeaderSize
        var pending: [Int] = []
        while offset + Layout.recordHeaderSize <= segment.count {
            let payload = Int(segment.loadLE(at: offset + 4, as: UInt32.self))
            let end = offset + Layout.recordHeaderSize + payload
            guard end <= segment.count else { return }
            if segment[offset + 8] == 3, payload == 16 {
                let sequence = segment.loadLE(at: offset + 10, as: UInt64.self)
                for record in pending { segment.storeLE(sequence, at: record + 10) }
                segment.storeLE(UInt32(pending.count), at: offset + Layout.recordHeaderSize)
                pending.removeAll(keepingCapacity: true)
            } else {
                pending.append(offset)
            }
            offset = end
        }
    }

    /// Rewrites a manifest's segment count to fit its length (when the length can fit one).
    public static func manifestCount(_ manifest: inout [UInt8]) {
        let extra = manifest.count - Layout.manifestFixedSize
        guard extra >= 0, extra % 4 == 0 else { return }
        manifest.storeLE(UInt32(extra / 4), at: 12)
    }

    /// Recomputes a manifest's trailing CRC over every byte before it.
    public static func manifestChecksum(_ manifest: inout [UInt8]) {
        guard manifest.count >= 4 else { return }
        let crcOffset = manifest.count - 4
        manifest.storeLE(CRC32C.masked(manifest[0..<crcOffset]), at: crcOffset)
    }
}

/// Builds files in the format, for seeds and fixtures.
public enum Build {
    /// A manifest listing `segments` with `lastSequence`, with a valid checksum.
    public static func manifest(segments: [UInt32], lastSequence: UInt64) -> [UInt8] {
        var bytes = Array("STRATAMF".utf8)
        bytes.appendLE(UInt16(1))
        bytes.appendLE(UInt16(0))
        bytes.appendLE(UInt32(segments.count))
        bytes.appendLE(lastSequence)
        for segment in segments { bytes.appendLE(segment) }
        bytes.appendLE(CRC32C.masked(bytes))
        return bytes
    }
}
