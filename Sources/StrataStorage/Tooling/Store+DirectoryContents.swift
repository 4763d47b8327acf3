// What a path holds, told from file names and magic bytes alone (no recovery, no lock): for
// `strata`, which must refuse a directory of another program's files before opening it, so
// that it neither calls them corruption nor leaves a LOCK among them. `@_spi(Tooling)`: for
// the tool, not API.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Store {
    /// What a path holds, as ``contents(of:fileSystem:)`` tells it.
    @_spi(Tooling) public enum DirectoryContents: Sendable, Equatable {
        /// Nothing exists at the path.
        case missing
        /// The path is a file, not a directory.
        case notADirectory
        /// An empty directory.
        case empty
        /// A Strata store: its MANIFEST, or one of its segment files, starts with Strata's magic.
        case store
        /// A directory whose files are not a Strata store's.
        case otherFiles
    }

    /// What `path` holds: a Strata store is a directory whose `MANIFEST` starts with
    /// "STRATAMF" or that holds a segment file (`000001.seg`) starting with "STRATASG" (a store
    /// whose MANIFEST was lost, for salvage).
    /// - Throws: ``StrataError`` `.io` (with the system's reason) when the directory cannot be
    ///   listed.
    /// - Complexity: O(n) in the number of files in the directory; reads at most 8 bytes of each
    ///   candidate file.
    @_spi(Tooling) public static func contents(of path: String, fileSystem: any FileSystem = PosixFileSystem()) throws -> DirectoryContents {
        guard fileSystem.exists(path) else { return .missing }
        let names: [String]
        do {
            names = try fileSystem.contentsOfDirectory(path)
        } catch let error as StrataError where error.errno == ENOTDIR {
            return .notADirectory
        }
        if names.isEmpty { return .empty }
        if startsWith(Manifest.magic, joinPath(path, Manifest.fileName), fileSystem) { return .store }
        for name in names where SegmentFile.number(fromName: name) != nil {
            if startsWith(SegmentHeader.magic, joinPath(path, name), fileSystem) { return .store }
        }
        return .otherFiles
    }

    /// Whether `name` is the name of a file a store writes in its directory: `LOCK`, `MANIFEST`,
    /// `MANIFEST.tmp`, `COMMITTED`, a segment (`000001.seg`) or its hint (`000001.hint`).
    /// - Complexity: O(n) in the length of `name`.
    @_spi(Tooling) public static func isStoreFileName(_ name: String) -> Bool {
        if [lockFileName, Manifest.fileName, Manifest.temporaryName, CommittedEnd.fileName].contains(name) { return true }
        return SegmentFile.number(fromName: name) != nil || HintFile.number(fromName: name) != nil
    }

    /// Whether the file at `path` can be read and starts with `magic`.
    private static func startsWith(_ magic: [UInt8], _ path: String, _ fileSystem: any FileSystem) -> Bool {
        guard let file = try? fileSystem.open(path, mode: .readOnly) else { return false }
        defer { try? file.close() }
        return (try? file.readExactly(magic.count, at: 0)) == magic
    }
}
