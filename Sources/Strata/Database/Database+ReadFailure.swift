import StrataStorage

// What a read does when the stored bytes it reads are damaged (a record that does not decode,
// a checksum that does not match, a backlink record or index entry that does not parse):
//
// - it does not trap: the property reads as its default value (a lookup finds the object with
//   default values; a collection reads empty), and the damage is recorded in `readFailure`;
// - inside a write, the write fails: its commit throws the damage (`.corruption`), so nothing
//   derived from what could not be read is written over the damaged record;
// - the first failure stays in `readFailure` for the life of the `Database` (sticky), so an
//   application checks it once after a batch of reads instead of after every property.

extension Database {
    /// The first damage a read through this database found, or nil while every read has
    /// returned what is stored.
    ///
    /// A read that finds a damaged record (a checksum mismatch, bytes that do not decode) does
    /// not trap: the property reads as its default value and the error is kept here. A write
    /// transaction in which a read found damage fails at commit with that error, so nothing
    /// read from damaged bytes is written back. `strata verify` names the damaged records;
    /// `Store.Options.salvage` recovers what precedes them.
    ///
    /// Thread safety: may be read from any thread (a frozen database is read from many).
    public var readFailure: StrataError? { readFailures.withLock { $0 } }

    /// Records that a read of `what` found damage: kept in `readFailure` (the first one), and
    /// the open write, if any, fails at commit.
    func noteReadFailure(_ error: any Error, reading what: String) {
        let failure = StrataError.inContext(what, error)
        readFailures.withLock { first in
            if first == nil { first = failure }
        }
        transaction?.defer(error, context: what)
    }
}
