import Foundation
import StrataStorage

extension Database {
    /// Checks the object-level structure of the latest commit (the open write's base, inside a
    /// write): every object record decodes; every link reaches an existing object; the backlink
    /// and secondary-index entries match the objects exactly; embedded values name embedded
    /// classes; class and property ids are the catalog's. It reads the stored bytes and the
    /// stored catalog only, not this database's model classes.
    ///
    /// A damaged record is a problem in the report, never a thrown error or a trap.
    ///
    /// - Returns: every problem found, with the figures of what was checked.
    /// - Complexity: O(n log n) in the number of stored records, reading each once; memory
    ///   grows with the number of links and indexed values.
    ///
    /// Thread safety: as the database's other reads (a frozen database may be checked from any
    /// thread).
    public func checkIntegrity() -> IntegrityReport {
        Self.checkIntegrity(of: storeSnapshot)
    }

    /// Checks the object-level structure of the database in `directory`, opened read-only (no
    /// lock taken, nothing on disk changed, so it works beside a running writer); see
    /// ``checkIntegrity()`` for what is checked. `encryptionKey` is the database's 64-byte key
    /// when it is encrypted.
    ///
    /// - Throws: ``/StrataStorage/StrataError`` when the store cannot be opened: `.notFound`, `.corruption`
    ///   (naming the file and offset), `.unsupportedFormat`, `.invalidKey`, `.io`.
    /// - Complexity: the read-only open scans every segment; then as ``checkIntegrity()``.
    ///
    /// Thread safety: may run on any thread; it shares nothing with open databases.
    public static func checkIntegrity(directory: URL, encryptionKey: Data? = nil) throws -> IntegrityReport {
        var options = Store.Options()
        options.readOnly = true
        options.encryptionKey = encryptionKey.map(Array.init)
        let store = try Store(directory: directory.path, options: options)
        return checkIntegrity(of: store.snapshot())
    }

    /// Checks the object-level structure of one version of a store; see ``checkIntegrity()``.
    ///
    /// - Complexity: as ``checkIntegrity()``.
    ///
    /// Thread safety: a `Snapshot` is immutable; this may run on any thread.
    public static func checkIntegrity(of snapshot: Snapshot) -> IntegrityReport {
        var checker = IntegrityChecker(snapshot: snapshot)
        return checker.run()
    }
}
