import StrataStorage

/// A `Sendable` reference to a managed object, a ``Results`` or a collection property, for
/// handing it to another thread or task, where ``Database/resolve(_:)`` reads it again through
/// that side's own `Database` — as Realm's `ThreadSafeReference`.
///
/// ```swift
/// let ref = ThreadSafeReference(to: rex)
/// let configuration = db.configuration
/// try await Task.detached {
///     let other = try Database(configuration: configuration)
///     print(other.resolve(ref)?.name ?? "deleted")
/// }.value
/// ```
///
/// The reference records where the value is, not its contents: an object's key (and, for an
/// embedded object, its place in its parent), a collection's owner and property, a query's
/// class, source, predicate, sorts and distincts. Resolving reads the value in the resolving
/// database as that database sees it now. A reference resolves once, as Realm's: later calls
/// return nil and ``isInvalidated`` is then true.
///
/// Thread safety: `Sendable`; any thread may resolve it (once).
public struct ThreadSafeReference<Confined: ThreadConfined>: Sendable {
    let handover: _ThreadSafeHandover
    private let claim = Claim()

    /// Makes a reference to a managed value, which may go on being used here.
    /// - Precondition: `threadConfined` is managed and its object exists (Realm raises the
    ///   same). Use ``init(checking:)`` for a value that may not be.
    /// - Complexity: O(1) (a `Results` is not evaluated); for a collection or an object, O(d)
    ///   in the depth of its embedding.
    public init(to threadConfined: Confined) {
        do {
            self.init(handover: try threadConfined._strataHandover())
        } catch {
            preconditionFailure("ThreadSafeReference(to:): \(error)")
        }
    }

    /// Makes a reference to `threadConfined`, as ``init(to:)``, with a value that cannot be
    /// referenced reported as an error instead of stopping the program.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidArgument` for an unmanaged object or collection,
    ///   `.objectInvalidated` for a deleted or invalidated object (or a collection of one).
    /// - Complexity: as ``init(to:)``.
    public init(checking threadConfined: Confined) throws {
        self.init(handover: try threadConfined._strataHandover())
    }

    private init(handover: _ThreadSafeHandover) { self.handover = handover }

    /// Whether the reference was resolved already (it resolves once).
    public var isInvalidated: Bool { claim.isTaken }

    /// Records that the reference has been resolved: true the first time only.
    func take() -> Bool { claim.take() }

    /// Whether a reference has been resolved, shared by its copies.
    private final class Claim: Sendable {
        private let taken = Locked(false)

        var isTaken: Bool { taken.withLock { $0 } }

        func take() -> Bool {
            taken.withLock { taken in
                defer { taken = true }
                return !taken
            }
        }
    }
}

extension Database {
    /// The value `reference` was made from, read through this database at the version it reads
    /// (see below for a live database that is older than the reference): the same object, the
    /// same collection property of the same object, or the same query.
    ///
    /// Returns nil when the object (or the owner of the collection) does not exist here — it was
    /// deleted, or added by a write not committed yet — or its class is not one of this
    /// database's `objectTypes`, and for a reference resolved before: the first resolve in a
    /// database of the reference's files uses it up, whatever it finds. A `Results` whose
    /// collection's owner no longer exists resolves to empty results. In a database of other
    /// files a reference resolves to nil and is not used up.
    ///
    /// A live database that reads an older commit than the one the reference was made at
    /// advances to the newest commit first (as ``refresh()``), so the value it was made from is
    /// there; one that reads the same or a newer commit stays at its version. Realm differs in
    /// that it raises on a second resolve.
    /// - Complexity: O(1) plus reading the object (its parents, for an embedded one); a
    ///   `Results` is not evaluated until read.
    public func resolve<Confined>(_ reference: ThreadSafeReference<Confined>) -> Confined? {
        guard reference.handover.storeName == shared.name, reference.take() else { return nil }
        if reference.handover.sequence > readSequence { advanceAndNotify() }
        return Confined._strataResolve(reference.handover, in: self)
    }
}
