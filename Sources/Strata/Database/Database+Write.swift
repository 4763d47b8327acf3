import StrataStorage

extension Database {
    /// What ``add(_:update:)-(Object,_)`` does when an object with the same primary key exists.
    public enum UpdatePolicy: Sendable {
        /// Throw `.primaryKeyExists` and change nothing.
        case error
        /// Overwrite the stored object's properties that differ.
        case modified
        /// Overwrite every property of the stored object.
        case all
    }

    /// Runs `block` in a write transaction and commits it: every change in it becomes durable
    /// atomically, in one commit of the log. If `block` throws, every change is rolled back —
    /// including the in-memory properties of managed objects — and the error is rethrown. A
    /// block that calls ``cancelWrite()`` and leaves no write open commits nothing (as Realm).
    ///
    /// Writers wait for each other, blocking the thread (from async code, ``asyncWrite(isolation:_:)``
    /// suspends the task instead); readers never wait.
    /// - Throws: what `block` throws; ``/StrataStorage/StrataError`` `.readOnly` for a frozen or read-only
    ///   database (``Configuration/readOnly``); `.notInWriteTransaction` when a write is
    ///   already open on this database, or on another `Database` of the same files on this
    ///   thread (or task), or a property set inside it could not be stored
    ///   (`.invalidValue`); the storage engine's errors when the commit fails.
    @discardableResult
    public func write<Result>(_ block: () throws -> Result) throws -> Result {
        try beginWrite()
        return try runInOpenWrite(block)
    }

    /// Runs `block` in the write this database has open, then commits the write if the block
    /// left one open (as Realm's `write`: a block may cancel it, or cancel it and begin another);
    /// a throw cancels it and is rethrown.
    func runInOpenWrite<Result>(_ block: () throws -> Result) throws -> Result {
        let result: Result
        do {
            result = try block()
        } catch {
            cancelWrite()
            throw error
        }
        if isInWriteTransaction { try commitWrite() }
        return result
    }

    /// Opens a write transaction; pair it with ``commitWrite()`` or ``cancelWrite()``.
    /// Waits while another writer has one open.
    /// - Throws: ``/StrataStorage/StrataError`` `.notInWriteTransaction` when this database already has one
    ///   open, or this thread (or task) has one open on another `Database` of the same files
    ///   (waiting for it would never end); `.readOnly` for a frozen or read-only database
    ///   (``Configuration/readOnly``).
    public func beginWrite() throws {
        try checkCanBeginWrite()
        try shared.beginWrite()
        openTransaction()
    }

    /// Throws when a write cannot begin on this database: it is frozen, or has one open.
    func checkCanBeginWrite() throws {
        guard !isFrozen else { throw StrataError(.readOnly, "a frozen database cannot be written; thaw() it first") }
        guard !configuration.readOnly, !shared.store.options.readOnly else {
            throw StrataError(
                .readOnly, "the database was opened read-only (Configuration.readOnly); open it writable to write",
                file: configuration.directory.path)
        }
        guard transaction == nil else {
            throw StrataError(.notInWriteTransaction, "a write transaction is already open on this database")
        }
        if let limit = configuration.maximumNumberOfActiveVersions {
            let pinned = shared.pinnedVersionCount
            guard pinned + 1 <= limit else {
                throw StrataError(
                    .tooManyActiveVersions,
                    "frozen databases, objects or results keep \(pinned) older versions alive; a write would make \(pinned + 1), above maximumNumberOfActiveVersions \(limit)")
            }
        }
    }

    /// Opens a write transaction over the latest commit. REQUIRES: this database holds the
    /// writer lock and has no write open.
    func openTransaction() {
        let moved = readNewest()
        writeCount += 1
        transaction = WriteTransaction(base: snapshot, serial: writeCount, tables: spareWriteTables.take() ?? .init())
        bumpVersion()
        if moved { events?.post(.didChange) }
    }

    /// Commits the open write transaction.
    /// - Throws: ``/StrataStorage/StrataError`` `.notInWriteTransaction` when none is open; a deferred
    ///   `.invalidValue` from a property set in it, or the `.corruption` a read in it found
    ///   (see ``readFailure``) — the write is then rolled back; the storage engine's errors
    ///   (the write is then rolled back).
    public func commitWrite() throws {
        guard let transaction else {
            throw StrataError(.notInWriteTransaction, "commitWrite() without beginWrite()")
        }
        if let deferred = transaction.deferredError {
            cancelWrite()
            throw deferred
        }
        do {
            // The previous commit's batch, emptied: its buffers keep their capacity.
            var batch = WriteBatch()
            swap(&batch, &reusableBatch)
            batch.removeAll()
            transaction.moveChanges(to: &batch, schemas: schemas)
            backlinkRecords(into: &batch)
            indexRecords(into: &batch)
            // Reading the stored backlink records and index entries may have found damage.
            if let deferred = transaction.deferredError { throw deferred }
            defer {
                // Kept for the next write, unless this one was so large its buffers should go.
                batch.removeAll()
                reusableBatch = transaction.changeCount <= WriteTransaction.Tables.largestKept ? batch : WriteBatch()
            }
            transaction.releaseBase()
            releasePinnedSnapshot()
            try shared.store.commit(batch, durability: configuration.durability)
        } catch {
            cancelWrite()
            throw error
        }
        self.transaction = nil
        pendingEmbedded.removeAll()
        spareWriteTables = transaction.takeTables()
        _ = readNewest()
        shared.endWrite()
        events?.post(.didChange)
        shared.notifier.published(by: ObjectIdentifier(self))
    }

    /// Discards the open write transaction: every change made in it is undone, and objects
    /// added in it are invalidated. Does nothing when no write is open.
    public func cancelWrite() {
        guard let transaction else { return }
        self.transaction = nil
        pendingEmbedded.removeAll()
        // Invalidates the objects it added (a write that added none is not listed, so the list
        // grows only with writes that leave invalid objects behind).
        if transaction.addedObjects { cancelledWrites.insert(transaction.serial) }
        spareWriteTables = transaction.takeTables()
        // Under the writer lock the newest commit is the one the write began on.
        _ = readNewest()
        bumpVersion()
        shared.endWrite()
    }

    /// Adds an unmanaged object — and the unmanaged objects it links to — to the database; the
    /// object becomes managed. Adding an object this database already manages does nothing.
    ///
    /// Unmanaged objects it links to are added with the same `update` policy (as Realm's).
    ///
    /// Thread safety: on the database's thread, inside its write.
    /// - Parameters:
    ///   - object: the object to add.
    ///   - update: what to do when an object with the same primary key exists.
    /// - Throws: ``/StrataStorage/StrataError`` `.notInWriteTransaction` outside a write; `.primaryKeyExists`
    ///   (nothing changed) with `.error`; `.wrongDatabase` when the object's class is not
    ///   registered or it belongs to another database; `.invalidValue` when a property cannot
    ///   be stored, or the object (or one it links to) was made by ``ObjectBase/init(value:)``
    ///   from a value that does not fit; `.invalidArgument` for `.modified` or `.all` on a
    ///   class without a primary key (as Realm).
    /// - Complexity: O(f) in the object's fields, plus the objects it adds.
    public func add(_ object: Object, update: UpdatePolicy = .error) throws {
        try checkUpdatable(type(of: object), update)
        try withLinkedUpdatePolicy(update) { _ = try addObject(object, update: update) }
    }

    /// Throws when `update` asks to update objects of a class that has no primary key to
    /// match them by (Realm refuses the same).
    func checkUpdatable(_ type: ObjectBase.Type, _ update: UpdatePolicy) throws {
        guard update != .error, let schema = schemas.schema(for: type), schema.primaryKeyIndex == nil else { return }
        throw StrataError(
            .invalidArgument, "\(schema.className) does not have a primary key and cannot be updated; add it with update: .error")
    }

    /// Runs `body` with `policy` as the open write's policy for unmanaged linked objects, and
    /// (for `create`) with objects made from values updating only their given properties of
    /// stored objects.
    func withLinkedUpdatePolicy<Result>(
        _ policy: UpdatePolicy, mergingGivenProperties: Bool = false, _ body: () throws -> Result
    ) rethrows -> Result {
        guard let transaction else { return try body() }
        let outer = (transaction.linkedUpdatePolicy, transaction.mergesGivenProperties)
        transaction.linkedUpdatePolicy = policy
        transaction.mergesGivenProperties = mergingGivenProperties
        defer { (transaction.linkedUpdatePolicy, transaction.mergesGivenProperties) = outer }
        return try body()
    }

    /// Adds `object` (if unmanaged) and returns its key. The steps: an object already managed
    /// is its key; else its class's schema, then its key, then its record — written straight
    /// from its properties when nothing else needs its fields (`addRecordDirectly`), else from
    /// its fields (`addFields`).
    func addObject(_ object: ObjectBase, update: UpdatePolicy) throws -> ObjectKey {
        guard let transaction else {
            throw StrataError(.notInWriteTransaction, "add() outside a write transaction: call it inside `try db.write { }`")
        }
        if let state = object._strataState { return try managedKey(of: object, state: state) }
        if let valueError = object.valueError { throw valueError }
        let schema = try schemaToAdd(object)
        let (key, primaryKeyField) = try keyToAdd(object, schema: schema)
        do {
            try addObject(object, schema: schema, key: key, primaryKeyField: primaryKeyField, update: update, in: transaction)
        } catch {
            if transaction.linkedAddDepth == 0 { dropDeferredObjects(in: transaction) }
            throw error
        }
        if transaction.linkedAddDepth == 0, !transaction.deferredAdds.isEmpty { try addDeferredObjects(in: transaction) }
        return key
    }

    /// Adds an unmanaged object whose schema and key are known.
    func addObject(
        _ object: ObjectBase, schema: ObjectSchema, key: ObjectKey, primaryKeyField: FieldValue, update: UpdatePolicy,
        in transaction: WriteTransaction
    ) throws {
        if !schema.mayHoldLinks, try addRecordDirectly(object, schema: schema, key: key, in: transaction) { return }
        _ = try addFields(of: object, schema: schema, key: key, primaryKeyField: primaryKeyField, update: update, in: transaction)
    }

    /// The key of an object that is already managed (by this database) or being added.
    private func managedKey(of object: ObjectBase, state: ObjectState) throws -> ObjectKey {
        guard state.database.shared === shared else {
            throw StrataError(.wrongDatabase, "\(type(of: object).className()): the object belongs to another database")
        }
        // Reached again through a link while it is being added (a cycle of new objects).
        if state.isBeingAdded { return state.key }
        guard state.isValid else {
            throw StrataError(.objectInvalidated, "\(type(of: object).className()): the object has been deleted or invalidated")
        }
        return state.key
    }

    /// The schema of an object's class (the last one added is kept: adds come in runs).
    func schemaToAdd(_ object: ObjectBase) throws -> ObjectSchema {
        if let last = lastAddedSchema, last.type == type(of: object) { return last }
        guard let found = schemas.schema(for: type(of: object)) else {
            throw StrataError(.wrongDatabase, "\(type(of: object).className()) is not one of the database's objectTypes")
        }
        lastAddedSchema = found
        return found
    }

    /// An unmanaged object's key: its primary key, encoded, or a new generated one; and the
    /// primary key's field (null without one). A primary key is a scalar, so reading it adds
    /// nothing.
    func keyToAdd(_ object: ObjectBase, schema: ObjectSchema) throws -> (ObjectKey, FieldValue) {
        guard let primaryKeyIndex = schema.primaryKeyIndex else {
            return (ObjectKey(classID: schema.classID, key: PrimaryKeyEncoding.generatedKey()), .null)
        }
        let field = try schema.accessors[primaryKeyIndex].storedValue(of: object, context: self)
        guard let encoded = PrimaryKeyEncoding.key(for: field, optional: schema.primaryKeyIsOptional) else {
            throw StrataError(.invalidValue, "\(schema.className).\(schema.properties[primaryKeyIndex].name): the primary key is too long")
        }
        return (ObjectKey(classID: schema.classID, key: encoded), field)
    }

    /// Adds a new object of a class with no links by writing its record straight from its
    /// properties: no linked object is to be added and no backlink derived; the index entries
    /// of a new object are its indexed properties' values alone. False, with nothing changed,
    /// when the write or the store already holds the key (then the fields path compares and
    /// replaces).
    private func addRecordDirectly(
        _ object: ObjectBase, schema: ObjectSchema, key: ObjectKey, in transaction: WriteTransaction
    ) throws -> Bool {
        let reservation = transaction.reserve(key)
        guard reservation.previous == nil, schema.primaryKeyIndex == nil || transaction.baseEntry(for: key) == nil else {
            transaction.abandon(reservation, for: key)
            return false
        }
        let indexed: [FieldValue]
        do {
            indexed = try schema.indexedProperties.map { try schema.accessors[$0.index].storedValue(of: object, context: self) }
            try transaction.storeRecord(writingPropertiesOf: object, schema: schema, context: self, at: reservation, for: key)
        } catch {
            transaction.abandon(reservation, for: key)
            throw error
        }
        for (property, value) in zip(schema.indexedProperties, indexed) {
            transaction.noteIndexEntry(Self.indexEntryKey(schema, property, value, key.key), object: key.key, present: true)
        }
        bumpVersion()
        let state = ObjectState(database: self, schema: schema, key: key)
        state.addedInWrite = transaction.serial
        transaction.addedObjects = true
        attach(object, state: state)
        return true
    }

    /// Adds an object from its fields: unmanaged objects it links to are added while they are
    /// read (those that link back find it being added, with its key), then `store` records the
    /// change. The fields go to a buffer on the stack: only a change that needs them as fields
    /// copies them into an array.
    private func addFields(
        of object: ObjectBase, schema: ObjectSchema, key: ObjectKey, primaryKeyField: FieldValue,
        update: UpdatePolicy, in transaction: WriteTransaction
    ) throws -> ObjectKey {
        let state = ObjectState(database: self, schema: schema, key: key)
        state.isBeingAdded = true
        object._strataState = state
        let accessors = schema.accessors
        return try withUnsafeTemporaryAllocation(of: FieldValue.self, capacity: accessors.count) { buffer in
            let base = buffer.baseAddress.unsafelyUnwrapped
            var initialized = 0
            defer {
                for index in 0..<initialized { (base + index).deinitialize(count: 1) }
            }
            do {
                for index in accessors.indices {
                    do {
                        let field = index == schema.primaryKeyIndex
                            ? primaryKeyField : try accessors[index].storedValue(of: object, context: self)
                        try field.checkNesting()
                        (base + index).initialize(to: field)
                    } catch {
                        throw StrataError.inContext("\(schema.className).\(schema.properties[index].name)", error)
                    }
                    initialized += 1
                }
            } catch {
                object._strataState = nil
                throw error
            }
            state.isBeingAdded = false
            return try store(
                object, fields: UnsafeBufferPointer(buffer), key: key, state: state, schema: schema,
                update: update, in: transaction)
        }
    }

    /// Stores the change that adds `object` (its `fields` read, its `state` made), or throws
    /// `.primaryKeyExists` as `update` says.
    private func store(
        _ object: ObjectBase, fields: UnsafeBufferPointer<FieldValue>, key: ObjectKey, state: ObjectState,
        schema: ObjectSchema, update: UpdatePolicy, in transaction: WriteTransaction
    ) throws -> ObjectKey {
        // One lookup of the key among the write's changes: where its change goes, and what the
        // write already holds for it; the stored object is looked for only when it holds none.
        let reservation = transaction.reserve(key)
        let existing: [FieldValue]?
        if let previous = reservation.previous {
            existing = transaction.fields(of: previous, schema: schema)
        } else {
            existing = schema.primaryKeyIndex == nil ? nil : storedFields(key, schema: schema, in: transaction)
        }
        if let existing, transaction.mergesGivenProperties, let given = object.valueInput?.givenProperties, given.count < fields.count {
            // `create` over a stored object: the properties not given keep their stored values.
            transaction.abandon(reservation, for: key)
            object.valueInput = nil
            var merged = existing
            for index in given { merged[index] = fields[index] }
            return try merged.withUnsafeBufferPointer {
                try store(object, fields: $0, key: key, state: state, schema: schema, update: update, in: transaction)
            }
        }
        if let primaryKeyIndex = schema.primaryKeyIndex, let existing {
            let unchanged: Bool
            if object.isPrimaryKeyReference {
                unchanged = true
            } else {
                switch update {
                case .error:
                    transaction.abandon(reservation, for: key)
                    object._strataState = nil
                    throw StrataError(
                        .primaryKeyExists,
                        "\(schema.className) with primary key \(PrimaryKeyDisplay.text(fields[primaryKeyIndex])) already exists")
                case .modified: unchanged = existing.elementsEqual(fields)
                case .all: unchanged = false
                }
            }
            if unchanged {
                transaction.abandon(reservation, for: key)
                manage(object, state: state, schema: schema)
                return key
            }
        }
        if schema.hasLinksOrIndexes {
            // Backlinks and index entries are kept from the fields before and after.
            let fields = Array(fields)
            recordChange(key, schema: schema, .put(fields), before: existing, at: reservation)
            state.prime(fields, version: currentVersion)
        } else {
            // Nothing else to keep in step: the change is the encoded record, and the object
            // reads it back when a property is read.
            transaction.storeRecord(encoding: fields, schema: schema, at: reservation, for: key)
            bumpVersion()
        }
        // Only an object this write created disappears if the write is cancelled.
        if existing == nil {
            state.addedInWrite = transaction.serial
            transaction.addedObjects = true
        }
        manage(object, state: state, schema: schema)
        for property in schema.properties where property.embeddedSchema != nil {
            adoptEmbeddedObjects(in: fields[property.index], property: property.index, parent: state)
        }
        return key
    }

    /// The fields of the object at `key` in the write's base snapshot (not its changes).
    private func storedFields(_ key: ObjectKey, schema: ObjectSchema, in transaction: WriteTransaction) -> [FieldValue]? {
        guard let entry = transaction.baseEntry(for: key) else { return nil }
        return decodeFields(of: entry, schema: schema)
    }

    /// Makes an object being added managed through `state`, and drops the values it held
    /// before: they are read no more, and the objects they refer to must not stay alive (or
    /// in a cycle) through them.
    private func manage(_ object: ObjectBase, state: ObjectState, schema: ObjectSchema) {
        attach(object, state: state)
        guard schema.mayHoldLinks else { return }
        for property in schema.properties where property.mayHoldLinks {
            property.accessor.releaseUnmanagedValue(object)
        }
    }

    /// Deletes a managed object. Links to it read as nil afterwards; the object is invalidated.
    /// - Throws: ``/StrataStorage/StrataError`` `.notInWriteTransaction` outside a write, `.wrongDatabase` for an
    ///   unmanaged object or one of another database, `.objectInvalidated` when it is already
    ///   deleted.
    public func delete(_ object: Object) throws {
        guard let transaction else {
            throw StrataError(.notInWriteTransaction, "delete() outside a write transaction: call it inside `try db.write { }`")
        }
        guard let state = object._strataState, state.database.shared === shared else {
            throw StrataError(.wrongDatabase, "\(type(of: object).className()): only objects this database manages can be deleted")
        }
        guard state.isValid else {
            throw StrataError(.objectInvalidated, "\(type(of: object).className()): the object was already deleted")
        }
        _ = transaction
        unlinkEverywhere(state.key)
        recordChange(state.key, schema: state.schema, .delete)
    }

    /// Deletes every object of a sequence (for example a `Results`).
    /// - Throws: what ``delete(_:)`` throws.
    public func delete<S: Sequence>(_ objects: S) throws where S.Element: Object {
        for object in Array(objects) { try delete(object) }
    }

    /// Sets one property of a managed object. Called by `@Persisted` setters, which cannot throw:
    /// misuse Realm traps on traps here too, with a message naming the property; a value that
    /// cannot be stored fails the write with a typed error instead (nothing is written).
    func setField<Value: _Persistable>(of state: ObjectState, property: PropertySchema, value: Value) {
        let name = "\(state.schema.className).\(property.name)"
        let transaction = requireWrite(name)
        precondition(!property.isPrimaryKey, "\(name): the primary key of a stored object cannot be changed")
        let field: FieldValue
        do {
            field = try value._strataWrite(self)
        } catch {
            transaction.defer(error, context: name)
            return
        }
        state.store(field, at: property.index)
    }

    /// The open write, or a trap naming what was changed outside one.
    func requireWrite(_ what: String) -> WriteTransaction {
        precondition(!isFrozen, "\(what): a frozen object cannot be changed")
        guard let transaction else {
            preconditionFailure("\(what): a managed object can only be changed inside `try db.write { }`")
        }
        return transaction
    }

    /// Replaces a top-level object's fields in the open write.
    func replaceFields(of key: ObjectKey, schema: ObjectSchema, with fields: [FieldValue]) {
        recordChange(key, schema: schema, .put(fields))
    }

    /// Records a change of a top-level object in the open write, with the backlink and index
    /// notes it implies.
    func recordChange(_ key: ObjectKey, schema: ObjectSchema, _ change: __owned WriteTransaction.Change) {
        guard let transaction else { preconditionFailure("\(schema.className): changed outside a write") }
        let before = schema.hasLinksOrIndexes ? loadFields(key, schema: schema) : nil
        recordChange(key, schema: schema, change, before: before, at: transaction.reserve(key))
    }
}

extension ObjectKey {
    /// The key of no object: what an invalidated object points at.
    static let invalid = ObjectKey(classID: 0, key: StorageKey("invalid"))
}

enum PrimaryKeyDisplay {
    static func text(_ value: FieldValue) -> String {
        switch value {
        case .int(let number): return String(number)
        case .string(let text): return "'\(text)'"
        case .objectId(let id): return id.stringValue
        case .uuid(let uuid): return uuid.uuidString
        case .null: return "nil"
        default: return "\(value)"
        }
    }
}
