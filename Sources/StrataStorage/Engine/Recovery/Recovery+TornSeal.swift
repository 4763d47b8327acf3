// A newest log segment whose header a crash tore while a roll rewrote it (format.md §3).
//
// A roll seals the active segment by rewriting its 64-byte header in place with the segment's
// length, then fsyncs it, and only then creates the next segment and installs a MANIFEST that
// lists it. A crash before that fsync returns can leave any mix of the old header's bytes and
// the new one's (no sector atomicity is assumed), and the segment is still the newest one
// listed. The two headers differ only in the sealed length (bytes 32–39) and the checksum
// (60–63), so the decoder reads such a header with its other fields and a sealed length of 0
// (not recorded: the newest segment's length is never checked). What the checksum does not
// cover is checked another way: the first record must decode under the header's salt (its
// checksum is seeded with it) and, in an encrypted segment, the key check must match the key
// (`keyedSeal`). A segment with no record to check it by must hold only zeros past the header.
// Anything else is the checksum mismatch it looks like: corruption.
//
// A read-write open then writes the header again, whole, with a sealed length of 0, and syncs
// it before anything is appended; the next roll seals the segment as usual. A crash during that
// write leaves a mix the same rule accepts.

extension Recovery {
    /// Accepts a torn seal of the newest segment (see above), or throws.
    /// - Throws: ``StrataError`` `.corruption` ("segment header checksum mismatch", offset 0)
    ///   when the records do not confirm the header; `.io` when rewriting it fails.
    func acceptTornSeal(
        _ header: SegmentHeader, of segment: SegmentFile, scan: SegmentScanResult, writable: Bool,
        into result: inout Result
    ) throws {
        let firstRecordDecoded = scan.records > 0
        let nothingPastHeader = scan.damage.map { $0.offset == SegmentHeader.size && scan.damageIsZeroFill } ?? true
        guard firstRecordDecoded || nothingPastHeader else {
            throw SegmentHeader.checksumMismatch(file: segment.path)
        }
        result.events.append(RecoveryEvent(
            kind: .tornTail, file: segment.path, offset: 0, byteCount: SegmentHeader.size,
            message: "the segment header was torn by a crash while the segment was being sealed; "
                + "its sealed length is not recorded"))
        guard writable else { return }
        var whole = header
        whole.isTornSeal = false
        whole.sealedLength = 0
        try segment.file.write(whole.encoded(), at: 0)
        try segment.file.sync()
    }
}
