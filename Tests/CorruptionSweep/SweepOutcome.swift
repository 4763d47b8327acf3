import Foundation
import Strata

/// What opening a damaged copy gave, for a read-only and then a read-write open.
public struct SweepOutcome: Sendable, Equatable {
    /// One open.
    public enum Open: Sendable, Equatable {
        /// The database opened; `digest` is `SweepRender.digest` of what it holds; `readFailure`
        /// the damage its reads reported, if any.
        case opened(digest: UInt64, readFailure: String?)
        /// It threw a `StrataError`.
        case failed(code: String, file: String?, offset: Int?)
        /// It threw something else.
        case failedOther(String)
    }

    public var readOnly: Open
    public var readWrite: Open

    public init(readOnly: Open, readWrite: Open) {
        self.readOnly = readOnly
        self.readWrite = readWrite
    }

    /// The outcome as one line of text without newlines (the reader process's protocol).
    public var encoded: String { "\(Self.encode(readOnly)) | \(Self.encode(readWrite))" }

    /// The outcome `encoded` describes, or nil.
    public init?(encoded: String) {
        let halves = encoded.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        guard halves.count == 2, let readOnly = Self.decode(halves[0]), let readWrite = Self.decode(halves[1]) else { return nil }
        self.init(readOnly: readOnly, readWrite: readWrite)
    }

    private static func encode(_ open: Open) -> String {
        switch open {
        case .opened(let digest, let failure): "ok \(digest) \(failure == nil ? "-" : "readFailure")"
        case .failed(let code, let file, let offset): "err \(code) \(file ?? "-") \(offset ?? -1)"
        case .failedOther(let text): "other \(text.filter { $0 != "|" && $0 != "\n" })"
        }
    }

    private static func decode(_ text: String) -> Open? {
        let fields = text.split(separator: " ").map(String.init)
        switch fields.first {
        case "ok" where fields.count == 3:
            guard let digest = UInt64(fields[1]) else { return nil }
            return .opened(digest: digest, readFailure: fields[2] == "-" ? nil : fields[2])
        case "err" where fields.count == 4:
            return .failed(code: fields[1], file: fields[2] == "-" ? nil : fields[2], offset: Int(fields[3]).flatMap { $0 < 0 ? nil : $0 })
        case "other": return .failedOther(fields.dropFirst().joined(separator: " "))
        default: return nil
        }
    }
}
