// The live contract, verbatim: the whole public-names block of change notifications, frozen
// views and thread handover, compiled against `import Strata` with the tour's models and run by
// LiveContractTests. Realm Swift's names with Realm→Database renames.
import Foundation
import Strata

func live(_ db: Database, ann: Person, rex: Dog) async throws {
    // Collections: a token-based callback, as in Realm.
    let token: NotificationToken = db.objects(Dog.self).where { $0.age > 2 }.observe { change in
        switch change {
        case .initial(let results): _ = results.count
        case .update(let results, let deletions, let insertions, let modifications):
            _ = (results, deletions as [Int], insertions as [Int], modifications as [Int])
        case .error(let error): _ = error
        }
    }
    // Key-path filtered; also on List / MutableSet / Map / LinkingObjects.
    let listToken = ann.dogs.observe(keyPaths: ["age"]) { (change: CollectionChange<List<Dog>>) in _ = change }
    // Objects.
    let objectToken = rex.observe(keyPaths: ["name", "age"]) { (change: ObjectChange<Dog>) in
        switch change {
        case .change(let dog, let properties):
            for p in properties { _ = (dog, p.name, p.oldValue, p.newValue) }
        case .deleted: break
        case .error(let error): _ = error
        }
    }
    // The whole database.
    let dbToken = db.observe { (notification: Database.Notification, database: Database) in _ = (notification, database) }
    token.invalidate(); listToken.invalidate(); objectToken.invalidate(); dbToken.invalidate()

    // Swift concurrency: an AsyncSequence of the same changes.
    for await change in db.objects(Dog.self).changes {
        if case .update(_, _, let insertions, _) = change, !insertions.isEmpty { break }
    }
    for await change in rex.changes(keyPaths: ["age"]) { if case .deleted = change { break } }

    // Sectioned results.
    let sections: SectionedResults<String, Dog> = db.objects(Dog.self).sectioned(by: \.firstLetter, ascending: true)
    for section in sections { _ = (section.key, section.count, section.first?.name) }
    let sectionToken = sections.observe { (change: SectionedResultsChange<SectionedResults<String, Dog>>) in
        if case .update(_, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete) = change {
            _ = (deletions as [IndexPath], insertions as [IndexPath], modifications as [IndexPath],
                 sectionsToInsert as IndexSet, sectionsToDelete as IndexSet)
        }
    }
    sectionToken.invalidate()

    // Crossing threads.
    let ref = ThreadSafeReference(to: rex)
    let dogsRef = ThreadSafeReference(to: db.objects(Dog.self))
    let configuration = db.configuration                   // Sendable; a live Database need not be
    try await Task.detached {
        let other = try Database(configuration: configuration)
        _ = other.resolve(ref)?.name
        _ = other.resolve(dogsRef)?.count
    }.value
    // Writes from async code without blocking the cooperative pool.
    try await db.asyncWrite { try db.add(Dog()) }

    // Freeze everywhere.
    let frozenDogs = ann.dogs.freeze()
    _ = (frozenDogs.isFrozen, db.objects(Dog.self).freeze().isFrozen, rex.owners.freeze().count)
}

extension Dog {
    /// Used by the sectioned-results example: the first letter of the name.
    var firstLetter: String { String(name.prefix(1)) }
}
