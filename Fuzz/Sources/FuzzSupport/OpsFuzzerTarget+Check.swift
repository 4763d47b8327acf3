// How OpsRun compares the database with the model: every object, every property (read back as
// pool indexes), every LinkingObjects, and the last query's results.

import Foundation
import Strata

extension OpsRun {
    /// Every object's values in `database` (default: the live one), by item id and note serial.
    func state(of database: Database? = nil) -> (items: [Int: OpsValue], notes: [Int: OpsValue]) {
        let db = database ?? db
        var items: [Int: OpsValue] = [:]
        let storedItems = db.objects(OpsItem.self)
        for item in storedItems {
            if items.updateValue(read(item, "item \(item.id)"), forKey: item.id) != nil { fail("item \(item.id) appears twice") }
        }
        if storedItems.count != items.count { fail("objects(OpsItem.self).count is \(storedItems.count), iteration yields \(items.count)") }
        var notes: [Int: OpsValue] = [:]
        let storedNotes = db.objects(OpsNote.self)
        for note in storedNotes {
            if notes.updateValue(read(note, "note #\(note.serial)"), forKey: note.serial) != nil { fail("note #\(note.serial) appears twice") }
        }
        if storedNotes.count != notes.count { fail("objects(OpsNote.self).count is \(storedNotes.count), iteration yields \(notes.count)") }
        return (items, notes)
    }

    /// Checks that the database holds `model`: objects, values, backlinks, the last query.
    func check(_ model: OpsModel) {
        let (items, notes) = state()
        if let failure = db.readFailure { fail("a read found damage: \(failure)") }
        compare(items, model.items, "item")
        compare(notes, model.notes, "note #")
        for item in db.objects(OpsItem.self) { checkBacklinks(item, model) }
        if let (index, itemIDs, serials) = lastQuery {
            let name = Array(OpsPools.strings[index].utf8)
            let expectedItems = Set(model.items.filter { Array(OpsPools.strings[$0.value.name].utf8) == name }.keys)
            let expectedNotes = Set(model.notes.filter { Array(OpsPools.strings[$0.value.name].utf8) == name }.keys)
            if itemIDs != expectedItems || serials != expectedNotes {
                fail("name == \(OpsPools.strings[index].debugDescription) finds items \(itemIDs.sorted()) and notes \(serials.sorted()); the model holds \(expectedItems.sorted()) and \(expectedNotes.sorted())")
            }
            lastQuery = nil
        }
    }

    func compare(_ stored: [Int: OpsValue], _ expected: [Int: OpsValue], _ kind: String) {
        guard stored != expected else { return }
        for key in Set(stored.keys).union(expected.keys).sorted() where stored[key] != expected[key] {
            fail("\(kind)\(key) differs:\n  database \(stored[key].map { "\($0)" } ?? "missing")\n  model    \(expected[key].map { "\($0)" } ?? "missing")")
        }
    }

    /// `object`'s values as pool indexes; a value outside the pools is a finding.
    func read(_ object: OpsObject, _ name: String) -> OpsValue {
        var value = OpsValue()
        value.name = index(of: object.name, name)
        value.count = index(OpsPools.ints, object.count, "count", name)
        value.weight = index(OpsPools.doubles.map(\.bitPattern), object.weight.bitPattern, "weight", name)
        value.extra = index(of: object.extra, name)
        value.link = object.link?.id
        value.links = object.links.map(\.id)
        value.spot = object.spot.map { read($0, name) }
        value.spots = object.spots.map { read($0, name) }
        for (key, score) in object.scores {
            let keyIndex = index(of: key, name)
            if value.scores.updateValue(index(OpsPools.ints, score, "score", name), forKey: keyIndex) != nil {
                fail("\(name): map key \(key.debugDescription) appears twice")
            }
        }
        if object.scores.count != value.scores.count { fail("\(name): scores.count is \(object.scores.count), iteration yields \(value.scores.count)") }
        return value
    }

    func read(_ spot: OpsSpot, _ name: String) -> OpsSpotValue {
        OpsSpotValue(label: index(of: spot.label, name), level: index(OpsPools.ints, spot.level, "level", name),
                     item: spot.item?.id)
    }

    func index<T: Equatable>(_ pool: [T], _ value: T, _ property: String, _ name: String) -> Int {
        guard let index = pool.firstIndex(of: value) else { fail("\(name): \(property) \(value) is no value the harness wrote") }
        return index
    }

    func index(of string: String, _ name: String) -> Int {
        index(OpsPools.strings.map { Array($0.utf8) }, Array(string.utf8), "string \(string.debugDescription)", name)
    }

    func index(of value: AnyValue, _ name: String) -> Int {
        guard let index = OpsPools.anyValues.firstIndex(where: { same($0, value) }) else {
            fail("\(name): extra \(value) is no value the harness wrote")
        }
        return index
    }

    func checkBacklinks(_ item: OpsItem, _ model: OpsModel) {
        let (linkers, noters, listers) = model.linkers(of: item.id)
        let linkedBy = item.linkedBy.map(\.id)
        let notedBy = item.notedBy.map(\.serial)
        let listedBy = item.listedBy.map(\.id)
        if Set(linkedBy) != linkers || linkedBy.count != linkers.count {
            fail("item \(item.id).linkedBy is \(linkedBy), the model \(linkers.sorted())")
        }
        if Set(notedBy) != noters || notedBy.count != noters.count {
            fail("item \(item.id).notedBy is \(notedBy), the model \(noters.sorted())")
        }
        if Set(listedBy) != Set(listers.keys) {
            fail("item \(item.id).listedBy is \(listedBy), the model \(listers.sorted { $0.key < $1.key })")
        }
    }
}

/// Whether two AnyValues hold the same stored value: strings by bytes, doubles and floats by
/// bits, containers element by element.
func same(_ left: AnyValue, _ right: AnyValue) -> Bool {
    switch (left, right) {
    case (.none, .none): return true
    case (.int(let a), .int(let b)): return a == b
    case (.bool(let a), .bool(let b)): return a == b
    case (.float(let a), .float(let b)): return a.bitPattern == b.bitPattern
    case (.double(let a), .double(let b)): return a.bitPattern == b.bitPattern
    case (.string(let a), .string(let b)): return Array(a.utf8) == Array(b.utf8)
    case (.data(let a), .data(let b)): return a == b
    case (.date(let a), .date(let b)): return a.timeIntervalSince1970.bitPattern == b.timeIntervalSince1970.bitPattern
    case (.objectId(let a), .objectId(let b)): return a == b
    case (.decimal128(let a), .decimal128(let b)): return a.description == b.description
    case (.uuid(let a), .uuid(let b)): return a == b
    case (.list(let a), .list(let b)): return a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
    case (.map(let a), .map(let b)):
        return a.count == b.count && a.allSatisfy { key, value in b[key].map { same(value, $0) } ?? false }
    default: return false
    }
}
