/// Something recovery did when it opened a store, other than applying committed transactions.
///
/// None of these is an error: each is the expected result of a crash or of a failed write.
/// Corruption is never an event; it is a thrown ``StrataError`` (except in salvage mode).
public struct RecoveryEvent: Sendable, Hashable, CustomStringConvertible {
    /// What kind of event.
    public enum Kind: Sendable, Hashable {
        /// The newest segment ended in a torn (partially written) record: the log ends before it.
        case tornTail
        /// The newest segment ended in zero bytes (space the file system allocated but never
        /// filled): the log ends before them.
        case zeroFilledTail
        /// Records of a transaction whose commit record never made it were ignored.
        case uncommittedTransaction
        /// A file no manifest names (left by a crash) was removed.
        case leftoverFileRemoved
        /// Salvage mode: a corrupt segment was cut at the damage; later data was not read.
        case salvagedCorruption
        /// A sealed segment's hint file was missing, damaged, or did not match the segment: the
        /// segment was scanned instead (the index is the same either way).
        case hintIgnored
    }

    /// What kind of event.
    public let kind: Kind
    /// The file concerned.
    public let file: String
    /// Where in the file the event starts.
    public let offset: Int
    /// How many bytes it concerns (the bytes cut off, the size of the removed file…).
    public let byteCount: Int
    /// A sentence for people.
    public let message: String

    public var description: String { "\(kind): \(message) [\(file) at byte \(offset), \(byteCount) bytes]" }
}
