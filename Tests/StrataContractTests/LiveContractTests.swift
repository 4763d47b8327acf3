import Foundation
import Strata
import XCTest

/// The live contract (`LiveContractSnippet.swift`) run on a small database of the tour's
/// models, as a client would call it.
final class LiveContractTests: ContractTestCase {
    /// A tour database holding Ann, whose dogs are Rex.
    private func annWithRex() throws -> (Database, Person, Dog) {
        let db = try openTourDatabase()
        let rex = Dog(), ann = Person()
        rex.name = "Rex"
        try db.write {
            try db.add(ann)
            ann.dogs.append(rex)
        }
        return (db, ann, rex)
    }

    /// The contract runs as written until its last part: its first loop ends at an insertion
    /// (another task adds dogs), its second waits for Rex's deletion, which would leave Rex
    /// invalid for the references after it — so the test cancels the task there, which ends
    /// that loop (a cancelled task's change sequence ends) and makes `asyncWrite` throw
    /// `CancellationError` before the freezing part. `testTheRestOfTheContractRuns` runs that part.
    func testTheLiveContractRunsUntilItsTaskIsCancelled() async throws {
        let (db, _, _) = try annWithRex()
        let configuration = db.configuration
        let contract = Task {
            let db = try Database(configuration: configuration)
            let ann = try XCTUnwrap(db.objects(Person.self).first)
            let rex = try XCTUnwrap(db.objects(Dog.self).first)
            try await live(db, ann: ann, rex: rex)
        }
        let writer = try Database(configuration: configuration)
        for round in 0..<20 {
            try await Task.sleep(for: .milliseconds(25))
            try writer.write {
                let dog = Dog()
                dog.name = "Dog \(round)"
                try writer.add(dog)
            }
        }
        contract.cancel()
        do {
            try await contract.value
            XCTFail("asyncWrite in a cancelled task wrote")
        } catch is CancellationError {
        }
        XCTAssertEqual(writer.objects(Dog.self).count, 21, "the cancelled asyncWrite added nothing")
    }

    /// The contract's last lines (references, `asyncWrite`, freezing) on their own.
    func testTheRestOfTheContractRuns() async throws {
        let (db, ann, rex) = try annWithRex()
        let ref = ThreadSafeReference(to: rex)
        let dogsRef = ThreadSafeReference(to: db.objects(Dog.self))
        let configuration = db.configuration
        let names = try await Task.detached {
            let other = try Database(configuration: configuration)
            return (other.resolve(ref)?.name, other.resolve(dogsRef)?.count)
        }.value
        XCTAssertEqual(names.0, "Rex")
        XCTAssertEqual(names.1, 1)
        try await db.asyncWrite { try db.add(Dog()) }
        XCTAssertEqual(db.objects(Dog.self).count, 2)
        XCTAssertEqual(ann.dogs.freeze().map(\.name), ["Rex"])
        XCTAssertEqual(rex.owners.freeze().count, 1)
        XCTAssertEqual(db.objects(Dog.self).sectioned(by: \.firstLetter).allKeys, ["", "R"])
    }
}
