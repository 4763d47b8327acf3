import Foundation
import StrataStorage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Copies a seed database (``Database/Configuration/seedFilePath``) into a directory that holds
/// no database yet.
///
/// The seed goes into a new directory beside the target, which is then renamed onto it: no half
/// copy is ever opened, and the rename (`rename(2)`) replaces the target only while it is missing
/// or empty, so a file that appears in it meanwhile is neither lost nor mixed with the seed.
/// A directory holding anything but a database is refused, and nothing in it is deleted.
enum DatabaseSeed {
    /// What `directory` holds, for a seed.
    enum Contents: Equatable {
        case nothing
        case database
        /// Files (or a file in its place) that are no database: never replaced.
        case otherFiles
    }

    /// Copies `seed` into `directory` when that is missing or empty; does nothing when it holds
    /// a database.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidArgument` naming `directory` when it holds anything
    ///   else (nothing is copied or deleted); `.notFound` when `seed` does not exist; `.io` when
    ///   the copy or the rename fails (the staged copy is removed).
    static func copy(_ seed: URL, into directory: URL) throws {
        switch contents(of: directory) {
        case .database: return
        case .otherFiles: throw refusal(directory)
        case .nothing: break
        }
        let files = FileManager.default
        guard files.fileExists(atPath: seed.path) else {
            throw StrataError(.notFound, "the seed database does not exist", file: seed.path)
        }
        let staging = directory.deletingLastPathComponent()
            .appendingPathComponent(".\(directory.lastPathComponent).seed-\(UUID().uuidString)")
        defer { try? files.removeItem(at: staging) }
        do {
            try files.createDirectory(at: directory.deletingLastPathComponent(), withIntermediateDirectories: true)
            try files.copyItem(at: seed, to: staging)
            try? files.removeItem(at: staging.appendingPathComponent("LOCK"))
        } catch {
            throw StrataError(.io, "copying the seed database \(seed.path) failed: \(error)", file: directory.path)
        }
        guard rename(staging.path, directory.path) == 0 else {
            let code = errno
            // Files appeared in the directory since it was looked at.
            if code == ENOTEMPTY || code == EEXIST || code == ENOTDIR { throw refusal(directory) }
            throw StrataError(.io, "moving the seed database into place failed", file: directory.path, errno: code)
        }
    }

    /// Whether `directory` is missing or empty, holds a database (a `MANIFEST` or a segment), or
    /// holds something else (or is not a directory).
    static func contents(of directory: URL) -> Contents {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) else { return .nothing }
        guard isDirectory.boolValue, let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else {
            return .otherFiles
        }
        if names.contains(where: { $0 == "MANIFEST" || $0.hasSuffix(".seg") }) { return .database }
        return names.isEmpty ? .nothing : .otherFiles
    }

    private static func refusal(_ directory: URL) -> StrataError {
        StrataError(
            .invalidArgument,
            "the directory holds files but no database, so the seed (seedFilePath) is not copied into it and nothing in it is touched; give an empty or missing directory",
            file: directory.path)
    }
}
