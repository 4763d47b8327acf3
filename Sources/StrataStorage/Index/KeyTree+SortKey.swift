// KeyTree.SortKey: a key in the form the tree stores and compares.
//
// The sort words are two unsigned integers whose order, compared as one 128-bit number (high
// first), is the keys' byte-wise order as far as it goes:
//
//   high: bytes 0…7, big-endian (byte 0 most significant)
//   low:  bytes 8…14, big-endian, then in the lowest byte the length capped at 16
//
// with missing bytes zero. For a key of up to 15 bytes these are its inline words read as
// big-endian numbers, and equal words mean equal keys (see StorageKey's `<`). A longer key has
// 16 in the low byte, more than any short key's length: when its first 15 bytes equal a short
// key's zero-padded bytes, the short one is a prefix of it and sorts first, and otherwise the
// first differing byte decides (a padding zero never exceeds a real byte). Two long keys with
// equal words share their first 15 bytes, and only then are their bytes compared. So a node
// keeps two arrays of words and, only when it holds long keys, an array of their bytes.

extension KeyTree {
    /// A key as the tree stores and compares it: its sort words, and its bytes when it is longer
    /// than 15 bytes.
    struct SortKey {
        /// The low byte of ``low`` for a key longer than 15 bytes.
        static let longKeyMarker: UInt64 = 16

        /// Bytes 0…7, big-endian.
        let high: UInt64
        /// Bytes 8…14, big-endian, then the length capped at 16.
        let low: UInt64
        /// The key's bytes when it is longer than 15 bytes; `nil` otherwise.
        let longBytes: [UInt8]?

        /// The sort key of `key`.
        @inline(__always)
        init(_ key: StorageKey) {
            switch key.representation {
            case .inline(let w0, let w1):
                high = UInt64(bigEndian: w0)
                low = UInt64(bigEndian: w1)
                longBytes = nil
            case .heap(let bytes):
                (high, low) = bytes.withUnsafeBytes { raw in
                    // A heap key has at least 16 bytes, so both loads are in bounds.
                    let high = UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
                    let next = UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
                    return (high, next & ~0xff | Self.longKeyMarker)
                }
                longBytes = bytes
            }
        }

        /// The sort key of the key whose bytes are `bytes` (as ``init(_:)`` of
        /// `StorageKey(bytes)`, without making the StorageKey).
        @inline(__always)
        init(bytes: UnsafeRawBufferPointer) {
            guard bytes.count <= StorageKey.inlineCapacity else {
                let bytes = Array(bytes)
                (high, low) = bytes.withUnsafeBytes { raw in
                    let high = UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self))
                    let next = UInt64(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
                    return (high, next & ~0xff | Self.longKeyMarker)
                }
                longBytes = bytes
                return
            }
            var words: (UInt64, UInt64) = (0, 0)
            Swift.withUnsafeMutableBytes(of: &words) { raw in
                if let base = bytes.baseAddress { raw.baseAddress!.copyMemory(from: base, byteCount: bytes.count) }
                raw[15] = UInt8(truncatingIfNeeded: bytes.count)
            }
            high = UInt64(bigEndian: words.0)
            low = UInt64(bigEndian: words.1)
            longBytes = nil
        }

        /// ``init(bytes:)`` where 16 bytes from `bytes.baseAddress` may be read (`overreadable`),
        /// in which case a short key is read in two loads rather than byte by byte.
        @inline(__always)
        init(bytes: UnsafeRawBufferPointer, overreadable: Bool) {
            let length = bytes.count
            guard overreadable, length <= StorageKey.inlineCapacity, let base = bytes.baseAddress else {
                self.init(bytes: bytes)
                return
            }
            // The first 16 bytes as two little-endian words, the bytes past the key cleared and
            // the length in the last byte: the key's inline memory image (see StorageKey).
            var first = UInt64(littleEndian: base.loadUnaligned(as: UInt64.self))
            var second = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            if length < 8 {
                first &= (1 &<< (8 &* UInt64(length))) &- 1
                second = 0
            } else {
                second &= (1 &<< (8 &* UInt64(length &- 8))) &- 1
            }
            second |= UInt64(length) &<< 56
            self.init(high: first.byteSwapped, low: second.byteSwapped, longBytes: nil)
        }

        /// Negative when this key sorts before `other`, zero when they are equal, positive when
        /// it sorts after (byte-wise order, as the tree keeps its keys).
        @inline(__always)
        func compare(_ other: SortKey) -> Int {
            if high != other.high { return high < other.high ? -1 : 1 }
            if low != other.low { return low < other.low ? -1 : 1 }
            guard let mine = longBytes, let theirs = other.longBytes else { return 0 }
            return mine.lexicographicallyPrecedes(theirs) ? -1 : (mine == theirs ? 0 : 1)
        }

        /// Whether `low` is the low sort word of a key longer than 15 bytes.
        @inline(__always)
        static func isLong(low: UInt64) -> Bool { low & 0xff == longKeyMarker }

        /// A sort key from stored parts.
        @inline(__always)
        init(high: UInt64, low: UInt64, longBytes: [UInt8]?) {
            self.high = high
            self.low = low
            self.longBytes = longBytes
        }

        /// The key these are the sort words (and bytes) of.
        @inline(__always)
        static func storageKey(high: UInt64, low: UInt64, longBytes: [UInt8]?) -> StorageKey {
            if let longBytes { return StorageKey(representation: .heap(longBytes)) }
            return StorageKey(representation: .inline(high.bigEndian, low.bigEndian))
        }

        /// The key this is the sort key of.
        var storageKey: StorageKey { Self.storageKey(high: high, low: low, longBytes: longBytes) }
    }
}
