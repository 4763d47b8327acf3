import StrataStorage

/// The work of one `List`, `MutableSet`, `Map` or `LinkingObjects` observer on its delivery
/// queue: it reads the collection again, in a database of its own (confined to the queue), at
/// each run, and compares its elements (`ObservedElements`: identities in order and observed
/// stored values) with those of its previous delivery.
///
/// When the collection's owner is deleted the observation ends with an update that deletes
/// every element (Realm's "the list was emptied"); when it was deleted before the first
/// delivery, with an initial delivery of an empty collection.
final class CollectionObservationWorker<C: ObservableCollection>: ObservationWorker {
    private let configuration: Database.Configuration
    private let handover: _ThreadSafeHandover
    private let keyPaths: [String]?
    private let block: (C.Change) -> Void
    private var database: Database?
    /// What elements' properties count (nil: the elements are values); set at the start.
    private var observed: ObservedProperties??
    private var elements = ObservedElements()
    /// Without key paths, as Realm: changes of the objects the elements link to.
    private var linked: LinkedChanges?
    private var version = -1

    init(configuration: Database.Configuration, handover: _ThreadSafeHandover, keyPaths: [String]?,
         block: @escaping (C.Change) -> Void) {
        self.configuration = configuration
        self.handover = handover
        self.keyPaths = keyPaths
        self.block = block
    }

    func deliver(isCancelled: () -> Bool) -> Bool {
        do {
            let database = try self.database ?? Database(configuration: configuration)
            self.database = database
            database.advance()
            let now = database.readVersion()
            guard now != version else { return true }
            version = now
            database.holdsVersion = true
            defer { database.holdsVersion = false }
            let isFirst = self.observed == nil
            guard let collection = C._strataResolve(handover, in: database) else {
                let empty = C.unmanagedEmpty()
                if !isCancelled() { block(isFirst ? C.initialChange(empty) : C.ownerDeleted(empty, previous: elements)) }
                return false
            }
            let observed = try self.observed ?? observedProperties(in: database)
            self.observed = observed
            let old = elements
            elements = collection.observedElements(observed)
            markLinkedChanges(in: database, isFirst: isFirst)
            let change = isFirst ? C.initialChange(collection) : C.change(collection, from: old, to: elements)
            if let change, !isCancelled() { block(change) }
            return true
        } catch {
            if !isCancelled() { block(C.failure(error)) }
            return false
        }
    }

    /// Marks the objects held that link, within Realm's depth, to an object of another class
    /// the commits changed (observed without key paths only).
    private func markLinkedChanges(in database: Database, isFirst: Bool) {
        guard let schema = C.elementSchema(in: database), !schema.isEmbedded else { return }
        if isFirst, keyPaths == nil, schema.mayHoldLinks { linked = LinkedChanges(from: schema, in: database) }
        guard var linked, let observed = self.observed ?? nil else { return }
        defer { self.linked = linked }
        guard linked.advance(in: database) else { return }
        for (key, projected) in elements.values {
            guard case .object = key else { continue }
            if linked.reachesChange(projected, observed: observed, schema: schema, in: database) { elements.alsoModified.insert(key) }
        }
    }

    /// What counts as a change of an element: the named (or all stored) properties of the
    /// objects held; nothing for values, which change only by being replaced.
    private func observedProperties(in database: Database) throws -> ObservedProperties? {
        guard let schema = C.elementSchema(in: database) else {
            guard keyPaths?.isEmpty ?? true else {
                throw StrataError(.invalidArgument, "a collection of values has no properties to observe (key paths \(keyPaths ?? []))")
            }
            return nil
        }
        return try ObservedProperties(keyPaths: keyPaths, schema: schema)
    }
}
