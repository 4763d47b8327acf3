import StrataStorage

// The object layer's bytes, all in one place. The storage engine stores values under keys in
// numbered keyspaces (docs/format.md); this is what the object layer puts there. These numbers
// are part of the file format and must not change.
//
// ┌──────────┬────────────────────────────────────┬──────────────────────────────────────────┐
// │ keyspace │ key                                │ value                                    │
// ├──────────┼────────────────────────────────────┼──────────────────────────────────────────┤
// │ 0        │ "catalog"                          │ the catalog, JSON (Schema/Catalog.swift) │
// │ 1        │ target class id u32 BE │ target key│ backlink record                          │
// │ 2        │ class id u32 BE │ property id u32 │ empty; or, for a key of the longest      │
// │          │ BE │ ordered value │ object key    │ length, its object list (below)          │
// │ 3…15     │ (reserved)                         │                                          │
// │ C ≥ 16   │ object key: encoded primary key,   │ object record                            │
// │          │ or a generated ObjectId's 12 bytes │                                          │
// └──────────┴────────────────────────────────────┴──────────────────────────────────────────┘
//
//   object record   := version u8 (= 1) │ field count varint │ field*
//   field           := property id varint │ value
//   value           := tag u8 │ payload
//   backlink record := count varint │ (source class id varint │ property id varint │
//                      key length varint │ key)*                (sorted, each once)
//
// Secondary indexes (Records/IndexKeyEncoding.swift): one entry per (value, object), whose key
// sorts by value as queries order values (FieldOrder), then by object key.
//
//   entry key       := class id u32 BE │ property id u32 BE │ ordered value │ object key
//                      (cut to `maxStorageKeyLength`: then its value is an object list)
//   ordered value   := 0x00                             null (sorts first)
//                    │ 0x01 │ 0x02                      false │ true
//                    │ 0x03 │ u64 BE (n ^ 1 << 63)       int
//                    │ 0x05 │ u64 BE ordered bits        a number in a mixed (AnyValue)
//                    │                                   property: int, float or double as
//                    │                                   the Double it compares as, ordered
//                    │                                   as a date's bits
//                    │ 0x06 │ UTF-8 │ 0x00 0x00          string; 0x00 in it is 0x00 0xFF
//                    │ 0x06 │ first 1,024 bytes │ 0x00 0x01   a longer string, cut
//                    │ 0x08 │ u64 BE ordered bits        date: negative doubles all bits
//                    │                                   flipped, others sign bit set; -0 as
//                    │                                   +0; every NaN 0xFFFF_FFFF_FFFF_FFFF
//                    │ 0x0A │ 16 bytes                   uuid
//                    │ 0x0B │ 12 bytes                   objectId
//                    │ 0xFF                              a kind no index holds (in a mixed
//                    │                                   property: data, decimal128, link,
//                    │                                   list, map)
//   object list     := count varint │ (key length varint │ key)*  (sorted, each once, each
//                      starting with the cut key's object-key part; empty: that part itself)
//
// The catalog's `indexFormat` (2) names this index format; a catalog without it holds format 1
// (one record per value: value in record encoding → list of object keys), which a writable
// open deletes and rebuilds.
//
//   tag  payload
//   0    null
//   1/2  false / true
//   3    int: zigzag varint
//   4    float: 4 bytes IEEE 754, little-endian
//   5    double: 8 bytes, little-endian
//   6    string: length varint │ UTF-8
//   7    data: length varint │ bytes
//   8    date: 8-byte double, seconds since 2001-01-01
//   9    decimal128: low u64 │ high u64 (little-endian)
//   10   uuid: 16 bytes
//   11   objectId: 12 bytes
//   12   link: class id varint │ key length varint │ key bytes
//   13   list: count varint │ value*
//   14   set: count varint │ value*
//   15   map: count varint │ (key length varint │ UTF-8 key │ value)*  (keys by UTF-8 bytes, ascending)
//   16   embedded object without identity: class id varint │ field count varint │ field*
//   17   embedded object: class id varint │ identity varint │ field count varint │ field*
//        (fields by property id; the identity, never 0, tells the object from its siblings)
//
// Object keys: Int as 8 bytes big-endian with the sign bit flipped; String as UTF-8; ObjectId
// as its 12 bytes; UUID as its 16; an optional key adds a byte in front (0 nil, 1 a value). At
// most `maxObjectKeyLength` bytes (Records/PrimaryKeyEncoding.swift).
//
// A reader skips fields whose property id it does not know (a removed property) and gives a
// property with no field its default (a property added later). Containers nest at most
// `maxNesting` levels in one field, on both sides. Decoding never traps: malformed bytes are
// `.corruption`.

/// The object layer's on-disk constants (see the table above).
enum ObjectFormat {
    /// The catalog's keyspace, and its one key.
    static let catalogKeyspace = Keyspace(0)
    static let catalogKey = StorageKey("catalog")
    /// Who links to each object.
    static let backlinkKeyspace = Keyspace(1)
    /// The secondary indexes of `@Persisted(indexed: true)` properties.
    static let indexKeyspace = Keyspace(2)
    /// The format of the entries in `indexKeyspace`, recorded in the catalog (`indexFormat`):
    /// 2, one entry per (value, object) with an ordered key. (Format 1, in catalogs without
    /// the field, kept one record per value listing its objects; opening such a database
    /// writable rebuilds its indexes.)
    static let indexFormat: UInt32 = 2
    /// The first class id; 0…15 are the object layer's own keyspaces.
    static let firstClassID: UInt32 = 16

    /// The version byte that starts every object record.
    static let recordVersion: UInt8 = 1
    /// How deep containers (lists, sets, maps, embedded objects) may nest in one property's
    /// value: 100 levels, as Realm allows; writes refuse deeper values, reads take them as
    /// corruption.
    static let maxNesting = 100
    /// The longest object key: the engine's longest key less the 4-byte class id a backlink
    /// key puts before it, so that every object can be linked to.
    static let maxObjectKeyLength = maxStorageKeyLength - 4
    /// The storage engine's longest key (an index key's value part is cut to fit it).
    static let maxStorageKeyLength = 65_535

    /// The tag byte in front of every value.
    enum Tag: UInt8 {
        case null = 0
        case `false` = 1
        case `true` = 2
        case int = 3
        case float = 4
        case double = 5
        case string = 6
        case data = 7
        case date = 8
        case decimal128 = 9
        case uuid = 10
        case objectId = 11
        case link = 12
        case list = 13
        case set = 14
        case map = 15
        case embeddedWithoutIdentity = 16
        case embedded = 17
    }
}
