import Foundation
import XCTest

@testable import Strata
@_spi(Testing) @testable import StrataStorage

/// The worked examples of docs/format.md and docs/objects.md are the bytes the code writes, so
/// the specifications and the code cannot drift apart.
final class DocsGoldenBytesTests: DatabaseTestCase {
    /// The hex bytes of the first line of each fenced block in `doc` that follows a line
    /// containing `marker`.
    private func goldenBytes(in doc: String, after marker: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../docs/\(doc)").standardized
        let lines = try String(contentsOf: url, encoding: .utf8).components(separatedBy: "\n")
        let start = try XCTUnwrap(lines.firstIndex { $0.contains(marker) }, "\(doc): no '\(marker)'")
        let fence = try XCTUnwrap(lines[start...].firstIndex { $0.hasPrefix("```") })
        return try lines[fence + 1].split(separator: " ").map { try XCTUnwrap(UInt8($0, radix: 16), "\(doc): \($0)") }
    }

    func testTheCounterRecordOfObjectsMdIsWhatTheEncoderWrites() throws {
        let db = try open([Counter.self])
        let counter = Counter()
        counter.label = "ab"
        counter.value = -2
        try db.write { try db.add(counter) }
        let schema = try XCTUnwrap(db.schemas.schema(for: Counter.self))
        XCTAssertEqual(schema.properties.map(\.propertyID), [1, 2])
        let snapshot = db.shared.store.snapshot()
        let key = try XCTUnwrap(snapshot.keys(in: Keyspace(schema.classID)).first)
        let stored = try XCTUnwrap(snapshot.value(for: key, in: Keyspace(schema.classID)))
        XCTAssertEqual(stored, try goldenBytes(in: "objects.md", after: "golden: Counter record"))
    }

    func testTheTagIndexEntryOfObjectsMdIsWhatAWriteStores() throws {
        let db = try open([TagV2.self])
        try db.write { try db.add(TagV2(value: ["id": 7, "label": "ab"])) }
        let schema = try XCTUnwrap(db.schemas.schema(for: TagV2.self))
        XCTAssertEqual(schema.classID, 16)
        XCTAssertEqual(schema.properties.map(\.propertyID), [1, 2])
        let snapshot = db.shared.store.snapshot()
        let keys = snapshot.keys(in: Keyspace(2))
        XCTAssertEqual(keys.map(\.bytes), [try goldenBytes(in: "objects.md", after: "golden: Tag index entry")])
        XCTAssertEqual(try snapshot.value(for: keys[0], in: Keyspace(2)), [])
    }

    func testThePutAndCommitRecordsOfFormatMdAreWhatTheEncoderWrites() throws {
        var records: [UInt8] = []
        let value: [UInt8] = Array("v".utf8)
        _ = value.withUnsafeBytes { value in
            RecordEncoder.appendPut(
                to: &records, sequence: 1, keyspace: Keyspace(1), key: StorageKey("k"), value: value,
                compression: .init(threshold: .max, level: 3), seal: .unsalted, bufferOffset: 64)
        }
        let putLength = records.count
        _ = RecordEncoder.appendCommit(
            to: &records, sequence: 1, recordCount: 1, syncedThrough: 64, seal: .unsalted, bufferOffset: 64 + putLength)
        XCTAssertEqual(Array(records[..<putLength]), try goldenBytes(in: "format.md", after: "The put record starts at offset 64"))
        XCTAssertEqual(Array(records[putLength...]), try goldenBytes(in: "format.md", after: "The commit record follows at offset 90"))
    }

    func testTheManifestOfFormatMdIsWhatTheEncoderWrites() throws {
        let manifest = Manifest(segments: [1], lastSequence: 0)
        XCTAssertEqual(manifest.encoded(), try goldenBytes(in: "format.md", after: "32-byte MANIFEST is"))
    }
}
