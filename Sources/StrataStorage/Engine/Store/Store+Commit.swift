// The write path: a commit leader (see CommitQueue) encodes its group of batches into one
// buffer, appends it to the active segment with one write, syncs once when any member asked for
// `.full`, then publishes the new index.
//
// Failure rules:
// - A failed write or fsync of a group is rolled back by truncating the segment to where the
//   group started and syncing the cut, so the group cannot appear after a reopen or a crash;
//   its committers get `.io` saying the commit was not applied. If the cut or its sync fails
//   too, the error says the outcome is unknown and the store refuses further writes.
// - A failed fsync (or a segment roll whose sync failed, Store+Roll.swift) makes the store
//   refuse every further write until it is reopened, even when the cut succeeded: after a
//   failed fsync the kernel may have dropped the dirty pages, so nothing written since the
//   last good sync can be trusted (PostgreSQL's "fsyncgate").
// - Sequence numbers of a failed group are never reused.

extension Store {
    /// Applies `batch` atomically and returns the sequence number of the commit.
    ///
    /// With `.full` durability the batch is on stable storage when this returns; concurrent
    /// committers share one `fsync`. An empty batch writes nothing and returns the current
    /// sequence.
    ///
    /// - Throws: ``StrataError`` with code
    ///   - `.readOnly` when the store was opened read-only;
    ///   - `.invalidArgument` when a key or value is over the limits (nothing is written);
    ///   - `.io` when the write or sync fails. The batch's bytes are then cut off the log and
    ///     the cut synced before this returns, so the batch is not applied, now or after a
    ///     reopen or a crash, and the message says so. When the cut fails too, the message says
    ///     the outcome is unknown (the batch may appear after a crash) and the store refuses
    ///     further writes. After a failed sync the store refuses further writes either way;
    ///   - `.closed` after ``close()``, or after an earlier failed sync (reopen the store).
    /// - Complexity: O(n) in the batch's size.
    @discardableResult
    public func commit(_ batch: WriteBatch) throws -> UInt64 {
        try commit(batch, durability: options.durability)
    }

    /// Applies `batch` atomically with the given durability; see ``commit(_:)``.
    ///
    /// (Not an optional parameter: `durability: .none` would then mean "no value", not
    /// ``Durability/none``.)
    /// - Throws: what ``commit(_:)`` throws.
    @discardableResult
    public func commit(_ batch: WriteBatch, durability: Durability) throws -> UInt64 {
        if options.readOnly {
            throw StrataError(.readOnly, "the store was opened read-only", file: directory)
        }
        try batch.validate(maxValueSize: options.maxValueSize)
        guard batch.encodedSizeBound <= RecordFormat.maxPayloadLength else {
            throw StrataError(.invalidArgument, "a batch of about \(batch.encodedSizeBound) bytes is larger than 1 GiB; split it")
        }
        if batch.isEmpty {
            try writer.withLock { state in try Self.checkWritable(state) }
            return sequence
        }
        return try commitQueue.submit(batch, durability: durability) { group in
            writer.withLock { state in lead(group, &state) }
        }
    }

    static func checkWritable(_ state: WriterState) throws(StrataError) {
        if state.isClosed { throw StrataError(.closed, "the store is closed") }
        if let failure = state.failure {
            throw StrataError(
                .closed,
                "the store refuses writes after an earlier failure (\(failure)); reopen it to recover",
                file: failure.file, errno: failure.errno)
        }
    }

    /// Writes, syncs and publishes a group. REQUIRES: `writer` is held.
    private func lead(_ group: [CommitQueue.Ticket], _ state: inout WriterState) {
        func finish(_ error: StrataError) { for ticket in group { ticket.result = .failure(error) } }
        let active: SegmentFile
        do {
            active = try segmentForGroup(group, &state)
        } catch {
            return finish(StrataError.converting(error))
        }
        let base = state.offset
        let firstSequence = state.nextSequence
        encode(group, into: active, &state)
        if let failure = appendAndSync(group, to: active, at: base, &state) { return finish(failure) }
        // Decided: followers may read it now. A failed publication only keeps them behind.
        try? committedEnd?.publish(segment: active.number, end: state.offset)
        publish(group, in: active, at: base, &state)
        for (position, ticket) in group.enumerated() {
            ticket.result = .success(firstSequence + UInt64(position))
        }
    }

    /// The active segment, rolled first when the group would not fit. A failed roll is sticky.
    private func segmentForGroup(_ group: [CommitQueue.Ticket], _ state: inout WriterState) throws -> SegmentFile {
        try Self.checkWritable(state)
        // A sealed payload is `SegmentCipher.overhead` bytes longer than its plaintext.
        let overhead = key == nil ? 0 : SegmentCipher.overhead
        let bound = group.reduce(0) { $0 + $1.batch.encodedSizeBound + overhead * $1.batch.count }
        if state.offset + bound > options.segmentSize, state.offset > SegmentHeader.size {
            try rollStoppingWritesOnFailure(&state)
            backgroundCompactor?.request()
        }
        guard let active = state.active else {
            throw StrataError(.readOnly, "the store has no segment open for writing")
        }
        return active
    }

    /// Encodes every batch of the group as one transaction each — its records, then its commit
    /// record — into `state.buffer`, noting each record's span; takes their sequence numbers.
    private func encode(_ group: [CommitQueue.Ticket], into active: SegmentFile, _ state: inout WriterState) {
        let compression = CompressionPolicy(
            threshold: options.compressionThreshold, level: options.compressionLevel)
        state.buffer.removeAll(keepingCapacity: true)
        state.recordSpans.removeAll(keepingCapacity: true)
        let base = state.offset
        for ticket in group {
            let sequence = state.nextSequence
            state.nextSequence += 1
            for operation in ticket.batch.operations {
                let span: (offset: Int, length: Int)
                if operation.isDelete {
                    span = RecordEncoder.appendDelete(
                        to: &state.buffer, sequence: sequence, keyspace: operation.keyspace, key: operation.key,
                        seal: active.seal, bufferOffset: base)
                } else {
                    span = ticket.batch.withValue(of: operation) { value in
                        RecordEncoder.appendPut(
                            to: &state.buffer, sequence: sequence, keyspace: operation.keyspace,
                            key: operation.key, value: value, compression: compression,
                            seal: active.seal, bufferOffset: base)
                    }
                }
                state.recordSpans.append(span)
            }
            _ = RecordEncoder.appendCommit(
                to: &state.buffer, sequence: sequence, recordCount: ticket.batch.count,
                syncedThrough: state.syncedOffset, seal: active.seal, bufferOffset: base)
        }
    }

    /// Appends the encoded group with one write, and syncs it when a member asked for `.full`.
    /// On failure cuts the segment back to where the group started and returns the error.
    private func appendAndSync(
        _ group: [CommitQueue.Ticket], to active: SegmentFile, at base: Int, _ state: inout WriterState
    ) -> StrataError? {
        do {
            try state.buffer.withUnsafeBytes { try active.file.write($0, at: base) }
        } catch {
            return cutBack(active, to: base, after: error, sticky: false, &state)
        }
        state.offset += state.buffer.count
        if group.contains(where: { $0.durability == .full }) {
            do {
                try active.file.sync()
                state.syncedOffset = state.offset
            } catch {
                state.offset = base
                return cutBack(active, to: base, after: error, sticky: true, &state)
            }
        }
        return nil
    }

    /// Makes the group's records visible: points the index at them and advances the sequence.
    private func publish(_ group: [CommitQueue.Ticket], in active: SegmentFile, at base: Int, _ state: inout WriterState) {
        let segmentNumber = active.number
        let writtenBytes = state.buffer.count
        let spans = state.recordSpans
        published.withLock { published in fence.run {
            published.index.edit { index in
                var spanIndex = 0
                for ticket in group {
                    for operation in ticket.batch.operations {
                        let span = spans[spanIndex]
                        spanIndex += 1
                        if operation.isDelete {
                            index.remove(operation.key, in: operation.keyspace)
                        } else {
                            index.set(
                                RecordLocation(segment: segmentNumber, offset: base + span.offset, length: span.length),
                                for: operation.key, in: operation.keyspace)
                        }
                    }
                }
            }
            published.sequence = state.nextSequence - 1
            notePublished(published.sequence)
            published.records += spans.count + group.count
            published.bytes += writtenBytes
            published.tallies[segmentNumber, default: SegmentTally()].add(records: spans.count + group.count, bytes: writtenBytes)
        } }
    }

    /// Cuts the active segment back to `base` after a group's write or sync failed, and makes
    /// the cut durable, so that the group cannot appear after a reopen or a crash. Returns the
    /// error the group's committers get: "not applied" when the cut is durable, "outcome is
    /// unknown" (and the store refuses writes) when it is not. With `sticky` (a failed fsync)
    /// the store refuses writes either way. REQUIRES: `writer` is held.
    private func cutBack(
        _ active: SegmentFile, to base: Int, after error: any Error, sticky: Bool, _ state: inout WriterState
    ) -> StrataError {
        let cause = StrataError.converting(error)
        let failure: StrataError
        do {
            try active.file.truncate(to: base)
            try active.file.sync()
            state.syncedOffset = base
            failure = StrataError(
                cause.code, "\(cause.message); the commit was not applied (its bytes were cut off durably)",
                file: cause.file, offset: cause.offset, errno: cause.errno)
        } catch {
            failure = StrataError(
                cause.code, "\(cause.message); the commit's outcome is unknown: cutting its bytes off failed "
                    + "(\(error)), so it may appear after a crash or a reopen",
                file: cause.file, offset: cause.offset, errno: cause.errno)
            state.failure = failure
        }
        if sticky { state.failure = failure }
        return failure
    }

    /// Hands out the next unused segment number. REQUIRES: `writer` is held.
    /// - Throws: ``StrataError`` `.io` when every 32-bit segment number has been used.
    static func takeSegmentNumber(_ state: inout WriterState) throws(StrataError) -> UInt32 {
        guard let number = UInt32(exactly: state.nextSegmentNumber) else {
            throw StrataError(.io, "segment numbers are exhausted (the highest, \(UInt32.max), is taken)")
        }
        state.nextSegmentNumber += 1
        return number
    }
}
