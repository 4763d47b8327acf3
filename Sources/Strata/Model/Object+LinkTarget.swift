import StrataStorage

// Links by the target's primary key, as ObjectBox's `ToOne.targetId`: set a to-one link without
// loading the target, and read which key a link points at without materializing it.

/// The model classes' protocol face, so extensions can name `Self` in parameters.
public protocol ObjectProtocol: Object {}
extension Object: ObjectProtocol {}

extension ObjectProtocol {
    /// Points a to-one link at the object of `T` whose primary key is `primaryKey`.
    ///
    /// On a managed object (inside a write) the target must exist. On an unmanaged object the
    /// link holds a reference that ``Database/add(_:update:)-(Object,_)`` resolves to the stored object with
    /// that key, or stores as a new object with only its key set when there is none.
    ///
    /// ```swift
    /// try db.write { try person.setTarget(\.dog, primaryKey: dogID) }
    /// ```
    /// - Throws: ``/StrataStorage/StrataError`` `.notInWriteTransaction` for a managed object outside a write;
    ///   `.invalidArgument` when `T` has no primary key; `.invalidValue` when no such target
    ///   is stored.
    public func setTarget<T: Object, K: _PrimaryKey>(_ keyPath: ReferenceWritableKeyPath<Self, T?>, primaryKey: K) throws {
        let targetName = T.className()
        guard let state = _strataState else {
            guard let schema = SchemaCache.schema(for: T.self), let primaryKeyProperty = schema.primaryKey else {
                throw StrataError(.invalidArgument, "\(targetName) has no primary key to link by")
            }
            let reference = T()
            guard (try? primaryKeyProperty.accessor.setUnmanaged(reference, converting: primaryKey)) != nil else {
                throw StrataError(.invalidArgument, "\(targetName).\(primaryKeyProperty.name) is \(primaryKeyProperty.type), not \(K.self)")
            }
            reference.isPrimaryKeyReference = true
            self[keyPath: keyPath] = reference
            return
        }
        let database = state.database
        guard database.transaction != nil else {
            throw StrataError(.notInWriteTransaction, "setTarget outside a write transaction: call it inside `try db.write { }`")
        }
        guard let path = KeyPathTracer.trace(keyPath, in: database), path.count == 1 else {
            throw StrataError(.invalidArgument, "\(keyPath) does not name a @Persisted link of \(Self.className())")
        }
        let targetKey = try Self.targetKey(T.self, primaryKey, in: database)
        guard let targetSchema = database.schemas.schema(for: T.self), database.loadFields(targetKey, schema: targetSchema) != nil else {
            throw StrataError(.invalidValue, "no \(targetName) with primary key \(primaryKey) is stored")
        }
        state.store(.link(targetKey), at: path[0])
    }

    /// The primary key of the object a to-one link points at, without loading that object;
    /// nil when the link is unset (or its target was deleted).
    public func targetPrimaryKey<T: Object, K: _PrimaryKey>(of keyPath: KeyPath<Self, T?>, as type: K.Type = K.self) -> K? {
        guard let state = _strataState else {
            guard let target = self[keyPath: keyPath], let schema = SchemaCache.schema(for: T.self),
                  let primaryKey = schema.primaryKey
            else { return nil }
            return primaryKey.accessor.value(of: target) as? K
        }
        guard let path = KeyPathTracer.trace(keyPath, in: state.database), path.count == 1,
              case .link(let key)? = state.field(path[0]),
              let targetSchema = state.database.schemas.byClassID[key.classID],
              let primaryKey = targetSchema.primaryKey,
              let value = PrimaryKeyEncoding.value(of: key.key, optional: primaryKey.type.isOptional, type: primaryKey.type.type)
        else { return nil }
        return K._strataRead(value, nil)
    }

    private static func targetKey<T: Object, K: _PrimaryKey>(_ type: T.Type, _ primaryKey: K, in database: Database) throws -> ObjectKey {
        guard let schema = database.schemas.schema(for: T.self), let primaryKeyProperty = schema.primaryKey else {
            throw StrataError(.invalidArgument, "\(T.className()) has no primary key to link by")
        }
        let field = try primaryKey._strataWrite(nil)
        guard field.isStoredKind(of: primaryKeyProperty.type),
              let key = PrimaryKeyEncoding.key(for: field, optional: primaryKeyProperty.type.isOptional)
        else {
            throw StrataError(.invalidArgument, "\(T.className()).\(primaryKeyProperty.name) is \(primaryKeyProperty.type), not \(K.self)")
        }
        return ObjectKey(classID: schema.classID, key: key)
    }
}
