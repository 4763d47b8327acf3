// What a closed Strata database's live records are made of, keyspace by keyspace: the figures
// that explain its size on disk (docs/format.md §4 for the frame, Records/ObjectFormat.swift
// in Strata for the keyspaces).

import StrataStorage

/// The live records of one keyspace of a Strata store.
public struct KeyspaceSize: Sendable {
    /// The keyspace: 0 the catalog, 1 backlinks, 2 secondary index entries, 16 and up a class.
    public var keyspace: UInt32
    /// Live keys, one put record each.
    public var records = 0
    /// The keys' bytes and the values' bytes (as stored: no value here reaches the 4,096-byte
    /// compression threshold).
    public var keyBytes = 0, valueBytes = 0

    /// Bytes of the frame (18: crc, length, kind, flags, sequence) and the put header (6:
    /// keyspace, key length) of every record.
    public var headerBytes: Int { records * 24 }
    /// Bytes of the records on disk: headers, keys and values.
    public var recordBytes: Int { headerBytes + keyBytes + valueBytes }

    /// What the keyspace holds, in words.
    public var role: String {
        switch keyspace {
        case 0: "catalog"
        case 1: "backlinks"
        case 2: "index entries"
        default: "class \(keyspace)"
        }
    }
}

extension ObjectWorkloads {
    /// The live records of the store in `directory` (opened read-only by the storage engine, so
    /// no `Database` of it may be open in this process), by keyspace.
    public static func strataKeyspaceSizes(in directory: String) throws -> [KeyspaceSize] {
        var options = Store.Options()
        options.readOnly = true
        let store = try Store(directory: directory, options: options)
        defer { try? store.close() }
        let snapshot = store.snapshot()
        return try snapshot.keyspaces.sorted().map { keyspace in
            var size = KeyspaceSize(keyspace: keyspace.rawValue)
            try snapshot.forEach(in: keyspace) { key, value in
                size.records += 1
                size.keyBytes += key.withUnsafeBytes { $0.count }
                size.valueBytes += value.count
                return true
            }
            return size
        }
    }
}
