// Online compaction: rewrites every sealed segment (the oldest prefix of the log) as compacted
// segments that hold only the live records, while commits and readers go on.
//
// 1. Plan (writer lock): S = every listed segment but the active one; a copy of the published
//    index and segment map (a snapshot). Nothing to do when S is empty.
// 2. Copy (no lock): train a dictionary from a sample of the small live values when it pays
//    (CompactionDictionary.swift). For each key whose snapshot location lies in S, read its
//    record, check it (checksum, tag when encrypted, a put, the right key), and append it (same
//    sequence, same compressed form, or a small value compressed with the dictionary; the CRC recomputed for the new segment's salt and offset, and in an
//    encrypted store the payload sealed again under the new segment's key:
//    CompactionOutput.swift) to a compacted segment numbered above every existing one (numbers
//    taken under the writer lock; a new output segment starts at `segmentSize`). Tombstones and
//    dead records are not copied: S is the whole oldest prefix of the log, so no older record
//    of a deleted key survives outside S to come back.
// 3. Seal each output file when it is full (its length written into its header, then an fsync),
//    then sync the directory once.
// 4. Install (writer lock): sync the active segment if `.none` commits left it behind (the
//    MANIFEST's sequence floor must not name a commit a crash can still lose), then MANIFEST =
//    the output segments + every listed segment not in S, in order. Then publish in steps under the published lock: add the output segments; for each
//    copied key whose index entry still points at the exact old location, repoint it (a key
//    overwritten or deleted meanwhile keeps its newer state); finally drop S from the segment
//    map and mark its files obsolete. Snapshots taken at any point read consistent values:
//    old and new records hold the same bytes but for their CRC, and both sets of files are open.
// 5. An obsolete file is unlinked when the last snapshot reading it goes away (SegmentFile).
//
// Failure rules: a failure before step 4 removes the output files and leaves the store as it
// was (a failed write or fsync of an output file only condemns that file, which no MANIFEST
// ever names). A failed directory fsync or MANIFEST install is sticky, as for a roll: the
// directory state is then unknown, so the store refuses writes until reopened, and recovery
// sorts out which MANIFEST won. Crash at any point: before the MANIFEST rename is durable the
// output files are leftovers; after it the replaced segments are; either way the next
// read-write open removes them.
//
// Why tombstones may go (Badger issue #2286, where a deleted key came back after value-log
// GC): there, GC read a live value, a delete came in, compaction dropped the tombstone and the
// old value, and GC then wrote the value back with nothing newer to shadow it. Here the copies
// go into segments placed *before* every segment that may hold a newer record (the active one
// and later), the delete's tombstone lives in one of those and is not touched by this
// compaction, and recovery applies the log in MANIFEST order; in memory the repoint is a
// compare-and-set. A later compaction drops that tombstone only together with the copy it
// shadows, because it compacts the whole prefix that holds both.

extension Store {
    /// Rewrites every sealed segment into compacted segments that hold only live records,
    /// and removes the sealed segments, while commits and snapshots go on.
    ///
    /// The active segment is sealed first when it holds any record (the next commit goes to a
    /// new one), so that every record written so far is compacted; then all segments but the
    /// new active one are compacted as one unit. The result keeps every value and every
    /// sequence number; overwritten values, tombstones, commit records and records of failed
    /// transactions are dropped. A key that a commit overwrites or deletes while the
    /// compaction runs keeps its newer state. Calls return at once with
    /// ``CompactionReport/didCompact`` false when the store holds no record yet.
    ///
    /// Snapshots taken before the compaction keep reading the replaced segments; their files
    /// are unlinked when the last such snapshot is released (or, if the store is closed first,
    /// at the next read-write open). Commits made with `.none` durability before the install
    /// are synced by it, as by a segment roll.
    ///
    /// Thread safety: may be called from any thread. Commits wait only while the new MANIFEST
    /// is installed and segment numbers are taken; ``snapshot()`` and commit publication wait
    /// at most for one step of the in-memory publication (4,096 keys). Concurrent calls of
    /// `compact()` run one after the other.
    ///
    /// - Returns: what was compacted, and the store's size before and after.
    /// - Throws: ``StrataError`` with code
    ///   - `.readOnly` when the store was opened read-only;
    ///   - `.closed` after ``close()`` or an earlier failure that makes the store refuse writes;
    ///   - `.corruption` (naming the file and offset) when a live record fails its checks; the
    ///     store is left as it was (with its active segment sealed, if the compaction sealed it);
    ///   - `.io` when writing or syncing the new segments fails (the store is left as it was)
    ///     or when the directory sync or the MANIFEST install fails (the store then refuses
    ///     writes until reopened, as after a failed roll).
    /// - Complexity: O(k + b) time, where k is the number of live keys and b the bytes of their
    ///   records in the sealed segments; O(c) extra memory for the c records copied (12 bytes
    ///   each), plus one output buffer of at most 1 MiB.
    public func compact() throws -> CompactionReport {
        if options.readOnly {
            throw StrataError(.readOnly, "the store was opened read-only", file: directory)
        }
        return try compact(hooks: CompactionHooks(), sealingActiveSegment: true)
    }

    /// ``compact()-2quz9`` calling `hooks` as it copies (the background compactor's and the async
    /// `compact()`'s entry). `sealingActiveSegment`: whether a non-empty active segment is
    /// sealed first and compacted too (an explicit compaction), or left alone (the background
    /// compactor, which compacts what its policy found dead in sealed segments).
    /// REQUIRES: the store is writable.
    func compact(hooks: CompactionHooks, sealingActiveSegment: Bool) throws -> CompactionReport {
        try compaction.withLock { _ in
            try compactExclusively(hooks: hooks, sealingActiveSegment: sealingActiveSegment)
        }
    }

    /// Bytes of live records copied between two calls of a compaction's `pace` hook.
    static let compactionPaceBytes = 1 << 20

    /// Bytes of output buffered before one write.
    static let compactionWriteSize = 1 << 20
    /// Keys repointed per hold of the published lock.
    static let compactionPublishStep = 4096

    /// What step 1 found.
    private struct CompactionPlan {
        var sealed: [UInt32]
        var sealedSet: Set<UInt32>
        /// The snapshot copied from.
        var source: SnapshotStorage
        var segmentsBefore: Int
        var bytesBefore: Int
        var bytesCompacted: Int
    }

    /// REQUIRES: `compaction` is held.
    private func compactExclusively(hooks: CompactionHooks, sealingActiveSegment: Bool) throws -> CompactionReport {
        let clock = ContinuousClock()
        let start = clock.now
        // A stop asked for while this waited for the `compaction` lock changes nothing.
        try hooks.batch(0)
        let plan = try planCompaction(sealingActiveSegment: sealingActiveSegment)
        guard !plan.sealed.isEmpty else {
            return CompactionReport(
                segmentsBefore: plan.segmentsBefore, segmentsAfter: plan.segmentsBefore,
                bytesBefore: plan.bytesBefore, bytesAfter: plan.bytesBefore, segmentsCompacted: 0,
                bytesCompacted: 0, segmentsWritten: 0, bytesWritten: 0, recordsCopied: 0,
                recordsSuperseded: 0, duration: clock.now - start)
        }
        var (output, newLocations) = try copyLiveRecords(plan, hooks: hooks)
        try installManifest(listing: &output, in: plan)
        let (superseded, segmentsAfter, bytesAfter) = publish(output, newLocations: newLocations, in: plan)
        return CompactionReport(
            segmentsBefore: plan.segmentsBefore, segmentsAfter: segmentsAfter,
            bytesBefore: plan.bytesBefore, bytesAfter: bytesAfter,
            segmentsCompacted: plan.sealed.count, bytesCompacted: plan.bytesCompacted,
            segmentsWritten: output.finished.count, bytesWritten: output.tallies.reduce(0) { $0 + $1.bytes },
            recordsCopied: newLocations.count, recordsSuperseded: superseded,
            duration: clock.now - start)
        // `plan` (the last references to the replaced segments held here) goes away on return.
    }

    /// Step 1: what to compact — every sealed segment, after sealing a non-empty active one
    /// when `sealingActiveSegment` — and the index to copy from.
    private func planCompaction(sealingActiveSegment: Bool) throws -> CompactionPlan {
        try writer.withLock { state throws -> CompactionPlan in
            try Self.checkWritable(state)
            // The sizes before are the store's as the caller saw it, before any seal.
            let (segmentsBefore, bytesBefore) = published.withLock { ($0.segments.count, $0.bytes) }
            if sealingActiveSegment, state.offset > SegmentHeader.size {
                try rollStoppingWritesOnFailure(&state)
            }
            let sealed = Array(state.segmentOrder.dropLast())
            return published.withLock { published in
                CompactionPlan(
                    sealed: sealed, sealedSet: Set(sealed),
                    source: SnapshotStorage(index: published.index, segments: published.segments, fence: fence),
                    segmentsBefore: segmentsBefore,
                    bytesBefore: bytesBefore,
                    bytesCompacted: sealed.reduce(0) { $0 + (published.tallies[$1]?.bytes ?? 0) })
            }
        }
    }

    /// Steps 2–3: copies every live record of the sealed segments into new segments (each
    /// checked first), syncs them and the directory. Returns the output and each copied
    /// record's new location, in `forEachRecordToCopy` order. On failure (a hook's throw
    /// included) the output files are removed; a failed directory sync also makes the store
    /// refuse writes.
    private func copyLiveRecords(
        _ plan: CompactionPlan, hooks: CompactionHooks
    ) throws -> (CompactionOutput, [RecordLocation]) {
        var destination = compactionDestination()
        destination.dictionary = CompactionDictionary.train(
            policy: options.dictionaryCompression, encrypted: key != nil, segmentSize: options.segmentSize,
            level: options.compressionLevel, segments: plan.source.segments
        ) { visit in forEachRecordToCopy(plan) { _, _, location in visit(location) } }
        var output = CompactionOutput(destination: destination)
        var newLocations: [RecordLocation] = []
        var copiedBytes = 0
        var nextPace = Self.compactionPaceBytes
        var batchCount = 0
        do {
            try forEachRecordToCopy(plan) { keyspace, key, location in
                guard let segment = plan.source.segments[location.segment] else {
                    throw StrataError(.corruption, "index points into segment \(location.segment), which is not open")
                }
                newLocations.append(try Self.copyRecord(at: location, of: segment, keyspace: keyspace, key: key, to: &output))
                copiedBytes += Int(location.length)
                batchCount += 1
                if batchCount == CompactionHooks.batchRecords {
                    batchCount = 0
                    try hooks.batch(copiedBytes)
                }
                if copiedBytes >= nextPace {
                    nextPace = copiedBytes + Self.compactionPaceBytes
                    try hooks.pace(copiedBytes)
                }
            }
            try output.finishFiles()
            // The last chance to stop: past this the compaction installs.
            try hooks.batch(copiedBytes)
        } catch {
            output.abandon()
            throw error
        }
        do {
            try output.syncDirectory()
        } catch {
            let failure = StrataError.converting(error)
            writer.withLock { state in state.failure = state.failure ?? failure }
            output.abandon()
            throw failure
        }
        return (output, newLocations)
    }

    /// Step 4: installs a MANIFEST that lists the new segments instead of the sealed ones. A
    /// failure here is sticky: the MANIFEST may or may not be on disk, so every file is kept
    /// and recovery decides at the next open.
    private func installManifest(listing output: inout CompactionOutput, in plan: CompactionPlan) throws {
        try writer.withLock { state throws in
            do {
                try Self.checkWritable(state)
            } catch {
                output.abandon()
                throw error
            }
            let numbers = output.finished.map(\.number)
            let order = numbers + state.segmentOrder.filter { !plan.sealedSet.contains($0) }
            do {
                // The MANIFEST's sequence floor counts every commit so far; sync the active
                // segment first (as a roll does) so that the floor never names a commit that a
                // crash could still take away.
                if let active = state.active, state.offset > state.syncedOffset {
                    try active.file.sync()
                    state.syncedOffset = state.offset
                }
                try Manifest(
                    segments: order, lastSequence: state.nextSequence - 1,
                    listsCompactedSegments: !numbers.isEmpty
                ).install(in: directory, fileSystem: fileSystem)
            } catch {
                let failure = StrataError.converting(error)
                state.failure = failure
                throw failure
            }
            state.segmentOrder = order
            state.compactedSegments = Set(numbers)
        }
    }

    /// Step 5: publishes the new segments, repoints the index at the copies in steps of
    /// `compactionPublishStep` keys (a key overwritten meanwhile keeps its newer location and
    /// counts as superseded), then drops the replaced segments. Returns the superseded count
    /// and the segment count and bytes after.
    private func publish(
        _ output: CompactionOutput, newLocations: [RecordLocation], in plan: CompactionPlan
    ) -> (superseded: Int, segments: Int, bytes: Int) {
        published.withLock { published in fence.run {
            for (segment, tally) in zip(output.finished, output.tallies) {
                published.segments[segment.number] = segment
                published.tallies[segment.number] = tally
                published.records += tally.records
                published.bytes += tally.bytes
            }
        } }
        var superseded = 0
        var pending: [(keyspace: Keyspace, key: StorageKey, old: RecordLocation, new: RecordLocation)] = []
        pending.reserveCapacity(Self.compactionPublishStep)
        func repointPending() {
            published.withLock { published in fence.run {
                for entry in pending {
                    if published.index.location(of: entry.key, in: entry.keyspace) == entry.old {
                        published.index.set(entry.new, for: entry.key, in: entry.keyspace)
                    } else {
                        superseded += 1
                    }
                }
            } }
            pending.removeAll(keepingCapacity: true)
        }
        var copied = 0
        // The same traversal of the same (private, unchanging) index as in step 2, so the n-th
        // record visited is the n-th one copied.
        forEachRecordToCopy(plan) { keyspace, key, location in
            pending.append((keyspace, key, location, newLocations[copied]))
            copied += 1
            if pending.count == Self.compactionPublishStep { repointPending() }
        }
        repointPending()
        precondition(copied == newLocations.count, "compaction visited the index differently twice")
        let (replaced, segmentsAfter, bytesAfter) = published.withLock { published in fence.run {
            var replaced: [SegmentFile] = []
            for number in plan.sealed {
                if let segment = published.segments.removeValue(forKey: number) { replaced.append(segment) }
                if let tally = published.tallies.removeValue(forKey: number) {
                    published.records -= tally.records
                    published.bytes -= tally.bytes
                }
            }
            noteCompactionPublished()
            return (replaced, published.segments.count, published.bytes)
        } }
        // Outside the lock: when nothing else holds a replaced segment, its deinit (and unlink)
        // runs as these references go.
        for segment in replaced { segment.markObsolete() }
        return (superseded, segmentsAfter, bytesAfter)
    }

    /// Calls `body` with every key of the plan's index whose record lies in a sealed segment,
    /// always in the same order for the same plan.
    private func forEachRecordToCopy(
        _ plan: CompactionPlan, _ body: (Keyspace, StorageKey, RecordLocation) throws -> Void
    ) rethrows {
        for (keyspace, keys) in plan.source.index.keyspaces {
            for (key, location) in keys where plan.sealedSet.contains(location.segment) {
                try body(keyspace, key, location)
            }
        }
    }

    /// Reads the record of `key` at `location` in `segment`, checks it (see
    /// `checkCopiedRecord`) and appends it to `output`; returns where it will lie.
    /// - Throws: ``StrataError`` `.corruption` naming the segment and offset, `.io`.
    static func copyRecord(
        at location: RecordLocation, of segment: SegmentFile, keyspace: Keyspace, key: StorageKey,
        to output: inout CompactionOutput
    ) throws -> RecordLocation {
        let offset = Int(location.offset)
        return try segment.file.withBytes(at: offset, count: Int(location.length)) { bytes in
            try RecordDecoder.withDecoded(bytes, seal: segment.seal, at: offset) { decoded in
                let record = try checkCopiedRecord(decoded, count: bytes.count, keyspace: keyspace, key: key, in: segment, at: offset)
                return try output.append(record, frame: bytes, from: segment.seal)
            }
        }
    }

    /// Checks a record before it is copied: its checksum and structure (and tag), that it is a
    /// put of `count` bytes, and that it is the record of `key`.
    /// - Throws: ``StrataError`` `.corruption` naming the segment and offset.
    private static func checkCopiedRecord(
        _ decoded: Result<DecodedRecord, RecordDamage>, count: Int, keyspace: Keyspace, key: StorageKey,
        in segment: SegmentFile, at offset: Int
    ) throws -> DecodedRecord {
        switch decoded {
        case .failure(let damage):
            throw StrataError.corrupt(damage.message, file: segment.path, offset: offset)
        case .success(let record):
            guard record.kind == .put, record.length == count else {
                throw StrataError.corrupt("index points at a \(record.kind) record", file: segment.path, offset: offset)
            }
            guard record.isRecord(of: key, in: keyspace) else {
                throw StrataError.corrupt("index entry for \(key) points at another key's record", file: segment.path, offset: offset)
            }
            return record
        }
    }

    /// Where this store's compaction writes: compacted segments in its directory, numbered
    /// (under the writer lock, while the store is open) above every existing one, encrypted
    /// with its key.
    private func compactionDestination() -> CompactionOutput.Destination {
        CompactionOutput.Destination(
            directory: directory, fileSystem: fileSystem, segmentSize: options.segmentSize, key: key,
            remove: { [remover] path in remover?.remove(path) },
            newSegment: { [self] dictionary in
                // Only while the store is open: once `close()` has released the directory
                // lock, another process may own the directory.
                try writer.withLock { state throws in
                    try Store.checkWritable(state)
                    return try SegmentWriter.createSegment(
                        try Store.takeSegmentNumber(&state), kind: .compacted, in: directory,
                        fileSystem: fileSystem, key: key, remover: remover, sync: false, dictionary: dictionary)
                }
            },
            writeHint: { [remover, directory, fileSystem, openWithHints = options.openWithHints] segment, length in
                guard openWithHints else { return }
                // Only while the store holds the directory, as for `newSegment`.
                try remover?.whileEnabled {
                    try HintFile.write(for: segment, length: length, in: directory, fileSystem: fileSystem)
                }
            })
    }
}
