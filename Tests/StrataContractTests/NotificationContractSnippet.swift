import Foundation
import Strata

// Issue 12's contract, item 1, the token-based callbacks on Results, List and objects,
// verbatim. (Database.observe and the AsyncSequence forms are not done yet; sectioned results
// are in LiveContractSnippet.swift.)
func notifications(_ db: Database, ann: Person, rex: Dog) {
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
    token.invalidate(); listToken.invalidate(); objectToken.invalidate()
}
