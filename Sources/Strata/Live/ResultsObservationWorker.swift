import StrataStorage

/// The work of one `Results` observer on its delivery queue: it runs the query again in a
/// database of its own (confined to the queue) and diffs the matches' keys and observed fields
/// against its previous delivery.
///
/// It keeps the keys and observed fields of the objects it delivered last: O(n) memory for n
/// matches, and each delivery after a commit re-runs the query and reads the n records.
final class ResultsObservationWorker<Element: Object>: ObservationWorker {
    private let configuration: Database.Configuration
    private let handover: _ThreadSafeHandover
    private let keyPaths: [String]?
    private let block: (CollectionChange<Results<Element>>) -> Void
    private var results: Results<Element>?
    private var observed = ObservedProperties(paths: [])
    private var keys: [ObjectKey] = []
    private var values: [ObjectKey: [FieldValue]] = [:]
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
        guard database.readVersion() != version else { return true }
        database.holdsVersion = true
        defer { database.holdsVersion = false }
        let (oldKeys, oldValues) = (keys, values)
        capture(results)
        var modified: Set<ObjectKey> = []
        for key in keys {
            if let old = oldValues[key], old != values[key] { modified.insert(key) }
        }
        let changes = CollectionChangeSet.between(oldKeys, keys, modified: modified)
        guard !changes.isEmpty, !isCancelled() else { return true }
        block(.update(results, deletions: changes.deletions, insertions: changes.insertions, modifications: changes.modifications))
        return true
    }

    private func start(isCancelled: () -> Bool) -> Bool {
        do {
            let database = try Database(configuration: configuration)
            guard let query = handover.query(in: database) else {
                throw StrataError(.invalidArgument, "the observed results' class is not in the database's schema")
            }
            observed = try ObservedProperties(keyPaths: keyPaths, schema: query.schema)
            let results = Results<Element>(query: query)
            self.results = results
            database.holdsVersion = true
            defer { database.holdsVersion = false }
            capture(results)
            if !isCancelled() { block(.initial(results)) }
            return true
        } catch {
            if !isCancelled() { block(.error(error)) }
            return false
        }
    }

    /// Records the matches and their observed fields at the database's newest version.
    private func capture(_ results: Results<Element>) {
        let database = results.database
        version = database.readVersion()
        keys = results.query.rows.map(\.key)
        values.removeAll(keepingCapacity: true)
        for key in keys {
            values[key] = database.loadFields(key, schema: results.schema).map { observed.project($0, in: database) }
        }
    }
}
