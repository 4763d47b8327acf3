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

    /// Changes the field inside the open write: `prepare` converts what the change stores (its
    /// errors fail the write at commit, and nothing is changed), then `apply` changes the field
    /// with it and says what it removed and added. `apply` gets the write's cache of the field
    /// (an empty one when the change is not made in place) and must not call into the database.
    /// A top-level owner's field is changed in place (`Database.editField`); an embedded owner's
    /// is copied, changed and stored through its parent.
    func edit<Prepared>(
        prepare: () throws -> Prepared,
        apply: (inout FieldValue, inout FieldCache, Prepared) -> FieldEdit
    ) {
        let transaction = database.requireWrite(name)
        _ = field  // the owner must exist
        do {
            let prepared = try prepare()
            if database.editField(of: owner, at: index, { field, cache in apply(&field, &cache, prepared) }) { return }
            var changed = field
            var cache = FieldCache()
            _ = apply(&changed, &cache, prepared)
            owner.store(changed, at: index)
        } catch {
            transaction.defer(error, context: name)
        }
    }

    /// Changes the field without preparing anything (see ``edit(prepare:apply:)``).
    func edit(_ apply: (inout FieldValue, inout FieldCache) -> FieldEdit) {
        edit(prepare: {}) { field, cache, _ in apply(&field, &cache) }
    }

    /// `element` as the field stores it, checked to fit in a record as an element of it.
    /// - Throws: what converting it throws; ``/StrataStorage/StrataError`` `.invalidValue` when it nests too
    ///   deep.
    func stored<Element: _Persistable>(_ element: Element) throws -> FieldValue {
        let value = try element._strataWrite(database)
        try value.checkNestingAsElement()
        return value
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
