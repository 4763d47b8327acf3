// Writing the hint file of a segment that has just been sealed (a roll seals a log segment,
// compaction each compacted segment it fills). The hint is built by the same scan recovery
// runs (SegmentScanner), so replaying it gives exactly what scanning the segment gives.
//
// A hint is optional: recovery scans a segment whose hint is missing or does not match, and a
// crash that leaves a torn hint leaves one whose checksum fails. But a failed write or fsync
// of a hint fails the roll or the compaction like any other (fsync failures are sticky), so
// that a crash test's "the writer stops at a failed sync" holds for hints too. The hint is
// synced before this returns; its directory entry is made durable by the directory sync that
// follows the seal (the next segment's creation, or compaction's directory sync), before any
// MANIFEST names the next segment or the compacted one.
//
// Encrypted segments get no hint: it would hold their keys in the clear.
//
// Called by the one thread that sealed the segment, before anyone else can change it.

extension HintFile {
    /// Builds the hint of `segment`, sealed at `length` bytes; nil when the segment is
    /// encrypted or its bytes do not scan cleanly (recovery will scan it and say why).
    static func build(of segment: SegmentFile, length: Int) throws -> HintFile? {
        guard segment.seal.cipher == nil else { return nil }
        return try segment.file.withBytes(at: 0, count: length) { bytes -> HintFile? in
            // Every committed operation in record order; sorted by key and then offset below,
            // the last of each key's run is its last operation in the segment.
            var operations: [HintEntry] = []
            func note(_ operation: ScannedOperation) {
                operations.append(HintEntry(
                    isPut: operation.isPut, keyspace: operation.keyspace, key: operation.key,
                    offset: UInt32(truncatingIfNeeded: operation.offset),
                    length: UInt32(truncatingIfNeeded: operation.length)))
            }
            var floor: UInt64 = 0
            let scan: SegmentScanResult
            switch segment.kind {
            case .log:
                scan = SegmentScanner.scan(bytes, seal: segment.seal, after: 0) { sequence, scanned in
                    if floor == 0 { floor = sequence }
                    scanned.forEach(note)
                }
                // An uncommitted record before the first commit would lower the floor: then
                // there is no hint (rare: a failed write at the very start of a segment).
                if scan.uncommittedRecords > 0 { return nil }
            case .compacted:
                scan = SegmentScanner.scanCompacted(bytes, seal: segment.seal, after: 0) { _, operation in
                    note(operation)
                    return nil
                }
            }
            guard scan.damage == nil else { return nil }
            return HintFile(
                kind: segment.kind, segmentNumber: segment.number, salt: segment.seal.salt ?? 0,
                sealedLength: UInt64(length), lastSequence: scan.lastSequence, floorSequence: floor,
                records: UInt32(truncatingIfNeeded: scan.records), uncommittedRecords: 0,
                committedEnd: UInt32(truncatingIfNeeded: scan.committedEnd),
                entries: lastOperations(sortedByKey: operations))
        }
    }

    /// Each key's last operation among `operations` (given in record order), in keyspace and key
    /// order: recovery builds each keyspace's tree bottom up from them (KeyTree.Builder).
    static func lastOperations(sortedByKey operations: [HintEntry]) -> [HintEntry] {
        let sorted = operations.sorted {
            if $0.keyspace != $1.keyspace { return $0.keyspace < $1.keyspace }
            if $0.key != $1.key { return $0.key < $1.key }
            return $0.offset < $1.offset
        }
        var entries: [HintEntry] = []
        entries.reserveCapacity(sorted.count)
        for entry in sorted {
            if let last = entries.last, last.keyspace == entry.keyspace, last.key == entry.key {
                entries[entries.count - 1] = entry
            } else {
                entries.append(entry)
            }
        }
        return entries
    }

    /// Builds, writes and syncs the hint of `segment`, sealed at `length` bytes, replacing any
    /// stale one; writes nothing for an encrypted segment or one that does not scan cleanly.
    /// - Throws: ``StrataError`` `.io` when a write or the sync fails (the partial file is
    ///   removed when possible): the caller fails as when sealing the segment fails, since a
    ///   failed fsync is sticky for the whole store.
    static func write(
        for segment: SegmentFile, length: Int, in directory: String, fileSystem: any FileSystem,
        syncs: SyncFailureNote? = nil
    ) throws {
        guard let hint = try build(of: segment, length: length) else { return }
        let path = joinPath(directory, name(for: segment.number))
        if fileSystem.exists(path) { try fileSystem.removeFile(path) }
        let file = try fileSystem.open(path, mode: .createNew)
        do {
            try file.write(hint.encoded(), at: 0)
            try syncs.watching { try file.sync() }
            try file.close()
        } catch {
            try? file.close()
            try? fileSystem.removeFile(path)
            throw error
        }
    }
}
