// StorageKey: the key of a record, a short byte string.
//
// Keys of up to 15 bytes (every integer, ObjectId and UUID key of the object layer) are held
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

extension StorageKey: Comparable {
    /// Byte-wise lexicographic order.
    public static func < (lhs: StorageKey, rhs: StorageKey) -> Bool {
        lhs.withUnsafeBytes { l in
            rhs.withUnsafeBytes { r in l.lexicographicallyPrecedes(r) }
        }
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
