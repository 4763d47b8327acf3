import StrataStorage

/// The work of one object observer on its delivery queue: it reads the object in a database of
/// its own (confined to the queue) and compares its observed fields with those it saw last.
/// Realm delivers nothing at the start of an object observation, and neither does this.
final class ObjectObservationWorker<T: ObjectBase>: ObservationWorker {
    private let configuration: Database.Configuration
    private let handover: _ThreadSafeHandover
    private let keyPaths: [String]?
    private let block: (ObjectChange<T>) -> Void
    /// The object's observed values when the observation was registered (read on the caller's
    /// thread): changes after that are delivered, also those committed before the worker
    /// started.
    private let registeredValues: [FieldValue]
    private var object: T?
    private var observed = ObservedProperties(paths: [])
    private var values: [FieldValue] = []
    private var version = -1

    init(configuration: Database.Configuration, handover: _ThreadSafeHandover, keyPaths: [String]?,
         registeredValues: [FieldValue], block: @escaping (ObjectChange<T>) -> Void) {
        self.registeredValues = registeredValues
        self.configuration = configuration
        self.handover = handover
        self.keyPaths = keyPaths
        self.block = block
    }

    func deliver(isCancelled: () -> Bool) -> Bool {
        guard let object, let state = object._strataState else { return start(isCancelled: isCancelled) }
        let database = state.database
        database.advance()
        let now = database.readVersion()
        guard now != version else { return true }
        version = now
        database.holdsVersion = true
        defer { database.holdsVersion = false }
        guard let fields = database.loadFields(state.key, schema: state.schema) else {
            if !isCancelled() { block(.deleted) }
            return false
        }
        let current = observed.project(fields, in: database)
        var changes: [PropertyChange] = []
        for (position, path) in observed.paths.enumerated() where current[position] != values[position] {
            let property = state.schema.properties[path.index]
            // A property named by more than one key path ("dog.age", "dog.name") is one change.
            guard !changes.contains(where: { $0.name == property.name }) else { continue }
            let plain = path.rest.isEmpty && !property.bindsToOwner && property.embeddedSchema == nil
            changes.append(PropertyChange(
                name: property.name,
                oldValue: plain ? property.accessor.value(of: values[position], context: database) : nil,
                newValue: plain ? property.accessor.value(of: current[position], context: database) : nil))
        }
        values = current
        guard !changes.isEmpty, !isCancelled() else { return true }
        block(.change(object, changes))
        return true
    }

    private func start(isCancelled: () -> Bool) -> Bool {
        do {
            let database = try Database(configuration: configuration)
            guard let found = handover.object(in: database) else {
                // Deleted before the observation started.
                if !isCancelled() { block(.deleted) }
                return false
            }
            guard let object = found as? T, let state = object._strataState else {
                throw StrataError(.invalidArgument, "the observed object is not a \(T.self)")
            }
            observed = try ObservedProperties(keyPaths: keyPaths, schema: state.schema)
            values = registeredValues
            self.object = object
            return deliver(isCancelled: isCancelled)
        } catch {
            if !isCancelled() { block(.error(error)) }
            return false
        }
    }
}
