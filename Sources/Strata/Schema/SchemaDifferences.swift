import StrataStorage

// What differs between the schema a database stores and the classes an open declares, each
// difference named (class, property, old → new) and marked additive or not.
//
// Additive differences need no migration and rewrite nothing: a new class, a new property (old
// records read its default), a removed property (its fields are skipped), an index added or
// removed. Every other difference (a property's type, its optionality, the primary key, a class
// turning embedded or top-level) needs a migration: a higher `schemaVersion`, and a migration
// block when values must be converted. A stored class the open does not declare is not a
// difference: its objects stay, as in Realm, until a migration deletes them
// (`Migration.deleteData(forType:)`).

/// One difference between a stored and a declared class.
struct SchemaDifference: Equatable, CustomStringConvertible {
    let className: String
    let propertyName: String?
    /// What changed, old → new.
    let change: String
    let isAdditive: Bool

    var description: String {
        let subject = propertyName.map { "\(className).\($0)" } ?? className
        return "\(subject): \(change)\(isAdditive ? " (additive)" : "")"
    }
}

/// Every difference between `stored` and `declared`, in declaration order.
func schemaDifferences(stored: [ClassShape], declared: [ClassShape]) -> [SchemaDifference] {
    var differences: [SchemaDifference] = []
    for new in declared {
        guard let old = stored.first(where: { $0.name == new.name }) else {
            differences.append(SchemaDifference(className: new.name, propertyName: nil, change: "class added", isAdditive: true))
            continue
        }
        if old.isEmbedded != new.isEmbedded {
            let kinds = (old.isEmbedded ? "EmbeddedObject" : "Object", new.isEmbedded ? "EmbeddedObject" : "Object")
            differences.append(SchemaDifference(className: new.name, propertyName: nil, change: "\(kinds.0) → \(kinds.1)", isAdditive: false))
        }
        if old.primaryKey?.name != new.primaryKey?.name {
            let names = (old.primaryKey?.name ?? "none", new.primaryKey?.name ?? "none")
            differences.append(SchemaDifference(className: new.name, propertyName: nil, change: "primary key \(names.0) → \(names.1)", isAdditive: false))
        }
        differences += propertyDifferences(old, new)
    }
    return differences
}

/// The differences between the properties of one class's two shapes.
private func propertyDifferences(_ old: ClassShape, _ new: ClassShape) -> [SchemaDifference] {
    var differences: [SchemaDifference] = []
    func add(_ name: String, _ change: String, additive: Bool) {
        differences.append(SchemaDifference(className: new.name, propertyName: name, change: change, isAdditive: additive))
    }
    for property in new.properties {
        guard let before = old[property.name] else {
            add(property.name, "property added (\(property.type))", additive: true)
            continue
        }
        if before.type.type != property.type.type {
            add(property.name, "type \(before.type) → \(property.type)", additive: false)
        } else if before.type.isOptional != property.type.isOptional {
            add(property.name, before.type.isOptional ? "optional → required" : "required → optional", additive: false)
        }
        if !property.isPrimaryKey, !before.isPrimaryKey, before.isIndexed != property.isIndexed {
            add(property.name, property.isIndexed ? "index added" : "index removed", additive: true)
        }
    }
    for property in old.properties where new[property.name] == nil {
        add(property.name, "property removed (\(property.type))", additive: true)
    }
    return differences
}
