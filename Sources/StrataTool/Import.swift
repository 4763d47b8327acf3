// `strata import PATH --from DIR`: the files `strata export` writes, into a new or existing database.

import ArgumentParser
import Foundation
@_spi(Tooling) import Strata
import StrataStorage

struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Add the objects of a `strata export` directory to a database (created when missing).",
        discussion: """
            Reads --from's strata-schema.json and adds its classes and properties to the \
            database's schema (a class it already has must have the same kind, and each \
            property the same type), then reads <Class>.json for each class, one Extended JSON \
            document per line, and writes every object, with the backlinks of the objects they \
            link to, in one atomic commit: on any error nothing is written (and a database \
            directory the import created is removed again). It takes the \
            database's LOCK (no other process may have it open).

            Refused (exit 1): an object that is already stored, a document with a property the \
            class does not have or a value that does not fit its type, a link to an object that \
            is neither stored nor imported. Secondary indexes are not written: a later open that \
            declares them rebuilds them.

            \(ToolExit.help)
            """
    )

    @Argument(help: "The database directory (created when missing).")
    var path: String

    @Option(help: "The directory `strata export` wrote.")
    var from: String

    @OptionGroup var key: KeyFileOption

    func run() throws {
        let (count, classes) = try Output.reportingErrors { () throws -> (Int, Int) in
            let definition = try readDefinition()
            try ExtendedJSONImport.check(definition: definition)   // before anything is created
            let isNew = try DatabasePath.requireNewOrDatabase(path)
            let existed = FileManager.default.fileExists(atPath: path)
            do {
                return try importAll(definition)
            } catch {
                if isNew { removeCreated(keepingDirectory: existed) }   // leave no empty database behind
                throw error
            }
        }
        print("imported \(Format.counted(count, "object")) of \(Format.counted(classes, "class", plural: "classes")) into \(path)")
    }

    /// The schema definition of the export.
    private func readDefinition() throws -> JSONValue {
        guard let definitionText = try ExportFiles.read(ExportFiles.definition, in: from) else {
            throw StrataError(.invalidArgument, "\(from) holds no \(ExportFiles.definition): it is not a `strata export` directory")
        }
        return try JSONValue.parse(definitionText, source: ExportFiles.definition)
    }

    /// Removes what a failed import into a new database created: the directory, or (when it
    /// existed, empty) the files in it.
    private func removeCreated(keepingDirectory: Bool) {
        let fileManager = FileManager.default
        guard keepingDirectory else { return _ = try? fileManager.removeItem(atPath: path) }
        for name in (try? fileManager.contentsOfDirectory(atPath: path)) ?? [] {
            try? fileManager.removeItem(atPath: (path as NSString).appendingPathComponent(name))
        }
    }

    /// Writes the export in one commit; returns the objects and classes imported.
    private func importAll(_ definition: JSONValue) throws -> (Int, Int) {
        var options = Store.Options()
        options.encryptionKey = try key.key()
        let store = try Store(directory: path, options: options)
        defer { try? store.close() }
        var importer = try ExtendedJSONImport(definition: definition, into: store.snapshot())
        let classes = importer.schema.classes.filter { !$0.isEmbedded }
        for storedClass in classes { try add(storedClass.name, to: &importer) }
        try store.commit(importer.batch())
        try store.close()
        return (importer.count, classes.count)
    }

    /// Adds the documents of `className`'s file, when there is one.
    private func add(_ className: String, to importer: inout ExtendedJSONImport) throws {
        let name = try ExportFiles.documents(of: className)
        guard let text = try ExportFiles.read(name, in: from) else { return }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let progress = Progress("import \(className)", total: lines.count)
        defer { progress.finish() }
        for (number, line) in lines.enumerated() where !line.allSatisfy(\.isWhitespace) {
            do {
                try importer.add(JSONValue.parse(line, source: "the document"), className: className)
            } catch let error as StrataError {
                throw StrataError(error.code, "\(name) line \(number + 1): \(error.message)")
            }
            progress.advance()
        }
    }
}
