import StrataStorage

/// Realm's default for a collection observed without key paths: an object also counts as
/// modified when an object it links to — through to-one links, lists, sets and maps of links,
/// up to four links deep — was changed, added or deleted by the commits (realm-core's
/// `DeepChangeChecker`; Realm's `LinkedObjectChangesetTests`).
///
/// It keeps each class's keyspace of the last delivery, diffs them at the next one (about
/// n/64 steps per class plus the changed keys), and answers from the linking object's stored
/// fields, reading linked records only to go deeper than one link.
///
/// Used on one delivery queue (as its worker).
struct LinkedChanges {
    /// How many links deep a change is looked for (Realm's depth).
    static let depth = 4

    private var entries: [UInt32: Snapshot.Entries] = [:]
    /// The keys of each class whose records the last commits changed.
    private var changed: [UInt32: Set<StorageKey>] = [:]
    /// Per delivery: whether an object reaches a change (within the depth left when asked).
    private var memo: [ObjectKey: Bool] = [:]

    /// The classes an object of the observed class can link to within the depth.
    private let targets: Set<UInt32>

    /// Changes seen from objects of `schema`.
    init(from schema: ObjectSchema, in database: Database) {
        var targets: Set<UInt32> = []
        var frontier = [schema]
        for _ in 0..<Self.depth {
            var next: [ObjectSchema] = []
            for source in frontier {
                for property in source.properties where property.mayHoldLinks {
                    guard let target = QueryStep.make(for: property, in: database.schemas).targetSchema else {
                        // A mixed value may link to any class.
                        targets.formUnion(database.schemas.byClassID.keys)
                        continue
                    }
                    if target.isEmbedded {
                        next.append(target)
                    } else if targets.insert(target.classID).inserted {
                        next.append(target)
                    }
                }
            }
            frontier = next
        }
        self.targets = targets
    }

    /// Takes the keyspaces of the classes linked to at `database`'s version, and the keys
    /// changed since the last call (none at the first). Returns whether any changed.
    mutating func advance(in database: Database) -> Bool {
        changed.removeAll(keepingCapacity: true)
        memo.removeAll(keepingCapacity: true)
        for schema in database.schemas.byClassID.values where targets.contains(schema.classID) && !schema.isEmbedded {
            let now = database.snapshot.entries(in: Keyspace(schema.classID))
            if let before = entries[schema.classID] {
                let keys = now.changes(since: before).map(\.key)
                if !keys.isEmpty { changed[schema.classID] = Set(keys) }
            }
            entries[schema.classID] = now
        }
        return !changed.isEmpty
    }

    /// Takes the commits since the last call (see ``advance(in:)``) and returns the objects of
    /// `values` (observed values by key, every stored property as `ObservedProperties` without
    /// key paths gives them) that link, within the depth, to an object those commits changed.
    mutating func modified(
        among values: [ObjectKey: [FieldValue]], observed: ObservedProperties, schema: ObjectSchema, in database: Database
    ) -> Set<ObjectKey> {
        guard advance(in: database) else { return [] }
        var found: Set<ObjectKey> = []
        for (key, projected) in values where reachesChange(projected, observed: observed, schema: schema, in: database) {
            found.insert(key)
        }
        return found
    }

    /// Whether the object whose observed values are `projected` (every stored property, as
    /// `ObservedProperties` without key paths gives them) links, within the depth, to an
    /// object the last commits changed.
    mutating func reachesChange(
        _ projected: [FieldValue], observed: ObservedProperties, schema: ObjectSchema, in database: Database
    ) -> Bool {
        guard !changed.isEmpty else { return false }
        var fields = [FieldValue](repeating: .null, count: schema.properties.count)
        for (path, value) in zip(observed.paths, projected) { fields[path.index] = value }
        return reachesChange(fields, schema: schema, in: database)
    }

    /// Whether the object whose stored fields are `fields` (of `schema`) links, within the
    /// depth, to an object the last commits changed.
    private mutating func reachesChange(_ fields: [FieldValue], schema: ObjectSchema, in database: Database) -> Bool {
        guard !changed.isEmpty else { return false }
        var path: [ObjectKey] = []
        return reaches(fields, schema: schema, depthLeft: Self.depth, path: &path, in: database)
    }

    private mutating func reaches(
        _ fields: [FieldValue], schema: ObjectSchema, depthLeft: Int, path: inout [ObjectKey], in database: Database
    ) -> Bool {
        for property in schema.properties where property.mayHoldLinks && property.index < fields.count {
            var found = false
            forEachLink(in: fields[property.index]) { key in
                guard !found else { return }
                if changed[key.classID]?.contains(key.key) == true {
                    found = true
                } else if depthLeft > 1, !path.contains(key) {
                    found = linkedReaches(key, depthLeft: depthLeft - 1, path: &path, in: database)
                }
            }
            if found { return true }
        }
        return false
    }

    /// Whether the object `key` links, within `depthLeft` links, to a changed object.
    private mutating func linkedReaches(_ key: ObjectKey, depthLeft: Int, path: inout [ObjectKey], in database: Database) -> Bool {
        if depthLeft == Self.depth - 1, let known = memo[key] { return known }
        guard let schema = database.schemas.byClassID[key.classID], schema.mayHoldLinks,
              let fields = database.loadFields(key, schema: schema) else { return false }
        path.append(key)
        defer { path.removeLast() }
        let found = reaches(fields, schema: schema, depthLeft: depthLeft, path: &path, in: database)
        if depthLeft == Self.depth - 1 { memo[key] = found }
        return found
    }

    /// Calls `body` with each link `value` holds (itself, or in a list, set, map or embedded
    /// object).
    private func forEachLink(in value: FieldValue, _ body: (ObjectKey) -> Void) {
        switch value {
        case .link(let key): body(key)
        case .list(let elements), .set(let elements): for element in elements { forEachLink(in: element, body) }
        case .map(let entries): for entry in entries { forEachLink(in: entry.value, body) }
        case .embedded(_, _, let fields): for field in fields { forEachLink(in: field.value, body) }
        default: break
        }
    }
}
