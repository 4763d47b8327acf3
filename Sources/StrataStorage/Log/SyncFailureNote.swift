/// Notes whether a step whose failure leaves durability unknown (a sync, a MANIFEST rename)
/// failed during a multi-step operation such as a roll. Used on one thread.
final class SyncFailureNote {
    private(set) var failed = false

    /// Runs `body`; if it throws, notes the failure and rethrows.
    /// - Throws: what `body` throws.
    func watching(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch {
            failed = true
            throw error
        }
    }
}

extension Optional where Wrapped == SyncFailureNote {
    /// Runs `body`, noting a failure in the note when there is one.
    /// - Throws: what `body` throws.
    func watching(_ body: () throws -> Void) throws {
        if let note = self { try note.watching(body) } else { try body() }
    }
}
