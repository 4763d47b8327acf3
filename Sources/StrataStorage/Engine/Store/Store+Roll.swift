// Rolling the log over to a new segment, and what a failed roll leaves.
//
// A roll (1) seals the active segment: its length written into its header, then an fsync;
// (2) writes its hint (stores that open with hints); (3) creates the next segment (header
// written, file and directory synced); (4) installs a MANIFEST that lists it.
//
// Failure rules:
// - A failed sync (of a segment, a hint, the directory or the MANIFEST), or a failed rename of
//   the MANIFEST, is sticky: the store refuses writes until it is reopened. After a failed
//   fsync the kernel may have dropped dirty pages, and the directory's state is unknown.
// - Any other failure (no space to create or write the new segment, its hint or the next
//   MANIFEST) leaves nothing a reader or a recovery would use: the MANIFEST still names the
//   old segment as the newest one, a new segment file is removed, and a sealed length in the
//   old segment's header is not checked on the newest segment (format.md §3). The commit that
//   needed the roll fails with "not applied", and the next commit tries the roll again, so the
//   store goes on once space is freed.

extension Store {
    /// ``roll(_:)`` for a commit or a compaction: a failure whose sync failed is sticky (the
    /// store then refuses writes until reopened); any other leaves the store as it was, and the
    /// next commit tries again. REQUIRES: `writer` is held.
    /// - Throws: ``StrataError`` `.io` (or `.closed`) from the roll, saying which kind it was.
    func rollStoppingWritesOnFailure(_ state: inout WriterState) throws {
        let syncs = SyncFailureNote()
        do {
            try roll(&state, syncs: syncs)
        } catch {
            let cause = StrataError.converting(error)
            guard syncs.failed else {
                throw StrataError(
                    cause.code, "\(cause.message); starting a new segment failed before the commit was written, "
                        + "so it was not applied; the next commit tries again",
                    file: cause.file, offset: cause.offset, errno: cause.errno)
            }
            state.failure = cause
            throw cause
        }
    }

    /// Seals the active segment and starts the next one (see above). Notes a failed sync (or
    /// MANIFEST rename) in `syncs`. REQUIRES: `writer` is held.
    /// - Throws: ``StrataError`` `.io`.
    func roll(_ state: inout WriterState, syncs: SyncFailureNote = SyncFailureNote()) throws {
        guard let active = state.active else { return }
        // A sealed segment is never written again and must be whole after any crash; its
        // header records how long it is, so that recovery can tell if it is ever cut short.
        try SegmentWriter.seal(active, atLength: state.offset, syncs: syncs)
        state.syncedOffset = state.offset
        // Its hint (for a store that opens with hints) is synced now; the directory sync of the
        // next segment's creation makes its name durable.
        if options.openWithHints {
            try HintFile.write(for: active, length: state.offset, in: directory, fileSystem: fileSystem, syncs: syncs)
        }
        // Not `active.number + 1`: compacted segments are numbered above the active one.
        let number = try Self.takeSegmentNumber(&state)
        let segment = try SegmentWriter.createSegment(
            number, in: directory, fileSystem: fileSystem, key: key, remover: remover, syncs: syncs)
        let order = state.segmentOrder + [number]
        do {
            try Manifest(
                segments: order, lastSequence: state.nextSequence - 1,
                listsCompactedSegments: !state.compactedSegments.isEmpty
            ).install(in: directory, fileSystem: fileSystem, syncs: syncs)
        } catch {
            if !syncs.failed {
                // No MANIFEST names it: gone now, or a leftover the next open removes.
                try? segment.file.close()
                try? fileSystem.removeFile(segment.path)
            }
            throw error
        }
        state.segmentOrder = order
        state.active = segment
        state.offset = SegmentHeader.size
        state.syncedOffset = SegmentHeader.size
        published.withLock { published in fence.run {
            published.segments[number] = segment
            published.tallies[number] = SegmentTally(records: 0, bytes: SegmentHeader.size)
            published.bytes += SegmentHeader.size
        } }
    }
}
