import Foundation
import XCTest

@testable import Strata
@_spi(Testing) import StrataStorage

/// `Database.Configuration.encryptionKey`: what an encrypted database writes, and which keys
/// open it, through the registry of open stores too.
final class EncryptedDatabaseTests: EncryptedDatabaseTestCase {
    func testAnEncryptedDatabaseRoundTripsAndHidesKeysAndValuesOnDisk() throws {
        do {
            let db = try Database(configuration: configuration(key: Self.key))
            try addNotes(0..<50, to: db)
        }
        let db = try Database(configuration: configuration(key: Self.key))
        XCTAssertEqual(notes(of: db).count, 50)
        XCTAssertEqual(db.object(ofType: SecretNote.self, forPrimaryKey: "PK-7-ZORKMID")?.body, "body-7-FROBOZZ")
        XCTAssertEqual(db.objects(SecretNote.self).where { $0.body == "body-9-FROBOZZ" }.first?.count, 9)
        XCTAssertFalse(try filesContain("ZORKMID", under: directory), "a primary key is readable on disk")
        XCTAssertFalse(try filesContain("FROBOZZ", under: directory), "a value is readable on disk")

        let plain = directory.appendingPathComponent("plain")
        let plainDB = try Database(configuration: configuration(key: nil, at: plain))
        try addNotes(0..<2, to: plainDB)
        XCTAssertTrue(try filesContain("ZORKMID", under: plain), "the search finds what a plain database holds")
        XCTAssertTrue(try filesContain("FROBOZZ", under: plain))
    }

    func testWrongMissingExtraOrShortKeysAreInvalidKeyAtOpenWhetherOrNotTheStoreIsOpen() throws {
        let plainURL = directory.appendingPathComponent("plain")
        var held: [Database]? = [
            try Database(configuration: configuration(key: Self.key)), try Database(configuration: configuration(key: nil, at: plainURL)),
        ]
        try addNotes(0..<3, to: held![0])
        for storeIsOpen in [true, false] {
            if !storeIsOpen { held = nil }
            let cases: [(Database.Configuration, String)] = [
                (configuration(key: Self.otherKey), "not the one"),
                (configuration(key: nil), "encrypted; open it with its 64-byte key"),
                (configuration(key: Self.key, at: plainURL), "not encrypted, but a key was given"),
                (configuration(key: Data(Self.key.prefix(32))), "must be 64 bytes long; this one has 32"),
            ]
            for (configuration, words) in cases {
                XCTAssertThrowsError(try Database(configuration: configuration), "open: \(storeIsOpen)") { error in
                    XCTAssertEqual((error as? StrataError)?.code, .invalidKey, "\(error)")
                    XCTAssertTrue((error as? StrataError)?.message.contains(words) == true, "\(error) does not say \(words)")
                }
            }
            var readOnly = configuration(key: Self.otherKey)
            readOnly.readOnly = true
            XCTAssertThrowsError(try Database(configuration: readOnly)) { XCTAssertEqual(($0 as? StrataError)?.code, .invalidKey) }
        }
        XCTAssertEqual(notes(of: try Database(configuration: configuration(key: Self.key))).count, 3)
    }

    func testTheIntegrityCheckOfADirectoryTakesTheKey() throws {
        let db = try Database(configuration: configuration(key: Self.key))
        try addNotes(0..<5, to: db)
        XCTAssertTrue(try Database.checkIntegrity(directory: directory, encryptionKey: Self.key).isClean)
        XCTAssertThrowsError(try Database.checkIntegrity(directory: directory)) {
            XCTAssertEqual(($0 as? StrataError)?.code, .invalidKey)
        }
    }

    func testAReadOnlyDatabaseOpensAnEncryptedOne() throws {
        let writer = try Database(configuration: configuration(key: Self.key))
        try addNotes(0..<5, to: writer)
        let expected = notes(of: writer)
        _ = consume writer
        var readOnly = configuration(key: Self.key)
        readOnly.readOnly = true
        XCTAssertEqual(notes(of: try Database(configuration: readOnly)), expected)
    }
}
