/// The objects that link to this one through a given property: the inverse side of a
/// relationship, kept up to date automatically and read-only.
///
/// ```swift
/// final class Dog: Object {
///     @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
/// }
/// rex.owners.first?.name
/// ```
///
/// Read from the database's persistent backlink index (not a scan): O(number of links).
///
/// Thread safety: as the object that owns it.
public final class LinkingObjects<Element: Object>: RandomAccessCollection {
    /// The property of `Element` whose links this collection inverts.
    public let propertyName: String
    let binding: CollectionBinding?

    /// The objects of `type` that link here through `propertyName` (empty until managed).
    public init(fromType type: Element.Type, property propertyName: String) {
        self.propertyName = propertyName
        binding = nil
    }

    init(propertyName: String, binding: CollectionBinding) {
        self.propertyName = propertyName
        self.binding = binding
    }

    private var sources: [ObjectKey] {
        guard let binding, let origin = binding.property.linkingOrigin else { return [] }
        return binding.database.linkingSources(
            of: binding.owner.key, originClassID: origin.schema.classID, propertyID: origin.property.propertyID)
    }

    public var startIndex: Int { 0 }
    /// The number of linking objects.
    public var endIndex: Int { sources.count }

    /// The linking object at `position`.
    public subscript(position: Int) -> Element {
        let key = sources[position]
        guard let binding, let origin = binding.property.linkingOrigin else { preconditionFailure("unmanaged LinkingObjects are empty") }
        return binding.database.materialize(key, schema: origin.schema) as! Element
    }
}

extension LinkingObjects: LinkingObjectsProperty {
    static var originClassName: String { Element.className() }
}

extension LinkingObjects: _Persistable {
    public static var _strataType: _TypeDescriptor {
        // The property name comes from the declaration; the schema fills it in.
        TypeDescriptor(.linkingObjects(className: Element.className(), property: ""))
    }
    public static func _strataDefault() -> LinkingObjects { LinkingObjects(fromType: Element.self, property: "") }
    public static func _strataRead(_ value: _FieldValue, _ context: Database?) -> LinkingObjects { _strataDefault() }
    public func _strataWrite(_ context: Database?) throws -> _FieldValue { .null }
    public static func _strataBind(owner: _ObjectState, index: Int) -> LinkingObjects? {
        guard case .linkingObjects(_, let name) = owner.schema.properties[index].type.type else { return nil }
        return LinkingObjects(propertyName: name, binding: CollectionBinding(owner: owner, index: index))
    }
}

extension Persisted {
    /// The inverse of `originProperty` on `O`: the `O` objects whose `originProperty` links to
    /// this object.
    public init<O: Object>(originProperty: String) where Value == LinkingObjects<O> {
        self.init(value: LinkingObjects(fromType: O.self, property: originProperty), options: PersistedOptions())
    }
}
