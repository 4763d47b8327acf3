// The SegmentFuzzer target: recovery and reads of a fuzzed segment file.
//
// Input: one mode byte, then segment bytes.
//
//   mode bit 0 (0x01)  prepend a valid 64-byte header for segment 1 (taken from a real store):
//                      the rest of the input is records only, so mutations land in records.
//                      Clear: the rest of the input is the whole file, header included.
//   mode bit 1 (0x02)  repair every record checksum along the length chain after the header,
//                      so that mutations get past the CRC check into the decoders and recovery.
//   mode bit 2 (0x04)  repair the header checksum (explores the version, header size, segment
//                      number, dictionary and cipher fields).
//   mode bit 3 (0x08)  make transactions consistent before the checksums are repaired: each
//                      commit's records get the commit's sequence and the commit's record count
//                      is set to their number (so one mutated sequence moves a whole
//                      transaction); implies bit 1.
//   other bits         ignored.
//
// The bytes become /db/000001.seg next to a valid MANIFEST naming segment 1 (from a real store)
// on a fresh MemoryFileSystem, and the store is opened three ways: read-only; read-only with
// salvage, reading without checksum verification; read-write (segment size 4 KiB). Each open
// must succeed or throw StrataError. On success every value of every keyspace is read
// (value(for:in:), withValue, forEach, which must agree). Oracles:
// - read-only and read-write recovery agree (both succeed with the same contents, or both throw);
// - when read-only succeeds, salvage succeeds too and reads the same contents unverified;
// - after a read-write open, a committed probe survives close and reopen (read-write and
//   read-only), and so does everything recovery kept.
//
// Seeds: Corpus/SegmentFuzzer, written by Tools/MakeSeeds.

import StrataStorage

/// Runs one SegmentFuzzer input (mode byte + bytes, see the file header). Traps on a bug.
/// Returns -1 (do not add to the corpus) for inputs skipped as known issues, else 0.
public func runSegmentInput(_ input: [UInt8]) -> CInt {
    guard let mode = input.first else { return 0 }
    var segment = Array(input.dropFirst())
    let fixtures = Fixtures.shared
    if mode & 0x01 != 0 { segment = fixtures.segmentHeader + segment }
    if mode & 0x08 != 0 { Repair.transactions(&segment) }
    if mode & 0x0A != 0 { Repair.recordChecksums(&segment) }
    if mode & 0x04 != 0 { Repair.segmentHeaderChecksum(&segment) }
    if KnownIssues.skip, KnownIssues.segmentTripsKnownIssue(segment) {
        if KnownIssues.verbose { note("  skipped: known issue") }
        return -1
    }

    let files = [(FuzzPath.manifest, fixtures.manifest), (FuzzPath.segment(1), segment)]

    recoverThreeWays(files, readWriteMayCreate: false)
    return 0
}
