import StrataStorage

/// The module's name for `_ObjectState`.
typealias ObjectState = _ObjectState

/// Not API: what a managed object knows of its database — which database view it reads
/// through, its class, where its fields live, and a cache of them for the view's version.
///
/// A top-level object's fields are its record (under `key`). An embedded object's fields are a
/// value inside its parent's fields: `location` names the parent, the property, and the position
/// in a list; writes go back through the parent up to the top-level record.
///
/// Thread safety: as the object that holds it (a frozen object's state is only ever read). The
/// cache's properties skip Swift's dynamic exclusivity checks (`@exclusivity(unchecked)`): no
/// access to them overlaps another (none calls out while it holds one), and they are on every
/// property read.
/// Public only because the property wrappers' public members name it; not API.
public final class _ObjectState {
    unowned(unsafe) let database: Database
    /// (Kept alive by the database's schema set, which `retainedDatabase` keeps.)
    unowned(unsafe) let schema: ObjectSchema
    /// The key of the top-level object whose record holds these fields.
    let key: ObjectKey
    /// For an embedded object: where in its parent it lives (its position in a list is where it
    /// was last found).
    @exclusivity(unchecked) private(set) var location: EmbeddedLocation?
    /// Set while the object is being added (its fields are being read): a link back to it
    /// from an object added meanwhile refers to `key`.
    @exclusivity(unchecked) var isBeingAdded = false
    /// For an object a write added: the write's serial number (0 otherwise). When the
    /// database lists it among its cancelled writes, the object is invalid.
    @exclusivity(unchecked) var addedInWrite = 0
    /// Set on a key-path tracer's state: reads record the property instead of reading.
    let tracer: KeyPathTracer?
    @exclusivity(unchecked) private var cachedVersion = -1
    @exclusivity(unchecked) private var fields: [FieldValue] = []
    /// The record the fields are in, not decoded yet (valid while the view is at
    /// `cachedVersion`): an object handed out by a scan decodes its first plain property read
    /// alone, and every field at the second. (For an object handed out with a table row, see
    /// `tableRecord`.)
    @exclusivity(unchecked) private var pendingRecord: Snapshot.Entry?
    @exclusivity(unchecked) private var pendingReads = 0
    /// The column table of the walk that handed the object out, and the object's row in it
    /// (valid while the view is at `cachedVersion`): a plain property the table has a column of
    /// is read from it, without decoding the record.
    @exclusivity(unchecked) private var table: ClassColumns? {
        didSet { tableReference = table.map(Unmanaged.passUnretained) }
    }
    /// `table`, read on every property read without a retain and release (`table` keeps it).
    @exclusivity(unchecked) private var tableReference: Unmanaged<ClassColumns>?
    @exclusivity(unchecked) private var row = 0
    /// Keeps the database alive as long as one of its objects is.
    private let retainedDatabase: Database
    /// The database's `readEpoch` when the object was read: an `invalidate()` since then
    /// invalidated it.
    private let epoch: Int

    /// Where an embedded object lives: its parent, the parent's property, and its identity,
    /// which it keeps while it stays in that property (see `EmbeddedObject`).
    struct EmbeddedLocation {
        let parent: ObjectState
        let property: Int
        /// The position in a list property where the object was last found, or nil for a
        /// to-one property.
        var position: Int?
        /// The object's identity among the embedded objects of its parent (0 for one stored
        /// without an identity, known by its position alone).
        let id: UInt64
    }

    init(database: Database, schema: ObjectSchema, key: ObjectKey, location: EmbeddedLocation? = nil, tracer: KeyPathTracer? = nil) {
        self.database = database
        self.retainedDatabase = database
        self.schema = schema
        self.key = key
        self.location = location
        self.tracer = tracer
        self.epoch = database.readEpoch
    }

    /// Seeds the cache with fields read at the view's version `version`.
    func prime(_ fields: [FieldValue], version: Int) {
        self.fields = fields
        cachedVersion = version
    }

    /// Seeds the cache with the record that holds the fields at the view's version `version`,
    /// to decode when a property is read.
    func prime(record: Snapshot.Entry, version: Int) {
        pendingRecord = record
        cachedVersion = version
    }

    /// Seeds the cache with the object's row of `table`, a column table of the view's version
    /// `version`, reading the record for a property the table has no column of.
    func prime(table: ClassColumns, row: Int, version: Int) {
        self.table = table
        self.row = row
        cachedVersion = version
    }

    /// Drops the cached fields (the next read loads them again), so that the write's copy of
    /// them is the only one and can be changed in place (`Database.editField`).
    func forgetFields() {
        fields = []
        pendingRecord = nil
        table = nil
        cachedVersion = -1
    }

    /// The record of an object primed with a table row whose fields are not decoded yet (its
    /// entry is copied out of the table only when a read needs the record).
    private var tableRecord: Snapshot.Entry? {
        guard fields.isEmpty, let tableReference else { return nil }
        let row = self.row
        return tableReference._withUnsafeGuaranteedRef { $0.entries[row] }
    }

    /// The current fields, in property order, or nil when the object no longer exists.
    func currentFields() -> [FieldValue]? {
        let version = database.readVersion()
        if version != cachedVersion {
            pendingRecord = nil
            table = nil
            if addedInWrite != 0, database.wasCancelled(write: addedInWrite) { return nil }
            guard epoch == database.readEpoch else { return nil }
            guard let loaded = loadFields() else { return nil }
            fields = loaded
            cachedVersion = version
        } else if let record = pendingRecord ?? tableRecord {
            fields = database.decodeFields(of: record, schema: schema)
            pendingRecord = nil
        }
        return fields
    }

    private func loadFields() -> [FieldValue]? {
        guard let location else { return database.loadFields(key, schema: schema) }
        guard let parentFields = location.parent.currentFields(),
              let found = Self.find(location, classID: schema.classID, in: parentFields[location.property])
        else { return nil }
        self.location?.position = found.position
        return schema.positionalFields(found.fields)
    }

    /// Where the embedded object at `location` is in its parent's field `value`: its position
    /// (for a list) and its stored fields; nil when it is no longer there (removed, replaced).
    /// The position it was last found at is looked at first, then the whole list.
    static func find(
        _ location: EmbeddedLocation, classID: UInt32, in value: FieldValue
    ) -> (position: Int?, fields: [FieldValue.Field])? {
        func fields(of element: FieldValue) -> [FieldValue.Field]? {
            guard case .embedded(let storedClass, let id, let fields) = element,
                  storedClass == classID, id == location.id
            else { return nil }
            return fields
        }
        guard let position = location.position else {
            return fields(of: value).map { (nil, $0) }
        }
        guard case .list(let elements) = value else { return nil }
        if position < elements.count, let found = fields(of: elements[position]) { return (position, found) }
        // An object without identity is known by its position alone.
        guard location.id != 0 else { return nil }
        for index in elements.indices {
            if let found = fields(of: elements[index]) { return (index, found) }
        }
        return nil
    }

    /// The database reads convert values with (links resolve through it).
    @usableFromInline
    var context: Database { database }

    /// The stored field of a property whose value is converted straight from it (not a
    /// collection, an embedded object or a tracer read), or nil to take `read(_:as:)`.
    /// Not generic, so the read path costs no generic metadata.
    @usableFromInline
    func plainField(_ index: Int) -> _FieldValue? {
        // The database and schema outlive this state (`retainedDatabase` keeps both), so they
        // are used here without the retain and release a load of an unowned reference makes.
        guard tracer == nil,
              Unmanaged.passUnretained(schema)._withUnsafeGuaranteedRef({ $0.readsPlainField[index] })
        else { return nil }
        if Unmanaged.passUnretained(database)._withUnsafeGuaranteedRef({ $0.readVersion() }) == cachedVersion {
            if let tableReference {
                let row = self.row
                if let value = tableReference._withUnsafeGuaranteedRef({ $0.value(of: index, at: row) }) { return value }
                if schema.keepsWalkColumn[index] { database.noteColumnMiss(schema.classID, property: index) }
            }
            guard let record = pendingRecord ?? tableRecord else { return fields[index] }  // the cached fields
            if pendingReads == 0 {
                pendingReads = 1
                return database.decodeField(index, of: record, schema: schema)
            }
        }
        return currentFields()?[index]
    }

    /// For a tracer's read of a to-one link or embedded object: a tracer object of the target
    /// class, so a key path goes on through it (`\.dog?.age`); nil for other properties.
    private func tracedTarget(of index: Int, tracer: KeyPathTracer) -> ObjectBase? {
        let property = schema.properties[index]
        let step = QueryStep.make(for: property, in: database.schemas)
        guard !property.bindsToOwner, !step.isMultiple, let target = step.targetSchema else { return nil }
        let object = target.type.init()
        database.attach(object, state: ObjectState(database: database, schema: target, key: .invalid, tracer: tracer))
        return object
    }

    @usableFromInline
    func read<Value: _Persistable>(_ index: Int, as type: Value.Type) -> Value {
        if let tracer {
            tracer.visited.append(index)
            if let target = tracedTarget(of: index, tracer: tracer) as? Value { return target }
            return Value._strataRead(schema.properties[index].accessor.defaultField(), nil)
        }
        let property = schema.properties[index]
        if property.bindsToOwner {
            // A collection is a view bound to this object's property. A new view per read: the
            // view holds the state, so caching it here would be a reference cycle.
            if let bound = Value._strataBind(owner: self, index: index) { return bound }
        }
        guard let fields = currentFields() else {
            preconditionFailure("\(schema.className).\(property.name): the object has been deleted or invalidated")
        }
        if let target = property.embeddedSchema {
            // An embedded object is a view of a value inside this object's fields.
            guard let id = database.embeddedIdentity(fields[index], schema: target, in: "\(schema.className).\(property.name)") else {
                return Value._strataRead(.null, database)
            }
            return database.embeddedObject(schema: target, parent: self, property: index, position: nil, id: id) as! Value
        }
        return Value._strataRead(fields[index], database)
    }

    /// Converts and stores a new value of one property (from a `@Persisted` setter).
    @usableFromInline
    func write<Value: _Persistable>(_ index: Int, _ value: Value) {
        database.setField(of: self, property: schema.properties[index], value: value)
    }

    /// Stores a new field value of one property, through the parent for an embedded object.
    /// REQUIRES: a write transaction is open (checked by the caller).
    func store(_ field: FieldValue, at index: Int) {
        guard var current = currentFields() else {
            preconditionFailure("\(schema.className).\(schema.properties[index].name): the object has been deleted or invalidated")
        }
        current[index] = field
        guard let location else {
            // A top-level field: its nesting is checked here, with every embedded level in it.
            do {
                try field.checkNesting()
            } catch {
                database.transaction?.defer(error, context: "\(schema.className).\(schema.properties[index].name)")
                return
            }
            database.replaceFields(of: key, schema: schema, with: current)
            database.adoptEmbeddedObjects(in: field, property: index, parent: self)
            return
        }
        defer { database.adoptEmbeddedObjects(in: field, property: index, parent: self) }
        let embedded = FieldValue.embedded(classID: schema.classID, id: location.id, fields: schema.storedFields(current))
        if let position = location.position {
            // `currentFields()` above found the object at `position` in the parent's current list.
            guard let parentFields = location.parent.currentFields(),
                  case .list(var elements) = parentFields[location.property], position < elements.count
            else { preconditionFailure("\(schema.className): the embedded object was found, then not") }
            elements[position] = embedded
            location.parent.store(.list(elements), at: location.property)
        } else {
            location.parent.store(embedded, at: location.property)
        }
    }

    /// How to find this object from the top: the top-level object's key and schema, then, for
    /// an embedded object, each step down (schema, property, position, identity).
    struct Path: Sendable {
        struct Step: Sendable {
            let schema: ObjectSchema
            let property: Int
            let position: Int?
            let id: UInt64
        }
        let key: ObjectKey
        let schema: ObjectSchema
        let steps: [Step]

        /// The object at this path read through `database` (a frozen or a live view of the
        /// same files), or nil when it does not exist there.
        func state(in database: Database) -> ObjectState? {
            var state = ObjectState(database: database, schema: schema, key: key)
            for step in steps {
                state = ObjectState(
                    database: database, schema: step.schema, key: key,
                    location: .init(parent: state, property: step.property, position: step.position, id: step.id))
            }
            return state.isValid ? state : nil
        }
    }

    /// This object's path from the top-level object that holds it.
    var path: Path {
        var steps: [Path.Step] = []
        var state = self
        while let location = state.location {
            steps.append(.init(schema: state.schema, property: location.property, position: location.position, id: location.id))
            state = location.parent
        }
        return Path(key: key, schema: state.schema, steps: steps.reversed())
    }

    /// Whether the object still exists in its view.
    var isValid: Bool { currentFields() != nil }

    /// The field of one property as currently stored.
    func field(_ index: Int) -> FieldValue? { currentFields()?[index] }
}
