// Creating segment files. The append path itself is Store+Commit.swift; compaction's output is
// written by Engine/Compaction.swift.

enum SegmentWriter {
    /// Creates segment `number` in `directory` and writes its header, with a new random salt.
    ///
    /// With `sync` (log segments, made by a roll), the file and the directory are synced before
    /// this returns, so that a manifest naming it never names a missing or headerless file.
    /// Without it (compacted segments), the caller syncs the file once it is full and the
    /// directory once every output file exists, before any manifest names them.
    /// - Throws: ``StrataError`` `.io`; a half-created file is removed when possible.
    static func createSegment(
        _ number: UInt32, kind: SegmentKind = .log, in directory: String, fileSystem: any FileSystem,
        remover: SegmentRemover?, sync: Bool = true
    ) throws -> SegmentFile {
        let path = joinPath(directory, SegmentFile.name(for: number))
        let seal = RecordSeal.random()
        let file = try fileSystem.open(path, mode: .createNew)
        do {
            try file.write(SegmentHeader(segmentNumber: number, kind: kind, seal: seal).encoded(), at: 0)
            if sync {
                try file.sync()
                try fileSystem.syncDirectory(directory)
            }
        } catch {
            try? file.close()
            try? fileSystem.removeFile(path)
            throw error
        }
        return SegmentFile(number: number, kind: kind, seal: seal, path: path, file: file, remover: remover)
    }
}
