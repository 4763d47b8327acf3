import Foundation
import Strata
import XCTest

/// The evolve contract (`EvolveContractSnippet.swift`, verbatim) run as a client would: on a new
/// encrypted database of the tour's models holding Rex and another dog. (Its migration block runs
/// only on a database whose stored version is below 2; a new one is created at version 2, so the
/// block's semantics are checked by MigrationTests on a version-1 database.)
final class EvolveContractTests: ContractTestCase {
    private let key = Data((0..<64).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })

    func testTheEvolveContractRunsOnAnEncryptedDatabase() throws {
        var configuration = Database.Configuration(directory: directory, objectTypes: [Dog.self, Person.self, Address.self], schemaVersion: 2)
        configuration.encryptionKey = key
        let db = try Database(configuration: configuration)
        let rex = Dog(value: ["name": "Rex", "age": 3]), other = Dog(value: ["name": "Other", "age": 12])
        try db.write { try db.add([rex, other]) }

        try evolve(directory: directory, key: key, rex: rex, other: other)

        db.refresh()
        XCTAssertEqual(db.objects(Dog.self).count, 0, "the contract ends with deleteAll()")
        XCTAssertTrue(other.isInvalidated)
        let copy = directory.appendingPathComponent("copy")
        let plain = try Database(configuration: .init(directory: copy, objectTypes: [Dog.self, Person.self, Address.self], schemaVersion: 2))
        XCTAssertEqual(Set(plain.objects(Dog.self).map(\.name)), ["Rex", "Other"], "writeCopy copied the version before the writes, unencrypted")
        var wrongKey = configuration
        wrongKey.encryptionKey = Data(repeating: 1, count: 64)
        wrongKey.directory = copy
        XCTAssertThrowsError(try Database(configuration: wrongKey)) { XCTAssertEqual(($0 as? StrataError)?.code, .invalidKey) }
    }
}
