/// A managed collection's link to its owner: the object and the property whose field holds the
/// collection's elements. Reads see the owner's current version; writes need a write
/// transaction and go through the owner's record.
///
/// Thread safety: as the owning object.
struct CollectionBinding {
    let owner: ObjectState
    let index: Int

    var database: Database { owner.database }
    var property: PropertySchema { owner.schema.properties[index] }
    var name: String { "\(owner.schema.className).\(property.name)" }

    /// The owner's current field for the property.
    var field: FieldValue {
        guard let field = owner.field(index) else {
            preconditionFailure("\(name): the object has been deleted or invalidated")
        }
        return field
    }

    /// Replaces the field inside the open write; conversion errors fail the write at commit.
    func update(_ change: (FieldValue) throws -> FieldValue) {
        let transaction = database.requireWrite(name)
        do {
            owner.store(try change(field), at: index)
        } catch {
            transaction.defer(error, context: name)
        }
    }

    /// The element at `position` of a list or set field, as `Element`.
    func element<Element: _Persistable>(_ value: FieldValue, at position: Int, as type: Element.Type) -> Element {
        if let target = property.embeddedSchema {
            guard let id = database.embeddedIdentity(value, schema: target, in: name) else {
                return Element._strataRead(.null, database)
            }
            return database.embeddedObject(schema: target, parent: owner, property: index, position: position, id: id) as! Element
        }
        return Element._strataRead(value, database)
    }
}
