// Recovery from hint files (Log/HintFile.swift): a sealed segment whose hint matches it is
// applied from the hint instead of being scanned.
//
// A hint is used only with `Store.Options.openWithHints`, when the store is not being salvaged, the segment is not encrypted
// (such segments have no hint), the segment is not the newest, its header records a sealed
// length equal to the file's size, and the hint decodes and names the same kind, number, salt
// and sealed length. A log segment's hint is used only when its lowest sequence is above the
// sequence committed by earlier segments. Anything else, a missing hint included, scans the
// segment and records a `.hintIgnored` event: never an error.
//
// Replaying a log segment's hint (puts set, deletes remove: each key's last operation in the
// segment) in segment order gives the index a scan gives; a compacted segment's hint holds its
// puts, and a key found twice among compacted segments is corruption, as in the scan.
//
// Runs on the recovering thread only.

extension Recovery {
    /// The hint of sealed segment `segment`, when it can stand for a scan; nil (with a
    /// `.hintIgnored` event in `result`) when the segment must be scanned.
    func usableHint(
        for segment: SegmentFile, header: SegmentHeader, size: Int, into result: inout Result
    ) -> HintFile? {
        guard options.openWithHints, !options.salvage, segment.seal.cipher == nil else { return nil }
        let path = joinPath(directory, HintFile.name(for: segment.number))
        func ignore(_ why: String, at offset: Int = 0) -> HintFile? {
            result.events.append(RecoveryEvent(
                kind: .hintIgnored, file: path, offset: offset, byteCount: 0,
                message: "\(why); scanned \(SegmentFile.name(for: segment.number)) instead"))
            return nil
        }
        guard fileSystem.exists(path) else { return ignore("the hint file is missing") }
        let hint: HintFile
        do {
            let file = try fileSystem.open(path, mode: .readOnly)
            defer { try? file.close() }
            let hintSize = try file.size()
            hint = try file.withBytes(at: 0, count: hintSize) { try HintFile.decode($0, file: path) }
        } catch let error as StrataError {
            return ignore(error.message, at: error.offset ?? 0)
        } catch {
            return ignore("\(error)")
        }
        guard header.sealedLength != 0, header.sealedLength == UInt64(size) else {
            return ignore("the segment is \(size) bytes long, not its sealed length \(header.sealedLength)")
        }
        guard hint.kind == header.kind, hint.segmentNumber == segment.number,
              hint.salt == (segment.seal.salt ?? 0), hint.sealedLength == header.sealedLength
        else { return ignore("the hint belongs to another segment or another version of this one") }
        if hint.kind == .log, hint.floorSequence != 0, hint.floorSequence <= result.lastSequence {
            return ignore("the hint's lowest sequence \(hint.floorSequence) does not follow \(result.lastSequence)")
        }
        return hint
    }

    /// Applies `hint` of `segment` to the index; returns what the scan would have returned.
    /// - Throws: ``StrataError`` `.corruption` when a compacted segment's hint repeats a key
    ///   already found among the compacted segments (the segment holds it twice too).
    func applyHint(_ hint: HintFile, of segment: SegmentFile, into result: inout Result) throws -> SegmentScanResult {
        let number = segment.number
        var index = result.index
        result.index = KeyIndex()  // so that `index` is the only owner, changed in place
        try index.edit { index in
            for entry in hint.entries {
                let location = RecordLocation(segment: number, offset: Int(entry.offset), length: Int(entry.length))
                guard entry.isPut else {
                    index.remove(entry.key, in: entry.keyspace)
                    continue
                }
                let earlier = index.set(location, for: entry.key, in: entry.keyspace)
                if hint.kind == .compacted, earlier != nil {
                    throw StrataError.corrupt(
                        "key \(entry.key) of \(entry.keyspace) appears twice among the compacted segments",
                        file: segment.path, offset: Int(entry.offset))
                }
            }
        }
        result.index = index
        result.lastSequence = max(result.lastSequence, hint.lastSequence)
        result.records += Int(hint.records)
        var scan = SegmentScanResult(committedEnd: Int(hint.committedEnd), lastSequence: result.lastSequence)
        scan.records = Int(hint.records)
        scan.uncommittedRecords = Int(hint.uncommittedRecords)
        return scan
    }
}
