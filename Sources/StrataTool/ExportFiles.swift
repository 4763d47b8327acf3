// The files of an export directory, shared by `strata export` and `strata import`:
//
//   DIR/schema.json          the App Services JSON schemas (for Atlas; `strata schema --json`)
//   DIR/strata-schema.json   the exact schema `strata import` reads (StoredSchema.definition)
//   DIR/<Class>.json         one canonical Extended JSON document per line, per object

import Foundation
import StrataStorage

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

    /// Creates `directory` when missing; refuses one that holds files (exit 1).
    static func prepare(_ directory: String) throws {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue, (try? FileManager.default.contentsOfDirectory(atPath: directory))?.isEmpty == true else {
                throw StrataError(.invalidArgument, "\(directory) exists and is not an empty directory; choose another --out")
            }
            return
        }
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw StrataError(.io, "cannot create \(directory): \(error.localizedDescription)")
        }
    }

    /// Writes `text` to `name` in `directory`.
    static func write(_ text: String, to name: String, in directory: String) throws {
        let path = (directory as NSString).appendingPathComponent(name)
        guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) else {
            throw StrataError(.io, "cannot write \(path)")
        }
    }

    /// The text of `name` in `directory`, or nil when there is no such file.
    static func read(_ name: String, in directory: String) throws -> String? {
        let path = (directory as NSString).appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw StrataError(.io, "cannot read \(path) as UTF-8 text")
        }
        return text
    }
}
