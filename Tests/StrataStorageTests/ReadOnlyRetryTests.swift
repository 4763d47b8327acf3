import XCTest
@_spi(Testing) @testable import StrataStorage

/// A read-only open starts over when a writer changed the MANIFEST under it, but a bounded number
/// of times: a MANIFEST that never stops changing ends in the error, not in an endless loop.
final class ReadOnlyRetryTests: XCTestCase {
    /// A file system whose MANIFEST is rewritten each time it is opened, each time naming a
    /// segment that does not exist (so every recovery pass fails, and finds a new MANIFEST).
    final class ChangingManifestFileSystem: ForwardingFileSystem, @unchecked Sendable {
        let base = MemoryFileSystem()
        var forwardedTo: any FileSystem { base }
        private let opens = Locked(0)
        var manifestOpens: Int { opens.withLock { $0 } }

        func open(_ path: String, mode: FileOpenMode) throws -> any StorageFile {
            if path.hasSuffix("MANIFEST") {
                let count = opens.withLock { count -> Int in
                    count += 1
                    return count
                }
                base.setContents(Manifest(segments: [9], lastSequence: UInt64(count)).encoded(), of: path)
            }
            return try base.open(path, mode: mode)
        }
    }

    func testAManifestThatNeverStopsChangingEndsInTheErrorAfterBoundedRetries() throws {
        let fileSystem = ChangingManifestFileSystem()
        fileSystem.base.setContents(Manifest(segments: [9], lastSequence: 0).encoded(), of: "/db/MANIFEST")
        var options = Store.Options()
        options.fileSystem = fileSystem
        options.readOnly = true
        XCTAssertThrowsError(try Store(directory: "/db", options: options)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
        }
        // Each pass reads the MANIFEST, and each failed pass reads it again to see if it changed.
        XCTAssertLessThanOrEqual(fileSystem.manifestOpens, 2 * Recovery.readOnlyAttempts)
        XCTAssertGreaterThan(fileSystem.manifestOpens, 2, "a changed MANIFEST is tried again")
    }
}
