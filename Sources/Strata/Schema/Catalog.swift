import Foundation
import StrataStorage

// The catalog: the stable ids of classes and properties, stored as JSON under
// `ObjectFormat.catalogKey` (ObjectFormat.swift has every keyspace) and committed in the same
// transaction as the first objects that need them. Class ids are keyspaces.
// A property keeps its id for ever, so adding one never rewrites old records and a removed
// one's fields are skipped.

struct Catalog: Codable, Equatable {
    struct ClassEntry: Codable, Equatable {
        var name: String
        var id: UInt32
        var isEmbedded: Bool
        var properties: [PropertyEntry]
        var nextPropertyID: UInt32
    }

    struct PropertyEntry: Codable, Equatable {
        var name: String
        var id: UInt32
        /// The type's stored code (`TypeDescriptor.storedCode`).
        var code: String
        var isPrimaryKey: Bool
        /// Whether keyspace 2 holds the property's secondary index, complete, in the catalog's
        /// `indexFormat`. Written only when true.
        var isIndexed = false

        private enum CodingKeys: String, CodingKey { case name, id, code, isPrimaryKey, isIndexed, type }

        init(name: String, id: UInt32, code: String, isPrimaryKey: Bool) {
            self.name = name
            self.id = id
            self.code = code
            self.isPrimaryKey = isPrimaryKey
        }

        /// Reads a property, also from a catalog that kept its type's description (`type`)
        /// instead of its code.
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            id = try container.decode(UInt32.self, forKey: .id)
            isPrimaryKey = try container.decode(Bool.self, forKey: .isPrimaryKey)
            isIndexed = try container.decodeIfPresent(Bool.self, forKey: .isIndexed) ?? false
            if let code = try container.decodeIfPresent(String.self, forKey: .code) {
                self.code = code
            } else {
                code = TypeDescriptor.storedCode(fromDescription: try container.decode(String.self, forKey: .type))
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(id, forKey: .id)
            try container.encode(code, forKey: .code)
            try container.encode(isPrimaryKey, forKey: .isPrimaryKey)
            if isIndexed { try container.encode(isIndexed, forKey: .isIndexed) }
        }
    }

    var schemaVersion: UInt64 = 0
    var classes: [ClassEntry] = []
    var nextClassID: UInt32 = ObjectFormat.firstClassID
    /// The format of the secondary-index entries in keyspace 2 (`ObjectFormat.indexFormat`);
    /// nil in a catalog written before formats were numbered, whose index records are of
    /// format 1 (one record per value, listing object keys) and are not read.
    var indexFormat: UInt32?

    /// Whether the catalog records the index of class `classID`'s property `propertyID` as
    /// complete in the current format.
    func hasCurrentIndex(classID: UInt32, propertyID: UInt32) -> Bool {
        guard indexFormat == ObjectFormat.indexFormat else { return false }
        return classes.first { $0.id == classID }?.properties.first { $0.id == propertyID }?.isIndexed ?? false
    }

    static func load(from snapshot: Snapshot) throws -> Catalog {
        guard let bytes = try snapshot.value(for: ObjectFormat.catalogKey, in: ObjectFormat.catalogKeyspace) else { return Catalog() }
        do {
            return try JSONDecoder().decode(Catalog.self, from: Data(bytes))
        } catch {
            throw StrataError(.corruption, "the schema catalog does not decode: \(error)")
        }
    }

    func encoded() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array((try? encoder.encode(self)) ?? Data())
    }
}
