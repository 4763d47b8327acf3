import Crypto

// The 64-byte key of an encrypted store, and what is derived from it. Part of the on-disk
// format: the derivations below decide which bytes a key reads.
//
//   64-byte key (caller's) ──HKDF-SHA256(salt: none, info: "strata key check v1")──▶ check key (32)
//                         └─HKDF-SHA256(salt: key salt, info: "strata segment key v1" ‖ seg# u32)
//                                                                        ──▶ segment key (32)
//
//   key check (8) = HMAC-SHA256(check key, key salt)[0..<8]
//
// Every encrypted segment has its own 12-byte random key salt, kept in its header with the
// key check (SegmentHeader.swift). The key check tells a wrong key at open (`.invalidKey`)
// instead of leaving it to fail on the first record; it is 64 bits, so a wrong key passes it
// once in 2^64 opens and then fails every record's authentication (`.corruption`). It reveals
// nothing of the key but that two segments with the same salt share one, and salts are random.

/// The key a store is encrypted with. Immutable; `Sendable`.
struct StoreKey: Sendable {
    /// Bytes of a key: Realm's size (its 512-bit encryption key).
    static let length = 64
    /// Bytes of a segment's key salt.
    static let saltLength = 12
    /// Bytes of a segment's key check.
    static let checkLength = 8

    private let material: SymmetricKey
    private let checkKey: SymmetricKey

    /// The key made of `bytes`.
    /// - Throws: ``StrataError`` `.invalidKey` when `bytes` is not 64 bytes long.
    init(_ bytes: [UInt8]) throws(StrataError) {
        guard bytes.count == Self.length else {
            throw StrataError(
                .invalidKey, "an encryption key must be \(Self.length) bytes long; this one has \(bytes.count)")
        }
        material = SymmetricKey(data: bytes)
        checkKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: material, info: Array("strata key check v1".utf8), outputByteCount: 32)
    }

    /// The key check of a segment whose header holds `salt`.
    func check(salt: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: salt, using: checkKey).prefix(Self.checkLength))
    }

    /// The AES-256-GCM key of segment `number`, whose header holds `salt`.
    func segmentKey(number: UInt32, salt: [UInt8]) -> SymmetricKey {
        var info = Array("strata segment key v1".utf8)
        info.appendLittleEndian(number)
        return HKDF<SHA256>.deriveKey(inputKeyMaterial: material, salt: salt, info: info, outputByteCount: 32)
    }

    /// The cipher of a new segment `number`, with a new random key salt.
    func newSegmentCipher(number: UInt32) -> SegmentCipher {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<Self.saltLength).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return segmentCipher(number: number, salt: salt)
    }

    /// The cipher of segment `number`, whose header holds `salt`.
    func segmentCipher(number: UInt32, salt: [UInt8]) -> SegmentCipher {
        SegmentCipher(
            key: segmentKey(number: number, salt: salt), segmentNumber: number, salt: salt, check: check(salt: salt))
    }

    /// Whether `self` and `other` are the same key, compared in constant time.
    func matches(_ other: StoreKey) -> Bool {
        material.withUnsafeBytes { mine in
            other.material.withUnsafeBytes { theirs in Self.constantTimeEqual(mine, theirs) }
        }
    }

    /// Whether `a` and `b` hold the same bytes; the time taken depends only on their lengths.
    static func constantTimeEqual(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for position in 0..<a.count { difference |= a[position] ^ b[position] }
        return difference == 0
    }
}
