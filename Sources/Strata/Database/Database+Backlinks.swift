import StrataStorage

// The persistent backlink index: for every object that something links to, a backlink record
// (its bytes: ObjectFormat.swift) listing who links to it and through which property. It is
// updated in the same commit as the links it mirrors, and read by `LinkingObjects` and by
// `delete` (which removes every link to the deleted object from the objects that hold one).
//
// Inside a write, `WriteTransaction.backlinkChanges` overrides the stored sets per target, so
// reads in the write see its own link changes.

/// One link into an object: the object that holds it and through which property.
struct Backlink: Hashable {
    var source: ObjectKey
    var propertyID: UInt32
}

extension Database {
    static func backlinkKey(_ target: ObjectKey) -> StorageKey {
        var bytes: [UInt8] = []
        withUnsafeBytes(of: target.classID.bigEndian) { bytes.append(contentsOf: $0) }
        target.key.withUnsafeBytes { bytes.append(contentsOf: $0) }
        return StorageKey(bytes)
    }

    /// The links into `target` recorded in `snapshot`. A damaged backlink record reads as
    /// empty and is noted (`noteReadFailure`): a write that reads it fails.
    func storedBacklinks(of target: ObjectKey, in snapshot: Snapshot) -> Set<Backlink> {
        do {
            return try Self.decodeBacklinks(of: target, in: snapshot)
        } catch {
            noteReadFailure(error, reading: "the backlink record of an object of class \(target.classID)")
            return []
        }
    }

    /// The links into `target` recorded in `snapshot`.
    /// - Throws: `.corruption` when the record is damaged.
    static func decodeBacklinks(of target: ObjectKey, in snapshot: Snapshot) throws -> Set<Backlink> {
        let decoded = try snapshot.withValue(for: backlinkKey(target), in: ObjectFormat.backlinkKeyspace) {
            Set(try decodeBacklinkRecord($0))
        }
        return decoded ?? []
    }

    /// The entries of a backlink record, in stored order.
    /// - Throws: ``/StrataStorage/StrataError`` `.corruption` when the bytes are malformed.
    static func decodeBacklinkRecord(_ bytes: UnsafeRawBufferPointer) throws -> [Backlink] {
        var reader = ByteReader(bytes: bytes)
        var result: [Backlink] = []
        for _ in 0..<(try reader.count()) {
            let classID = try reader.uint32()
            let propertyID = try reader.uint32()
            let key = StorageKey(try reader.take(try reader.count()))
            result.append(Backlink(source: ObjectKey(classID: classID, key: key), propertyID: propertyID))
        }
        guard reader.isAtEnd else { throw StrataError(.corruption, "a backlink record has trailing bytes") }
        return result
    }

    static func encodeBacklinks(_ backlinks: Set<Backlink>) -> [UInt8] {
        let ordered = backlinks.sorted { ($0.source.classID, $0.propertyID, $0.source.key) < ($1.source.classID, $1.propertyID, $1.source.key) }
        return [UInt8](encoding: BacklinkList(backlinks: ordered))
    }

    /// The value of a backlink record: count varint │ (class id varint │ property id varint │
    /// key length varint │ key)*.
    private struct BacklinkList: ByteEncodable {
        let backlinks: [Backlink]

        func write<Sink: ByteSink>(to writer: inout ByteWriter<Sink>) {
            writer.varint(UInt64(backlinks.count))
            for backlink in backlinks {
                writer.varint(UInt64(backlink.source.classID))
                writer.varint(UInt64(backlink.propertyID))
                backlink.source.key.withUnsafeBytes { writer.lengthPrefixed($0) }
            }
        }
    }

    /// Every link into `target` as this view sees it (the open write's changes included).
    func backlinks(of target: ObjectKey) -> Set<Backlink> {
        _ = readVersion()
        var result = storedBacklinks(of: target, in: transaction?.base ?? snapshot)
        if let changes = transaction?.backlinkChanges[target] {
            for (backlink, present) in changes {
                if present { result.insert(backlink) } else { result.remove(backlink) }
            }
        }
        return result
    }

    /// The keys of the objects of one class linking to `target` through one property. A
    /// backlink to an object that does not exist is damage: it is noted and left out.
    func linkingSources(of target: ObjectKey, originClassID: UInt32, propertyID: UInt32) -> [ObjectKey] {
        let sources = backlinks(of: target)
            .filter { $0.source.classID == originClassID && $0.propertyID == propertyID }
            .map(\.source)
            .sorted { $0.key < $1.key }
        let existing = sources.filter(objectExists)
        if existing.count != sources.count {
            noteReadFailure(
                StrataError(.corruption, "a backlink record lists an object that does not exist"),
                reading: "the backlinks of an object of class \(target.classID)")
        }
        return existing
    }

    /// Whether the object at `key` exists in this view (the open write's changes included).
    func objectExists(_ key: ObjectKey) -> Bool {
        if let transaction, let change = transaction.change(for: key) { return !change.isDelete }
        return (transaction?.base ?? snapshot).contains(key.key, in: Keyspace(key.classID))
    }

    /// The links a top-level object's fields hold: (target, property id) pairs.
    static func outgoingLinks(_ fields: [FieldValue], schema: ObjectSchema) -> Set<Backlink> {
        var visited = 0
        return outgoingLinks(fields, schema: schema, visited: &visited)
    }

    /// The links a top-level object's fields hold, adding the number of links walked to `visited`.
    static func outgoingLinks(_ fields: [FieldValue], schema: ObjectSchema, visited: inout Int) -> Set<Backlink> {
        var links = Set<Backlink>()
        for property in schema.properties where property.mayHoldLinks {
            var targets: [ObjectKey] = []
            collectLinks(fields[property.index], into: &targets)
            visited += targets.count
            for target in targets {
                // Stored "inverted": source here means the target; recordChange turns them around.
                links.insert(Backlink(source: target, propertyID: property.propertyID))
            }
        }
        return links
    }

    static func collectLinks(_ value: FieldValue, into targets: inout [ObjectKey]) {
        switch value {
        case .link(let key): targets.append(key)
        case .list(let elements), .set(let elements): for element in elements { collectLinks(element, into: &targets) }
        case .map(let entries): for entry in entries { collectLinks(entry.value, into: &targets) }
        case .embedded(_, _, let fields): for field in fields { collectLinks(field.value, into: &targets) }
        default: break
        }
    }

    /// `value` with every link to `target` removed: to-one links and map values become null,
    /// list and set entries go.
    static func removingLinks(to target: ObjectKey, from value: FieldValue) -> FieldValue {
        switch value {
        case .link(let key): return key == target ? .null : value
        case .list(let elements):
            return .list(elements.filter { $0 != .link(target) }.map { removingLinks(to: target, from: $0) })
        case .set(let elements):
            return .set(elements.filter { $0 != .link(target) }.map { removingLinks(to: target, from: $0) })
        case .map(let entries):
            return .map(entries.map { FieldValue.MapEntry(key: $0.key, value: removingLinks(to: target, from: $0.value)) })
        case .embedded(let classID, let id, let fields):
            return .embedded(classID: classID, id: id, fields: fields.map { FieldValue.Field(id: $0.id, value: removingLinks(to: target, from: $0.value)) })
        default: return value
        }
    }

    /// Records a change of a top-level object in the open write, keeping the backlink index of
    /// every object it links to (before and after) in step.
    /// `before` is the object's fields as the write sees them before the change (nil when it
    /// does not exist); `reservation` is where the change goes.
    func recordChange(
        _ key: ObjectKey, schema: ObjectSchema, _ change: __owned WriteTransaction.Change,
        before beforeFields: [FieldValue]?, at reservation: WriteTransaction.Reservation
    ) {
        guard let transaction else { preconditionFailure("\(schema.className): changed outside a write") }
        guard schema.hasLinksOrIndexes else {
            // Nothing else to keep in step (no backlinks, no secondary index entries).
            transaction.store(change, at: reservation, for: key)
            bumpVersion()
            return
        }
        let afterFields = transaction.fields(of: change, schema: schema)
        recordIndexChanges(key, schema: schema, before: beforeFields, after: afterFields)
        if schema.mayHoldLinks {
            let before = beforeFields.map { Self.outgoingLinks($0, schema: schema, visited: &transaction.visitedElements) } ?? []
            let after = afterFields.map { Self.outgoingLinks($0, schema: schema, visited: &transaction.visitedElements) } ?? []
            if before != after {
                for link in before.subtracting(after) {
                    transaction.backlinkChanges[link.source, default: [:]][Backlink(source: key, propertyID: link.propertyID)] = false
                }
                for link in after.subtracting(before) {
                    transaction.backlinkChanges[link.source, default: [:]][Backlink(source: key, propertyID: link.propertyID)] = true
                }
            }
        }
        transaction.store(change, at: reservation, for: key)
        bumpVersion()
    }

    /// Removes every link to `target` from the objects holding one (before deleting it),
    /// whether or not this process registered their classes.
    func unlinkEverywhere(_ target: ObjectKey) {
        for backlink in backlinks(of: target) where backlink.source != target {
            guard let schema = schemas.byClassID[backlink.source.classID] else {
                unlinkUnregistered(backlink, from: target)
                continue
            }
            guard var fields = loadFields(backlink.source, schema: schema) else { continue }
            for property in schema.properties where property.mayHoldLinks {
                fields[property.index] = Self.removingLinks(to: target, from: fields[property.index])
            }
            recordChange(backlink.source, schema: schema, .put(fields))
        }
    }

    /// The backlink records the open write changes, for its commit batch.
    func backlinkRecords(into batch: inout WriteBatch) {
        guard let transaction else { return }
        for (target, changes) in transaction.backlinkChanges {
            var result = storedBacklinks(of: target, in: transaction.base)
            for (backlink, present) in changes {
                if present { result.insert(backlink) } else { result.remove(backlink) }
            }
            if result.isEmpty {
                batch.delete(Self.backlinkKey(target), in: ObjectFormat.backlinkKeyspace)
            } else {
                batch.put(Self.encodeBacklinks(result), forKey: Self.backlinkKey(target), in: ObjectFormat.backlinkKeyspace)
            }
        }
    }
}
