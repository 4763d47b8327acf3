import XCTest
@_spi(Testing) @testable import StrataStorage

/// The record seal of the segment file at `path` (from its header), and the file's size: what
/// a test needs to append records that the segment accepts as its own.
func sealAndSize(of path: String, in fileSystem: MemoryFileSystem) throws -> (seal: RecordSeal, size: Int) {
    let bytes = try XCTUnwrap(fileSystem.contents(of: path))
    let header = try bytes.withUnsafeBytes { try SegmentHeader.decode($0, file: path) }
    return (header.recordSeal, bytes.count)
}
