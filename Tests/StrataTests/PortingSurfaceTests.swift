import Foundation
import StrataStorage
import XCTest

@testable import Strata

/// The Realm calls a porting user reaches for: `AnyValue`'s typed
/// accessors (Realm's `AnyRealmValue.intValue`…) and `MutableSet`'s `isSubset(of:)` and
/// `intersects(_:)` (RealmSwift MutableSetTests `testIsSubset`, `testIntersects`).
final class PortingSurfaceTests: DatabaseTestCase {
    func testAnyValueAccessorsAnswerOnlyForTheirType() {
        let id = ObjectId.generate()
        XCTAssertEqual(AnyValue.int(3).intValue, 3)
        XCTAssertNil(AnyValue.int(3).doubleValue, "no conversion, as Realm")
        XCTAssertEqual(AnyValue.string("a").stringValue, "a")
        XCTAssertNil(AnyValue.none.stringValue)
        XCTAssertEqual(AnyValue.bool(true).boolValue, true)
        XCTAssertEqual(AnyValue.double(1.5).doubleValue, 1.5)
        XCTAssertEqual(AnyValue.float(2.5).floatValue, 2.5)
        XCTAssertEqual(AnyValue.objectId(id).objectIdValue, id)
        XCTAssertEqual(AnyValue.data(Data([1])).dataValue, Data([1]))
        XCTAssertEqual(AnyValue.date(Date(timeIntervalSince1970: 5)).dateValue, Date(timeIntervalSince1970: 5))
        XCTAssertEqual(AnyValue.list([.int(1)]).listValue, [.int(1)])
        XCTAssertEqual(AnyValue.map(["k": .int(1)]).dictionaryValue, ["k": .int(1)])
        XCTAssertNil(AnyValue.int(1).listValue)
        let dog = NDog()
        XCTAssertTrue(AnyValue.object(dog).objectValue(NDog.self) === dog)
        XCTAssertNil(AnyValue.object(dog).objectValue(NPerson.self))
    }

    func testSetAlgebraOnManagedAndUnmanagedSets() throws {
        let db = try open([VHolder.self, VTag.self, NDog.self, NPerson.self])
        let holder = VHolder()
        holder.name = "h"
        holder.words.formUnion(["a", "b"])
        XCTAssertTrue(holder.words.isSubset(of: ["a", "b", "c"]))
        XCTAssertFalse(holder.words.isSubset(of: ["a"]))
        try db.write { try db.add(holder) }
        XCTAssertTrue(holder.words.isSubset(of: ["b", "a"]))
        XCTAssertFalse(holder.words.isSubset(of: ["b", "c"]))
        XCTAssertTrue(holder.words.intersects(["z", "b"]))
        XCTAssertFalse(holder.words.intersects(["z", "y"]))
        XCTAssertFalse(holder.words.intersects([String]()))
        XCTAssertTrue(MutableSet<String>().isSubset(of: [String]()), "the empty set is a subset of any set")

        let ann = NPerson(), rex = NDog(), fido = NDog()
        (ann.name, rex.name, fido.name) = ("Ann", "Rex", "Fido")
        try db.write {
            ann.pals.insert(rex)
            try db.add(ann)
            try db.add(fido)
        }
        let other = NPerson()
        other.name = "Bob"
        try db.write {
            try db.add(other)
            other.pals.formUnion([rex, fido])
        }
        XCTAssertTrue(ann.pals.isSubset(of: other.pals), "managed objects compare by identity")
        XCTAssertFalse(other.pals.isSubset(of: ann.pals))
        XCTAssertTrue(other.pals.intersects(ann.pals))
    }

    /// RealmSwift MutableSetTests `testFormUnion`, `testFormIntersection`, `testSubtract`, on a
    /// managed set of values and of objects (objects compared by identity: another accessor of
    /// a stored object is that object).
    func testFormUnionIntersectionAndSubtractOnManagedSets() throws {
        let db = try open([VHolder.self, VTag.self, NDog.self, NPerson.self])
        let holder = VHolder()
        holder.name = "h"
        try db.write {
            try db.add(holder)
            holder.words.formUnion(["a", "b", "c", "a"])
        }
        XCTAssertEqual(Set(holder.words), ["a", "b", "c"])
        try db.write { holder.words.formIntersection(["b", "c", "z"]) }
        XCTAssertEqual(Set(holder.words), ["b", "c"])
        try db.write { holder.words.subtract(["c", "y"]) }
        XCTAssertEqual(Array(holder.words), ["b"])

        let ann = NPerson(value: ["name": "Ann", "pals": [["name": "Rex"], ["name": "Fido"], ["name": "Max"]]])
        try db.write { try db.add(ann) }
        let rex = try XCTUnwrap(db.object(ofType: NDog.self, forPrimaryKey: "Rex"))
        let max = try XCTUnwrap(db.object(ofType: NDog.self, forPrimaryKey: "Max"))
        try db.write { ann.pals.formIntersection([rex, max]) }
        XCTAssertEqual(Set(ann.pals.map(\.name)), ["Rex", "Max"])
        try db.write { ann.pals.subtract([db.object(ofType: NDog.self, forPrimaryKey: "Rex")!]) }
        XCTAssertEqual(ann.pals.map(\.name), ["Max"])
    }

    /// RealmSwift MapTests `testKeys`, `testValues`: keys in order, values in the keys' order,
    /// managed or not.
    func testMapKeysAndValuesFollowTheKeyOrder() throws {
        let db = try open([VHolder.self, VTag.self, NDog.self, NPerson.self])
        let holder = VHolder(value: ["name": "h", "counts": ["b": 2, "a": 1, "c": 3]])
        XCTAssertEqual(holder.counts.keys, ["a", "b", "c"])
        XCTAssertEqual(holder.counts.values, [1, 2, 3])
        try db.write { try db.add(holder) }
        XCTAssertEqual(holder.counts.keys, ["a", "b", "c"])
        XCTAssertEqual(holder.counts.values, [1, 2, 3])
        try db.write { holder.counts["a"] = nil }
        XCTAssertEqual(holder.counts.keys, ["b", "c"])
        XCTAssertEqual(holder.counts.values, [2, 3])
    }
}
