import StrataStorage

// Opening a database: the configuration's schema bound to the stored one, or migrated with the
// configuration's migration block (`MigrationRun`), so the public initializers sit above the
// migration; Database.swift has the rest of the open.

extension Database {
    /// Opens (creating if needed) the database in `configuration.directory`.
    ///
    /// - Throws: ``/StrataStorage/StrataError`` with code `.invalidSchema` (naming class and property) when a
    ///   model class cannot be stored as declared, `.schemaMismatch` (listing every difference)
    ///   when the stored schema version is higher than the configuration's, or the classes
    ///   changed in a way that needs a migration without a higher version, `.invalidValue` or
    ///   `.primaryKeyExists` when a migration fails (nothing is written then), `.locked` when
    ///   another process has the database open, `.invalidKey` when
    ///   ``Configuration/encryptionKey`` does not fit the database, and the
    ///   storage engine's `.corruption`, `.io`, `.unsupportedFormat`. With
    ///   ``Configuration/readOnly``: `.notFound` when the directory holds no database, `.readOnly`
    ///   when the stored schema lacks a class or property as declared. `.notInWriteTransaction`
    ///   when the open must store classes or indexes, or migrate, while this thread (or task)
    ///   has a write open on another `Database` of the directory. With
    ///   ``Configuration/seedFilePath``: `.invalidArgument` when the directory holds files but
    ///   no database.
    ///
    /// The database reads one version at a time (see ``Database``). `isolation` is the actor the
    /// caller is isolated to, if any (`#isolation`): with ``autorefresh`` the database advances
    /// between that actor's jobs after another commit lands. Opened off any actor, it advances
    /// only at its writes, ``refresh()`` and ``invalidate()``.
    public convenience init(configuration: Configuration, isolation: isolated (any Actor)? = #isolation) throws {
        try self.init(opening: configuration, autorefreshingOn: isolation)
    }

    /// Opens ``Configuration/defaultConfiguration``, as Realm's `try Realm()`.
    ///
    /// ```swift
    /// Database.Configuration.defaultConfiguration.objectTypes = [Dog.self, Person.self]
    /// let db = try Database()
    /// ```
    /// `isolation` is the caller's actor, as for ``init(configuration:isolation:)``.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidSchema` when the default configuration names no
    ///   classes; what ``init(configuration:isolation:)`` throws.
    public convenience init(isolation: isolated (any Actor)? = #isolation) throws {
        let configuration = Configuration.defaultConfiguration
        guard !configuration.objectTypes.isEmpty else {
            throw StrataError(
                .invalidSchema,
                "Database.Configuration.defaultConfiguration names no objectTypes: set them before Database() (Linux cannot list a program's model classes)")
        }
        try self.init(opening: configuration, autorefreshingOn: isolation)
    }

    /// Opens the database for `init(configuration:isolation:)`, autorefreshing on `actor`.
    convenience init(opening configuration: Configuration, autorefreshingOn actor: (any Actor)?) throws {
        try self.init(
            opening: configuration, migrating: MigrationRun(block: configuration.migrationBlock), autorefreshingOn: actor)
    }
}
