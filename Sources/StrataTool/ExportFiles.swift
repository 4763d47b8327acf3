// The files of an export directory, shared by `strata export` and `strata import`:
//
//   DIR/schema.json          the App Services JSON schemas (for Atlas; `strata schema --json`)
//   DIR/strata-schema.json   the exact schema `strata import` reads (StoredSchema.definition)
//   DIR/<Class>.json         one canonical Extended JSON document per line, per object

import Foundation
@_spi(Tooling) import StrataStorage

enum ExportFiles {
    static let appServicesSchema = "schema.json"
    static let definition = "strata-schema.json"

    /// The file of a class's documents. A class name comes from stored bytes (the catalog) or
    /// a file (the definition), so one that could name a path elsewhere is refused.
    /// - Throws: ``StrataError`` `.invalidValue` for an empty name, one starting with `.`, or
    ///   one holding `/` or NUL.
    static func documents(of className: String) throws -> String {
        guard !className.isEmpty, !className.hasPrefix("."), !className.contains("/"), !className.contains("\0") else {
            throw StrataError(.invalidValue, "the class name '\(className)' cannot be a file name")
        }
        return className + ".json"
    }

    /// Creates `directory` (and its missing parents) when missing; refuses one that holds files
    /// (exit 1).
    static func prepare(_ directory: String) throws {
        switch try Store.contents(of: directory) {
        case .empty: return
        case .missing: try SystemErrors.io("create \(directory)") { try PosixFileSystem().createDirectory(directory) }
        case .notADirectory, .store, .otherFiles:
            throw StrataError(.invalidArgument, "\(directory) exists and is not an empty directory; choose another --out")
        }
    }

    /// Writes `text` to `name` in `directory`, a new file.
    static func write(_ text: String, to name: String, in directory: String) throws {
        let path = (directory as NSString).appendingPathComponent(name)
        try SystemErrors.io("write \(path)") {
            let file = try PosixFileSystem().open(path, mode: .createNew)
            defer { try? file.close() }
            try file.write(Array(text.utf8), at: 0)
            try file.sync()
        }
    }

    /// The text of `name` in `directory`, or nil when there is no such file.
    static func read(_ name: String, in directory: String) throws -> String? {
        let path = (directory as NSString).appendingPathComponent(name)
        let fileSystem = PosixFileSystem()
        guard fileSystem.exists(path) else { return nil }
        let bytes = try SystemErrors.io("read \(path)") {
            let file = try fileSystem.open(path, mode: .readOnly)
            defer { try? file.close() }
            return try file.readAll()
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw StrataError(.invalidArgument, "\(path) is not UTF-8 text")
        }
        return text
    }
}
