import StrataStorage

// Pass 3 of the integrity check: every object record of a top-level class. Each is decoded
// generically (tags and property ids, no model class); its property ids must be its class's,
// its key must encode its primary-key field, every link must reach an existing object of a
// top-level class, and every embedded value must name an embedded class. On the way it notes
// the backlinks and index entries the object implies, for passes 4 and 5.

extension IntegrityChecker {
    /// Checks every object record of the class `entry`.
    mutating func checkObjects(of entry: Catalog.ClassEntry) {
        let propertyIDs = Set(entry.properties.map(\.id))
        let indexed = indexedProperties.filter { $0.classID == entry.id }.map(\.propertyID)
        for item in snapshot.entries(in: Keyspace(entry.id)) {
            let object = ObjectKey(classID: entry.id, key: item.key)
            report.objectsChecked += 1
            let fields: [FieldValue.Field]
            do {
                fields = try snapshot.withValue(of: item) { try RecordCodec.decodeStoredFields($0) }
            } catch {
                report.add(.undecodableRecord, "\(describe(object)): \(error)")
                continue
            }
            for field in fields {
                if !propertyIDs.contains(field.id) {
                    report.add(.unknownProperty, "\(describe(object)) holds property id \(field.id), which \(entry.name) does not have")
                }
                walk(field.value, from: object, property: field.id)
            }
            checkPrimaryKey(of: object, fields: fields, entry: entry)
            for propertyID in indexed {
                if let field = fields.first(where: { $0.id == propertyID }) {
                    expectIndexEntry(of: object, propertyID: propertyID, value: field.value)
                } else {
                    objectsWithoutIndexedField.insert(ObjectProperty(object: object, propertyID: propertyID))
                }
            }
        }
    }

    /// Checks that a class with a primary key stores each object under that key's encoding.
    private mutating func checkPrimaryKey(of object: ObjectKey, fields: [FieldValue.Field], entry: Catalog.ClassEntry) {
        guard let property = entry.properties.first(where: \.isPrimaryKey) else { return }
        guard let field = fields.first(where: { $0.id == property.id }) else {
            report.add(.primaryKeyMismatch, "\(describe(object)) has no field for its primary key \(property.name)")
            return
        }
        let expected = PrimaryKeyEncoding.key(for: field.value, optional: property.code.hasSuffix("?"))
        if expected != object.key {
            report.add(.primaryKeyMismatch, "\(describe(object)) is stored under a key that does not encode its primary key \(property.name) = \(field.value)")
        }
    }

    /// Checks the links and embedded values inside one field's value; `property` is the
    /// top-level property that holds it (backlinks name that property, also for links inside
    /// embedded objects).
    private mutating func walk(_ value: FieldValue, from object: ObjectKey, property: UInt32) {
        switch value {
        case .link(let target):
            checkLink(to: target, from: object, property: property)
        case .list(let elements), .set(let elements):
            checkEmbeddedIdentities(elements, in: object, property: property)
            for element in elements { walk(element, from: object, property: property) }
        case .map(let entries):
            for entry in entries { walk(entry.value, from: object, property: property) }
        case .embedded(let classID, _, let fields):
            let embedded = classes[classID]
            if embedded?.isEmbedded != true {
                let what = embedded.map { "\($0.name), which is not embedded" } ?? "class id \(classID), which the catalog does not have"
                report.add(.badEmbeddedClass, "\(describe(object)): \(describe(property: property, of: object.classID)) holds an embedded value of \(what)")
            }
            for field in fields {
                if let embedded, embedded.isEmbedded, !embedded.properties.contains(where: { $0.id == field.id }) {
                    report.add(.unknownProperty, "\(describe(object)) holds an embedded \(embedded.name) with property id \(field.id), which \(embedded.name) does not have")
                }
                walk(field.value, from: object, property: property)
            }
        default:
            break
        }
    }

    /// Checks that the embedded objects of one list have distinct identities (a held reference
    /// finds its object by identity; 0 means stored without one, known by position).
    private mutating func checkEmbeddedIdentities(_ elements: [FieldValue], in object: ObjectKey, property: UInt32) {
        var seen = Set<UInt64>()
        for case .embedded(_, let id, _) in elements where id != 0 && !seen.insert(id).inserted {
            report.add(.duplicateEmbeddedIdentity, "\(describe(object)): \(describe(property: property, of: object.classID)) holds two embedded objects with identity \(id)")
        }
    }

    private mutating func checkLink(to target: ObjectKey, from object: ObjectKey, property: UInt32) {
        report.linksChecked += 1
        expectedBacklinks[target, default: []].insert(Backlink(source: object, propertyID: property))
        let holder = describe(property: property, of: object.classID)
        guard let entry = classes[target.classID], !entry.isEmbedded else {
            report.add(.danglingLink, "\(describe(object)): \(holder) links to class id \(target.classID), which is not a top-level class of the catalog")
            return
        }
        if !snapshot.contains(target.key, in: Keyspace(target.classID)) {
            report.add(.danglingLink, "\(describe(object)): \(holder) links to \(describe(target)), which does not exist")
        }
    }
}
