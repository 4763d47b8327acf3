// Incremental recovery: a read-only store catching up with the writer (Store+Refresh.swift).
//
// The follower last stopped at `result.activeEnd`, the committed end of the newest segment it
// knew, after `result.scannedSequence`. When the MANIFEST on disk lists the same segments, or
// the same ones followed by new log segments (the writer rolled), recovery goes on from there:
//
//   old MANIFEST   [c7 c8] 5 6 |9|
//   new MANIFEST   [c7 c8] 5 6  9  10 |11|
//                               ^ scanned on from activeEnd; then 10 and 11 from their headers
//
// with the same rules as at open (Recovery.swift): transactions apply at their commit record,
// a torn tail of the newest segment ends the scan (the next refresh reads it again, whole), and
// any other damage, a sealed segment shorter than its sealed length, or a segment shorter than
// where the follower stopped, throws. Any other MANIFEST (a compaction replaced the prefix) is
// not continued: `catchUp` returns false and the caller recovers from scratch.
//
// Runs on the refreshing thread, on a `Result` no one else sees.

extension Recovery {
    /// Continues `result` (a follower's state, see above) with what the writer committed since,
    /// up to `manifest`. Returns false, leaving `result` unusable, when `manifest` is not a
    /// continuation of `result.manifest` (the caller then recovers from scratch).
    /// - Throws: ``StrataError`` `.corruption` for damage a writer in progress cannot explain,
    ///   `.io` when a file cannot be read.
    func catchUp(_ result: inout Result, to manifest: Manifest) throws -> Bool {
        let known = result.segmentOrder
        guard !options.salvage, let newest = known.last, result.manifest != nil,
              manifest.segments.count >= known.count, manifest.segments.starts(with: known)
        else { return false }
        let added = manifest.segments.dropFirst(known.count)
        try continueNewestSegment(newest, isStillNewest: added.isEmpty, into: &result)
        for number in added {
            guard try scanSegment(number, isNewest: number == added.last, into: &result) else { return false }
        }
        result.scannedSequence = result.lastSequence
        result.lastSequence = max(result.lastSequence, manifest.lastSequence)
        result.manifest = manifest
        return true
    }

    /// Scans the segment that was newest at the last refresh from where that refresh stopped.
    /// When the writer has rolled since, the segment is sealed and must be whole.
    private func continueNewestSegment(_ number: UInt32, isStillNewest: Bool, into result: inout Result) throws {
        guard let segment = result.segments[number] else {
            throw StrataError(.corruption, "the newest segment \(number) is not open", file: directory)
        }
        let base = result.activeEnd
        let fileSize = try segment.file.size()
        // Still newest: only as far as a running writer decided it (Engine/Recovery/FollowLimit.swift).
        let size = isStillNewest ? followLimit.readableEnd(ofNewest: number, size: fileSize) : fileSize
        guard size >= base else {
            throw StrataError.corrupt(
                "the segment is \(size) bytes long, shorter than the \(base) bytes already read", file: segment.path,
                offset: size)
        }
        let scan = try indexLogRecords(of: segment, seal: segment.seal, from: base, size: size, into: &result)
        var end = size
        if let damage = scan.damage {
            _ = try judge(damage, of: scan, in: segment.path, size: size, isNewest: isStillNewest, into: &result)
            end = scan.committedEnd
        }
        if isStillNewest {
            end = scan.committedEnd
            result.activeEnd = end
        } else {
            let header = try segment.file.withBytes(at: 0, count: SegmentHeader.size) {
                try SegmentHeader.decode($0, file: segment.path)
            }
            _ = try checkSealedLength(header, size: size, path: segment.path, into: &result)
        }
        result.bytes += end - base
        result.tallies[number, default: SegmentTally()].add(records: scan.records, bytes: end - base)
    }
}
