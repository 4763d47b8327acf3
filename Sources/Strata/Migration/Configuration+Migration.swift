import StrataStorage

// The configuration's migration block, declared beside ``Migration``: the configuration holds
// it as a value its own folder does not read (`migrationBlockStorage`).

extension Database.Configuration {
    /// Converts the stored objects when the stored schema version is lower than
    /// ``schemaVersion``, as Realm's `migrationBlock`: called once, on the opening thread,
    /// with the ``Migration`` and the stored version; its changes and the new schema are
    /// committed together, atomically, when it returns. Without a block, a higher version
    /// migrates what converts by itself (see ``Migration``). The block must not open this
    /// database. Default nil.
    public var migrationBlock: MigrationBlock? {
        get { migrationBlockStorage as? MigrationBlock }
        set { migrationBlockStorage = newValue }
    }
}
