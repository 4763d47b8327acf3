// Creating segment files. The append path itself is Store+Commit.swift.

enum SegmentWriter {
    /// Creates segment `number` in `directory`: writes its header, syncs the file and the
    /// directory, so that a manifest naming it never names a missing or headerless file.
    /// - Throws: ``StrataError`` `.io`; a half-created file is removed when possible.
    static func createSegment(
        _ number: UInt32, in directory: String, fileSystem: any FileSystem
    ) throws -> SegmentFile {
        let path = joinPath(directory, SegmentFile.name(for: number))
        let file = try fileSystem.open(path, mode: .createNew)
        do {
            try file.write(SegmentHeader(segmentNumber: number).encoded(), at: 0)
            try file.sync()
            try fileSystem.syncDirectory(directory)
        } catch {
            try? file.close()
            try? fileSystem.removeFile(path)
            throw error
        }
        return SegmentFile(number: number, path: path, file: file)
    }
}
