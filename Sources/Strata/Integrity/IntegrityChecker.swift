import Foundation
import StrataStorage

// The object-level integrity check: reads one snapshot's stored bytes (the catalog, every
// object record, the backlink records and secondary-index entries) and compares them with one another.
// It uses no model class: records are self-describing (RecordCodec.swift), and the catalog
// names the classes and their property ids.
//
// Passes, in order:
//   1. the catalog (keyspace 0) and which keyspaces hold records (IntegrityChecker.swift);
//   2. the secondary-index entries (keyspace 2) of the properties the catalog records as
//      indexed (IntegrityChecker+Indexes.swift);
//   3. every object record: decoding, property ids, primary key, links, embedded values; it
//      gathers the backlinks and index entries the objects imply (IntegrityChecker+Objects.swift);
//   4. the backlink records (keyspace 1) against the links (IntegrityChecker+Backlinks.swift);
//   5. the index entries against the indexed values (IntegrityChecker+Indexes.swift).
//
// Nothing here traps on stored bytes: every decoding failure becomes a problem in the report.

struct IntegrityChecker {
    let snapshot: Snapshot
    var report = IntegrityReport()
    /// The catalog's classes by id.
    var classes: [UInt32: Catalog.ClassEntry] = [:]
    /// The links the object records hold: per target, the (source, top-level property) pairs.
    var expectedBacklinks: [ObjectKey: Set<Backlink>] = [:]
    /// The indexed (class id, property id) pairs the catalog records (none when its index
    /// format is not the current one).
    var indexedProperties: Set<IndexedProperty> = []
    /// Those of them that are mixed (`AnyValue`): their entries hold numbers as Doubles
    /// (`IndexKeyEncoding.mixedValue`).
    var mixedIndexedProperties: Set<IndexedProperty> = []
    /// Whether the catalog records the current index format (else the entries are not checked).
    var indexFormatIsCurrent = false
    /// The index entries' contents: each entry with each object it stands for.
    var storedIndex: Set<IndexPair> = []
    /// The index entries the objects imply: each with the object holding its value.
    var expectedIndex: Set<IndexPair> = []
    /// The objects whose record has no field for an indexed property (written before the
    /// property existed): they are listed under its default value only once changed, so the
    /// index may or may not list them.
    var objectsWithoutIndexedField: Set<ObjectProperty> = []

    struct IndexedProperty: Hashable {
        var classID: UInt32
        var propertyID: UInt32
    }

    struct ObjectProperty: Hashable {
        var object: ObjectKey
        var propertyID: UInt32
    }

    init(snapshot: Snapshot) {
        self.snapshot = snapshot
        report.sequence = snapshot.sequence
    }

    /// Runs every pass and returns the report.
    mutating func run() -> IntegrityReport {
        guard loadCatalog() else { return report }
        checkKeyspaces()
        loadIndexRecords()
        for entry in classes.values.sorted(by: { $0.id < $1.id }) where !entry.isEmbedded {
            checkObjects(of: entry)
        }
        checkBacklinkRecords()
        compareIndex()
        return report
    }

    /// Reads the catalog; false when there is nothing more to check (no catalog, or one that
    /// does not decode).
    private mutating func loadCatalog() -> Bool {
        guard snapshot.contains(ObjectFormat.catalogKey, in: ObjectFormat.catalogKeyspace) else {
            let objectKeyspaces = snapshot.keyspaces.filter { $0.rawValue >= ObjectFormat.firstClassID && snapshot.count(in: $0) > 0 }
            if objectKeyspaces.isEmpty {
                report.notes.append("no object catalog (keyspace 0, key \"catalog\"): not an object database; no object-level check applies")
            } else {
                let names = objectKeyspaces.sorted().map { String($0.rawValue) }.joined(separator: ", ")
                report.add(.catalog, "keyspaces \(names) hold records but there is no catalog (keyspace 0, key \"catalog\") to name their classes")
            }
            return false
        }
        let catalog: Catalog
        do {
            catalog = try Catalog.load(from: snapshot)
        } catch {
            report.add(.catalog, "the catalog cannot be read: \(error)")
            return false
        }
        for entry in catalog.classes {
            if entry.id < ObjectFormat.firstClassID {
                report.add(.catalog, "class \(entry.name) has id \(entry.id), in the reserved range 0…15")
            }
            if let other = classes[entry.id] {
                report.add(.catalog, "classes \(other.name) and \(entry.name) share id \(entry.id)")
                continue
            }
            let ids = entry.properties.map(\.id)
            if Set(ids).count != ids.count {
                report.add(.catalog, "class \(entry.name) lists a property id twice")
            }
            classes[entry.id] = entry
        }
        report.classesChecked = classes.count
        indexFormatIsCurrent = catalog.indexFormat == ObjectFormat.indexFormat
        if indexFormatIsCurrent {
            for entry in catalog.classes where !entry.isEmbedded {
                for property in entry.properties where property.isIndexed {
                    indexedProperties.insert(IndexedProperty(classID: entry.id, propertyID: property.id))
                    if property.code == TypeDescriptor(.any).storedCode {
                        mixedIndexedProperties.insert(IndexedProperty(classID: entry.id, propertyID: property.id))
                    }
                }
            }
        }
        return true
    }

    /// Checks that every keyspace holding records has a use: 0 the catalog, 1 backlinks,
    /// 2 indexes, 16 and up a top-level class of the catalog.
    private mutating func checkKeyspaces() {
        for keyspace in snapshot.keyspaces.sorted() where snapshot.count(in: keyspace) > 0 {
            let id = keyspace.rawValue
            let count = snapshot.count(in: keyspace)
            switch id {
            case ObjectFormat.catalogKeyspace.rawValue:
                for key in snapshot.keys(in: keyspace) where key != ObjectFormat.catalogKey {
                    report.add(.reservedKeyspace, "keyspace 0 holds key \(key), which is not the catalog")
                }
            case ObjectFormat.backlinkKeyspace.rawValue, ObjectFormat.indexKeyspace.rawValue:
                break
            case ..<ObjectFormat.firstClassID:
                report.add(.reservedKeyspace, "reserved keyspace \(id) holds \(count) record(s)")
            default:
                guard let entry = classes[id] else {
                    report.add(.unknownClass, "keyspace \(id) holds \(count) record(s) but the catalog has no class with id \(id)")
                    continue
                }
                if entry.isEmbedded {
                    report.add(.recordInEmbeddedClass, "embedded class \(entry.name) (keyspace \(id)) holds \(count) top-level record(s)")
                }
            }
        }
    }

    /// The u32 big-endian at the front of `bytes` (which hold at least 4).
    static func bigEndianUInt32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    /// How a problem names an object: `Class key` (or the class id when it is unknown).
    func describe(_ object: ObjectKey) -> String {
        "\(classes[object.classID]?.name ?? "class \(object.classID)") \(object.key)"
    }

    /// How a problem names a property of a class.
    func describe(property id: UInt32, of classID: UInt32) -> String {
        let entry = classes[classID]
        let name = entry?.properties.first { $0.id == id }?.name ?? "property \(id)"
        return "\(entry?.name ?? "class \(classID)").\(name)"
    }
}
