import StrataStorage

extension Database {
    /// The object of `type` whose primary key is `key`, or nil.
    ///
    /// - Precondition: `type` is one of the database's object types and has a primary key.
    /// - Complexity: O(log₆₄ n) in the class's object count — a B+tree lookup, at most four node
    ///   visits up to 16M objects — then one record read.
    @inlinable
    public func object<T: Object, K: _PrimaryKey>(ofType type: T.Type, forPrimaryKey key: K) -> T? {
        // Generic only here (inlined, so specialized, in the caller); the lookup is not.
        guard let field = try? key._strataWrite(nil) else { return nil }
        return object(ofType: type, forPrimaryKeyField: field).map { unsafeDowncast($0, to: T.self) }
    }

    /// The object of `type` whose primary key has the stored value `field`, or nil.
    @usableFromInline
    func object(ofType type: ObjectBase.Type, forPrimaryKeyField field: _FieldValue) -> ObjectBase? {
        let schema = requireSchema(type)
        guard schema.primaryKeyIndex != nil else {
            preconditionFailure("\(schema.className) has no primary key; declare one with @Persisted(primaryKey: true)")
        }
        guard let storageKey = PrimaryKeyEncoding.key(for: field, optional: schema.primaryKeyIsOptional) else { return nil }
        return object(for: ObjectKey(classID: schema.classID, key: storageKey), schema: schema)
    }

    func requireSchema(_ type: ObjectBase.Type) -> ObjectSchema {
        guard let schema = schemas.schema(for: type) else {
            preconditionFailure("\(type.className()) is not one of the database's objectTypes; add it to Database.Configuration.objectTypes")
        }
        return schema
    }

    /// The fields of the object at `key` as this view sees it, in property order; nil when
    /// there is no such object.
    func loadFields(_ key: ObjectKey, schema: ObjectSchema) -> [FieldValue]? {
        _ = readVersion()
        if let transaction, let change = transaction.change(for: key) {
            return transaction.fields(of: change, schema: schema)
        }
        // The closures below return nothing and fill a local: a generic result of this enum
        // type would be moved through runtime value witnesses on every read.
        var fields: [FieldValue]?
        do {
            _ = try snapshot.withValue(for: key.key, in: Keyspace(key.classID)) {
                fields = try RecordCodec.decodeFields($0, schema: schema)
            }
            return fields
        } catch {
            noteReadFailure(error, reading: schema.className)
            return schema.defaultFields
        }
    }

    /// A managed object for `key`, or nil when it does not exist in this view.
    func object(for key: ObjectKey, schema: ObjectSchema) -> ObjectBase? {
        guard let fields = loadFields(key, schema: schema) else { return nil }
        return materialize(key, schema: schema, source: .fields(fields), version: currentVersion)
    }

    /// A new accessor for the object at `key`, referred to by nothing but this database; nil
    /// when the object does not exist in this view.
    func frozenCopy<T: ObjectBase>(of key: ObjectKey, schema: ObjectSchema, as type: T.Type) -> T? {
        guard let fields = loadFields(key, schema: schema) else { return nil }
        let object = T()
        let state = ObjectState(database: self, schema: schema, key: key)
        state.prime(fields, version: currentVersion)
        attach(object, state: state)
        return object
    }

    /// A new accessor for the embedded object `state` views, read through this (frozen)
    /// database, referred to by nothing but this database; nil when it does not exist in this
    /// view.
    func frozenCopy<T: ObjectBase>(ofEmbedded path: ObjectState.Path, as type: T.Type) -> T? {
        guard let state = path.state(in: self) else { return nil }
        let object = T()
        attach(object, state: state)
        return object
    }

    /// Where a read found an object's fields: decoded, or still in their record.
    enum FieldSource {
        case fields([FieldValue])
        case record(Snapshot.Entry)
        /// A row of a column table of the view's version: the columns it has, and the row's
        /// record for the rest.
        case row(ClassColumns, Int)
    }

    /// Makes a managed accessor object for an existing key. `source`, what the caller read
    /// at the view's version `version`, saves reading the record again while the view is there.
    func materialize(_ key: ObjectKey, schema: ObjectSchema, source: FieldSource? = nil, version: Int = -1) -> ObjectBase {
        let object = schema.type.init()
        attach(object, key: key, schema: schema, source: source, version: version)
        return object
    }

    /// Points an object's properties at this database.
    func attach(_ object: ObjectBase, key: ObjectKey, schema: ObjectSchema, source: FieldSource? = nil, version: Int = -1) {
        let state = ObjectState(database: self, schema: schema, key: key)
        switch source {
        case .fields(let fields)?: state.prime(fields, version: version)
        case .record(let record)?: state.prime(record: record, version: version)
        case .row(let table, let row)?: state.prime(table: table, row: row, version: version)
        case nil: break
        }
        attach(object, state: state)
    }

    /// Points an object's properties at `state`: each `Persisted` gets its property index, stored
    /// at the offset `ObjectSchema.managedIndexOffsets` gives (the wrapper's first word).
    func attach(_ object: ObjectBase, state: ObjectState) {
        object._strataState = state
        let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque())
        // The state's schema lives as long as the state (see `ObjectState.schema`).
        Unmanaged.passUnretained(state.schema)._withUnsafeGuaranteedRef { schema in
            schema.managedIndexOffsets.withUnsafeBufferPointer { offsets in
                for index in offsets.indices {
                    (base + offsets[index]).storeBytes(of: index, as: Int.self)
                }
            }
        }
    }

    /// Calls `body` with every object of a class in this view and where its fields are: the
    /// record (not decoded) for a stored object, the fields for one the open write changed.
    func forEachEntry(of schema: ObjectSchema, _ body: (ObjectKey, FieldSource) -> Void) {
        _ = readVersion()
        let source = transaction?.base ?? snapshot
        for entry in source.entries(in: Keyspace(schema.classID)) {
            let key = ObjectKey(classID: schema.classID, key: entry.key)
            if let transaction, let change = transaction.change(for: key) {
                if let fields = transaction.fields(of: change, schema: schema) { body(key, .fields(fields)) }
            } else {
                body(key, .record(entry))
            }
        }
        if let transaction {
            for key in transaction.addedKeys(classID: schema.classID) {
                if let change = transaction.change(for: key), let fields = transaction.fields(of: change, schema: schema) {
                    body(key, .fields(fields))
                }
            }
        }
    }

    /// Calls `body` with each of `keys` (objects of `schema`) that exists in this view, in the
    /// order given, as `forEachEntry(of:_:)` does for every object of the class.
    /// - Complexity: O(log n) per key for a class of n objects (a B+tree lookup).
    func forEachEntry(of schema: ObjectSchema, at keys: [ObjectKey], _ body: (ObjectKey, FieldSource) -> Void) {
        _ = readVersion()
        let entries = (transaction?.base ?? snapshot).entries(in: Keyspace(schema.classID))
        for key in keys {
            if let transaction, let change = transaction.change(for: key) {
                if let fields = transaction.fields(of: change, schema: schema) { body(key, .fields(fields)) }
            } else if let entry = entries.entry(for: key.key) {
                body(key, .record(entry))
            }
        }
    }

    /// Calls `body` with every object of a class in this view and its fields, reading each
    /// record once (the open write's changes applied).
    func forEachObject(of schema: ObjectSchema, _ body: (ObjectKey, [FieldValue]) -> Void) {
        forEachEntry(of: schema) { key, source in
            body(key, fields(of: source, schema: schema))
        }
    }

    /// The fields in a record of this view's snapshot (with `only`, just those it flags; the
    /// others read as their defaults). Damage reads as the defaults and is noted.
    /// The fields `source` holds or refers to (with `only`, at least those it flags).
    func fields(of source: FieldSource, schema: ObjectSchema, only wanted: [Bool]? = nil) -> [FieldValue] {
        switch source {
        case .fields(let fields): return fields
        case .record(let record): return decodeFields(of: record, schema: schema, only: wanted)
        case .row(let table, let row): return decodeFields(of: table.entries[row], schema: schema, only: wanted)
        }
    }

    func decodeFields(of record: Snapshot.Entry, schema: ObjectSchema, only wanted: [Bool]? = nil) -> [FieldValue] {
        var fields: [FieldValue] = []
        do {
            try snapshot.withValue(of: record) { fields = try RecordCodec.decodeFields($0, schema: schema, only: wanted) }
            return fields
        } catch {
            noteReadFailure(error, reading: schema.className)
            return schema.defaultFields
        }
    }

    /// One field of a record of this view's snapshot. Damage reads as the default and is noted.
    func decodeField(_ index: Int, of record: Snapshot.Entry, schema: ObjectSchema) -> FieldValue {
        var field: FieldValue?
        do {
            let id = schema.propertyIDs[index]
            try snapshot.withValue(of: record) { field = try RecordCodec.decodeField($0, propertyID: id) }
            return field ?? schema.defaultFields[index]
        } catch {
            noteReadFailure(error, reading: "\(schema.className).\(schema.properties[index].name)")
            return schema.defaultFields[index]
        }
    }
}
