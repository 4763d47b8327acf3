// The MANIFEST: the set of live segments, replaced atomically on every change.
//
// ┌────────────┬─────────┬────────────┬──────────┬──────────────┬─────────────────┬────────┐
// │ magic (8)  │ ver (2) │ reserved 2 │ count (4)│ last seq (8) │ segment# (4)×N  │ crc (4)│
// └────────────┴─────────┴────────────┴──────────┴──────────────┴─────────────────┴────────┘
//   0            8         10           12         16             24
//
// - magic: "STRATAMF"; ver: 1 or 2 (others refused with `.unsupportedFormat`). The layout is
//   the same; what differs is what the segment list may hold:
//     1  log segments only, numbers strictly increasing;
//     2  compacted segments first (the output of the last compaction), then log segments;
//        numbers in any order (compacted segments are numbered above the log segments that
//        follow them), no number twice.
//   A writer writes 2 exactly when the list names a compacted segment, so a store that never
//   compacted stays readable by builds that only know version 1, and such a build refuses a
//   compacted store with `.unsupportedFormat` instead of misreading it.
// - count: the number N of live segments, in log order (oldest first); the last is the one
//   being appended to (always a log segment).
// - last seq: a floor for sequence numbers: the highest sequence assigned when the manifest
//   was written (committed or not), so numbering never goes back even when compaction empties
//   old segments.
// - crc: masked CRC-32C of every byte before it.
//
// Replacement protocol (`Manifest.install(in:fileSystem:syncs:)`): write MANIFEST.tmp, fsync
// it, rename it over MANIFEST, fsync the directory; only then may files the old manifest named
// be unlinked.
// A MANIFEST.tmp found at open is a leftover of a crash before the rename and is removed.

/// The decoded contents of a MANIFEST file.
///
/// `@_spi(Testing)`: through `@_spi(Testing) import StrataStorage`, fuzzers that build or
/// repair a MANIFEST see ``magic``, ``logOnlyVersion`` and ``fixedSize``. Decoding, encoding
/// and installing stay internal.
@_spi(Testing) public struct Manifest: Equatable, Sendable {
    static let fileName = "MANIFEST"
    static let temporaryName = "MANIFEST.tmp"
    /// The first 8 bytes of every MANIFEST: "STRATAMF".
    @_spi(Testing) public static let magic: [UInt8] = Array("STRATAMF".utf8)
    /// The newest version this build reads and writes.
    static let currentVersion: UInt16 = 2
    /// The version of a manifest whose list names no compacted segment.
    @_spi(Testing) public static let logOnlyVersion: UInt16 = 1
    /// The size of a MANIFEST without its segment list: magic(8) + version(2) + reserved(2) +
    /// count(4) + last sequence(8) + crc(4). Each listed segment adds 4 bytes.
    @_spi(Testing) public static let fixedSize = 28
    /// More segments than this in one manifest is treated as corruption (guards allocation).
    static let maxSegments = 1 << 20

    var segments: [UInt32]
    var lastSequence: UInt64
    /// 1 when `segments` names log segments only, 2 when it names compacted segments too.
    var version: UInt16 = Manifest.logOnlyVersion

    /// A manifest of the version that `segments` needs.
    init(segments: [UInt32], lastSequence: UInt64, listsCompactedSegments: Bool) {
        self.init(
            segments: segments, lastSequence: lastSequence,
            version: listsCompactedSegments ? Manifest.currentVersion : Manifest.logOnlyVersion)
    }

    init(segments: [UInt32], lastSequence: UInt64, version: UInt16 = Manifest.logOnlyVersion) {
        self.segments = segments
        self.lastSequence = lastSequence
        self.version = version
    }

    func encoded() -> [UInt8] {
        var bytes = Manifest.magic
        bytes.appendLittleEndian(version)
        bytes.appendLittleEndian(UInt16(0))
        bytes.appendLittleEndian(UInt32(segments.count))
        bytes.appendLittleEndian(lastSequence)
        for segment in segments { bytes.appendLittleEndian(segment) }
        bytes.appendLittleEndian(CRC32C.mask(CRC32C.checksum(bytes)))
        return bytes
    }

    /// - Throws: ``StrataError`` `.corruption` naming `file` and offset, or `.unsupportedFormat`.
    static func decode(_ bytes: [UInt8], file: String) throws -> Manifest {
        try bytes.withUnsafeBytes { raw in
            guard raw.count >= fixedSize else {
                throw StrataError.corrupt("manifest cut short (\(raw.count) bytes)", file: file, offset: 0)
            }
            guard raw[0..<8].elementsEqual(magic) else {
                throw StrataError.corrupt("not a Strata manifest (bad magic)", file: file, offset: 0)
            }
            let count = Int(raw.loadLittleEndian(at: 12, as: UInt32.self))
            guard count <= maxSegments, raw.count == fixedSize + 4 * count else {
                throw StrataError.corrupt(
                    "manifest declares \(count) segments but holds \(raw.count) bytes", file: file, offset: 12)
            }
            let crcOffset = raw.count - 4
            let stored = CRC32C.unmask(raw.loadLittleEndian(at: crcOffset, as: UInt32.self))
            guard stored == CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<crcOffset])) else {
                throw StrataError.corrupt("manifest checksum mismatch", file: file, offset: crcOffset)
            }
            let version = raw.loadLittleEndian(at: 8, as: UInt16.self)
            guard (logOnlyVersion...currentVersion).contains(version) else {
                throw StrataError(
                    .unsupportedFormat,
                    "manifest format version \(version) is not supported (this build reads versions \(logOnlyVersion) to \(currentVersion)); open it with a newer Strata",
                    file: file, offset: 8)
            }
            // The engine never writes an empty list; accepting one would make a read-write open
            // delete every segment as a leftover.
            guard count > 0 else {
                throw StrataError.corrupt("manifest lists no segments", file: file, offset: 12)
            }
            let lastSequence = raw.loadLittleEndian(at: 16, as: UInt64.self)
            guard lastSequence < RecordFormat.maxSequence else {
                throw StrataError.corrupt("manifest sequence floor \(lastSequence) is beyond any a store reaches", file: file, offset: 16)
            }
            let segments = (0..<count).map { raw.loadLittleEndian(at: 24 + 4 * $0, as: UInt32.self) }
            if version == logOnlyVersion {
                guard zip(segments, segments.dropFirst()).allSatisfy({ $0 < $1 }) else {
                    throw StrataError.corrupt("manifest segments are not in increasing order", file: file, offset: 24)
                }
            } else {
                var seen = Set<UInt32>(minimumCapacity: count)
                for (position, segment) in segments.enumerated() where !seen.insert(segment).inserted {
                    throw StrataError.corrupt(
                        "manifest lists segment \(segment) twice", file: file, offset: 24 + 4 * position)
                }
            }
            return Manifest(
                segments: segments, lastSequence: lastSequence, version: version)
        }
    }

    /// Reads the manifest in `directory`, or nil when there is none.
    /// - Throws: ``StrataError`` `.corruption`, `.unsupportedFormat` or `.io`.
    static func read(in directory: String, fileSystem: any FileSystem) throws -> Manifest? {
        let path = joinPath(directory, fileName)
        guard fileSystem.exists(path) else { return nil }
        let file = try fileSystem.open(path, mode: .readOnly)
        defer { try? file.close() }
        let size = try file.size()
        guard size <= fixedSize + 4 * maxSegments else {
            throw StrataError.corrupt("manifest of \(size) bytes is too large", file: path, offset: 0)
        }
        return try decode(try file.readExactly(size, at: 0), file: path)
    }

    /// Installs this manifest atomically in `directory` (see the protocol above).
    /// - Throws: ``StrataError`` `.io`. After a failed sync or rename (noted in `syncs`) the old
    ///   manifest may or may not have been replaced, and the caller must stop writing; after
    ///   any other failure it was not.
    func install(in directory: String, fileSystem: any FileSystem, syncs: SyncFailureNote? = nil) throws {
        let temporary = joinPath(directory, Manifest.temporaryName)
        if fileSystem.exists(temporary) { try fileSystem.removeFile(temporary) }
        let file = try fileSystem.open(temporary, mode: .createNew)
        do {
            try file.write(encoded(), at: 0)
            try syncs.watching { try file.sync() }
            try file.close()
        } catch {
            try? file.close()
            throw error
        }
        try syncs.watching {
            try fileSystem.rename(temporary, to: joinPath(directory, Manifest.fileName))
            try fileSystem.syncDirectory(directory)
        }
    }
}
