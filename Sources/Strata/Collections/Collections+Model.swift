// The collections as the model's reflection and coding see them: types that exist only to be
// stored (ObjectSchema.swift), and elements or entries for `Codable` (ObjectBase+Codable.swift).

extension List: PersistedOnly {}
extension MutableSet: PersistedOnly {}
extension Map: PersistedOnly {}
extension LinkingObjects: PersistedOnly {}

extension List: EncodableElements { var elementsForCoding: [Any] { map { $0 } } }
extension MutableSet: EncodableElements { var elementsForCoding: [Any] { map { $0 } } }
extension Map: EncodableEntries { var entriesForCoding: [(String, Any)] { map { ($0.key._strataMapKey, $0.value as Any) } } }
