// Which key a segment was written with, checked against the key the store is opened with.
//
// The first segment recovery reads decides: a plain segment opened with a key, an encrypted one
// opened without, or a key whose check differs from its header's is `.invalidKey`, the caller's
// mistake. Once one segment has passed, a later segment that disagrees with the key is damage:
// `.corruption` naming it (a store is encrypted whole, under one key; nothing writes a mixture).

extension Recovery {
    /// The seal of the segment at `path` whose header is `header`: with its cipher when it is
    /// encrypted and the store's key fits it.
    /// - Throws: ``StrataError`` `.invalidKey` (when `decidesKey`) or `.corruption` naming the
    ///   file, when the segment does not fit `key`.
    func keyedSeal(for header: SegmentHeader, path: String, decidesKey: Bool) throws(StrataError) -> RecordSeal {
        func refusal(_ why: String, offset: Int) -> StrataError {
            decidesKey
                ? StrataError(.invalidKey, why, file: path)
                : StrataError.corrupt("\(why), unlike the segments read before it", file: path, offset: offset)
        }
        let seal = header.recordSeal
        switch (header.cipherID == SegmentCipher.id, key) {
        case (false, nil):
            return seal
        case (false, .some):
            throw refusal(
                "the store is not encrypted, but a key was given; open it without a key "
                    + "(writeCopy makes an encrypted copy)", offset: 20)
        case (true, nil):
            throw refusal("the store is encrypted; open it with its 64-byte key", offset: 20)
        case (true, let key?):
            let cipher = key.segmentCipher(number: header.segmentNumber, salt: header.keySalt)
            let fits = cipher.check.withUnsafeBytes { expected in
                header.keyCheck.withUnsafeBytes { StoreKey.constantTimeEqual(expected, $0) }
            }
            guard fits else {
                throw refusal(
                    "the key is not the one the store was encrypted with",
                    offset: SegmentHeader.keySaltOffset + StoreKey.saltLength)
            }
            return seal.encrypting(with: cipher)
        }
    }
}
