// writeCopy: a compacted copy of one snapshot in another directory, written while commits go on.
//
// 1. Refuse a destination that holds a MANIFEST, a MANIFEST.tmp or a segment (a store, or what
//    a crash left of one); create the directory durably and hold its LOCK while copying.
// 2. Copy every live record of the snapshot, as compaction does (CompactionOutput, with a
//    dictionary trained as compaction trains one, CompactionDictionary.swift): checked,
//    then written again into compacted segments numbered 1, 2, … (sealed under the copy's key,
//    in the clear without one), each sealed and fsynced when full.
// 3. Create an empty log segment after them (file and directory fsynced), then install the
//    MANIFEST through MANIFEST.tmp, fsync, rename, fsync of the directory (Log/Manifest.swift).
//
// The MANIFEST's rename is the commit point. Before it, a crash leaves segments without a
// MANIFEST, which no open accepts as a store (Recovery+MissingManifest.swift refuses segments
// that hold data without one) and which a later writeCopy refuses to write over. On a thrown
// error (at any step, the directory sync after the rename included) every file the copy created
// is removed, best effort: the MANIFEST first (it was not there before: the destination was
// checked under the lock), then the segments, their hints, MANIFEST.tmp and the LOCK when the
// copy created it; a retry then finds no store there. The MANIFEST's sequence floor is the
// snapshot's sequence, so the copy's next commit numbers on from the snapshot.
//
// The copy is written through the file system it is given, by default the store's own: a store
// in memory may be copied to the disk.

extension Store {
    /// Writes a compacted copy of the store as of its latest commit into `destination`; see
    /// ``writeCopy(of:toDirectory:on:encryptionKey:)``.
    ///
    /// Thread safety: as ``writeCopy(of:toDirectory:on:encryptionKey:)``: any thread, beside
    /// commits, compactions and readers, none of which waits for it.
    /// - Throws: what ``writeCopy(of:toDirectory:on:encryptionKey:)`` throws.
    /// - Complexity: O(k + b) for the k live keys and the b bytes of their records.
    public func writeCopy(toDirectory destination: String, on fileSystem: (any FileSystem)? = nil, encryptionKey: [UInt8]?) throws {
        try writeCopy(of: snapshot(), toDirectory: destination, on: fileSystem, encryptionKey: encryptionKey)
    }

    /// Writes a compacted copy of `snapshot` into `destination`: its live records only (no
    /// overwritten values, no tombstones), in compacted segments, with a new MANIFEST. The copy
    /// is a store of its own, opened with `encryptionKey` (nil: not encrypted), whatever the key
    /// of this store: a copy may encrypt a plain store, decrypt an encrypted one, or change its
    /// key. It keeps every value and sequence number of the snapshot.
    ///
    /// The copy is complete and durable (every file and the directory fsynced) when this
    /// returns. A crash before then never leaves a directory that opens as a store: its
    /// MANIFEST is renamed into place last. A thrown error removes every file the copy
    /// created (the MANIFEST too, when the failure came after its rename), so the same copy
    /// may be retried. `destination` is created when missing; it may exist, but must not hold
    /// a store (or the segments a crashed copy left).
    ///
    /// ```swift
    /// let key: [UInt8] = … // 64 bytes
    /// try store.writeCopy(toDirectory: "/backups/db-2026-11-24", encryptionKey: key)
    /// ```
    ///
    /// Thread safety: may be called from any thread, on a read-write or read-only store. Commits,
    /// compactions and readers go on meanwhile and never wait for it; the copy is the state of
    /// `snapshot` exactly.
    ///
    /// - Parameters:
    ///   - snapshot: the state to copy, from this store.
    ///   - destination: the directory of the copy.
    ///   - fileSystem: the file system `destination` is on; nil (the default) for this store's
    ///     own. A store in a ``MemoryFileSystem`` passes a ``PosixFileSystem`` to copy to disk.
    ///   - encryptionKey: the copy's 64-byte key, or nil for a copy that is not encrypted.
    /// - Throws: ``StrataError`` with code
    ///   - `.invalidKey` when `encryptionKey` is not 64 bytes long (nothing is written);
    ///   - `.invalidArgument` when `destination` already holds a MANIFEST or a segment (nothing
    ///     is written or changed there);
    ///   - `.locked` when another process or store holds the destination's `LOCK`;
    ///   - `.corruption` (naming the file and offset) when a record of the snapshot fails its
    ///     checks; `.io` when reading, writing or syncing fails. Every file the copy created is
    ///     then removed.
    /// - Complexity: O(k + b) time for the k live keys of `snapshot` and the b bytes of their
    ///   records; O(1) extra memory but one output buffer of at most 1 MiB.
    public func writeCopy(
        of snapshot: Snapshot, toDirectory destination: String, on fileSystem: (any FileSystem)? = nil, encryptionKey: [UInt8]?
    ) throws {
        let fileSystem = fileSystem ?? self.fileSystem
        let key = try encryptionKey.map { bytes throws(StrataError) in try StoreKey(bytes) }
        try Self.checkCopyDestination(destination, on: fileSystem)
        try Self.createDirectoryDurably(destination, fileSystem: fileSystem)
        let lockPath = joinPath(destination, Store.lockFileName)
        let createsLock = !fileSystem.exists(lockPath)
        let lock = try fileSystem.lock(lockPath)
        defer { lock.unlock() }
        // Again under the lock: another copy may have written there meanwhile.
        try Self.checkCopyDestination(destination, on: fileSystem)
        let dictionary = CompactionDictionary.train(
            policy: options.dictionaryCompression, encrypted: key != nil, segmentSize: options.segmentSize,
            level: options.compressionLevel, segments: snapshot.segments
        ) { visit in
            for (_, keys) in snapshot.index.keyspaces { for (_, location) in keys { visit(location) } }
        }
        let copier = SnapshotCopier(
            directory: destination, fileSystem: fileSystem, segmentSize: options.segmentSize, key: key,
            dictionary: dictionary, writesHints: options.openWithHints)
        do {
            try copier.copy(snapshot)
        } catch {
            copier.removeFiles(lock: createsLock ? lockPath : nil)
            throw error
        }
    }

    /// Refuses a destination that holds a store's files.
    /// - Throws: ``StrataError`` `.invalidArgument` naming the first such file.
    private static func checkCopyDestination(_ destination: String, on fileSystem: any FileSystem) throws {
        guard fileSystem.exists(destination) else { return }
        let names = try fileSystem.contentsOfDirectory(destination).sorted()
        let storeFile = names.first {
            $0 == Manifest.fileName || $0 == Manifest.temporaryName || SegmentFile.number(fromName: $0) != nil
        }
        if let storeFile {
            throw StrataError(
                .invalidArgument,
                "\(destination) already holds a Strata store (or what a crashed copy left of one: \(storeFile)); "
                    + "nothing was written. Copy to a new or empty directory",
                file: joinPath(destination, storeFile))
        }
    }
}

/// Writes the files of one copy (see above). Used by one thread.
private struct SnapshotCopier {
    let directory: String
    let fileSystem: any FileSystem
    let segmentSize: Int
    let key: StoreKey?
    /// Compresses the copy's small values, when the store's policy trained a dictionary.
    let dictionary: ZstdDictionary.Compressor?
    /// Whether each compacted segment of the copy gets a hint (the store's `openWithHints`).
    let writesHints: Bool
    /// Every file this copier created, so that a failure can remove them.
    private let created = CreatedFiles()

    init(
        directory: String, fileSystem: any FileSystem, segmentSize: Int, key: StoreKey?,
        dictionary: ZstdDictionary.Compressor?, writesHints: Bool
    ) {
        self.dictionary = dictionary
        self.writesHints = writesHints
        self.directory = directory
        self.fileSystem = fileSystem
        self.segmentSize = segmentSize
        self.key = key
    }

    /// Copies `snapshot`'s live records, then adds an empty log segment and the MANIFEST.
    func copy(_ snapshot: Snapshot) throws {
        var output = CompactionOutput(destination: destination())
        for (keyspace, keys) in snapshot.index.keyspaces {
            for (key, location) in keys {
                guard let segment = snapshot.segments[location.segment] else {
                    throw StrataError(.corruption, "index points into segment \(location.segment), which is not open")
                }
                _ = try Store.copyRecord(at: location, of: segment, keyspace: keyspace, key: key, to: &output)
            }
        }
        try output.finishFiles()
        let compacted = output.finished.map(\.number)
        // Synced with the directory, which makes the compacted segments' names durable too.
        let log = try newSegment(kind: .log, sync: true)
        try Manifest(
            segments: compacted + [log.number], lastSequence: snapshot.sequence,
            listsCompactedSegments: !compacted.isEmpty
        ).install(in: directory, fileSystem: fileSystem)
    }

    /// Removes every file the copy created (best effort) — the MANIFEST first, so that no
    /// MANIFEST ever lists a removed segment, then the segments, their hints, MANIFEST.tmp and
    /// `lock` (the LOCK's path, when the copy created it) — then syncs the directory.
    /// REQUIRES: the destination held no MANIFEST when the copy began (under its lock).
    func removeFiles(lock: String?) {
        let manifest = joinPath(directory, Manifest.fileName)
        if fileSystem.exists(manifest) {
            try? fileSystem.removeFile(manifest)
            try? fileSystem.syncDirectory(directory)
        }
        let hints = created.paths.map { String($0.dropLast(4)) + ".hint" }  // each segment's, if written
        let others = [joinPath(directory, Manifest.temporaryName)] + (lock.map { [$0] } ?? [])
        for path in created.paths + hints + others where fileSystem.exists(path) {
            try? fileSystem.removeFile(path)
        }
        try? fileSystem.syncDirectory(directory)
    }

    private func destination() -> CompactionOutput.Destination {
        CompactionOutput.Destination(
            directory: directory, fileSystem: fileSystem, segmentSize: segmentSize, key: key,
            remove: { [fileSystem] path in try? fileSystem.removeFile(path) },
            dictionary: dictionary,
            newSegment: { [self] dictionary in try newSegment(kind: .compacted, sync: false, dictionary: dictionary) },
            writeHint: { [self] segment, length in
                guard writesHints else { return }
                try HintFile.write(for: segment, length: length, in: directory, fileSystem: fileSystem)
            })
    }

    /// Creates the copy's next segment, numbered from 1.
    private func newSegment(kind: SegmentKind, sync: Bool, dictionary: ZstdDictionary? = nil) throws -> SegmentFile {
        let number = UInt32(created.paths.count + 1)
        // Noted only once made: a file that was there before is never this copy's to remove.
        let segment = try SegmentWriter.createSegment(
            number, kind: kind, in: directory, fileSystem: fileSystem, key: key, remover: nil, sync: sync,
            dictionary: dictionary)
        created.paths.append(segment.path)
        return segment
    }
}

/// The paths a copier created; a class so that the output's segment maker can add to it.
private final class CreatedFiles {
    var paths: [String] = []
}
