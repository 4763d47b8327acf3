import StrataStorage

/// The work of one `Results` observer on its delivery queue: it reads the results again in a
/// database of its own (confined to the queue) and diffs the matches' keys and observed fields
/// against its previous delivery.
///
/// It keeps the keys and observed fields of the objects it delivered last: O(n) memory for n
/// matches. A delivery reads again only the records of the objects the commits changed, found
/// by diffing the class's keyspace between the two versions (`Snapshot.Entries.changes(since:)`);
/// when a key path goes through a link, a change of a linked object counts too, so it reads
/// every match's record again. It runs the query again (on the class's columns when it can)
/// unless `keepsMatches` shows the matches are the same.
final class ResultsObservationWorker<Element: Object>: ObservationWorker {
    private let configuration: Database.Configuration
    private let handover: _ThreadSafeHandover
    private let keyPaths: [String]?
    private let block: (CollectionChange<Results<Element>>) -> Void
    private var results: Results<Element>?
    private var observed = ObservedProperties(paths: [])
    private var keys: [ObjectKey] = []
    private var values: [ObjectKey: [FieldValue]] = [:]
    /// The class's keyspace at the last delivery.
    private var entries: Snapshot.Entries?
    /// Without key paths, as Realm: changes of linked objects (nil when the class has no links
    /// or key paths are given).
    private var linked: LinkedChanges?
    private var version = -1

    init(configuration: Database.Configuration, handover: _ThreadSafeHandover, keyPaths: [String]?,
         block: @escaping (CollectionChange<Results<Element>>) -> Void) {
        self.configuration = configuration
        self.handover = handover
        self.keyPaths = keyPaths
        self.block = block
    }

    func deliver(isCancelled: () -> Bool) -> Bool {
        guard let results else { return start(isCancelled: isCancelled) }
        let database = results.database
        database.advance()
        guard database.readVersion() != version else { return true }
        database.holdsVersion = true
        defer { database.holdsVersion = false }
        let oldKeys = keys
        let (previous, sameKeys) = capture(results)
        var modified: Set<ObjectKey> = []
        for (key, old) in previous {
            if let new = values[key], old != new { modified.insert(key) }
        }
        modified.formUnion(linkedChanges(in: results))
        let changes = sameKeys
            ? CollectionChangeSet(modifications: CollectionChangeSet.positions(of: modified, in: keys))
            : CollectionChangeSet.between(oldKeys, keys, modified: modified)
        guard !changes.isEmpty, !isCancelled() else { return true }
        block(.update(results, deletions: changes.deletions, insertions: changes.insertions, modifications: changes.modifications))
        return true
    }

    private func start(isCancelled: () -> Bool) -> Bool {
        do {
            let start = try ObservedQuery(configuration: configuration, handover: handover, keyPaths: keyPaths)
            let (database, query) = (start.database, start.query)
            (observed, linked) = (start.observed, start.linked)
            let results = Results<Element>(query: query)
            self.results = results
            database.holdsVersion = true
            defer { database.holdsVersion = false }
            _ = capture(results)
            _ = linkedChanges(in: results)
            if !isCancelled() { block(.initial(results)) }
            return true
        } catch {
            if !isCancelled() { block(.error(error)) }
            return false
        }
    }

    /// Records the matches and their observed fields at the database's newest version, and
    /// returns the observed fields, before, of the matches that may have changed (those of the
    /// class's objects whose records changed since the last capture, or every match when that
    /// is not known), and whether the matches are the same, in the same order.
    private func capture(_ results: Results<Element>) -> (previous: [ObjectKey: [FieldValue]], sameKeys: Bool) {
        let database = results.database
        let schema = results.schema
        version = database.readVersion()
        let newEntries = database.snapshot.entries(in: Keyspace(schema.classID))
        let (changed, addsOrRemoves) = changedKeys(to: newEntries, classID: schema.classID)
        entries = newEntries
        let keysKept = changed.map { !addsOrRemoves && keepsMatches(results.query, changed: $0) } ?? false
        let newKeys = keysKept ? keys : results.query.rows.map(\.key)
        func load(_ key: ObjectKey) -> [FieldValue]? {
            database.loadFields(key, schema: schema).map { observed.project($0, in: database) }
        }
        var previous: [ObjectKey: [FieldValue]] = [:]
        let sameKeys = newKeys == keys
        if let changed, sameKeys {
            // The same matches: only the changed ones are read again, in place.
            for key in changed {
                guard let old = values[key] else { continue }
                previous[key] = old
                values[key] = load(key)
            }
        } else {
            let old = values
            values = [:]
            values.reserveCapacity(newKeys.count)
            for key in newKeys {
                let isStale = changed?.contains(key) ?? true
                values[key] = isStale ? load(key) : old[key] ?? load(key)
            }
            if let changed {
                for key in changed { previous[key] = old[key] }
            } else {
                previous = old
            }
        }
        keys = newKeys
        return (previous, sameKeys)
    }

    /// The matches that link, within Realm's depth, to an object of another class the commits
    /// changed (none when key paths are given or the class has no links).
    private func linkedChanges(in results: Results<Element>) -> Set<ObjectKey> {
        guard var linked else { return [] }
        defer { self.linked = linked }
        return linked.modified(among: values, observed: observed, schema: results.schema, in: results.database)
    }

    /// Whether `query`'s matches are those of the last capture, in the same order, when the
    /// objects `changed` (no object came or went) are the only ones whose records changed:
    /// - every object of the class, in key order: always;
    /// - the objects of the class matching a predicate on their own fields, in key order: when
    ///   each changed object matches now exactly when it did (it was among the matches).
    /// Anything else (sorts, distincts, collections, predicates through links) is run again.
    private func keepsMatches(_ query: ObjectQuery, changed: Set<ObjectKey>) -> Bool {
        guard case .all = query.source, query.ordering.isEmpty else { return false }
        guard let predicate = query.predicate else { return true }
        guard predicate.readsOnlyOwnFields, changed.count <= 64 else { return false }
        let database = query.database
        for key in changed {
            let matches = database.loadFields(key, schema: query.schema).map { QueryEvaluator.matches(predicate, $0) } ?? false
            if matches != (values[key] != nil) { return false }
        }
        return true
    }

    /// The keys of the class's objects added, changed or removed since the last capture, and
    /// whether any was added or removed; nil when that does not tell which matches changed (the
    /// first capture, or key paths through links, whose linked objects may have changed).
    private func changedKeys(to newEntries: Snapshot.Entries, classID: UInt32) -> (Set<ObjectKey>?, addsOrRemoves: Bool) {
        guard let entries, observed.paths.allSatisfy(\.rest.isEmpty) else { return (nil, true) }
        var changed: Set<ObjectKey> = []
        var addsOrRemoves = false
        for change in newEntries.changes(since: entries) {
            changed.insert(ObjectKey(classID: classID, key: change.key))
            if case .replaced = change { continue }
            addsOrRemoves = true
        }
        return (changed, addsOrRemoves)
    }
}
