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
// A hint's entries come in keyspace and key order, so each keyspace's run is merged with the
// keys the index holds in that keyspace into a new tree built bottom up (KeyTree.Builder): no
// search per key. A run much shorter than the keys already there goes in key by key instead, so
// that many segments cost O(n log n) in all rather than a merge of the whole keyspace each.
//
// Runs on the recovering thread only.

extension Recovery {
    /// The hint of sealed segment `segment`, when it can stand for a scan; nil (with a
    /// `.hintIgnored` event in `result`) when the segment must be scanned.
    func usableHint(
        for segment: SegmentFile, header: SegmentHeader, size: Int, into result: inout Result
    ) -> HintFile.Checked? {
        guard options.openWithHints, !options.salvage, segment.seal.cipher == nil else { return nil }
        let path = joinPath(directory, HintFile.name(for: segment.number))
        func ignore(_ why: String, at offset: Int = 0) -> HintFile.Checked? {
            result.events.append(RecoveryEvent(
                kind: .hintIgnored, file: path, offset: offset, byteCount: 0,
                message: "\(why); scanned \(SegmentFile.name(for: segment.number)) instead"))
            return nil
        }
        guard fileSystem.exists(path) else { return ignore("the hint file is missing") }
        let checked: HintFile.Checked
        do {
            let file = try fileSystem.open(path, mode: .readOnly)
            defer { try? file.close() }
            let hintSize = try file.size()
            checked = try file.withBytes(at: 0, count: hintSize) { try HintFile.check($0, file: path) }
        } catch let error as StrataError {
            return ignore(error.message, at: error.offset ?? 0)
        } catch {
            return ignore("\(error)")
        }
        let hint = checked.header
        guard header.sealedLength != 0, header.sealedLength == UInt64(size) else {
            return ignore("the segment is \(size) bytes long, not its sealed length \(header.sealedLength)")
        }
        guard hint.kind == header.kind, hint.segmentNumber == segment.number,
              hint.salt == (segment.seal.salt ?? 0), hint.sealedLength == header.sealedLength
        else { return ignore("the hint belongs to another segment or another version of this one") }
        if hint.kind == .log, hint.floorSequence != 0, hint.floorSequence <= result.lastSequence {
            return ignore("the hint's lowest sequence \(hint.floorSequence) does not follow \(result.lastSequence)")
        }
        return checked
    }

    /// Applies `hint` of `segment` to the index; returns what the scan would have returned.
    /// - Throws: ``StrataError`` `.corruption` when a compacted segment's hint repeats a key
    ///   already found among the compacted segments (the segment holds it twice too).
    func applyHint(_ hint: HintFile.Checked, of segment: SegmentFile, into result: inout Result) throws -> SegmentScanResult {
        for run in hint.runs {
            if result.index.entries(in: run.keyspace).count > 4 * run.count {
                try insertRun(run, of: hint, segment: segment, into: &result)
            } else {
                try mergeRun(run, of: hint, segment: segment, into: &result)
            }
        }
        let header = hint.header
        result.lastSequence = max(result.lastSequence, header.lastSequence)
        result.records += Int(header.records)
        var scan = SegmentScanResult(committedEnd: Int(header.committedEnd), lastSequence: result.lastSequence)
        scan.records = Int(header.records)
        scan.uncommittedRecords = Int(header.uncommittedRecords)
        return scan
    }

    /// Merges one keyspace's run of `hint` with the index's keys of that keyspace into a new
    /// tree; or, when the run's keys all follow those keys, appends the run to their tree.
    private func mergeRun(
        _ run: HintFile.Checked.Run, of hint: HintFile.Checked, segment: SegmentFile, into result: inout Result
    ) throws {
        var earlier = result.index.entries(in: run.keyspace)
        let firstKey = hint.withEntries(of: run) { cursor in cursor.next()?.key }
        var builder = KeyTree.Builder()
        if let last = earlier.lastKey, let firstKey, KeyTree.SortKey(last).compare(firstKey) < 0 {
            result.index.replaceKeys(in: run.keyspace, with: KeyTree(), liveBytesChange: 0)
            builder = KeyTree.Builder(continuing: &earlier)  // leaves `earlier` empty
        }
        let liveBytesChange = try hint.withEntries(of: run) { cursor in
            var iterator = earlier.makeIterator()
            return try merge(&iterator, with: &cursor, into: &builder, of: hint, keyspace: run.keyspace, segment: segment)
        }
        result.index.replaceKeys(in: run.keyspace, with: builder.finish(), liveBytesChange: liveBytesChange)
    }

    /// Appends to `builder` the entries of `earlier` and `cursor` (a later segment's, so it wins
    /// where both have a key) in key order; returns the change in live bytes.
    private func merge(
        _ earlier: inout KeyTree.Iterator, with cursor: inout HintFile.EntryCursor, into builder: inout KeyTree.Builder,
        of hint: HintFile.Checked, keyspace: Keyspace, segment: SegmentFile
    ) throws -> Int {
        var liveBytesChange = 0
        var pending = earlier.nextSorted()
        while let entry = cursor.next() {
            var order = 1
            while let (key, value) = pending {
                order = key.compare(entry.key)
                guard order < 0 else { break }
                builder.append(key, value)
                pending = earlier.nextSorted()
            }
            if order == 0, let (_, replaced) = pending {
                try checkNotCompactedTwice(entry, of: hint, keyspace: keyspace, segment: segment)
                liveBytesChange -= Int(replaced.length)
                pending = earlier.nextSorted()
            }
            guard entry.isPut else { continue }
            builder.append(entry.key, RecordLocation(segment: segment.number, offset: Int(entry.offset), length: Int(entry.length)))
            liveBytesChange += Int(entry.length)
        }
        while let (key, value) = pending {
            builder.append(key, value)
            pending = earlier.nextSorted()
        }
        return liveBytesChange
    }

    /// Applies one keyspace's run of `hint` key by key.
    private func insertRun(
        _ run: HintFile.Checked.Run, of hint: HintFile.Checked, segment: SegmentFile, into result: inout Result
    ) throws {
        var index = result.index
        result.index = KeyIndex()  // so that `index` is the only owner, changed in place
        defer { result.index = index }
        try index.edit { index in
            try hint.withEntries(of: run) { cursor in
                while let entry = cursor.next() {
                    let key = entry.key.storageKey
                    guard entry.isPut else {
                        index.remove(key, in: run.keyspace)
                        continue
                    }
                    let location = RecordLocation(segment: segment.number, offset: Int(entry.offset), length: Int(entry.length))
                    if index.set(location, for: key, in: run.keyspace) != nil {
                        try checkNotCompactedTwice(entry, of: hint, keyspace: run.keyspace, segment: segment)
                    }
                }
            }
        }
    }

    /// Throws when `entry`, found already in the index, is in a compacted segment's hint.
    private func checkNotCompactedTwice(
        _ entry: HintFile.EntryCursor.Entry, of hint: HintFile.Checked, keyspace: Keyspace, segment: SegmentFile
    ) throws {
        guard hint.header.kind == .compacted else { return }
        throw StrataError.corrupt(
            "key \(entry.key.storageKey) of \(keyspace) appears twice among the compacted segments",
            file: segment.path, offset: Int(entry.offset))
    }
}
