import Foundation
import StrataStorage

/// The block a ``Database/Configuration/migrationBlock`` names: called once, when a database
/// whose stored schema version is lower than the configuration's opens, with the migration and
/// the stored version.
///
/// Thread safety: `@Sendable`, as the ``Database/Configuration`` that holds it is `Sendable`:
/// it runs on whichever thread or task opens the database, so it may capture only `Sendable`
/// values (constants, a lock around a counter), not a variable of the code that made it.
public typealias MigrationBlock = @Sendable (_ migration: Migration, _ oldSchemaVersion: UInt64) -> Void

/// What a migration block works with, as Realm's `Migration`: the stored objects of each class
/// beside their new versions, and the changes a block may make (rename a property, create and
/// delete objects, delete a class's data).
///
/// A migration is one atomic commit: the new schema and every object it changes are written
/// together once the block returns, or, when the block fails (a value that does not convert,
/// a property that does not exist) or the process dies first, nothing is and the database
/// keeps its old schema and data.
///
/// Thread safety: used only inside the migration block, on the thread that opens the
/// database. Not `Sendable`.
public final class Migration {
    /// The stored classes, by name.
    let oldShapes: [String: ClassShape]
    /// The declared classes, by name.
    let newShapes: [String: ClassShape]
    /// The stored top-level objects of each class, in key order.
    var oldObjects: [String: [MigrationObject]] = [:]
    /// New top-level objects that no stored object of their class comes from (created, made
    /// from a nested dictionary, or an embedded object whose class is top-level now).
    var createdObjects: [String: [MigrationObject]] = [:]
    /// Classes whose data `deleteData(forType:)` deleted.
    var deletedClasses: Set<String> = []
    /// The properties renamed, as (class, from, to).
    var renames: [(className: String, from: String, to: String)] = []
    /// For each declared class, its new properties' positions in its stored shape.
    var matches: [String: [Int?]] = [:]
    /// The first error of the block, which fails the migration.
    private(set) var error: StrataError?

    init(oldShapes: [String: ClassShape], newShapes: [String: ClassShape]) {
        self.oldShapes = oldShapes
        self.newShapes = newShapes
    }

    /// Calls `block` with each stored object of the class named `typeName` and its new
    /// version, as Realm's `enumerateObjects(ofType:_:)`. The new object is nil when the class
    /// is no longer declared or the object was deleted. Nothing is called for a class the
    /// database does not store, nor after ``deleteData(forType:)`` deleted its objects.
    /// - Complexity: O(n) for the class's n stored objects, plus what `block` does.
    public func enumerateObjects(ofType typeName: String, _ block: (_ oldObject: MigrationObject?, _ newObject: MigrationObject?) -> Void) {
        guard !deletedClasses.contains(typeName) else { return }
        for old in oldObjects[typeName] ?? [] {
            let new = old.counterpart.flatMap { $0.isDeleted ? nil : $0 }
            block(old, new)
        }
    }

    /// Creates a new object of the class named `typeName` with the properties `value` gives
    /// (a `[String: Any]` by name, or an `[Any]` in property order; the others take their
    /// defaults), as Realm's `create(_:value:)`.
    ///
    /// An unknown class, an embedded class (embedded objects are created through their
    /// parent's property) or a value that does not convert fails the migration with
    /// ``/StrataStorage/StrataError`` `.invalidValue`; the object returned then is not written.
    /// - Returns: the new object, which the block may go on setting.
    /// - Complexity: O(p) for the value's p properties.
    @discardableResult
    public func create(_ typeName: String, value: Any = [String: Any]()) -> MigrationObject {
        guard let shape = newShapes[typeName], !shape.isEmbedded else {
            let reason = newShapes[typeName] == nil ? "is not a declared class" : "is embedded: create it through its parent"
            fail(StrataError(.invalidValue, "migration.create: \(typeName) \(reason)"))
            return MigrationObject(shape: ClassShape(name: typeName), values: [], isNew: true, storedKey: nil, migration: self)
        }
        do {
            return try makeObject(shape, from: value, at: typeName)
        } catch {
            fail(error)
            return MigrationObject(shape: shape, values: shape.defaultValues, isNew: true, storedKey: nil, migration: self)
        }
    }

    /// Deletes a new object (given the old one, its new version), as Realm's `delete(_:)`:
    /// it is not written, and links to it are removed.
    /// - Complexity: O(1).
    public func delete(_ object: MigrationObject) {
        (object.isNew ? object : object.counterpart)?.isDeleted = true
    }

    /// Deletes every object of the class named `typeName`, stored or created in this
    /// migration; a class the open does not declare leaves the schema too. As Realm's
    /// `deleteData(forType:)`.
    /// - Returns: whether the database stored the class or the migration had created objects
    ///   of it.
    /// - Complexity: O(n) for the class's n objects.
    @discardableResult
    public func deleteData(forType typeName: String) -> Bool {
        let existed = oldShapes[typeName] != nil || !(createdObjects[typeName] ?? []).isEmpty
        for old in oldObjects[typeName] ?? [] { old.counterpart?.isDeleted = true }
        for created in createdObjects[typeName] ?? [] { created.isDeleted = true }
        if existed { deletedClasses.insert(typeName) }
        return existed
    }

    /// Moves the stored values of the property `oldName` of class `typeName` to the declared
    /// property `newName`, as Realm's `renameProperty(onType:from:to:)`. The property keeps
    /// its stored index.
    ///
    /// As in Realm, the declared property has the stored one's type, or is its optional form
    /// (a required property may become optional, not the reverse). Strata also takes a type
    /// change that keeps every value: an integer made wider (`Int8` → `Int16` → `Int32` →
    /// `Int`/`Int64`), and a list, set or map whose elements change so. Any other type change
    /// (a narrower integer, `Int` to `String`, an optional property made required) would lose
    /// values: rename within the same type, then convert in ``enumerateObjects(ofType:_:)``.
    ///
    /// A class or property that does not exist, a stored property that is still declared, or a
    /// type change that loses values fails the migration with ``/StrataStorage/StrataError`` `.invalidValue`
    /// naming the class and property: the open throws it and nothing is written.
    /// - Complexity: O(n) for the class's n stored objects.
    public func renameProperty(onType typeName: String, from oldName: String, to newName: String) {
        guard let old = oldShapes[typeName]?[oldName], let new = newShapes[typeName]?[newName] else {
            return fail(StrataError(.invalidValue, "renameProperty: \(typeName).\(oldName) is not stored or \(typeName).\(newName) is not declared"))
        }
        guard newShapes[typeName]?[oldName] == nil, oldShapes[typeName]?[newName] == nil else {
            return fail(StrataError(.invalidValue, "renameProperty: \(typeName).\(oldName) → \(newName): both names must not exist on both sides"))
        }
        let what = "renameProperty: \(typeName).\(oldName) → \(newName)"
        guard old.type.convertsLosslessly(to: new.type) else {
            return fail(StrataError(
                .invalidValue,
                "\(what) would change its type from \(old.type) to \(new.type), which loses values; rename it with the same type (or a required one to optional, an integer to a wider one) and convert the values in enumerateObjects"))
        }
        guard let oldIndex = oldShapes[typeName]?.index(of: oldName), let newIndex = newShapes[typeName]?.index(of: newName) else { return }
        for object in oldObjects[typeName] ?? [] {
            guard let counterpart = object.counterpart else { continue }
            guard let value = converted(object.values[oldIndex], from: old.type, to: new.type) else {
                return fail(StrataError(.invalidValue, "\(what): a stored value does not convert to \(new.type)"))
            }
            counterpart.values[newIndex] = value
        }
        renames.append((typeName, oldName, newName))
    }

    /// Records `error` as the migration's failure, unless one is recorded already.
    func fail(_ error: any Error) {
        guard self.error == nil else { return }
        self.error = error as? StrataError ?? StrataError(.invalidValue, "\(error)")
    }
}

extension ClassShape {
    /// A shape with no properties, for an object of a class that does not exist.
    init(name: String) {
        self.name = name
        isEmbedded = false
        properties = []
        defaults = []
    }

    /// The position of the property named `name`.
    func index(of name: String) -> Int? { properties.firstIndex { $0.name == name } }

    /// The default of the property at `index`, as a migration value.
    func defaultValue(at index: Int) -> MigrationValue {
        MigrationValue.decoding(defaults[index], resolveLink: { _ in nil }, embedded: { _, _ in nil })
    }

    /// The defaults as migration values.
    var defaultValues: [MigrationValue] { defaults.indices.map(defaultValue(at:)) }
}
