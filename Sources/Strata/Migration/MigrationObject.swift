import StrataStorage

/// An object inside a migration, read and written by property name, as Realm's
/// `MigrationObject`: the old object (as stored, read-only) or the new one (as the declared
/// classes store it; what the block sets is written when the migration ends).
///
/// ```swift
/// migration.enumerateObjects(ofType: "Person") { oldObject, newObject in
///     let first = oldObject?["firstName"] as? String ?? ""
///     newObject?["name"] = first
/// }
/// ```
///
/// Values read as Swift values: `Int` for every integer
/// width, a `MigrationObject` for a link or an embedded object, an array for a list or a set,
/// a dictionary for a map, nil for null. A collection is a copy: to change one, set the
/// property to a new array or dictionary. Setting converts as `init(value:)` does (an `Int`
/// for an `Int32` property; a dictionary or array for an embedded object or a new linked one).
///
/// A name the class does not have, a value of the wrong type, or a write to an old object does
/// not trap: the migration fails with ``/StrataStorage/StrataError`` `.invalidValue` naming class and
/// property, and nothing is written.
///
/// Thread safety: only inside the migration block, on the thread that opens the database.
@dynamicMemberLookup
public final class MigrationObject {
    /// The class's name.
    public let className: String
    let shape: ClassShape
    /// Values by `shape` property index.
    var values: [MigrationValue]
    /// Whether this is a new object (writable, written at the end) or an old one.
    let isNew: Bool
    /// The stored key of an old top-level object, or of the old object a new one comes from.
    let storedKey: ObjectKey?
    /// An old object's new counterpart (nil for a class the open does not declare).
    var counterpart: MigrationObject?
    /// Set by `Migration.delete(_:)` (a new object) or `deleteData(forType:)`.
    var isDeleted = false
    /// The key a new top-level object is written under (set by `MigrationWriter`).
    var newKey: ObjectKey?
    private weak var migration: Migration?

    init(shape: ClassShape, values: [MigrationValue], isNew: Bool, storedKey: ObjectKey?, migration: Migration) {
        className = shape.name
        self.shape = shape
        self.values = values
        self.isNew = isNew
        self.storedKey = storedKey
        self.migration = migration
    }

    /// The value of the property named `propertyName` (nil for null).
    ///
    /// Setting it (a new object only) stores the value converted to the property's type.
    /// - Complexity: O(p) for p properties, plus the value's size.
    public subscript(propertyName: String) -> Any? {
        get {
            guard let index = propertyIndex(propertyName) else { return nil }
            return values[index].swiftValue(mixed: shape.properties[index].type.type == .any)
        }
        set {
            guard let index = propertyIndex(propertyName), let migration else { return }
            guard isNew else {
                migration.fail(StrataError(.invalidValue, "\(className).\(propertyName): the old object is read-only; set the new one"))
                return
            }
            let property = shape.properties[index]
            do {
                values[index] = try migration.value(newValue, for: property.type, at: "\(className).\(propertyName)")
            } catch {
                migration.fail(error)
            }
        }
    }

    /// The value of a property by its name as a member (`oldObject.age`), as ``subscript(_:)``.
    public subscript(dynamicMember propertyName: String) -> Any? {
        get { self[propertyName] }
        set { self[propertyName] = newValue }
    }

    /// The names of the object's properties, in order.
    public var propertyNames: [String] { shape.properties.map(\.name) }

    private func propertyIndex(_ name: String) -> Int? {
        if let index = shape.properties.firstIndex(where: { $0.name == name }) { return index }
        migration?.fail(StrataError(.invalidValue, "\(className) has no property '\(name)'\(isNew ? "" : " in the stored schema")"))
        return nil
    }
}
