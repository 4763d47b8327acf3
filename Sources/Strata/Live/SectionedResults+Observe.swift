import Dispatch
import StrataStorage

extension SectionedResults {
    /// Calls `block` with the sectioned results now, then after each commit that changes them
    /// — which objects they hold, their sections or order, or an observed property of one —
    /// with what changed, as Realm's `SectionedResults.observe(keyPaths:on:_:)`:
    ///
    /// ```swift
    /// let token = db.objects(Dog.self).sectioned(by: \.firstLetter).observe { change in
    ///     if case .update(_, let deletions, let insertions, _, let sectionsToInsert, let sectionsToDelete) = change {
    ///         print(deletions, insertions, sectionsToInsert, sectionsToDelete)
    ///     }
    /// }
    /// ```
    ///
    /// Index rules are ``SectionedResultsChange``'s. Which commits, where, key paths and
    /// buffering are as ``Results/observe(keyPaths:on:_:)-([String]?,_,_)``'s: deliveries come in commit order,
    /// and commits made while one is queued are delivered together. An object that changes
    /// section is a deletion and an insertion even when its changed property is not observed.
    /// The key function runs on the delivery queue too, on objects of the database Strata opens
    /// there.
    ///
    /// - Parameters:
    ///   - keyPaths: the properties whose changes make an object count as modified (`nil`: any
    ///     stored property of the object itself).
    ///   - queue: the queue to deliver on (a concurrent one gets one delivery at a time); `nil`: the serial queue Strata owns.
    ///   - block: called on the queue; gets ``SectionedResultsChange/error(_:)`` (and nothing
    ///     after it) for frozen sectioned results, an unknown property in `keyPaths`, or a
    ///     database that cannot be opened on the queue.
    /// - Returns: a token that keeps the observation going until it is invalidated or released.
    /// - Complexity: O(1) here; each delivery re-runs the query, computes every object's key and
    ///   reads the matching records.
    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
        _ block: @escaping @Sendable (SectionedResultsChange<SectionedResults<Key, Element>>) -> Void
    ) -> NotificationToken {
        index.observe(keyPaths: keyPaths, queue: queue, filter: nil, wrap: { SectionedResults(index: $0) }, block)
    }

    /// The changes of these sectioned results as an `AsyncSequence` (see ``ChangeSequence``):
    /// what ``observe(keyPaths:on:_:)`` delivers, with frozen sectioned results. Their key
    /// function, yours, then also runs in the iterating task.
    /// - Complexity: O(1) here; each change costs what a callback's delivery does.
    public var changes: ChangeSequence<SectionedResultsChange<SectionedResults<Key, Element>>> { changes(keyPaths: nil) }

    /// The changes of these sectioned results, the objects' properties `keyPaths` names
    /// counting for modifications (see ``changes``).
    /// - Complexity: O(1) here; each change costs what a callback's delivery does.
    public func changes(keyPaths: [String]?) -> ChangeSequence<SectionedResultsChange<SectionedResults<Key, Element>>> {
        ChangeSequence(store: index.results.database.shared) { deliver in
            index.observation(keyPaths: keyPaths, filter: nil, wrap: { SectionedResults(index: $0) }) {
                deliver($0.mapCollection { $0.freeze() })
            }
        }
    }
}

extension ResultsSection {
    /// Calls `block` with this section now, then after each commit that changes the section of
    /// its key, as Realm's `ResultsSection.observe(keyPaths:on:_:)`: the changes are those of
    /// ``SectionedResults/observe(keyPaths:on:_:)`` that concern this key — its items, its
    /// section's insertion or deletion — with the sectioned results' indexes (`IndexPath(item: 0,
    /// section: 2)` for the first object of this section when it is the third). A commit that
    /// changes only other sections delivers nothing.
    /// - Returns: a token that keeps the observation going until it is invalidated or released.
    /// - Complexity: O(1) here; each delivery costs what the whole sectioned results' does.
    public func observe(
        keyPaths: [String]? = nil, on queue: DispatchQueue? = nil,
        _ block: @escaping @Sendable (SectionedResultsChange<ResultsSection<Key, Element>>) -> Void
    ) -> NotificationToken {
        let key = self.key
        return index.observe(keyPaths: keyPaths, queue: queue, filter: SectionFilter(key: key),
                             wrap: { ResultsSection(index: $0, key: key) }, block)
    }

    /// The changes of this section as an `AsyncSequence` (see ``ChangeSequence``): what
    /// ``observe(keyPaths:on:_:)`` delivers, with frozen sections.
    /// - Complexity: O(1) here; each change costs what the whole sectioned results' does.
    public var changes: ChangeSequence<SectionedResultsChange<ResultsSection<Key, Element>>> { changes(keyPaths: nil) }

    /// The changes of this section, the objects' properties `keyPaths` names counting for
    /// modifications (see ``changes``).
    /// - Complexity: O(1) here; each change costs what the whole sectioned results' does.
    public func changes(keyPaths: [String]?) -> ChangeSequence<SectionedResultsChange<ResultsSection<Key, Element>>> {
        let key = self.key
        return ChangeSequence(store: index.results.database.shared) { deliver in
            index.observation(keyPaths: keyPaths, filter: SectionFilter(key: key), wrap: { ResultsSection(index: $0, key: key) }) {
                deliver($0.mapCollection { $0.freeze() })
            }
        }
    }
}

extension SectionIndex {
    /// Registers a `SectionedResultsObservationWorker` for these sections (one key's with
    /// `filter`), delivering `wrap` of the worker's sections.
    func observe<Delivered>(
        keyPaths: [String]?, queue: DispatchQueue?, filter: SectionFilter<Key>?,
        wrap: @escaping (SectionIndex) -> Delivered, _ block: @escaping (SectionedResultsChange<Delivered>) -> Void
    ) -> NotificationToken {
        NotificationToken(observer: ChangeObserver(
            store: results.database.shared, queue: queue,
            makeWorker: observation(keyPaths: keyPaths, filter: filter, wrap: wrap, block)))
    }

    /// What makes the worker of an observation of these sections delivering to `block`.
    func observation<Delivered>(
        keyPaths: [String]?, filter: SectionFilter<Key>?,
        wrap: @escaping (SectionIndex) -> Delivered, _ block: @escaping (SectionedResultsChange<Delivered>) -> Void
    ) -> () -> any ObservationWorker {
        let database = results.database
        guard !database.isFrozen else {
            let error = StrataError(.invalidArgument, "frozen sectioned results never change: they cannot be observed")
            return { FailedObservationWorker { block(.error(error)) } }
        }
        let (configuration, handover) = (database.configuration, _ThreadSafeHandover(query: results.query))
        let (sectionKey, order) = (self.sectionKey, self.order)
        return {
            SectionedResultsObservationWorker(
                configuration: configuration, handover: handover, keyPaths: keyPaths, sectionKey: sectionKey,
                order: order, filter: filter, wrap: wrap, block: block)
        }
    }
}
