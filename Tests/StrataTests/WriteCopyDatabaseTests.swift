import Foundation
import XCTest

@testable import Strata
@_spi(Testing) import StrataStorage

/// `Database.writeCopy(toDirectory:encryptionKey:)`.
final class WriteCopyDatabaseTests: EncryptedDatabaseTestCase {
    var copyURL: URL { directory.appendingPathComponent("copy") }

    func testACopyTakenWhileAnotherThreadCommitsIsItsVersionObjectByObject() throws {
        let db = try Database(configuration: configuration(key: nil))
        try addNotes(0..<300, to: db)
        let frozen = db.freeze()
        let expected = notes(of: frozen)
        let configuration = configuration(key: nil)
        let stop = Locked(false)
        let committed = Locked(0)
        let writer = Thread {
            guard let other = try? Database(configuration: configuration) else { return }
            var next = 1000
            while !stop.withLock({ $0 }) {
                try? other.write {
                    if let first = other.objects(SecretNote.self).first { first.count += 1 }
                    let note = SecretNote()
                    note.code = "new-\(next)"
                    try other.add(note)
                }
                next += 1
                committed.withLock { $0 += 1 }
            }
        }
        writer.start()
        while committed.withLock({ $0 }) < 3 { usleep(100) }
        try frozen.writeCopy(toDirectory: copyURL, encryptionKey: Self.key)
        let during = committed.withLock { $0 }
        while committed.withLock({ $0 }) < during + 2 { usleep(100) }
        stop.withLock { $0 = true }
        while !writer.isFinished { usleep(100) }

        let copy = try Database(configuration: self.configuration(key: Self.key, at: copyURL))
        XCTAssertEqual(notes(of: copy), expected)
        XCTAssertNotEqual(notes(of: try Database(configuration: configuration)), expected, "the writer changed the original")
        XCTAssertThrowsError(try Database(configuration: self.configuration(key: nil, at: copyURL))) {
            XCTAssertEqual(($0 as? StrataError)?.code, .invalidKey)
        }
    }

    func testALiveDatabaseCopiesItsLatestCommitAndTheCopyMayDropTheKey() throws {
        let db = try Database(configuration: configuration(key: Self.key))
        try addNotes(0..<40, to: db)
        try db.write {
            try db.delete(try XCTUnwrap(db.object(ofType: SecretNote.self, forPrimaryKey: "PK-3-ZORKMID")))
        }
        try db.writeCopy(toDirectory: copyURL, encryptionKey: nil)
        let copy = try Database(configuration: configuration(key: nil, at: copyURL))
        XCTAssertEqual(notes(of: copy), notes(of: db))
        XCTAssertNil(copy.object(ofType: SecretNote.self, forPrimaryKey: "PK-3-ZORKMID"))
        XCTAssertEqual(copy.objects(SecretNote.self).where { $0.body == "body-5-FROBOZZ" }.count, 1, "indexes are copied")
        try copy.write { try copy.add(Dog()) }
        XCTAssertEqual(copy.objects(Dog.self).count, 1, "the copy is writable")
    }

    func testACopyInsideAWriteLeavesOutItsUncommittedChanges() throws {
        let db = try Database(configuration: configuration(key: nil))
        try addNotes(0..<4, to: db)
        let before = notes(of: db)
        try db.write {
            try addNotesInWrite(10..<12, to: db)
            try db.writeCopy(toDirectory: copyURL, encryptionKey: Self.otherKey)
        }
        XCTAssertEqual(notes(of: try Database(configuration: configuration(key: Self.otherKey, at: copyURL))), before)
    }

    private func addNotesInWrite(_ range: Range<Int>, to db: Database) throws {
        for i in range {
            let note = SecretNote()
            note.code = "in-write-\(i)"
            try db.add(note)
        }
    }

    func testACopyOfAnInMemoryDatabaseLandsOnTheDisk() throws {
        let db = try Database(configuration: .init(inMemoryIdentifier: "copied-\(UUID().uuidString)", objectTypes: [Dog.self]))
        try db.write {
            let dog = Dog()
            dog.name = "Rex"
            try db.add(dog)
        }
        try db.writeCopy(toDirectory: copyURL, encryptionKey: nil)
        XCTAssertTrue(FileManager.default.fileExists(atPath: copyURL.appendingPathComponent("MANIFEST").path))
        let copy = try Database(configuration: .init(directory: copyURL, objectTypes: [Dog.self]))
        XCTAssertEqual(copy.objects(Dog.self).map(\.name), ["Rex"])
    }

    func testCopyingOverAnExistingDatabaseFailsAndOverwritesNothing() throws {
        let db = try Database(configuration: configuration(key: nil))
        try addNotes(0..<4, to: db)
        do {
            let existing = try Database(configuration: configuration(key: nil, at: copyURL))
            try addNotes(100..<102, to: existing)
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: copyURL.path).sorted()
        let before = try names.map { try Data(contentsOf: copyURL.appendingPathComponent($0)) }
        XCTAssertThrowsError(try db.writeCopy(toDirectory: copyURL, encryptionKey: nil)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidArgument, "\(error)")
        }
        XCTAssertThrowsError(try db.writeCopy(toDirectory: directory, encryptionKey: nil), "its own directory")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: copyURL.path).sorted(), names)
        XCTAssertEqual(try names.map { try Data(contentsOf: copyURL.appendingPathComponent($0)) }, before)
        XCTAssertEqual(notes(of: try Database(configuration: configuration(key: nil, at: copyURL))).count, 2)
    }
}
