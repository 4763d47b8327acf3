import StrataStorage

extension StrataError.Code {
    /// An object with the same primary key is already stored.
    public static let primaryKeyExists = StrataError.Code("primaryKeyExists")
    /// The registered model classes do not match the schema stored in the database (a property
    /// changed type, a class changed kind) and no migration handles it.
    public static let schemaMismatch = StrataError.Code("schemaMismatch")
    /// A model class cannot be stored as declared (a non-optional link, two primary keys…).
    public static let invalidSchema = StrataError.Code("invalidSchema")
    /// A value cannot be stored (over a size limit, a map key with `.` or a leading `$`…).
    public static let invalidValue = StrataError.Code("invalidValue")
    /// A change was attempted outside `write { }`, or a write began inside another.
    public static let notInWriteTransaction = StrataError.Code("notInWriteTransaction")
    /// The object was deleted, or its database was invalidated.
    public static let objectInvalidated = StrataError.Code("objectInvalidated")
    /// An object of a type the database was not opened with, or of another database.
    public static let wrongDatabase = StrataError.Code("wrongDatabase")
    /// A query cannot run: a malformed predicate, an unknown key path, an argument of the wrong
    /// type, an operator that does not apply. The message names the position.
    public static let invalidQuery = StrataError.Code("invalidQuery")
    /// A write would keep more versions alive than
    /// ``Database/Configuration/maximumNumberOfActiveVersions`` allows.
    public static let tooManyActiveVersions = StrataError.Code("tooManyActiveVersions")
}

extension StrataError {
    /// Matches any ``StrataError/Code/primaryKeyExists`` error in a `catch` clause.
    public static let primaryKeyExists = Code.primaryKeyExists
    /// Matches any ``StrataError/Code/schemaMismatch`` error in a `catch` clause.
    public static let schemaMismatch = Code.schemaMismatch
    /// Matches any ``StrataError/Code/invalidSchema`` error in a `catch` clause.
    public static let invalidSchema = Code.invalidSchema
    /// Matches any ``StrataError/Code/invalidValue`` error in a `catch` clause.
    public static let invalidValue = Code.invalidValue
    /// Matches any ``StrataError/Code/notInWriteTransaction`` error in a `catch` clause.
    public static let notInWriteTransaction = Code.notInWriteTransaction
    /// Matches any ``StrataError/Code/objectInvalidated`` error in a `catch` clause.
    public static let objectInvalidated = Code.objectInvalidated
    /// Matches any ``StrataError/Code/wrongDatabase`` error in a `catch` clause.
    public static let wrongDatabase = Code.wrongDatabase
    /// Matches any ``StrataError/Code/invalidQuery`` error in a `catch` clause.
    public static let invalidQuery = Code.invalidQuery
    /// Matches any ``StrataError/Code/tooManyActiveVersions`` error in a `catch` clause.
    public static let tooManyActiveVersions = Code.tooManyActiveVersions
}

extension StrataError {
    /// `error` with `context` (the class and property concerned, say) before its message; an
    /// error that is not a ``/StrataStorage/StrataError`` becomes `.invalidValue`.
    static func inContext(_ context: String, _ error: any Error) -> StrataError {
        if let error = error as? StrataError {
            return StrataError(error.code, "\(context): \(error.message)", file: error.file, offset: error.offset, errno: error.errno)
        }
        return StrataError(.invalidValue, "\(context): \(error)")
    }
}
