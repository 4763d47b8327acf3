import Foundation
import Strata

// Issue 12's contract, items 3 and 4 (crossing threads and tasks, freeze everywhere), verbatim.
func crossing(_ db: Database, ann: Person, rex: Dog) async throws {
    let ref = ThreadSafeReference(to: rex)                      // rex: Dog (a managed Object)
    let dogsRef = ThreadSafeReference(to: db.objects(Dog.self)) // a Results
    let configuration = db.configuration                        // Sendable; a live Database need not be
    try await Task.detached {
        let other = try Database(configuration: configuration)
        _ = other.resolve(ref)?.name
        _ = other.resolve(dogsRef)?.count
    }.value
    // Writes from async code without blocking the cooperative pool.
    try await db.asyncWrite { try db.add(Dog()) }
    // Freeze everywhere.
    let frozenDogs = ann.dogs.freeze()                          // ann: Person, dogs: List<Dog>
    _ = (frozenDogs.isFrozen, db.objects(Dog.self).freeze().isFrozen, rex.owners.freeze().count)
}

// Issue 12's contract, sectioned results with section-level notifications, verbatim.
func sectionedNotifications(_ db: Database) {
    let sections: SectionedResults<String, Dog> = db.objects(Dog.self).sectioned(by: \.firstLetter, ascending: true)
    for section in sections { _ = (section.key, section.count, section.first?.name) }
    let sectionToken = sections.observe { (change: SectionedResultsChange<SectionedResults<String, Dog>>) in
        if case .update(_, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete) = change {
            _ = (deletions as [IndexPath], insertions as [IndexPath], modifications as [IndexPath],
                 sectionsToInsert as IndexSet, sectionsToDelete as IndexSet)
        }
    }
    sectionToken.invalidate()
}

extension Dog { var firstLetter: String { String(name.prefix(1)) } }   // a computed, non-persisted property
