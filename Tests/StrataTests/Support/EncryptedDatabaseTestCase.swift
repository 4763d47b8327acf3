import Foundation
import XCTest

@testable import Strata

/// A model whose primary key and indexed value are easy to search for in raw bytes.
final class SecretNote: Object {
    @Persisted(primaryKey: true) var code: String
    @Persisted(indexed: true) var body: String
    @Persisted var count: Int
}

/// Keys, a model and helpers for the tests of encrypted databases and copies.
class EncryptedDatabaseTestCase: DatabaseTestCase {
    static let key = Data((0..<64).map { UInt8($0) })
    static let otherKey = Data((0..<64).map { UInt8(255 - $0) })

    func configuration(key: Data?, at url: URL? = nil) -> Database.Configuration {
        var configuration = Database.Configuration(directory: url ?? directory, objectTypes: [SecretNote.self, Dog.self])
        configuration.encryptionKey = key
        return configuration
    }

    func addNotes(_ range: Range<Int>, to db: Database) throws {
        try db.write {
            for i in range {
                let note = SecretNote()
                note.code = "PK-\(i)-ZORKMID"
                note.body = "body-\(i)-FROBOZZ"
                note.count = i
                try db.add(note)
            }
        }
    }

    /// Every note of `db` as (code, body, count), sorted by code.
    func notes(of db: Database) -> [String] {
        db.objects(SecretNote.self).map { "\($0.code)|\($0.body)|\($0.count)" }.sorted()
    }

    /// Whether `needle` occurs in any file under `url`.
    func filesContain(_ needle: String, under url: URL) throws -> Bool {
        let names = try FileManager.default.contentsOfDirectory(atPath: url.path)
        return try names.contains { name in
            let data = try Data(contentsOf: url.appendingPathComponent(name))
            return data.range(of: Data(needle.utf8)) != nil
        }
    }
}
