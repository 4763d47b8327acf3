// The ManifestFuzzer target: recovery of a store whose MANIFEST is fuzzed.
//
// Input: one mode byte, then the MANIFEST bytes.
//
//   mode bit 0 (0x01)  repair the manifest checksum (the last 4 bytes, over every byte before),
//                      so that mutations get past the CRC check into the decoder and recovery.
//   mode bit 1 (0x02)  rewrite the segment count (bytes 12..<16) to fit the input's length,
//                      applied before the checksum repair.
//   mode bit 2 (0x04)  which segment files lie next to the MANIFEST:
//                      clear: 000001.seg of a new store (the 64-byte header alone);
//                      set:   000001.seg and 000002.seg of a real store that rolled once
//                             (puts and deletes in two keyspaces, segment 1 sealed).
//   mode bit 3 (0x08)  file those segments under the numbers the manifest lists instead of 1
//                      and 2 (the first listed number gets the first segment, and so on), with
//                      their headers renumbered to match: explores segment numbers (file names
//                      of more than six digits, rolling past the highest number).
//   mode bit 4 (0x10)  no MANIFEST at all (the bytes are ignored): a directory of segments
//                      whose manifest is missing.
//   other bits         ignored.
//
// The store is opened read-only; read-only with salvage, reading without checksum
// verification; and read-write (segment size 4 KiB), each on a fresh MemoryFileSystem. Each
// open must succeed or throw StrataError. On success every value of every keyspace is read
// (value(for:in:), withValue, forEach, which must agree). Oracles:
// - read-only and read-write recovery agree (both succeed with the same contents, or both throw),
//   unless there is no MANIFEST (read-only then fails with `.notFound`, read-write may create);
// - when read-only succeeds, salvage succeeds too and reads the same contents unverified;
// - after a read-write open, a committed probe survives close and reopen, with everything
//   recovery kept (the probe commit may roll to a new segment and install a new MANIFEST).
//
// Seeds: Corpus/ManifestFuzzer, written by Tools/MakeSeeds.

@_spi(Testing) import StrataStorage

/// Runs one ManifestFuzzer input (mode byte + bytes, see the file header). Traps on a bug.
/// Returns -1 (do not add to the corpus) for inputs skipped as known issues, else 0.
public func runManifestInput(_ input: [UInt8]) -> CInt {
    guard let mode = input.first else { return 0 }
    var manifest = Array(input.dropFirst())
    if mode & 0x02 != 0 { Repair.manifestCount(&manifest) }
    if mode & 0x01 != 0 { Repair.manifestChecksum(&manifest) }
    if KnownIssues.skip, mode & 0x10 == 0, KnownIssues.manifestTripsKnownIssue(manifest) {
        if KnownIssues.verbose { note("  skipped: known issue") }
        return -1
    }

    let fixtures = Fixtures.shared
    let segments = mode & 0x04 != 0 ? [fixtures.rolledSegment1, fixtures.rolledSegment2] : [fixtures.emptySegment]
    var numbers: [UInt32] = [1, 2]
    if mode & 0x08 != 0 {
        numbers = Array(listedSegments(manifest).prefix(segments.count))
    }
    let hasManifest = mode & 0x10 == 0
    var files: [(String, [UInt8])] = hasManifest ? [(FuzzPath.manifest, manifest)] : []
    for (segment, number) in zip(segments, numbers) {
        var bytes = segment
        if number != 0, mode & 0x08 != 0 {
            bytes.storeLE(number, at: 12)
            Repair.segmentHeaderChecksum(&bytes)
        }
        files.append((FuzzPath.segment(Int(number)), bytes))
    }

    recoverThreeWays(
        files, readWriteMayCreate: !hasManifest,
        segmentNumbersExhausted: files.contains { $0.0 == FuzzPath.segment(Int(UInt32.max)) })
    return 0
}

/// The segment numbers a manifest lists, going by its length (not its count field, which may
/// be anything): empty when the length cannot be a manifest's.
func listedSegments(_ manifest: [UInt8]) -> [UInt32] {
    let extra = manifest.count - Manifest.fixedSize
    guard extra >= 0, extra % 4 == 0 else { return [] }
    return (0..<(extra / 4)).map { manifest.loadLE(at: 24 + 4 * $0, as: UInt32.self) }
}
