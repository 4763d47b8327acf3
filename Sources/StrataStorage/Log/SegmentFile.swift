// A segment file of the log: its number, its open file, and its name on disk.
//
// A SegmentFile is shared by the writer and by every snapshot that may read from it; the open
// file is closed when the last of them lets go (ARC is the reference count LevelDB keeps by
// hand in Version::Ref). Reads go through StorageFile, which is safe from any thread.

final class SegmentFile: Sendable {
    let number: UInt32
    let path: String
    let file: any StorageFile

    init(number: UInt32, path: String, file: any StorageFile) {
        self.number = number
        self.path = path
        self.file = file
    }

    deinit { try? file.close() }

    /// `000042.seg`
    static func name(for number: UInt32) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, 6 - digits.count)) + digits + ".seg"
    }

    /// The number in a segment file name, or nil when `name` is not one.
    static func number(fromName name: String) -> UInt32? {
        guard name.hasSuffix(".seg") else { return nil }
        let stem = name.dropLast(4)
        guard !stem.isEmpty, stem.allSatisfy(\.isASCII), stem.allSatisfy(\.isNumber) else { return nil }
        return UInt32(stem)
    }
}
