// A database opened read-only with the schema it stores, for the commands that read objects
// without model classes (schema, inspect, export, stats).

import ArgumentParser
@_spi(Tooling) import Strata
import StrataStorage

struct StoredDatabase {
    let store: Store
    let snapshot: Snapshot
    let schema: StoredSchema

    /// Opens `path` read-only; a storage error is printed and becomes its exit code.
    static func open(_ path: String, key: KeyFileOption) throws -> StoredDatabase {
        try Output.reportingErrors {
            let store = try Output.openReadOnly(path, key: key)
            let snapshot = store.snapshot()
            return StoredDatabase(store: store, snapshot: snapshot, schema: try StoredSchema.load(from: snapshot))
        }
    }

    /// The class named `name`; when there is none, says which there are and exits 64; when it
    /// is embedded, says through which parents its objects can be seen and exits 64.
    func storedClass(named name: String, path: String) throws -> StoredClass {
        if let embedded = schema.storedClass(named: name), embedded.isEmbedded {
            let holders = schema.classes.flatMap { parent in
                parent.properties.filter { $0.linkedClassName == name }.map { (parent, $0) }
            }
            let through = holders.map { parent, property in
                parent.isEmbedded ? "\(parent.name).\(property.name) (itself embedded)" : "`strata inspect \(path) --class \(parent.name)` (its \(property.name))"
            }
            Output.error("error: \(name) is an embedded class: its objects live inside their parents' records, not on their own; see them through their parent: \(through.isEmpty ? "no class holds one" : through.joined(separator: ", "))")
            throw ExitCode(ToolExit.usage)
        }
        guard let storedClass = schema.storedClass(named: name), !storedClass.isEmbedded else {
            let names = schema.classes.filter { !$0.isEmbedded }.map(\.name)
            Output.error("error: the database has no class \(name) (it has: \(names.isEmpty ? "none" : names.joined(separator: ", ")))")
            throw ExitCode(ToolExit.usage)
        }
        return storedClass
    }
}
