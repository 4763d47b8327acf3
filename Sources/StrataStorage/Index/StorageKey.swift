// StorageKey: the key of a record, a short byte string.
//
// Keys of up to 15 bytes (every integer and ObjectId key of the object layer) are held
// inline in two words, with no heap allocation, so hashing and comparing them is a few
// instructions. Longer keys live in an array.
//
//   inline:  ┌── w0: bytes 0…7 ──┐┌── w1: bytes 8…14 │ length ──┐   (the words' memory image)
//
// A key of 15 bytes or fewer is always inline, so equal keys always have equal representations.

/// The key of a stored value: up to 65,535 bytes.
///
/// Keys are compared byte by byte. `StorageKey` is an immutable value and is `Sendable`.
public struct StorageKey: Hashable, Sendable {
    @usableFromInline
    enum Representation: Hashable, Sendable {
        case inline(UInt64, UInt64)
        case heap([UInt8])
    }

    @usableFromInline
    let representation: Representation

    /// The largest key length kept without a heap allocation.
    public static let inlineCapacity = 15

    /// Makes a key from bytes.
    /// - Precondition: `bytes.count` ≤ 65,535 (``Store`` reports longer keys as
    ///   `.invalidArgument` before they get here).
    @inlinable
    public init<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if bytes.count <= Self.inlineCapacity {
            var words: (UInt64, UInt64) = (0, 0)
            Swift.withUnsafeMutableBytes(of: &words) { raw in
                var i = 0
                for byte in bytes {
                    raw[i] = byte
                    i += 1
                }
                raw[15] = UInt8(truncatingIfNeeded: bytes.count)
            }
            representation = .inline(words.0, words.1)
        } else {
            representation = .heap(Array(bytes))
        }
    }

    /// Makes a key from an integer: its 8 bytes big-endian, so keys sort as the unsigned
    /// integers do.
    @inlinable
    public init(_ value: UInt64) {
        // Memory image of the inline form: the 8 big-endian bytes, then length 8 in byte 15.
        var lengthWord: UInt64 = 0
        Swift.withUnsafeMutableBytes(of: &lengthWord) { $0[7] = 8 }
        representation = .inline(value.bigEndian, lengthWord)
    }

    /// Makes a key from its representation, which must keep the rule above: inline exactly when
    /// the key has 15 bytes or fewer.
    init(representation: Representation) {
        self.representation = representation
    }

    /// Makes a key from the UTF-8 bytes of a string.
    @inlinable
    public init(_ string: String) {
        self.init(Array(string.utf8))
    }

    /// The number of bytes in the key.
    @inlinable
    public var count: Int {
        switch representation {
        case .inline(_, let w1): return Int(Swift.withUnsafeBytes(of: w1) { $0[7] })
        case .heap(let bytes): return bytes.count
        }
    }

    /// Calls `body` with the key's bytes.
    @inlinable
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        switch representation {
        case .inline(let w0, let w1):
            var words = (w0, w1)
            let count = Int(Swift.withUnsafeBytes(of: w1) { $0[7] })
            return try Swift.withUnsafeBytes(of: &words) {
                try body(UnsafeRawBufferPointer(rebasing: $0[0..<count]))
            }
        case .heap(let bytes):
            return try bytes.withUnsafeBytes(body)
        }
    }

    /// The key's bytes.
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }
}

// Comparing inline keys without touching their bytes one by one:
//
// Read as a big-endian integer (`UInt64(bigEndian:)`: a byte swap on a little-endian machine),
// w0's memory image is bytes 0…7 with byte 0 most significant, and w1's is bytes 8…14 followed
// by the length. Comparing (w0, w1) so read, as one 128-bit unsigned
// number, compares the key's 15 bytes zero-padded, then its length. That is byte-wise
// lexicographic order: if the keys differ within the shorter one's length, the first differing
// byte decides in both orders; if not, the shorter key is a prefix of the longer, whose extra
// bytes are ≥ the zero padding they meet, and when they are all zero the smaller length decides.

extension StorageKey: Comparable {
    /// Byte-wise lexicographic order.
    @inlinable
    public static func < (lhs: StorageKey, rhs: StorageKey) -> Bool {
        if case .inline(let l0, let l1) = lhs.representation,
           case .inline(let r0, let r1) = rhs.representation {
            let left = UInt64(bigEndian: l0), right = UInt64(bigEndian: r0)
            return left < right || (left == right && UInt64(bigEndian: l1) < UInt64(bigEndian: r1))
        }
        return compareBytes(lhs, rhs) < 0
    }

    /// Three-way byte-wise lexicographic comparison: negative when `lhs` sorts before `rhs`, zero
    /// when they are equal, positive when it sorts after.
    @inlinable
    static func compare(_ lhs: StorageKey, _ rhs: StorageKey) -> Int {
        if case .inline(let l0, let l1) = lhs.representation,
           case .inline(let r0, let r1) = rhs.representation {
            let left0 = UInt64(bigEndian: l0), right0 = UInt64(bigEndian: r0)
            if left0 != right0 { return left0 < right0 ? -1 : 1 }
            let left1 = UInt64(bigEndian: l1), right1 = UInt64(bigEndian: r1)
            return left1 == right1 ? 0 : (left1 < right1 ? -1 : 1)
        }
        return compareBytes(lhs, rhs)
    }

    /// Three-way comparison of the keys' bytes (the path for heap keys).
    @usableFromInline
    static func compareBytes(_ lhs: StorageKey, _ rhs: StorageKey) -> Int {
        lhs.withUnsafeBytes { left in
            rhs.withUnsafeBytes { right in compareBytes(left, right) }
        }
    }

    /// Three-way byte-wise lexicographic comparison of two byte strings: eight bytes at a time
    /// while both have eight left, then byte by byte, then by length.
    @usableFromInline
    static func compareBytes(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Int {
        let common = Swift.min(left.count, right.count)
        var offset = 0
        while offset + 8 <= common {
            let l = UInt64(bigEndian: left.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            let r = UInt64(bigEndian: right.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            if l != r { return l < r ? -1 : 1 }
            offset += 8
        }
        while offset < common {
            let l = left[offset], r = right[offset]
            if l != r { return l < r ? -1 : 1 }
            offset += 1
        }
        return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
    }
}

extension StorageKey: CustomStringConvertible {
    /// The key as printable text when it is ASCII, otherwise as hex.
    public var description: String {
        withUnsafeBytes { raw in
            if raw.allSatisfy({ $0 >= 0x20 && $0 < 0x7f }) {
                return String(decoding: raw, as: UTF8.self)
            }
            return "0x" + raw.map { byte in
                let hex = String(byte, radix: 16)
                return byte < 16 ? "0" + hex : hex
            }.joined()
        }
    }
}

extension StorageKey {
    /// Hashes the key's representation: the two words of an inline key (no case tag: the length
    /// byte in the second word already tells keys apart), the bytes of a longer one.
    @inlinable
    public func hash(into hasher: inout Hasher) {
        switch representation {
        case .inline(let w0, let w1):
            hasher.combine(w0)
            hasher.combine(w1)
        case .heap(let bytes):
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }
}
