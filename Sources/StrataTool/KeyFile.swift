// `--key-file PATH`: the 64-byte key of an encrypted database, for every command that opens one.

import ArgumentParser
import Foundation
import StrataStorage

/// The `--key-file` option every subcommand that opens a database takes.
struct KeyFileOption: ParsableArguments {
    @Option(
        name: .customLong("key-file"),
        help: "A file holding the database's 64-byte encryption key, as raw bytes (for an encrypted database).")
    var keyFile: String?

    /// The key the file holds, or nil without `--key-file`. A key of the wrong length is
    /// passed on: opening the database refuses it with `.invalidKey`.
    /// - Throws: ``StrataError`` `.invalidKey` when the file cannot be read.
    func key() throws -> [UInt8]? {
        guard let keyFile else { return nil }
        do {
            let file = try PosixFileSystem().open(keyFile, mode: .readOnly)
            defer { try? file.close() }
            return try file.readAll()
        } catch {
            throw StrataError(.invalidKey, "cannot read the key file: \(SystemErrors.reason(error))", file: keyFile)
        }
    }
}
