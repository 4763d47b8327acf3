import StrataStorage

/// Turns a key path such as `\Dog.name` into the property it names: the key path is applied
/// to a tracer object whose `@Persisted` properties record that they were read. Answers are
/// cached per key path.
///
/// Thread-safe: the cache sits behind a lock; each trace uses its own tracer object.
final class KeyPathTracer {
    var visited: [Int] = []

    private static let cache = Locked<[AnyKeyPath: [Int]]>([:])

    /// The property indices a key path reads, outermost first, or nil when it reads no
    /// `@Persisted` property.
    static func trace<Root: ObjectBase>(_ keyPath: PartialKeyPath<Root>, in database: Database) -> [Int]? {
        if let cached = cache.withLock({ $0[keyPath] }) { return cached }
        guard let schema = database.schemas.schema(for: Root.self) else { return nil }
        let tracer = KeyPathTracer()
        let object = Root()
        database.attach(object, state: ObjectState(database: database, schema: schema, key: .invalid, tracer: tracer))
        _ = object[keyPath: keyPath]
        guard !tracer.visited.isEmpty else { return nil }
        let path = tracer.visited
        cache.withLock { $0[keyPath] = path }
        return path
    }
}
