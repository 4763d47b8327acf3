/// What the record codec needs to know of a class to write and read its records: which
/// properties are stored under which ids, and what a property the record does not hold reads
/// as. ``ObjectSchema`` is the one conformance; the codec names only this, so records sit below
/// the schema.
protocol RecordLayout {
    /// The stored properties, in the order a record holds them: each one's property id and its
    /// index among the class's properties.
    var storedFieldLayout: [(id: UInt32, index: Int)] { get }
    /// Each property's value when a record does not hold it, by property index.
    var defaultFields: [FieldValue] { get }
    /// The index of the property stored under `id`; nil for an id the class does not have.
    func propertyIndex(forID id: UInt32) -> Int?
}
