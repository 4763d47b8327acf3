// Untyped values into new unmanaged collections (the rules: Persistable+Conversion.swift). A
// collection given as a value is copied, never shared: the new object gets its own.

extension List {
    public static func _strataConvert(_ value: Any) throws -> List {
        List(try convertElements(value, to: Element.self, collection: "List<\(Element._strataType)>"))
    }
}

extension MutableSet {
    public static func _strataConvert(_ value: Any) throws -> MutableSet {
        let set = MutableSet()
        set.formUnion(try convertElements(value, to: Element.self, collection: "MutableSet<\(Element._strataType)>"))
        return set
    }
}

extension Map {
    public static func _strataConvert(_ value: Any) throws -> Map {
        let entries: [(String, Any)]
        if let dictionary = value as? [String: Any] {
            entries = dictionary.map { ($0.key, $0.value) }
        } else if let map = value as? Map {
            entries = map.map { ($0.key._strataMapKey, $0.value as Any) }
        } else {
            throw StrataError(.invalidValue, "expected a Map or a [String: Any] dictionary, got \(describeGiven(value))")
        }
        let map = Map()
        for (key, entry) in entries {
            do {
                map[Key(_strataMapKey: key)] = try Value._strataConvert(entry)
            } catch {
                throw StrataError.inContext("key '\(key)'", error)
            }
        }
        return map
    }
}
