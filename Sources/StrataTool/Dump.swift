// `strata dump PATH [--json]`: the live records of a database in log order.

import ArgumentParser
@_spi(Tooling) import Strata
@_spi(Tooling) import StrataStorage

struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the live records in log order: segment, offset, keyspace, key, sequence, size.",
        discussion: """
            Opens the database read-only and lists every live record (the newest version of \
            each key, the ones the index points at) in the order they lie in the log: by \
            segment, then byte offset. Overwritten and deleted versions are not listed (`stats` \
            counts their bytes as dead). Each record is read and its checksum checked: a \
            damaged one exits 2 naming its file and offset. A key prints as text when it is \
            printable ASCII, else in hexadecimal (0x…).

            With --json prints a JSON array of {"segment", "offset", "keyspace", "key" (hex), \
            "sequence", "size"}.

            \(ToolExit.help)
            """
    )

    @Argument(help: "The database directory.")
    var path: String

    @Flag(help: "Print a JSON array instead of a table.")
    var json = false

    @OptionGroup var key: KeyFileOption

    func run() throws {
        let records = try Output.reportingErrors { () throws -> [(Keyspace, StorageKey, Snapshot.RecordInfo)] in
            let snapshot = try Output.openReadOnly(path, key: key).snapshot()
            let progress = Progress("dump", total: snapshot.count)
            defer { progress.finish() }
            var records: [(Keyspace, StorageKey, Snapshot.RecordInfo)] = []
            for keyspace in snapshot.keyspaces {
                for entry in snapshot.entries(in: keyspace) {
                    records.append((keyspace, entry.key, try snapshot.recordInfo(of: entry)))
                    progress.advance()
                }
            }
            return records.sorted { ($0.2.segment, $0.2.offset) < ($1.2.segment, $1.2.offset) }
        }
        if json {
            print(JSONValue.array(records.map { keyspace, key, info in
                .object([
                    .init("segment", .number("\(info.segment)")), .init("offset", .number("\(info.offset)")),
                    .init("keyspace", .number("\(keyspace.rawValue)")), .init("key", .string(Self.hex(key.bytes))),
                    .init("sequence", .number("\(info.sequence)")), .init("size", .number("\(info.length)")),
                ])
            }).rendered(pretty: true))
            return
        }
        print("segment  offset      keyspace  sequence    size      key")
        for (keyspace, key, info) in records {
            let columns = [("\(info.segment)", 9), ("\(info.offset)", 12), ("\(keyspace.rawValue)", 10), ("\(info.sequence)", 12), ("\(info.length)", 10)]
            print(columns.map { $0.0 + String(repeating: " ", count: max(1, $0.1 - $0.0.count)) }.joined() + Self.text(key.bytes))
        }
    }

    /// Printable ASCII as itself, anything else as 0x and hex digits.
    static func text(_ bytes: [UInt8]) -> String {
        guard !bytes.isEmpty, bytes.allSatisfy({ (0x21...0x7E).contains($0) }) else { return "0x" + hex(bytes) }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
