import StrataStorage

/// What ``Database/checkIntegrity()`` or ``Database/checkIntegrity(directory:encryptionKey:)`` found: every
/// problem in the object-level structure of one committed version of a database, and how much
/// was checked.
///
/// The check reads the stored bytes alone (object records, the catalog, the backlink and
/// secondary-index entries); it needs no model classes.
///
/// An immutable value; `Sendable`.
public struct IntegrityReport: Sendable, CustomStringConvertible {
    /// Every problem found, in the order the check met them. Empty when the database is whole.
    public internal(set) var problems: [IntegrityProblem] = []
    /// Facts about what could not be checked, or how (not problems).
    public internal(set) var notes: [String] = []
    /// The commit sequence of the version checked.
    public internal(set) var sequence: UInt64 = 0
    /// The classes of the catalog.
    public internal(set) var classesChecked = 0
    /// The top-level object records read.
    public internal(set) var objectsChecked = 0
    /// The links found in object records (to-one, in collections, in mixed values and inside
    /// embedded objects).
    public internal(set) var linksChecked = 0
    /// The entries of backlink records compared with the links.
    public internal(set) var backlinksChecked = 0
    /// The object keys listed by secondary-index entries, compared with the objects.
    public internal(set) var indexEntriesChecked = 0

    /// Whether no problem was found.
    public var isClean: Bool { problems.isEmpty }

    /// One line of figures, then one line per problem.
    public var description: String {
        let summary = "\(classesChecked) classes, \(objectsChecked) objects, \(linksChecked) links, "
            + "\(backlinksChecked) backlinks, \(indexEntriesChecked) index entries at sequence \(sequence): "
            + (isClean ? "no problem" : "\(problems.count) problem(s)")
        return ([summary] + problems.map(\.description)).joined(separator: "\n")
    }

    mutating func add(_ kind: IntegrityProblem.Kind, _ message: String) {
        problems.append(IntegrityProblem(kind: kind, message: message))
    }
}

/// One thing wrong in a database's object-level structure.
///
/// An immutable value; `Sendable`.
public struct IntegrityProblem: Sendable, Hashable, CustomStringConvertible {
    /// What kind of problem it is.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The catalog (keyspace 0) is missing while objects are stored, does not decode, or
        /// contradicts itself.
        case catalog
        /// A keyspace reserved for the object layer (0…15) holds a record it has no use for.
        case reservedKeyspace
        /// A keyspace of 16 or more holds records but names no class of the catalog.
        case unknownClass
        /// A keyspace of an embedded class holds a record (embedded objects live inside their
        /// parent's record only).
        case recordInEmbeddedClass
        /// An object record does not decode.
        case undecodableRecord
        /// A record or embedded value holds a property id its class does not have.
        case unknownProperty
        /// An object's key is not the encoding of its primary-key field.
        case primaryKeyMismatch
        /// A link names a class that is not a top-level class of the catalog, or an object
        /// that does not exist.
        case danglingLink
        /// An embedded value names a class id that is not an embedded class of the catalog.
        case badEmbeddedClass
        /// Two embedded objects of one list share an identity.
        case duplicateEmbeddedIdentity
        /// A backlink record does not decode or has a malformed key.
        case undecodableBacklinks
        /// A link has no entry in its target's backlink record.
        case missingBacklink
        /// A backlink entry has no matching link in its source object.
        case extraBacklink
        /// A secondary-index entry has a malformed key or value, or names no indexed property.
        case undecodableIndexEntry
        /// An object holding an indexed value is not listed under that value.
        case missingIndexEntry
        /// A secondary-index entry lists an object that does not hold that value.
        case extraIndexEntry
    }

    /// What kind of problem it is.
    public let kind: Kind
    /// A sentence naming the class, key and property concerned and what is wrong.
    public let message: String

    /// `kind: message`.
    public var description: String { "\(kind.rawValue): \(message)" }
}
