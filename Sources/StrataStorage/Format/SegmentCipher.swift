import Crypto

// How the records of an encrypted segment (header cipher id 1) are sealed. Part of the on-disk
// format (RecordFormat.swift, SegmentHeader.swift, StoreKey.swift); the same spec is in
// docs/format.md.
//
// The frame stays as it is; the payload of every put and delete record is sealed with
// AES-256-GCM under the segment's key:
//
// ┌──────────┬──────────┬──────┬───────┬──────────┬───────────┬─────────────────────┬──────────┐
// │ crc  (4) │ length(4)│kind 1│flags 1│ seq  (8) │ nonce (12)│ ciphertext (n)      │ tag (16) │
// └──────────┴──────────┴──────┴───────┴──────────┴───────────┴─────────────────────┴──────────┘
//   0          4          8      9       10         18          30                    30 + n
//
// - ciphertext: the payload a plain segment would hold (keyspace, key length, key, value;
//   compressed first when the compressed flag is set), n bytes. `length` is n + 28.
// - nonce: 12 random bytes from the kernel's CSPRNG (NoncePool.swift), new for every record
//   written (a record copied by compaction or `writeCopy` is sealed again, under its new
//   segment's key, with a new nonce). Why random and not derived from the offset: an offset is
//   written twice under one key whenever a failed commit is cut off, or a torn tail is
//   truncated, and the next commit takes its place; a random nonce never repeats in practice. Each segment has its own key (a new random salt),
//   and a segment of at most 4 GiB holds under 2^27 records, so the chance that two records
//   of one key share a nonce stays below 2^-43 (NIST SP 800-38D asks for 2^-32).
// - tag: the GCM tag over the ciphertext and 26 bytes of associated data:
//
//     ┌────────────┬────────────┬──────────────────────────────────────────┐
//     │ seg# (4)   │ offset (8) │ frame bytes [4, 18): length kind flags seq│
//     └────────────┴────────────┴──────────────────────────────────────────┘
//
//   so a sealed payload authenticates only in its segment, at its offset, under its header.
// - crc: as in every segment, over the bytes on disk (the sealed payload). It tells torn
//   writes from the end of the log as before; the tag is what tells tampering: a frame whose
//   CRC holds and whose tag does not is corruption, never a torn tail.
//
// Commit records stay in the clear: they hold a record count and an offset, no user data, and
// recovery must find them by their bytes (SegmentScanner.hasSyncedCommit). What encryption
// leaves readable: file names and sizes, segment headers, the MANIFEST (segment numbers and a
// sequence floor), and per record its length, kind, flags and sequence.

/// The AES-256-GCM key of one encrypted segment, with the salt and key check of its header.
/// Immutable; `Sendable`.
struct SegmentCipher: Sendable, Equatable {
    /// The header's cipher id for AES-256-GCM with per-segment HKDF keys.
    static let id: UInt32 = 1
    static let nonceLength = 12
    static let tagLength = 16
    /// Bytes a sealed payload has beyond its plaintext: nonce and tag.
    static let overhead = nonceLength + tagLength

    let key: SymmetricKey
    let segmentNumber: UInt32
    /// The header's key salt (StoreKey.saltLength bytes).
    let salt: [UInt8]
    /// The header's key check (StoreKey.checkLength bytes).
    let check: [UInt8]

    /// Stores the sealed payload (nonce, ciphertext, tag) of `plaintext` in `destination`
    /// (`plaintext.count + overhead` bytes), for a record at `offset` whose frame bytes
    /// [4, 18) are `frameHeader`. The nonce is random (NoncePool) unless a test gives one.
    func seal(
        _ plaintext: UnsafeRawBufferPointer, frameHeader: UnsafeRawBufferPointer, at offset: Int,
        into destination: UnsafeMutableRawBufferPointer, nonce fixed: AES.GCM.Nonce? = nil
    ) {
        let nonceBytes = UnsafeMutableRawBufferPointer(rebasing: destination[..<Self.nonceLength])
        if let fixed {
            fixed.withUnsafeBytes { nonceBytes.copyMemory(from: $0) }
        } else {
            NoncePool.shared.next(into: nonceBytes)
        }
        do {
            let nonce = try AES.GCM.Nonce(data: UnsafeRawBufferPointer(nonceBytes))
            let box = try withAssociatedData(frameHeader: frameHeader, at: offset) { aad in
                try AES.GCM.seal(plaintext, using: key, nonce: nonce, authenticating: aad)
            }
            box.ciphertext.withUnsafeBytes {
                UnsafeMutableRawBufferPointer(rebasing: destination[Self.nonceLength...]).copyMemory(from: $0)
            }
            box.tag.withUnsafeBytes {
                UnsafeMutableRawBufferPointer(rebasing: destination[(Self.nonceLength + plaintext.count)...]).copyMemory(from: $0)
            }
        } catch {
            // Only a key of the wrong size or a message over 64 GiB make BoringSSL refuse; the
            // key is 32 bytes and a payload at most 1 GiB (docs/design-traps.md).
            preconditionFailure("AES-256-GCM refused to seal \(plaintext.count) bytes: \(error)")
        }
    }

    /// Calls `body` with the plaintext of a sealed payload at `offset` whose frame bytes
    /// [4, 18) are `frameHeader` (valid only inside `body`), or with nil when it does not
    /// authenticate (tampered, moved, or another key).
    func open<R>(
        _ sealed: UnsafeRawBufferPointer, frameHeader: UnsafeRawBufferPointer, at offset: Int,
        _ body: (UnsafeRawBufferPointer?) throws -> R
    ) rethrows -> R {
        guard sealed.count >= Self.overhead,
              let box = try? AES.GCM.SealedBox(combined: sealed),
              let plaintext = try? withAssociatedData(frameHeader: frameHeader, at: offset, { aad in
                  try AES.GCM.open(box, using: key, authenticating: aad)
              })
        else { return try body(nil) }
        return try plaintext.withUnsafeBytes { try body($0) }
    }

    /// Two ciphers are equal when they belong to the same segment and salt, and so (for one
    /// store key) to the same key.
    static func == (a: SegmentCipher, b: SegmentCipher) -> Bool {
        a.segmentNumber == b.segmentNumber && a.salt == b.salt && a.check == b.check
    }

    /// Calls `body` with the associated data: seg# (4) ‖ offset (8) ‖ frame bytes [4, 18).
    private func withAssociatedData<R>(
        frameHeader: UnsafeRawBufferPointer, at offset: Int, _ body: (UnsafeRawBufferPointer) throws -> R
    ) rethrows -> R {
        try withUnsafeTemporaryAllocation(byteCount: 26, alignment: 1) { aad in
            aad.storeLittleEndian(segmentNumber, at: 0)
            aad.storeLittleEndian(UInt64(truncatingIfNeeded: offset), at: 4)
            UnsafeMutableRawBufferPointer(rebasing: aad[12...]).copyMemory(from: frameHeader)
            return try body(UnsafeRawBufferPointer(aad))
        }
    }
}
