// Creating and sealing segment files. The append path itself is Store+Commit.swift;
// compaction's output is written by Engine/Compaction/Compaction.swift.

enum SegmentWriter {
    /// Creates segment `number` in `directory` and writes its header, with a new random salt;
    /// with `key`, the segment is encrypted under a key derived for it (a new random key salt).
    /// With `dictionary` (compacted, plain segments only) the header names it; the caller
    /// writes its dictionary record next (SegmentDictionary.swift).
    ///
    /// With `sync` (log segments, made by a roll), the file and the directory are synced before
    /// this returns, so that a manifest naming it never names a missing or headerless file.
    /// Without it (compacted segments), the caller syncs the file once it is full and the
    /// directory once every output file exists, before any manifest names them. A failed sync
    /// is noted in `syncs`.
    /// - Throws: ``StrataError`` `.io`; a half-created file is removed when possible.
    static func createSegment(
        _ number: UInt32, kind: SegmentKind = .log, in directory: String, fileSystem: any FileSystem,
        key: StoreKey?, remover: SegmentRemover?, sync: Bool = true, dictionary: ZstdDictionary? = nil,
        syncs: SyncFailureNote? = nil
    ) throws -> SegmentFile {
        let path = joinPath(directory, SegmentFile.name(for: number))
        let seal = RecordSeal.random().encrypting(with: key?.newSegmentCipher(number: number))
            .decompressing(with: dictionary)
        let file = try fileSystem.open(path, mode: .createNew)
        do {
            try file.write(SegmentHeader(segmentNumber: number, kind: kind, seal: seal).encoded(), at: 0)
            if sync {
                try syncs.watching {
                    try file.sync()
                    try fileSystem.syncDirectory(directory)
                }
            }
        } catch {
            try? file.close()
            try? fileSystem.removeFile(path)
            throw error
        }
        return SegmentFile(number: number, kind: kind, seal: seal, path: path, file: file, remover: remover)
    }

    /// Seals `segment` at `length` bytes: rewrites its header with that sealed length, then
    /// syncs the file, so that the length and every record before it are durable together.
    ///
    /// A roll calls this on the active segment before it creates the next one, and compaction
    /// on each output segment once it is full, so the length is on disk before any MANIFEST
    /// lists a segment after it (or the compacted segment itself); recovery then refuses the
    /// segment if it is ever shorter. The header is overwritten in place: it lies inside the
    /// file's first 512-byte sector, whose writes are taken to be atomic (PostgreSQL keeps
    /// `pg_control` under 512 bytes on the same assumption), so a crash leaves the old header or
    /// the new one, and both are valid. Where that does not hold, recovery accepts the torn
    /// header of the newest segment (Engine/Recovery/Recovery+TornSeal.swift). REQUIRES: `length` is the
    /// file's size and nothing writes to the segment meanwhile.
    /// - Throws: ``StrataError`` `.io` when the write or the sync fails; a failed sync is
    ///   noted in `syncs`.
    static func seal(_ segment: SegmentFile, atLength length: Int, syncs: SyncFailureNote? = nil) throws {
        var header = SegmentHeader(segmentNumber: segment.number, kind: segment.kind, seal: segment.seal)
        if segment.seal.salt == nil { header.version = SegmentHeader.unsaltedVersion }
        header.sealedLength = UInt64(length)
        try segment.file.write(header.encoded(), at: 0)
        try syncs.watching { try segment.file.sync() }
    }
}
