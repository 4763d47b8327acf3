// Shared pieces of the `strata` subcommands: opening a store read-only, turning a StrataError
// into a message and an exit code, and formatting numbers, sizes and durations.

import ArgumentParser
import Foundation
import Strata
import StrataStorage

/// The exit codes `strata` uses. They are part of the tool's interface: scripts test them.
enum ToolExit {
    static let failure: Int32 = 1
    static let corruption: Int32 = 2
    static let unsupportedFormat: Int32 = 3
    static let notFound: Int32 = 4
    static let invalidKey: Int32 = 5
    /// Bad command-line usage: ArgumentParser's own code for a validation error, also used for
    /// a class, property or `--where` predicate the database does not have.
    static let usage: Int32 = 64

    /// The exit code for a storage error.
    static func code(for error: StrataError) -> Int32 {
        switch error.code {
        case .corruption: corruption
        case .unsupportedFormat: unsupportedFormat
        case .notFound: notFound
        case .invalidKey: invalidKey
        case .invalidQuery: usage
        default: failure
        }
    }

    /// The paragraph `--help` shows.
    static let help = """
        Exit codes: 0 success; 1 any other error; 2 the database is corrupt (the message names \
        the file and byte offset); 3 a file has an unsupported format version; 4 no database at \
        the path; 5 the encryption key does not fit (wrong, missing, given for a database that \
        is not encrypted, or not 64 bytes); 64 bad command-line usage (also an unknown class or \
        property, or a --where predicate the tool cannot evaluate).
        """
}

/// Writing to standard output and standard error.
enum Output {
    /// Writes a line to standard error.
    static func error(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Runs `body`; a `StrataError` it throws is printed to standard error (with its file and
    /// byte offset; corruption with the `strata salvage` command that keeps what precedes it)
    /// and becomes the matching exit code.
    static func reportingErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StrataError {
            Output.error(error.description)
            if error.code == .corruption, !error.message.contains("strata salvage") {
                Output.error("hint: to keep what precedes the damage, copy it into a new database with `strata salvage PATH --out NEW`")
            }
            throw ExitCode(ToolExit.code(for: error))
        }
    }

    /// Opens the store in `path` read-only, with `key` when it is encrypted: no lock is taken
    /// and nothing on disk changes. Opening scans every record of every segment and checks its
    /// checksum (and, encrypted, its authentication tag). A path that holds no Strata database
    /// is `.notFound` (``DatabasePath``).
    static func openReadOnly(_ path: String, key: KeyFileOption) throws -> Store {
        try DatabasePath.requireDatabase(path)
        var options = Store.Options()
        options.readOnly = true
        options.encryptionKey = try key.key()
        return try Store(directory: path, options: options)
    }

    /// Prints each recovery event as a note (they are what a crash leaves, not errors).
    static func printNotes(_ events: [RecoveryEvent], toStandardError: Bool = false) {
        for event in events {
            let line = "note: \(event)"
            if toStandardError { error(line) } else { print(line) }
        }
    }
}

/// Formatting of figures for people.
enum Format {
    /// `1234567` → `"1,234,567"`.
    static func count<I: BinaryInteger>(_ value: I) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return value < 0 ? "-" + grouped : grouped
    }

    /// A count with its noun, singular for one: `counted(1, "segment")` → `"1 segment"`,
    /// `counted(1200, "class", plural: "classes")` → `"1,200 classes"` (`"1200 classes"`
    /// without `grouped`, for lines scripts read).
    static func counted<I: BinaryInteger>(_ value: I, _ singular: String, plural: String? = nil, grouped: Bool = true) -> String {
        "\(grouped ? count(value) : String(value)) \(value == 1 ? singular : plural ?? singular + "s")"
    }

    /// `1536` → `"1.5 KiB"`, `4194304` → `"4 MiB"`; below 1 KiB, `"512 B"`.
    static func bytes(_ value: Int) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var scaled = Double(value)
        var unit = 0
        while abs(scaled) >= 1024, unit < units.count - 1 {
            scaled /= 1024
            unit += 1
        }
        guard unit > 0 else { return "\(value) B" }
        var number = String(format: "%.1f", scaled)
        if number.hasSuffix(".0") { number.removeLast(2) }
        return number + " " + units[unit]
    }

    /// A ratio as a percentage with one decimal: `0.1234` → `"12.3%"`.
    static func percent(_ ratio: Double) -> String {
        String(format: "%.1f%%", ratio * 100)
    }

    /// Milliseconds with one decimal.
    static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.1f ms", Self.seconds(duration) * 1000)
    }

    /// Operations per second over `duration`, rounded.
    static func rate(_ count: Int, _ duration: Duration, unit: String) -> String {
        let seconds = Self.seconds(duration)
        guard seconds > 0 else { return "-" }
        return "\(Format.count(Int((Double(count) / seconds).rounded()))) \(unit)/s"
    }

    static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}

/// The figures of ``StoreStatistics`` as `strata stats` and `strata demo` print them.
struct StatsReport: Encodable {
    var path: String
    var segments: Int
    var records: Int
    var keys: Int
    var keyspaces: Int
    var totalBytes: Int
    var liveBytes: Int
    var deadBytes: Int
    /// Dead bytes over total bytes, 0…1.
    var deadRatio: Double
    var lastSequence: UInt64
    var recoveryEvents: [String]
    /// The objects of each class that is not embedded, in catalog order; nil without a catalog.
    var objects: [ClassCount]?

    struct ClassCount: Encodable {
        var className: String
        var count: Int
    }

    init(path: String, statistics: StoreStatistics, recoveryEvents: [RecoveryEvent]) {
        self.path = path
        segments = statistics.segments
        records = statistics.records
        keys = statistics.keys
        keyspaces = statistics.keyspaces
        totalBytes = statistics.totalBytes
        liveBytes = statistics.liveBytes
        deadBytes = statistics.deadBytes
        deadRatio = statistics.totalBytes > 0
            ? (Double(statistics.deadBytes) / Double(statistics.totalBytes) * 10_000).rounded() / 10_000
            : 0
        lastSequence = statistics.sequence
        self.recoveryEvents = recoveryEvents.map(\.description)
    }

    /// Aligned `name  value` lines.
    var lines: [String] {
        let rows: [(String, String)] = [
            ("segments", Format.count(segments)),
            ("records", Format.count(records)),
            ("keys", Format.count(keys)),
            ("keyspaces", Format.count(keyspaces)),
            ("total bytes", "\(Format.count(totalBytes)) (\(Format.bytes(totalBytes)))"),
            ("live bytes", "\(Format.count(liveBytes)) (\(Format.bytes(liveBytes)))"),
            ("dead bytes", "\(Format.count(deadBytes)) (\(Format.bytes(deadBytes)), \(Format.percent(deadRatio)) dead)"),
            ("last sequence", Format.count(lastSequence)),
        ]
        let objectRows = (objects ?? []).map { ("objects of \($0.className)", Format.count($0.count)) }
        let width = (rows + objectRows).map(\.0.count).max() ?? 0
        return (rows + objectRows).map { name, value in
            name + String(repeating: " ", count: width - name.count + 2) + value
        }
    }

    /// One JSON object on one line, keys sorted.
    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
