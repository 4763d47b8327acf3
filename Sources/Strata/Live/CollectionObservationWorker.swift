import StrataStorage

/// The work of one `List`, `MutableSet` or `LinkingObjects` observer on its delivery queue: it
/// reads the collection again, in a database of its own (confined to the queue), at each run,
/// and diffs its elements' keys (in collection order, a key more than once in a list) and
/// observed fields against its previous delivery, as `ResultsObservationWorker` does.
///
/// When the collection's owner is deleted the observation ends with `.error`
/// (`.objectInvalidated`).
final class CollectionObservationWorker<C: ThreadConfined & Sequence>: ObservationWorker where C.Element: Object {
    private let configuration: Database.Configuration
    private let handover: _ThreadSafeHandover
    private let keyPaths: [String]?
    private let block: (CollectionChange<C>) -> Void
    private var database: Database?
    private var observed: ObservedProperties?
    private var keys: [ObjectKey] = []
    private var values: [ObjectKey: [FieldValue]] = [:]
    private var version = -1

    init(configuration: Database.Configuration, handover: _ThreadSafeHandover, keyPaths: [String]?,
         block: @escaping (CollectionChange<C>) -> Void) {
        self.configuration = configuration
        self.handover = handover
        self.keyPaths = keyPaths
        self.block = block
    }

    func deliver(isCancelled: () -> Bool) -> Bool {
        do {
            let database = try self.database ?? Database(configuration: configuration)
            self.database = database
            let now = database.readVersion()
            guard now != version else { return true }
            version = now
            database.holdsVersion = true
            defer { database.holdsVersion = false }
            guard let collection = C._strataResolve(handover, in: database) else {
                throw StrataError(.objectInvalidated, "the observed collection's object was deleted")
            }
            let observed = try self.observed ?? ObservedProperties(keyPaths: keyPaths, schema: schema(in: database))
            let isFirst = self.observed == nil
            self.observed = observed
            let (oldKeys, oldValues) = (keys, values)
            keys = collection.compactMap { $0._strataState?.key }
            values.removeAll(keepingCapacity: true)
            for element in collection {
                guard let state = element._strataState, values[state.key] == nil else { continue }
                values[state.key] = database.loadFields(state.key, schema: state.schema).map { observed.project($0, in: database) }
            }
            if isFirst {
                if !isCancelled() { block(.initial(collection)) }
                return true
            }
            var modified: Set<ObjectKey> = []
            for (key, value) in values where oldValues[key].map({ $0 != value }) ?? false { modified.insert(key) }
            let changes = CollectionChangeSet.between(oldKeys, keys, modified: modified)
            guard !changes.isEmpty, !isCancelled() else { return true }
            block(.update(collection, deletions: changes.deletions, insertions: changes.insertions, modifications: changes.modifications))
            return true
        } catch {
            if !isCancelled() { block(.error(error)) }
            return false
        }
    }

    private func schema(in database: Database) throws -> ObjectSchema {
        guard let schema = database.schemas.schema(for: C.Element.self) else {
            throw StrataError(.invalidArgument, "\(C.Element.self) is not one of the database's objectTypes")
        }
        return schema
    }
}
