// StorageKey+SeededHash: the seeded hash ChangePositions probes with.
//
// A key of up to 15 bytes hashes as two 64-bit words, the key's bytes zero-padded to 15 and
// then its length (the memory image of StorageKey's inline form):
//
//   ┌── w0: bytes 0…7 ──┐┌── w1: bytes 8…14 │ length ──┐
//
// StorageKey keeps that form to itself, so the words are rebuilt here from the bytes its
// public, inlinable `withUnsafeBytes` hands out, with at most two unaligned loads and no copy:
// for the 8-byte keys of integers it costs what reading the words directly did.

import StrataStorage

extension StorageKey {
    /// A hash of the key under `seed`, for hash tables of keys that keep their own: for a key of
    /// up to 15 bytes, one 64 × 64 → 128-bit multiply of its two words mixed with the seed (the
    /// step wyhash is built on), a few instructions where `Hasher` takes about a hundred; for a
    /// longer key, `Hasher` over the seed and its bytes. Keep `seed` random and private to the
    /// table (a known seed lets an adversary choose keys that collide).
    /// - Complexity: O(1) for a key of 15 bytes or fewer, O(n) in its length otherwise.
    @inline(__always)
    func hash(seed: UInt64) -> UInt64 {
        withUnsafeBytes { bytes in
            guard bytes.count <= StorageKey.inlineCapacity else {
                var hasher = Hasher()
                hasher.combine(seed)
                hasher.combine(bytes: bytes)
                return UInt64(bitPattern: Int64(hasher.finalize()))
            }
            let (w0, w1) = Self.words(ofShortKey: bytes)
            let product = (w0 ^ seed ^ 0xA076_1D64_78BD_642F)
                .multipliedFullWidth(by: w1 ^ (seed &* 0x9E37_79B9_7F4A_7C15) ^ 0xE703_7ED1_A0B4_28DB)
            return product.high ^ product.low
        }
    }

    /// The two words of a key of at most 15 bytes (see the file header), in native byte order.
    @inline(__always)
    private static func words(ofShortKey bytes: UnsafeRawBufferPointer) -> (UInt64, UInt64) {
        let count = bytes.count
        // Built as little-endian numbers: byte i of a word at bits 8i.
        var low: UInt64 = 0
        var high = UInt64(truncatingIfNeeded: count) &<< 56
        if count >= 8 {
            low = UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
            if count > 8 {
                // The last 8 bytes, shifted down past the ones before byte 8.
                let last = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self))
                high |= last &>> (UInt64(16 - count) &* 8)
            }
        } else if count >= 4 {
            // The first and the last 4 bytes; where they overlap they agree.
            let first = UInt64(UInt32(littleEndian: bytes.loadUnaligned(as: UInt32.self)))
            let last = UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)))
            low = first | last &<< (UInt64(count - 4) &* 8)
        } else {
            for index in 0..<count { low |= UInt64(bytes[index]) &<< (UInt64(index) &* 8) }
        }
        return (UInt64(littleEndian: low), UInt64(littleEndian: high))
    }
}
