import StrataStorage

// Embedded objects as views: an embedded object is stored inline in its parent's record, with
// an identity (a random nonzero 64-bit number) that tells it from its siblings. A managed
// `EmbeddedObject` is a view that finds its value in the parent's current field by that identity,
// so a held reference follows the object when the list around it changes, and is invalidated when
// the object is removed or replaced (a new object gets a new identity).
//
// An unmanaged embedded object that a write stores (`db.add(parent)`, `parent.home = Place()`,
// `parent.places.append(Place())`) becomes a managed view of what was stored, as a linked object
// does: `EmbeddedObject._strataWrite` files it under the identity it was stored with, and the
// parent adopts it once its field is set.

extension Database {
    /// A managed view of the embedded object with identity `id` in a parent's property.
    func embeddedObject(schema: ObjectSchema, parent: ObjectState, property: Int, position: Int?, id: UInt64) -> ObjectBase {
        let object = schema.type.init()
        attach(object, state: ObjectState(
            database: self, schema: schema, key: parent.key,
            location: .init(parent: parent, property: property, position: position, id: id)))
        return object
    }

    /// The identity of the embedded object of class `schema` stored as `value`; nil when there
    /// is none. An embedded value of another class is damage: it is noted and reads as none.
    func embeddedIdentity(_ value: FieldValue, schema: ObjectSchema, in what: String) -> UInt64? {
        guard case .embedded(let classID, let id, _) = value else { return nil }
        guard classID == schema.classID else {
            noteReadFailure(
                StrataError(.corruption, "an embedded object of class id \(classID) where \(schema.className) belongs"),
                reading: what)
            return nil
        }
        return id
    }

    /// The identities new embedded objects are given (see `storingEmbedded`).
    static let embeddedIdentities: Range<UInt64> = (1 << 56)..<(1 << 63)

    /// A new identity for an embedded object being stored, under which `object` waits to
    /// become a view of it (see `adoptEmbeddedObjects`).
    ///
    /// Drawn from 2⁵⁶..<2⁶³, whose varints are all 9 bytes: an object's record has the same size
    /// in every run (any identity reads; only new ones are drawn so), so the same writes fill
    /// segments the same way, which crash tests that replay a workload rely on.
    func storingEmbedded(_ object: EmbeddedObject) -> UInt64 {
        var id: UInt64
        repeat { id = UInt64.random(in: Self.embeddedIdentities) } while pendingEmbedded[id] != nil
        if transaction != nil { pendingEmbedded[id] = object }
        return id
    }

    /// Makes the unmanaged embedded objects stored in `value` (a parent's field, `property` of
    /// `parent`) managed views of what was stored, and those they hold in turn.
    func adoptEmbeddedObjects(in value: FieldValue, property: Int, parent: ObjectState) {
        guard !pendingEmbedded.isEmpty else { return }
        switch value {
        case .embedded(_, let id, let fields):
            adoptEmbeddedObject(id, fields: fields, property: property, position: nil, parent: parent)
        case .list(let elements):
            adoptEmbeddedObjects(in: elements, from: 0, property: property, parent: parent)
        default:
            break
        }
    }

    /// Makes the unmanaged embedded objects stored in `elements`, list elements of a parent's
    /// property from position `first` on (nil: not a list), managed views of what was stored.
    func adoptEmbeddedObjects(in elements: [FieldValue], from first: Int?, property: Int, parent: ObjectState) {
        for (offset, element) in elements.enumerated() {
            guard case .embedded(_, let id, let fields) = element else { continue }
            adoptEmbeddedObject(id, fields: fields, property: property, position: first.map { $0 + offset }, parent: parent)
        }
    }

    private func adoptEmbeddedObject(
        _ id: UInt64, fields: [FieldValue.Field], property: Int, position: Int?, parent: ObjectState
    ) {
        // (An object stored twice in one go is a view of the first place it was stored.)
        guard id != 0, let object = pendingEmbedded.removeValue(forKey: id), object._strataState == nil,
              let schema = schemas.schema(for: type(of: object))
        else { return }
        let state = ObjectState(
            database: self, schema: schema, key: parent.key,
            location: .init(parent: parent, property: property, position: position, id: id))
        attach(object, state: state)
        // Its values are read through the view from now on; the objects they held are let go.
        for property in schema.properties where property.mayHoldLinks {
            property.accessor.releaseUnmanagedValue(object)
        }
        let positional = schema.positionalFields(fields)
        for property in schema.properties where property.embeddedSchema != nil {
            adoptEmbeddedObjects(in: positional[property.index], property: property.index, parent: state)
        }
    }
}
