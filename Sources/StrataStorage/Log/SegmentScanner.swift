// Walks the records of one segment, hands each committed transaction to a callback, and says
// where the valid log ends and why. Used by recovery at open and by `strata verify`.
// Log segments go through `scan`, compacted segments through `scanCompacted`.
// Pure functions over bytes; safe from any thread.

/// One put or delete of a committed transaction, with where its record lies.
struct ScannedOperation {
    var isPut: Bool
    var keyspace: Keyspace
    var key: StorageKey
    var offset: Int
    var length: Int
}

/// What a scan of one segment found.
struct SegmentScanResult {
    /// The offset just past the last commit record (the header size when there is none).
    var committedEnd: Int
    /// The first damaged record, if any: its offset and what is wrong.
    var damage: (offset: Int, kind: RecordDamage)?
    /// Whether every byte from the damage to the end of the file is zero.
    var damageIsZeroFill = false
    /// Whether a valid commit record past the damage says the damaged bytes had been synced
    /// (so the damage cannot be a torn write).
    var damageBeforeSyncedPoint = false
    /// Records read (puts, deletes and commits) before the end or the damage.
    var records = 0
    /// Transactions applied.
    var transactions = 0
    /// Records read that belong to no commit (an interrupted or failed transaction).
    var uncommittedRecords = 0
    /// The highest committed sequence seen (for a log segment, also the last one).
    var lastSequence: UInt64 = 0
}

enum SegmentScanner {
    /// Scans `bytes`, the whole segment file, whose header has already been checked; `seal`
    /// comes from that header.
    /// `lastSequence` is the highest sequence committed by earlier segments (for the first log
    /// segment after compacted ones, the highest sequence they hold); sequences must increase
    /// past it.
    ///
    /// With `base` above 0, `bytes` are the segment's bytes from file offset `base` on, and
    /// `base` must be where a record starts (the `committedEnd` of an earlier scan: a follower
    /// catching up, Store+Refresh.swift); every offset in the result is a file offset.
    static func scan(
        _ bytes: UnsafeRawBufferPointer, seal: RecordSeal, after lastSequence: UInt64, from base: Int = 0,
        apply: (_ sequence: UInt64, _ operations: [ScannedOperation]) -> Void
    ) -> SegmentScanResult {
        let start = base == 0 ? SegmentHeader.size : base
        var result = SegmentScanResult(committedEnd: start, lastSequence: lastSequence)
        var pending: [ScannedOperation] = []
        var pendingSequence: UInt64?
        result.damage = forEachRecord(in: bytes, seal: seal, from: start, base: base) { offset, record in
            if record.sequence <= result.lastSequence {
                return .malformedPayload(
                    "sequence \(record.sequence) does not follow committed sequence \(result.lastSequence)")
            }
            if pendingSequence != record.sequence {
                result.uncommittedRecords += pending.count
                pending.removeAll(keepingCapacity: true)
                pendingSequence = record.sequence
            }
            if record.kind == .dictionary {
                return .malformedPayload("a dictionary record in a log segment")
            }
            if record.kind == .commit {
                guard record.commitRecordCount == pending.count else {
                    return .malformedPayload("commit of \(record.commitRecordCount) records follows \(pending.count)")
                }
                apply(record.sequence, pending)
                result.transactions += 1
                result.lastSequence = record.sequence
                result.committedEnd = offset + record.length
                pending.removeAll(keepingCapacity: true)
                pendingSequence = nil
            } else {
                pending.append(ScannedOperation(
                    isPut: record.kind == .put, keyspace: record.keyspace,
                    key: StorageKey(record.keyBytes), offset: offset, length: record.length))
            }
            result.records += 1
            return nil
        }
        result.uncommittedRecords += pending.count
        if let damage = result.damage {
            let tail = UnsafeRawBufferPointer(rebasing: bytes[(damage.offset - base)...])
            result.damageIsZeroFill = tail.allSatisfy { $0 == 0 }
            result.damageBeforeSyncedPoint = hasSyncedCommit(in: bytes, seal: seal, after: damage.offset, from: base)
        }
        return result
    }

    /// Whether some valid commit record after `damageOffset` declares the segment synced past
    /// `damageOffset`. Looks at every byte offset, but only offsets whose length and kind bytes
    /// look like a commit pay for a checksum. In a salted segment only a commit written at that
    /// very offset passes (RecordSeal.swift), so a commit frame inside a value never does.
    /// `bytes` start at file offset `base`; `damageOffset` is a file offset.
    static func hasSyncedCommit(
        in bytes: UnsafeRawBufferPointer, seal: RecordSeal, after damageOffset: Int, from base: Int = 0
    ) -> Bool {
        let size = RecordFormat.commitRecordSize
        var candidate = damageOffset + 1 - base
        while candidate + size <= bytes.count {
            defer { candidate += 1 }
            guard bytes[candidate + 8] == RecordKind.commit.rawValue,
                  bytes.loadLittleEndian(at: candidate + 4, as: UInt32.self) == RecordFormat.commitPayloadSize
            else { continue }
            let window = UnsafeRawBufferPointer(rebasing: bytes[candidate..<(candidate + size)])
            if case .success(let record) = RecordDecoder.decode(window, seal: seal, at: base + candidate),
               record.commitSyncedThrough > damageOffset {
                return true
            }
        }
        return false
    }

    /// Scans `bytes`, a whole compacted segment whose header (and `seal`, with its dictionary
    /// when it has one) has already been checked.
    ///
    /// Every record must be a put; each one is committed on its own, and they may come in any
    /// order of sequence, so no sequence rule applies. `apply` gets each put in file order and
    /// returns nil to accept it, or why it is wrong (recovery refuses a key that appears twice).
    /// The first record that fails to decode, is not a put, or is refused ends the scan with
    /// `damage` set; since a compacted segment is synced whole before any MANIFEST names it,
    /// the caller treats every damage as corruption. `committedEnd` is the end of the last
    /// accepted put, `lastSequence` the highest sequence seen (at least `lastSequence`).
    static func scanCompacted(
        _ bytes: UnsafeRawBufferPointer, seal: RecordSeal, after lastSequence: UInt64,
        apply: (_ sequence: UInt64, _ operation: ScannedOperation) -> String?
    ) -> SegmentScanResult {
        // A segment with a dictionary holds it in its first record, which the segment's
        // opening already loaded and checked (SegmentDictionary.swift): the puts follow it.
        let start = seal.firstRecordOffset
        var result = SegmentScanResult(committedEnd: start, lastSequence: lastSequence)
        result.damage = forEachRecord(in: bytes, seal: seal, from: start, base: 0) { offset, record in
            guard record.kind == .put else {
                return .malformedPayload("a \(record.kind) record in a compacted segment, which holds only puts")
            }
            let operation = ScannedOperation(
                isPut: true, keyspace: record.keyspace, key: StorageKey(record.keyBytes),
                offset: offset, length: record.length)
            if let problem = apply(record.sequence, operation) { return .malformedPayload(problem) }
            result.records += 1
            result.transactions += 1
            result.lastSequence = max(result.lastSequence, record.sequence)
            result.committedEnd = offset + record.length
            return nil
        }
        // (`damageIsZeroFill` is left false: damage in a compacted segment is never a tail.)
        return result
    }

    /// Decodes the records of `bytes` (which start at file offset `base`) one after the other
    /// from file offset `start`, where a record starts, to the end. `body` gets each record
    /// that decodes, with its offset, and returns nil to go on or why it refuses the record.
    /// Returns the first record that does not decode or is refused, or nil at the end.
    private static func forEachRecord(
        in bytes: UnsafeRawBufferPointer, seal: RecordSeal, from start: Int, base: Int,
        _ body: (_ offset: Int, _ record: DecodedRecord) -> RecordDamage?
    ) -> (offset: Int, kind: RecordDamage)? {
        var offset = start
        let end = base + bytes.count
        while offset < end {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[(offset - base)...])
            let damage = RecordDecoder.withDecoded(rest, seal: seal, at: offset) { decoded -> RecordDamage? in
                switch decoded {
                case .failure(let damage):
                    return damage
                case .success(let record):
                    if let refusal = body(offset, record) { return refusal }
                    offset += record.length
                    return nil
                }
            }
            if let damage { return (offset, damage) }
        }
        return nil
    }
}
