import StrataStorage

// An open store is shared by path (SharedStore.open): a second open of the same directory in
// this process gets the store the first one opened, with that one's key. So the key is checked
// again here, as the store's own open would check it.

extension SharedStore {
    /// `self`, when `options` names the key the store was opened with.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidKey` saying what differs.
    func checkingKey(_ options: Store.Options) throws -> SharedStore {
        let mine = store.options.encryptionKey
        switch (mine, options.encryptionKey) {
        case (nil, nil):
            return self
        case (nil, .some):
            throw StrataError(.invalidKey, "the database is not encrypted, but a key was given; open it without a key", file: store.directory)
        case (.some, nil):
            throw StrataError(.invalidKey, "the database is encrypted; open it with its 64-byte key", file: store.directory)
        case (let mine?, let given?):
            guard given.count == mine.count else {
                throw StrataError(.invalidKey, "an encryption key must be \(mine.count) bytes long; this one has \(given.count)")
            }
            var difference: UInt8 = 0
            for (a, b) in zip(mine, given) { difference |= a ^ b }
            guard difference == 0 else {
                throw StrataError(.invalidKey, "the key is not the one the database was encrypted with", file: store.directory)
            }
            return self
        }
    }
}
