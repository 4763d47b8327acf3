import StrataStorage

/// The work of one `SectionedResults` (or `ResultsSection`) observer on its delivery queue: it
/// runs the results' query again in a database of its own (confined to the queue), groups the
/// matches with the observed sectioned results' key function, and diffs the sections, their
/// objects' keys and the objects' observed fields against its previous delivery
/// (`SectionedChangeSet`). An observer of one section (`filter`) gets only the changes of its
/// key, and nothing when there are none; its first delivery is `.initial` as the others'.
///
/// It keeps the section keys, the objects' keys and their observed fields of its last delivery:
/// O(n) memory for n objects; each delivery after a commit re-runs the query, computes every
/// object's key and reads the n records.
final class SectionedResultsObservationWorker<Key: Hashable, Element: Object, Delivered>: ObservationWorker {
    private let configuration: Database.Configuration
    private let handover: _ThreadSafeHandover
    private let keyPaths: [String]?
    private let sectionKey: (Element) -> Key
    private let order: SectionOrder
    /// The one section observed; nil: every section.
    private let filter: SectionFilter<Key>?
    private let wrap: (SectionIndex<Key, Element>) -> Delivered
    private let block: (SectionedResultsChange<Delivered>) -> Void
    private var index: SectionIndex<Key, Element>?
    private var observed = ObservedProperties(paths: [])
    private var sections: [(key: Key, items: [ObjectKey])] = []
    private var values: [ObjectKey: [FieldValue]] = [:]
    /// Without key paths, as Realm: changes of linked objects (see `ResultsObservationWorker`).
    private var linked: LinkedChanges?
    private var version = -1

    init(configuration: Database.Configuration, handover: _ThreadSafeHandover, keyPaths: [String]?,
         sectionKey: @escaping (Element) -> Key, order: SectionOrder, filter: SectionFilter<Key>?,
         wrap: @escaping (SectionIndex<Key, Element>) -> Delivered,
         block: @escaping (SectionedResultsChange<Delivered>) -> Void) {
        self.configuration = configuration
        self.handover = handover
        self.keyPaths = keyPaths
        self.sectionKey = sectionKey
        self.order = order
        self.filter = filter
        self.wrap = wrap
        self.block = block
    }

    func deliver(isCancelled: () -> Bool) -> Bool {
        guard let index else { return start(isCancelled: isCancelled) }
        let database = index.results.database
        database.advance()
        guard database.readVersion() != version else { return true }
        database.holdsVersion = true
        defer { database.holdsVersion = false }
        let (oldSections, oldValues) = (sections, values)
        capture(index)
        var modified: Set<ObjectKey> = []
        for (key, value) in values {
            if let old = oldValues[key], old != value { modified.insert(key) }
        }
        modified.formUnion(linkedChanges(index))
        var changes = SectionedChangeSet.between(oldSections, sections, modified: modified)
        if let key = filter?.key {
            changes = changes.restricted(
                toOldSection: oldSections.firstIndex { $0.key == key }, newSection: sections.firstIndex { $0.key == key })
        }
        guard !changes.isEmpty, !isCancelled() else { return true }
        block(.update(wrap(index), deletions: changes.deletions, insertions: changes.insertions,
                      modifications: changes.modifications, sectionsToInsert: changes.sectionsToInsert,
                      sectionsToDelete: changes.sectionsToDelete))
        return true
    }

    private func start(isCancelled: () -> Bool) -> Bool {
        do {
            let start = try ObservedQuery(configuration: configuration, handover: handover, keyPaths: keyPaths)
            let (database, query) = (start.database, start.query)
            (observed, linked) = (start.observed, start.linked)
            let index = SectionIndex(results: Results<Element>(query: query), sectionKey: sectionKey, order: order)
            self.index = index
            database.holdsVersion = true
            defer { database.holdsVersion = false }
            capture(index)
            _ = linkedChanges(index)
            if !isCancelled() { block(.initial(wrap(index))) }
            return true
        } catch {
            if !isCancelled() { block(.error(error)) }
            return false
        }
    }

    /// The objects that link, within Realm's depth, to an object of another class the commits
    /// changed (none when key paths are given or the class has no links).
    private func linkedChanges(_ index: SectionIndex<Key, Element>) -> Set<ObjectKey> {
        guard var linked else { return [] }
        defer { self.linked = linked }
        return linked.modified(among: values, observed: observed, schema: index.results.schema, in: index.results.database)
    }

    /// Records the sections, their objects and the objects' observed fields at the database's
    /// newest version.
    private func capture(_ index: SectionIndex<Key, Element>) {
        let database = index.results.database
        version = database.readVersion()
        let rows = index.results.query.rows
        sections = index.layout.sections.map { section in
            (section.key, section.positions.compactMap { $0 < rows.count ? rows[$0].key : nil })
        }
        values.removeAll(keepingCapacity: true)
        let schema = index.results.schema
        for row in rows {
            values[row.key] = database.loadFields(row.key, schema: schema).map { observed.project($0, in: database) }
        }
    }
}

/// The key of the one section a `ResultsSection` observer follows (a type of its own, since the
/// key may itself be optional).
struct SectionFilter<Key> {
    let key: Key
}
